#!/usr/bin/env bash
# The first arbor bench measurements (each section names its own commit).
# commit: 60aeafa491a7bb11af5a50cf531800356ce22059 (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

# section 1: the default suite twice, see ../2026-11-22-default and ../2026-11-22-default-2
$A bench --out "$OUT/default"
# section 2: the daemon's CPU under wakeprobe, perf record in the guest (script of that commit)
$A vm -t 2s2c2t -- bench/daemon-cpu.sh
# section 5: features switched off one at a time, see ../2026-11-22-arbor-features
$A bench -t 2s2c2t -r 3 -s eevdf -s arbor:stock -s arbor:default -s arbor:default:NO_CACHE_LB -s arbor:default:NO_STEAL \
  -w wakeprobe:t=4 -w hackbench:g=2,l=100 -o "$OUT/arbor-features"
# section 6: seed 001, see ../2026-11-22-reproduce-wake-affine-throttle
$A bench reproduce wake-affine-throttle -o "$OUT/reproduce-wake-affine-throttle"
# section 7: fresh-clone make test
make test
