#!/usr/bin/env bash
# commit: f7526ca6ac25c1124086ea0acae6fb49df26a3c2 (the binary this study names)
# Section 2-3: the asymmetric machines, f7526ca's binary (B), 5 seeds.
set -euo pipefail
B=${B:-./bin}
W="-w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench -w sysbench:threads=1,time=3"
# development: tc2, with seed 004's messaging line
$B sim -t tc2 -s arbor:stock -s arbor:seeds -s arbor:default -s arbor:default:NO_ASYM_WAKE_CAP $W -w perf-messaging:g=50,l=100 -r 5 --seed 1 --out tc2 --no-charts
# held out (criterion.txt written first): three machines no run had used
for sh in n=1,l=2,c=2,t=1,little=2 n=1,l=3,c=4,t=1,little=8 n=1,l=1,c=8,t=2,little=4; do
  $B sim -t shape:$sh -s arbor:stock -s arbor:default -s arbor:default:NO_ASYM_WAKE_CAP $W -r 5 --seed 1 --out held-out/$(echo $sh | tr ',=' '__') --no-charts
done
# seed 004's own tables: $B sim reproduce 004 -r 3
