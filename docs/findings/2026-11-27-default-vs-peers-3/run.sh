#!/usr/bin/env bash
# arbor:default against the five peers after the cheaper wake-up path.
# commit: 3b0e4183cdc2885c534e3937cc2eeaa36140647a (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

for m in x86-12 xeon-88 power11; do
  $A sim -t $m -s arbor:stock -s arbor:default -s bpfland -s cosmos -s lavd -s p2dq -s rusty \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench -r 5 --seed 1 --out "$OUT/$m" --no-charts
done
$A sim verdict "$OUT/x86-12" "$OUT/xeon-88" "$OUT/power11"
