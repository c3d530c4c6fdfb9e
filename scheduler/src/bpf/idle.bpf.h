/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: where a waking or new task goes (baseline: select_task_rq_fair).
 *
 * This file gathers live state (idle masks, loads, hints) and hands it to the
 * pure rules of policy.h; it holds no decision of its own beyond the order in
 * which the kernel asks its questions.
 */
#ifndef __ARBOR_IDLE_BPF_H
#define __ARBOR_IDLE_BPF_H

#include "common.bpf.h"
#include "load.bpf.h"
#include "capacity.bpf.h"

/*
 * WAKE_NODE and SIS_NODE: per node, its CPUs not idle (moved with the LLCs' nr_busy on
 * every idle <-> busy transition, main.bpf.c llc_busy_add) and its CPU
 * count (set at init). One cache line per node, like llc_overloaded.
 */
struct node_busy_ctx {
	s32 nr;
	u32 cpus;
	u8 pad[56];
};
struct node_busy_ctx node_busy[MAX_NODES];

/*
 * has_idle_cores hint (baseline: set_idle_cores/test_idle_cores). Set when a
 * CPU goes idle and finds its whole core idle, cleared when a scan for an
 * idle core comes back empty. It saves a full-LLC core scan on busy LLCs.
 */
static __always_inline void update_idle_core_hint(s32 cpu)
{
	u32 llc = llc_of(cpu), self = cpu_llc_idx[cpu & (MAX_CPUS - 1)], j = self, k;
	struct llc_ctx *lc;

	/* the core's other threads only (kernel: for_each_cpu(cpu_smt_mask(core))) */
	bpf_for(k, 0, MAX_SMT) {
		struct cpu_ctx *sc;
		s32 sib;

		j = llc_sib[llc][j & (MAX_LLC_CPUS - 1)];
		if (j == self || j >= llc_nr_cpus[llc])
			break;
		sib = llc_cpus[llc][j & (MAX_LLC_CPUS - 1)];
		if (!valid_cpu(sib))
			continue;
		sc = lookup_cpu_ctx(sib);
		if (!sc || !sc->idle)
			return;
	}
	lc = lookup_llc_ctx(llc);
	if (lc && !lc->has_idle_cores)
		lc->has_idle_cores = 1;
}

/*
 * Fill the scratch's snapshot with an LLC's layout (ids, cores, sibling
 * ring), no CPU marked. The layout is rodata: if the scratch (per CPU)
 * already holds this LLC's, only the idle bits are cleared.
 */
static __always_inline void snapshot_llc_topo(struct scratch *sc, u32 llc)
{
	struct llc_snapshot *s = &sc->snap;
	u32 n = llc_nr_cpus[llc & (MAX_LLCS - 1)], i;

	s->nr = n < MAX_LLC_CPUS ? n : MAX_LLC_CPUS;
	/* the words the LLC's CPUs use, not LLC_MASK_WORDS: one on small machines */
	bpf_for(i, 0, LLC_MASK_WORDS) {
		if (i * 64 >= s->nr)
			break;
		s->idle_mask[i] = 0;
	}
	if (sc->snap_llc1 == (llc & (MAX_LLCS - 1)) + 1)
		return;
	sc->snap_llc1 = (llc & (MAX_LLCS - 1)) + 1;
	s->smt_width = smt_width;
	bpf_for(i, 0, MAX_LLC_CPUS) {
		s32 c;

		if (i >= s->nr)
			break;
		c = llc_cpus[llc & (MAX_LLCS - 1)][i];
		s->cpu[i] = c;
		s->core[i] = valid_cpu(c) ? cpu_core[c & (MAX_CPUS - 1)] : (u32)-1;
		s->sib[i] = llc_sib[llc & (MAX_LLCS - 1)][i];
	}
}

/*
 * Mark the idle CPUs p may use among the `len` indices after `start`
 * (wrapping), from the wake-up's copy of the idle mask: only those the
 * scan may visit are tested, as the kernel's select_idle_cpu() tests only
 * the CPUs it scans. A task
 * allowed everywhere skips the affinity test (the kernel's cpumask_and
 * with cpus_ptr).
 */
