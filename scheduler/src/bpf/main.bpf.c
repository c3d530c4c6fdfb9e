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
 *   cgroup.bpf.h, cgroup_bw.bpf.h  group scheduling (cpu.weight, cpu.idle, cpu.max)
 */
#include "common.bpf.h"
#include "load.bpf.h"
#include "idle.bpf.h"
#include "balance.bpf.h"
#include "steal.bpf.h"
#include "capacity.bpf.h"
#include "cgroup.bpf.h"
#include "eevdf.bpf.h"
#include "cgroup_bw.bpf.h"

char _license[] SEC("license") = "GPL";

UEI_DEFINE(uei);

/* The kernel's WF_EXEC; sched_ext passes it through but names no SCX_WAKE_EXEC. */
#define ARBOR_WAKE_EXEC 0x02

/* Wake-up latency (runnable -> running), by how the wakee was queued. */
static __always_inline void record_wake_latency(struct task_ctx *tctx, struct cpu_ctx *c, u64 now,
						s32 cpu)
{
	u64 d;
	u32 b;

	if (!tctx->runnable_at)
		return;
	d = now > tctx->runnable_at ? now - tctx->runnable_at : 0;
	b = arbor_lat_bucket(d);
	if (tctx->wake_direct) {
		/* WAKE_LOCAL's price of the alternative, on this CPU (measured while it is on) */
		if (feat(FEAT_WAKE_LOCAL))
			c->direct_lat_avg = arbor_wake_sleep_update(c->direct_lat_avg, d);
		stat_inc_on(cpu, STAT_WAKE_DIRECT);
		stat_add_on(cpu, STAT_WAKE_DIRECT_NS, d);
		stat_inc_on(cpu, STAT_WLAT_DIRECT_0 + b);
	} else {
		stat_inc_on(cpu, STAT_WAKE_QUEUED);
		stat_add_on(cpu, STAT_WAKE_QUEUED_NS, d);
		stat_inc_on(cpu, STAT_WLAT_QUEUED_0 + b);
	}
	tctx->runnable_at = 0;
	tctx->wake_direct = 0;
}

/*
 * The wake-up's short path: the answer of the path below when prev is idle
 * and wake_affine keeps the wakee there, reached with one call (the claim
 * of prev) instead of four (the idle mask's get, copy and put, then the
 * claim).
 *
 * Below, an idle prev ends the wake-up at prev whenever wake_affine does
 * not answer "this": target is then prev, and select_idle_sibling's first
 * step takes an idle target (it precedes every other step, SIS_IDLE_GROUP
 * included). With prev idle, wake_affine answers through WA_IDLE alone
 * (arbor_wa_needs_load is false), or through seed 001's throttle: neither
 * reads a load. Its answer is asked here with this_idle false; with this
 * idle it is the same (arbor_wa_idle: an idle this sharing prev's LLC
 * gives prev; otherwise both go on to the same tests), so no idle bit is
 * needed but prev's, and the claim reads that. prev's context's idle flag
 * (update_idle) is a free first filter: when it is clear, so is prev's
 * bit, and the claim is not tried. Left to the path below: asymmetric
 * machines (capacity decides), CACHE_WAKE (the process's LLC comes before
 * select_idle_sibling), a task not allowed on prev, and WA_IDLE off.
 *
 * A failed claim (prev's bit already taken) changes nothing: the path
 * below runs with no side effect done. The counters and seed 001's window
 * are those the path below would have left.
 */
static __always_inline bool wake_prev_idle(struct task_struct *p, struct task_ctx *tctx,
					   struct task_struct *waker, s32 this, s32 prev, bool sync,
					   bool affine, struct cpu_ctx *tc, u64 now)
{
	struct cpu_ctx *pc = lookup_cpu_ctx(prev);
	struct wa_input in = {};
	struct wa_output out = {};

	if (!feat(FEAT_WAKE_SHORTCUT) || asym || cache_wake_on() || !pc || !pc->idle ||
	    !allowed(p, prev))
		return false;
	if (affine && (!wa_fill(&in, p, tctx, waker, this, prev, sync, tc, false, true, false, now) ||
		       arbor_wa_needs_load(&in) || arbor_wake_affine(&in, &out) == WA_THIS))
		return false;
	if (!scx_bpf_test_and_clear_cpu_idle(prev))
		return false;
	if (affine) {
		stat_inc_on(this, STAT_AFFINE_ATTEMPTS);
		wa_commit(tctx, &out, this);
	}
	stat_inc_on(this, STAT_FOUND_IDLE_CPU);
	stat_inc_on(this, STAT_WAKE_PREV_IDLE);
	tctx->wake_direct = 1;
	scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, eevdf_wake_direct(p, tctx, prev), 0);
	return true;
}

