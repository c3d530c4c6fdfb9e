/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: what the BPF side and the Rust side agree on.
 *
 * Everything here is read by bindgen (through scx_cargo) to produce
 * bpf_intf.rs, so the Rust side never restates a number or an index.
 */
#ifndef __ARBOR_INTF_H
#define __ARBOR_INTF_H

#ifndef __VMLINUX_H__
#include <stdint.h>
#include <stdbool.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;
#endif

enum arbor_limits {
	MAX_CPUS	= 1024,	/* machines of up to 1024 CPUs (Power11 has 224) */
	MAX_LLCS	= 128,
	MAX_NODES	= 16,
	MAX_LLC_CPUS	= 256,	/* CPUs of one LLC (Xeons: up to 128-256 threads per socket) */
	/* multi-word bitmaps (policy.h arbor_mask_*), 64 bits per word */
	CPU_MASK_WORDS	= MAX_CPUS / 64,
	LLC_MASK_WORDS	= MAX_LLC_CPUS / 64,	/* one bit per CPU of an LLC */
	LLCS_MASK_WORDS	= MAX_LLCS / 64,	/* one bit per LLC */
	SIS_NODE_TRIES	= 8,	/* SIS_NODE: candidates tested for lasting idleness */
	MAX_SMT		= 8,	/* POWER10 SMT8 */
	NR_LEVELS	= 4,	/* SMT, LLC, node, machine */
	ARBOR_LAT_BUCKETS = 16,	/* wake-up latency histogram: < 1 us .. >= 16 ms */
};

/*
 * Tunables, grouped by the mechanism that reads them (as scx_p2dq groups
 * its config). Each default is written once, here: the loader's flags
 * (knobs.rs, one clap group per struct below) take their defaults from
 * this enum through bindgen, and the BPF globals start from it. The
 * values are in the flags' units (us, ms); the structs hold ns.
 */
enum arbor_defaults {
	/* struct arbor_slice_cfg: the EEVDF slice (eevdf.bpf.h) */
	DEF_SLICE_US		= 0,	/* 0 = the base slice, scaled by CPU count */
	DEF_BASE_SLICE_US	= 750,	/* sysctl_sched_base_slice */
	/* struct arbor_balance_cfg: newidle and the periodic balancer */
	DEF_IMBALANCE_PCT	= 117,	/* sd_init(): sd->imbalance_pct above SMT */
	DEF_MIGRATION_COST_US	= 500,	/* sysctl_sched_migration_cost */
	DEF_BALANCE_INTERVAL_MS	= 4,	/* the periodic balancer's base period */
	/* struct arbor_wa_cfg: seed 001 (WA_THROTTLE) */
	DEF_WAKE_AFFINE_INTERVAL_MS = 1,	/* the seed's wake_affine_interval */
	/* struct arbor_steal_cfg: seed 003 (STEAL) */
	DEF_STEAL_COST_US	= 10,	/* the seed's steal_cost (seeds.md: 10 us) */
	DEF_STEAL_NODE_LIMIT	= 2,	/* the seed's SCHED_STEAL_NODE_LIMIT_DEFAULT */
	/* struct arbor_cache_cfg: seed 002 (CACHE_LB) */
	DEF_LLC_AGGR_PCT	= 50,	/* an LLC is full above this utilisation */
	DEF_LLC_IMB_PCT		= 20,	/* imbalance a move of the preferred LLC needs */
	DEF_LLC_EPOCH_MS	= 10,	/* occupancy decay and hottest-LLC rescan period */
	DEF_LLC_TIMEOUT_EPOCHS	= 5,	/* a preference not refreshed for this long is dropped */
	DEF_LLC_TOLERANCE	= 1,	/* llc_aggr_tolerance, a multiplier */
};

struct arbor_slice_cfg {
	u64 slice_ns;		/* the slice every task gets (scaled base slice or --slice-us) */
};

struct arbor_balance_cfg {
	u64 migration_cost_ns;	/* cache-hot window: not pulled across LLCs */
	u64 interval_ns;	/* periodic balance period at the lowest level */
	u32 imbalance_pct;	/* above SMT (the SMT level uses 110, sd_init) */
	u32 pad;
};

struct arbor_wa_cfg {
	u64 interval_ns;	/* skip wake_affine this long after a failure; 0 = off */
};

struct arbor_steal_cfg {
	u64 cost_ns;		/* steal only if the CPU's avg_idle is at least this */
	u32 node_limit;		/* no stealing on machines with more nodes */
	u32 pad;
};

