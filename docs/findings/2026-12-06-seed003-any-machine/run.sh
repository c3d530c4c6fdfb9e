#!/usr/bin/env bash
# Seed 003 (STEAL) on its first machine (E5-2630 v4) and on three of other
# kinds (xeon-44 is also one of the seed's own), with hackbench, 2 groups
# (its --quick line's size).
#   own-seed/     e5-2630v4, added to the seed's kernel-era baseline, with
#                 --sensitivity (--explain implied) for the headline cell
#   own-current/  e5-2630v4, added to today's kernel (arbor:stock), --explain
#   others/       epyc xeon-44 tc2, today's kernel, --explain
# Each cell decided by the verdict's rule (5 runs a side, up to 10).
# The simulator is deterministic: a rerun writes the same summary.json files.
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-docs/findings/2026-12-06-seed003-any-machine}
A=./target/release/arbor
R="-r 5 --max-reps 10"
W=(-w "hackbench:g=2,l=800,ipc=socket")
$A sim reproduce steal -t e5-2630v4 "${W[@]}" --era seed $R --sensitivity --out "$OUT/own-seed"
$A sim reproduce steal -t e5-2630v4 "${W[@]}" --era current $R --explain --out "$OUT/own-current"
$A sim reproduce steal -t epyc -t xeon-44 -t tc2 "${W[@]}" --era current $R --explain --out "$OUT/others"
