#!/usr/bin/env bash
# commit: 6ad5822276588a82c4073bfeff4002558a412a1b (the commit that added this study)
# the waker's state from its CPU's copy.
# Every command of the report, in order. BIN-MAIN = arbor built at 8441db4
# (main before), BIN = this branch's arbor (scx_arbor beside each).
# suite2.sh BIN OUTDIR MACHINE [-s ...] runs bench's six workloads, -r 5 --seed 1:
#   arbor sim $T -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread \
#     -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench \
#     -r 5 --seed 1 --out OUT/MACHINE --no-charts      ($T: -t MACHINE, or --topology-from HOST for the host)
set -euo pipefail
HOST=--topology-from\ /path/to/host-snapshot   # arbor sim snapshot DIR on this machine
W6="-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench"

# §1 where select_cpu's calls go (main)
scripts/sim-call-profile --op select_cpu --op enqueue -- -t xeon-88 -s arbor:default -w hackbench:g=2,l=100 -r 1
scripts/sim-call-profile --op enqueue -- -t power11 -s arbor:default -w wakeprobe:t=4 -r 1

# §2 no decision changed: calls free (bpf_call_ns=0), both builds, 7 machines x 3 profiles x 6 workloads, seed 1
for b in BIN-MAIN:base BIN:ws; do
  for m in x86-12 xeon-88 power11 epyc spr-2s host hikey; do
    T="-t $m"; [ $m = host ] && T=$HOST
    ${b%%:*} sim $T -s arbor:default -s arbor:seeds -s arbor:stock --cost bpf_call_ns=0 $W6 \
      -r 1 --seed 1 --out ${b##*:}/$m --no-charts
  done
done
for m in x86-12 xeon-88 power11 epyc spr-2s host hikey; do   # -> equivalence.txt
  python3 docs/findings/2026-11-29-waker-copy/celldiff.py base/$m/results.json ws/$m/results.json
done
# the same check's power: BIN with stopping()'s copy back removed, xeon-88, hackbench + pgbench

# §3 the suite: stock and default of this build, merged with the peers' rows (unchanged since 2026-11-28-one-llc-cost)
for m in x86-12 xeon-88 power11 epyc spr-2s host; do
  suite2.sh BIN suite $m -s arbor:stock -s arbor:default
  python3 docs/findings/2026-11-28-idle-pull-llc/idle-mask-addr/merge2.py \
    docs/findings/2026-11-28-idle-pull-llc/after-load-idle/$m suite/$m merged/$m
  BIN sim verdict merged/$m > verdict/$m.txt
done
# before: ours from 2026-11-29-sync-pair (docs/findings/2026-11-29-sync-pair/no-cache-lb/final) merged the same way
for m in x86-12 xeon-88 power11 epyc spr-2s host; do
  python3 docs/findings/2026-11-28-idle-pull-llc/idle-mask-addr/merge2.py \
    docs/findings/2026-11-28-idle-pull-llc/after-load-idle/$m \
    docs/findings/2026-11-29-sync-pair/no-cache-lb/final/$m before/$m
done
PEROP_OPS=select_cpu,enqueue,running,stopping,dispatch python3 \
  docs/findings/2026-11-28-idle-pull-llc/idle-mask-addr/perop_cmp.py \
  merged before x86-12 xeon-88 power11 epyc spr-2s host > perop.md

# §4 checks
make unit-test sim-test
BIN verifier --kernel default --kernel rt                      # -> docs/verifier
BIN vm -t 2s2c2t -- tests/vm/part.sh ours
BIN vm -t 2s2c2t -- tests/vm/part.sh seeds
BIN vm -t 2s2c2t -- bench/opcost.sh SCX_ARBOR-MAIN SCX_ARBOR 3  # -> vm-opcost.txt
