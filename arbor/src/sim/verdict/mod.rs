//! `arbor sim verdict`: which scheduler wins, decided. Without DIRs it
//! runs (run.rs): machines x workloads x the candidate, the baseline and
//! the peers, all at this build, each cell until the rule (rule.rs) decides
//! it or --max-reps is reached, then prints one table per machine and the
//! counts, and writes results.json and summary.json. With DIRs it judges
//! the runs already in those folders by the same rule, without more runs.
//!
//! A cell is a machine x a workload, on the workload's primary metric (the
//! report's headline). A peer is a scheduler of the run that is neither the
//! candidate nor the baseline (reading old folders: whose name does not
//! start with "arbor"); a peer that failed (ejected, refused the machine,
//! crashed) in any run of a cell is not eligible as its best peer.

mod report;
mod rule;
mod run;
mod shard;
mod why;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use serde::{Deserialize, Serialize};

use crate::report::nan_as_null;
use crate::report::summary::{self, Summary};
use crate::report::Results;
pub use report::Counts;
pub use rule::{text as compare_text, Call, Compare, RULE};
pub use run::write_snapshots;
pub use shard::merge;

/// The scheduler judged and the one it must not fall behind, by default.
pub const CANDIDATE: &str = "arbor:default";
pub const BASELINE: &str = "arbor:stock";

/// The peers run by default: every peer the simulator builds from its own
/// BPF source.
pub const PEERS: &[&str] = &["bpfland", "cosmos", "lavd", "p2dq", "rusty"];

/// Besides `arbor bench`'s default workloads: schbench, and a CPU-bound
/// throughput workload (sysbench's CPU test, shortened).
pub const EXTRA_WORKLOADS: &[&str] = &["schbench", "sysbench:time=2"];

/// The arguments; the rule is rule::RULE (keep the two in step).
#[derive(Debug, Args)]
#[command(after_help = RULE)]
pub struct VerdictArgs {
    /// Machine preset, repeatable (see `arbor sim --list`); also
    /// random-SEED-K (one drawn machine) and random:N@SEED (as --machines).
    /// Default, with no machine given: x86-12.
    #[arg(short = 't', long = "topology", value_name = "PRESET")]
    topologies: Vec<String>,
    /// Your own machine, repeatable: a directory written by `arbor sim
    /// snapshot`, or a sysfs root such as /sys.
    #[arg(long, value_name = "DIR")]
    topology_from: Vec<PathBuf>,
    /// N realistic machines drawn from the generator (x86 servers with
    /// SMT2, 1-8 sockets, SNC/NPS; hybrid x86; ARM phones and servers;
    /// POWER SMT4/SMT8; 4 to 512 CPUs; arbor_sim::presets::random),
    /// machine K named random-SEED-K, repeatable. Each prints its shape;
    /// `arbor sim snapshot --machines random:N@SEED OUT` writes them out.
    #[arg(long, value_name = "random:N@SEED")]
    machines: Vec<String>,
    /// Workload, repeatable, any of `arbor sim -w` (trace:, rt-app:
    /// included) [default: bench's five, schbench and sysbench:time=2].
    #[arg(short, long = "workload")]
    workloads: Vec<String>,
    /// The scheduler judged.
    #[arg(long, default_value = CANDIDATE)]
    candidate: String,
    /// The scheduler the candidate must not be worse than in any cell.
    #[arg(long, default_value = BASELINE)]
    baseline: String,
    /// Peer, repeatable [default: bpfland, cosmos, lavd, p2dq, rusty].
    #[arg(short, long = "peer")]
    peers: Vec<String>,
    /// Runs of every scheduler in a cell before its first decision, and
    /// the size of each further batch (at least 2: the rule needs 2 runs
    /// a side).
    #[arg(short, long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..=100))]
    reps: u32,
    /// The most runs of a scheduler in a cell: a cell still undecided
    /// then is reported undecided.
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(2..=1000))]
    max_reps: u32,
    /// Run k of every scheduler uses seed + k.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop each run after this much simulated time (s).
    #[arg(long, default_value_t = 60.0)]
    time_limit: f64,
    /// Simulations at once [default: the cores available].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    jobs: Option<u32>,
    /// Write report.md, results.json and summary.json here [default:
    /// arbor-verdict].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run part I of N of the verdict, for a job array: the cells
    /// (machine x workload) are numbered machine by machine, cell k (with
    /// all its schedulers and its further batches) in part k mod N. Takes
    /// I/N (I from 0 to N-1), auto (a Slurm array task:
    /// SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT) or auto/N (a Kubernetes
    /// Indexed Job's JOB_COMPLETION_INDEX of N completions). Needs --out;
    /// `arbor sim merge` joins the parts' directories.
    #[arg(long, value_name = "I/N|auto[/N]", value_parser = crate::shard::parse)]
    shard: Option<crate::shard::ShardArg>,
    /// Exit 1 unless at least PCT% of the decided cells pass against the
    /// best peer, no cell is worse than the baseline, and at most
    /// --max-undecided % of the cells are undecided (e.g. 80). With
    /// --shard, `arbor sim merge` applies it to the joined cells.
    #[arg(long, value_name = "PCT")]
    require: Option<f64>,
    /// With --require: the most undecided cells allowed, in %.
    #[arg(long, value_name = "PCT", default_value_t = 5.0)]
    max_undecided: f64,
    /// Judge these output directories of `arbor sim --out`, `arbor bench`
    /// or an earlier verdict (their results.json or, without one,
    /// summary.json) instead of running: the same rule, no more runs.
    #[arg(value_name = "DIR")]
    dirs: Vec<PathBuf>,
}

