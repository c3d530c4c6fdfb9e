/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: moving queued work between CPUs (baseline: newidle balance,
 * periodic balance, nohz idle balance).
 *
 * Each CPU has its own DSQ, so a task queued behind a busy CPU stays there
 * unless someone pulls it. Three things pull:
 *  - a CPU about to go idle (newidle), walking SMT -> LLC -> node -> machine
 *    and bounded by how long it expects to stay idle;
 *  - periodic balancing (LB_IMBALANCE, fair.c's sched_balance_rq): a busy
 *    CPU at the end of a slice, and idle CPUs the timer kicks (the nohz
 *    idle balancer), each level at most once per its balance interval,
 *    find the busiest group of the level by weighted load, utilisation
 *    and task counts and pull what calculate_imbalance says; when only a
 *    lone running task could fix the imbalance and pulling has failed
 *    often enough, the idle CPU takes that task (active balance). Without
 *    LB_IMBALANCE a busy CPU pulls only when another CPU has at least two
 *    more tasks than it;
 *  - the periodic timer also kicks an idle CPU near every CPU that has
 *    queued work (the kernel's nohz idle balance); that CPU pulls ungated
 *    if the balancer found nothing: this kick is what guarantees no
 *    runnable task waits forever behind a busy CPU.
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

/* cpu_ctx.balance_req: why the periodic timer kicked an idle CPU */
#define BAL_REQ_PULL	1	/* tasks wait nearby: pull, ungated (never-stall) */
#define BAL_REQ_LB	2	/* LB_IMBALANCE: balance for yourself (nohz idle balance) */

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

/* Consider CPU i as the busiest of a level so far. */
static __always_inline void busiest_consider(s32 this, s32 i, s32 *best, u32 *best_nr)
{
	struct cpu_ctx *c;
	u32 nr;

	if (i == this || !valid_cpu(i))
		return;
	c = lookup_cpu_ctx(i);
	if (!c)
		return;
	nr = c->nr_running;
	/*
	 * Would it beat the best so far? Only then does it matter whether it
	 * has a task waiting: its queue is asked last (a kfunc call).
	 */
	if (*best >= 0 && nr < *best_nr)
		return;
	if (*best >= 0 && nr == *best_nr && i >= *best)
		return;
	if (scx_bpf_dsq_nr_queued(cpu_dsq(i)) <= 0)
		return;
	*best = i;
	*best_nr = nr;
}

/*
 * The busiest CPU of a level: most tasks accounted, with at least one
 * waiting in its queue (a lone running task cannot be pulled); ties to the
 * lowest id.
 *
 * Bounded as the kernel bounds sched_balance_rq(): each level looks at the
 * CPUs its span adds to the level below (the levels are walked bottom-up,
 * and a CPU that could not be pulled from below cannot be above, where
 * can_migrate_task() only adds the cache-hot test), so a walk of all levels
 * visits each CPU once, not once per level: SMT through the core's sibling
 * ring, LLC through its CPU list, node and machine LLC by LLC. Above the
 * LLC, an LLC with no overloaded CPU (llc_overloaded[], the per-LLC
 * summary kept on 1 <-> 2 transitions) is skipped without touching its CPUs:
 * the kernel pulls only from a runqueue with nr_running > 1. A kicked CPU
 * (PULL_KICKED) scans every CPU of the level, as the periodic balancer's
 * no-stall guarantee may need it to pull a task queued behind a CPU whose
 * count reads 1.
 */
static __always_inline s32 find_busiest(s32 this, u32 level, u32 *busiest_nr, bool all)
{
	u32 llc = llc_of(this), i, k;
	s32 best = -1;
	u32 best_nr = 0;

	if (level == LVL_SMT) {
		u32 self = cpu_llc_idx[this & (MAX_CPUS - 1)], j = self;

		bpf_for(k, 0, MAX_SMT) {
			j = llc_sib[llc][j & (MAX_LLC_CPUS - 1)];
			if (j == self || j >= llc_nr_cpus[llc])
				break;
			busiest_consider(this, llc_cpus[llc][j & (MAX_LLC_CPUS - 1)], &best, &best_nr);
		}
	} else if (level == LVL_LLC) {
		u32 core = cpu_core[this & (MAX_CPUS - 1)];

		bpf_for(k, 0, MAX_LLC_CPUS) {
			s32 c;

			if (k >= llc_nr_cpus[llc])
				break;
			c = llc_cpus[llc][k];
			/* the core's threads were the SMT level's */
			if (valid_cpu(c) && cpu_core[c & (MAX_CPUS - 1)] != core)
				busiest_consider(this, c, &best, &best_nr);
		}
	} else {
		u32 node = node_of(this);

		bpf_for(i, 0, MAX_LLCS) {
			if (i >= nr_llcs)
				break;
			if (i == llc)
				continue;
			/* node: this node's other LLCs; machine: the other nodes' */
			if ((level == LVL_NODE) != (llc_node[i] == node) && nr_nodes > 1)
				continue;
			if (!all && READ_ONCE(llc_overloaded[i].nr) <= 0)
				continue;
			bpf_for(k, 0, MAX_LLC_CPUS) {
				if (k >= llc_nr_cpus[i])
					break;
				busiest_consider(this, llc_cpus[i][k], &best, &best_nr);
			}
		}
	}
	*busiest_nr = best_nr;
	return best;
}

/*
 * Pull one task from `src` to this CPU's local DSQ: the first in deadline
 * order that may run here and, for a cross-LLC move, is not cache-hot (ran
 * within migration_cost: moving it would throw away a warm cache). `now`
 * is the caller's clock read in the same callback (balance: the level's
 * start; try_steal: before its victims), earlier than one read here only
 * by the search for `src`, which the cache-hot test (500 us) cannot see.
 */
static __always_inline bool pull_from(s32 this, s32 src, u32 level, bool hot_test, u64 now)
{
	struct task_struct *p;

	bpf_for_each(scx_dsq, p, cpu_dsq(src), 0) {
		struct task_ctx *tctx;

		tctx = lookup_task_ctx(p);
		if (!arbor_can_pull(allowed(p, this),
				    task_migration_disabled(p), hot_test,
				    tctx ? now - tctx->last_ran : ~0ULL, balance_cfg.migration_cost_ns))
			continue;
		/* seed 002: keep aggregated threads in their preferred LLC */
		if (!cache_allow_move(p, tctx, src, this, tctx ? tctx->util_avg : 0, now))
			continue;
		if (scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, SCX_DSQ_LOCAL, 0))
			return true;
	}
	return false;
}

/* ---- LB_IMBALANCE: the weighted-imbalance balancer (rules: policy.h) ---- */

/*
 * One balance attempt's working memory, per CPU: the groups of one level
 * (indexed by lb_slot), the local and busiest groups' copies, the
 * busiest CPU so far and the verdict. Everything a loop accumulates or
 * picks lives here, not in registers: the verifier then sees unknown
 * values read from memory instead of tracking each index exactly, and
 * checks each loop body once.
 */
struct lb_scratch {
	struct group_stats g[MAX_LLC_CPUS];
	u32 seen[MAX_LLC_CPUS];		/* g[i] belongs to this attempt if seen[i] == epoch */
	struct group_stats lg, bg;	/* local and busiest group */
	struct lb_cpu bc;		/* busiest CPU so far */
	struct lb_result res;		/* calculate_imbalance's verdict */
	u64 total_load, total_cap;	/* the level's sums (sds) */
	u32 epoch, nslots, span, lt, bt, pulled, scanned;
	s32 bslot, src;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct lb_scratch);
} lb_scratch_map SEC(".maps");

