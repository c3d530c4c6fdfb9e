/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Group scheduling: cgroup v2 cpu.weight as fair.c's task groups honour it,
 * flattened (policy.h arbor_cg_weight). Every cgroup below the root has a
 * context keyed by its id: its parent's id, its shares (cpu.weight on the
 * 1024 scale), the summed weight of its active members and how many there
 * are. A task counts its weight in its group while it is runnable
 * (runnable() .. quiescent()); a group becomes active with its first active
 * member and then counts its shares in its parent, up to the top level.
 * The sums are kept with atomics, without a lock: the callbacks of
 * different CPUs may race on one group, and each transition is undone by
 * the one that pairs with it, so the sums come back to exact.
 *
 * A task's weight in its CPU's EEVDF queue (eevdf.bpf.h task_weight), on
 * the fine scale (policy.h ARBOR_W_SHIFT), is the flattened one: taken when it joins the queue and refreshed at the tick
 * (update_cfs_group() at entity_tick; reweight_entity()). Tasks in the
 * root cgroup keep their own weight and take none of this path.
 *
 * ext.c (7.2) calls cgroup_init top-down for every existing cgroup when the
 * scheduler loads and for each new one (scx_cgroup_init, scx_tg_online),
 * cgroup_exit bottom-up at unload and for each removed one, prep_move /
 * move / cancel_move around a task's migration between cgroups
 * (scx_cgroup_can_attach, scx_cgroup_move_task: the task is dequeued
 * meanwhile, so quiescent() came first), and cgroup_set_weight on a
 * cpu.weight write. 7.2 has no SCX_OPS_HAS_CGROUP_WEIGHT flag (its
 * SCX_OPS_ALL_FLAGS refuses it); defining cgroup_set_weight is what counts.
 */
#ifndef __ARBOR_CGROUP_BPF_H
#define __ARBOR_CGROUP_BPF_H

#define ARBOR_MAX_CGROUPS	4096

/* groups with cpu.idle set, and with a cpu.max quota: their paths cost nothing otherwise */
static s32 cg_nr_idle, cg_nr_bw;

/*
 * Groups below the root scx_arbor has a context for: while there is one, a
 * busy CPU balances by load with tasks queued too (main.bpf.c dispatch),
 * where the groups' hierarchical loads differ from the task counts. (A
 * count of groups, not of active ones: nothing on the paths that make a
 * task runnable; a host under systemd has groups from the start anyway.)
 */
static s32 cg_nr_groups;

/* struct cg_ctx: intf.h (--stats reads the map) */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ARBOR_MAX_CGROUPS);
	__type(key, u64);
	__type(value, struct cg_ctx);
} cg_ctxs SEC(".maps");

static __always_inline struct cg_ctx *lookup_cg(u64 id)
{
	return id ? bpf_map_lookup_elem(&cg_ctxs, &id) : NULL;
}

/* A cgroup's id, 0 for the root (which needs no context). */
static __always_inline u64 cg_id_of(struct cgroup *cgrp)
{
	return cgrp && cgrp->level > 0 ? cgrp->kn->id : 0;
}

/*
 * `w` joins group `id`'s active sum; each group that becomes active with
 * it joins its parent's, up to the top level.
 */
static __always_inline void cg_activate(u64 id, u64 w)
{
	struct cg_ctx *g = lookup_cg(id);
	u32 i;

	if (!g)
		return;
	__sync_fetch_and_add(&g->active, w);
	bpf_for(i, 0, ARBOR_CG_MAX_DEPTH) {
		struct cg_ctx *pg;
		u64 c;

		if (__sync_fetch_and_add(&g->nr_active, 1) != 0)
			break;
		c = g->shares;
		g->contrib = c;
		pg = lookup_cg(g->parent);
		if (!pg)
			break;
		__sync_fetch_and_add(&pg->active, c);
		g = pg;
	}
}

/* The reverse of cg_activate: `w` leaves, emptied groups leave their parents. */
static __always_inline void cg_deactivate(u64 id, u64 w)
{
	struct cg_ctx *g = lookup_cg(id);
	u32 i;

	if (!g)
		return;
	__sync_fetch_and_sub(&g->active, w);
	bpf_for(i, 0, ARBOR_CG_MAX_DEPTH) {
		struct cg_ctx *pg;

		if (__sync_fetch_and_sub(&g->nr_active, 1) != 1)
			break;
		pg = lookup_cg(g->parent);
		if (!pg)
			break;
		__sync_fetch_and_sub(&pg->active, g->contrib);
		g = pg;
	}
}

/* runnable(): a task of a group counts there until quiescent(). */
static __always_inline void cg_task_runnable(struct task_struct *p, struct task_ctx *tctx)
{
	if (!cg_enabled || !tctx->cg_id || tctx->cg_on)
		return;
	tctx->cg_on = tctx->cg_id;
	tctx->cg_w = arbor_eevdf_weight(p->scx.weight);
	cg_activate(tctx->cg_on, tctx->cg_w);
}

static __always_inline void cg_task_quiescent(struct task_ctx *tctx)
{
	if (!tctx->cg_on)
		return;
	cg_deactivate(tctx->cg_on, tctx->cg_w);
	tctx->cg_on = 0;
	tctx->cg_w = 0;
}

/*
 * The weight a task has in its CPU's queue, on the fine scale: its own, or
 * for a task of a group the flattened one (policy.h arbor_cg_weight), from
 * its group up.
 */
