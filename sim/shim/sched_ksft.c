/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: one of the kernel's sched_ext selftests
 * (tools/testing/selftests/sched_ext/<test>.bpf.c of the kernel tree that
 * scripts/install-ksrc.sh fetches) as one native translation unit: its BPF
 * source, unmodified, against the shim's headers. SIM_KSFT_MAIN is the
 * source's path, SIM_PEER_OPS its struct_ops.
 */
#include SIM_KSFT_MAIN

/* The callbacks, for the simulator. */
const struct sched_ext_ops *sim_ops(void)
{
	return &SIM_PEER_OPS;
}