static __always_inline struct lb_scratch *lb_get_scratch(void)
{
	u32 key = 0;

	return bpf_map_lookup_elem(&lb_scratch_map, &key);
}

/* tasks one balance may pull and queued tasks it looks at (sched_nr_migrate is 32) */
#define LB_MAX_PULL	8
#define LB_LOOP_MAX	32

/*
 * The group of `cpu` at `level`, as a slot < MAX_LLC_CPUS: the groups a
 * level balances between are its child domains (sched_group): the CPU
 * itself at the SMT level (its index in the LLC), its core at the LLC
 * level (the core's first CPU in the LLC's list: the sibling ring ascends
 * and wraps there, policy.rs sib_ring), its LLC at the node level, its
 * node at the machine level.
 */
static __always_inline u32 lb_slot(s32 cpu, u32 level)
{
	u32 llc, self, j, m, k;

	if (level == LVL_NODE)
		return llc_of(cpu);
	if (level == LVL_MACHINE)
		return node_of(cpu);
	self = cpu_llc_idx[cpu & (MAX_CPUS - 1)] & (MAX_LLC_CPUS - 1);
	if (level == LVL_SMT)
		return self;
	llc = llc_of(cpu);
	j = self;
	m = self;
	bpf_for(k, 0, MAX_SMT) {
		j = llc_sib[llc][j & (MAX_LLC_CPUS - 1)];
		if (j == self)
			break;
		if (j < m)
			m = j;
	}
	return m & (MAX_LLC_CPUS - 1);
}

/* The k-th CPU of the span of `this`'s domain at `level` (to filter with in_level). */
static __always_inline s32 lb_span_cpu(u32 llc, u32 level, u32 k)
{
	return level <= LVL_LLC ? llc_cpus[llc & (MAX_LLCS - 1)][k & (MAX_LLC_CPUS - 1)] : (s32)k;
}

/* sd->imbalance_pct: 110 between SMT siblings, --imbalance-pct above (sd_init) */
static __always_inline u32 lb_imbalance_pct(u32 level)
{
	return level == LVL_SMT ? 110 : balance_cfg.imbalance_pct;
}

/*
 * update_sd_lb_stats() + sched_balance_find_src_group() +
 * find_busiest_queue() for `this` at one level: the CPU to pull from, or
 * -1 if the level is balanced; the verdict (what and how much to move) is
 * left in the scratch (res), and the level's CPU count in span. A global
 * function: the verifier checks it once, on its own, with scalar
 * arguments.
 */
