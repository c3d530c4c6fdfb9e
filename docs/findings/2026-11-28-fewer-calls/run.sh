#!/usr/bin/env bash
# commit: c2db6be687ab06e5e3af1ff1b97daad8cb57b69b (the commit that added this study)
# Commands behind docs/findings/2026-11-28-fewer-calls. B = this build's
# target/release/arbor; MAIN = main before it (38fbb9a); HOST = a `--topology-from`
# snapshot of the machine (arbor's `topology snapshot`); peers from
# ../2026-11-28-idle-pull-llc/after-load-idle (unchanged code).
set -euo pipefail
T() { case $1 in host) echo --topology-from $HOST;; *) echo -t $1;; esac; }
suite() { # BIN OUT MACHINE: bench's workloads plus schbench, stock and default
  $1 sim $(T $3) -s arbor:stock -s arbor:default \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 \
    -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench -r 5 --seed 1 \
    --out $2/$(echo $3 | tr ':,=' '___') --no-charts
}

# §1: where default's enqueue calls go on the host's pgbench (cp-enq-*.txt)
for s in stock default; do
  scripts/sim-call-profile --op enqueue --top 30 -- $(T host) -s arbor:$s \
    -w pgbench:clients=8,time=5 -r 1 --seed 1 --no-charts
done
# host-pgbench-steps.md: after each step
$B sim $(T host) -s arbor:stock -s arbor:default -w pgbench:clients=8,time=5 -r 5 --seed 1 --out pg --no-charts

# §1-§3: the same decisions at zero BPF cost (every value of results.csv equal)
for b in "main $MAIN" "new $B"; do set -- $b
  for m in host x86-12; do
    $2 sim $(T $m) -s arbor:stock -s arbor:default -w hackbench:g=2,l=100 -w pgbench:clients=8,time=5 \
      -w perf-messaging:g=2,l=50,mode=thread -w wakeprobe:t=4 -w schbench -r 2 --seed 1 \
      --cost bpf_call_ns=0 --cost bpf_callback_ns=0 --out zero-$1-$m --no-charts
  done
done

# §4: the rule in rebase/criterion.txt; BEFORE = the build of §1-§3 (67391e8)
for m in x86-12 xeon-88 power11 epyc spr-2s host; do suite $BEFORE before $m; suite $B final $m; done
for m in shape:n=1,l=4,c=3,t=2 shape:n=2,l=2,c=5,t=1; do suite $BEFORE before $m; suite $B final $m; done
for m in x86-12 xeon-88 power11 shape_n_1_l_4_c_3_t_2 shape_n_2_l_2_c_5_t_1 epyc spr-2s host; do
  for s in stock default; do python3 ../2026-11-28-call-sites/sync-join/welch_cmp.py before/$m/results.json final/$m/results.json arbor:$s; done
done

# §5-§6: peers merged in, the verdict and the per-op table
P=../2026-11-28-idle-pull-llc
for m in x86-12 xeon-88 power11 epyc spr-2s host; do
  python3 $P/idle-mask-addr/merge2.py $P/after-load-idle/$m final/$m merged/$m
  python3 $P/idle-mask-addr/merge2.py $P/after-load-idle/$m ../2026-11-28-call-sites/sync-join/final/$m prev/$m
done
$B sim verdict merged/{x86-12,xeon-88,power11,epyc,spr-2s,host} > final/verdict.txt
PEROP_OPS=select_cpu,enqueue,running,stopping,dispatch python3 $P/idle-mask-addr/perop_cmp.py \
  merged prev x86-12 xeon-88 power11 epyc spr-2s host > final/perop.md

# §6: x86-12 hackbench against rusty, and SIS_UTIL's part
$B sim -t x86-12 -s arbor:default -s arbor:default:NO_SIS_UTIL -s rusty -w hackbench:g=2,l=100 -r 5 --seed 1 --no-charts
# §7: each of default's features off on the host's pgbench
$B sim $(T host) -s arbor:stock -s arbor:default -s arbor:default:NO_PREEMPT_SYNC -s arbor:default:NO_SYNC_LOCAL \
  -s arbor:default:NO_IDLE_PULL -s arbor:default:NO_WA_THROTTLE -s arbor:default:NO_NEXT_BUDDY \
  -s arbor:default:NO_WA_IDLER_LLC -w pgbench:clients=8,time=5 -r 5 --seed 1 --no-charts
# verifier (docs/verifier)
$B verifier --kernel default --kernel rt
# the tick's idle-bit correction (fc3d06e) against the build before it: every value equal
for b in "before $BEFORE_TICK" "after $B"; do set -- $b
  for m in host power11; do
    $2 sim $(T $m) -s arbor:stock -s arbor:default -w hackbench:g=2,l=100 -w pgbench:clients=8,time=5 \
      -w perf-messaging:g=2,l=50,mode=thread -w wakeprobe:t=4 -w schbench -w perf-pipe:l=5000 -r 2 --seed 1 \
      --out full-$1-$m --no-charts
  done
done
