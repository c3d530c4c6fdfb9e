#!/usr/bin/env bash
# lanes.sh NAME=CMD ...: runs each CMD at once in the background (a lane),
# every line of its output prefixed with "[NAME +MM:SS]" (time since the
# lanes started), waits for all of them and fails if any did, naming it.
#
# `make test` runs its VM tests in two such lanes, one TCG guest per host
# core. It used make -j2 before; a CI run of that printed "make[1]: ***
# wait: No child processes" and never finished, so the lanes are plain
# shell jobs, each waited for by its own PID. The times in the prefix say
# where a slow run spent its minutes. Each lane also writes its exit code
# to a file, which decides: where wait(2) is unreliable (the cause of the
# message above, in sandboxes that intercept it), a lane that passed still
# passes, and one that vanished without a code fails. A failed lane's
# last lines are printed again at the end, where a log's tail shows them
# (its guest's lines are otherwise interleaved far above, with the other
# lane's).
set -u
[ $# -gt 0 ] || { echo "usage: lanes.sh NAME=CMD ..." >&2; exit 2; }

start=$SECONDS
RCDIR=$(mktemp -d) || exit 1
trap 'rm -rf "$RCDIR"' EXIT
# prefix NAME: copies stdin to stdout, each line prefixed (no fork per line)
prefix() {
	local line t
	while IFS= read -r line || [ -n "$line" ]; do
		t=$((SECONDS - start))
		printf '[%s +%02d:%02d] %s\n' "$1" $((t / 60)) $((t % 60)) "$line"
	done
}

# running PID: PID exists and is not a zombie (an unreaped lane has ended)
running() {
	local st
	{ read -r st </proc/$1/stat; } 2>/dev/null || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

names=() pids=()
for lane in "$@"; do
	name=${lane%%=*} cmd=${lane#*=}
	[ "$name" != "$lane" ] && [ -n "$name" ] || { echo "lanes.sh: '$lane' is not NAME=CMD" >&2; exit 2; }
	(
		set -o pipefail
		bash -c "$cmd" 2>&1 | prefix "$name" | tee "$RCDIR/$name.log"
		rc=$?
		t=$((SECONDS - start))
		echo "lanes.sh: lane $name ended with exit code $rc after $((t / 60))m$((t % 60))s"
		echo "$rc" >"$RCDIR/$name"
		exit $rc
	) &
	names+=("$name") pids+=($!)
done

failed=()
for i in "${!pids[@]}"; do
	wait "${pids[$i]}"
	# (if wait returned before the lane ended, wait for its code)
	while [ ! -e "$RCDIR/${names[$i]}" ] && running "${pids[$i]}"; do sleep 1; done
	rc=$(cat "$RCDIR/${names[$i]}" 2>/dev/null)
	[ "$rc" = 0 ] || { [ -n "$rc" ] || echo "lanes.sh: lane ${names[$i]} ended without an exit code (killed?)"; failed+=("${names[$i]}"); }
done
for name in "${failed[@]}"; do
	echo "lanes.sh: the last 25 lines of failed lane $name:"
	tail -n 25 "$RCDIR/$name.log" 2>/dev/null
done
[ ${#failed[@]} -eq 0 ] || { echo "lanes.sh: failed: ${failed[*]}" >&2; exit 1; }
