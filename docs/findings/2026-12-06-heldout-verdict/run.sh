#!/usr/bin/env bash
# The held-out verdict: arbor:default against arbor:stock and the five peers
# on the six presets and 12 machines drawn from the seed 20261206, named
# before the last change to default's placement and run once after it, at
# c8d2447. The simulator is deterministic: at that commit a rerun writes the
# same summary.json (sharded with --shard I/N and `arbor sim merge`, or not).
. "$(dirname "$0")/../lib.sh"
$A sim verdict -t x86-12 -t xeon-88 -t power11 -t epyc -t spr-2s -t tc2 \
	--machines random:12@20261206 \
	-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 \
	-w pgbench:clients=8,time=2 -w wakeprobe:t=1 -w schbench -w sysbench:time=2 \
	--max-reps 20 --require 80 --out "$OUT"
