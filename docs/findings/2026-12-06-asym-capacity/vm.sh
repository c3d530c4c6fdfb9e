#!/usr/bin/env bash
# Guest side (arbor vm -t 2s2c2t -- bash docs/findings/2026-12-06-asym-capacity/vm.sh):
# `stock` on a guest whose CPUs 4-7 are declared little (--cpu-capacity; QEMU
# cannot set cpu_capacity itself). A CPU-bound thread started on little CPU 6,
# then allowed everywhere (tests/vm/lib.sh asym_run): with stock's ASYM_MISFIT
# it moves to a big CPU (0-3) by the misfit path; with
# NO_ASYM_MISFIT,NO_ASYM_IDLE_CAPACITY (stock before this study) the misfit
# path never acts.
. "$(dirname "$0")/../../../tests/vm/lib.sh"
for flags in "" "-f NO_ASYM_MISFIT,NO_ASYM_IDLE_CAPACITY"; do
	# shellcheck disable=SC2086 # the flags are words
	asym_run stock $flags || { echo "FAIL: stock $flags does not load"; continue; }
	echo "stock $flags: on big CPUs $BIG% of 20 samples;" \
		"misfit_tasks=$(json_get $J misfit_tasks) misfit_migrations=$(json_get $J misfit_migrations)" \
		"capacity_placements=$(json_get $J capacity_placements)"
done
