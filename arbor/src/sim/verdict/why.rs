//! Why a cell is lost: for every cell where the candidate is worse than the
//! best peer or the baseline, the simulator's counters of both sides (means
//! over their good runs) that differ most. The counters are those every
//! `arbor sim` run reports beside its workload's metrics (and schbench's
//! place of a wakee in its batch): CPU time idle
//! while a task waited (work conservation: what the kernel's idle balancing
//! and wake-up idle search exist to keep low), run-queue wait per wake-up,
//! wake-up migrations by distance (locality: the cost the simulator charges
//! as cache refill), and the scheduler's own cost per wake-up. They are the
//! measured reason a verdict gives for a loss; which placement rule caused
//! them is for `arbor sim -s ... --explain`-style comparisons of one cell.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::report::{g4, short};
use super::{Call, Cell};

/// The counters a loss is explained by (causes, not the latencies and
/// throughput they end in), each with what it measures and the smallest
/// difference that counts: below it two sides are alike.
const COUNTERS: &[(&str, &str, f64)] = &[
    (
        "idle_while_queued_pct",
        "% CPU time idle while a task waited",
        0.5,
    ),
    (
        "rq_wait_us_per_wakeup",
        "µs run-queue wait per wake-up",
        1.0,
    ),
    (
        "mig_smt_per_kwake",
        "wake-ups moved to an SMT sibling /1000",
        10.0,
    ),
    (
        "mig_llc_per_kwake",
        "wake-ups moved within the LLC /1000",
        10.0,
    ),
    (
        "mig_xllc_per_kwake",
        "wake-ups moved across LLCs /1000",
        10.0,
    ),
    (
        "mig_xnode_per_kwake",
        "wake-ups moved across nodes /1000",
        10.0,
    ),
    (
        "bpf_ns_per_wakeup",
        "ns of scheduler code per wake-up",
        100.0,
    ),
    // schbench's own: its message thread wakes the workers that posted in
    // turn, each wake-up one more wake-up's cost after the batch began, so
    // the p99 latency follows the batch's size (workers kept in step by
    // being woken together post together again)
    (
        "wake_pos_p99",
        "a worker's place in its message thread's batch of wake-ups, p99",
        0.5,
    ),
];

/// The derived per-run value `means` adds: busy_pct × time_s / 100.
const WORK: &str = "cpu_work";
/// The same in ms of CPU time, where a run records its machine's CPUs.
const WORK_MS: &str = "cpu_work_ms";
/// The cache refill the simulator charged at switch-ins, ns a run.
const REFILL_NS: &str = "charged:refill_ns";
/// All the switch-ins charged (context switch, carried-over wake-up work,
/// refill, message reads), ns a run.
const SWITCH_NS: &str = "charged:switch_in_ns";

/// How many of the differing counters a cell lists.
const SHOWN: usize = 4;

/// One counter of a lost cell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Counter {
    pub name: String,
    pub candidate: f64,
    pub other: f64,
}

/// A lost cell and the counters that differ most, largest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Why {
    pub machine: String,
    pub workload: String,
    /// the side the candidate is worse than: the best peer, or the
    /// baseline where the best peer is not worse than it
    pub against: String,
    pub pct: f64,
    pub counters: Vec<Counter>,
    /// for a run-to-completion cell (metric time_s): its time split
    pub split: Option<Split>,
}

/// Where a run-to-completion cell's time went. A run's time is its CPU
/// work over the CPUs it kept busy (time_s = work / (CPUs × busy_pct /
/// 100)), so a longer time is either more work (CPU time per message:
/// context switches, migrations' cache refills, slower cores) or fewer
/// busy CPUs; and an idle CPU either had a task waiting somewhere (work
/// conservation: balancing and the idle search) or nothing to run (tasks
/// blocked on each other, or stragglers finishing alone).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Split {
    /// the candidate's CPU work against the other side's, % (+ = more)
    pub work_pct: f64,
    /// busy_pct: candidate, other
    pub busy_pct: (f64, f64),
    /// idle_while_queued_pct: candidate, other
    pub idle_queued_pct: (f64, f64),
    /// CPU work in ms, candidate and other; None (as the two below) for
    /// runs that do not record their machine's CPUs and the charges
    pub work_ms: Option<(f64, f64)>,
    /// of that work, what the switch-ins cost (context switch, the wake-up
    /// work a waker's CPU carried over, cache refill, message reads): what
    /// is left is the tasks' own code, longer on slower or colder CPUs
    pub switch_in_ms: Option<(f64, f64)>,
    /// of the switch-ins, the cache refill (a migrated or long-off task's
    /// working set)
    pub refill_ms: Option<(f64, f64)>,
    pub cause: Cause,
}

