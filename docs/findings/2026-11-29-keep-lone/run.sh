#!/usr/bin/env bash
# commit: 339826af2cb720a11705560317cf600083750c0e (the commit that added this study)
# keep_prev. Every command of the report, in order. BIN = arbor at this report's commit,
# BIN-MAIN = arbor at a400484 (before). suite: stock + default, bench's six workloads, -r 5 --seed 1.
set -euo pipefail
W6="-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench"
R=docs/findings/2026-11-29-keep-lone
# §1-2 one CPU-bound thread alone
for b in BIN-MAIN BIN; do $b sim -t x86-12 -s arbor:stock -s arbor:default -w sysbench:threads=1,time=2 -r 1 --no-charts; done
scripts/sim-call-profile --top 1 -- -t x86-12 -s arbor:stock -w sysbench:threads=1,time=2 -r 1   # (BIN-MAIN's tree)
# §3 host: the snapshot of 2026-11-26-default-vs-peers-2, rebuilt from the committed one with its cache sizes
S=/tmp/host21; rm -rf $S; cp -a docs/findings/2026-11-26-default-vs-peers-2/held-out/host-snapshot/topology $S
for c in 0 1; do echo 2048K > $S/devices/system/cpu/cpu$c/cache/index2/size; echo 491520K > $S/devices/system/cpu/cpu$c/cache/index3/size; done
BIN-MAIN sim --topology-from $S -s arbor:stock -s arbor:default -w pgbench:clients=8,time=5 -w hackbench:g=2,l=100 -r 5 --seed 1 --out /tmp/h21main --no-charts
#   (compare with ../2026-11-29-waker-copy/suite/host: 2,420 values, all equal)
for m in x86-12 xeon-88 power11 epyc spr-2s host; do
  T="-t $m"; [ $m = host ] && T="--topology-from $S"
  BIN sim $T -s arbor:stock -s arbor:default $W6 -r 5 --seed 1 --out $R/suite/$m --no-charts
  python3 docs/findings/2026-11-28-idle-pull-llc/idle-mask-addr/merge2.py \
    docs/findings/2026-11-28-idle-pull-llc/after-load-idle/$m $R/suite/$m merged/$m
  BIN sim verdict merged/$m > $R/verdict/$m.txt
done
# §4 NEXT_BUDDY
for b in BIN-MAIN BIN; do for m in x86-12 xeon-88 power11; do
  $b sim -t $m -s arbor:stock -s arbor:default -s arbor:default:NO_NEXT_BUDDY -w schbench -r 3 --no-charts; done; done
BIN sim -t xeon-88 -s arbor:default:NEXT_BUDDY -s arbor:default:NO_NEXT_BUDDY -w schbench -r 1 --seed 1 --no-charts
# §6 checks
make unit-test
BIN verifier --kernel default --kernel rt                     # -> docs/verifier
BIN vm -t 2s2c2t -- tests/vm/part.sh core lb
BIN vm -t 2s2c2t -- tests/vm/part.sh ours seeds
