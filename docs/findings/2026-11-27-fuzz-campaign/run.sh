#!/usr/bin/env bash
# The fuzz campaign before and after the starvation bound (each seed with the binary of the commit named).
# commit: f1fa090852dc058bf8de0e6d29a8d9c269979b8f (the commit that added this study)
# Reconstructed from the README and the runs' meta.
. "$(dirname "$0")/../lib.sh" # set -euo pipefail; at the repository root; A, OUT

nice -n 10 $A sim fuzz --cases 5000 --seed 4 -j 2 --shrink arbor --out "$OUT/seed4"              # binary of df35ea0
nice -n 15 $A sim fuzz --cases 5000 --seed 5 -j 2 --shrink arbor --time 4200 --out "$OUT/seed5"  # binary of 927e2cd
nice -n 15 $A sim fuzz --cases 5000 --seed 6 -j 2 --shrink arbor --time 7800 --out "$OUT/seed6"  # binary of 174de5f
nice -n 15 $A sim fuzz --cases 2500 --seed 8 -j 2 --shrink arbor --time 4800 --out "$OUT/seed8"  # binary of a435c15
