#!/usr/bin/env bash
# EEVDF vs scx_arbor stock and default in one 2s2c2t boot.
# commit: 6b6ce67e71742690029b9d5d254d57a0882a39c3 (the commit the README names)
# Reconstructed from the README: a record, not a tested script (see "other flags not recorded").
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

# the guest script of that commit runs the workloads under each scheduler
$A vm -t 2s2c2t -- bench/issue2-foundation.sh
# the same comparison through arbor bench
# other flags not recorded
$A bench -t 2s2c2t -r 3 -s eevdf -s arbor:stock -s arbor:default -w hackbench:g=1,l=100 -w hackbench:g=2,l=100 -w hackbench:g=4,l=100 -w perf-pipe:l=10000 --out "$OUT/bench"
