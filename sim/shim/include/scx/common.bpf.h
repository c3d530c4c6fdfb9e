/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: the shim that lets a sched_ext BPF scheduler compile natively,
 * unmodified. It stands in for <scx/common.bpf.h> (and the vmlinux.h under
 * it): it gives the kernel types the scheduler reads, the BPF map and
 * iterator macros, and every helper and kfunc the scheduler calls.
 *
 * What it may not do:
 *  - decide anything: every kfunc that touches scheduling state calls the
 *    simulator's model of ext.c / ext_idle.c (sim/src/core/) through the
 *    host table `sim_host`;
 *  - stub silently: a helper, kfunc or map type that is not declared here
 *    is a compile error (implicit declarations are errors in this build),
 *    never a default.
 *
 * Values of the SCX_* constants are the kernel's (include/linux/sched/ext.h,
 * kernel/sched/ext_internal.h, kernel/sched/sched.h of 7.2); see
 * docs/sim/ext-semantics.md.
 */
#ifndef __SIM_SCX_COMMON_BPF_H
#define __SIM_SCX_COMMON_BPF_H

/* intf.h includes <stdint.h> unless vmlinux.h was seen: we are vmlinux.h */
#define __VMLINUX_H__ 1

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef int s32;
typedef unsigned long long u64;
typedef long long s64;
typedef signed char s8;
typedef short s16;
typedef u64 __u64;
typedef u32 __u32;
typedef s32 __s32;
typedef _Bool bool;
/* more of vmlinux.h's and libc's integer types (scx's libraries use them),
 * as glibc defines them: shim.c includes both */
typedef s64 __s64;
typedef u16 __u16;
typedef s16 __s16;
typedef u8 __u8;
typedef s8 __s8;
typedef __SIZE_TYPE__ size_t;
typedef long ssize_t;
typedef int pid_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __INT64_TYPE__ int64_t;
typedef __INT32_TYPE__ int32_t;
#define true 1
#define false 0
#ifndef NULL
#define NULL ((void *)0)
#endif

#define SIM_MAX_CPUS 1024
#define SIM_MAX_TASK_STORAGE 4

#define ENOENT 2
#define ESRCH 3
#define ENOMEM 12
#define EBUSY 16
#define EEXIST 17
#define EINVAL 22
#define E2BIG 7
#define ERANGE 34
#define ENOSPC 28
#define EAGAIN 11
#define ENODEV 19
#define EALREADY 114
#define ECANCELED 125

/* ---- attributes and BPF program-section macros ---- */
#undef __always_inline
#ifdef SIM_CALL_PROFILE
/* scripts/sim-call-profile: every function its own frame, so a call's site is on the stack */
#define __always_inline __attribute__((noinline))
#else
#define __always_inline inline __attribute__((always_inline))
#endif
#define __hidden __attribute__((visibility("hidden")))
#define __weak __attribute__((weak))
/* libbpf's bpf_helpers.h: a global subprogram and its argument tags */
#define __noinline __attribute__((noinline))
#define __arg_trusted
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define barrier() __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define SEC(name)
#define BPF_STRUCT_OPS(name, args...) name(args)
#define BPF_STRUCT_OPS_SLEEPABLE(name, args...) name(args)
/* libbpf's BPF_PROG: the program takes its context (`ctx`, the raw
 * arguments); the sim never runs a tracing program (scx_lavd's fexit and
 * tracepoint programs are compiled, never called: docs/sim/arena.md) */
#define BPF_PROG(name, ...) name(unsigned long long *ctx __VA_OPT__(,) __VA_ARGS__)
#define bpf_printk(fmt, args...) ((void)0)

/* ---- the kernel objects the scheduler reads ---- */
#define PF_IDLE 0x00000002	/* include/linux/sched.h: the idle tasks (swapper/N) */
#define PF_EXITING 0x00000004
#define PF_WQ_WORKER 0x00000020	/* include/linux/sched.h; the sim has no workqueue workers */
#define PF_KTHREAD 0x00200000

struct cpumask {
	u64 bits[SIM_MAX_CPUS / 64];
};

struct signal_struct {
	int nr_threads;
};

struct sched_ext_entity {
	u32 flags;		/* SCX_TASK_* */
	u32 weight;		/* 100 = nice 0 */
	u64 slice;
	u64 dsq_vtime;
	/* read by scx_lavd's ops.dump_task only (never called in the sim):
	 * the core keeps its direct-dispatch verdict elsewhere, so these stay
	 * SCX_DSQ_INVALID / 0, the kernel's values outside a verdict */
	u64 ddsp_dsq_id;
	u64 ddsp_enq_flags;
	/* include/linux/sched/ext.h (7.2): the task's scx id, allocated at
	 * fork (ext.c:4015 scx_fork -> scx_alloc_tid, ext.c:3971-3984); the
	 * shim assigns it when the task first meets the scheduler
	 * (sim_init_task, shim.c) */
	u64 tid;
	/* ops.init_task may set it to keep the task out of sched_ext
	 * (ext.c:3774-3819; sim_init_task checks it) */
	bool disallow;
};

/* include/linux/sched.h: the scheduling entity's fields scx_lavd reads.
 * sum_exec_runtime is kept by the core as update_curr_scx keeps it (at
 * each tick and when the task stops); util_avg is not read by anything
 * the sim compiles and stays 0 (fair.c's PELT does not track sched_ext
 * tasks either) */
struct sched_avg {
	unsigned long util_avg;
};
struct sched_entity {
	u64 sum_exec_runtime;
	struct sched_avg avg;
};
struct css_set;
struct task_group;

struct thread_info {
	u32 cpu;
};

struct task_struct {
	s32 pid;
	s32 tgid;
	u32 flags;		/* PF_* */
	s32 nr_cpus_allowed;
	u16 migration_disabled;
	const struct cpumask *cpus_ptr;
	struct signal_struct *signal;
	struct sched_ext_entity scx;
	/* the simulator's own: its task id, and task-storage slots */
	u32 sim_id;
	struct cpumask cpus_mask;
	void *sim_storage[SIM_MAX_TASK_STORAGE];
	/* read by scx_rusty: its name (error messages) and memory policy
	 * (NULL: the simulated tasks have none, the kernel's default) */
	char comm[16];
	struct mempolicy *mempolicy;
	/* ---- scx_cosmos: read only with options off by default ---- */
	/* user time (ns): read only with --cpu-busy-thresh (busy_threshold,
	 * default 0); the simulator does not account it: always 0 */
	u64 utime;
	/* the address space: read only with --mm-affinity (default off); the
	 * simulated tasks have none modelled: NULL */
	struct mm_struct *mm;
	/* read by scx_lavd (sched/core.c, sched.h): the priorities (120 +
	 * nice for the simulated tasks, from their weight; idle tasks 120, as
	 * init_task's), the parent (one launcher for every simulated task:
	 * the process that started the workload, which the sim does not
	 * schedule; the idle tasks': swapper/0), the scheduling entity, and
	 * the cgroup the task is in (the root: docs/sim/arena.md) */
	int prio;
	int static_prio;
	int normal_prio;
	struct task_struct *real_parent;
	struct sched_entity se;
	struct css_set *cgroups;
	struct task_group *sched_task_group;
	/* THREAD_INFO_IN_TASK: cpu is task_cpu(p) (the simulator keeps it) */
	struct thread_info thread_info;
};

/* include/uapi/linux/mempolicy.h */
enum {
	MPOL_DEFAULT,
	MPOL_PREFERRED,
	MPOL_BIND,
	MPOL_INTERLEAVE,
	MPOL_LOCAL,
	MPOL_PREFERRED_MANY,
	MPOL_WEIGHTED_INTERLEAVE,
};

/* include/linux/mempolicy.h: the fields scx_rusty reads */
struct mempolicy {
	unsigned short mode;
	unsigned short flags;
	int home_node;
	struct {
		unsigned long bits[1];
	} nodes;		/* nodemask_t */
};

struct cgroup;
struct scx_init_task_args {
	bool fork;
	/* the cgroup the task joins: the root (the sim has one cgroup) */
	struct cgroup *cgroup;
};

struct scx_exit_task_args {
	bool cancelled;
};

struct scx_exit_info {
	s64 kind;
	s64 exit_code;
	const char *reason;
	const char *msg;
};

struct bpf_spin_lock {
	u32 val;
};

struct bpf_timer {
	void *cb;
	void *map;
	u64 sim_armed;
};

/* ---- the sched_ext constants (values as in the kernel) ---- */
#define SCX_DSQ_FLAG_BUILTIN	(1ULL << 63)
#define SCX_DSQ_FLAG_LOCAL_ON	(1ULL << 62)
#define SCX_DSQ_INVALID		(SCX_DSQ_FLAG_BUILTIN | 0)
#define SCX_DSQ_GLOBAL		(SCX_DSQ_FLAG_BUILTIN | 1)
#define SCX_DSQ_LOCAL		(SCX_DSQ_FLAG_BUILTIN | 2)
#define SCX_DSQ_LOCAL_ON	(SCX_DSQ_FLAG_BUILTIN | SCX_DSQ_FLAG_LOCAL_ON)
#define SCX_DSQ_LOCAL_CPU_MASK	0xffffffffULL

#define SCX_SLICE_DFL		(20ULL * 1000000)
#define SCX_SLICE_INF		(~0ULL)

/* wake flags: the kernel's WF_* */
#define SCX_WAKE_FORK		0x04
#define SCX_WAKE_TTWU		0x08
#define SCX_WAKE_SYNC		0x10

#define SCX_ENQ_WAKEUP		(1ULL << 0)
#define SCX_ENQ_HEAD		(1ULL << 4)
#define SCX_ENQ_CPU_SELECTED	(1ULL << 10)
#define SCX_ENQ_PREEMPT		(1ULL << 32)
#define SCX_ENQ_IMMED		(1ULL << 33)	/* 7.2: run now or go back to ops.enqueue */
#define SCX_ENQ_REENQ		(1ULL << 40)
#define SCX_ENQ_LAST		(1ULL << 41)
#define SCX_ENQ_DSQ_PRIQ	(1ULL << 57)

#define SCX_DEQ_SLEEP		(1ULL << 0)
#define SCX_DEQ_SCHED_CHANGE	(1ULL << 33)	/* 7.2: a property change, not a sleep (ext.c:2193-2197) */

#define SCX_KICK_IDLE		(1ULL << 0)
#define SCX_KICK_PREEMPT	(1ULL << 1)
#define SCX_KICK_WAIT		(1ULL << 2)

#define SCX_PICK_IDLE_CORE	(1ULL << 0)
#define SCX_PICK_IDLE_IN_NODE	(1ULL << 1)

#define SCX_TASK_QUEUED		(1U << 0)

#define SCX_OPS_KEEP_BUILTIN_IDLE	(1ULL << 0)
#define SCX_OPS_ENQ_LAST		(1ULL << 1)
#define SCX_OPS_ENQ_EXITING		(1ULL << 2)
#define SCX_OPS_SWITCH_PARTIAL		(1ULL << 3)
#define SCX_OPS_ENQ_MIGRATION_DISABLED	(1ULL << 4)
#define SCX_OPS_ALLOW_QUEUED_WAKEUP	(1ULL << 5)
#define SCX_OPS_BUILTIN_IDLE_PER_NODE	(1ULL << 6)

#define CLOCK_MONOTONIC 1
#define BPF_F_NO_PREALLOC (1U << 0)
#define BPF_ANY 0
#define BPF_NOEXIST 1
#define BPF_EXIST 2
#define BPF_LOCAL_STORAGE_GET_F_CREATE (1ULL << 0)

