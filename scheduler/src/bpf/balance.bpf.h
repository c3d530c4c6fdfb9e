/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: moving queued work between CPUs (baseline: newidle balance,
 * periodic balance, nohz idle balance).
 *
 * Each CPU has its own DSQ, so a task queued behind a busy CPU stays there
 * unless someone pulls it. Three things pull:
 *  - a CPU about to go idle (newidle), walking SMT -> LLC -> node -> machine
 *    and bounded by how long it expects to stay idle;
 *  - a busy CPU at the end of a slice, when another CPU has at least two
 *    more tasks than it (the busy half of periodic balancing);
 *  - the periodic timer, which kicks an idle CPU near every CPU that has
 *    queued work (the kernel's nohz idle balance): that kick is also what
 *    guarantees no runnable task waits forever behind a busy CPU.
 */
#ifndef __ARBOR_BALANCE_BPF_H
#define __ARBOR_BALANCE_BPF_H

#include "common.bpf.h"
#include "load.bpf.h"
#include "cache.bpf.h"

enum pull_kind {
	PULL_NEWIDLE,	/* the CPU would go idle */
	PULL_BUSY,	/* the CPU has a task; pull only to fix an imbalance */
	PULL_KICKED,	/* the periodic balancer asked: pull, ungated */
};

/* Is `c` within `level` of `this`? */
static __always_inline bool in_level(s32 this, s32 c, u32 level)
{
	switch (level) {
	case LVL_SMT:
		return cpu_core[this & (MAX_CPUS - 1)] == cpu_core[c & (MAX_CPUS - 1)];
	case LVL_LLC:
		return share_llc(this, c);
	case LVL_NODE:
		return node_of(this) == node_of(c);
	default:
		return true;
	}
}

/*
 * The busiest CPU of a level: most tasks accounted, with at least one
 * waiting in its queue (a lone running task cannot be pulled).
 */
static __always_inline s32 find_busiest(s32 this, u32 level, u32 *busiest_nr)
{
	s32 best = -1;
	u32 best_nr = 0, i;

	bpf_for(i, 0, MAX_CPUS) {
		struct cpu_ctx *c;

		if (i >= nr_cpus)
			break;
		if (i == this || !in_level(this, i, level))
			continue;
		if (scx_bpf_dsq_nr_queued(cpu_dsq(i)) <= 0)
			continue;
		c = lookup_cpu_ctx(i);
		if (!c)
			continue;
		if (best < 0 || c->nr_running > best_nr) {
			best = i;
			best_nr = c->nr_running;
		}
	}
	*busiest_nr = best_nr;
	return best;
}

/*
 * Pull one task from `src` to this CPU's local DSQ: the first in deadline
 * order that may run here and, for a cross-LLC move, is not cache-hot (ran
 * within migration_cost: moving it would throw away a warm cache).
 */
static __always_inline bool pull_from(s32 this, s32 src, u32 level)
{
	struct task_struct *p;
	u64 now = bpf_ktime_get_ns();

	bpf_for_each(scx_dsq, p, cpu_dsq(src), 0) {
		struct task_ctx *tctx;

		tctx = lookup_task_ctx(p);
		if (!arbor_can_pull(bpf_cpumask_test_cpu(this, p->cpus_ptr),
				    is_migration_disabled(p), level > LVL_LLC,
				    tctx ? now - tctx->last_ran : ~0ULL, migration_cost_ns))
			continue;
		/* seed 002: keep aggregated threads in their preferred LLC */
		if (!cache_allow_move(p, src, this, tctx ? tctx->util_avg : 0, now))
			continue;
		if (scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, SCX_DSQ_LOCAL, 0))
			return true;
	}
	return false;
}

/*
 * Walk the levels bottom-up; stop at the first pull. For PULL_NEWIDLE each
 * level must fit in the expected idle time (policy.h:
 * arbor_newidle_level_ok); the cost of each level is measured and its worst
 * recent value kept, decaying by 1% per second as in the kernel.
 */
static __always_inline bool balance(s32 this, struct cpu_ctx *cc, enum pull_kind kind)
{
	u64 t0 = bpf_ktime_get_ns(), spent = 0;
	u32 level;

	if (t0 > cc->cost_decay_ts + 1000000000ULL) {
		bpf_for(level, 0, NR_LEVELS)
			cc->lvl_cost[level] = cc->lvl_cost[level] * 253 / 256;
		cc->cost_decay_ts = t0;
	}

	bpf_for(level, 0, NR_LEVELS) {
		u32 busiest_nr;
		s32 src;
		bool pulled;
		u64 t1, cost;

		if (level == LVL_SMT && smt_width <= 1)
			continue;
		if (level == LVL_NODE && nr_nodes <= 1)
			continue;
		if (kind == PULL_NEWIDLE &&
		    !arbor_newidle_level_ok(cc->avg_idle, spent, cc->lvl_cost[level & 3]))
			break;

		src = find_busiest(this, level, &busiest_nr);
		pulled = false;
		if (src >= 0 && (kind != PULL_BUSY || busiest_nr >= cc->nr_running + 2))
			pulled = pull_from(this, src, level);

		t1 = bpf_ktime_get_ns();
		cost = t1 - t0;
		if (cost > cc->lvl_cost[level & 3])
			cc->lvl_cost[level & 3] = cost;
		spent += cost;
		t0 = t1;
		if (pulled)
			return true;
	}
	return false;
}

