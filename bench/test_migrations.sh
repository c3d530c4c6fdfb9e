#!/usr/bin/env bash
# Unit test of bench/migrations.awk on a crafted topology and trace.
# Run by `make unit-test`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# 2 nodes; node 0 has LLC A (cores 0.0 = CPUs 0,1 and 0.1 = CPU 2) and LLC B (CPU 3)
cat >"$t/classes" <<'C'
0 0.0 A 0
1 0.0 A 0
2 0.1 A 0
3 0.2 B 0
4 1.0 C 1
C
cat >"$t/trace" <<'T'
comm=a pid=1 prio=120 orig_cpu=0 dest_cpu=1
comm=b pid=2 prio=120 orig_cpu=1 dest_cpu=2
comm=c pid=3 prio=120 orig_cpu=2 dest_cpu=0
comm=d pid=4 prio=120 orig_cpu=2 dest_cpu=3
comm=e pid=5 prio=120 orig_cpu=3 dest_cpu=4
comm=f pid=6 prio=120 orig_cpu=4 dest_cpu=0
comm=g pid=7 prio=120 orig_cpu=4 dest_cpu=9
not a migration line
T
got=$(awk -v w=2 -f "$here/migrations.awk" "$t/classes" "$t/trace")
want='migr_per_s 3.5
migr_smt_per_s 0.5
migr_llc_per_s 1.0
migr_xllc_per_s 0.5
migr_xnode_per_s 1.0'
if [ "$got" != "$want" ]; then
	printf 'migrations.awk: got\n%s\nwant\n%s\n' "$got" "$want" >&2
	exit 1
fi
echo "migrations.awk: 1 test passed"
