/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: stands in for <bpf_experimental.h>. Of it the peers use the
 * may_goto loop macros and preemption guards (<bpf_arena_common.bpf.h>)
 * and the execution-context tests below; anything else it declares is
 * absent here, and a use fails the build.
 */
#ifndef __SIM_BPF_EXPERIMENTAL_H
#define __SIM_BPF_EXPERIMENTAL_H

#include "bpf_arena_common.bpf.h"

/* the simulator runs sched_ext callbacks and syscall programs in task
 * context: never in NMI, hard or soft interrupt */
static __always_inline int bpf_in_nmi(void) { return 0; }
static __always_inline int bpf_in_hardirq(void) { return 0; }
static __always_inline int bpf_in_serving_softirq(void) { return 0; }
static __always_inline int bpf_in_interrupt(void) { return 0; }
static __always_inline int bpf_in_task(void) { return 1; }

#endif
