#!/usr/bin/env bash
# commit: 82c5e43e045987cebb92ad163e27e27e7421af18 (the commit that added this study)
# SYNC_PAIR. Every command of the report, in order.
# BIN-MAIN = arbor built at a58dc8b (main before), BIN = this branch's arbor.
# suite2.sh BIN OUTDIR MACHINE [-s ...] runs bench's six workloads, -r 5 --seed 1:
#   arbor sim $T -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread \
#     -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench \
#     -r 5 --seed 1 --out OUT/MACHINE --no-charts      ($T: -t MACHINE, or --topology-from HOST for the host)
set -euo pipefail
HOST=--topology-from\ /path/to/host-snapshot   # arbor sim snapshot DIR on this machine
W=docs/findings/2026-11-28-call-sites/sync-join/welch_cmp.py

# §1 the cell: main's stock and default, and default without PREEMPT_SYNC
BIN-MAIN sim $HOST -s arbor:stock -s arbor:default -w pgbench:clients=8,time=5 -r 5 --seed 1 --out pg0
BIN-MAIN sim $HOST -s arbor:stock -s arbor:default:NO_PREEMPT_SYNC -w pgbench:clients=8,time=5 -r 5 --seed 1 --out pg3

# §2 development: v1 (pair exempt from the deferral only) and v2 (= SYNC_PAIR) against main's default
for m in host x86-12 xeon-88 power11; do
  suite2.sh BIN-V1 v1 $m -s arbor:default; suite2.sh BIN-V2 v2 $m -s arbor:default
  python3 $W main/$m/results.json v1/$m/results.json; python3 $W main/$m/results.json v2/$m/results.json
done   # -> dev/v1-vs-main.txt, dev/v2-vs-main.txt

# §3 held out (criterion.txt written first), once
for m in shape:n=1,l=1,c=2,t=2 shape:n=1,l=1,c=3,t=1 shape:n=2,l=2,c=4,t=2; do
  suite2.sh BIN-MAIN held-main $m -s arbor:default
  suite2.sh BIN held-pair $m -s arbor:stock -s arbor:default
  python3 $W held-main/${m//[:,=]/_}/results.json held-pair/${m//[:,=]/_}/results.json
done   # -> held-out/compare.txt
# §6 found there: every default feature off in turn, pgbench on the 32-CPU shape
BIN sim -t shape:n=2,l=2,c=4,t=2 -s arbor:stock -s arbor:default \
  $(for f in WA_IDLER_LLC WA_THROTTLE CACHE_LB CACHE_ROOM WAKE_NODE IDLE_PULL SYNC_LOCAL SIS_NODE PREEMPT_SYNC NEXT_BUDDY SYNC_PAIR; do echo -s arbor:default:NO_$f; done) \
  -w pgbench:clients=8,time=5 -r 3 --seed 1 --out abl   # -> held-out/n2-l2-c4-t2-pgbench-ablation.log

# §4 the issue's suite: stock and default of this build, merged with the peers' rows (unchanged since 2026-11-28-one-llc-cost)
for m in host x86-12 xeon-88 power11 epyc spr-2s; do
  suite2.sh BIN final $m -s arbor:stock -s arbor:default
  python3 docs/findings/2026-11-28-idle-pull-llc/idle-mask-addr/merge2.py \
    docs/findings/2026-11-28-idle-pull-llc/after-load-idle/$m final/$m final/merged/$m
done
BIN sim verdict final/merged/{x86-12,xeon-88,power11,epyc,spr-2s,host} > final/verdict.txt
PEROP_OPS=select_cpu,enqueue,running,stopping,dispatch python3 \
  docs/findings/2026-11-28-idle-pull-llc/idle-mask-addr/perop_cmp.py final/merged SESSION26/merged \
  x86-12 xeon-88 power11 epyc spr-2s host > final/perop.md

# §5 real pgbench, recorded on this host and replayed
BIN bench --host -s eevdf -w pgbench:clients=8,xacts=500 --record-traces traces
for k in 1 2 3; do
  f=traces/pgbench_clients_8_xacts_500-r$k.data
  BIN sim trace-info $f      # pgbench's pid and its 8 backends' (exited postgres processes)
  # from = the last backend's first event after the first replayed event (as arbor sim reproduce's pgbench_keys)
  BIN sim $HOST -w "trace:$f,pid=PIDS,from=FROM" -s arbor:stock -s arbor:default \
    -s arbor:default:NO_SYNC_PAIR -r 5 --seed 1 --out replayf-r$k
done   # -> traces/replay.txt, traces/with-vs-without.txt

# §8 CACHE_LB out of default (no-cache-lb/criterion.txt written first)
N=arbor:default:NO_CACHE_LB,NO_CACHE_ROOM
for m in shape:n=1,l=2,c=4,t=2 shape:n=2,l=4,c=2,t=2 shape:n=1,l=4,c=2,t=4; do
  suite2.sh BIN held $m -s arbor:stock -s arbor:default -s $N   # -> no-cache-lb/held-compare.txt (Welch, each pair)
done
for m in host x86-12 xeon-88 power11 epyc spr-2s; do
  suite2.sh BIN six $m -s $N
  # its rows renamed arbor:default, with §4's stock rows -> no-cache-lb/final/$m; merged with the peers as in §4
done
BIN sim verdict merged/{x86-12,xeon-88,power11,epyc,spr-2s,host} > no-cache-lb/verdict.txt
BIN sim -t hikey -s arbor:stock -s arbor:default -s arbor:seeds -w wakeprobe:t=4 -r 5 --seed 1 --out hikey   # -> no-cache-lb/hikey-wakeprobe.txt

# §7 checks
make unit-test sim-test
arbor vm -t 2s2c2t -- tests/vm/part.sh ours
arbor verifier --kernel default --kernel rt
