#!/usr/bin/env bash
# commit: 02ecaf51357eadb110840f08cf42b97b0762834e (the binary this study names)
# The verdict's suite (bench's five workloads plus schbench, every scheduler) on the machines named; A = a binary from 02ecaf5 on, where a
# model workload's tasks are forked by a running parent (README: how the
# committed results were made)
set -euo pipefail
A=${A:?frozen binary}
cd "$(dirname "$0")"
for m in "$@"; do
  nice -n 5 $A sim -t $m -s arbor:stock -s arbor:default -s bpfland -s cosmos -s lavd -s p2dq -s rusty \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench \
    -r 5 --seed 1 --out $m --no-charts > $m.log 2>&1
  echo "$m rc $? $(date +%T)" >> progress.log
done
