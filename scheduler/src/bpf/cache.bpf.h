/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: CACHE_LB / CACHE_WAKE (seed 002, "cache aware scheduling",
 * merged for Linux 7.2 as CONFIG_SCHED_CACHE).
 *
 * Threads of one process share data; on machines with many small LLCs
 * (Power11: 4 threads per LLC) they run faster in one LLC than spread. So:
 *  - account each process's run time per CPU, and each CPU's total, both
 *    halving every epoch: occupancy = 1024 * proc_rt / cpu_rt;
 *  - once an epoch, find the process's hottest LLC (highest occupancy sum,
 *    2x hysteresis, and a room rule for full LLCs: policy.h
 *    arbor_cache_pick_pref) if it is eligible
 *    (policy.h arbor_cache_eligible); forget it after `timeout` epochs
 *    without a scan;
 *  - move its threads into that LLC (at tick, onto an idle CPU there,
 *    unless that would overload it: arbor_cache_allow_into), and let the
 *    balancer move them out only when the preferred LLC is overloaded
 *    (arbor_cache_allow_out);
 *  - with LB_IMBALANCE, when the level above the LLC is balanced, a CPU
 *    of the preferred LLC pulls a queued thread in (the seed's
 *    migrate_llc_task: policy.h arbor_cache_lb_task, balance.bpf.h
 *    lb_llc_pull);
 *  - CACHE_WAKE (the RFC's wake-up steering, dropped upstream because it
 *    fought the balancer; off by default): wake into the preferred LLC.
 */
#ifndef __ARBOR_CACHE_BPF_H
#define __ARBOR_CACHE_BPF_H

#include "common.bpf.h"
#include "load.bpf.h"
#include "capacity.bpf.h"

const volatile struct arbor_cache_cfg cache_cfg = {
	.epoch_ns	= DEF_LLC_EPOCH_MS * 1000000ULL,
	.timeout_epochs	= DEF_LLC_TIMEOUT_EPOCHS,
	.aggr_pct	= DEF_LLC_AGGR_PCT,
	.imb_pct	= DEF_LLC_IMB_PCT,
	.tolerance	= DEF_LLC_TOLERANCE,	/* llc_aggr_tolerance (policy.h arbor_cache_eligible) */
};

/*
 * Is cache-aware scheduling active? Its feature bit, and a machine of more
 * than one LLC: Linux 7.2 (kernel/sched/topology.c, sched_cache_set())
 * enables the sched_cache_present key only when some LLC domain has a
 * parent spanning several LLCs (has_multi_llcs), and sched_cache_enabled()
 * is false otherwise, so no occupancy is accounted and no preference
 * taken. With one LLC every preferred LLC is the only one: no move could
 * follow from it, and the accounting in stopping() (a look-up of the
 * process's entry on every switch) and the tick's scan were pure cost
 * (simulated, on the host snapshot's wakeprobe: stopping cost 145
 * ns per call under default against stock's 125).
 */
static __always_inline bool cache_lb_on(void)
{
	return nr_llcs > 1 && feat(FEAT_CACHE_LB);
}

/* CACHE_WAKE acts only with cache-aware scheduling active (above). */
static __always_inline bool cache_wake_on(void)
{
	return nr_llcs > 1 && feat(FEAT_CACHE_WAKE);
}

/*
 * One process. Concurrency: rt[i] and rt_epoch[i]
 * are written only by CPU i (stopping() runs on the CPU the task ran on),
 * and each CPU decays its own slot lazily, as the kernel keeps one
 * sched_cache_time per CPU with its own epoch (__update_mm_sched). Readers
 * bring a slot to the current epoch without writing it; a read racing with
 * CPU i's update may see the new epoch with the old sum or the reverse, an
 * error of one halving of one slot for one scan. The head's scan fields are
 * written only by the CPU that claimed the scan with a compare-and-swap on
 * scan_ts (task_cache_work's try_cmpxchg on next_scan).
 */
struct proc_ctx {
	/* epoch, scan_ts, pref_llc, nr_threads, total_rt: read by --monitor */
	struct proc_ctx_head h;
	u64 rt[MAX_CPUS];	/* decayed run time per CPU, as of rt_epoch[] */
	u32 rt_epoch[MAX_CPUS];
};

