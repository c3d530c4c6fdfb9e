/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: state shared by every concern (topology, tunables, per-CPU and
 * per-task contexts, counters). The concerns themselves live in their own
 * files: load.bpf.h (load and utilisation), idle.bpf.h (wake-up placement),
 * balance.bpf.h (newidle and periodic balancing); main.bpf.c wires them to
 * sched_ext's callbacks.
 */
#ifndef __ARBOR_COMMON_BPF_H
#define __ARBOR_COMMON_BPF_H

#include <scx/common.bpf.h>
#include "intf.h"
#include "policy.h"

/* ---- Topology and tunables, written once by the Rust side (rodata) ---- */
const volatile u32 nr_cpus = 1;			/* nr_cpu_ids */
const volatile u32 nr_llcs = 1;
const volatile u32 nr_nodes = 1;
const volatile u32 smt_width = 1;
const volatile u32 cpu_llc[MAX_CPUS];
const volatile u32 cpu_node[MAX_CPUS];
const volatile u32 cpu_core[MAX_CPUS];		/* globally unique core id */
const volatile u32 cpu_cap[MAX_CPUS];		/* capacity, 1024 = biggest */
const volatile u32 llc_nr_cpus[MAX_LLCS];
const volatile s32 llc_cpus[MAX_LLCS][MAX_LLC_CPUS];
/* index of the next SMT sibling in llc_cpus (a ring per core; i itself without SMT) */
const volatile u16 llc_sib[MAX_LLCS][MAX_LLC_CPUS];
const volatile u16 cpu_llc_idx[MAX_CPUS];	/* index of each CPU in llc_cpus[its LLC] */
const volatile u32 llc_node[MAX_LLCS];

/* the tunables (intf.h: enum arbor_defaults and the config structs) */
#define US (1000ULL)
#define MS (1000000ULL)
const volatile struct arbor_slice_cfg slice_cfg = {
	.slice_ns = DEF_BASE_SLICE_US * US * 4,	/* scaled for 8+ CPUs (1 + log2 8); the loader sets it */
};
const volatile struct arbor_balance_cfg balance_cfg = {
	.migration_cost_ns	= DEF_MIGRATION_COST_US * US,
	.interval_ns		= DEF_BALANCE_INTERVAL_MS * MS,
	.imbalance_pct		= DEF_IMBALANCE_PCT,
};
const volatile struct arbor_wa_cfg wa_cfg = {
	.interval_ns		= DEF_WAKE_AFFINE_INTERVAL_MS * MS,
};
const volatile struct arbor_steal_cfg steal_cfg = {
	.cost_ns		= DEF_STEAL_COST_US * US,
	.node_limit		= DEF_STEAL_NODE_LIMIT,
};
#undef US
#undef MS
/* group scheduling (cgroup.bpf.h): cpu.weight honoured; --no-cgroups clears it */
const volatile bool cg_enabled = true;
const volatile bool asym = false;	/* seed 004: capacities differ by >= 1/8 */
const volatile u32 node_imb_numa_nr[MAX_NODES];	/* policy.h: arbor_imb_numa_nr, per node */
/* SIS_NODE (policy.h arbor_sis_node_pick): each node's CPUs, and its LLC count */
const volatile u64 node_cpus[MAX_NODES][CPU_MASK_WORDS];
const volatile u32 node_nr_llcs[MAX_NODES];

/* ---- Run-time switchable (bss): features, like sched_features ---- */
volatile u64 features;

/* ---- Counters: one row per CPU, summed by the Rust side ---- */
u64 stats[MAX_CPUS][ARBOR_NR_STATS];

static __always_inline bool feat(enum arbor_feature f)
{
	return features & (1ull << f);
}

