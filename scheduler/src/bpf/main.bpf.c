/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: a topology-aware sched_ext scheduler.
 *
 * The stock kernel's fair-task placement (baseline.md), ported to
 * sched_ext: every CPU has its own deadline-ordered queue (DSQ); wake-ups
 * are placed by wake_wide / wake_affine / select_idle_sibling, new tasks by
 * the idlest-group slow path; idle CPUs pull through a cost-bounded newidle
 * walk and a periodic balancer kicks idle CPUs towards queued work.
 *
 * This file wires sched_ext's callbacks to the concerns:
 *   policy.h       pure decision rules (shared with the unit tests)
 *   load.bpf.h     load and utilisation averages, per-CPU accounting
 *   idle.bpf.h     wake-up and fork placement
 *   balance.bpf.h  newidle, busy and periodic balancing
 */
#include "common.bpf.h"
#include "load.bpf.h"
#include "idle.bpf.h"
#include "balance.bpf.h"
#include "steal.bpf.h"
#include "capacity.bpf.h"

char _license[] SEC("license") = "GPL";

UEI_DEFINE(uei);

/* The kernel's WF_EXEC; sched_ext passes it through but names no SCX_WAKE_EXEC. */
#define ARBOR_WAKE_EXEC 0x02

/* The furthest vruntime any task has reached: where sleepers rejoin. */
static u64 vtime_now;

/*
 * EEVDF-like ordering: a task's virtual deadline is its vruntime plus its
 * slice scaled by weight (heavier tasks get nearer deadlines). Waking tasks
 * may lag at most one slice behind vtime_now, so a long sleep buys no more
 * than one slice of priority (the kernel's place_entity lag clamp).
 */
static __always_inline u64 task_deadline(struct task_struct *p, struct task_ctx *tctx)
{
	u64 floor = vtime_now > slice_ns ? vtime_now - slice_ns : 0;

	if (tctx->vruntime < floor)
		tctx->vruntime = floor;
	tctx->deadline = tctx->vruntime + slice_ns * 100 / (p->scx.weight ?: 1);
	return tctx->deadline;
}

s32 BPF_STRUCT_OPS(arbor_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct task_struct *waker = (struct task_struct *)bpf_get_current_task_btf();
	s32 this = bpf_get_smp_processor_id(), target = prev_cpu, cpu;
	struct task_ctx *tctx = lookup_task_ctx(p), *wctx;
	bool sync, want_affine = true, found_idle = false;

	if (!tctx || !valid_cpu(prev_cpu))
		return prev_cpu;

	/* New tasks have no cache to go back to: spread them (slow path). */
	if (wake_flags & (SCX_WAKE_FORK | ARBOR_WAKE_EXEC)) {
		stat_inc(STAT_FORK_EXEC_SLOWPATH);
		cpu = select_idlest(p, prev_cpu, &found_idle);
		goto out;
	}

	stat_inc(STAT_WAKEUPS);
	sync = (wake_flags & SCX_WAKE_SYNC) && !(waker->flags & PF_EXITING);

	/* wake_wide (baseline): record the waker's flip, then test both sides. */
	wctx = lookup_task_ctx(waker);
	if (wctx && !(waker->flags & PF_KTHREAD)) {
		arbor_record_wakee(&wctx->wakee_flips, &wctx->flip_decay_ts, &wctx->last_wakee,
				   p->pid, bpf_ktime_get_ns());
		if (feat(FEAT_WAKE_WIDE) &&
		    arbor_wake_wide(wctx->wakee_flips, tctx->wakee_flips,
				    llc_nr_cpus[llc_of(this)])) {
			want_affine = false;
			stat_inc(STAT_WAKE_WIDE);
		}
	}
	if (!allowed(p, this))
		want_affine = false;

	/*
	 * ASYM_WAKE_CAP (seed 004): a task too big for the smaller of prev and
	 * this would be kept small by the affine path: place it by capacity.
	 */
	if (asym && feat(FEAT_ASYM_WAKE_CAP) &&
	    arbor_wake_cap(tctx->util_avg, cap_of(prev_cpu), cap_of(this))) {
		cpu = select_by_capacity(p, tctx, &found_idle);
		if (cpu >= 0) {
			stat_inc(STAT_CAPACITY_PLACEMENTS);
			goto out;
		}
	}

	/* wake_affine (baseline): this or prev, only when they differ. */
	if (want_affine && this != prev_cpu) {
		stat_inc(STAT_AFFINE_ATTEMPTS);
		if (wake_affine(p, tctx, waker, this, prev_cpu, sync) == WA_THIS) {
			target = this;
			stat_inc(STAT_AFFINE_MOVES);
		}
	}

	/*
	 * CACHE_WAKE (seed 002's RFC, off by default): wake into the process's
	 * preferred LLC when it has an idle CPU and the move is allowed.
	 */
	if (feat(FEAT_CACHE_WAKE)) {
		u64 now = bpf_ktime_get_ns();
		s32 pref = cache_pref(p, now), c;

		/* the move is checked first: idle_cpu_in_llc claims the CPU */
		if (pref >= 0 && (u32)pref != llc_of(target) &&
		    cache_allow_llc(p, target, pref, tctx->util_avg, now) &&
		    (c = idle_cpu_in_llc(p, pref)) >= 0) {
			/* claimed: run it there at once */
			task_deadline(p, tctx);
			scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, 0);
			return c;
		}
	}

	cpu = select_idle_sibling(p, tctx, prev_cpu, target, &found_idle);
