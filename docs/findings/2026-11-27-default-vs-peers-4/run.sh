#!/usr/bin/env bash
# commit: 7ffd6b6c0bd6f7f9661f6b0f84080947aeabf49b (the commit that added this study)
# The verdict's suite (bench's five workloads plus schbench, every scheduler) on the machines named; A = frozen binary
set -euo pipefail
cd "$(dirname "$0")"
exec ../verdict-suite.sh "$@"
