#!/usr/bin/env bash
# The five seeds in the simulator, 3 runs per cell.
# commit: b5bf2d1a649e106a990534a0e5ac5b39aaa7f07f (the commit that added this study)
# Reconstructed from the README and the runs' meta.
# Run from anywhere: it works from the repository root; outputs go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/2026-11-22-sim-reproduce-first}
mkdir -p "$OUT"

for s in idler-llc wake-affine-throttle cache-aware steal asym-capacity; do
  $A sim reproduce $s -r 3 --out "$OUT/$s"
done
