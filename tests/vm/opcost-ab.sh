#!/usr/bin/env bash
# Per-op BPF cost of two scx_arbor builds in one boot (issue 24, item 2):
# A = $A_BIN, B = $B_BIN, alternated A B A B ... ROUNDS times; each round
# loads the build with -vv, runs `hackbench -g 2 -l $LOOPS` then
# `perf bench sched pipe -l $PIPE_LOOPS`, unloads, and keeps the kernel's
# run-time statistics of each struct_ops program (`per-op BPF cost since
# load`, run_time_ns / run_cnt). Prints one line per round and op:
#   OPCOST <A|B> <round> <op> <calls> <total_ns> <ns_per_call>
# Under TCG the absolute ns are emulated time; only the ratio B/A of the
# same op, in the same boot, says something (and not about a real CPU).
# Run: arbor vm --topology 2s2c2t -- env A_BIN=old/scx_arbor B_BIN=new/scx_arbor bash tests/vm/opcost-ab.sh
set -u
. "$(dirname "$0")/lib.sh"

ROUNDS=${ROUNDS:-3}
LOOPS=${LOOPS:-100}
PIPE_LOOPS=${PIPE_LOOPS:-5000}
: "${A_BIN:?A_BIN: the first scx_arbor build}" "${B_BIN:?B_BIN: the second scx_arbor build}"

echo "== guest: $(uname -r), $(nproc) CPUs; A=$A_BIN B=$B_BIN"
for r in $(seq 1 "$ROUNDS"); do
	for ab in A B; do
		bin=A_BIN; [ $ab = B ] && bin=B_BIN
		if ! start_sched_cmd arbor "${!bin}" -vv; then
			fail "round $r: $ab loads"
			continue
		fi
		hackbench -g 2 -l "$LOOPS" >/dev/null 2>&1
		perf bench sched pipe -l "$PIPE_LOOPS" >/dev/null 2>&1
		log=$SLOG
		stop_sched
		check "round $r: $ab ran and unloaded (rc $SRC)" test "$SRC" -eq 0
		# the table after "per-op BPF cost since load:", up to a blank line
		# or the next log line
		awk -v ab=$ab -v r=$r '
			/per-op BPF cost since load/ { on = 1; next }
			on && $1 == "bpf" { next }
			on && NF == 4 && $2 ~ /^[0-9]+$/ { print "OPCOST", ab, r, $1, $2, $3, $4; next }
			on { on = 0 }' "$log"
	done
done
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
