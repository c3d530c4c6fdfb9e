#!/usr/bin/env bash
# Guest side (arbor vm -t 2s2c2t -- bash docs/findings/2026-12-06-asym-capacity/vm.sh):
# `stock` on a guest whose CPUs 4-7 are declared little (--cpu-capacity; QEMU
# cannot set cpu_capacity itself). A CPU-bound thread started on little CPU 6,
# then allowed everywhere: with stock's ASYM_MISFIT it moves to a big CPU
# (0-3) by the misfit path; with NO_ASYM_MISFIT,NO_ASYM_IDLE_CAPACITY (stock
# before this study) the misfit path never acts.
. "$(dirname "$0")/../../../tests/vm/lib.sh"
run() { # flags...; prints the share of samples on CPUs 0-3 and the misfit counters
	local j big=0 n=0 i line a pid
	j=$(mktemp "$ARBOR_TMP/asym.XXXXXX.json")
	start_sched -p stock --cpu-capacity 0-3:1024,4-7:430 "$@" --stats-json "$j" || { echo "FAIL: load $*"; return 1; }
	taskset -c 6 sh -c 'while :; do :; done' &
	pid=$!
	nap 1
	taskset -p -c 0-7 $pid >/dev/null
	nap 2
	for i in $(seq 1 20); do
		read -r line </proc/$pid/stat || break
		a=($line)
		[ "${a[38]}" -lt 4 ] && big=$((big + 1))
		n=$((n + 1))
		nap 0.2
	done
	kill $pid; wait_limit $pid 30 2>/dev/null
	stop_sched
	echo "stock $*: on big CPUs $((100 * big / (n ? n : 1)))% of $n samples; misfit_tasks=$(json_get $j misfit_tasks) misfit_migrations=$(json_get $j misfit_migrations) capacity_placements=$(json_get $j capacity_placements)"
}
run
run -f NO_ASYM_MISFIT,NO_ASYM_IDLE_CAPACITY
