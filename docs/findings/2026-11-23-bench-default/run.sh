#!/usr/bin/env bash
# The default suite through the typed pipeline, five schedulers.
# commit: 32d92cc350ff090147ab854951d4d85b39aca5a6 (the commit this study names)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A bench -s eevdf -s arbor:stock -s arbor:default -s bpfland -s cosmos --out "$OUT"
