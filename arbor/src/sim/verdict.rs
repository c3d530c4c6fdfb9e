//! `arbor sim verdict DIR...`: the candidate against the best peer and the
//! baseline, read from results.json or summary.json (the same tables from
//! either: both are read as a summary). In each cell (a run's machine x a
//! workload, on the workload's primary metric, the report's headline) the
//! candidate (arbor:default) is set
//! against the best peer and against the baseline (arbor:stock), with
//! Welch's 95% interval (crate::ci): "best" (its mean is the best), "tied"
//! (behind, but the interval holds 0), or "LOSES"; and "worse than the
//! baseline" when that interval excludes 0 on the wrong side. The bar:
//! best or tied in >= 80% of the cells, worse than the baseline in none.
//!
//! A peer is every scheduler of the run whose name does not start with
//! "arbor" (nor is the candidate). A peer ejected in any run of a cell
//! cannot be that cell's best peer; the table names it. This is what
//! docs/findings/2026-11-27-default-vs-peers-3/verdict.py computed, typed,
//! with ci.rs's t table (df rounded down, as every report of arbor's).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::ci::change_ci_of;
use crate::report::summary::{self, Summary};
use crate::report::Results;

/// The scheduler judged and the one it must not fall behind, by default.
pub const CANDIDATE: &str = "arbor:default";
pub const BASELINE: &str = "arbor:stock";

#[derive(Debug, Args)]
pub struct VerdictArgs {
    /// The scheduler judged.
    #[arg(long, default_value = CANDIDATE)]
    candidate: String,
    /// The scheduler the candidate must not be worse than in any cell.
    #[arg(long, default_value = BASELINE)]
    baseline: String,
    /// Exit 1 unless at least PCT% of the cells are best or tied and no
    /// cell is worse than the baseline (e.g. 80).
    #[arg(long, value_name = "PCT")]
    require: Option<f64>,
    /// Output directories of `arbor sim --out` (or `arbor bench`), each
    /// holding a results.json or, without one, a summary.json; one table
    /// each, one count for all.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
}

/// The candidate's change against another scheduler, in % of the other's
/// mean, signed so that + is better for the candidate, and the half-width
/// of its 95% Welch interval (None with fewer than 2 runs on a side).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    pub pct: f64,
    pub half: Option<f64>,
}

impl Change {
    /// The interval lies wholly below 0: the candidate is worse.
    pub fn worse(&self) -> bool {
        matches!(self.half, Some(h) if self.pct + h < 0.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// the candidate's mean is the best (or every peer was ejected)
    Best,
    /// behind the best peer, but the interval holds 0
    Tied,
    /// behind the best peer, the interval excludes 0
    Loses,
    /// behind the best peer, no interval (fewer than 2 runs)
    NoInterval,
    /// the candidate was ejected in a run of the cell, or has no value
    Failed,
}

impl Outcome {
    pub fn best_or_tied(self) -> bool {
        matches!(self, Outcome::Best | Outcome::Tied)
    }
}

/// One cell: a workload of one run, on its primary metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub workload: String,
    pub metric: String,
    pub higher_is_better: bool,
    /// the candidate's mean (NaN without a value), its runs, and the runs
    /// in which it was ejected
    pub candidate_mean: f64,
    pub candidate_runs: usize,
    pub candidate_ejected: usize,
    /// the eligible peer with the best mean, and that mean
    pub best_peer: Option<(String, f64)>,
    /// peers ejected in a run of this cell: not eligible as best
    pub ejected_peers: Vec<String>,
    pub vs_peer: Option<Change>,
    pub vs_baseline: Option<Change>,
    pub outcome: Outcome,
    pub worse_than_baseline: bool,
}

/// The candidate's cells of one results.json, in the run's workload order.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub candidate: String,
    pub baseline: String,
    pub cells: Vec<Cell>,
}

/// A peer of `candidate`: not an arbor profile, not the candidate.
pub fn is_peer(sched: &str, candidate: &str) -> bool {
    !sched.starts_with("arbor") && sched != candidate
}

