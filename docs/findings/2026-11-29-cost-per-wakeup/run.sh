#!/usr/bin/env bash
# commit: a400484803cd2430e6093dc8b98c2a00479338ee (the commit that added this study)
# BPF ns per wake-up, every scheduler.
# BIN = arbor built at this report's commit. Every command of the report, in order.
set -euo pipefail
BIN=${BIN:-target/release/arbor}
OUT=${1:-docs/findings/2026-11-29-cost-per-wakeup}
HOST=docs/findings/2026-11-26-default-vs-peers-2/held-out/host-snapshot/topology
W6="-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench"
for m in x86-12 xeon-88 power11 epyc spr-2s host; do
  T="-t $m"; [ $m = host ] && T="--topology-from $HOST"
  $BIN sim $T -s arbor:stock -s arbor:default -s bpfland -s cosmos -s lavd -s p2dq -s rusty \
    $W6 -r 3 --seed 1 --out $OUT/$m --no-charts      # (results.csv dropped from the commit)
done
python3 $OUT/table.py $OUT x86-12 xeon-88 power11 epyc spr-2s host > $OUT/table.md
# where schbench's per-wake-up cost goes (calls per op and site)
scripts/sim-call-profile --top 3 -- -t x86-12 -s arbor:default -w schbench -r 1   # -> call-profile-x86-12-schbench.txt
# a lone CPU-bound task under arbor:stock: its slice ends pass through idle (§4)
scripts/sim-call-profile --top 1 -- -t x86-12 -s arbor:stock -w sysbench:threads=1,time=2 -r 1
