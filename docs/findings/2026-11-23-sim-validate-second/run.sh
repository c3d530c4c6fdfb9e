#!/usr/bin/env bash
# arbor sim validate, second pass (the VM side ran at dc56d27 with local changes).
# commit: dc56d27c832b6ef945c9463b2afd9759275144ea (the commit this study names)
# Reconstructed from the README: a record, not a tested script (see "other flags not recorded").
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A sim validate --out "$OUT"          # the VM side first (one TCG boot), then the simulator
$A sim validate --vm-results target/validate/2s2c2t/vm --out "$OUT"   # the simulator side again
# the checks of the report
# other flags not recorded
$A bench -t 2s2c2t -s arbor:stock -s arbor:seeds -w perf-pipe:l=200 -w perf-pipe:l=5000 -r 4 --out "$OUT/pipe"
$A sim -t 2s2c2t -s arbor:seeds:llc-tolerance=100 -w wakeprobe:m=2,w=2,t=3 -r 3 --one-host-thread --slowdown 84.7 --out "$OUT/wakeprobe-tcg"
