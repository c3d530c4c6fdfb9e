#!/usr/bin/env bash
# Seed 001 replayed from pgbench recorded on this host (reproduce --record-traces runs one arbor bench --host -s eevdf per line).
# commit: 1f223d4839f8468b95c79cf7013847cf4031edb9 (the commit this study names)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A sim reproduce 001 --record-traces "$OUT/traces"
$A sim reproduce 001 -r 10 --traces "$OUT/traces" --out "$OUT/traced-r10"
$A sim reproduce 001 -r 10 --out "$OUT/models-r10"
