//! `arbor sim reproduce SEED --explain`: what the mechanism changed in
//! the headline cells, from what the simulator counts in every run: where
//! tasks moved, by distance; how long a woken task waited to run; how
//! long CPUs idled while tasks waited; the scheduler's own counters (idle
//! CPUs found, wake-affine moves, newidle and periodic balance pulls,
//! steals, ...), all per wake-up, mechanism off against on, in one table;
//! and what the simulator charged for it: cache refill at switch-in and
//! idle-state exits (arbor_sim's core::Stats::charged). A line per cell
//! then reads the table: how far wakees went, what refill and idle exits
//! cost, how long they waited.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::catalogue::fmt_num as num;
use super::cell::Decided;
use crate::simrun::JobOut;

/// The simulator's figures of every run, in the table's order: (metric,
/// what it is, unit). The rest of the rows are the scheduler's counters.
#[rustfmt::skip]
const FIGURES: &[(&str, &str, &str)] = &[
    ("mig_smt_per_kwake", "moves to an SMT sibling", "/1000 wake-ups"),
    ("mig_llc_per_kwake", "moves within the LLC (other core)", "/1000 wake-ups"),
    ("mig_xllc_per_kwake", "moves to another LLC of the node", "/1000 wake-ups"),
    ("mig_xnode_per_kwake", "moves to another node", "/1000 wake-ups"),
    ("rq_wait_us_per_wakeup", "runnable, waiting for a CPU", "us/wake-up"),
    ("idle_while_queued_pct", "CPUs idle while tasks wait", "% of CPU time"),
    ("busy_pct", "CPUs busy", "% of CPU time"),
    ("wake_p50_us", "wake-up latency p50", "us"),
    ("wake_p99_us", "wake-up latency p99", "us"),
];

/// What the simulator charged (JobOut::charged), in the table's order after
/// FIGURES: (quantity, what it is, unit); a run's quantities key it
/// CHARGED_PREFIX + the counter's name, apart from the scheduler's counters.
#[rustfmt::skip]
const CHARGED: &[(&str, &str, &str)] = &[
    ("charged:refill_ns", "cache refill charged at switch-in", "us/wake-up"),
    ("charged:refills", "switch-ins that refilled", "/1000 wake-ups"),
    ("charged:idle_exit_ns", "idle-state exit latency charged", "us/wake-up"),
    ("charged:idle_exits", "idle CPUs woken", "/1000 wake-ups"),
];
const CHARGED_PREFIX: &str = "charged:";

/// Counters that are not events to count per wake-up: the wake-ups
/// themselves, busy and idle time (busy_pct has them), the wake-up
/// latency histogram's buckets (the p50 and p99 rows have them).
fn skipped(counter: &str) -> bool {
    matches!(
        counter,
        "wakeups" | "busy_ns" | "idle_ns" | "idle_while_queued_ns"
    ) || counter.starts_with("wlat_")
}

/// A counter shown only where mechanism on and off differ by this share
/// of the larger one, and by at least MIN_ABS.
const MIN_REL: f64 = 0.05;
const MIN_ABS: f64 = 0.5;

#[derive(Debug, Serialize)]
pub struct Row {
    pub quantity: String,
    pub what: String,
    pub unit: String,
    /// per headline cell: the mean over its runs, off and on
    pub off: Vec<f64>,
    pub on: Vec<f64>,
}

#[derive(Debug, Serialize)]
pub struct Explained {
    /// the headline cells: "machine: workload (effect)"
    pub cells: Vec<String>,
    pub rows: Vec<Row>,
}