out:
	if (!allowed(p, cpu))
		return prev_cpu;
	/*
	 * An idle CPU we could claim runs the task at once: insert it straight
	 * into that CPU's local queue. Otherwise enqueue() queues it on `cpu`.
	 */
	if (found_idle && scx_bpf_test_and_clear_cpu_idle(cpu)) {
		task_deadline(p, tctx);
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, 0);
	}
	return cpu;
}

void BPF_STRUCT_OPS(arbor_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	s32 cpu = scx_bpf_task_cpu(p);
	struct cpu_ctx *c;
	u64 deadline;

	/*
	 * A task must land in a queue that a CPU it may run on will drain:
	 * migration-disabled tasks stay where they are; if affinity changed
	 * under us, pick an allowed CPU (idle if possible).
	 */
	/* the tick chose a CPU for this task (seed 004 misfit, seed 002 aggregation) */
	if (tctx && tctx->move_cpu >= 0 && !is_migration_disabled(p) &&
	    allowed(p, tctx->move_cpu))
		cpu = tctx->move_cpu;

	if (!is_migration_disabled(p) && !allowed(p, cpu)) {
		cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
		if (cpu < 0)
			cpu = scx_bpf_pick_any_cpu(p->cpus_ptr, 0);
	}
	if (!tctx || !valid_cpu(cpu)) {
		scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, slice_ns, enq_flags);
		return;
	}

	/*
	 * ENQ_LAST: the task's slice ended and its CPU has nothing else to
	 * run. Unless the tick asked for a move, it keeps its CPU: insert it
	 * into the CPU's local queue, where no idle CPU can pull it (in our
	 * DSQ, newidle and steal would make a lone task wander), and kick the
	 * CPU, which is about to idle, so that it runs it.
	 */
	if ((enq_flags & SCX_ENQ_LAST) && tctx->move_cpu < 0 && cpu == scx_bpf_task_cpu(p)) {
		task_deadline(p, tctx);
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, enq_flags);
		scx_bpf_kick_cpu(cpu, 0);
		return;
	}

	acct_add(tctx, p, cpu);
	deadline = task_deadline(p, tctx);
	scx_bpf_dsq_insert_vtime(p, cpu_dsq(cpu), slice_ns, deadline, enq_flags);

	/*
	 * Wake the CPU if idle; if busy, preempt its task when ours has the
	 * earlier deadline (EEVDF's wakeup preemption).
	 */
	c = lookup_cpu_ctx(cpu);
	if (c && c->running_since && deadline < c->curr_deadline)
		scx_bpf_kick_cpu(cpu, SCX_KICK_PREEMPT);
	else
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
}

/* seed 003: the last resort before idling */
static __always_inline void steal(s32 cpu, struct cpu_ctx *cc)
{
	int r = try_steal(cpu, cc);

	if (r > 0)
		stat_inc(STAT_STEAL);
	else if (r == 0)
		stat_inc(STAT_STEAL_FAIL);
}

void BPF_STRUCT_OPS(arbor_dispatch, s32 cpu, struct task_struct *prev)
{
	struct cpu_ctx *cc = lookup_cpu_ctx(cpu);
	bool prev_runnable = prev && (prev->scx.flags & SCX_TASK_QUEUED);
	enum pull_kind kind;
	u64 now;

	/* Our own queue first: that is where placement put our tasks. */
	if (scx_bpf_dsq_move_to_local(cpu_dsq(cpu), 0))
		return;
	if (!cc)
		return;

	now = bpf_ktime_get_ns();
	if (cc->balance_req) {
		cc->balance_req = 0;
		kind = PULL_KICKED;
	} else if (prev_runnable) {
		/* busy balance at most once per balance interval */
		if (now < cc->next_busy_balance)
			return;
		cc->next_busy_balance = now + balance_interval_ns;
		kind = PULL_BUSY;
	} else {
		/*
		 * Baseline (sched_balance_newidle): with no CPU overloaded there
		 * is nothing queued to pull; skip the scans. A task queued on an
		 * idle CPU belongs to that CPU, which was kicked to run it.
		 */
		if (!READ_ONCE(nr_overloaded))
			return;
		if (!feat(FEAT_NEWIDLE)) {
			steal(cpu, cc);
			return;
		}
		kind = PULL_NEWIDLE;
	}

	if (balance(cpu, cc, kind)) {
		stat_inc(kind == PULL_BUSY ? STAT_BUSY_PULLS : STAT_NEWIDLE_PULLS);
		return;
	}
	if (kind != PULL_BUSY)
		stat_inc(STAT_NEWIDLE_FAILS);
	if (kind != PULL_BUSY)
		steal(cpu, cc);
}