__noinline int lb_find(s32 this, u32 level, u32 this_idle, u64 now)
{
	struct lb_scratch *s = lb_get_scratch();
	u32 llc, n, k, ep, pct, lslot;

	if (!s || !valid_cpu(this) || level >= NR_LEVELS)
		return -1;
	llc = llc_of(this);
	n = level <= LVL_LLC ? llc_nr_cpus[llc] : nr_cpus;
	pct = lb_imbalance_pct(level);
	s->epoch++;
	ep = s->epoch;
	s->nslots = 0;
	s->span = 0;
	s->total_load = 0;
	s->total_cap = 0;
	s->bslot = -1;
	s->src = -1;
	s->lt = 0;
	s->bt = 0;
	s->res.migration = MIGRATE_NONE;
	s->res.imbalance = 0;

	/* the groups' statistics, one pass over the level's CPUs */
	bpf_for(k, 0, MAX_CPUS) {
		struct group_stats *g;
		struct cpu_ctx *c;
		u64 load;
		u32 slot, cap;
		s32 cpu;

		if (k >= n)
			break;
		cpu = lb_span_cpu(llc, level, k);
		if (!valid_cpu(cpu) || !in_level(this, cpu, level) || !(c = lookup_cpu_ctx(cpu)))
			continue;
		slot = lb_slot(cpu, level) & (MAX_LLC_CPUS - 1);
		g = &s->g[slot];
		if (s->seen[slot] != ep) {
			s->seen[slot] = ep;
			__builtin_memset(g, 0, sizeof(*g));
			if (slot >= s->nslots)
				s->nslots = slot + 1;
		}
		load = cpu_load(c, now);
		cap = cpu_cap[cpu & (MAX_CPUS - 1)] ?: SCHED_CAPACITY_SCALE;
		g->load += load;
		g->runnable += load;
		g->util += cpu_util(c, now);
		g->capacity += cap;
		g->weight++;
		g->allowed++;
		g->nr_running += c->nr_running;
		if (c->idle && !c->nr_running)
			g->idle_cpus++;
		s->total_load += load;
		s->total_cap += cap;
		s->span++;
	}

	/* classify the groups, pick the busiest (update_sd_pick_busiest) */
	lslot = lb_slot(this, level) & (MAX_LLC_CPUS - 1);
	bpf_for(k, 0, MAX_LLC_CPUS) {
		struct group_stats *g;
		u32 t;

		if (k >= s->nslots)
			break;
		if (s->seen[k] != ep)
			continue;
		g = &s->g[k];
		t = arbor_group_type(g, pct);
		if (k == lslot) {
			s->lg = *g;
			s->lt = t;
			continue;
		}
		if (arbor_lb_group_busier(g, t, s->bslot >= 0 ? &s->bg : NULL, s->bt)) {
			s->bg = *g;
			s->bt = t;
			s->bslot = k;
		}
	}
	if (s->bslot < 0 || s->seen[lslot] != ep)
		return -1;
	arbor_lb_imbalance(&s->lg, s->lt, &s->bg, s->bt, s->total_load, s->total_cap, pct,
			   level <= LVL_LLC, this_idle,
			   level == LVL_MACHINE && nr_nodes > 1 ? node_imb_numa_nr[node_of(this)] : 0,
			   &s->res);
	if (s->res.migration == MIGRATE_NONE)
		return -1;

	/* find_busiest_queue(): the busiest CPU of the busiest group */
	bpf_for(k, 0, MAX_CPUS) {
		struct cpu_ctx *c;
		struct lb_cpu lc;
		s32 cpu;

		if (k >= n)
			break;
		cpu = lb_span_cpu(llc, level, k);
		if (cpu == this || !valid_cpu(cpu) || !in_level(this, cpu, level) ||
		    (s32)lb_slot(cpu, level) != s->bslot || !(c = lookup_cpu_ctx(cpu)))
			continue;
		lc.load = cpu_load(c, now);
		lc.util = cpu_util(c, now);
		lc.nr_running = c->nr_running;
		lc.cap = cpu_cap[cpu & (MAX_CPUS - 1)] ?: SCHED_CAPACITY_SCALE;
		if (arbor_lb_cpu_busier(s->res.migration, s->res.imbalance, &lc,
					s->src >= 0 ? &s->bc : NULL)) {
			s->bc = lc;
			s->src = cpu;
		}
	}
	return s->src;
}

/*
 * detach_tasks(): pull queued tasks from `src`, in deadline order, while
 * the imbalance lasts (at most LB_MAX_PULL, looking at LB_LOOP_MAX); each
 * must pass the checks of any pull (can_migrate_task, seed 002's cache
 * rule) and cover part of the imbalance (arbor_lb_task_share). Returns how
 * many it pulled. Global: verified once.
 */
