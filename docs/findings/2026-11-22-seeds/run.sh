#!/usr/bin/env bash
# Each seed's workload scaled to 2s2c2t, stock vs stock + mechanism, one boot.
# commit: 0bc12598d97eff2fa9262b690b93a8d80bd2e6fe (the commit that added this study)
# Reconstructed from the README: a record, not a tested script (see "other flags not recorded").
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

# the guest script of that commit runs every seed's line under stock and stock + its feature
$A vm -t 2s2c2t -- bench/issue3-seeds.sh
# seed 003 (STEAL) through arbor bench
# other flags not recorded
$A bench -t 2s2c2t -r 3 -s arbor:stock -s arbor:stock:STEAL -w hackbench:g=1,l=100 --out "$OUT/steal"
