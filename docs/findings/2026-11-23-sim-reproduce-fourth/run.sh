#!/usr/bin/env bash
# Seeds 000 and 002 after the schbench and wake-latency fixes.
# commit: 1c83b4f47e2424925bec7e6f51b84f9b0c974f7e (the commit that added this study)
# Reconstructed from the README and the runs' meta.
# Run from anywhere: it works from the repository root; outputs go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
A=./target/release/arbor
OUT=${OUT:-/tmp/2026-11-23-sim-reproduce-fourth}
mkdir -p "$OUT"

$A sim reproduce idler-llc -r 5 --out "$OUT/idler-llc"
$A sim reproduce cache-aware -r 5 --out "$OUT/cache-aware"
$A sim reproduce cache-aware -r 10 --table schbench --out "$OUT/cache-aware-schbench-r10"