/*
 * Processes with two threads or more (a single-threaded one is never
 * eligible, arbor_cache_eligible, so an entry would only take room). An
 * entry is deleted when its process exits (cache_task_exit); an insert
 * that finds the table full is counted (llc_proc_insert_fails), one that
 * fails for a passing reason (no free element in this CPU's cache yet, a
 * busy bucket: seen on PREEMPT_RT) too (llc_proc_insert_retries), and
 * the thread's next run tries again.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, u32);	/* tgid */
	__type(value, struct proc_ctx);
} proc_ctxs SEC(".maps");

/* never written: the initial value of a new proc_ctx */
static struct proc_ctx proc_zero = { .h = { .pref_llc = -1 } };

/*
 * Changes of proc_ctxs that can change what cache_pref() answers, or
 * whether a process has an entry: an insert, a hottest-LLC scan (scan_ts,
 * pref_llc), a delete. Each adds 1 to proc_gen once it is done. A task
 * keeps what its last look-up of its process's entry found (task_ctx cp_*,
 * cache_entry_seen) with proc_gen as it was before that look-up: while
 * proc_gen has not moved, no change was made since, and a look-up would
 * find the same. running() asks for its process's preferred LLC on every
 * run, and stopping() for its entry, which single-threaded processes never
 * get (cache_account): both skip the map look-up then. Any change makes
 * every task look up once more.
 *
 * Ordering: a writer's fetch-and-add comes after its change and is a full
 * barrier. A reader about to look up reads proc_gen with a fetch-and-add
 * of 0, also a full barrier, so that the look-up cannot find anything
 * older than that count (a weakly ordered CPU could otherwise do the
 * look-up's loads first); only when its copy is current, it reads proc_gen
 * plainly and nothing after. A change still under way while a task reads
 * (not yet counted, or its count not yet visible to that CPU) may or may
 * not be seen, as by a look-up at that moment; once its count is seen, no
 * copy from before it is used.
 */
u64 proc_gen;

static __always_inline void proc_gen_bump(void)
{
	__sync_fetch_and_add(&proc_gen, 1);
}

/* Is tctx's copy of its process's entry current (see proc_gen)? */
static __always_inline bool cache_entry_current(const struct task_ctx *tctx)
{
	return tctx->cp_gen == READ_ONCE(proc_gen) + 1;
}

/* Bring tctx's copy of its process's entry up to date (see proc_gen). */
static __always_inline void cache_entry_seen(const struct task_struct *p, struct task_ctx *tctx)
{
	struct proc_ctx *pc;
	u32 tgid = p->tgid;
	u64 g;

	if (cache_entry_current(tctx))
		return;
	g = __sync_fetch_and_add(&proc_gen, 0);
	pc = bpf_map_lookup_elem(&proc_ctxs, &tgid);
	tctx->cp_entry = pc != NULL;
	tctx->cp_pref = pc ? pc->h.pref_llc : -1;
	tctx->cp_scan_ts = pc ? pc->h.scan_ts : 0;
	tctx->cp_gen = g + 1;
}

/*
 * scratch for the per-LLC occupancy sums and the over-threshold bitmap (in
 * map memory, not on the stack: a variable-offset stack access makes the
 * verifier walk the loop iteration by iteration)
 */
struct occ_scratch_val {
	u64 occ[MAX_LLCS];
	u64 over[LLCS_MASK_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct occ_scratch_val);
} occ_scratch SEC(".maps");

static __always_inline u64 halve_by(u64 v, u64 epochs)
{
	return epochs >= 63 ? 0 : v >> epochs;
}

/* A process's run time on CPU i, brought to epoch e (read only). */
static __always_inline u64 proc_rt_at(struct proc_ctx *pc, u32 i, u64 e)
{
	u64 pe = pc->rt_epoch[i & (MAX_CPUS - 1)];

	return halve_by(pc->rt[i & (MAX_CPUS - 1)], e > pe ? e - pe : 0);
}

/* A CPU's decayed total run time, brought to epoch e. */
static __always_inline u64 cpu_rt_at(struct cpu_ctx *c, u64 e)
{
	return halve_by(c->cache_rt, e > c->cache_epoch ? e - c->cache_epoch : 0);
}

static __always_inline u64 llc_util(u32 llc)
{
	struct llc_ctx *lc = lookup_llc_ctx(llc);

	return lc ? lc->util_sum : 0;
}

static __always_inline u64 llc_cap(u32 llc)
{
	return (u64)llc_nr_cpus[llc & (MAX_LLCS - 1)] * 1024;
}

/*
 * The hottest-LLC scan of p's process (pc), claimed by cache_account() on
 * `cpu` at `now`, epoch e: sets pc->h.pref_llc (and the head's figures).
 */
