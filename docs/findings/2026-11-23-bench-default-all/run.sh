#!/usr/bin/env bash
# The default suite through the typed pipeline, all eight schedulers.
# commit: 753ae7c5007cc40fe6a66604b09c7e7508decd03 (the commit this study names)
# Reconstructed from the README and the runs' meta.
# Run from anywhere: it works from the repository root; outputs go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/2026-11-23-bench-default-all}
mkdir -p "$OUT"

$A bench --out "$OUT"
