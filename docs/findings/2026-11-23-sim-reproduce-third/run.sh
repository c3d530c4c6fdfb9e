#!/usr/bin/env bash
# Seed 002 after the balancer move.
# commit: 0c0f36e18ef969e7810ec498a47b968698dc05dd (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A sim reproduce cache-aware -r 5 --out "$OUT/cache-aware"
for n in 1 2 4 8 16 32 64 128 256; do
  $A sim -t power11 -r 5 -s arbor:stock:NO_NI_RANDOM -s arbor:stock:NO_NI_RANDOM,CACHE_LB \
    -s arbor:stock:NO_NI_RANDOM,CACHE_LB:llc-tolerance=100 -w schbench:m=1,w=$n,r=1 --out "$OUT/cache-aware-seed-era/w$n"
done
