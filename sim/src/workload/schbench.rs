//! `schbench` (Chris Mason, github.com/masoncl/schbench): message threads
//! and worker threads emulating a request-serving web tier. Two versions,
//! as the seeds used them (line numbers: schbench.c at the named commit of
//! github.com/masoncl/schbench):
//!
//! **v1.0 design (2023 on, seed 002's era; the default, `v=2023`)**, from
//! its README and schbench.c at 24e32b8:
//! - `m` message threads each own `w` workers (default: ceil(nr_cpus / m),
//!   schbench's `worker_threads = (num_cpus + message_threads - 1) /
//!   message_threads`); all are threads of one process (one tgid);
//! - a worker posts itself on its message thread's list and wakes it with a
//!   futex (`fpost`), then waits on its own futex; the message thread wakes
//!   every posted worker (`xlist_wake_all`) and waits again;
//! - a woken worker serves one request: `usleep(sleep_usec)` (default 100,
//!   "simulated networking") then matrix math over its own
//!   `cache_footprint` (default 256 KiB) repeated `operations` (5) times,
//!   then posts again;
//! - metrics: wake-up latency percentiles, request latency (from the start
//!   of the request, including the usleep, to the end of the math), and
//!   requests per second.
//!
//! **Seed 000's era (`v=2020`)**, schbench.c at abe4f96 (2020-10-23, the
//! version of February 2021): no usleep and no matrix; defaults `-m 2`,
//! `-t 16` workers per message thread, `-c 30000`, `-s 30000`, `-C 30000`
//! (lines 36-52):
//! - a worker spins `cputime` (`usec_spin`, line 867), then posts itself and
//!   waits (`msg_and_wait`, 668-711);
//! - a message thread loops (`run_msg_thread`, 741-770): wake every posted
//!   worker; wait for a post (`fwait`); spin `message_cputime`; then
//!   `usleep(sleeptime + jitter)`, jitter uniform in [0, sleeptime / 4)
//!   (`rand_r() % max_jitter`). So workers queue up on the list for a whole
//!   message cycle and are woken in batches.
//!
//! Both versions measure the wake-up latency the same way: the worker's
//! `wake_time` is overwritten by `xlist_wake_all` with one gettimeofday taken
//! at the start of the list run (abe4f96:640-647, 24e32b8:976-985: "we gtod
//! once at the start of the loop and use that for all the threads we wake"),
//! and the worker reads the clock after `fwait` returns (abe4f96:698-703,
//! 24e32b8:1034-1037). So the interval holds, for the k-th worker of a
//! batch, the waker's wake-up work for the k-1 before it, the IPI, the idle
//! exit and the context switch; the simulator's `on_run` ends it there.
//! Samples of 0 us are dropped by schbench (`if (delta > 0)`); its clock has
//! 1 us steps and the simulator keeps ns, so sub-us samples count here.
//!
//! Model choices:
//! - the v1.0 math is `Run(c)` with c = 17 ms by default: the README's
//!   calibration run (`-F 256 -n 5 --calibrate`, which excludes the usleep)
//!   reports a p50 request latency of 16,864 us on the author's machine with
//!   all CPUs busy. That machine is unnamed and its SMT siblings were busy,
//!   so this is a representative figure, not a calibration; `c=` overrides;
//! - each v1.0 worker's `working_set` is the matrix footprint (256 KiB); a
//!   2020 worker spins on the clock and has none;
//! - `usec_spin` spins until `cputime` of wall time has passed; the model
//!   runs it as `cputime` of work, which SMT sharing stretches (the real
//!   spin would end on time with less work done): the 2020 cells' busy %
//!   is somewhat above the real program's at the same `-t`;
//! - futex wake-ups are not WF_SYNC (`futex_wake` uses plain
//!   `wake_up_q`); each carries one cache line (schbench: "we're just
//!   trading one cacheline with the gtod and futex in it");
//! - schbench's per-CPU lock held during the math (its preemption penalty)
//!   is not modelled;
//! - at the deadline (`r` seconds) message threads release their posted
//!   workers and exit; requests in flight finish, and only requests that
//!   completed by the deadline count toward `rps`.