struct arbor_cache_cfg {
	u64 epoch_ns;
	u32 timeout_epochs;
	u32 aggr_pct;
	u32 imb_pct;
	u32 tolerance;		/* policy.h arbor_cache_eligible */
};

/* Balancing levels, bottom-up, as the kernel's sched domains. */
enum arbor_level {
	LVL_SMT		= 0,
	LVL_LLC		= 1,
	LVL_NODE	= 2,
	LVL_MACHINE	= 3,
};

/*
 * Feature bits, like the kernel's sched_features. The Rust side owns names,
 * defaults and one-line meanings (features.rs); BPF reads the bitmask from
 * the writable `features` variable in .bss, so it can be switched at run time.
 */
enum arbor_feature {
	FEAT_WA_IDLE	= 0,	/* wake_affine: idle-CPU stage */
	FEAT_WA_WEIGHT	= 1,	/* wake_affine: effective-load stage */
	FEAT_WA_BIAS	= 2,	/* wake_affine: imbalance_pct bias in favour of prev */
	FEAT_WAKE_WIDE	= 3,	/* wake_wide: skip wake_affine for 1:N wakers */
	FEAT_SIS_UTIL	= 4,	/* select_idle_cpu scan depth from LLC utilisation */
	FEAT_NEWIDLE	= 5,	/* pull work when a CPU goes idle */
	/* the seed mechanisms (docs/seeds.md) */
	FEAT_WA_IDLER_LLC = 6,	/* seed 000: prefer the idler LLC across LLCs */
	FEAT_WA_WAKER	= 7,	/* seed 000: prefer the waker's LLC if not full */
	FEAT_WA_THROTTLE = 8,	/* seed 001: no wake_affine for a while after a failure */
	FEAT_STEAL	= 9,	/* seed 003: steal from overloaded CPUs when going idle */
	FEAT_ASYM_WAKE_CAP = 10,	/* seed 004: slow path when the task does not fit */
	FEAT_ASYM_IDLE_CAPACITY = 11,	/* mainline 5.7: select_idle_capacity */
	FEAT_ASYM_MISFIT = 12,	/* mainline: move misfit tasks to bigger CPUs */
	FEAT_CACHE_LB	= 13,	/* seed 002: aggregate a process in its hottest LLC */
	FEAT_CACHE_WAKE	= 14,	/* seed 002 RFC: steer wake-ups to the preferred LLC */
	FEAT_NI_RANDOM	= 15,	/* newidle per level in proportion to its success rate */
	FEAT_CACHE_ROOM	= 16,	/* ours: CACHE_LB prefers an as-hot LLC with room over a full one */
	FEAT_LB_IMBALANCE = 17,	/* periodic balance by weighted imbalance, with active balance */
	FEAT_NI_MIGRATION_COST = 18,	/* before 5.16: no newidle while avg_idle < migration cost */
	FEAT_WAKE_PREEMPT = 19,	/* a wakee preempts a busy CPU's task (check_preempt_wakeup_fair) */
	FEAT_SIS_IDLE_GROUP = 20,	/* 3.9-4.8: select_idle_sibling takes only an idle core or target's sibling */
	/* ours, not the kernel's: on in `default` only */
	FEAT_WAKE_NODE	= 21,	/* no wake_affine pull out of prev's node while it has an idle CPU */
	FEAT_IDLE_PULL	= 22,	/* newidle walks the core and LLC while a task waits (no cost bound, no dice) */
	FEAT_SYNC_LOCAL	= 23,	/* a sync wakee queues on the waker's CPU when the waker keeps WF_SYNC's promise */
	FEAT_RUN_TO_PARITY = 24,	/* a running task keeps the CPU until it used the request it was picked with */
	FEAT_SIS_NODE	= 25,	/* ours: no idle CPU in target's LLC -> an idle CPU of the rest of its node */
	FEAT_WAKE_SHORTCUT = 26,	/* ours, placement-neutral: an idle prev kept by wake_affine is claimed at once */
	FEAT_WAKE_LOCAL	= 27,	/* ours: a wakee whose prev is its waker's CPU waits there when the waker sleeps sooner than an idle CPU wakes */
	FEAT_PREEMPT_SYNC = 28,	/* NEXT_BUDDY's preempt_sync: a sync wake-up preempts only a task that ran migration_cost/4 */
	FEAT_NEXT_BUDDY	= 29,	/* NEXT_BUDDY: an eligible (non-sync) wakee preempts and runs next, whatever the deadlines */
	FEAT_SYNC_PAIR	= 30,	/* ours: a sync wake-up of the task that last woke its waker is an ordinary one (not deferred, may be a buddy) */
	FEAT_WA_THROTTLE_XLLC = 31,	/* ours: seed 001's throttle only where this and prev are in different LLCs */
	FEAT_BUDDY_LONG_RUN = 32,	/* ours: with NEXT_BUDDY, the buddy preempts only a task whose runs average migration_cost/4 */
	FEAT_SYNC_LOCAL_BIG_BUSY = 33,	/* ours: with SYNC_LOCAL, a wakee too big for the waker's CPU stays there while no bigger CPU is idle */
	NR_FEATURES	= 34,
};

