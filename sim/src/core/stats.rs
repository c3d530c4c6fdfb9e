//! What the simulator measures on its own, independent of the scheduler's
//! counters: wake-up latency, runqueue wait, migrations by distance, busy
//! time, idle-while-queued, and the per-process LLC occupancy that the
//! data-sharing cost reads.

use std::collections::BTreeMap;

use super::cache::Distance;
use crate::task::{Ns, TaskId};

/// Log-scale histogram: 16 buckets per power of two (~4% resolution),
/// counted in an array indexed by bucket (no allocation once grown).
#[derive(Clone, Debug, Default)]
pub struct Hist {
    counts: Vec<u64>,
    pub n: u64,
    pub sum: f64,
}

impl Hist {
    fn bucket(v: u64) -> u32 {
        if v < 16 {
            return v as u32;
        }
        let e = 63 - v.leading_zeros(); // >= 4
        let m = (v >> (e - 4)) & 15;
        (e - 3) * 16 + m as u32
    }
    fn value(b: u32) -> f64 {
        if b < 16 {
            return b as f64;
        }
        let e = b / 16 + 3;
        let m = (b % 16) as u64;
        (((16 + m) << (e - 4)) as f64) + ((1u64 << (e - 4)) as f64) / 2.0
    }
    pub fn add(&mut self, v: u64) {
        let b = Self::bucket(v) as usize;
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.n += 1;
        self.sum += v as f64;
    }
    /// The q-quantile (0..=1), NaN when empty.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        let want = ((self.n as f64) * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate().filter(|(_, &c)| c > 0) {
            seen += c;
            if seen >= want {
                return Self::value(b as u32);
            }
        }
        f64::NAN
    }
}

/// Decayed run time of one process per LLC (for the sharing cost).
#[derive(Clone, Debug, Default)]
struct ProcOcc {
    per_llc: BTreeMap<usize, f64>,
    ts: Ns,
}

/// Time constant of a process's LLC occupancy. Estimate: the shared lines
/// follow the threads that touch them; we take the share of the process's
/// running over the last ~10 ms (docs/sim/cost-model.md).
const OCC_TAU_NS: f64 = 10_000_000.0;

/// Slots of count_op's cache (sched_ext has about 30 ops).
const OP_SLOTS: usize = 32;

/// A task that is not waiting (Stats::waiting).
const NOT_WAITING: Ns = Ns::MAX;

#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Entries taken from the event queue.
    pub events: u64,
    /// Calls of the scheduler's callbacks.
    pub callbacks: u64,
    /// Changes of a task's state (woken, queued, running, blocked, ...).
    pub state_changes: u64,
    pub bpf_ns: f64,
    /// Per callback: (name, calls, ns charged), as `bpftool prog show`
    /// counts run_cnt / run_time_ns per struct_ops program; in the order
    /// each first ran (ops() sorts them by name).
    ops: Vec<(&'static str, u64, f64)>,
    /// count_op's cache: slot (name address / 8 mod OP_SLOTS) holds the
    /// index in `ops` + 1 of the name last found there, 0 for none.
    op_slot: [u32; OP_SLOTS],
    pub stall_ns: f64,
    pub wakeups: u64,
    /// IMMED tasks sent back through ops.enqueue (SCX_EV_REENQ_IMMED).
    pub reenq_immed: u64,
    pub wake_lat: Hist,
    pub mig_core: u64,
    pub mig_llc: u64,
    pub mig_cross_llc: u64,
    pub mig_cross_node: u64,
    pub wait_ns: u64,
    /// Since when each task waits (NOT_WAITING: it does not), and how many do.
    waiting: Vec<Ns>,
    nr_waiting: u64,
    nr_idle: u64,
    gap_ts: Ns,
    pub gap_ns: u64,
    procs: BTreeMap<u32, ProcOcc>,
    /// Some task shares lines across LLCs (TaskSpec::shared_lines_per_us),
    /// the only reader of `procs` (proc_away): without one, task_ran keeps
    /// nothing (an exp and two map walks per switch saved).
    pub track_occupancy: bool,
    /// (cpu, task, start, duration) of every run, for --trace
    pub trace: Vec<(usize, TaskId, Ns, Ns)>,
    /// CPU hotplug events (core/hotplug.rs).
    pub hotplugs: u64,
    /// Inserts into an offline CPU's local DSQ sent to the global DSQ
    /// instead (SCX_EV_DISPATCH_LOCAL_DSQ_OFFLINE).
    pub dispatch_offline: u64,
    /// Switch-ins that refilled part of the task's working set, and the
    /// refill time charged for them (core/cache.rs switch_in), ns.
    pub refills: u64,
    pub refill_ns: f64,
    /// Reschedules of an idle CPU that charged its idle state's exit
    /// latency (resched_curr's IPI waking it), and that latency, ns.
    pub idle_exits: u64,
    pub idle_exit_ns: f64,
}