/* ---- struct_ops: the callbacks the simulator calls ---- */
/* ext.c / internal.h (7.2) */
enum scx_cpu_preempt_reason {
	SCX_CPU_PREEMPT_RT,
	SCX_CPU_PREEMPT_DL,
	SCX_CPU_PREEMPT_STOP,
	SCX_CPU_PREEMPT_UNKNOWN,
};
struct scx_cpu_release_args {
	enum scx_cpu_preempt_reason reason;
	struct task_struct *task;
};
struct scx_cpu_acquire_args {};
struct scx_dump_ctx {
	s64 kind;
	s64 exit_code;
	const char *reason;
	u64 at_ns;
	u64 at_jiffies;
};
struct scx_cgroup_init_args {
	u32 weight;
	u64 bw_period_us;
	u64 bw_quota_us;
	u64 bw_burst_us;
};
struct sched_ext_ops {
	s32 (*select_cpu)(struct task_struct *p, s32 prev_cpu, u64 wake_flags);
	void (*enqueue)(struct task_struct *p, u64 enq_flags);
	void (*dequeue)(struct task_struct *p, u64 deq_flags);
	void (*dispatch)(s32 cpu, struct task_struct *prev);
	void (*tick)(struct task_struct *p);
	void (*runnable)(struct task_struct *p, u64 enq_flags);
	void (*running)(struct task_struct *p);
	void (*stopping)(struct task_struct *p, bool runnable);
	void (*quiescent)(struct task_struct *p, u64 deq_flags);
	void (*update_idle)(s32 cpu, bool idle);
	s32 (*init_task)(struct task_struct *p, struct scx_init_task_args *args);
	void (*exit_task)(struct task_struct *p, struct scx_exit_task_args *args);
	void (*enable)(struct task_struct *p);
	void (*disable)(struct task_struct *p);
	void (*cpu_online)(s32 cpu);
	void (*cpu_offline)(s32 cpu);
	s32 (*init)(void);
	void (*exit)(struct scx_exit_info *ei);
	u64 flags;
	u32 timeout_ms;
	u32 exit_dump_len;
	const char *name;
	/* the simulated workloads never change affinity: never called */
	void (*set_cpumask)(struct task_struct *p, const struct cpumask *cpumask);
	/* called after ops.enable, as __scx_enable_task (ext.c:3849-3853) */
	void (*set_weight)(struct task_struct *p, u32 weight);
	/* ---- added for scx_lavd (docs/sim/arena.md) ---- */
	/* when an RT task (SCHED_FIFO/RR: core/rt.rs) takes the CPU from
	 * sched_ext (ext.c switch_class) */
	void (*cpu_release)(s32 cpu, struct scx_cpu_release_args *args);
	/* the error-exit dump (scx_dump_state): the sim prints no dumps */
	void (*dump)(struct scx_dump_ctx *ctx);
	void (*dump_task)(struct scx_dump_ctx *ctx, struct task_struct *p);
	/* the cgroup ops: for the root cgroup only, as scx_cgroup_init /
	 * scx_cgroup_exit call them at enable / disable (ext.c:5028-5062,
	 * 5004-5025); cpu.max comes in cgroup_init's args; no task ever moves */
	s32 (*cgroup_init)(struct cgroup *cgrp, struct scx_cgroup_init_args *args);
	void (*cgroup_exit)(struct cgroup *cgrp);
	s32 (*cgroup_prep_move)(struct task_struct *p, struct cgroup *from, struct cgroup *to);
	void (*cgroup_move)(struct task_struct *p, struct cgroup *from, struct cgroup *to);
	void (*cgroup_cancel_move)(struct task_struct *p, struct cgroup *from, struct cgroup *to);
	void (*cgroup_set_weight)(struct cgroup *cgrp, u32 weight);
	void (*cgroup_set_bandwidth)(struct cgroup *cgrp, u64 period_us, u64 quota_us, u64 burst_us);
	/* never called (the kernel's maximal selftest defines them) */
	bool (*yield)(struct task_struct *from, struct task_struct *to);
	bool (*core_sched_before)(struct task_struct *a, struct task_struct *b);
	/* when the CPU comes back to sched_ext after an RT task
	 * (balance_one, ext.c:2951-2962); args is NULL as there */
	void (*cpu_acquire)(s32 cpu, struct scx_cpu_acquire_args *args);
	/* a cpu.idle write (scx_group_set_idle, ext.c:4744-4757) */
	void (*cgroup_set_idle)(struct cgroup *cgrp, bool idle);
};

#define SCX_OPS_DEFINE(__name, ...) struct sched_ext_ops __name = { __VA_ARGS__ }

/* user_exit_info: what the loader reads after an ejection */
struct user_exit_info {
	s64 kind;
	s64 exit_code;
	char reason[128];
	char msg[1024];
};
#define UEI_DEFINE(__name) struct user_exit_info __name
#define UEI_RECORD(__uei, __ei) sim_uei_record(&(__uei), (__ei))

/* ---- the host: the simulator's model of the sched_ext core ---- */
struct bpf_iter_scx_dsq {
	u64 handle;
	/* bpf_iter_scx_dsq_kern's slice / vtime overrides and their
	 * __SCX_DSQ_ITER_HAS_* flags (scx_bpf_dsq_move_set_slice/_vtime) */
	u64 slice;
	u64 vtime;
	u32 flags;
};

struct sim_host {
	void *ctx;
	u64 (*ktime)(void *ctx);
	s32 (*this_cpu)(void *ctx);
	struct task_struct *(*current)(void *ctx);
	s32 (*task_cpu)(void *ctx, const struct task_struct *p);
	void (*dsq_insert)(void *ctx, struct task_struct *p, u64 dsq, u64 slice, u64 vtime,
			   u64 enq_flags, bool vtime_ordered);
	bool (*dsq_move_to_local)(void *ctx, u64 dsq, u64 enq_flags);
	s32 (*dsq_nr_queued)(void *ctx, u64 dsq);
	s32 (*create_dsq)(void *ctx, u64 dsq, s32 node);
	void (*kick_cpu)(void *ctx, s32 cpu, u64 flags);
	bool (*test_and_clear_cpu_idle)(void *ctx, s32 cpu);
	s32 (*pick_idle_cpu)(void *ctx, const struct cpumask *mask, u64 flags);
	s32 (*pick_any_cpu)(void *ctx, const struct cpumask *mask, u64 flags);
	const struct cpumask *(*get_idle_cpumask)(void *ctx);
	const struct cpumask *(*get_idle_smtmask)(void *ctx);
	void (*put_idle_cpumask)(void *ctx, const struct cpumask *mask);
	void (*error)(void *ctx, const char *msg);
	u64 (*iter_new)(void *ctx, u64 dsq, u64 flags);
	struct task_struct *(*iter_next)(void *ctx, u64 handle);
	void (*iter_destroy)(void *ctx, u64 handle);
	bool (*dsq_move)(void *ctx, u64 handle, struct task_struct *p, u64 dsq, u64 enq_flags);
	s32 (*timer_start)(void *ctx, struct bpf_timer *timer, u64 nsecs, u64 flags);
	/* per-CPU arrays need the number of CPU slots */
	u32 nr_cpu_slots;
	/* ---- added for the peers (scx_bpfland, ...): see the peers section below ---- */
	u32 nr_nodes;
	s32 (*select_cpu_and)(void *ctx, struct task_struct *p, s32 prev_cpu, u64 wake_flags,
			      const struct cpumask *allowed, u64 flags);
	const struct cpumask *(*get_idle_mask_node)(void *ctx, s32 node, bool smt);
	s32 (*host_cpu_node)(void *ctx, s32 cpu);
	s32 (*host_cpu_llc)(void *ctx, s32 cpu);
	const struct cpumask *(*online_cpumask)(void *ctx);
	bool (*task_running)(void *ctx, const struct task_struct *p);
	struct task_struct *(*dsq_peek)(void *ctx, u64 dsq);
	void (*cpuperf_set)(void *ctx, s32 cpu, u32 perf);
	/* ---- added for scx's arena library and p2dq ---- */
	struct task_struct *(*task_from_pid)(void *ctx, s32 pid);
	u32 (*prandom)(void *ctx);
	u32 (*any_distribute)(void *ctx, const struct cpumask *mask);
	/* ---- added for scx_cosmos: scx_bpf_cpu_curr ---- */
	struct task_struct *(*cpu_curr)(void *ctx, s32 cpu);
	/* ---- added for scx_cosmos: scx_bpf_pick_idle_cpu_node ---- */
	s32 (*pick_idle_cpu_node)(void *ctx, const struct cpumask *mask, s32 node, u64 flags);
	/* ---- added for scx_lavd ---- */
	u64 (*clock_task)(void *ctx, u32 cpu);
	u64 (*clock_pelt)(void *ctx, u32 cpu);
	u32 (*cpuperf_cap)(void *ctx, s32 cpu);
	/* ---- added for the kernel's selftests: scx_bpf_exit() ---- */
	void (*exit_bpf)(void *ctx, s64 code, const char *msg);
	void (*destroy_dsq)(void *ctx, u64 dsq);
	/* ---- added for scx_qmap (the cid interface, 7.2) ---- */
	/* the first CPU of cpu's core (topology_sibling_cpumask's first) */
	s32 (*cpu_core_id)(void *ctx, s32 cpu);
	/* scx_bpf_dispatch_nr_slots() */
	u32 (*dispatch_nr_slots)(void *ctx);
};

extern struct sim_host *sim_host __hidden;
/* helper and kfunc calls made inside the current callback (the cost model) */
extern u64 sim_nr_calls;
#ifdef SIM_CALL_PROFILE
/* shim.c: count the call under the stack of its sites (scripts/sim-call-profile) */
void sim_call_profile_hit(void) __hidden;
#define SIM_COUNT_CALL() (sim_nr_calls++, sim_call_profile_hit())
#else
#define SIM_COUNT_CALL() (sim_nr_calls++)
#endif

void *sim_calloc(u64 n, u64 size) __hidden;
void sim_uei_record(struct user_exit_info *uei, const struct scx_exit_info *ei) __hidden;
void sim_errorf(const char *fmt, ...) __hidden __attribute__((format(printf, 1, 2)));
void sim_exitf(s64 code, const char *fmt, ...) __hidden __attribute__((format(printf, 2, 3)));

#define SIM_CALL(fn, args...) (SIM_COUNT_CALL(), sim_host->fn(sim_host->ctx, ##args))

/* ---- BPF helpers ---- */
static __always_inline u64 bpf_ktime_get_ns(void) { return SIM_CALL(ktime); }
static __always_inline u32 bpf_get_smp_processor_id(void) { return SIM_CALL(this_cpu); }
static __always_inline struct task_struct *bpf_get_current_task_btf(void) { return SIM_CALL(current); }
/* one CPU runs at a time in the simulator: a spin lock is never contended */
static __always_inline void bpf_spin_lock(struct bpf_spin_lock *l) { SIM_COUNT_CALL(); l->val = 1; }
static __always_inline void bpf_spin_unlock(struct bpf_spin_lock *l) { SIM_COUNT_CALL(); l->val = 0; }

/* ---- cpumask kfuncs ---- */
static __always_inline bool bpf_cpumask_test_cpu(u32 cpu, const struct cpumask *m)
{
	SIM_COUNT_CALL();
	return cpu < SIM_MAX_CPUS && (m->bits[cpu / 64] >> (cpu % 64)) & 1;
}

/*
 * ---- cids (kernel/sched/ext/cid.h, cid.c of 7.2) ----
 * shim.c holds the cpu <-> cid tables, built before ops.init as
 * scx_cid_init() builds them (cid.c:80-222, called at ext.c:7426 for
 * every root scheduler), and sim_cid_form: the program is a cid-form
 * scheduler (struct sched_ext_ops_cid, sched_ksft.c's adapter), for which
 * ext.c reads the CPU of SCX_DSQ_LOCAL_ON | n as a cid (scx_cpu_ret,
 * cid.h:287-292, at ext.c:1767 and 9773).
 */
/* (visible: the simulator's tests read them) */
extern s16 sim_cid_to_cpu_tbl[SIM_MAX_CPUS];
extern s16 sim_cpu_to_cid_tbl[SIM_MAX_CPUS];
extern bool sim_cid_form __hidden;
/* cid_valid() (cid.h:79-85): [0, num_possible_cpus()), else an error */
static __always_inline bool sim_cid_valid(s32 cid)
{
	if (cid >= 0 && (u32)cid < sim_host->nr_cpu_slots)
		return true;
	sim_errorf("invalid cid %d", cid);
	return false;
}
/* scx_cid_to_cpu() (cid.h:122-127) */
static __always_inline s32 sim_cid_to_cpu(s32 cid)
{
	return sim_cid_valid(cid) ? sim_cid_to_cpu_tbl[cid] : -EINVAL;
}
/* the DSQ id a kfunc sees: for a cid-form program, SCX_DSQ_LOCAL_ON | cid
 * names the local DSQ of that cid's CPU (find_dsq_for_dispatch, ext.c:1766-1772:
 * scx_cpu_ret; an invalid cid is an error and the global DSQ) */
static __always_inline u64 sim_dsq_arg(u64 dsq)
{
	s32 cpu;

	if (!sim_cid_form || (dsq & SCX_DSQ_LOCAL_ON) != SCX_DSQ_LOCAL_ON)
		return dsq;
	cpu = sim_cid_to_cpu((s32)(dsq & SCX_DSQ_LOCAL_CPU_MASK));
	return cpu < 0 ? SCX_DSQ_GLOBAL : (SCX_DSQ_LOCAL_ON | (u32)cpu);
}

