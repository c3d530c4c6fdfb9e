/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: the placement decisions, as pure functions.
 *
 * Every rule that decides where a task goes lives here, written once and
 * compiled twice: into the BPF program (main.bpf.c includes this file) and
 * natively into the Rust crate (policy.c), where unit tests drive it with
 * crafted topologies and loads. So the tests exercise the code the kernel
 * runs, not a copy. Nothing here may call a BPF helper or touch a map:
 * inputs come in as arguments, results go out as return values.
 *
 * Each rule names its source. "baseline" = the stock kernel's fair-class
 * placement (kernel/sched/fair.c, ~6.17-7.2).
 */
#ifndef __ARBOR_POLICY_H
#define __ARBOR_POLICY_H

#include "intf.h"

#ifdef __bpf__
#define ARBOR_POLICY static __always_inline
/* open-coded iterator: the verifier checks the body once, not per iteration */
#define POLICY_FOR(i, start, end) bpf_for(i, start, end)
#else
#define ARBOR_POLICY
#define POLICY_FOR(i, start, end) for ((i) = (start); (i) < (end); (i)++)
#endif

#define SCHED_CAPACITY_SCALE	1024
#define NSEC_PER_MSEC		1000000ULL

/* ------------------------------------------------------------------ */
/* Multi-word bitmaps (the kernel's cpumask, scx's scx_bitmap)         */
/* ------------------------------------------------------------------ */

/*
 * A bitmap is an array of `words` u64s, bit i in word i / 64. `words` is
 * a power of two known at compile time (intf.h: CPU_MASK_WORDS,
 * LLC_MASK_WORDS, LLCS_MASK_WORDS), so the word index is masked to the
 * array and the verifier sees every access in bounds. A bit past the end
 * reads as clear and is never written, like cpumask_test_cpu() /
 * __cpumask_set_cpu() on ids >= nr_cpumask_bits.
 */
#define ARBOR_MASK_WORD(i, words)	(((u32)(i) >> 6) & ((u32)(words) - 1))
#define ARBOR_MASK_BIT(i)		(1ULL << ((u32)(i) & 63))

ARBOR_POLICY bool arbor_mask_test(const u64 *m, u32 words, u32 i)
{
	if (i >= words * 64)
		return false;
	return m[ARBOR_MASK_WORD(i, words)] & ARBOR_MASK_BIT(i);
}

ARBOR_POLICY void arbor_mask_set(u64 *m, u32 words, u32 i)
{
	if (i < words * 64)
		m[ARBOR_MASK_WORD(i, words)] |= ARBOR_MASK_BIT(i);
}

ARBOR_POLICY void arbor_mask_clear(u64 *m, u32 words, u32 i)
{
	if (i < words * 64)
		m[ARBOR_MASK_WORD(i, words)] &= ~ARBOR_MASK_BIT(i);
}

ARBOR_POLICY void arbor_mask_zero(u64 *m, u32 words)
{
	s32 k;

	POLICY_FOR(k, 0, CPU_MASK_WORDS) {
		if ((u32)k >= words)
			break;
		m[k & (CPU_MASK_WORDS - 1)] = 0;
	}
}

