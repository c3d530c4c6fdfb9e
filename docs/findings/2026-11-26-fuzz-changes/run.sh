#!/usr/bin/env bash
# Fuzz with affinity and nice changes; the cases it found.
# commit: 475bf319deec4fd9abdcf2ec18c4d0eee9cc46e5 (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A sim fuzz --cases 200 --seed 1 --shrink arbor --out "$OUT/fuzz"
# the committed cases, each replayed as the README quotes it
$A sim -t shape:n=1,l=2,c=1,t=1 -s rusty -w rt-app:docs/findings/2026-11-26-fuzz-changes/cases/rtapp-bccc580ac6767416.json --seed 545537 --time-limit 2 --watchdog-ms 1000 --hotplug off:1@534ms
$A sim -t shape:n=1,l=2,c=4,t=1 -s arbor:stock:CACHE_LB -w rt-app:docs/findings/2026-11-26-fuzz-changes/cases/nice-jump-cache-lb.json --seed 1 --time-limit 35 --watchdog-ms 30000
$A sim -t shape:n=2,l=1,c=4,t=4 -s arbor:default:base-slice-us=78281 -w rt-app:docs/findings/2026-11-26-fuzz-changes/cases/big-slice-63-pinned.json --seed 514500 --time-limit 35 --watchdog-ms 30000
$A sim -t shape:n=1,l=1,c=1,t=1 -s arbor:default -w rt-app:docs/findings/2026-11-26-fuzz-changes/cases/nice18-vs-810-hogs.json --seed 706517 --time-limit 35 --watchdog-ms 30000
