#!/usr/bin/env bash
# Trace replay: first results.
# commit: d8e93b346ccc2c2145ae51b4f999a89849a34b2e (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

perf sched record -a -o "$OUT/perf.data" -- hackbench -g 2 -l 200     # the study's: hackbench-g2-l200.data
$A sim snapshot "$OUT/box"
$A sim trace-info "$OUT/perf.data"
$A sim --topology-from "$OUT/box" -w trace:"$OUT/perf.data" -r 5 -s arbor:stock -s arbor:default -s bpfland -s p2dq --out "$OUT/own-snapshot"
$A sim -t xeon-88 -w trace:"$OUT/perf.data" -r 5 -s arbor:stock -s arbor:default -s bpfland -s p2dq --out "$OUT/xeon-88" --trace "$OUT/t.json"
$A sim reproduce steal --record-traces "$OUT/traces"
$A sim reproduce steal -r 5 --out "$OUT/seed-003/model"
$A sim reproduce steal -r 5 --traces "$OUT/traces" --out "$OUT/seed-003/trace"
