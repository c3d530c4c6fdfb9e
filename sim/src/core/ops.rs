//! The scheduler as the core calls it: sched_ext's callbacks
//! (struct sched_ext_ops). The native BPF scheduler implements it by
//! calling its compiled C (sched/native.rs); tests implement it in Rust to
//! drive the core with crafted schedulers, including broken ones.

use super::Core;
use crate::task::TaskId;

pub trait Ops {
    fn name(&self) -> &str;
    /// SCX_OPS_* flags.
    fn flags(&self) -> u64;
    fn init(&mut self, core: &mut Core) -> Result<(), String>;
    fn init_task(&mut self, core: &mut Core, t: TaskId, fork: bool) -> Result<(), String>;
    fn enable(&mut self, core: &mut Core, t: TaskId);
    fn exit_task(&mut self, core: &mut Core, t: TaskId);
    /// None: the scheduler has no select_cpu (the core keeps prev).
    fn select_cpu(
        &mut self,
        core: &mut Core,
        t: TaskId,
        prev: usize,
        wake_flags: u64,
    ) -> Option<i32>;
    /// False: no enqueue callback (the core inserts into the global DSQ).
    fn enqueue(&mut self, core: &mut Core, t: TaskId, enq_flags: u64) -> bool;
    /// Whether it defines ops.enqueue (validate_ops checks it).
    fn has_enqueue(&self) -> bool {
        true
    }
    /// False: no dispatch callback.
    fn dispatch(&mut self, core: &mut Core, cpu: usize, prev: Option<TaskId>) -> bool;
    fn runnable(&mut self, core: &mut Core, t: TaskId, enq_flags: u64);
    fn running(&mut self, core: &mut Core, t: TaskId);
    fn stopping(&mut self, core: &mut Core, t: TaskId, runnable: bool);
    fn quiescent(&mut self, core: &mut Core, t: TaskId, deq_flags: u64);
    fn tick(&mut self, core: &mut Core, t: TaskId);
    fn update_idle(&mut self, core: &mut Core, cpu: usize, idle: bool);
    /// A BPF timer the scheduler armed has fired.
    fn timer(&mut self, core: &mut Core, timer: usize);
    /// The scheduler is being unloaded (or ejected: `reason`).
    fn exit(&mut self, core: &mut Core, reason: &str);
    /// Its own counters (for scx_arbor: the --stats-json names).
    fn counters(&self) -> Vec<(String, u64)>;
    /// SCX_OPS_HAS_CPU_PREEMPT: ops.cpu_acquire or ops.cpu_release is
    /// implemented (ext.c:7523-7524); only then are they called.
    fn has_cpu_preempt(&self) -> bool {
        false
    }
    /// ops.cpu_acquire(cpu, NULL): the CPU is back under sched_ext
    /// (balance_one, ext.c:2951-2962).
    fn cpu_acquire(&mut self, _core: &mut Core, _cpu: usize) {}
    /// ops.cpu_release(cpu, {SCX_CPU_PREEMPT_RT, next}): a higher class
    /// took the CPU from sched_ext (switch_class, ext.c:3095-3132).
    fn cpu_release(&mut self, _core: &mut Core, _cpu: usize, _next: TaskId) {}
    /// Whether it defines ops.dequeue; ext.c calls it only then
    /// (SCX_HAS_OP, ops_dequeue ext.c:2183, local_dsq_post_enq 1472,
    /// dispatch_enqueue 1649-1657), so an undefined one costs nothing.
    fn has_dequeue(&self) -> bool {
        false
    }
    /// ops.dequeue(p, deq_flags): the task leaves BPF custody (core/affinity.rs).
    fn dequeue(&mut self, _core: &mut Core, _t: TaskId, _deq_flags: u64) {}
    /// Whether it defines ops.set_cpumask (set_cpus_allowed_scx, ext.c:3579).
    fn has_set_cpumask(&self) -> bool {
        false
    }
    /// ops.set_cpumask(p, p->cpus_ptr): its affinity changed.
    fn set_cpumask(&mut self, _core: &mut Core, _t: TaskId) {}
    /// Whether it defines ops.set_weight (reweight_task_scx, ext.c:4172).
    fn has_set_weight(&self) -> bool {
        false
    }
    /// ops.set_weight(p, weight) on a nice change (the one after ops.enable
    /// is part of [`Ops::enable`]).
    fn set_weight(&mut self, _core: &mut Core, _t: TaskId, _weight: u32) {}
    /// Whether it has ops.cgroup_init / ops.cgroup_exit (ext.c calls
    /// each only if the scheduler defines it).
    fn cgroup_ops(&self) -> (bool, bool) {
        (false, false)
    }
    /// Whether its cgroup callbacks act on groups below the root only, so
    /// that a run with the root alone need not call them (core/cgroup.rs).
    fn cgroup_groups_only(&self) -> bool {
        false
    }
    /// ops.cgroup_init for the root cgroup and then each of core.cgroups
    /// below it, parents first, as scx_cgroup_init calls it after ops.init
    /// (ext.c:5028-5062, 7554).
    fn cgroup_init(&mut self, _core: &mut Core) -> Result<(), String> {
        Ok(())
    }
    /// ops.cgroup_exit for the groups below the root, children first, then
    /// the root, as scx_cgroup_exit calls it when the scheduler is
    /// disabled, before ops.exit (ext.c:5004-5025, 6354).
    fn cgroup_exit(&mut self, _core: &mut Core) {}
    /// Which of the run-time cgroup callbacks it defines (core/cgroup_events.rs).
    fn cgroup_run_ops(&self) -> RunOps {
        Default::default()
    }
    /// Task t's css_set and task group become group `to`'s (a move's
    /// sched_change_group; not a callback).
    fn cgroup_attach(&mut self, _core: &mut Core, _t: TaskId, _to: usize) {}
    /// Group g's kernfs node becomes active or not, so that
    /// bpf_cgroup_from_id finds it or not (an mkdir activates it after its
    /// ops.cgroup_init, an rmdir deactivates it before ops.cgroup_exit:
    /// cgroup_events.rs; not a callback).
    fn cgroup_set_active(&mut self, _core: &mut Core, _g: usize, _active: bool) {}
    /// ops.cgroup_prep_move(p, from, to): 0 or a negative errno.
    fn cgroup_prep_move(&mut self, _core: &mut Core, _t: TaskId, _from: usize, _to: usize) -> i32 {
        0
    }
    /// ops.cgroup_move(p, from, to).
    fn cgroup_move(&mut self, _core: &mut Core, _t: TaskId, _from: usize, _to: usize) {}
    /// ops.cgroup_cancel_move(p, from, to).
    fn cgroup_cancel_move(&mut self, _core: &mut Core, _t: TaskId, _from: usize, _to: usize) {}
    /// ops.cgroup_set_weight(cgrp, weight) for group g.
    fn cgroup_set_weight(&mut self, _core: &mut Core, _g: usize, _weight: u32) {}
    /// ops.cgroup_set_bandwidth(cgrp, period_us, quota_us, burst_us).
    fn cgroup_set_bandwidth(
        &mut self,
        _core: &mut Core,
        _g: usize,
        _period_us: u64,
        _quota_us: u64,
        _burst_us: u64,
    ) {
    }
    /// ops.cgroup_set_idle(cgrp, idle).
    fn cgroup_set_idle(&mut self, _core: &mut Core, _g: usize, _idle: bool) {}
    /// ops.cgroup_init for group g made at run time (scx_tg_online).
    fn cgroup_init_one(&mut self, _core: &mut Core, _g: usize) -> Result<(), String> {
        Ok(())
    }
    /// ops.cgroup_exit for group g removed at run time (scx_tg_offline).
    fn cgroup_exit_one(&mut self, _core: &mut Core, _g: usize) {}
    /// Whether it defines ops.cpu_online / ops.cpu_offline; without one,
    /// a CPU coming up / going down exits the scheduler (handle_hotplug,
    /// ext.c:3601-3610).
    fn hotplug_ops(&self) -> (bool, bool) {
        (false, false)
    }
    /// ops.cpu_online(cpu) / ops.cpu_offline(cpu) (core/hotplug.rs).
    fn cpu_online(&mut self, _core: &mut Core, _cpu: usize) {}
    fn cpu_offline(&mut self, _core: &mut Core, _cpu: usize) {}
}

/// Which of the run-time cgroup callbacks a scheduler defines (ext.c's
/// SCX_HAS_OP): one it lacks is not called, and costs nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOps {
    pub prep_move: bool,
    pub move_: bool,
    pub cancel_move: bool,
    pub set_weight: bool,
    pub set_bandwidth: bool,
    pub set_idle: bool,
}
