# Helpers shared by the guest-side scripts (VM tests, demo, benchmarks).
# Sourced, not run. Expects to run as root on a kernel with sched_ext.

ARBOR_BIN=${ARBOR_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/target/release/scx_arbor}
SCX=/sys/kernel/sched_ext

sched_state() { cat $SCX/state 2>/dev/null; }
sched_ops() { cat $SCX/root/ops 2>/dev/null; }

# start_sched ARGS...: start scx_arbor in the background and wait until the
# kernel reports it enabled. Sets SPID and SLOG. Returns non-zero on failure.
start_sched() {
	SLOG=$(mktemp /tmp/arbor-sched.XXXXXX)
	"$ARBOR_BIN" "$@" >"$SLOG" 2>&1 &
	SPID=$!
	local i
	# up to 3 minutes: under TCG, verifying and attaching takes 5-70 s
	for i in $(seq 1 720); do
		# scx_utils names the ops "arbor_<version>_<target>"
		if [ "$(sched_state)" = enabled ] && [[ "$(sched_ops)" == arbor* ]]; then
			return 0
		fi
		kill -0 "$SPID" 2>/dev/null || { wait "$SPID"; return 1; }
		sleep 0.25
	done
	kill -INT "$SPID" 2>/dev/null; wait "$SPID"
	return 1
}

# stop_sched: SIGINT the scheduler, wait for it; sets SRC to its exit code.
stop_sched() {
	kill -INT "$SPID" 2>/dev/null
	wait "$SPID"
	SRC=$?
	local i
	for i in $(seq 1 40); do
		[ "$(sched_state)" = disabled ] && return 0
		sleep 0.25
	done
	return 1
}

# json_get FILE KEY: a top-level integer from a flat JSON object.
json_get() {
	sed -n "s/^ *\"$2\": *\([0-9]*\).*/\1/p" "$1"
}

# counters_now FILE: the running scheduler's cumulative counters, written to
# FILE (its --stats-json path) on SIGUSR1. Returns non-zero if none came.
counters_now() {
	local i
	rm -f "$1"
	kill -USR1 "$SPID" 2>/dev/null || return 1
	for i in $(seq 1 100); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