/// The larger share of a run-to-completion loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// more CPU time for the same work
    MoreWork,
    /// fewer busy CPUs, mostly while tasks waited in some queue
    IdleWhileQueued,
    /// fewer busy CPUs, mostly with no task waiting anywhere
    IdleNothingQueued,
}

impl Cause {
    fn about(self) -> &'static str {
        match self {
            Cause::MoreWork => "more CPU work",
            Cause::IdleWhileQueued => "CPUs idle while tasks waited",
            Cause::IdleNothingQueued => "CPUs idle with nothing queued",
        }
    }
}

/// The split of a time_s cell from both sides' means; None where a side
/// lacks busy_pct or its work.
fn split(a: &BTreeMap<String, f64>, b: &BTreeMap<String, f64>) -> Option<Split> {
    let (wa, wb) = (*a.get(WORK)?, *b.get(WORK)?);
    let (ba, bb) = (*a.get("busy_pct")?, *b.get("busy_pct")?);
    let q = |m: &BTreeMap<String, f64>| m.get("idle_while_queued_pct").copied().unwrap_or(0.0);
    let (qa, qb) = (q(a), q(b));
    if !(wa > 0.0 && wb > 0.0 && ba > 0.0 && bb > 0.0) {
        return None;
    }
    // time ratio = work ratio × utilisation ratio: compare the logs
    let from_work = (wa / wb).ln();
    let from_idle = (bb / ba).ln();
    let cause = if from_work >= from_idle {
        Cause::MoreWork
    } else if qa - qb >= ((100.0 - ba) - (100.0 - bb)) / 2.0 {
        Cause::IdleWhileQueued
    } else {
        Cause::IdleNothingQueued
    };
    let both = |k: &str, scale: f64| Some((*a.get(k)? * scale, *b.get(k)? * scale));
    Some(Split {
        work_pct: 100.0 * (wa / wb - 1.0),
        busy_pct: (ba, bb),
        idle_queued_pct: (qa, qb),
        work_ms: both(WORK_MS, 1.0),
        switch_in_ms: both(SWITCH_NS, 1e-6),
        refill_ms: both(REFILL_NS, 1e-6),
        cause,
    })
}

/// The mean of each counter over the good runs of (machine, workload,
/// scheduler) in `runs` (a verdict's results.json "runs").
fn means(runs: &[Value], machine: &str, workload: &str, sched: &str) -> BTreeMap<String, f64> {
    let mut sum: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for r in runs {
        let is = |k: &str, v: &str| r.get(k).and_then(|x| x.as_str()) == Some(v);
        if !(is("machine", machine) && is("workload", workload) && is("scheduler", sched)) {
            continue;
        }
        if r.pointer("/run/failed").is_some_and(|f| !f.is_null()) {
            continue;
        }
        let Some(m) = r.pointer("/run/metrics").and_then(|m| m.as_object()) else {
            continue;
        };
        let mut add = |k: &str, x: f64| {
            let e = sum.entry(k.to_string()).or_default();
            e.0 += x;
            e.1 += 1;
        };
        for (k, v) in m {
            if let Some(x) = v.as_f64().filter(|x| x.is_finite()) {
                add(k, x);
            }
        }
        // a run's CPU time busy, in units of the machine's CPUs × 1 s
        // (busy_pct × time_s / 100): the work a run-to-completion cell did;
        // in ms where the run records its machine's CPUs
        if let (Some(b), Some(t)) = (
            m.get("busy_pct").and_then(|x| x.as_f64()),
            m.get("time_s").and_then(|x| x.as_f64()),
        ) {
            if (b * t).is_finite() {
                add(WORK, b * t / 100.0);
                if let Some(n) = r.pointer("/run/cpus").and_then(|x| x.as_f64()) {
                    add(WORK_MS, b * t / 100.0 * n * 1e3);
                }
            }
        }
        if let Some(c) = r.pointer("/run/charged").and_then(|c| c.as_object()) {
            for (k, v) in c {
                if let Some(x) = v.as_f64().filter(|x| x.is_finite()) {
                    add(&format!("charged:{k}"), x);
                }
            }
        }
    }
    sum.into_iter()
        .map(|(k, (s, n))| (k, s / n as f64))
        .collect()
}