static __always_inline void cache_scan(struct task_struct *p, struct proc_ctx *pc, s32 cpu, u64 e,
				       u64 now)
{
	u64 total = 0;
	u32 nr_threads;

	{
		struct occ_scratch_val *os;
		u64 *occ, *over;
		u32 key = 0, i;

		os = bpf_map_lookup_elem(&occ_scratch, &key);
		if (!os)
			return;
		occ = os->occ;
		over = os->over;
		bpf_for(i, 0, LLCS_MASK_WORDS)
			over[i] = 0;
		bpf_for(i, 0, MAX_LLCS) {
			if (i >= nr_llcs)
				break;
			occ[i] = 0;
			/* CACHE_ROOM off: no LLC is "full", pick_pref is the seed's */
			if (feat(FEAT_CACHE_ROOM) &&
			    arbor_cache_over(llc_util(i), llc_cap(i), cache_cfg.aggr_pct))
				arbor_mask_set(over, LLCS_MASK_WORDS, i);
		}
		bpf_for(i, 0, MAX_CPUS) {
			struct cpu_ctx *cc;
			u64 prt, crt;

			if (i >= nr_cpus)
				break;
			prt = proc_rt_at(pc, i, e);
			if (!prt)
				continue;
			total += prt;
			cc = lookup_cpu_ctx(i);
			if (!cc)
				continue;
			crt = cpu_rt_at(cc, e);
			if (crt)
				occ[llc_of(i)] += prt * 1024 / crt;
		}
		nr_threads = BPF_CORE_READ(p, signal, nr_threads);
		pc->h.epoch = e;
		pc->h.total_rt = total;
		pc->h.nr_threads = nr_threads;
		if (!arbor_cache_eligible(nr_threads,
					  arbor_cache_nr_running(total, now, cache_cfg.epoch_ns),
					  smt_width, llc_nr_cpus[llc_of(cpu)], cache_cfg.tolerance)) {
			pc->h.pref_llc = -1;
			return;
		}
		pc->h.pref_llc = arbor_cache_pick_pref(nr_llcs, occ, pc->h.pref_llc, over);
	}
}

/*
 * Called from stopping() on `cpu`, the CPU p ran on: charge `ran` ns to p's
 * process and the CPU; at most once an epoch per process, rescan its
 * hottest LLC.
 */
static __always_inline void cache_account(struct task_struct *p, struct task_ctx *tctx, s32 cpu,
					  struct cpu_ctx *c, u64 ran, u64 now)
{
	struct proc_ctx *pc;
	u32 tgid = p->tgid, slot = cpu & (MAX_CPUS - 1);
	u64 e = now / cache_cfg.epoch_ns, scan_ts;

	if (!cache_lb_on() || !valid_cpu(cpu))
		return;
	c->cache_rt = cpu_rt_at(c, e) + ran;
	c->cache_epoch = e;

	/*
	 * A process without an entry that gets none now (fewer than two
	 * threads): when p's copy says so and is current (proc_gen: no
	 * insert since), the look-up would find none; skip it.
	 */
	if (cache_entry_current(tctx) && !tctx->cp_entry &&
	    BPF_CORE_READ(p, signal, nr_threads) < 2)
		return;
	pc = bpf_map_lookup_elem(&proc_ctxs, &tgid);
	if (!pc) {
		long err;

		if (BPF_CORE_READ(p, signal, nr_threads) < 2)
			return;
		/* too big for the stack: insert a copy of proc_zero, then fill it */
		err = bpf_map_update_elem(&proc_ctxs, &tgid, &proc_zero, BPF_NOEXIST);
		if (err && err != -EEXIST) {
			/* only -E2BIG means full (hashtab.c alloc_htab_elem) */
			stat_inc(err == -E2BIG ? STAT_LLC_PROC_INSERT_FAILS :
						 STAT_LLC_PROC_INSERT_RETRIES);
			return;
		}
		pc = bpf_map_lookup_elem(&proc_ctxs, &tgid);
		/* the first scan one epoch from now (a racing inserter may win) */
		if (pc && !err)
			__sync_val_compare_and_swap(&pc->h.scan_ts, 0, now);
		/* a new entry: counted (an -EEXIST: the inserter counts it) */
		if (!err)
			proc_gen_bump();
		if (!pc)
			return;
	}
	/* this CPU's slot: only this CPU writes it */
	pc->rt[slot] = proc_rt_at(pc, slot, e) + ran;
	pc->rt_epoch[slot] = e;

