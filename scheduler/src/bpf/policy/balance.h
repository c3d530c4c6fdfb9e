/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h, by concern: the baseline's fork/exec slow path, which task a pull may take, the newidle balance's cost bound, and the averages and slices they use.
 * Included by policy.h only, after the parts before it (their rules may
 * be used here), with its ARBOR_POLICY and POLICY_FOR macros.
 */
#ifndef __ARBOR_POLICY_H
#error "include policy.h, not its parts"
#endif

/* ------------------------------------------------------------------ */
/* Fork/exec slow path (baseline: find_idlest_group / _cpu)            */
/* ------------------------------------------------------------------ */

/*
 * The idlest group: most idle CPUs, then least utilisation. A new task has
 * no cache footprint to respect, so spreading it is free.
 */
ARBOR_POLICY s32 arbor_idlest_group(u32 n, const u32 *nr_idle, const u64 *util)
{
	/*
	 * the best index and its values kept apart: reading arrays at `best`
	 * would make the verifier track it exactly and walk every iteration
	 */
	s32 best = -1, i;
	u32 best_idle = 0;
	u64 best_util = 0;

	POLICY_FOR(i, 0, MAX_LLCS) {
		u32 ni;
		u64 u;

		if ((u32)i >= n)
			break;
		ni = nr_idle[i];
		u = util[i];
		if (best < 0 || ni > best_idle || (ni == best_idle && u < best_util)) {
			best = i;
			best_idle = ni;
			best_util = u;
		}
	}
	return best;
}

/*
 * group_classify() (fair.c) for the slow path: overloaded when it runs more
 * tasks than CPUs and its utilisation or runnable signal exceeds its
 * capacity by imbalance_pct (group_is_overloaded); fully busy when it runs
 * at least one task per CPU and has no spare capacity left
 * (!group_has_capacity); else it has spare. Misfit, asym packing and
 * imbalanced groups do not occur here (no SD_ASYM_CPUCAPACITY group stats,
 * no affinity-imbalance tracking).
 */
ARBOR_POLICY u32 arbor_group_type(const struct group_stats *g, u32 pct)
{
	u64 cap = g->capacity;

	if (g->nr_running > g->weight &&
	    (cap * 100 < g->util * pct || cap * pct < g->runnable * 100))
		return GROUP_OVERLOADED;
	if (g->nr_running >= g->weight &&
	    (cap * pct < g->runnable * 100 || cap * 100 <= g->util * pct))
		return GROUP_FULLY_BUSY;
	return GROUP_HAS_SPARE;
}

/* avg_load: load per capacity, computed for busy groups only */
ARBOR_POLICY u64 arbor_group_avg_load(const struct group_stats *g)
{
	return g->capacity ? g->load * SCHED_CAPACITY_SCALE / g->capacity : 0;
}

/*
 * adjust_numa_imbalance() (fair.c): a NUMA imbalance is allowed (0) while
 * the destination would run at most imb_numa_nr tasks and the imbalance
 * is at most NUMA_IMBALANCE_MIN (2, a pair of communicating tasks).
 */
ARBOR_POLICY s64 arbor_adjust_numa_imbalance(s64 imbalance, u32 dst_running, u32 imb_numa_nr)
{
	if (dst_running > imb_numa_nr)
		return imbalance;
	if (imbalance <= 2)
		return 0;
	return imbalance;
}

/*
 * sched_domain->imb_numa_nr (topology.c, build_sched_domains): how many
 * tasks a node may run before the slow path and the balancer stop keeping
 * tasks near their parent / waker. From the first domain above the LLC
 * (the node's package): its number of LLCs if several, else 1/8 of its
 * CPUs; at least 1. The NUMA domain above it inherits it (x span / the
 * first NUMA domain's span = 1 with one NUMA level, as here). A node is
 * taken to be one package (no sub-NUMA clustering levels).
 */
