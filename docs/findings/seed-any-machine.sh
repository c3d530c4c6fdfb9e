#!/usr/bin/env bash
# A seed's mechanism on its own machine and on machines of other kinds,
# each cell decided by the verdict's rule (5 runs a side, up to 10):
#   OUT/own-seed/     OWN, added to the seed's kernel-era baseline, with
#                     --sensitivity (--explain implied) for the headline cell
#   OUT/own-current/  OWN, added to today's kernel (arbor:stock), --explain
#   OUT/others/       the OTHERS, today's kernel, --explain
# Usage (from a finding's run.sh): seed-any-machine.sh OUT SEED OWN 'OTHER...' WORKLOAD...
# OUT is relative to the repository's root. The simulator is deterministic:
# a rerun writes the same summary.json files.
set -euo pipefail
out=$1 seed=$2 own=$3 others=$4
shift 4
cd "$(dirname "$0")/../.."
A=./target/release/arbor
R=(-r 5 --max-reps 10)
W=()
for w in "$@"; do W+=(-w "$w"); done
T=()
for m in $others; do T+=(-t "$m"); done
$A sim reproduce "$seed" -t "$own" "${W[@]}" --era seed "${R[@]}" --sensitivity --out "$out/own-seed"
$A sim reproduce "$seed" -t "$own" "${W[@]}" --era current "${R[@]}" --explain --out "$out/own-current"
$A sim reproduce "$seed" "${T[@]}" "${W[@]}" --era current "${R[@]}" --explain --out "$out/others"