use super::hist::Hist;
use super::{Effects, Exits, Metric, Ns, Step, TaskId, TaskSpec, Workload};

/// Request CPU work, us (see the module doc).
pub const CPUTIME_US: u32 = 17_000;
/// schbench's `sleep_usec` default.
pub const SLEEP_US: u32 = 100;
/// schbench's `cache_footprint_kb` default.
pub const FOOTPRINT_KB: u32 = 256;
/// Seed 000's schbench (abe4f96:36-52): `-t`, `-c`, `-s`, `-C` defaults.
pub const V2020_WORKERS: u32 = 16;
pub const V2020_CPUTIME_US: u32 = 30_000;
pub const V2020_SLEEPTIME_US: u32 = 30_000;
pub const V2020_MSG_CPUTIME_US: u32 = 30_000;

/// Which schbench: its message thread's loop and its worker's request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// 2023 on: the message thread answers at once; a request is a
    /// usleep then matrix math.
    V2023,
    /// abe4f96 (2020): the message thread spins `msg_cpu_us`, then sleeps
    /// `sleep_us` + jitter before it answers the posted workers; a request
    /// is a `cputime` spin.
    V2020 { msg_cpu_us: u32, seed: u64 },
}
const LINE: u64 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Posted and blocked, waiting for the message thread.
    Waiting,
    /// In the usleep of a request.
    Sleeping,
    /// Running the math of a request.
    Working,
    /// Not started yet, or just finished a request.
    Idle,
}

#[derive(Clone, Debug)]
struct Worker {
    msg: usize,
    phase: Phase,
    /// The message thread has issued our wake-up; `on_run` records it.
    woken: bool,
    /// When the message thread began the batch of wake-ups ours is in:
    /// xlist_wake_all reads the time once, before its first fpost, so a
    /// worker's latency counts the wake-ups made before its own.
    wake_stamp: Ns,
    req_start: Ns,
    /// v2020: its first spin is done.
    started: bool,
    /// SplitMix64 state for the request work's jitter (`cj=`).
    rng: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum MsgPhase {
    /// About to wake the posted workers (its loop's top).
    #[default]
    Top,
    /// v2020: spinning `message_cputime` after a post woke it.
    Spinning,
    /// v2020: in its `usleep(sleeptime + jitter)`.
    Sleeping,
}

#[derive(Clone, Debug, Default)]
struct Msg {
    posted: Vec<TaskId>,
    /// Blocked in its futex wait (a post must wake it).
    waiting: bool,
    /// A post has woken it; `on_run` records how long it took to run.
    woken: bool,
    done: bool,
    phase: MsgPhase,
    /// rand_r state for the v2020 jitter.
    rng: u64,
}

pub struct Schbench {
    m: u32,
    w: u32,
    version: Version,
    end: Ns,
    sleep_ns: Ns,
    cpu_ns: Ns,
    /// `cj=`: each request's work is `cpu_ns` times a factor drawn
    /// uniformly from [1 - cj%, 1 + cj%]; 0 (the default) draws nothing.
    /// The real math's time varies with its cache misses and its
    /// sibling's load; the model's varies only with the SMT and cache
    /// charges, which lets workers woken together post together again.
    /// A knob to test that reading, not a calibration.
    jitter_pct: u32,
    footprint: u64,
    msgs: Vec<Msg>,
    /// Indexed by task id; None for message threads.
    workers: Vec<Option<Worker>>,
    wakeup: Hist,
    request: Hist,
    /// Workers woken per xlist_wake_all that woke any, and each woken
    /// worker's place in its batch (1 = first): the k-th's wake-up latency
    /// holds the waker's work for the k-1 before it.
    batch: Hist,
    batch_pos: Hist,
    /// A message thread's wake-up latency, from the post that woke it: the
    /// longer it takes, the more workers post meanwhile.
    msg_wakeup: Hist,
    requests: u64,
    exits: Exits,
}

impl Schbench {
    /// Task layout: message thread i is task i * (w + 1), its workers follow.
    pub fn new(m: u32, w: u32, runtime_s: u32, sleep_us: u32, cpu_us: u32) -> Schbench {
        Schbench::with_version(m, w, runtime_s, sleep_us, cpu_us, Version::V2023)
    }

