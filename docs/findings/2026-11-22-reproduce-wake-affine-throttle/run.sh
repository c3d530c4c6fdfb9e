#!/usr/bin/env bash
# Seed 001 reproduced in the VM.
# commit: 1ee3a6721a390abd2a651e34d5a0c834a2b24277 (the commit this study names)
# Reconstructed from the README and the runs' meta.
# Run from anywhere: it works from the repository root; outputs go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/2026-11-22-reproduce-wake-affine-throttle}
mkdir -p "$OUT"

$A bench reproduce wake-affine-throttle -o "$OUT"
