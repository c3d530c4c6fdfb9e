/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h, by concern: mechanisms beyond the baseline's wake-up path: STEAL (seed 003), WAKE_NODE, SIS_NODE and SYNC_LOCAL (ours), wake-up preemption and buddies.
 * Included by policy.h only, after the parts before it (their rules may
 * be used here), with its ARBOR_POLICY and POLICY_FOR macros.
 */
#ifndef __ARBOR_POLICY_H
#error "include policy.h, not its parts"
#endif

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

/* ------------------------------------------------------------------ */
/* WAKE_NODE (ours): a wakee stays in its node                         */
/* ------------------------------------------------------------------ */

/*
 * May wake_affine pull a wakee from prev's node to the waker's CPU on
 * another node? WAKE_NODE says no while prev's node still has an idle CPU
 * (busy < its CPUs): returns true to skip wake_affine and keep target = prev.
 *
 * Sources, each a reason that does not depend on one machine:
 *  - the kernel itself does not wake-affine across distant nodes:
 *    topology.c sd_init() clears SD_WAKE_AFFINE (with SD_BALANCE_FORK/EXEC)
 *    on a NUMA domain whose distance exceeds node_reclaim_distance (30), so
 *    select_task_rq_fair() never finds a wake_affine domain spanning both
 *    CPUs there; arbor's port applies wake_affine at any distance;
 *  - fair.c's allow_numa_imbalance()/adjust_numa_imbalance(): the balancer
 *    tolerates a node running more than its share, to keep tasks near their
 *    memory and their partners, as long as the node is not overloaded;
 *  - p2dq and cosmos (docs/findings/2026-11-23-sim-peers-all) look for an
 *    idle CPU in the wakee's node before any other and kept cross-node
 *    migrations per 1000 wake-ups at 7 (xeon-88 hackbench) against arbor's 216.
 * The limit "prev's node has an idle CPU" is where keeping stops being free:
 * with none, the wakee would queue behind a busy CPU while the waker's node
 * may have room, so wake_affine decides as before. On a one-node machine
 * the rule never applies (this and prev always share the node).
 *
 * Only where prev's node is one LLC (prev_node_llcs == 1: a socket of one
 * L3, an SNC sub-node): there the idle CPU the wakee keeps is in the LLC
 * that holds its cache, so keeping it home saves the refill the pull would
 * cost. Where a node holds several LLCs (EPYC's CCXs under NPS, POWER's
 * per-core LLCs), the idle search spreads the kept wakee over the node's
 * LLCs, most of them cold for it, and keeping wins nothing a pull to the
 * waker's LLC (wake_affine's reason: the partner's data is there) does not
 * win more. Measured (simulated, Welch 95%): on a 2-socket NPS2 AMD-like
 * machine of 8 CCXs per node, hackbench -15.3% [-38.8, +8.2] against no
 * keeping (10 runs); on one-LLC nodes (a 2-socket Intel-like machine and a
 * 2-socket SNC4 Sapphire Rapids) perf-messaging and hackbench gain
 * [+1.4, +29.8] and [+2.0, +61.3].
 */
ARBOR_POLICY bool arbor_wake_node_keep(u32 this_node, u32 prev_node, u32 prev_node_busy,
				       u32 prev_node_cpus, u32 prev_node_llcs)
{
	if (this_node == prev_node || prev_node_llcs != 1)
		return false;
	return prev_node_busy < prev_node_cpus;
}

/* ------------------------------------------------------------------ */
/* SIS_NODE (ours): the idle search goes past a small LLC               */
/* ------------------------------------------------------------------ */