/*
 * Is @p migration-disabled (migrate_disable(), or a per-CPU kthread)? The
 * kernel's own test is is_migration_disabled() in kernel/sched/sched.h:
 * p->migration_disabled != 0; ext.c (task_can_run_on_remote_rq) refuses to
 * move such a task off its CPU, so a pull or a move to another CPU must
 * skip it.
 *
 * Read from BPF, the count can include the BPF trampoline's own
 * migrate_disable() for the current task: since 8e4f0b1ebcf2 ("bpf: use
 * rcu_read_lock_dont_migrate() for trampoline.c", 6.18) __bpf_prog_enter
 * calls it only under CONFIG_PREEMPT_RCU. scx_arbor needs 7.2 or later, so
 * a count of 1 is the prolog's exactly when PREEMPT_RCU is set and @p is
 * current; any other count is real.
 *
 * Written here rather than taken from scx_cargo's is_migration_disabled(),
 * which also tests LINUX_KERNEL_VERSION for pre-6.18 kernels: libbpf fills
 * that extern by parsing uname's release as MAJOR.MINOR.PATCH, fails on
 * Debian's '7.3-amd64' ("failed to get kernel version"), and then refuses
 * to load the whole object (measured with arbor verifier --kernel next).
 * CONFIG_PREEMPT_RCU is a __kconfig extern libbpf reads from the kernel's
 * config into read-only data, so the verifier prunes the branch not taken.
 */
extern bool CONFIG_PREEMPT_RCU __kconfig __weak;

static __always_inline bool task_migration_disabled(const struct task_struct *p)
{
	if (!bpf_core_field_exists(p->migration_disabled))
		return false;
	if (p->migration_disabled == 1 && CONFIG_PREEMPT_RCU)
		return bpf_get_current_task_btf() != p;
	return p->migration_disabled;
}

/*
 * task_cpu(p), read from the task: include/linux/sched.h task_cpu() is
 * READ_ONCE(task_thread_info(p)->cpu) with THREAD_INFO_IN_TASK (x86,
 * arm64, ...), which is all scx_bpf_task_cpu() returns. A load instead of
 * a kfunc call on enqueue, runnable, running, stopping and the tick
 * (the simulator's cost model charges a call 20 ns, a field read
 * nothing). Where the field does not exist, the kfunc.
 */
static __always_inline s32 task_cpu_of(const struct task_struct *p)
{
	if (bpf_core_field_exists(p->thread_info.cpu))
		return p->thread_info.cpu;
	return scx_bpf_task_cpu(p);
}

/*
 * Add to the row of `cpu`, which must be the CPU running the callback
 * (the caller already knows it: each bpf_get_smp_processor_id() is a
 * helper call, and the wake-up path counts several things).
 */
static __always_inline void stat_add_on(s32 cpu, enum arbor_stat idx, u64 v)
{
	if ((u32)cpu < MAX_CPUS && idx < ARBOR_NR_STATS)
		stats[(u32)cpu & (MAX_CPUS - 1)][idx] += v;
}

static __always_inline void stat_inc_on(s32 cpu, enum arbor_stat idx)
{
	stat_add_on(cpu, idx, 1);
}

static __always_inline void stat_add(enum arbor_stat idx, u64 v)
{
	stat_add_on(bpf_get_smp_processor_id(), idx, v);
}

static __always_inline void stat_inc(enum arbor_stat idx)
{
	stat_add(idx, 1);
}

/* One DSQ per CPU: it stands for the CPU's runqueue, so placement matters. */
static __always_inline u64 cpu_dsq(s32 cpu)
{
	return (u64)cpu;
}

static __always_inline bool valid_cpu(s32 cpu)
{
	return cpu >= 0 && cpu < nr_cpus && cpu < MAX_CPUS;
}

/*
 * The kernel's nr_cpu_ids (the highest possible CPU + 1: the loader reads
 * it as libbpf_num_possible_cpus()): the CPU ids a task's cpumask can
 * hold. nr_cpus is the highest online CPU + 1 (scx_utils reads the online
 * CPUs): smaller when the highest CPUs are offline. Counted against
 * nr_cpus, a task pinned to {0,1,3} with CPU 3 offline (3 CPUs allowed,
 * nr_cpus 3) passed for one allowed everywhere, CPU 2 included: queued
 * there, its move to CPU 2's local DSQ was refused (ext.c
 * task_can_run_on_remote_rq) and scx_arbor ejected (fuzz seed 443938).
 * Not set by a loader: no task counts as allowed everywhere.
 */
