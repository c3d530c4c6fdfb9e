#!/usr/bin/env bash
# lanes.sh NAME=CMD ...: runs each CMD at once in the background (a lane),
# every line of its output prefixed with "[NAME +MM:SS]" (time since the
# lanes started), waits for all of them and fails if any did, naming it.
#
# `make test` runs its VM tests in two such lanes, one TCG guest per host
# core. It used make -j2 before; a CI run of that printed "make[1]: ***
# wait: No child processes" and never finished, so the lanes are plain
# shell jobs, each waited for by its own PID. The times in the prefix say
# where a slow run spent its minutes.
set -u
[ $# -gt 0 ] || { echo "usage: lanes.sh NAME=CMD ..." >&2; exit 2; }

start=$SECONDS
# prefix NAME: copies stdin to stdout, each line prefixed (no fork per line)
prefix() {
	local line t
	while IFS= read -r line || [ -n "$line" ]; do
		t=$((SECONDS - start))
		printf '[%s +%02d:%02d] %s\n' "$1" $((t / 60)) $((t % 60)) "$line"
	done
}

names=() pids=()
for lane in "$@"; do
	name=${lane%%=*} cmd=${lane#*=}
	[ "$name" != "$lane" ] && [ -n "$name" ] || { echo "lanes.sh: '$lane' is not NAME=CMD" >&2; exit 2; }
	(
		set -o pipefail
		bash -c "$cmd" 2>&1 | prefix "$name"
		rc=$?
		t=$((SECONDS - start))
		echo "lanes.sh: lane $name ended with exit code $rc after $((t / 60))m$((t % 60))s"
		exit $rc
	) &
	names+=("$name") pids+=($!)
done

failed=()
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || failed+=("${names[$i]}")
done
[ ${#failed[@]} -eq 0 ] || { echo "lanes.sh: failed: ${failed[*]}" >&2; exit 1; }
