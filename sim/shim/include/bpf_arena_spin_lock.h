/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: stands in for scx's <bpf_arena_spin_lock.h> (the kernel's
 * resilient queued spin lock, kernel/bpf/rqspinlock.c, on arena memory).
 * One CPU runs at a time in the simulator, so a lock is never contended;
 * taking a lock this CPU already holds is the AA deadlock rqspinlock
 * detects: -EDEADLK, as res_spin_lock returns it.
 */
#ifndef __SIM_BPF_ARENA_SPIN_LOCK_H
#define __SIM_BPF_ARENA_SPIN_LOCK_H

#include "bpf_arena_common.bpf.h"

#define EDEADLK 35
#define ETIMEDOUT 110

struct __qspinlock {
	int locked;
};
#define arena_spinlock_t struct __qspinlock

/* the MCS queue nodes of the kernel's lock (lib/common.bpf.c defines the
 * array); a lock that is never contended never queues: unused natively */
#define _Q_MAX_CPUS 16384
#define _Q_MAX_NODES 4
struct arena_qnode {
	u64 next;
	int count;
	int locked;
};
extern struct arena_qnode __arena_global qnodes[_Q_MAX_CPUS][_Q_MAX_NODES];

static __always_inline int arena_spin_lock(arena_spinlock_t __arena *lock)
{
	SIM_COUNT_CALL();
	if (lock->locked)
		return -EDEADLK;
	lock->locked = 1;
	return 0;
}

static __always_inline void arena_spin_unlock(arena_spinlock_t __arena *lock)
{
	SIM_COUNT_CALL();
	lock->locked = 0;
}

/* bpf_local_irq_save / restore: no interrupts in the simulator */
static __always_inline void bpf_local_irq_save(unsigned long *flags) { *flags = 0; }
static __always_inline void bpf_local_irq_restore(unsigned long *flags) {}

#define arena_spin_lock_irqsave(lock, flags)                         \
	({                                                           \
		int __ret;                                           \
		bpf_local_irq_save(&(flags));                        \
		__ret = arena_spin_lock((lock));                     \
		if (__ret)                                           \
			bpf_local_irq_restore(&(flags));             \
		(__ret);                                             \
	})
#define arena_spin_unlock_irqrestore(lock, flags)                    \
	({                                                           \
		arena_spin_unlock((lock));                           \
		bpf_local_irq_restore(&(flags));                     \
	})

#endif
