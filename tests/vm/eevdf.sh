#!/usr/bin/env bash
# EEVDF ordering in a guest:
#  1. two CPU-bound tasks at nice 0 and nice 5 pinned to one CPU share it
#     as fair.c's weights say (1024 : 335, nice 0 gets 75.4%) to within 5%,
#     under scx_arbor (and, for reference, under the kernel's EEVDF);
#  2. `perf bench sched pipe` with both tasks pinned to one CPU, EEVDF vs
#     scx_arbor, alternated, PIPE_RUNS each (no placement: what is left is
#     the BPF and sched_ext cost per switch), with scx_arbor's wake-up
#     latency histogram over its runs.
# Run: arbor vm --topology 2s2c2t -- bash tests/vm/eevdf.sh
# Prints PASS/FAIL lines; exits non-zero if any check failed.
set -u
. "$(dirname "$0")/lib.sh"

NICE_SECS=${NICE_SECS:-8}
PIPE_RUNS=${PIPE_RUNS:-3}
PIPE_LOOPS=${PIPE_LOOPS:-20000}

# cpu_ticks PID: utime + stime of a process, in clock ticks
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# nice_share: prints the nice-0 task's share of CPU 1, in per mille
nice_share() {
	local a b a0 b0 a1 b1
	taskset -c 1 nice -n 0 sh -c 'while :; do :; done' &
	a=$!
	taskset -c 1 nice -n 5 sh -c 'while :; do :; done' &
	b=$!
	nap 2	# start-up
	a0=$(cpu_ticks $a); b0=$(cpu_ticks $b)
	nap "$NICE_SECS"
	a1=$(cpu_ticks $a); b1=$(cpu_ticks $b)
	# bounded (wait_limit): a loop that outlives SIGTERM is killed after
	# 30 s instead of hanging the guest until arbor vm's --timeout
	kill $a $b; wait_limit $a 30 2>/dev/null; wait_limit $b 30 2>/dev/null
	echo $(( 1000 * (a1 - a0) / (a1 - a0 + b1 - b0 + 1) ))
}

echo "== guest: $(uname -r), $(nproc) CPUs; scx_arbor: $ARBOR_BIN"

# ---- 1. nice 0 vs nice 5 on one CPU (NICE_TEST=0 skips it) ----
if [ "${NICE_TEST:-1}" = 1 ]; then
WANT=754	# 1024 / (1024 + 335), per mille
within5() { local s=$1; [ $(( (s - WANT) * 100 )) -le $(( 5 * WANT )) ] && [ $(( (WANT - s) * 100 )) -le $(( 5 * WANT )) ]; }
s=$(nice_share)
echo "EEVDF: nice-0 share of CPU 1 = ${s} per mille (fair.c's weights: $WANT)"
arbor_share_check "nice-0 share of CPU 1 against nice 5 (within 5%)" $WANT within5 nice_share
fi

# ---- 2. perf bench sched pipe, both tasks on CPU 1 ----
# usecs/op of one run
pipe_once() {
	taskset -c 1 perf bench sched pipe -l "$PIPE_LOOPS" 2>/dev/null |
		awk '/usecs\/op/ { print $1 }'
}
J="$ARBOR_TMP"/eevdf-pipe.json
# ARBOR_BASE_BIN (optional): another scx_arbor build measured in the same
# rounds, e.g. the one before a change, to see what the change costs
E=""
A=""
B=""
alive=yes
stats() { echo "$@" | tr ' ' '\n' | awk 'NF { n++; s += $1; q += $1 * $1; if (n == 1 || $1 < mn) mn = $1; if ($1 > mx) mx = $1 }
	END { m = s / n; sd = sqrt((q - n * m * m) / (n > 1 ? n - 1 : 1)); printf "n=%d mean=%.2f sd=%.2f min=%.2f max=%.2f usecs/op", n, m, sd, mn, mx }'; }
# rounds alternate the schedulers (EEVDF, scx_arbor[, base]) so that a
# slow phase of the host hits them alike; scx_arbor's counters are summed
# over its runs from snapshots taken right before and after each
rm -f "$ARBOR_TMP"/eevdf-hist.txt
for r in $(seq 1 "$PIPE_RUNS"); do
	E="$E $(pipe_once)"
	if start_sched --stats-json $J; then
		counters_now $J && cp $J "$ARBOR_TMP"/eevdf-c0.json
		A="$A $(pipe_once)"
		counters_now $J && cp $J "$ARBOR_TMP"/eevdf-c1.json
		sched_alive || alive=no
		stop_sched
		for k in wake_direct wake_direct_ns wake_queued wake_queued_ns \
			$(for i in $(seq 0 15); do echo wlat_direct_$i wlat_queued_$i; done); do
			echo "$k $(( $(json_get "$ARBOR_TMP"/eevdf-c1.json $k) - $(json_get "$ARBOR_TMP"/eevdf-c0.json $k) ))"
		done >>"$ARBOR_TMP"/eevdf-hist.txt
	else
		alive=no
	fi
	if [ -n "${ARBOR_BASE_BIN:-}" ] && start_sched_cmd arbor "$ARBOR_BASE_BIN"; then
		B="$B $(pipe_once)"
		stop_sched
	fi
done
echo "perf bench sched pipe -l $PIPE_LOOPS, taskset -c 1 (TCG), rounds alternated:"
echo "  EEVDF:     $(stats $E)   [$E ]"
echo "  scx_arbor: $(stats $A)   [$A ]"
[ -n "$B" ] && echo "  base ($ARBOR_BASE_BIN): $(stats $B)   [$B ]"
# the wake-up latency histograms over scx_arbor's pipe runs
sum() { awk -v k="$1" '$1 == k { s += $2 } END { printf "%.0f\n", s }' "$ARBOR_TMP"/eevdf-hist.txt; }
for kind in direct queued; do
	n=$(sum wake_$kind); ns=$(sum wake_${kind}_ns)
	h=""
	for i in $(seq 0 15); do h="$h $(sum wlat_${kind}_$i)"; done
	echo "  wake-up latency, $kind wakees: n=$n mean=$(( n > 0 ? ns / n : 0 )) ns; log2 buckets (<1us, 1-2us, 2-4us, ...):$h"
done
na=$(echo $A | wc -w); ne=$(echo $E | wc -w)
if [ "$alive" = yes ] && [ "$na" -eq "$PIPE_RUNS" ] && [ "$ne" -eq "$PIPE_RUNS" ]; then
	pass "perf bench sched pipe pinned to one CPU: $PIPE_RUNS runs each, scx_arbor not ejected"
else
	fail "perf bench sched pipe pinned: runs arbor=$na eevdf=$ne alive=$alive"
fi
if [ -s $J ]; then
	q=$(json_get $J wake_queued)
	if [ "${q:-0}" -gt 0 ]; then
		pass "wake-up latency counters in --stats-json (wake_queued=$q)"
	else
		fail "wake-up latency counters in --stats-json (wake_queued=${q:-missing})"
	fi
else
	fail "--stats-json written"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
