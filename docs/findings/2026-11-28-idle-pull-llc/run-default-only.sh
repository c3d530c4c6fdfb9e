#!/bin/bash
# run1.sh BIN OUTPREFIX MACHINE...: arbor:default only, the verdict's 6 workloads, 5 seeds
B=$1; P=$2; shift 2
for m in "$@"; do
  nice -n 10 $B sim -t $m -s arbor:default \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench \
    -r 5 --seed 1 --out $P-$m --no-charts > $P-$m.log 2>&1
  echo "$m rc $? $(date +%T)" >> $P-progress.log
done
