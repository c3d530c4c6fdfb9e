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
pub mod mix;
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

pub use crate::task::{Effects, Metric, Ns, Prop, Step, TaskId, TaskSpec, Workload};

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
