#!/usr/bin/env bash
# The seventh held-out verdict: arbor:default against arbor:stock and the
# five peers on the six presets and 12 machines drawn from the seed
# 20261212, named in the closing note of the stop before the last changes
# (two to the simulator: the idle governor made menu's, and wakeprobe's
# latency ending after the first line of its message) and run once after
# them. The command is the sixth held-out verdict's with the new seed.
# The simulator is deterministic: at that commit a rerun writes the same
# summary.json.
. "$(dirname "$0")/../lib.sh"
$A sim verdict -t x86-12 -t xeon-88 -t power11 -t epyc -t spr-2s -t tc2 \
	--machines random:12@20261212 \
	-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 \
	-w pgbench:clients=8,time=2 -w wakeprobe:t=1 -w schbench -w sysbench:time=2 \
	--max-reps 80 --require 80 --out "$OUT"
