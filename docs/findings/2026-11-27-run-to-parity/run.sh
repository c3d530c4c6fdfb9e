#!/usr/bin/env bash
# RUN_TO_PARITY in the baseline port.
# commit: ac19393d616fad412c05d1bae6a9d8b5209f92ce (the commit that added this study)
# Reconstructed from the README: a record, not a tested script (see "other flags not recorded").
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

# other flags not recorded
for m in x86-12 xeon-88 power11; do
  $A sim -t $m -s arbor:default:NO_RUN_TO_PARITY -s arbor:default -s cosmos \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w wakeprobe:t=4 -w schbench -r 3 --seed 1 --out "$OUT/$m" --no-charts
done
$A sim calibrate --quick --reps 3
for s in idler-llc steal asym-capacity; do $A sim reproduce $s --quick; done