/*
 * select_idle_sibling() looks for an idle CPU in target's LLC only; when it
 * finds none, the wakee queues behind a busy CPU there. Where an LLC is a
 * small part of its node (POWER's 4-thread LLCs: 28 per power11 node; the
 * CCXs of an EPYC), other LLCs of the node often have idle CPUs meanwhile.
 * SIS_NODE then takes one of them: the nearest by number from prev
 * (arbor_sis_node_from, arbor_sis_node_pick) that has been idle for the
 * migration cost already (arbor_sis_node_idle_ok).
 *
 * Sources: seed 000's premise ("the idle search is confined to a tiny
 * LLC"), measured here on power11 (simulated: wakees that found no idle CPU
 * in their 4-CPU LLC waited 52 us each, 13 ms per perf-messaging run, while
 * other LLCs of the node idled); SIS_NODE, the kernel feature of Peter
 * Zijlstra's "sched/fair: Multi-LLC select_idle_sibling()" (tip, 2023: for
 * a Zen2 of 3-core LLCs that idled while short tasks queued in one LLC,
 * because the periodic balance is too slow for them; dropped again after
 * regression reports, not in mainline: on large LLCs waiting there is
 * short and a move costs the cache); and sched_ext's own
 * default idle selection (ext_idle.c scx_select_cpu_dfl: an idle core in
 * the LLC, then in the node, then an idle CPU in the LLC, then in the node),
 * which bpfland and cosmos build on. It stays in the node (WAKE_NODE's
 * reason: the wakee's memory), and does nothing where a node is one LLC
 * (x86-12, xeon-88): there the LLC scan already saw the node.
 *
 * Only while the node is less busy than SIS_UTIL's bound: fewer than
 * 100/imbalance_pct (85%) of its CPUs busy (node_busy, the count WAKE_NODE
 * keeps). SIS_UTIL stops scanning an LLC whose utilisation passes that
 * share (arbor_sis_util_nr_scan); past it, an idle CPU of the node is a
 * moment's gap that its own LLC's next wakee or newidle pull fills, and
 * taking it moves the wakee's cache for nothing. The live count, not the
 * balancer's utilisation average: it is known from the first wake-up on.
 * Measured (power11 schbench, 99% busy): the bound cut the placements
 * from 5,515 to 136 per run; the wake-up p99 it was meant to protect came
 * back only with arbor_sis_node_idle_ok (docs/findings/2026-11-27-sis-node).
 */
ARBOR_POLICY bool arbor_sis_node_try(bool any_allowed, u32 node_llcs, u32 node_busy,
				     u32 node_cpus, u32 imbalance_pct)
{
	if (!any_allowed || node_llcs <= 1)
		return false;
	/* busy / cpus < 100 / imbalance_pct */
	return (u64)node_busy * imbalance_pct < (u64)node_cpus * 100;
}

/*
 * Where SIS_NODE's search starts: at prev when prev is in target's node
 * (prev itself first, if idle: the wakee's cache is there, and it is no
 * other task's seat), else at target. select_idle_sibling() takes prev
 * only when it shares target's LLC (step 2); over the node, the same
 * preference holds. Not measured to matter: in the power11 runs of
 * docs/findings/2026-11-27-sis-node, starting from target or from prev gave
 * the same results (SIS_NODE's wake-ups there had target == prev).
 */
ARBOR_POLICY u32 arbor_sis_node_from(s32 target, s32 prev, u32 target_node, u32 prev_node)
{
	return (u32)(prev_node == target_node ? prev : target);
}

