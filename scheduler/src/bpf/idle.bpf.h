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

static __always_inline bool cpu_idle_now(const struct cpumask *idle, s32 cpu)
{
	return valid_cpu(cpu) && bpf_cpumask_test_cpu(cpu, idle);
}

static __always_inline bool allowed(const struct task_struct *p, s32 cpu)
{
	return valid_cpu(cpu) && bpf_cpumask_test_cpu(cpu, p->cpus_ptr);
}

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

/* Fill `s` with an LLC's layout (ids, cores, sibling ring), no CPU marked. */
static __always_inline void snapshot_llc_topo(struct llc_snapshot *s, u32 llc)
{
	u32 n = llc_nr_cpus[llc & (MAX_LLCS - 1)], i;

	s->nr = n < MAX_LLC_CPUS ? n : MAX_LLC_CPUS;
	s->smt_width = smt_width;
	bpf_for(i, 0, LLC_MASK_WORDS)
		s->idle_mask[i] = 0;
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
 * (wrapping): only those the scan may visit are tested (kfunc calls), as
 * the kernel's select_idle_cpu() tests only the CPUs it scans. A task
 * allowed everywhere skips the affinity test (the kernel's cpumask_and
 * with cpus_ptr).
 */
static __always_inline void snapshot_llc_idle(struct llc_snapshot *s, const struct task_struct *p,
					      const struct cpumask *idle, u32 start, u32 len)
{
	bool any = p->nr_cpus_allowed >= (int)nr_cpus;
	u32 k;

	bpf_for(k, 0, MAX_LLC_CPUS) {
		u32 i;
		s32 c;

		if (k >= len || k >= s->nr || !s->nr)
			break;
		i = ((start + k) % s->nr) & (MAX_LLC_CPUS - 1);
		c = s->cpu[i];
		if (cpu_idle_now(idle, c) && (any || allowed(p, c)))
			arbor_mask_set(s->idle_mask, LLC_MASK_WORDS, i);
	}
}

/*
 * select_idle_sibling() (baseline), steps 1-8; on asymmetric machines with
 * ASYM_IDLE_CAPACITY, steps 1, 2 and 4 also require the task to fit, and
 * step 5 (select_idle_capacity) ends the search. Returns a CPU;
 * *found_idle tells whether the CPU was idle when chosen.
 */
static __always_inline s32 select_idle_sibling(struct task_struct *p, struct task_ctx *tctx,
					       s32 prev, s32 target, bool *found_idle)
{
	const struct cpumask *idle;
	struct scratch *sc;
	struct llc_ctx *lc;
	s32 recent, cpu = -1, this = bpf_get_smp_processor_id();
	struct task_struct *cur;
	u8 clear_hint = 0, found_core = 0;
	bool has_idle_core = false;

	bool asym_idle = asym && feat(FEAT_ASYM_IDLE_CAPACITY);

	*found_idle = false;
	idle = scx_bpf_get_idle_cpumask();

	/* 1. target itself if idle */
	if (cpu_idle_now(idle, target) && allowed(p, target) &&
	    (!asym_idle || task_fits(tctx, target))) {
		cpu = target;
		goto found;
	}
	/* 2. prev, if it shares target's cache and is idle */
	if (prev != target && share_llc(prev, target) && cpu_idle_now(idle, prev) &&
	    allowed(p, prev) && (!asym_idle || task_fits(tctx, prev))) {
		cpu = prev;
		goto found;
	}
	/*
	 * 3. a per-CPU kthread woke us on prev and is about to sleep (e.g. an
	 *    IO completion): prev will be free in a moment, stay there.
	 */
	cur = (struct task_struct *)bpf_get_current_task_btf();
	if ((cur->flags & PF_KTHREAD) && cur->nr_cpus_allowed == 1 && prev == this) {
		struct cpu_ctx *c = lookup_cpu_ctx(this);

		if (c && c->nr_running <= 1 && allowed(p, prev)) {
			scx_bpf_put_idle_cpumask(idle);
			return prev;
		}
	}
	/* 4. the CPU the task used before prev, if it is cache-near and idle */
	recent = tctx->recent_used_cpu;
	tctx->recent_used_cpu = prev;
	if (recent != prev && recent != target && valid_cpu(recent) &&
	    share_llc(recent, target) && cpu_idle_now(idle, recent) && allowed(p, recent) &&
	    (!asym_idle || task_fits(tctx, recent))) {
		cpu = recent;
		goto found;
	}

	/* 5. asymmetric capacity (mainline): the first idle CPU that fits */
	if (asym_idle) {
		cpu = select_idle_capacity(p, tctx, idle, target);
		scx_bpf_put_idle_cpumask(idle);
		if (cpu >= 0) {
			stat_inc(STAT_CAPACITY_PLACEMENTS);
			stat_inc(STAT_FOUND_IDLE_CPU);
			*found_idle = true;
			return cpu;
		}
		stat_inc(STAT_NOFOUND_IDLE);
		return target;
	}

	lc = lookup_llc_ctx(llc_of(target));
	sc = get_scratch();
	if (!lc || !sc) {
		scx_bpf_put_idle_cpumask(idle);
		return target;
	}

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
				if (valid_cpu(c) && cpu_idle_now(idle, c) && allowed(p, c)) {
					cpu = c;
					goto found;
				}
			}
		}
	}

	/* 7. scan the LLC (policy.h: arbor_select_idle_cpu) */
	{
		u32 llc = llc_of(target), start = cpu_llc_idx[target & (MAX_CPUS - 1)] + 1;

		snapshot_llc_topo(&sc->snap, llc);
		snapshot_llc_idle(&sc->snap, p, idle, start,
				  arbor_sis_scan_len(sc->snap.nr, has_idle_core,
						     feat(FEAT_SIS_UTIL), lc->nr_idle_scan));
	}
	cpu = arbor_select_idle_cpu(&sc->snap, target, has_idle_core, feat(FEAT_SIS_UTIL),
				    lc->nr_idle_scan, &clear_hint, &found_core);
	if (clear_hint)
		lc->has_idle_cores = 0;
	if (cpu >= 0) {
		if (found_core)
			stat_inc(STAT_FOUND_IDLE_CORE);
		else
			stat_inc(STAT_FOUND_IDLE_CPU);
		*found_idle = true;
		scx_bpf_put_idle_cpumask(idle);
		return cpu;
	}

	/* 8. nothing idle: target */
	scx_bpf_put_idle_cpumask(idle);
	stat_inc(STAT_NOFOUND_IDLE);
	return target;

