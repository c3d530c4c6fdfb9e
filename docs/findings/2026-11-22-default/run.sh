#!/usr/bin/env bash
# The default bench suite, one TCG boot (scx_arbor from the same commit).
# commit: 4dd7da6cc764160101b5cadb6210a18299c64d61 (the commit this study names)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A bench --out "$OUT"
