#!/usr/bin/env bash
# Every peer that runs in the simulator, at three scales.
# commit: 866a56f7b7fc9dceb85cba02207e416e1fdac53c (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

for m in x86-12 xeon-88 power11; do
  $A sim -t $m -s arbor:stock -s arbor:default -s bpfland -s cosmos -s lavd -s p2dq -s rusty \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench -r 5 --seed 1 --out "$OUT/$m" --no-charts
  $A sim -t $m -s arbor:stock -s cosmos -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench -r 5 --seed 1 --out "$OUT/$m/cosmos" --no-charts
  $A sim -t $m -s arbor:stock -s lavd -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench -r 5 --seed 1 --out "$OUT/lavd/$m" --no-charts
done