	/* at most one scan per epoch per process, by whoever claims it */
	scan_ts = pc->h.scan_ts;
	if (now < scan_ts + cache_cfg.epoch_ns ||
	    __sync_val_compare_and_swap(&pc->h.scan_ts, scan_ts, now) != scan_ts)
		return;
	cache_scan(p, pc, cpu, e, now);
	/* scan_ts moved, pref_llc may have: counted */
	proc_gen_bump();
}

/*
 * ops.exit_task: a process's entry goes when its group leader exits, or
 * its last thread (whichever the kernel reports first: the leader's
 * task_struct outlives its threads, but sched_ext may call exit_task at
 * death rather than at free). A tgid is reused only after its leader is
 * reaped, so a new process never inherits the old one's run time. If the
 * leader exits first, the remaining threads start a fresh entry.
 */
static __always_inline void cache_task_exit(struct task_struct *p)
{
	u32 tgid = p->tgid;

	if (p->pid != p->tgid && BPF_CORE_READ(p, signal, nr_threads) > 1)
		return;
	/*
	 * Most processes never had an entry (a single-threaded one never gets
	 * one): look first, without a lock, and take the bucket lock of a
	 * delete only for an entry that is there. (An entry a remaining thread
	 * inserts after the leader's look goes at the last thread's exit, as
	 * one inserted after the leader's delete always did.)
	 */
	if (bpf_map_lookup_elem(&proc_ctxs, &tgid) && !bpf_map_delete_elem(&proc_ctxs, &tgid))
		proc_gen_bump();
}

/*
 * cache_pref() from p's copy of its process's entry (tctx, brought up to
 * date first: proc_gen), the same answer without a look-up while no entry
 * changed.
 */
static __always_inline s32 cache_pref_of(const struct task_struct *p, struct task_ctx *tctx, u64 now)
{
	if (!cache_lb_on())
		return -1;
	cache_entry_seen(p, tctx);
	if (tctx->cp_pref < 0)
		return -1;
	if (now > tctx->cp_scan_ts + cache_cfg.timeout_epochs * cache_cfg.epoch_ns)
		return -1;
	return tctx->cp_pref;
}

/* p's preferred LLC, or -1 (feature off, no preference, or it timed out). */
static __always_inline s32 cache_pref(const struct task_struct *p, u64 now)
{
	struct proc_ctx *pc;
	u32 tgid = p->tgid;

	if (!cache_lb_on())
		return -1;
	pc = bpf_map_lookup_elem(&proc_ctxs, &tgid);
	if (!pc || pc->h.pref_llc < 0)
		return -1;
	if (now > pc->h.scan_ts + cache_cfg.timeout_epochs * cache_cfg.epoch_ns)
		return -1;
	return pc->h.pref_llc;
}

/*
 * cache_pref() for p, whose context is tctx (NULL if it has none), from
 * a callback that may not be p's own (a pull of a queued task): its copy
 * of its process's entry when that is current (proc_gen), else a plain
 * look-up that leaves the copy alone (only p's own running() and tick
 * write it).
 */
static __always_inline s32 cache_pref_peek(const struct task_struct *p,
					   const struct task_ctx *tctx, u64 now)
{
	if (!cache_lb_on())
		return -1;
	if (!tctx || !cache_entry_current(tctx))
		return cache_pref(p, now);
	if (tctx->cp_pref < 0)
		return -1;
	if (now > tctx->cp_scan_ts + cache_cfg.timeout_epochs * cache_cfg.epoch_ns)
		return -1;
	return tctx->cp_pref;
}

/*
 * Would moving the task from src to dst make it a misfit it is not now?
 * (policy.h arbor_cache_makes_misfit; always false on symmetric machines)
 */
static __always_inline bool cache_makes_misfit(const struct task_ctx *tctx, s32 src, s32 dst)
{
	return asym && tctx &&
	       arbor_cache_makes_misfit(true, tctx->util_avg, cap_of(src), cap_of(dst));
}

/*
 * May p, of utilisation task_util, move from src's LLC to dst_llc (to CPU
 * dst there; -1: not chosen yet, the caller's idle search applies the
 * capacity rule)? Counts refusals. The capacity rule (cache_makes_misfit)
 * applies, as the rest, to tasks whose process has a preferred LLC: the
 * kernel applies it to every balancing move while CONFIG_SCHED_CACHE is on
 * (can_migrate_llc_task); here balancing of other tasks stays the
 * baseline's.
 */
