//! A compiled trace as a workload: each task runs its program. A `Block`
//! waits for the `Wake` the recording paired with it; a wake-up that
//! arrives before its block (the replay ran the waker sooner) is kept as a
//! pending token, so none is lost and, since the recorded run is one order
//! in which every block was released, the replay cannot deadlock.

use std::sync::Arc;

use super::program::{Compiled, Op};
use crate::workload::{Effects, Exits, Metric, Ns, Step, TaskId, TaskSpec, Workload};

pub struct Replay {
    c: Arc<Compiled>,
    pc: Vec<usize>,
    tokens: Vec<u32>,
    waiting: Vec<bool>,
    exits: Exits,
}

impl Replay {
    pub fn new(c: Arc<Compiled>) -> Replay {
        let n = c.tasks.len();
        Replay {
            exits: Exits::new(n),
            pc: vec![0; n],
            tokens: vec![0; n],
            waiting: vec![false; n],
            c,
        }
    }
}

impl Workload for Replay {
    fn tasks(&self) -> Vec<TaskSpec> {
        self.c.tasks.clone()
    }

    fn next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        loop {
            let op = self.c.programs[t]
                .get(self.pc[t])
                .copied()
                .unwrap_or(Op::Exit);
            self.pc[t] += 1;
            match op {
                Op::Run(w) => return Step::Run(w),
                Op::Sleep(ns) => return Step::Sleep(ns),
                Op::Wake { to, sync } => {
                    let x = to as usize;
                    if self.waiting[x] {
                        self.waiting[x] = false;
                        fx.wake(x, sync, 0);
                    } else {
                        self.tokens[x] += 1;
                    }
                }
                Op::Fork(x) => fx.fork(x as usize),
                Op::Nop => {}
                Op::Block => {
                    if self.tokens[t] > 0 {
                        self.tokens[t] -= 1;
                        continue;
                    }
                    self.waiting[t] = true;
                    return Step::Block;
                }
                Op::Exit => {
                    self.pc[t] = usize::MAX / 2;
                    return self.exits.exit(now);
                }
            }
        }
    }

    fn finished(&self) -> bool {
        self.exits.finished()
    }

    fn metrics(&self, elapsed: Ns) -> Vec<Metric> {
        vec![
            Metric::new("time_s", self.exits.end(elapsed) as f64 / 1e9, "s", false),
            Metric::new(
                "recorded_time_s",
                self.c.summary.wall_ns as f64 / 1e9,
                "s",
                false,
            ),
            Metric::new(
                "recorded_cpu_s",
                self.c.summary.cpu_ns as f64 / 1e9,
                "s",
                false,
            ),
            Metric::new(
                "recorded_wakeups",
                self.c.summary.wakeups() as f64,
                "wake-ups",
                false,
            ),
            Metric::new("threads", self.c.tasks.len() as f64, "threads", false),
        ]
    }
}