    /// `sleep_us` is the worker's usleep (v2023) or the message thread's
    /// sleeptime (v2020); `cpu_us` the request's work.
    pub fn with_version(
        m: u32,
        w: u32,
        runtime_s: u32,
        sleep_us: u32,
        cpu_us: u32,
        version: Version,
    ) -> Schbench {
        let mut workers = Vec::new();
        for i in 0..m as usize {
            workers.push(None);
            for _ in 0..w {
                workers.push(Some(Worker {
                    msg: i * (w as usize + 1),
                    phase: Phase::Idle,
                    woken: false,
                    wake_stamp: 0,
                    req_start: 0,
                    started: false,
                    rng: 0,
                }));
            }
        }
        let mut msgs = vec![Msg::default(); workers.len()];
        if let Version::V2020 { seed, .. } = version {
            for (i, m) in msgs.iter_mut().enumerate() {
                m.rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i as u64 + 1);
            }
        }
        Schbench {
            m,
            w,
            version,
            end: runtime_s as Ns * 1_000_000_000,
            sleep_ns: sleep_us as Ns * 1000,
            cpu_ns: cpu_us as Ns * 1000,
            jitter_pct: 0,
            footprint: match version {
                Version::V2023 => FOOTPRINT_KB as u64 * 1024,
                Version::V2020 { .. } => 0,
            },
            msgs,
            exits: Exits::new(workers.len()),
            workers,
            wakeup: Hist::default(),
            request: Hist::default(),
            batch: Hist::default(),
            batch_pos: Hist::default(),
            msg_wakeup: Hist::default(),
            requests: 0,
        }
    }

    /// Draws each request's work from [1 - pct%, 1 + pct%] of its mean,
    /// each worker from its own generator seeded with `seed`.
    pub fn with_jitter(mut self, pct: u32, seed: u64) -> Schbench {
        self.jitter_pct = pct.min(50);
        for (i, w) in self.workers.iter_mut().enumerate() {
            if let Some(w) = w {
                w.rng = seed.wrapping_mul(0xd1b5_4a32_d192_ed03) ^ (i as u64 + 1);
            }
        }
        self
    }

    /// One request's work: `cpu_ns`, or with `cj=` a draw around it.
    fn request_ns(cpu_ns: Ns, pct: u32, rng: &mut u64) -> Ns {
        if pct == 0 {
            return cpu_ns;
        }
        *rng = splitmix(*rng);
        let span = cpu_ns * pct as Ns / 100;
        cpu_ns - span + *rng % (2 * span + 1)
    }

    pub fn requests(&self) -> u64 {
        self.requests
    }

    pub fn wakeup_samples(&self) -> u64 {
        self.wakeup.count()
    }