/// The candidate's change against `other`'s runs (see [`Change`]), from
/// each side's (mean, sd, runs); None when a side has no value or the
/// other's mean is 0.
fn change(
    cand: (f64, f64, usize),
    other: (f64, f64, usize),
    higher_is_better: bool,
) -> Option<Change> {
    if cand.2 == 0 || other.2 == 0 {
        return None;
    }
    let (mc, mo) = (cand.0, other.0);
    if mo == 0.0 || !mo.is_finite() || !mc.is_finite() {
        return None;
    }
    let sign = if higher_is_better { 1.0 } else { -1.0 };
    Some(match change_ci_of(other, cand) {
        Some((c, _lo, hi)) => Change {
            pct: sign * c,
            half: Some(hi - c),
        },
        None => Change {
            pct: sign * 100.0 * (mc - mo) / mo.abs(),
            half: None,
        },
    })
}

/// The verdict of `candidate` in every workload of `r`, against the best
/// peer and `baseline`. Errors when either is not in the run or the run has
/// no peer.
pub fn verdict(r: &Summary, candidate: &str, baseline: &str) -> Result<Verdict> {
    let ran = |s: &str| r.schedulers.iter().any(|x| x == s);
    let list = r.schedulers.join(", ");
    if !ran(candidate) {
        bail!("the candidate {candidate} is not in this run (its schedulers: {list})");
    }
    if !ran(baseline) {
        bail!("the baseline {baseline} is not in this run (its schedulers: {list})");
    }
    if candidate == baseline {
        bail!("the candidate and the baseline are both {candidate}");
    }
    let peers: Vec<&String> = r
        .schedulers
        .iter()
        .filter(|s| is_peer(s, candidate))
        .collect();
    if peers.is_empty() {
        bail!("no peer in this run (every scheduler's name starts with arbor: {list})");
    }
    // the workloads in the run's order, each with its metric and direction
    let mut workloads: Vec<(&str, &str, bool)> = Vec::new();
    for c in &r.cells {
        if !workloads.iter().any(|w| w.0 == c.workload) {
            workloads.push((&c.workload, &c.metric, c.better.higher()));
        }
    }
    let mut cells = Vec::new();
    for (w, m, hib) in workloads {
        let cell = |s: &str| r.cell(w, s);
        // (mean, sd, runs with a value)
        let get = |s: &str| cell(s).map_or((f64::NAN, f64::NAN, 0), |c| c.stats());
        let ejected = |s: &str| cell(s).map_or(0, |c| c.ejected);
        let cand = get(candidate);
        let mut ejected_peers = Vec::new();
        let mut best: Option<(&str, f64)> = None;
        for p in &peers {
            if ejected(p) > 0 {
                ejected_peers.push(p.to_string());
                continue;
            }
            let mean = get(p).0;
            if !mean.is_finite() {
                continue;
            }
            let better = |b: f64| if hib { mean > b } else { mean < b };
            if best.map_or(true, |(_, b)| better(b)) {
                best = Some((p, mean));
            }
        }
        let vs_peer = best.and_then(|(p, _)| change(cand, get(p), hib));
        let vs_baseline = change(cand, get(baseline), hib);
        let candidate_ejected = ejected(candidate);
        let outcome = if cand.2 == 0 || candidate_ejected > 0 {
            Outcome::Failed
        } else if best.is_none() {
            Outcome::Best
        } else {
            match vs_peer {
                Some(c) if c.pct >= 0.0 => Outcome::Best,
                Some(Change { pct, half: Some(h) }) => {
                    if pct + h >= 0.0 {
                        Outcome::Tied
                    } else {
                        Outcome::Loses
                    }
                }
                _ => Outcome::NoInterval,
            }
        };
        cells.push(Cell {
            workload: w.to_string(),
            metric: m.to_string(),
            higher_is_better: hib,
            candidate_mean: cand.0,
            candidate_runs: cell(candidate).map_or(0, |c| c.runs.max(c.n)),
            candidate_ejected,
            best_peer: best.map(|(p, m)| (p.to_string(), m)),
            ejected_peers,
            vs_peer,
            vs_baseline,
            outcome,
            worse_than_baseline: vs_baseline.is_some_and(|c| c.worse()),
        });
    }
    Ok(Verdict {
        candidate: candidate.to_string(),
        baseline: baseline.to_string(),
        cells,
    })
}

