#!/usr/bin/env bash
# Which scheduler on seed 003's 88-CPU Xeon, simulated: arbor:stock (the
# kernel's placement), arbor:default and the two peers that came closest in
# the earlier comparisons (cosmos, bpfland), on a latency workload (schbench,
# wake-up p99) and bench's default message-passing one (hackbench, time).
# 10 runs per cell, each with its own seed: at 5 runs hackbench's interval
# against cosmos was +-5.4%, too wide to call.
# The simulator is deterministic: `make test` reruns this script and
# compares summary.json byte for byte (scripts/check-finding.sh).
# commit: see summary.json's git history; results.json records meta.commit
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/2026-12-06-xeon88-which-scheduler}
exec ./target/release/arbor sim --brief -t xeon-88 \
	-s arbor:stock -s arbor:default -s cosmos -s bpfland \
	-w schbench -w hackbench:g=2,l=100 -r 10 --no-charts --out "$OUT"