/*
 * Cumulative counters. Names in stats.rs are the lower-case forms of these,
 * in the same order; a unit test checks that they match.
 */
enum arbor_stat {
	STAT_WAKEUPS = 0,
	STAT_WAKE_WIDE,
	STAT_AFFINE_ATTEMPTS,
	STAT_AFFINE_MOVES,
	STAT_FOUND_IDLE_CORE,
	STAT_FOUND_IDLE_CPU,
	STAT_NOFOUND_IDLE,
	STAT_NEWIDLE_PULLS,
	STAT_NEWIDLE_FAILS,
	STAT_MIGRATIONS_SAME_LLC,
	STAT_MIGRATIONS_CROSS_LLC,
	STAT_MIGRATIONS_CROSS_NODE,
	STAT_IDLE_WHILE_QUEUED_NS,
	STAT_BUSY_NS,
	STAT_IDLE_NS,
	/* not placement outcomes, but needed to read the counters above */
	STAT_FORK_EXEC_SLOWPATH,
	STAT_PERIODIC_KICKS,
	STAT_BUSY_PULLS,
	/* seed 000 */
	STAT_IDLER_LLC_THIS,
	STAT_IDLER_LLC_PREV,
	STAT_IDLER_LLC_TIE,
	/* seed 001 */
	STAT_AFFINE_THROTTLED,
	/* seed 003 */
	STAT_STEAL,
	STAT_STEAL_FAIL,
	/* seed 004 */
	STAT_CAPACITY_PLACEMENTS,
	STAT_MISFIT_TASKS,
	STAT_MISFIT_MIGRATIONS,
	/* seed 002 */
	STAT_LLC_PREF_TASKS_IN,
	STAT_LLC_PREF_TASKS_OUT,
	STAT_LLC_MIGRATIONS_REFUSED,
	/* newidle entries that tried no level (cost gate or NI_RANDOM): a subset of the fails */
	STAT_NEWIDLE_SKIPS,
	/* wake-up latency, runnable -> running: wakees select_cpu put on an idle CPU's local queue */
	STAT_WAKE_DIRECT,
	STAT_WAKE_DIRECT_NS,
	/* ... and wakees enqueued on a CPU's queue */
	STAT_WAKE_QUEUED,
	STAT_WAKE_QUEUED_NS,
	/* their log2 histograms (policy.h: arbor_lat_bucket), ARBOR_LAT_BUCKETS each */
	STAT_WLAT_DIRECT_0,
	STAT_WLAT_DIRECT_1,
	STAT_WLAT_DIRECT_2,
	STAT_WLAT_DIRECT_3,
	STAT_WLAT_DIRECT_4,
	STAT_WLAT_DIRECT_5,
	STAT_WLAT_DIRECT_6,
	STAT_WLAT_DIRECT_7,
	STAT_WLAT_DIRECT_8,
	STAT_WLAT_DIRECT_9,
	STAT_WLAT_DIRECT_10,
	STAT_WLAT_DIRECT_11,
	STAT_WLAT_DIRECT_12,
	STAT_WLAT_DIRECT_13,
	STAT_WLAT_DIRECT_14,
	STAT_WLAT_DIRECT_15,
	STAT_WLAT_QUEUED_0,
	STAT_WLAT_QUEUED_1,
	STAT_WLAT_QUEUED_2,
	STAT_WLAT_QUEUED_3,
	STAT_WLAT_QUEUED_4,
	STAT_WLAT_QUEUED_5,
	STAT_WLAT_QUEUED_6,
	STAT_WLAT_QUEUED_7,
	STAT_WLAT_QUEUED_8,
	STAT_WLAT_QUEUED_9,
	STAT_WLAT_QUEUED_10,
	STAT_WLAT_QUEUED_11,
	STAT_WLAT_QUEUED_12,
	STAT_WLAT_QUEUED_13,
	STAT_WLAT_QUEUED_14,
	STAT_WLAT_QUEUED_15,
	/* seed 002: a process the table (proc_ctxs) had no room for (-E2BIG) */
	STAT_LLC_PROC_INSERT_FAILS,
	/* fork slow path: children placed off the parent's node */
	STAT_FORK_OTHER_NODE,
	/* the weighted-imbalance periodic balancer (LB_IMBALANCE) */
	STAT_LB_PULLS,		/* tasks pulled by it */
	STAT_LB_ACTIVE,		/* lone running tasks pushed to an idle CPU (active balance) */
	/* seed 002: tasks cache-aware balancing moved into their preferred LLC (migrate_llc_task) */
	STAT_LLC_LB_MOVES,
	/*
	 * For `arbor sim validate`: where wake_wide's flips come from. The kernel's
	 * record_wakee() charges `current`, which for a wake-up from interrupt
	 * context (a timer, an IPI) is whatever task it interrupted; such
	 * wake-ups carry no WF_SYNC. A sync wake-up is a task waking its peer
	 * (pipe_write's wake_up_interruptible_sync_poll).
	 */
	STAT_WAKE_SYNC,		/* wake-ups with SCX_WAKE_SYNC */
	STAT_WAKE_WIDE_SYNC,	/* wake_wide decisions on those */
	STAT_FLIPS_SYNC,	/* wakee flips charged to a user waker on a sync wake-up */
	STAT_FLIPS_ASYNC,	/* ... on a wake-up without SCX_WAKE_SYNC */
	/* newidle entries the cost gate stopped before any level was scanned (a subset of the skips) */
	STAT_NEWIDLE_GATED,
	/* wake-ups that preempted the running task of a busy CPU (WAKE_PREEMPT) */
	STAT_WAKE_PREEMPTS,
	/* WAKE_NODE: wake-ups kept in prev's node instead of a wake_affine across nodes */
	STAT_WAKE_NODE_KEPT,
	/* IDLE_PULL: newidle pulls at a level the cost bound or the dice would have skipped */
	STAT_IDLE_PULLS,
	/*
	 * seed 002: process-table inserts that failed for a passing reason,
	 * not a full table: no free element in this CPU's allocator cache
	 * (-ENOMEM: hashtab.c alloc_htab_elem, bpf_mem_cache_alloc; its
	 * refill is deferred to irq_work, a thread on PREEMPT_RT) or the
	 * bucket lock (-EDEADLK/-ETIMEDOUT, htab_lock_bucket). The thread's
	 * next run tries again.
	 */
	STAT_LLC_PROC_INSERT_RETRIES,
	/*
	 * the starvation bound (not a feature, in every profile): tasks
	 * queued for half the sched_ext watchdog timeout and run ahead of
	 * EEVDF's order (policy.h arbor_starved)
	 */
	STAT_STARVED_DISPATCH,
	/* SYNC_LOCAL: sync wakees queued on the waker's CPU (no idle search) */
	STAT_SYNC_LOCAL,
	/* SYNC_LOCAL's learning: sync wake-ups whose waker slept next, within the window, or did not */
	STAT_SYNC_KEPT,
	STAT_SYNC_BROKEN,
	/* RUN_TO_PARITY: wake-ups that would have preempted a task still inside the request it was picked with */
	STAT_PARITY_KEPT,
	/* SIS_NODE: wake-ups that found no idle CPU in target's LLC and took one of the rest of its node */
	STAT_SIS_NODE_FOUND,
	/* wake-ups placed on their idle prev without reading the idle mask (main.bpf.c wake_prev_idle) */
	STAT_WAKE_PREV_IDLE,
	/* WAKE_LOCAL: wakees queued behind their waker on its CPU, their prev */
	STAT_WAKE_LOCAL,
	/* PREEMPT_SYNC: sync wake-ups that would have preempted a task picked less than migration_cost/4 ago */
	STAT_SYNC_PREEMPT_DEFERRED,
	/* NEXT_BUDDY: wake-ups that preempted as the CPU's next buddy (eligible, deadline later or not) */
	STAT_NEXT_BUDDY,
	/* SYNC_PAIR: sync wake-ups of the task that last woke the waker, made next buddy or not deferred */
	STAT_SYNC_PAIR,
	/* slice ends where a task alone on its CPU kept it, with no switch (dispatch's keep_prev) */
	STAT_SLICE_KEPT,
	/* SYNC_LOCAL_BIG_BUSY: of sync_local, wakees too big for the waker's CPU, with no bigger CPU idle */
	STAT_SYNC_LOCAL_BIG_BUSY,
	/* group scheduling (cgroup.bpf.h): flattened weights computed, queued weights changed */
	STAT_CG_SHARES,
	STAT_CG_REWEIGHTS,
	/* cpu.max: groups that used their quota up and were throttled (cgroup_bw.bpf.h) */
	STAT_CG_THROTTLES,
	/* cpu.idle: wake-ups that preempted a task of an idle group at once */
	STAT_CG_IDLE_PREEMPTS,
	ARBOR_NR_STATS,
};

