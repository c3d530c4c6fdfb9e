#!/usr/bin/env bash
# commit: f933ebcf98c5089cbae4cbabb72ba3f81b0f7388 (the binary this study names)
# B: target/release/arbor at f933ebc; MAIN: at 48ed2f9.
set -euo pipefail
B=${B:-./bin}; MAIN=${MAIN:-./bin-main}
W="-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench"
T() { if [ $1 = host ]; then echo "--topology-from ${HOST_SNAPSHOT:-/work/runs21/host}"; else echo "-t $1"; fi; }

# §1: the call-site profile (builds target/call-profile), and its check against bpf:stopping
# scripts/sim-call-profile --op stopping -- -t power11 -s arbor:default -w perf-pipe:l=5000 -r 1 --seed 1 --no-charts
# scripts/sim-call-profile -- $(T host) -s arbor:default -w hackbench:g=2,l=100 -r 1 --seed 1 --no-charts
# host pgbench, stock against default (total calls): the same with -s arbor:stock / -s arbor:default -w pgbench:clients=8,time=5

# §2: the same decisions at zero BPF cost, main against f933ebc
for b in "main $MAIN" "new $B"; do set -- $b
  $2 sim $(T host) -s arbor:stock -s arbor:default -w hackbench:g=2,l=100 -w pgbench:clients=8,time=5 \
    -w wakeprobe:t=4 -w schbench -r 2 --seed 1 --cost bpf_call_ns=0 --cost bpf_callback_ns=0 --out zero-$1 --no-charts
done
# (compare zero-main/results.csv and zero-new/results.csv: 1,964 of 1,964 values equal)

# §3: zero BPF cost, and the traces
$MAIN sim $(T host) -s arbor:stock -s arbor:default -s arbor:default:NO_PREEMPT_SYNC -w pgbench:clients=8,time=5 \
  -r 5 --seed 1 --cost bpf_call_ns=0 --cost bpf_callback_ns=0 --out pgbench-zero --no-charts
for s in stock default; do
  $MAIN sim $(T host) -s arbor:$s -w pgbench:clients=8,time=1 -r 1 --seed 1 --trace tr-$s.json --out tr-$s --no-charts
done
python3 pgbench-trace/slices.py tr-stock.json tr-default.json > pgbench-trace/slices.txt

# §5: the suite, run once
for m in x86-12 xeon-88 power11 epyc spr-2s host; do
  $B sim $(T $m) -s arbor:stock -s arbor:default $W -r 5 --seed 1 --out final/$m --no-charts > final/$m.log 2>&1
done
P=../2026-11-28-idle-pull-llc
# merged with the peers' rows; prev = ../2026-11-28-one-llc-cost/final merged the same way
# for m in ...; python3 $P/idle-mask-addr/merge2.py $P/after-load-idle/$m final/$m merged/$m
# $B sim verdict merged/{x86-12,xeon-88,power11,epyc,spr-2s,host} > final/verdict.txt
# PEROP_OPS=select_cpu,enqueue,running,stopping python3 $P/idle-mask-addr/perop_cmp.py merged prev x86-12 xeon-88 power11 epyc spr-2s host > final/perop.md

# §7: SYNC_LOCAL's deferred join (B7: target/release/arbor at 4a21c73), under sync-join/criterion.txt
B7=${B7:-./bin-7}
for m in x86-12 xeon-88 power11 epyc spr-2s host shape:n=1,l=2,c=6,t=2 shape:n=2,l=3,c=2,t=2; do
  n=$(echo $m | tr ':=,' '___')
  $B7 sim $(T $m) -s arbor:stock -s arbor:default $W -r 5 --seed 1 --out sync-join/run/$n --no-charts
done
# held out "before": the same two shapes with $B; compare.txt: python3 sync-join/welch_cmp.py BEFORE/results.json AFTER/results.json
