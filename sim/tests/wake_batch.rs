//! A step that wakes several tasks wakes them in turn (core/wake_batch.rs):
//! the k-th wakee cannot run before its waker's CPU has paid for the k-1
//! wake-ups before it, whether the scheduler places wakees on idle CPUs
//! directly (arbor:default) or in a queue any CPU may take from (lavd's
//! shared per-domain DSQs), and the waker's next step waits for the last.

use arbor_sim::core::{Config, Stop};
use arbor_sim::cost::CostModel;
use arbor_sim::presets;
use arbor_sim::run::run_workload;
use arbor_sim::workload::{Effects, Exits, Metric, Ns, Step, TaskId, TaskSpec, Workload};
use scx_arbor::knobs::Knobs;

const US: Ns = 1_000;

/// Task 0 wakes tasks 1..=n in one step, `rounds` times, 1 ms apart; each
/// wakee runs 5 us and blocks again. With `block`, the waker blocks after
/// its batch, and the first wakee wakes it as soon as it runs (schbench's
/// message thread, which a worker's post wakes).
struct Fanout {
    n: usize,
    rounds: usize,
    apart: bool,
    block: bool,
    /// The waker has blocked (or asked to) after its batch.
    waiting: bool,
    round: usize,
    /// The waker's state: 0 = sleep before a round, 1 = wake them all,
    /// 2 = the step after the batch.
    phase: u8,
    /// When the round's wake-ups were issued, and when the waker's step
    /// after them ended.
    issued: Vec<Ns>,
    after: Vec<Ns>,
    /// Per round, per wakee (in wake order): when it ran.
    ran: Vec<Vec<Option<Ns>>>,
    /// Per wakee: blocked, running its 5 us, the round of its pending
    /// wake-up.
    blocked: Vec<bool>,
    working: Vec<bool>,
    woken_round: Vec<Option<usize>>,
    exits: Exits,
}

impl Fanout {
    fn new(n: usize, rounds: usize, apart: bool, block: bool) -> Fanout {
        Fanout {
            n,
            rounds,
            apart,
            block,
            waiting: false,
            round: 0,
            phase: 0,
            issued: Vec::new(),
            after: Vec::new(),
            ran: vec![vec![None; n]; rounds],
            blocked: vec![false; n + 1],
            working: vec![false; n + 1],
            woken_round: vec![None; n + 1],
            exits: Exits::new(n + 1),
        }
    }
}

impl Workload for Fanout {
    fn tasks(&self) -> Vec<TaskSpec> {
        (0..=self.n)
            .map(|i| {
                TaskSpec::new(
                    if i == 0 {
                        "waker".into()
                    } else {
                        format!("wakee{i}")
                    },
                    7,
                )
            })
            .collect()
    }

    fn next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        if t == 0 {
            match self.phase {
                0 => {
                    if self.round == self.rounds {
                        for w in 1..=self.n {
                            if std::mem::take(&mut self.blocked[w]) {
                                fx.wake(w, false, 0);
                            }
                        }
                        return self.exits.exit(now);
                    }
                    self.phase = 1;
                    Step::Sleep(1_000 * US)
                }
                1 => {
                    self.phase = 2;
                    self.issued.push(now);
                    fx.wakes_apart = self.apart;
                    for w in 1..=self.n {
                        assert!(
                            std::mem::take(&mut self.blocked[w]),
                            "wakee{w} was not blocked"
                        );
                        self.woken_round[w] = Some(self.round);
                        fx.wake(w, false, 0);
                    }
                    if self.block {
                        self.waiting = true;
                        return Step::Block;
                    }
                    Step::Run(US)
                }
                _ => {
                    self.after.push(now);
                    self.phase = 0;
                    self.round += 1;
                    Step::Run(0)
                }
            }
        } else if std::mem::take(&mut self.working[t]) || self.issued.is_empty() {
            // done with its work, or before the first round: wait
            self.blocked[t] = true;
            Step::Block
        } else if self.round == self.rounds {
            self.exits.exit(now)
        } else {
            if t == 1 && std::mem::take(&mut self.waiting) {
                fx.wake(0, false, 0);
            }
            self.working[t] = true;
            Step::Run(5 * US)
        }
    }

    fn on_run(&mut self, t: TaskId, _woken_at: Ns, now: Ns) {
        if let Some(r) = self.woken_round[t].take() {
            self.ran[r][t - 1] = Some(now);
        }
    }

    fn finished(&self) -> bool {
        self.exits.finished()
    }

    fn metrics(&self, _elapsed: Ns) -> Vec<Metric> {
        Vec::new()
    }
}

/// Runs the fan-out under `sched` and checks every round: wakee k (0-based,
/// in wake order) runs no earlier than k wake-ups' cost after the batch
/// was issued, and the waker's step after the batch ends no earlier than
/// n wake-ups' cost plus its own 1 us.
fn check(sched: &str, apart: bool, block: bool) -> Vec<Vec<Ns>> {
    let (n, rounds) = (8, 20);
    let m = presets::find("x86-12").unwrap();
    let mut wl = Fanout::new(n, rounds, apart, block);
    let cfg = Config {
        time_limit: 1_000_000 * US,
        ..Config::default()
    };
    let (_core, _, stop) = run_workload(&m, sched, &Knobs::default(), &mut wl, cfg).unwrap();
    assert!(matches!(stop, Stop::Finished), "{sched}: {stop:?}");
    let cost = CostModel::default().wakeup_ns as Ns;
    assert_eq!(wl.issued.len(), rounds, "{sched}");
    let mut delays = Vec::new();
    for r in 0..rounds {
        let t0 = wl.issued[r];
        let d: Vec<Ns> = wl.ran[r]
            .iter()
            .enumerate()
            .map(|(k, ran)| {
                let at = ran.unwrap_or_else(|| panic!("{sched}: round {r}: wakee{} never ran", k + 1));
                assert!(
                    at >= t0 + k as Ns * cost,
                    "{sched}: round {r}: wakee {k} ran {} ns after the batch began, before the {k} wake-ups ahead of it ({} ns)",
                    at - t0,
                    k as Ns * cost
                );
                at - t0
            })
            .collect();
        let own = if block { 0 } else { US };
        assert!(
            wl.after[r] >= t0 + n as Ns * cost + own,
            "{sched}: round {r}: the waker went on {} ns after its batch began",
            wl.after[r] - t0
        );
        delays.push(d);
    }
    delays
}

#[test]
fn a_batchs_wakees_start_in_turn_under_a_direct_placement() {
    check("arbor:default", false, false);
    check("arbor:default", true, false);
}

/// A wake-up that reaches the waker inside its batch, before the block it
/// asked for after it, is not lost: every round runs (the run finishes),
/// and the waker goes on at the batch's end.
#[test]
fn a_wake_up_during_the_batch_is_not_lost() {
    for sched in ["arbor:default", "lavd"] {
        check(sched, true, true);
        check(sched, false, true);
    }
}

#[test]
fn a_batchs_wakees_start_in_turn_from_a_shared_queue() {
    // lavd puts a wakee it finds no idle CPU for in its domain's shared
    // DSQ, which any CPU of the domain consumes as it goes through the
    // scheduler
    let d = check("lavd", false, false);
    check("lavd", true, false);
    // and the wakees of a round do not all start at once
    for (r, d) in d.iter().enumerate() {
        assert!(d.last() > d.first(), "round {r}: {d:?}");
    }
}
