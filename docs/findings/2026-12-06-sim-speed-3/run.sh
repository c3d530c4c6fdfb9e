#!/usr/bin/env bash
# The simulator's speed, round 3: instructions executed (callgrind, exact
# and independent of the host's load) on a few cells, then the fixed
# matrix of sim/examples/speed.rs in M events per second of CPU time per
# core, min / median / max over N runs a cell (default 3), this build and
# BEFORE (the speed example built at the commit before the changes) cell
# by cell in turn, so that both see the same load.
#   git worktree add /tmp/before 718f8c6 && (cd /tmp/before && cargo build --release --locked -p arbor_sim --example speed)
#   OUT=/tmp/speed3 BEFORE=/tmp/before/target/release/examples/speed N=3 docs/findings/2026-12-06-sim-speed-3/run.sh
# Needs valgrind (callgrind): about 30 s a counted run.
. "$(dirname "$0")/../lib.sh"
cargo build --release --locked -p arbor_sim --example speed
S=${S:-./target/release/examples/speed}
N=${N:-3}
BEFORE=${BEFORE:?BEFORE=the speed example built at the commit before}
# the cells whose instructions are counted, "MACHINE SCHEDULER WORKLOAD"
counted=(
	"xeon-88 arbor:default hackbench:g=8,l=400"
	"x86-12 arbor:default hackbench:g=8,l=400"
	"power11 arbor:default hackbench:g=8,l=400"
	"xeon-88 arbor:default schbench:r=2"
)
mkdir -p "$OUT/callgrind"
: >"$OUT/instructions.jsonl"
for c in "${counted[@]}"; do
	read -r m s w <<<"$c"
	only=(--only "$m " --only " $s " --only " $w")
	row="{\"machine\":\"$m\",\"sched\":\"$s\",\"workload\":\"$w\""
	for side in before after; do
		bin=$S
		[ "$side" = before ] && bin=$BEFORE
		f="$OUT/callgrind/$m.$s.$w.$side"
		valgrind --tool=callgrind --callgrind-out-file="$f.out" "$bin" -n 1 "${only[@]}" >"$f.log" 2>&1
		ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$f.log")
		events=$(grep "^| $m " "$f.log" | awk -F'|' '{gsub(/ /, "", $6); print $6}')
		# the profile: self instructions by function
		callgrind_annotate --inclusive=no "$f.out" 2>/dev/null | sed -n '/file:function/,$p' | awk 'NR <= 25' >"$f.profile"
		row="$row,\"${side}_instructions\":$ir,\"${side}_events\":$events"
	done
	echo "$row}" >>"$OUT/instructions.jsonl"
done
jq -s 'map(. + {ratio: (.after_instructions / .before_instructions * 1000 | round / 1000),
	after_per_event: (.after_instructions / .after_events | round),
	before_per_event: (.before_instructions / .before_events | round)})' \
	"$OUT/instructions.jsonl" >"$OUT/instructions.json"
cat "$OUT/instructions.json"
# the matrix and its EXTRA cells, both builds in turn
mapfile -t cells < <("$S" --list)
S=$S N=$N OUT=$OUT BEFORE=$BEFORE docs/findings/2026-12-06-sim-speed/cells.sh "${cells[@]}"
# the finding's summary: the command, the counts, the matrix
cmd="OUT=$OUT BEFORE=$BEFORE N=$N docs/findings/2026-12-06-sim-speed-3/run.sh"
jq -n --arg cmd "$cmd" --slurpfile i "$OUT/instructions.json" --slurpfile m "$OUT/summary.json" \
	'{command: $cmd, instructions: $i[0], matrix: $m[0]}' >"$OUT/finding.json"
echo "wrote $OUT/finding.json"