/// A run's quantities: the figures as reported; each counter per 1000
/// wake-ups, a time (`_ns`) in us per wake-up.
fn quantities(j: &JobOut) -> BTreeMap<String, f64> {
    let mut q: BTreeMap<String, f64> = BTreeMap::new();
    for (name, _, _) in FIGURES {
        if let Some(m) = j.metrics.iter().find(|m| m.0 == *name) {
            q.insert(name.to_string(), m.1);
        }
    }
    let wakeups = j
        .counters
        .iter()
        .find(|c| c.0 == "wakeups")
        .map_or(0, |c| c.1)
        .max(1) as f64;
    let charged = j
        .charged
        .iter()
        .map(|(n, v)| (format!("{CHARGED_PREFIX}{n}"), v));
    for (name, v) in j
        .counters
        .iter()
        .map(|(n, v)| (n.clone(), v))
        .chain(charged)
    {
        if skipped(&name) {
            continue;
        }
        let per = if name.ends_with("_ns") {
            *v as f64 / 1e3 / wakeups
        } else {
            *v as f64 * 1e3 / wakeups
        };
        q.insert(name, per);
    }
    q
}

fn mean_of(runs: &BTreeMap<u32, Result<JobOut, String>>) -> BTreeMap<String, f64> {
    let mut sum: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for j in runs.values().filter_map(|r| r.as_ref().ok()) {
        for (k, v) in quantities(j) {
            let e = sum.entry(k).or_default();
            e.0 += v;
            e.1 += 1;
        }
    }
    sum.into_iter()
        .map(|(k, (s, n))| (k, s / n.max(1) as f64))
        .collect()
}

/// The headline cells: per machine, the cell where the mechanism's effect
/// is largest (a decided one first).
pub fn headline(decided: &[Decided]) -> Vec<usize> {
    let mut best: Vec<(String, usize)> = Vec::new();
    let key = |d: &Decided| {
        let pct = if d.effect.pct.is_finite() {
            d.effect.pct.abs()
        } else {
            -1.0
        };
        (d.effect.call.decided(), pct)
    };
    for (i, d) in decided.iter().enumerate() {
        match best.iter_mut().find(|b| b.0 == d.machine) {
            None => best.push((d.machine.clone(), i)),
            Some(b) => {
                let (k, o) = (key(d), key(&decided[b.1]));
                if k.0 > o.0 || (k.0 == o.0 && k.1 > o.1) {
                    b.1 = i;
                }
            }
        }
    }
    best.into_iter().map(|b| b.1).collect()
}

pub fn explain(
    decided: &[Decided],
    runs: &[[BTreeMap<u32, Result<JobOut, String>>; 2]],
) -> Explained {
    let cells = headline(decided);
    let means: Vec<[BTreeMap<String, f64>; 2]> = cells
        .iter()
        .map(|&c| [mean_of(&runs[c][0]), mean_of(&runs[c][1])])
        .collect();
    let get = |m: &BTreeMap<String, f64>, k: &str| m.get(k).copied().unwrap_or(f64::NAN);
    let mut rows = Vec::new();
    for (name, what, unit) in FIGURES.iter().chain(CHARGED) {
        rows.push(Row {
            quantity: name.to_string(),
            what: what.to_string(),
            unit: unit.to_string(),
            off: means.iter().map(|m| get(&m[0], name)).collect(),
            on: means.iter().map(|m| get(&m[1], name)).collect(),
        });
    }
    let mut counters: Vec<&String> = means
        .iter()
        .flat_map(|m| m[0].keys().chain(m[1].keys()))
        .filter(|k| !FIGURES.iter().any(|f| f.0 == k.as_str()) && !k.starts_with(CHARGED_PREFIX))
        .collect();
    counters.sort();
    counters.dedup();
    for name in counters {
        let off: Vec<f64> = means.iter().map(|m| get(&m[0], name)).collect();
        let on: Vec<f64> = means.iter().map(|m| get(&m[1], name)).collect();
        let differs = off.iter().zip(&on).any(|(a, b)| {
            let (a, b) = (a.max(0.0), b.max(0.0)); // NaN (not counted) as 0
            let d = (a - b).abs();
            d >= MIN_ABS && d >= MIN_REL * a.max(b)
        });
        if differs {
            let time = name.ends_with("_ns");
            rows.push(Row {
                quantity: format!("c:{name}"),
                what: if time {
                    format!("{} (time)", name.trim_end_matches("_ns"))
                } else {
                    name.replace('_', " ")
                },
                unit: if time { "us/wake-up" } else { "/1000 wake-ups" }.to_string(),
                off,
                on,
            });
        }
    }
    Explained {
        cells: cells
            .iter()
            .map(|&c| {
                let d = &decided[c];
                format!(
                    "{}: {} ({} {})",
                    d.machine,
                    d.workload,
                    d.effect.call.text(),
                    if d.effect.pct.is_finite() {
                        format!("{:+.1}%", d.effect.pct)
                    } else {
                        "-".into()
                    }
                )
            })
            .collect(),
        rows,
    }
}

