//! What the core and a workload say to each other: a task's id, what it
//! is ([`TaskSpec`]), what it does next ([`Step`]) and the side effects of
//! that step ([`Effects`]), simulated time ([`Ns`]), and the [`Workload`]
//! interface the core drives. They sit under both the core and the
//! workloads (crate::workload re-exports them), so that the core needs
//! nothing from the workloads above it.

use serde::Serialize;

/// A task, as the simulator knows it: an index into its task table.
pub type TaskId = usize;

/// Nanoseconds of simulated time.
pub type Ns = u64;

/// What a new task is. `tgid` groups threads into processes (seed 002
/// aggregates by process); tasks of one process share `shared_bytes`.
#[derive(Clone, Debug, Serialize)]
pub struct TaskSpec {
    pub name: String,
    /// Process id; a process's first task has pid == tgid.
    pub tgid: u32,
    /// Nice-0 weight is 100 (sched_ext's p->scx.weight scale).
    pub weight: u32,
    /// CPUs it may run on; None = all.
    pub cpus: Option<Vec<usize>>,
    /// Private working set, bytes: refilled after a migration or after
    /// others evicted it.
    pub working_set: u64,
    /// Bytes of data shared by all tasks of the process, and how many of
    /// its lines a run touches per µs of work (0 = none).
    pub shared_bytes: u64,
    pub shared_lines_per_us: f64,
    /// When it starts (ns after the run begins).
    pub start_at: Ns,
    /// Started by fork (SCX_WAKE_FORK placement) from the process's first
    /// task rather than present from the beginning.
    pub forked: bool,
    /// Started only when another task's step forks it ([`Effects::fork`]),
    /// on that task's CPU, not at `start_at` (a replayed trace's forks).
    pub on_fork: bool,
    /// Forked by this task (parent.rs's launcher): it starts at its time on
    /// the CPU that task is on, running, so that the fork placement sees
    /// the parent's CPU busy, as wake_up_new_task does for a program that
    /// forks its workers. None: it starts on its first allowed CPU.
    pub parent: Option<TaskId>,
    /// A SCHED_FIFO/SCHED_RR task of this real-time priority (1..=99):
    /// not a sched_ext task but load that preempts them (core/rt.rs).
    pub rt_prio: Option<u32>,
    /// The cgroup it runs in; None: the root (core/cgroup.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<Cgroup>,
}

/// A cgroup v2 group below the root: its path (`/a/x`), its cpu.weight
/// (1..=10000, 100 = the default) and its limits. Its ancestors not named
/// elsewhere have weight 100 and no limits.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Cgroup {
    pub path: String,
    pub weight: u32,
    /// the group's limits (none by default)
    #[serde(flatten)]
    pub limits: CgroupLimits,
}

/// cpu.max, cpu.max.burst and cpu.idle of a cgroup.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct CgroupLimits {
    /// cpu.max: (quota, period) in microseconds; None: "max"
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<(u64, u64)>,
    /// cpu.max.burst in microseconds
    #[serde(skip_serializing_if = "is_zero")]
    pub burst: u64,
    /// cpu.idle
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub idle: bool,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

impl TaskSpec {
    pub fn new(name: impl Into<String>, tgid: u32) -> TaskSpec {
        TaskSpec {
            name: name.into(),
            tgid,
            weight: 100,
            cpus: None,
            working_set: 64 << 10,
            shared_bytes: 0,
            shared_lines_per_us: 0.0,
            start_at: 0,
            forked: true,
            on_fork: false,
            parent: None,
            rt_prio: None,
            cgroup: None,
        }
    }
}

/// What a task does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Compute for this much work: ns on a CPU of capacity 1024 running
    /// alone on its core with a warm cache.
    Run(Ns),
    /// Sleep this long (a timer wakes it; not a sync wake-up).
    Sleep(Ns),
    /// Wait until another task wakes it; `next` is then called again.
    Block,
    Exit,
}

/// Side effects of a step, applied by the simulator in order.
#[derive(Default, Debug)]
pub struct Effects {
    /// (task, sync, bytes of data the wakee will read that the waker wrote)
    pub wakes: Vec<(TaskId, bool, u64)>,
    /// Tasks (`on_fork`) this step creates, before its wake-ups.
    pub forks: Vec<TaskId>,
    /// Property changes this step makes, first of all its effects, in
    /// order: sched_setaffinity(task, CPUs) and setpriority(task, nice)
    /// (as the weight it gives). The task may be itself (core/affinity.rs).
    pub props: Vec<(TaskId, Prop)>,
    /// Each wake-up is a system call of its own (schbench's and
    /// wakeprobe's loop of FUTEX_WAKE of one): the waker may be preempted
    /// between two of them, at the return to user space. Otherwise the
    /// wake-ups are one kernel call (a wait queue's __wake_up_common under
    /// its lock, futex_wake's wake_up_q), which a non-full preemption model
    /// (Debian's PREEMPT_VOLUNTARY / PREEMPT_LAZY) does not preempt.
    pub wakes_apart: bool,
}

