//! Workloads: what the simulated tasks do. A workload creates tasks and,
//! each time one of them finishes a step, says what it does next: run for
//! some work, sleep, block until woken, or exit, and whom it wakes.
//!
//! The simulator owns time, CPUs and placement; a workload owns only its
//! own logic (pipes, request queues, counters). It never sees CPUs: the
//! costs of where a task ran (cache refill, SMT sharing, capacity) are the
//! machine model's.

pub mod background;
pub mod channel;
pub mod hackbench;
pub mod hist;
pub mod parent;
pub mod pgbench;
pub mod pipe;
pub mod rtapp;
pub mod schbench;
pub mod spec;
pub mod spinners;
pub mod sysbench;
pub mod testkit;
pub mod trace;
pub mod wakeprobe;

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
}

/// A change of a task's scheduling properties (core/affinity.rs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    /// sched_setaffinity: the CPUs it may run on.
    Cpus(Vec<usize>),
    /// setpriority: its new weight (nice 0 = 100; [`rtapp::nice_to_weight`]).
    Weight(u32),
}

impl Effects {
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
        self.props.push((
            t,
            Prop::Weight(rtapp::nice_to_weight(nice.clamp(-20, 19) as i32)),
        ));
    }
}

/// When a workload ends: it counts its tasks' exits and is finished, at
/// that time, when the last of them has exited.
#[derive(Clone, Debug)]
pub struct Exits {
    total: usize,
    exited: usize,
    at: Option<Ns>,
}

impl Exits {
    pub fn new(total: usize) -> Exits {
        Exits {
            total,
            exited: 0,
            at: None,
        }
    }

    /// A task exits at `now`; the step it takes.
    pub fn exit(&mut self, now: Ns) -> Step {
        self.exited += 1;
        if self.exited == self.total {
            self.at = Some(now);
        }
        Step::Exit
    }

    pub fn finished(&self) -> bool {
        self.at.is_some()
    }

    /// When the last task exited, or `elapsed` if the run ended first.
    pub fn end(&self, elapsed: Ns) -> Ns {
        self.at.unwrap_or(elapsed)
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

/// Tasks a wrapper adds after a workload's own (`+background`, the
/// parent of parent.rs): what they are, and their steps.
pub trait Extra {
    /// The workload's tasks, as the wrapper changes them, then its own.
    fn tasks(&self, inner: Vec<TaskSpec>) -> Vec<TaskSpec>;
    /// The next step of the wrapper's task `i` (0 = its first).
    fn next(&mut self, i: usize, now: Ns, fx: &mut Effects) -> Step;
}

/// A workload with a wrapper's tasks after its own. Its own tasks keep
/// their ids and steps; the run ends when it ends, and its metrics are its
/// own.
pub struct With<E> {
    inner: Box<dyn Workload>,
    n_inner: usize,
    pub extra: E,
}

impl<E: Extra> With<E> {
    pub fn wrap(inner: Box<dyn Workload>, extra: E) -> With<E> {
        let n_inner = inner.tasks().len();
        With {
            inner,
            n_inner,
            extra,
        }
    }
}

impl<E: Extra> Workload for With<E> {
    fn tasks(&self) -> Vec<TaskSpec> {
        self.extra.tasks(self.inner.tasks())
    }

    fn next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        if t < self.n_inner {
            return self.inner.next(t, now, fx);
        }
        self.extra.next(t - self.n_inner, now, fx)
    }

    fn on_run(&mut self, t: TaskId, woken_at: Ns, now: Ns) {
        if t < self.n_inner {
            self.inner.on_run(t, woken_at, now);
        }
    }

    fn finished(&self) -> bool {
        self.inner.finished()
    }

    fn metrics(&self, elapsed: Ns) -> Vec<Metric> {
        self.inner.metrics(elapsed)
    }
}