s32 BPF_STRUCT_OPS(arbor_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct task_struct *waker = (struct task_struct *)bpf_get_current_task_btf();
	s32 this = bpf_get_smp_processor_id(), target = prev_cpu, cpu;
	struct task_ctx *tctx = lookup_task_ctx(p);
	bool sync, want_affine = true, found_idle = false;
	struct cpu_ctx *here = lookup_cpu_ctx(this);
	struct waker_state *ws;
	const u64 *ib;
	u64 now;

	if (!tctx || !valid_cpu(prev_cpu))
		return prev_cpu;
	/* cpu.max: a task of a throttled group is not run now; enqueue() holds it */
	if (cg_throttled_id(tctx))
		return prev_cpu;

	/* New tasks have no cache to go back to: spread them (slow path). */
	if (wake_flags & (SCX_WAKE_FORK | ARBOR_WAKE_EXEC)) {
		stat_inc_on(this, STAT_FORK_EXEC_SLOWPATH);
		cpu = -1;
		/*
		 * ASYM_WAKE_CAP (seed 004, "sched/fair: Consider spare capacity in
		 * find_idlest_group()"): on an asymmetric machine a new task goes
		 * to the idle CPU with the most spare capacity, as the seed's slow
		 * path places a wakee that does not fit (arbor_capacity_pick);
		 * load decides only when no CPU is idle.
		 * Without it a single CPU-bound thread forked on a little CPU
		 * starts on the cluster with more idle CPUs, the little one.
		 */
		if (asym && feat(FEAT_ASYM_WAKE_CAP)) {
			cpu = select_by_capacity(p, tctx, this, &found_idle);
			if (cpu >= 0)
				stat_inc_on(this, STAT_CAPACITY_PLACEMENTS);
		}
		if (cpu < 0)
			cpu = select_idlest(p, prev_cpu, this, &found_idle);
		goto out;
	}

	/*
	 * one clock read for the whole wake-up (record_wakee, wake_affine,
	 * and runnable(), which comes next for this wake-up: sel_now)
	 */
	now = bpf_ktime_get_ns();
	tctx->sel_now = now;
	stat_inc_on(this, STAT_WAKEUPS);
	if (wake_flags & SCX_WAKE_SYNC)
		stat_inc_on(this, STAT_WAKE_SYNC);
	sync = (wake_flags & SCX_WAKE_SYNC) && !(waker->flags & PF_EXITING);
	/*
	 * PREEMPT_SYNC, NEXT_BUDDY: enqueue, which follows, learns of WF_SYNC
	 * only from here; running() clears it, so a later wake-up that skips
	 * select_cpu (one allowed CPU) does not inherit it. SYNC_PAIR marks
	 * the wake-up of the task whose own last wake-up woke this waker
	 * (read before wake_wide's record below, which updates the waker's
	 * last_wakee, not the wakee's).
	 */
	tctx->wake_sync = !sync ? WAKE_NOT_SYNC :
			  arbor_sync_pair(feat(FEAT_SYNC_PAIR), tctx->ws.last_wakee, waker->pid) ?
				  WAKE_SYNC_PAIR : WAKE_SYNC;
	tctx->wake_cpu = this;

	/*
	 * wake_wide (baseline): record the waker's flip, then test both sides.
	 * The waker's side is its CPU's copy while it runs (waker_state_of).
	 */
	ws = waker_state_of(waker, here);
	if (ws) {
		/* a flip: the waker wakes another task than last time */
		if (ws->last_wakee != p->pid)
			stat_inc_on(this, (wake_flags & SCX_WAKE_SYNC) ? STAT_FLIPS_SYNC :
									   STAT_FLIPS_ASYNC);
		arbor_record_wakee(&ws->wakee_flips, &ws->flip_decay_ts, &ws->last_wakee, p->pid,
				   now);
		if (feat(FEAT_WAKE_WIDE) &&
		    arbor_wake_wide(ws->wakee_flips, tctx->ws.wakee_flips,
				    llc_nr_cpus[llc_of(this)])) {
			want_affine = false;
			stat_inc_on(this, STAT_WAKE_WIDE);
			if (wake_flags & SCX_WAKE_SYNC)
				stat_inc_on(this, STAT_WAKE_WIDE_SYNC);
		}
	}
	if (!allowed(p, this))
		want_affine = false;

	/*
	 * SYNC_LOCAL (ours, policy.h arbor_sync_local): a waker that kept
	 * WF_SYNC's promise on each of its last 8 sync wake-ups (it slept
	 * next) gets its wakee queued on its own CPU, which runs nothing else
	 * and is about to be free: no idle search, no idle exit, no IPI. Every
	 * sync wake-up is recorded; the sleep that keeps it is in quiescent().
	 */
	if (sync && ws && feat(FEAT_SYNC_LOCAL)) {
		bool local;

		local = want_affine && here &&
			arbor_sync_local(ws->sync_hist, ws->sync_since, here->nr_running);
		/*
		 * a wakee too big for this CPU stays only while nothing bigger
		 * is idle (SYNC_LOCAL_BIG_BUSY, policy.h arbor_sync_local_fits)
		 */
		if (local && asym && !task_fits(tctx, this)) {
			bool on = feat(FEAT_SYNC_LOCAL_BIG_BUSY);

			/* the scan only where the rule would read it */
			local = arbor_sync_local_fits(false,
						      on && bigger_cpu_idle(copy_idle_mask(this), this),
						      on);
			if (local)
				stat_inc_on(this, STAT_SYNC_LOCAL_BIG_BUSY);
		}
		if (ws->sync_since) {
			/* a second sync wake-up before it slept: the first was not kept */
			ws->sync_hist = arbor_sync_record(ws->sync_hist, false);
			stat_inc_on(this, STAT_SYNC_BROKEN);
		}
		ws->sync_since = now;
		if (local) {
			/*
			 * Straight into this CPU's local queue: it runs only the
			 * waker, so there is no order to keep with other tasks,
			 * and the wakee runs as soon as the waker sleeps, with
			 * no enqueue or dispatch on the way. It joins the CPU's
			 * EEVDF queue when it starts to run, as a wakee sent to
			 * an idle CPU (eevdf_wake_direct): three calls off the
			 * waker's side, paid by the wakee's running() instead.
			 * Meanwhile the queue holds the waker alone, which is
			 * about to sleep.
			 */
			stat_inc_on(this, STAT_SYNC_LOCAL);
			scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, eevdf_wake_direct(p, tctx, this), 0);
			return this;
		}
	}

	/*
	 * WAKE_LOCAL (ours, policy.h arbor_wake_local): the wakee's prev is the
	 * waker's CPU, which runs only the waker, and the waker is expected to
	 * sleep sooner than an idle CPU would wake up: queue it there behind
	 * the waker. Every wake-up starts the waker's measure (wake_pend) if
	 * none runs; its sleep ends it (quiescent).
	 */
	if (ws && feat(FEAT_WAKE_LOCAL)) {
		u64 pend = ws->wake_pend;

		if (!pend)
			ws->wake_pend = now;
		if (this == prev_cpu && here && (!asym || task_fits(tctx, this)) &&
		    arbor_wake_local(ws->wake_sleep_avg, pend && now > pend ? now - pend : 0,
				     here->direct_lat_avg, here->nr_running)) {
			stat_inc_on(this, STAT_WAKE_LOCAL);
			eevdf_join(p, tctx, this);
			scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, eevdf_slice(tctx), 0);
			return this;
		}
	}

	/*
	 * ASYM_WAKE_CAP (seed 004): a task too big for the smaller of prev and
	 * this would be kept small by the affine path: place it by capacity.
	 */
	if (asym && feat(FEAT_ASYM_WAKE_CAP) &&
	    arbor_wake_cap(tctx->util_avg, cap_of(prev_cpu), cap_of(this))) {
		cpu = select_by_capacity(p, tctx, this, &found_idle);
		if (cpu >= 0) {
			stat_inc_on(this, STAT_CAPACITY_PLACEMENTS);
			goto out;
		}
	}

	/*
	 * WAKE_NODE (ours, policy.h arbor_wake_node_keep): no wake_affine
	 * pull out of prev's node, where that node is one LLC, while it has
	 * an idle CPU. (It reads the nodes' busy counts, no idle bit.)
	 */
	if (want_affine && this != prev_cpu && feat(FEAT_WAKE_NODE) &&
	    arbor_wake_node_keep(node_of(this), node_of(prev_cpu),
				 READ_ONCE(node_busy[node_of(prev_cpu)].nr),
				 node_busy[node_of(prev_cpu)].cpus,
				 node_nr_llcs[node_of(prev_cpu) & (MAX_NODES - 1)])) {
		want_affine = false;
		stat_inc_on(this, STAT_WAKE_NODE_KEPT);
	}

	/* prev idle and kept by wake_affine: prev, with no look at the idle mask */
	if (wake_prev_idle(p, tctx, waker, this, prev_cpu, sync, want_affine && this != prev_cpu,
			   here, now))
		return prev_cpu;

	/*
	 * one copy of the idle mask for wake_affine and select_idle_sibling
	 * (common.bpf.h copy_idle_mask: no get/put of the mask)
	 */
	ib = copy_idle_mask(this);

	/* wake_affine (baseline): this or prev, only when they differ. */
	if (want_affine && this != prev_cpu) {
		stat_inc_on(this, STAT_AFFINE_ATTEMPTS);
		if (wake_affine(p, tctx, waker, this, prev_cpu, sync, here, ib, now) ==
		    WA_THIS) {
			target = this;
			stat_inc_on(this, STAT_AFFINE_MOVES);
		}
	}

	/*
	 * CACHE_WAKE (seed 002's RFC, off by default): wake into the process's
	 * preferred LLC when it has an idle CPU and the move is allowed.
	 */
	if (cache_wake_on()) {
		s32 pref = cache_pref(p, now), c;

		/* the move is checked first: idle_cpu_in_llc claims the CPU */
		if (pref >= 0 && (u32)pref != llc_of(target) &&
		    cache_allow_llc(p, tctx, target, -1, pref, tctx->util_avg, now) &&
		    (c = idle_cpu_in_llc(p, pref, tctx, target)) >= 0) {
			/* claimed: run it there at once (joins its queue there: eevdf_wake_direct) */
			tctx->wake_direct = 1;
			scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, eevdf_wake_direct(p, tctx, c), 0);
			return c;
		}
	}

	cpu = select_idle_sibling(p, tctx, prev_cpu, target, &found_idle, this, waker, here, ib, now);