/// Python's `{:.4g}` (verdict.py's): 4 significant digits, trailing zeros
/// dropped, scientific below 1e-4 and from 1e4.
fn g4(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    let sci = format!("{x:.3e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..4).contains(&exp) {
        trim(format!("{x:.*}", (3 - exp) as usize))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mant.to_string()), exp.abs())
    }
}

/// A profile's name without "arbor:", as verdict.py's columns had it.
fn short(s: &str) -> &str {
    s.strip_prefix("arbor:").unwrap_or(s)
}

fn change_text(c: Option<Change>) -> String {
    match c {
        Some(Change { pct, half: Some(h) }) => format!("{pct:+.1}% ±{h:.1}"),
        Some(Change { pct, half: None }) => format!("{pct:+.1}% ±n/a"),
        None => "n/a".into(),
    }
}

impl Cell {
    fn verdict_text(&self, baseline: &str) -> String {
        let mut v = match self.outcome {
            Outcome::Best => "best".to_string(),
            Outcome::Tied => "tied (interval holds 0)".into(),
            Outcome::Loses => "LOSES".into(),
            Outcome::NoInterval => "behind, no interval (fewer than 2 runs)".into(),
            Outcome::Failed if self.candidate_ejected > 0 => format!(
                "LOSES (ejected in {} of {} runs)",
                self.candidate_ejected, self.candidate_runs
            ),
            Outcome::Failed => "LOSES (no result)".into(),
        };
        if self.worse_than_baseline {
            let _ = write!(v, "; worse than {}", short(baseline));
        }
        v
    }

    fn peer_text(&self) -> String {
        let mut t = match &self.best_peer {
            Some((p, m)) => format!("{p} {}", g4(*m)),
            None => "none".into(),
        };
        if !self.ejected_peers.is_empty() {
            let _ = write!(
                t,
                " ({} ejected: not eligible)",
                self.ejected_peers.join(", ")
            );
        }
        t
    }
}

impl Verdict {
    /// Cells best or tied.
    pub fn good(&self) -> usize {
        self.cells
            .iter()
            .filter(|c| c.outcome.best_or_tied())
            .count()
    }

    /// Cells worse than the baseline.
    pub fn worse(&self) -> Vec<&Cell> {
        self.cells
            .iter()
            .filter(|c| c.worse_than_baseline)
            .collect()
    }

    /// verdict.py's table: one row per workload.
    pub fn table(&self) -> String {
        let (c, b) = (short(&self.candidate), short(&self.baseline));
        let mut o = format!(
            "| workload | metric | {c} | best peer | {c} vs best peer | {c} vs {b} | verdict |\n|---|---|---|---|---|---|---|\n"
        );
        for x in &self.cells {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} |",
                x.workload,
                x.metric,
                g4(x.candidate_mean),
                x.peer_text(),
                change_text(x.vs_peer),
                change_text(x.vs_baseline),
                x.verdict_text(&self.baseline)
            );
        }
        o
    }

    /// "3 of 6 cells best or tied; worse than arbor:stock in 1 (perf-pipe)".
    pub fn count_line(&self) -> String {
        let worse = self.worse();
        let mut o = format!(
            "{} of {} cells best or tied; worse than {} in {}",
            self.good(),
            self.cells.len(),
            self.baseline,
            worse.len()
        );
        if !worse.is_empty() {
            let w: Vec<&str> = worse.iter().map(|c| c.workload.as_str()).collect();
            let _ = write!(o, " ({})", w.join(", "));
        }
        o
    }
}

/// Counts over several verdicts: the share of cells best or tied, and
/// the cells worse than the baseline.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Tally {
    pub cells: usize,
    pub good: usize,
    pub worse: usize,
    pub no_interval: usize,
}

