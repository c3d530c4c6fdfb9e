#!/usr/bin/env bash
# Seed 000 (WA_IDLER_LLC) on its own machine and on three of other kinds.
# The seed's wake-up latency line (2020 schbench -m 3, 32 workers: the
# --quick line) and a throughput-like line (hackbench, 4 groups, its first
# table), each cell decided by the verdict's rule (5 runs a side, up to 10).
#   own-seed/     power10, added to the seed's 5.11 baseline, with
#                 --sensitivity (--explain implied) for the headline cell
#   own-current/  power10, added to today's kernel (arbor:stock), --explain
#   others/       epyc (8 LLCs, AMD), xeon-44 (one 44-CPU LLC, Intel),
#                 tc2 (asymmetric ARM), today's kernel, --explain
# The simulator is deterministic: a rerun writes the same summary.json files.
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-docs/findings/2026-12-06-seed000-any-machine}
A=./target/release/arbor
S="schbench:v=2020,m=3,w=32,r=2"
H="hackbench:g=4,l=1000,ipc=socket"
R="-r 5 --max-reps 10"
$A sim reproduce idler-llc -t power10 -w "$S" -w "$H" --era seed $R --sensitivity --out "$OUT/own-seed"
$A sim reproduce idler-llc -t power10 -w "$S" -w "$H" --era current $R --explain --out "$OUT/own-current"
$A sim reproduce idler-llc -t epyc -t xeon-44 -t tc2 -w "$S" -w "$H" --era current $R --explain --out "$OUT/others"