out:
	if (!allowed(p, cpu))
		return prev_cpu;
	/*
	 * An idle CPU we could claim runs the task at once: insert it straight
	 * into that CPU's local queue. Otherwise enqueue() queues it on `cpu`.
	 */
	if (found_idle && scx_bpf_test_and_clear_cpu_idle(cpu)) {
		/* it joins cpu's EEVDF queue there, in running() (eevdf_wake_direct) */
		tctx->wake_direct = 1;
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, eevdf_wake_direct(p, tctx, cpu), 0);
	}
	return cpu;
}

/*
 * arbor_wake_preempt() for a task just queued on cpu (context c), whose
 * eligibility there `elig` is 1, 0, or -1: not read yet (eevdf_join). Then
 * it is read only if the rule's answer depends on it (differs between the
 * two values), e.g. not when cpu runs nothing (a task put back by its own
 * CPU's stopping), and after the insert rather than before: nothing in
 * between changes the queue's average (on a machine another CPU may, as
 * at any moment before the read).
 */
static __always_inline bool wake_preempt(struct cpu_ctx *c, struct task_ctx *tctx, s32 cpu,
					 int elig)
{
	bool on = feat(FEAT_WAKE_PREEMPT), yes, no;

	if (elig < 0) {
		yes = arbor_wake_preempt(on, c->running_since, true, tctx->deadline,
					 c->curr_deadline);
		no = arbor_wake_preempt(on, c->running_since, false, tctx->deadline,
					c->curr_deadline);
		if (yes == no)
			return yes;
		elig = eevdf_eligible_on(tctx, cpu);
	}
	return arbor_wake_preempt(on, c->running_since, elig, tctx->deadline, c->curr_deadline);
}