/* Results of the pure decision functions in policy.h. */
/* One newidle level's fate (policy.h arbor_newidle_level, IDLE_PULL). */
enum arbor_ni_level {
	NI_STOP = 0,	/* the cost bound ends the walk (baseline) */
	NI_SKIP = 1,	/* NI_RANDOM's dice skip the level (baseline) */
	NI_TRY = 2,	/* the baseline tries the level */
	NI_FORCE = 3,	/* IDLE_PULL tries a level the baseline would not */
};

enum wa_result {
	WA_NONE = 0,	/* no opinion: fall through to the next stage */
	WA_THIS = 1,	/* pull to the waker's CPU */
	WA_PREV = 2,	/* stay near prev */
};

/* Which stage of wake_affine() decided (struct wa_output.why). */
enum wa_why {
	WHY_NONE = 0,		/* no stage had an opinion: prev */
	WHY_THROTTLED,		/* seed 001: inside the wakee's throttle window */
	WHY_IDLE,		/* WA_IDLE */
	WHY_IDLER_LLC,		/* seed 000: the busy-fraction comparison */
	WHY_IDLER_TIE,		/* seed 000 had no opinion (tie or both full) */
	WHY_WEIGHT,		/* WA_WEIGHT */
};

/* Inputs of wake_affine(), gathered by the BPF side from live state. */
struct wa_input {
	u64 now;
	u64 next_wake_affine;	/* seed 001: the wakee's throttle deadline */
	u64 throttle_ns;	/* seed 001: wake_affine_interval, 0 = off */
	u32 this_llc_busy;	/* seed 000: busy CPUs and size of each LLC */
	u32 this_llc_size;
	u32 prev_llc_busy;
	u32 prev_llc_size;
	u64 this_load;		/* PELT load of the waker's CPU */
	u64 prev_load;		/* PELT load of prev */
	u64 task_load;		/* the wakee's load */
	u64 waker_load;		/* the waker's own load (used when sync) */
	u32 this_cap;		/* capacity of this / prev, 1024 = biggest */
	u32 prev_cap;
	u32 this_nr_running;	/* tasks on the waker's CPU, running included */
	u32 imbalance_pct;	/* sd->imbalance_pct above SMT, 117 by default */
	u32 features;		/* FEAT_* bitmask, its low 32 bits: wake_affine's switches */
	u8 this_idle;
	u8 prev_idle;
	u8 share_cache;		/* this and prev in one LLC */
	u8 share_core;		/* this and prev SMT siblings (one core) */
	u8 sync;
};