static __always_inline void snapshot_llc_idle(struct llc_snapshot *s, const struct task_struct *p,
					      const u64 *ib, u32 start, u32 len)
{
	bool any = allowed_everywhere(p);
	u32 k;

	bpf_for(k, 0, MAX_LLC_CPUS) {
		u32 i;
		s32 c;

		if (k >= len || k >= s->nr || !s->nr)
			break;
		i = ((start + k) % s->nr) & (MAX_LLC_CPUS - 1);
		c = s->cpu[i];
		if (idle_bit(ib, c) && (any || allowed(p, c)))
			arbor_mask_set(s->idle_mask, LLC_MASK_WORDS, i);
	}
}

/*
 * SIS_NODE (ours, policy.h arbor_sis_node_pick): the nearest idle CPU of
 * target's node, from prev (arbor_sis_node_from), that has been idle for
 * the migration cost already (arbor_sis_node_idle_ok) among the
 * SIS_NODE_TRIES nearest, else the nearest idle one, read from the
 * wake-up's copy of the idle mask (copy_idle_mask, taken by select_cpu on
 * `this`); -1 if none. No helper or kfunc call: the CPU contexts and the
 * node bitmaps are global data. A rejected
 * candidate is cleared from the copy, which the wake-up reads no more
 * after this search. Not claimed: select_cpu's
 * scx_bpf_test_and_clear_cpu_idle() does that, as for every idle CPU
 * found. A global function, verified once, off the common path (only
 * wake-ups that found no idle CPU in their LLC come here).
 */
__noinline s32 arbor_sis_node(s32 this, s32 target, s32 prev, u64 now)
{
	u32 n = mask_words(), node, k, me = this, t = target, pv = prev, from;
	s32 cpu, nearest;
	u64 *ib;

	if (me >= MAX_CPUS || t >= MAX_CPUS || pv >= MAX_CPUS)
		return -1;
	/*
	 * As lookup_cpu_ctx: the verifier bounds the register each index is
	 * computed from; without the barriers clang drops the masks below
	 * (the test above told it they are no-ops) and indexes with a copy
	 * the verifier has no bound for ("unbounded memory access", 7.2.13,
	 * 1s2d2c2t).
	 */
	barrier_var(me);
	barrier_var(t);
	barrier_var(pv);
	ib = wake_idle[me & (MAX_CPUS - 1)].w;
	node = cpu_node[t & (MAX_CPUS - 1)] & (MAX_NODES - 1);
	from = arbor_sis_node_from(target, prev, node, cpu_node[pv & (MAX_CPUS - 1)]);
	/*
	 * The nearest idle CPU, the answer when no candidate has been idle
	 * for the migration cost; picked before the loop, which then starts
	 * from it again, so that the loop carries no value from one round to
	 * the next (the verifier explores a loop once per distinct state at
	 * its head: a running choice made select_cpu's verification 7x
	 * longer)
	 */
	nearest = arbor_sis_node_pick(ib, node_cpus[node], n, from);
	if (nearest < 0 || nearest >= MAX_CPUS)
		return -1;
	bpf_for(k, 0, SIS_NODE_TRIES) {
		struct cpu_ctx *c;

		cpu = arbor_sis_node_pick(ib, node_cpus[node], n, from);
		if (cpu < 0 || cpu >= MAX_CPUS)
			break;
		c = lookup_cpu_ctx(cpu);
		if (c && arbor_sis_node_idle_ok(c->idle_stamp, now, balance_cfg.migration_cost_ns))
			return cpu;
		arbor_mask_clear(ib, CPU_MASK_WORDS, cpu);
	}
	/* none idle for the migration cost among them: the nearest idle one */
	return nearest;
}

/*
 * select_idle_sibling() (baseline), steps 1-8; on asymmetric machines with
 * ASYM_IDLE_CAPACITY, steps 1, 2 and 4 also require the task to fit, and
 * step 5 (select_idle_capacity) ends the search. Returns a CPU;
 * *found_idle tells whether the CPU was idle when chosen.
 */
/*
 * The caller (select_cpu, running on `this`, woken by `cur`) passes what it
 * already has: its copy of the idle mask `ib` (copy_idle_mask), which
 * every idle test here reads, and this CPU's
 * context if it looked it up (else NULL). Counters go to `this`'s row.
 */
