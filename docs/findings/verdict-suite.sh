#!/usr/bin/env bash
# The verdict's suite, as the default-vs-peers studies ran it: bench's five
# workloads plus schbench under every scheduler, 5 runs from seed 1, on each
# machine named, into MACHINE/ of the current directory (the finding's).
#   A=FROZEN_BINARY verdict-suite.sh MACHINE...
set -euo pipefail
A=${A:?frozen binary}
for m in "$@"; do
  nice -n 5 $A sim -t $m -s arbor:stock -s arbor:default -s bpfland -s cosmos -s lavd -s p2dq -s rusty \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench \
    -r 5 --seed 1 --out $m --no-charts > $m.log 2>&1
  echo "$m rc $? $(date +%T)" >> progress.log
done
