//! `+background:r=RATE`: a workload together with a guest's own background,
//! for comparisons with an `arbor vm` guest (`arbor sim validate`).
//!
//! scx_arbor in a VM counts every task of the guest: kernel threads,
//! timers, the harness. Idle, the guest makes about 300 wake-ups per second
//! (the VM's `idle:t=3` cell measures it). They are not only extra
//! wake-ups in every denominator: a wake-up from interrupt context (a timer
//! expiring) runs select_cpu with `current` = the task it interrupted, and
//! record_wakee() charges the flip to that task, as the kernel's does. A
//! workload task that wakes only its partner then flips whenever a timer
//! wakes someone else while it runs, and wake_wide can fire for it.
//!
//! The model: `k` background tasks (default: one per CPU), each its own
//! process, sleeping on a timer for an exponentially distributed time of
//! mean `k / r` seconds, then running `ns` ns of work (default 2000), for
//! ever. The simulator wakes a sleeper from its timer on the CPU it slept
//! on, with that CPU's current task as the waker, so the effect above is
//! the simulator's own. The run ends when the workload ends; the
//! background's tasks are left sleeping or running. Deterministic: the
//! intervals come from a generator seeded by the run's seed.

use super::{Effects, Extra, Ns, Step, TaskSpec, With, Workload};

/// Default work per background wake-up: about the idle guest's busy time
/// per wake-up (0.5% of 8 CPUs over ~300 wake-ups/s, ~130 µs of TCG time)
/// over the TCG slowdown (~85): ~1.5 µs of the machine's time; rounded.
pub const WORK_NS: u64 = 2000;

/// First tgid of the background's processes (workloads use 1000..).
const TGID0: u32 = 900_000;

/// The background's tasks (`With<Background>`).
pub struct Background {
    k: usize,
    /// Mean sleep of one background task, ns.
    mean_ns: f64,
    work_ns: Ns,
    /// Per background task: its next step is a Run (it just woke).
    woke: Vec<bool>,
    rng: u64,
    wakeups: u64,
}

/// A workload with a guest's background.
pub type WithBackground = With<Background>;

impl With<Background> {
    /// `rate`: background wake-ups per second (all tasks together); `k`
    /// tasks; `work_ns` per wake-up.
    pub fn new(
        inner: Box<dyn Workload>,
        rate: u32,
        k: usize,
        work_ns: Ns,
        seed: u64,
    ) -> WithBackground {
        With::wrap(inner, Background::new(rate, k, work_ns, seed))
    }

    /// Background wake-ups so far (timer expiries).
    pub fn wakeups(&self) -> u64 {
        self.extra.wakeups
    }
}

impl Background {
    fn new(rate: u32, k: usize, work_ns: Ns, seed: u64) -> Background {
        let k = k.max(1);
        Background {
            k,
            mean_ns: k as f64 * 1e9 / rate.max(1) as f64,
            work_ns,
            woke: vec![false; k],
            // splitmix64's increment: any non-zero state works
            rng: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            wakeups: 0,
        }
    }

    /// xorshift64*: uniform in (0, 1].
    fn uniform(&mut self) -> f64 {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        (r as f64 + 1.0) / (1u64 << 53) as f64
    }

    fn sleep_ns(&mut self) -> Ns {
        let u = self.uniform();
        ((-u.ln() * self.mean_ns) as Ns).max(1)
    }
}

impl Extra for Background {
    fn tasks(&self, mut v: Vec<TaskSpec>) -> Vec<TaskSpec> {
        for i in 0..self.k {
            let mut t = TaskSpec::new(format!("background-{i}"), TGID0 + i as u32);
            t.forked = false;
            t.working_set = 16 << 10;
            v.push(t);
        }
        v
    }

    fn next(&mut self, i: usize, _now: Ns, _fx: &mut Effects) -> Step {
        if self.woke[i] {
            // its timer expired: a wake-up
            self.woke[i] = false;
            self.wakeups += 1;
            return Step::Run(self.work_ns);
        }
        self.woke[i] = true;
        Step::Sleep(self.sleep_ns())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::spec;

    #[test]
    fn background_adds_its_tasks_after_the_workloads_and_parses_its_options() {
        let w = spec::parse("perf-pipe:l=10+background:r=400+noparent", 8, 1).unwrap();
        let t = w.tasks();
        assert_eq!(t.len(), 2 + 8);
        assert_eq!(t[0].name, "sched-pipe-0");
        assert_eq!(t[2].name, "background-0");
        assert!(t[2..].iter().all(|t| !t.forked && t.tgid >= TGID0));
        let w = spec::parse("perf-pipe:l=10+background:r=400,k=2,ns=500+noparent", 8, 1).unwrap();
        assert_eq!(w.tasks().len(), 4);
        for bad in [
            "perf-pipe:l=10+background:r=0",
            "perf-pipe:l=10+background:r=400,x=1",
            "perf-pipe:l=10+idle:t=3",
            "+background:r=400",
        ] {
            assert!(spec::parse(bad, 8, 1).is_err(), "{bad}");
        }
    }

    #[test]
    fn background_sleeps_average_k_over_rate_and_alternate_with_work() {
        let inner = spec::parse("perf-pipe:l=10+noparent", 8, 1).unwrap();
        let mut b = WithBackground::new(inner, 1000, 4, 700, 7);
        let mut fx = Effects::default();
        let t = 2; // the first background task
        let (mut slept, mut n) = (0u64, 0u64);
        let mut now = 0;
        for _ in 0..20_000 {
            match b.next(t, now, &mut fx) {
                Step::Sleep(d) => {
                    slept += d;
                    n += 1;
                    now += d;
                }
                Step::Run(w) => {
                    assert_eq!(w, 700);
                    now += w;
                }
                s => panic!("{s:?}"),
            }
        }
        assert!(fx.wakes.is_empty());
        assert_eq!(n, 10_000);
        // 4 tasks at 1000/s together: 4 ms each on average
        let mean = slept as f64 / n as f64;
        assert!((mean - 4e6).abs() < 0.05 * 4e6, "{mean}");
        assert_eq!(b.wakeups(), n);
        // the same seed gives the same run
        let mut c = WithBackground::new(
            spec::parse("perf-pipe:l=10+noparent", 8, 1).unwrap(),
            1000,
            4,
            700,
            7,
        );
        let mut d = WithBackground::new(
            spec::parse("perf-pipe:l=10+noparent", 8, 1).unwrap(),
            1000,
            4,
            700,
            7,
        );
        assert_eq!(c.next(t, 0, &mut fx), d.next(t, 0, &mut fx));
    }
}
