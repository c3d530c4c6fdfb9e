#!/usr/bin/env bash
# commit: 94b862f9d1e133a90435b8eab5252ae8b52c5fe5 (the commit that added this study)
# The final comparison of this report (power11, 4 schedulers, bench's 5
# default workloads plus schbench, 5 seeds): power11-report.md and the two
# verdict files. ARBOR = an arbor binary built at this directory's commit.
set -euo pipefail
ARBOR=${ARBOR:-arbor}
cd "$(dirname "$0")"
$ARBOR sim -t power11 -s arbor:stock -s arbor:default -s arbor:default:SIS_NODE -s cosmos \
  -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 \
  -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench -r 5 --seed 1 --out power11 --no-charts
$ARBOR sim verdict power11 > verdict-default.txt
$ARBOR sim verdict --candidate arbor:default:SIS_NODE power11 > verdict-sis-node.txt
