#!/usr/bin/env bash
# The VM suite on the PREEMPT_RT kernel.
# commit: 526f7963822f88ac75c6b2529c245d349080fbea (the commit that added this study)
# Reconstructed from the README and the runs' meta.
# Run from anywhere: it works from the repository root; outputs go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/2026-11-26-rt-suite}
mkdir -p "$OUT"

$A vm --kernel rt --topology 2s2c2t -- tests/vm/suite.sh
$A vm --kernel rt -- tests/vm/part.sh seeds
$A verifier --kernel default --kernel rt --kernel next