ARBOR_POLICY u32 arbor_imb_numa_nr(u32 node_cpus, u32 node_llcs)
{
	u32 imb = node_llcs == 1 ? node_cpus >> 3 : node_llcs;

	return imb ? imb : 1;
}

/*
 * sched_balance_find_dst_group() (fair.c; find_idlest_group before 6.10):
 * where a new task goes among the groups of one level. The idlest group
 * other than the local one (the one holding the parent's CPU) is the one
 * of the lowest group type, then of the lowest avg_load (busy groups) or
 * the most idle CPUs and then the least utilisation (groups with spare
 * capacity) (update_pick_idlest). The task leaves the local group only if
 * that group is worse:
 *  - of a busier type: leave; of an idler type: stay;
 *  - both busy: stay unless the local avg_load exceeds the idlest's by
 *    both imbalance_pct and a NICE_0 task's share of it (and, across
 *    nodes, stay if the idlest plus that share is not lighter);
 *  - both with spare: across nodes, stay while the local node would run
 *    at most imb_numa_nr tasks (capped by the CPUs the task may use there)
 *    and the idle counts differ by at most 2 (adjust_numa_imbalance);
 *    then stay unless the idlest group has more idle CPUs.
 * Groups the task may not use are skipped; with a local group it may not
 * use, the idlest wins. Returns the group to move to, or -1 to stay local
 * (also when there is no other group). (NUMA balancing's preferred node
 * is not modelled.)
 */
ARBOR_POLICY s32 arbor_find_dst_group(u32 n, const struct group_stats *g, s32 local, u32 pct,
				      bool numa, u32 imb_numa_nr)
{
	/* the idlest's figures kept apart from its index: the verifier wants bounded reads */
	s32 idlest = -1, i;
	u32 it = 0, lt, imb_nr, i_idle = 0;
	u64 imbalance, la, ia = 0, i_util = 0;
	const struct group_stats *l;

	POLICY_FOR(i, 0, MAX_LLCS) {
		const struct group_stats *c;
		u32 ct;
		u64 ca;

		if ((u32)i >= n)
			break;
		c = &g[i & (MAX_LLCS - 1)];
		if (i == local || !c->allowed)
			continue;
		ct = arbor_group_type(c, pct);
		ca = arbor_group_avg_load(c);
		if (idlest >= 0) {
			if (ct > it)
				continue;
			if (ct == it) {
				if (ct == GROUP_HAS_SPARE) {
					if (i_idle > c->idle_cpus ||
					    (i_idle == c->idle_cpus && i_util <= c->util))
						continue;
				} else if (ia <= ca) {
					continue;
				}
			}
		}
		idlest = i;
		it = ct;
		ia = ca;
		i_idle = c->idle_cpus;
		i_util = c->util;
	}
	if (idlest < 0)
		return -1;
	if (local < 0 || (u32)local >= n || !g[local & (MAX_LLCS - 1)].allowed)
		return idlest;

	l = &g[local & (MAX_LLCS - 1)];
	lt = arbor_group_type(l, pct);
	if (lt < it)
		return -1;
	if (lt > it)
		return idlest;

	if (lt != GROUP_HAS_SPARE) {
		imbalance = (u64)SCHED_CAPACITY_SCALE * (pct - 100) / 100;
		la = arbor_group_avg_load(l);
		if (numa && ia + imbalance >= la)
			return -1;
		if (ia >= la + imbalance)
			return -1;
		if (100 * la <= (u64)pct * ia)
			return -1;
		return idlest;
	}

	if (numa) {
		s64 imb = (s64)l->idle_cpus - (s64)i_idle;

		imb_nr = l->allowed < imb_numa_nr ? l->allowed : imb_numa_nr;
		if (!arbor_adjust_numa_imbalance(imb < 0 ? -imb : imb, l->nr_running + 1, imb_nr))
			return -1;
	}
	if (l->idle_cpus >= i_idle)
		return -1;
	return idlest;
}