/* ---- sched_ext kfuncs (kernel/sched/ext.c, ext_idle.c) ---- */
static __always_inline s32 scx_bpf_task_cpu(const struct task_struct *p) { return SIM_CALL(task_cpu, p); }
static __always_inline void scx_bpf_dsq_insert(struct task_struct *p, u64 dsq, u64 slice, u64 enq_flags)
{
	SIM_CALL(dsq_insert, p, sim_dsq_arg(dsq), slice, 0, enq_flags, false);
}
static __always_inline void scx_bpf_dsq_insert_vtime(struct task_struct *p, u64 dsq, u64 slice,
						     u64 vtime, u64 enq_flags)
{
	SIM_CALL(dsq_insert, p, sim_dsq_arg(dsq), slice, vtime, enq_flags, true);
}
/* 7.2 takes enq_flags too (scx_bpf_dsq_move_to_local(dsq_id, enq_flags)) */
static __always_inline bool scx_bpf_dsq_move_to_local(u64 dsq, u64 enq_flags)
{
	return SIM_CALL(dsq_move_to_local, dsq, enq_flags);
}
static __always_inline s32 scx_bpf_dsq_nr_queued(u64 dsq) { return SIM_CALL(dsq_nr_queued, sim_dsq_arg(dsq)); }
static __always_inline s32 scx_bpf_create_dsq(u64 dsq, s32 node) { return SIM_CALL(create_dsq, dsq, node); }
static __always_inline void scx_bpf_destroy_dsq(u64 dsq) { SIM_CALL(destroy_dsq, dsq); }
static __always_inline void scx_bpf_kick_cpu(s32 cpu, u64 flags) { SIM_CALL(kick_cpu, cpu, flags); }
static __always_inline bool scx_bpf_test_and_clear_cpu_idle(s32 cpu) { return SIM_CALL(test_and_clear_cpu_idle, cpu); }
static __always_inline s32 scx_bpf_pick_idle_cpu(const struct cpumask *m, u64 flags) { return SIM_CALL(pick_idle_cpu, m, flags); }
static __always_inline s32 scx_bpf_pick_any_cpu(const struct cpumask *m, u64 flags) { return SIM_CALL(pick_any_cpu, m, flags); }
static __always_inline const struct cpumask *scx_bpf_get_idle_cpumask(void) { return SIM_CALL(get_idle_cpumask); }
static __always_inline const struct cpumask *scx_bpf_get_idle_smtmask(void) { return SIM_CALL(get_idle_smtmask); }
static __always_inline void scx_bpf_put_idle_cpumask(const struct cpumask *m) { SIM_CALL(put_idle_cpumask, m); }
#define scx_bpf_error(fmt, args...) sim_errorf(fmt, ##args)

static __always_inline bool is_migration_disabled(const struct task_struct *p)
{
	return p->migration_disabled;
}

/* ---- CO-RE reads: plain loads natively ---- */
#define BPF_CORE_READ(src, a, ...) ((src)->a __VA_OPT__(->) __VA_ARGS__)
/* bpf_core_read(dst, sz, src): bpf_probe_read_kernel, a copy natively */
#define bpf_core_read(dst, sz, src) (__builtin_memcpy((dst), (src), (sz)), 0)

/* ---- open-coded iterators ---- */
#define bpf_for(i, start, end) for ((i) = (start); (i) < (end); (i)++)
/* bpf_repeat(N): bpf_experimental.h's numbers iterator over [0, N) */
#define bpf_repeat(N) for (int ___r = 0; ___r < (N); ___r++)

