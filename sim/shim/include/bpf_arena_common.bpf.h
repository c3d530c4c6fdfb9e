/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: stands in for scx's <bpf_arena_common.bpf.h>. Natively an
 * arena is plain memory (the map and its kfuncs: scx/common.bpf.h and
 * shim.c), so:
 *  - an __arena pointer is a plain pointer, and the address-space casts
 *    (cast_kern / cast_user / bpf_addr_space_cast) are no-ops: the program
 *    and the simulator share one address space, as BPF_F_ARENA_SCALAR's
 *    "a pointer is its user address" does;
 *  - can_loop is true and cond_break never breaks: the kernel's may_goto
 *    ends a loop after BPF_MAX_LOOPS (8M) iterations of one program run;
 *    natively a loop ends by its own condition only (a loop that needed
 *    the budget would hang the simulator, not be cut short silently);
 *  - bpf_preempt_disable / enable are no-ops (one CPU runs at a time).
 */
#ifndef __SIM_BPF_ARENA_COMMON_BPF_H
#define __SIM_BPF_ARENA_COMMON_BPF_H

#include "scx/common.bpf.h"

#define __arena
#define __arena_global
#define cast_kern(ptr) ((void)0)
#define cast_user(ptr) ((void)0)
#define bpf_addr_space_cast(var, dst_as, src_as) ((void)0)

#define can_loop true
#define __cond_break(expr) ((void)0)
#define cond_break __cond_break(break)
#define cond_break_label(label) __cond_break(goto label)

static __always_inline void bpf_preempt_disable(void) { SIM_COUNT_CALL(); }
static __always_inline void bpf_preempt_enable(void) { SIM_COUNT_CALL(); }

#endif /* __SIM_BPF_ARENA_COMMON_BPF_H */