/*
 * Is an idle CPU of another LLC free to take? Only if it has been idle
 * for the migration cost already (idle_stamp: when it went idle; 0 if it
 * has not gone idle since the scheduler loaded: asked only of CPUs in the
 * idle mask, it has then been idle since before the load, longer than any
 * stamp could tell, and no task of ours ran there). A CPU that ran a task
 * more recently is still that task's: its cache holds that task's data,
 * and the task, just gone to sleep, is likely to come back to it in a
 * moment; the wakee would push it out, to queue or to move in turn. This
 * is fair.c's task_hot() (a task that ran within sysctl_sched_migration_cost is
 * cache-hot where it ran, and the balancer leaves it there) seen from the
 * CPU's side. Measured (power11 schbench): taking any idle CPU of the node,
 * the first wake-ups of 53 workers whose prev CPUs (0-17, 14 of them on
 * CPU 0) the fork burst had crowded moved onto the seats of other workers
 * that had just slept, and the workers' wake-up p99 over the run rose from
 * 15 to 32 us; with this test, 15.9 (docs/findings/2026-11-27-sis-node).
 *
 * A preference, not a veto: when none of the SIS_NODE_TRIES nearest idle
 * CPUs has been idle that long, the nearest idle one is taken all the same
 * (arbor_sis_node in idle.bpf.h). The alternative is to queue the wakee
 * behind a busy CPU of its small LLC for the rest of that CPU's slice while
 * the node has an idle CPU. Measured (sim, 5-20 seeds a cell, `arbor sim
 * verdict` against cosmos, the best peer there): with the veto, power11
 * perf-messaging -11.8% [-19.3, -4.2], a 128-CPU POWER SMT8 hackbench and
 * perf-messaging -17.9% and -20.1% (random-20261206-3); with the preference
 * -0.3% [-2.3, +1.8], +3.4% [+1.7, +5.1] and +6.7% [+0.6, +12.8]; power11
 * schbench's p99 16.9 and 17.2 us (its seats: the preference still finds a
 * lasting idle CPU first where there is one).
 */
ARBOR_POLICY bool arbor_sis_node_idle_ok(u64 idle_stamp, u64 now, u64 migration_cost)
{
	if (!idle_stamp)
		return true;
	return now >= idle_stamp && now - idle_stamp >= migration_cost;
}

/* The index of the lowest set bit of x != 0 (no ctz instruction in BPF). */
ARBOR_POLICY u32 arbor_word_first(u64 x)
{
	u32 n = 0;

	x &= -x;
	if (x & 0xffffffff00000000ULL)
		n += 32;
	if (x & 0xffff0000ffff0000ULL)
		n += 16;
	if (x & 0xff00ff00ff00ff00ULL)
		n += 8;
	if (x & 0xf0f0f0f0f0f0f0f0ULL)
		n += 4;
	if (x & 0xccccccccccccccccULL)
		n += 2;
	if (x & 0xaaaaaaaaaaaaaaaaULL)
		n += 1;
	return n;
}

/*
 * SIS_NODE's choice: the first CPU at or after `from` (wrapping) that is
 * idle (idle) and in the node (node), over `words` words; -1 if none. The
 * nearest by number: on POWER the other half of target's SMT8 core, on
 * x86 the next LLC. Not a whole idle core first, as select_idle_cpu()
 * prefers within the LLC: that needs the idle-core mask, three calls
 * (get, copy, put) on the waker's path for every search, found or not.
 * `node` is volatile because BPF passes the loader-filled rodata
 * node_cpus (const volatile): read through a plain const pointer, clang
 * folded it to its all-zero initialiser and the pick always failed in
 * BPF while it worked natively (found by the 1s2d2c2t VM probe,
 * tests/vm/ours.sh).
 */