/*
 * The idlest CPU of a group: an idle CPU, the most recently idled one first
 * (its cache is warmest, and without cpuidle state data that is the
 * kernel's tie-break); if none is idle, the least loaded.
 * idle_stamp[i] = 0 means "busy".
 */
ARBOR_POLICY s32 arbor_idlest_cpu(u32 n, const u64 *idle_stamp, const u64 *load)
{
	/* indices and their values kept apart (see arbor_find_dst_group) */
	s32 best_idle = -1, best_busy = -1, i;
	u64 best_stamp = 0, best_load = 0;

	POLICY_FOR(i, 0, MAX_LLC_CPUS) {
		u64 st, ld;

		if ((u32)i >= n)
			break;
		st = idle_stamp[i];
		ld = load[i];
		if (st) {
			if (best_idle < 0 || st > best_stamp) {
				best_idle = i;
				best_stamp = st;
			}
		} else if (best_busy < 0 || ld < best_load) {
			best_busy = i;
			best_load = ld;
		}
	}
	return best_idle >= 0 ? best_idle : best_busy;
}

/* ------------------------------------------------------------------ */
/* Which queued task a pull may take (baseline: can_migrate_task)      */
/* ------------------------------------------------------------------ */

/*
 * can_migrate_task() (fair.c), the checks a pull makes before seed 002's
 * cache rule: not if the pulling CPU is outside the task's cpumask; not if
 * the task's migration is disabled (it must stay where it is; sched_ext
 * refuses the move); above the LLC level, not if it ran within
 * migration_cost (cache hot, task_hot()): `hot_test` is set above the LLC,
 * and at the LLC level only for IDLE_PULL's forced tries
 * (arbor_newidle_level). The kernel tests task_hot() at the LLC level too
 * (MC: no SD_SHARE_CPUCAPACITY); the baseline's own pulls here do not yet.
 * `since_ran` is ~0 when unknown.
 */