__noinline int lb_detach(s32 this, s32 src, u32 level, u32 nr_failed, u64 now)
{
	struct lb_scratch *s = lb_get_scratch();
	struct task_struct *p;
	u32 dl;

	if (!s || !valid_cpu(this) || !valid_cpu(src))
		return 0;
	/*
	 * this CPU's LLC, read once here: read inside the loop, clang kept
	 * the address of cpu_llc[this] across it, whose bound the verifier
	 * had lost there ("R1 unbounded memory access", 7.2)
	 */
	dl = llc_of(this);
	s->pulled = 0;
	s->scanned = 0;
	bpf_for_each(scx_dsq, p, cpu_dsq(src), 0) {
		struct task_ctx *tctx;
		u64 share, imb = s->res.imbalance;

		if (s->pulled >= LB_MAX_PULL || !imb || ++s->scanned > LB_LOOP_MAX)
			break;
		tctx = lookup_task_ctx(p);
		if (!tctx ||
		    !arbor_can_pull(allowed(p, this),
				    task_migration_disabled(p), level > LVL_LLC,
				    now - tctx->last_ran, balance_cfg.migration_cost_ns))
			continue;
		share = arbor_lb_task_share(s->res.migration, imb, task_load(p, tctx),
					    tctx->util_avg, nr_failed);
		if (!share || !cache_allow_llc(p, tctx, src, this, dl, tctx->util_avg, now))
			continue;
		if (scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, SCX_DSQ_LOCAL, 0)) {
			s->pulled++;
			s->res.imbalance = share < imb ? imb - share : 0;
		}
	}
	return s->pulled;
}

/*
 * Seed 002 (CACHE_LB), the cache-aware balancing move: migrate_llc_task.
 * When the level just above the LLC is balanced, the seed's balancer
 * still moves one task (calculate_imbalance: imbalance = 1) from a group
 * holding tasks that prefer the destination's LLC (group_llc_balance),
 * provided can_migrate_llc allows it. Here: take from src's queue the
 * first task, in deadline order, whose process prefers this CPU's LLC and
 * that arbor_cache_lb_task lets in (LLC_LB_PULL), if it is not cache-hot.
 * It goes to this CPU if it may run here, else to a CPU of this LLC it may
 * run on, an idle one first (can_migrate_task's LBF_DST_PINNED: the
 * kernel retries with new_dst_cpu, a CPU of the local group the task
 * allows), which is kicked. Returns 1 if it moved one. Global: verified
 * once.
 */
__noinline int lb_llc_pull_from(s32 this, s32 src, u64 now)
{
	struct lb_scratch *s = lb_get_scratch();
	struct task_struct *p;
	u32 sl, dl;

	if (!s || !valid_cpu(this) || !valid_cpu(src))
		return 0;
	sl = llc_of(src);
	dl = llc_of(this);
	if (sl == dl)
		return 0;
	s->scanned = 0;
	bpf_for_each(scx_dsq, p, cpu_dsq(src), 0) {
		struct task_ctx *tctx;
		s32 dst = this, k, busy = -1;

		if (++s->scanned > LB_LOOP_MAX)
			break;
		tctx = lookup_task_ctx(p);
		if (!tctx ||
		    !arbor_can_pull(true, task_migration_disabled(p), true, now - tctx->last_ran,
				    balance_cfg.migration_cost_ns))
			continue;
		if (cache_lb_verdict(p, tctx, sl, dl, tctx->util_avg, now) != LLC_LB_PULL)
			continue;
		if (!allowed(p, this)) {
			dst = -1;
			bpf_for(k, 0, MAX_LLC_CPUS) {
				struct cpu_ctx *c;
				s32 cpu;

				if (k >= llc_nr_cpus[dl & (MAX_LLCS - 1)])
					break;
				cpu = llc_cpus[dl & (MAX_LLCS - 1)][k];
				if (!allowed(p, cpu))
					continue;
				if ((c = lookup_cpu_ctx(cpu)) && c->idle) {
					dst = cpu;
					break;
				}
				if (busy < 0)
					busy = cpu;
			}
			if (dst < 0)
				dst = busy;
			if (dst < 0)
				continue;
		}
		/* the merged series' capacity rule (policy.h arbor_cache_makes_misfit) */
		if (cache_makes_misfit(tctx, src, dst)) {
			stat_inc(STAT_LLC_MIGRATIONS_REFUSED);
			continue;
		}
		if (dst == this) {
			if (scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, SCX_DSQ_LOCAL, 0))
				return 1;
		} else if (scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, SCX_DSQ_LOCAL_ON | dst, 0)) {
			scx_bpf_kick_cpu(dst, 0);
			return 1;
		}
	}
	return 0;
}

/*
 * The sources for lb_llc_pull_from: the CPUs with queued tasks in the
 * other LLCs of this node (the seed balances LLCs only in the domain just
 * above the LLC, never across NUMA nodes: llc_balance() skips SD_NUMA),
 * LLCs with no CPU running two tasks skipped by their summary
 * (llc_overloaded). The first that yields a task ends the pass (the seed
 * takes the group, then the CPU, with the most tasks preferring the
 * destination; we take the first in CPU order: a simplification). Returns
 * 1 if it pulled. Global: verified once.
 */
