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
 * placement (kernel/sched/fair.c, ~6.17-7.2), as restated in
 * shared/reference/baseline.md.
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
ARBOR_POLICY bool arbor_wa_throttled(const struct wa_input *in)
{
	return (in->features & (1u << FEAT_WA_THROTTLE)) && in->throttle_ns &&
	       in->now < in->next_wake_affine;
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
	if ((in->features & (1u << FEAT_WA_THROTTLE)) && in->throttle_ns)
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

/* Is every SMT sibling of llc index i idle? */
ARBOR_POLICY bool arbor_core_idle(const struct llc_snapshot *s, u32 i)
{
	s32 j; u32 nr = s->nr < MAX_LLC_CPUS ? s->nr : MAX_LLC_CPUS;
	u32 core = s->core[i & (MAX_LLC_CPUS - 1)];

	POLICY_FOR(j, 0, MAX_LLC_CPUS) {
		if ((u32)j >= nr)
			break;
		if (s->core[j] == core && !(s->idle_mask & (1ULL << j)))
			return false;
	}
	return true;
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

	POLICY_FOR(k, 0, MAX_LLC_CPUS) {
		if ((u32)k >= nr)
			break;
		if (s->cpu[k] == target) {
			start = k + 1;
			break;
		}
	}

	POLICY_FOR(k, 0, MAX_LLC_CPUS) {
		u32 i;

		if ((u32)k >= nr)
			break;
		i = (start + k) % nr;
		i &= MAX_LLC_CPUS - 1;
		if (has_idle_core) {
			if (!(s->idle_mask & (1ULL << i)))
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
			if (s->idle_mask & (1ULL << i))
				return s->cpu[i];
		}
	}
	if (has_idle_core)
		*clear_hint = 1;
	return idle_cpu;
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
	s32 best = -1, i;

	POLICY_FOR(i, 0, MAX_LLCS) {
		if ((u32)i >= n)
			break;
		if (best < 0 || nr_idle[i] > nr_idle[best] ||
		    (nr_idle[i] == nr_idle[best] && util[i] < util[best]))
			best = i;
	}
	return best;
}

/*
 * The idlest CPU of a group: an idle CPU, the most recently idled one first
 * (its cache is warmest, and without cpuidle state data that is the
 * kernel's tie-break); if none is idle, the least loaded.
 * idle_stamp[i] = 0 means "busy".
 */
ARBOR_POLICY s32 arbor_idlest_cpu(u32 n, const u64 *idle_stamp, const u64 *load)
{
	s32 best_idle = -1, best_busy = -1, i;

	POLICY_FOR(i, 0, MAX_LLC_CPUS) {
		if ((u32)i >= n)
			break;
		if (idle_stamp[i]) {
			if (best_idle < 0 || idle_stamp[i] > idle_stamp[best_idle])
				best_idle = i;
		} else if (best_busy < 0 || load[i] < load[best_busy]) {
			best_busy = i;
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
 * migration_cost (cache hot, task_hot()). `since_ran` is ~0 when unknown.
 */
ARBOR_POLICY bool arbor_can_pull(bool allowed_here, bool migration_disabled, bool above_llc,
				 u64 since_ran, u64 migration_cost)
{
	if (!allowed_here || migration_disabled)
		return false;
	if (above_llc && since_ran < migration_cost)
		return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* Newidle balance cost bound (baseline: sched_balance_newidle)        */
/* ------------------------------------------------------------------ */

/*
 * A CPU about to idle for avg_idle ns should not spend longer than that
 * looking for work: each level is tried only while the cost spent so far
 * plus that level's worst recent cost fits in the expected idle time.
 */
ARBOR_POLICY bool arbor_newidle_level_ok(u64 avg_idle, u64 spent, u64 level_cost)
{
	return avg_idle >= spent + level_cost;
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

/*
 * The order in which an idle CPU looks for a victim in its LLC: overloaded
 * SMT siblings first (they share L1/L2: the cheapest move), then the LLC's
 * overloaded CPUs starting after this CPU and wrapping, so that idle CPUs
 * spread over victims instead of all hitting the lowest-numbered one.
 * s->idle_mask carries the *overloaded* bits here. Writes LLC indices into
 * order[] and returns how many.
 */
ARBOR_POLICY u32 arbor_steal_order(const struct llc_snapshot *s, s32 this, u32 *order)
{
	u32 nr = s->nr < MAX_LLC_CPUS ? s->nr : MAX_LLC_CPUS, n = 0, start = 0, this_core = (u32)-1;
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
	/* pass 0: SMT siblings; pass 1: the rest of the LLC */
	POLICY_FOR(k, 0, 2 * MAX_LLC_CPUS) {
		u32 pass = (u32)k / MAX_LLC_CPUS, j = (u32)k % MAX_LLC_CPUS, i;
		bool sib;

		if (j >= nr)
			continue;
		i = ((start + j) % nr) & (MAX_LLC_CPUS - 1);
		if (s->cpu[i] == this || !(s->idle_mask & (1ULL << i)))
			continue;
		sib = s->core[i] == this_core;
		if ((pass == 0) != sib)
			continue;
		if (n < MAX_LLC_CPUS)
			order[n++ & (MAX_LLC_CPUS - 1)] = i;
	}
	return n;
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
 * ASYM_WAKE_CAP): the idle CPU with most spare capacity (cap - util) if
 * that spare exceeds half the task's util; otherwise the least loaded CPU
 * by util/cap. Returns an index, -1 if n == 0.
 */
ARBOR_POLICY s32 arbor_capacity_pick(u32 n, const u32 *cap, const u64 *cpu_util,
				     u64 idle_mask, u64 task_util)
{
	s32 best_spare = -1, best_load = -1, i;
	s64 spare_max = 0;

	POLICY_FOR(i, 0, MAX_LLC_CPUS) {
		s64 spare;

		if ((u32)i >= n)
			break;
		spare = (s64)cap[i] - (s64)cpu_util[i];
		if ((idle_mask & (1ULL << i)) && (best_spare < 0 || spare > spare_max)) {
			best_spare = i;
			spare_max = spare;
		}
		/* compare util/cap by cross-multiplying */
		if (best_load < 0 || cpu_util[i] * cap[best_load] < cpu_util[best_load] * cap[i])
			best_load = i;
	}
	if (best_spare >= 0 && spare_max > (s64)(task_util / 2))
		return best_spare;
	return best_load;
}

/*
 * select_idle_capacity() (mainline 5.7, ASYM_IDLE_CAPACITY): scan from the
 * target, wrapping, for the first idle CPU the task fits; if none fits,
 * the idle CPU with the highest capacity. -1 if nothing is idle.
 */
ARBOR_POLICY s32 arbor_select_idle_capacity(u32 n, const u32 *cap, u64 idle_mask,
					    u64 task_util, u32 start)
{
	s32 best = -1, k;
	u32 best_cap = 0;

	POLICY_FOR(k, 0, MAX_LLC_CPUS) {
		u32 i;

		if ((u32)k >= n)
			break;
		i = ((start + k) % n) & (MAX_LLC_CPUS - 1);
		if (!(idle_mask & (1ULL << i)))
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
ARBOR_POLICY s32 arbor_misfit_target(u32 cur_cap, u32 n, const u32 *cap, u64 idle_mask)
{
	s32 best = -1, i;

	POLICY_FOR(i, 0, MAX_LLC_CPUS) {
		if ((u32)i >= n)
			break;
		if ((u64)cap[i] * 1024 <= (u64)cur_cap * 1078)
			continue;
		if (!(idle_mask & (1ULL << i)))
			continue;
		if (best < 0 || cap[i] > cap[best])
			best = i;
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
 * switches off by passing over_mask 0): when the hottest LLC is over the
 * aggregation threshold (bit i of over_mask) and the process runs about as
 * much (at least half as much) in an LLC that is not, prefer that one.
 * Without it, two processes split evenly across two LLCs both pick the
 * first LLC on the tie; allow_into then refuses the second process's
 * threads (the LLC is full of the first), and it stays split for good. The
 * seed leaves that to the kernel's active balancing, which we do not have.
 * The "half as much" bound keeps a process that has just aggregated from
 * chasing the decaying run time it left behind.
 */
ARBOR_POLICY s32 arbor_cache_pick_pref(u32 n, const u64 *occ, s32 cur, u64 over_mask)
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
		if (!(over_mask & (1ULL << i)) && (room < 0 || o > room_occ)) {
			room = i;
			room_occ = o;
		}
	}
	if (best < 0)
		return cur;
	if (cur < 0 || (u32)cur >= n || cur >= MAX_LLCS) {
		if ((over_mask & (1ULL << best)) && room >= 0 && 2 * room_occ >= best_occ)
			return room;
		return best;
	}
	cur_occ = occ[cur & (MAX_LLCS - 1)];
	/* the current LLC is full and an LLC with room is as hot: move */
	if ((over_mask & (1ULL << cur)) && room >= 0 && room != cur && 2 * room_occ >= cur_occ)
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

#endif /* __ARBOR_POLICY_H */
