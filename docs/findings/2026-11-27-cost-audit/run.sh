#!/usr/bin/env bash
# Cost audit of the wake-up path (run-id.sh, run-cost.sh in this folder).
# commit: afba49aa616b503ccc3971b25c2f482a755d9169 (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

D=docs/findings/2026-11-27-cost-audit
# BEFORE, AFTER: arbor binaries of the two builds compared
for tag in before after; do
  bin=${BEFORE:?}; [ $tag = after ] && bin=${AFTER:?}
  bash $D/run-id.sh "$bin" "$OUT/$tag"
  bash $D/run-cost.sh "$bin" "$OUT/$tag" peers
  $A sim -t power11 -s arbor:default -s arbor:stock -s bpfland -w perf-pipe:l=5000 -w pgbench:clients=8,time=5 -r 2 --seed 1 --no-charts --out "$OUT/tm-$tag-power11"
  $A sim -t xeon-88 -s arbor:default -s arbor:stock -s cosmos -w hackbench:g=2,l=100 -r 3 --seed 1 --no-charts --out "$OUT/tm-$tag-xeon-88"
done
for m in power11 xeon-88; do
  $A sim verdict "$OUT/tm-after-$m"
  python3 docs/findings/2026-11-27-cheaper-wakeup/compare.py "$OUT/tm-before-$m" "$OUT/tm-after-$m"
done
