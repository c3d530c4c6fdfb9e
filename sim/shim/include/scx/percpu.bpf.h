/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: stands in for <scx/percpu.bpf.h>, which reads the kernel's
 * per-CPU scheduler variables (sd_llc_id, sd_llc_size, ...) through
 * bpf_per_cpu_ptr(). Here they come from the simulated machine.
 */
#ifndef __SIM_SCX_PERCPU_BPF_H
#define __SIM_SCX_PERCPU_BPF_H

#include "common.bpf.h"

/* per_cpu(sd_llc_id, cpu): the id of the first CPU of cpu's LLC */
static __always_inline int cpu_llc_id(s32 cpu) { return SIM_CALL(host_cpu_llc, cpu); }
static __always_inline int this_cpu_llc_id(void) { return cpu_llc_id(bpf_get_smp_processor_id()); }

/* per_cpu(sched_core_priority, cpu): x86 ITMT's per-CPU priority (0 unless
 * the platform sets it); the simulated machines have none: 0 */
static __always_inline int cpu_priority(s32 cpu) { SIM_COUNT_CALL(); return 0; }
static __always_inline int this_cpu_priority(void) { return cpu_priority(bpf_get_smp_processor_id()); }

#endif /* __SIM_SCX_PERCPU_BPF_H */
