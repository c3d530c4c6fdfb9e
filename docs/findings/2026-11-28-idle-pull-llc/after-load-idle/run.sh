#!/bin/bash
# all seven schedulers, the suite, after cc849f9 (the simulator follows ext.c at load; arbor starts CPUs idle)
B=/work/runs21/binG
for m in x86-12 xeon-88 power11 host spr-2s epyc; do
  if [ $m = host ]; then T="--topology-from /work/runs21/host"; else T="-t $m"; fi
  nice -n 10 $B sim $T -s arbor:stock -s arbor:default -s bpfland -s cosmos -s lavd -s p2dq -s rusty \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench \
    -r 5 --seed 1 --out $m --no-charts > $m.log 2>&1
  echo "$m rc $? $(date +%T)" >> progress.log
done
