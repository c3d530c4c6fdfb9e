#!/usr/bin/env bash
# SYNC_LOCAL.
# commit: fe2658b3d31ecffb1f2abba4805479b848e320be (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

for m in x86-12 xeon-88 power11; do
  $A sim -t $m -s arbor:stock -s arbor:default:NO_SYNC_LOCAL -s arbor:default \
    -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w hackbench:g=2,l=100 \
    -w perf-messaging:g=2,l=50,mode=thread -w schbench -w wakeprobe:t=4 -r 3 --seed 1 --out "$OUT/$m" --no-charts
done
$A vm --topology 2s2c2t -- tests/vm/part.sh ours