static __always_inline s32 select_idle_sibling(struct task_struct *p, struct task_ctx *tctx,
					       s32 prev, s32 target, bool *found_idle, s32 this,
					       struct task_struct *cur, struct cpu_ctx *tc,
					       const u64 *ib, u64 now)
{
	struct scratch *sc;
	struct llc_ctx *lc;
	s32 recent, cpu = -1;
	u32 tn;
	u8 clear_hint = 0, found_core = 0;
	bool has_idle_core = false;

	bool asym_idle = asym && feat(FEAT_ASYM_IDLE_CAPACITY);

	*found_idle = false;

	/* 1. target itself if idle */
	if (idle_bit(ib, target) && allowed(p, target) &&
	    (!asym_idle || task_fits(tctx, target))) {
		cpu = target;
		goto found;
	}
	/* 2. prev, if it shares target's cache and is idle */
	if (prev != target && share_llc(prev, target) && idle_bit(ib, prev) &&
	    allowed(p, prev) && (!asym_idle || task_fits(tctx, prev))) {
		cpu = prev;
		goto found;
	}
	/*
	 * SIS_IDLE_GROUP (kernels 3.9-4.8, for seed-era baselines): steps 3-7
	 * did not exist; after target and prev came only the group walk of
	 * policy.h arbor_select_idle_group (an idle core, else target's idle
	 * sibling), and otherwise target.
	 */
	if (!asym_idle && feat(FEAT_SIS_IDLE_GROUP)) {
		sc = get_scratch();
		if (!sc)
			return target;
		snapshot_llc_topo(sc, llc_of(target));
		snapshot_llc_idle(&sc->snap, p, ib, 0, sc->snap.nr);
		cpu = arbor_select_idle_group(&sc->snap, target, &found_core);
		if (cpu < 0) {
			stat_inc_on(this, STAT_NOFOUND_IDLE);
			return target;
		}
		stat_inc_on(this, found_core ? STAT_FOUND_IDLE_CORE : STAT_FOUND_IDLE_CPU);
		*found_idle = true;
		return cpu;
	}
	/*
	 * 3. a per-CPU kthread woke us on prev and is about to sleep (e.g. an
	 *    IO completion): prev will be free in a moment, stay there.
	 */
	if ((cur->flags & PF_KTHREAD) && cur->nr_cpus_allowed == 1 && prev == this) {
		struct cpu_ctx *c = tc ?: lookup_cpu_ctx(this);

		if (c && c->nr_running <= 1 && allowed(p, prev))
			return prev;
	}
	/* 4. the CPU the task used before prev, if it is cache-near and idle */
	recent = tctx->recent_used_cpu;
	tctx->recent_used_cpu = prev;
	if (recent != prev && recent != target && valid_cpu(recent) &&
	    share_llc(recent, target) && idle_bit(ib, recent) && allowed(p, recent) &&
	    (!asym_idle || task_fits(tctx, recent))) {
		cpu = recent;
		goto found;
	}

	/* 5. asymmetric capacity (mainline): the first idle CPU that fits */
	if (asym_idle) {
		cpu = select_idle_capacity(p, tctx, ib, target);
		if (cpu >= 0) {
			stat_inc_on(this, STAT_CAPACITY_PLACEMENTS);
			stat_inc_on(this, STAT_FOUND_IDLE_CPU);
			*found_idle = true;
			return cpu;
		}
		stat_inc_on(this, STAT_NOFOUND_IDLE);
		return target;
	}

	lc = lookup_llc_ctx(llc_of(target));
	if (!lc)
		return target;
	/*
	 * Nothing idle anywhere: steps 6, 7 and SIS_NODE can only fail, and
	 * step 7's scan for a core would then clear the LLC's idle-core hint
	 * (the kernel's set_idle_cores(target, false); not when SIS_UTIL
	 * skips the scan: arbor_select_idle_cpu): the same end, without the
	 * scan's scratch space.
	 */
	if (idle_none(ib)) {
		if (smt_width > 1 && lc->has_idle_cores &&
		    !(feat(FEAT_SIS_UTIL) && lc->nr_idle_scan == 0))
			lc->has_idle_cores = 0;
		stat_inc_on(this, STAT_NOFOUND_IDLE);
		return target;
	}
	sc = get_scratch();
	if (!sc)
		return target;

	/* 6. with SMT and no idle core anywhere: prev's idle sibling */
	if (smt_width > 1) {
		has_idle_core = lc->has_idle_cores;
		if (!has_idle_core && share_llc(prev, target)) {
			u32 llc = llc_of(prev), self = cpu_llc_idx[prev & (MAX_CPUS - 1)];
			u32 j = self, i;

			/* prev's core only, through the sibling ring: O(SMT width) */
			bpf_for(i, 0, MAX_SMT) {
				s32 c;

				j = llc_sib[llc][j & (MAX_LLC_CPUS - 1)];
				if (j == self || j >= llc_nr_cpus[llc])
					break;
				c = llc_cpus[llc][j & (MAX_LLC_CPUS - 1)];
				if (valid_cpu(c) && idle_bit(ib, c) && allowed(p, c)) {
					cpu = c;
					goto found;
				}
			}
		}
	}

	/* 7. scan the LLC (policy.h: arbor_select_idle_cpu) */
	{
		u32 llc = llc_of(target), start = cpu_llc_idx[target & (MAX_CPUS - 1)] + 1;

		snapshot_llc_topo(sc, llc);
		snapshot_llc_idle(&sc->snap, p, ib, start,
				  arbor_sis_scan_len(sc->snap.nr, has_idle_core,
						     feat(FEAT_SIS_UTIL), lc->nr_idle_scan));
	}
	cpu = arbor_select_idle_cpu(&sc->snap, target, has_idle_core, feat(FEAT_SIS_UTIL),
				    lc->nr_idle_scan, &clear_hint, &found_core);
	if (clear_hint)
		lc->has_idle_cores = 0;
	if (cpu >= 0) {
		if (found_core)
			stat_inc_on(this, STAT_FOUND_IDLE_CORE);
		else
			stat_inc_on(this, STAT_FOUND_IDLE_CPU);
		*found_idle = true;
		return cpu;
	}

	/*
	 * SIS_NODE (ours, policy.h arbor_sis_node_try): nothing idle in
	 * target's LLC; an idle CPU of the rest of its node.
	 */
	tn = node_of(target) & (MAX_NODES - 1);
	if (feat(FEAT_SIS_NODE) &&
	    arbor_sis_node_try(allowed_everywhere(p), node_nr_llcs[tn],
			       READ_ONCE(node_busy[tn].nr), node_busy[tn].cpus,
			       balance_cfg.imbalance_pct)) {
		cpu = arbor_sis_node(this, target, prev, now);
		if (valid_cpu(cpu)) {
			stat_inc_on(this, STAT_SIS_NODE_FOUND);
			*found_idle = true;
			return cpu;
		}
	}

	/* 8. nothing idle: target */
	stat_inc_on(this, STAT_NOFOUND_IDLE);
	return target;

found:
	stat_inc_on(this, STAT_FOUND_IDLE_CPU);
	*found_idle = true;
	return cpu;
}

