#!/usr/bin/env bash
# A cheaper wake-up path.
# commit: 7cb56e9982ce20ef79d08803e87a5580d764d338 (the commit that added this study)
# Reconstructed from the README: a record, not a tested script (see "other flags not recorded").
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

# A_BIN, B_BIN: scx_arbor built at 174de5f (before) and d04b796 (after)
$A vm --topology 2s2c2t -- env A_BIN="${A_BIN:?}" B_BIN="${B_BIN:?}" ROUNDS=3 bash tests/vm/opcost-ab.sh
$A vm --topology 2s2c2t -- tests/vm/suite.sh
$A vm --kernel rt --topology 2s2c2t -- tests/vm/part.sh seeds hotplug harden
$A verifier --kernel default --kernel rt
for s in idler-llc steal asym-capacity; do $A sim reproduce $s --quick; done
# other flags not recorded
for m in x86-12 xeon-88 power11; do
  $A sim -t $m -s arbor:stock -s arbor:default -w hackbench:g=2,l=100 -w perf-messaging:g=2,l=50,mode=thread -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -w wakeprobe:t=4 -w schbench -r 3 --seed 1 --out "$OUT/$m" --no-charts
done
