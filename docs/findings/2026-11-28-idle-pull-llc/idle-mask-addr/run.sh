#!/bin/bash
# Section 6: arbor:stock and arbor:default with the idle mask read from its
# address (7a1976a's binary), the issue's suite; the peers' rows are
# after-load-idle's (unchanged since), merged by merge2.py for the verdicts.
B=./bin   # target/release/arbor at 7a1976a
for m in x86-12 xeon-88 power11 epyc spr-2s host; do
  if [ $m = host ]; then T="--topology-from /work/runs21/host"; else T="-t $m"; fi
  $B sim $T -s arbor:stock -s arbor:default \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench \
    -r 5 --seed 1 --out $m --no-charts > $m.log 2>&1
done
# verdicts: python3 merge2.py ../after-load-idle/M M merged/M, then
#   arbor sim verdict merged/{x86-12,xeon-88,power11}    > verdict-dev.txt
#   arbor sim verdict merged/{epyc,spr-2s,host}          > verdict-held-out.txt
# per-op table: python3 perop_cmp.py . ../after-load-idle x86-12 xeon-88 power11 epyc spr-2s host > perop.md