const volatile s32 kern_nr_cpu_ids = 0x7fffffff;

/* Is p allowed on every CPU id (its cpumask full: the usual case)? */
static __always_inline bool allowed_everywhere(const struct task_struct *p)
{
	return p->nr_cpus_allowed >= kern_nr_cpu_ids;
}

/*
 * May p run on cpu? A task allowed on every CPU (the usual case) needs no
 * kfunc call: its count of allowed CPUs says so (the kernel's cpumask_and
 * with cpus_ptr is then the identity). Same answer as
 * bpf_cpumask_test_cpu(cpu, p->cpus_ptr), which is false past nr_cpu_ids.
 */
static __always_inline bool allowed(const struct task_struct *p, s32 cpu)
{
	if (allowed_everywhere(p))
		return valid_cpu(cpu);
	return valid_cpu(cpu) && bpf_cpumask_test_cpu(cpu, p->cpus_ptr);
}

/*
 * The wake-up path's copy of sched_ext's idle mask: one
 * bpf_probe_read_kernel() of the mask's words per wake-up instead of one
 * bpf_cpumask_test_cpu() kfunc call per CPU tested (wake_affine, every
 * step of select_idle_sibling, the LLC scan; the fork slow path's scans:
 * select_idlest; the capacity scans of ASYM_*). One row per CPU, written
 * only by the callback running on that CPU: select_cpu (not reentrant
 * there: ttwu holds the wakee's pi_lock with interrupts off) or the tick
 * (interrupts off too, so never in the middle of a select_cpu). The copy
 * is read until the placement is chosen; nothing on that path claims a
 * CPU before the scan is over (CACHE_WAKE's claim returns at once), so
 * every test answers as the live mask would have (in the simulator,
 * exactly; on a machine, other CPUs may change the live mask meanwhile
 * either way, and the final scx_bpf_test_and_clear_cpu_idle() decides).
 *
 * The copy is read from the mask's address, which arbor_init takes once
 * (idle_mask_addr): scx_bpf_get_idle_cpumask() returns the kernel's global
 * idle mask (ext/idle.c, 7.2: idle_cpumask(NUMA_NO_NODE)->cpu, allocated
 * once at boot by scx_idle_init_masks() and never freed), and its
 * scx_bpf_put_idle_cpumask() does nothing, so a get/put pair per wake-up
 * were two kfunc calls on the wake-up's critical path that read nothing
 * (on every wake-up's path). Loaded by root, the
 * verifier lets a program keep a kernel address as a number
 * (allow_ptr_leaks); the read itself is bpf_probe_read_kernel()'s, which
 * fails safe: an address of 0 or an error zeroes the copy (no CPU looks
 * idle, every wake-up queues) rather than reading anything else.
 */
u64 idle_mask_addr;

struct wake_idle_row {
	u64 w[CPU_MASK_WORDS];
};
struct wake_idle_row wake_idle[MAX_CPUS];

/*
 * The words of a CPU mask nr_cpu_ids uses (the kernel allocates no more:
 * cpumask_size()), at most CPU_MASK_WORDS.
 */
static __always_inline u32 mask_words(void)
{
	u32 n = (nr_cpus + 63) / 64;

	return n > CPU_MASK_WORDS ? CPU_MASK_WORDS : n;
}

/* copy the kernel's idle mask into `this` CPU's row; returns the row */
static __always_inline const u64 *copy_idle_mask(s32 this)
{
	u64 *dst = wake_idle[(u32)this & (MAX_CPUS - 1)].w;
	u32 n = mask_words();

	bpf_probe_read_kernel(dst, n * sizeof(u64), (const void *)idle_mask_addr);
	return dst;
}

/* an idle test on the copy: no call */
static __always_inline bool idle_bit(const u64 *bits, s32 cpu)
{
	return valid_cpu(cpu) && ((bits[((u32)cpu / 64) & (CPU_MASK_WORDS - 1)] >> (cpu & 63)) & 1);
}

