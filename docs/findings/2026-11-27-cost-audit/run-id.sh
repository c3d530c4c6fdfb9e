#!/bin/bash
# usage: run-id.sh BIN TAG  -- the identity matrix at zero BPF cost
BIN=$1; TAG=$2
for M in x86-12 xeon-88 power11; do
  s=$(date +%s)
  nice -n 10 $BIN sim -t $M -s arbor:stock -s arbor:seeds -s arbor:default \
    -w hackbench:g=2,l=100 -w perf-pipe:l=5000 -w schbench -r 2 --seed 1 \
    --cost bpf_call_ns=0 --cost bpf_callback_ns=0 --no-charts --out id-$TAG-$M > id-$TAG-$M.log 2>&1
  echo "$M rc=$? $(( $(date +%s) - s ))s"
done
