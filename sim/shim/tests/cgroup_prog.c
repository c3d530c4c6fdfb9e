/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: a test scheduler that implements only the cgroup callbacks
 * it needs to record what bpf_cgroup_from_id finds (everything else is
 * ext.c's default: the global DSQ). sim/build.rs compiles it with the shim
 * like a scheduler; sched/native.rs runs it with an mkdir and an rmdir.
 * Each mask has bit `id` for kernfs id `id` (below 64).
 */
#include <scx/common.bpf.h>

u64 inited, found_at_init, exited, found_at_exit, found_at_running;

static bool found(u64 id)
{
	return bpf_cgroup_from_id(id) != NULL;
}

s32 BPF_STRUCT_OPS(cgtest_cgroup_init, struct cgroup *cgrp, struct scx_cgroup_init_args *args)
{
	u64 id = cgrp->kn->id;

	if (id < 64) {
		inited |= 1ULL << id;
		if (found(id))
			found_at_init |= 1ULL << id;
	}
	return 0;
}

void BPF_STRUCT_OPS(cgtest_cgroup_exit, struct cgroup *cgrp)
{
	u64 id = cgrp->kn->id;

	if (id < 64) {
		exited |= 1ULL << id;
		if (found(id))
			found_at_exit |= 1ULL << id;
	}
}

/* the ids found when a task last started running */
void BPF_STRUCT_OPS(cgtest_running, struct task_struct *p)
{
	u64 m = 0, id;

	for (id = 1; id < 64; id++)
		if (found(id))
			m |= 1ULL << id;
	found_at_running = m;
}

SCX_OPS_DEFINE(cgtest_ops,
	       .cgroup_init = (void *)cgtest_cgroup_init,
	       .cgroup_exit = (void *)cgtest_cgroup_exit,
	       .running = (void *)cgtest_running,
	       .name = "cgtest");

const struct sched_ext_ops *sim_ops(void)
{
	return &cgtest_ops;
}
