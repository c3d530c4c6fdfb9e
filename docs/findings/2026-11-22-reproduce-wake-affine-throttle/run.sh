#!/usr/bin/env bash
# Seed 001 reproduced in the VM.
# commit: 1ee3a6721a390abd2a651e34d5a0c834a2b24277 (the commit this study names)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A bench reproduce wake-affine-throttle -o "$OUT"