struct wa_output {
	u32 why;		/* enum wa_why */
	u32 idler;		/* seed 000's own verdict: WA_THIS/WA_PREV/WA_NONE, if it ran */
	u64 next_wake_affine;	/* seed 001: updated throttle deadline */
};

/*
 * Seed 002: the first fields of the BPF side's per-process context
 * (cache.bpf.h, struct proc_ctx), which --monitor reads from the map.
 */
struct proc_ctx_head {
	u64 epoch;		/* epoch of the last hottest-LLC scan */
	u64 scan_ts;		/* last hottest-LLC scan (claimed by compare-and-swap) */
	s32 pref_llc;		/* -1: none */
	u32 nr_threads;
	u64 total_rt;		/* decayed run time, all CPUs, as of the last scan */
};

/*
 * Group scheduling: the context of one cgroup below the root
 * (cgroup.bpf.h), keyed by its id; --stats reads the figures of the
 * busiest groups from the map.
 */
struct cg_ctx {
	u64 parent;	/* parent's id, 0 for a top-level group (the root has no context) */
	u64 shares;	/* cpu.weight on the 1024 scale (arbor_cg_shares), or cpu.idle's */
	u64 active;	/* weight of its runnable tasks and of its active child groups */
	u64 contrib;	/* the shares it counts in its parent's active while active */
	s64 nr_active;	/* its active members */
	/* cpu.max (cgroup_bw.bpf.h), in ns; quota 0: no limit */
	u64 quota;
	u64 period;
	u64 burst;
	s64 runtime;	/* quota left in this period; below 0, the overrun carried */
	u64 refill_at;	/* the period's end */
	u64 nr_throttled;	/* times it used its quota up (cpu.stat nr_throttled) */
	u32 throttled;	/* its tasks wait in its DSQ (cg_dsq) until the refill */
	u32 idle;	/* cpu.idle */
	u64 run_ns;	/* CPU time of its own tasks (not its descendants') */
	u64 nr_idle_preempts;	/* wake-ups that preempted a task of it, an idle group, at once */
};

