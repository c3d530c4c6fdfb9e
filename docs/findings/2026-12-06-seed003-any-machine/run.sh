#!/usr/bin/env bash
# Seed 003 (STEAL) on its first machine (E5-2630 v4) and on three of other
# kinds (xeon-44 is also one of the seed's own), with hackbench, 2 groups
# (its --quick line's size).
# Own machine e5-2630v4; others epyc xeon-44 tc2 (../seed-any-machine.sh says what runs).
exec "$(dirname "$0")/../seed-any-machine.sh" "${OUT:-docs/findings/2026-12-06-seed003-any-machine}" \
	steal e5-2630v4 "epyc xeon-44 tc2" "hackbench:g=2,l=800,ipc=socket"
