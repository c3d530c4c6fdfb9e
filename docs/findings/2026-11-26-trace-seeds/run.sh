#!/usr/bin/env bash
# Seed 001 replayed from pgbench recorded in the VM.
# commit: d30bf3798410a2defe3b501a4acdda6efde5bcbf (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

T=$OUT
$A bench -t 2s2c2t -s eevdf -s arbor:stock -w perf-pipe:l=200 -w perf-pipe:l=5000 \
  -w pgbench:clients=4,time=3 \
  -w pgbench:clients=1,jobs=1,xacts=400 -w pgbench:clients=2,jobs=1,xacts=200 \
  -w pgbench:clients=4,jobs=1,xacts=100 -w pgbench:clients=8,jobs=1,xacts=50 \
  -w pgbench:clients=12,jobs=1,xacts=34 -w pgbench:clients=16,jobs=1,xacts=25 \
  -w pgbench:clients=24,jobs=1,xacts=20 -w pgbench:clients=32,jobs=1,xacts=20 \
  --record-traces $T/rec -r 1 --no-charts --force -o $T/vm
mkdir -p $T/traces
for c in "1 400" "2 200" "4 100" "8 50" "12 34" "16 25" "24 20" "32 20"; do set -- $c
  cp $T/rec/pgbench_clients_$1_jobs_1_xacts_$2-r1.data $T/traces/pgbench_clients_$1_jobs_1_time_1.data
  cp $T/rec/pgbench_clients_$1_jobs_1_xacts_$2-r1.data.kallsyms $T/traces/pgbench_clients_$1_jobs_1_time_1.data.kallsyms
done
$A sim -t 2s2c2t -s arbor:stock -w perf-pipe:l=5000 --one-host-thread --slowdown 1 -r 1 --out $T/calib --no-charts
$A sim reproduce 001 -r 3 --out $T/models
$A sim reproduce 001 -r 3 --traces $T/traces --trace-k 269.4 --out $T/traced
