#!/usr/bin/env bash
# Runs the speed example on each cell given ("MACHINE SCHEDULER WORKLOAD"),
# N runs a cell, with BEFORE (an earlier build of it, if set) in turn
# after each, then joins the cells into $OUT/rows.json and
# $OUT/summary.json. Called by a speed finding's run.sh from the
# repository's root with S, N, OUT and BEFORE set.
set -euo pipefail
BEFORE=${BEFORE:-}
rm -rf "$OUT/cells"
mkdir -p "$OUT/cells"
i=00
for c in "$@"; do
	read -r m s w <<<"$c"
	i=$(printf %02d $((10#$i + 1)))
	only=(--only "$m " --only " $s " --only " $w")
	"$S" -n "$N" "${only[@]}" --json "$OUT/cells/$i.after.json" | grep -v '^|---' | tee -a "$OUT/after.log"
	if [ -n "$BEFORE" ]; then
		"$BEFORE" -n "$N" "${only[@]}" --json "$OUT/cells/$i.before.json" | grep -v '^|---' | tee -a "$OUT/before.log"
	fi
done
# one row per cell: its figures, and the earlier build's beside them
jq -s 'add' "$OUT"/cells/*.after.json >"$OUT/after.json"
if [ -n "$BEFORE" ]; then
	jq -s 'add' "$OUT"/cells/*.before.json >"$OUT/before.json"
	jq -n --slurpfile a "$OUT/after.json" --slurpfile b "$OUT/before.json" '
		[range(0; $a[0] | length) as $k | $a[0][$k] as $x | $b[0][$k] as $y
		 | {machine: $x.machine, cpus: $x.cpus, sched: $x.sched, workload: $x.workload,
		    events: $x.events, same_events: ($x.events == $y.events),
		    before_mevs_median: $y.mevs_median, before_min: $y.mevs_min, before_max: $y.mevs_max,
		    after_mevs_median: $x.mevs_median, after_min: $x.mevs_min, after_max: $x.mevs_max,
		    speedup_median: ($x.mevs_median / $y.mevs_median)}]' >"$OUT/rows.json"
else
	cp "$OUT/after.json" "$OUT/rows.json"
fi
# one cell a line, figures to 3 decimals
{
	echo '['
	jq -c '.[] | with_entries(if (.value | type) == "number" then .value = ((.value * 1000 | round) / 1000) else . end)' "$OUT/rows.json" | sed '$!s/$/,/'
	echo ']'
} >"$OUT/summary.json"
echo "wrote $OUT/summary.json"