ARBOR_POLICY s32 arbor_sis_node_pick(const u64 *idle, const volatile u64 *node, u32 words, u32 from)
{
	u32 fw = from / 64, lo = from & 63, k;

	if (!words || words > CPU_MASK_WORDS || fw >= words)
		return -1;
	/* k = 0: from's word at and above from; k = words: the same word below it */
	POLICY_FOR(k, 0, CPU_MASK_WORDS + 1) {
		u32 w = (fw + k) % words;
		u64 m;

		if (k > words)
			break;
		w &= CPU_MASK_WORDS - 1;
		m = idle[w] & node[w];
		if (k == 0)
			m &= ~0ULL << lo;
		else if (k == words)
			m &= lo ? ~(~0ULL << lo) : 0;
		if (m)
			return (s32)(w * 64 + arbor_word_first(m));
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* SYNC_LOCAL (ours): a sync wakee runs where its waker sleeps         */
/* ------------------------------------------------------------------ */

/*
 * WF_SYNC is a promise: "the waker is going to sleep soon" (kernel/sched/
 * wait.c, __wake_up_sync_key; pipe_write, unix sockets and binder use it).
 * Today's kernel only lets it tip wake_affine towards the waker's CPU
 * (fair.c wake_affine_idle: sync and one task on this CPU -> this CPU;
 * wake_affine_weight subtracts the waker's load), and select_idle_sibling
 * then moves the wakee to an idle CPU anyway, which pays an idle exit and
 * an IPI while the waker's CPU is about to be free. Kernels 2.6.24-2.6.35
 * ran such a wakee on the waker's CPU when the promise had been kept:
 * wake_affine() honoured `sync` only while both tasks' avg_overlap (the run
 * time between waking a task and sleeping) stayed below
 * sysctl_sched_migration_cost (sched_fair.c; avg_overlap went in 2.6.36
 * because a single average misjudged mixed behaviour). rusty and bpfland
 * queue every sync wakee on the waker's CPU (in our simulator: perf-pipe 22-43%
 * faster, rq_wait 0); bpfland's unconditional rule makes hackbench 6-8 times
 * slower, because hackbench's senders wake 20 receivers and go on running.
 *
 * Here the promise is learned per waker, from what it did: a sync wake-up
 * is kept when the waker's next act is to sleep (no other sync wake-up
 * first), within the migration cost (the kernel's own bound above);
 * arbor_sync_record shifts that into an 8-bit history. The wakee goes to
 * the waker's CPU only when all of the last 8 were kept, this is the
 * waker's first sync wake-up since it last slept, and the waker's CPU runs
 * nothing else. A waker that breaks it once loses the rule for its next 8
 * sync wake-ups; a new task starts with none kept.
 */
#define ARBOR_SYNC_HIST_MASK 0xffu

/* one more sync wake-up of a waker: kept (it slept next) or not */
ARBOR_POLICY u32 arbor_sync_record(u32 hist, bool kept)
{
	return ((hist << 1) | (kept ? 1u : 0u)) & ARBOR_SYNC_HIST_MASK;
}

/* the waker slept `now`: was its pending sync wake-up (at `since`) kept? */
ARBOR_POLICY bool arbor_sync_kept(u64 since, u64 now, u64 window)
{
	return now >= since && now - since <= window;
}

/*
 * Queue the wakee on the waker's CPU? `pending` is the waker's sync_since
 * (non-zero: it woke a task with WF_SYNC and has not slept since);
 * `this_nr_running` counts the tasks on the waker's CPU, the waker included.
 */
ARBOR_POLICY bool arbor_sync_local(u32 hist, u64 pending, u32 this_nr_running)
{
	return (hist & ARBOR_SYNC_HIST_MASK) == ARBOR_SYNC_HIST_MASK && !pending &&
	       this_nr_running <= 1;
}

/*
 * SYNC_LOCAL on an asymmetric machine: may the waker's CPU take a wakee?
 * One the wakee fits, yes. One too small for it, only with
 * SYNC_LOCAL_BIG_BUSY (ours; on in `default` only) and while no CPU of
 * more capacity than the waker's is idle (`bigger_idle`): the idle search
 * the wakee would go to instead looks for the first idle CPU it fits and
 * otherwise takes the idle CPU of highest capacity (select_idle_capacity),
 * so with no bigger CPU idle it can only return one no bigger than the
 * waker's, and one that has been idle, paying that CPU's idle exit and an
 * IPI, where the waker's CPU runs the wakee as soon as the waker sleeps.
 * A bigger CPU that is idle still gets the wakee, as before.
 *
 * Measured (sim, 5 seeds): on a hybrid of 2 P-cores x SMT2 + 16 E-cores
 * pgbench's 8 backends do not fit an E-core and their 4 P-CPUs were busy;
 * without the rule every query left its client's E-core for another idle
 * E-core, the pair hopped to a new CPU each transaction, and the idle
 * E-cores, left alone long enough to reach their deepest states (up to
 * 680 us to exit), made 19% of wake-ups wait: 71,895 tps against stock's
 * 77,937; with it 96,585 (docs/findings/2026-12-07-sync-local-big-busy).
 */
ARBOR_POLICY bool arbor_sync_local_fits(bool fits_this, bool bigger_idle, bool big_busy_on)
{
	return fits_this || (big_busy_on && !bigger_idle);
}

/*
 * WAKE_LOCAL (ours; on in `default` only): a wakee whose prev CPU
 * is its waker's, which runs the waker alone, is queued there behind the
 * waker (no idle search, no IPI, its cache where it left it) when the
 * waker is about to sleep, by measurement rather than by WF_SYNC's word:
 *  - `wake_sleep_avg`: how long the waker stays up after the first of its
 *    wake-ups until it sleeps (its own 1/8 average, arbor_wake_sleep_update);
 *  - `direct_lat_avg`: how long a wakee sent to an idle CPU takes to run
 *    (the reschedule IPI, the CPU's idle exit, the switch), as measured
 *    for wake-ups onto this CPU (its 1/8 average);
 *  - `elapsed`: how long the waker's current run of wake-ups has lasted
 *    already; past its average, the average no longer describes it.
 * It waits behind the waker only while that is expected to be shorter than
 * the alternative; 0 for either average means not measured yet: no.
 *
 * Sources: cosmos keeps a wakee on prev when prev is the waker's CPU and
 * both share an address space, "a high chance of finding hot cache data on
 * that CPU", while the system is not saturated (its select_cpu); fair.c
 * wake_affine_idle() takes the waker's CPU for a sync wake-up when the
 * waker runs there alone, on WF_SYNC's promise that it sleeps next.
 * Measured here (docs/findings/2026-11-27-wake-shortcut): on x86-12, wakeprobe's
 * message thread wakes its 6 workers in 1-2 us and sleeps, while a wakee
 * sent to an idle CPU takes ~12 us (C1E exit); arbor moved the worker whose
 * prev was the message thread's CPU to another CPU on ~200 of 1000
 * wake-ups, cosmos on 4. Holds on any topology: both sides are measured
 * on the machine, and a machine with shallow idle states makes the
 * alternative cheap and the rule rare.
 */
ARBOR_POLICY bool arbor_wake_local(u64 wake_sleep_avg, u64 elapsed, u64 direct_lat_avg,
				   u32 this_nr_running)
{
	return wake_sleep_avg && direct_lat_avg && wake_sleep_avg < direct_lat_avg &&
	       elapsed <= wake_sleep_avg && this_nr_running <= 1;
}

/* A 1/8 average (arbor_update_avg) that starts at its first sample, never 0. */
ARBOR_POLICY u64 arbor_wake_sleep_update(u64 avg, u64 sample)
{
	u64 a = avg ? arbor_update_avg(avg, sample) : sample;

	return a ? a : 1;
}

/*
 * Wake-up preemption (check_preempt_wakeup_fair, EEVDF): a wakee queued on
 * a CPU that is running a task preempts it when the wakee is eligible and
 * its deadline is earlier (pick_eevdf would pick it). `enabled` is
 * WAKE_PREEMPT: off stands for a CFS kernel whose sched_wakeup_granularity_ns
 * is so large that wake-ups never preempt (seed 003 ran with 15 ms), so the
 * wakee waits for the task to block or use up its slice.
 */
ARBOR_POLICY bool arbor_wake_preempt(bool enabled, bool curr_running, bool eligible,
				     u64 wakee_deadline, u64 curr_deadline)
{
	return enabled && curr_running && eligible && wakee_deadline < curr_deadline;
}

/*
 * PREEMPT_SYNC (ours, default only): a wakee woken with WF_SYNC preempts the
 * task running on its CPU only once that task has run `threshold` since it
 * was picked; before that it waits in the queue, where it runs when the task
 * sleeps (which is what WF_SYNC announces) or its slice ends.
 *
 * Source: kernel/sched/fair.c preempt_sync() (7.2; under sched_feat
 * NEXT_BUDDY, off by default there; Mel Gorman, "sched/fair: Reimplement
 * NEXT_BUDDY to align with EEVDF goals", 2025): "As WF_SYNC is not strictly
 * obeyed, allow some runtime for batch wakeups to be issued". Its threshold
 * is sysctl_sched_migration_cost, a quarter of it when select_task_rq chose
 * the CPU (WF_RQ_SELECTED). Here that is always so: sched_ext tells us of
 * WF_SYNC only in select_cpu, so `threshold` is migration_cost / 4 (125 us).
 * The kernel measures the run from se->exec_start, which update_curr() has
 * just set to now when preempt_sync() reads it, so as written a sync wakee
 * never forces the preemption there; we keep the rule its comment states
 * (the time since the pick), so that a task that wakes and goes on running
 * is still preempted after 125 us.
 *
 * Why on any machine: a task that writes a batch of messages (pipes, unix
 * sockets: pipe_write and sock_def_readable wake with WF_SYNC) wakes each
 * reader as it writes. Preempting it at the first write runs a reader that
 * finds one message and sleeps, and the next write wakes it again: more
 * wake-ups and switches for the same data, on a CPU of any size. Measured:
 * on the host's 2 CPUs hackbench took 2,787 wake-ups under default against
 * p2dq's 371 (which never preempts), with 1,392 wake-up preemptions
 * (docs/findings/2026-11-28-idle-pull-llc §3).
 *
 * Returns true when the preemption waits. `picked` is when the running task
 * was picked (0: nothing runs, nothing to defer).
 */
ARBOR_POLICY bool arbor_sync_defer(bool sync, u64 now, u64 picked, u64 threshold)
{
	return sync && picked && now < picked + threshold;
}

/*
 * SYNC_PAIR (ours, default only): a WF_SYNC wake-up of the task whose own
 * last wake-up woke this waker is treated as an ordinary wake-up:
 * PREEMPT_SYNC does not defer it, and NEXT_BUDDY may make it the CPU's
 * next buddy (eligible: it runs next, whatever the deadlines).
 *
 * Why: PREEMPT_SYNC's deferral pays when the waker has a batch of
 * wake-ups to issue and nothing to wait for. A waker that wakes the task
 * which answered its last request (a client sending the next query to its
 * server, which woke it with the reply) waits for this wakee's answer:
 * running on, it runs out of work and sleeps, and the answer must then
 * wake it. Run at once, the wakee answers while the waker is still
 * runnable, and no wake-up is needed. The kernel's preempt_sync() states
 * the same direction for the case it can see: "WF_RQ_SELECTED implies
 * ... it is more likely (but not guaranteed) the waker requires the wakee
 * to finish", and lowers its threshold (fair.c, 7.2); the pair is the
 * case where the waker certainly requires it. The pair is read from
 * wake_wide's own record (record_wakee's last_wakee, fair.c), kept on
 * every wake-up anyway: two loads, no call.
 *
 * Measured (docs/findings/2026-11-29-sync-pair): on the host's 2 CPUs,
 * pgbench's client deferred 118,746 backends per run under PREEMPT_SYNC
 * and slept 0.9% more often than under stock; with the pair exempted its
 * wake-ups fall 18.5% and tps rises 0.5% above stock. Holds on any
 * machine: it needs only the two tasks' record; where idle CPUs take the
 * wakees, neither PREEMPT_SYNC nor NEXT_BUDDY acts, nor does it.
 *
 * `wakee_last_wakee` is the wakee's last wakee as a waker (-1: none yet).
 */
ARBOR_POLICY bool arbor_sync_pair(bool enabled, s32 wakee_last_wakee, s32 waker_pid)
{
	return enabled && wakee_last_wakee >= 0 && wakee_last_wakee == waker_pid;
}

/*
 * NEXT_BUDDY (the kernel's, sched_feat NEXT_BUDDY, off by default in 7.2;
 * on in `default` only): a wakee queued on a CPU that runs a task becomes
 * the CPU's next buddy, and pick_eevdf() returns the next buddy whenever it
 * is eligible (PICK_BUDDY, on by default), so wakeup_preempt_fair()'s
 * "if @p has become the most eligible task, force preemption" preempts for
 * it whatever the two deadlines. Without it, a wakee that is eligible but
 * whose deadline (its vruntime + a slice) is later than the running task's
 * waits for that task's slice to end.
 *
 * Source: kernel/sched/fair.c, 7.2, wakeup_preempt_fair(),
 * set_preempt_buddy(), pick_eevdf() (Mel Gorman, "sched/fair: Reimplement
 * NEXT_BUDDY to align with EEVDF goals", 2025: "Picking the ->next buddy
 * will affect latency but not fairness": only an eligible task, one owed
 * service, is picked).
 *
 * As the kernel: not for a WF_SYNC wake-up, whose preemption
 * preempt_sync() decides (PREEMPT_SYNC, arbor_sync_defer; then the
 * deadline rule, arbor_wake_preempt); not for a new task (WF_FORK: the
 * caller asks only for wake-ups); an existing buddy is kept (the kernel
 * keeps it when its deadline is sooner; here always, until a task runs on
 * the CPU). Not ported: the buddy's pick when no preemption happens (for a
 * sync wakee). Tried twice and dropped: for PREEMPT_SYNC's deferred
 * wakees alone (docs/findings/2026-11-28-preempt-sync §2),
 * and as the kernel has it, every eligible sync wakee a buddy in the
 * CPU's local queue: epyc perf-messaging 49% slower, the
 * parked wakees out of idle CPUs' reach
 * (docs/findings/2026-11-28-one-llc-cost §8).
 *
 * Why on any machine, measured: schbench's message thread, woken by a
 * worker's post (a futex, not WF_SYNC), queued behind a worker's 17 ms of
 * math until that worker's slice ended: its wake-up p99 was 1.7-2.1 ms
 * under stock and default on power11, epyc and spr-2s, against lavd's 5-14
 * us; every worker that posted meanwhile joined its next batch (the p99
 * place in a batch 15-33 against lavd's 4-6), and a worker's wake-up
 * latency holds the waker's work for those before it
 * (docs/findings/2026-11-28-one-llc-cost §6).
 *
 * The caller checks eligibility (a read of the CPU's average) when this
 * returns true.
 */
ARBOR_POLICY bool arbor_next_buddy(u64 curr_running_since, bool sync, bool buddy_pending)
{
	return curr_running_since && !sync && !buddy_pending;
}

/*
 * BUDDY_LONG_RUN (ours, with NEXT_BUDDY; default only): the buddy preempts only a task whose runs
 * are long, `min_stint` (migration_cost/4, 125 us, preempt_sync's
 * "some runtime") or more on average from its pick to its stop. What a
 * buddy saves its wakee is the rest of the running task's run; what it
 * costs is that task's own wait, which, runnable again, takes the next
 * CPU to free. Against a task that runs a few microseconds the saving is
 * a few microseconds, and the cost falls on whoever needed that CPU
 * next. Measured (sim, random-20261207-10, an 8-CPU phone, wakeprobe):
 * the message thread, woken by its last worker onto its previous CPU, was
 * the buddy 11,219 times a run against a worker that touches the buffer
 * for ~10 us; with the worker queued again behind it, its own next
 * request's fourth worker found no idle CPU and waited: that worker's
 * latency p90 15.6 us against 10.5 after the requests whose message
 * thread was not a buddy, and wakeprobe p99 15.6 us against stock's
 * 13.8. schbench's message thread, the case NEXT_BUDDY is in default
 * for, preempts a worker whose math runs for milliseconds.
 *
 * The average is the task's runs from pick to stop through the kernel's
 * update_avg() (arbor_update_avg, as avg_idle's), as the former
 * avg_overlap was kept.
 */
ARBOR_POLICY bool arbor_buddy_long_run(bool enabled, u64 curr_avg_stint, u64 min_stint)
{
	return !enabled || curr_avg_stint >= min_stint;
}

/*
 * The order in which an idle CPU looks for a victim in its LLC: overloaded
 * SMT siblings first (they share L1/L2: the cheapest move), then the LLC's
 * overloaded CPUs starting after this CPU and wrapping, so that idle CPUs
 * spread over victims instead of all hitting the lowest-numbered one.
 * s->idle_mask carries the *overloaded* bits here. Writes LLC indices into
 * order[] and returns how many.
 */
ARBOR_POLICY u32 arbor_steal_order(const struct llc_snapshot *s, s32 this, u32 *order, u32 *cnt)
{
	u32 nr = s->nr < MAX_LLC_CPUS ? s->nr : MAX_LLC_CPUS, n, start = 0, this_core = (u32)-1;
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
	*cnt = 0;
	/* pass 0: SMT siblings; pass 1: the rest of the LLC */
	POLICY_FOR(k, 0, 2 * MAX_LLC_CPUS) {
		u32 pass = (u32)k / MAX_LLC_CPUS, j = (u32)k % MAX_LLC_CPUS, i;
		bool sib;

		if (j >= nr)
			continue;
		i = ((start + j) % nr) & (MAX_LLC_CPUS - 1);
		if (s->cpu[i] == this || !arbor_mask_test(s->idle_mask, LLC_MASK_WORDS, i))
			continue;
		sib = s->core[i] == this_core;
		if ((pass == 0) != sib)
			continue;
		/*
		 * the count lives in the caller's memory (*cnt, BPF scratch):
		 * a register counter used as an index is tracked exactly by
		 * the verifier, which would then check all 2 x MAX_LLC_CPUS
		 * iterations one by one
		 */
		n = *cnt;
		if (n < MAX_LLC_CPUS) {
			order[n & (MAX_LLC_CPUS - 1)] = i;
			*cnt = n + 1;
		}
	}
	return *cnt;
}

/*
 * The overloaded flag of a CPU (>= 2 tasks accounted), after its count
 * moved from `prev` by `delta` (+1/-1; the caller did the atomic add, and
 * *nr_running already holds the new count). Only a move across 2 can change
 * what the flag should be. Deciding it from the move alone is not enough:
 * two CPUs moving one count (2 -> 1 by one, 1 -> 2 by the other) may set
 * the flag in the opposite order and leave it 0 with 2 tasks. So the flag
 * is recomputed from the count itself, and rechecked after each change:
 * whoever changes the flag last reads the count afterwards, and the last
 * move across 2 is followed by its own check, so once every updater is
 * done the flag matches the count. Returns the change to make to the
 * number of overloaded CPUs (each flip by compare-and-swap counts once).
 * At most two rounds (the verifier): enough unless the count keeps
 * moving under it.
 */
ARBOR_POLICY s32 arbor_overload_update(u32 *nr_running, u32 prev, s32 delta, u32 *flag)
{
	u32 now_n = (u32)((s64)prev + delta);
	s32 d = 0, k;

	/* no move across 2: the flag's target is unchanged */
	if ((prev >= 2) == (now_n >= 2))
		return 0;
	/* two rounds, unrolled: a loop here made enqueue too complex for the verifier */
	for (k = 0; k < 2; k++) {
		u32 want = *(volatile u32 *)nr_running >= 2;
		u32 cur = *(volatile u32 *)flag;

		if (cur == want)
			break;
		if (__sync_val_compare_and_swap(flag, cur, want) == cur)
			d += want ? 1 : -1;
	}
	return d;
}