void BPF_STRUCT_OPS(arbor_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	s32 task_cpu = task_cpu_of(p), cpu = task_cpu;
	struct cpu_ctx *c;
	bool own_busy;
	int elig, idle_rule;

	/*
	 * A task must land in a queue that a CPU it may run on will drain:
	 * migration-disabled tasks stay where they are; if affinity changed
	 * under us, pick an allowed CPU (idle if possible).
	 */
	/* the tick chose a CPU for this task (seed 004 misfit, seed 002 aggregation) */
	if (tctx && tctx->move_cpu >= 0 && !task_migration_disabled(p) &&
	    allowed(p, tctx->move_cpu))
		cpu = tctx->move_cpu;

	if (!task_migration_disabled(p) && !allowed(p, cpu)) {
		cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
		if (cpu < 0)
			cpu = scx_bpf_pick_any_cpu(p->cpus_ptr, 0);
	}
	if (!tctx || !valid_cpu(cpu)) {
		scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, slice_cfg.slice_ns, enq_flags);
		return;
	}
	/* cpu.max: a throttled group's task waits for its period's end (cgroup_bw.bpf.h) */
	if (cg_throttle_enqueue(p, tctx, enq_flags))
		return;

	/* 1 or 0; -1: already counted there, eligibility not read (wake_preempt) */
	elig = eevdf_join(p, tctx, cpu);

	/*
	 * ENQ_LAST: the task's slice ended and its CPU has nothing else to
	 * run, and dispatch did not keep it (keep_prev): tasks wait in its
	 * queue (dispatch picked it among them), or the CPU was kicked to
	 * balance. Unless the tick asked for a move, it keeps its CPU: insert it
	 * into the CPU's local queue, where no idle CPU can pull it (in our
	 * DSQ, newidle and steal would make a lone task wander), and kick the
	 * CPU, which is about to idle, so that it runs it. Not if a task
	 * was queued on the CPU meanwhile, or dispatch kept this one as the
	 * only eligible task (the local queue would run it for
	 * a whole slice ahead of them): then it is queued in deadline order
	 * with the others and the CPU picks again. Either way the CPU passes
	 * through idle with work to do; update_idle() takes its idle bit back.
	 */
	if ((enq_flags & SCX_ENQ_LAST) && tctx->move_cpu < 0 && cpu == task_cpu) {
		c = lookup_cpu_ctx(cpu);
		if (c)
			c->enq_last = 1;
		if (scx_bpf_dsq_nr_queued(cpu_dsq(cpu)) <= 0) {
			scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, eevdf_slice(tctx), enq_flags);
		} else {
			acct_add(tctx, p, cpu);
			scx_bpf_dsq_insert_vtime(p, cpu_dsq(cpu), eevdf_slice(tctx), tctx->deadline,
						 enq_flags);
		}
		/* not SCX_KICK_IDLE: the CPU is not idle yet, the kick would be skipped */
		scx_bpf_kick_cpu(cpu, 0);
		return;
	}

	/*
	 * cpu.idle: tasks of idle groups against the others (policy.h
	 * arbor_cg_idle_preempt): 1, a wakee that is not idle preempts an idle
	 * group's running task; 0, an idle wakee preempts nothing else; -1
	 * (always while no group is idle) the rules below decide.
	 */
	idle_rule = -1;
	if (cg_nr_idle && (c = lookup_cpu_ctx(cpu)))
		idle_rule = arbor_cg_idle_preempt(c->running_since && c->curr_cg_idle,
						  cg_task_idle(tctx));

	/*
	 * NEXT_BUDDY (the kernel's, off there by default; ours in default):
	 * a wakee that is eligible on its CPU, which runs a task, becomes
	 * that CPU's next buddy and runs next (policy.h arbor_next_buddy).
	 * Only on the task's own CPU, whose rq lock enqueue holds (so the
	 * running task it reads cannot change meanwhile).
	 */
	if (feat(FEAT_NEXT_BUDDY) && idle_rule != 0 && (enq_flags & SCX_ENQ_WAKEUP) && cpu == task_cpu &&
	    (c = lookup_cpu_ctx(cpu)) &&
	    arbor_next_buddy(c->running_since, tctx->wake_sync == WAKE_SYNC, c->buddy_pending) &&
	    arbor_buddy_long_run(feat(FEAT_BUDDY_LONG_RUN), c->curr_avg_stint,
				 balance_cfg.migration_cost_ns >> 2) &&
	    (elig >= 0 ? elig : eevdf_eligible_on(tctx, cpu))) {
		c->buddy_pending = 1;
		if (idle_rule == 1)
			cg_idle_preempted(c->curr_cg_idle);
		/* a pair's sync wake-up is a buddy only by SYNC_PAIR: its own counter */
		stat_inc(tctx->wake_sync == WAKE_SYNC_PAIR ? STAT_SYNC_PAIR : STAT_NEXT_BUDDY);
		/* SCX_ENQ_PREEMPT: the running task's slice ends now (ext.c) */
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, eevdf_slice(tctx),
				   enq_flags | SCX_ENQ_PREEMPT);
		return;
	}

	acct_add(tctx, p, cpu);
	scx_bpf_dsq_insert_vtime(p, cpu_dsq(cpu), eevdf_slice(tctx), tctx->deadline, enq_flags);

	/*
	 * The task's own CPU while it runs a task (own_busy) cannot be idle:
	 * enqueue holds that CPU's rq lock, under which running() sets
	 * running_since and stopping() clears it, and its idle bit is clear
	 * from the moment it left idle, before that task's running(), until
	 * it enters idle again, after its stopping() (ext/idle.c
	 * __scx_update_idle; the SMT mask already lacks its core). So neither
	 * the idle claim below nor an SCX_KICK_IDLE, which acts only on an
	 * idle CPU, can do anything there: both calls are skipped, and the
	 * CPU's next dispatch finds the wakee. (One exception, until the
	 * CPU's first tick after the load, which takes back the stale bit the
	 * load sets on every online CPU: there the claim would have taken
	 * that bit, kicked a busy CPU to no effect and skipped the preemption
	 * test below, which now runs.)
	 */
	c = lookup_cpu_ctx(cpu);
	own_busy = c && cpu == task_cpu && c->running_since;

	/*
	 * An idle CPU is claimed (left idle in the idle mask,
	 * the next wakers' scans would pick it too and stack onto it) and
	 * woken. A busy one is preempted when ours is eligible with the
	 * earlier deadline (check_preempt_wakeup_fair: pick_eevdf picks it).
	 */
	if (!own_busy && scx_bpf_test_and_clear_cpu_idle(cpu)) {
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
	if (idle_rule == 1) {
		cg_idle_preempted(c ? c->curr_cg_idle : 0);
		scx_bpf_kick_cpu(cpu, SCX_KICK_PREEMPT);
		return;
	}
	if (idle_rule == 0) {
		if (!own_busy)
			scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
	if (c && wake_preempt(c, tctx, cpu, elig)) {
		/*
		 * PREEMPT_SYNC (ours, from NEXT_BUDDY; policy.h arbor_sync_defer):
		 * a sync wake-up lets the running task issue its batch first.
		 * wake_sync is set only by this wake-up's select_cpu, whose clock
		 * read runnable() has just stored in runnable_at: no second read.
		 * No kick on the task's own CPU (own_busy above; a deferral
		 * needs a running task, so own_busy is cpu == task_cpu here),
		 * as RUN_TO_PARITY's return below. The deferral then costs no
		 * call: its counter goes on the row of the CPU this enqueue
		 * runs on, which select_cpu recorded (wake_cpu), not one
		 * bpf_get_smp_processor_id() per deferral.
		 */
		if (feat(FEAT_PREEMPT_SYNC) && (enq_flags & SCX_ENQ_WAKEUP) && tctx->wake_sync &&
		    tctx->runnable_at &&
		    arbor_sync_defer(true, tctx->runnable_at, c->running_since,
				     balance_cfg.migration_cost_ns >> 2)) {
			/* SYNC_PAIR: the waker awaits this wakee's answer; no deferral */
			if (tctx->wake_sync == WAKE_SYNC_PAIR) {
				stat_inc_on(tctx->wake_cpu, STAT_SYNC_PAIR);
			} else {
				stat_inc_on(tctx->wake_cpu, STAT_SYNC_PREEMPT_DEFERRED);
				if (!own_busy)
					scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
				return;
			}
		}
		/* RUN_TO_PARITY (the kernel's; off here): not inside the running task's request */
		if (feat(FEAT_RUN_TO_PARITY) &&
		    arbor_run_to_parity(true, bpf_ktime_get_ns(), c->curr_protect_until)) {
			stat_inc(STAT_PARITY_KEPT);
			return;
		}
		stat_inc(STAT_WAKE_PREEMPTS);
		scx_bpf_kick_cpu(cpu, SCX_KICK_PREEMPT);
	} else if (!own_busy) {
		/* any other CPU: the kick wakes it if it is idle by then, else does nothing */
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
	}
}

/* seed 003: the last resort before idling */
static __always_inline void steal(s32 cpu, struct cpu_ctx *cc)
{
	int r = try_steal(cpu, cc);

	if (r > 0)
		stat_inc_on(cpu, STAT_STEAL);
	else if (r == 0)
		stat_inc_on(cpu, STAT_STEAL_FAIL);
}

/* The running task's request, as wake-up preemption reads it (running, keep_prev). */
static __always_inline void set_curr_request(struct cpu_ctx *c, struct task_ctx *tctx, u64 now)
{
	c->curr_deadline = tctx->deadline;
	/* RUN_TO_PARITY only (enqueue reads it only with the feature on) */
	if (feat(FEAT_RUN_TO_PARITY)) {
		c->curr_protect_until = arbor_protect_until_hi(now, tctx->vruntime, tctx->deadline,
							       tctx->rq_w ?: ARBOR_NICE_0_HI);
		/* a request is at most one slice; a deadline from before a nice change can be further */
		if (c->curr_protect_until > now + slice_cfg.slice_ns)
			c->curr_protect_until = now + slice_cfg.slice_ns;
	}
}

/*
 * A task alone on its CPU whose slice ended keeps the CPU, with no switch.
 * The kernel never switches it out: update_curr() at the tick gives it a
 * new request (update_deadline) and reschedules only when another task is
 * queued, and pick_next_task_fair() would pick it again. ext.c keeps a
 * prev whose slice ops.dispatch() refilled (balance_one: SCX_RQ_BAL_KEEP).
 * Without this, SCX_OPS_ENQ_LAST sent it through enqueue(SCX_ENQ_LAST) and
 * its CPU through idle and back at every slice end: about every 2 ms for
 * one CPU-bound thread on x86-12 in the simulator, with stopping, enqueue,
 * two update_idle, a kick and running each time
 * (docs/findings/2026-11-29-cost-per-wakeup §4).
 *
 * Called by dispatch once its own queue was empty and nothing was pulled.
 * Not when the tick or the balancer asked for a move (move_cpu: misfit,
 * seed 002's aggregation, active balance), which needs the enqueue that
 * ENQ_LAST gives. What stopping() and running() would have accounted is
 * done here: update_curr and update_deadline (the charge and the new
 * request), PELT (misfit reads the task's), seed 002's run time and the
 * busy time since the last accounting (acct_since). running_since stays
 * the pick's time: a kept task was not picked again (PREEMPT_SYNC,
 * NEXT_BUDDY read it as such).
 */
static __always_inline void keep_prev(s32 cpu, struct cpu_ctx *c, struct task_struct *prev, u64 now)
{
	struct task_ctx *tctx;
	u64 ran, dv, dl;

	if (!prev || task_cpu_of(prev) != cpu || prev->scx.slice)
		return;
	tctx = lookup_task_ctx(prev);
	/* tasks still queued here (a move to the local queue failed): ENQ_LAST's path queues it with them */
	if (!tctx || tctx->move_cpu >= 0 || scx_bpf_dsq_nr_queued(cpu_dsq(cpu)) > 0)
		return;
	/* cpu.max: a task of a throttled group goes through enqueue() to wait */
	if (tctx->cg_exec && now && cg_charge(tctx, now))
		return;
	ran = c->running_since && now > c->acct_since ? now - c->acct_since : 0;
	stat_add_on(cpu, STAT_BUSY_NS, ran);
	cg_account_run(tctx, ran);
	c->acct_since = now;
	cache_account(prev, tctx, cpu, c, ran, now);
	task_pelt(tctx, now, cpu_cap[cpu & (MAX_CPUS - 1)] ?: 1024, true);
	cpu_pelt(c, now);

	dv = eevdf_charge_task(tctx, now);
	dl = tctx->deadline;
	tctx->deadline = arbor_update_deadline_hi(tctx->vruntime, tctx->deadline, slice_cfg.slice_ns,
						  tctx->rq_w ?: ARBOR_NICE_0_HI);
	eevdf_charge_rq(tctx, dv, tctx->deadline != dl);
	set_curr_request(c, tctx, now);
	prev->scx.slice = eevdf_slice(tctx);
	stat_inc_on(cpu, STAT_SLICE_KEPT);
}

void BPF_STRUCT_OPS(arbor_dispatch, s32 cpu, struct task_struct *prev)
{
	struct cpu_ctx *cc = lookup_cpu_ctx(cpu);
	bool prev_runnable = prev && (prev->scx.flags & SCX_TASK_QUEUED);
	enum pull_kind kind;
	u32 req = 0;
	bool tried;
	u64 now = 0;

	/*
	 * cpu.max: a prev whose group is throttled is not kept (put_prev_entity's
	 * check_cfs_rq_runtime): ext.c enqueues it, where it waits for the
	 * refill, and this CPU runs its other tasks now rather than idling
	 * beside them until a kick.
	 */
	if (prev_runnable && cg_prev_throttled(prev))
		prev_runnable = false;

	/* active balance (LB_IMBALANCE): an idle CPU asked for our running task */
	if (cc && cc->push_to)
		lb_push_running(cpu, cc, prev, prev_runnable);

	/*
	 * the starvation bound (eevdf.bpf.h starve_tick): starved tasks first,
	 * one per dispatch until none is left
	 */
	if (cc && cc->starve_pending) {
		if (starve_scan(cpu, bpf_ktime_get_ns(), true))
			return;
		cc->starve_pending = 0;
	}

	/*
	 * LB_IMBALANCE with groups (cgroup.bpf.h cg_nr_groups): a CPU balances by load
	 * at its balance interval whether or not tasks wait in its queue, as
	 * fair.c's periodic sched_balance_rq() does from every CPU's tick. A
	 * CPU whose own queue holds work otherwise does not balance (below),
	 * which task counts make right for tasks of the root; the
	 * hierarchical loads of groups (policy.h arbor_h_weight) need it: two
	 * CPUs of two tasks each, one holding two of a three-task group, the
	 * other its third beside a one-task group's, carry loads of 2/3 and
	 * 4/3 of a task.
	 */
	if (cg_enabled && cg_nr_groups && cc && feat(FEAT_LB_IMBALANCE) && cc->nr_running >= 2) {
		now = bpf_ktime_get_ns();
		if (now >= cc->next_busy_balance) {
			cc->next_busy_balance = now + balance_cfg.interval_ns;
			if (lb_balance(cpu, false) > 0)
				return;
		}
	}

	/* Our own queue first, in EEVDF order: that is where placement put our tasks. */
	if (eevdf_dispatch(cpu, prev, prev_runnable))
		return;
	if (!cc)
		return;

	if (cc->balance_req) {
		req = cc->balance_req;
		cc->balance_req = 0;
		kind = PULL_KICKED;
	} else if (prev_runnable) {
		/*
		 * busy balance at most once per balance interval; the only use
		 * of the clock here, so a CPU about to idle reads none
		 */
		now = bpf_ktime_get_ns();
		if (now < cc->next_busy_balance)
			goto keep;
		cc->next_busy_balance = now + balance_cfg.interval_ns;
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
		/*
		 * NI_MIGRATION_COST (kernels before 5.16; off in every profile):
		 * idle_balance() gave up at once when the CPU's average idle time
		 * was below sysctl_sched_migration_cost ("if (this_rq->avg_idle <
		 * sysctl_sched_migration_cost || !this_rq->rd->overload) goto
		 * out"). Seeds 000, 001, 003 and 004 ran on such kernels; seed
		 * 003's steal is the cheap pull for exactly the idle periods this
		 * gate skips.
		 */
		if (feat(FEAT_NI_MIGRATION_COST) && cc->avg_idle < balance_cfg.migration_cost_ns) {
			stat_inc_on(cpu, STAT_NEWIDLE_FAILS);
			stat_inc_on(cpu, STAT_NEWIDLE_SKIPS);
			steal(cpu, cc);
			return;
		}
		kind = PULL_NEWIDLE;
	}

	/*
	 * LB_IMBALANCE: periodic balancing by weighted imbalance
	 * (balance.bpf.h lb_balance), for a busy CPU at the end of its slice
	 * and for an idle CPU the timer kicked. A busy CPU stops there. A
	 * kicked one that pulled nothing still makes the ungated pull below if
	 * it was kicked because tasks wait (BAL_REQ_PULL: the never-stall
	 * rule); kicked only to balance, it goes back to idle.
	 */
	if (kind != PULL_NEWIDLE && feat(FEAT_LB_IMBALANCE)) {
		if (lb_balance(cpu, !prev_runnable) > 0)
			return;
		if (kind == PULL_BUSY)
			goto keep;
	}
	if (kind == PULL_KICKED && !(req & BAL_REQ_PULL))
		return;

	if (balance(cpu, cc, kind, &tried)) {
		stat_inc_on(cpu, kind == PULL_BUSY ? STAT_BUSY_PULLS : STAT_NEWIDLE_PULLS);
		return;
	}
	if (kind != PULL_BUSY)
		stat_inc_on(cpu, STAT_NEWIDLE_FAILS);
	if (kind == PULL_NEWIDLE && !tried)
		stat_inc_on(cpu, STAT_NEWIDLE_SKIPS);
	if (kind != PULL_BUSY) {
		steal(cpu, cc);
		return;
	}
	/* a busy CPU's slice end that pulled nothing: its lone task keeps it (one call site) */
keep:
	keep_prev(cpu, cc, prev, now);
}

void BPF_STRUCT_OPS(arbor_runnable, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	u64 now;
	s32 cpu;

	if (!tctx)
		return;
	/*
	 * A wake-up's runnable() follows its select_cpu() (ttwu: select_task_rq,
	 * then activate_task), which read the clock for it: the kernel too
	 * reads one clock for a wake-up's enqueue (ttwu_do_activate on the
	 * rq clock). Any other enqueue (a new task, a migration, a property
	 * change, a wake-up select_cpu() was not asked about: one allowed CPU)
	 * reads it now. On a machine the wake-up's read is earlier by the
	 * wake-up's own path (a wake-list IPI and idle exit at most), which
	 * runnable_at then counts in the wake-up latency, as the kernel's
	 * latency from try_to_wake_up().
	 */
	now = (enq_flags & SCX_ENQ_WAKEUP) && tctx->sel_now ? tctx->sel_now : bpf_ktime_get_ns();
	tctx->sel_now = 0;
	/* it was asleep since pelt_ts */
	task_pelt(tctx, now, 0, false);
	cg_task_runnable(p, tctx);
	if (enq_flags & SCX_ENQ_WAKEUP)
		tctx->runnable_at = now;
	cpu = task_cpu_of(p);
	acct_add(tctx, p, cpu);
	/* the waiting count's share of the task's CPU (set_waiting_on) */
	set_waiting_on(tctx, lookup_cpu_ctx(cpu), true, now);
}

/*
 * running() and stopping() name the task's CPU, not the one they run on: a
 * property change of a running task made from another CPU (setaffinity,
 * setpriority: the core's sched_change guard, DEQUEUE_SAVE) calls them on
 * the caller's CPU, with the task's run queue locked. The task's CPU's own
 * callbacks that write the same context fields and counters (running,
 * stopping, tick, dispatch, update_idle) take that lock too, so they do
 * not run meanwhile. (Found by the cost audit; the simulator calls these
 * ops on the task's own CPU, where both names agree.)
 */
void BPF_STRUCT_OPS(arbor_running, struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	s32 cpu = task_cpu_of(p);
	struct cpu_ctx *c = lookup_cpu_ctx(cpu);
	u64 now = bpf_ktime_get_ns();

	if (!tctx || !c)
		return;

	/* count migrations by distance (what placement costs in cache) */
	if (valid_cpu(tctx->last_cpu) && tctx->last_cpu != cpu) {
		if (node_of(tctx->last_cpu) != node_of(cpu))
			stat_inc_on(cpu, STAT_MIGRATIONS_CROSS_NODE);
		else if (!share_llc(tctx->last_cpu, cpu))
			stat_inc_on(cpu, STAT_MIGRATIONS_CROSS_LLC);
		else
			stat_inc_on(cpu, STAT_MIGRATIONS_SAME_LLC);
	}
	/* ASYM_MISFIT: count the move if it reached a >= 5% bigger CPU */
	if (tctx->move_cpu >= 0) {
		if (tctx->move_misfit && valid_cpu(tctx->last_cpu) &&
		    (u64)cap_of(cpu) * 1024 > (u64)cap_of(tctx->last_cpu) * 1078)
			stat_inc_on(cpu, STAT_MISFIT_MIGRATIONS);
		tctx->move_cpu = -1;
		tctx->move_misfit = 0;
	}
	tctx->last_cpu = cpu;
	/* its waker state: the CPU's copy while it runs (cpu_ctx.curr_ws) */
	c->curr_ws = tctx->ws;
	c->curr_ws_pid = p->pid;
	tctx->wake_sync = WAKE_NOT_SYNC;	/* PREEMPT_SYNC, SYNC_PAIR: its wake-up is over */
	c->buddy_pending = 0;	/* NEXT_BUDDY: whichever task runs, the buddy is no longer waiting */

	/*
	 * seed 002: is the task running inside its process's preferred LLC?
	 * (from its copy of the process's entry while that is current)
	 */
	{
		s32 pref = cache_pref_of(p, tctx, now);

		if (pref >= 0)
			stat_inc_on(cpu, (u32)pref == llc_of(cpu) ? STAT_LLC_PREF_TASKS_IN :
								     STAT_LLC_PREF_TASKS_OUT);
	}

	task_pelt(tctx, now, 0, true);	/* it was waiting */
	set_waiting_on(tctx, c, false, now);
	acct_add(tctx, p, cpu);

	cpu_pelt(c, now);
	c->running_since = now;
	c->acct_since = now;
	c->curr_avg_stint = tctx->avg_stint;
	c->enq_last = 0;

	/* EEVDF: taken by another CPU, it changes queue now; charge from now */
	eevdf_run_on(p, tctx, cpu);
	tctx->exec_start = now;
	set_curr_request(c, tctx, now);
	record_wake_latency(tctx, c, now, cpu);
	/* group scheduling: its run counts against cpu.max from now; is it cpu.idle's? */
	if (cg_nr_bw && tctx->cg_id) {
		tctx->cg_exec = now;
		/* queued here before its group was throttled: it stops at the next tick */
		if (cg_throttled_id(tctx))
			p->scx.slice = 0;
	}
	c->curr_cg_idle = cg_task_idle(tctx);
}

void BPF_STRUCT_OPS(arbor_stopping, struct task_struct *p, bool runnable)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	s32 cpu = task_cpu_of(p);	/* the task's CPU: see running() */
	struct cpu_ctx *c = lookup_cpu_ctx(cpu);
	u64 now = bpf_ktime_get_ns(), ran, dv, dl;

	if (!tctx || !c)
		return;
	/* the run since running() or keep_prev() accounted it last */
	ran = c->running_since && now > c->acct_since ? now - c->acct_since : 0;
	stat_add_on(cpu, STAT_BUSY_NS, ran);
	cg_account_run(tctx, ran);

	/* update_curr + update_deadline: charge the run, new request at the deadline */
	dv = eevdf_charge_task(tctx, now);
	tctx->exec_start = 0;
	/* and account_cfs_rq_runtime: the run against its groups' cpu.max */
	if (tctx->cg_exec) {
		cg_charge(tctx, now);
		tctx->cg_exec = 0;
	}
	dl = tctx->deadline;
	tctx->deadline = arbor_update_deadline_hi(tctx->vruntime, tctx->deadline, slice_cfg.slice_ns,
						  tctx->rq_w ?: ARBOR_NICE_0_HI);
	tctx->last_ran = now;
	if (c->running_since && now > c->running_since)
		tctx->avg_stint = arbor_update_avg(tctx->avg_stint, now - c->running_since);
	/* its waker state back from the CPU's copy (not if running() made none) */
	if (c->curr_ws_pid == p->pid)
		tctx->ws = c->curr_ws;
	c->curr_ws_pid = 0;
	cache_account(p, tctx, cpu, c, ran, now);
	task_pelt(tctx, now, cpu_cap[cpu & (MAX_CPUS - 1)] ?: 1024, true);

	cpu_pelt(c, now);
	c->running_since = 0;
	/*
	 * The charge into the queue's average (nothing above reads it), on
	 * one branch for the verifier. Still runnable: it stays queued,
	 * waiting. Not runnable: it leaves its queue now, in the same
	 * critical section (eevdf_stop_leave); quiescent() says whether it
	 * slept.
	 */
	if (runnable) {
		eevdf_charge_rq(tctx, dv, tctx->deadline != dl);
		set_waiting_on(tctx, c, true, now);
	} else {
		eevdf_stop_leave(tctx, dv);
	}
}