static __always_inline bool cache_allow_llc(const struct task_struct *p,
					    const struct task_ctx *tctx, s32 src, s32 dst, u32 dl,
					    u64 task_util, u64 now)
{
	u32 sl = llc_of(src);
	s32 pref;
	bool ok = true;

	if (sl == dl || (pref = cache_pref_peek(p, tctx, now)) < 0)
		return true;
	if (dst >= 0 && cache_makes_misfit(tctx, src, dst)) {
		stat_inc(STAT_LLC_MIGRATIONS_REFUSED);
		return false;
	}
	if ((u32)pref == dl)
		ok = arbor_cache_allow_into(llc_util(dl), llc_cap(dl), llc_util(sl), llc_cap(sl),
					    task_util, cache_cfg.aggr_pct, cache_cfg.imb_pct);
	else if ((u32)pref == sl)
		ok = arbor_cache_allow_out(llc_util(sl), llc_cap(sl), llc_util(dl), llc_cap(dl),
					   task_util, cache_cfg.aggr_pct, cache_cfg.imb_pct);
	if (!ok)
		stat_inc(STAT_LLC_MIGRATIONS_REFUSED);
	return ok;
}

static __always_inline bool cache_allow_move(const struct task_struct *p,
					     const struct task_ctx *tctx, s32 src, s32 dst,
					     u64 task_util, u64 now)
{
	return cache_allow_llc(p, tctx, src, dst, llc_of(dst), task_util, now);
}

/*
 * Cache-aware balancing's verdict (policy.h arbor_cache_lb_task, seed
 * 002's migrate_llc_task) on moving p, of utilisation task_util, from LLC
 * sl to LLC dl: LLC_LB_PULL when dl is its process's preferred LLC and the
 * move may happen although the groups are balanced.
 */
static __always_inline u32 cache_lb_verdict(const struct task_struct *p,
					    const struct task_ctx *tctx, u32 sl, u32 dl,
					    u64 task_util, u64 now)
{
	s32 pref;

	if (sl == dl || (pref = cache_pref_peek(p, tctx, now)) < 0)
		return LLC_LB_ANY;
	return arbor_cache_lb_task(pref, sl, dl, llc_util(sl), llc_cap(sl), llc_util(dl),
				   llc_cap(dl), task_util, cache_cfg.aggr_pct, cache_cfg.imb_pct);
}

/*
 * An idle CPU of `llc` that p may use, from our own idle flags, claimed in
 * sched_ext's idle mask (scx_bpf_test_and_clear_cpu_idle) so that no other
 * wake-up or move takes it meanwhile; -1 if none. The caller must then
 * send p there: a claimed CPU that gets nothing stays out of the idle
 * mask until it next goes idle.
 */
static __always_inline s32 idle_cpu_in_llc(const struct task_struct *p, u32 llc,
					    const struct task_ctx *fit, s32 src)
{
	u32 k;

	bpf_for(k, 0, MAX_LLC_CPUS) {
		struct cpu_ctx *c;
		s32 cpu;

		if (k >= llc_nr_cpus[llc & (MAX_LLCS - 1)])
			break;
		cpu = llc_cpus[llc & (MAX_LLCS - 1)][k];
		if (!allowed(p, cpu) || cache_makes_misfit(fit, src, cpu))
			continue;
		c = lookup_cpu_ctx(cpu);
		if (c && c->idle && scx_bpf_test_and_clear_cpu_idle(cpu))
			return cpu;
	}
	return -1;
}

/*
 * At tick (`now`: the tick's own clock read): a task running outside its
 * process's preferred LLC moves to an idle CPU there, if the move is
 * allowed (checked before the CPU is claimed). Like misfit, it ends the
 * slice and enqueue() places it on tctx->move_cpu, kicking that CPU.
 */
static __always_inline void cache_aggregate(struct task_struct *p, struct task_ctx *tctx, s32 cpu,
					    u64 now)
{
	s32 pref, dst;

	if (tctx->move_cpu >= 0 || p->nr_cpus_allowed == 1 || task_migration_disabled(p))
		return;
	pref = cache_pref_of(p, tctx, now);
	if (pref < 0 || (u32)pref == llc_of(cpu))
		return;
	if (!cache_allow_llc(p, tctx, cpu, -1, pref, tctx->util_avg, now))
		return;
	dst = idle_cpu_in_llc(p, pref, tctx, cpu);
	if (dst < 0)
		return;
	tctx->move_cpu = dst;
	p->scx.slice = 0;
}

#endif /* __ARBOR_CACHE_BPF_H */
