#!/usr/bin/env bash
# IDLE_PULL: arbor:default with and without it.
# commit: 9fa57f8ae277247e3b499ca9b4b053b8201968b7 (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A sim -t x86-12 -s arbor:default -s arbor:default:IDLE_PULL -s arbor:default:NO_NI_RANDOM -s cosmos \
  -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w wakeprobe:t=4 -w perf-pipe:l=5000 -w schbench \
  -r 5 --seed 1 --out "$OUT/x86-12" --no-charts
for m in xeon-88 power11; do
  $A sim -t $m -s arbor:default -s arbor:default:IDLE_PULL \
    -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w wakeprobe:t=4 -w schbench \
    -r 5 --seed 1 --out "$OUT/$m" --no-charts
done
for m in epyc spr-2s; do
  $A sim -t $m -s arbor:default:NO_IDLE_PULL -s arbor:default:IDLE_PULL \
    -w hackbench:g=2,l=100 -w schbench -r 3 --seed 1 --out "$OUT/held-out/$m" --no-charts
done
# the host: the committed snapshot (held-out/host-snapshot/topology) of a 2-CPU VM
$A sim --topology-from docs/findings/2026-11-26-default-vs-peers-2/held-out/host-snapshot/topology \
  -s arbor:default:NO_IDLE_PULL -s arbor:default:IDLE_PULL \
  -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w wakeprobe:t=4 -w schbench -r 5 --seed 1 \
  --out "$OUT/held-out/host-snapshot" --no-charts
