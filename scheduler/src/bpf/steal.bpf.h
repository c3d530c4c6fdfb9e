/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: STEAL (seed 003, "steal tasks to improve CPU utilization").
 *
 * When a CPU is about to idle and newidle balancing found nothing (often
 * because newidle's cost bound skipped it: the CPU expects to idle only
 * briefly), take one queued task from an overloaded CPU of the same LLC.
 * It is cheap by construction: no load arithmetic, one flag per CPU
 * (cpu_ctx.overloaded, kept on 1<->2 transitions in load.bpf.h), siblings
 * first, then the LLC from this CPU onward (policy.h: arbor_steal_order).
 * Seed's numbers: hackbench on a 20-CPU Xeon, CPU busy 75% -> 97%.
 */
#ifndef __ARBOR_STEAL_BPF_H
#define __ARBOR_STEAL_BPF_H

#include "common.bpf.h"
#include "balance.bpf.h"

/* Returns 1 if a task was stolen, 0 if none could be, -1 if not attempted. */
static __always_inline int try_steal(s32 this, struct cpu_ctx *cc)
{
	struct scratch *sc;
	u32 llc = llc_of(this), n, k;
	u64 now;

	if (!feat(FEAT_STEAL) ||
	    !arbor_steal_allowed(cc->avg_idle, steal_cfg.cost_ns, nr_nodes, steal_cfg.node_limit))
		return -1;
	sc = get_scratch();
	if (!sc)
		return -1;

	/* snapshot of the LLC, with the overloaded bits in idle_mask */
	n = llc_nr_cpus[llc];
	sc->snap_llc1 = 0;	/* a layout of our own: snapshot_llc_topo must redo it */
	sc->snap.nr = n < MAX_LLC_CPUS ? n : MAX_LLC_CPUS;
	sc->snap.smt_width = smt_width;
	bpf_for(k, 0, LLC_MASK_WORDS)
		sc->snap.idle_mask[k] = 0;
	bpf_for(k, 0, MAX_LLC_CPUS) {
		struct cpu_ctx *vc;
		s32 c;

		if (k >= sc->snap.nr)
			break;
		c = llc_cpus[llc][k];
		sc->snap.cpu[k] = c;
		sc->snap.core[k] = valid_cpu(c) ? cpu_core[c & (MAX_CPUS - 1)] : (u32)-1;
		vc = valid_cpu(c) ? lookup_cpu_ctx(c) : NULL;
		if (vc && vc->overloaded && scx_bpf_dsq_nr_queued(cpu_dsq(c)) > 0)
			arbor_mask_set(sc->snap.idle_mask, LLC_MASK_WORDS, k);
	}
	n = arbor_steal_order(&sc->snap, this, sc->order, &sc->cnt);
	/* one clock read for every victim's pull_from */
	now = bpf_ktime_get_ns();
	bpf_for(k, 0, MAX_LLC_CPUS) {
		u32 i;

		if (k >= n)
			break;
		i = sc->order[k] & (MAX_LLC_CPUS - 1);
		/* LVL_SMT: the seed steals regardless of cache hotness */
		if (pull_from(this, sc->snap.cpu[i], LVL_SMT, false, now))
			return 1;
	}
	return 0;
}

#endif /* __ARBOR_STEAL_BPF_H */
