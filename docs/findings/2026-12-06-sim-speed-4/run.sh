#!/usr/bin/env bash
# The simulator's speed, round 4: where the queue entries of the 88-CPU
# hackbench row come from, what the row costs in instructions (callgrind,
# exact, independent of the host's load) and the matrix of
# sim/examples/speed.rs at this build (M events per second of CPU time per
# core, min / median / max over N runs a cell, default 3).
#   OUT=/tmp/speed4 N=3 docs/findings/2026-12-06-sim-speed-4/run.sh
# Queue entries by kind need a speed example built with count-entries.patch
# (a temporary counter, printed on stderr; never merged), on cda4477's event
# loop (the queue's entries are the same at every later build: same results):
#   git worktree add /tmp/kinds cda4477 && (cd /tmp/kinds && git apply "$OLDPWD"/docs/findings/2026-12-06-sim-speed-4/count-entries.patch && cargo build --release --locked -p arbor_sim --example speed)
#   KINDS=/tmp/kinds/target/release/examples/speed OUT=/tmp/speed4 docs/findings/2026-12-06-sim-speed-4/run.sh
# Needs valgrind (callgrind, about a minute for the row) and jq.
. "$(dirname "$0")/../lib.sh"
cargo build --release --locked -p arbor_sim --example speed
S=${S:-./target/release/examples/speed}
N=${N:-3}
row=(--only "xeon-88 " --only " arbor:default " --only " hackbench:g=8,l=400")
# 1. the row's instructions and its profile (self instructions by function)
valgrind --tool=callgrind --callgrind-out-file="$OUT/row.callgrind" "$S" -n 1 "${row[@]}" >"$OUT/row.log" 2>&1
ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$OUT/row.log")
callgrind_annotate --inclusive=no "$OUT/row.callgrind" 2>/dev/null | sed -n '/file:function/,$p' | awk 'NR <= 25' >"$OUT/row.profile"
echo "the row: $ir instructions"
# 2. queue entries by kind, arbor:default on every machine and workload
kinds=null
if [ -n "${KINDS:-}" ]; then
	"$KINDS" -n 1 --only " arbor:default " >"$OUT/kinds.md" 2>"$OUT/kinds.err"
	# the matrix's rows and the counter's lines are in the same order
	grep '^| ' "$OUT/kinds.md" | grep 'arbor:default' | awk -F'|' '{gsub(/ |`/, "", $2); gsub(/ |`/, "", $5); gsub(/ /, "", $6); print $2, $5, $6}' >"$OUT/kinds.cells"
	grep '^KINDS ' "$OUT/kinds.err" >"$OUT/kinds.lines"
	paste -d' ' "$OUT/kinds.cells" "$OUT/kinds.lines" | awk '{
		printf "{\"machine\":\"%s\",\"workload\":\"%s\",\"events\":%s", $1, $2, $3
		for (i = 5; i <= NF; i++) { split($i, kv, "="); printf ",\"%s\":%s", kv[1], kv[2] }
		print "}" }' | jq -s 'map(. + {entries: (.resched + .resched_superseded + .run_end + .tick + .other)}
		| . + {entries_per_event: (.entries / .events * 100 | round / 100)})' >"$OUT/kinds.json"
	kinds=$(cat "$OUT/kinds.json")
	jq -r '.[] | [.machine, .workload, .events, .entries, .run_end, .resched, .resched_superseded, .tick, .other, .run_end_same_cpu_next] | @tsv' "$OUT/kinds.json"
fi
# 3. the matrix and its EXTRA cells
"$S" -n "$N" --json "$OUT/matrix.json" | tee "$OUT/matrix.md"
cmd="OUT=$OUT N=$N${KINDS:+ KINDS=$KINDS} docs/findings/2026-12-06-sim-speed-4/run.sh"
jq -n --arg cmd "$cmd" --arg build "$(git rev-parse --short HEAD)" --argjson ir "$ir" --argjson kinds "$kinds" \
	--slurpfile m "$OUT/matrix.json" \
	'{command: $cmd, build: $build, row_instructions: $ir, entries_by_kind: $kinds,
	  matrix: ($m[0] | map({machine, sched, workload, events, runs,
	    mevs_median: (.mevs_median * 1000 | round / 1000),
	    mevs_min: (.mevs_min * 1000 | round / 1000), mevs_max: (.mevs_max * 1000 | round / 1000)}))}' \
	>"$OUT/summary.json"
echo "wrote $OUT/summary.json"
