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
 * Summed over one CPU's tasks of a group, the flattened weights are the
 * group's shares times its runnable weight on that CPU over its runnable
 * weight everywhere: calc_group_shares' per-CPU split of the group entity,
 * with the tasks' weights for fair.c's PELT loads. So it is exact against
 * fair.c while the group's tasks are runnable, wherever they sit; the
 * balancer places them by the same weights (arbor_h_weight below, fair.c's
 * task_h_load). Not ported: the PELT averages themselves (a group of
 * tasks that sleep often counts, while they are runnable, as a busy one),
 * and the per-balance refresh of task_h_load (a queued task's flattened
 * weight changes at its next placement or tick).
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
 * Hierarchical load: what the balancer (update_sg_lb_stats, detach_tasks)
 * and wake_affine_weight() read as a CPU's and a task's load. fair.c's CPU
 * load is its root cfs_rq's (cfs_rq_load_avg): the root's own tasks and one
 * entity per group, which weighs the group's shares times its load on this
 * CPU over its load on all CPUs (calc_group_shares); a task of a group
 * counts task_h_load(), its fraction of that entity's load, level by level
 * (update_cfs_rq_h_load). Flattened, that fraction is the task's flattened
 * weight (arbor_cg_weight): summed over a CPU's tasks of one group, it is
 * the group's shares times its runnable weight there over its runnable
 * weight everywhere, calc_group_shares' split with the runnable weights
 * for the PELT loads. A CPU holding one of the six tasks of a group of
 * weight 100 thus counts a sixth of a nice-0 task's load for it.
 *
 * The CPU's sum of its tasks' h weights is on the sched_ext scale (100 =
 * nice 0) made 2^ARBOR_W_SHIFT finer, so that a task of a crowded group
 * keeps a load above 0; a task of the root weighs its p->scx.weight shifted
 * up, and the CPU's load and the task's (arbor_h_cpu_load, arbor_h_load)
 * come out as on the 100 scale to the unit: the shift cancels in the floor
 * of the division.
 */
#define ARBOR_H_ONE	(100ULL << ARBOR_W_SHIFT)

/*
 * A task's h weight: `cg_fine` is its flattened weight on the fine scale
 * (arbor_cg_weight) if it is in a group below the root, else 0.
 */
ARBOR_POLICY u64 arbor_h_weight(u32 scx_weight, u64 cg_fine)
{
	u64 w;

	if (!cg_fine)
		return (u64)scx_weight << ARBOR_W_SHIFT;
	w = cg_fine * 100 / ARBOR_NICE_0_LOAD;
	return w ? w : 1;
}

/*
 * task_h_load(): the task's runnable average (1024: always runnable) by its
 * h weight; 1024 for a nice-0 task of the root always runnable.
 */
ARBOR_POLICY u64 arbor_h_load(u64 runnable_avg, u64 h_weight)
{
	return runnable_avg * h_weight / ARBOR_H_ONE;
}

/* A CPU's load signal from its tasks' summed h weights (1024: one nice-0 task). */
ARBOR_POLICY u64 arbor_h_cpu_load(u64 h_sum)
{
	return (h_sum * ARBOR_NICE_0_LOAD / 100) >> ARBOR_W_SHIFT;
}

/*
 * migrate_task_rq_fair(): a task's load leaves its old CPU's and joins its
 * new CPU's at once (detach_entity_load_avg, attach_entity_load_avg),
 * where scx_arbor's CPU load, a PELT average of the CPU's weight sum, would
 * take tens of milliseconds to show the move, and the balancer, its loads
 * unchanged meanwhile, would pull again. For a task of a group (tasks of
 * the root keep the averages as they were), the CPU keeps the load moved
 * in (+) and out (-) beside its average, decayed as the average catches
 * up with the move: `moved` after delta_ns. `moved` is on a scale
 * 2^ARBOR_W_SHIFT finer than the load's: arbor_pelt_decay rounds to units,
 * and a few units of load decayed a period at a time would never reach 0.
 */
ARBOR_POLICY s64 arbor_h_moved_decay(s64 moved, u64 delta_ns)
{
	u64 m = moved < 0 ? (u64)-moved : (u64)moved;

	m = arbor_pelt_decay(m, delta_ns);
	return moved < 0 ? -(s64)m : (s64)m;
}

/* The CPU's load with the moves: its average plus what moved, at least 0. */
ARBOR_POLICY u64 arbor_h_load_moved(u64 load, s64 moved)
{
	s64 v = (s64)load + moved / (1 << ARBOR_W_SHIFT);

	return v > 0 ? (u64)v : 0;
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