static __always_inline u64 cg_task_weight(const struct task_struct *p, const struct task_ctx *tctx)
{
	u64 w = arbor_eevdf_weight(p->scx.weight), eff, child, id;
	u32 i;

	if (!cg_enabled || !tctx || !tctx->cg_id)
		return arbor_w_hi(w);
	eff = arbor_w_hi(w);
	child = w;
	id = tctx->cg_on ?: tctx->cg_id;
	/* arbor_cg_weight's product, a level at a time from the task's group up */
	bpf_for(i, 0, ARBOR_CG_MAX_DEPTH) {
		struct cg_ctx *g = lookup_cg(id);

		if (!g)
			break;
		eff = arbor_cg_step(eff, child, g->shares, g->active);
		child = g->shares;
		id = g->parent;
		if (!id)
			break;
	}
	stat_inc(STAT_CG_SHARES);
	return arbor_cg_floor(eff);
}

/* A group's DSQ: where its tasks wait while it is throttled (cgroup_bw.bpf.h). */
#define ARBOR_CG_DSQ_BASE	(1ULL << 48)

static __always_inline u64 cg_dsq(u64 id)
{
	return ARBOR_CG_DSQ_BASE | (id & (ARBOR_CG_DSQ_BASE - 1));
}

#define CG_UP_IDLE	0	/* cpu.idle set */
#define CG_UP_THROTTLED	1	/* cpu.max's quota used up (cgroup_bw.bpf.h) */

/* The innermost of group id and its ancestors that is CG_UP_*, 0 if none. */
static __always_inline u64 cg_find_up(u64 id, u32 what)
{
	u32 i;

	bpf_for(i, 0, ARBOR_CG_MAX_DEPTH) {
		struct cg_ctx *g = lookup_cg(id);

		if (!g)
			break;
		if (what == CG_UP_IDLE ? g->idle : g->throttled)
			return id;
		id = g->parent;
		if (!id)
			break;
	}
	return 0;
}

/*
 * A task of an idle group, or of a group below one (se_is_idle's
 * hierarchy)? The innermost such group's id, 0 if none.
 */
static __always_inline u64 cg_task_idle(const struct task_ctx *tctx)
{
	return cg_nr_idle && tctx->cg_id ? cg_find_up(tctx->cg_id, CG_UP_IDLE) : 0;
}

/* --stats' per-group figures: a run of a task of a group (stopping, keep_prev) */
static __always_inline void cg_account_run(const struct task_ctx *tctx, u64 ran)
{
	struct cg_ctx *g;

	if (tctx->cg_id && ran && (g = lookup_cg(tctx->cg_id)))
		__sync_fetch_and_add(&g->run_ns, ran);
}

/* a wake-up preempted a task of idle group id at once (check_preempt_wakeup_fair) */
static __always_inline void cg_idle_preempted(u64 id)
{
	struct cg_ctx *g = lookup_cg(id);

	stat_inc(STAT_CG_IDLE_PREEMPTS);
	if (g)
		__sync_fetch_and_add(&g->nr_idle_preempts, 1);
}

/* shares -> s for group g: an active group's parent sees the new shares at once */
static __always_inline void cg_set_shares(struct cg_ctx *g, u64 s)
{
	struct cg_ctx *pg;
	u64 old;

	g->shares = s;
	if (g->nr_active <= 0 || !(pg = lookup_cg(g->parent)))
		return;
	old = g->contrib;
	g->contrib = s;
	__sync_fetch_and_add(&pg->active, s - old);
}

s32 BPF_STRUCT_OPS(arbor_cgroup_prep_move, struct task_struct *p, struct cgroup *from, struct cgroup *to)
{
	return 0;
}

/*
 * The task belongs to `to` from now. A runnable one moves its weight
 * along (sched_move_task dequeues it first, so normally it counts nowhere).
 */
void BPF_STRUCT_OPS(arbor_cgroup_move, struct task_struct *p, struct cgroup *from, struct cgroup *to)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	bool on;

	if (!tctx)
		return;
	on = tctx->cg_on;
	cg_task_quiescent(tctx);
	tctx->cg_id = cg_enabled ? cg_id_of(to) : 0;
	if (on)
		cg_task_runnable(p, tctx);
}

void BPF_STRUCT_OPS(arbor_cgroup_cancel_move, struct task_struct *p, struct cgroup *from,
		    struct cgroup *to)
{
}

/*
 * A cpu.weight write. (fair.c refuses one to an idle group,
 * sched_group_set_shares, so ext.c does not pass it on then.)
 */
void BPF_STRUCT_OPS(arbor_cgroup_set_weight, struct cgroup *cgrp, u32 weight)
{
	struct cg_ctx *g = lookup_cg(cg_id_of(cgrp));

	if (g)
		cg_set_shares(g, arbor_cg_shares(weight));
}

/*
 * A cpu.idle write (sched_group_set_idle): the group's shares become
 * WEIGHT_IDLEPRIO's, and back to NICE_0_LOAD's when it leaves idle
 * (policy.h arbor_cg_idle_shares); its tasks and those below it become
 * idle for wake-up preemption (main.bpf.c enqueue, arbor_cg_idle_preempt).
 * ext.c's cgroup_init args carry no idle flag: a group made idle before
 * the scheduler loaded is seen as not idle until its next cpu.idle write.
 */
void BPF_STRUCT_OPS(arbor_cgroup_set_idle, struct cgroup *cgrp, bool idle)
{
	struct cg_ctx *g = lookup_cg(cg_id_of(cgrp));

	if (!g || !cg_enabled || !!g->idle == idle)
		return;
	g->idle = idle;
	__sync_fetch_and_add(&cg_nr_idle, idle ? 1 : -1);
	cg_set_shares(g, arbor_cg_idle_shares(idle));
}

#endif /* __ARBOR_CGROUP_BPF_H */
