#!/usr/bin/env bash
# Per-op BPF cost of two scx_arbor builds in one boot.
# commit: 459e62e1f61e22616d4382dab44bbcc39bc71587 (the commit that added this study)
# Reconstructed from the README and the runs' meta.
# Run from anywhere: it works from the repository root; outputs go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/2026-11-22-opcost}
mkdir -p "$OUT"

# BEFORE, AFTER: scx_arbor binaries of the two commits compared (MAIN, PART1, AFTER in the README)
BEFORE=${BEFORE:?scx_arbor before} AFTER=${AFTER:?scx_arbor after}
$A vm -t 2s2c2t -- bash bench/opcost.sh "$BEFORE" "$AFTER" 2