/// The table: a row per quantity, per headline cell its value off, on and
/// the difference.
pub fn markdown(e: &Explained, mech: &str) -> String {
    let mut s = format!(
        "## What {mech} changed (--explain)\n\nThe headline cell of each machine (the largest decided effect), mean over its runs; Δ = on - off. The simulator's figures and what it charged (cache refill, idle-state exits) first, then the scheduler's counters where off and on differ by {:.0}% or more; under the table, each cell in a sentence.\n\n",
        MIN_REL * 100.0
    );
    let mut h = String::from("| quantity | unit |");
    let mut sep = String::from("|---|---|");
    for c in &e.cells {
        let _ = write!(h, " {c}: off | on | Δ |");
        sep.push_str("---|---|---|");
    }
    let _ = writeln!(s, "{h}\n{sep}");
    for r in &e.rows {
        let _ = write!(s, "| {} | {} |", r.what, r.unit);
        for (a, b) in r.off.iter().zip(&r.on) {
            let d = match b - a {
                d if !d.is_finite() => "-".into(),
                d if d == 0.0 => "0".into(),
                d if d < 0.0 => num(d),
                d => format!("+{}", num(d)),
            };
            let _ = write!(s, " {} | {} | {d} |", num(*a), num(*b));
        }
        s.push('\n');
    }
    s.push('\n');
    for (i, c) in e.cells.iter().enumerate() {
        let _ = writeln!(s, "- {c}: {}", reading(e, i, mech));
    }
    s
}