/// A change of a task's scheduling properties (core/affinity.rs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    /// sched_setaffinity: the CPUs it may run on.
    Cpus(Vec<usize>),
    /// setpriority: its new weight (nice 0 = 100; [`nice_to_weight`]).
    Weight(u32),
}

impl Effects {
    /// No wake-up, fork or property change.
    pub fn is_empty(&self) -> bool {
        self.wakes.is_empty() && self.forks.is_empty() && self.props.is_empty()
    }

    /// Empties it, keeping its buffers for the next step.
    pub fn clear(&mut self) {
        self.wakes.clear();
        self.forks.clear();
        self.props.clear();
        self.wakes_apart = false;
    }

    pub fn fork(&mut self, t: TaskId) {
        self.forks.push(t);
    }

    pub fn wake(&mut self, t: TaskId, sync: bool, bytes: u64) {
        self.wakes.push((t, sync, bytes));
    }

    /// sched_setaffinity(t, cpus).
    pub fn set_cpus(&mut self, t: TaskId, cpus: Vec<usize>) {
        self.props.push((t, Prop::Cpus(cpus)));
    }

    /// setpriority(t, nice).
    pub fn set_nice(&mut self, t: TaskId, nice: i64) {
        self.props
            .push((t, Prop::Weight(nice_to_weight(nice.clamp(-20, 19) as i32))));
    }
}

/// One named number a workload reports, with its metadata.
#[derive(Clone, Debug, Serialize)]
pub struct Metric {
    pub name: String,
    pub value: f64,
    pub unit: &'static str,
    pub higher_is_better: bool,
}

impl Metric {
    pub fn new(name: &str, value: f64, unit: &'static str, higher_is_better: bool) -> Metric {
        Metric {
            name: name.into(),
            value,
            unit,
            higher_is_better,
        }
    }

    /// A latency measured in ns, reported in us (lower is better).
    pub fn us_from_ns(name: &str, ns: f64) -> Metric {
        Metric::new(name, ns / 1e3, "us", false)
    }
}

pub trait Workload {
    /// Its tasks; task ids are their indices in this list.
    fn tasks(&self) -> Vec<TaskSpec>;
    /// Called when task `t` starts, and each time its previous step is
    /// over (a Run finished, a Sleep ended, a Block was woken).
    fn next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step;
    /// Called when task `t`, woken at `woken_at`, resumes its own code at
    /// `now`: after the context switch, the CPU's pending kernel work and
    /// the read of what its waker wrote, not yet the refill of its working
    /// set (wake-up latency probes use it, as a clock read after the wait
    /// returns does).
    fn on_run(&mut self, _t: TaskId, _woken_at: Ns, _now: Ns) {}
    /// True once the workload has finished (all work done); the run may
    /// also end at a time limit.
    fn finished(&self) -> bool;
    /// Its results, at the end of the run (`elapsed` = simulated time).
    fn metrics(&self, elapsed: Ns) -> Vec<Metric>;
}

/// Linux's `sched_prio_to_weight` (kernel/sched/core.c): CFS load weight
/// of nice -20 ..= 19, nice 0 = 1024, each step about 1.25x.
const PRIO_TO_WEIGHT: [u64; 40] = [
    88761, 71755, 56483, 46273, 36291, // -20 .. -16
    29154, 23254, 18705, 14949, 11916, // -15 .. -11
    9548, 7620, 6100, 4904, 3906, // -10 .. -6
    3121, 2501, 1991, 1586, 1277, // -5 .. -1
    1024, 820, 655, 526, 423, // 0 .. 4
    335, 272, 215, 172, 137, // 5 .. 9
    110, 87, 70, 56, 45, // 10 .. 14
    36, 29, 23, 18, 15, // 15 .. 19
];

/// `p->scx.weight` of a SCHED_OTHER task of this nice: sched_ext's
/// `sched_weight_to_cgroup`, i.e. the CFS weight * 100 / 1024 rounded to
/// the closest integer, clamped to 1..=10000. `nice` must be in -20..=19.
pub fn nice_to_weight(nice: i32) -> u32 {
    let i = (nice.clamp(-20, 19) + 20) as usize;
    ((PRIO_TO_WEIGHT[i] * 100 + 512) / 1024).clamp(1, 10_000) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's weights, nice 0 = 100 as sched_ext scales them, each
    /// nice step about 1.25x.
    #[test]
    fn nice_to_weight_is_the_kernels_weight_scaled_to_100() {
        assert_eq!(nice_to_weight(0), 100);
        assert_eq!(nice_to_weight(-20), 8668);
        assert_eq!(nice_to_weight(19), 1);
        assert_eq!(nice_to_weight(1), 80);
        assert_eq!(nice_to_weight(-1), 125);
        for n in -20..19 {
            let r =
                PRIO_TO_WEIGHT[(n + 20) as usize] as f64 / PRIO_TO_WEIGHT[(n + 21) as usize] as f64;
            assert!((r - 1.25).abs() < 0.06, "nice {n}: {r}");
        }
    }
}
