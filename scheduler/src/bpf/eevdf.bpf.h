/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: EEVDF ordering (baseline: kernel/sched/fair.c), per CPU.
 *
 * Every CPU's DSQ stands for its run-queue, so every CPU keeps the kernel's
 * weighted average vruntime of the tasks queued on it or running on it
 * (struct eevdf_avg; arithmetic in policy.h). Nothing here is global: a
 * queue's average is written by its own CPU (running, tick, stopping) and
 * by CPUs that queue a task on it or take one from it, under the queue's
 * own lock, as the kernel takes the rq lock.
 *
 * A task's life, as fair.c's:
 *  - joining a queue (wake-up, migration): place_entity() sets vruntime =
 *    avg - lag (inflated for the joining weight); a woken task gets a new
 *    deadline, vruntime + slice/weight, a migrated one keeps its relative
 *    deadline (PLACE_REL_DEADLINE), a new one half a slice
 *    (PLACE_DEADLINE_INITIAL);
 *  - running: its run is charged to vruntime at every tick and when it
 *    stops (update_curr), and it gets a new deadline only once it reaches
 *    the old one (update_deadline): a preempted task keeps its lag and its
 *    deadline;
 *  - leaving (sleep, migration): update_entity_lag() saves lag = avg -
 *    vruntime, clamped to about two slices;
 *  - dispatch takes the earliest deadline among the eligible (vruntime <=
 *    avg) tasks (pick_eevdf), looking at the first ARBOR_PICK_SCAN in
 *    deadline order.
 *
 * Approximations, all written down:
 *  - a task pulled by another CPU (newidle, steal, busy balance) or moved
 *    by the tick changes queue when it starts running there, not when it
 *    is taken: between the two it is counted in its old queue;
 *  - the running task's vruntime is charged at ticks, not continuously,
 *    so the average can be up to one tick behind;
 *  - DELAY_DEQUEUE is modelled at wake-up (policy.h: arbor_sleep_lag), not
 *    by keeping sleepers queued;
 *  - RUN_TO_PARITY's protection ends when the running task has run, at
 *    its weight, the vruntime it had left to its deadline at the pick
 *    (policy.h arbor_protect_until), computed once at the pick, since
 *    vruntime is charged at ticks.
 */
#ifndef __ARBOR_EEVDF_BPF_H
#define __ARBOR_EEVDF_BPF_H

#include "common.bpf.h"

#define EEVDF_REL_DEADLINE	1	/* deadline kept relative across a migration */
#define EEVDF_INITIAL		2	/* a new task: half a slice (PLACE_DEADLINE_INITIAL) */

/* Tasks looked at by dispatch for an eligible one, in deadline order. */
#define ARBOR_PICK_SCAN		8
/* The shortest slice a task is given (arbor_slice_left). */
#define ARBOR_MIN_SLICE_NS	100000ULL

struct eevdf_rq {
	struct bpf_spin_lock lock;
	struct eevdf_avg avg;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_CPUS);
	__type(key, u32);
	__type(value, struct eevdf_rq);
} eevdf_rqs SEC(".maps");

static __always_inline struct eevdf_rq *lookup_rq(s32 cpu)
{
	u32 key = cpu;

	return bpf_map_lookup_elem(&eevdf_rqs, &key);
}

/*
 * its own weight, or for a task of a cgroup its flattened one (cgroup.bpf.h),
 * on the fine scale (policy.h ARBOR_W_SHIFT): rq_w holds it; the queue's
 * sums take it scaled down (arbor_w_down)
 */
static __always_inline u64 task_weight(const struct task_struct *p, const struct task_ctx *tctx)
{
	return cg_task_weight(p, tctx);
}

/*
 * Leave rq_cpu's queue in one critical section: first the charge `dv` of a
 * run that just ended (eevdf_charge_task; 0: none), then update_entity_lag
 * and the sum's avg_vruntime_sub. Sets vlag; *rest is the average of the
 * tasks that stay. Returns the CPU whose queue it left, -1 if none.
 */
