#!/usr/bin/env bash
# Large LLCs: a 72-CPU LLC (one 36-core, 2-thread socket) loads
# scx_arbor and survives a short stress run. Run by `make test` as:
#   arbor vm -t sockets=1,cores=36,threads=2 -- tests/vm/bigllc.sh
# Past 64 CPUs an LLC's masks take a second word (intf.h's
# LLC_MASK_WORDS), which is what this checks; 72 and not more, as TCG runs
# every vCPU on one host thread and boot time grows with them (96 took 7
# minutes to boot on a loaded host). Few tasks, short runs.
# Prints PASS/FAIL per check and exits non-zero on any failure.
set -u
. "$(dirname "$0")/lib.sh"

NCPU=$(nproc)
SECS=${BIGLLC_SECS:-20}

echo "== guest: $(uname -r), $NCPU CPUs; scx_arbor: $ARBOR_BIN"
llc_max=$(for f in /sys/devices/system/cpu/cpu[0-9]*/cache/index3/shared_cpu_list; do
	awk -F, '{ n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }' "$f"
done | sort -n | tail -1)
check "the guest has an LLC of more than 64 CPUs ($llc_max)" test "${llc_max:-0}" -gt 64

J="$ARBOR_TMP/bigllc.json"
rm -f $J
if start_sched -v --stats-json $J; then
	pass "loads: a ${llc_max}-CPU LLC is accepted and the verifier passes"
	check "reports the big LLC" grep -q "^topology: cpus=$NCPU .*llcs=1 " "$SLOG"
	# few tasks: TCG runs every vCPU on one host thread. Each step has a
	# bound (exit 124 past it), so a stalled one fails here, named, instead
	# of hanging the guest until arbor vm's --timeout.
	timeout 300 stress-ng --temp-path /tmp -c 8 -t "$SECS" >"$ARBOR_TMP/bigllc-stress.log" 2>&1
	rc=$?
	check "stress-ng -c 8 for ${SECS}s completed (exit $rc)" test $rc -eq 0
	timeout 300 hackbench -g 2 -l 50 >/dev/null 2>&1
	rc=$?
	check "hackbench -g 2 -l 50 completed (exit $rc)" test $rc -eq 0
	# pinned tasks on CPUs past 64 run (wake-ups and scans reach them)
	ok=1
	for c in 65 $((NCPU - 4)) $((NCPU - 1)); do
		timeout 60 taskset -c "$c" sh -c 'i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done' || ok=0
	done
	check "tasks pinned to CPUs 65, $((NCPU - 4)), $((NCPU - 1)) ran" test $ok -eq 1
	check "not ejected: still enabled and running" sched_alive
	stop_sched
	check "SIGINT unloads cleanly (exit 0, state disabled)" test "$SRC" -eq 0 -a "$(sched_state)" = disabled
	check "unload reason is user space, not an ejection" grep -q 'unregistered from user space' "$SLOG"
	# LB_IMBALANCE's balancer scans a 72-CPU LLC's cores at the LLC level
	echo "INFO: lb_pulls $(json_get $J lb_pulls), lb_active $(json_get $J lb_active), busy_pulls $(json_get $J busy_pulls), newidle_pulls $(json_get $J newidle_pulls)"
	w=$(json_get $J wakeups)
	check "wake-ups were placed (wakeups=${w:-none})" test "${w:-0}" -gt 0
else
	fail "loads: scx_arbor did not start on a ${llc_max}-CPU LLC"
	[ -n "${SLOG:-}" ] && tail -n 40 "$SLOG"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