impl Stats {
    pub fn new(ncpus: usize) -> Stats {
        Stats {
            nr_idle: ncpus as u64,
            ..Default::default()
        }
    }

    /// One more call of callback `op`, which charged `ns`. Found by its
    /// name's address first (each op is named by one literal at its call
    /// site), then by its text: no string comparison on the common path.
    pub fn count_op(&mut self, op: &'static str, ns: f64) {
        // a direct-mapped cache of name address -> index (+1): one probe per
        // call instead of a scan of every op run so far
        let h = (op.as_ptr() as usize >> 3) % OP_SLOTS;
        let hit = match self.op_slot[h] {
            0 => None,
            k => Some(k as usize - 1).filter(|&i| std::ptr::eq(self.ops[i].0, op)),
        };
        let i = match hit {
            Some(i) => i,
            None => {
                let i = match self.ops.iter().position(|e| std::ptr::eq(e.0, op)) {
                    Some(i) => i,
                    None => match self.ops.iter().position(|e| e.0 == op) {
                        Some(i) => i,
                        None => {
                            self.ops.push((op, 0, 0.0));
                            self.ops.len() - 1
                        }
                    },
                };
                self.op_slot[h] = i as u32 + 1;
                i
            }
        };
        let e = &mut self.ops[i];
        e.1 += 1;
        e.2 += ns;
    }

