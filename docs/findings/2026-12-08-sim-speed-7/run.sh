#!/usr/bin/env bash
# The simulator's speed, round 7: cycles rather than instructions. This VM
# exposes no hardware counters (`perf stat -e cycles,...` prints
# <not supported> for every one), so the stalls are simulated
# (cachegrind: 32 KiB 8-way L1s of 64-byte lines, as the host's Zen 4, a
# 32 MiB LL) and the time is measured, the builds interleaved:
# 1. at each build of BUILDS (default: main before the round, the layout
#    commit, the spec guard; HEAD stands for this checkout), the 88-CPU
#    hackbench row's instructions (callgrind, exact) and its D1 / LL
#    misses and branch mispredictions (cachegrind, exact for its model);
# 2. the row's CPU time (speed.rs, one run an invocation), the builds in
#    turn, R rounds (default 31): median, min, max;
# 3. the matrix of sim/examples/speed.rs at the first and the last build,
#    cell by cell, the two builds in turn, N runs a cell (default 3).
#   OUT=/tmp/speed7 R=31 N=3 docs/findings/2026-12-08-sim-speed-7/run.sh
# Each build is a worktree (/tmp/arbor-speed7-REV, made if missing) built
# into this checkout's target directory (the dependencies once; the
# workspace's crates again for each; the checkout's own build is stale
# afterwards unless HEAD comes last). Step 4 is recheck.sh. Needs valgrind
# and jq.
. "$(dirname "$0")/../lib.sh"
BUILDS=${BUILDS:-"837d7f23 8ded0eff 158300e1"}
R=${R:-31}
N=${N:-3}
target=$PWD/target
row=(--only "xeon-88 " --only " arbor:default " --only " hackbench:g=8,l=400")
revs=()
for b in $BUILDS; do
	rev=$(git rev-parse --short=8 "$b")
	revs+=("$rev")
	if [ "$b" = HEAD ]; then
		dir=$PWD
	else
		dir=/tmp/arbor-speed7-$rev
		[ -d "$dir" ] || git worktree add -q "$dir" "$rev"
	fi
	(cd "$dir" && CARGO_TARGET_DIR=$target cargo build -q --release --locked -p arbor_sim --example speed)
	cp "$target/release/examples/speed" "$OUT/speed-$rev"
done
# 1. instructions, misses, mispredictions
for rev in "${revs[@]}"; do
	ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$OUT/speed-$rev" -n 1 "${row[@]}" 2>&1 |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
	valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --I1=32768,8,64 --D1=32768,8,64 \
		--LL=33554432,16,64 --cachegrind-out-file=/dev/null "$OUT/speed-$rev" -n 1 "${row[@]}" \
		>"$OUT/cachegrind-$rev.log" 2>&1
	num() { sed -n "s/.*$1: *\([0-9,]*\).*/\1/p" "$OUT/cachegrind-$rev.log" | head -1 | tr -d ,; }
	jq -n --arg build "$rev" --argjson ir "$ir" --argjson d1 "$(num 'D1  misses')" \
		--argjson lld "$(num 'LLd misses')" --argjson i1 "$(num 'I1  misses')" \
		--argjson bm "$(num 'Mispredicts')" --argjson br "$(num 'Branches')" \
		'{build: $build, instructions: $ir, d1_misses: $d1, lld_misses: $lld, i1_misses: $i1,
		  branches: $br, mispredicts: $bm}' >"$OUT/row-$rev.json"
	jq -c . "$OUT/row-$rev.json"
done
# 2. the row's CPU time, the builds in turn
uptime >"$OUT/load.txt"
: >"$OUT/row-times.txt"
for _ in $(seq "$R"); do
	for rev in "${revs[@]}"; do
		"$OUT/speed-$rev" -n 1 "${row[@]}" 2>/dev/null |
			awk -F'|' -v b="$rev" '/hackbench/ {gsub(/ /, "", $8); print b, $8}' >>"$OUT/row-times.txt"
	done
done
uptime >>"$OUT/load.txt"
for rev in "${revs[@]}"; do
	awk -v b="$rev" '$1 == b {print $2}' "$OUT/row-times.txt" | sort -n | jq -s --arg build "$rev" \
		'{build: $build, runs: length, cpu_s_median: .[length / 2 | floor], cpu_s_min: .[0], cpu_s_max: .[-1]}'
done | jq -s . >"$OUT/row-times.json"
jq -c '.[]' "$OUT/row-times.json"
# 3. the matrix, cell by cell, first and last build in turn
first=${revs[0]} last=${revs[-1]}
: >"$OUT/cells.jsonl"
"$OUT/speed-$last" --list | while read -r m s w; do
	for rev in "$first" "$last"; do
		"$OUT/speed-$rev" -n "$N" --only "$m " --only " $s " --only " $w" --json "$OUT/cell.json" >/dev/null
		jq -c --arg build "$rev" '.[] | {build: $build, machine, sched, workload, events,
			mevs_median: (.mevs_median * 1000 | round / 1000),
			mevs_min: (.mevs_min * 1000 | round / 1000), mevs_max: (.mevs_max * 1000 | round / 1000)}' \
			"$OUT/cell.json" >>"$OUT/cells.jsonl"
	done
done
uptime >>"$OUT/load.txt"
jq -s . $(for rev in "${revs[@]}"; do echo "$OUT/row-$rev.json"; done) >"$OUT/rows.json"
jq -s --arg f "$first" --arg l "$last" '
	group_by([.machine, .sched, .workload]) | map(
	  (map(select(.build == $f))[0]) as $b | (map(select(.build == $l))[0]) as $a |
	  {machine: $b.machine, sched: $b.sched, workload: $b.workload, events: $b.events,
	   same_events: ($b.events == $a.events),
	   before: [$b.mevs_median, $b.mevs_min, $b.mevs_max],
	   after: [$a.mevs_median, $a.mevs_min, $a.mevs_max],
	   ratio: ($a.mevs_median / $b.mevs_median * 1000 | round / 1000)})' \
	"$OUT/cells.jsonl" >"$OUT/matrix.json"
jq -n --arg cmd "OUT=$OUT R=$R N=$N BUILDS='$BUILDS' docs/findings/2026-12-08-sim-speed-7/run.sh" \
	--rawfile load "$OUT/load.txt" --slurpfile rows "$OUT/rows.json" \
	--slurpfile t "$OUT/row-times.json" --slurpfile m "$OUT/matrix.json" \
	'{command: $cmd, load: ($load | rtrimstr("\n") | split("\n")), row: $rows[0], row_cpu_s: $t[0],
	  matrix: $m[0],
	  matrix_ratio_median: ($m[0] | map(.ratio) | sort | .[length / 2 | floor]),
	  matrix_slower_by_range: ($m[0] | map(select(.after[2] < .before[1])) | map({machine, sched, workload, before, after}))}' \
	>"$OUT/summary.json"
jq '{row, row_cpu_s, matrix_ratio_median, matrix_slower_by_range}' "$OUT/summary.json"
echo "wrote $OUT/summary.json"
# 4. the cells that came out slower, again (recheck.sh)
docs/findings/2026-12-08-sim-speed-7/recheck.sh