found:
	scx_bpf_put_idle_cpumask(idle);
	stat_inc(STAT_FOUND_IDLE_CPU);
	*found_idle = true;
	return cpu;
}

/*
 * (Deviation 3: policy.h's arbor_find_dst_group ports the kernel's local
 * group / imb_numa_nr preference and is unit-tested, but wiring it here
 * made select_cpu exceed the verifier's 1M-instruction limit; left for a
 * cheaper walk, e.g. with per-node/LLC summaries cached by the timer.)
 */
/*
 * Fork/exec slow path (baseline: find_idlest_group, then find_idlest_cpu):
 * the idlest node, then its idlest LLC, then that LLC's idlest CPU.
 */
static __always_inline s32 select_idlest(struct task_struct *p, s32 prev, bool *found_idle)
{
	const struct cpumask *idle;
	struct scratch *sc = get_scratch();
	u64 now = bpf_ktime_get_ns();
	s32 g, node = 0, llc = -1, cpu = prev;
	u32 i, n, k;

	*found_idle = false;
	if (!sc)
		return prev;
	idle = scx_bpf_get_idle_cpumask();

	/* idlest node: idle allowed CPUs and utilisation per node */
	if (nr_nodes > 1) {
		bpf_for(i, 0, MAX_NODES) {
			if (i >= nr_nodes)
				break;
			sc->g_idle[i] = 0;
			sc->g_util[i] = 0;
		}
		bpf_for(i, 0, MAX_CPUS) {
			struct cpu_ctx *c;
			u32 nd;

			if (i >= nr_cpus)
				break;
			if (!allowed(p, i) || !(c = lookup_cpu_ctx(i)))
				continue;
			nd = node_of(i);
			if (cpu_idle_now(idle, i))
				sc->g_idle[nd]++;
			sc->g_util[nd] += cpu_util(c, now);
		}
		g = arbor_idlest_group(nr_nodes, sc->g_idle, sc->g_util);
		if (g >= 0)
			node = g;
	}

	/*
	 * idlest LLC of that node. The counts live in scratch memory
	 * (sc->cnt): a register counter used as an index is tracked exactly by
	 * the verifier, which would then check every iteration one by one.
	 */
	sc->cnt = 0;
	bpf_for(i, 0, MAX_LLCS) {
		if (i >= nr_llcs)
			break;
		if (llc_node[i] != node)
			continue;
		n = sc->cnt;
		if (n >= MAX_LLCS)
			break;
		n &= MAX_LLCS - 1;
		sc->g_id[n] = i;
		sc->g_idle[n] = 0;
		sc->g_util[n] = 0;
		bpf_for(k, 0, MAX_LLC_CPUS) {
			struct cpu_ctx *c;
			s32 cc;

			if (k >= llc_nr_cpus[i])
				break;
			cc = llc_cpus[i][k];
			if (!allowed(p, cc) || !(c = lookup_cpu_ctx(cc)))
				continue;
			if (cpu_idle_now(idle, cc))
				sc->g_idle[n]++;
			sc->g_util[n] += cpu_util(c, now);
		}
		sc->cnt = n + 1;
	}
	n = sc->cnt;
	g = arbor_idlest_group(n, sc->g_idle, sc->g_util);
	if (g >= 0 && g < MAX_LLCS)
		llc = sc->g_id[g];
	if (llc < 0 || llc >= MAX_LLCS)
		goto out;

	/* idlest CPU of that LLC (the count in memory, as above) */
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
		sc->c_stamp[n] = cpu_idle_now(idle, cc) ? (c->idle_stamp ?: 1) : 0;
		sc->c_load[n] = cpu_load(c, now);
		sc->cnt = n + 1;
	}
	n = sc->cnt;
	g = arbor_idlest_cpu(n, sc->c_stamp, sc->c_load);
	if (g >= 0 && g < MAX_LLC_CPUS) {
		cpu = sc->c_id[g];
		*found_idle = sc->c_stamp[g] != 0;
	}
