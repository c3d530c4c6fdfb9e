#!/usr/bin/env bash
# VM tests: load scx_arbor in a sched_ext guest and check what it did, every
# section in one boot:
#   arbor vm --topology 2s2c2t -- tests/vm/suite.sh
# `make test` runs the same sections split over two guests at once (TCG
# runs a guest on one host thread; the Makefile's vm-test says how).
# Prints PASS/FAIL per check and ends with "N passed, N failed".
exec bash "$(dirname "$0")/part.sh" all