/// How far apart two means are, for ranking: their difference over the
/// larger of the two and the counter's smallest difference that counts;
/// 0 below that difference.
fn apart(a: f64, b: f64, floor: f64) -> f64 {
    let d = (a - b).abs();
    if d < floor {
        0.0
    } else {
        d / a.abs().max(b.abs()).max(floor)
    }
}

/// The side a cell is lost to: its best peer when worse than it, else its
/// baseline when worse than that.
fn lost_to(c: &Cell) -> Option<(String, f64)> {
    let side = |s: &Option<super::Side>, cmp: &super::Compare| {
        (cmp.call == Call::Worse)
            .then(|| s.as_ref().map(|s| (s.scheduler.clone(), cmp.pct)))
            .flatten()
    };
    side(&c.best_peer, &c.vs_peer).or_else(|| side(&c.baseline, &c.vs_baseline))
}

/// Every lost cell of `cells` with its counters, from `runs`. A cell
/// whose runs are not in `runs` (a folder of `arbor sim` or `arbor bench`
/// runs, an old summary) is left out.
pub fn of(cells: &[Cell], runs: &[Value]) -> Vec<Why> {
    cells
        .iter()
        .filter_map(|c| {
            let (against, pct) = lost_to(c)?;
            let a = means(runs, &c.machine, &c.workload, &c.candidate.scheduler);
            let b = means(runs, &c.machine, &c.workload, &against);
            if a.is_empty() || b.is_empty() {
                return None;
            }
            let mut counters: Vec<(f64, Counter)> = COUNTERS
                .iter()
                .filter(|(k, _, _)| *k != c.metric)
                .filter_map(|(k, _, floor)| {
                    let (x, y) = (*a.get(*k)?, *b.get(*k)?);
                    let d = apart(x, y, *floor);
                    (d > 0.0).then(|| {
                        (
                            d,
                            Counter {
                                name: k.to_string(),
                                candidate: x,
                                other: y,
                            },
                        )
                    })
                })
                .collect();
            counters.sort_by(|x, y| y.0.total_cmp(&x.0));
            Some(Why {
                machine: c.machine.clone(),
                workload: c.workload.clone(),
                against,
                pct,
                counters: counters.into_iter().take(SHOWN).map(|x| x.1).collect(),
                split: (c.metric == "time_s").then(|| split(&a, &b)).flatten(),
            })
        })
        .collect()
}

fn about(name: &str) -> &'static str {
    COUNTERS
        .iter()
        .find(|(k, _, _)| *k == name)
        .map_or("", |x| x.1)
}

