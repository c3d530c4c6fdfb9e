#!/usr/bin/env bash
# The simulator's speed, round 5: round 4's measurement (the 88-CPU
# hackbench row's instructions by callgrind, exact whatever the host's load;
# the matrix of sim/examples/speed.rs in M events per second of CPU time per
# core, min / median / max over N runs a cell) at the build before the round
# (BEFORE, default 2d3c08a0, in a worktree) and at this one, then both in
# one summary.json.
#   OUT=/tmp/speed5 N=3 docs/findings/2026-12-07-sim-speed-5/run.sh
# Needs valgrind and jq; the worktree (WT, default /tmp/arbor-speed5-BEFORE)
# is made if missing and its build takes a few minutes.
. "$(dirname "$0")/../lib.sh"
BEFORE=${BEFORE:-2d3c08a0}
N=${N:-3}
R4=docs/findings/2026-12-06-sim-speed-4/run.sh
wt=${WT:-/tmp/arbor-speed5-$BEFORE}
[ -d "$wt" ] || git worktree add -q "$wt" "$BEFORE"
# the same script at both builds: round 4's, as committed now
cp "$R4" "$wt/$R4"
(cd "$wt" && OUT="$OUT/before" N=$N "$R4")
OUT="$OUT/after" N=$N "$R4"
jq -n --arg cmd "OUT=$OUT N=$N BEFORE=$BEFORE${WT:+ WT=$WT} docs/findings/2026-12-07-sim-speed-5/run.sh" \
	--slurpfile b "$OUT/before/summary.json" --slurpfile a "$OUT/after/summary.json" \
	'{command: $cmd,
	  before: ($b[0] | {build, row_instructions, matrix}),
	  after: ($a[0] | {build, row_instructions, matrix})}' >"$OUT/summary.json"
jq -r '"row instructions: \(.before.row_instructions) -> \(.after.row_instructions)"' "$OUT/summary.json"
echo "wrote $OUT/summary.json"