/// One scheduler in one cell: the primary metric's mean and sample sd over
/// the `n` runs that gave a value, the runs made, and those that failed
/// (ejected, refused the machine, crashed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub scheduler: String,
    #[serde(with = "nan_as_null")]
    pub mean: f64,
    #[serde(with = "nan_as_null")]
    pub sd: f64,
    pub n: usize,
    pub runs: usize,
    pub failed: usize,
    /// The value of run k (seed + k) for every k, when every run gave one;
    /// empty otherwise. Kept in memory for the same-runs tie, not written
    /// out (summary.json holds the statistics).
    #[serde(skip)]
    pub paired: Vec<f64>,
}

impl Side {
    /// `sched`'s side of a cell from the metric of its good runs (a value
    /// that is not finite left out), out of `runs` of which `failed` gave
    /// no outcome.
    pub fn of(sched: &str, values: impl Iterator<Item = f64>, runs: usize, failed: usize) -> Side {
        let all: Vec<f64> = values.collect();
        let v: Vec<f64> = all.iter().copied().filter(|x| x.is_finite()).collect();
        let (mean, sd) = crate::ci::mean_sd(&v);
        let paired = if failed == 0 && v.len() == runs && all.len() == runs {
            v.clone()
        } else {
            Vec::new()
        };
        Side {
            scheduler: sched.to_string(),
            mean,
            sd,
            n: v.len(),
            runs,
            failed,
            paired,
        }
    }

    /// Run k of both sides, with the same seed, gave the same value for
    /// every k both ran (at least 2): the two schedulers placed the
    /// workload alike, which no interval can show and more runs would
    /// only repeat (the simulator is deterministic).
    pub fn same_runs(&self, o: &Side) -> bool {
        let k = self.paired.len().min(o.paired.len());
        k >= 2 && self.paired[..k] == o.paired[..k]
    }

    fn stats(&self) -> (f64, f64, usize) {
        (self.mean, self.sd, self.n)
    }
    fn ok(&self) -> bool {
        self.failed == 0 && self.n > 0 && self.mean.is_finite()
    }
}

/// One cell, decided (or not) by the rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub machine: String,
    pub workload: String,
    pub metric: String,
    pub higher_is_better: bool,
    pub candidate: Side,
    /// the eligible peer with the best mean
    pub best_peer: Option<Side>,
    /// peers that failed in a run of this cell
    pub ineligible: Vec<String>,
    pub baseline: Option<Side>,
    pub vs_peer: Compare,
    pub vs_baseline: Compare,
}