/*
 * Fork slow path (baseline: select_task_rq_fair with SD_BALANCE_FORK ->
 * sched_balance_find_dst_cpu(), find_idlest_cpu() before 6.10). sched_ext
 * calls ops.select_cpu for a new task with WF_FORK, prev being the
 * parent's CPU (sched_fork sets it); never for an exec (select_task_rq_scx
 * returns prev for WF_EXEC).
 *
 * The kernel walks the parent's domains top-down, and at each level
 * sched_balance_find_dst_group() keeps the child in the parent's group
 * unless another group is clearly idler; at the NUMA level it also lets
 * the parent's node run up to imb_numa_nr tasks (and 2 idle CPUs) ahead of
 * the idlest node (adjust_numa_imbalance), so that a forking process's
 * children stay near it, on its memory, until the node gets busy; the
 * periodic balancer spreads them if that turns out wrong. Here the levels
 * are: the nodes, with the parent's node local; that node's LLCs, with the
 * parent's LLC local (or, when the child left the node, the LLC of the
 * node's idlest CPU: the kernel continues its walk from the CPU
 * sched_balance_find_dst_group_cpu() picked); then that LLC's idlest CPU.
 * The rule is policy.h's arbor_find_dst_group.
 *
 * Each step is a global (non-static) __noinline subprogram: the verifier
 * checks a global function once, on its own, instead of on every path of
 * select_cpu that reaches it. (Inlined, the walk took select_cpu past the
 * verifier's 1M processed instructions.) They take the (trusted) task and
 * scalars, and pass arrays through the per-CPU scratch.
 */

