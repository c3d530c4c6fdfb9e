#!/usr/bin/env bash
# Seed 000 (WA_IDLER_LLC) off against on, on its own machine (power10) and
# on seed 003's 88-CPU Xeon (xeon-88), every line of the seed's two tables
# (hackbench, schbench -m 3), each cell decided by the verdict's rule with
# more runs for undecided cells (3 a batch, up to 20), and --explain's
# counters for each machine's headline cell. Twice: added to today's kernel
# (arbor:stock; summary.json here) and to the seed's 5.11 baseline
# (seed-era/summary.json). The simulator is deterministic: a rerun writes
# the same summary.json files.
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-docs/findings/2026-12-06-seed000-explain}
./target/release/arbor sim reproduce idler-llc -t power10 -t xeon-88 \
	--era current --explain --out "$OUT"
./target/release/arbor sim reproduce idler-llc -t power10 -t xeon-88 \
	--era seed --explain --out "$OUT/seed-era"