ARBOR_POLICY bool arbor_can_pull(bool allowed_here, bool migration_disabled, bool hot_test,
				 u64 since_ran, u64 migration_cost)
{
	if (!allowed_here || migration_disabled)
		return false;
	if (hot_test && since_ran < migration_cost)
		return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* Newidle balance cost bound (baseline: sched_balance_newidle)        */
/* ------------------------------------------------------------------ */

/*
 * A CPU about to idle for avg_idle ns should not spend longer than that
 * looking for work: each level is tried only while the cost spent so far
 * plus that level's worst recent cost fits in the expected idle time
 * (sched_balance_newidle: "if (this_rq->avg_idle < curr_cost +
 * sd->max_newidle_lb_cost) break"). With spent = 0 at the lowest level this
 * is also the kernel's early exit. sysctl_sched_migration_cost is no longer
 * part of this test (removed in 5.16); it only floors avg_idle's cap below.
 */
ARBOR_POLICY bool arbor_newidle_level_ok(u64 avg_idle, u64 spent, u64 level_cost)
{
	return avg_idle >= spent + level_cost;
}

#define NSEC_PER_SEC		1000000000ULL

/*
 * IDLE_PULL (ours, not the kernel's): a CPU about to idle while a task waits in
 * another CPU of its LLC takes it. What one level of the newidle walk does:
 *  - NI_STOP: the baseline's cost bound ends the walk (arbor_newidle_level_ok);
 *  - NI_SKIP: the baseline's NI_RANDOM dice skips this level (dice_weight 0;
 *    pass 1 when NI_RANDOM is off);
 *  - NI_TRY:  the baseline tries the level;
 *  - NI_FORCE: IDLE_PULL tries a level within the LLC (SMT, LLC) that the
 *    baseline would have stopped at or skipped (and, where a node holds
 *    several LLCs, the node's level: arbor_idle_pull_level).
 * With IDLE_PULL every level within the LLC is tried, nearest first, until
 * one pull succeeds; above the LLC (node, machine) the baseline's two
 * predictions still decide, but for the node of small LLCs. The caller
 * enters the walk only while
 * some CPU has a task waiting (nr_overloaded, a CPU with nr_running >= 2),
 * and the pull rules are the baseline's (affinity, no cache-hot task across
 * LLCs, seed 002's LLC rule), and at a forced LLC level no cache-hot task
 * either: fair.c can_migrate_task() refuses a task_hot() task at every
 * level but SMT (whose siblings share the cache), and newidle failures do
 * not raise nr_balance_failed, so a newidle pull never takes one. Without
 * that, on x86-12 wakeprobe, default pulled wakees that had waited a few
 * microseconds away from the CPU they had just run on: 154 migrations per
 * 1000 wake-ups against stock's 38, p99 18.05 against stock's 17.56 us (the
 * one cell where default was worse than stock; sim, 5 seeds,
 * docs/findings/2026-11-27-wake-shortcut). The baseline's own newidle pulls
 * within the LLC still skip the hot test (arbor_can_pull): a deviation of
 * the port, not measured yet.
 *
 * Sources. fair.c sched_balance_newidle() walks the domains bottom-up and
 * gives up on two predictions: the cost bound (avg_idle < curr_cost +
 * sd->max_newidle_lb_cost: the CPU expects work before the search would
 * end) and the 6.18 NI_RANDOM dice (a domain is tried in proportion to its
 * recent success rate). Both exist because sched_balance_rq() is costly
 * (remote runqueue locks, group statistics). A CPU left idle by them waits
 * for the nohz balancer, kicked from a busy CPU's tick (nohz_balancer_kick)
 * no sooner than nohz.next_balance; arbor's periodic kick comes every
 * --balance-interval-ms (4 ms). The peers do not gate: scx_cosmos 1.1.7's
 * cosmos_dispatch consumes its node's shared DSQ on every dispatch before
 * the CPU idles; p2dq and bpfland likewise consume their LLC's or the
 * shared queue first. Measured (sim, x86-12 hackbench:g=2,l=100, 5 seeds):
 * arbor:default leaves CPUs idle while tasks wait 5.1% of CPU time against
 * cosmos's 0.9%; newidle failed 388 times per run, 126 of them without
 * scanning any level (the dice), and without NI_RANDOM 0 times.
 *
 * Why only within the LLC. A pull inside the LLC moves a task between CPUs
 * that share its cache: it costs the pull, and it gains the wait. A pull
 * from another LLC also costs the task its cache, and it fills a CPU that
 * the pulling LLC's own wakees are about to look for: the LLC is where
 * select_idle_sibling() searches, so a busy CPU there is one fewer idle
 * target for them. That is the trade the baseline's predictions weigh, and
 * they stay the judge above the LLC. Measured (sim, 5 seeds,
 * docs/findings/2026-11-28-idle-pull-llc): forcing every level, power11
 * (LLCs of 4 threads) made 5,473 forced pulls per schbench run, cross-node
 * migrations 4,085 -> 5,449, and schbench's wake-up p99 23.9 us against
 * 17.4 without IDLE_PULL; forced within the LLC only, 16.2 us, with
 * hackbench, perf-messaging and wakeprobe unchanged within their spread.
 * On xeon-88 (one LLC per node) the forced cross-node pulls had helped
 * schbench: p99 7.4 -> 8.6 us (still below every peer's); x86-12 (one LLC)
 * is unchanged to the digit.
 *
 * Why it holds on any topology: it changes no choice of source (still the
 * nearest level's busiest CPU with a waiting task, find_busiest()), only
 * whether a level within the LLC is looked at, and it replaces a prediction
 * of success by the fact: some CPU has a waiting task. An idle CPU that can
 * run a waiting task of its own LLC now runs it no later than the queue it
 * waits in would, warm; the price is the pull, and the baseline's rules
 * still apply (affinity, no cache-hot task at a forced LLC level). The
 * walk's cost stays bounded: the forced levels are the CPU's own core and
 * LLC and, on the machines arbor_idle_pull_level names, the node or the
 * other nodes, where find_busiest() skips every LLC with no CPU running
 * two tasks without touching its CPUs.
 */
ARBOR_POLICY u32 arbor_newidle_level(bool idle_pull, bool within_llc, bool cost_ok,
				     u32 dice_weight)
{
	if (cost_ok && dice_weight)
		return NI_TRY;
	if (idle_pull && within_llc)
		return NI_FORCE;
	return cost_ok ? NI_SKIP : NI_STOP;
}

/*
 * The levels IDLE_PULL forces (arbor_newidle_level's within_llc): those
 * within the LLC (SMT, LLC) on every machine; where the CPU's node holds
 * several LLCs, the level that spans the node: LVL_NODE, or LVL_MACHINE on
 * a machine of one node (whose walk skips the node level); and where the
 * node is one LLC on a machine of several nodes, the machine level (the
 * other nodes).
 *
 * Why the node where LLCs are small. On POWER an LLC is one core's 4
 * threads (28 per power11 node, 16 on a power10 LPAR), on an EPYC a CCX,
 * on a hybrid laptop or a phone a cluster: a task that waits in one of
 * them waits for its 4-16 CPUs while the rest of its node may idle, and
 * the forced LLC level can only look in the idle CPU's own LLC. The
 * baseline's node level is gated by its predictions (cost bound, NI_RANDOM
 * dice) and by task_hot(), and on these machines it rarely pulls: measured
 * (sim, power10 hackbench:g=2,l=100, 3 seeds), 183 wake-ups a run queued
 * behind a busy CPU, 234 us each on average, while CPUs of the node idled
 * 7.7% of the time a task waited; cosmos, whose idle CPUs drain their
 * node's shared queue, 0.6%. Where the node is one LLC (x86-12, xeon-88,
 * a one-LLC phone) the LLC level already is the node and nothing changes.
 * Across nodes the task also leaves its memory, and there the baseline
 * still decides (the forced-everywhere version cost power11 schbench's
 * p99: 23.9 us against 16.2, docs/findings/2026-11-28-idle-pull-llc).
 * Measured with SIS_NODE's preference (arbor_sis_node_idle_ok), `arbor sim
 * verdict` of default against the best peer, 5-20 seeds a cell, before and
 * after: power10 hackbench -30.7% [-44.5, -17.0] -> -11.7% [-16.9, -6.6] and
 * perf-messaging -7.0% -> +0.5% (cosmos); a 72-CPU POWER SMT4
 * (random-20261206-2) hackbench -40.6% -> -13.2%; schbench p99 against lavd
 * -4.2% -> -2.4% (power10), -8.0% -> -4.3% and -37.6% -> -16.0% (a 256-CPU
 * two-socket AMD-like NPS1, random-20261206-5); never worse than stock in 63
 * cells of ten machines.
 *
 * Why the other nodes where a node is one LLC. There the node level adds
 * nothing to the LLC, and the next level with CPUs to pull from is the
 * machine's other nodes, where the baseline's pulls refuse every task that
 * ran within the migration cost (task_hot()): on a waiting wakee, nearly
 * all. On an 8-socket SNC2 Intel-like machine of 4-CPU nodes
 * (random-20261210-9) CPUs idled 11% of the time while a task waited
 * (cosmos 3%), and default lost hackbench (-8.9%), perf-messaging (-7.4%)
 * and wakeprobe (-6.7%) to the best peer. Forcing the machine level there
 * (a forced level above the LLC takes a cache-hot task: arbor_pull_hot_test)
 * made all three better than the best peer; over the 126 cells of that
 * draw (`arbor sim verdict --candidate`, up to 40 runs), the cells that
 * changed were those three and spr-2s schbench (lavd: worse -> not worse),
 * with none worse than before and none worse than stock. xeon-88 (2 nodes of
 * one LLC) changed no decision. The pull still comes from the nearest busy
 * CPU with a waiting task (find_busiest); on machines whose nodes hold
 * several LLCs (power11) nothing changes, as the forced-everywhere version
 * above showed that crossing there costs more than it gains.
 */
ARBOR_POLICY bool arbor_idle_pull_level(u32 level, u32 nr_nodes, u32 node_llcs)
{
	if (level <= LVL_LLC)
		return true;
	if (node_llcs <= 1)
		return level == LVL_MACHINE && nr_nodes > 1;
	return level == LVL_NODE || (level == LVL_MACHINE && nr_nodes <= 1);
}

/*
 * Whether a pull at `level` refuses a cache-hot task (arbor_can_pull's
 * hot_test): the baseline's pulls above the LLC (task_hot() across
 * caches); IDLE_PULL's forced pulls at the LLC level (the x86-12 wakeprobe
 * case above); not its forced pulls at the node level of a node of small
 * LLCs. The tasks those find wait behind a running task of a small LLC,
 * and task_hot() judges by when they last ran, not by how long they will
 * still wait: on those machines nearly every waiting wakee ran within the
 * migration cost, so with the test the node level pulled almost nothing
 * (random-20261206-2, POWER SMT4, hackbench: CPUs idle while a task
 * waited 12.5% of the time with it, 7.3% without; 5 seeds).
 */
ARBOR_POLICY bool arbor_pull_hot_test(u32 level, bool forced)
{
	if (forced)
		return level == LVL_LLC;
	return level > LVL_LLC;
}


/*
 * update_newidle_cost() (fair.c): a level's max_newidle_lb_cost is the
 * largest cost of one attempt at that level; a new maximum restarts the
 * decay clock (last_decay_max_lb_cost), and while no attempt beats it, it
 * loses 3/256 (~1%) once a second. cost = 0 only decays (the kernel's
 * periodic visit from sched_balance_domains). Returns true when it decayed.
 */
ARBOR_POLICY bool arbor_newidle_cost_update(u64 *max_cost, u64 *last_decay, u64 cost, u64 now)
{
	if (cost > *max_cost) {
		*max_cost = cost;
		*last_decay = now;
		return false;
	}
	if (now > *last_decay + NSEC_PER_SEC) {
		*max_cost = *max_cost * 253 / 256;
		*last_decay = now;
		return true;
	}
	return false;
}

/*
 * NI_RANDOM (fair.c, "sched/fair: Proportional newidle balance", 6.18):
 * each level keeps how often a newidle attempt there pulled something,
 * and newidle tries the level only with that probability. The statistics
 * (update_newidle_stats) count calls and successes; every 1024 calls the
 * success count becomes the ratio (successes per 1024 calls) and both are
 * halved, so the ratio follows the recent past. sd_init starts every level
 * at 50% (call 512, success 256, ratio 512).
 */
#define ARBOR_NI_CALL0		512
#define ARBOR_NI_SUCCESS0	256
#define ARBOR_NI_RATIO0		512

ARBOR_POLICY void arbor_newidle_stats(u32 *call, u32 *success, u32 *ratio, u32 success_weight)
{
	*call += 1;
	*success += success_weight;
	if (*call >= 1024) {
		*ratio = *success;
		*call /= 2;
		*success /= 2;
	}
}

/*
 * The dice of NI_RANDOM: with d = rnd % 1024, the level is tried when
 * d <= 1 + ratio (a skipped level counts as a failed call). A try returns
 * its weight, 1024 / (1 + ratio) rounded: a success is recorded with that
 * weight, so that tries made with probability (1 + ratio) / 1024 still
 * estimate the full success rate. 0 = skip the level.
 */
ARBOR_POLICY u32 arbor_newidle_dice(u32 ratio, u32 rnd)
{
	u32 d1k = rnd % 1024, weight = 1 + ratio;

	if (d1k > weight)
		return 0;
	return (1024 + weight / 2) / weight;
}

/*
 * A per-CPU pseudo-random sequence (the kernel keeps a per-CPU
 * prandom state for sched_rng(); any decent generator does): xorshift32.
 * A zero state is replaced by a fixed non-zero seed.
 */
ARBOR_POLICY u32 arbor_rng_next(u32 *state)
{
	u32 x = *state ? *state : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/*
 * rq->avg_idle is capped at 2 * rq->max_idle_balance_cost, which is
 * max(sysctl_sched_migration_cost, the sum over the CPU's domains of
 * max_newidle_lb_cost) (sched_balance_domains; ttwu_do_activate does the
 * capping). sum_cost = that sum.
 */
ARBOR_POLICY u64 arbor_avg_idle_cap(u64 migration_cost, u64 sum_cost)
{
	return 2 * (sum_cost > migration_cost ? sum_cost : migration_cost);
}

/* update_avg(): the kernel's 1/8 exponential moving average. */
ARBOR_POLICY u64 arbor_update_avg(u64 avg, u64 sample)
{
	s64 diff = (s64)sample - (s64)avg;

	return (u64)((s64)avg + diff / 8);
}

/* ------------------------------------------------------------------ */
/* Ordering and accounting                                             */
/* ------------------------------------------------------------------ */

/*
 * Base slice, as the kernel scales sysctl_sched_base_slice (0.75 ms) with
 * SCHED_TUNABLESCALING_LOG: x (1 + log2(min(ncpus, 8))), i.e. 3 ms at 8+.
 */
ARBOR_POLICY u64 arbor_base_slice_ns(u32 ncpus, u64 base_ns)
{
	u32 n = ncpus < 8 ? ncpus : 8, lg = 0;

	while (n > 1 && lg < 8) {
		n >>= 1;
		lg++;
	}
	return base_ns * (1 + lg);
}

/*
 * PELT-like decay: a signal loses half its weight every 32 ms, as the
 * kernel's load tracking. y^k for k < 32, scaled by 2^32.
 */
#define PELT_PERIOD_NS	(1ULL << 20)	/* ~1 ms, as the kernel's 1024 us */
static const u32 arbor_pelt_y[32] = {
	0u /* y^0 = 1: not multiplied */, 4202935003u, 4112874773u, 4024744348u, 3938502376u,
	3854108391u, 3771522796u, 3690706840u, 3611622603u, 3534232978u,
	3458501653u, 3384393094u, 3311872529u, 3240905930u, 3171459999u,
	3103502151u, 3037000500u, 2971923842u, 2908241642u, 2845924021u,
	2784941738u, 2725266179u, 2666869345u, 2609723834u, 2553802834u,
	2499080105u, 2445529972u, 2393127307u, 2341847524u, 2291666561u,
	2242560872u, 2194507417u,
};

/* val * y^(delta / period), sub-period remainders interpolated linearly. */
ARBOR_POLICY u64 arbor_pelt_decay(u64 val, u64 delta_ns)
{
	u64 periods = delta_ns / PELT_PERIOD_NS;
	u64 rem = delta_ns % PELT_PERIOD_NS;

	if (periods >= 63 * 32)
		return 0;
	val >>= periods / 32;
	if (periods % 32)
		val = (val * arbor_pelt_y[periods % 32] + (1ULL << 31)) >> 32;	/* rounded: */
	/* truncating here would make a 100%-busy signal settle ~4% low */
	/* y = 1 - 0.0214 per period: interpolate within the period */
	val -= (val * 22 / 1024) * rem / PELT_PERIOD_NS;
	return val;
}

/*
 * Advance an average by delta_ns during which the signal was `value`
 * (e.g. 1024 while running, 0 while not): avg = avg*d + value*(1-d).
 */
ARBOR_POLICY u64 arbor_pelt_accum(u64 avg, u64 delta_ns, u64 value)
{
	u64 decayed_avg = arbor_pelt_decay(avg, delta_ns);
	u64 decayed_val = arbor_pelt_decay(value, delta_ns);

	return decayed_avg + (value - decayed_val);
}
