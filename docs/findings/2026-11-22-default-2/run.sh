#!/usr/bin/env bash
# The default bench suite after the daemon-spin fix, one TCG boot.
# commit: 2f48b0dbec4313e71ac2e6d255ba9fef4dced65e (the commit this study names)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A bench --out "$OUT"
