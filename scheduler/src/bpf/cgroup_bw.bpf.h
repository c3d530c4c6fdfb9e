/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Group scheduling, the limits: cgroup v2 cpu.max (CFS bandwidth control,
 * fair.c) and the groups' lifecycle (cgroup_init / cgroup_exit).
 *
 * ext.c (7.2) passes cpu.max and cpu.max.burst to cgroup_init (struct
 * scx_cgroup_init_args: bw_period_us, bw_quota_us, bw_burst_us) and each
 * later write to cgroup_set_bandwidth; what to make of them is left to the
 * scheduler. scx_arbor gives them the kernel's meaning:
 *
 *  - a group may run `quota` of CPU time per `period`, its descendants'
 *    tasks included. Each task's run is charged to its group and to every
 *    ancestor with a quota, at the tick, when it stops and when dispatch
 *    keeps it (cg_charge; update_curr -> account_cfs_rq_runtime).
 *  - a group whose quota is used up is throttled (throttle_cfs_rq): its
 *    running tasks end their slice at that tick, and a task of it that is
 *    enqueued waits in the group's own DSQ (cg_dsq), out of every CPU's
 *    EEVDF queue and load, until the period's end.
 *  - at each period's end the quota comes back, unused runtime kept up to
 *    the burst (arbor_cg_refill), and a group with runtime again is
 *    unthrottled: its tasks go back to CPUs' queues (cg_release). One BPF
 *    timer serves every group, armed for the earliest period end, as the
 *    kernel's per-group period hrtimer would fire.
 *
 * Where it is coarser than fair.c: the quota is one pool per group, not
 * handed to CPUs in 5 ms slices (sched_cfs_bandwidth_slice), so there is no
 * slack to return; a period's overrun (up to one tick per CPU running the
 * group) is carried into the next (arbor_cg_refill), so the long-run share
 * is the quota's. A task queued on a CPU before its group was throttled
 * stays in that CPU's queue (the kernel dequeues the whole group at once):
 * picked, it gets a zero slice (running()) and goes straight to its
 * group's DSQ, without running. A throttled task whose slice ended is not
 * kept by dispatch (cg_prev_throttled): kept, ext.c would enqueue it
 * after dispatch had moved nothing, and the CPU would idle beside its
 * other queued tasks until a kick (the share it lost went to the limited
 * group). A running task's slice is not cut to the group's remaining
 * runtime: ext.c ends a slice only at a tick (task_tick_scx), where
 * cg_charge already ends it. A throttled group's tasks leave its weight sums
 * (cg_task_quiescent) as a throttled cfs_rq leaves its parent.
 *
 * On a PREEMPT_RT kernel the verifier refuses bpf_timer (balance.bpf.h):
 * there cpu.max is not enforced (cg_nr_bw stays 0), and --stats shows no
 * throttles.
 */
#ifndef __ARBOR_CGROUP_BW_BPF_H
#define __ARBOR_CGROUP_BW_BPF_H

/* groups with a quota at once: the timer walks their slots */
#define ARBOR_CG_BW_SLOTS	256

/* the ids of the groups with a quota (0: a free slot) */
static u64 cg_bw_ids[ARBOR_CG_BW_SLOTS];

struct cg_bw_timer {
	struct bpf_timer timer;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct cg_bw_timer);
} cg_bw_timer_map SEC(".maps");

static u32 cg_bw_timer_on, cg_bw_timer_ready;

static __always_inline void cg_bw_timer_start(void);

/*
 * The run since the task's last charge, against its groups' quotas.
 * Returns whether a group of the task is throttled (its slice should end).
 * A throttled group needs the period timer to come back: it is started
 * here if no tick started it yet, as throttle_cfs_rq starts the period
 * timer (__assign_cfs_rq_runtime -> start_cfs_bandwidth). A group that
 * used its quota before the first tick would otherwise wait for a tick
 * that an idle machine never takes (its tasks all parked in its DSQ).
 */