void BPF_STRUCT_OPS(arbor_quiescent, struct task_struct *p, u64 deq_flags)
{
	struct task_ctx *tctx = lookup_task_ctx(p);

	if (!tctx)
		return;
	set_waiting(tctx, false, 0);
	acct_remove(tctx);
	cg_task_quiescent(tctx);
	/*
	 * SYNC_LOCAL: it sleeps; was its pending sync wake-up kept? (policy.h)
	 * A task goes to sleep from its CPU: stopping() has just stamped
	 * last_ran and running() last_cpu, so neither the clock nor the CPU
	 * is asked again.
	 */
	if ((deq_flags & SCX_DEQ_SLEEP) && tctx->ws.sync_since) {
		bool kept = arbor_sync_kept(tctx->ws.sync_since, tctx->last_ran,
					    balance_cfg.migration_cost_ns);

		tctx->ws.sync_hist = arbor_sync_record(tctx->ws.sync_hist, kept);
		tctx->ws.sync_since = 0;
		stat_inc_on(tctx->last_cpu, kept ? STAT_SYNC_KEPT : STAT_SYNC_BROKEN);
	}
	/* WAKE_LOCAL: it woke a task and now sleeps; last_ran is the sleep's time */
	if ((deq_flags & SCX_DEQ_SLEEP) && tctx->ws.wake_pend) {
		tctx->ws.wake_sleep_avg = arbor_wake_sleep_update(
			tctx->ws.wake_sleep_avg,
			tctx->last_ran > tctx->ws.wake_pend ? tctx->last_ran - tctx->ws.wake_pend : 0);
		tctx->ws.wake_pend = 0;
	}
	/*
	 * asleep: it leaves its queue with its lag. A property change (the
	 * core's sched_change guard around setpriority, sched_setaffinity:
	 * DEQUEUE_SAVE, SCX_DEQ_SCHED_CHANGE, no SCX_DEQ_SLEEP) is not a
	 * sleep: as fair.c's dequeue_entity() without DEQUEUE_SLEEP, no
	 * delayed dequeue (arbor_sleep_lag) and the relative deadline kept.
	 * A task that was running left its queue in stopping() already
	 * (eevdf_stop_leave): only the sleep's part is left to do.
	 */
	if (valid_cpu(tctx->left_cpu))
		eevdf_left(tctx, deq_flags & SCX_DEQ_SLEEP);
	else
		eevdf_dequeue(tctx, deq_flags & SCX_DEQ_SLEEP);
}

