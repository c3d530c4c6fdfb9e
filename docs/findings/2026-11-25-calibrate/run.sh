#!/usr/bin/env bash
# arbor sim calibrate on this host.
# commit: 025e0b96ba6faebaf4c891d7a160424235369228 (the commit that added this study)
# Reconstructed from the README and the runs' meta.
# Run from anywhere: it works from the repository root; outputs go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/2026-11-25-calibrate}
mkdir -p "$OUT"

$A sim calibrate --reps 7 --out "$OUT"
