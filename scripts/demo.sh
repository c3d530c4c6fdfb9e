#!/usr/bin/env bash
# The `make run` demo: hackbench under EEVDF and under scx_arbor, interleaved
# (E A E A ...), as an `arbor bench` table: natively when this kernel has
# sched_ext and we are root (--host), else in a TCG guest.
#   RUNS=5 HACKBENCH=g=4,l=200 scripts/demo.sh
set -eu
cd "$(dirname "$0")/.."
where=()
if [ -e /sys/kernel/sched_ext ] && [ "$(id -u)" -eq 0 ]; then
	where=(--host)
fi
exec ./target/release/arbor bench "${where[@]}" -r "${RUNS:-3}" --no-charts --brief \
	-s eevdf -s arbor:default -w "hackbench:${HACKBENCH:-g=2,l=100}"
