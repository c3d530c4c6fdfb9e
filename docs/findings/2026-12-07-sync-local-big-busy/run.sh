#!/usr/bin/env bash
# SYNC_LOCAL_BIG_BUSY, on and off in default, on every asymmetric machine
# the scheduler has been developed on: the hikey and tc2 presets and the
# hybrid and phone machines of the draws random:12@7, @20261206, @20261207
# and @20261208. The verdict's rule judges default against default without
# the rule (the baseline) and stock (the one peer), cell by cell, with more
# runs for a cell it cannot decide. The simulator is deterministic: at the
# same commit a rerun writes the same summary.json.
. "$(dirname "$0")/../lib.sh"
M=""
for m in hikey tc2 \
	random-7-9 random-7-10 random-7-11 \
	random-20261206-0 random-20261206-4 random-20261206-7 \
	random-20261207-0 random-20261207-1 random-20261207-3 random-20261207-4 \
	random-20261207-5 random-20261207-6 random-20261207-9 random-20261207-10 \
	random-20261208-0 random-20261208-5 random-20261208-7 random-20261208-8 \
	random-20261208-9 random-20261208-10 random-20261208-11; do
	M="$M -t $m"
done
# shellcheck disable=SC2086
$A sim verdict $M \
	-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 \
	-w pgbench:clients=8,time=2 -w wakeprobe:t=1 -w schbench -w sysbench:time=2 \
	--baseline arbor:default:NO_SYNC_LOCAL_BIG_BUSY -p arbor:stock \
	--max-reps 20 --out "$OUT"