static __always_inline s32 eevdf_leave(struct task_ctx *tctx, u64 dv, u64 *rest)
{
	struct eevdf_rq *rq;
	u64 avg, v = tctx->vruntime, w = tctx->rq_w;
	s32 cpu = tctx->rq_cpu;

	if (!valid_cpu(cpu))
		return -1;
	tctx->rq_cpu = -1;
	rq = lookup_rq(cpu);
	if (!rq)
		return -1;
	bpf_spin_lock(&rq->lock);
	if (dv)
		arbor_avg_shift(&rq->avg, dv, arbor_w_down(w ?: ARBOR_NICE_0_HI));
	avg = arbor_avg_vruntime(&rq->avg);
	/* update_entity_lag()'s avg_vruntime() moves the reference there (EEVDF_REBASE) */
	arbor_avg_rebase(&rq->avg, avg);
	arbor_avg_sub(&rq->avg, v, arbor_w_down(w));
	*rest = arbor_avg_vruntime(&rq->avg);
	bpf_spin_unlock(&rq->lock);

	tctx->vlag = arbor_entity_lag_hi(avg, v, slice_cfg.slice_ns, w);
	return cpu;
}

/* Leave rq_cpu's queue (update_entity_lag + the sum's avg_vruntime_sub). */
static __always_inline void eevdf_dequeue(struct task_ctx *tctx, bool sleep)
{
	u64 rest = 0;
	s32 cpu = eevdf_leave(tctx, 0, &rest);

	if (cpu < 0)
		return;
	if (sleep) {
		/*
		 * The average of the tasks that stay (arbor_sleep_lag): at
		 * wake-up it is compared with the queue's average then, which
		 * does not count the sleeper either. The average with the
		 * sleeper in would count its own leaving as the others'
		 * progress: (avg - rest) = -vlag * w / load, unclamped, so a
		 * heavy task (nice -19 among nice-0 tasks: w / load ~ 10) that
		 * owed time came back ~10x further ahead at each sleep, until
		 * its vruntime wrapped and it ran alone (a fuzzer find:
		 * docs/findings/2026-11-26-fuzz-changes, case A).
		 */
		tctx->sleep_avg = rest;
		tctx->sleep_cpu = cpu;
		tctx->eevdf_flags &= ~EEVDF_REL_DEADLINE;
	} else {
		/* PLACE_REL_DEADLINE: a migrating task keeps its deadline */
		tctx->rel_deadline = tctx->deadline - tctx->vruntime;
		tctx->eevdf_flags |= EEVDF_REL_DEADLINE;
		tctx->sleep_cpu = -1;
	}
}

/*
 * stopping(p, false): p stops running and leaves its queue. The kernel's
 * dequeue_task_scx() calls ops.stopping(p, false) and then ops.quiescent()
 * in one dequeue under the rq lock (ext.c:2218-2224; stopping(p, false)
 * comes from nowhere else), as fair.c's dequeue_entity() does update_curr()
 * and the leaving under that lock. So here both go into the queue's
 * average in one critical section (eevdf_leave with the run's charge `dv`),
 * with the same arithmetic in the same order as eevdf_charge() followed by
 * eevdf_dequeue(). Only quiescent() knows whether it is a sleep: it
 * finishes (eevdf_left).
 */
static __always_inline void eevdf_stop_leave(struct task_ctx *tctx, u64 dv)
{
	u64 rest = 0;
	s32 cpu = eevdf_leave(tctx, dv, &rest);

	if (cpu < 0)
		return;
	/* a sleep's (eevdf_dequeue); read only while sleep_cpu names a queue */
	tctx->sleep_avg = rest;
	tctx->left_cpu = cpu;
}

/*
 * quiescent() after eevdf_stop_leave: the rest of eevdf_dequeue(), for a
 * sleep or a property change. Also called with sleep = false before the
 * task joins a queue again, in case no quiescent() came: dequeue_task_scx()
 * skips it for a task that is migrating (task_on_rq_migrating), which is
 * no sleep.
 */
static __always_inline void eevdf_left(struct task_ctx *tctx, bool sleep)
{
	s32 cpu = tctx->left_cpu;

	tctx->left_cpu = -1;
	if (sleep) {
		tctx->sleep_cpu = cpu;
		tctx->eevdf_flags &= ~EEVDF_REL_DEADLINE;
	} else {
		tctx->rel_deadline = tctx->deadline - tctx->vruntime;
		tctx->eevdf_flags |= EEVDF_REL_DEADLINE;
		tctx->sleep_cpu = -1;
	}
}

/*
 * place_entity()'s deadline, as an offset from the placed vruntime: the
 * one kept across a migration (rel_deadline), half a request for a new
 * task (PLACE_DEADLINE_INITIAL), else a whole request (vslice). It does
 * not depend on the queue, so the slice of a task not placed yet is known
 * (eevdf_wake_direct).
 */