/*
 * No CPU idle in the copy? Then no step of the idle search can find one,
 * and the wake-up needs no scratch space for its scan (a map look-up: the
 * one call the search would make) on a machine whose CPUs are all busy.
 */
static __always_inline bool idle_none(const u64 *bits)
{
	u32 n = mask_words(), i;
	u64 any = 0;

	bpf_for(i, 0, CPU_MASK_WORDS) {
		if (i >= n)
			break;
		any |= bits[i & (CPU_MASK_WORDS - 1)];
	}
	return !any;
}

static __always_inline u32 llc_of(s32 cpu)
{
	return cpu_llc[cpu & (MAX_CPUS - 1)] & (MAX_LLCS - 1);
}

static __always_inline u32 node_of(s32 cpu)
{
	return cpu_node[cpu & (MAX_CPUS - 1)] & (MAX_NODES - 1);
}

static __always_inline bool share_llc(s32 a, s32 b)
{
	return llc_of(a) == llc_of(b);
}

/*
 * What a task keeps as a waker: written by select_cpu when it wakes another
 * task (then it is the CPU's current task), read by quiescent() when it
 * sleeps, and by a wake-up of the task itself (wake_wide reads its flips,
 * SYNC_PAIR its last wakee) when it does not run.
 */
struct waker_state {
	/* wake_wide (the kernel's record_wakee: p->wakee_flips, ...) */
	u64 flip_decay_ts;
	u32 wakee_flips;
	s32 last_wakee;
	/* WAKE_LOCAL: its first wake-up since it last slept (0: none), and the average time from there to its sleep */
	u64 wake_pend;
	u64 wake_sleep_avg;
	/*
	 * SYNC_LOCAL: when it last woke a task with WF_SYNC and has not slept
	 * since (0: none pending), and whether each of its last 8 such
	 * wake-ups was followed by its sleep (policy.h arbor_sync_record)
	 */
	u64 sync_since;
	u32 sync_hist;
};