/*
 * seed 000: per-LLC busy CPUs, moved on every idle <-> busy transition;
 * and the same per node (WAKE_NODE), in plain global data (node_busy,
 * idle.bpf.h): read on the wake-up path without a map lookup.
 */
static __always_inline void llc_busy_add(s32 cpu, s32 d)
{
	struct llc_ctx *lc = lookup_llc_ctx(llc_of(cpu));

	if (lc)
		__sync_fetch_and_add(&lc->nr_busy, d);
	__sync_fetch_and_add(&node_busy[node_of(cpu)].nr, d);
}

/*
 * The CPU runs a task: leave our idle state. The idle period is measured
 * (avg_idle, idle_ns) only when its start is known: a CPU idle since the
 * scheduler loaded (idle_stamp 0) has no stamp to measure from.
 */
static __always_inline void cpu_leave_idle(s32 cpu, struct cpu_ctx *c, u64 now)
{
	u64 dur, cap;

	c->idle = 0;
	llc_busy_add(cpu, 1);
	if (!c->idle_stamp)
		return;
	dur = now > c->idle_stamp ? now - c->idle_stamp : 0;
	c->idle_stamp = 0;
	stat_add_on(cpu, STAT_IDLE_NS, dur);
	/* rq->avg_idle, capped at 2 * max_idle_balance_cost */
	c->avg_idle = arbor_update_avg(c->avg_idle, dur);
	cap = arbor_avg_idle_cap(balance_cfg.migration_cost_ns, c->lvl_cost[0] + c->lvl_cost[1] +
						    c->lvl_cost[2] + c->lvl_cost[3]);
	if (c->avg_idle > cap)
		c->avg_idle = cap;
}