static __always_inline u64 eevdf_deadline_offset(const struct task_ctx *tctx, u64 vslice)
{
	if (tctx->eevdf_flags & EEVDF_REL_DEADLINE)
		return tctx->rel_deadline;
	if (tctx->eevdf_flags & EEVDF_INITIAL)
		return vslice / 2;
	return vslice;
}

/*
 * Join cpu's queue (place_entity + avg_vruntime_add). Returns whether the
 * task is eligible there.
 */
static __always_inline bool eevdf_place(struct task_struct *p, struct task_ctx *tctx, s32 cpu)
{
	struct eevdf_rq *rq;
	u64 w = task_weight(p, tctx), vslice = arbor_calc_delta_fair_hi(slice_cfg.slice_ns, w), avg, v;
	u64 dw = arbor_w_down(w);
	s64 lag = tctx->vlag;
	s32 sleep_cpu = tctx->sleep_cpu;
	bool elig;

	rq = lookup_rq(cpu);
	if (!rq)
		return true;

	/*
	 * woken: the lag a delayed dequeue would have left it (DELAY_ZERO),
	 * from the queue it slept on; the same queue is read below, under the
	 * one lock taken there
	 */
	if (lag < 0 && valid_cpu(sleep_cpu) && sleep_cpu != cpu) {
		struct eevdf_rq *srq = lookup_rq(sleep_cpu);

		if (srq) {
			u64 now_avg;
			bool empty;

			bpf_spin_lock(&srq->lock);
			now_avg = arbor_avg_vruntime(&srq->avg);
			empty = !srq->avg.load;
			bpf_spin_unlock(&srq->lock);
			lag = arbor_sleep_lag(lag, tctx->sleep_avg, now_avg, empty);
		}
	}
	tctx->sleep_cpu = -1;

	bpf_spin_lock(&rq->lock);
	avg = arbor_avg_vruntime(&rq->avg);
	/* place_entity()'s avg_vruntime() moves the reference there (EEVDF_REBASE) */
	arbor_avg_rebase(&rq->avg, avg);
	if (lag < 0 && sleep_cpu == cpu)
		lag = arbor_sleep_lag(lag, tctx->sleep_avg, avg, !rq->avg.load);
	v = arbor_place_vruntime(avg, lag, rq->avg.load, dw);
	/*
	 * ... and, for a task heavier than the queue it joins with a lag,
	 * to its placed vruntime: the average will come close to it, and
	 * the keys of the heavy weight must stay small (place_entity's
	 * update_zero, "avoiding the multiplication overflow")
	 */
	if (lag && rq->avg.load && dw > rq->avg.load)
		arbor_avg_rebase(&rq->avg, v);
	arbor_avg_add(&rq->avg, v, dw);
	elig = arbor_vruntime_eligible(&rq->avg, v);
	bpf_spin_unlock(&rq->lock);

	tctx->vruntime = v;
	tctx->rq_w = w;
	tctx->rq_cpu = cpu;
	tctx->vlag = 0;
	tctx->deadline = v + eevdf_deadline_offset(tctx, vslice);
	tctx->eevdf_flags = 0;
	return elig;
}

/* Is the task, counted in cpu's queue, eligible there (vruntime <= average)? */
static __always_inline bool eevdf_eligible_on(struct task_ctx *tctx, s32 cpu)
{
	struct eevdf_rq *rq = lookup_rq(cpu);
	bool elig;

	if (!rq)
		return true;
	bpf_spin_lock(&rq->lock);
	elig = arbor_vruntime_eligible(&rq->avg, tctx->vruntime);
	bpf_spin_unlock(&rq->lock);
	return elig;
}

/*
 * Make sure the task is counted in cpu's queue (joining it, or moving from
 * another one). Returns 1 if it is eligible there, 0 if not, and -1 if it
 * was counted there already: its eligibility is then left unread (a look
 * at the queue's average under its lock), for the caller to read with
 * eevdf_eligible_on() if a decision needs it.
 */
static __always_inline int eevdf_join(struct task_struct *p, struct task_ctx *tctx, s32 cpu)
{
	if (valid_cpu(tctx->left_cpu))
		eevdf_left(tctx, false);
	if (tctx->rq_cpu == cpu)
		return -1;
	if (valid_cpu(tctx->rq_cpu))
		eevdf_dequeue(tctx, false);
	return eevdf_place(p, tctx, cpu);
}

