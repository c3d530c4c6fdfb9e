#!/usr/bin/env bash
# schbench's lost cells and the model's identical requests: the verdict's
# schbench on the six presets and the development draw random:12@20261210
# (the fifth held-out draw, since developed on), once as the model has it
# (every request the same 17 ms of work) and once with each request's work
# drawn from +-10% of it (cj=10). summary.json keeps, per cell, the
# decision against the best peer and the workers' p99 place in their
# message thread's batch of wake-ups (wake_pos_p99), default's and the
# peer's.
. "$(dirname "$0")/../lib.sh"
$A sim verdict -t x86-12 -t xeon-88 -t power11 -t epyc -t spr-2s -t tc2 \
	--machines random:12@20261210 -w schbench -w schbench:cj=10 \
	--max-reps 40 --out "$OUT/verdict"
jq --arg cmd "OUT=$OUT docs/findings/2026-12-07-schbench-lockstep/run.sh" '
	def r1: . * 10 | round / 10;
	def r3: . * 1000 | round / 1000;
	.runs as $runs
	| def pos($m; $w; $s): [$runs[] | select(.machine == $m and .workload == $w and .scheduler == $s)
		| .run.metrics.wake_pos_p99] | add / length | r1;
	{command: $cmd, verdict: .meta.command, build: .meta.commit,
	 counts: (.decisions | group_by(.workload) | map({key: .[0].workload,
		value: (group_by(.vs_peer.call) | map({key: .[0].vs_peer.call, value: length}) | from_entries)})
		| from_entries),
	 cells: [.decisions[] | {machine, workload, peer: .best_peer.scheduler,
		default_us: (.candidate.mean | r3), peer_us: (.best_peer.mean | r3),
		pct: (.vs_peer.pct | r1), call: .vs_peer.call, runs: .candidate.runs,
		wake_pos_p99: [pos(.machine; .workload; "arbor:default"), pos(.machine; .workload; .best_peer.scheduler)]}]}' \
	"$OUT/verdict/results.json" >"$OUT/summary.json"
echo "wrote $OUT/summary.json"
