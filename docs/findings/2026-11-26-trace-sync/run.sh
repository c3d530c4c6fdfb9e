#!/usr/bin/env bash
# WF_SYNC in traces from the kernel call chain.
# commit: e02040e63b9658fef4585f07e66302feaf921b4c (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

T=$OUT
# one boot: the recordings under eevdf (with call chains + kallsyms), then arbor:stock, arbor:seeds
$A sim validate --traces $T/traces -r 1 --out $T/report
$A sim validate --vm-results target/validate/2s2c2t/vm --traces $T/traces -r 1 --out $T/report
# the same recordings without their .kallsyms copies: the behaviour before
mkdir -p $T/traces-nosync && cp $T/traces/*.data $T/traces-nosync/
$A sim validate --vm-results target/validate/2s2c2t/vm --traces $T/traces-nosync -r 1 --out $T/report-nosync
