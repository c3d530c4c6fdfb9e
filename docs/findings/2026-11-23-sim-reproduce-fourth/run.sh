#!/usr/bin/env bash
# Seeds 000 and 002 after the schbench and wake-latency fixes.
# commit: 1c83b4f47e2424925bec7e6f51b84f9b0c974f7e (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A sim reproduce idler-llc -r 5 --out "$OUT/idler-llc"
$A sim reproduce cache-aware -r 5 --out "$OUT/cache-aware"
$A sim reproduce cache-aware -r 10 --table schbench --out "$OUT/cache-aware-schbench-r10"