impl Cell {
    /// Both comparisons decided.
    pub fn decided(&self) -> bool {
        self.vs_peer.call.decided() && self.vs_baseline.call.decided()
    }
}

/// The cells of a verdict, in machine then workload order.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub candidate: String,
    pub baseline: String,
    pub cells: Vec<Cell>,
}

/// A peer of `candidate` in a folder of old runs: not an arbor profile,
/// not the candidate.
pub fn is_peer(sched: &str, candidate: &str) -> bool {
    !sched.starts_with("arbor") && sched != candidate
}

/// The rule applied to one cell's schedulers.
#[allow(clippy::too_many_arguments)]
pub fn judge(
    machine: &str,
    workload: &str,
    metric: &str,
    higher_is_better: bool,
    sides: &[Side],
    candidate: &str,
    baseline: &str,
    peers: &[String],
) -> Cell {
    let get = |s: &str| sides.iter().find(|x| x.scheduler == s).cloned();
    let cand = get(candidate).unwrap_or(Side {
        scheduler: candidate.to_string(),
        mean: f64::NAN,
        sd: f64::NAN,
        n: 0,
        runs: 0,
        failed: 0,
        paired: Vec::new(),
    });
    let mut ineligible = Vec::new();
    let mut best: Option<Side> = None;
    for p in peers {
        let Some(s) = get(p) else { continue };
        if !s.ok() {
            ineligible.push(p.clone());
            continue;
        }
        let better = |b: &Side| {
            if higher_is_better {
                s.mean > b.mean
            } else {
                s.mean < b.mean
            }
        };
        if best.as_ref().map_or(true, better) {
            best = Some(s);
        }
    }
    let base = get(baseline);
    let failed = (!cand.ok()).then(|| {
        Compare::because(
            Call::Worse,
            format!(
                "{candidate} failed in {} of {} runs",
                cand.failed.max(1),
                cand.runs
            ),
        )
    });
    let vs_peer = match (&failed, &best) {
        (Some(f), _) => f.clone(),
        (None, None) => Compare::because(Call::Better, "no eligible peer: every peer failed"),
        (None, Some(b)) if cand.same_runs(b) => Compare::tie(),
        (None, Some(b)) => rule::compare(cand.stats(), b.stats(), higher_is_better),
    };
    let vs_baseline = match (&failed, &base) {
        (Some(f), _) => f.clone(),
        (None, None) => Compare::because(Call::Undecided, "the baseline did not run"),
        (None, Some(b)) if !b.ok() => Compare::because(
            Call::Better,
            format!(
                "{baseline} failed in {} of {} runs",
                b.failed.max(1),
                b.runs
            ),
        ),
        (None, Some(b)) if cand.same_runs(b) => Compare::tie(),
        (None, Some(b)) => rule::compare(cand.stats(), b.stats(), higher_is_better),
    };
    Cell {
        machine: machine.to_string(),
        workload: workload.to_string(),
        metric: metric.to_string(),
        higher_is_better,
        candidate: cand,
        best_peer: best,
        ineligible,
        baseline: base,
        vs_peer,
        vs_baseline,
    }
}

