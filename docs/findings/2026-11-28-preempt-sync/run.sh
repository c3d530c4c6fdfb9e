#!/usr/bin/env bash
# commit: d31a45a50024c66644e3f373b01dee4fd55789cd (the binary this study names)
# The suite with PREEMPT_SYNC in default (d31a45a's binary), run once
# on the six machines with nothing changed after: arbor:stock and
# arbor:default; the peers' rows are ../2026-11-28-idle-pull-llc/after-load-idle's
# (the peers have not changed since), merged by merge2.py for the verdicts.
set -euo pipefail
B=${B:-./bin}   # target/release/arbor at d31a45a
for m in x86-12 xeon-88 power11 epyc spr-2s host; do
  if [ $m = host ]; then T="--topology-from ${HOST_SNAPSHOT:-/work/runs21/host}"; else T="-t $m"; fi
  $B sim $T -s arbor:stock -s arbor:default \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench \
    -r 5 --seed 1 --out $m --no-charts > $m.log 2>&1
done
# verdicts: for m in ...; python3 ../2026-11-28-idle-pull-llc/idle-mask-addr/merge2.py ../2026-11-28-idle-pull-llc/after-load-idle/$m $m merged/$m
#   arbor sim verdict merged/{x86-12,xeon-88,power11}    > verdict-dev.txt
#   arbor sim verdict merged/{epyc,spr-2s,host}          > verdict-held-out.txt
# per-op table: python3 ../2026-11-28-idle-pull-llc/idle-mask-addr/perop_cmp.py . ../2026-11-28-idle-pull-llc/after-load-idle x86-12 xeon-88 power11 epyc spr-2s host > perop.md

# Machines never looked at before this run (unseen/): PREEMPT_SYNC's own effect
W="-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench"
for m in xeon-44 power10 tc2; do
  $B sim -t $m -s arbor:stock -s arbor:default:NO_PREEMPT_SYNC -s arbor:default $W -r 5 --seed 1 --out unseen/$m --no-charts > unseen-$m.log 2>&1
done
