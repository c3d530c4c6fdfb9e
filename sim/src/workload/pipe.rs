//! `perf bench sched pipe`: two tasks ping-pong a token through two pipes.
//!
//! From perf's bench/sched-pipe.c: worker 0 loops `loops` times doing
//! `write(pipe_1)` then `read(pipe_2)`; worker 1 does `read(pipe_1)` then
//! `write(pipe_2)`; the token is an `int` (4 bytes). Default mode forks
//! worker 1 (two processes, two tgids); `-T` runs both as threads of one
//! process. perf reports the total time and usecs/op = time / loops (one
//! op = one round trip). Defaults follow `arbor bench`: l=20000 (perf's own
//! default is 1,000,000).
//!
//! Costs: one pipe write and one pipe read per half trip,
//! [`channel::write_ns`]/[`channel::read_ns`] (estimates, see there); the
//! wake-ups are sync (pipe_write's `wake_up_interruptible_sync_poll`) and
//! carry the 4-byte token.

use super::channel::{self, Channel, Ipc};
use super::{Effects, Exits, Metric, Ns, Step, TaskId, TaskSpec, Workload};

const TOKEN_BYTES: u64 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Process,
    Thread,
}

#[derive(Clone, Copy, Debug, Default)]
struct Progress {
    /// Syscalls completed (write and read alternate).
    calls: u64,
    in_call: bool,
}

pub struct PerfPipe {
    loops: u64,
    mode: Mode,
    /// `taskset -c CPU`: both workers pinned to one CPU
    cpu: Option<usize>,
    /// [0]: worker 0 -> worker 1, [1]: worker 1 -> worker 0
    chans: [Channel; 2],
    prog: [Progress; 2],
    round_trips: u64,
    exits: Exits,
}

impl PerfPipe {
    pub fn new(loops: u32, mode: Mode, cpu: Option<usize>) -> PerfPipe {
        PerfPipe {
            loops: loops as u64,
            mode,
            cpu,
            chans: [
                Channel::new(Ipc::Pipe, TOKEN_BYTES),
                Channel::new(Ipc::Pipe, TOKEN_BYTES),
            ],
            prog: [Progress::default(); 2],
            round_trips: 0,
            exits: Exits::new(2),
        }
    }

    pub fn round_trips(&self) -> u64 {
        self.round_trips
    }

    /// Call `k` of worker `t`: (is it a write, on which channel).
    fn call(t: TaskId, k: u64) -> (bool, usize) {
        let first = k.is_multiple_of(2);
        match (t, first) {
            (0, true) => (true, 0),
            (0, false) => (false, 1),
            (_, true) => (false, 0),
            (_, false) => (true, 1),
        }
    }
}

impl Workload for PerfPipe {
    fn tasks(&self) -> Vec<TaskSpec> {
        (0..2u32)
            .map(|i| {
                let tgid = match self.mode {
                    Mode::Process => 1000 + i,
                    Mode::Thread => 1000,
                };
                let mut t = TaskSpec::new(format!("sched-pipe-{i}"), tgid);
                t.cpus = self.cpu.map(|c| vec![c]);
                t
            })
            .collect()
    }

    fn next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        let pr = &mut self.prog[t];
        if pr.in_call {
            let (write, c) = Self::call(t, pr.calls);
            if write {
                self.chans[c].end_write(t, fx);
            } else {
                self.chans[c].end_read(fx);
                if t == 0 {
                    self.round_trips += 1;
                }
            }
            pr.in_call = false;
            pr.calls += 1;
        }
        if pr.calls == 2 * self.loops {
            return self.exits.exit(now);
        }
        let (write, c) = Self::call(t, pr.calls);
        let ok = if write {
            self.chans[c].begin_write(t)
        } else {
            self.chans[c].begin_read(t)
        };
        if !ok {
            return Step::Block;
        }
        pr.in_call = true;
        Step::Run(if write {
            channel::write_ns(Ipc::Pipe)
        } else {
            channel::read_ns(Ipc::Pipe)
        })
    }

    fn finished(&self) -> bool {
        self.exits.finished()
    }

    fn metrics(&self, elapsed: Ns) -> Vec<Metric> {
        let end = self.exits.end(elapsed);
        let ops = self.round_trips.max(1) as f64;
        vec![
            Metric::new("time_s", end as f64 / 1e9, "s", false),
            Metric::new("usecs_per_op", end as f64 / 1e3 / ops, "us", false),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{drive, metric};
    use super::*;

    #[test]
    fn does_exactly_l_round_trips() {
        let mut w = PerfPipe::new(100, Mode::Process, None);
        let lat = 2000;
        let out = drive(&mut w, lat, u64::MAX);
        assert_eq!(w.round_trips(), 100);
        assert_eq!(out.exited, 2);
        assert_eq!(out.spurious_wakes, 0);
        // each round trip: w(0) + r(1) + w(1) + r(0) on the critical path,
        // plus two wake-ups
        let w_ns = channel::write_ns(Ipc::Pipe);
        let r_ns = channel::read_ns(Ipc::Pipe);
        let per = 2 * (w_ns + r_ns) + 2 * lat;
        let t = metric(&w, 0, "time_s");
        let us = metric(&w, 0, "usecs_per_op");
        assert!((us - per as f64 / 1e3).abs() < 0.05, "{us} vs {per}");
        assert!((t - 100.0 * per as f64 / 1e9).abs() < 1e-5, "{t}");
        assert_eq!(out.run_ns[0], 100 * (w_ns + r_ns));
        // 200 wake-ups, all sync
        assert_eq!(out.wakes, 200);
        assert_eq!(out.sync_wakes, 200);
    }

    #[test]
    fn thread_mode_shares_a_tgid() {
        let t = PerfPipe::new(1, Mode::Thread, None).tasks();
        assert_eq!(t[0].tgid, t[1].tgid);
        let p = PerfPipe::new(1, Mode::Process, None).tasks();
        assert_ne!(p[0].tgid, p[1].tgid);
        assert!(p.iter().all(|t| t.cpus.is_none()));
    }

    #[test]
    fn cpu_option_pins_both_workers_to_that_cpu() {
        let t = crate::workload::spec::parse("perf-pipe:cpu=3+noparent", 8, 0)
            .unwrap()
            .tasks();
        assert!(t.iter().all(|t| t.cpus.as_deref() == Some(&[3][..])));
        let Err(e) = crate::workload::spec::parse("perf-pipe:cpu=8", 8, 0) else {
            panic!("cpu=8 on 8 CPUs was accepted")
        };
        assert!(format!("{e:#}").contains("cpu=8 is not an integer in 0..7"));
    }
}
