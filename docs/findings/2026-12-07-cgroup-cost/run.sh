#!/usr/bin/env bash
# What group scheduling costs arbor:default, simulated: hackbench, schbench
# and pgbench on x86-12, xeon-88 and power11, each (a) with every task in the
# root cgroup and (b) with every task in one leaf of a depth-three hierarchy,
# cg=/a/b/c (cpu.weight 100 at each level, the cgroup v2 default). Every
# workload saturates its machine: schbench's default NCPU workers; hackbench
# with 2 groups (80 tasks) on 12 CPUs, 6 (240) on 88, 12 (480) on 224;
# pgbench with one client per CPU. Runs from seed 1: 30 per cell of
# schbench and hackbench (their spread is wide), 10 of pgbench (narrow, and
# the dearest: 224 clients on power11), into OUT/MACHINE and OUT/MACHINE-pgbench.
# table.py reads the results and writes this folder's summary.json and
# the table of its README (OUT/table.md).
# commit: cd99e9e6eb67c46a701a5ed337d479042cafd0ce (arbor built there; results.json records meta.commit)
. "$(dirname "$0")/../lib.sh"
A=${BIN:-$A}
HERE=docs/findings/2026-12-07-cgroup-cost
CG=cg=/a/b/c
X=() # extra options of arbor sim
cell() { # OUT_DIR MACHINE REPS WORKLOAD...: each workload in the root and in $CG
	local out=$1 m=$2 reps=$3 w args=("${X[@]}")
	shift 3
	for w in "$@"; do
		# schbench's default takes no options: its cgroup is its only one
		case $w in *:*) args+=(-w "$w" -w "$w,$CG") ;; *) args+=(-w "$w" -w "$w:$CG") ;; esac
	done
	echo "+ $A sim -t $m -s arbor:default ${args[*]} -r $reps --seed 1 --no-charts --out $out" >&2
	nice -n 10 $A sim -t "$m" -s arbor:default "${args[@]}" -r "$reps" --seed 1 \
		--no-charts --out "$out" > "$out.log" 2>&1
}
for spec in x86-12:2:12 xeon-88:6:88 power11:12:224; do
	IFS=: read -r m g c <<<"$spec"
	cell "$OUT/$m" "$m" 30 schbench "hackbench:g=$g,l=100"
	cell "$OUT/$m-pgbench" "$m" 10 "pgbench:clients=$c,time=2"
done
# The same schbench cells with every BPF op free (the decisions alone): what
# of the wake-up latency change the hierarchy's decisions make, not its cost
X=(--cost bpf_callback_ns=0 --cost bpf_call_ns=0)
for m in x86-12 xeon-88 power11; do
	cell "$OUT/$m-free" "$m" 30 schbench
done
python3 "$HERE/table.py" "$OUT" x86-12 x86-12-pgbench xeon-88 xeon-88-pgbench power11 power11-pgbench \
	x86-12-free xeon-88-free power11-free > "$OUT/table.md"
cp "$OUT/summary.json" "$HERE/summary.json"
cat "$OUT/table.md"
