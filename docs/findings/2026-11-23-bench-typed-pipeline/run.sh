#!/usr/bin/env bash
# The typed bench pipeline's first VM runs (peer-smoke at 65cc222, two-reps at 1afb07b).
# commit: 7a029bc3b5376fe52f40b7c3dcfe6dbe1da0be0e (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A bench -t 1s2c2t -r 1 --no-charts -s eevdf -s bpfland -s arbor:default -w hackbench:g=1,l=50 --out "$OUT/peer-smoke"
$A bench -t 1s2c2t -r 2 --no-charts -s eevdf:NO_SIS_UTIL -s arbor:stock:cpu-capacity=2-3:430 -w pgbench:clients=2,time=2 \
  -w sysbench:threads=2,time=2 -w stress-ng:stressor=switch,n=2,t=2 -w idle:t=1 -w perf-pipe:l=2000,cpu=1 --out "$OUT/two-reps"
