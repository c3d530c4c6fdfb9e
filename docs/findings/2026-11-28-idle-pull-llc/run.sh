#!/usr/bin/env bash
# IDLE_PULL bounded to the LLC; the scripts of each section are in this folder.
# commit: 85c1350c4f5792aeb936310555eb479f74fdc34a (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

D=docs/findings/2026-11-28-idle-pull-llc
# BIN: arbor of the experiment branch (section 1-5), run per machine with arbor:default only
bash $D/run-default-only.sh "${BIN:?}" "$OUT/" x86-12 xeon-88 power11
# the held-out machines, once, with the final binary (the script names its binary and host snapshot)
bash $D/run-held-out.sh
# every scheduler after cc849f9
bash $D/after-load-idle/run.sh
# section 6: the idle mask read from its address
bash $D/idle-mask-addr/run.sh
bash $D/task-cpu/run.sh