/*
 * update_curr()'s task half: charge the run since exec_start to vruntime.
 * Returns the charge, which the queue's average must take too (0: none).
 */
static __always_inline u64 eevdf_charge_task(struct task_ctx *tctx, u64 now)
{
	u64 dv;

	if (!tctx->exec_start || now <= tctx->exec_start) {
		tctx->exec_start = now;
		return 0;
	}
	dv = arbor_calc_delta_fair_hi(now - tctx->exec_start, tctx->rq_w ?: ARBOR_NICE_0_HI);
	tctx->exec_start = now;
	tctx->vruntime += dv;
	return dv;
}

/*
 * update_curr()'s queue half: the charge dv goes into the queue's average.
 * `renewed`: the task has just been given a new request (update_deadline),
 * whose avg_vruntime() moves the queue's reference to the average
 * (EEVDF_REBASE), in the same critical section.
 */
static __always_inline void eevdf_charge_rq(struct task_ctx *tctx, u64 dv, bool renewed)
{
	struct eevdf_rq *rq;

	/* a charge of 0 and no new request leave the sum as it is */
	if ((!dv && !renewed) || !valid_cpu(tctx->rq_cpu) || !(rq = lookup_rq(tctx->rq_cpu)))
		return;
	bpf_spin_lock(&rq->lock);
	arbor_avg_shift(&rq->avg, dv, arbor_w_down(tctx->rq_w ?: ARBOR_NICE_0_HI));
	if (renewed)
		arbor_avg_rebase(&rq->avg, arbor_avg_vruntime(&rq->avg));
	bpf_spin_unlock(&rq->lock);
}

/*
 * update_cfs_group() at the tick, for a task of a cgroup: its queued weight
 * follows its groups' shares, as reweight_entity() moves a queued entity
 * (policy.h arbor_reweight), in its queue's average under the queue's lock;
 * and its CPU's load sum follows the weight (acct_reweight), which its
 * wake-up accounted before placing it.
 */
static __always_inline void eevdf_reweight(struct task_struct *p, struct task_ctx *tctx)
{
	struct eevdf_rq *rq;
	u64 w, avg, v, dl;

	if (!tctx->cg_id || !valid_cpu(tctx->rq_cpu) || !tctx->rq_w)
		return;
	w = task_weight(p, tctx);
	if (w != tctx->rq_w && (rq = lookup_rq(tctx->rq_cpu))) {
		v = tctx->vruntime;
		dl = tctx->deadline;
		bpf_spin_lock(&rq->lock);
		avg = arbor_avg_vruntime(&rq->avg);
		arbor_avg_rebase(&rq->avg, avg);
		arbor_avg_sub(&rq->avg, v, arbor_w_down(tctx->rq_w));
		arbor_reweight(avg, &v, &dl, tctx->rq_w, w);
		arbor_avg_add(&rq->avg, v, arbor_w_down(w));
		bpf_spin_unlock(&rq->lock);
		tctx->vruntime = v;
		tctx->deadline = dl;
		tctx->rq_w = w;
		stat_inc(STAT_CG_REWEIGHTS);
	}
	acct_reweight(p, tctx);
}

/* update_curr() at the tick: charge the run since exec_start to vruntime and the average. */
static __always_inline void eevdf_charge(struct task_ctx *tctx, u64 now)
{
	eevdf_charge_rq(tctx, eevdf_charge_task(tctx, now), false);
}

/* The slice sched_ext runs it for: until its deadline (update_deadline). */
static __always_inline u64 eevdf_slice(struct task_ctx *tctx)
{
	return arbor_slice_left_hi(tctx->vruntime, tctx->deadline, tctx->rq_w ?: ARBOR_NICE_0_HI,
				   ARBOR_MIN_SLICE_NS);
}

