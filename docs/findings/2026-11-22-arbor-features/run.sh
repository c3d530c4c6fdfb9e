#!/usr/bin/env bash
# arbor:default with NO_CACHE_LB / NO_STEAL, one TCG boot.
# commit: 1ee3a6721a390abd2a651e34d5a0c834a2b24277 (the commit this study names)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A bench -t 2s2c2t -r 3 -s eevdf -s arbor:stock -s arbor:default -s arbor:default:NO_CACHE_LB -s arbor:default:NO_STEAL \
  -w wakeprobe:t=4 -w hackbench:g=2,l=100 -o "$OUT"