/*
 * update_sg_wakeup_stats() (fair.c) for one CPU of group g: the group's
 * size and capacity count every CPU; its load, running tasks and idle CPUs
 * only those the task may use. Returns the CPU's context if the task may
 * use it, else NULL.
 */
static __always_inline struct cpu_ctx *fork_group_add_cpu(struct group_stats *g,
							  struct task_struct *p,
							  const u64 *ib, s32 cpu,
							  bool any, u64 now)
{
	struct cpu_ctx *c;
	u64 load;

	g->weight++;
	g->capacity += cap_of(cpu);
	if (!(any ? valid_cpu(cpu) : allowed(p, cpu)) || !(c = lookup_cpu_ctx(cpu)))
		return NULL;
	g->allowed++;
	g->nr_running += c->nr_running;
	if (idle_bit(ib, cpu))
		g->idle_cpus++;
	load = cpu_load(c, now);
	g->load += load;
	g->runnable += load;
	g->util += cpu_util(c, now);
	return c;
}

/*
 * Group stats of every node into scratch fg[node]; returns the node count.
 * `this` is the CPU running select_cpu, whose copy of the idle mask
 * (wake_idle, taken by select_idlest) the idle tests read.
 */
__noinline int arbor_fork_node_stats(struct task_struct *p __arg_trusted, s32 this, u64 now)
{
	struct scratch *sc = get_scratch();
	const u64 *ib = wake_idle[(u32)this & (MAX_CPUS - 1)].w;
	bool any;
	u32 i;

	if (!sc || !p)
		return 0;
	any = allowed_everywhere(p);
	bpf_for(i, 0, MAX_NODES) {
		if (i >= nr_nodes)
			break;
		__builtin_memset(&sc->fg[i & (MAX_NODES - 1)], 0, sizeof(struct group_stats));
	}
	bpf_for(i, 0, MAX_CPUS) {
		if (i >= nr_cpus)
			break;
		fork_group_add_cpu(&sc->fg[node_of(i)], p, ib, i, any, now);
	}
	return nr_nodes < MAX_NODES ? nr_nodes : MAX_NODES;
}

/*
 * Group stats of `node`'s LLCs into scratch fg[], their ids into g_id[];
 * returns their count. fork_local is set to the index of `local_llc`, or
 * with local_llc < 0 to that of the LLC holding the node's idlest CPU
 * (sched_balance_find_dst_group_cpu: an idle CPU, the most recently idled
 * first, else the least loaded).
 */
__noinline int arbor_fork_llc_stats(struct task_struct *p __arg_trusted, s32 this, u32 node,
				    s32 local_llc, u64 now)
{
	struct scratch *sc = get_scratch();
	const u64 *ib = wake_idle[(u32)this & (MAX_CPUS - 1)].w;
	bool any;
	u32 i, k, n;

	if (!sc || !p)
		return 0;
	any = allowed_everywhere(p);
	sc->cnt = 0;
	sc->fork_local = -1;
	sc->fork_idle_grp = -1;
	sc->fork_busy_grp = -1;
	sc->fork_stamp = 0;
	sc->fork_load = 0;
	bpf_for(i, 0, MAX_LLCS) {
		if (i >= nr_llcs)
			break;
		if (llc_node[i] != node)
			continue;
		/* the count in memory: see select_idlest's history (sc->cnt) */
		n = sc->cnt;
		if (n >= MAX_LLCS)
			break;
		n &= MAX_LLCS - 1;
		__builtin_memset(&sc->fg[n], 0, sizeof(struct group_stats));
		sc->g_id[n] = i;
		if ((s32)i == local_llc)
			sc->fork_local = n;
		bpf_for(k, 0, MAX_LLC_CPUS) {
			struct cpu_ctx *c;
			s32 cc;
			u64 v;

			if (k >= llc_nr_cpus[i])
				break;
			cc = llc_cpus[i][k];
			c = fork_group_add_cpu(&sc->fg[n], p, ib, cc, any, now);
			if (!c || local_llc >= 0)
				continue;
			if (idle_bit(ib, cc)) {
				v = c->idle_stamp ?: 1;
				if (sc->fork_idle_grp < 0 || v > sc->fork_stamp) {
					sc->fork_idle_grp = n;
					sc->fork_stamp = v;
				}
			} else {
				v = cpu_load(c, now);
				if (sc->fork_busy_grp < 0 || v < sc->fork_load) {
					sc->fork_busy_grp = n;
					sc->fork_load = v;
				}
			}
		}
		sc->cnt = n + 1;
	}
	if (local_llc < 0)
		sc->fork_local = sc->fork_idle_grp >= 0 ? sc->fork_idle_grp : sc->fork_busy_grp;
	return sc->cnt;
}

