#!/usr/bin/env bash
# The simulator's speed on the fixed matrix of sim/examples/speed.rs
# (`make sim-speed`) and its EXTRA cells (wakeprobe, pgbench): M events per
# second of host CPU time per core, min / median / max over N runs a cell
# (default 3), with the host's load average before and after each cell.
#
# BEFORE=BINARY: also run that build of the speed example (built at an
# earlier commit), cell by cell in turn with this one, so that both see the
# same load; summary.json then has both and their ratio.
#   OUT=/tmp/speed2 BEFORE=/tmp/speed-before N=3 docs/findings/2026-12-06-sim-speed-2/run.sh
. "$(dirname "$0")/../lib.sh"
cargo build --release --locked -p arbor_sim --example speed
# S=BINARY: time that build instead of the one just made
S=${S:-./target/release/examples/speed}
N=${N:-3}
BEFORE=${BEFORE:-}
# every cell of the example's matrix and its EXTRA cells
mapfile -t cells < <("$S" --list)
S=$S N=$N OUT=$OUT BEFORE=$BEFORE docs/findings/2026-12-06-sim-speed/cells.sh "${cells[@]}"