    /// Per callback: (calls, ns charged), by name.
    pub fn ops(&self) -> BTreeMap<&'static str, (u64, f64)> {
        self.ops.iter().map(|&(k, n, ns)| (k, (n, ns))).collect()
    }

    fn gap_advance(&mut self, now: Ns) {
        let m = self.nr_idle.min(self.nr_waiting);
        self.gap_ns += m * now.saturating_sub(self.gap_ts);
        self.gap_ts = now;
    }

    pub fn set_waiting(&mut self, t: TaskId, waiting: bool, now: Ns) {
        self.gap_advance(now);
        if t >= self.waiting.len() {
            self.waiting.resize(t + 1, NOT_WAITING);
        }
        let since = self.waiting[t];
        if waiting {
            if since == NOT_WAITING {
                self.waiting[t] = now;
                self.nr_waiting += 1;
            }
        } else if since != NOT_WAITING {
            self.wait_ns += now - since;
            self.waiting[t] = NOT_WAITING;
            self.nr_waiting -= 1;
        }
    }

    pub fn set_idle(&mut self, _cpu: usize, idle: bool, now: Ns) {
        self.gap_advance(now);
        if idle {
            self.nr_idle += 1;
        } else {
            self.nr_idle = self.nr_idle.saturating_sub(1);
        }
    }

    /// A switch-in charged `ns` of cache refill.
    pub fn refill(&mut self, ns: f64) {
        if ns > 0.0 {
            self.refills += 1;
            self.refill_ns += ns;
        }
    }

    /// An idle CPU is woken, paying `ns` to leave its idle state.
    pub fn idle_exit(&mut self, ns: f64) {
        self.idle_exits += 1;
        self.idle_exit_ns += ns;
    }

    /// What the simulator charged that the scheduler does not count: cache
    /// refills and idle-state exits, (name, count or ns).
    pub fn charged(&self) -> Vec<(String, u64)> {
        vec![
            ("refills".into(), self.refills),
            ("refill_ns".into(), self.refill_ns.round() as u64),
            ("idle_exits".into(), self.idle_exits),
            ("idle_exit_ns".into(), self.idle_exit_ns.round() as u64),
        ]
    }

    pub fn wake_latency(&mut self, ns: Ns) {
        self.wake_lat.add(ns);
    }

    pub fn migration(&mut self, d: Distance) {
        match d {
            Distance::SameCpu => {}
            Distance::SameCore => self.mig_core += 1,
            Distance::SameLlc => self.mig_llc += 1,
            Distance::CrossLlc => self.mig_cross_llc += 1,
            Distance::CrossNode => self.mig_cross_node += 1,
        }
    }

    pub fn task_ran(&mut self, tgid: u32, llc: usize, ran: Ns, now: Ns) {
        if !self.track_occupancy {
            return;
        }
        let p = self.procs.entry(tgid).or_default();
        let f = (-(now.saturating_sub(p.ts) as f64) / OCC_TAU_NS).exp();
        for v in p.per_llc.values_mut() {
            *v *= f;
        }
        *p.per_llc.entry(llc).or_default() += ran as f64;
        p.ts = now;
    }

    /// Share of the process's recent running outside `llc` (0 if none yet).
    pub fn proc_away(&self, tgid: u32, llc: usize) -> f64 {
        let Some(p) = self.procs.get(&tgid) else {
            return 0.0;
        };
        let total: f64 = p.per_llc.values().sum();
        if total <= 0.0 {
            return 0.0;
        }
        1.0 - p.per_llc.get(&llc).copied().unwrap_or(0.0) / total
    }

    pub fn close(&mut self, now: Ns) {
        self.gap_advance(now);
        for s in std::mem::take(&mut self.waiting) {
            if s != NOT_WAITING {
                self.wait_ns += now.saturating_sub(s);
            }
        }
        self.nr_waiting = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_within_resolution() {
        let mut h = Hist::default();
        for v in 1..=10_000u64 {
            h.add(v * 1000);
        }
        for (q, want) in [(0.5, 5_000_000.0), (0.99, 9_900_000.0)] {
            let got = h.quantile(q);
            assert!((got - want).abs() / want < 0.05, "q{q}: {got} vs {want}");
        }
        assert!(Hist::default().quantile(0.5).is_nan());
    }

    #[test]
    fn gap_integrates_min_of_idle_and_waiting() {
        let mut s = Stats::new(2); // 2 idle CPUs
        s.set_waiting(7, true, 100);
        s.set_waiting(8, true, 100);
        s.set_waiting(9, true, 100); // 3 waiting, 2 idle: gap 2 per ns
        s.set_idle(0, false, 200); // 1 idle
        s.close(300);
        assert_eq!(s.gap_ns, 2 * 100 + 100);
        assert_eq!(s.wait_ns, 3 * 200);
    }

    /// Through the cache and around it: 40 names (more than its slots),
    /// one of them also under a second address, counted in any order.
    #[test]
    fn op_counts_by_name() {
        let names: Vec<&'static str> = (0..40)
            .map(|i| &*Box::leak(format!("op{i}").into_boxed_str()))
            .collect();
        let twin: &'static str = Box::leak("op7".to_string().into_boxed_str());
        let mut s = Stats::default();
        for round in 0..3u64 {
            for (i, &n) in names.iter().enumerate() {
                for _ in 0..=(i as u64 + round) % 3 {
                    s.count_op(n, 1.0);
                }
            }
            s.count_op(twin, 0.5);
        }
        let ops = s.ops();
        assert_eq!(ops.len(), 40);
        for (i, n) in names.iter().enumerate() {
            let want: u64 =
                (0..3).map(|r| (i as u64 + r) % 3 + 1).sum::<u64>() + (i == 7) as u64 * 3;
            assert_eq!(ops[n].0, want, "{n}");
        }
        assert_eq!(ops["op7"].1, 6.0 + 1.5);
    }

    #[test]
    fn charged_refills_and_idle_exits() {
        let mut s = Stats::default();
        s.refill(0.0); // a warm switch-in refills nothing
        s.refill(1500.4);
        s.refill(500.0);
        s.idle_exit(0.0); // a shallow state: an exit all the same
        s.idle_exit(2000.0);
        let c: BTreeMap<String, u64> = s.charged().into_iter().collect();
        assert_eq!(c["refills"], 2);
        assert_eq!(c["refill_ns"], 2000);
        assert_eq!(c["idle_exits"], 2);
        assert_eq!(c["idle_exit_ns"], 2000);
    }

    #[test]
    fn process_occupancy() {
        let mut s = Stats {
            track_occupancy: true,
            ..Stats::default()
        };
        s.task_ran(1, 0, 3_000_000, 10_000_000);
        s.task_ran(1, 1, 1_000_000, 10_000_000);
        assert!((s.proc_away(1, 0) - 0.25).abs() < 1e-9);
        assert!((s.proc_away(1, 1) - 0.75).abs() < 1e-9);
        assert_eq!(s.proc_away(2, 0), 0.0);
    }
}
