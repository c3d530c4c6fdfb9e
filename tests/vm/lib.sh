# Helpers shared by the guest-side scripts (VM tests, demo, benchmarks).
# Sourced, not run. Expects to run as root on a kernel with sched_ext.

ARBOR_BIN=${ARBOR_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/target/release/scx_arbor}
SCX=/sys/kernel/sched_ext
# A private directory (0700, from mktemp -d) for every temporary file: the
# guest's /tmp is an overlay of the host's, where any user could plant a
# fixed name (a symlink, a FIFO) for these root scripts to follow.
if [ -z "${ARBOR_TMP:-}" ] || [ ! -d "$ARBOR_TMP" ] || [ ! -O "$ARBOR_TMP" ] || [ -L "$ARBOR_TMP" ]; then
	ARBOR_TMP=$(mktemp -d /tmp/arbor.XXXXXX) || { echo "lib.sh: mktemp -d failed" >&2; exit 1; }
fi
export ARBOR_TMP

# The checks' counters and reporters, defined once for every VM script: a
# script run alone starts from 0, one sourced by suite.sh adds to its counts.
: "${PASS:=0}" "${FAIL:=0}"
pass() { echo "PASS: $*"; PASS=$((PASS + 1)); }
# a failure shows the tail of the scheduler's log, if one was started
fail() { echo "FAIL: $*"; FAIL=$((FAIL + 1)); [ -n "${SLOG:-}" ] && [ -f "$SLOG" ] && tail -n 20 "$SLOG" | sed 's/^/    | /'; }
check() { local d=$1; shift; if "$@"; then pass "$d"; else fail "$d"; fi; }
# one_line_error EXPECT CMD...: CMD fails with exactly one line of output
# (stderr + stdout) that contains EXPECT
one_line_error() {
	local want=$1; shift
	local out rc
	out=$("$@" 2>&1 >/dev/null); rc=$?
	[ $rc -ne 0 ] && [ "$(printf '%s\n' "$out" | grep -c .)" -eq 1 ] && printf '%s' "$out" | grep -q -- "$want"
}

sched_state() { cat $SCX/state 2>/dev/null; }
sched_ops() { cat $SCX/root/ops 2>/dev/null; }

# nap SECS: sleep without an exec (under TCG each exec costs up to seconds,
# more than the naps themselves): read -t on a pipe nobody writes to.
exec {NAP_FD}<> <(:)
nap() { read -r -t "$1" -u "$NAP_FD"; }