/*
 * sched_balance_find_dst_group() over scratch fg[0..n): the group to move
 * to, or -1 to stay in `local`.
 */
__noinline int arbor_fork_dst_group(u32 n, s32 local, u32 numa, u32 imb_nr)
{
	struct scratch *sc = get_scratch();

	if (!sc)
		return -1;
	return arbor_find_dst_group(n, sc->fg, local, balance_cfg.imbalance_pct, numa, imb_nr);
}

/*
 * The idlest CPU of `llc` the task may use (policy.h: arbor_idlest_cpu),
 * -1 if none; fork_found_idle tells whether it is idle.
 */
__noinline int arbor_fork_idlest_cpu(struct task_struct *p __arg_trusted, s32 this, u32 llc,
				     u64 now)
{
	struct scratch *sc = get_scratch();
	const u64 *ib = wake_idle[(u32)this & (MAX_CPUS - 1)].w;
	s32 g, cpu = -1;
	u32 k, n;

	if (!sc || !p || llc >= MAX_LLCS)
		return -1;
	sc->fork_found_idle = 0;
	/* the count in memory: a register counter used as an index is tracked
	 * exactly by the verifier, which would then check every iteration */
	sc->cnt = 0;
	bpf_for(k, 0, MAX_LLC_CPUS) {
		struct cpu_ctx *c;
		s32 cc;

		if (k >= llc_nr_cpus[llc])
			break;
		cc = llc_cpus[llc][k];
		if (!allowed(p, cc) || !(c = lookup_cpu_ctx(cc)))
			continue;
		n = sc->cnt;
		if (n >= MAX_LLC_CPUS)
			break;
		n &= MAX_LLC_CPUS - 1;
		sc->c_id[n] = cc;
		sc->c_stamp[n] = idle_bit(ib, cc) ? (c->idle_stamp ?: 1) : 0;
		sc->c_load[n] = cpu_load(c, now);
		sc->cnt = n + 1;
	}
	g = arbor_idlest_cpu(sc->cnt, sc->c_stamp, sc->c_load);
	if (g >= 0 && g < MAX_LLC_CPUS) {
		cpu = sc->c_id[g];
		sc->fork_found_idle = sc->c_stamp[g] != 0;
	}
	return cpu;
}

/*
 * The fork slow path from select_cpu on `this`. One copy of the idle mask
 * (copy_idle_mask, this CPU's wake_idle row) serves every step: each idle
 * test is a bit read, not a bpf_cpumask_test_cpu() call per CPU of each
 * node and LLC looked at (on xeon-88, ~180 calls per fork). Nothing here
 * claims a CPU (select_cpu claims the pick afterwards), so in the
 * simulator every test answers as the live mask would; on a machine the
 * later steps see the mask as of the copy, not of their own start.
 */
static __always_inline s32 select_idlest(struct task_struct *p, s32 prev, s32 this,
					 bool *found_idle)
{
	u64 now = bpf_ktime_get_ns();
	s32 node = node_of(prev), llc = llc_of(prev), g, n, cpu;
	struct scratch *sc;

	*found_idle = false;
	copy_idle_mask(this);
	if (nr_nodes > 1) {
		n = arbor_fork_node_stats(p, this, now);
		g = arbor_fork_dst_group(n, node, 1, node_imb_numa_nr[node & (MAX_NODES - 1)]);
		if (g >= 0 && g < MAX_NODES && g != node) {
			node = g;
			llc = -1;	/* the node's idlest CPU's LLC */
			stat_inc(STAT_FORK_OTHER_NODE);
		}
	}
	n = arbor_fork_llc_stats(p, this, node, llc, now);
	sc = get_scratch();
	if (!sc || n <= 0)
		return prev;
	g = arbor_fork_dst_group(n, sc->fork_local, 0, 0);
	if (g < 0)
		g = sc->fork_local;
	if (g < 0 || g >= MAX_LLCS)
		return prev;
	cpu = arbor_fork_idlest_cpu(p, this, sc->g_id[g], now);
	if (cpu < 0)
		return prev;
	*found_idle = sc->fork_found_idle;
	return cpu;
}

