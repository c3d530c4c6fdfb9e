#!/usr/bin/env bash
# The default bench suite, one TCG boot (scx_arbor from the same commit).
# commit: 4dd7da6cc764160101b5cadb6210a18299c64d61 (the commit this study names)
# Reconstructed from the README and the runs' meta.
# Run from anywhere: it works from the repository root; outputs go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/2026-11-22-default}
mkdir -p "$OUT"

$A bench --out "$OUT"
