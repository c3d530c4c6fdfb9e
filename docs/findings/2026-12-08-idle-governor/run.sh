#!/usr/bin/env bash
# The phone random-20261211-8 (4 x capacity 220 + 5 x 770 + 2 x 1024, one
# L3; HiKey's idle states, cpu-sleep 950/1000 us) under wakeprobe, 10 runs
# of arbor:default, arbor:stock and cosmos: the cell that lost most in the
# sixth held-out verdict. Run at the commit before the menu governor
# (837d7f23) and at it, the per-run p99s are the README's table.
# With FULL=1 it also reruns the sixth held-out verdict's command (seed
# 20261211, now a development draw) at this build into $OUT/draw.
# The simulator is deterministic: at the same commit a rerun writes the
# same summary.json.
. "$(dirname "$0")/../lib.sh"
$A sim -t random-20261211-8 -s arbor:default -s arbor:stock -s cosmos \
	-w wakeprobe:t=1 -r 10 --no-charts --out "$OUT"
if [ "${FULL:-0}" = 1 ]; then
	$A sim verdict -t x86-12 -t xeon-88 -t power11 -t epyc -t spr-2s -t tc2 \
		--machines random:12@20261211 \
		-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 \
		-w pgbench:clients=8,time=2 -w wakeprobe:t=1 -w schbench -w sysbench:time=2 \
		--max-reps 80 --out "$OUT/draw"
fi