void BPF_STRUCT_OPS(arbor_update_idle, s32 cpu, bool idle)
{
	struct cpu_ctx *c = lookup_cpu_ctx(cpu);
	u64 now;

	if (!c)
		return;
	if (idle) {
		/*
		 * After an ENQ_LAST insert the CPU passes through
		 * idle (sched_ext picked nothing before the insert) with its task
		 * in the local queue. Left in the idle mask, a waker would claim
		 * it and queue its wakee behind that task for a whole slice:
		 * take the bit back, the CPU is busy (CFS never idles it).
		 */
		if (c->enq_last) {
			c->enq_last = 0;
			scx_bpf_test_and_clear_cpu_idle(cpu);
		}
		if (c->idle)
			return;
		/* the clock only for a transition: a repeated call reads none */
		now = bpf_ktime_get_ns();
		c->idle = 1;
		c->idle_stamp = now;
		llc_busy_add(cpu, -1);
		cpu_pelt(c, now);
		update_idle_core_hint(cpu);
	} else {
		if (!c->idle)
			return;
		cpu_leave_idle(cpu, c, bpf_ktime_get_ns());
	}
}

void BPF_STRUCT_OPS(arbor_enable, struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);

	/* a new task joins where it first runs with no lag and half a slice */
	if (tctx) {
		tctx->vlag = 0;
		tctx->eevdf_flags = EEVDF_INITIAL;
	}
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
	tctx->ws.last_wakee = -1;
	tctx->move_cpu = -1;
	tctx->rq_cpu = -1;
	tctx->sleep_cpu = -1;
	tctx->left_cpu = -1;
	tctx->pelt_ts = bpf_ktime_get_ns();
	/* a new task starts as if it had run half the time (kernel: post_init_entity_util_avg) */
	tctx->util_avg = 512;
	tctx->runnable_avg = 512;
	tctx->cg_id = cg_enabled ? cg_id_of(args->cgroup) : 0;
	return 0;
}