/* enum scx_dsq_iter_flags (ext.c:553-562) */
#define SCX_DSQ_ITER_REV		(1U << 16)
#define __SCX_DSQ_ITER_HAS_SLICE	(1U << 30)
#define __SCX_DSQ_ITER_HAS_VTIME	(1U << 31)
static __always_inline void sim_iter_scx_dsq_destroy(struct bpf_iter_scx_dsq *it)
{
	SIM_CALL(iter_destroy, it->handle);
}
#define bpf_for_each(type, cur, args...)                                                    \
	for (struct bpf_iter_##type ___it __attribute__((cleanup(sim_iter_##type##_destroy))) = \
		     { .handle = sim_iter_##type##_new(args) };                                  \
	     ((cur) = sim_iter_##type##_next(&___it));)
#define BPF_FOR_EACH_ITER (&___it)
/* bpf_iter_scx_dsq_new: the core iterates in dispatch order only;
 * SCX_DSQ_ITER_REV (reverse order) is not modelled: an error, never the
 * other order silently */
static __always_inline u64 sim_iter_scx_dsq_new(u64 dsq, u64 flags)
{
	if (flags & SCX_DSQ_ITER_REV)
		sim_errorf("bpf_iter_scx_dsq_new: SCX_DSQ_ITER_REV is not modelled in the sim");
	return SIM_CALL(iter_new, dsq, flags);
}
static __always_inline struct task_struct *sim_iter_scx_dsq_next(struct bpf_iter_scx_dsq *it)
{
	return SIM_CALL(iter_next, it->handle);
}
/*
 * scx_dsq_move() (ext.c:9104-9202): the iterator's slice / vtime overrides
 * (scx_bpf_dsq_move_set_slice / _vtime, ext.c:9334-9360) reach the task
 * only once it is known to be still on the source DSQ (ext.c:9178-9186,
 * applied for a plain move too), and are cleared after every call, moved
 * or not (ext.c:9200-9201). The core moves the task with its
 * p->scx.slice / dsq_vtime, so the shim writes them first and puts the
 * old values back when the task had left the DSQ (no move).
 */
static __always_inline bool sim_dsq_move(struct bpf_iter_scx_dsq *it, struct task_struct *p,
					 u64 dsq, u64 enq_flags)
{
	u64 slice = p->scx.slice, vtime = p->scx.dsq_vtime;
	bool moved;

	if (it->flags & __SCX_DSQ_ITER_HAS_VTIME)
		p->scx.dsq_vtime = it->vtime;
	if (it->flags & __SCX_DSQ_ITER_HAS_SLICE)
		p->scx.slice = it->slice;
	moved = SIM_CALL(dsq_move, it->handle, p, sim_dsq_arg(dsq), enq_flags);
	if (!moved) {
		p->scx.slice = slice;
		p->scx.dsq_vtime = vtime;
	}
	it->flags &= ~(__SCX_DSQ_ITER_HAS_SLICE | __SCX_DSQ_ITER_HAS_VTIME);
	return moved;
}
static __always_inline bool scx_bpf_dsq_move(struct bpf_iter_scx_dsq *it, struct task_struct *p,
					     u64 dsq, u64 enq_flags)
{
	return sim_dsq_move(it, p, dsq, enq_flags);
}
static __always_inline void scx_bpf_dsq_move_set_slice(struct bpf_iter_scx_dsq *it, u64 slice)
{
	SIM_COUNT_CALL();
	it->slice = slice;
	it->flags |= __SCX_DSQ_ITER_HAS_SLICE;
}
static __always_inline void scx_bpf_dsq_move_set_vtime(struct bpf_iter_scx_dsq *it, u64 vtime)
{
	SIM_COUNT_CALL();
	it->vtime = vtime;
	it->flags |= __SCX_DSQ_ITER_HAS_VTIME;
}

/* ---- timers ---- */
static __always_inline long bpf_timer_init(struct bpf_timer *t, void *map, u64 flags)
{
	SIM_COUNT_CALL();
	t->map = map;
	return 0;
}
#define bpf_timer_set_callback(t, fn) (SIM_COUNT_CALL(), (t)->cb = (void *)(fn), 0)
static __always_inline long bpf_timer_start(struct bpf_timer *t, u64 nsecs, u64 flags)
{
	return SIM_CALL(timer_start, t, nsecs, flags);
}

/*
 * ---- maps ----
 * A map is declared as in BPF: a struct whose members only carry types and
 * sizes (`__uint(max_entries, N)` is `int (*max_entries)[N]`). Natively the
 * `value` member is a real pointer slot: the map's storage hangs there,
 * allocated on first use. Only the map types below are modelled; any other
 * BPF_MAP_TYPE_* name does not exist here and fails the build.
 */
enum sim_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERF_EVENT_ARRAY = 4,	/* scx's lib/pmu.bpf.c (scx_cosmos) */
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_QUEUE = 22,	/* the kernel's dsp_local_on selftest */
	BPF_MAP_TYPE_STACK = 23,
	BPF_MAP_TYPE_RINGBUF = 27,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
	BPF_MAP_TYPE_ARENA = 33,
};

/*
 * __uint(name, val): the member named `name` (each name libbpf knows that a
 * program here uses has its own definition; any other fails the build);
 * libbpf's key_size / value_size declare the key and value as that many
 * bytes, the same members as __type(key / value, ...).
 */
#define __uint(name, val) SIM_UINT_##name(val)
#define SIM_UINT_type(val) int (*type)[val]
#define SIM_UINT_max_entries(val) int (*max_entries)[val]
#define SIM_UINT_map_flags(val) int (*map_flags)[val]
#define SIM_UINT_key_size(val) char (*key)[val]
#define SIM_UINT_value_size(val) char (*value)[val]
#define __type(name, val) __typeof__(val) *name
#define __array(name, val) __typeof__(val) *name[]
/* libbpf's __ulong (map_extra): a size, as __uint, in bytes */
#define __ulong(name, val) char (*name)[val]

#define SIM_MAP_TYPE(m) ((int)(sizeof(*(m)->type) / sizeof(int)))
#define SIM_MAP_MAX(m) ((u32)(sizeof(*(m)->max_entries) / sizeof(int)))
#define SIM_MAP_KSZ(m) ((u32)sizeof(*(m)->key))
#define SIM_MAP_VSZ(m) ((u32)sizeof(*(m)->value))
#define SIM_MAP_SLOT(m) ((void **)&(m)->value)

void *sim_hash_lookup(void **slot, u32 max, u32 ksz, u32 vsz, const void *key) __hidden;
long sim_hash_update(void **slot, u32 max, u32 ksz, u32 vsz, const void *key, const void *val,
		     u64 flags) __hidden;
long sim_hash_delete(void **slot, u32 ksz, const void *key) __hidden;
void *sim_task_storage(void **slot, u32 vsz, struct task_struct *p, u64 flags) __hidden;

/*
 * A map reached through a `void *` (scx_rusty: `void *map = &m;
 * bpf_map_lookup_elem(map, ...)`) has lost the declared type the macros
 * read its sizes from. SIM_M() gives such a pointer a type whose sizes are
 * all 0 (type 0: no map type); the lookup then takes the map's sizes and
 * storage from the program's table of untyped maps (sim_untyped_maps, in
 * the peer's fields_<name>.h: SIM_MAP_DESC(m) for each map it passes as
 * `void *`), by address. A map not in it is a scheduler error.
 */
struct sim_anymap {
	int (*type)[0];
	int (*max_entries)[0];
	char (*key)[0];
	char (*value)[0];
};
#define SIM_M(m) _Generic((m), void *: (struct sim_anymap *)(m), default: (m))
struct sim_map_desc {
	const void *map;
	int type;
	u32 max, ksz, vsz;
	void **slot;
};
#define SIM_MAP_DESC(m) { &(m), SIM_MAP_TYPE(&(m)), SIM_MAP_MAX(&(m)), SIM_MAP_KSZ(&(m)), SIM_MAP_VSZ(&(m)), SIM_MAP_SLOT(&(m)) }
extern const struct sim_map_desc sim_untyped_maps[] __attribute__((weak));
extern const u32 sim_nr_untyped_maps __attribute__((weak));

static __always_inline int sim_map_untyped(const void *m, void ***slot, int *type, u32 *max,
					   u32 *ksz, u32 *vsz)
{
	u32 i;

	if (&sim_nr_untyped_maps)
		for (i = 0; i < sim_nr_untyped_maps; i++) {
			const struct sim_map_desc *d = &sim_untyped_maps[i];

			if (d->map == m) {
				*slot = d->slot;
				*type = d->type;
				*max = d->max;
				*ksz = d->ksz;
				*vsz = d->vsz;
				return 0;
			}
		}
	sim_errorf("a map passed as void * is not in the program's sim_untyped_maps");
	return -1;
}

static __always_inline void *sim_map_lookup(void **slot, int type, u32 max, u32 ksz, u32 vsz,
					    const void *key)
{
	u32 k;

	SIM_COUNT_CALL();
	if (!type && sim_map_untyped((const void *)slot, &slot, &type, &max, &ksz, &vsz))
		return NULL;
	switch (type) {
	case BPF_MAP_TYPE_ARRAY:
		k = *(const u32 *)key;
		if (k >= max)
			return NULL;
		if (!*slot)
			*slot = sim_calloc(max, vsz);
		return (char *)*slot + (u64)k * vsz;
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		k = *(const u32 *)key;
		if (k >= max)
			return NULL;
		if (!*slot)
			*slot = sim_calloc((u64)max * sim_host->nr_cpu_slots, vsz);
		return (char *)*slot +
		       ((u64)sim_host->this_cpu(sim_host->ctx) * max + k) * vsz;
	case BPF_MAP_TYPE_HASH:
		return sim_hash_lookup(slot, max, ksz, vsz, key);
	default:
		sim_errorf("bpf_map_lookup_elem: map type %d has no model", type);
		return NULL;
	}
}

/* an untyped map (type 0) passes its own address where the slot goes */
#define SIM_MAP_SLOT_OR_SELF(m) (SIM_MAP_TYPE(SIM_M(m)) ? SIM_MAP_SLOT(SIM_M(m)) : (void **)(m))
#define bpf_map_lookup_elem(m, k)                                                           \
	sim_map_lookup(SIM_MAP_SLOT_OR_SELF(m), SIM_MAP_TYPE(SIM_M(m)), SIM_MAP_MAX(SIM_M(m)), \
		       SIM_MAP_KSZ(SIM_M(m)), SIM_MAP_VSZ(SIM_M(m)), (k))

/* a compile-time check inside an expression: a negative array size fails the build */
#define SIM_BUILD_CHECK(cond) ((void)sizeof(char[(cond) ? 1 : -1]))

/*
 * Updates and deletes: hash maps, and arrays as kernel/bpf/arraymap.c does
 * them: array_map_update_elem: flags past BPF_EXIST -EINVAL, an index past
 * the end -E2BIG, BPF_NOEXIST -EEXIST (every element exists), else the
 * value is copied in; array_map_delete_elem: -EINVAL.
 */
static __always_inline long sim_array_update(void **slot, u32 max, u32 vsz, const void *key,
					     const void *val, u64 flags)
{
	u32 k = *(const u32 *)key;

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (k >= max)
		return -E2BIG;
	if (flags == BPF_NOEXIST)
		return -EEXIST;
	if (!*slot)
		*slot = sim_calloc(max, vsz);
	__builtin_memcpy((char *)*slot + (u64)k * vsz, val, vsz);
	return 0;
}
#define bpf_map_update_elem(m, k, v, f)                                                     \
	(SIM_BUILD_CHECK(SIM_MAP_TYPE(m) == BPF_MAP_TYPE_HASH ||                             \
			 SIM_MAP_TYPE(m) == BPF_MAP_TYPE_ARRAY), SIM_COUNT_CALL(),             \
	 SIM_MAP_TYPE(m) == BPF_MAP_TYPE_ARRAY ?                                             \
		 sim_array_update(SIM_MAP_SLOT(m), SIM_MAP_MAX(m), SIM_MAP_VSZ(m), (k), (v), (f)) : \
		 sim_hash_update(SIM_MAP_SLOT(m), SIM_MAP_MAX(m), SIM_MAP_KSZ(m), SIM_MAP_VSZ(m), (k), (v), (f)))

#define bpf_map_delete_elem(m, k)                                            \
	(SIM_BUILD_CHECK(SIM_MAP_TYPE(m) == BPF_MAP_TYPE_HASH ||              \
			 SIM_MAP_TYPE(m) == BPF_MAP_TYPE_ARRAY), SIM_COUNT_CALL(), \
	 SIM_MAP_TYPE(m) == BPF_MAP_TYPE_ARRAY ? (long)-EINVAL :             \
						  sim_hash_delete(SIM_MAP_SLOT(m), SIM_MAP_KSZ(m), (k)))

/*
 * Queue and stack maps (kernel/bpf/queue_stack_maps.c): push adds at the
 * tail; when full, -E2BIG unless BPF_EXIST, which first drops the oldest
 * element (BPF_NOEXIST or flags past BPF_EXIST: -EINVAL); pop / peek take (and pop
 * removes) the oldest element of a queue, the newest of a stack; empty:
 * -ENOENT.
 */
long sim_queue_push(void **slot, u32 max, u32 vsz, const void *val, u64 flags) __hidden;
long sim_queue_pop(void **slot, u32 vsz, void *val, bool stack, bool peek) __hidden;
#define SIM_IS_QUEUE(m) \
	(SIM_MAP_TYPE(m) == BPF_MAP_TYPE_QUEUE || SIM_MAP_TYPE(m) == BPF_MAP_TYPE_STACK)
#define bpf_map_push_elem(m, v, f) \
	(SIM_BUILD_CHECK(SIM_IS_QUEUE(m)), SIM_COUNT_CALL(), \
	 sim_queue_push(SIM_MAP_SLOT(m), SIM_MAP_MAX(m), SIM_MAP_VSZ(m), (v), (f)))
#define bpf_map_pop_elem(m, v) \
	(SIM_BUILD_CHECK(SIM_IS_QUEUE(m)), SIM_COUNT_CALL(), \
	 sim_queue_pop(SIM_MAP_SLOT(m), SIM_MAP_VSZ(m), (v), SIM_MAP_TYPE(m) == BPF_MAP_TYPE_STACK, false))
#define bpf_map_peek_elem(m, v) \
	(SIM_BUILD_CHECK(SIM_IS_QUEUE(m)), SIM_COUNT_CALL(), \
	 sim_queue_pop(SIM_MAP_SLOT(m), SIM_MAP_VSZ(m), (v), SIM_MAP_TYPE(m) == BPF_MAP_TYPE_STACK, true))

/* bpf_task_storage_delete: bpf_task_storage_delete -> task_storage_delete:
 * -ENOENT if the task has no entry, else the entry is freed */
long sim_task_storage_delete(void **slot, struct task_struct *p) __hidden;
#define bpf_task_storage_delete(m, p) \
	(SIM_BUILD_CHECK(SIM_MAP_TYPE(m) == BPF_MAP_TYPE_TASK_STORAGE), SIM_COUNT_CALL(), \
	 sim_task_storage_delete(SIM_MAP_SLOT(m), (p)))

#define bpf_task_storage_get(m, p, init, flags) \
	(SIM_BUILD_CHECK(SIM_MAP_TYPE(m) == BPF_MAP_TYPE_TASK_STORAGE), SIM_COUNT_CALL(), \
	 sim_task_storage(SIM_MAP_SLOT(m), SIM_MAP_VSZ(m), (p), (flags)))

/*
 * ---- for the peers (scx_bpfland, scx_cosmos, ...) ----
 * What the real <scx/common.bpf.h>, <scx/compat.bpf.h> and the kernel's
 * cpumask / sched_ext kfuncs give a peer's BPF C, written for the sim.
 * The modelled kernel is 7.2 (docs/sim/ext-semantics.md): every compat
 * wrapper takes its 7.2 branch.
 */
#define __kptr
#define __percpu_kptr
#define private(name) __attribute__((aligned(8)))
#define SCX_CPUPERF_ONE 1024
#define NUMA_NO_NODE (-1)
#define EOPNOTSUPP 95

/* struct bpf_cpumask (kernel/bpf/cpumask.c): a cpumask and a refcount */
struct bpf_cpumask {
	struct cpumask cpumask;
	int usage;
};

/* common.bpf.h: the read-only view of a bpf_cpumask */
static __always_inline const struct cpumask *cast_mask(struct bpf_cpumask *mask)
{
	return (const struct cpumask *)mask;
}

/* common.bpf.h: wrap-safe time comparisons */
static __always_inline bool time_after(u64 a, u64 b) { return (s64)(b - a) < 0; }
static __always_inline bool time_before(u64 a, u64 b) { return time_after(b, a); }
static __always_inline bool time_after_eq(u64 a, u64 b) { return (s64)(a - b) >= 0; }
static __always_inline bool time_before_eq(u64 a, u64 b) { return time_after_eq(b, a); }

/* common.bpf.h: weight scaling (100 = nice 0) */
static __always_inline u64 scale_by_task_weight(const struct task_struct *p, u64 value)
{
	return (value * p->scx.weight) / 100;
}
static __always_inline u64 scale_by_task_weight_inverse(const struct task_struct *p, u64 value)
{
	return value * 100 / p->scx.weight;
}

/* RCU read sections: one CPU runs at a time in the simulator */
static __always_inline void bpf_rcu_read_lock(void) {}
static __always_inline void bpf_rcu_read_unlock(void) {}

/* bpf_kptr_xchg: swaps a referenced pointer into a map value */
#define bpf_kptr_xchg(pp, v) (SIM_COUNT_CALL(), __atomic_exchange_n((pp), (v), __ATOMIC_SEQ_CST))

/*
 * cpumask kfuncs (kernel/bpf/cpumask.c). A CPU id is valid below
 * nr_cpu_ids (cpu_valid()); "first" of an empty mask is nr_cpu_ids
 * (cpumask_first()).
 */
static __always_inline u32 sim_nr_cpu_ids(void) { return sim_host->nr_cpu_slots; }

/* bpf_cpumask_create(): a zeroed mask with one reference */
static __always_inline struct bpf_cpumask *bpf_cpumask_create(void)
{
	struct bpf_cpumask *m = sim_calloc(1, sizeof(*m));

	SIM_COUNT_CALL();
	m->usage = 1;
	return m;
}
/* bpf_cpumask_release(): drops a reference; the last one frees */
void sim_cpumask_free(struct bpf_cpumask *m) __hidden;
static __always_inline void bpf_cpumask_release(struct bpf_cpumask *m)
{
	SIM_COUNT_CALL();
	if (m && --m->usage == 0)
		sim_cpumask_free(m);
}
static __always_inline struct bpf_cpumask *bpf_cpumask_acquire(struct bpf_cpumask *m)
{
	SIM_COUNT_CALL();
	m->usage++;
	return m;
}
static __always_inline void bpf_cpumask_set_cpu(u32 cpu, struct bpf_cpumask *m)
{
	SIM_COUNT_CALL();
	if (cpu < sim_nr_cpu_ids())
		m->cpumask.bits[cpu / 64] |= 1ULL << (cpu % 64);
}
static __always_inline void bpf_cpumask_clear_cpu(u32 cpu, struct bpf_cpumask *m)
{
	SIM_COUNT_CALL();
	if (cpu < sim_nr_cpu_ids())
		m->cpumask.bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}
static __always_inline void bpf_cpumask_clear(struct bpf_cpumask *m)
{
	SIM_COUNT_CALL();
	__builtin_memset(&m->cpumask, 0, sizeof(m->cpumask));
}
static __always_inline void bpf_cpumask_setall(struct bpf_cpumask *m)
{
	u32 i, n = sim_nr_cpu_ids();

	SIM_COUNT_CALL();
	for (i = 0; i < n; i++)
		m->cpumask.bits[i / 64] |= 1ULL << (i % 64);
}
static __always_inline u32 bpf_cpumask_first(const struct cpumask *m)
{
	u32 i, n = sim_nr_cpu_ids();

	SIM_COUNT_CALL();
	for (i = 0; i < n; i++)
		if ((m->bits[i / 64] >> (i % 64)) & 1)
			return i;
	return n;
}
static __always_inline bool bpf_cpumask_empty(const struct cpumask *m)
{
	return bpf_cpumask_first(m) >= sim_nr_cpu_ids();
}
static __always_inline u32 bpf_cpumask_weight(const struct cpumask *m)
{
	u32 i, w = 0;

	SIM_COUNT_CALL();
	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		w += __builtin_popcountll(m->bits[i]);
	return w;
}
static __always_inline bool bpf_cpumask_and(struct bpf_cpumask *dst, const struct cpumask *a,
					    const struct cpumask *b)
{
	u64 any = 0;
	u32 i;

	SIM_COUNT_CALL();
	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		any |= dst->cpumask.bits[i] = a->bits[i] & b->bits[i];
	return any != 0;
}
static __always_inline void bpf_cpumask_or(struct bpf_cpumask *dst, const struct cpumask *a,
					   const struct cpumask *b)
{
	u32 i;

	SIM_COUNT_CALL();
	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		dst->cpumask.bits[i] = a->bits[i] | b->bits[i];
}
static __always_inline void bpf_cpumask_copy(struct bpf_cpumask *dst, const struct cpumask *src)
{
	SIM_COUNT_CALL();
	dst->cpumask = *src;
}
static __always_inline bool bpf_cpumask_intersects(const struct cpumask *a, const struct cpumask *b)
{
	u32 i;

	SIM_COUNT_CALL();
	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}
static __always_inline bool bpf_cpumask_subset(const struct cpumask *a, const struct cpumask *b)
{
	u32 i;

	SIM_COUNT_CALL();
	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		if (a->bits[i] & ~b->bits[i])
			return false;
	return true;
}

/* ---- sched_ext kfuncs the peers use (ext.c, ext_idle.c of 7.2) ---- */
static __always_inline u32 scx_bpf_nr_cpu_ids(void) { SIM_COUNT_CALL(); return sim_nr_cpu_ids(); }
/* scx_bpf_nr_node_ids(): nr_node_ids */
static __always_inline u32 __COMPAT_scx_bpf_nr_node_ids(void) { SIM_COUNT_CALL(); return sim_host->nr_nodes; }
/* scx_bpf_cpu_node(): cpu_to_node(), NUMA_NO_NODE for an invalid CPU */
static __always_inline int __COMPAT_scx_bpf_cpu_node(s32 cpu) { return SIM_CALL(host_cpu_node, cpu); }
/* scx_bpf_get_idle_{cpu,smt}mask_node(): the node's built-in idle masks
 * (an error unless SCX_OPS_BUILTIN_IDLE_PER_NODE) */
static __always_inline const struct cpumask *__COMPAT_scx_bpf_get_idle_cpumask_node(int node)
{
	return SIM_CALL(get_idle_mask_node, node, false);
}
static __always_inline const struct cpumask *__COMPAT_scx_bpf_get_idle_smtmask_node(int node)
{
	return SIM_CALL(get_idle_mask_node, node, true);
}
/* scx_bpf_put_cpumask(): releases a mask from a scx_bpf_get_* (a no-op) */
static __always_inline void scx_bpf_put_cpumask(const struct cpumask *m) { SIM_COUNT_CALL(); }
/* scx_bpf_get_online_cpumask(): cpu_online_mask */
static __always_inline const struct cpumask *scx_bpf_get_online_cpumask(void)
{
	return SIM_CALL(online_cpumask);
}
/* scx_bpf_select_cpu_and() (7.2: __scx_bpf_select_cpu_and -> select_cpu_from_kfunc) */
#define __COMPAT_HAS_scx_bpf_select_cpu_and 1
static __always_inline s32 scx_bpf_select_cpu_and(struct task_struct *p, s32 prev_cpu, u64 wake_flags,
						  const struct cpumask *allowed, u64 flags)
{
	return SIM_CALL(select_cpu_and, p, prev_cpu, wake_flags, allowed, flags);
}
/* scx_bpf_select_cpu_dfl(): select_cpu_from_kfunc(p, prev, wf, NULL, 0);
 * (cpu, true) on success, else (prev_cpu, false) */
static __always_inline s32 scx_bpf_select_cpu_dfl(struct task_struct *p, s32 prev_cpu, u64 wake_flags,
						  bool *is_idle)
{
	s32 cpu = SIM_CALL(select_cpu_and, p, prev_cpu, wake_flags, NULL, 0);

	if (cpu >= 0) {
		*is_idle = true;
		return cpu;
	}
	*is_idle = false;
	return prev_cpu;
}
/* __COMPAT_is_enq_cpu_selected(): SCX_ENQ_CPU_SELECTED exists in 7.2 */
static __always_inline bool __COMPAT_is_enq_cpu_selected(u64 enq_flags)
{
	return enq_flags & SCX_ENQ_CPU_SELECTED;
}
/* scx_bpf_task_running(): task_rq(p)->curr == p */
static __always_inline bool scx_bpf_task_running(const struct task_struct *p)
{
	return SIM_CALL(task_running, p);
}
/* scx_bpf_dsq_peek() (>= 7.1, which the compat wrapper requires): the
 * first task of a DSQ, NULL if empty */
static __always_inline struct task_struct *__COMPAT_scx_bpf_dsq_peek(u64 dsq)
{
	return SIM_CALL(dsq_peek, dsq);
}
/* the kfunc itself (the kernel's peek_dsq selftest calls it directly) */
static __always_inline struct task_struct *scx_bpf_dsq_peek(u64 dsq)
{
	return SIM_CALL(dsq_peek, dsq);
}
/* scx_bpf_task_set_slice() / scx_bpf_task_set_dsq_vtime() (7.1+): plain
 * writes of p->scx.slice / p->scx.dsq_vtime */
static __always_inline bool scx_bpf_task_set_slice(struct task_struct *p, u64 slice)
{
	SIM_COUNT_CALL();
	p->scx.slice = slice;
	return true;
}
static __always_inline bool scx_bpf_task_set_dsq_vtime(struct task_struct *p, u64 vtime)
{
	SIM_COUNT_CALL();
	p->scx.dsq_vtime = vtime;
	return true;
}
/* scx_bpf_cpuperf_set(): a frequency hint; the machine's speeds stay */
static __always_inline void scx_bpf_cpuperf_set(s32 cpu, u32 perf) { SIM_CALL(cpuperf_set, cpu, perf); }
static __always_inline u64 scx_bpf_now(void) { return SIM_CALL(ktime); }

/* bpf_map_lookup_percpu_elem(): a per-CPU array's slot of CPU `cpu` */
static __always_inline void *sim_map_lookup_percpu(void **slot, int type, u32 max, u32 vsz,
						   const void *key, u32 cpu)
{
	u32 k = *(const u32 *)key, ksz;

	SIM_COUNT_CALL();
	if (!type && sim_map_untyped((const void *)slot, &slot, &type, &max, &ksz, &vsz))
		return NULL;
	if (type != BPF_MAP_TYPE_PERCPU_ARRAY) {
		sim_errorf("bpf_map_lookup_percpu_elem: map type %d has no model", type);
		return NULL;
	}
	if (k >= max || cpu >= sim_host->nr_cpu_slots)
		return NULL;
	if (!*slot)
		*slot = sim_calloc((u64)max * sim_host->nr_cpu_slots, vsz);
	return (char *)*slot + ((u64)cpu * max + k) * vsz;
}
#define bpf_map_lookup_percpu_elem(m, k, cpu)                                                   \
	sim_map_lookup_percpu(SIM_MAP_SLOT_OR_SELF(m), SIM_MAP_TYPE(SIM_M(m)), SIM_MAP_MAX(SIM_M(m)), \
			      SIM_MAP_VSZ(SIM_M(m)), (k), (cpu))

/*
 * ---- BPF arena (kernel/bpf/arena.c) ----
 * An arena map is a sparse region of max_entries pages; natively it is one
 * mmap'd reservation per arena map whose pages become readable and writable
 * when bpf_arena_alloc_pages() hands them out (shim.c: sim_arena_*; the
 * semantics and their limits are written there). An arena pointer is a
 * plain pointer (see <bpf_arena_common.bpf.h>, the shim's stand-in).
 */
#define BPF_F_MMAPABLE (1U << 10)
#ifndef PAGE_SIZE
#define PAGE_SIZE 4096
#endif
#define __PAGE_SIZE PAGE_SIZE

struct sim_arena;
struct sim_arena *sim_arena_of(void *map, u32 max_entries, u64 map_extra, u32 map_flags) __hidden;
void *sim_arena_alloc_pages(struct sim_arena *a, void *addr, u32 page_cnt, int node_id, u64 flags);
void sim_arena_free_pages(struct sim_arena *a, void *ptr, u32 page_cnt);
int sim_arena_reserve_pages(struct sim_arena *a, void *ptr, u32 page_cnt);

#define SIM_MAP_FLAGS(m) ((u32)(sizeof(*(m)->map_flags) / sizeof(int)))
#define SIM_MAP_EXTRA(m) ((u64)sizeof(*(m)->map_extra))
#define SIM_ARENA(m)                                                            \
	(SIM_BUILD_CHECK(SIM_MAP_TYPE(m) == BPF_MAP_TYPE_ARENA),                 \
	 sim_arena_of((void *)(m), SIM_MAP_MAX(m), SIM_MAP_EXTRA(m), SIM_MAP_FLAGS(m)))
#define bpf_arena_alloc_pages(m, addr, cnt, node, flags) \
	(SIM_COUNT_CALL(), sim_arena_alloc_pages(SIM_ARENA(m), (void *)(addr), (cnt), (node), (flags)))
#define bpf_arena_free_pages(m, ptr, cnt) \
	(SIM_COUNT_CALL(), sim_arena_free_pages(SIM_ARENA(m), (void *)(ptr), (cnt)))
#define bpf_arena_reserve_pages(m, ptr, cnt) \
	(SIM_COUNT_CALL(), sim_arena_reserve_pages(SIM_ARENA(m), (void *)(ptr), (cnt)))

/*
 * ---- for scx's arena library (lib/ of lavd, p2dq, rusty) ----
 * What scx's own common.bpf.h, bpf_helpers.h and vmlinux.h give it.
 */
#define __ksym
#define __kconfig
#define __arg_arena
#define __arg_nullable
#define __arg_ctx
#define __maybe_unused __attribute__((unused))
#ifndef NR_CPUS
#define NR_CPUS 1024
#endif
typedef struct cpumask cpumask_t;
#define div_round_up(a, b) (((a) + (b) - 1) / (b))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - __builtin_offsetof(type, member)))
#define barrier_var(var) __asm__ __volatile__("" : "+r"(var))
/* common.bpf.h's MEMBER_VPTR / ARRAY_ELEM_PTR: the member's address if it
 * lies inside base, else NULL (the verifier-proof bounds check) */
#define MEMBER_VPTR(base, member)                                              \
	((__typeof__((base) member) *)({                                         \
		u64 __base = (u64)&(base);                                       \
		u64 __addr = (u64)&((base) member) - __base;                     \
		__addr <= sizeof(base) - sizeof((base) member) ? __addr + __base : 0; \
	}))
#define ARRAY_ELEM_PTR(arr, i, n)                                              \
	((__typeof__((arr)[i]) *)({                                              \
		u64 __base = (u64)(arr);                                         \
		u64 __addr = (u64)&((arr)[i]) - __base;                          \
		__addr <= sizeof((arr)[0]) * ((n) - 1) ? __addr + __base : 0;    \
	}))
/* bpf_ksym_exists(): true for the kfuncs below, which the shim has; any
 * other name is a build error, never a silent "absent" */
#define bpf_ksym_exists(sym) (sim_ksym_##sym)
#define sim_ksym_bpf_arena_reserve_pages 1
#define sim_ksym_bpf_stream_vprintk 1
#define sim_ksym_scx_bpf_dsq_peek 1
/* bpf_helpers.h: the number of arguments, and an array filled with them */
#define ___bpf_nth(_, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, N, ...) N
#define ___bpf_narg(args...) ___bpf_nth(_, ##args, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define ___bpf_fill(arr, args...)                                               \
	do {                                                                    \
		unsigned long long ___v[] = { args };                           \
		__builtin_memcpy((arr), ___v, sizeof(___v));                    \
	} while (0)
/* bpf_stream_vprintk: the program's stdout / stderr streams, a diagnostic
 * channel the loader forwards; the simulator does not print them */
static __always_inline int bpf_stream_vprintk(int stream_id, const char *fmt, const void *args,
					      u32 len)
{
	SIM_COUNT_CALL();
	return 0;
}
/* vmlinux.h's guard class of rcu_read_lock (lib/cleanup.bpf.h) */
typedef struct {
	void *lock;
} class_rcu_t;
/* atomics: one CPU runs at a time, so plain sequentially consistent ones */
#define cmpxchg(p, o, n) __sync_val_compare_and_swap((p), (o), (n))
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_mb() __sync_synchronize()
#define smp_rmb() __sync_synchronize()
#define smp_wmb() __sync_synchronize()
/* common.bpf.h's time and bit helpers */
static __always_inline s64 time_delta(u64 after, u64 before)
{
	return (s64)(after - before) > 0 ? (s64)(after - before) : 0;
}
static __always_inline u32 log2_u32(u32 v)
{
	return v ? 31 - __builtin_clz(v) : 0;
}
static __always_inline u32 log2_u64(u64 v)
{
	u32 hi = v >> 32;

	return hi ? log2_u32(hi) + 32 + 1 : log2_u32(v) + 1;
}
/* ---- kfuncs p2dq uses ---- */
/* bpf_task_from_pid(): a referenced live task, NULL if none; the
 * reference is not counted (tasks outlive every callback in the sim) */
static __always_inline struct task_struct *bpf_task_from_pid(s32 pid)
{
	return SIM_CALL(task_from_pid, pid);
}
static __always_inline void bpf_task_release(struct task_struct *p) { SIM_COUNT_CALL(); }
/* bpf_get_prandom_u32(): the run's seeded stream (Core::kf_prandom) */
static __always_inline u32 bpf_get_prandom_u32(void) { return SIM_CALL(prandom); }
/* bpf_cpumask_any_distribute(): cpumask_any_distribute, the per-CPU rotor */
static __always_inline u32 bpf_cpumask_any_distribute(const struct cpumask *m)
{
	return SIM_CALL(any_distribute, m);
}

/*
 * bpf_cpumask_any_and_distribute(): cpumask_any_and_distribute
 * (lib/cpumask.c), the same per-CPU rotor as cpumask_any_distribute over
 * src1 & src2: the AND, then the one-mask rotor.
 */
static __always_inline u32 bpf_cpumask_any_and_distribute(const struct cpumask *a,
							   const struct cpumask *b)
{
	struct cpumask and;
	u32 i;

	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		and.bits[i] = a->bits[i] & b->bits[i];
	return SIM_CALL(any_distribute, &and);
}
/* scx_bpf_cpuperf_cur(): arch_scale_freq_capacity(cpu); the simulated
 * machine runs at fixed speeds (no DVFS): SCX_CPUPERF_ONE. An invalid CPU
 * is an error (ops_cpu_valid) */
static __always_inline u32 scx_bpf_cpuperf_cur(s32 cpu)
{
	SIM_COUNT_CALL();
	if (cpu < 0 || (u32)cpu >= sim_host->nr_cpu_slots) {
		sim_errorf("invalid CPU %d", cpu);
		return SCX_CPUPERF_ONE;
	}
	return SCX_CPUPERF_ONE;
}
/* scx_bpf_dsq_move_vtime(): an iterator move into a DSQ in vtime order
 * (scx_dsq_move with SCX_ENQ_DSQ_PRIQ) */
static __always_inline bool scx_bpf_dsq_move_vtime(struct bpf_iter_scx_dsq *it, struct task_struct *p,
						   u64 dsq, u64 enq_flags)
{
	return sim_dsq_move(it, p, dsq, enq_flags | SCX_ENQ_DSQ_PRIQ);
}
/*
 * Ring buffers (BPF_MAP_TYPE_RINGBUF): records for a user-space reader.
 * The simulator has no user space reading them; a ring is modelled as one
 * a reader drains at once: bpf_ringbuf_reserve always has room for a
 * record up to the ring's size, and the record is dropped at submit. Used
 * by scx's arena library only as the URCU reclaim doorbell (sdt_alloc.bpf.c),
 * whose reader the simulator does not run (docs/sim/arena.md).
 */
void *sim_ringbuf_slot(u64 size) __hidden;
#define bpf_ringbuf_reserve(m, size, flags)                                          \
	(SIM_BUILD_CHECK(SIM_MAP_TYPE(m) == BPF_MAP_TYPE_RINGBUF), SIM_COUNT_CALL(),   \
	 ((flags) || (u64)(size) > SIM_MAP_MAX(m)) ? NULL : sim_ringbuf_slot((size)))
#define bpf_ringbuf_submit(data, flags) ((void)(data), SIM_COUNT_CALL())
#define bpf_ringbuf_discard(data, flags) ((void)(data), SIM_COUNT_CALL())


/* cid.bpf.h: the distribute rotor needs the cid kfuncs (scx_bpf_nr_cids),
 * which the shim does not have: its own fallback, nothing to allocate */
static __always_inline int cmask_distribute_init(void *map) { return 0; }

/*
 * ---- scx_cosmos: scx_bpf_cpu_curr ----
 * scx_bpf_cpu_curr() (ext.c): rq->curr of a valid CPU (ops_cpu_valid: an
 * invalid one is an error and NULL): the running task, the task being
 * switched out while its CPU is in the scheduler, else the CPU's idle task
 * (PF_IDLE | PF_KTHREAD). Core::kf_cpu_curr.
 */
static __always_inline struct task_struct *__COMPAT_scx_bpf_cpu_curr(s32 cpu)
{
	return SIM_CALL(cpu_curr, cpu);
}
#define scx_bpf_cpu_curr(cpu) __COMPAT_scx_bpf_cpu_curr(cpu)

/*
 * ---- scx_cosmos: scx_bpf_pick_idle_cpu_node ----
 * scx_bpf_pick_idle_cpu_node() (idle.c): validate_node (an error unless
 * SCX_OPS_BUILTIN_IDLE_PER_NODE, or for an invalid node), then
 * scx_pick_idle_cpu(cpus, node, flags). Core::kf_pick_idle_cpu_node.
 */
static __always_inline s32 __COMPAT_scx_bpf_pick_idle_cpu_node(const struct cpumask *m, int node,
							       u64 flags)
{
	return SIM_CALL(pick_idle_cpu_node, m, node, flags);
}

/*
 * ---- the kernel's numa selftest: scx_bpf_pick_any_cpu_node ----
 * idle.c:1420-1449: an idle CPU as scx_bpf_pick_idle_cpu_node picks it,
 * else any allowed CPU, of @node with SCX_PICK_IDLE_IN_NODE
 * (cpumask_any_and_distribute) or anywhere (cpumask_any_distribute), else
 * -EBUSY.
 */
static __always_inline s32 __COMPAT_scx_bpf_pick_any_cpu_node(const struct cpumask *m, int node,
							      u64 flags)
{
	struct cpumask in = *m;
	s32 cpu = SIM_CALL(pick_idle_cpu_node, m, node, flags);
	u32 i;

	if (cpu >= 0)
		return cpu;
	if (flags & SCX_PICK_IDLE_IN_NODE)
		for (i = 0; i < sim_host->nr_cpu_slots; i++)
			if (SIM_CALL(host_cpu_node, (s32)i) != node)
				in.bits[i / 64] &= ~(1ULL << (i % 64));
	cpu = SIM_CALL(any_distribute, &in);
	return (u32)cpu < sim_host->nr_cpu_slots ? cpu : -EBUSY;
}

/*
 * ---- scx_cosmos: lib/pmu.bpf.c's perf-event array ----
 * BPF_MAP_TYPE_PERF_EVENT_ARRAY: the slots user space fills with perf
 * event fds (scx_cosmos's setup_perf_events, only with --perf-config /
 * --perf-sticky, off by default). The simulator installs no perf event:
 * the map exists and is empty. bpf_perf_event_read_value() on it fails as
 * the kernel's does on an empty slot (kernel/trace/bpf_trace.c
 * get_map_perf_counter: flags beyond the index -EINVAL, an index past
 * max_entries -E2BIG, no event -ENOENT; the value is zeroed on error).
 */
struct bpf_perf_event_value {
	u64 counter;
	u64 enabled;
	u64 running;
};
#define BPF_F_INDEX_MASK 0xffffffffULL
#define BPF_F_CURRENT_CPU BPF_F_INDEX_MASK
static __always_inline long sim_perf_event_read_value(u32 max, u64 flags, void *buf, u32 size)
{
	u64 index = flags & BPF_F_INDEX_MASK;

	SIM_COUNT_CALL();
	__builtin_memset(buf, 0, size);
	if (flags & ~BPF_F_INDEX_MASK)
		return -EINVAL;
	if (size != sizeof(struct bpf_perf_event_value))
		return -EINVAL;
	if (index == BPF_F_CURRENT_CPU)
		index = sim_host->this_cpu(sim_host->ctx);
	if (index >= max)
		return -E2BIG;
	return -ENOENT;
}
#define bpf_perf_event_read_value(m, flags, buf, size)                                    \
	(SIM_BUILD_CHECK(SIM_MAP_TYPE(m) == BPF_MAP_TYPE_PERF_EVENT_ARRAY),                 \
	 sim_perf_event_read_value(SIM_MAP_MAX(m), (flags), (buf), (size)))

/*
 * ---- for scx_lavd 1.1.4 (docs/sim/arena.md "lavd") ----
 */
#define TASK_COMM_LEN 16
#define MAX_RT_PRIO 100
#define MAX_PRIO 140
#define PF_IO_WORKER 0x00000010	/* include/linux/sched.h; the sim has no io workers */
/* user_exit_info.h: the exit codes' action bits */
#define SCX_ECODE_RSN_HOTPLUG	(1LLU << 32)
#define SCX_ECODE_ACT_RESTART	(1LLU << 48)
/* common.bpf.h's helpers lavd uses */
typedef __u64 __attribute__((__may_alias__)) __u64_alias_t;
static __always_inline int ctzll(u64 v) { return v ? __builtin_ctzll(v) : 64; }
#define __calc_avg(old, new, decay) ({                                          \
	__typeof__(decay) thr = 1 << (decay);                                   \
	__typeof__(old) ret;                                                    \
	if (((old) < thr) || ((new) < thr)) {                                   \
		if (((old) == 1) && ((new) == 0))                               \
			ret = 0;                                                \
		else                                                            \
			ret = ((old) - ((old) >> 1)) + ((new) >> 1);            \
	} else {                                                                \
		ret = ((old) - ((old) >> (decay))) + ((new) >> (decay));        \
	}                                                                       \
	ret;                                                                    \
})
#define bpf_core_field_exists(field...) 1
#define bpf_core_type_exists(type) 1

