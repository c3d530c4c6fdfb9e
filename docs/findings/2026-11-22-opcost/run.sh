#!/usr/bin/env bash
# Per-op BPF cost of two scx_arbor builds in one boot.
# commit: 459e62e1f61e22616d4382dab44bbcc39bc71587 (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

# BEFORE, AFTER: scx_arbor binaries of the two commits compared (MAIN, PART1, AFTER in the README)
BEFORE=${BEFORE:?scx_arbor before} AFTER=${AFTER:?scx_arbor after}
$A vm -t 2s2c2t -- bash bench/opcost.sh "$BEFORE" "$AFTER" 2
