#!/usr/bin/env bash
# A small bench run with peers.
# commit: 66bb64495b54ee897ecc672c15319111fc2ab094 (the commit this study names)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

$A bench -t 2s2c2t -r 2 -s eevdf -s arbor:default -s lavd -s bpfland -w pgbench:clients=8,time=4 -w wakeprobe:t=3 --out "$OUT"
