#!/usr/bin/env bash
# Seed 003 (STEAL) in the simulator.
# commit: 8bb9e56099db8bc6d2bedd18f4c8c1433fd322dd (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A sim reproduce steal -r 5 --out "$OUT"
$A sim reproduce steal --quick