/*
 * EEVDF's weighted average vruntime of one run-queue (kernel/sched/fair.c:
 * cfs_rq->zero_vruntime, ->avg_vruntime, ->avg_load), one per CPU: the sum
 * of (vruntime - zero) x weight over the tasks queued on or running on the
 * CPU, and of their weights (kernel scale, nice 0 = 1024).
 */
struct eevdf_avg {
	u64 zero;		/* reference vruntime the keys are taken from */
	s64 sum;		/* sum of (v - zero) * w */
	u64 load;		/* sum of w */
};

/* One LLC as select_idle_cpu() sees it at one instant. */
struct llc_snapshot {
	u32 nr;				/* CPUs in the LLC */
	u32 smt_width;			/* threads per core (1 without SMT) */
	s32 cpu[MAX_LLC_CPUS];		/* CPU ids, in id order */
	u32 core[MAX_LLC_CPUS];		/* core id of each */
	u16 sib[MAX_LLC_CPUS];		/* index of the next SMT sibling (a ring; i itself without SMT) */
	u64 idle_mask[LLC_MASK_WORDS];	/* bit i: cpu[i] idle */
};

/*
 * One sched group (a node, or an LLC of a node) as the fork slow path sees
 * it (fair.c: update_sg_wakeup_stats): sums over the group's CPUs the task
 * may run on; capacity and weight over all its CPUs.
 */
struct group_stats {
	u64 load;		/* sum of cpu_load */
	u64 util;		/* sum of cpu_util */
	u64 runnable;		/* sum of the runnable signal (cpu_load here) */
	u32 capacity;		/* sum of CPU capacities */
	u32 weight;		/* CPUs in the group */
	u32 allowed;		/* of them, CPUs the task may use */
	u32 nr_running;		/* tasks accounted to the allowed CPUs */
	u32 idle_cpus;		/* allowed CPUs idle with no task */
	u32 pad;
};

/* fair.c enum group_type, the values the fork slow path can see */
enum arbor_group_type {
	GROUP_HAS_SPARE		= 0,
	GROUP_FULLY_BUSY	= 1,
	GROUP_OVERLOADED	= 2,
};

/* enum migration_type of fair.c (misfit is ASYM_MISFIT's, at tick) */
enum arbor_migration {
	MIGRATE_NONE	= 0,	/* balanced: nothing to move */
	MIGRATE_LOAD	= 1,	/* imbalance in load (weight x runnable) */
	MIGRATE_UTIL	= 2,	/* imbalance in utilisation */
	MIGRATE_TASK	= 3,	/* imbalance in number of tasks */
};

/*
 * seed 002: what cache-aware balancing says about moving one task between
 * LLCs (policy.h arbor_cache_lb_task)
 */
enum arbor_llc_lb {
	LLC_LB_ANY	= 0,	/* no opinion: ordinary balancing decides */
	LLC_LB_FORBID	= 1,	/* the move breaks or overloads the task's preferred LLC */
	LLC_LB_PULL	= 2,	/* into its preferred LLC: may move although balanced */
};

/* One CPU of the busiest group, as find_busiest_queue() sees it. */
struct lb_cpu {
	u64 load;
	u64 util;
	u32 nr_running;
	u32 cap;
};

/* What calculate_imbalance() decided: what to move, and how much. */
struct lb_result {
	u32 migration;		/* enum arbor_migration */
	u32 pad;
	u64 imbalance;		/* load, util, or tasks to move */
};

#endif /* __ARBOR_INTF_H */
