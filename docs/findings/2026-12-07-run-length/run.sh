#!/usr/bin/env bash
# Are the verdict's message-passing losses an artefact of its short runs?
# The verdict's hackbench and perf-messaging, as the held-out command runs
# them and with ten times the loops, on the six presets and the development
# draw random:12@20261210; then, on tc2, where default loses the long runs
# to lavd by more CPU work, the wake-ups and run-queue waits that make it,
# default at three base slices beside lavd and p2dq.
. "$(dirname "$0")/../lib.sh"
$A sim verdict -t x86-12 -t xeon-88 -t power11 -t epyc -t spr-2s -t tc2 \
	--machines random:12@20261210 \
	-w hackbench:g=2,l=100 -w hackbench:g=2,l=1000 \
	-w perf-messaging:g=2,l=50,mode=thread -w perf-messaging:g=2,l=500,mode=thread \
	--max-reps 40 --out "$OUT/verdict"
$A sim -t tc2 -s arbor:default -s arbor:default:NO_WAKE_PREEMPT -s arbor:default:NO_NEXT_BUDDY \
	-s arbor:default:NO_WAKE_PREEMPT,NO_NEXT_BUDDY -s arbor:stock -s lavd -s p2dq \
	-w hackbench:g=2,l=1000 -r 4 \
	--no-charts --out "$OUT/tc2"
for b in 3000 12000; do
	$A sim -t tc2 -s arbor:default -w hackbench:g=2,l=1000 -r 4 --base-slice-us "$b" \
		--no-charts --out "$OUT/tc2-slice-$b"
done
jq -n --arg cmd "OUT=$OUT docs/findings/2026-12-07-run-length/run.sh" \
	--slurpfile v "$OUT/verdict/results.json" \
	--slurpfile t "$OUT/tc2/results.json" \
	--slurpfile s3 "$OUT/tc2-slice-3000/results.json" \
	--slurpfile s12 "$OUT/tc2-slice-12000/results.json" '
	def r1: . * 10 | round / 10;
	def means($r): [$r.cells[] | select(.metric == "time_s" or .metric == "wakeups"
			or .metric == "rq_wait_us_per_wakeup")] | group_by(.scheduler)
		| map({key: .[0].scheduler, value: (map({key: .metric,
			value: (if .metric == "time_s" then .mean * 1000 | round / 1000 else .mean | round end)})
			| from_entries)}) | from_entries;
	$v[0] as $v | {command: $cmd, verdict: $v.meta.command, build: $v.meta.commit,
	 counts: ($v.decisions | group_by(.workload) | map({key: .[0].workload,
		value: (group_by(.vs_peer.call) | map({key: .[0].vs_peer.call, value: length}) | from_entries)})
		| from_entries),
	 cells: [$v.decisions[] | {machine, workload, peer: .best_peer.scheduler,
		pct: (.vs_peer.pct | r1), call: .vs_peer.call}],
	 why_long: [$v.why[] | select(.workload | test("l=(1000|500),")) | {machine, workload, against,
		pct: (.pct | r1), cause: .split.cause, work_pct: (.split.work_pct | r1),
		switch_in_ms: [.split.switch_in_ms[]? | r1]}],
	 tc2_hackbench_l1000: {at_750us: means($t[0]), at_3000us: means($s3[0]), at_12000us: means($s12[0])}}' \
	>"$OUT/summary.json"
echo "wrote $OUT/summary.json"