    fn msg_next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        let stop = now >= self.end;
        if let Version::V2020 { msg_cpu_us, .. } = self.version {
            // run_msg_thread (abe4f96:741-770), from the return of its fwait
            let m = &mut self.msgs[t];
            if m.phase == MsgPhase::Spinning {
                // a post woke it: usec_spin(message_cputime) (line 763)
                m.phase = MsgPhase::Sleeping;
                if msg_cpu_us > 0 {
                    return Step::Run(msg_cpu_us as Ns * 1000);
                }
            }
            if m.phase == MsgPhase::Sleeping {
                // usleep(sleeptime + rand_r() % (sleeptime / 4)) (764-767)
                m.phase = MsgPhase::Top;
                if self.sleep_ns > 0 {
                    m.rng = splitmix(m.rng);
                    let max_jitter = (self.sleep_ns / 4).max(1);
                    return Step::Sleep(self.sleep_ns + m.rng % max_jitter);
                }
            }
        }
        // the loop's top: xlist_wake_all, then stop or wait for a post
        let m = &mut self.msgs[t];
        let mut k = 0;
        // one fpost (FUTEX_WAKE system call) a worker
        fx.wakes_apart = true;
        for wk in m.posted.drain(..) {
            fx.wake(wk, false, LINE);
            if let Some(w) = self.workers[wk].as_mut() {
                w.woken = true;
                w.wake_stamp = now;
            }
            k += 1;
            self.batch_pos.record(k);
        }
        if k > 0 {
            self.batch.record(k);
        }
        if stop {
            m.done = true;
            return self.exits.exit(now);
        }
        m.waiting = true;
        if let Version::V2020 { .. } = self.version {
            m.phase = MsgPhase::Spinning;
        }
        Step::Block
    }

    fn worker_next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        let stop = now >= self.end;
        let Some(w) = self.workers[t].as_mut() else {
            return Step::Exit;
        };
        match w.phase {
            Phase::Waiting => {
                // woken by the message thread: start a request
                if stop {
                    return self.exits.exit(now);
                }
                w.req_start = now;
                // v2020: the sleep is the message thread's; the worker
                // spins at once (abe4f96:867)
                if self.sleep_ns == 0 || self.version != Version::V2023 {
                    w.phase = Phase::Working;
                    return Step::Run(Self::request_ns(self.cpu_ns, self.jitter_pct, &mut w.rng));
                }
                w.phase = Phase::Sleeping;
                return Step::Sleep(self.sleep_ns);
            }
            Phase::Sleeping => {
                w.phase = Phase::Working;
                return Step::Run(Self::request_ns(self.cpu_ns, self.jitter_pct, &mut w.rng));
            }
            Phase::Working => {
                if now <= self.end {
                    self.requests += 1;
                }
                self.request.record(now - w.req_start);
                w.phase = Phase::Idle;
            }
            Phase::Idle => {
                if self.version != Version::V2023 && !w.started {
                    // v2020's worker_thread spins before its first post
                    w.started = true;
                    w.req_start = now;
                    w.phase = Phase::Working;
                    return Step::Run(Self::request_ns(self.cpu_ns, self.jitter_pct, &mut w.rng));
                }
            }
        }
        // post ourselves to the message thread and wait
        let msg = w.msg;
        if stop || self.msgs[msg].done {
            // let a message thread blocked with nobody left to post notice
            // the deadline (schbench's main thread posts them at the end)
            let m = &mut self.msgs[msg];
            if m.waiting {
                m.waiting = false;
                fx.wake(msg, false, 0);
            }
            return self.exits.exit(now);
        }
        w.phase = Phase::Waiting;
        w.woken = false;
        let m = &mut self.msgs[msg];
        m.posted.push(t);
        if m.waiting {
            m.waiting = false;
            m.woken = true;
            fx.wake(msg, false, LINE);
        }
        Step::Block
    }
}