void BPF_STRUCT_OPS(arbor_runnable, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	u64 now = bpf_ktime_get_ns();

	if (!tctx)
		return;
	/* it was asleep since pelt_ts */
	task_pelt(tctx, now, 0, false);
	set_waiting(tctx, true);
	acct_add(tctx, p, scx_bpf_task_cpu(p));
}

void BPF_STRUCT_OPS(arbor_running, struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	s32 cpu = bpf_get_smp_processor_id();
	struct cpu_ctx *c = lookup_cpu_ctx(cpu);
	u64 now = bpf_ktime_get_ns();

	if (!tctx || !c)
		return;

	/* count migrations by distance (what placement costs in cache) */
	if (valid_cpu(tctx->last_cpu) && tctx->last_cpu != cpu) {
		if (node_of(tctx->last_cpu) != node_of(cpu))
			stat_inc(STAT_MIGRATIONS_CROSS_NODE);
		else if (!share_llc(tctx->last_cpu, cpu))
			stat_inc(STAT_MIGRATIONS_CROSS_LLC);
		else
			stat_inc(STAT_MIGRATIONS_SAME_LLC);
	}
	/* ASYM_MISFIT: count the move if it reached a >= 5% bigger CPU */
	if (tctx->move_cpu >= 0) {
		if (tctx->move_misfit && valid_cpu(tctx->last_cpu) &&
		    (u64)cap_of(cpu) * 1024 > (u64)cap_of(tctx->last_cpu) * 1078)
			stat_inc(STAT_MISFIT_MIGRATIONS);
		tctx->move_cpu = -1;
		tctx->move_misfit = 0;
	}
	tctx->last_cpu = cpu;

	/* seed 002: is the task running inside its process's preferred LLC? */
	{
		s32 pref = cache_pref(p, now);

		if (pref >= 0)
			stat_inc((u32)pref == llc_of(cpu) ? STAT_LLC_PREF_TASKS_IN :
							     STAT_LLC_PREF_TASKS_OUT);
	}

	task_pelt(tctx, now, 0, true);	/* it was waiting */
	set_waiting(tctx, false);
	acct_add(tctx, p, cpu);

	cpu_pelt(c, now);
	c->running_since = now;
	c->curr_deadline = tctx->deadline;
	if (tctx->vruntime > vtime_now)
		vtime_now = tctx->vruntime;
}

void BPF_STRUCT_OPS(arbor_stopping, struct task_struct *p, bool runnable)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	s32 cpu = bpf_get_smp_processor_id();
	struct cpu_ctx *c = lookup_cpu_ctx(cpu);
	u64 now = bpf_ktime_get_ns(), ran;

	if (!tctx || !c)
		return;
	ran = c->running_since && now > c->running_since ? now - c->running_since : 0;
	stat_add(STAT_BUSY_NS, ran);

	/* charge the run to vruntime, scaled by weight */
	tctx->vruntime += ran * 100 / (p->scx.weight ?: 1);
	tctx->last_ran = now;
	cache_account(p, cpu, c, ran, now);
	task_pelt(tctx, now, cpu_cap[cpu & (MAX_CPUS - 1)] ?: 1024, true);

	cpu_pelt(c, now);
	c->running_since = 0;
	if (runnable)
		set_waiting(tctx, true);
}

void BPF_STRUCT_OPS(arbor_quiescent, struct task_struct *p, u64 deq_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);

	if (!tctx)
		return;
	set_waiting(tctx, false);
	acct_remove(tctx);
}

/* seed 000: per-LLC busy CPUs, moved on every idle <-> busy transition */
static __always_inline void llc_busy_add(s32 cpu, s32 d)
{
	struct llc_ctx *lc = lookup_llc_ctx(llc_of(cpu));

	if (lc)
		__sync_fetch_and_add(&lc->nr_busy, d);
}

