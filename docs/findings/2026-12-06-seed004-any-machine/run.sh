#!/usr/bin/env bash
# Seed 004 (ASYM_WAKE_CAP) on its own machine (tc2, the only asymmetric preset)
# and on three others (hikey: the symmetric ARM kind), with its sysbench line.
#   own-seed/     tc2, added to the seed's kernel-era baseline, with
#                 --sensitivity (--explain implied) for the headline cell
#   own-current/  tc2, added to today's kernel (arbor:stock), --explain
#   others/       epyc xeon-44 hikey, today's kernel, --explain
# Each cell decided by the verdict's rule (5 runs a side, up to 10).
# The simulator is deterministic: a rerun writes the same summary.json files.
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-docs/findings/2026-12-06-seed004-any-machine}
A=./target/release/arbor
R="-r 5 --max-reps 10"
W=(-w "sysbench:threads=1,time=3")
$A sim reproduce asym-capacity -t tc2 "${W[@]}" --era seed $R --sensitivity --out "$OUT/own-seed"
$A sim reproduce asym-capacity -t tc2 "${W[@]}" --era current $R --explain --out "$OUT/own-current"
$A sim reproduce asym-capacity -t epyc -t xeon-44 -t hikey "${W[@]}" --era current $R --explain --out "$OUT/others"