/*
 * A wakee that select_cpu() inserts straight into an idle CPU's local
 * queue joins that CPU's queue when it starts to run there (running():
 * eevdf_run_on() places it under the queue's lock), not now
 * on the waker's CPU. The kernel does the same: ttwu_queue_cond() (core.c)
 * hands the wakee of an idle CPU to that CPU's wake list, whose
 * sched_ttwu_pending() runs enqueue_task_fair() and so place_entity()
 * there ("sched: Queue task on wakelist in the same llc if the wakee cpu
 * is idle", 5.19; across LLCs since TTWU_QUEUE). It takes three calls
 * (the queue's lookup, lock and unlock) off the waker's side of the
 * wake-up, which a waker that wakes several tasks in turn (wakeprobe's and
 * schbench's message threads) pays once per wakee before the last one runs;
 * the wakee's running() pays them instead, on the wakee's CPU, which is
 * waking up anyway. Until then the CPU's queue does not count it; nothing reads that
 * queue meanwhile but a wake-up that queues there, which the kernel's
 * wake list orders the same way (by arrival on the CPU).
 *
 * Returns the slice to insert it with: eevdf_slice() after the placement,
 * which depends only on the deadline's offset from the placed vruntime,
 * known now. A task still counted in some queue (it did not sleep) joins
 * now, as eevdf_join().
 */
static __always_inline u64 eevdf_wake_direct(struct task_struct *p, struct task_ctx *tctx, s32 cpu)
{
	u64 w;

	if (valid_cpu(tctx->left_cpu))
		eevdf_left(tctx, false);
	if (valid_cpu(tctx->rq_cpu)) {
		eevdf_join(p, tctx, cpu);
		return eevdf_slice(tctx);
	}
	w = task_weight(p, tctx);
	return arbor_slice_left_hi(0, eevdf_deadline_offset(tctx, arbor_calc_delta_fair_hi(slice_cfg.slice_ns, w)),
				   w, ARBOR_MIN_SLICE_NS);
}

/*
 * running(): a task taken from another CPU's queue changes queue now
 * (charged from now); one that waited in this CPU's queue has nothing to
 * do here. The kernel's set_next_entity() does not touch the average
 * either: 7.2 moves a queue's reference (zero_vruntime) only where
 * avg_vruntime() is computed, in place_entity(), update_entity_lag() and
 * update_deadline() (EEVDF_REBASE in eevdf_place, eevdf_leave and
 * eevdf_charge_rq), so the common running() takes no lock.
 */
static __always_inline void eevdf_run_on(struct task_struct *p, struct task_ctx *tctx, s32 cpu)
{
	if (valid_cpu(tctx->left_cpu))
		eevdf_left(tctx, false);
	if (tctx->rq_cpu == cpu)
		return;
	if (valid_cpu(tctx->rq_cpu))
		eevdf_dequeue(tctx, false);
	eevdf_place(p, tctx, cpu);
}

/*
 * pick_eevdf(): move to the local queue the first eligible task of cpu's
 * DSQ (deadline order). None eligible among the first ARBOR_PICK_SCAN: if
 * prev is still runnable and eligible, it is the pick (return true with
 * nothing moved: it comes back through enqueue); otherwise the earliest
 * deadline, so that a CPU never idles with work queued. Returns whether
 * the CPU has something to run.
 */
static __always_inline bool eevdf_dispatch(s32 cpu, struct task_struct *prev, bool prev_runnable)
{
	struct eevdf_rq *rq;
	struct eevdf_avg snap;
	struct task_struct *p, *first;
	struct task_ctx *tctx;
	s32 nr = scx_bpf_dsq_nr_queued(cpu_dsq(cpu));
	u32 k = 0;

	/* an empty queue (a CPU about to idle) needs no look at the average */
	if (nr <= 0)
		return false;
	/*
	 * One task and no runnable prev: the scan below moves it whether it is
	 * eligible (the loop's move) or not (the final move of the earliest
	 * deadline), so move it at once, without the average's lock and the
	 * DSQ iterator. (One difference, in an error case only: a task no
	 * longer allowed here is skipped by the move below, where the loop's
	 * move would have failed with an error.)
	 */
	if (nr == 1 && !prev_runnable)
		return scx_bpf_dsq_move_to_local(cpu_dsq(cpu), 0);
	rq = lookup_rq(cpu);
	if (!rq)
		return scx_bpf_dsq_move_to_local(cpu_dsq(cpu), 0);
	bpf_spin_lock(&rq->lock);
	snap = rq->avg;
	bpf_spin_unlock(&rq->lock);

	/*
	 * The first task in deadline order, when it is eligible, is
	 * pick_eevdf()'s answer: take it with a peek and a move (2 calls)
	 * rather than the iterator's new, next, destroy and a move (4). The
	 * DSQ is not locked between the two (scx_bpf_dsq_peek() is a
	 * point-in-time snapshot, ext.c): a task queued on this CPU meanwhile
	 * with an earlier deadline is the one moved, its eligibility unread,
	 * as in the one-task case above. Not eligible: the scan below, which
	 * skips it.
	 */
	first = scx_bpf_dsq_peek(cpu_dsq(cpu));
	if (first) {
		tctx = lookup_task_ctx(first);
		if (!tctx || tctx->rq_cpu != cpu || arbor_vruntime_eligible(&snap, tctx->vruntime))
			return scx_bpf_dsq_move_to_local(cpu_dsq(cpu), 0);
	}

	bpf_for_each(scx_dsq, p, cpu_dsq(cpu), 0) {
		if (p == first) {
			++k;
			continue;
		}
		tctx = lookup_task_ctx(p);
		if ((!tctx || tctx->rq_cpu != cpu || arbor_vruntime_eligible(&snap, tctx->vruntime)) &&
		    scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, SCX_DSQ_LOCAL, 0))
			return true;
		if (++k >= ARBOR_PICK_SCAN)
			break;
	}
	if (prev_runnable && prev && (tctx = lookup_task_ctx(prev)) && tctx->rq_cpu == cpu &&
	    arbor_vruntime_eligible(&snap, tctx->vruntime))
		return true;
	return scx_bpf_dsq_move_to_local(cpu_dsq(cpu), 0);
}

