/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: a peer scheduler's BPF program (scx_bpfland, ...) as one
 * native translation unit: its main.bpf.c, taken unmodified from the
 * pinned crate (sim/build.rs downloads it), against the shim's headers.
 * SIM_PEER_OPS names its struct_ops (e.g. bpfland_ops).
 */
#include "main.bpf.c"

/* The callbacks, for the simulator. */
const struct sched_ext_ops *sim_ops(void)
{
	return &SIM_PEER_OPS;
}