/// The verdict of `candidate` in every (machine, workload) of a summary,
/// against the best peer and `baseline`. Errors when either is not in the
/// run or the run has no peer. A summary of an earlier verdict gives its
/// own cells back.
pub fn of_summary(r: &Summary, candidate: &str, baseline: &str) -> Result<Verdict> {
    if let (Some(cells), Some(_)) = (r.extra.get("decisions"), r.extra.get("rule")) {
        let cells: Vec<Cell> =
            serde_json::from_value(cells.clone()).context("not a verdict's summary")?;
        let name = |k: &str| {
            r.extra
                .get(k)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        return Ok(Verdict {
            candidate: name("candidate"),
            baseline: name("baseline"),
            cells,
        });
    }
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
    let peers: Vec<String> = r
        .schedulers
        .iter()
        .filter(|s| is_peer(s, candidate) && *s != baseline)
        .cloned()
        .collect();
    if peers.is_empty() {
        bail!("no peer in this run (every scheduler's name starts with arbor: {list})");
    }
    // (machine, workload) in the run's order
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for c in &r.cells {
        if !keys.contains(&(&c.machine, &c.workload)) {
            keys.push((&c.machine, &c.workload));
        }
    }
    let mut cells = Vec::new();
    for (m, w) in keys {
        let here: Vec<&summary::Cell> = r
            .cells
            .iter()
            .filter(|c| c.machine == m && c.workload == w)
            .collect();
        let sides: Vec<Side> = here
            .iter()
            .map(|c| {
                let (mean, sd, n) = c.stats();
                Side {
                    scheduler: c.scheduler.clone(),
                    mean,
                    sd,
                    n,
                    runs: c.runs.max(n),
                    failed: c.ejected,
                    paired: Vec::new(),
                }
            })
            .collect();
        let first = here[0];
        cells.push(judge(
            m,
            w,
            &first.metric,
            first.better.higher(),
            &sides,
            candidate,
            baseline,
            &peers,
        ));
    }
    Ok(Verdict {
        candidate: candidate.to_string(),
        baseline: baseline.to_string(),
        cells,
    })
}

/// The verdict of an `arbor sim` run, when it has arbor:default,
/// arbor:stock and a peer.
pub fn of_run(r: &Results) -> Option<Verdict> {
    of_summary(&Summary::of_results(r).ok()?, CANDIDATE, BASELINE).ok()
}

/// The counts over one verdict's cells.
pub fn count(v: &Verdict) -> String {
    v.counts().text(&v.baseline)
}

/// The verdict section of `arbor sim`'s report.
pub fn report_section(v: &Verdict) -> String {
    format!(
        "\n### Verdict: {CANDIDATE} against the best peer and {BASELINE}\n\n{RULE}\n\n{}\n{}\n",
        v.table(),
        count(v)
    )
}

/// A run's summary: DIR/results.json's, else DIR/summary.json; and, for a
/// verdict's folder, its runs (their counters explain its lost cells).
pub fn read_summary(d: &Path) -> Result<(Summary, Vec<serde_json::Value>)> {
    if !d.exists() {
        bail!("{}: no such directory", d.display());
    }
    if !d.is_dir() {
        bail!("{}: not a directory", d.display());
    }
    if d.join(summary::RESULTS).exists() {
        let mut v = summary::results_value(d)?;
        let s = summary::of_results(d, &v)?;
        let runs = match v.get_mut("runs").map(serde_json::Value::take) {
            Some(serde_json::Value::Array(r)) if v.get("decisions").is_some() => r,
            _ => Vec::new(),
        };
        return Ok((s, runs));
    }
    let s = d.join(summary::FILE);
    if !s.exists() {
        bail!("{}: no results.json or summary.json", d.display());
    }
    Ok((Summary::read(&s)?, Vec::new()))
}

/// The verdict of each DIR's runs, with why its lost cells are lost.
pub fn read_all(
    dirs: &[PathBuf],
    candidate: &str,
    baseline: &str,
) -> Result<Vec<(Verdict, Vec<why::Why>)>> {
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
            let (r, runs) = read_summary(d)?;
            let v = of_summary(&r, candidate, baseline).with_context(|| d.display().to_string())?;
            let w = why::of(&v.cells, &runs);
            Ok((v, w))
        })
        .collect()
}

/// --require's bar: None when met, else the one line saying why not.
fn below_bar(c: &Counts, req: f64, max_undecided: f64, baseline: &str) -> Option<String> {
    let (p, b) = (&c.vs_peer, &c.vs_baseline);
    let undecided = 100.0 * (p.undecided.max(b.undecided)) as f64 / p.total().max(1) as f64;
    (p.pass_pct() < req || b.worse > 0 || undecided > max_undecided).then(|| {
        format!(
            "below the bar: {:.0}% of decided cells pass against the best peer (required {req}%), worse than {baseline} in {} (required 0), {undecided:.0}% undecided (allowed {max_undecided}%)",
            p.pass_pct(),
            b.worse
        )
    })
}

