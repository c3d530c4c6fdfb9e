#!/usr/bin/env bash
# The simulator's speed on the fixed matrix of sim/examples/speed.rs
# (`make sim-speed`): M events per second of host CPU time per core, min /
# median / max over N runs a cell (default 3), with the host's load average
# before and after each cell.
#
# BEFORE=BINARY: also run that build of the speed example (built at an
# earlier commit), cell by cell in turn with this one, so that both see the
# same load; summary.json then has both and their ratio.
#   OUT=/tmp/speed BEFORE=/tmp/speed-before N=3 docs/findings/2026-12-06-sim-speed/run.sh
. "$(dirname "$0")/../lib.sh"
cargo build --release --locked -p arbor_sim --example speed
S=./target/release/examples/speed
N=${N:-3}
BEFORE=${BEFORE:-}
machines=(x86-12 xeon-88 power11 shape:n=4,l=4,c=16,t=2)
workloads=(hackbench:g=8,l=400 perf-messaging:g=8,l=100 perf-pipe:l=20000 schbench:r=2 trace:TRACE)
scheds=(arbor:default bpfland cosmos)
cells=()
for m in "${machines[@]}"; do
	for w in "${workloads[@]}"; do
		for s in "${scheds[@]}"; do
			cells+=("$m $s $w")
		done
	done
done
S=$S N=$N OUT=$OUT BEFORE=$BEFORE docs/findings/2026-12-06-sim-speed/cells.sh "${cells[@]}"