/* the remaining cpumask kfuncs (kernel/bpf/cpumask.c) */
static __always_inline bool bpf_cpumask_test_and_set_cpu(u32 cpu, struct bpf_cpumask *m)
{
	bool was;

	SIM_COUNT_CALL();
	if (cpu >= sim_nr_cpu_ids())
		return false;
	was = (m->cpumask.bits[cpu / 64] >> (cpu % 64)) & 1;
	m->cpumask.bits[cpu / 64] |= 1ULL << (cpu % 64);
	return was;
}
static __always_inline bool bpf_cpumask_test_and_clear_cpu(u32 cpu, struct bpf_cpumask *m)
{
	bool was;

	SIM_COUNT_CALL();
	if (cpu >= sim_nr_cpu_ids())
		return false;
	was = (m->cpumask.bits[cpu / 64] >> (cpu % 64)) & 1;
	m->cpumask.bits[cpu / 64] &= ~(1ULL << (cpu % 64));
	return was;
}
static __always_inline void bpf_cpumask_xor(struct bpf_cpumask *dst, const struct cpumask *a,
					    const struct cpumask *b)
{
	u32 i;

	SIM_COUNT_CALL();
	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		dst->cpumask.bits[i] = a->bits[i] ^ b->bits[i];
}
static __always_inline bool bpf_cpumask_equal(const struct cpumask *a, const struct cpumask *b)
{
	u32 i;

	SIM_COUNT_CALL();
	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		if (a->bits[i] != b->bits[i])
			return false;
	return true;
}