/*
 * Periodic balancer (BPF timer). Every balance_interval:
 *  - refresh each LLC's utilisation and its SIS_UTIL scan depth
 *    (baseline: update_idle_cpu_scan runs from periodic balancing);
 *  - for every CPU with tasks waiting in its queue, kick the nearest idle
 *    CPU that may run them, with balance_req set so it pulls ungated.
 */
struct balance_timer {
	struct bpf_timer timer;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct balance_timer);
} balance_timer_map SEC(".maps");

static __always_inline void refresh_llc_scan(u64 now)
{
	u32 llc, k;

	bpf_for(llc, 0, MAX_LLCS) {
		struct llc_ctx *lc;
		u64 sum = 0;
		u32 n;

		if (llc >= nr_llcs)
			break;
		n = llc_nr_cpus[llc];
		bpf_for(k, 0, MAX_LLC_CPUS) {
			struct cpu_ctx *c;

			if (k >= n)
				break;
			c = lookup_cpu_ctx(llc_cpus[llc][k]);
			if (c)
				sum += cpu_util(c, now);
		}
		lc = lookup_llc_ctx(llc);
		if (lc) {
			lc->util_sum = sum;
			lc->nr_idle_scan = arbor_sis_util_nr_scan(n, sum, imbalance_pct);
		}
	}
}

static __always_inline void kick_idle_near(s32 busy)
{
	s32 best = -1;
	u32 best_lvl = NR_LEVELS, i;

	bpf_for(i, 0, MAX_CPUS) {
		u32 lvl;

		if (i >= nr_cpus)
			break;
		struct cpu_ctx *ic;

		if (i == busy || !(ic = lookup_cpu_ctx(i)) || !ic->idle)
			continue;
		lvl = in_level(busy, i, LVL_SMT) ? LVL_SMT :
		      in_level(busy, i, LVL_LLC) ? LVL_LLC :
		      in_level(busy, i, LVL_NODE) ? LVL_NODE : LVL_MACHINE;
		if (lvl < best_lvl) {
			best = i;
			best_lvl = lvl;
		}
	}
	if (best >= 0) {
		struct cpu_ctx *c = lookup_cpu_ctx(best);

		if (c)
			c->balance_req = 1;
		scx_bpf_kick_cpu(best, SCX_KICK_IDLE);
		stat_inc(STAT_PERIODIC_KICKS);
	}
}

/*
 * The timer runs only while the scheduler is fully up: user space sets
 * timer_go after attaching (the first tick then starts the timer) and
 * timer_stop before detaching (ops.exit sets it too, for ejections). A timer
 * that fires while sched_ext is flipping its static keys during enable or
 * disable has crashed TCG guests (int3 in check_builtin_idle_enabled), so it
 * also reads idleness from our own per-CPU flags, not the kfunc.
 */
volatile u32 timer_go, timer_stop;
static u32 timer_started;

static int balance_timerfn(void *map, int *key, struct bpf_timer *timer)
{
	u64 now = bpf_ktime_get_ns();
	u32 i;

	if (timer_stop)
		return 0;
	refresh_llc_scan(now);
	bpf_for(i, 0, MAX_CPUS) {
		if (i >= nr_cpus)
			break;
		if (scx_bpf_dsq_nr_queued(cpu_dsq(i)) > 0)
			kick_idle_near(i);
	}
	bpf_timer_start(timer, balance_interval_ns, 0);
	return 0;
}

/* Called from ops.tick: starts the timer once user space said go. */
static __always_inline s32 maybe_start_balance_timer(void)
{
	struct bpf_timer *timer;
	u32 key = 0;
	s32 err;

	if (!timer_go || timer_stop || timer_started ||
	    __sync_val_compare_and_swap(&timer_started, 0, 1) != 0)
		return 0;
	timer = bpf_map_lookup_elem(&balance_timer_map, &key);
	if (!timer)
		return -ESRCH;
	bpf_timer_init(timer, &balance_timer_map, CLOCK_MONOTONIC);
	bpf_timer_set_callback(timer, balance_timerfn);
	err = bpf_timer_start(timer, balance_interval_ns, 0);
	return err;
}

#endif /* __ARBOR_BALANCE_BPF_H */
