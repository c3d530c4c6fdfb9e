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

/* Weight-scaled load of a task: 1024 for an always-runnable nice-0 task. */
static __always_inline u64 task_load(const struct task_struct *p, const struct task_ctx *tctx)
{
	return tctx->runnable_avg * p->scx.weight / 100;
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

	c->load_avg = arbor_pelt_accum(c->load_avg, delta, c->load_val);
	c->util_avg = arbor_pelt_accum(c->util_avg, delta, c->running_since ? 1024 : 0);
	c->load_val = (u64)c->weight_sum * 1024 / 100;
	c->pelt_ts = now;
}

static __always_inline u64 cpu_load(struct cpu_ctx *c, u64 now)
{
	u64 delta = now > c->pelt_ts ? now - c->pelt_ts : 0;

	return arbor_pelt_accum(c->load_avg, delta, (u64)c->weight_sum * 1024 / 100);
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

static __always_inline void acct_add(struct task_ctx *tctx, const struct task_struct *p, s32 cpu)
{
	struct cpu_ctx *c;

	if (tctx->acct_cpu == cpu)
		return;
	acct_remove(tctx);
	if (!valid_cpu(cpu) || !(c = lookup_cpu_ctx(cpu)))
		return;
	tctx->acct_weight = p->scx.weight;
	/* seed 003: set when the count reaches 2 */
	sync_overloaded(c, cpu, __sync_fetch_and_add(&c->nr_running, 1), 1);
	__sync_fetch_and_add(&c->weight_sum, tctx->acct_weight);
	tctx->acct_cpu = cpu;
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