/// Headline cell `i` in a sentence, mechanism on (off): wake-ups that moved
/// to another LLC or node, refill and idle-exit time per wake-up and per
/// refill or exit, waits for a CPU per wake-up.
fn reading(e: &Explained, i: usize, mech: &str) -> String {
    let v = |q: &str| {
        e.rows
            .iter()
            .find(|r| r.quantity == q)
            .map_or((f64::NAN, f64::NAN), |r| (r.off[i], r.on[i]))
    };
    let (xl, xn) = (v("mig_xllc_per_kwake"), v("mig_xnode_per_kwake"));
    let cross = (xl.0 + xn.0, xl.1 + xn.1);
    let each =
        |time: (f64, f64), count: (f64, f64)| (1e3 * time.0 / count.0, 1e3 * time.1 / count.1);
    let refill = v("charged:refill_ns");
    let per_refill = each(refill, v("charged:refills"));
    let (exit, exits) = (v("charged:idle_exit_ns"), v("charged:idle_exits"));
    let per_exit = each(exit, exits);
    let wait = v("rq_wait_us_per_wakeup");
    // NaN (not counted) and x / 0 (no refill, no exit) as "-"
    let f = |x: f64| if x.is_finite() { num(x) } else { "-".into() };
    format!(
        "with {mech} on (off), {}% ({}%) of wake-ups moved to another LLC or node; \
         refill {} ({}) us per wake-up, {} ({}) us per refill; \
         {} ({}) idle exits per 1000 wake-ups, {} ({}) us each; \
         waits for a CPU {} ({}) us per wake-up.",
        f(cross.1 / 10.0),
        f(cross.0 / 10.0),
        f(refill.1),
        f(refill.0),
        f(per_refill.1),
        f(per_refill.0),
        f(exits.1),
        f(exits.0),
        f(per_exit.1),
        f(per_exit.0),
        f(wait.1),
        f(wait.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(wakeups: u64, steal: u64, wait_ns: u64, p99: f64) -> JobOut {
        serde_json::from_value(serde_json::json!({
            "stop": "done", "ok": true, "ejected": false, "sim_ns": 1, "events": 1,
            "callbacks": 1, "state_changes": 1, "queue_events": 1, "cpu_s": 0.1,
            "metrics": [["time_s", 1.0], ["wake_p99_us", p99],
                        ["mig_xllc_per_kwake", 100.0], ["mig_xnode_per_kwake", 50.0]],
            "counters": [["wakeups", wakeups], ["steal", steal], ["wake_queued_ns", wait_ns],
                         ["wlat_direct_3", 7], ["lb_pulls", 10]],
            "charged": [["refills", steal / 2], ["refill_ns", steal * 8_000],
                        ["idle_exits", wakeups / 4], ["idle_exit_ns", wakeups * 500]],
        }))
        .unwrap()
    }

    #[test]
    fn counters_go_per_wake_up_and_only_differences_are_listed() {
        let q = quantities(&job(2000, 100, 4_000_000, 9.0));
        assert_eq!(q["steal"], 50.0); // per 1000 wake-ups
        assert_eq!(q["wake_queued_ns"], 2.0); // us per wake-up
        assert!(!q.contains_key("wlat_direct_3") && !q.contains_key("wakeups"));
        let runs = |j: JobOut| [(0u32, Ok(j))].into_iter().collect::<BTreeMap<_, _>>();
        let d = |pct: f64, call| Decided {
            machine: "m".into(),
            workload: "w".into(),
            metric: "time_s".into(),
            higher_is_better: false,
            off: side(),
            on: side(),
            effect: crate::sim::verdict::Compare {
                pct,
                lo: pct - 1.0,
                hi: pct + 1.0,
                call,
                why: None,
            },
            identical_runs: false,
        };
        use crate::sim::verdict::Call;
        let decided = [
            d(-1.0, Call::NotWorse),
            d(-20.0, Call::Worse),
            d(50.0, Call::Undecided),
        ];
        // the decided cell with the largest effect, not the undecided one
        assert_eq!(headline(&decided), vec![1]);
        let all_runs: Vec<_> = (0..3)
            .map(|_| {
                [
                    runs(job(1000, 0, 1000, 5.0)),
                    runs(job(1000, 300, 1000, 9.0)),
                ]
            })
            .collect();
        let e = explain(&decided, &all_runs);
        let steal = e.rows.iter().find(|r| r.quantity == "c:steal").unwrap();
        assert_eq!((steal.off[0], steal.on[0]), (0.0, 300.0));
        // equal on both sides: not a row
        assert!(e.rows.iter().all(|r| r.quantity != "c:lb_pulls"));
        let md = markdown(&e, "STEAL");
        assert!(
            md.contains("| steal | /1000 wake-ups | 0.000 | 300.0 | +300.0 |"),
            "{md}"
        );
        assert!(
            md.contains("| wake-up latency p99 | us | 5.000 | 9.000 | +4.000 |"),
            "{md}"
        );
        // what the simulator charged: always a row, per wake-up
        assert!(
            md.contains(
                "| cache refill charged at switch-in | us/wake-up | 0.000 | 2.400 | +2.400 |"
            ) && md.contains("| idle CPUs woken | /1000 wake-ups | 250.0 | 250.0 | 0 |"),
            "{md}"
        );
        // and read in a sentence: 2.4 us per wake-up over 150 refills per
        // 1000 wake-ups is 16 us per refill; none with STEAL off
        assert!(
            md.contains("- m: w (WORSE -20.0%): with STEAL on (off), 15.0% (15.0%) of wake-ups moved to another LLC or node; refill 2.400 (0.000) us per wake-up, 16.0 (-) us per refill; 250.0 (250.0) idle exits per 1000 wake-ups, 2.000 (2.000) us each;"),
            "{md}"
        );
    }

    fn side() -> crate::sim::verdict::Side {
        crate::sim::verdict::Side {
            scheduler: "s".into(),
            mean: 1.0,
            sd: 0.0,
            n: 2,
            runs: 2,
            failed: 0,
            paired: Vec::new(),
        }
    }
}