__noinline int lb_llc_pull(s32 this, u64 now)
{
	u32 dl, node, k;

	if (!valid_cpu(this))
		return 0;
	dl = llc_of(this);
	node = node_of(this);
	bpf_for(k, 0, MAX_CPUS) {
		u32 l;

		if (k >= nr_cpus)
			break;
		l = llc_of(k) & (MAX_LLCS - 1);
		if (l == dl || llc_node[l] != node || READ_ONCE(llc_overloaded[l].nr) <= 0 ||
		    scx_bpf_dsq_nr_queued(cpu_dsq(k)) <= 0)
			continue;
		if (lb_llc_pull_from(this, k, now) > 0)
			return 1;
	}
	return 0;
}

/*
 * sched_balance_domains() / sched_balance_rq() for `this`, bottom-up,
 * each level only once its interval has passed since its last balance
 * (arbor_lb_interval, taken as the kernel does at the time of the check,
 * busy or idle: a CPU that goes idle balances at the idle interval at
 * once); stops at the first level that pulls. An idle CPU that finds an
 * imbalance only a lone running task could fix, after failing more than
 * cache_nice_tries + 2 times (arbor_need_active_balance), asks that CPU
 * for its task: push_to names us, and a preempting kick makes its
 * dispatch send the task here (lb_push_running). Returns how many tasks
 * it pulled. Global: verified once; lb_find and lb_detach are calls.
 */
__noinline int lb_balance(s32 this, u32 this_idle)
{
	struct cpu_ctx *cc = lookup_cpu_ctx(this), *sc;
	struct lb_scratch *s;
	/*
	 * one clock read for the whole pass, passed to lb_find, lb_detach and
	 * lb_llc_pull: a read of their own would be later only by this pass's
	 * run time so far, which the loads' extrapolation (PELT, 32 ms
	 * half-life) and the cache-hot test (migration_cost, 500 us) cannot
	 * tell from none
	 */
	u64 now = bpf_ktime_get_ns(), due;
	u32 level;

	if (!cc)
		return 0;
	cc->lb_due = ~0ULL;
	bpf_for(level, 0, NR_LEVELS) {
		u32 lv = level & (NR_LEVELS - 1), nr_failed;
		s32 src;
		int pulled;

		if (level == LVL_SMT && smt_width <= 1)
			continue;
		if (level == LVL_NODE && nr_nodes <= 1)
			continue;
		if (now < cc->lb_last[lv] + arbor_lb_interval(cc->lb_span[lv], balance_cfg.interval_ns,
							      !this_idle, nr_cpus)) {
			due = cc->lb_last[lv] + arbor_lb_interval(cc->lb_span[lv],
								  balance_cfg.interval_ns, false,
								  nr_cpus);
			if (due < cc->lb_due)
				cc->lb_due = due;
			continue;
		}
		cc->lb_last[lv] = now;
		src = lb_find(this, level, this_idle, now);
		s = lb_get_scratch();
		if (s)
			cc->lb_span[lv] = s->span;
		due = now + arbor_lb_interval(cc->lb_span[lv], balance_cfg.interval_ns, false, nr_cpus);
		if (due < cc->lb_due)
			cc->lb_due = due;
		if (src < 0) {
			/* out_balanced */
			cc->lb_failed[lv] = 0;
			/*
			 * seed 002: balanced just above the LLC, cache-aware
			 * balancing may still pull a task into its preferred LLC
			 */
			if (cache_lb_on() && level == (nr_nodes > 1 ? LVL_NODE : LVL_MACHINE) &&
			    lb_llc_pull(this, now) > 0) {
				stat_inc(STAT_LLC_LB_MOVES);
				return 1;
			}
			continue;
		}
		nr_failed = cc->lb_failed[lv];
		pulled = lb_detach(this, src, level, nr_failed, now);
		if (pulled > 0) {
			cc->lb_failed[lv] = 0;
			stat_add(STAT_LB_PULLS, pulled);
			return pulled;
		}
		/* periodic balance only (no newidle here): count the failure */
		cc->lb_failed[lv] = ++nr_failed;
		sc = lookup_cpu_ctx(src);
		if (sc && arbor_need_active_balance(nr_failed, level, this_idle, sc->nr_running,
						    scx_bpf_dsq_nr_queued(cpu_dsq(src)) > 0) &&
		    __sync_val_compare_and_swap(&sc->push_to, 0, this + 1) == 0) {
			/* the kernel's "force task migration": cache_nice_tries + 1 */
			cc->lb_failed[lv] = (level > LVL_LLC ? 2 : 1) + 1;
			scx_bpf_kick_cpu(src, SCX_KICK_PREEMPT);
			return 0;
		}
	}
	return 0;
}

/*
 * On the busiest CPU, in dispatch: an idle CPU asked for our running task
 * (active_load_balance_cpu_stop). If prev may go there and the asker is
 * still idle, name it as the task's move_cpu: enqueue() then queues it on
 * that CPU and kicks it (as the tick's misfit and cache moves do).
 */