/* ---- Per-CPU context: what the kernel keeps in struct rq ---- */
struct cpu_ctx {
	u64 load_avg;		/* PELT of the runnable weight (1024 = one nice-0 task) */
	u64 load_val;		/* the signal in effect since pelt_ts */
	u64 util_avg;		/* PELT of "a task is running" x 1024 */
	u64 pelt_ts;
	u32 nr_running;		/* tasks accounted here: running + queued */
	u32 pad_ws;		/* weight_sum's alignment */
	u64 weight_sum;		/* their h weights (policy.h arbor_h_weight: 100 << ARBOR_W_SHIFT = nice 0) */
	s64 h_moved;		/* load of group tasks moved in - out, decaying, << ARBOR_W_SHIFT (policy.h arbor_h_moved_decay) */
	u64 running_since;	/* 0 when no task runs */
	u64 acct_since;		/* the running task's run is accounted up to here (running, keep_prev) */
	u64 curr_deadline;	/* deadline of the running task */
	u64 curr_protect_until;	/* RUN_TO_PARITY: its request at the pick ends then */
	u64 idle_stamp;		/* when the CPU went idle, 0 when busy */
	u64 avg_idle;		/* kernel's rq->avg_idle */
	u64 direct_lat_avg;	/* WAKE_LOCAL: 1/8 average runnable -> running of wakees sent here idle */
	u64 lvl_cost[NR_LEVELS];	/* max_newidle_lb_cost per level */
	u64 lvl_decay_ts[NR_LEVELS];	/* last_decay_max_lb_cost per level */
	u32 ni_call[NR_LEVELS];		/* NI_RANDOM: newidle_call, _success, _ratio */
	u32 ni_success[NR_LEVELS];
	u32 ni_ratio[NR_LEVELS];
	u32 rng;			/* per-CPU random state (the kernel's sched_rng) */
	u64 next_busy_balance;
	u32 balance_req;	/* set by the periodic balancer: BAL_REQ_* (balance.bpf.h) */
	u32 idle;
	/*
	 * seed 003: >= 2 tasks accounted here. The seed keeps these bits in a
	 * "sparse" per-LLC mask, few CPUs per cache line, because every 1<->2
	 * transition writes the mask and stealers read it. Keeping each CPU's
	 * bit in its own cpu_ctx is that layout taken to its end: a transition
	 * dirties only the CPU's own line; a stealer reads one line per CPU of
	 * its LLC, which it would read anyway to check the CPU's queue.
	 */
	u32 overloaded;
	s32 gap_waiting;	/* this CPU's share of the waiting count (load.bpf.h gap_sample) */
	u64 cache_rt;		/* seed 002: decayed run time on this CPU */
	u64 cache_epoch;
	u32 enq_last;		/* a lone task waits in the local queue (ENQ_LAST) */
	u32 buddy_pending;	/* NEXT_BUDDY: a buddy waits in the local queue (running() clears) */
	u64 curr_avg_stint;	/* NEXT_BUDDY: the running task's average run from pick to stop (running() copies it) */
	u64 curr_cg_idle;	/* cpu.idle: the idle group of the running task, 0 if none (cgroup.bpf.h) */
	/* LB_IMBALANCE (balance.bpf.h): per level, as the kernel's per-domain fields */
	u64 lb_last[NR_LEVELS];		/* last balance of the level (sd->last_balance) */
	u32 lb_span[NR_LEVELS];		/* CPUs the level spanned then (sd_weight) */
	u64 lb_due;			/* the earliest next idle balance: the timer kicks us only past it */
	u32 lb_failed[NR_LEVELS];	/* failed balances in a row (sd->nr_balance_failed) */
	u32 push_to;		/* active balance: 1 + the idle CPU asking for our running task */
	u64 next_starve_scan;	/* starvation bound: the tick's next look at our queue */
	u32 starve_pending;	/* a starved task waits in our queue: dispatch runs it first */
	/*
	 * The running task's waker_state while it runs (a look-up saved: the
	 * wake-up path read the waker's through a task-storage look-up, the
	 * one call of the five every non-fork wake-up made before placing that
	 * was not this CPU, the waker, the wakee's context or the clock).
	 * running() copies it in with curr_ws_pid its pid, stopping() copies it back (ext.c calls stopping before
	 * quiescent, which reads it, and before any other CPU can wake the
	 * task) and sets 0. The waker of a wake-up is the current task of the
	 * CPU select_cpu runs on, so select_cpu finds it here (waker_state_of).
	 * 0 is the idle task's pid, which no non-kthread waker has.
	 */
	struct waker_state curr_ws;
	s32 curr_ws_pid;
};

/*
 * Plain global data (.bss), indexed by CPU id, not an array map: reading a
 * CPU's context is an address computation, not a bpf_map_lookup_elem()
 * call (the wake-up path looked up several contexts per
 * call). Same layout as the map it replaces (contiguous elements), and the
 * same answer: NULL for an id at or past MAX_CPUS (negative ones included,
 * as the map's u32 key), a zeroed context otherwise.
 */
struct cpu_ctx cpu_ctxs[MAX_CPUS];

static __always_inline struct cpu_ctx *lookup_cpu_ctx(s32 cpu)
{
	u32 k = cpu;

	if (k >= MAX_CPUS)
		return NULL;
	/*
	 * The verifier bounds the register the address is computed from:
	 * without the barrier clang indexes with the unchecked 64-bit value
	 * of the argument ("R7 unbounded memory access", measured on 7.2).
	 */
	barrier_var(k);
	return &cpu_ctxs[k & (MAX_CPUS - 1)];
}

/* ---- Per-LLC context: the kernel's sched_domain_shared ---- */
struct llc_ctx {
	s32 nr_busy;		/* seed 000: CPUs not idle, exact on every transition */
	u32 has_idle_cores;	/* hint: some core of this LLC is fully idle */
	u32 nr_idle_scan;	/* SIS_UTIL depth, refreshed by the periodic balancer */
	u64 util_sum;
	u8 pad[40];		/* one cache line per LLC: nr_busy moves on every idle transition */
};