/// SplitMix64 (the jitter's rand_r stand-in: any uniform generator will do).
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Workload for Schbench {
    fn tasks(&self) -> Vec<TaskSpec> {
        let mut v = Vec::with_capacity(self.workers.len());
        for (i, w) in self.workers.iter().enumerate() {
            let group = i / (self.w as usize + 1);
            match w {
                None => v.push(TaskSpec::new(format!("schbench-msg{group}"), 1000)),
                Some(_) => {
                    let mut s = TaskSpec::new(format!("schbench-m{group}-w"), 1000);
                    s.working_set = self.footprint;
                    v.push(s);
                }
            }
        }
        debug_assert_eq!(v.len(), (self.m * (self.w + 1)) as usize);
        v
    }

    fn next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        if self.workers[t].is_none() {
            self.msg_next(t, now, fx)
        } else {
            self.worker_next(t, now, fx)
        }
    }

    fn on_run(&mut self, t: TaskId, woken_at: Ns, now: Ns) {
        if let Some(w) = self.workers[t].as_mut() {
            if w.woken && w.phase == Phase::Waiting {
                w.woken = false;
                self.wakeup.record(now.saturating_sub(w.wake_stamp));
            }
        } else if let Some(m) = self.msgs.get_mut(t) {
            if m.woken {
                m.woken = false;
                self.msg_wakeup.record(now.saturating_sub(woken_at));
            }
        }
    }

    fn finished(&self) -> bool {
        self.exits.finished()
    }

    fn metrics(&self, elapsed: Ns) -> Vec<Metric> {
        let us = Metric::us_from_ns;
        let secs = self.end.min(self.exits.end(elapsed).max(1)) as f64 / 1e9;
        vec![
            us("wakeup_p50_us", self.wakeup.percentile(50.0)),
            us("wakeup_p90_us", self.wakeup.percentile(90.0)),
            us("wakeup_p99_us", self.wakeup.percentile(99.0)),
            us("wakeup_p999_us", self.wakeup.percentile(99.9)),
            us("request_p99_us", self.request.percentile(99.0)),
            Metric::new("wake_batch_mean", self.batch.mean(), "workers", false),
            us("msg_wakeup_p50_us", self.msg_wakeup.percentile(50.0)),
            us("msg_wakeup_p99_us", self.msg_wakeup.percentile(99.0)),
            Metric::new(
                "wake_pos_p99",
                self.batch_pos.percentile(99.0),
                "place in batch",
                false,
            ),
            Metric::new("rps", self.requests as f64 / secs, "requests/s", true),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{drive, drive_on, metric};
    use super::*;

    #[test]
    fn workers_cycle_through_requests_and_everyone_exits() {
        // 2 message threads x 3 workers, 1 s, 100 us sleep + 1 ms work
        let mut w = Schbench::new(2, 3, 1, 100, 1000);
        let lat = 5_000;
        let out = drive(&mut w, lat, u64::MAX);
        assert_eq!(out.tasks, 8);
        out.assert_all_exited_cleanly();
        // a cycle: post -> msg wakes (5 us) -> msg wakes worker (5 us) ->
        // 100 us sleep -> 1000 us work = 1110 us; 6 workers in 1 s
        let per_worker = 1_000_000 / 1110;
        let r = w.requests();
        assert!(r.abs_diff(6 * per_worker) <= 6, "{r}");
        // every wake-up latency sample is exactly the driver's 5 us
        assert!(w.wakeup_samples() >= r);
        assert_eq!(metric(&w, 0, "wakeup_p50_us"), 5.0);
        assert_eq!(metric(&w, 0, "wakeup_p999_us"), 5.0);
        let req = metric(&w, 0, "request_p99_us");
        assert!((req - 1100.0).abs() / 1100.0 < 0.03, "{req}");
        let rps = metric(&w, 0, "rps");
        assert!((rps - r as f64).abs() < 1e-6);
    }

    #[test]
    fn oversubscribed_cpus_queue_workers_and_show_in_latency() {
        // 1 message thread, 4 workers, no usleep: the message thread wakes
        // all four together and on 1 CPU they queue behind each other
        let mut w = Schbench::new(1, 4, 1, 0, 1000);
        let out = drive_on(&mut w, 1, 1000, u64::MAX);
        assert_eq!(out.exited, 5);
        assert_eq!(out.spurious_wakes, 0);
        assert!(out.stuck.is_empty(), "{:?}", out.stuck);
        // CPU-bound: one CPU's worth of 1 ms requests
        assert!(
            w.requests() <= 1000 && w.requests() > 900,
            "{}",
            w.requests()
        );
        // the 4th of each batch waits for three requests: ~3 ms
        let p99 = metric(&w, 0, "wakeup_p99_us");
        assert!(p99 > 2900.0 && p99 < 3200.0, "{p99}");
        // the 2nd waits one request (+1 us of wake latency); histogram: 3%
        let p50 = metric(&w, 0, "wakeup_p50_us");
        assert!((p50 - 1001.0).abs() < 0.03 * 1001.0, "{p50}");
        // the batches that explain it: four workers each, the 4th last
        assert_eq!(metric(&w, 0, "wake_pos_p99"), 4.0);
        let b = metric(&w, 0, "wake_batch_mean");
        assert!(b > 3.9 && b <= 4.0, "{b}");
        // why: the message thread, woken by the first post of a cycle,
        // queues behind the three requests still ahead of it (~3 ms), and
        // every worker has posted by the time it runs
        let m = metric(&w, 0, "msg_wakeup_p99_us");
        assert!(m > 2900.0 && m < 3200.0, "{m}");
    }

    /// Seed 000's schbench (abe4f96:741-770): the message thread answers
    /// its posted workers only after spinning message_cputime and sleeping
    /// sleeptime + jitter, so the workers of one message thread are woken
    /// together, once per message cycle. The v1.0 loop (the only one
    /// before) answers each post at once: with the same numbers it serves
    /// about 3.7x the requests and wakes its workers one at a time.
    #[test]
    fn v2020_message_thread_batches_its_workers_once_per_cycle() {
        // 1 message thread x 3 workers, 1 s; work 1 ms; the message thread
        // spins 0.5 ms and sleeps 2 ms + [0, 0.5 ms)
        let v = Version::V2020 {
            msg_cpu_us: 500,
            seed: 7,
        };
        let mut w = Schbench::with_version(1, 3, 1, 2000, 1000, v);
        let out = drive(&mut w, 5_000, u64::MAX);
        assert_eq!(out.exited, 4);
        assert!(out.stuck.is_empty(), "{:?}", out.stuck);
        assert_eq!(out.spurious_wakes, 0);
        // each wake-all finds all three posted: the message thread's list
        // runs wake three workers at a time
        assert_eq!(out.max_fanout, 3);
        // a cycle: spin 1 ms, post -> message thread (5 us) spins 0.5 ms,
        // sleeps 2.25 ms on average, wakes (5 us): ~3.76 ms per request
        let r = w.requests() as f64;
        let want = 3.0 * 1e6 / 3760.0;
        assert!((r - want).abs() / want < 0.05, "{r} vs {want}");
        // the message thread ran its spins: 0.5 ms per cycle
        let cycles = out.run_ns[0] as f64 / 500e3;
        assert!(
            (cycles - want / 3.0).abs() / (want / 3.0) < 0.05,
            "{cycles}"
        );
        // the v1.0 loop with the same work and no worker usleep
        let mut w23 = Schbench::new(1, 3, 1, 0, 1000);
        drive(&mut w23, 5_000, u64::MAX);
        assert!(w23.requests() as f64 > 3.5 * r, "{} vs {r}", w23.requests());
    }

    /// `cj=`: workers woken together run identical requests and post
    /// together again, so the message thread wakes them in batches; drawn
    /// request times spread them apart. The draw is the seed's alone.
    #[test]
    fn request_jitter_breaks_the_workers_lockstep() {
        let run = |cj: u32, seed: u64| {
            let mut w = Schbench::new(1, 8, 1, 100, 1000).with_jitter(cj, seed);
            let out = drive(&mut w, 5_000, u64::MAX);
            assert_eq!(out.exited, 9);
            let m = |n| metric(&w, 0, n);
            (m("wake_batch_mean"), m("request_p99_us"), w.requests())
        };
        let (b0, p99_0, r0) = run(0, 1);
        let (b10, p99_10, r10) = run(10, 1);
        // in lockstep all eight post together every cycle
        assert!(b0 > 7.0, "{b0}");
        assert!(b10 < 0.5 * b0, "{b10} vs {b0}");
        // the requests' mean is kept (requests served within 2%); the
        // slowest are up to 10% longer (the request holds the 100 us sleep)
        assert!(r10.abs_diff(r0) * 50 < r0, "{r10} vs {r0}");
        assert!(
            p99_10 > 1.05 * p99_0 && p99_10 < 1.15 * p99_0,
            "{p99_10} vs {p99_0}"
        );
        // the same seed draws the same requests; another seed others
        assert_eq!(run(10, 1), (b10, p99_10, r10));
        assert_ne!(run(10, 2), (b10, p99_10, r10));
        // cj=0 draws nothing: any seed gives the same run
        assert_eq!(run(0, 2), (b0, p99_0, r0));
    }

    #[test]
    fn v2020_spec_defaults_are_schbench_2020s() {
        let w = crate::workload::spec::parse("schbench:v=2020,m=3+noparent", 64, 1).unwrap();
        // -t 16 workers per message thread
        assert_eq!(w.tasks().len(), 3 * 17);
        let e = crate::workload::spec::parse("schbench:v=2021", 64, 1)
            .err()
            .unwrap();
        assert!(format!("{e:#}").contains("v=2021"), "{e:#}");
    }
}