/* helpers: bpf_get_current_pid_tgid (tgid << 32 | pid of current),
 * bpf_strncmp (kernel/bpf/helpers.c: strncmp of s1 up to s1_sz with s2),
 * bpf_probe_read_kernel(_str) (a copy; the sim's pointers are all valid) */
static __always_inline u64 bpf_get_current_pid_tgid(void)
{
	struct task_struct *p = SIM_CALL(current);

	return ((u64)(u32)p->tgid << 32) | (u32)p->pid;
}
static __always_inline long bpf_strncmp(const char *s1, u32 s1_sz, const char *s2)
{
	SIM_COUNT_CALL();
	return __builtin_strncmp(s1, s2, s1_sz);
}
static __always_inline long bpf_probe_read_kernel(void *dst, u32 size, const void *src)
{
	SIM_COUNT_CALL();
	__builtin_memcpy(dst, src, size);
	return 0;
}
static __always_inline long bpf_probe_read_kernel_str(void *dst, u32 size, const void *src)
{
	u32 i;

	SIM_COUNT_CALL();
	if (!size)
		return 0;
	if (!src) {
		((char *)dst)[0] = 0;
		return 0;
	}
	for (i = 0; i < size - 1 && ((const char *)src)[i]; i++)
		((char *)dst)[i] = ((const char *)src)[i];
	((char *)dst)[i] = 0;
	return i + 1;
}
/* bpf_per_cpu_ptr() of a kernel per-CPU variable: the shim has none; the
 * only one lavd reads is hw_pressure, a __weak ksym the sim does not
 * define (no thermal pressure), which lavd tests before reading */
#define bpf_per_cpu_ptr(p, cpu) \
	((__typeof__(p))(sim_errorf("bpf_per_cpu_ptr: the sim has no kernel per-CPU variables"), (void *)0))

/* the cpufreq policy (power.bpf.c reads cpufreq_cpu_data per CPU): the
 * simulated machines have none (no DVFS): shim.c's cpufreq_cpu_data[] is
 * all NULL */
