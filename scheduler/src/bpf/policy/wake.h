/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h, by concern: the baseline's wake-up path: wake_wide, wake_affine, select_idle_sibling.
 * Included by policy.h only, after the parts before it (their rules may
 * be used here), with its ARBOR_POLICY and POLICY_FOR macros.
 */
#ifndef __ARBOR_POLICY_H
#error "include policy.h, not its parts"
#endif

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
