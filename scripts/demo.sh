#!/usr/bin/env bash
# The `make run` demo: hackbench under EEVDF and under scx_arbor, interleaved
# (E A E A ...) in one boot, with scx_arbor's live counters, then a table.
set -u
. "$(dirname "$0")/../tests/vm/lib.sh"
RUNS=${RUNS:-3}
ARGS=${HACKBENCH_ARGS:-"-g 4 -l 200"}
command -v hackbench >/dev/null || { echo "demo: hackbench missing (scripts/install-deps.sh installs rt-tests)" >&2; exit 1; }

echo "== scx_arbor demo on $(nproc) CPUs, kernel $(uname -r): hackbench $ARGS, $RUNS runs each"
declare -a E A
for r in $(seq 1 "$RUNS"); do
	t=$(hackbench $ARGS 2>&1 | awk '/^Time:/ { print $2 }')
	E+=("$t"); echo "run $r  EEVDF      ${t}s"
	start_sched --stats 1 || { echo "demo: scx_arbor failed to load:"; cat "$SLOG"; exit 1; }
	t=$(hackbench $ARGS 2>&1 | awk '/^Time:/ { print $2 }')
	stop_sched
	A+=("$t"); echo "run $r  scx_arbor  ${t}s"
	[ "$r" = 1 ] && { echo "-- scx_arbor's live counters during run 1 (per second):"; grep -E 'wakeups|^ *[0-9]' "$SLOG" | head -12; }
done
stats() { printf '%s\n' "$@" | awk '{ s += $1; q += $1 * $1; n++ } END { m = s / n; v = q / n - m * m; if (v < 0) v = 0; printf "%.3f %.3f", m, sqrt(v) }'; }
read em es < <(stats "${E[@]}")
read am as < <(stats "${A[@]}")
echo
echo "| scheduler | hackbench $ARGS (s), mean | stdev | change vs EEVDF |"
echo "|---|---|---|---|"
echo "| EEVDF | $em | $es | - |"
echo "| scx_arbor | $am | $as | $(awk -v a="$am" -v e="$em" 'BEGIN { printf "%+.1f%%", (a - e) / e * 100 }') |"
echo "(lower is better; under TCG only ratios within one boot mean anything)"
