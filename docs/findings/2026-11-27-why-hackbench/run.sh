#!/usr/bin/env bash
# Why the peers batch hackbench and perf messaging (trloop.sh and the tr*.py scripts here read the traces).
# commit: f1bd52610509af212997fd5605b6247cbbe30d3b (the commit that added this study)
# Reconstructed from the README: a record, not a tested script (see "other flags not recorded").
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

# other flags not recorded
$A sim -t x86-12 -s arbor:default -s rusty -s cosmos -s arbor:stock \
  -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -r 3 --seed 1 --out "$OUT/x86-abl1" --no-charts
# other flags not recorded
$A sim -t xeon-88 -s arbor:default -s cosmos -s rusty -s arbor:default:NO_WAKE_PREEMPT:slice-us=20000 \
  -s arbor:default:NO_IDLE_PULL -s arbor:default:NO_RUN_TO_PARITY \
  -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -r 3 --seed 1 --out "$OUT/xeon-abl1" --no-charts
