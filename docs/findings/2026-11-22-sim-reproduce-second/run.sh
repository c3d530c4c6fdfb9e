#!/usr/bin/env bash
# The five seeds in the simulator, 5 runs per cell.
# commit: 4d71940c1cf8d0237e4b693e8b68e4e897536e79 (the commit that added this study)
# Reconstructed from the README and the runs' meta.
# Run from anywhere: it works from the repository root; outputs go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/2026-11-22-sim-reproduce-second}
mkdir -p "$OUT"

for s in idler-llc wake-affine-throttle cache-aware steal asym-capacity; do
  $A sim reproduce $s -r 5 --out "$OUT/$s"
done
