#!/usr/bin/env bash
# Seed 003 (STEAL) in the simulator.
# commit: 8bb9e56099db8bc6d2bedd18f4c8c1433fd322dd (the commit that added this study)
# Reconstructed from the README and the runs' meta.
# Run from anywhere: it works from the repository root; outputs go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/2026-11-23-sim-reproduce-steal}
mkdir -p "$OUT"

$A sim reproduce steal -r 5 --out "$OUT"
$A sim reproduce steal --quick
