#!/usr/bin/env bash
# commit: 56e1541dd112360dd80f08ccff13059be6c1ac9d (the binary this study names)
# The wake-up path's cost. B: target/release/arbor at 56e1541; OLD: at 65504de.
set -euo pipefail
B=${B:-./bin}; OLD=${OLD:-./bin-old}
W="-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench"
T() { if [ $1 = host ]; then echo "--topology-from ${HOST_SNAPSHOT:-/work/runs21/host}"; else echo "-t $1"; fi; }

# §3: the suite, run once (x86-12 and host also had default:NO_PREEMPT_SYNC)
for m in x86-12 xeon-88 power11 epyc spr-2s host; do
  $B sim $(T $m) -s arbor:stock -s arbor:default $W -r 5 --seed 1 --out $m --no-charts > $m.log 2>&1
done
# verdict: merged with the peers' rows (the peers have not changed)
P=../2026-11-28-idle-pull-llc
# for m in ...; python3 $P/idle-mask-addr/merge2.py $P/after-load-idle/$m $m merged/$m
# $B sim verdict merged/{x86-12,xeon-88,power11,epyc,spr-2s,host} > verdict.txt
# per-op: the rows of 2026-11-28-preempt-sync (../2026-11-28-preempt-sync, merged the same way into prev/) against these
# PEROP_OPS=select_cpu,enqueue,running,stopping python3 $P/idle-mask-addr/perop_cmp.py merged prev x86-12 xeon-88 power11 epyc spr-2s host > perop.md

# §1: the same decisions at zero BPF cost, old binary against new, 2 seeds
for m in host x86-12 shape:n=2,l=2,c=3,t=2; do
  n=$(echo $m | tr ':=,' '___')
  for b in "base $OLD" "d $B"; do set -- $b
    $2 sim $(T $m) -s arbor:stock -s arbor:default $W -r 2 --seed 1 \
      --cost bpf_call_ns=0 --cost bpf_callback_ns=0 --out zero-bpf-cost/$1-$n --no-charts
  done
done
# (cd zero-bpf-cost && python3 eqcmp.py host x86-12 shape_n_2_l_2_c_3_t_2 > compare.txt)

# §4, §5 (power11 and epyc ablations, 56e1541):
# $B sim -t power11 -s arbor:default:NO_SIS_NODE $W -r 5 --seed 1 --out ablation/power11
# $B sim -t epyc    -s arbor:default:NO_SIS_NODE $W -r 5 --seed 1 --out ablation/epyc
# SIS_NODE without its idle-time test: arbor_sis_node_idle_ok returning true (not committed),
#   -t power11 -s arbor:default -w schbench -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w wakeprobe:t=4 -r 5
# The two dropped PREEMPT_SYNC variants were built on the branch and run with the host and x86-12 lines above.

# §6: schbench's new measures (abe6970), 5 seeds
# $B sim -t power11 -s arbor:stock -s arbor:default -s arbor:default:NO_SIS_NODE -s cosmos -s lavd -w schbench -r 5 --seed 1 --out schbench-why/power11
# $B sim -t epyc   -s arbor:default -s cosmos -s lavd -w schbench -r 5 --seed 1 --out schbench-why/epyc
# $B sim -t spr-2s -s arbor:default -s cosmos -s lavd -w schbench -r 5 --seed 1 --out schbench-why/spr-2s
# NEXT_BUDDY, development (before it was in default; binary at 9ee31bc's parent plus the feature):
# $B sim -t power11 -s arbor:default -s arbor:default:NEXT_BUDDY -w schbench -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w wakeprobe:t=4 -r 5 --seed 1 --out next-buddy/dev/power11
# $B sim -t x86-12  -s arbor:default -s arbor:default:NEXT_BUDDY $W -r 5 --seed 1 --out next-buddy/dev/x86-12
# $B sim -t xeon-88 -s arbor:default:NEXT_BUDDY $W -r 5 --seed 1 --out next-buddy/dev/xeon-88
# held out, once, after next-buddy/criterion.txt was written:
for m in epyc spr-2s host shape:n=1,l=6,c=2,t=2 shape:n=2,l=4,c=4,t=2; do
  n=$(echo $m | tr ':=,' '___')
  $B sim $(T $m) -s arbor:default -s arbor:default:NEXT_BUDDY $W -r 5 --seed 1 --out next-buddy/held-out/$n --no-charts
done
# (cd next-buddy && python3 nbcmp.py epyc spr-2s host shape_n_1_l_6_c_2_t_2 shape_n_2_l_4_c_4_t_2 > held-out.txt)
# §7: the suite again at 9ee31bc (NEXT_BUDDY in default): as §3, into final/
# §8: the sync buddy (sync-buddy/not-committed.diff applied), once, after sync-buddy/criterion.txt:
# for m in xeon-88 epyc spr-2s host shape:n=4,l=2,c=4,t=1 shape:n=1,l=3,c=4,t=2: $B_SB sim $(T $m) -s arbor:default $W -r 5 --seed 1
#   (the shapes also with 9ee31bc's binary), compared on the primary metrics with Welch's interval -> sync-buddy/held-out.txt
