#!/usr/bin/env bash
# What group scheduling costs arbor:default, simulated: hackbench, schbench
# and pgbench on x86-12, xeon-88 and power11, each (a) with every task in the
# root cgroup and (b) with every task in one leaf of a depth-three hierarchy,
# cg=/a/b/c (cpu.weight 100 at each level, the cgroup v2 default). Every
# workload saturates its machine: schbench's default NCPU workers; hackbench
# with 2 groups (80 tasks) on 12 CPUs, 6 (240) on 88, 12 (480) on 224;
# pgbench with one client per CPU. 10 runs per cell from seed 1.
# table.py reads the results and writes this folder's summary.json and
# the table of its README (OUT/table.md).
# commit: see summary.json's git history; results.json records meta.commit
. "$(dirname "$0")/../lib.sh"
A=${BIN:-$A}
HERE=docs/findings/2026-12-07-cgroup-cost
CG=cg=/a/b/c
for spec in x86-12:2:12 xeon-88:6:88 power11:12:224; do
	IFS=: read -r m g c <<<"$spec"
	W="schbench hackbench:g=$g,l=100 pgbench:clients=$c,time=2"
	args=()
	for w in $W; do
		# schbench's default takes no options: its cgroup is its only one
		case $w in *:*) args+=(-w "$w" -w "$w,$CG") ;; *) args+=(-w "$w" -w "$w:$CG") ;; esac
	done
	echo "+ $A sim -t $m -s arbor:default ${args[*]} -r 10 --seed 1 --no-charts --out $OUT/$m" >&2
	nice -n 10 $A sim -t "$m" -s arbor:default "${args[@]}" -r 10 --seed 1 \
		--no-charts --out "$OUT/$m" > "$OUT/$m.log" 2>&1
done
python3 "$HERE/table.py" "$OUT" x86-12 xeon-88 power11 > "$OUT/table.md"
cp "$OUT/summary.json" "$HERE/summary.json"
cat "$OUT/table.md"
