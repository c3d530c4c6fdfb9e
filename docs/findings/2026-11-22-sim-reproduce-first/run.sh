#!/usr/bin/env bash
# The five seeds in the simulator, 3 runs per cell.
# commit: b5bf2d1a649e106a990534a0e5ac5b39aaa7f07f (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

for s in idler-llc wake-affine-throttle cache-aware steal asym-capacity; do
  $A sim reproduce $s -r 3 --out "$OUT/$s"
done
