/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: one of the kernel's sched_ext selftests
 * (tools/testing/selftests/sched_ext/<test>.bpf.c of the kernel tree that
 * scripts/install-ksrc.sh fetches) or example schedulers
 * (tools/sched_ext/<name>.bpf.c) as one native translation unit: its BPF
 * source, unmodified, against the shim's headers. SIM_KSFT_MAIN is the
 * source's path, SIM_PEER_OPS its struct_ops; SIM_OPS_CID says that
 * struct_ops is a cid-form one (struct sched_ext_ops_cid: scx_qmap).
 */
#include SIM_KSFT_MAIN

#ifndef SIM_OPS_CID
/* The callbacks, for the simulator. */
const struct sched_ext_ops *sim_ops(void)
{
	return &SIM_PEER_OPS;
}
#else
/*
 * A cid-form scheduler (internal.h:863-950) registers struct
 * sched_ext_ops_cid; ext.c calls the same op slots, handing a cid where
 * the cpu-form op takes a CPU (scx_cpu_arg, cid.h:280-285: ops.dispatch
 * ext.c:2897-2903, ops.update_idle idle.c:790, ops.cpu_online/offline ->
 * cid_online/offline ext.c:3603-3605) and reading a cid where it returns
 * one (scx_cpu_ret, cid.h:287-292: ops.select_cid ext.c:3529-3531), and a
 * cmask for set_cpumask (scx_call_op_set_cpumask, ext.c:526-551: the
 * task's cpus_ptr as a cmask over [0, num_possible_cpus()), per-CPU
 * arena scratch ext.c:5137-5159: here one static scratch, as one
 * callback runs at a time). The adapter below is that translation: the
 * simulator calls the cpu-form table, the program gets cids.
 */
#define SIM_CID_OPS SIM_PEER_OPS

void sim_cid_init(void) __hidden;

static s32 sim_cid_select_cpu(struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	s32 cid = SIM_CID_OPS.select_cid(p, sim_cpu_to_cid_tbl[prev_cpu], wake_flags);

	/* scx_cpu_ret: a negative value passes through; an invalid cid is
	 * an error (scx_cid_to_cpu) */
	if (cid < 0)
		return cid;
	return sim_cid_to_cpu(cid);
}
static void sim_cid_dispatch(s32 cpu, struct task_struct *prev)
{
	SIM_CID_OPS.dispatch(sim_cpu_to_cid_tbl[cpu], prev);
}
static void sim_cid_update_idle(s32 cpu, bool idle)
{
	SIM_CID_OPS.update_idle(sim_cpu_to_cid_tbl[cpu], idle);
}
static void sim_cid_online(s32 cpu)
{
	SIM_CID_OPS.cid_online(sim_cpu_to_cid_tbl[cpu]);
}
static void sim_cid_offline(s32 cpu)
{
	SIM_CID_OPS.cid_offline(sim_cpu_to_cid_tbl[cpu]);
}
/* a cmask with room for SCX_CMASK_NR_WORDS(SIM_MAX_CPUS) words */
static u64 sim_cid_scratch[(sizeof(struct scx_cmask) + 7) / 8 + SIM_MAX_CPUS / 64 + 1];
static void sim_cid_set_cpumask(struct task_struct *p, const struct cpumask *mask)
{
	u32 n = sim_host->nr_cpu_slots, cpu;
	struct scx_cmask *m = (struct scx_cmask *)sim_cid_scratch;

	/* scx_cmask_init(0, num_possible_cpus()) then scx_cpumask_to_cmask
	 * (cid.c:274-285) */
	m->base = 0;
	m->nr_cids = n;
	m->alloc_words = (n + 63) / 64 + 1;
	__builtin_memset(m->bits, 0, (u64)m->alloc_words * sizeof(u64));
	for (cpu = 0; cpu < n; cpu++)
		if ((mask->bits[cpu / 64] >> (cpu % 64)) & 1) {
			s32 cid = sim_cpu_to_cid_tbl[cpu];

			if (cid >= 0)
				m->bits[cid / 64] |= 1ULL << (cid % 64);
		}
	SIM_CID_OPS.set_cmask(p, m);
}
static s32 sim_cid_init_op(void)
{
	sim_cid_form = true;
	return SIM_CID_OPS.init ? SIM_CID_OPS.init() : 0;
}

static struct sched_ext_ops sim_cid_adapter;

const struct sched_ext_ops *sim_ops(void)
{
	struct sched_ext_ops *o = &sim_cid_adapter;
	const struct sched_ext_ops_cid *c = &SIM_CID_OPS;

	if (o->name)
		return o;
	o->select_cpu = c->select_cid ? sim_cid_select_cpu : NULL;
	o->enqueue = c->enqueue;
	o->dequeue = c->dequeue;
	o->dispatch = c->dispatch ? sim_cid_dispatch : NULL;
	o->tick = c->tick;
	o->runnable = c->runnable;
	o->running = c->running;
	o->stopping = c->stopping;
	o->quiescent = c->quiescent;
	o->yield = c->yield;
	o->core_sched_before = c->core_sched_before;
	o->set_weight = c->set_weight;
	o->set_cpumask = c->set_cmask ? sim_cid_set_cpumask : NULL;
	o->update_idle = c->update_idle ? sim_cid_update_idle : NULL;
	o->init_task = c->init_task;
	o->exit_task = c->exit_task;
	o->enable = c->enable;
	o->disable = c->disable;
	o->dump = c->dump;
	o->dump_task = c->dump_task;
	o->cgroup_init = c->cgroup_init;
	o->cgroup_exit = c->cgroup_exit;
	o->cgroup_prep_move = c->cgroup_prep_move;
	o->cgroup_move = c->cgroup_move;
	o->cgroup_cancel_move = c->cgroup_cancel_move;
	o->cgroup_set_weight = c->cgroup_set_weight;
	o->cgroup_set_bandwidth = c->cgroup_set_bandwidth;
	o->cpu_online = c->cid_online ? sim_cid_online : NULL;
	o->cpu_offline = c->cid_offline ? sim_cid_offline : NULL;
	o->init = sim_cid_init_op;
	o->exit = c->exit;
	o->flags = c->flags;
	o->timeout_ms = c->timeout_ms;
	o->exit_dump_len = c->exit_dump_len;
	o->name = c->name ? c->name : "";
	return o;
}
#endif
