#!/usr/bin/env bash
# The VM suite on the PREEMPT_RT kernel.
# commit: 526f7963822f88ac75c6b2529c245d349080fbea (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A vm --kernel rt --topology 2s2c2t -- tests/vm/suite.sh
$A vm --kernel rt -- tests/vm/part.sh seeds
$A verifier --kernel default --kernel rt --kernel next
