#!/usr/bin/env bash
# Seed 002 (CACHE_LB) on its own machine and on three of other kinds, with
# one line of each of its tables (hackbench pipe, 4 groups; schbench, 16 workers).
# Own machine power11; others epyc xeon-44 tc2 (../seed-any-machine.sh says what runs).
exec "$(dirname "$0")/../seed-any-machine.sh" "${OUT:-docs/findings/2026-12-06-seed002-any-machine}" \
	cache-aware power11 "epyc xeon-44 tc2" "hackbench:g=4,l=1000,ipc=pipe" "schbench:m=1,w=16,r=1"
