#!/usr/bin/env bash
# Trace rows in arbor sim validate.
# commit: c08a0513d7e80a10e1d0dd5775a451974c2f01be (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

T=$OUT
$A bench -t 2s2c2t -s eevdf -s arbor:stock -s arbor:seeds -w perf-pipe:l=200 \
  -w hackbench:g=2,l=100 -w perf-pipe:l=5000 -w wakeprobe:m=2,w=2,t=3 \
  -w pgbench:clients=4,time=3 -w idle:t=3 --record-traces $T/traces -r 2 \
  --no-charts --force -o $T/vm        # stopped after rep 1 (rendered from rep 1: T/vm-r1)
$A bench -t 2s2c2t -s eevdf -w hackbench:g=2,l=100 -w perf-pipe:l=5000 \
  -w wakeprobe:m=2,w=2,t=3 -w pgbench:clients=4,time=3 \
  --record-traces $T/traces2 -r 1 --no-charts --force -o $T/rec
$A sim validate --vm-results $T/vm-r1 --traces $T/traces2 -r 1 --out $T/report
