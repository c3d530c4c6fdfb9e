#!/usr/bin/env bash
# The five seeds in the simulator, 5 runs per cell.
# commit: 4d71940c1cf8d0237e4b693e8b68e4e897536e79 (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

for s in idler-llc wake-affine-throttle cache-aware steal asym-capacity; do
  $A sim reproduce $s -r 5 --out "$OUT/$s"
done