impl Tally {
    pub fn add(&mut self, v: &Verdict) {
        self.cells += v.cells.len();
        self.good += v.good();
        self.worse += v.worse().len();
        self.no_interval += v
            .cells
            .iter()
            .filter(|c| c.outcome == Outcome::NoInterval)
            .count();
    }

    /// % of the cells best or tied (0 without cells).
    pub fn pct(&self) -> f64 {
        if self.cells == 0 {
            0.0
        } else {
            100.0 * self.good as f64 / self.cells as f64
        }
    }

    pub fn summary(&self, baseline: &str) -> String {
        let mut o = format!(
            "{} of {} cells best or tied ({:.0}%); worse than {baseline} in {} cell{}",
            self.good,
            self.cells,
            self.pct(),
            self.worse,
            if self.worse == 1 { "" } else { "s" }
        );
        if self.no_interval > 0 {
            let _ = write!(
                o,
                " ({} cells behind with no interval: fewer than 2 runs)",
                self.no_interval
            );
        }
        o
    }
}

/// What the columns mean, above a table.
pub fn legend(candidate: &str, baseline: &str) -> String {
    let (c, b) = (short(candidate), short(baseline));
    format!(
        "Each workload on its primary metric: \"{c} vs best peer\" is {candidate}'s change against the peer (any scheduler not named arbor*) with the best mean, + = {c} better, ± the half-width of Welch's 95% interval on the difference. \"tied\" = the interval holds 0. \"worse than {b}\" = the interval against {baseline} excludes 0 on the wrong side. A peer ejected in any run of a workload is not eligible as its best peer.\n"
    )
}

/// The verdict of an `arbor sim` run, when it has arbor:default,
/// arbor:stock and a peer.
pub fn of_run(r: &Results) -> Option<Verdict> {
    verdict(&Summary::of_results(r).ok()?, CANDIDATE, BASELINE).ok()
}

/// The count over one verdict's cells, as one line.
pub fn count(v: &Verdict) -> String {
    let mut t = Tally::default();
    t.add(v);
    t.summary(&v.baseline)
}

/// The verdict section of `arbor sim`'s report.
pub fn report_section(v: &Verdict) -> String {
    format!(
        "\n### Verdict: {CANDIDATE} against the best peer and {BASELINE}\n\n{}\n{}\n{}\n",
        legend(CANDIDATE, BASELINE),
        v.table(),
        count(v)
    )
}

/// A run's summary: DIR/results.json's, else DIR/summary.json.
pub fn read_summary(d: &Path) -> Result<Summary> {
    if !d.exists() {
        bail!("{}: no such directory", d.display());
    }
    if !d.is_dir() {
        bail!("{}: not a directory", d.display());
    }
    let results = d.join(summary::RESULTS);
    if results.exists() {
        return Summary::of_results(&Results::read(&results)?)
            .with_context(|| results.display().to_string());
    }
    let s = d.join(summary::FILE);
    if !s.exists() {
        bail!("{}: no results.json or summary.json", d.display());
    }
    Summary::read(&s)
}

/// The verdict of each DIR's run.
pub fn read_all(dirs: &[PathBuf], candidate: &str, baseline: &str) -> Result<Vec<Verdict>> {
    // a run given twice (by two spellings of its path) would count twice
    let mut seen = std::collections::BTreeMap::new();
    for d in dirs {
        let id = d.canonicalize().unwrap_or_else(|_| d.clone());
        if let Some(first) = seen.insert(id, d) {
            bail!(
                "{} is given twice (as {} and {})",
                d.display(),
                first.display(),
                d.display()
            );
        }
    }
    dirs.iter()
        .map(|d| {
            let r = read_summary(d)?;
            verdict(&r, candidate, baseline).with_context(|| d.display().to_string())
        })
        .collect()
}