pub fn main(a: &VerdictArgs) -> Result<i32> {
    if let Some(p) = a.require {
        if !(0.0..=100.0).contains(&p) {
            bail!("--require {p}: a percentage of cells, 0 to 100");
        }
    }
    if !(0.0..=100.0).contains(&a.max_undecided) {
        bail!(
            "--max-undecided {}: a percentage of cells, 0 to 100",
            a.max_undecided
        );
    }
    if a.shard.is_some() && !a.dirs.is_empty() {
        bail!("--shard splits the cells of a fresh run: judging DIRs runs nothing to split");
    }
    let v = if a.dirs.is_empty() {
        run::main(a)?
    } else {
        if !a.topologies.is_empty()
            || !a.topology_from.is_empty()
            || !a.machines.is_empty()
            || !a.workloads.is_empty()
            || !a.peers.is_empty()
        {
            bail!(
                "judging DIRs runs nothing: give DIRs, or machines and workloads to run, not both"
            );
        }
        // every input read before anything is printed
        let vs = read_all(&a.dirs, &a.candidate, &a.baseline)?;
        let mut all = Verdict {
            candidate: a.candidate.clone(),
            baseline: a.baseline.clone(),
            cells: Vec::new(),
        };
        let mut whys = Vec::new();
        for (d, (mut v, mut w)) in a.dirs.iter().zip(vs) {
            // a folder's machine is named as the user named the folder when
            // several folders ran the same one
            if a.dirs.len() > 1 {
                for c in &mut v.cells {
                    c.machine = name(d);
                }
                for x in &mut w {
                    x.machine = name(d);
                }
            }
            all.cells.extend(v.cells);
            whys.extend(w);
        }
        print!("{RULE}\n{}{}", all.text(), why::text(&whys, &all.candidate));
        all
    };
    // a shard's part is not the verdict: `arbor sim merge` applies the bar
    if let Some(req) = a.require.filter(|_| a.shard.is_none()) {
        if let Some(why) = below_bar(&v.counts(), req, a.max_undecided, &a.baseline) {
            eprintln!("arbor sim verdict: {why}");
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

    fn verdict(r: &Results) -> Result<Verdict> {
        of_summary(&Summary::of_results(r)?, CANDIDATE, BASELINE)
    }

    fn one(hib: bool, runs: &[(&str, &[f64])], ejected: &[&str]) -> Cell {
        let v = verdict(&results(hib, runs, ejected)).unwrap();
        assert_eq!(v.cells.len(), 1);
        v.cells[0].clone()
    }

    const STOCK: (&str, &[f64]) = ("arbor:stock", &[10.0, 10.2, 9.8]);

    #[test]
    fn the_best_peer_is_the_best_mean_and_each_side_is_called() {
        // times: default 8, the peers 9 and 12: best peer is cosmos (9)
        let c = one(
            false,
            &[
                STOCK,
                ("arbor:default", &[8.0, 8.1, 7.9]),
                ("bpfland", &[12.0, 12.5, 11.5]),
                ("cosmos", &[9.0, 9.2, 8.8]),
            ],
            &[],
        );
        assert_eq!(c.best_peer.as_ref().unwrap().scheduler, "cosmos");
        // (9 - 8) / 9: + = the candidate better
        assert!(
            (c.vs_peer.pct - 100.0 / 9.0).abs() < 1e-9,
            "{:?}",
            c.vs_peer
        );
        assert_eq!(
            (c.vs_peer.call, c.vs_baseline.call),
            (Call::Better, Call::Better)
        );
        // throughput: the best peer is the highest mean, and 20% behind is worse
        let c = one(
            true,
            &[
                ("arbor:stock", &[100.0, 101.0, 99.0]),
                ("arbor:default", &[80.0, 81.0, 79.0]),
                ("p2dq", &[110.0, 111.0, 109.0]),
                ("rusty", &[90.0, 91.0, 89.0]),
            ],
            &[],
        );
        assert_eq!(c.best_peer.as_ref().unwrap().scheduler, "p2dq");
        assert_eq!(
            (c.vs_peer.call, c.vs_baseline.call),
            (Call::Worse, Call::Worse)
        );
        let v = Verdict {
            candidate: CANDIDATE.into(),
            baseline: BASELINE.into(),
            cells: vec![c],
        };
        let t = v.table();
        assert!(
            t.contains("| w | m | 80 (n=3) | p2dq 110 (n=3) | WORSE: -27.3% ["),
            "{t}"
        );
    }

    #[test]
    fn failures_make_peers_ineligible_and_the_candidate_worse() {
        // cosmos has the best mean but was ejected in one run
        let c = one(
            false,
            &[
                STOCK,
                ("arbor:default", &[8.0, 8.1, 7.9]),
                ("cosmos", &[5.0, 5.1, 4.9]),
                ("lavd", &[9.0, 9.1, 8.9]),
            ],
            &["cosmos"],
        );
        assert_eq!(c.best_peer.as_ref().unwrap().scheduler, "lavd");
        assert_eq!(c.ineligible, vec!["cosmos".to_string()]);
        assert_eq!(c.vs_peer.call, Call::Better);
        // every peer failed: better, and said why
        let c = one(
            false,
            &[
                STOCK,
                ("arbor:default", &[8.0, 8.1, 7.9]),
                ("cosmos", &[5.0, 5.1]),
            ],
            &["cosmos"],
        );
        assert_eq!(
            (c.best_peer.is_none(), c.vs_peer.call),
            (true, Call::Better)
        );
        assert!(c
            .vs_peer
            .why
            .as_deref()
            .unwrap()
            .contains("every peer failed"));
        // the candidate ejected once: worse on both sides, whatever its mean
        let c = one(
            false,
            &[
                STOCK,
                ("arbor:default", &[1.0, 1.0, 1.0]),
                ("cosmos", &[9.0, 9.1]),
            ],
            &["arbor:default"],
        );
        assert_eq!(
            (c.vs_peer.call, c.vs_baseline.call),
            (Call::Worse, Call::Worse)
        );
        assert!(c
            .vs_peer
            .why
            .as_deref()
            .unwrap()
            .contains("failed in 1 of 3 runs"));
        // one run a side: undecided, never a pass
        let c = one(
            false,
            &[
                ("arbor:stock", &[10.0]),
                ("arbor:default", &[5.0]),
                ("cosmos", &[10.0]),
            ],
            &[],
        );
        assert_eq!(
            (c.vs_peer.call, c.vs_baseline.call),
            (Call::Undecided, Call::Undecided)
        );
        assert!(!c.decided());
    }

    /// Two schedulers that gave the same value run by run (same seeds)
    /// tie, however wide their spread; one run apart and the interval
    /// decides again (here: undecided).
    #[test]
    fn the_same_runs_on_both_sides_are_a_tie() {
        let runs = [0.0016, 0.0024, 0.0011, 0.0019, 0.0030];
        let mut other = runs;
        let side = |s: &str, v: &[f64]| Side::of(s, v.iter().copied(), v.len(), 0);
        let cell = |o: &[f64]| {
            judge(
                "m",
                "w",
                "time_s",
                false,
                &[
                    side("arbor:stock", o),
                    side("arbor:default", &runs),
                    side("cosmos", o),
                ],
                "arbor:default",
                "arbor:stock",
                &["cosmos".to_string()],
            )
        };
        let c = cell(&other);
        assert_eq!(
            (c.vs_baseline.call, c.vs_peer.call),
            (Call::Tie, Call::Tie),
            "{c:?}"
        );
        other[3] = 0.0018;
        let c = cell(&other);
        assert_eq!(c.vs_baseline.call, Call::Undecided, "{c:?}");
        // a failed run leaves nothing to pair
        let f = Side::of("arbor:stock", runs.iter().copied(), 6, 1);
        assert!(!side("arbor:default", &runs).same_runs(&f));
    }

    #[test]
    fn missing_schedulers_are_errors() {
        let r = results(false, &[STOCK, ("cosmos", &[1.0, 2.0])], &[]);
        let e = verdict(&r).unwrap_err().to_string();
        assert!(
            e.contains("candidate arbor:default is not in this run"),
            "{e}"
        );
        let r = results(
            false,
            &[("arbor:default", &[1.0, 2.0]), ("cosmos", &[1.0, 2.0])],
            &[],
        );
        let e = verdict(&r).unwrap_err().to_string();
        assert!(e.contains("baseline arbor:stock is not in this run"), "{e}");
        let r = results(false, &[STOCK, ("arbor:default", &[1.0, 2.0])], &[]);
        let e = verdict(&r).unwrap_err().to_string();
        assert!(e.contains("no peer"), "{e}");
    }

    #[test]
    fn the_bar_counts_decided_cells_the_baseline_and_the_undecided() {
        let mut c = Counts::default();
        for x in [Call::Better, Call::NotWorse, Call::NotWorse, Call::Worse] {
            c.vs_peer.add(x);
            c.vs_baseline.add(Call::Better);
        }
        assert!(below_bar(&c, 75.0, 5.0, BASELINE).is_none());
        assert!(below_bar(&c, 80.0, 5.0, BASELINE)
            .unwrap()
            .contains("75% of decided cells"));
        c.vs_baseline.worse += 1;
        c.vs_baseline.better -= 1;
        assert!(below_bar(&c, 50.0, 5.0, BASELINE)
            .unwrap()
            .contains("worse than arbor:stock in 1"));
        c.vs_baseline = c.vs_peer;
        c.vs_baseline.worse = 0;
        c.vs_baseline.undecided = 1;
        let why = below_bar(&c, 50.0, 5.0, BASELINE).unwrap();
        assert!(why.contains("25% undecided"), "{why}");
        assert!(below_bar(&c, 50.0, 25.0, BASELINE).is_none());
    }

    /// The committed run of the three development machines
    /// (tests/fixtures/default-vs-peers-3): every mean, best peer and
    /// change of the README's tables (verdict.py's) is the same, and each
    /// call follows from its interval and the 3% margin.
    #[test]
    fn the_committed_default_vs_peers_3_run_under_the_rule() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/default-vs-peers-3");
        let dirs: Vec<PathBuf> = ["x86-12", "xeon-88", "power11"]
            .iter()
            .map(|m| dir.join(m))
            .collect();
        let vs = read_all(&dirs, CANDIDATE, BASELINE).unwrap();
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
        // | workload | metric | default | best peer | vs best peer | vs stock | verdict |
        let theirs: Vec<Vec<String>> = readme
            .lines()
            .filter(|l| {
                l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| workload")
            })
            .map(|l| l.split('|').map(|x| x.trim().to_string()).collect())
            .collect();
        let ours: Vec<&Cell> = vs.iter().flat_map(|(v, _)| &v.cells).collect();
        assert_eq!((ours.len(), theirs.len()), (18, 18));
        let pct = |s: &str| -> f64 { s.split('%').next().unwrap().parse().unwrap() };
        for (o, t) in ours.iter().zip(&theirs) {
            assert_eq!(o.workload, t[1]);
            assert_eq!(report::g4(o.candidate.mean), t[3], "{}", o.workload);
            let p = o.best_peer.as_ref().unwrap();
            assert_eq!(format!("{} {}", p.scheduler, report::g4(p.mean)), t[4]);
            assert!(
                (o.vs_peer.pct - pct(&t[5])).abs() < 0.051,
                "{} {}",
                o.vs_peer.pct,
                t[5]
            );
            assert!(
                (o.vs_baseline.pct - pct(&t[6])).abs() < 0.051,
                "{} {}",
                o.vs_baseline.pct,
                t[6]
            );
            for c in [&o.vs_peer, &o.vs_baseline] {
                if c.call != Call::Tie {
                    assert_eq!(c.call, rule::call_of(c.lo, c.hi), "{c:?}");
                }
                assert!(c.lo <= c.pct && c.pct <= c.hi, "{c:?}");
            }
        }
        // the README's five cells "worse than stock" were decided on -0.3%
        // to -16%: under the margin, a deterministic -0.3% is not worse
        let perf_pipe = ours[2];
        assert_eq!(
            perf_pipe.vs_baseline.call,
            Call::NotWorse,
            "{:?}",
            perf_pipe.vs_baseline
        );
    }
}
