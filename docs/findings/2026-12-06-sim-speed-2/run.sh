#!/usr/bin/env bash
# The simulator's speed on the fixed matrix of sim/examples/speed.rs
# (`make sim-speed`) and its EXTRA cells (wakeprobe, pgbench): M events per
# second of host CPU time per core, min / median / max over N runs a cell
# (default 3), with the host's load average before and after each cell.
#
# BEFORE=BINARY: also run that build of the speed example (built at an
# earlier commit), cell by cell in turn with this one, so that both see the
# same load; summary.json then has both and their ratio.
#   OUT=/tmp/speed2 BEFORE=/tmp/speed-before N=3 docs/findings/2026-12-06-sim-speed-2/run.sh
. "$(dirname "$0")/../lib.sh"
cargo build --release --locked -p arbor_sim --example speed
# S=BINARY: time that build instead of the one just made
S=${S:-./target/release/examples/speed}
N=${N:-3}
BEFORE=${BEFORE:-}
machines=(x86-12 xeon-88 power11 shape:n=4,l=4,c=16,t=2)
workloads=(hackbench:g=8,l=400 perf-messaging:g=8,l=100 perf-pipe:l=20000 schbench:r=2 trace:TRACE)
scheds=(arbor:default bpfland cosmos)
# speed.rs EXTRA: (machine, scheduler, workload)
extra=("xeon-88 arbor:default wakeprobe:t=1" "power11 arbor:default wakeprobe:t=1"
	"xeon-88 arbor:default pgbench:clients=8,time=5")
cells=()
for m in "${machines[@]}"; do
	for w in "${workloads[@]}"; do
		for s in "${scheds[@]}"; do
			cells+=("$m $s $w")
		done
	done
done
cells+=("${extra[@]}")
rm -rf "$OUT/cells"
mkdir -p "$OUT/cells"
i=00
for c in "${cells[@]}"; do
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
