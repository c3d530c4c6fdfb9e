/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h, by concern: group scheduling: cpu.weight flattened, cpu.max, cpu.idle.
 * Included by policy.h only, after the parts before it (their rules may
 * be used here), with its ARBOR_POLICY and POLICY_FOR macros.
 */
#ifndef __ARBOR_POLICY_H
#error "include policy.h, not its parts"
#endif

/*
 * Group scheduling, flattened (cgroup.bpf.h). fair.c gives a task group
 * one entity per CPU in its parent's queue, of weight tg->shares split
 * among the CPUs by the group's load there (calc_group_shares), and the
 * group's tasks and child groups share that entity's time by their
 * weights. Flattened into the one queue per CPU scx_arbor keeps, a task of
 * weight `w` in a group `depth` levels below the root weighs
 *
 *   w * gw[0] * ... * gw[depth-1] / (active[0] * ... * active[depth-1])
 *
 * where gw[i] is the weight of its i-th group counted from its own (i = 0)
 * up to the top-level one, and active[i] is the summed weight of that
 * group's active members: its runnable tasks and its child groups with a
 * runnable task below them. At each level the member's fraction of its
 * group is at most 1 (an active count below the member's own weight is a
 * race of the lock-free sums: the member's weight is taken instead), and
 * the result is at least MIN_SHARES (2), as calc_group_shares' floor.
 * The product is on the fine scale (ARBOR_W_SHIFT, policy/eevdf.h), as
 * fair.c's scaled weights: the floor is fair.c's MIN_SHARES on that scale,
 * 2/1024 of a unit of the 1024 scale, where it was 2 units before (a task
 * of a group of weight 1 with 100 tasks, or one three levels down, came
 * out at the floor and took many times its group's share).
 * Against fair.c it is exact when every group's load is spread over the
 * CPUs as its tasks are; it ignores calc_group_shares' per-CPU split of a
 * group whose tasks sit unevenly across CPUs (the balancer's job there).
 */
#define ARBOR_CG_MAX_DEPTH	8
#define ARBOR_CG_MIN_SHARES	2

/* sched_weight_from_cgroup(): cpu.weight (1..10000, 100 default) -> 1024 scale */
ARBOR_POLICY u64 arbor_cg_shares(u32 cpu_weight)
{
	u64 w = ((u64)cpu_weight * ARBOR_NICE_0_LOAD + 50) / 100;

	return w ? w : 1;
}

/*
 * One level of the product, from the bottom: `eff` so far (on the fine
 * scale, from the task's weight arbor_w_hi'd), `child` the 1024-scale
 * weight of the member on the path (the task's at the first level, then
 * the group below's shares), `gw` and `active` this group's. BPF walks the
 * levels with it one at a time (no arrays on its stack); the floor is
 * arbor_cg_floor's.
 */
ARBOR_POLICY u64 arbor_cg_step(u64 eff, u64 child, u64 gw, u64 active)
{
	u64 a = active > child ? active : child;

	return eff * gw / (a ? a : 1);
}

ARBOR_POLICY u64 arbor_cg_floor(u64 eff)
{
	return eff > ARBOR_CG_MIN_SHARES ? eff : ARBOR_CG_MIN_SHARES;
}

/* the flattened fine weight of a task of 1024-scale weight w */
ARBOR_POLICY u64 arbor_cg_weight(u64 w, u32 depth, const u64 *gw, const u64 *active)
{
	u64 eff = arbor_w_hi(w), child = w;
	u32 i;

	POLICY_FOR(i, 0, depth) {
		if (i >= ARBOR_CG_MAX_DEPTH)
			break;
		eff = arbor_cg_step(eff, child, gw[i], active[i]);
		child = gw[i];
	}
	return arbor_cg_floor(eff);
}

/*
 * cpu.max (CFS bandwidth control, fair.c): a group may run `quota` of CPU
 * time per `period`, summed over its tasks and its descendants' tasks on
 * all CPUs. ext.c hands over the cgroup file's microseconds with
 * RUNTIME_INF (all ones) for "max"; scx_arbor keeps nanoseconds, 0 for no
 * limit.
 */
#define ARBOR_CG_RUNTIME_INF	(~0ULL)

ARBOR_POLICY u64 arbor_cg_bw_ns(u64 us)
{
	if (us == ARBOR_CG_RUNTIME_INF || us > ARBOR_CG_RUNTIME_INF / 1000)
		return 0;
	return us * 1000;
}

/*
 * __refill_cfs_bandwidth_runtime() at each period's end: the quota comes
 * back, and what was left unused is kept up to cpu.max.burst more. Unlike
 * the kernel's global pool, which never goes below 0 (the overrun of a
 * period is owed by the per-CPU runtime_remaining that pulled it), one
 * signed pool carries the overrun of a period into the next, so the next
 * period starts with quota - overrun: the same long-run bound.
 */
ARBOR_POLICY s64 arbor_cg_refill(s64 runtime, u64 quota, u64 burst)
{
	s64 r = runtime + (s64)quota, cap = (s64)(quota + burst);

	return r < cap ? r : cap;
}

/*
 * The period timer's next expiry after `now` (hrtimer_forward_now in
 * sched_cfs_period_timer): the next period boundary, periods that passed
 * unseen skipped (one refill per expiry, as the kernel's: an overrun of
 * several periods is not paid out several times).
 */
ARBOR_POLICY u64 arbor_cg_next_refill(u64 refill_at, u64 period, u64 now)
{
	if (!period)
		return now;
	if (refill_at > now)
		return refill_at;
	return refill_at + ((now - refill_at) / period + 1) * period;
}

/*
 * cpu.idle (sched_group_set_idle): an idle group's entity has the minimum
 * weight, WEIGHT_IDLEPRIO (3, as a SCHED_IDLE task); leaving idle sets its
 * shares to NICE_0_LOAD, not back to its cpu.weight (which the kernel
 * refuses to change while the group is idle, sched_group_set_shares).
 */
#define ARBOR_CG_IDLE_SHARES	3

ARBOR_POLICY u64 arbor_cg_idle_shares(bool idle)
{
	return idle ? ARBOR_CG_IDLE_SHARES : ARBOR_NICE_0_LOAD;
}

/*
 * check_preempt_wakeup_fair() between tasks of idle and non-idle groups
 * (se_is_idle, hierarchical): a wakee that is not idle preempts a running
 * idle one at once; an idle wakee never preempts a task that is not idle.
 * Returns 1 (preempt), 0 (never), -1 (the EEVDF rule decides).
 */
ARBOR_POLICY int arbor_cg_idle_preempt(bool curr_idle, bool wakee_idle)
{
	if (curr_idle && !wakee_idle)
		return 1;
	if (!curr_idle && wakee_idle)
		return 0;
	return -1;
}

/*
 * reweight_entity() of a queued task: its lag and its deadline's distance
 * from the average scale by w_old / w_new (rescale_entity), and it is
 * placed back at avg - lag. In: *v, *deadline; avg the queue's average.
 */
ARBOR_POLICY void arbor_reweight(u64 avg, u64 *v, u64 *deadline, u64 w_old, u64 w_new)
{
	s64 lag = (s64)(avg - *v), rel = (s64)(*deadline - avg);

	if (!w_new || w_old == w_new)
		return;
	lag = arbor_div_s64(lag * (s64)w_old, w_new);
	rel = arbor_div_s64(rel * (s64)w_old, w_new);
	*v = avg - lag;
	*deadline = avg + rel;
}
