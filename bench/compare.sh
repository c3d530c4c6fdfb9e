#!/usr/bin/env bash
# Side-by-side measurement in one guest boot: EEVDF vs scx_arbor, runs
# interleaved (E A E A ...) so drift cancels; mean, stdev and % change per
# workload; scx_arbor's work-conservation gap (idle_while_queued_ns as a
# share of CPU time) per workload.
#   arbor vm --topology 2s2c2t -- bench/compare.sh [RUNS]
# Extra scx_arbor flags: ARBOR_FLAGS="-f NO_NEWIDLE" bench/compare.sh
set -u
. "$(dirname "$0")/../tests/vm/lib.sh"
RUNS=${1:-3}
ARBOR_FLAGS=${ARBOR_FLAGS:-}
WORKLOADS=(
	"hackbench-1g|hackbench -g 1 -l ${LOOPS:-100}|time"
	"hackbench-2g|hackbench -g 2 -l ${LOOPS:-100}|time"
	"hackbench-4g|hackbench -g 4 -l ${LOOPS:-100}|time"
	"perf-pipe|perf bench sched pipe -l ${PIPE_LOOPS:-10000}|pipe"
)
OUT=$(mktemp -d /tmp/arbor-compare.XXXXXX)

metric() { # kind, output file -> seconds
	case $1 in
	time) awk '/^Time:/ { print $2 }' "$2" ;;
	pipe) awk '/Total time:/ { print $3 }' "$2" ;;
	esac
}

echo "== compare: $(nproc) CPUs, $(uname -r), $RUNS interleaved runs, arbor flags: '${ARBOR_FLAGS}'"
for w in "${WORKLOADS[@]}"; do
	IFS='|' read -r name cmd kind <<<"$w"
	for r in $(seq 1 "$RUNS"); do
		$cmd >"$OUT/raw" 2>&1
		echo "eevdf $name $(metric $kind $OUT/raw)" >>"$OUT/results"
		# shellcheck disable=SC2086
		start_sched $ARBOR_FLAGS --stats-json "$OUT/$name.$r.json" || { echo "scx_arbor failed to load"; cat "$SLOG"; exit 1; }
		$cmd >"$OUT/raw" 2>&1
		stop_sched
		[ "$SRC" -eq 0 ] || echo "WARNING: scx_arbor exited $SRC during $name run $r"
		echo "arbor $name $(metric $kind $OUT/raw)" >>"$OUT/results"
		j="$OUT/$name.$r.json"
		echo "gap $name $(json_get $j idle_while_queued_ns) $(json_get $j busy_ns) $(json_get $j idle_ns)" >>"$OUT/results"
		printf '%s run %s: eevdf %s s, arbor %s s\n' "$name" "$r" \
			"$(awk -v n="$name" '$1=="eevdf" && $2==n { v=$3 } END { print v }' "$OUT/results")" \
			"$(awk -v n="$name" '$1=="arbor" && $2==n { v=$3 } END { print v }' "$OUT/results")"
	done
done
echo
echo
echo "| workload | EEVDF (s) mean ± sd | scx_arbor (s) mean ± sd | change | scx_arbor idle-while-queued % of CPU time |"
echo "|---|---|---|---|---|"
for w in "${WORKLOADS[@]}"; do
	IFS='|' read -r name cmd kind <<<"$w"
	awk -v n="$name" '
		$1 == "eevdf" && $2 == n { e[++ne] = $3 }
		$1 == "arbor" && $2 == n { a[++na] = $3 }
		$1 == "gap" && $2 == n { g += $3; t += $4 + $5 }
		function mean(x, k,   s, i) { s = 0; for (i = 1; i <= k; i++) s += x[i]; return s / k }
		function sd(x, k, m,   s, i) { s = 0; for (i = 1; i <= k; i++) s += (x[i] - m) ^ 2; return k > 1 ? sqrt(s / (k - 1)) : 0 }
		END {
			me = mean(e, ne); ma = mean(a, na)
			printf "| %s | %.3f ± %.3f | %.3f ± %.3f | %+.1f%% | %.2f%% |\n", n, me, sd(e, ne, me), ma, sd(a, na, ma), (ma - me) / me * 100, t ? 100 * g / t : 0
		}' "$OUT/results"
done
echo "(time: lower is better; runs: $(awk '$1=="eevdf"' "$OUT/results" | wc -l) EEVDF, $(awk '$1=="arbor"' "$OUT/results" | wc -l) scx_arbor)"
