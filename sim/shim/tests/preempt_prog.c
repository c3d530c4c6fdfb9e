/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: a test scheduler that implements only ops.cpu_release and
 * ops.cpu_acquire (everything else is ext.c's default: the global DSQ),
 * recording what the simulator passed. sim/build.rs compiles it with the
 * shim like a scheduler; core/tests/rt.rs runs it against an RT task.
 */
#include <scx/common.bpf.h>

u64 nr_release, nr_acquire;
s32 release_cpu = -1, release_pid = -1, acquire_cpu = -1;
u32 release_reason = 99;
bool acquire_args_null;

void BPF_STRUCT_OPS(preempt_cpu_release, s32 cpu, struct scx_cpu_release_args *args)
{
	nr_release++;
	release_cpu = cpu;
	release_reason = args->reason;
	release_pid = args->task ? args->task->pid : -1;
}

void BPF_STRUCT_OPS(preempt_cpu_acquire, s32 cpu, struct scx_cpu_acquire_args *args)
{
	nr_acquire++;
	acquire_cpu = cpu;
	acquire_args_null = !args;
}

SCX_OPS_DEFINE(preempt_ops,
	       .cpu_release = (void *)preempt_cpu_release,
	       .cpu_acquire = (void *)preempt_cpu_acquire,
	       .name = "preempt");

const struct sched_ext_ops *sim_ops(void)
{
	return &preempt_ops;
}
