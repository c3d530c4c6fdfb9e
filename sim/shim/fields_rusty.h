/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: scx_rusty 1.1.4's loader writes only top-level rodata globals
 * (main.rs:390-450: Native::write_global by name), so no fields here.
 */
static const struct sim_field_desc sim_fields[] = {};

/* the maps its BPF C passes as `void *` (main.bpf.c:140-149, 163-170) */
const struct sim_map_desc sim_untyped_maps[] = {
	SIM_MAP_DESC(scx_percpu_bpfmask_map),
};
const u32 sim_nr_untyped_maps = sizeof(sim_untyped_maps) / sizeof(sim_untyped_maps[0]);

/* its statistics: the per-CPU array map `stats` (main.bpf.c:498-503),
 * enum stat_idx (intf.h:66-94) */
void **sim_counter_slot(void)
{
	return SIM_MAP_SLOT(&stats);
}
const u32 sim_counter_max = SIM_MAP_MAX(&stats);

/*
 * For the sim's test of ops.set_weight (sim/src/sched/peers.rs tests): the
 * weight rusty keeps per task, task_ctx.weight, which only
 * rusty_set_weight writes (main.bpf.c:1581-1593); -1 if the task has no
 * context. Not called by the simulator's runs.
 */
int sim_rusty_task_weight(struct task_struct *p)
{
	struct task_ctx *taskc = try_lookup_task_ctx(p);

	return taskc ? (int)taskc->weight : -1;
}
