#!/usr/bin/env bash
# A cheaper wake-up path, WAKE_LOCAL and IDLE_PULL's cache-hot test.
# commit: 69c402e14dad6fd26e550b3ebc26ce74f148874f (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

# identity (both binaries; compare results.csv without bpf: rows)
$A sim -t x86-12 -s arbor:stock -s arbor:default -w hackbench:g=2,l=100 -w perf-pipe:l=5000 \
  -w schbench -w wakeprobe:t=4 -r 2 --seed 1 --no-charts \
  --cost bpf_call_ns=0 --cost bpf_callback_ns=0 --out "$OUT/identity"
# cost and wakeprobe
$A sim -t x86-12 -s arbor:default -s cosmos -w wakeprobe:t=4 -r 5 --seed 1 --no-charts --out "$OUT/wakeprobe"
# WAKE_LOCAL
for m in x86-12 xeon-88 power11; do
  $A sim -t $m -s arbor:default -s arbor:default:WAKE_LOCAL -w wakeprobe:t=4 \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w schbench \
    -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -r 5 --seed 1 --no-charts --out "$OUT/wake-local-$m"
done
$A vm --topology 2s2c2t -- tests/vm/suite.sh
$A verifier --kernel default --kernel rt