struct cpufreq_cpuinfo {
	unsigned int max_freq;
	unsigned int min_freq;
};
struct cpufreq_policy {
	struct cpufreq_cpuinfo cpuinfo;
	unsigned int min;
	unsigned int max;
	unsigned int cur;
};

/* tracing programs (lock.bpf.c: fexit on futex functions, tracepoints on
 * the futex syscalls): compiled, never run in the sim (its workloads have
 * no futexes; the loader attaches them, the sim fires none) */
struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
};
static __always_inline long bpf_get_func_ret(void *ctx, u64 *value)
{
	sim_errorf("bpf_get_func_ret: the sim runs no fexit programs");
	return -EINVAL;
}

/* scx_bpf_exit(): ends the scheduler with an exit code (ext.c
 * scx_bpf_exit_bstr -> scx_exit(SCX_EXIT_UNREG_BPF, code)): the run stops,
 * and ops.exit sees that kind, the code and the message */
#define scx_bpf_exit(code, fmt, args...) sim_exitf((s64)(code), fmt, ##args)
/* scx_bpf_dump(): output of ops.dump / ops.dump_task, which the sim never
 * calls (it prints no error-exit dumps) */
#define scx_bpf_dump(fmt, args...) ((void)SIM_COUNT_CALL())

/*
 * The PELT clocks and capacity (kernel/sched/pelt.h, ext.c):
 *  - scx_clock_task(cpu): rq->clock_task = rq_clock - IRQ and steal time;
 *    the sim has neither: the core's clock. (The kernel's value for a
 *    remote NO_HZ-idle CPU can lag; the sim's never does.)
 *  - scx_clock_pelt(cpu): rq_clock_pelt() = clock_pelt - lost_idle_time;
 *    the core advances clock_pelt by delta x capacity / 1024 while the CPU
 *    runs a task (update_rq_clock_pelt; frequency is fixed: x 1024/1024)
 *    and sets it to clock_task while idle (_update_idle_rq_clock_pelt);
 *    lost_idle_time stays 0: it grows only when the rq's cfs + rt + dl
 *    util_sum is saturated at idle entry (update_idle_rq_clock_pelt), and
 *    under sched_ext no task is in those classes.
 *  - scx_bpf_cpuperf_cap(cpu): arch_scale_cpu_capacity(cpu), the CPU's
 *    capacity (1024 on symmetric machines); SCX_CPUPERF_ONE for an invalid
 *    CPU (scx_cpu_valid without an error).
 */
static __always_inline u64 scx_clock_task(u32 cpu) { return SIM_CALL(clock_task, cpu); }
static __always_inline u64 scx_clock_pelt(u32 cpu) { return SIM_CALL(clock_pelt, cpu); }
static __always_inline u32 scx_bpf_cpuperf_cap(s32 cpu) { return SIM_CALL(cpuperf_cap, cpu); }

/*
 * scx_bpf_reenqueue_local() / scx_bpf_reenqueue_local_from_anywhere():
 * lavd calls them only from ops.cpu_release (which its loader drops on
 * 6.19+ kernels, the sim's 7.2 included) and from its sched_switch hook on
 * a switch to an RT / DL task. The sim has no RT / DL tasks, so neither
 * is reached; reaching one is a scheduler error, never a silent no-op.
 */
static __always_inline void scx_bpf_reenqueue_local(void)
{
	sim_errorf("scx_bpf_reenqueue_local: the sim has no higher class to take a CPU");
}
static __always_inline int scx_bpf_reenqueue_local_from_anywhere(void)
{
	sim_errorf("scx_bpf_reenqueue_local_from_anywhere: the sim has no higher class to take a CPU");
	return -EOPNOTSUPP;
}

/*
 * ---- cgroups (docs/sim/arena.md "lavd"): a simulated task lives in the
 * root cgroup unless its workload puts it in one below (cg=, shim.c
 * sim_cgroup_new). shim.c holds the root (sim_root_cgroup: id 1,
 * level 0, its own ancestor at level 0, kernfs name ""), its css, the
 * root task group and the css_set every task points at.
 */
struct kernfs_node {
	u64 id;
	const char *name;
};
struct cgroup_subsys_state {
	struct cgroup *cgroup;
	struct cgroup_subsys_state *parent;
};
struct cgroup {
	struct cgroup_subsys_state self;
	int level;
	struct kernfs_node *kn;
	struct cgroup *ancestors[1];
};
struct css_set {
	struct cgroup *dfl_cgrp;
};
struct task_group {
	struct cgroup_subsys_state css;
};
extern struct cgroup sim_root_cgroup;
struct cgroup *sim_task_join_root_cgroup(struct task_struct *p);
struct cgroup *sim_cgroup_from_id(u64 id);
/* bpf_cgroup_from_id(): the root (id 1) or a cgroup below it that a
 * workload put tasks in or an mkdir made, not removed (shim.c), else NULL;
 * references are not counted (every cgroup outlives the run) */
static __always_inline struct cgroup *bpf_cgroup_from_id(u64 id)
{
	SIM_COUNT_CALL();
	return sim_cgroup_from_id(id);
}
/* bpf_cgroup_ancestor(): cgroup_ancestor(), NULL past the cgroup's level;
 * up the parents (the shim's ancestors[] holds the root only) */
static __always_inline struct cgroup *bpf_cgroup_ancestor(struct cgroup *c, int level)
{
	SIM_COUNT_CALL();
	if (level < 0 || level > c->level)
		return NULL;
	while (c->level > level)
		c = c->self.parent->cgroup;
	return c;
}
static __always_inline struct cgroup *bpf_cgroup_acquire(struct cgroup *c) { SIM_COUNT_CALL(); return c; }
static __always_inline void bpf_cgroup_release(struct cgroup *c) { SIM_COUNT_CALL(); }
/* scx_bpf_task_cgroup(): the task's cgroup (its task group's) */
static __always_inline struct cgroup *scx_bpf_task_cgroup(struct task_struct *p)
{
	SIM_COUNT_CALL();
	return p->sched_task_group ? p->sched_task_group->css.cgroup : &sim_root_cgroup;
}
/* bpf_iter_css (kernel/bpf/cgroup_iter.c): a walk from a css; the root
 * has no children and no parent, so every order (descendants pre / post,
 * ancestors up, self only) visits the start alone */
enum bpf_cgroup_iter_order {
	BPF_CGROUP_ITER_ORDER_UNSPEC = 0,
	BPF_CGROUP_ITER_SELF_ONLY,
	BPF_CGROUP_ITER_DESCENDANTS_PRE,
	BPF_CGROUP_ITER_DESCENDANTS_POST,
	BPF_CGROUP_ITER_ANCESTORS_UP,
	BPF_CGROUP_ITER_CHILDREN,
};
struct bpf_iter_css {
	u64 handle;
};
static __always_inline u64 sim_iter_css_new(struct cgroup_subsys_state *start, u32 flags)
{
	SIM_COUNT_CALL();
	if (start && start->cgroup != &sim_root_cgroup)
		sim_errorf("bpf_iter_css: a css of a cgroup the sim does not have");
	return (u64)start;
}
static __always_inline struct cgroup_subsys_state *sim_iter_css_next(struct bpf_iter_css *it)
{
	struct cgroup_subsys_state *css = (struct cgroup_subsys_state *)it->handle;

	SIM_COUNT_CALL();
	it->handle = 0;
	return css;
}
static __always_inline void sim_iter_css_destroy(struct bpf_iter_css *it) {}


/*
 * ==== for scx_qmap (tools/sched_ext/ of 7.2): the cid interface ====
 * What 7.2's <scx/common.bpf.h>, <scx/compat.bpf.h> and vmlinux.h give a
 * cid-form scheduler, with each kfunc's semantics from kernel/sched/ext/
 * (ext.c, cid.c, cid.h, internal.h of 7.2.13) cited where it is written.
 * The BPF-side cmask helpers (cid.bpf.h) are the kernel tree's own,
 * included unmodified at the end (sim/build.rs copies that one file out of
 * the pinned tree, so its "bpf_arena_common.bpf.h" is the shim's).
 */
#define SCX_OPS_ALWAYS_ENQ_IMMED	(1ULL << 7)	/* internal.h:174 */
#define SCX_OPS_TID_TO_TASK		(1ULL << 8)	/* internal.h:185 */
#define SCX_DEQ_CORE_SCHED_EXEC		(1ULL << 32)	/* internal.h:1319 */
#define SCX_REENQ_ANY			(1ULL << 0)	/* internal.h:1331-1335 */
#define __SCX_REENQ_FILTER_MASK		0xffffULL
#define __SCX_REENQ_USER_MASK		SCX_REENQ_ANY
#define BPF_MAX_LOOPS			(8 * 1024 * 1024)	/* include/linux/bpf.h */
#ifndef offsetof
#define offsetof(t, m) __builtin_offsetof(t, m)
#endif
/* common.bpf.h: abbreviated <linux/overflow.h> */
#define flex_array_size(p, member, count) ((count) * sizeof(*(p)->member))
#define struct_size(p, member, count) \
	(offsetof(__typeof__(*(p)), member) + flex_array_size(p, member, count))
#define struct_size_t(type, member, count) struct_size((type *)NULL, member, count)

/* kernel/sched/ext/types.h: a cid bitmap over [base, base + nr_cids) and
 * the per-cid topology scx_bpf_cid_topo() copies out */
struct scx_cmask {
	u32 base;
	u32 nr_cids;
	u32 alloc_words;
	u64 bits[];
};
struct scx_cid_topo {
	s32 core_cid;
	s32 core_idx;
	s32 llc_cid;
	s32 llc_idx;
	s32 node_cid;
	s32 node_idx;
};

/* internal.h:269-278: ops.sub_attach / sub_detach's arguments. The sim has
 * no sub-schedulers (no cgroups below the root), so these callbacks are
 * never called; the sub-scheduler's ops are given the one field a parent
 * reads */
struct sim_sub_sched_ops {
	u64 sub_cgroup_id;
};
struct scx_sub_attach_args {
	struct sim_sub_sched_ops *ops;
	char *cgroup_path;
};
struct scx_sub_detach_args {
	struct sim_sub_sched_ops *ops;
	char *cgroup_path;
};

/*
 * struct sched_ext_ops_cid (internal.h:863-950): the cid-form operation
 * table, sched_ext_ops with cpus / cpumasks replaced by cids / cmasks.
 * sched_ksft.c's adapter turns it into the struct sched_ext_ops the
 * simulator calls, translating as ext.c does (scx_cpu_arg / scx_cpu_ret).
 */
struct sched_ext_ops_cid {
	s32 (*select_cid)(struct task_struct *p, s32 prev_cid, u64 wake_flags);
	void (*enqueue)(struct task_struct *p, u64 enq_flags);
	void (*dequeue)(struct task_struct *p, u64 deq_flags);
	void (*dispatch)(s32 cid, struct task_struct *prev);
	void (*tick)(struct task_struct *p);
	void (*runnable)(struct task_struct *p, u64 enq_flags);
	void (*running)(struct task_struct *p);
	void (*stopping)(struct task_struct *p, bool runnable);
	void (*quiescent)(struct task_struct *p, u64 deq_flags);
	bool (*yield)(struct task_struct *from, struct task_struct *to);
	bool (*core_sched_before)(struct task_struct *a, struct task_struct *b);
	void (*set_weight)(struct task_struct *p, u32 weight);
	void (*set_cmask)(struct task_struct *p, const struct scx_cmask *cmask);
	void (*update_idle)(s32 cid, bool idle);
	s32 (*init_task)(struct task_struct *p, struct scx_init_task_args *args);
	void (*exit_task)(struct task_struct *p, struct scx_exit_task_args *args);
	void (*enable)(struct task_struct *p);
	void (*disable)(struct task_struct *p);
	void (*dump)(struct scx_dump_ctx *ctx);
	void (*dump_cid)(struct scx_dump_ctx *ctx, s32 cid, bool idle);
	void (*dump_task)(struct scx_dump_ctx *ctx, struct task_struct *p);
	s32 (*cgroup_init)(struct cgroup *cgrp, struct scx_cgroup_init_args *args);
	void (*cgroup_exit)(struct cgroup *cgrp);
	s32 (*cgroup_prep_move)(struct task_struct *p, struct cgroup *from, struct cgroup *to);
	void (*cgroup_move)(struct task_struct *p, struct cgroup *from, struct cgroup *to);
	void (*cgroup_cancel_move)(struct task_struct *p, struct cgroup *from, struct cgroup *to);
	void (*cgroup_set_weight)(struct cgroup *cgrp, u32 weight);
	void (*cgroup_set_bandwidth)(struct cgroup *cgrp, u64 period_us, u64 quota_us, u64 burst_us);
	void (*cgroup_set_idle)(struct cgroup *cgrp, bool idle);
	s32 (*sub_attach)(struct scx_sub_attach_args *args);
	void (*sub_detach)(struct scx_sub_detach_args *args);
	void (*cid_online)(s32 cid);
	void (*cid_offline)(s32 cid);
	s32 (*init)(void);
	void (*exit)(struct scx_exit_info *info);
	u32 dispatch_max_batch;
	u64 flags;
	u32 timeout_ms;
	u32 exit_dump_len;
	u64 hotplug_seq;
	u64 sub_cgroup_id;
	const char *name;
};
#define SCX_OPS_CID_DEFINE(__name, ...) struct sched_ext_ops_cid __name = { __VA_ARGS__ }