static __always_inline bool cg_charge(struct task_ctx *tctx, u64 now)
{
	u64 d, id = tctx->cg_id;
	bool thr = false;
	u32 i;

	/* (no store here: clang merged one with the caller's slice = 0, which the verifier refuses) */
	if (!cg_nr_bw || !id)
		return false;
	d = tctx->cg_exec && now > tctx->cg_exec ? now - tctx->cg_exec : 0;
	tctx->cg_exec = now;
	bpf_for(i, 0, ARBOR_CG_MAX_DEPTH) {
		struct cg_ctx *g = lookup_cg(id);

		if (!g)
			break;
		if (g->quota) {
			if (__sync_sub_and_fetch(&g->runtime, (s64)d) <= 0 && !g->throttled &&
			    __sync_val_compare_and_swap(&g->throttled, 0, 1) == 0) {
				__sync_fetch_and_add(&g->nr_throttled, 1);
				stat_inc(STAT_CG_THROTTLES);
			}
			if (g->throttled)
				thr = true;
		}
		id = g->parent;
		if (!id)
			break;
	}
	if (thr)
		cg_bw_timer_start();
	return thr;
}

/*
 * The tick of a running task that running() did not start charging: its
 * group got a quota while it ran (a cpu.max write, cgroup_set_bandwidth)
 * and it has not switched since (a kept task gets no new running()). Its
 * run is charged from this tick on, as update_curr charges the current
 * task at its next tick in fair.c. Otherwise running() set the start and
 * this does nothing.
 */
static __always_inline void cg_charge_start(struct task_ctx *tctx, u64 now)
{
	if (cg_nr_bw && tctx->cg_id && !tctx->cg_exec)
		tctx->cg_exec = now;
}

/* The innermost throttled group of the task's, 0 if none. */
static __always_inline u64 cg_throttled_id(const struct task_ctx *tctx)
{
	if (!cg_nr_bw || !tctx->cg_id)
		return 0;
	return cg_find_up(tctx->cg_id, CG_UP_THROTTLED);
}

/*
 * dispatch() of prev, whose slice ended (ext.c calls dispatch for a
 * runnable prev only then): its run charged, is a group of it throttled?
 */
static __always_inline bool cg_prev_throttled(struct task_struct *prev)
{
	struct task_ctx *tctx;

	if (!cg_nr_bw || !prev || !(tctx = lookup_task_ctx(prev)) || !tctx->cg_id)
		return false;
	if (tctx->cg_exec && cg_charge(tctx, bpf_ktime_get_ns()))
		return true;
	return cg_throttled_id(tctx) != 0;
}

/*
 * enqueue() of a task whose group is throttled: it waits in that group's
 * DSQ, out of its CPU's EEVDF queue, load and weight sums, as a throttled
 * cfs_rq's tasks are off the CPU's queue. Returns whether it did.
 */
static __always_inline bool cg_throttle_enqueue(struct task_struct *p, struct task_ctx *tctx,
						u64 enq_flags)
{
	u64 id = cg_throttled_id(tctx);

	if (!id)
		return false;
	if (valid_cpu(tctx->left_cpu))
		eevdf_left(tctx, false);
	if (valid_cpu(tctx->rq_cpu))
		eevdf_dequeue(tctx, false);
	acct_remove(tctx);
	set_waiting(tctx, false, 0);
	cg_task_quiescent(tctx);
	scx_bpf_dsq_insert(p, cg_dsq(id), slice_cfg.slice_ns, enq_flags);
	return true;
}

/*
 * The tasks waiting in group id's DSQ, which has runtime again: each goes
 * to the DSQ of a group of its still throttled, or back to a CPU's queue
 * (its own CPU if idle, else an idle one, else its own), placed there as
 * enqueue() places a task, and the CPU kicked if idle. From the timer: no
 * rq lock held, so scx_bpf_dsq_move is allowed (ext.c).
 */
static __always_inline void cg_release(u64 id, u64 now)
{
	struct task_struct *p;

	bpf_for_each(scx_dsq, p, cg_dsq(id), 0) {
		struct task_ctx *tctx = lookup_task_ctx(p);
		u64 tid;
		s32 cpu, c;

		if (!tctx) {
			scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, SCX_DSQ_GLOBAL, 0);
			continue;
		}
		tid = cg_throttled_id(tctx);
		if (tid) {
			if (tid != id)
				scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, cg_dsq(tid), 0);
			continue;
		}
		cpu = task_cpu_of(p);
		if (!allowed(p, cpu) || !scx_bpf_test_and_clear_cpu_idle(cpu)) {
			c = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
			if (c >= 0)
				cpu = c;
			else if (!allowed(p, cpu))
				cpu = scx_bpf_pick_any_cpu(p->cpus_ptr, 0);
		}
		if (!valid_cpu(cpu)) {
			scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, SCX_DSQ_GLOBAL, 0);
			continue;
		}
		eevdf_join(p, tctx, cpu);
		/* accounted nowhere since cg_throttle_enqueue: no load to move (acct_add) */
		acct_remove(tctx);
		acct_join(tctx, p, cpu);
		cg_task_runnable(p, tctx);
		set_waiting_on(tctx, lookup_cpu_ctx(cpu), true, now);
		scx_bpf_dsq_move_set_slice(BPF_FOR_EACH_ITER, eevdf_slice(tctx));
		scx_bpf_dsq_move_set_vtime(BPF_FOR_EACH_ITER, tctx->deadline);
		if (scx_bpf_dsq_move_vtime(BPF_FOR_EACH_ITER, p, cpu_dsq(cpu), 0))
			scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
	}
}

