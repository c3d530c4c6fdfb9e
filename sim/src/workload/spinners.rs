//! `spinners`: a synthetic workload for cache-aware placement (seed 002's
//! aggregation of a process's threads into one LLC). `procs` processes of
//! `threads` threads each loop over chunks of `work_us` of computation that
//! read the process's shared working set of `ws_kb` KiB, optionally pausing
//! `sleep_us` between chunks, for `time` seconds. Result: chunks completed
//! per second (all threads), counted up to the deadline.
//!
//! Cache behaviour is declared, not simulated here: `shared_bytes` = the
//! working set, and `shared_lines_per_us` follows from the model's one
//! definition, "each chunk sweeps the shared set `sweeps` times" (default
//! 1): lines/us = sweeps * ws_kb * 1024 / 64 / work_us. With the defaults
//! (1 MiB, 1000 us) that is ~16 lines/us, about 1 GB/s of shared-data reads
//! per thread, modest next to a core's bandwidth. This is a definition of
//! the synthetic load, not a measurement of any application.
//!
//! No system calls, so no per-operation kernel costs; the only wake-ups are
//! the timer ends of the optional sleeps.

use super::{Effects, Exits, Metric, Ns, Step, TaskId, TaskSpec, Workload};

#[derive(Clone, Debug)]
pub struct Params {
    pub procs: u32,
    pub threads: u32,
    pub ws_kb: u32,
    pub work_us: u32,
    pub sleep_us: u32,
    pub time_s: u32,
    pub sweeps: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Start,
    Working,
    Sleeping,
}

pub struct Spinners {
    p: Params,
    end: Ns,
    phase: Vec<Phase>,
    chunks: u64,
    exits: Exits,
}

impl Spinners {
    pub fn new(p: Params) -> Spinners {
        let n = (p.procs * p.threads) as usize;
        Spinners {
            end: p.time_s as Ns * 1_000_000_000,
            p,
            phase: vec![Phase::Start; n],
            chunks: 0,
            exits: Exits::new(n),
        }
    }

    pub fn chunks(&self) -> u64 {
        self.chunks
    }

    fn lines_per_us(&self) -> f64 {
        let lines = self.p.ws_kb as f64 * 1024.0 / 64.0;
        self.p.sweeps as f64 * lines / self.p.work_us.max(1) as f64
    }
}

impl Workload for Spinners {
    fn tasks(&self) -> Vec<TaskSpec> {
        let mut v = Vec::with_capacity(self.phase.len());
        for pr in 0..self.p.procs {
            let tgid = 1000 + pr * 1000;
            for th in 0..self.p.threads {
                let mut s = TaskSpec::new(format!("spin{pr}-{th}"), tgid);
                s.shared_bytes = self.p.ws_kb as u64 * 1024;
                s.shared_lines_per_us = self.lines_per_us();
                v.push(s);
            }
        }
        v
    }

    fn next(&mut self, t: TaskId, now: Ns, _fx: &mut Effects) -> Step {
        if self.phase[t] == Phase::Working {
            if now <= self.end {
                self.chunks += 1;
            }
            if self.p.sleep_us > 0 && now < self.end {
                self.phase[t] = Phase::Sleeping;
                return Step::Sleep(self.p.sleep_us as Ns * 1000);
            }
        }
        if now >= self.end {
            return self.exits.exit(now);
        }
        self.phase[t] = Phase::Working;
        Step::Run(self.p.work_us as Ns * 1000)
    }

    fn finished(&self) -> bool {
        self.exits.finished()
    }

    fn metrics(&self, elapsed: Ns) -> Vec<Metric> {
        let secs = self.end.min(self.exits.end(elapsed)).max(1) as f64 / 1e9;
        vec![Metric::new(
            "work_per_s",
            self.chunks as f64 / secs,
            "chunks/s",
            true,
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{drive, metric};
    use super::*;

    fn p(sleep_us: u32) -> Params {
        Params {
            procs: 2,
            threads: 3,
            ws_kb: 1024,
            work_us: 1000,
            sleep_us,
            time_s: 1,
            sweeps: 1,
        }
    }

    #[test]
    fn chunks_are_counted_until_the_deadline() {
        let mut w = Spinners::new(p(0));
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(w.chunks(), 6 * 1000);
        assert_eq!(out.exited, 6);
        assert!((metric(&w, 0, "work_per_s") - 6000.0).abs() < 1e-6);
        let mut w = Spinners::new(p(250));
        drive(&mut w, 0, u64::MAX);
        assert_eq!(w.chunks(), 6 * 800);
    }

    #[test]
    fn processes_share_their_working_set() {
        let t = Spinners::new(p(0)).tasks();
        assert_eq!(t.len(), 6);
        assert!(t[..3].iter().all(|s| s.tgid == t[0].tgid));
        assert!(t[3..].iter().all(|s| s.tgid == t[3].tgid));
        assert_ne!(t[0].tgid, t[3].tgid);
        assert_eq!(t[0].shared_bytes, 1 << 20);
        assert!((t[0].shared_lines_per_us - 16.384).abs() < 1e-9);
    }
}