/// The report's section: one line per lost cell (the counters, candidate
/// against the side it lost to), then how many lost cells each counter
/// leads.
pub fn text(whys: &[Why], candidate: &str) -> String {
    if whys.is_empty() {
        return String::new();
    }
    let mut o = format!(
        "\nWhy {candidate} is worse where it is: the counters that differ most, {} against the side it lost to (means of their runs); for a run to completion (time_s), its time split into CPU work and busy CPUs\n\n| machine | workload | against | change | counters | time split |\n|---|---|---|---|---|---|\n",
        short(candidate)
    );
    let mut lead: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut causes: BTreeMap<Cause, usize> = BTreeMap::new();
    for w in whys {
        let cs: Vec<String> = w
            .counters
            .iter()
            .map(|c| format!("{} {} vs {}", c.name, g4(c.candidate), g4(c.other)))
            .collect();
        if let Some(c) = w.counters.first() {
            let way = if c.candidate > c.other {
                "higher"
            } else {
                "lower"
            };
            *lead.entry((c.name.as_str(), way)).or_default() += 1;
        }
        let sp = w.split.as_ref().map_or("-".to_string(), |sp| {
            *causes.entry(sp.cause).or_default() += 1;
            let pair = |what: &str, p: Option<(f64, f64)>| {
                p.map_or(String::new(), |p| {
                    format!(", {what} {} vs {}", g4(p.0), g4(p.1))
                })
            };
            let ms = sp.work_ms.map_or(String::new(), |w| {
                format!(
                    " ({} vs {} ms{}{})",
                    g4(w.0),
                    g4(w.1),
                    pair("switch-ins", sp.switch_in_ms),
                    pair("cache refill", sp.refill_ms)
                )
            });
            format!(
                "{}: CPU work {:+.1}%{ms}, busy {}% vs {}% (idle while queued {} vs {})",
                sp.cause.about(),
                sp.work_pct,
                g4(sp.busy_pct.0),
                g4(sp.busy_pct.1),
                g4(sp.idle_queued_pct.0),
                g4(sp.idle_queued_pct.1)
            )
        });
        let _ = writeln!(
            o,
            "| {} | {} | {} | {:+.1}% | {} | {sp} |",
            w.machine,
            w.workload,
            w.against,
            w.pct,
            if cs.is_empty() {
                "none differs".to_string()
            } else {
                cs.join("; ")
            }
        );
    }
    let mut lead: Vec<((&str, &str), usize)> = lead.into_iter().collect();
    lead.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let _ = writeln!(
        o,
        "\nLost cells by the counter that differs most, {} higher or lower than the winner:",
        short(candidate)
    );
    for ((k, way), n) in lead {
        let _ = writeln!(o, "  {n:3}  {k} {way} ({})", about(k));
    }
    if !causes.is_empty() {
        let _ = writeln!(
            o,
            "\nLost runs to completion (time_s) by the larger share of their longer time:"
        );
        for (c, n) in causes {
            let _ = writeln!(o, "  {n:3}  {}", c.about());
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::verdict::{judge, Compare, Side};

    fn side(s: &str, v: &[f64]) -> Side {
        Side::of(s, v.iter().copied(), v.len(), 0)
    }

    fn run(sched: &str, idle: f64, xllc: f64, t: f64) -> Value {
        serde_json::json!({"machine": "m", "workload": "w", "scheduler": sched,
            "run": {"rep": 0, "metrics": {"time_s": t, "idle_while_queued_pct": idle,
                "mig_xllc_per_kwake": xllc, "bpf_ns_per_wakeup": 800.0}}})
    }

    /// The cell of `sides` (time_s, lower is better) against cosmos.
    fn cell(sides: &[Side]) -> Cell {
        judged("time_s", "cosmos", sides)
    }

    /// The cell of `sides` on `metric` (lower is better) against `peer`.
    fn judged(metric: &str, peer: &str, sides: &[Side]) -> Cell {
        let peers = [peer.to_string()];
        judge(
            "m",
            "w",
            metric,
            false,
            sides,
            "arbor:default",
            "arbor:stock",
            &peers,
        )
    }

    /// default and stock twice cosmos's time: default loses to cosmos.
    fn cosmos_twice_as_fast() -> [Side; 3] {
        [
            side("arbor:default", &[2.0, 2.1, 2.0]),
            side("arbor:stock", &[2.0, 2.1, 2.0]),
            side("cosmos", &[1.0, 1.01, 1.0]),
        ]
    }

    #[test]
    fn a_lost_cell_names_the_counters_that_differ_largest_first() {
        let sides = cosmos_twice_as_fast();
        let c = cell(&sides);
        assert_eq!(c.vs_peer.call, Call::Worse);
        let runs = [
            run("arbor:default", 11.0, 90.0, 2.0),
            run("arbor:default", 9.0, 110.0, 2.1),
            run("cosmos", 0.5, 700.0, 1.0),
            run("arbor:stock", 0.0, 0.0, 9.0),
        ];
        let w = of(std::slice::from_ref(&c), &runs);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].against, "cosmos");
        let names: Vec<&str> = w[0].counters.iter().map(|c| c.name.as_str()).collect();
        // idle 10 vs 0.5 (0.95 apart) before cross-LLC 100 vs 700 (0.86);
        // an equal BPF cost is not listed
        assert_eq!(names, ["idle_while_queued_pct", "mig_xllc_per_kwake"]);
        assert_eq!(w[0].counters[0].candidate, 10.0);
        let t = text(&w, "arbor:default");
        assert!(t.contains("| m | w | cosmos |"), "{t}");
        assert!(t.contains("1  idle_while_queued_pct higher"), "{t}");
    }

    #[test]
    fn cells_not_lost_have_no_reason() {
        let sides = [
            side("arbor:default", &[1.0, 1.0]),
            side("arbor:stock", &[2.0, 2.1]),
            side("cosmos", &[2.0, 2.1]),
        ];
        let c = cell(&sides);
        assert!(of(
            std::slice::from_ref(&c),
            &[run("arbor:default", 1.0, 1.0, 1.0)]
        )
        .is_empty());
        // a lost cell without its runs: no reason, rather than "none differs"
        let lost = Cell {
            vs_peer: Compare::because(Call::Worse, "x"),
            ..c
        };
        assert!(of(&[lost], &[run("arbor:default", 1.0, 1.0, 1.0)]).is_empty());
        assert_eq!(text(&[], "arbor:default"), "");
    }

    fn timed(sched: &str, t: f64, busy: f64, queued: f64) -> Value {
        serde_json::json!({"machine": "m", "workload": "w", "scheduler": sched,
            "run": {"rep": 0, "metrics": {"time_s": t, "busy_pct": busy,
                "idle_while_queued_pct": queued}}})
    }

    /// A run of a verdict that records its machine's CPUs and the
    /// simulator's charges.
    fn charged(sched: &str, t: f64, busy: f64, refill_ns: f64) -> Value {
        let mut v = timed(sched, t, busy, 0.0);
        v["run"]["cpus"] = 4.into();
        v["run"]["charged"] = serde_json::json!({"refill_ns": refill_ns, "refills": 9, "switch_in_ns": 2.0 * refill_ns});
        v
    }

    #[test]
    fn more_work_is_given_in_ms_with_its_cache_refill() {
        let sides = cosmos_twice_as_fast();
        let c = cell(&sides);
        // 4 CPUs 90% busy for 2 s = 7,200 ms, 3,000 of them refill
        let runs = [
            charged("arbor:default", 2.0, 90.0, 3e9),
            charged("cosmos", 1.0, 90.0, 1e9),
        ];
        let w = of(std::slice::from_ref(&c), &runs);
        let s = w[0].split.clone().unwrap();
        assert_eq!(s.cause, Cause::MoreWork);
        assert_eq!(s.work_ms, Some((7200.0, 3600.0)));
        assert_eq!(s.refill_ms, Some((3000.0, 1000.0)));
        assert_eq!(s.switch_in_ms, Some((6000.0, 2000.0)));
        let t = text(&w, "arbor:default");
        assert!(
            t.contains("more CPU work: CPU work +100.0% (7200 vs 3600 ms, switch-ins 6000 vs 2000, cache refill 3000 vs 1000)"),
            "{t}"
        );
        // without the machine's CPUs and the charges, the share alone
        let s = split_of([90.0, 1.0], [90.0, 1.0]);
        assert_eq!((s.work_ms, s.switch_in_ms, s.refill_ms), (None, None, None));
    }

    /// The split of a cell default loses to cosmos, 2.0 s against 1.0,
    /// with default's runs `ours` and cosmos's `theirs`.
    fn split_of(ours: [f64; 2], theirs: [f64; 2]) -> Split {
        let sides = cosmos_twice_as_fast();
        let c = cell(&sides);
        let runs = [
            timed("arbor:default", 2.0, ours[0], ours[1]),
            timed("cosmos", 1.0, theirs[0], theirs[1]),
        ];
        let w = of(std::slice::from_ref(&c), &runs);
        w[0].split.clone().expect("a time_s cell has a split")
    }

    #[test]
    fn a_lost_run_to_completion_is_split_into_work_and_idle() {
        // same busy share, twice the time: twice the work
        let s = split_of([90.0, 1.0], [90.0, 1.0]);
        assert_eq!(s.cause, Cause::MoreWork);
        assert!((s.work_pct - 100.0).abs() < 1e-9, "{s:?}");
        // same work (45 × 2 = 90 × 1), half the CPUs busy, most of the idle
        // time with a task waiting
        let s = split_of([45.0, 40.0], [90.0, 1.0]);
        assert_eq!(s.cause, Cause::IdleWhileQueued);
        assert!(s.work_pct.abs() < 1e-9, "{s:?}");
        // the same idle time, with nothing queued
        let s = split_of([45.0, 2.0], [90.0, 1.0]);
        assert_eq!(s.cause, Cause::IdleNothingQueued);
        // both: the larger share names it (work ×1.2, utilisation ×1.67)
        let s = split_of([54.0, 1.0], [90.0, 1.0]);
        assert_eq!(s.cause, Cause::IdleNothingQueued);
        assert!((s.work_pct - 20.0).abs() < 1e-9, "{s:?}");
        let sides = cosmos_twice_as_fast();
        let c = cell(&sides);
        let runs = [
            timed("arbor:default", 2.0, 45.0, 2.0),
            timed("cosmos", 1.0, 90.0, 1.0),
        ];
        let w = of(std::slice::from_ref(&c), &runs);
        let t = text(&w, "arbor:default");
        assert!(
            t.contains("CPUs idle with nothing queued: CPU work +0.0%, busy 45% vs 90%"),
            "{t}"
        );
        assert!(t.contains("1  CPUs idle with nothing queued"), "{t}");
    }

    #[test]
    fn only_runs_to_completion_are_split() {
        let sides = cosmos_twice_as_fast();
        let c = judged("wake_p99_us", "cosmos", &sides);
        let runs = [
            timed("arbor:default", 2.0, 45.0, 2.0),
            timed("cosmos", 1.0, 90.0, 1.0),
        ];
        let w = of(std::slice::from_ref(&c), &runs);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].split, None);
        assert!(!text(&w, "arbor:default").contains("by the larger share"));
    }

    #[test]
    fn a_schbench_loss_names_the_wakees_place_in_its_batch() {
        let sides = [
            side("arbor:default", &[21.9, 22.0, 21.8]),
            side("arbor:stock", &[39.0, 40.0, 39.5]),
            side("lavd", &[17.4, 17.3, 17.5]),
        ];
        let c = judged("wakeup_p99_us", "lavd", &sides);
        let run = |s: &str, pos: f64, wait: f64| {
            serde_json::json!({"machine": "m", "workload": "w", "scheduler": s,
                "run": {"rep": 0, "metrics": {"wakeup_p99_us": 20.0, "wake_pos_p99": pos,
                    "rq_wait_us_per_wakeup": wait}}})
        };
        let w = of(
            std::slice::from_ref(&c),
            &[run("arbor:default", 11.0, 4.7), run("lavd", 5.0, 73.5)],
        );
        let names: Vec<&str> = w[0].counters.iter().map(|c| c.name.as_str()).collect();
        // run-queue wait 4.7 vs 73.5 (0.94 apart) first, then the place
        // in the batch 11 vs 5 (0.55)
        assert_eq!(names, ["rq_wait_us_per_wakeup", "wake_pos_p99"]);
        // a place differing by less than half a wakee does not count
        let w = of(
            std::slice::from_ref(&c),
            &[run("arbor:default", 1.2, 4.7), run("lavd", 1.0, 4.7)],
        );
        assert!(w[0].counters.is_empty(), "{:?}", w[0].counters);
    }

    #[test]
    fn differences_below_a_counters_floor_do_not_count() {
        assert_eq!(apart(0.002, 0.0, 1.0), 0.0);
        assert_eq!(apart(1.6, 0.0, 10.0), 0.0);
        assert_eq!(apart(3.0, 1.0, 1.0), 2.0 / 3.0);
        assert_eq!(apart(0.5, 0.2, 0.1), 0.3 / 0.5);
    }
}
