#!/usr/bin/env bash
# arbor sim validate on 2s2c2t.
# commit: c554a1513a04e6593c95a0d45e19c3ab1c4099c5 (the commit this study names)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

# the VM side: one TCG boot (arbor sim validate runs it first and keeps it in target/validate/2s2c2t/vm)
$A bench -t 2s2c2t -s arbor:stock -s arbor:seeds -w hackbench:g=2,l=100 -w perf-pipe:l=5000 -w wakeprobe:m=2,w=2,t=3 -r 3 --no-charts -o target/validate/2s2c2t/vm
# the simulator side against it
$A sim validate --vm-results target/validate/2s2c2t/vm --out "$OUT"
