#!/usr/bin/env bash
# Peers in the simulator beside arbor.
# commit: d73a5551c570536d8d4f014c07d626983f3db441 (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

for m in x86-12 xeon-88 power11; do
  $A sim -t $m -s arbor:stock -s arbor:default -s bpfland -s cosmos -s lavd -s p2dq -s rusty \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench -r 5 --seed 1 --out "$OUT/$m" --no-charts
  $A sim -t $m -s arbor:stock -s p2dq -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench -r 5 --seed 1 --out "$OUT/$m/p2dq" --no-charts
done
# per distance, against the VM runs of ../2026-11-23-bench-default and ../2026-11-23-bench-default-all
$A sim -t 2s2c2t -s arbor:default -s bpfland -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -r 3 --out "$OUT/xcheck-distance/sim-native"
$A sim -t 2s2c2t -s arbor:default -s bpfland -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -r 3 --one-host-thread --slowdown 84.7 --out "$OUT/xcheck-distance/sim-tcg"
$A sim -t 2s2c2t -s arbor:default -s bpfland -s cosmos -s lavd -s p2dq -s rusty -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -r 3 --no-charts --out "$OUT/xcheck-distance-all/sim-native"
$A sim -t 2s2c2t -s arbor:default -s bpfland -s cosmos -s lavd -s p2dq -s rusty -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -r 3 --one-host-thread --slowdown 78.0 --no-charts --out "$OUT/xcheck-distance-all/sim-tcg"
# VM = the VM results.json of those two findings (in git history, see their README)
python3 docs/findings/2026-11-23-sim-peers/xcheck.py --per-distance "${VM:?VM results.json}" "$OUT/xcheck-distance/sim-native/results.json" "$OUT/xcheck-distance/sim-tcg/results.json"
