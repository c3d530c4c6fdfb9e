#!/usr/bin/env bash
# The default suite through the typed pipeline, five schedulers.
# commit: 32d92cc350ff090147ab854951d4d85b39aca5a6 (the commit this study names)
# Reconstructed from the README and the runs' meta.
# Run from anywhere: it works from the repository root; outputs go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/2026-11-23-bench-default}
mkdir -p "$OUT"

$A bench -s eevdf -s arbor:stock -s arbor:default -s bpfland -s cosmos --out "$OUT"