/* Plain global data, as cpu_ctxs (no lookup call); NULL past MAX_LLCS, as the map. */
struct llc_ctx llc_ctxs[MAX_LLCS];
_Static_assert(sizeof(struct llc_ctx) == 64, "llc_ctx: one cache line");

static __always_inline struct llc_ctx *lookup_llc_ctx(u32 llc)
{
	if (llc >= MAX_LLCS)
		return NULL;
	barrier_var(llc);	/* as lookup_cpu_ctx */
	return &llc_ctxs[llc & (MAX_LLCS - 1)];
}

/* ---- Per-task context: what the kernel keeps in task_struct / sched_entity ---- */
/* task_ctx.wake_sync: what select_cpu saw of WF_SYNC for the wake-up */
enum wake_sync_kind {
	WAKE_NOT_SYNC	= 0,
	WAKE_SYNC	= 1,	/* WF_SYNC: PREEMPT_SYNC may defer it, NEXT_BUDDY leaves it */
	WAKE_SYNC_PAIR	= 2,	/* WF_SYNC of the task that last woke the waker: SYNC_PAIR makes it ordinary */
};

struct task_ctx {
	u64 util_avg;		/* PELT of running x 1024 */
	u64 runnable_avg;	/* PELT of runnable x 1024 */
	u64 pelt_ts;
	u64 vruntime;
	u64 deadline;
	u64 last_ran;		/* end of the last stint: cache hotness */
	u64 avg_stint;		/* its average run from pick to stop (policy.h arbor_update_avg): NEXT_BUDDY */
	struct waker_state ws;	/* as a waker; while it runs, its CPU's copy is the live one */
	s32 recent_used_cpu;
	s32 last_cpu;
	s32 acct_cpu;		/* CPU whose nr_running counts us, -1 if none */
	u32 waiting;		/* runnable but not running */
	u64 acct_weight;	/* its h weight in acct_cpu's weight_sum (policy.h arbor_h_weight) */
	u64 next_wake_affine;	/* seed 001: no wake_affine before this time */
	s32 move_cpu;		/* chosen at tick (seed 004 misfit, seed 002 aggregation), -1 if none */
	u32 move_misfit;	/* the move is a misfit migration */
	/* EEVDF (eevdf.bpf.h): vruntime and deadline above are in rq_cpu's domain */
	s64 vlag;		/* lag saved when it left its queue (update_entity_lag) */
	u64 rel_deadline;	/* deadline - vruntime, kept across a migration */
	u64 sleep_avg;		/* its queue's average when it went to sleep */
	u64 exec_start;		/* last time its run was charged (update_curr) */
	u64 rq_w;		/* weight it is counted with in rq_cpu's average (fine scale: policy.h ARBOR_W_SHIFT) */
	/* group scheduling (cgroup.bpf.h) */
	u64 cg_id;		/* its cgroup's id, 0 in the root */
	u64 cg_on;		/* the cgroup its runnable weight counts in, 0 if none */
	u64 cg_w;		/* that weight */
	u64 cg_exec;		/* cpu.max: its run is charged to its groups from here, 0: not running */
	s32 rq_cpu;		/* CPU whose average counts it, -1 if none */
	s32 sleep_cpu;		/* queue it slept on, -1 if it left otherwise */
	s32 left_cpu;		/* queue stopping(p, false) took it out of, until quiescent(): -1 */
	u32 eevdf_flags;	/* EEVDF_REL_DEADLINE, EEVDF_INITIAL */
	/* wake-up latency: runnable -> running */
	u32 wake_direct;	/* select_cpu inserted it into an idle CPU's local queue */
	u64 runnable_at;	/* when it woke, 0 once it ran */
	u64 sel_now;		/* select_cpu's clock read for this wake-up, for runnable(); 0 once used */
	u64 wait_since;		/* since when it waits to run, 0 if not waiting (starvation bound) */
	/*
	 * PREEMPT_SYNC, NEXT_BUDDY, as a wakee: what select_cpu saw of WF_SYNC
	 * for this wake-up (enum wake_sync_kind; enqueue reads it, running
	 * clears it)
	 */
	u32 wake_sync;
	/*
	 * ... and the CPU that select_cpu ran on, the waker's. The wake-up's
	 * enqueue runs on it too: try_to_wake_up() runs select_task_rq() and
	 * ttwu_queue() with preemption off, and never hands a sched_ext task
	 * to the target CPU's wake list unless the scheduler sets
	 * SCX_OPS_ALLOW_QUEUED_WAKEUP (ext.c scx_allow_ttwu_queue), which
	 * arbor does not. So enqueue counts on this CPU's row without
	 * asking for it (stat_inc_on).
	 */
	s32 wake_cpu;
	/*
	 * CACHE_LB: what the last look-up of its process's entry found
	 * (cache.bpf.h cache_entry_seen), current while proc_gen has not
	 * moved since
	 */
	u64 cp_gen;		/* 1 + proc_gen before that look-up; 0: none yet */
	u64 cp_scan_ts;		/* the entry's scan_ts */
	s32 cp_pref;		/* the entry's pref_llc; -1 if none or no entry */
	u32 cp_entry;		/* the process had an entry */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} task_ctxs SEC(".maps");