out:
	scx_bpf_put_idle_cpumask(idle);
	return cpu;
}

/*
 * Build wake_affine()'s inputs from live state (policy.h: arbor_wake_affine),
 * lazily: first what the throttle and WA_IDLE read; the LLC counts and the
 * loads only if they did not answer (arbor_wa_needs_load).
 */
static __always_inline int wake_affine(struct task_struct *p, struct task_ctx *tctx,
				       struct task_struct *waker, s32 this, s32 prev, bool sync)
{
	const struct cpumask *idle;
	struct cpu_ctx *tc = lookup_cpu_ctx(this);
	struct wa_input in = {};
	struct wa_output out = {};
	int r;

	if (!tc)
		return WA_PREV;
	in.now = bpf_ktime_get_ns();
	in.next_wake_affine = tctx->next_wake_affine;
	in.throttle_ns = wake_affine_interval_ns;
	in.features = features;
	in.share_cache = share_llc(this, prev);
	in.share_core = cpu_core[this & (MAX_CPUS - 1)] == cpu_core[prev & (MAX_CPUS - 1)];
	in.sync = sync;
	in.this_nr_running = tc->nr_running;
	if (!arbor_wa_throttled(&in)) {
		idle = scx_bpf_get_idle_cpumask();
		in.this_idle = cpu_idle_now(idle, this);
		in.prev_idle = cpu_idle_now(idle, prev);
		scx_bpf_put_idle_cpumask(idle);
	}

	if (arbor_wa_needs_load(&in)) {
		struct cpu_ctx *pc = lookup_cpu_ctx(prev);
		struct llc_ctx *tl = lookup_llc_ctx(llc_of(this)), *pl = lookup_llc_ctx(llc_of(prev));
		struct task_ctx *wctx = lookup_task_ctx(waker);

		if (!pc || !tl || !pl)
			return WA_PREV;
		in.this_llc_busy = tl->nr_busy;
		in.this_llc_size = llc_nr_cpus[llc_of(this)];
		in.prev_llc_busy = pl->nr_busy;
		in.prev_llc_size = llc_nr_cpus[llc_of(prev)];
		in.this_load = cpu_load(tc, in.now);
		in.prev_load = cpu_load(pc, in.now);
		in.task_load = task_load(p, tctx);
		in.waker_load = wctx ? task_load(waker, wctx) : 0;
		in.this_cap = cpu_cap[this & (MAX_CPUS - 1)] ?: 1024;
		in.prev_cap = cpu_cap[prev & (MAX_CPUS - 1)] ?: 1024;
		in.imbalance_pct = imbalance_pct;
	}

	r = arbor_wake_affine(&in, &out);
	tctx->next_wake_affine = out.next_wake_affine;
	if (out.why == WHY_THROTTLED)
		stat_inc(STAT_AFFINE_THROTTLED);
	else if (out.why == WHY_IDLER_TIE)
		stat_inc(STAT_IDLER_LLC_TIE);
	if (out.idler == WA_THIS)
		stat_inc(STAT_IDLER_LLC_THIS);
	else if (out.idler == WA_PREV)
		stat_inc(STAT_IDLER_LLC_PREV);
	return r;
}

#endif /* __ARBOR_IDLE_BPF_H */
