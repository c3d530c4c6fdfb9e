#!/bin/bash
# held-out machines, once, with the final binary: the command
B=/work/runs21/binF
for m in epyc spr-2s host; do
  if [ $m = host ]; then T="--topology-from /work/runs21/host"; else T="-t $m"; fi
  nice -n 10 $B sim $T -s arbor:stock -s arbor:default -s bpfland -s cosmos -s lavd -s p2dq -s rusty \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench \
    -r 5 --seed 1 --out $m --no-charts > $m.log 2>&1
  echo "$m rc $? $(date +%T)" >> progress.log
done
