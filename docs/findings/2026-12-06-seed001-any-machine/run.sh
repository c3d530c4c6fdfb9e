#!/usr/bin/env bash
# Seed 001 (WA_THROTTLE, wake_affine_interval 1 ms) on its own machine and on
# three of other kinds, with its pgbench line of 8 clients (its largest gain).
# Own machine x86-12; others epyc xeon-44 tc2 (../seed-any-machine.sh says what runs).
exec "$(dirname "$0")/../seed-any-machine.sh" "${OUT:-docs/findings/2026-12-06-seed001-any-machine}" \
	wake-affine-throttle x86-12 "epyc xeon-44 tc2" "pgbench:clients=8,jobs=1,time=1"
