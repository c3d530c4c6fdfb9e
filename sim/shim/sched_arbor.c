/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: scx_arbor's BPF scheduler as one native translation unit.
 * main.bpf.c is the BPF object's only compiled source (it includes the
 * other headers in its own order); it is included here unmodified. The
 * shim's <scx/common.bpf.h> stands in for the real one.
 */
#include "main.bpf.c"

/* The callbacks, for the simulator. */
const struct sched_ext_ops *sim_ops(void)
{
	return &arbor_ops;
}
