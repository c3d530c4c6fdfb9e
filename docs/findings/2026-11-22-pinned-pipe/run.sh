#!/usr/bin/env bash
# Perf pipe pinned and unpinned, EEVDF vs arbor, one TCG boot (the run was at 3ca0d99 with local changes).
# commit: 3ca0d99caca767a2479115ba42ca0221042e5b52 (the commit this study names)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A bench -t 2s2c2t -s eevdf -s arbor:stock -s arbor:default -w perf-pipe:l=20000,cpu=0 -w perf-pipe:l=20000 -r 5 --no-charts -o "$OUT/run1"
