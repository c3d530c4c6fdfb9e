/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h, by concern: EEVDF ordering (fair.c, 6.6+) and the wake-up latency histogram.
 * Included by policy.h only, after the parts before it (their rules may
 * be used here), with its ARBOR_POLICY and POLICY_FOR macros.
 */
#ifndef __ARBOR_POLICY_H
#error "include policy.h, not its parts"
#endif

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

/*
 * The fine weight scale: 2^10 times the one above, as fair.c carries
 * se->load.weight on 64-bit (SCHED_FIXEDPOINT_SHIFT: scale_load,
 * scale_load_down). A task's weight in its queue (eevdf.bpf.h rq_w) is
 * kept on it, so that a flattened group weight below a few units on the
 * 1024 scale (cgroup.bpf.h, a task of a deep or crowded group) keeps its
 * value: it is used as it is by calc_delta_fair, the deadlines and the
 * slices, and scaled down (>> 10, at least 2) only for avg_vruntime's sums
 * and place_entity's load, which keeps the sums' products in range, as
 * fair.c's avg_vruntime_add and place_entity do (a fine weight under 2
 * units is counted there as 2: the sums only place the average, which a
 * task of such weight, one of many in a group, moves little). A fine
 * weight that is a 1024-scale one shifted (every task outside a group)
 * gives exactly the results of the 1024 scale.
 */
#define ARBOR_W_SHIFT		10
#define ARBOR_NICE_0_HI		(ARBOR_NICE_0_LOAD << ARBOR_W_SHIFT)

/* scale_load(): a 1024-scale weight on the fine scale */
ARBOR_POLICY u64 arbor_w_hi(u64 w)
{
	return w << ARBOR_W_SHIFT;
}

/* scale_load_down(): a fine weight on the 1024 scale for the sums, 0 kept, else at least 2 */
ARBOR_POLICY u64 arbor_w_down(u64 fw)
{
	u64 w = fw >> ARBOR_W_SHIFT;

	if (!fw)
		return 0;
	return w > 2 ? w : 2;
}

/*
 * calc_delta_fair(): real time -> virtual time of an entity of fine weight
 * fw: delta * NICE_0 / fw, exact, in two parts so that the product cannot
 * overflow.
 */
ARBOR_POLICY u64 arbor_calc_delta_fair_hi(u64 delta, u64 fw)
{
	if (fw == ARBOR_NICE_0_HI || !fw)
		return delta;
	return delta / fw * ARBOR_NICE_0_HI + delta % fw * ARBOR_NICE_0_HI / fw;
}

/* calc_delta_fair() for a weight w on the 1024 scale */
ARBOR_POLICY u64 arbor_calc_delta_fair(u64 delta, u64 w)
{
	return arbor_calc_delta_fair_hi(delta, arbor_w_hi(w));
}

/* calc_delta_fair's inverse: virtual time x at fine weight fw -> real time, x * fw / NICE_0, exact */
ARBOR_POLICY u64 arbor_vtime_to_ns(u64 x, u64 fw)
{
	return x / ARBOR_NICE_0_HI * fw + x % ARBOR_NICE_0_HI * fw / ARBOR_NICE_0_HI;
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
ARBOR_POLICY u64 arbor_protect_until_hi(u64 now, u64 vruntime, u64 deadline, u64 fw)
{
	if (deadline <= vruntime)
		return now;
	if (!fw)
		fw = ARBOR_NICE_0_HI;
	return now + arbor_vtime_to_ns(deadline - vruntime, fw);
}

/* the same for a weight w on the 1024 scale */
ARBOR_POLICY u64 arbor_protect_until(u64 now, u64 vruntime, u64 deadline, u64 w)
{
	return arbor_protect_until_hi(now, vruntime, deadline, arbor_w_hi(w));
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
ARBOR_POLICY s64 arbor_entity_lag_hi(u64 avg, u64 v, u64 slice, u64 fw)
{
	s64 lag = (s64)(avg - v);
	s64 limit = (s64)arbor_calc_delta_fair_hi(2 * slice > ARBOR_TICK_NS ? 2 * slice :
						 ARBOR_TICK_NS, fw);

	if (lag > limit)
		return limit;
	if (lag < -limit)
		return -limit;
	return lag;
}

/* the same for a weight w on the 1024 scale */
ARBOR_POLICY s64 arbor_entity_lag(u64 avg, u64 v, u64 slice, u64 w)
{
	return arbor_entity_lag_hi(avg, v, slice, arbor_w_hi(w));
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
ARBOR_POLICY u64 arbor_update_deadline_hi(u64 v, u64 deadline, u64 slice, u64 fw)
{
	if ((s64)(v - deadline) < 0)
		return deadline;
	return v + arbor_calc_delta_fair_hi(slice, fw);
}

/* the same for a weight w on the 1024 scale */
ARBOR_POLICY u64 arbor_update_deadline(u64 v, u64 deadline, u64 slice, u64 w)
{
	return arbor_update_deadline_hi(v, deadline, slice, arbor_w_hi(w));
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
ARBOR_POLICY u64 arbor_slice_left_hi(u64 v, u64 deadline, u64 fw, u64 min)
{
	u64 left;

	if ((s64)(deadline - v) <= 0)
		return min;
	left = arbor_vtime_to_ns(deadline - v, fw);
	return left > min ? left : min;
}

/* the same for a weight w on the 1024 scale */
ARBOR_POLICY u64 arbor_slice_left(u64 v, u64 deadline, u64 w, u64 min)
{
	return arbor_slice_left_hi(v, deadline, arbor_w_hi(w), min);
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
