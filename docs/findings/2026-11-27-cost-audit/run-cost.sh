#!/bin/bash
# usage: run-cost.sh BIN TAG [peers] -- default cost: per-op matrix and the two timing runs
BIN=$1; TAG=$2; PEERS=$3
P=""; [ -n "$PEERS" ] && P="-s bpfland -s cosmos"
for M in x86-12 xeon-88 power11; do
  s=$(date +%s)
  nice -n 10 $BIN sim -t $M -s arbor:stock -s arbor:seeds -s arbor:default $P \
    -w hackbench:g=2,l=100 -w perf-pipe:l=5000 -w schbench --seed 1 \
    --no-charts --out op-$TAG-$M > op-$TAG-$M.log 2>&1
  echo "op $M rc=$? $(( $(date +%s) - s ))s"
done
s=$(date +%s)
nice -n 10 $BIN sim -t power11 -s arbor:default -s arbor:stock -s bpfland -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -r 2 --seed 1 --no-charts --out tm-$TAG-power11 > tm-$TAG-power11.log 2>&1
echo "tm power11 rc=$? $(( $(date +%s) - s ))s"
s=$(date +%s)
nice -n 10 $BIN sim -t xeon-88 -s arbor:default -s arbor:stock -s cosmos -w hackbench:g=2,l=100 -r 3 --seed 1 --no-charts --out tm-$TAG-xeon-88 > tm-$TAG-xeon-88.log 2>&1
echo "tm xeon-88 rc=$? $(( $(date +%s) - s ))s"
