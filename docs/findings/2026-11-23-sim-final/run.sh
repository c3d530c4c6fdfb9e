#!/usr/bin/env bash
# The simulator against the VM and the five seeds: closing report.
# commit: 24d7146b728269f21afb4a4b562c1331e8b8dbcc (the commit this study names)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

for s in idler-llc wake-affine-throttle cache-aware steal asym-capacity; do
  $A sim reproduce $s -r 5  --out "$OUT/r5/$s"
  $A sim reproduce $s -r 20 --out "$OUT/r20/$s"
done
$A sim validate --out "$OUT/validate"     # VM side: one TCG boot, 3 runs per cell
$A sim validate --vm-results target/validate/2s2c2t/vm --out "$OUT/validate"   # the simulator side again