/* Unthrottle group g (id) if it has runtime, releasing its tasks. */
static __always_inline void cg_unthrottle(struct cg_ctx *g, u64 id, u64 now)
{
	if (g->throttled && (!g->quota || g->runtime > 0)) {
		g->throttled = 0;
		cg_release(id, now);
	}
}

/*
 * One pass of the period timer: every group whose period ended gets its
 * quota back (and is unthrottled if it has runtime again). Returns the
 * earliest next period end, 0 if no group has a quota.
 */
static __always_inline u64 cg_bw_pass(u64 now)
{
	u64 next = 0;
	u32 i;

	bpf_for(i, 0, ARBOR_CG_BW_SLOTS) {
		u64 id = cg_bw_ids[i];
		struct cg_ctx *g;
		s64 old;

		if (!id || !(g = lookup_cg(id)) || !g->quota)
			continue;
		if (now >= g->refill_at) {
			old = g->runtime;
			__sync_fetch_and_add(&g->runtime, arbor_cg_refill(old, g->quota, g->burst) - old);
			g->refill_at = arbor_cg_next_refill(g->refill_at, g->period, now);
			cg_unthrottle(g, id, now);
		}
		if (!next || g->refill_at < next)
			next = g->refill_at;
	}
	return next;
}

static int cg_bw_timerfn(void *map, int *key, struct bpf_timer *timer)
{
	u64 now = bpf_ktime_get_ns(), next;

	if (timer_stop)
		return 0;
	next = cg_bw_pass(now);
	if (!next) {
		cg_bw_timer_on = 0;
		return 0;
	}
	bpf_timer_start(timer, next > now ? next - now : 1, 0);
	return 0;
}

/*
 * The timer and its callback, set when a first group gets a quota, by
 * cgroup_init or cgroup_set_bandwidth: programs allowed the unlocked
 * kfuncs (cg_release's scx_bpf_dsq_move; ext.c's scx_kf_allow_flags: a
 * callback is verified as part of the program that sets it). It is
 * started by a tick (cg_bw_tick), as the balancer's, or by a throttle
 * (cg_charge), which may come before any tick.
 */
static __always_inline void cg_bw_timer_init(void)
{
	struct bpf_timer *timer;
	u32 key = 0;

	if (CONFIG_PREEMPT_RT || cg_bw_timer_ready ||
	    __sync_val_compare_and_swap(&cg_bw_timer_ready, 0, 1) != 0 ||
	    !(timer = bpf_map_lookup_elem(&cg_bw_timer_map, &key)))
		return;
	bpf_timer_init(timer, &cg_bw_timer_map, CLOCK_MONOTONIC);
	bpf_timer_set_callback(timer, cg_bw_timerfn);
}

/* Start the period timer if some group has a quota and it is not running. */
static __always_inline void cg_bw_timer_start(void)
{
	struct bpf_timer *timer;
	u32 key = 0;

	if (!cg_nr_bw || cg_bw_timer_on || !timer_go || timer_stop || CONFIG_PREEMPT_RT ||
	    __sync_val_compare_and_swap(&cg_bw_timer_on, 0, 1) != 0)
		return;
	timer = bpf_map_lookup_elem(&cg_bw_timer_map, &key);
	if (timer)
		bpf_timer_start(timer, 1, 0);
}

/* ops.tick: start the timer while some group has a quota. */
static __always_inline void cg_bw_tick(void)
{
	cg_bw_timer_start();
}