pub fn main(a: &VerdictArgs) -> Result<i32> {
    if let Some(p) = a.require {
        if !(0.0..=100.0).contains(&p) {
            bail!("--require {p}: a percentage of cells, 0 to 100");
        }
    }
    // every input read before anything is printed
    let vs = read_all(&a.dirs, &a.candidate, &a.baseline)?;
    let mut tally = Tally::default();
    let mut o = legend(&a.candidate, &a.baseline);
    for (d, v) in a.dirs.iter().zip(&vs) {
        tally.add(v);
        let _ = write!(
            o,
            "\n{}\n{}\n{}: {}\n",
            name(d),
            v.table(),
            name(d),
            v.count_line()
        );
    }
    let _ = writeln!(o, "\n{}", tally.summary(&a.baseline));
    print!("{o}");
    if let Some(req) = a.require {
        if tally.pct() < req || tally.worse > 0 {
            eprintln!(
                "arbor sim verdict: below the bar: {:.0}% of cells best or tied (required {req}%), worse than {} in {} cells (required 0)",
                tally.pct(),
                a.baseline,
                tally.worse
            );
            return Ok(1);
        }
    }
    Ok(0)
}

/// A directory as the user named it, without a trailing slash.
fn name(d: &Path) -> String {
    let s = d.display().to_string();
    match s.trim_end_matches('/') {
        "" => s,
        t => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::metric::{Kind, MetricInfo};
    use crate::report::{Meta, Row, WorkloadEntry, EJECTED};
    use std::collections::BTreeMap;

    /// The verdict of a results.json's runs, through its summary as
    /// `arbor sim verdict` reads it.
    fn verdict(r: &Results, candidate: &str, baseline: &str) -> Result<Verdict> {
        super::verdict(&Summary::of_results(r)?, candidate, baseline)
    }

    const W: &str = "w";

    /// One workload on metric "m"; each scheduler's runs; `ejected`: the
    /// schedulers ejected in their first run.
    fn results(hib: bool, runs: &[(&str, &[f64])], ejected: &[&str]) -> Results {
        let mut raw = Vec::new();
        for (s, vs) in runs {
            for (rep, v) in vs.iter().enumerate() {
                let row = |metric: &str, value: f64| Row {
                    rep: rep as u32,
                    sched: s.to_string(),
                    workload: W.into(),
                    metric: metric.into(),
                    value,
                };
                let ej = rep == 0 && ejected.contains(s);
                raw.push(row(EJECTED, if ej { 1.0 } else { 0.0 }));
                raw.push(row("m", *v));
            }
        }
        let mut metrics = BTreeMap::new();
        metrics.insert(
            "m".to_string(),
            MetricInfo {
                unit: "x".into(),
                higher_is_better: hib,
                kind: Kind::Performance,
            },
        );
        Results {
            meta: Meta::default(),
            schedulers: runs.iter().map(|(s, _)| s.to_string()).collect(),
            workloads: vec![WorkloadEntry {
                workload: W.into(),
                primary: "m".into(),
            }],
            metrics,
            cells: Vec::new(),
            raw,
        }
    }

    fn one(hib: bool, runs: &[(&str, &[f64])], ejected: &[&str]) -> (Cell, String) {
        let v = verdict(&results(hib, runs, ejected), CANDIDATE, BASELINE).unwrap();
        assert_eq!(v.cells.len(), 1);
        (v.cells[0].clone(), v.table())
    }

    const STOCK: (&str, &[f64]) = ("arbor:stock", &[10.0, 10.2, 9.8]);

    #[test]
    fn best_lower_is_better_against_the_best_of_the_peers() {
        // times: default 8, the peers 9 and 12: best peer is cosmos (9)
        let (c, t) = one(
            false,
            &[
                STOCK,
                ("arbor:default", &[8.0, 8.1, 7.9]),
                ("bpfland", &[12.0, 12.5, 11.5]),
                ("cosmos", &[9.0, 9.2, 8.8]),
            ],
            &[],
        );
        assert_eq!(c.best_peer, Some(("cosmos".to_string(), 9.0)));
        assert_eq!(c.outcome, Outcome::Best);
        let p = c.vs_peer.unwrap();
        // (9 - 8) / 9: + = the candidate better
        assert!((p.pct - 100.0 / 9.0).abs() < 1e-9, "{p:?}");
        assert!(c.vs_baseline.unwrap().pct > 19.9);
        assert!(!c.worse_than_baseline);
        assert!(t.contains("| w | m | 8 | cosmos 9 | +11.1% ±"), "{t}");
        assert!(t.ends_with("| best |\n"), "{t}");
    }

    #[test]
    fn behind_within_the_interval_is_tied() {
        // default 10.5 ± 1, cosmos 10 ± 1: behind, the interval holds 0
        let (c, t) = one(
            false,
            &[
                STOCK,
                ("arbor:default", &[9.5, 10.5, 11.5]),
                ("cosmos", &[9.0, 10.0, 11.0]),
            ],
            &[],
        );
        let p = c.vs_peer.unwrap();
        assert!((p.pct + 5.0).abs() < 1e-9, "{p:?}");
        // Welch: se = sqrt(1/3 + 1/3), df = 4, t = 2.776: 2.267 = 22.7% of 10
        assert!((p.half.unwrap() - 22.66).abs() < 0.01, "{p:?}");
        assert_eq!(c.outcome, Outcome::Tied);
        assert!(t.contains("| -5.0% ±22.7 |"), "{t}");
        assert!(t.contains("| tied (interval holds 0) |"), "{t}");
    }

    #[test]
    fn behind_outside_the_interval_loses_and_may_be_worse_than_stock() {
        // default 12, cosmos 10, stock 10, all tight
        let (c, t) = one(
            false,
            &[
                STOCK,
                ("arbor:default", &[12.0, 12.1, 11.9]),
                ("cosmos", &[10.0, 10.1, 9.9]),
            ],
            &[],
        );
        assert_eq!(c.outcome, Outcome::Loses);
        assert!(c.worse_than_baseline);
        let b = c.vs_baseline.unwrap();
        assert!(b.pct < 0.0 && b.pct + b.half.unwrap() < 0.0, "{b:?}");
        assert!(t.contains("| LOSES; worse than stock |"), "{t}");
        // the same numbers, not worse than a noisy stock
        let (c, _) = one(
            false,
            &[
                ("arbor:stock", &[8.0, 12.0, 16.0]),
                ("arbor:default", &[12.0, 12.1, 11.9]),
                ("cosmos", &[10.0, 10.1, 9.9]),
            ],
            &[],
        );
        assert_eq!(c.outcome, Outcome::Loses);
        assert!(!c.worse_than_baseline);
    }

    #[test]
    fn higher_is_better_flips_the_sign() {
        let runs: &[(&str, &[f64])] = &[
            ("arbor:stock", &[100.0, 101.0, 99.0]),
            ("arbor:default", &[120.0, 121.0, 119.0]),
            ("p2dq", &[110.0, 111.0, 109.0]),
            ("rusty", &[90.0, 91.0, 89.0]),
        ];
        // tps: 120 beats the best peer, p2dq's 110
        let (c, _) = one(true, runs, &[]);
        assert_eq!(c.best_peer.as_ref().unwrap().0, "p2dq");
        assert!((c.vs_peer.unwrap().pct - 100.0 / 11.0).abs() < 1e-9);
        assert!((c.vs_baseline.unwrap().pct - 20.0).abs() < 1e-9);
        assert_eq!(c.outcome, Outcome::Best);
        assert!(!c.worse_than_baseline);
        // a time: 120 is the worst, the best peer is rusty's 90
        let (c, _) = one(false, runs, &[]);
        assert_eq!(c.best_peer.as_ref().unwrap().0, "rusty");
        assert!((c.vs_peer.unwrap().pct + 100.0 / 3.0).abs() < 1e-9);
        assert!((c.vs_baseline.unwrap().pct + 20.0).abs() < 1e-9);
        assert_eq!(c.outcome, Outcome::Loses);
        assert!(c.worse_than_baseline);
    }

    #[test]
    fn a_peer_ejected_in_any_run_is_not_eligible_as_best() {
        // cosmos has the best mean but was ejected in one run
        let (c, t) = one(
            false,
            &[
                STOCK,
                ("arbor:default", &[8.0, 8.1, 7.9]),
                ("cosmos", &[5.0, 5.1, 4.9]),
                ("lavd", &[9.0, 9.1, 8.9]),
            ],
            &["cosmos"],
        );
        assert_eq!(c.best_peer.as_ref().unwrap().0, "lavd");
        assert_eq!(c.ejected_peers, vec!["cosmos".to_string()]);
        assert_eq!(c.outcome, Outcome::Best);
        assert!(
            t.contains("| lavd 9 (cosmos ejected: not eligible) |"),
            "{t}"
        );
        // every peer ejected: best by default, and said so
        let (c, t) = one(
            false,
            &[
                STOCK,
                ("arbor:default", &[8.0, 8.1, 7.9]),
                ("cosmos", &[5.0, 5.1, 4.9]),
            ],
            &["cosmos"],
        );
        assert_eq!((c.best_peer, c.outcome), (None, Outcome::Best));
        assert!(
            t.contains("| none (cosmos ejected: not eligible) | n/a |"),
            "{t}"
        );
    }

    #[test]
    fn an_ejected_candidate_loses_and_one_run_has_no_interval() {
        let (c, t) = one(
            false,
            &[
                STOCK,
                ("arbor:default", &[8.0, 8.1, 7.9]),
                ("cosmos", &[9.0, 9.1, 8.9]),
            ],
            &["arbor:default"],
        );
        assert_eq!(c.outcome, Outcome::Failed);
        assert!(t.contains("| LOSES (ejected in 1 of 3 runs) |"), "{t}");
        let (c, t) = one(
            false,
            &[
                ("arbor:stock", &[10.0]),
                ("arbor:default", &[11.0]),
                ("cosmos", &[10.0]),
            ],
            &[],
        );
        assert_eq!(c.outcome, Outcome::NoInterval);
        assert!(!c.worse_than_baseline, "no interval, no claim");
        assert!(t.contains("| -10.0% ±n/a | -10.0% ±n/a |"), "{t}");
        let v = verdict(
            &results(
                false,
                &[
                    ("arbor:stock", &[10.0]),
                    ("arbor:default", &[9.0]),
                    ("cosmos", &[10.0]),
                ],
                &[],
            ),
            CANDIDATE,
            BASELINE,
        )
        .unwrap();
        assert_eq!(v.cells[0].outcome, Outcome::Best, "ahead needs no interval");
    }

    #[test]
    fn missing_schedulers_are_errors() {
        let r = results(false, &[STOCK, ("cosmos", &[1.0, 2.0])], &[]);
        let e = verdict(&r, CANDIDATE, BASELINE).unwrap_err().to_string();
        assert!(
            e.contains("candidate arbor:default is not in this run"),
            "{e}"
        );
        let r = results(
            false,
            &[("arbor:default", &[1.0, 2.0]), ("cosmos", &[1.0, 2.0])],
            &[],
        );
        let e = verdict(&r, CANDIDATE, BASELINE).unwrap_err().to_string();
        assert!(e.contains("baseline arbor:stock is not in this run"), "{e}");
        let r = results(false, &[STOCK, ("arbor:default", &[1.0, 2.0])], &[]);
        let e = verdict(&r, CANDIDATE, BASELINE).unwrap_err().to_string();
        assert!(e.contains("no peer"), "{e}");
    }

    #[test]
    fn tally_counts_and_summarises() {
        let good = results(
            false,
            &[
                STOCK,
                ("arbor:default", &[8.0, 8.1, 7.9]),
                ("cosmos", &[9.0, 9.1, 8.9]),
            ],
            &[],
        );
        let bad = results(
            false,
            &[
                STOCK,
                ("arbor:default", &[12.0, 12.1, 11.9]),
                ("cosmos", &[9.0, 9.1, 8.9]),
            ],
            &[],
        );
        let mut t = Tally::default();
        for r in [&good, &bad, &bad] {
            t.add(&verdict(r, CANDIDATE, BASELINE).unwrap());
        }
        assert_eq!(
            t.summary(BASELINE),
            "1 of 3 cells best or tied (33%); worse than arbor:stock in 2 cells"
        );
        let v = verdict(&bad, CANDIDATE, BASELINE).unwrap();
        assert_eq!(
            v.count_line(),
            "0 of 1 cells best or tied; worse than arbor:stock in 1 (w)"
        );
    }

    #[test]
    fn g4_is_pythons_4g() {
        for (x, s) in [
            (0.014781, "0.01478"),
            (108_234.0, "1.082e+05"),
            (0.00254, "0.00254"),
            (120.24, "120.2"),
            (4.2806, "4.281"),
            (9.0, "9"),
            (1234.5, "1234"),
            (12345.0, "1.234e+04"),
            (0.0001234, "0.0001234"),
            (0.00001234, "1.234e-05"),
            (-0.5, "-0.5"),
            (0.0, "0"),
        ] {
            assert_eq!(g4(x), s, "{x}");
        }
    }

    /// The committed run of the three development machines
    /// (docs/findings/2026-11-27-default-vs-peers-3, its summaries in
    /// tests/fixtures/default-vs-peers-3): the README's tables,
    /// which verdict.py printed, row for row. Every mean, best peer, change
    /// and verdict is the same; the half-widths may differ slightly, as
    /// verdict.py's t table took the nearest df (4.6 -> 5: 2.57) where
    /// ci.rs rounds df down (4: 2.776) and has 3 decimals.
    #[test]
    fn reproduces_the_committed_default_vs_peers_3_tables() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/default-vs-peers-3");
        let dirs: Vec<PathBuf> = ["x86-12", "xeon-88", "power11"]
            .iter()
            .map(|m| dir.join(m))
            .collect();
        let vs = read_all(&dirs, CANDIDATE, BASELINE).unwrap();
        let ours: Vec<String> = vs
            .iter()
            .flat_map(|v| v.table().lines().map(String::from).collect::<Vec<_>>())
            .collect();
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
        let theirs: Vec<&str> = readme.lines().filter(|l| l.starts_with('|')).collect();
        assert_eq!(ours.len(), 3 * (2 + 6));
        assert_eq!(theirs.len(), ours.len(), "the README's tables");
        // "±12.3" -> ("±#", 12.3)
        let split = |l: &str| {
            let mut text = String::new();
            let mut halves = Vec::new();
            let mut rest = l;
            while let Some(i) = rest.find('±') {
                text.push_str(&rest[..i]);
                text.push_str("±#");
                let r = &rest[i + '±'.len_utf8()..];
                let end = r.find(' ').unwrap_or(r.len());
                halves.push(r[..end].parse::<f64>().unwrap());
                rest = &r[end..];
            }
            text.push_str(rest);
            (text, halves)
        };
        for (o, t) in ours.iter().zip(&theirs) {
            let ((ot, oh), (tt, th)) = (split(o), split(t));
            assert_eq!(ot, tt);
            assert_eq!(oh.len(), th.len());
            for (a, b) in oh.iter().zip(&th) {
                assert!((a - b).abs() <= 0.1 * b + 0.1, "±{a} against ±{b}: {o}");
            }
        }
        let mut t = Tally::default();
        for v in &vs {
            t.add(v);
        }
        assert_eq!(
            t.summary(BASELINE),
            "7 of 18 cells best or tied (39%); worse than arbor:stock in 5 cells"
        );
        let worse: Vec<String> = vs
            .iter()
            .zip(["x86-12", "xeon-88", "power11"])
            .flat_map(|(v, m)| {
                v.worse()
                    .into_iter()
                    .map(move |c| format!("{m} {}", c.workload.split(':').next().unwrap()))
            })
            .collect();
        assert_eq!(
            worse,
            [
                "x86-12 perf-pipe",
                "xeon-88 perf-pipe",
                "xeon-88 pgbench",
                "power11 perf-pipe",
                "power11 pgbench"
            ]
        );
        let good: Vec<usize> = vs.iter().map(|v| v.good()).collect();
        assert_eq!(good, [3, 2, 2]);
    }
}
