/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: what scx_lavd 1.1.4's loader writes that is not a top-level
 * global: the compute domains' fields (init_cpdoms, main.rs:729-764), by
 * name (sched_peer.c) for element 0, and the element size; the loader in
 * sim/src/sched/lavd.rs writes element i at element 0 + i x the size.
 */
static const struct sim_field_desc sim_fields[] = {
	SIM_F(cpdom_ctxs[0], id),
	SIM_F(cpdom_ctxs[0], alt_id),
	SIM_F(cpdom_ctxs[0], numa_id),
	SIM_F(cpdom_ctxs[0], llc_id),
	SIM_F(cpdom_ctxs[0], is_big),
	SIM_F(cpdom_ctxs[0], is_valid),
	SIM_F(cpdom_ctxs[0], __cpumask),
	SIM_F(cpdom_ctxs[0], nr_neighbors),
	SIM_F(cpdom_ctxs[0], neighbor_ids),
};

const u64 sim_cpdom_ctx_size = sizeof(cpdom_ctxs[0]);
/* the loader's size_of::<types::task_ctx>() (main.rs:603) */
const u64 sim_task_ctx_size = sizeof(struct task_ctx);
