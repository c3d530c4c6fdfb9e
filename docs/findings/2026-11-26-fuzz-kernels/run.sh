#!/usr/bin/env bash
# Fuzz cases a user machine meets, and more kernels.
# commit: 858dc6bb742b0088ea6d03f49a73893e1ff7216b (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A sim fuzz --cases 20000 --seed 2 --time 2100 --out "$OUT/fuzz"
$A verifier --kernel default --kernel rt --kernel next
$A vm --kernel next -- scx_arbor -vv
