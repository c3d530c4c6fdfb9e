#!/usr/bin/env bash
# The default bench suite after the daemon-spin fix, one TCG boot.
# commit: 2f48b0dbec4313e71ac2e6d255ba9fef4dced65e (the commit this study names)
# Reconstructed from the README and the runs' meta.
# Run from anywhere: it works from the repository root; outputs go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/2026-11-22-default-2}
mkdir -p "$OUT"

$A bench --out "$OUT"
