#!/usr/bin/env bash
# Seed 004 (ASYM_WAKE_CAP) on its own machine (tc2, the only asymmetric preset)
# and on three others (hikey: the symmetric ARM kind), with its sysbench line.
# Own machine tc2; others epyc xeon-44 hikey (../seed-any-machine.sh says what runs).
exec "$(dirname "$0")/../seed-any-machine.sh" "${OUT:-docs/findings/2026-12-06-seed004-any-machine}" \
	asym-capacity tc2 "epyc xeon-44 hikey" "sysbench:threads=1,time=3"
