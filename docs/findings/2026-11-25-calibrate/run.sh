#!/usr/bin/env bash
# arbor sim calibrate on this host.
# commit: 025e0b96ba6faebaf4c891d7a160424235369228 (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A sim calibrate --reps 7 --out "$OUT"
