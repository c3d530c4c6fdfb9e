#!/usr/bin/env bash
# run.sh's step 4 (also run alone on run.sh's OUT): each matrix cell whose
# after-range lies below its before-range again, the first and the last
# build in turn, PASSES alternations (default 3) of N2 runs (default 5) each,
# into $OUT/recheck.json and summary.json's "recheck".
#   OUT=/tmp/speed7 docs/findings/2026-12-08-sim-speed-7/recheck.sh
. "$(dirname "$0")/../lib.sh"
PASSES=${PASSES:-3}
N2=${N2:-5}
first=$(jq -r '.row[0].build' "$OUT/summary.json")
last=$(jq -r '.row[-1].build' "$OUT/summary.json")
: >"$OUT/recheck.jsonl"
jq -r '.matrix_slower_by_range[] | "\(.machine)\t\(.sched)\t\(.workload)"' "$OUT/summary.json" |
	while IFS=$'\t' read -r m s w; do
		for i in $(seq "$PASSES"); do
			for rev in "$first" "$last"; do
				"$OUT/speed-$rev" -n "$N2" --only "$m " --only " $s " --only " $w" --json "$OUT/cell.json" >/dev/null
				jq -c --arg build "$rev" --argjson i "$i" '.[] | {build: $build, pass: $i, machine, sched, workload,
					mevs_median: (.mevs_median * 1000 | round / 1000),
					mevs_min: (.mevs_min * 1000 | round / 1000), mevs_max: (.mevs_max * 1000 | round / 1000)}' \
					"$OUT/cell.json" >>"$OUT/recheck.jsonl"
			done
		done
	done
jq -s --arg f "$first" --arg l "$last" 'group_by([.machine, .sched, .workload]) | map({
	machine: .[0].machine, sched: .[0].sched, workload: .[0].workload,
	before: map(select(.build == $f) | [.mevs_median, .mevs_min, .mevs_max]),
	after: map(select(.build == $l) | [.mevs_median, .mevs_min, .mevs_max])})
	| map(. + {after_ahead_in_passes: ([range(0; .before | length)] as $r
	    | [$r[] as $i | select(.after[$i][0] >= .before[$i][0])] | length)})' \
	"$OUT/recheck.jsonl" >"$OUT/recheck.json"
jq --slurpfile r "$OUT/recheck.json" '. + {recheck: $r[0]}' "$OUT/summary.json" >"$OUT/summary.json.new"
mv "$OUT/summary.json.new" "$OUT/summary.json"
jq -r '.[] | "\(.machine) \(.sched) \(.workload): before \(.before | map(.[0])) after \(.after | map(.[0])) after ahead in \(.after_ahead_in_passes) of \(.before | length)"' "$OUT/recheck.json"
