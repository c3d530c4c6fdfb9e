#!/usr/bin/env bash
# Seed 001 (WA_THROTTLE, wake_affine_interval 1 ms) on its own machine and on
# three of other kinds, with its pgbench line of 8 clients (its largest gain).
#   own-seed/     x86-12, added to the seed's kernel-era baseline, with
#                 --sensitivity (--explain implied) for the headline cell
#   own-current/  x86-12, added to today's kernel (arbor:stock), --explain
#   others/       epyc xeon-44 tc2, today's kernel, --explain
# Each cell decided by the verdict's rule (5 runs a side, up to 10).
# The simulator is deterministic: a rerun writes the same summary.json files.
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-docs/findings/2026-12-06-seed001-any-machine}
A=./target/release/arbor
R="-r 5 --max-reps 10"
W=(-w "pgbench:clients=8,jobs=1,time=1")
$A sim reproduce wake-affine-throttle -t x86-12 "${W[@]}" --era seed $R --sensitivity --out "$OUT/own-seed"
$A sim reproduce wake-affine-throttle -t x86-12 "${W[@]}" --era current $R --explain --out "$OUT/own-current"
$A sim reproduce wake-affine-throttle -t epyc -t xeon-44 -t tc2 "${W[@]}" --era current $R --explain --out "$OUT/others"
