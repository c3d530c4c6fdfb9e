#!/bin/bash
# Issue 2 closing measurement: EEVDF vs scx_arbor (stock port, default profile), one 2s2c2t boot.
#   arbor vm -t 2s2c2t -- bench/issue2-foundation.sh
cd "$(dirname "$0")/.."
SCHEDS='eevdf;stock=--profile stock;default=--profile default' COUNTERS=idle_while_queued_ns,newidle_pulls,steal \
  bench/ab.sh 3 'hackbench-1g|hackbench -g 1 -l 100|time' 'hackbench-2g|hackbench -g 2 -l 100|time' \
  'hackbench-4g|hackbench -g 4 -l 100|time' 'perf-pipe|perf bench sched pipe -l 10000|pipe'