/* Number of set bits (cpumask_weight). */
ARBOR_POLICY u32 arbor_mask_weight(const u64 *m, u32 words)
{
	u32 n = 0;
	s32 k;

	POLICY_FOR(k, 0, CPU_MASK_WORDS) {
		u64 w;

		if ((u32)k >= words)
			break;
		/* Kernighan's loop: the BPF ISA has no popcount */
		for (w = m[k & (CPU_MASK_WORDS - 1)]; w && n < words * 64; w &= w - 1)
			n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* wake_wide (baseline, since 3.12: it replaced seed 001's throttle)   */
/* ------------------------------------------------------------------ */

/*
 * record_wakee(): a task that keeps waking different tasks accumulates
 * "flips". They are halved at most once a second so the count reflects the
 * recent pattern. Called on the waker's state for each wakeup it issues.
 */
ARBOR_POLICY void arbor_record_wakee(u32 *flips, u64 *decay_ts, s32 *last_wakee,
				     s32 wakee, u64 now)
{
	if (now > *decay_ts + 1000 * NSEC_PER_MSEC) {
		*flips >>= 1;
		*decay_ts = now;
	}
	if (*last_wakee != wakee) {
		*last_wakee = wakee;
		*flips += 1;
	}
}

/*
 * wake_wide(): a 1:N waker (one server, many clients) flips often and its
 * wakees flip rarely. Pulling all N wakees onto the waker's LLC would
 * overload it, so such wakeups skip wake_affine. The LLC size is the
 * factor: a pattern wider than one LLC cannot be served from it.
 * Wide when min(flips) >= llc_size and max(flips) >= min * llc_size.
 */
ARBOR_POLICY bool arbor_wake_wide(u32 waker_flips, u32 wakee_flips, u32 llc_size)
{
	u32 master = waker_flips, slave = wakee_flips;

	if (master < slave) {
		u32 t = master;
		master = slave;
		slave = t;
	}
	if (slave < llc_size || (u64)master < (u64)slave * llc_size)
		return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* wake_affine (baseline): pull the wakee to the waker's CPU, or not?  */
/* ------------------------------------------------------------------ */

/*
 * WA_IDLE: idleness answers first, because an idle CPU needs no load
 * arithmetic. If the waker's CPU is idle and shares the LLC with prev, the
 * cache is shared anyway: take prev if it is idle too (it may hold the
 * wakee's private cache), else this. A sync wakeup from a CPU running only
 * the waker means the waker is about to sleep: this. Otherwise an idle prev
 * wins. No answer otherwise.
 */
ARBOR_POLICY int arbor_wa_idle(const struct wa_input *in)
{
	if (in->this_idle && in->share_cache)
		return in->prev_idle ? WA_PREV : WA_THIS;
	if (in->sync && in->this_nr_running == 1)
		return WA_THIS;
	if (in->prev_idle)
		return WA_PREV;
	return WA_NONE;
}

/*
 * WA_WEIGHT (+ WA_BIAS): move the wakee to this only if this would stay
 * less loaded than prev, capacities considered. On a sync wakeup the
 * waker's own load is taken off this (it is going to sleep), and if the
 * waker is all of this CPU's load, this wins outright. WA_BIAS demands
 * half of imbalance_pct's margin before leaving prev (its cache is warm).
 * A sync wakeup adds 1 to prev's side: ties go to this.
 */
/* kernel/sched/topology.c sd_init(): the SMT domain's imbalance_pct */
#define ARBOR_SMT_IMBALANCE_PCT 110

ARBOR_POLICY int arbor_wa_weight(const struct wa_input *in)
{
	s64 this_eff = (s64)in->this_load;
	s64 prev_eff;

	if (in->sync) {
		if ((s64)in->waker_load > this_eff)
			return WA_THIS;
		this_eff -= (s64)in->waker_load;
	}
	this_eff += (s64)in->task_load;
	if (in->features & (1u << FEAT_WA_BIAS))
		this_eff *= 100;
	this_eff *= in->prev_cap;

	prev_eff = (s64)in->prev_load - (s64)in->task_load;
	if (in->features & (1u << FEAT_WA_BIAS)) {
		/*
		 * wake_affine() runs in the lowest domain spanning this and prev;
		 * for SMT siblings that is the SMT domain, whose imbalance_pct
		 * sd_init() sets to 110 (SD_SHARE_CPUCAPACITY), not 117.
		 */
		s64 pct = in->share_core ? ARBOR_SMT_IMBALANCE_PCT : (s64)in->imbalance_pct;

		prev_eff *= 100 + (pct - 100) / 2;
	}
	prev_eff *= in->this_cap;
	if (in->sync)
		prev_eff += 1;

	return this_eff < prev_eff ? WA_THIS : WA_NONE;
}

/*
 * WA_IDLER_LLC (seed 000, POWER10): with LLCs of 4 threads the waker's or
 * prev's LLC is often busy, and cache affinity is worth less than a shorter
 * wait. Across LLCs, prefer the one with the smaller busy *fraction*
 * (t_busy/t_size vs p_busy/p_size, cross-multiplied); a sync wakeup credits
 * the waker's LLC one CPU (the waker is about to sleep). Ties, and two full
 * LLCs, have no opinion: WA_WEIGHT decides.
 * WA_WAKER (seed 000, off by default): any free CPU in the waker's LLC wins.
 * The seed compared "both full" as t_busy == p_size (a slip when sizes
 * differ); we compare each LLC with its own size, as the spec says.
 */
ARBOR_POLICY int arbor_wa_idler_llc(const struct wa_input *in)
{
	s64 tb = in->this_llc_busy, ts = in->this_llc_size;
	s64 pb = in->prev_llc_busy, ps = in->prev_llc_size;
	s64 diff;

	if (tb >= ts && pb >= ps)
		return WA_NONE;
	if ((in->features & (1u << FEAT_WA_WAKER)) && tb < ts)
		return WA_THIS;
	diff = tb * ps - (in->sync ? 1 : 0) - pb * ts;
	if (diff == 0)
		return WA_NONE;
	return diff < 0 ? WA_THIS : WA_PREV;
}

/*
 * WA_THROTTLE (seed 001, pgbench on 12 CPUs): pulling a wakee to its waker
 * is not free, and a failed attempt is pure cost. After a failure, the
 * wakee gets no wake_affine for `throttle_ns`: it stays around prev.
 * (Superseded upstream by wake_wide; both are kept here.)
 */
ARBOR_POLICY bool arbor_wa_throttle_on(const struct wa_input *in)
{
	if (!(in->features & (1u << FEAT_WA_THROTTLE)) || !in->throttle_ns)
		return false;
	/*
	 * WA_THROTTLE_XLLC (ours, default only): the throttle acts only where
	 * this and prev are in different LLCs. Within one LLC the pull costs
	 * the wakee no cache (fair.c wake_affine_idle treats this and prev
	 * alike when cpus_share_cache) and select_idle_sibling() scans the
	 * same LLC from either; what the window changes is only the fallback
	 * with nothing idle, the wakee's busy prev instead of the waker's CPU.
	 * That is what lost: on a 72-CPU single-LLC ARM server schbench's
	 * message thread, woken by its workers, stayed at its busy prev (run
	 * queue wait per wake-up 2.9 -> 6.5 us) and, as NEXT_BUDDY, preempted
	 * the worker there while more workers posted: wake-up p99 -19.6%
	 * against stock. Seed 001's own workload on its own single-LLC
	 * machine (x86-12 pgbench under default) is the same to the digit
	 * without the throttle (sim, 5 seeds; docs/findings/2026-12-06-asym-capacity).
	 */
	if ((in->features & (1u << FEAT_WA_THROTTLE_XLLC)) && in->share_cache)
		return false;
	return true;
}

ARBOR_POLICY bool arbor_wa_throttled(const struct wa_input *in)
{
	return arbor_wa_throttle_on(in) && in->now < in->next_wake_affine;
}

/*
 * Will wake_affine() look past WA_IDLE? Not when the throttle (seed 001)
 * or WA_IDLE has answered: then the LLC busy counts and the loads
 * (this_llc_*, prev_llc_*, *_load, *_cap) are never read, and the BPF side
 * skips gathering them (wake_affine's inputs are built lazily, after
 * WA_IDLE has spoken, so the wake-ups it decides read no loads). Reads only now, next_wake_affine, throttle_ns,
 * features, the idle flags, share_cache, sync and this_nr_running.
 */
ARBOR_POLICY bool arbor_wa_needs_load(const struct wa_input *in)
{
	if (arbor_wa_throttled(in))
		return false;
	if ((in->features & (1u << FEAT_WA_IDLE)) && arbor_wa_idle(in) != WA_NONE)
		return false;
	return true;
}

/*
 * wake_affine(): [seed 001 throttle], WA_IDLE, [seed 000 idler LLC, only
 * across LLCs], then WA_WEIGHT, each consulted only if the previous had no
 * answer. Anything but an explicit WA_THIS keeps the wakee around prev.
 */
ARBOR_POLICY int arbor_wake_affine(const struct wa_input *in, struct wa_output *out)
{
	int r = WA_NONE;

	out->why = WHY_NONE;
	out->idler = WA_NONE;
	out->next_wake_affine = in->next_wake_affine;

	if (arbor_wa_throttled(in)) {
		out->why = WHY_THROTTLED;
		return WA_PREV;
	}
	if (in->features & (1u << FEAT_WA_IDLE)) {
		r = arbor_wa_idle(in);
		if (r != WA_NONE)
			out->why = WHY_IDLE;
	}
	if (r == WA_NONE && (in->features & (1u << FEAT_WA_IDLER_LLC)) && !in->share_cache) {
		r = arbor_wa_idler_llc(in);
		out->idler = r;
		out->why = r != WA_NONE ? WHY_IDLER_LLC : WHY_IDLER_TIE;
	}
	if (r == WA_NONE && (in->features & (1u << FEAT_WA_WEIGHT))) {
		r = arbor_wa_weight(in);
		if (r != WA_NONE)
			out->why = WHY_WEIGHT;
	}
	if (r == WA_THIS)
		return WA_THIS;
	/* seed 001: a failed wake_affine opens the throttle window */
	if (arbor_wa_throttle_on(in))
		out->next_wake_affine = in->now + in->throttle_ns;
	return WA_PREV;
}

/* ------------------------------------------------------------------ */
/* select_idle_sibling (baseline)                                      */
/* ------------------------------------------------------------------ */

/*
 * SIS_UTIL: the busier the LLC, the less likely an idle CPU exists, so scan
 * fewer CPUs. With x = per-CPU utilisation / 1024 and pct = imbalance_pct:
 *   nr = llc_weight * (1 - (x * pct/100)^2)
 * 0 means "do not scan". Busy LLCs (x*pct/100 >= 1) are not scanned at all.
 */
ARBOR_POLICY u32 arbor_sis_util_nr_scan(u32 llc_weight, u64 llc_util_sum, u32 imbalance_pct)
{
	u64 x, tmp, y;

	if (!llc_weight)
		return 0;
	x = llc_util_sum / llc_weight;
	if (x > SCHED_CAPACITY_SCALE)
		x = SCHED_CAPACITY_SCALE;
	tmp = x * x * imbalance_pct * imbalance_pct;
	tmp /= 10000ULL * SCHED_CAPACITY_SCALE;
	if (tmp > SCHED_CAPACITY_SCALE)
		tmp = SCHED_CAPACITY_SCALE;
	y = (SCHED_CAPACITY_SCALE - tmp) * llc_weight;
	return (u32)(y / SCHED_CAPACITY_SCALE);
}

/*
 * Is every SMT sibling of llc index i idle? select_idle_core()'s loop over
 * cpu_smt_mask(core): it visits the core's own threads only, following the
 * snapshot's sibling ring (s->sib), so the test costs O(SMT width), not
 * O(LLC size) per candidate (which made a full-LLC idle-core scan O(n^2)).
 */
ARBOR_POLICY bool arbor_core_idle(const struct llc_snapshot *s, u32 i)
{
	u32 nr = s->nr < MAX_LLC_CPUS ? s->nr : MAX_LLC_CPUS, j = i;
	s32 k;

	if (i >= nr || !arbor_mask_test(s->idle_mask, LLC_MASK_WORDS, i))
		return false;
	POLICY_FOR(k, 0, MAX_SMT) {
		j = s->sib[j & (MAX_LLC_CPUS - 1)];
		if (j == i || j >= nr)
			break;
		if (!arbor_mask_test(s->idle_mask, LLC_MASK_WORDS, j))
			return false;
	}
	return true;
}

/* Index of `cpu` in the snapshot, -1 if it is not there. */
ARBOR_POLICY s32 arbor_llc_index(const struct llc_snapshot *s, s32 cpu)
{
	u32 nr = s->nr < MAX_LLC_CPUS ? s->nr : MAX_LLC_CPUS;
	s32 k;

	POLICY_FOR(k, 0, MAX_LLC_CPUS) {
		if ((u32)k >= nr)
			break;
		if (s->cpu[k] == cpu)
			return k;
	}
	return -1;
}

/*
 * How many CPUs select_idle_cpu() may visit, starting after target: the
 * whole LLC when it looks for an idle core or SIS_UTIL is off, else
 * nr_scan (the kernel's "if (--nr <= 0) return -1"), 0 when SIS_UTIL says
 * the LLC is too busy to scan. The BPF side tests idleness only for these
 * CPUs, as the kernel's scan does, instead of snapshotting the whole LLC on
 * every wake-up.
 */
ARBOR_POLICY u32 arbor_sis_scan_len(u32 nr, bool has_idle_core, bool sis_util, u32 nr_scan)
{
	if (sis_util && nr_scan == 0)
		return 0;
	if (has_idle_core || !sis_util)
		return nr;
	return nr_scan < nr ? nr_scan : nr;
}

/*
 * select_idle_cpu(): scan the target's LLC, starting after target and
 * wrapping, so that concurrent wakeups on neighbouring CPUs spread out
 * instead of all grabbing the first idle CPU.
 *  - has_idle_core hint set: look for a fully idle core (an idle SMT thread
 *    on a busy core shares its pipeline); remember the first idle CPU as a
 *    fallback; if no idle core was found the hint was stale: clear it.
 *  - otherwise: the first idle CPU, scanning at most nr_scan CPUs when
 *    SIS_UTIL limits the depth.
 *  - SIS_UTIL with nr_scan = 0: no scan at all, in either case.
 * Returns a CPU id or -1. *clear_hint = 1 when the hint must be cleared,
 * *found_core = 1 when the result is a fully idle core.
 */
ARBOR_POLICY s32 arbor_select_idle_cpu(const struct llc_snapshot *s, s32 target,
				       bool has_idle_core, bool sis_util, u32 nr_scan,
				       u8 *clear_hint, u8 *found_core)
{
	u32 nr = s->nr < MAX_LLC_CPUS ? s->nr : MAX_LLC_CPUS;
	u32 start = 0;
	s32 k;
	s32 idle_cpu = -1;

	*clear_hint = 0;
	*found_core = 0;
	if (!nr)
		return -1;
	/*
	 * select_idle_cpu(): with SIS_UTIL, nr = nr_idle_scan + 1 and "if (nr
	 * == 1) return -1" comes before the loop: an overloaded LLC is not
	 * scanned at all, idle-core hint or not (the hint is then left as it is).
	 */
	if (sis_util && nr_scan == 0)
		return -1;

	k = arbor_llc_index(s, target);
	if (k >= 0)
		start = k + 1;

	POLICY_FOR(k, 0, MAX_LLC_CPUS) {
		u32 i;

		if ((u32)k >= nr)
			break;
		i = (start + k) % nr;
		i &= MAX_LLC_CPUS - 1;
		if (has_idle_core) {
			if (!arbor_mask_test(s->idle_mask, LLC_MASK_WORDS, i))
				continue;
			if (arbor_core_idle(s, i)) {
				*found_core = 1;
				return s->cpu[i];
			}
			if (idle_cpu < 0)
				idle_cpu = s->cpu[i];
		} else {
			if (sis_util && (u32)k >= nr_scan)
				return -1;
			if (arbor_mask_test(s->idle_mask, LLC_MASK_WORDS, i))
				return s->cpu[i];
		}
	}
	if (has_idle_core)
		*clear_hint = 1;
	return idle_cpu;
}

/*
 * SIS_IDLE_GROUP: select_idle_sibling() as kernels 3.9 to 4.8 had it
 * (Mike Galbraith's "sched: Fix select_idle_sibling() bouncing cow
 * syndrome", 3.9; replaced by Peter Zijlstra's "sched/fair: Rewrite
 * select_idle_siblings()" in 4.9). After target and prev (the caller's
 * steps 1 and 2), it walks the sched domains from the LLC down
 * (for_each_lower_domain(sd_llc)); in each, the groups in their ring
 * order, which starts at target's group and follows CPU ids. It takes the
 * first group whose CPUs are all idle and which does not hold target
 * ("if (i == target || !idle_cpu(i)) goto next"), and returns that group's
 * first CPU. In the LLC domain the groups are cores; in the SMT domain
 * below it they are target's threads. So: a wholly idle core other than
 * target's, else an idle SMT sibling of target, else nothing (the caller
 * keeps target) -- never an idle thread of another busy core, which the
 * 4.9+ select_idle_cpu() scan takes. Seed 001's 3.10 baseline placed this
 * way; with SMT, once every core has one busy thread, wake-ups stack on
 * target, which is the stacking the wake-affine throttle addresses.
 * Difference: the snapshot marks only CPUs p may use, where the kernel
 * tested every CPU of a group for idleness and then took its first
 * allowed one; the same for a task allowed everywhere.
 * Returns a CPU id or -1; *found_core = 1 for a wholly idle core.
 */
ARBOR_POLICY s32 arbor_select_idle_group(const struct llc_snapshot *s, s32 target, u8 *found_core)
{
	u32 nr = s->nr < MAX_LLC_CPUS ? s->nr : MAX_LLC_CPUS;
	s32 t, k, lead;

	*found_core = 0;
	t = arbor_llc_index(s, target);
	if (t < 0 || !nr)
		return -1;
	/* the first index of target's core: where its group's ring position is */
	lead = t;
	POLICY_FOR(k, 0, MAX_LLC_CPUS) {
		if ((u32)k >= nr || k >= t)
			break;
		if (s->core[k & (MAX_LLC_CPUS - 1)] == s->core[t & (MAX_LLC_CPUS - 1)]) {
			lead = k;
			break;
		}
	}
	/* LLC domain: the cores in ring order from target's, skipping target's own */
	POLICY_FOR(k, 1, MAX_LLC_CPUS) {
		u32 i, j;
		s32 m;
		bool first = true;

		if ((u32)k >= nr)
			break;
		i = ((u32)lead + k) % nr;
		i &= MAX_LLC_CPUS - 1;
		if (s->core[i] == s->core[t & (MAX_LLC_CPUS - 1)])
			continue;
		/* visit a core once, at its first (lowest-index) CPU */
		j = i;
		POLICY_FOR(m, 0, MAX_SMT) {
			j = s->sib[j & (MAX_LLC_CPUS - 1)];
			if (j == i || j >= nr)
				break;
			if (j < i)
				first = false;
		}
		if (first && arbor_core_idle(s, i)) {
			*found_core = 1;
			return s->cpu[i];
		}
	}
	/* SMT domain: target's threads after target, in id order, wrapping */
	if (s->smt_width > 1) {
		POLICY_FOR(k, 1, MAX_LLC_CPUS) {
			u32 i;

			if ((u32)k >= nr)
				break;
			i = ((u32)t + k) % nr;
			i &= MAX_LLC_CPUS - 1;
			if (s->core[i] == s->core[t & (MAX_LLC_CPUS - 1)] &&
			    arbor_mask_test(s->idle_mask, LLC_MASK_WORDS, i))
				return s->cpu[i];
		}
	}
	return -1;
}

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
 *    baseline would have stopped at or skipped.
 * With IDLE_PULL every level within the LLC is tried, nearest first, until
 * one pull succeeds; above the LLC (node, machine) the baseline's two
 * predictions still decide. The caller enters the walk only while
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
 * LLC.
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

/* ------------------------------------------------------------------ */
/* STEAL (seed 003): take queued work from an overloaded CPU           */
/* ------------------------------------------------------------------ */

/*
 * Steal only when it can pay off and stay cheap: the CPU expects to idle at
 * least steal_cost, and the machine has no more NUMA nodes than
 * steal_node_limit (on big multi-node machines the seed saw regressions;
 * cross-node moves are left to the balancer).
 */
ARBOR_POLICY bool arbor_steal_allowed(u64 avg_idle, u64 steal_cost, u32 nr_nodes, u32 node_limit)
{
	return avg_idle >= steal_cost && nr_nodes <= node_limit;
}

/* ------------------------------------------------------------------ */
/* WAKE_NODE (ours): a wakee stays in its node                         */
/* ------------------------------------------------------------------ */

/*
 * May wake_affine pull a wakee from prev's node to the waker's CPU on
 * another node? WAKE_NODE says no while prev's node still has an idle CPU
 * (busy < its CPUs): returns true to skip wake_affine and keep target = prev.
 *
 * Sources, each a reason that does not depend on one machine:
 *  - the kernel itself does not wake-affine across distant nodes:
 *    topology.c sd_init() clears SD_WAKE_AFFINE (with SD_BALANCE_FORK/EXEC)
 *    on a NUMA domain whose distance exceeds node_reclaim_distance (30), so
 *    select_task_rq_fair() never finds a wake_affine domain spanning both
 *    CPUs there; arbor's port applies wake_affine at any distance;
 *  - fair.c's allow_numa_imbalance()/adjust_numa_imbalance(): the balancer
 *    tolerates a node running more than its share, to keep tasks near their
 *    memory and their partners, as long as the node is not overloaded;
 *  - p2dq and cosmos (docs/findings/2026-11-23-sim-peers-all) look for an
 *    idle CPU in the wakee's node before any other and kept cross-node
 *    migrations per 1000 wake-ups at 7 (xeon-88 hackbench) against arbor's 216.
 * The limit "prev's node has an idle CPU" is where keeping stops being free:
 * with none, the wakee would queue behind a busy CPU while the waker's node
 * may have room, so wake_affine decides as before. On a one-node machine
 * the rule never applies (this and prev always share the node).
 *
 * Only where prev's node is one LLC (prev_node_llcs == 1: a socket of one
 * L3, an SNC sub-node): there the idle CPU the wakee keeps is in the LLC
 * that holds its cache, so keeping it home saves the refill the pull would
 * cost. Where a node holds several LLCs (EPYC's CCXs under NPS, POWER's
 * per-core LLCs), the idle search spreads the kept wakee over the node's
 * LLCs, most of them cold for it, and keeping wins nothing a pull to the
 * waker's LLC (wake_affine's reason: the partner's data is there) does not
 * win more. Measured (simulated, Welch 95%): on a 2-socket NPS2 AMD-like
 * machine of 8 CCXs per node, hackbench -15.3% [-38.8, +8.2] against no
 * keeping (10 runs); on one-LLC nodes (a 2-socket Intel-like machine and a
 * 2-socket SNC4 Sapphire Rapids) perf-messaging and hackbench gain
 * [+1.4, +29.8] and [+2.0, +61.3].
 */
ARBOR_POLICY bool arbor_wake_node_keep(u32 this_node, u32 prev_node, u32 prev_node_busy,
				       u32 prev_node_cpus, u32 prev_node_llcs)
{
	if (this_node == prev_node || prev_node_llcs != 1)
		return false;
	return prev_node_busy < prev_node_cpus;
}

/* ------------------------------------------------------------------ */
/* SIS_NODE (ours): the idle search goes past a small LLC               */
/* ------------------------------------------------------------------ */

/*
 * select_idle_sibling() looks for an idle CPU in target's LLC only; when it
 * finds none, the wakee queues behind a busy CPU there. Where an LLC is a
 * small part of its node (POWER's 4-thread LLCs: 28 per power11 node; the
 * CCXs of an EPYC), other LLCs of the node often have idle CPUs meanwhile.
 * SIS_NODE then takes one of them: the nearest by number from prev
 * (arbor_sis_node_from, arbor_sis_node_pick) that has been idle for the
 * migration cost already (arbor_sis_node_idle_ok).
 *
 * Sources: seed 000's premise ("the idle search is confined to a tiny
 * LLC"), measured here on power11 (simulated: wakees that found no idle CPU
 * in their 4-CPU LLC waited 52 us each, 13 ms per perf-messaging run, while
 * other LLCs of the node idled); SIS_NODE, the kernel feature of Peter
 * Zijlstra's "sched/fair: Multi-LLC select_idle_sibling()" (tip, 2023: for
 * a Zen2 of 3-core LLCs that idled while short tasks queued in one LLC,
 * because the periodic balance is too slow for them; dropped again after
 * regression reports, not in mainline: on large LLCs waiting there is
 * short and a move costs the cache); and sched_ext's own
 * default idle selection (ext_idle.c scx_select_cpu_dfl: an idle core in
 * the LLC, then in the node, then an idle CPU in the LLC, then in the node),
 * which bpfland and cosmos build on. It stays in the node (WAKE_NODE's
 * reason: the wakee's memory), and does nothing where a node is one LLC
 * (x86-12, xeon-88): there the LLC scan already saw the node.
 *
 * Only while the node is less busy than SIS_UTIL's bound: fewer than
 * 100/imbalance_pct (85%) of its CPUs busy (node_busy, the count WAKE_NODE
 * keeps). SIS_UTIL stops scanning an LLC whose utilisation passes that
 * share (arbor_sis_util_nr_scan); past it, an idle CPU of the node is a
 * moment's gap that its own LLC's next wakee or newidle pull fills, and
 * taking it moves the wakee's cache for nothing. The live count, not the
 * balancer's utilisation average: it is known from the first wake-up on.
 * Measured (power11 schbench, 99% busy): the bound cut the placements
 * from 5,515 to 136 per run; the wake-up p99 it was meant to protect came
 * back only with arbor_sis_node_idle_ok (docs/findings/2026-11-27-sis-node).
 */
ARBOR_POLICY bool arbor_sis_node_try(bool any_allowed, u32 node_llcs, u32 node_busy,
				     u32 node_cpus, u32 imbalance_pct)
{
	if (!any_allowed || node_llcs <= 1)
		return false;
	/* busy / cpus < 100 / imbalance_pct */
	return (u64)node_busy * imbalance_pct < (u64)node_cpus * 100;
}

/*
 * Where SIS_NODE's search starts: at prev when prev is in target's node
 * (prev itself first, if idle: the wakee's cache is there, and it is no
 * other task's seat), else at target. select_idle_sibling() takes prev
 * only when it shares target's LLC (step 2); over the node, the same
 * preference holds. Not measured to matter: in the power11 runs of
 * docs/findings/2026-11-27-sis-node, starting from target or from prev gave
 * the same results (SIS_NODE's wake-ups there had target == prev).
 */
ARBOR_POLICY u32 arbor_sis_node_from(s32 target, s32 prev, u32 target_node, u32 prev_node)
{
	return (u32)(prev_node == target_node ? prev : target);
}

/*
 * Is an idle CPU of another LLC free to take? Only if it has been idle
 * for the migration cost already (idle_stamp: when it went idle; 0 if it
 * has not gone idle since the scheduler loaded: asked only of CPUs in the
 * idle mask, it has then been idle since before the load, longer than any
 * stamp could tell, and no task of ours ran there). A CPU that ran a task
 * more recently is still that task's: its cache holds that task's data,
 * and the task, just gone to sleep, is likely to come back to it in a
 * moment; the wakee would push it out, to queue or to move in turn. This
 * is fair.c's task_hot() (a task that ran within sysctl_sched_migration_cost is
 * cache-hot where it ran, and the balancer leaves it there) seen from the
 * CPU's side. Measured (power11 schbench): taking any idle CPU of the node,
 * the first wake-ups of 53 workers whose prev CPUs (0-17, 14 of them on
 * CPU 0) the fork burst had crowded moved onto the seats of other workers
 * that had just slept, and the workers' wake-up p99 over the run rose from
 * 15 to 32 us; with this test, 15.9 (docs/findings/2026-11-27-sis-node).
 */
ARBOR_POLICY bool arbor_sis_node_idle_ok(u64 idle_stamp, u64 now, u64 migration_cost)
{
	if (!idle_stamp)
		return true;
	return now >= idle_stamp && now - idle_stamp >= migration_cost;
}

/* The index of the lowest set bit of x != 0 (no ctz instruction in BPF). */
ARBOR_POLICY u32 arbor_word_first(u64 x)
{
	u32 n = 0;

	x &= -x;
	if (x & 0xffffffff00000000ULL)
		n += 32;
	if (x & 0xffff0000ffff0000ULL)
		n += 16;
	if (x & 0xff00ff00ff00ff00ULL)
		n += 8;
	if (x & 0xf0f0f0f0f0f0f0f0ULL)
		n += 4;
	if (x & 0xccccccccccccccccULL)
		n += 2;
	if (x & 0xaaaaaaaaaaaaaaaaULL)
		n += 1;
	return n;
}

/*
 * SIS_NODE's choice: the first CPU at or after `from` (wrapping) that is
 * idle (idle) and in the node (node), over `words` words; -1 if none. The
 * nearest by number: on POWER the other half of target's SMT8 core, on
 * x86 the next LLC. Not a whole idle core first, as select_idle_cpu()
 * prefers within the LLC: that needs the idle-core mask, three calls
 * (get, copy, put) on the waker's path for every search, found or not.
 * `node` is volatile because BPF passes the loader-filled rodata
 * node_cpus (const volatile): read through a plain const pointer, clang
 * folded it to its all-zero initialiser and the pick always failed in
 * BPF while it worked natively (found by the 1s2d2c2t VM probe,
 * tests/vm/ours.sh).
 */
ARBOR_POLICY s32 arbor_sis_node_pick(const u64 *idle, const volatile u64 *node, u32 words, u32 from)
{
	u32 fw = from / 64, lo = from & 63, k;

	if (!words || words > CPU_MASK_WORDS || fw >= words)
		return -1;
	/* k = 0: from's word at and above from; k = words: the same word below it */
	POLICY_FOR(k, 0, CPU_MASK_WORDS + 1) {
		u32 w = (fw + k) % words;
		u64 m;

		if (k > words)
			break;
		w &= CPU_MASK_WORDS - 1;
		m = idle[w] & node[w];
		if (k == 0)
			m &= ~0ULL << lo;
		else if (k == words)
			m &= lo ? ~(~0ULL << lo) : 0;
		if (m)
			return (s32)(w * 64 + arbor_word_first(m));
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* SYNC_LOCAL (ours): a sync wakee runs where its waker sleeps         */
/* ------------------------------------------------------------------ */

/*
 * WF_SYNC is a promise: "the waker is going to sleep soon" (kernel/sched/
 * wait.c, __wake_up_sync_key; pipe_write, unix sockets and binder use it).
 * Today's kernel only lets it tip wake_affine towards the waker's CPU
 * (fair.c wake_affine_idle: sync and one task on this CPU -> this CPU;
 * wake_affine_weight subtracts the waker's load), and select_idle_sibling
 * then moves the wakee to an idle CPU anyway, which pays an idle exit and
 * an IPI while the waker's CPU is about to be free. Kernels 2.6.24-2.6.35
 * ran such a wakee on the waker's CPU when the promise had been kept:
 * wake_affine() honoured `sync` only while both tasks' avg_overlap (the run
 * time between waking a task and sleeping) stayed below
 * sysctl_sched_migration_cost (sched_fair.c; avg_overlap went in 2.6.36
 * because a single average misjudged mixed behaviour). rusty and bpfland
 * queue every sync wakee on the waker's CPU (in our simulator: perf-pipe 22-43%
 * faster, rq_wait 0); bpfland's unconditional rule makes hackbench 6-8 times
 * slower, because hackbench's senders wake 20 receivers and go on running.
 *
 * Here the promise is learned per waker, from what it did: a sync wake-up
 * is kept when the waker's next act is to sleep (no other sync wake-up
 * first), within the migration cost (the kernel's own bound above);
 * arbor_sync_record shifts that into an 8-bit history. The wakee goes to
 * the waker's CPU only when all of the last 8 were kept, this is the
 * waker's first sync wake-up since it last slept, and the waker's CPU runs
 * nothing else. A waker that breaks it once loses the rule for its next 8
 * sync wake-ups; a new task starts with none kept.
 */
#define ARBOR_SYNC_HIST_MASK 0xffu

/* one more sync wake-up of a waker: kept (it slept next) or not */
ARBOR_POLICY u32 arbor_sync_record(u32 hist, bool kept)
{
	return ((hist << 1) | (kept ? 1u : 0u)) & ARBOR_SYNC_HIST_MASK;
}

/* the waker slept `now`: was its pending sync wake-up (at `since`) kept? */
ARBOR_POLICY bool arbor_sync_kept(u64 since, u64 now, u64 window)
{
	return now >= since && now - since <= window;
}

/*
 * Queue the wakee on the waker's CPU? `pending` is the waker's sync_since
 * (non-zero: it woke a task with WF_SYNC and has not slept since);
 * `this_nr_running` counts the tasks on the waker's CPU, the waker included.
 */
ARBOR_POLICY bool arbor_sync_local(u32 hist, u64 pending, u32 this_nr_running)
{
	return (hist & ARBOR_SYNC_HIST_MASK) == ARBOR_SYNC_HIST_MASK && !pending &&
	       this_nr_running <= 1;
}

/*
 * WAKE_LOCAL (ours; on in `default` only): a wakee whose prev CPU
 * is its waker's, which runs the waker alone, is queued there behind the
 * waker (no idle search, no IPI, its cache where it left it) when the
 * waker is about to sleep, by measurement rather than by WF_SYNC's word:
 *  - `wake_sleep_avg`: how long the waker stays up after the first of its
 *    wake-ups until it sleeps (its own 1/8 average, arbor_wake_sleep_update);
 *  - `direct_lat_avg`: how long a wakee sent to an idle CPU takes to run
 *    (the reschedule IPI, the CPU's idle exit, the switch), as measured
 *    for wake-ups onto this CPU (its 1/8 average);
 *  - `elapsed`: how long the waker's current run of wake-ups has lasted
 *    already; past its average, the average no longer describes it.
 * It waits behind the waker only while that is expected to be shorter than
 * the alternative; 0 for either average means not measured yet: no.
 *
 * Sources: cosmos keeps a wakee on prev when prev is the waker's CPU and
 * both share an address space, "a high chance of finding hot cache data on
 * that CPU", while the system is not saturated (its select_cpu); fair.c
 * wake_affine_idle() takes the waker's CPU for a sync wake-up when the
 * waker runs there alone, on WF_SYNC's promise that it sleeps next.
 * Measured here (docs/findings/2026-11-27-wake-shortcut): on x86-12, wakeprobe's
 * message thread wakes its 6 workers in 1-2 us and sleeps, while a wakee
 * sent to an idle CPU takes ~12 us (C1E exit); arbor moved the worker whose
 * prev was the message thread's CPU to another CPU on ~200 of 1000
 * wake-ups, cosmos on 4. Holds on any topology: both sides are measured
 * on the machine, and a machine with shallow idle states makes the
 * alternative cheap and the rule rare.
 */
ARBOR_POLICY bool arbor_wake_local(u64 wake_sleep_avg, u64 elapsed, u64 direct_lat_avg,
				   u32 this_nr_running)
{
	return wake_sleep_avg && direct_lat_avg && wake_sleep_avg < direct_lat_avg &&
	       elapsed <= wake_sleep_avg && this_nr_running <= 1;
}

/* A 1/8 average (arbor_update_avg) that starts at its first sample, never 0. */
ARBOR_POLICY u64 arbor_wake_sleep_update(u64 avg, u64 sample)
{
	u64 a = avg ? arbor_update_avg(avg, sample) : sample;

	return a ? a : 1;
}

/*
 * Wake-up preemption (check_preempt_wakeup_fair, EEVDF): a wakee queued on
 * a CPU that is running a task preempts it when the wakee is eligible and
 * its deadline is earlier (pick_eevdf would pick it). `enabled` is
 * WAKE_PREEMPT: off stands for a CFS kernel whose sched_wakeup_granularity_ns
 * is so large that wake-ups never preempt (seed 003 ran with 15 ms), so the
 * wakee waits for the task to block or use up its slice.
 */
ARBOR_POLICY bool arbor_wake_preempt(bool enabled, bool curr_running, bool eligible,
				     u64 wakee_deadline, u64 curr_deadline)
{
	return enabled && curr_running && eligible && wakee_deadline < curr_deadline;
}

/*
 * PREEMPT_SYNC (ours, default only): a wakee woken with WF_SYNC preempts the
 * task running on its CPU only once that task has run `threshold` since it
 * was picked; before that it waits in the queue, where it runs when the task
 * sleeps (which is what WF_SYNC announces) or its slice ends.
 *
 * Source: kernel/sched/fair.c preempt_sync() (7.2; under sched_feat
 * NEXT_BUDDY, off by default there; Mel Gorman, "sched/fair: Reimplement
 * NEXT_BUDDY to align with EEVDF goals", 2025): "As WF_SYNC is not strictly
 * obeyed, allow some runtime for batch wakeups to be issued". Its threshold
 * is sysctl_sched_migration_cost, a quarter of it when select_task_rq chose
 * the CPU (WF_RQ_SELECTED). Here that is always so: sched_ext tells us of
 * WF_SYNC only in select_cpu, so `threshold` is migration_cost / 4 (125 us).
 * The kernel measures the run from se->exec_start, which update_curr() has
 * just set to now when preempt_sync() reads it, so as written a sync wakee
 * never forces the preemption there; we keep the rule its comment states
 * (the time since the pick), so that a task that wakes and goes on running
 * is still preempted after 125 us.
 *
 * Why on any machine: a task that writes a batch of messages (pipes, unix
 * sockets: pipe_write and sock_def_readable wake with WF_SYNC) wakes each
 * reader as it writes. Preempting it at the first write runs a reader that
 * finds one message and sleeps, and the next write wakes it again: more
 * wake-ups and switches for the same data, on a CPU of any size. Measured:
 * on the host's 2 CPUs hackbench took 2,787 wake-ups under default against
 * p2dq's 371 (which never preempts), with 1,392 wake-up preemptions
 * (docs/findings/2026-11-28-idle-pull-llc §3).
 *
 * Returns true when the preemption waits. `picked` is when the running task
 * was picked (0: nothing runs, nothing to defer).
 */
ARBOR_POLICY bool arbor_sync_defer(bool sync, u64 now, u64 picked, u64 threshold)
{
	return sync && picked && now < picked + threshold;
}

/*
 * SYNC_PAIR (ours, default only): a WF_SYNC wake-up of the task whose own
 * last wake-up woke this waker is treated as an ordinary wake-up:
 * PREEMPT_SYNC does not defer it, and NEXT_BUDDY may make it the CPU's
 * next buddy (eligible: it runs next, whatever the deadlines).
 *
 * Why: PREEMPT_SYNC's deferral pays when the waker has a batch of
 * wake-ups to issue and nothing to wait for. A waker that wakes the task
 * which answered its last request (a client sending the next query to its
 * server, which woke it with the reply) waits for this wakee's answer:
 * running on, it runs out of work and sleeps, and the answer must then
 * wake it. Run at once, the wakee answers while the waker is still
 * runnable, and no wake-up is needed. The kernel's preempt_sync() states
 * the same direction for the case it can see: "WF_RQ_SELECTED implies
 * ... it is more likely (but not guaranteed) the waker requires the wakee
 * to finish", and lowers its threshold (fair.c, 7.2); the pair is the
 * case where the waker certainly requires it. The pair is read from
 * wake_wide's own record (record_wakee's last_wakee, fair.c), kept on
 * every wake-up anyway: two loads, no call.
 *
 * Measured (docs/findings/2026-11-29-sync-pair): on the host's 2 CPUs,
 * pgbench's client deferred 118,746 backends per run under PREEMPT_SYNC
 * and slept 0.9% more often than under stock; with the pair exempted its
 * wake-ups fall 18.5% and tps rises 0.5% above stock. Holds on any
 * machine: it needs only the two tasks' record; where idle CPUs take the
 * wakees, neither PREEMPT_SYNC nor NEXT_BUDDY acts, nor does it.
 *
 * `wakee_last_wakee` is the wakee's last wakee as a waker (-1: none yet).
 */
ARBOR_POLICY bool arbor_sync_pair(bool enabled, s32 wakee_last_wakee, s32 waker_pid)
{
	return enabled && wakee_last_wakee >= 0 && wakee_last_wakee == waker_pid;
}

/*
 * NEXT_BUDDY (the kernel's, sched_feat NEXT_BUDDY, off by default in 7.2;
 * on in `default` only): a wakee queued on a CPU that runs a task becomes
 * the CPU's next buddy, and pick_eevdf() returns the next buddy whenever it
 * is eligible (PICK_BUDDY, on by default), so wakeup_preempt_fair()'s
 * "if @p has become the most eligible task, force preemption" preempts for
 * it whatever the two deadlines. Without it, a wakee that is eligible but
 * whose deadline (its vruntime + a slice) is later than the running task's
 * waits for that task's slice to end.
 *
 * Source: kernel/sched/fair.c, 7.2, wakeup_preempt_fair(),
 * set_preempt_buddy(), pick_eevdf() (Mel Gorman, "sched/fair: Reimplement
 * NEXT_BUDDY to align with EEVDF goals", 2025: "Picking the ->next buddy
 * will affect latency but not fairness": only an eligible task, one owed
 * service, is picked).
 *
 * As the kernel: not for a WF_SYNC wake-up, whose preemption
 * preempt_sync() decides (PREEMPT_SYNC, arbor_sync_defer; then the
 * deadline rule, arbor_wake_preempt); not for a new task (WF_FORK: the
 * caller asks only for wake-ups); an existing buddy is kept (the kernel
 * keeps it when its deadline is sooner; here always, until a task runs on
 * the CPU). Not ported: the buddy's pick when no preemption happens (for a
 * sync wakee). Tried twice and dropped: for PREEMPT_SYNC's deferred
 * wakees alone (docs/findings/2026-11-28-preempt-sync §2),
 * and as the kernel has it, every eligible sync wakee a buddy in the
 * CPU's local queue: epyc perf-messaging 49% slower, the
 * parked wakees out of idle CPUs' reach
 * (docs/findings/2026-11-28-one-llc-cost §8).
 *
 * Why on any machine, measured: schbench's message thread, woken by a
 * worker's post (a futex, not WF_SYNC), queued behind a worker's 17 ms of
 * math until that worker's slice ended: its wake-up p99 was 1.7-2.1 ms
 * under stock and default on power11, epyc and spr-2s, against lavd's 5-14
 * us; every worker that posted meanwhile joined its next batch (the p99
 * place in a batch 15-33 against lavd's 4-6), and a worker's wake-up
 * latency holds the waker's work for those before it
 * (docs/findings/2026-11-28-one-llc-cost §6).
 *
 * The caller checks eligibility (a read of the CPU's average) when this
 * returns true.
 */
ARBOR_POLICY bool arbor_next_buddy(u64 curr_running_since, bool sync, bool buddy_pending)
{
	return curr_running_since && !sync && !buddy_pending;
}

/*
 * The order in which an idle CPU looks for a victim in its LLC: overloaded
 * SMT siblings first (they share L1/L2: the cheapest move), then the LLC's
 * overloaded CPUs starting after this CPU and wrapping, so that idle CPUs
 * spread over victims instead of all hitting the lowest-numbered one.
 * s->idle_mask carries the *overloaded* bits here. Writes LLC indices into
 * order[] and returns how many.
 */
ARBOR_POLICY u32 arbor_steal_order(const struct llc_snapshot *s, s32 this, u32 *order, u32 *cnt)
{
	u32 nr = s->nr < MAX_LLC_CPUS ? s->nr : MAX_LLC_CPUS, n, start = 0, this_core = (u32)-1;
	s32 k;

	POLICY_FOR(k, 0, MAX_LLC_CPUS) {
		if ((u32)k >= nr)
			break;
		if (s->cpu[k] == this) {
			start = k + 1;
			this_core = s->core[k];
			break;
		}
	}
	*cnt = 0;
	/* pass 0: SMT siblings; pass 1: the rest of the LLC */
	POLICY_FOR(k, 0, 2 * MAX_LLC_CPUS) {
		u32 pass = (u32)k / MAX_LLC_CPUS, j = (u32)k % MAX_LLC_CPUS, i;
		bool sib;

		if (j >= nr)
			continue;
		i = ((start + j) % nr) & (MAX_LLC_CPUS - 1);
		if (s->cpu[i] == this || !arbor_mask_test(s->idle_mask, LLC_MASK_WORDS, i))
			continue;
		sib = s->core[i] == this_core;
		if ((pass == 0) != sib)
			continue;
		/*
		 * the count lives in the caller's memory (*cnt, BPF scratch):
		 * a register counter used as an index is tracked exactly by
		 * the verifier, which would then check all 2 x MAX_LLC_CPUS
		 * iterations one by one
		 */
		n = *cnt;
		if (n < MAX_LLC_CPUS) {
			order[n & (MAX_LLC_CPUS - 1)] = i;
			*cnt = n + 1;
		}
	}
	return *cnt;
}

/*
 * The overloaded flag of a CPU (>= 2 tasks accounted), after its count
 * moved from `prev` by `delta` (+1/-1; the caller did the atomic add, and
 * *nr_running already holds the new count). Only a move across 2 can change
 * what the flag should be. Deciding it from the move alone is not enough:
 * two CPUs moving one count (2 -> 1 by one, 1 -> 2 by the other) may set
 * the flag in the opposite order and leave it 0 with 2 tasks. So the flag
 * is recomputed from the count itself, and rechecked after each change:
 * whoever changes the flag last reads the count afterwards, and the last
 * move across 2 is followed by its own check, so once every updater is
 * done the flag matches the count. Returns the change to make to the
 * number of overloaded CPUs (each flip by compare-and-swap counts once).
 * At most two rounds (the verifier): enough unless the count keeps
 * moving under it.
 */
ARBOR_POLICY s32 arbor_overload_update(u32 *nr_running, u32 prev, s32 delta, u32 *flag)
{
	u32 now_n = (u32)((s64)prev + delta);
	s32 d = 0, k;

	/* no move across 2: the flag's target is unchanged */
	if ((prev >= 2) == (now_n >= 2))
		return 0;
	/* two rounds, unrolled: a loop here made enqueue too complex for the verifier */
	for (k = 0; k < 2; k++) {
		u32 want = *(volatile u32 *)nr_running >= 2;
		u32 cur = *(volatile u32 *)flag;

		if (cur == want)
			break;
		if (__sync_val_compare_and_swap(flag, cur, want) == cur)
			d += want ? 1 : -1;
	}
	return d;
}

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

/* ------------------------------------------------------------------ */
/* CACHE_LB (seed 002, merged in 7.2 as CONFIG_SCHED_CACHE)            */
/* ------------------------------------------------------------------ */

/*
 * The hottest LLC of a process: the one where its threads' occupancy sums
 * highest. The preference moves only when the new LLC scores more than
 * twice the current one, so two near-equal LLCs do not make the process
 * bounce (and drag its working set) back and forth.
 *
 * Room rule (ours, not in the seed; feature CACHE_ROOM, which the caller
 * switches off by passing an empty over_mask): when the hottest LLC is over
 * the aggregation threshold (bit i of over_mask, a bitmap of LLCS_MASK_WORDS
 * words) and the process runs about as
 * much (at least half as much) in an LLC that is not, prefer that one.
 * Without it, two processes split evenly across two LLCs both pick the
 * first LLC on the tie; allow_into then refuses the second process's
 * threads (the LLC is full of the first), and it stays split for good. The
 * seed leaves that to the kernel's active balancing, which we do not have.
 * The "half as much" bound keeps a process that has just aggregated from
 * chasing the decaying run time it left behind.
 */
ARBOR_POLICY s32 arbor_cache_pick_pref(u32 n, const u64 *occ, s32 cur, const u64 *over_mask)
{
	/* indices and their values kept apart: the verifier wants bounded reads */
	s32 best = -1, room = -1, i;
	u64 best_occ = 0, room_occ = 0, cur_occ;

	POLICY_FOR(i, 0, MAX_LLCS) {
		u64 o;

		if ((u32)i >= n)
			break;
		o = occ[i & (MAX_LLCS - 1)];
		if (!o)
			continue;
		if (best < 0 || o > best_occ) {
			best = i;
			best_occ = o;
		}
		if (!arbor_mask_test(over_mask, LLCS_MASK_WORDS, i) && (room < 0 || o > room_occ)) {
			room = i;
			room_occ = o;
		}
	}
	if (best < 0)
		return cur;
	if (cur < 0 || (u32)cur >= n || cur >= MAX_LLCS) {
		if (arbor_mask_test(over_mask, LLCS_MASK_WORDS, best) && room >= 0 &&
		    2 * room_occ >= best_occ)
			return room;
		return best;
	}
	cur_occ = occ[cur & (MAX_LLCS - 1)];
	/* the current LLC is full and an LLC with room is as hot: move */
	if (arbor_mask_test(over_mask, LLCS_MASK_WORDS, cur) && room >= 0 && room != cur &&
	    2 * room_occ >= cur_occ)
		return room;
	if (best != cur && best_occ > 2 * cur_occ)
		return best;
	return cur;
}

/*
 * Aggregation must not pack a process beyond what its LLC can hold
 * (invalid_llc_nr() of the merged series, fair.c): single-threaded
 * processes gain nothing, and the process's average number of running
 * threads x SMT width (each thread wants a whole core) must fit, with the
 * kernel's fits_capacity() 20% margin (x * 1280 < max * 1024), in the LLC's
 * CPUs times the tolerance factor. `tolerance` is llc_aggr_tolerance, a
 * multiplier as get_sched_cache_scale(1) makes it: 1 (the default) = the
 * LLC as it is, N = N times the LLC, 0 = no process is eligible
 * (aggregation off), >= 100 = no limit. Running threads, not threads: a
 * process's sleeping threads (a main thread in join(), a pool's idle
 * workers) take no CPU. The SMT scaling is the merged fix for the seed's
 * Power11 SMT8 regression.
 */
ARBOR_POLICY bool arbor_cache_eligible(u32 nr_threads, u32 nr_running, u32 smt, u32 llc_size,
				       u32 tolerance)
{
	if (nr_threads < 2 || tolerance == 0)
		return false;
	if (tolerance >= 100)
		return true;
	return (u64)nr_running * smt * 1280 < (u64)llc_size * tolerance * 1024;
}

/*
 * A process's average number of running threads, from its decayed run time
 * (halved every epoch). With N threads always running, the full epochs sum
 * to N * epoch and the current one adds N * (now % epoch): divide by that
 * window, rounding to the nearest.
 */
ARBOR_POLICY u32 arbor_cache_nr_running(u64 total_rt, u64 now, u64 epoch)
{
	u64 win = epoch + (epoch ? now % epoch : 0);

	return win ? (total_rt + win / 2) / win : 0;
}

/* An LLC is over the aggregation threshold when util*100 >= cap*aggr_pct. */
ARBOR_POLICY bool arbor_cache_over(u64 util, u64 cap, u32 aggr_pct)
{
	return util * 100 >= cap * aggr_pct;
}

/* util_a/cap_a > util_b/cap_b * (100 + imb_pct)/100, cross-multiplied. */
ARBOR_POLICY bool arbor_cache_busier(u64 ua, u64 ca, u64 ub, u64 cb, u32 imb_pct)
{
	return ua * cb * 100 > ub * ca * (100 + imb_pct);
}

/*
 * can_migrate_llc() of the merged series (fair.c), for a task of
 * utilisation `task_util` moving from src to dst. When both LLCs are over
 * the threshold before the move, ordinary balancing decides (mig_unrestricted:
 * allowed). Otherwise the move is judged on the utilisations it would
 * leave: src without the task, dst with it (the kernel subtracts and adds
 * tsk_util; without that, a move that itself tips an LLC over the threshold
 * would pass). One difference, kept from before: "busier" compares
 * utilisation per unit of capacity (arbor_cache_busier), where the kernel's
 * util_greater() compares raw sums; they agree for LLCs of one size.
 *
 * INTO its preferred LLC (dst): refused when dst would be over the
 * threshold and more than imb_pct busier than src.
 */
ARBOR_POLICY bool arbor_cache_allow_into(u64 dst_util, u64 dst_cap, u64 src_util, u64 src_cap,
					 u64 task_util, u32 aggr_pct, u32 imb_pct)
{
	if (arbor_cache_over(dst_util, dst_cap, aggr_pct) &&
	    arbor_cache_over(src_util, src_cap, aggr_pct))
		return true;
	src_util = src_util > task_util ? src_util - task_util : 0;
	dst_util += task_util;
	return !(arbor_cache_over(dst_util, dst_cap, aggr_pct) &&
		 arbor_cache_busier(dst_util, dst_cap, src_util, src_cap, imb_pct));
}

/*
 * OUT of its preferred LLC (src = pref) to dst: refused unless the
 * preferred LLC, without the task, is still over the threshold and more
 * than imb_pct busier than dst with it (hysteresis: aggregation is sticky,
 * and a move that would make dst as busy as pref would bounce back).
 */
ARBOR_POLICY bool arbor_cache_allow_out(u64 pref_util, u64 pref_cap, u64 dst_util, u64 dst_cap,
					u64 task_util, u32 aggr_pct, u32 imb_pct)
{
	if (arbor_cache_over(pref_util, pref_cap, aggr_pct) &&
	    arbor_cache_over(dst_util, dst_cap, aggr_pct))
		return true;
	pref_util = pref_util > task_util ? pref_util - task_util : 0;
	dst_util += task_util;
	return arbor_cache_over(pref_util, pref_cap, aggr_pct) &&
	       arbor_cache_busier(pref_util, pref_cap, dst_util, dst_cap, imb_pct);
}

/*
 * Seed 002's cache-aware balancing decision for one task (the seed's v3:
 * the migrate_llc_task migration type and the LLC hint can_migrate_task()
 * consults; merged for 7.2 as can_migrate_llc_task() over can_migrate_llc(),
 * with llc_balance() tagging a group group_llc_balance and
 * migrate_degrades_llc() in can_migrate_task()). For a task whose process
 * prefers LLC `pref` (-1: none) moving from LLC src_llc to dst_llc, with
 * the LLCs' utilisations and capacities before the move:
 *  - same LLC, or no preference: no opinion (LLC_LB_ANY);
 *  - dst is the preferred LLC: when both LLCs are over the aggregation
 *    threshold the kernel answers mig_unrestricted and ordinary balancing
 *    decides (LLC_LB_ANY: no LLC pull, as llc_balance() tags a group only
 *    on mig_allow); otherwise allowed into it by arbor_cache_allow_into ->
 *    LLC_LB_PULL (the balancer may pull it even when the groups are
 *    balanced: calculate_imbalance() sets migrate_llc_task with an
 *    imbalance of one task), refused -> LLC_LB_FORBID;
 *  - src is the preferred LLC: leaving it only when arbor_cache_allow_out
 *    says the preferred LLC is over the threshold and busier by imb_pct
 *    (or both are over): LLC_LB_ANY, else LLC_LB_FORBID (mig_forbid: the
 *    balancer does not pull it out);
 *  - neither: no opinion.
 */
ARBOR_POLICY u32 arbor_cache_lb_task(s32 pref, u32 src_llc, u32 dst_llc, u64 src_util,
				     u64 src_cap, u64 dst_util, u64 dst_cap, u64 task_util,
				     u32 aggr_pct, u32 imb_pct)
{
	if (pref < 0 || src_llc == dst_llc)
		return LLC_LB_ANY;
	if ((u32)pref == dst_llc) {
		if (arbor_cache_over(dst_util, dst_cap, aggr_pct) &&
		    arbor_cache_over(src_util, src_cap, aggr_pct))
			return LLC_LB_ANY;
		return arbor_cache_allow_into(dst_util, dst_cap, src_util, src_cap, task_util,
					      aggr_pct, imb_pct) ? LLC_LB_PULL : LLC_LB_FORBID;
	}
	if ((u32)pref == src_llc)
		return arbor_cache_allow_out(src_util, src_cap, dst_util, dst_cap, task_util,
					     aggr_pct, imb_pct) ? LLC_LB_ANY : LLC_LB_FORBID;
	return LLC_LB_ANY;
}

/* ------------------------------------------------------------------ */
/* EEVDF ordering (baseline: kernel/sched/fair.c, 6.6+)                */
/* ------------------------------------------------------------------ */

/*
 * The kernel's weights are NICE_0_LOAD = 1024 based (sched_prio_to_weight);
 * sched_ext hands us p->scx.weight = that weight * 100 / 1024, rounded
 * (sched_weight_to_cgroup). Going back (sched_weight_from_cgroup) gives the
 * kernel's weight to within 1.5% (nice 5: 335 -> 33 -> 338), so vruntime
 * advances as in fair.c and nice levels keep the kernel's CPU shares.
 */
#define ARBOR_NICE_0_LOAD	1024ULL
/* TICK_NSEC at HZ=1000: the floor of update_entity_lag()'s limit */
#define ARBOR_TICK_NS		1000000ULL

ARBOR_POLICY u64 arbor_eevdf_weight(u32 scx_weight)
{
	u64 w = ((u64)scx_weight * ARBOR_NICE_0_LOAD + 50) / 100;

	return w ? w : 1;
}

/* calc_delta_fair(): real time -> virtual time of an entity of weight w. */
ARBOR_POLICY u64 arbor_calc_delta_fair(u64 delta, u64 w)
{
	if (w == ARBOR_NICE_0_LOAD || !w)
		return delta;
	return delta * ARBOR_NICE_0_LOAD / w;
}

/*
 * RUN_TO_PARITY (baseline: kernel/sched/features.h, on since EEVDF in 6.6):
 * once picked, the running task keeps the CPU until it has used the
 * request it was picked with, i.e. until its vruntime reaches the deadline
 * it had at the pick (6.6: set_next_entity stashes the deadline in vlag and
 * pick_eevdf returns curr while curr->vlag == curr->deadline; 6.12+:
 * protect_slice(), vprot; with every task at the same slice, as here,
 * vprot is that deadline, and PREEMPT_SHORT, which cancels the protection
 * for a wakee with a shorter slice, never applies). A wake-up that would
 * preempt (pick_eevdf picks the wakee) waits for the end of that request.
 * scx_arbor charges vruntime at ticks, so the end is computed once, at the
 * pick: the wall time the task needs to run its vruntime up to its
 * deadline at its weight (calc_delta_fair's inverse), from `now`.
 */
ARBOR_POLICY u64 arbor_protect_until(u64 now, u64 vruntime, u64 deadline, u64 w)
{
	if (deadline <= vruntime)
		return now;
	if (!w)
		w = ARBOR_NICE_0_LOAD;
	return now + (deadline - vruntime) * w / ARBOR_NICE_0_LOAD;
}

/* Is the running task's request still protected at `now`? */
ARBOR_POLICY bool arbor_run_to_parity(bool enabled, u64 now, u64 protect_until)
{
	return enabled && now < protect_until;
}

/*
 * Signed division by a positive divisor, truncating toward zero as the
 * kernel's div_s64() (BPF before v4 has no signed division).
 */
ARBOR_POLICY s64 arbor_div_s64(s64 a, u64 b)
{
	if (!b)
		return a;
	if (a < 0)
		return -(s64)((u64)(-a) / b);
	return (s64)((u64)a / b);
}

/* avg_vruntime_add() / avg_vruntime_sub(): an entity joins or leaves. */
ARBOR_POLICY void arbor_avg_add(struct eevdf_avg *a, u64 v, u64 w)
{
	a->sum += (s64)(v - a->zero) * (s64)w;
	a->load += w;
}

ARBOR_POLICY void arbor_avg_sub(struct eevdf_avg *a, u64 v, u64 w)
{
	a->sum -= (s64)(v - a->zero) * (s64)w;
	a->load = a->load > w ? a->load - w : 0;
	if (!a->load)
		a->sum = 0;
}

/* update_curr(): an entity in the sum advanced its vruntime by dv. */
ARBOR_POLICY void arbor_avg_shift(struct eevdf_avg *a, u64 dv, u64 w)
{
	a->sum += (s64)dv * (s64)w;
}

/*
 * avg_vruntime(): zero + sum / load, rounded toward minus infinity ("sign
 * flips effective floor / ceiling"); an empty queue's average is zero.
 */
ARBOR_POLICY u64 arbor_avg_vruntime(const struct eevdf_avg *a)
{
	s64 avg = a->sum;

	if (!a->load)
		return a->zero;
	if (avg < 0)
		avg -= (s64)(a->load - 1);
	return a->zero + (u64)arbor_div_s64(avg, a->load);
}

/*
 * vruntime_eligible(): an entity is eligible when its vruntime is at most
 * the weighted average, i.e. its lag is >= 0, tested without the division:
 * sum >= (v - zero) * load.
 */
ARBOR_POLICY bool arbor_vruntime_eligible(const struct eevdf_avg *a, u64 v)
{
	return a->sum >= (s64)(v - a->zero) * (s64)a->load;
}

/*
 * update_zero_vruntime() (avg_vruntime_update): move the reference to
 * new_zero, keeping the average; keys stay small so the sum cannot overflow.
 */
ARBOR_POLICY void arbor_avg_rebase(struct eevdf_avg *a, u64 new_zero)
{
	a->sum -= (s64)(new_zero - a->zero) * (s64)a->load;
	a->zero = new_zero;
}

/*
 * update_entity_lag(): lag = avg - v, clamped to +-calc_delta_fair(max(2 *
 * slice, TICK_NSEC)): a task keeps what it is owed (or owes) across a
 * preemption, a migration or a sleep, but never more than about two slices.
 */
ARBOR_POLICY s64 arbor_entity_lag(u64 avg, u64 v, u64 slice, u64 w)
{
	s64 lag = (s64)(avg - v);
	s64 limit = (s64)arbor_calc_delta_fair(2 * slice > ARBOR_TICK_NS ? 2 * slice :
					      ARBOR_TICK_NS, w);

	if (lag > limit)
		return limit;
	if (lag < -limit)
		return -limit;
	return lag;
}

/*
 * place_entity() (PLACE_LAG): joining a queue of load `load` (curr
 * included) moves the average, so the lag is inflated by (load + w) / load
 * for the task to keep it once it is in: v = avg - lag * (load + w) / load.
 * An empty queue keeps no lag (the kernel's "cfs_rq->nr_queued && vlag").
 */
ARBOR_POLICY u64 arbor_place_vruntime(u64 avg, s64 lag, u64 load, u64 w)
{
	if (!load || !lag)
		return avg;
	lag = arbor_div_s64(lag * (s64)(load + w), load);
	return avg - (u64)lag;
}

/*
 * update_deadline(): a task that reached its deadline gets a new request:
 * deadline = v + calc_delta_fair(slice). Before that, the deadline stays
 * where it is: a preempted task keeps its place.
 */
ARBOR_POLICY u64 arbor_update_deadline(u64 v, u64 deadline, u64 slice, u64 w)
{
	if ((s64)(v - deadline) < 0)
		return deadline;
	return v + arbor_calc_delta_fair(slice, w);
}

/*
 * DELAY_DEQUEUE + DELAY_ZERO (6.12+), approximated at wake-up: a task that
 * goes to sleep owing time (lag < 0) stays on its queue, its vruntime
 * frozen while the queue's average moves on, until its lag reaches 0; then
 * it leaves with lag 0 (DELAY_ZERO truncates any positive lag). We do not
 * keep sleepers queued: at wake-up the lag is what it would have become,
 * min(0, lag + (avg now - avg at sleep)), both averages of the queue
 * without the sleeper, and 0 if the queue emptied
 * meanwhile (the sleeper would then have been picked and dequeued). A task
 * owed time (lag >= 0) was dequeued at once and keeps its lag.
 */
ARBOR_POLICY s64 arbor_sleep_lag(s64 vlag, u64 avg_then, u64 avg_now, bool rq_empty)
{
	s64 lag;

	if (vlag >= 0)
		return vlag;
	if (rq_empty)
		return 0;
	lag = vlag + (s64)(avg_now - avg_then);
	return lag < 0 ? lag : 0;
}

/*
 * The real time left until a task reaches its deadline (the inverse of
 * calc_delta_fair): the slice sched_ext runs it for, so that it comes back
 * through stopping() when update_deadline() would resched it. At least
 * `min` (a task is never given an empty slice).
 */
ARBOR_POLICY u64 arbor_slice_left(u64 v, u64 deadline, u64 w, u64 min)
{
	u64 left;

	if ((s64)(deadline - v) <= 0)
		return min;
	left = (deadline - v) * w / ARBOR_NICE_0_LOAD;
	return left > min ? left : min;
}

/*
 * Starvation bound (ours: a deliberate deviation from fair.c). EEVDF gives
 * each queued task its weighted share and nothing more: one nice-18 task
 * (weight 15) behind 810 CPU-bound nice -14 tasks gets about 6e-7 of its
 * CPU and fair.c lets it wait minutes. Under sched_ext that is fatal: the
 * watchdog (ext.c check_rq_for_timeouts, every scx_watchdog_timeout / 2)
 * ejects the whole scheduler once any runnable task has waited longer
 * than scx_watchdog_timeout, ops.timeout_ms or, with none set (scx_arbor
 * sets none), SCX_WATCHDOG_MAX_TIMEOUT, 30 s. So a task queued for half
 * that timeout is run ahead of EEVDF's order (eevdf.bpf.h starve_*): a
 * safety net in every profile, not a placement feature.
 */
#define ARBOR_WATCHDOG_DEFAULT_MS	30000ULL

/* The wait past which a queued task is starved: half the watchdog timeout. */
ARBOR_POLICY u64 arbor_starve_bound_ns(u32 timeout_ms)
{
	return (timeout_ms ? (u64)timeout_ms : ARBOR_WATCHDOG_DEFAULT_MS) * 1000000ULL / 2;
}

/*
 * Has a task waiting since `wait_since` (0: not waiting) waited `bound`
 * or longer at `now`?
 */
ARBOR_POLICY bool arbor_starved(u64 now, u64 wait_since, u64 bound)
{
	return wait_since && now > wait_since && now - wait_since >= bound;
}

/* ------------------------------------------------------------------ */
/* Wake-up latency histogram                                           */
/* ------------------------------------------------------------------ */

/*
 * log2 buckets of a runnable -> running delay: bucket 0 is < 1 us, bucket
 * i (1..14) is [2^(i-1), 2^i) us, bucket 15 is >= 16.384 ms.
 */
ARBOR_POLICY u32 arbor_lat_bucket(u64 ns)
{
	u64 us = ns / 1000;
	u32 b = 0;

	while (us && b < ARBOR_LAT_BUCKETS - 1) {
		us >>= 1;
		b++;
	}
	return b;
}

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
 * One level of the product, from the bottom: `eff` so far, `child` the
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

ARBOR_POLICY u64 arbor_cg_weight(u64 w, u32 depth, const u64 *gw, const u64 *active)
{
	u64 eff = w, child = w;
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

#endif /* __ARBOR_POLICY_H */