# wait_limit PID SECS: wait for our child PID at most SECS seconds, then
# SIGKILL it (saying so); returns (and sets WRC to) its exit code, 137
# when it had to be killed. A hung scheduler must not hang the suite.
wait_limit() {
	local pid=$1 i
	# a builtin loop: under TCG an exec of seq costs up to a second
	for ((i = 0; i < $2 * 4; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		nap 0.25
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "wait_limit: pid $pid still running after $2 s; killing it" >&2
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid"
	WRC=$?
	return $WRC
}

# start_sched_cmd OPS CMD ARGS...: start a sched_ext scheduler in the
# background and wait until the kernel reports it enabled with an ops name
# starting with OPS (scx_utils names them "<name>_<version>_<target>").
# Sets SPID and SLOG. Returns non-zero on failure.
start_sched_cmd() {
	local ops=$1 i
	shift
	SLOG=$(mktemp "$ARBOR_TMP/sched.XXXXXX")
	"$@" >"$SLOG" 2>&1 &
	SPID=$!
	# up to 4 minutes: under TCG, verifying and attaching takes 5-75 s
	for i in $(seq 1 960); do
		if [ "$(sched_state)" = enabled ] && [[ "$(sched_ops)" == "$ops"* ]]; then
			return 0
		fi
		kill -0 "$SPID" 2>/dev/null || { wait "$SPID"; SPID=; return 1; }
		nap 0.25
	done
	kill -INT "$SPID" 2>/dev/null; wait_limit "$SPID" 60; SPID=
	return 1
}

# start_sched ARGS...: scx_arbor with ARGS.
start_sched() { start_sched_cmd arbor "$ARBOR_BIN" "$@"; }

# wait_disabled N: wait up to N quarter-seconds for sched_ext to be disabled.
wait_disabled() {
	local i
	for i in $(seq 1 "$1"); do
		[ "$(sched_state)" = disabled ] && return 0
		nap 0.25
	done
	return 1
}

# stop_sched: SIGINT the scheduler, wait for it (at most 2 minutes: an
# unload takes seconds; under TCG tens of them) and for sched_ext to be
# disabled; sets SRC to its exit code (137 if it had to be killed).
stop_sched() {
	SRC=0
	[ -n "${SPID:-}" ] || return 0
	kill -INT "$SPID" 2>/dev/null
	wait_limit "$SPID" 120
	SRC=$?
	SPID=
	wait_disabled 80
}

# sched_alive: the scheduler we started still runs and sched_ext is enabled.
sched_alive() {
	[ -n "${SPID:-}" ] && kill -0 "$SPID" 2>/dev/null && [ "$(sched_state)" = enabled ]
}

# arbor_share_check WHAT WANT OK FN: FN prints a share in per mille; run
# under scx_arbor (started here, stopped after), PASS if `OK share` holds
# and the scheduler stayed loaded, against fair.c's WANT. Sets S; returns
# non-zero only if scx_arbor did not load.
arbor_share_check() {
	local what=$1 want=$2 ok=$3 fn=$4 alive
	S=
	start_sched || { fail "scx_arbor loads"; return 1; }
	S=$($fn)
	alive=$(sched_alive && echo yes)
	stop_sched
	echo "scx_arbor: $what = ${S} per mille (fair.c: $want)"
	if $ok "$S" && [ "$alive" = yes ]; then
		pass "scx_arbor: $what = ${S}/1000, fair.c $want"
	else
		fail "scx_arbor: $what = ${S}/1000, fair.c $want (alive: ${alive:-no})"
	fi
	return 0
}

# asym_run PROFILE FLAGS...: scx_arbor -p PROFILE with CPUs 4-7 declared
# little (430); a CPU-bound thread started on little CPU 6, then allowed
# on all 8. Sets BIG (share of 20 samples on CPUs 0-3, %) and J (counters).
asym_run() {
	local profile=$1
	shift
	J=$(mktemp "$ARBOR_TMP/seed.XXXXXX.json")
	start_sched -p "$profile" --cpu-capacity 0-3:1024,4-7:430 "$@" --stats-json "$J" || return 1
	taskset -c 6 sh -c 'while :; do :; done' &
	local pid=$! big=0 n=0 i line a
	nap 1
	taskset -p -c 0-7 $pid >/dev/null
	nap 2
	# sampled with bash builtins (/proc/PID/stat's field 39 is the CPU):
	# under TCG an exec of ps costs a second, ten samples' time
	for i in $(seq 1 20); do
		read -r line </proc/$pid/stat || break
		a=($line)
		[ "${a[38]}" -lt 4 ] && big=$((big + 1))
		n=$((n + 1))
		nap 0.2
	done
	[ $n -gt 0 ] || n=1
	kill $pid; wait_limit $pid 30 2>/dev/null
	stop_sched
	BIG=$((100 * big / n))
}

# json_get FILE KEY: a top-level integer from a flat JSON object.
json_get() {
	sed -n "s/^ *\"$2\": *\([0-9]*\).*/\1/p" "$1"
}

# list_names features|counters: the names scx_arbor declares, one per line,
# from `--list-features --json` / `--list-counters --json` (bit / enum order),
# never scraped from the text tables.
list_names() {
	"$ARBOR_BIN" --list-$1 --json | python3 -c '
import json, sys
print("\n".join(x["name"] for x in json.load(sys.stdin)[sys.argv[1]]))' "$1"
}

# counters_now FILE: the running scx_arbor's cumulative counters, written to
# FILE (its --stats-json path) on SIGUSR1. Returns non-zero if none came.
counters_now() {
	local i
	rm -f "$1"
	kill -USR1 "$SPID" 2>/dev/null || return 1
	# up to 30 s: under TCG on a loaded host the dump can take over 10
	for i in $(seq 1 300); do
		[ -s "$1" ] && return 0
		nap 0.1
	done
	return 1
}

# ours_run FLAGS -- COMMAND...: run COMMAND under scx_arbor -p stock
# FLAGS; leaves the counters in $J and sets OK (command and unload clean).
ours_run() {
	local flags=() rc
	while [ "$1" != "--" ]; do flags+=("$1"); shift; done
	shift
	J=$(mktemp "$ARBOR_TMP/ours.XXXXXX.json")
	OK=no
	start_sched -p stock "${flags[@]}" --stats-json "$J" || return 1
	"$@" >/dev/null 2>&1
	rc=$?
	alive=$(sched_alive && echo yes)
	stop_sched
	[ "$rc" -eq 0 ] && [ "$alive" = yes ] && [ "$SRC" -eq 0 ] && OK=yes
	return 0
}
