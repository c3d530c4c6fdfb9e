#!/usr/bin/env bash
# The default suite through the typed pipeline, all eight schedulers.
# commit: 753ae7c5007cc40fe6a66604b09c7e7508decd03 (the commit this study names)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A bench --out "$OUT"
