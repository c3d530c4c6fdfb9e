/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h, by concern: periodic load balancing (fair.c's sched_balance_rq).
 * Included by policy.h only, after the parts before it (their rules may
 * be used here), with its ARBOR_POLICY and POLICY_FOR macros.
 */
#ifndef __ARBOR_POLICY_H
#error "include policy.h, not its parts"
#endif

/* ------------------------------------------------------------------ */
/* Periodic load balancing (baseline: sched_balance_rq / load_balance) */
/* ------------------------------------------------------------------ */

/*
 * The weighted-imbalance balancer of fair.c, simplified (feature
 * LB_IMBALANCE). Kept: the group classification
 * (group_classify, here arbor_group_type, shared with the fork slow path),
 * the pick of the busiest group (update_sd_pick_busiest), the balanced /
 * not balanced checks of sched_balance_find_src_group, calculate_imbalance
 * for load, util and task migrations, find_busiest_queue, detach_tasks'
 * per-task test, need_active_balance's "failed too often" rule and the
 * balance interval (get_sd_balance_interval). Left out: misfit and
 * asym-packing groups (ASYM_MISFIT moves misfits at tick),
 * group_imbalanced (affinity), SMT-vs-non-SMT groups, NUMA imbalance
 * allowances in the balancer, prefer_sibling's core counts (the sibling
 * imbalance is taken as the task difference) and the interval's doubling
 * while balanced. There is no separate runnable signal: a group's
 * runnable is its load (PELT of the runnable weight), as for the slow path.
 */

/*
 * update_sd_pick_busiest(): is group `g` (of type `gt`) busier than the
 * current pick `best` (of type `bt`; NULL: none yet)? A group without tasks
 * never is. A higher group type wins; between overloaded or fully busy
 * groups the higher avg_load; between groups with spare capacity the one
 * with fewer idle CPUs, then more tasks.
 */
ARBOR_POLICY bool arbor_lb_group_busier(const struct group_stats *g, u32 gt,
					const struct group_stats *best, u32 bt)
{
	if (!g->nr_running)
		return false;
	if (!best)
		return true;
	if (gt != bt)
		return gt > bt;
	if (gt != GROUP_HAS_SPARE)
		return arbor_group_avg_load(g) > arbor_group_avg_load(best);
	if (g->idle_cpus != best->idle_cpus)
		return g->idle_cpus < best->idle_cpus;
	return g->nr_running > best->nr_running;
}

/*
 * sched_balance_find_src_group()'s verdict and calculate_imbalance(): what
 * the local group (the balancing CPU's, type lt) should take from the
 * busiest (type bt), and how much. total_load / total_cap are the level's
 * sums (sds->avg_load); within_llc: the level's CPUs share a cache
 * (SD_SHARE_LLC: the SMT and LLC levels); this_idle: the balancing CPU is
 * idle (CPU_IDLE), else only an overloaded busiest group is balanced;
 * imb_numa_nr: the level spans nodes (SD_NUMA) with this imb_numa_nr, 0
 * if not: a small task imbalance between nodes is then allowed
 * (adjust_numa_imbalance), so a pair of tasks stays in one node.
 */
ARBOR_POLICY void arbor_lb_imbalance(const struct group_stats *local, u32 lt,
				     const struct group_stats *busiest, u32 bt, u64 total_load,
				     u64 total_cap, u32 imbalance_pct, bool within_llc,
				     bool this_idle, u32 imb_numa_nr, struct lb_result *out)
{
	u64 local_avg, busiest_avg, sds_avg, a, b;

	out->migration = MIGRATE_NONE;
	out->imbalance = 0;
	if (!busiest->nr_running || lt > bt)
		return;
	local_avg = arbor_group_avg_load(local);
	busiest_avg = arbor_group_avg_load(busiest);
	sds_avg = total_cap ? total_load * SCHED_CAPACITY_SCALE / total_cap : 0;
	if (lt == GROUP_OVERLOADED) {
		/* both overloaded: only if the busiest is clearly heavier */
		if (local_avg >= busiest_avg || local_avg >= sds_avg ||
		    100 * busiest_avg <= (u64)imbalance_pct * local_avg)
			return;
	}
	if (bt != GROUP_OVERLOADED) {
		/* not overloaded: only an idle CPU pulls, to spread tasks out */
		if (!this_idle)
			return;
		if (busiest->weight > 1 && local->idle_cpus <= busiest->idle_cpus + 1)
			return;
		if (busiest->nr_running == 1)
			return;
	}

	/* calculate_imbalance() */
	if (lt == GROUP_HAS_SPARE) {
		if (bt == GROUP_OVERLOADED && !within_llc) {
			/* across caches: fill the local group's spare capacity */
			a = local->capacity > local->util ? local->capacity - local->util : 0;
			out->migration = MIGRATE_UTIL;
			out->imbalance = a;
			if (this_idle && !a) {
				out->migration = MIGRATE_TASK;
				out->imbalance = 1;
			}
			return;
		}
		out->migration = MIGRATE_TASK;
		if (busiest->weight == 1)
			/* sibling_imbalance(), without core counts */
			a = busiest->nr_running > local->nr_running ?
			    busiest->nr_running - local->nr_running : 0;
		else
			/* even out the idle CPUs */
			a = local->idle_cpus > busiest->idle_cpus ?
			    local->idle_cpus - busiest->idle_cpus : 0;
		if (imb_numa_nr)
			a = arbor_adjust_numa_imbalance(a, local->nr_running + 1, imb_numa_nr);
		out->imbalance = a >> 1;
		if (!out->imbalance)
			out->migration = MIGRATE_NONE;
		return;
	}
	if (lt < GROUP_OVERLOADED && (local_avg >= busiest_avg || local_avg >= sds_avg))
		return;
	if (busiest_avg <= sds_avg || sds_avg <= local_avg)
		return;
	/* move load until one side reaches the average, whichever comes first */
	a = (busiest_avg - sds_avg) * busiest->capacity;
	b = (sds_avg - local_avg) * local->capacity;
	out->migration = MIGRATE_LOAD;
	out->imbalance = (a < b ? a : b) / SCHED_CAPACITY_SCALE;
	if (!out->imbalance)
		out->migration = MIGRATE_NONE;
}

/*
 * find_busiest_queue(): is CPU `c` of the busiest group a better source
 * than `best` (NULL: none yet)? Load: the highest load per capacity, but
 * not a CPU whose only task is bigger than the imbalance (moving it would
 * just move the imbalance). Util: the highest utilisation among CPUs with
 * two tasks or more. Task: the most tasks.
 */
ARBOR_POLICY bool arbor_lb_cpu_busier(u32 migration, u64 imbalance, const struct lb_cpu *c,
				      const struct lb_cpu *best)
{
	if (!c->nr_running)
		return false;
	switch (migration) {
	case MIGRATE_LOAD:
		if (c->nr_running == 1 && c->load > imbalance)
			return false;
		return !best || c->load * best->cap > best->load * c->cap;
	case MIGRATE_UTIL:
		if (c->nr_running <= 1)
			return false;
		return !best || c->util > best->util;
	case MIGRATE_TASK:
		return !best || c->nr_running > best->nr_running;
	default:
		return false;
	}
}

/*
 * detach_tasks()'s test of one queued task: how much of the imbalance
 * moving it covers, 0 if it must stay. A task whose load exceeds the
 * imbalance is skipped, a little more leniently after each failed balance
 * (the kernel's shr_bound(load, nr_balance_failed)); one whose utilisation
 * exceeds the spare utilisation likewise.
 */
ARBOR_POLICY u64 arbor_lb_task_share(u32 migration, u64 imbalance, u64 task_load, u64 task_util,
				     u32 nr_failed)
{
	u64 v;

	switch (migration) {
	case MIGRATE_LOAD:
		v = task_load ? task_load : 1;
		if ((nr_failed >= 63 ? 0 : v >> nr_failed) > imbalance)
			return 0;
		return v;
	case MIGRATE_UTIL:
		v = task_util ? task_util : 1;
		return v > imbalance ? 0 : v;
	case MIGRATE_TASK:
		return 1;
	default:
		return 0;
	}
}

/*
 * need_active_balance(): the imbalance was found but nothing could be
 * pulled because the busiest CPU's only task is running. After more than
 * cache_nice_tries + 2 failed attempts in a row (sd->nr_balance_failed;
 * cache_nice_tries is 1 up to the LLC, 2 above it, as sd_init sets it), an
 * idle CPU takes that running task (active_load_balance_cpu_stop). Only
 * for an idle puller, and only a lone task: a queued one is pulled the
 * ordinary way.
 */
ARBOR_POLICY bool arbor_need_active_balance(u32 nr_failed, u32 level, bool this_idle,
					    u32 src_nr_running, u32 src_queued)
{
	u32 cache_nice_tries = level > LVL_LLC ? 2 : 1;

	return this_idle && src_nr_running == 1 && !src_queued &&
	       nr_failed > cache_nice_tries + 2;
}

/*
 * get_sd_balance_interval(): a domain is balanced every sd_weight ms
 * (sd_init: balance_interval = min_interval = sd_weight), times
 * busy_factor (16) when the balancing CPU is busy; here never more often
 * than the periodic balancer's own interval (base_ns), and at most
 * max_load_balance_interval (HZ/10 * nr_cpus: 100 ms per CPU).
 */
#define ARBOR_LB_BUSY_FACTOR	16
ARBOR_POLICY u64 arbor_lb_interval(u32 span_weight, u64 base_ns, bool busy, u32 nr_cpus)
{
	u64 iv = (u64)span_weight * NSEC_PER_MSEC, max = (u64)nr_cpus * 100 * NSEC_PER_MSEC;

	if (busy)
		iv *= ARBOR_LB_BUSY_FACTOR;
	if (iv > max)
		iv = max;
	return iv > base_ns ? iv : base_ns;
}