/*
 * The starvation bound (policy.h arbor_starved: a deliberate deviation
 * from fair.c, which lets a low-weight task wait for minutes, for the
 * sched_ext watchdog's sake). Off the hot path: a busy CPU's tick looks
 * through its queue once per ARBOR_STARVE_SCAN_NS (the watchdog's own
 * check runs every timeout / 2); finding a task waiting for the bound or
 * longer, it ends the running task's slice, and the dispatch that follows
 * moves a starved task to the local queue ahead of the EEVDF pick, with
 * a slice of at most ARBOR_STARVE_SLICE_NS: it needs to run, not to run
 * long (its wait ends as it runs). The dispatches after it do the same
 * until no starved task is left, so a queue of many starved tasks is
 * drained one short slice each, not one per scan period. A starved task
 * thus waits at most the bound plus a scan period plus the short slices
 * of those ahead of it, whatever the weights and the slice. The scan
 * walks the whole queue with no counter of its own (a constant bound
 * makes the verifier walk each step: "the sequence of 8193 jumps is too
 * complex"); the DSQ iterator ends at the queue's end. scx_arbor sets no
 * ops.timeout_ms, so the bound is half the kernel's default, 15 s.
 */
#define ARBOR_STARVE_SCAN_NS	(1000ULL * 1000 * 1000)
#define ARBOR_STARVE_SLICE_NS	(1000ULL * 1000)
#define ARBOR_TIMEOUT_MS	0	/* SCX_OPS_DEFINE sets no .timeout_ms */

/* Find (and with `move`, run next) a starved task of cpu's queue. */
static __always_inline bool starve_scan(s32 cpu, u64 now, bool move)
{
	u64 bound = arbor_starve_bound_ns(ARBOR_TIMEOUT_MS);
	struct task_struct *p;
	struct task_ctx *tctx;

	bpf_for_each(scx_dsq, p, cpu_dsq(cpu), 0) {
		tctx = lookup_task_ctx(p);
		if (tctx && arbor_starved(now, tctx->wait_since, bound)) {
			if (!move)
				return true;
			if (p->scx.slice > ARBOR_STARVE_SLICE_NS)
				scx_bpf_dsq_move_set_slice(BPF_FOR_EACH_ITER, ARBOR_STARVE_SLICE_NS);
			if (scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, SCX_DSQ_LOCAL, 0)) {
				stat_inc_on(cpu, STAT_STARVED_DISPATCH);
				return true;
			}
		}
	}
	return false;
}

/* At the tick of the running task `curr`: is a task of our queue starved? */
static __always_inline void starve_tick(s32 cpu, struct task_struct *curr, u64 now)
{
	struct cpu_ctx *c = lookup_cpu_ctx(cpu);

	if (!c || now < c->next_starve_scan)
		return;
	c->next_starve_scan = now + ARBOR_STARVE_SCAN_NS;
	if (scx_bpf_dsq_nr_queued(cpu_dsq(cpu)) > 0 && starve_scan(cpu, now, false)) {
		c->starve_pending = 1;
		curr->scx.slice = 0;	/* the core reschedules at the tick's end */
	}
}

#endif /* __ARBOR_EEVDF_BPF_H */