static __always_inline struct task_ctx *lookup_task_ctx(const struct task_struct *p)
{
	return bpf_task_storage_get(&task_ctxs, (struct task_struct *)p, 0, 0);
}

/*
 * The waker's waker_state in select_cpu: `here` is the context of the CPU
 * it runs on, whose current task the waker is. While it runs there, the
 * copy running() made (cpu_ctx.curr_ws), with no call; else (a waker
 * whose running() this scheduler did not see, as a task running when it
 * loaded, or one past its stopping(), late in schedule()) its task
 * context's, one look-up. NULL
 * for a kernel thread (the idle task included), as the wake-up path uses
 * no waker state of those.
 *
 * One race, and what it costs: a property change of the waker made from
 * another CPU (sched_setaffinity, setpriority) calls stopping() and
 * running() there under the waker's CPU's run-queue lock, which
 * select_cpu does not hold. A wake-up at that moment can lose its record (one flip, one
 * sync or wake measure) to the copy back: heuristic state, never a task.
 */
static __always_inline struct waker_state *waker_state_of(struct task_struct *waker,
							  struct cpu_ctx *here)
{
	struct task_ctx *wctx;

	if (waker->flags & PF_KTHREAD)
		return NULL;
	if (here && here->curr_ws_pid == waker->pid)
		return &here->curr_ws;
	wctx = lookup_task_ctx(waker);
	return wctx ? &wctx->ws : NULL;
}

/* ---- Scratch space too large for the 512-byte BPF stack ---- */
struct scratch {
	struct llc_snapshot snap;
	/*
	 * 1 + the LLC whose layout (nr, cpu, core, sib) snap holds, 0 if none:
	 * the layout is rodata, so a wake-up into the same LLC as this CPU's
	 * last one copies nothing but clears the idle bits (idle.bpf.h
	 * snapshot_llc_topo). Whoever writes the layout otherwise sets it to 0.
	 */
	u32 snap_llc1;
	u32 order[MAX_LLC_CPUS];
	u32 cnt;			/* a loop counter kept in memory (see arbor_steal_order) */
	u32 a_cap[MAX_CPUS];		/* capacity scans cover every CPU */
	u64 a_util[MAX_CPUS];
	u64 a_idle[CPU_MASK_WORDS];
	struct group_stats fg[MAX_LLCS];	/* fork slow path: one level's groups */
	s32 g_id[MAX_LLCS];
	s32 fork_local;			/* fork slow path results (idle.bpf.h) */
	s32 fork_idle_grp;
	s32 fork_busy_grp;
	u32 fork_found_idle;
	u64 fork_stamp;
	u64 fork_load;
	u64 c_stamp[MAX_LLC_CPUS];
	u64 c_load[MAX_LLC_CPUS];
	s32 c_id[MAX_LLC_CPUS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

static __always_inline struct scratch *get_scratch(void)
{
	u32 key = 0;

	return bpf_map_lookup_elem(&scratch_map, &key);
}

#endif /* __ARBOR_COMMON_BPF_H */
