//! A model workload's tasks are forked by a running parent (`+noparent`:
//! not).
//!
//! Without it the simulator starts a model's tasks from nowhere: each one's
//! fork placement (ops.select_cpu with SCX_WAKE_FORK) runs on its first
//! allowed CPU, CPU 0, which is idle. No real program starts that way.
//! hackbench's main process, perf bench's, schbench's and the probe's main
//! thread each run on a CPU while they fork or clone their workers, and
//! wake_up_new_task() places each child from that CPU, with the parent on
//! it. The difference matters to a fork balancer that compares groups by
//! their idle CPUs (fair.c sched_balance_find_dst_group(), which
//! arbor:stock ports): with CPU 0 idle, the parent's LLC is as idle as any
//! other and every child stays in it; with the parent running there, the
//! children go to idler LLCs.
//!
//! The model: one more task, the parent, of the first task's process. It
//! starts at 0 on CPU 0 and runs (forks) for [`FORK_WINDOW_NS`], then
//! waits for the end (blocks, as `wait()` or `pthread_join()` does). Each
//! task of the workload that starts at 0 is forked by it: it starts at its
//! usual time (0 plus the run's start jitter, at most 10 µs by default) on
//! the CPU the parent is on. Tasks that start later, are started by
//! another task's fork (a replayed trace) or are present from the
//! beginning (`forked: false`: background, real-time load) start as
//! before. The workload's own timing is unchanged: children start at the
//! same times; only where their fork is placed from differs.

use super::{Effects, Extra, Ns, Step, TaskSpec, With, Workload};

/// How long the parent runs: longer than the default start jitter (10 µs,
/// core Config::start_jitter_ns), so that it is on its CPU while every
/// child starts; well under one process fork (lmbench lat_proc fork,
/// ~100 µs), so it does not stand for the forks' whole cost, which the
/// models leave out (their children start together, as hackbench's wait
/// for its start signal).
pub const FORK_WINDOW_NS: Ns = 20_000;

/// The parent (`With<Parent>`, as spec.rs wraps every model).
#[derive(Default)]
pub struct Parent {
    /// Its steps so far.
    steps: u32,
}

/// A workload whose tasks a running parent forks.
pub type WithParent = With<Parent>;

impl With<Parent> {
    pub fn new(inner: Box<dyn Workload>) -> WithParent {
        With::wrap(inner, Parent::default())
    }
}

/// The tasks the parent forks: those started at 0 by a fork of their
/// process (not present from the beginning, not forked by another task).
fn forked_at_start(t: &TaskSpec) -> bool {
    t.forked && !t.on_fork && t.start_at == 0 && t.parent.is_none() && t.rt_prio.is_none()
}

impl Extra for Parent {
    fn tasks(&self, mut v: Vec<TaskSpec>) -> Vec<TaskSpec> {
        let parent = v.len();
        let tgid = v.first().map(|t| t.tgid).unwrap_or(1000);
        for t in v.iter_mut().filter(|t| forked_at_start(t)) {
            t.parent = Some(parent);
        }
        let mut p = TaskSpec::new("parent", tgid);
        p.forked = false;
        p.working_set = 16 << 10;
        v.push(p);
        v
    }

    fn next(&mut self, _i: usize, _now: Ns, _fx: &mut Effects) -> Step {
        self.steps += 1;
        if self.steps == 1 {
            Step::Run(FORK_WINDOW_NS)
        } else {
            Step::Block
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::spec;

    #[test]
    fn parent_forks_the_tasks_that_start_at_zero_and_then_waits() {
        // a model's tasks have a parent by default
        let w = spec::parse("schbench:m=1,w=2", 8, 1).unwrap();
        let t = w.tasks();
        assert_eq!(t.len(), 3 + 1);
        assert_eq!(t[3].name, "parent");
        assert_eq!(t[3].tgid, t[0].tgid);
        assert!(t[3].parent.is_none() && !t[3].forked && t[3].start_at == 0);
        assert!(t[..3].iter().all(|c| c.parent == Some(3)), "{t:?}");
        // +noparent: as before, no parent
        let t = spec::parse("schbench:m=1,w=2+noparent", 8, 1)
            .unwrap()
            .tasks();
        assert_eq!(t.len(), 3);
        assert!(t.iter().all(|c| c.parent.is_none()));
        // with a background: its tasks are present from the start, not forked
        let t = spec::parse("perf-pipe:l=10+background:r=400,k=2", 8, 1)
            .unwrap()
            .tasks();
        assert_eq!(t.len(), 2 + 1 + 2);
        assert_eq!(t[2].name, "parent");
        assert!(t[..2].iter().all(|c| c.parent == Some(2)));
        assert!(t[3..].iter().all(|c| c.parent.is_none()));
        let mut p = WithParent::new(spec::parse("perf-pipe:l=10+noparent", 8, 1).unwrap());
        let mut fx = Effects::default();
        assert_eq!(p.next(2, 0, &mut fx), Step::Run(FORK_WINDOW_NS));
        assert_eq!(p.next(2, FORK_WINDOW_NS, &mut fx), Step::Block);
        assert!(fx.wakes.is_empty() && fx.forks.is_empty());
        assert!(spec::parse("+noparent", 8, 1).is_err());
        assert!(spec::parse("hackbench+parent", 8, 1).is_err());
        // judged by its workload's metric
        assert_eq!(
            spec::primary_metric("schbench+noparent"),
            Some("wakeup_p99_us")
        );
        assert_eq!(
            spec::primary_metric("wakeprobe:t=4+noparent"),
            Some("p99_us")
        );
    }
}