static __always_inline void lb_push_running(s32 cpu, struct cpu_ctx *cc,
					    struct task_struct *prev, bool prev_runnable)
{
	struct task_ctx *tctx;
	struct cpu_ctx *dc;
	u32 to = cc->push_to;
	s32 dst;

	cc->push_to = 0;
	dst = (s32)to - 1;
	if (!prev || !prev_runnable || !valid_cpu(dst) || dst == cpu ||
	    task_migration_disabled(prev) || !allowed(prev, dst))
		return;
	tctx = lookup_task_ctx(prev);
	dc = lookup_cpu_ctx(dst);
	if (!tctx || !dc || tctx->move_cpu >= 0 || !dc->idle)
		return;
	if (!cache_allow_move(prev, tctx, cpu, dst, tctx->util_avg, bpf_ktime_get_ns()))
		return;
	tctx->move_cpu = dst;
	stat_inc(STAT_LB_ACTIVE);
}

/*
 * Walk the levels bottom-up; stop at the first pull. For PULL_NEWIDLE, as
 * sched_balance_newidle(): each level must fit in the expected idle time
 * (policy.h: arbor_newidle_level_ok); with NI_RANDOM a level is tried only
 * in proportion to its recent success rate (arbor_newidle_dice), and the
 * cost of each try is measured into the level's max_newidle_lb_cost
 * (arbor_newidle_cost_update), which decays ~1% per second.
 */
static __always_inline bool balance(s32 this, struct cpu_ctx *cc, enum pull_kind kind, bool *tried)
{
	u64 t0 = bpf_ktime_get_ns(), spent = 0;
	bool newidle = kind == PULL_NEWIDLE;
	u32 level;

	*tried = false;
	/* the kernel decays max_newidle_lb_cost from its periodic visit of each domain */
	bpf_for(level, 0, NR_LEVELS)
		arbor_newidle_cost_update(&cc->lvl_cost[level & (NR_LEVELS - 1)],
					  &cc->lvl_decay_ts[level & (NR_LEVELS - 1)], 0, t0);

	bpf_for(level, 0, NR_LEVELS) {
		u32 busiest_nr, lv = level & (NR_LEVELS - 1), weight = 1;
		bool pulled, forced = false;
		s32 src;
		u64 t1, cost;

		if (level == LVL_SMT && smt_width <= 1)
			continue;
		if (level == LVL_NODE && nr_nodes <= 1)
			continue;
		if (newidle) {
			bool cost_ok = arbor_newidle_level_ok(cc->avg_idle, spent, cc->lvl_cost[lv]);

			if (cost_ok && feat(FEAT_NI_RANDOM))
				weight = arbor_newidle_dice(cc->ni_ratio[lv], arbor_rng_next(&cc->rng));
			/*
			 * IDLE_PULL (policy.h): try a level within the LLC (or
			 * a node of small LLCs) anyway; the baseline's statistics
			 * as if skipped
			 */
			switch (arbor_newidle_level(feat(FEAT_IDLE_PULL),
						    arbor_idle_pull_level(level, nr_nodes,
									  node_nr_llcs[node_of(this) &
										       (MAX_NODES - 1)]),
						    cost_ok, weight)) {
			case NI_STOP:
				if (!*tried)
					stat_inc(STAT_NEWIDLE_GATED);
				goto out;
			case NI_SKIP:
				arbor_newidle_stats(&cc->ni_call[lv], &cc->ni_success[lv],
						    &cc->ni_ratio[lv], 0);
				continue;
			case NI_FORCE:
				if (cost_ok)
					arbor_newidle_stats(&cc->ni_call[lv], &cc->ni_success[lv],
							    &cc->ni_ratio[lv], 0);
				forced = true;
				break;
			default:
				forced = false;
				break;
			}
		}

		*tried = true;
		src = find_busiest(this, level, &busiest_nr, kind == PULL_KICKED);
		pulled = false;
		if (src >= 0 && (kind != PULL_BUSY || busiest_nr >= cc->nr_running + 2))
			/* cache-hot tasks: policy.h arbor_pull_hot_test */
			pulled = pull_from(this, src, level, arbor_pull_hot_test(level, forced), t0);

		t1 = bpf_ktime_get_ns();
		cost = t1 - t0;
		spent += cost;
		t0 = t1;
		if (newidle) {
			arbor_newidle_cost_update(&cc->lvl_cost[lv], &cc->lvl_decay_ts[lv], cost, t1);
			if (cost && !forced)
				arbor_newidle_stats(&cc->ni_call[lv], &cc->ni_success[lv],
						    &cc->ni_ratio[lv], pulled ? weight : 0);
		}
		if (pulled) {
			if (forced)
				stat_inc_on(this, STAT_IDLE_PULLS);
			return true;
		}
	}
out:
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
			lc->nr_idle_scan = arbor_sis_util_nr_scan(n, sum, balance_cfg.imbalance_pct);
		}
	}
}