void BPF_STRUCT_OPS(arbor_exit_task, struct task_struct *p, struct scx_exit_task_args *args)
{
	struct task_ctx *tctx = lookup_task_ctx(p);

	cache_task_exit(p);
	if (!tctx)
		return;
	set_waiting(tctx, false, 0);
	acct_remove(tctx);
	cg_task_quiescent(tctx);
	eevdf_dequeue(tctx, true);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(arbor_init)
{
	const struct cpumask *idle;
	u32 cpu;
	s32 err;

	/*
	 * Every CPU starts busy in the counts; the loop below then marks the
	 * online ones idle, as the kernel's own idle masks start
	 * (ext/idle.c reset_idle_masks(), called right before ops.init:
	 * "Consider all online cpus idle. Should converge to the actual state
	 * quickly"). ops.update_idle() reports only a CPU's transitions
	 * between a task and the idle task (__scx_update_idle's do_notify),
	 * none while the scheduler loads, so a CPU idle at load would
	 * otherwise count as busy until it first ran a task: for ever, for a
	 * CPU nothing is sent to (measured in the simulator, once it followed
	 * ext.c: xeon-88 pgbench -12.7%, docs/findings/2026-11-28-idle-pull-llc).
	 * A CPU busy at load is counted idle until its first tick
	 * (arbor_tick) or its first idle.
	 */
	bpf_for(cpu, 0, MAX_LLCS) {
		struct llc_ctx *lc;

		if (cpu >= nr_llcs)
			break;
		lc = lookup_llc_ctx(cpu);
		if (!lc)
			continue;
		lc->nr_busy = llc_nr_cpus[cpu];
		/*
		 * SIS_UTIL's depth before the periodic balancer's first update:
		 * no utilisation is known yet, so scan the whole LLC, as
		 * select_idle_cpu() does without SIS_UTIL. (The kernel's
		 * nr_idle_scan also starts at 0, but the first load balance
		 * after boot sets it long before any workload; we load right
		 * before one, and a 0 here made the first 4 ms of wake-ups find
		 * no idle CPU in the simulator's validation.)
		 */
		lc->nr_idle_scan = llc_nr_cpus[cpu];
	}

	idle = scx_bpf_get_idle_cpumask();
	/* the wake-up path reads the mask from its address (common.bpf.h copy_idle_mask) */
	idle_mask_addr = (u64)idle;
	bpf_for(cpu, 0, MAX_CPUS) {
		struct cpu_ctx *c;

		if (cpu >= nr_cpus)
			break;
		err = scx_bpf_create_dsq(cpu_dsq(cpu), cpu_node[cpu]);
		if (err) {
			scx_bpf_put_idle_cpumask(idle);
			scx_bpf_error("failed to create DSQ %d: %d", cpu, err);
			return err;
		}
		/* every CPU starts busy (WAKE_NODE's counts, as the LLCs' above) */
		node_busy[node_of(cpu)].nr++;
		node_busy[node_of(cpu)].cpus++;
		c = lookup_cpu_ctx(cpu);
		if (c) {
			u32 l;

			/* idle if the kernel's mask says so (idle_stamp 0: since before the load) */
			if (idle && bpf_cpumask_test_cpu(cpu, idle)) {
				c->idle = 1;
				llc_busy_add(cpu, -1);
				/* the last thread of a core marked here tells its LLC */
				update_idle_core_hint(cpu);
			}

			c->avg_idle = 2 * balance_cfg.migration_cost_ns;
			c->rng = cpu * 2654435761u + 1;
			/* sd_init(): every level starts at a 50% newidle success rate */
			bpf_for(l, 0, NR_LEVELS) {
				c->ni_call[l & (NR_LEVELS - 1)] = ARBOR_NI_CALL0;
				c->ni_success[l & (NR_LEVELS - 1)] = ARBOR_NI_SUCCESS0;
				c->ni_ratio[l & (NR_LEVELS - 1)] = ARBOR_NI_RATIO0;
			}
		}
	}
	scx_bpf_put_idle_cpumask(idle);
	return 0;
}

void BPF_STRUCT_OPS(arbor_tick, struct task_struct *p)
{
	struct task_ctx *tctx = lookup_task_ctx(p);
	s32 cpu = task_cpu_of(p);
	u64 now = bpf_ktime_get_ns();
	struct cpu_ctx *c = lookup_cpu_ctx(cpu);

	/*
	 * A CPU busy since before the load, counted idle by arbor_init: it
	 * runs a task. Its bit in the kernel's idle mask is stale as well
	 * (ext.c sets every online CPU's at the load, reset_idle_masks, and
	 * a busy CPU clears it only at its next idle exit): take it back, so
	 * that from this tick on a CPU running a task has its idle bit clear,
	 * which enqueue relies on (own_busy).
	 */
	if (c && c->idle) {
		cpu_leave_idle(cpu, c, now);
		scx_bpf_test_and_clear_cpu_idle(cpu);
	}

	if (CONFIG_PREEMPT_RT)
		maybe_periodic_from_tick();
	else
		maybe_start_balance_timer();
	starve_tick(cpu, p, now);
	cg_bw_tick();
	if (tctx) {
		eevdf_charge(tctx, now);	/* update_curr at the tick */
		/* account_cfs_rq_runtime: a throttled group's task ends its slice */
		cg_charge_start(tctx, now);
		if (tctx->cg_exec && cg_charge(tctx, now))
			p->scx.slice = 0;
		eevdf_reweight(p, tctx);	/* update_cfs_group at the tick */
		check_misfit(p, tctx, cpu);
		if (cache_lb_on())
			cache_aggregate(p, tctx, cpu, now);
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
	       .cgroup_init	= (void *)arbor_cgroup_init,
	       .cgroup_exit	= (void *)arbor_cgroup_exit,
	       .cgroup_prep_move = (void *)arbor_cgroup_prep_move,
	       .cgroup_move	= (void *)arbor_cgroup_move,
	       .cgroup_cancel_move = (void *)arbor_cgroup_cancel_move,
	       .cgroup_set_weight = (void *)arbor_cgroup_set_weight,
	       .cgroup_set_bandwidth = (void *)arbor_cgroup_set_bandwidth,
	       .cgroup_set_idle	= (void *)arbor_cgroup_set_idle,
	       /*
		* ENQ_LAST: a task whose slice ends with nothing else to run comes
		* back through enqueue() (and stopping/running) instead of being
		* silently kept on its CPU, when dispatch did not keep it itself.
		* Dispatch keeps it (keep_prev, with the accounting the switch
		* would have done) unless the tick or the balancer asked for a
		* move: without the flag such a task would never be re-placed, the
		* tick's misfit (seed 004) and aggregation (seed 002) moves, which
		* end its slice, would be ignored.
		*/
	       .flags		= SCX_OPS_KEEP_BUILTIN_IDLE | SCX_OPS_ENQ_LAST,
	       .name		= "arbor");
