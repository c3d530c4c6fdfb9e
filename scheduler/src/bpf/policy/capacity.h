/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h, by concern: asymmetric CPU capacity (seed 004 and mainline's successors).
 * Included by policy.h only, after the parts before it (their rules may
 * be used here), with its ARBOR_POLICY and POLICY_FOR macros.
 */
#ifndef __ARBOR_POLICY_H
#error "include policy.h, not its parts"
#endif

/* ------------------------------------------------------------------ */
/* Asymmetric capacity (seed 004 and mainline's successors)            */
/* ------------------------------------------------------------------ */

/* A task fits a CPU when its utilisation leaves ~20% headroom: util*1280 < cap*1024. */
ARBOR_POLICY bool arbor_fits(u64 util, u32 cap)
{
	return util * 1280 < (u64)cap * 1024;
}

/*
 * Seed 002 as merged (kernel/sched/fair.c task_misfits_asym_cpu, 7.2,
 * CONFIG_SCHED_CACHE): on an asymmetric machine, cache-aware balancing does
 * not move a task onto a CPU it does not fit: "Doing so would turn the task
 * into a misfit on the destination, trading a cache-locality gain for a
 * capacity loss." The kernel lets the move happen when the task does not
 * fit its source either ("the move cannot make things worse"); that holds
 * between CPUs of one size, not from a bigger CPU to a smaller one: a
 * CPU-bound thread (utilisation near 1024) fits no CPU, yet on the biggest
 * it is no misfit (update_misfit_status), and the balancer never pulls a
 * lone task from a bigger CPU to a smaller one (sched_balance_find_src_rq:
 * "Higher per-CPU capacity is considered better than balancing average
 * load"). So here: refused when the destination is smaller than the source
 * and the task does not fit it. Without it, aggregation and ASYM_MISFIT
 * undo each other: on tc2 a CPU-bound thread whose process prefers the
 * little cluster went there at one tick and back to a big CPU at the next,
 * 1,094 cross-cluster moves in 3 s, each paying the other cluster's idle
 * exit (sysbench, one thread: 559 events/s against 1,752 without CACHE_LB).
 * True when the move must be refused.
 */
ARBOR_POLICY bool arbor_cache_makes_misfit(bool asym, u64 util, u32 src_cap, u32 dst_cap)
{
	return asym && dst_cap < src_cap && !arbor_fits(util, dst_cap);
}

/*
 * Seed 004 (wake_cap): if the task does not fit the smaller of prev and
 * this, the affine fast path would keep it on a CPU too small for it: take
 * the capacity-aware slow path instead. Only on asymmetric machines, and
 * only when one of the two CPUs is more than 1/8 below the biggest.
 */
ARBOR_POLICY bool arbor_wake_cap(u64 util, u32 cap_prev, u32 cap_this)
{
	u32 min_cap = cap_prev < cap_this ? cap_prev : cap_this;

	/*
	 * The seed's "minimum capacity is close to max, no need to abort
	 * wake_affine": both CPUs within 1/8 of the biggest (capacities are
	 * normalised, the biggest is 1024) count as symmetric, however big
	 * the task.
	 */
	if (1024 - (s64)min_cap < 1024 >> 3)
		return false;
	return !arbor_fits(util, min_cap);
}

/*
 * Capacity-aware pick over n CPUs (the seed's slow path, used by
 * ASYM_WAKE_CAP): the idle CPU with most spare capacity (cap - util);
 * with none idle, the least loaded CPU by util/cap. Returns an index, -1
 * if n == 0.
 *
 * The seed (find_idlest_cpu) picks a group, then in it an idle CPU before
 * the least loaded one (find_idlest_group_cpu). The group is the one of
 * most spare when that spare exceeds half the task's utilisation, else the
 * idlest by runnable load, which leaves out sleeping tasks: a group with
 * an idle CPU. Per CPU, both end at an idle CPU whenever there is one.
 * Why not rank every CPU by util/cap when the idle CPUs' spare is under
 * half the task's utilisation: a CPU's utilisation keeps its task that
 * just slept (PELT's blocked part), so a busy big CPU would beat an idle
 * little one its task had just left, and wakees would queue behind the big
 * CPU's task while little CPUs idle (measured on a 4+4 laptop shape:
 * schbench wake-up p99 3,768 us against stock's 5.5, CPUs idle 11.7% of
 * the time while tasks waited; docs/findings/2026-12-06-asym-capacity).
 */
ARBOR_POLICY s32 arbor_capacity_pick(u32 n, const u32 *cap, const u64 *cpu_util,
				     const u64 *idle_mask)
{
	/* indices and their values kept apart (see arbor_find_dst_group) */
	s32 best_spare = -1, best_load = -1, i;
	s64 spare_max = 0;
	u64 bl_util = 0, bl_cap = 1;

	POLICY_FOR(i, 0, MAX_CPUS) {
		u64 u, c;
		s64 spare;

		if ((u32)i >= n)
			break;
		u = cpu_util[i];
		c = cap[i];
		spare = (s64)c - (s64)u;
		if (arbor_mask_test(idle_mask, CPU_MASK_WORDS, i) &&
		    (best_spare < 0 || spare > spare_max)) {
			best_spare = i;
			spare_max = spare;
		}
		/* compare util/cap by cross-multiplying */
		if (best_load < 0 || u * bl_cap < bl_util * c) {
			best_load = i;
			bl_util = u;
			bl_cap = c;
		}
	}
	if (best_spare >= 0)
		return best_spare;
	return best_load;
}

/*
 * select_idle_capacity() (mainline 5.7, ASYM_IDLE_CAPACITY): scan from the
 * target, wrapping, for the first idle CPU the task fits; if none fits,
 * the idle CPU with the highest capacity. -1 if nothing is idle.
 */
ARBOR_POLICY s32 arbor_select_idle_capacity(u32 n, const u32 *cap, const u64 *idle_mask,
					    u64 task_util, u32 start)
{
	s32 best = -1, k;
	u32 best_cap = 0;

	POLICY_FOR(k, 0, MAX_CPUS) {
		u32 i;

		if ((u32)k >= n)
			break;
		i = ((start + k) % n) & (MAX_CPUS - 1);
		if (!arbor_mask_test(idle_mask, CPU_MASK_WORDS, i))
			continue;
		if (arbor_fits(task_util, cap[i]))
			return i;
		if (best < 0 || cap[i] > best_cap) {
			best = i;
			best_cap = cap[i];
		}
	}
	return best;
}

/*
 * Misfit (mainline, ASYM_MISFIT): a running task that does not fit its CPU
 * should move to a CPU with at least ~5% more capacity (cap*1024 >
 * cur*1078). The kernel moves it when such a CPU balances, i.e. when that
 * CPU is idle (or newly idle) and pulls it by active balance; it never
 * pushes it behind another task. So only an idle bigger CPU is a target,
 * the biggest of them; with none, the task stays and the next tick asks
 * again (a busy target would make it ping-pong between queues). Returns an
 * index or -1.
 */
ARBOR_POLICY s32 arbor_misfit_target(u32 cur_cap, u32 n, const u32 *cap, const u64 *idle_mask)
{
	/* indices and their values kept apart (see arbor_find_dst_group) */
	s32 best = -1, i;
	u32 best_cap = 0;

	POLICY_FOR(i, 0, MAX_CPUS) {
		u32 c;

		if ((u32)i >= n)
			break;
		c = cap[i];
		if ((u64)c * 1024 <= (u64)cur_cap * 1078)
			continue;
		if (!arbor_mask_test(idle_mask, CPU_MASK_WORDS, i))
			continue;
		if (best < 0 || c > best_cap) {
			best = i;
			best_cap = c;
		}
	}
	return best;
}
