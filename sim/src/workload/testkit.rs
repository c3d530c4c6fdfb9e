//! A tiny deterministic driver for workload unit tests: no scheduler, no
//! machine. Tasks that are ready get one of `cpus` CPUs in FIFO order (or
//! run at once with [`drive`]'s unlimited CPUs); a woken task becomes ready
//! `wake_lat` ns after its waker issued the wake. It enforces the contract:
//! a wake may only target a blocked task (the workloads keep waiter lists,
//! so a wake of anything else is counted as spurious), and `next` is only
//! called when a step is over.
#![cfg(test)]

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::{Effects, Ns, Step, TaskId, Workload};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Waiting to start, sleeping, or woken and not yet ready.
    Pending,
    Ready,
    Running,
    Blocked,
    Exited,
}

/// What happens at an event's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// The task becomes ready (start, timer, or wake-up issued at the time
    /// given; None = its start).
    Ready(TaskId, Option<Ns>),
    /// Call the task's `next`: its Run step is over, or it was just given
    /// a CPU; it holds a CPU.
    Call(TaskId),
}

#[derive(Debug, Default)]
pub struct Outcome {
    /// Simulated time of the last event handled.
    pub end: Ns,
    pub exited: usize,
    pub tasks: usize,
    /// Wakes that targeted a task that was not blocked.
    pub spurious_wakes: usize,
    /// Total wakes issued, and how many were sync.
    pub wakes: usize,
    pub sync_wakes: usize,
    /// Total Run ns per task.
    pub run_ns: Vec<Ns>,
    /// Wake-ups delivered to each task (not counting spurious ones).
    pub woken: Vec<usize>,
    /// The most wake-ups one `next` call issued.
    pub max_fanout: usize,
    /// Tasks still blocked when nothing else could happen.
    pub stuck: Vec<TaskId>,
}

impl Outcome {
    /// Every task exited, none was left blocked, and no wake targeted a
    /// task that was not blocked.
    pub fn assert_all_exited_cleanly(&self) {
        assert_eq!(self.exited, self.tasks);
        assert!(self.stuck.is_empty(), "{:?}", self.stuck);
        assert_eq!(self.spurious_wakes, 0);
    }
}

/// Runs `w` with unlimited CPUs until nothing is left to do or `limit` ns
/// pass.
pub fn drive(w: &mut dyn Workload, wake_lat: Ns, limit: Ns) -> Outcome {
    drive_on(w, usize::MAX, wake_lat, limit)
}

/// Runs `w` on `cpus` CPUs (FIFO, no preemption).
pub fn drive_on(w: &mut dyn Workload, cpus: usize, wake_lat: Ns, limit: Ns) -> Outcome {
    let specs = w.tasks();
    let n = specs.len();
    let mut state = vec![State::Pending; n];
    let mut out = Outcome {
        tasks: n,
        run_ns: vec![0; n],
        woken: vec![0; n],
        ..Default::default()
    };
    let mut events: BinaryHeap<Reverse<(Ns, u64, Ev)>> = BinaryHeap::new();
    let mut seq = 0u64;
    for (t, s) in specs.iter().enumerate() {
        events.push(Reverse((s.start_at, seq, Ev::Ready(t, None))));
        seq += 1;
    }
    let mut ready: VecDeque<(TaskId, Option<Ns>)> = VecDeque::new();
    let mut free = cpus;
    while let Some(Reverse((now, _, ev))) = events.pop() {
        if now > limit {
            break;
        }
        out.end = now;
        // the task whose `next` is called now, if any (it holds a CPU)
        let mut call = Vec::new();
        match ev {
            Ev::Ready(t, woken) => {
                state[t] = State::Ready;
                ready.push_back((t, woken));
            }
            Ev::Call(t) => call.push(t),
        }
        // hand free CPUs to ready tasks, at this same instant
        while free > 0 {
            let Some((t, woken)) = ready.pop_front() else {
                break;
            };
            free -= 1;
            state[t] = State::Running;
            if let Some(at) = woken {
                w.on_run(t, at, now);
            }
            call.push(t);
        }
        for t in call {
            let mut fx = Effects::default();
            let step = w.next(t, now, &mut fx);
            out.max_fanout = out.max_fanout.max(fx.wakes.len());
            for &(v, sync, _bytes) in &fx.wakes {
                out.wakes += 1;
                out.sync_wakes += sync as usize;
                if v == t || state[v] != State::Blocked {
                    out.spurious_wakes += 1;
                    continue;
                }
                state[v] = State::Pending;
                out.woken[v] += 1;
                events.push(Reverse((now + wake_lat, seq, Ev::Ready(v, Some(now)))));
                seq += 1;
            }
            match step {
                Step::Run(ns) => {
                    out.run_ns[t] += ns;
                    events.push(Reverse((now + ns, seq, Ev::Call(t))));
                    seq += 1;
                    continue; // keeps its CPU
                }
                Step::Sleep(ns) => {
                    state[t] = State::Pending;
                    events.push(Reverse((now + ns, seq, Ev::Ready(t, Some(now + ns)))));
                    seq += 1;
                }
                Step::Block => state[t] = State::Blocked,
                Step::Exit => {
                    state[t] = State::Exited;
                    out.exited += 1;
                }
            }
            // the CPU is free again: give it to the next ready task
            free += 1;
            if let Some((u, woken)) = ready.pop_front() {
                free -= 1;
                state[u] = State::Running;
                if let Some(at) = woken {
                    w.on_run(u, at, now);
                }
                events.push(Reverse((now, seq, Ev::Call(u))));
                seq += 1;
            }
        }
    }
    out.stuck = (0..n).filter(|&t| state[t] == State::Blocked).collect();
    out
}

/// The value of the metric `name`; panics if the workload lacks it.
pub fn metric(w: &dyn Workload, elapsed: Ns, name: &str) -> f64 {
    w.metrics(elapsed)
        .into_iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
        .value
}
