//! What scx_lavd reads of the kernel that the other schedulers do not: the
//! PELT clocks (kernel/sched/pelt.h), the CPU capacity sched_ext reports
//! (scx_bpf_cpuperf_cap), the
//! task's priority and parent, and its run time (se.sum_exec_runtime).
//! docs/sim/arena.md ("lavd") states each model and its limits.

use super::*;
use crate::task::nice_to_weight;

/// The process that started the workload (hackbench's main process, ...):
/// every simulated task's `real_parent`. The sim does not schedule it, and
/// its pid (1) is no simulated task's, so bpf_task_from_pid(1) is NULL.
pub(super) fn launcher() -> Box<TaskStruct> {
    let mut ts = Box::new(new_task_struct(1, 1, 0, 100));
    ts.sim_id = u32::MAX;
    let me: *mut TaskStruct = &mut *ts;
    ts.real_parent = me;
    ts
}

/// `static_prio` (= prio = normal_prio for a SCHED_OTHER task) of a task
/// of weight `weight`: 120 + nice (MAX_RT_PRIO + 20 + nice,
/// NICE_TO_PRIO). The simulated tasks' weights come from nice_to_weight
/// (rt-app's "priority") or are 100 (nice 0), so the nice is the one whose
/// weight it is; a weight no nice gives takes the nice of the nearest one.
pub(super) fn static_prio(weight: u32) -> i32 {
    let nice = (-20..=19)
        .min_by_key(|&n| (nice_to_weight(n) as i64 - weight as i64).abs())
        .unwrap_or(0);
    120 + nice
}

impl Core {
    /// update_rq_clock on `cpu` (core.c), its clock_task and clock_pelt
    /// brought up to now: clock_task is the core's clock (no IRQ or steal
    /// time); update_rq_clock_pelt (pelt.h): while the CPU runs a task,
    /// clock_pelt advances by the elapsed time scaled by its capacity
    /// (cap_scale(delta, arch_scale_cpu_capacity); frequency is fixed,
    /// x 1024 / 1024); while it runs its idle task,
    /// _update_idle_rq_clock_pelt sets it to clock_task. The core calls it
    /// where the kernel updates the rq clock: before the CPU's curr
    /// changes (schedule), at its ticks, and when a callback runs on the
    /// CPU itself (under its rq lock, after update_rq_clock). Between
    /// those a remote reader sees the last values: an idle CPU's clocks
    /// stand still, as with NO_HZ_IDLE (the sim stops an idle CPU's tick).
    pub(super) fn pelt_update(&mut self, cpu: usize) {
        let (pelt, _, at) = self.pelt[cpu];
        let now = self.now;
        let v = if self.cpus[cpu].curr.is_none() {
            now
        } else {
            let delta = now.saturating_sub(at);
            let cap = self.machine.cpus[cpu].capacity as u64;
            pelt + ((delta * cap) >> 10)
        };
        self.pelt[cpu] = (v, now, now);
    }

    /// scx_clock_task(cpu): rq->clock_task as of the CPU's last clock
    /// update (fresh when called on the CPU itself); 0 for an invalid CPU
    /// (get_current_rq is NULL).
    pub fn kf_clock_task(&mut self, cpu: u32) -> u64 {
        self.clocks_of(cpu).map_or(0, |c| c.1)
    }

    /// scx_clock_pelt(cpu): rq_clock_pelt() = clock_pelt - lost_idle_time,
    /// as of the CPU's last clock update. lost_idle_time stays 0:
    /// update_idle_rq_clock_pelt adds to it only when the rq's cfs + rt +
    /// dl util_sum is saturated at idle entry, and under sched_ext no task
    /// is in those classes.
    pub fn kf_clock_pelt(&mut self, cpu: u32) -> u64 {
        self.clocks_of(cpu).map_or(0, |c| c.0)
    }

    /// A CPU's (clock_pelt, clock_task, last update) as of its last clock
    /// update, brought up to date first when read on the CPU itself; None
    /// for an invalid CPU.
    fn clocks_of(&mut self, cpu: u32) -> Option<(u64, u64, u64)> {
        let cpu = cpu as usize;
        if cpu >= self.cpus.len() {
            return None;
        }
        if cpu == self.this_cpu {
            self.pelt_update(cpu);
        }
        Some(self.pelt[cpu])
    }

    /// scx_bpf_cpuperf_cap(cpu) (ext.c:10167-10178): the CPU's
    /// arch_scale_cpu_capacity; an invalid CPU is a scheduler error
    /// (scx_cpu_valid, ext.c:1108-1116) and the call returns SCX_CPUPERF_ONE.
    pub fn kf_cpuperf_cap(&mut self, cpu: i32) -> u32 {
        if cpu < 0 || cpu as usize >= self.cpus.len() {
            self.eject(format!("invalid CPU {cpu}"));
            return 1024;
        }
        self.machine.cpus[cpu as usize].capacity
    }
}