/*
 * The LLCs with an idle CPU, from the per-LLC summary (llc_ctx.nr_busy),
 * read once per timer run: O(LLCs). Returns how many. The bitmap lives in
 * global data, not on the stack: a variable-offset stack access makes the
 * verifier track the index exactly and walk the loop iteration by
 * iteration ("sequence of jumps too complex"). One timer: one copy.
 */
static u64 timer_idle_llcs[LLCS_MASK_WORDS];

static __always_inline u64 idle_llcs_mask(u64 *mask)
{
	u64 any = 0;
	u32 i;

	bpf_for(i, 0, LLCS_MASK_WORDS)
		mask[i] = 0;
	bpf_for(i, 0, MAX_LLCS) {
		struct llc_ctx *lc;

		if (i >= nr_llcs)
			break;
		lc = lookup_llc_ctx(i);
		if (lc && READ_ONCE(lc->nr_busy) < (s32)llc_nr_cpus[i])
			arbor_mask_set(mask, LLCS_MASK_WORDS, i);
	}
	/*
	 * read back from memory, not counted in a register: an exact counter
	 * would split the verifier's states once per value
	 */
	bpf_for(i, 0, LLCS_MASK_WORDS)
		any |= mask[i];
	return any;
}

/* An idle CPU (our own flag) of LLC `llc`, lowest id first, other than `skip`'s core; -1 if none. */
static __always_inline s32 idle_in_llc(u32 llc, s32 skip, const u64 *idle_llcs)
{
	u32 core = cpu_core[skip & (MAX_CPUS - 1)], k;

	/* the per-LLC summary: every CPU busy, nothing to look at */
	if (!arbor_mask_test(idle_llcs, LLCS_MASK_WORDS, llc))
		return -1;
	bpf_for(k, 0, MAX_LLC_CPUS) {
		struct cpu_ctx *ic;
		s32 c;

		if (k >= llc_nr_cpus[llc & (MAX_LLCS - 1)])
			break;
		c = llc_cpus[llc & (MAX_LLCS - 1)][k];
		if (!valid_cpu(c) || cpu_core[c & (MAX_CPUS - 1)] == core)
			continue;
		if ((ic = lookup_cpu_ctx(c)) && ic->idle)
			return c;
	}
	return -1;
}

/*
 * The nearest idle CPU to `busy` (SMT sibling, then its LLC, then its node,
 * then the machine; within a level the lowest id of the first LLC, in LLC
 * order, that has one, as the kernel's find_new_ilb() takes the first idle
 * CPU it finds), found level by level as
 * find_busiest() walks them: the core's sibling ring, the LLC's list, then
 * LLC by LLC, skipping LLCs whose summary says no CPU is idle (idle_llcs,
 * read once per timer run). The timer calls it for every CPU with queued
 * work; scanning every CPU for each of them made the timer O(n^2).
 */
static __always_inline void kick_idle_near(s32 busy, const u64 *idle_llcs)
{
	u32 llc = llc_of(busy), node = node_of(busy), self, j, i, lvl;
	s32 best = -1, c;

	/* SMT: the core's other threads, if the LLC has an idle CPU at all */
	self = cpu_llc_idx[busy & (MAX_CPUS - 1)];
	j = self;
	bpf_for(i, 0, MAX_SMT) {
		struct cpu_ctx *ic;

		if (!arbor_mask_test(idle_llcs, LLCS_MASK_WORDS, llc))
			break;
		j = llc_sib[llc][j & (MAX_LLC_CPUS - 1)];
		if (j == self || j >= llc_nr_cpus[llc])
			break;
		c = llc_cpus[llc][j & (MAX_LLC_CPUS - 1)];
		if (valid_cpu(c) && (ic = lookup_cpu_ctx(c)) && ic->idle && (best < 0 || c < best))
			best = c;
	}
	/* LLC */
	if (best < 0)
		best = idle_in_llc(llc, busy, idle_llcs);
	/*
	 * node (lvl 0), then the rest of the machine (lvl 1): the first LLC
	 * whose summary has an idle CPU, picked by its bit alone, then that
	 * LLC's lowest idle CPU. Loops one after the other, not nested: the
	 * verifier checks nested loops per outer state, which was too complex.
	 */
	if (best < 0) {
		s32 tgt = -1;

		bpf_for(i, 0, 2 * MAX_LLCS) {
			u32 l = i % MAX_LLCS;

			lvl = i / MAX_LLCS;
			if (l >= nr_llcs || l == llc || (lvl == 0) != (llc_node[l] == node) ||
			    !arbor_mask_test(idle_llcs, LLCS_MASK_WORDS, l))
				continue;
			tgt = l;
			break;
		}
		if (tgt >= 0)
			best = idle_in_llc(tgt, busy, idle_llcs);
	}
	if (best >= 0) {
		struct cpu_ctx *c = lookup_cpu_ctx(best);

		if (c)
			c->balance_req |= BAL_REQ_PULL;
		scx_bpf_kick_cpu(best, SCX_KICK_IDLE);
		stat_inc(STAT_PERIODIC_KICKS);
	}
}

