#!/usr/bin/env bash
# The first simulated measurements.
# commit: 637773edc7f2f682bd97f79fa1bf898265394eee (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

for t in x86-12 xeon-88 power11; do
  $A sim -t $t -s arbor:stock -s arbor:default \
    -w hackbench:g=4,l=300 -w pgbench:clients=24,time=2 -w wakeprobe:t=1 -r 5 --out "$OUT/$t"
done
$A sim -t power11 -s arbor:stock -s arbor:default -s arbor:default:NO_WA_THROTTLE \
  -s arbor:stock:WA_THROTTLE -w hackbench:g=4,l=300 -r 5 --out "$OUT/power11-wa-throttle"
make sim-speed SIM_SECONDS=10
