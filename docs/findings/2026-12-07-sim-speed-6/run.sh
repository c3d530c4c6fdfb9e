#!/usr/bin/env bash
# The simulator's speed, round 6: round 4's measurement (the 88-CPU
# hackbench row's instructions by callgrind, exact whatever the host's load;
# the matrix of sim/examples/speed.rs in M events per second of CPU time per
# core, min / median / max over N runs a cell) at the build before the round
# (BEFORE, default 351fe700, in a worktree) and at this one; with CELLS=1,
# also every cell's instructions by callgrind at both builds (exact; about
# half an hour a build); then all of it in one summary.json.
#   OUT=/tmp/speed6 N=3 CELLS=1 docs/findings/2026-12-07-sim-speed-6/run.sh
# Needs valgrind and jq; the worktree (WT, default /tmp/arbor-speed6-BEFORE)
# is made if missing and its build takes a few minutes.
. "$(dirname "$0")/../lib.sh"
BEFORE=${BEFORE:-351fe700}
N=${N:-3}
R4=docs/findings/2026-12-06-sim-speed-4/run.sh
wt=${WT:-/tmp/arbor-speed6-$BEFORE}
[ -d "$wt" ] || git worktree add -q "$wt" "$BEFORE"
# the same script at both builds: round 4's, as committed now
cp "$R4" "$wt/$R4"
(cd "$wt" && OUT="$OUT/before" N=$N "$R4")
OUT="$OUT/after" N=$N "$R4"
# every cell's instructions (callgrind, whole process), one run each
cells() { # SPEED OUTFILE
	"$1" --list | while read -r m s w; do
		ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" -n 1 \
			--only "$m " --only " $s " --only " $w" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
		jq -n --arg m "$m" --arg s "$s" --arg w "$w" --argjson ir "$ir" \
			'{machine: $m, sched: $s, workload: $w, instructions: $ir}'
	done | jq -s . >"$2"
}
echo '[]' >"$OUT/cells-before.json"
echo '[]' >"$OUT/cells-after.json"
if [ "${CELLS:-0}" = 1 ]; then
	cells "$wt/target/release/examples/speed" "$OUT/cells-before.json"
	cells ./target/release/examples/speed "$OUT/cells-after.json"
fi
jq -n --arg cmd "OUT=$OUT N=$N BEFORE=$BEFORE CELLS=${CELLS:-0}${WT:+ WT=$WT} docs/findings/2026-12-07-sim-speed-6/run.sh" \
	--slurpfile b "$OUT/before/summary.json" --slurpfile a "$OUT/after/summary.json" \
	--slurpfile cb "$OUT/cells-before.json" --slurpfile ca "$OUT/cells-after.json" \
	'{command: $cmd,
	  before: ($b[0] | {build, row_instructions, matrix}),
	  after: ($a[0] | {build, row_instructions, matrix}),
	  cells_instructions: [range(0; $cb[0] | length) as $i
	    | $cb[0][$i] | {machine, sched, workload, before: .instructions,
	      after: $ca[0][$i].instructions,
	      change_pct: (($ca[0][$i].instructions / .instructions - 1) * 10000 | round / 100)}]}' >"$OUT/summary.json"
jq -r '"row instructions: \(.before.row_instructions) -> \(.after.row_instructions)"' "$OUT/summary.json"
echo "wrote $OUT/summary.json"
