#!/usr/bin/env bash
# Seed 002 (CACHE_LB) on its own machine and on three of other kinds, with
# one line of each of its tables (hackbench pipe, 4 groups; schbench, 16 workers).
#   own-seed/     power11, added to the seed's kernel-era baseline, with
#                 --sensitivity (--explain implied) for the headline cell
#   own-current/  power11, added to today's kernel (arbor:stock), --explain
#   others/       epyc xeon-44 tc2, today's kernel, --explain
# Each cell decided by the verdict's rule (5 runs a side, up to 10).
# The simulator is deterministic: a rerun writes the same summary.json files.
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-docs/findings/2026-12-06-seed002-any-machine}
A=./target/release/arbor
R="-r 5 --max-reps 10"
W=(-w "hackbench:g=4,l=1000,ipc=pipe" -w "schbench:m=1,w=16,r=1")
$A sim reproduce cache-aware -t power11 "${W[@]}" --era seed $R --sensitivity --out "$OUT/own-seed"
$A sim reproduce cache-aware -t power11 "${W[@]}" --era current $R --explain --out "$OUT/own-current"
$A sim reproduce cache-aware -t epyc -t xeon-44 -t tc2 "${W[@]}" --era current $R --explain --out "$OUT/others"