/* Take a slot for group id (which gets a quota). */
static __always_inline void cg_bw_slot_take(u64 id)
{
	u32 i;

	bpf_for(i, 0, ARBOR_CG_BW_SLOTS) {
		if (__sync_val_compare_and_swap(&cg_bw_ids[i], 0, id) == 0) {
			__sync_fetch_and_add(&cg_nr_bw, 1);
			return;
		}
	}
	scx_bpf_error("more than %d cgroups with cpu.max", ARBOR_CG_BW_SLOTS);
}

static __always_inline void cg_bw_slot_free(u64 id)
{
	u32 i;

	bpf_for(i, 0, ARBOR_CG_BW_SLOTS) {
		if (cg_bw_ids[i] == id) {
			cg_bw_ids[i] = 0;
			__sync_fetch_and_sub(&cg_nr_bw, 1);
			return;
		}
	}
}

/*
 * Group g (id) gets cpu.max's period/quota/burst in microseconds
 * (tg_set_cfs_bandwidth: runtime refilled at once, period restarted, a
 * throttled group unthrottled). Not on PREEMPT_RT (no timer to refill).
 */
static __always_inline void cg_set_bw(struct cg_ctx *g, u64 id, u64 period_us, u64 quota_us,
				      u64 burst_us)
{
	u64 q = arbor_cg_bw_ns(quota_us), had = g->quota;

	if (!cg_enabled || CONFIG_PREEMPT_RT)
		q = 0;
	g->period = arbor_cg_bw_ns(period_us);
	g->burst = arbor_cg_bw_ns(burst_us);
	if (!g->period)
		q = 0;
	g->runtime = (s64)q;
	g->refill_at = bpf_ktime_get_ns() + g->period;
	g->quota = q;
	if (q)
		cg_bw_timer_init();
	if (q && !had)
		cg_bw_slot_take(id);
	else if (!q && had)
		cg_bw_slot_free(id);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(arbor_cgroup_init, struct cgroup *cgrp,
			     struct scx_cgroup_init_args *args)
{
	struct cg_ctx g = {}, *gp;
	u64 id = cg_id_of(cgrp);
	s32 err;

	if (!id)
		return 0;
	/* ext.c calls it for a child after its parent (css_for_each_descendant_pre) */
	if (cgrp->level > 1)
		g.parent = cgrp->self.parent->cgroup->kn->id;
	g.shares = arbor_cg_shares(args->weight);
	err = bpf_map_update_elem(&cg_ctxs, &id, &g, BPF_ANY);
	if (err)
		return err;
	__sync_fetch_and_add(&cg_nr_groups, 1);
	/* where its tasks wait while it is throttled */
	err = scx_bpf_create_dsq(cg_dsq(id), -1);
	if (err)
		return err;
	gp = lookup_cg(id);
	if (gp)
		cg_set_bw(gp, id, args->bw_period_us, args->bw_quota_us, args->bw_burst_us);
	return 0;
}

/*
 * A removed group has no task left (cgroup v2's rmdir); at unload ext.c
 * has taken every task out of the DSQs first (scx_disable_workfn), so a
 * DSQ with tasks is not destroyed here (it is freed with the scheduler).
 */
void BPF_STRUCT_OPS(arbor_cgroup_exit, struct cgroup *cgrp)
{
	struct cg_ctx *g;
	u64 id = cg_id_of(cgrp);

	if (!id)
		return;
	g = lookup_cg(id);
	if (g) {
		__sync_fetch_and_sub(&cg_nr_groups, 1);
		if (g->quota)
			cg_bw_slot_free(id);
		if (g->idle)
			__sync_fetch_and_sub(&cg_nr_idle, 1);
	}
	bpf_map_delete_elem(&cg_ctxs, &id);
	if (scx_bpf_dsq_nr_queued(cg_dsq(id)) == 0)
		scx_bpf_destroy_dsq(cg_dsq(id));
}

/* A cpu.max or cpu.max.burst write. */
void BPF_STRUCT_OPS(arbor_cgroup_set_bandwidth, struct cgroup *cgrp, u64 period_us, u64 quota_us,
		    u64 burst_us)
{
	u64 id = cg_id_of(cgrp);
	struct cg_ctx *g = lookup_cg(id);

	if (!g)
		return;
	cg_set_bw(g, id, period_us, quota_us, burst_us);
	/* the runtime is refilled (or there is no quota any more): its tasks run again */
	cg_unthrottle(g, id, bpf_ktime_get_ns());
}

#endif /* __ARBOR_CGROUP_BW_BPF_H */
