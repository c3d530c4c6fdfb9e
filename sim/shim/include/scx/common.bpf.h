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

/* ---- attributes and BPF program-section macros ---- */
#undef __always_inline
#define __always_inline inline __attribute__((always_inline))
#define __hidden __attribute__((visibility("hidden")))
#define __weak __attribute__((weak))
#define __noinline __attribute__((noinline))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define barrier() __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define SEC(name)
#define BPF_STRUCT_OPS(name, args...) name(args)
#define BPF_STRUCT_OPS_SLEEPABLE(name, args...) name(args)
#define BPF_PROG(name, args...) name(args)
#define bpf_printk(fmt, args...) ((void)0)

/* ---- the kernel objects the scheduler reads ---- */
#define PF_EXITING 0x00000004
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
};

struct scx_init_task_args {
	bool fork;
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
#define SCX_ENQ_REENQ		(1ULL << 40)
#define SCX_ENQ_LAST		(1ULL << 41)
#define SCX_ENQ_DSQ_PRIQ	(1ULL << 57)

#define SCX_DEQ_SLEEP		(1ULL << 0)

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

#define CLOCK_MONOTONIC 1
#define BPF_F_NO_PREALLOC (1U << 0)
#define BPF_ANY 0
#define BPF_NOEXIST 1
#define BPF_EXIST 2
#define BPF_LOCAL_STORAGE_GET_F_CREATE (1ULL << 0)

/* ---- struct_ops: the callbacks the simulator calls ---- */
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
};

extern struct sim_host *sim_host __hidden;
/* helper and kfunc calls made inside the current callback (the cost model) */
extern u64 sim_nr_calls;

void *sim_calloc(u64 n, u64 size) __hidden;
void sim_uei_record(struct user_exit_info *uei, const struct scx_exit_info *ei) __hidden;
void sim_errorf(const char *fmt, ...) __hidden __attribute__((format(printf, 1, 2)));

#define SIM_CALL(fn, args...) (sim_nr_calls++, sim_host->fn(sim_host->ctx, ##args))

/* ---- BPF helpers ---- */
static __always_inline u64 bpf_ktime_get_ns(void) { return SIM_CALL(ktime); }
static __always_inline u32 bpf_get_smp_processor_id(void) { return SIM_CALL(this_cpu); }
static __always_inline struct task_struct *bpf_get_current_task_btf(void) { return SIM_CALL(current); }
/* one CPU runs at a time in the simulator: a spin lock is never contended */
static __always_inline void bpf_spin_lock(struct bpf_spin_lock *l) { sim_nr_calls++; l->val = 1; }
static __always_inline void bpf_spin_unlock(struct bpf_spin_lock *l) { sim_nr_calls++; l->val = 0; }

/* ---- cpumask kfuncs ---- */
static __always_inline bool bpf_cpumask_test_cpu(u32 cpu, const struct cpumask *m)
{
	sim_nr_calls++;
	return cpu < SIM_MAX_CPUS && (m->bits[cpu / 64] >> (cpu % 64)) & 1;
}

/* ---- sched_ext kfuncs (kernel/sched/ext.c, ext_idle.c) ---- */
static __always_inline s32 scx_bpf_task_cpu(const struct task_struct *p) { return SIM_CALL(task_cpu, p); }
static __always_inline void scx_bpf_dsq_insert(struct task_struct *p, u64 dsq, u64 slice, u64 enq_flags)
{
	SIM_CALL(dsq_insert, p, dsq, slice, 0, enq_flags, false);
}
static __always_inline void scx_bpf_dsq_insert_vtime(struct task_struct *p, u64 dsq, u64 slice,
						     u64 vtime, u64 enq_flags)
{
	SIM_CALL(dsq_insert, p, dsq, slice, vtime, enq_flags, true);
}
/* 7.2 takes enq_flags too (scx_bpf_dsq_move_to_local(dsq_id, enq_flags)) */
static __always_inline bool scx_bpf_dsq_move_to_local(u64 dsq, u64 enq_flags)
{
	return SIM_CALL(dsq_move_to_local, dsq, enq_flags);
}
static __always_inline s32 scx_bpf_dsq_nr_queued(u64 dsq) { return SIM_CALL(dsq_nr_queued, dsq); }
static __always_inline s32 scx_bpf_create_dsq(u64 dsq, s32 node) { return SIM_CALL(create_dsq, dsq, node); }
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

