#!/usr/bin/env bash
# commit: 322317822239de02fee7910d39661e00b7aa4672 (the commit that added this study)
# The verdict's suite (bench's five workloads plus schbench, every scheduler) on the machines named; A = frozen binary
set -euo pipefail
cd "$(dirname "$0")"
exec ../verdict-suite.sh "$@"