/* ---- the cid kfuncs (ext.c:10360-10470, 9726-9740, 10181-10350; cid.c) ---- */
/* scx_bpf_nr_cids() (ext.c:10364-10367): num_possible_cpus(); every CPU id
 * below the machine's nr_cpu_ids is a possible CPU in the sim */
static __always_inline u32 scx_bpf_nr_cids(void) { SIM_COUNT_CALL(); return sim_host->nr_cpu_slots; }
/* scx_bpf_nr_online_cids() (ext.c:10378-10381): num_online_cpus() */
static __always_inline u32 scx_bpf_nr_online_cids(void)
{
	const struct cpumask *m = SIM_CALL(online_cpumask);
	u32 i, w = 0;

	for (i = 0; i < SIM_MAX_CPUS / 64; i++)
		w += __builtin_popcountll(m->bits[i]);
	return w;
}
/* scx_bpf_cpu_to_cid() (cid.c:392-402 -> cid.h:137-142): an invalid CPU is
 * an error (scx_cpu_valid) and -EINVAL */
static __always_inline s32 scx_bpf_cpu_to_cid(s32 cpu)
{
	SIM_COUNT_CALL();
	if (cpu < 0 || (u32)cpu >= sim_host->nr_cpu_slots) {
		sim_errorf("invalid CPU %d", cpu);
		return -EINVAL;
	}
	return sim_cpu_to_cid_tbl[cpu];
}
/* scx_bpf_cid_to_cpu() (cid.c:370-380 -> cid.h:122-127) */
static __always_inline s32 scx_bpf_cid_to_cpu(s32 cid) { SIM_COUNT_CALL(); return sim_cid_to_cpu(cid); }
/* scx_bpf_this_cid() (ext.c:10391-10398): the table entry of this CPU */
static __always_inline s32 scx_bpf_this_cid(void)
{
	return sim_cpu_to_cid_tbl[SIM_CALL(this_cpu)];
}
/* scx_bpf_task_cid() (ext.c:10456-10463): the entry of task_cpu(p) */
static __always_inline s32 scx_bpf_task_cid(const struct task_struct *p)
{
	return sim_cpu_to_cid_tbl[SIM_CALL(task_cpu, p)];
}
/* scx_bpf_kick_cid() (ext.c:9728-9740): an invalid cid is an error, else
 * scx_kick_cpu() of its CPU */
static __always_inline void scx_bpf_kick_cid(s32 cid, u64 flags)
{
	s32 cpu = sim_cid_to_cpu(cid);

	if (cpu >= 0)
		SIM_CALL(kick_cpu, cpu, flags);
}
/* scx_bpf_cid_curr() (ext.c:10551-10565) */
static __always_inline struct task_struct *scx_bpf_cid_curr(s32 cid)
{
	s32 cpu = sim_cid_to_cpu(cid);

	return cpu < 0 ? NULL : SIM_CALL(cpu_curr, cpu);
}
/* scx_bpf_cidperf_cap() (ext.c:10187-10201): arch_scale_cpu_capacity of
 * the cid's CPU; an invalid cid is an error and SCX_CPUPERF_ONE */
static __always_inline u32 scx_bpf_cidperf_cap(s32 cid)
{
	s32 cpu = sim_cid_to_cpu(cid);

	return cpu < 0 ? SCX_CPUPERF_ONE : SIM_CALL(cpuperf_cap, cpu);
}
/* scx_bpf_cidperf_cur() (ext.c:10238-10252): arch_scale_freq_capacity of
 * the cid's CPU: the sim has no cpufreq (fixed speeds), SCX_CPUPERF_ONE */
static __always_inline u32 scx_bpf_cidperf_cur(s32 cid)
{
	SIM_COUNT_CALL();
	sim_cid_to_cpu(cid);
	return SCX_CPUPERF_ONE;
}
/* scx_bpf_cidperf_set() (ext.c:10322-10337 -> scx_bpf_cpuperf_set,
 * ext.c:10269-10312): a target above SCX_CPUPERF_ONE is an error; else
 * rq->scx.cpuperf_target for schedutil. The sim has no cpufreq governor:
 * the CPU's speed stays (host cpuperf_set records nothing). The kernel's
 * "Invalid target CPU" error for a remote CPU while an rq is locked is
 * not checked (the sim does not track which rq a callback holds) */
static __always_inline void scx_bpf_cidperf_set(s32 cid, u32 perf)
{
	s32 cpu = sim_cid_to_cpu(cid);

	if (cpu < 0)
		return;
	if (perf > SCX_CPUPERF_ONE) {
		sim_errorf("Invalid cpuperf target %u for CPU %d", perf, cpu);
		return;
	}
	SIM_CALL(cpuperf_set, cpu, perf);
}
/* scx_bpf_cid_override() (cid.c:300-358) and scx_bpf_cid_topo()
 * (cid.c:689-707): shim.c */
void sim_cid_override(const s32 *cpu_to_cid, u32 sz) __hidden;
void sim_cid_topo(s32 cid, struct scx_cid_topo *out, size_t sz) __hidden;
static __always_inline void scx_bpf_cid_override(const s32 *cpu_to_cid, u32 cpu_to_cid__sz)
{
	SIM_COUNT_CALL();
	sim_cid_override(cpu_to_cid, cpu_to_cid__sz);
}
static __always_inline void scx_bpf_cid_topo(s32 cid, struct scx_cid_topo *out, size_t out__sz)
{
	SIM_COUNT_CALL();
	sim_cid_topo(cid, out, out__sz);
}

/* scx_bpf_tid_to_task() (ext.c:10576-10593): shim.c's tid table */
struct task_struct *sim_tid_to_task(u64 tid) __hidden;
static __always_inline struct task_struct *scx_bpf_tid_to_task(u64 tid)
{
	SIM_COUNT_CALL();
	return sim_tid_to_task(tid);
}
/* scx_bpf_dispatch_nr_slots() (ext.c:9213-9224): dsp_max_batch (32:
 * SCX_DSP_DFL_MAX_BATCH, types.h:14) minus the inserts buffered so far in
 * this ops.dispatch (Core::kf_dispatch_nr_slots) */
static __always_inline u32 scx_bpf_dispatch_nr_slots(void) { return SIM_CALL(dispatch_nr_slots); }
/* scx_bpf_sub_dispatch() (ext.c:9433-9456): the sim has no sub-schedulers,
 * so scx_find_sub_sched() finds none and the call returns false */
static __always_inline bool scx_bpf_sub_dispatch(u64 cgroup_id) { SIM_COUNT_CALL(); return false; }
/*
 * scx_bpf_dsq_reenq() (ext.c:9954-9978; compat.bpf.h: 7.2 has it):
 * re-enqueue every task queued on a local or user DSQ, asynchronously.
 * Flags outside __SCX_REENQ_USER_MASK are an error; a DSQ that does not
 * exist is find_dsq_for_dispatch's error. The sim re-enqueues nothing from
 * a user DSQ: an empty one (scx_qmap's LOWPRI_DSQ, which only nice-19
 * tasks use) is a no-op, as in the kernel; a non-empty one is reported
 * as not modelled, an error exit rather than a silent no-op.
 */
static __always_inline bool __COMPAT_has_generic_reenq(void) { return true; }
static __always_inline void scx_bpf_dsq_reenq(u64 dsq_id, u64 reenq_flags)
{
	s32 n;

	SIM_COUNT_CALL();
	if (reenq_flags & ~__SCX_REENQ_USER_MASK) {
		sim_errorf("invalid SCX_REENQ flags 0x%llx", reenq_flags);
		return;
	}
	n = SIM_CALL(dsq_nr_queued, sim_dsq_arg(dsq_id));
	if (n == -ENOENT) {
		sim_errorf("non-existent DSQ 0x%llx for scx_bpf_dsq_reenq", dsq_id);
		return;
	}
	if (n > 0)
		sim_errorf("scx_bpf_dsq_reenq of DSQ 0x%llx with %d tasks: not modelled in the sim",
			   dsq_id, n);
}

/*
 * bpf_res_spin_lock / unlock (kernel/bpf/rqspinlock.c: the resilient
 * queued spin lock; struct bpf_res_spin_lock is a u32,
 * include/asm-generic/rqspinlock.h). The sim runs one callback at a time
 * and each to its end, and the verifier refuses a program that returns
 * with a lock held, so a lock is free whenever a callback starts and no
 * other CPU can hold it: there is no contention, no ABBA and no timeout.
 * The one failure left is the AA deadlock rqspinlock detects (this CPU
 * already holds the lock): -EDEADLK, as it returns it.
 */
#ifndef EDEADLK
#define EDEADLK 35
#endif
struct bpf_res_spin_lock {
	u32 val;
};
static __always_inline int bpf_res_spin_lock(struct bpf_res_spin_lock *l)
{
	SIM_COUNT_CALL();
	if (l->val)
		return -EDEADLK;
	l->val = 1;
	return 0;
}
static __always_inline void bpf_res_spin_unlock(struct bpf_res_spin_lock *l)
{
	SIM_COUNT_CALL();
	l->val = 0;
}

/* struct scx_event_stats (internal.h:964-1052): scx_bpf_events() copies
 * the core's event counters; the sim does not keep them in that form, so
 * a program that asks for them (scx_qmap only with -P) gets an error exit,
 * never zeroes */
struct scx_event_stats {
	s64 SCX_EV_SELECT_CPU_FALLBACK;
	s64 SCX_EV_DISPATCH_LOCAL_DSQ_OFFLINE;
	s64 SCX_EV_DISPATCH_KEEP_LAST;
	s64 SCX_EV_ENQ_SKIP_EXITING;
	s64 SCX_EV_ENQ_SKIP_MIGRATION_DISABLED;
	s64 SCX_EV_REENQ_IMMED;
	s64 SCX_EV_REFILL_SLICE_DFL;
	s64 SCX_EV_BYPASS_DURATION;
	s64 SCX_EV_BYPASS_DISPATCH;
	s64 SCX_EV_BYPASS_ACTIVATE;
};
static __always_inline void scx_bpf_events(struct scx_event_stats *events, size_t sz)
{
	__builtin_memset(events, 0, sz);
	sim_errorf("scx_bpf_events: the event counters are not modelled in the sim");
}
#define __COMPAT_scx_bpf_events(events, size) scx_bpf_events((events), (size))
#define scx_read_event(e, name) ((e)->name)

/*
 * ==== for scx_central (tools/sched_ext/ of 7.2) ====
 * RESIZABLE_ARRAY (common.bpf.h:212-229): an array in its own data
 * section, declared with one element and resized by the loader to its
 * element count (RESIZE_ARRAY) before load. Natively the array is sized
 * for the simulator's maximum, SIM_MAX_CPUS elements; the program indexes
 * it below the count its loader writes into its rodata (scx_central:
 * nr_cpu_ids, ARRAY_ELEM_PTR's bound), so it sees the same elements.
 */
#define RESIZABLE_ARRAY(elfsec, arr) arr[SIM_MAX_CPUS]
/* include/uapi/linux/bpf.h: BPF_F_TIMER_ABS, BPF_F_TIMER_CPU_PIN (the
 * timer fires on the CPU that started it). The sim's timers always fire on
 * the CPU that armed them (Core::kf_timer_start), which is the pinned
 * behaviour; an unpinned hrtimer may fire elsewhere in the kernel */
#define BPF_F_TIMER_ABS		(1ULL << 0)
#define BPF_F_TIMER_CPU_PIN	(1ULL << 1)

#ifdef SIM_KERNEL_CID_BPF_H
#include SIM_KERNEL_CID_BPF_H
#endif

#endif /* __SIM_SCX_COMMON_BPF_H */
