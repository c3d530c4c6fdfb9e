/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: asymmetric CPU capacity (seed 004 and its mainline successors).
 *
 * On big.LITTLE-like machines a task's CPU must be big enough for it:
 *  - ASYM_WAKE_CAP (seed 004, wake_cap): a wakee that does not fit the
 *    smaller of prev and the waker's CPU skips the affine fast path and is
 *    placed by spare capacity;
 *  - ASYM_IDLE_CAPACITY (mainline 5.7, select_idle_capacity): the idle-CPU
 *    search looks for the first idle CPU the task fits;
 *  - ASYM_MISFIT (mainline): at each tick a running task that no longer
 *    fits is sent to a CPU >= 5% bigger.
 * All three act only when capacities differ by >= 1/8 (`asym`). The scans
 * cover every CPU (up to MAX_CPUS), the idle CPUs kept in a multi-word
 * bitmap (sc->a_idle).
 */
#ifndef __ARBOR_CAPACITY_BPF_H
#define __ARBOR_CAPACITY_BPF_H

#include "common.bpf.h"
#include "load.bpf.h"

static __always_inline u32 cap_of(s32 cpu)
{
	return cpu_cap[cpu & (MAX_CPUS - 1)] ?: 1024;
}

/* Does p fit cpu? Always true on symmetric machines. */
static __always_inline bool task_fits(const struct task_ctx *tctx, s32 cpu)
{
	return !asym || arbor_fits(tctx->util_avg, cap_of(cpu));
}

/* Fill the scratch arrays with capacity, utilisation and allowed-idle bits. */
static __always_inline u32 capacity_snapshot(struct scratch *sc, const struct task_struct *p,
					     const u64 *ib)
{
	u64 now = bpf_ktime_get_ns();
	u32 n = nr_cpus < MAX_CPUS ? nr_cpus : MAX_CPUS, i;

	bpf_for(i, 0, CPU_MASK_WORDS)
		sc->a_idle[i] = 0;
	bpf_for(i, 0, MAX_CPUS) {
		struct cpu_ctx *c;

		if (i >= n)
			break;
		c = lookup_cpu_ctx(i);
		sc->a_cap[i] = cap_of(i);
		sc->a_util[i] = c ? cpu_util(c, now) : 0;
		if (allowed(p, i) && idle_bit(ib, i))
			arbor_mask_set(sc->a_idle, CPU_MASK_WORDS, i);
	}
	return n;
}

/*
 * SYNC_LOCAL_BIG_BUSY: is a CPU of more capacity than `this` idle, in the
 * wake-up's copy of the idle mask (the task's affinity not consulted: a
 * bigger idle CPU it may not use only keeps the wake-up on the idle
 * search, as without the rule)?
 */
static __always_inline bool bigger_cpu_idle(const u64 *ib, s32 this)
{
	u32 n = nr_cpus < MAX_CPUS ? nr_cpus : MAX_CPUS, c = cap_of(this), i;

	bpf_for(i, 0, MAX_CPUS) {
		if (i >= n)
			break;
		if (cap_of(i) > c && idle_bit(ib, i))
			return true;
	}
	return false;
}

/* ASYM_WAKE_CAP's slow path: a CPU by spare capacity. -1 if none. */
static __always_inline s32 select_by_capacity(struct task_struct *p, struct task_ctx *tctx,
					      s32 this, bool *found_idle)
{
	struct scratch *sc = get_scratch();
	u32 n;
	s32 i;

	*found_idle = false;
	if (!sc)
		return -1;
	/* select_cpu's CPU, which it already knows (no helper call) */
	n = capacity_snapshot(sc, p, copy_idle_mask(this));
	i = arbor_capacity_pick(n, sc->a_cap, sc->a_util, sc->a_idle);
	if (i < 0 || i >= MAX_CPUS || !allowed(p, i))
		return -1;
	*found_idle = arbor_mask_test(sc->a_idle, CPU_MASK_WORDS, i);
	return i;
}

/* ASYM_IDLE_CAPACITY: select_idle_capacity from target. -1 if nothing idle. */
static __always_inline s32 select_idle_capacity(struct task_struct *p, struct task_ctx *tctx,
						const u64 *ib, s32 target)
{
	struct scratch *sc = get_scratch();
	u32 n;

	if (!sc)
		return -1;
	n = capacity_snapshot(sc, p, ib);
	return arbor_select_idle_capacity(n, sc->a_cap, sc->a_idle, tctx->util_avg,
					  target >= 0 ? (u32)target : 0);
}

/*
 * ASYM_MISFIT, at tick: if the running task does not fit its CPU and a CPU
 * >= 5% bigger exists, remember it and end the slice; enqueue() then
 * queues the task there (running() counts the migration).
 */
static __always_inline void check_misfit(struct task_struct *p, struct task_ctx *tctx, s32 cpu)
{
	struct scratch *sc;
	u32 n;
	s32 t;

	if (!asym || !feat(FEAT_ASYM_MISFIT) || task_fits(tctx, cpu) || p->nr_cpus_allowed == 1)
		return;
	if (tctx->move_cpu >= 0 || !(sc = get_scratch()))
		return;
	n = capacity_snapshot(sc, p, copy_idle_mask(cpu));
	t = arbor_misfit_target(cap_of(cpu), n, sc->a_cap, sc->a_idle);
	/*
	 * claimed, as an idle CPU pulling the task itself has it to itself
	 * (active balance): unclaimed, wake-ups and other misfits could pick
	 * it too and queue behind one another there
	 */
	if (t < 0 || t >= MAX_CPUS || !allowed(p, t) || !scx_bpf_test_and_clear_cpu_idle(t))
		return;
	tctx->move_cpu = t;
	tctx->move_misfit = 1;
	stat_inc(STAT_MISFIT_TASKS);
	p->scx.slice = 0;	/* reschedule now: enqueue() moves it */
}

#endif /* __ARBOR_CAPACITY_BPF_H */