void BPF_STRUCT_OPS(arbor_update_idle, s32 cpu, bool idle)
{
	struct cpu_ctx *c = lookup_cpu_ctx(cpu);
	u64 now = bpf_ktime_get_ns();

	if (!c)
		return;
	if (idle) {
		if (c->idle)
			return;
		c->idle = 1;
		c->idle_stamp = now;
		llc_busy_add(cpu, -1);
		cpu_pelt(c, now);
		gap_update(1, 0);
		update_idle_core_hint(cpu);
	} else {
		u64 dur, cap;

		if (!c->idle)
			return;
		c->idle = 0;
		llc_busy_add(cpu, 1);
		dur = c->idle_stamp && now > c->idle_stamp ? now - c->idle_stamp : 0;
		c->idle_stamp = 0;
		stat_add(STAT_IDLE_NS, dur);
		gap_update(-1, 0);
		/* rq->avg_idle, capped at twice the worst balance cost seen */
		c->avg_idle = arbor_update_avg(c->avg_idle, dur);
		cap = 2 * migration_cost_ns;
		if (2 * c->lvl_cost[LVL_MACHINE] > cap)
			cap = 2 * c->lvl_cost[LVL_MACHINE];
		if (c->avg_idle > cap)
			c->avg_idle = cap;
	}
}

void BPF_STRUCT_OPS(arbor_enable, struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);

	if (tctx)
		tctx->vruntime = vtime_now;
}

s32 BPF_STRUCT_OPS(arbor_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	struct task_ctx *tctx;

	tctx = bpf_task_storage_get(&task_ctxs, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!tctx)
		return -ENOMEM;
	tctx->acct_cpu = -1;
	tctx->last_cpu = -1;
	tctx->recent_used_cpu = -1;
	tctx->last_wakee = -1;
	tctx->move_cpu = -1;
	tctx->pelt_ts = bpf_ktime_get_ns();
	/* a new task starts as if it had run half the time (kernel: post_init_entity_util_avg) */
	tctx->util_avg = 512;
	tctx->runnable_avg = 512;
	return 0;
}

void BPF_STRUCT_OPS(arbor_exit_task, struct task_struct *p, struct scx_exit_task_args *args)
{
	struct task_ctx *tctx = lookup_task_ctx(p);

	cache_task_exit(p);
	if (!tctx)
		return;
	set_waiting(tctx, false);
	acct_remove(tctx);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(arbor_init)
{
	u32 cpu;
	s32 err;

	/* every CPU starts busy; update_idle() moves the counts from here */
	bpf_for(cpu, 0, MAX_LLCS) {
		struct llc_ctx *lc;

		if (cpu >= nr_llcs)
			break;
		lc = lookup_llc_ctx(cpu);
		if (lc)
			lc->nr_busy = llc_nr_cpus[cpu];
	}

	bpf_for(cpu, 0, MAX_CPUS) {
		struct cpu_ctx *c;

		if (cpu >= nr_cpus)
			break;
		err = scx_bpf_create_dsq(cpu_dsq(cpu), cpu_node[cpu]);
		if (err) {
			scx_bpf_error("failed to create DSQ %d: %d", cpu, err);
			return err;
		}
		c = lookup_cpu_ctx(cpu);
		if (c)
			c->avg_idle = 2 * migration_cost_ns;
	}
	return 0;
}

void BPF_STRUCT_OPS(arbor_tick, struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);

	maybe_start_balance_timer();
	if (tctx) {
		check_misfit(p, tctx, scx_bpf_task_cpu(p));
		if (feat(FEAT_CACHE_LB))
			cache_aggregate(p, tctx, scx_bpf_task_cpu(p));
	}
}

void BPF_STRUCT_OPS(arbor_exit, struct scx_exit_info *ei)
{
	timer_stop = 1;
	UEI_RECORD(uei, ei);
}

SCX_OPS_DEFINE(arbor_ops,
	       .select_cpu	= (void *)arbor_select_cpu,
	       .enqueue		= (void *)arbor_enqueue,
	       .dispatch	= (void *)arbor_dispatch,
	       .runnable	= (void *)arbor_runnable,
	       .running		= (void *)arbor_running,
	       .stopping	= (void *)arbor_stopping,
	       .quiescent	= (void *)arbor_quiescent,
	       .update_idle	= (void *)arbor_update_idle,
	       .tick		= (void *)arbor_tick,
	       .enable		= (void *)arbor_enable,
	       .init_task	= (void *)arbor_init_task,
	       .exit_task	= (void *)arbor_exit_task,
	       .init		= (void *)arbor_init,
	       .exit		= (void *)arbor_exit,
	       /*
		* ENQ_LAST: a task whose slice ends with nothing else to run comes
		* back through enqueue() (and stopping/running) instead of being
		* silently kept on its CPU. Without it a lone CPU-bound task is
		* never re-placed: the tick's misfit (seed 004) and aggregation
		* (seed 002) moves, which end its slice, would be ignored, and its
		* run time would never be charged to its process (seed 002).
		*/
	       .flags		= SCX_OPS_KEEP_BUILTIN_IDLE | SCX_OPS_ENQ_LAST,
	       .name		= "arbor");