/*
 * wake_affine()'s inputs (policy.h struct wa_input) from live state, lazily:
 * first what the throttle and WA_IDLE read, with this and prev's idle bits
 * given; the LLC counts and the loads only if the rule will read them
 * (arbor_wa_needs_load) and the caller asks (`loads`: wake_prev_idle gives
 * up on such a wake-up without reading them). select_cpu passes what it
 * already has: this CPU's context and the time. False if a context is
 * missing (then prev).
 */
static __always_inline bool wa_fill(struct wa_input *in, struct task_struct *p,
				    struct task_ctx *tctx, struct task_struct *waker, s32 this,
				    s32 prev, bool sync, struct cpu_ctx *tc, bool this_idle,
				    bool prev_idle, bool loads, u64 now)
{
	if (!tc)
		return false;
	in->now = now;
	in->next_wake_affine = tctx->next_wake_affine;
	in->throttle_ns = wa_cfg.interval_ns;
	in->features = (u32)features;	/* wake_affine's switches are all below bit 32 */
	in->share_cache = share_llc(this, prev);
	in->share_core = cpu_core[this & (MAX_CPUS - 1)] == cpu_core[prev & (MAX_CPUS - 1)];
	in->sync = sync;
	in->this_nr_running = tc->nr_running;
	if (!arbor_wa_throttled(in)) {
		in->this_idle = this_idle;
		in->prev_idle = prev_idle;
	}

	if (loads && arbor_wa_needs_load(in)) {
		/* the waker's load: its task context (the CPU's copy holds no PELT) */
		struct task_ctx *wctx = lookup_task_ctx(waker);
		struct cpu_ctx *pc = lookup_cpu_ctx(prev);
		struct llc_ctx *tl = lookup_llc_ctx(llc_of(this)), *pl = lookup_llc_ctx(llc_of(prev));

		if (!pc || !tl || !pl)
			return false;
		in->this_llc_busy = tl->nr_busy;
		in->this_llc_size = llc_nr_cpus[llc_of(this)];
		in->prev_llc_busy = pl->nr_busy;
		in->prev_llc_size = llc_nr_cpus[llc_of(prev)];
		in->this_load = cpu_load(tc, in->now);
		in->prev_load = cpu_load(pc, in->now);
		in->task_load = task_load(p, tctx);
		in->waker_load = wctx ? task_load(waker, wctx) : 0;
		in->this_cap = cpu_cap[this & (MAX_CPUS - 1)] ?: 1024;
		in->prev_cap = cpu_cap[prev & (MAX_CPUS - 1)] ?: 1024;
		in->imbalance_pct = balance_cfg.imbalance_pct;
	}
	return true;
}

/* What a wake_affine() answer leaves behind: seed 001's window, the counters. */
static __always_inline void wa_commit(struct task_ctx *tctx, const struct wa_output *out, s32 this)
{
	tctx->next_wake_affine = out->next_wake_affine;
	if (out->why == WHY_THROTTLED)
		stat_inc_on(this, STAT_AFFINE_THROTTLED);
	else if (out->why == WHY_IDLER_TIE)
		stat_inc_on(this, STAT_IDLER_LLC_TIE);
	if (out->idler == WA_THIS)
		stat_inc_on(this, STAT_IDLER_LLC_THIS);
	else if (out->idler == WA_PREV)
		stat_inc_on(this, STAT_IDLER_LLC_PREV);
}

static __always_inline int wake_affine(struct task_struct *p, struct task_ctx *tctx,
				       struct task_struct *waker, s32 this, s32 prev, bool sync,
				       struct cpu_ctx *tc, const u64 *ib, u64 now)
{
	struct wa_input in = {};
	struct wa_output out = {};
	int r;

	if (!wa_fill(&in, p, tctx, waker, this, prev, sync, tc, idle_bit(ib, this),
		     idle_bit(ib, prev), true, now))
		return WA_PREV;
	r = arbor_wake_affine(&in, &out);
	wa_commit(tctx, &out, this);
	return r;
}

#endif /* __ARBOR_IDLE_BPF_H */
