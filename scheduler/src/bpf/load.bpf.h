/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: load and utilisation tracking.
 *
 * sched_ext does not expose CFS's PELT signals, so we keep our own
 * (baseline.md): per task a utilisation (fraction of time running) and a
 * runnable average (fraction of time running or waiting); per CPU the
 * number and weight of tasks accounted to it, a PELT average of that weight
 * (the kernel's cpu_load) and of "some task is running" (cpu_util).
 * All averages halve every 32 ms (policy.h: arbor_pelt_accum).
 */
#ifndef __ARBOR_LOAD_BPF_H
#define __ARBOR_LOAD_BPF_H

#include "common.bpf.h"

/*
 * A task's weight in its CPU's load (policy.h arbor_h_weight): its own, or
 * for a task of a group (cg_id) the flattened weight it was last queued
 * with (rq_w, from its last placement or tick; its CPU's sum follows at
 * the tick: acct_reweight).
 * This and the load rules below are global functions of scalars, verified
 * once and called without a branch: inlined, their branches and look-ups
 * multiplied the verifier's paths through every callback that accounts a
 * task or reads a CPU's load.
 */
__noinline u64 h_weight_of(u32 scx_weight, u64 cg_id, u64 rq_w)
{
	return arbor_h_weight(scx_weight, cg_id ? rq_w : 0);
}

static __always_inline u64 task_h_weight(const struct task_struct *p, const struct task_ctx *tctx)
{
	return h_weight_of(p->scx.weight, tctx->cg_id, tctx->rq_w);
}

/*
 * Weight-scaled load of a task, task_h_load(): 1024 for an always-runnable
 * nice-0 task of the root, its group's fraction of that for a task of a
 * group (policy.h arbor_h_load).
 */
static __always_inline u64 task_load(const struct task_struct *p, const struct task_ctx *tctx)
{
	return arbor_h_load(tctx->runnable_avg, task_h_weight(p, tctx));
}

/*
 * A CPU's load at `now` from its average at pelt_ts, its weight sum since
 * and the load of group tasks moved in and out (arbor_h_moved_decay).
 */
__noinline u64 cpu_load_at(u64 load_avg, u64 weight_sum, s64 moved, u64 pelt_ts, u64 now)
{
	u64 delta = now > pelt_ts ? now - pelt_ts : 0;

	return arbor_h_load_moved(arbor_pelt_accum(load_avg, delta, arbor_h_cpu_load(weight_sum)),
				  arbor_h_moved_decay(moved, delta));
}

/* how much of `moved` the average caught up with in `delta` */
__noinline s64 h_moved_settled(s64 moved, u64 delta)
{
	return moved - arbor_h_moved_decay(moved, delta);
}

/*
 * migrate_task_rq_fair(): a group task's load leaves CPU `from` for CPU
 * `to`; nothing for a task of the root (cg_id 0) or one accounted nowhere.
 */
__noinline int h_move(s32 from, s32 to, u64 cg_id, u64 load)
{
	struct cpu_ctx *oc, *nc;

	if (!cg_id || !valid_cpu(from) || !valid_cpu(to) || !(oc = lookup_cpu_ctx(from)) ||
	    !(nc = lookup_cpu_ctx(to)))
		return 0;
	__sync_fetch_and_sub(&oc->h_moved, (s64)(load << ARBOR_W_SHIFT));
	__sync_fetch_and_add(&nc->h_moved, (s64)(load << ARBOR_W_SHIFT));
	return 1;
}

/*
 * A task of a group accounted on `cpu` with h weight `old` now weighs
 * h_weight_of(scx_weight, cg_id, rq_w): the CPU's weight sum moves by the
 * difference. Returns the weight it is accounted with now.
 */
__noinline u64 h_reweight(s32 cpu, u32 scx_weight, u64 cg_id, u64 rq_w, u64 old)
{
	struct cpu_ctx *c;
	u64 w;

	if (!cg_id || !valid_cpu(cpu) || !(c = lookup_cpu_ctx(cpu)))
		return old;
	w = arbor_h_weight(scx_weight, rq_w);
	if (w != old)
		__sync_fetch_and_add(&c->weight_sum, w - old);
	return w;
}

/*
 * Advance a task's averages to now; `run_cap` is the capacity of the CPU it
 * ran on since pelt_ts (0 if it did not run), `runnable` whether it was
 * runnable. Utilisation is capacity-invariant as in the kernel: running on
 * a CPU of capacity 430 accrues at most 430, so a CPU-bound task on a
 * little CPU shows as "does not fit" (seed 004).
 */
static __always_inline void task_pelt(struct task_ctx *tctx, u64 now, u32 run_cap, bool runnable)
{
	u64 delta = now > tctx->pelt_ts ? now - tctx->pelt_ts : 0;

	tctx->util_avg = arbor_pelt_accum(tctx->util_avg, delta, run_cap);
	tctx->runnable_avg = arbor_pelt_accum(tctx->runnable_avg, delta, runnable ? 1024 : 0);
	tctx->pelt_ts = now;
}

/*
 * Advance a CPU's averages to now. Only the owning CPU writes them (from its
 * own callbacks); other CPUs read them extrapolated (cpu_load / cpu_util).
 */
static __always_inline void cpu_pelt(struct cpu_ctx *c, u64 now)
{
	u64 delta = now > c->pelt_ts ? now - c->pelt_ts : 0;
	s64 m = READ_ONCE(c->h_moved);

	c->load_avg = arbor_pelt_accum(c->load_avg, delta, c->load_val);
	c->util_avg = arbor_pelt_accum(c->util_avg, delta, c->running_since ? 1024 : 0);
	c->load_val = arbor_h_cpu_load(c->weight_sum);
	c->pelt_ts = now;
	/* the moved load decays as the average caught up; moves since are kept */
	if (m)
		__sync_fetch_and_sub(&c->h_moved, h_moved_settled(m, delta));
}

static __always_inline u64 cpu_load(struct cpu_ctx *c, u64 now)
{
	return cpu_load_at(c->load_avg, c->weight_sum, READ_ONCE(c->h_moved), c->pelt_ts, now);
}

static __always_inline u64 cpu_util(struct cpu_ctx *c, u64 now)
{
	u64 delta = now > c->pelt_ts ? now - c->pelt_ts : 0;

	return arbor_pelt_accum(c->util_avg, delta, c->running_since ? 1024 : 0);
}

/*
 * Per-CPU task accounting (the kernel's rq->nr_running and load weight).
 * A task is accounted to one CPU from the moment it becomes runnable until it
 * sleeps; when another CPU picks it up, the account moves with it.
 */
/*
 * How many CPUs are overloaded (>= 2 tasks accounted): the kernel's
 * rd->overloaded, as a count. A CPU about to idle with none overloaded
 * anywhere has nothing to pull, so newidle balancing and STEAL skip their
 * scans (baseline: sched_balance_newidle returns early when the root domain
 * is not overloaded). Each CPU's flag is kept equal to its count
 * (policy.h: arbor_overload_update) and flips by compare-and-swap, so the
 * number of overloaded CPUs moves once per flip and cannot drift.
 */
static u32 nr_overloaded;

/*
 * The same count per LLC: the summary find_busiest() skips LLCs with none
 * by (balance.bpf.h). Plain global data, one cache line per LLC: a walk
 * over the LLCs reads it without a map lookup each, and an LLC's 1 <-> 2
 * transitions dirty only its own line.
 */
struct llc_ovl {
	s32 nr;
	u8 pad[60];
};
struct llc_ovl llc_overloaded[MAX_LLCS];

/* after the count of `c` (CPU `cpu`) moved from `prev` by `delta` */
static __always_inline void sync_overloaded(struct cpu_ctx *c, s32 cpu, u32 prev, s32 delta)
{
	s32 d = arbor_overload_update(&c->nr_running, prev, delta, &c->overloaded);

	if (d) {
		__sync_fetch_and_add(&nr_overloaded, d);
		__sync_fetch_and_add(&llc_overloaded[llc_of(cpu)].nr, d);
	}
}

static __always_inline void acct_remove(struct task_ctx *tctx)
{
	struct cpu_ctx *c;

	if (!valid_cpu(tctx->acct_cpu))
		return;
	c = lookup_cpu_ctx(tctx->acct_cpu);
	if (c) {
		/* seed 003: cleared when the count drops below 2 */
		sync_overloaded(c, tctx->acct_cpu, __sync_fetch_and_sub(&c->nr_running, 1), -1);
		__sync_fetch_and_sub(&c->weight_sum, tctx->acct_weight);
	}
	tctx->acct_cpu = -1;
}

/* Account the task to `cpu`, where it is accounted nowhere now. */
static __always_inline void acct_join(struct task_ctx *tctx, const struct task_struct *p, s32 cpu)
{
	struct cpu_ctx *c;

	if (!valid_cpu(cpu) || !(c = lookup_cpu_ctx(cpu)))
		return;
	tctx->acct_weight = task_h_weight(p, tctx);
	/* seed 003: set when the count reaches 2 */
	sync_overloaded(c, cpu, __sync_fetch_and_add(&c->nr_running, 1), 1);
	__sync_fetch_and_add(&c->weight_sum, tctx->acct_weight);
	tctx->acct_cpu = cpu;
}

static __always_inline void acct_add(struct task_ctx *tctx, const struct task_struct *p, s32 cpu)
{
	if (tctx->acct_cpu == cpu)
		return;
	/*
	 * a task of a group moving between CPUs takes its load along
	 * (arbor_h_moved_decay): the load of the weight it is counted with
	 */
	h_move(tctx->acct_cpu, cpu, tctx->cg_id, arbor_h_load(tctx->runnable_avg, tctx->acct_weight));
	acct_remove(tctx);
	acct_join(tctx, p, cpu);
}

/*
 * At the tick (update_cfs_group()), a task of a group whose flattened
 * weight changed since it was accounted (its wake-up's placement, the
 * tick's reweight) moves its CPU's load sum with it,
 * as the group entity's reweight moves the root cfs_rq's load in fair.c.
 * Tasks of the root keep the weight acct_add() gave them.
 */
static __always_inline void acct_reweight(const struct task_struct *p, struct task_ctx *tctx)
{
	tctx->acct_weight = h_reweight(tctx->acct_cpu, p->scx.weight, tctx->cg_id, tctx->rq_w,
				       tctx->acct_weight);
}

/*
 * The work-conservation gap, `idle_while_queued_ns`: the integral over time
 * of min(idle CPUs, runnable tasks waiting in some queue). Each unit is one
 * CPU idling while a task that could have used it waited.
 *
 * Nothing global is written on the hot path (one shared counter's cache
 * line would bounce between all CPUs of a large machine): each CPU keeps its
 * own share of the waiting count (cpu_ctx.gap_waiting, +1/-1 from its own
 * callbacks, and from runnable() for the tasks queued on its rq: see
 * set_waiting_on; so it may go negative when a task starts waiting on one
 * CPU and stops on another; the sum over CPUs is exact) and its idle flag
 * (cpu_ctx.idle). The periodic timer sums both and integrates
 * min(idle, waiting) over its interval (gap_sample): a sampled integral,
 * exact in expectation when the samples are not in step with the workload,
 * with a resolution of balance_interval. It used to be updated exactly at
 * every change, under one global lock taken on every context switch.
 */
static __always_inline void gap_waiting_add(s32 d)
{
	struct cpu_ctx *c = lookup_cpu_ctx(bpf_get_smp_processor_id());

	/*
	 * Mostly this CPU writes its slot, so the line stays in its cache; the
	 * add is atomic, as runnable() adds to its task's CPU's slot from
	 * wherever the wake-up runs (set_waiting_on).
	 */
	if (c)
		__sync_fetch_and_add(&c->gap_waiting, d);
}

/* Read by the Rust side; written by the timer only. */
u64 gap_total_ns;
static u64 gap_last_ts;

/* From the periodic timer: add min(idle, waiting) x the time since the last sample. */
static __always_inline void gap_sample(u64 now)
{
	s64 waiting = 0, idle = 0, m;
	u32 i;

	bpf_for(i, 0, MAX_CPUS) {
		struct cpu_ctx *c;

		if (i >= nr_cpus)
			break;
		c = lookup_cpu_ctx(i);
		if (!c)
			continue;
		waiting += READ_ONCE(c->gap_waiting);
		/* the flag's value (0 or 1), not a constant: no exact counter for the verifier */
		idle += READ_ONCE(c->idle) & 1;
	}
	m = idle < waiting ? idle : waiting;
	if (m > 0 && gap_last_ts && now > gap_last_ts)
		gap_total_ns += (now - gap_last_ts) * (u64)m;
	gap_last_ts = now;
}

/*
 * `now` is the callback's own clock read, the start of the wait (only
 * read when waiting): a second bpf_ktime_get_ns() would differ from it
 * by the callback's own run time so far, which the starvation bound
 * (seconds) cannot see.
 */
static __always_inline void set_waiting(struct task_ctx *tctx, bool waiting, u64 now)
{
	if (tctx->waiting == waiting)
		return;
	tctx->waiting = waiting;
	tctx->wait_since = waiting ? now : 0;
	gap_waiting_add(waiting ? 1 : -1);
}

/*
 * The same, moving the share of `c`, a context the caller has at hand: its
 * own CPU's (running, stopping), or the task's CPU's (runnable: that rq's
 * callbacks may run on another CPU, which would need a
 * bpf_get_smp_processor_id() call to name its own share). Any CPU's share
 * will do: only the sum over all CPUs is ever read (gap_sample), and the
 * add is atomic. Writing another CPU's share only costs cache-line
 * locality, on a line the caller is writing anyway (acct_add). A NULL `c`
 * (a CPU id past MAX_CPUS) moves no share, as gap_waiting_add() for one.
 */
static __always_inline void set_waiting_on(struct task_ctx *tctx, struct cpu_ctx *c, bool waiting,
					   u64 now)
{
	if (tctx->waiting == waiting)
		return;
	tctx->waiting = waiting;
	tctx->wait_since = waiting ? now : 0;
	if (c)
		__sync_fetch_and_add(&c->gap_waiting, waiting ? 1 : -1);
}

#endif /* __ARBOR_LOAD_BPF_H */
