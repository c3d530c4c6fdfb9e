/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: the rodata fields scx_p2dq 1.1.4's loader writes
 * (src/lib.rs init_open_skel!, lib.rs:424-499), by name (sched_peer.c).
 */
static const struct sim_field_desc sim_fields[] = {
	SIM_F(topo_config, nr_cpus),
	SIM_F(topo_config, nr_llcs),
	SIM_F(topo_config, nr_nodes),
	SIM_F(topo_config, smt_enabled),
	SIM_F(topo_config, has_little_cores),
	SIM_F(timeline_config, min_slice_us),
	SIM_F(timeline_config, max_exec_ns),
	SIM_F(timeline_config, autoslice),
	SIM_F(timeline_config, deadline),
	SIM_F(lb_config, slack_factor),
	SIM_F(lb_config, min_nr_queued_pick2),
	SIM_F(lb_config, min_llc_runs_pick2),
	SIM_F(lb_config, max_dsq_pick2),
	SIM_F(lb_config, eager_load_balance),
	SIM_F(lb_config, dispatch_pick2_disable),
	SIM_F(lb_config, dispatch_lb_busy),
	SIM_F(lb_config, dispatch_lb_interactive),
	SIM_F(lb_config, wakeup_lb_busy),
	SIM_F(lb_config, wakeup_llc_migrations),
	SIM_F(lb_config, single_llc_mode),
	SIM_F(p2dq_config, interactive_ratio),
	SIM_F(p2dq_config, dsq_shift),
	SIM_F(p2dq_config, task_slice),
	SIM_F(p2dq_config, kthreads_local),
	SIM_F(p2dq_config, nr_dsqs_per_llc),
	SIM_F(p2dq_config, init_dsq_index),
	SIM_F(p2dq_config, saturated_percent),
	SIM_F(p2dq_config, sched_mode),
	SIM_F(p2dq_config, llc_shards),
	SIM_F(p2dq_config, atq_enabled),
	SIM_F(p2dq_config, dhq_enabled),
	SIM_F(p2dq_config, dhq_max_imbalance),
	SIM_F(p2dq_config, cpu_priority),
	SIM_F(p2dq_config, freq_control),
	SIM_F(p2dq_config, interactive_sticky),
	SIM_F(p2dq_config, keep_running_enabled),
	SIM_F(p2dq_config, pelt_enabled),
	SIM_F(p2dq_config, fork_balance),
	SIM_F(p2dq_config, exec_balance),
	SIM_F(p2dq_config, enable_eas),
	SIM_F(p2dq_config, small_task_threshold),
	SIM_F(p2dq_config, large_task_threshold),
	SIM_F(latency_config, latency_priority_enabled),
	SIM_F(latency_config, wakeup_preemption_enabled),
};

/* the loader's size_of::<types::task_p2dq>() (main.rs:542) */
const u64 sim_task_ctx_size = sizeof(struct task_p2dq);

/* its statistics: the per-CPU array map `stats` (main.bpf.c:921-926),
 * enum stat_idx (intf.h:66-96) */
void **sim_counter_slot(void)
{
	return SIM_MAP_SLOT(&stats);
}
const u32 sim_counter_max = SIM_MAP_MAX(&stats);
