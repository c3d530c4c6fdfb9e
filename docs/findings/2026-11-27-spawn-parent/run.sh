#!/usr/bin/env bash
# commit: 02ecaf51357eadb110840f08cf42b97b0762834e (the binary this study names)
# The verdict's suite (bench's five workloads plus schbench, every scheduler) on the machines named; A = a binary from 02ecaf5 on, where a
# model workload's tasks are forked by a running parent (README: how the
# committed results were made)
set -euo pipefail
cd "$(dirname "$0")"
exec ../verdict-suite.sh "$@"
