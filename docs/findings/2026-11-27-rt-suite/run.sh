#!/usr/bin/env bash
# The VM suite on 7.2.13-rt.
# commit: df35ea0107396a17023b32b669f3404543c7cd70 (the commit this study names)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

make deps KERNELS=rt
$A vm --kernel rt --topology 2s2c2t -- tests/vm/suite.sh
$A vm --kernel rt --topology 2s2c2t -- tests/vm/part.sh seeds hotplug harden
$A vm --topology 2s2c2t -- tests/vm/suite.sh
$A verifier --kernel default --kernel rt
