#!/bin/bash
#   arbor vm -t 2s2c2t -- bench/issue3-seeds.sh
# Issue 3 closing measurement: each seed's workload scaled to a 2s2c2t guest, stock vs stock + the mechanism, one boot.
cd "$(dirname "$0")/.."
echo "######## seed 003 STEAL"
SCHEDS='stock=--profile stock;steal=--profile stock -f STEAL' COUNTERS=steal,steal_fail,idle_while_queued_ns \
  bench/ab.sh 3 'hackbench-1g|hackbench -g 1 -l 100|time'
echo "######## seed 000 WA_IDLER_LLC"
SCHEDS='stock=--profile stock;idler=--profile stock -f WA_IDLER_LLC;idler+waker=--profile stock -f WA_IDLER_LLC,WA_WAKER' \
  COUNTERS=idler_llc_this,idler_llc_prev,idler_llc_tie,affine_moves \
  bench/ab.sh 3 'hackbench-2g|hackbench -g 2 -l 100|time'
echo "######## seed 001 WA_THROTTLE"
SCHEDS='stock=--profile stock;throttle1ms=--profile stock -f WA_THROTTLE --wake-affine-interval-ms 1;throttle10ms=--profile stock -f WA_THROTTLE --wake-affine-interval-ms 10' \
  COUNTERS=affine_throttled,affine_moves \
  bench/ab.sh 3 'messaging-threads|perf bench sched messaging -t -g 2 -l 100|messaging'
echo "######## seed 002 CACHE_LB"
SCHEDS='stock=--profile stock;cache=--profile stock -f CACHE_LB --llc-tolerance 25;cache-nolimit=--profile stock -f CACHE_LB --llc-tolerance 100' \
  COUNTERS=llc_pref_tasks_in,llc_pref_tasks_out,llc_migrations_refused \
  bench/ab.sh 3 'sysbench-2x2|sysbench cpu --threads=2 --time=6 run > $ARBOR_TMP/sb1 & sysbench cpu --threads=2 --time=6 run; wait; cat $ARBOR_TMP/sb1|eps' \
  'hackbench-threads-pipe|hackbench -T -p -g 1 -l 100|time'
echo "######## seed 004 ASYM (CPUs 4-7 declared little, 430)"
SCHEDS='stock=--profile stock --cpu-capacity 0-3:1024,4-7:430;asym=--profile stock -f ASYM_WAKE_CAP,ASYM_IDLE_CAPACITY,ASYM_MISFIT --cpu-capacity 0-3:1024,4-7:430' \
  COUNTERS=capacity_placements,misfit_tasks,misfit_migrations \
  bench/ab.sh 3 'sysbench-1t|sysbench cpu --threads=1 --time=6 run|eps'
