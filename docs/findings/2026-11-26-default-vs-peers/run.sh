#!/usr/bin/env bash
# arbor:default against the peers.
# commit: 3193883328ea7d8c2da5da35ed1568ca3bdbaa5f (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A sim -t x86-12 -s arbor:stock -s arbor:default -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench -r 5 --seed 1 --out "$OUT/x86-12" --no-charts
for m in xeon-88 power11; do
  $A sim -t $m -s arbor:stock -s arbor:default -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w schbench \
    -r 5 --seed 1 --out "$OUT/$m-short" --no-charts
done
for mw in power11:wakeprobe:t=4 xeon-88:wakeprobe:t=4 xeon-88:pgbench:clients=8,time=5 power11:pgbench:clients=8,time=5; do
  m=${mw%%:*}; w=${mw#*:}
  $A sim -t $m -s arbor:stock -s arbor:default -w $w -r 3 --seed 1 --out "$OUT/$m-${w%%:*}" --no-charts
done
# the peers
for m in x86-12 xeon-88 power11; do
  $A sim -t $m -s arbor:stock -s arbor:default -s bpfland -s cosmos -s lavd -s p2dq -s rusty -w hackbench:g=2,l=100 -w perf-pipe:l=5000 -r 1 --seed 1 --out "$OUT/peers-$m" --no-charts
done