/*
 * LB_IMBALANCE: idle CPUs balance too. The kernel's nohz idle balancer
 * (nohz_balancer_kick / find_new_ilb) wakes one idle CPU to run
 * sched_balance_rq on behalf of all idle CPUs when some run-queue has a
 * task waiting (nr_running >= 2) or an LLC has more than one busy CPU
 * (sds->nr_busy_cpus > 1). Here, on the same conditions, the timer kicks
 * one idle CPU of LLC `llc` (rotating by `rot`) whose balance interval has
 * passed (lb_due), to balance for itself. Global: verified once, apart
 * from the timer.
 */
__noinline int lb_kick_llc(u32 llc, u32 rot)
{
	u64 now = bpf_ktime_get_ns();
	u32 n, k;

	if (llc >= nr_llcs || llc >= MAX_LLCS)
		return 0;
	n = llc_nr_cpus[llc];
	if (!n || n > MAX_LLC_CPUS)
		return 0;
	bpf_for(k, 0, MAX_LLC_CPUS) {
		struct cpu_ctx *c;
		s32 cpu;

		if (k >= n)
			break;
		cpu = llc_cpus[llc][((k + rot) % n) & (MAX_LLC_CPUS - 1)];
		if (!valid_cpu(cpu) || !(c = lookup_cpu_ctx(cpu)) || !c->idle || c->balance_req ||
		    now < c->lb_due)
			continue;
		c->balance_req |= BAL_REQ_LB;
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		return 1;
	}
	return 0;
}

/* May something need balancing (nohz_balancer_kick's tests, summarised)? */
static __always_inline bool lb_need_idle_balance(void)
{
	u32 llc;

	if (READ_ONCE(nr_overloaded))
		return true;
	bpf_for(llc, 0, MAX_LLCS) {
		struct llc_ctx *lc;

		if (llc >= nr_llcs)
			break;
		lc = lookup_llc_ctx(llc);
		if (lc && READ_ONCE(lc->nr_busy) > 1)
			return true;
	}
	return false;
}

static u32 lb_rotor;

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

/* One periodic pass (the timer's, or on PREEMPT_RT a tick's: see below). */
static __always_inline void periodic_pass(u64 now)
{
	u64 *idle_llcs = timer_idle_llcs;
	u32 i;

	gap_sample(now);
	refresh_llc_scan(now);
	/* no LLC has an idle CPU: nobody to kick, skip the per-CPU pass */
	if (idle_llcs_mask(idle_llcs)) {
		bpf_for(i, 0, MAX_CPUS) {
			if (i >= nr_cpus)
				break;
			if (scx_bpf_dsq_nr_queued(cpu_dsq(i)) > 0)
				kick_idle_near(i, idle_llcs);
		}
		if (feat(FEAT_LB_IMBALANCE) && lb_need_idle_balance()) {
			u32 rot = lb_rotor++;

			bpf_for(i, 0, MAX_LLCS) {
				if (i >= nr_llcs)
					break;
				if (arbor_mask_test(idle_llcs, LLCS_MASK_WORDS, i))
					lb_kick_llc(i, rot);
			}
		}
	}
}

static int balance_timerfn(void *map, int *key, struct bpf_timer *timer)
{
	if (timer_stop)
		return 0;
	periodic_pass(bpf_ktime_get_ns());
	bpf_timer_start(timer, balance_cfg.interval_ns, 0);
	return 0;
}

/*
 * PREEMPT_RT: the verifier refuses bpf_timer on such a kernel ("bpf_timer
 * cannot be used for PREEMPT_RT", kernel/bpf/verifier.c; seen on Debian's
 * 7.2.13-rt, where scx_arbor did not load at all). There the periodic pass
 * runs from ops.tick instead: the first tick, on any CPU, past the due
 * time takes it (one CPU wins the cmpxchg). The kernel's own periodic
 * balancing is tick-driven too (sched_balance_trigger from sched_tick).
 * Idle CPUs take no tick (nohz), but while every CPU is idle no queue
 * waits for a kick. CONFIG_PREEMPT_RT is a __kconfig extern: libbpf fills
 * it from the kernel's config into a frozen read-only map, so the verifier
 * knows it and never walks the branch this kernel does not take (the timer
 * calls on RT, the tick pass elsewhere).
 */
extern bool CONFIG_PREEMPT_RT __kconfig __weak;
static u64 periodic_due;

static __always_inline void maybe_periodic_from_tick(void)
{
	u64 now, due;

	if (!timer_go || timer_stop)
		return;
	now = bpf_ktime_get_ns();
	due = periodic_due;
	if (now < due ||
	    __sync_val_compare_and_swap(&periodic_due, due, now + balance_cfg.interval_ns) != due)
		return;
	periodic_pass(now);
}

/* Called from ops.tick (not on PREEMPT_RT): starts the timer once user space said go. */
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
	err = bpf_timer_start(timer, balance_cfg.interval_ns, 0);
	return err;
}

#endif /* __ARBOR_BALANCE_BPF_H */