/* ---- open-coded iterators ---- */
#define bpf_for(i, start, end) for ((i) = (start); (i) < (end); (i)++)

static __always_inline void sim_iter_scx_dsq_destroy(struct bpf_iter_scx_dsq *it)
{
	SIM_CALL(iter_destroy, it->handle);
}
#define bpf_for_each(type, cur, args...)                                                    \
	for (struct bpf_iter_##type ___it __attribute__((cleanup(sim_iter_##type##_destroy))) = \
		     { .handle = sim_iter_##type##_new(args) };                                  \
	     ((cur) = sim_iter_##type##_next(&___it));)
#define BPF_FOR_EACH_ITER (&___it)
static __always_inline u64 sim_iter_scx_dsq_new(u64 dsq, u64 flags) { return SIM_CALL(iter_new, dsq, flags); }
static __always_inline struct task_struct *sim_iter_scx_dsq_next(struct bpf_iter_scx_dsq *it)
{
	return SIM_CALL(iter_next, it->handle);
}
static __always_inline bool scx_bpf_dsq_move(struct bpf_iter_scx_dsq *it, struct task_struct *p,
					     u64 dsq, u64 enq_flags)
{
	return SIM_CALL(dsq_move, it->handle, p, dsq, enq_flags);
}

/* ---- timers ---- */
static __always_inline long bpf_timer_init(struct bpf_timer *t, void *map, u64 flags)
{
	sim_nr_calls++;
	t->map = map;
	return 0;
}
#define bpf_timer_set_callback(t, fn) (sim_nr_calls++, (t)->cb = (void *)(fn), 0)
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
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
};

#define __uint(name, val) int (*name)[val]
#define __type(name, val) __typeof__(val) *name
#define __array(name, val) __typeof__(val) *name[]

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

static __always_inline void *sim_map_lookup(void **slot, int type, u32 max, u32 ksz, u32 vsz,
					    const void *key)
{
	u32 k;

	sim_nr_calls++;
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

#define bpf_map_lookup_elem(m, k) \
	sim_map_lookup(SIM_MAP_SLOT(m), SIM_MAP_TYPE(m), SIM_MAP_MAX(m), SIM_MAP_KSZ(m), SIM_MAP_VSZ(m), (k))

/* a compile-time check inside an expression: a negative array size fails the build */
#define SIM_BUILD_CHECK(cond) ((void)sizeof(char[(cond) ? 1 : -1]))

/* only hash maps take updates and deletes here (arrays are written in place) */
#define bpf_map_update_elem(m, k, v, f)                                        \
	(SIM_BUILD_CHECK(SIM_MAP_TYPE(m) == BPF_MAP_TYPE_HASH), sim_nr_calls++, \
	 sim_hash_update(SIM_MAP_SLOT(m), SIM_MAP_MAX(m), SIM_MAP_KSZ(m), SIM_MAP_VSZ(m), (k), (v), (f)))

#define bpf_map_delete_elem(m, k) \
	(SIM_BUILD_CHECK(SIM_MAP_TYPE(m) == BPF_MAP_TYPE_HASH), sim_nr_calls++, \
	 sim_hash_delete(SIM_MAP_SLOT(m), SIM_MAP_KSZ(m), (k)))

#define bpf_task_storage_get(m, p, init, flags) \
	(SIM_BUILD_CHECK(SIM_MAP_TYPE(m) == BPF_MAP_TYPE_TASK_STORAGE), sim_nr_calls++, \
	 sim_task_storage(SIM_MAP_SLOT(m), SIM_MAP_VSZ(m), (p), (flags)))

#endif /* __SIM_SCX_COMMON_BPF_H */
