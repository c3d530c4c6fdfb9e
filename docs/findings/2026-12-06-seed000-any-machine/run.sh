#!/usr/bin/env bash
# Seed 000 (WA_IDLER_LLC) on its own machine and on three of other kinds.
# The seed's wake-up latency line (2020 schbench -m 3, 32 workers: the
# --quick line) and a throughput-like line (hackbench, 4 groups, its first
# table), each cell decided by the verdict's rule (5 runs a side, up to 10).
# Own machine power10; others epyc xeon-44 tc2 (../seed-any-machine.sh says what runs).
exec "$(dirname "$0")/../seed-any-machine.sh" "${OUT:-docs/findings/2026-12-06-seed000-any-machine}" \
	idler-llc power10 "epyc xeon-44 tc2" "schbench:v=2020,m=3,w=32,r=2" "hackbench:g=4,l=1000,ipc=socket"
