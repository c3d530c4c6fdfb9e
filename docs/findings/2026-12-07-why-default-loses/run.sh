#!/usr/bin/env bash
# Why arbor:default loses where it does: the fifth held-out verdict's
# command (heldout-verdict-5, seed 20261210, now a development draw) run
# again at this build, without --require, and its lost cells' reasons
# (results.json "why": the counters that differ most and, for a run to
# completion, the time split into CPU work and busy CPUs) kept in
# summary.json. The simulator is deterministic: the decisions are those of
# heldout-verdict-5's summary.json.
. "$(dirname "$0")/../lib.sh"
$A sim verdict -t x86-12 -t xeon-88 -t power11 -t epyc -t spr-2s -t tc2 \
	--machines random:12@20261210 \
	-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 \
	-w pgbench:clients=8,time=2 -w wakeprobe:t=1 -w schbench -w sysbench:time=2 \
	--max-reps 80 --out "$OUT/verdict"
jq --arg cmd "OUT=$OUT docs/findings/2026-12-07-why-default-loses/run.sh" \
	'{command: $cmd, verdict: .meta.command, build: .meta.commit, counts,
	  why: [.why[] | {machine, workload, against, pct: (.pct * 10 | round / 10),
	    counters: [.counters[] | {name, candidate: (.candidate * 1000 | round / 1000), other: (.other * 1000 | round / 1000)}],
	    split: (.split | if . == null then null else
	      {cause, work_pct: (.work_pct * 10 | round / 10), busy_pct, idle_queued_pct, work_ms, switch_in_ms, refill_ms} end)}]}' \
	"$OUT/verdict/results.json" >"$OUT/summary.json"
echo "wrote $OUT/summary.json"
