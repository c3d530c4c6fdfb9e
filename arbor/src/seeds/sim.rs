//! `arbor sim reproduce SEED`: a seed's experiment on the seed's own
//! machine (a preset), with the seed's sweep, baseline against mechanism,
//! the seed's published numbers printed beside the simulated ones in the
//! layout of the seed's table, and a verdict: is the direction right, how
//! far off is the magnitude. The tables are the catalogue's
//! (catalogue.rs); traces of the real programs can stand in for their
//! models (trace.rs).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use arbor_sim::core::Config;
use arbor_sim::cost::CostModel;
use arbor_sim::presets;
use clap::Args;
use scx_arbor::knobs::Knobs;

use super::catalogue::{find, fmt_num, names, Dir, Line, Table, SEEDS};
use super::effect::{self, Era};
use super::sensitivity;
use super::trace::{record_traces, replay_spec, trace_file, traced};
use crate::ci::change_ci;
use crate::report::summary;
use crate::simrun::{execute, rows_of, speed_line, Done, Plan};
use Dir::*;

#[derive(Debug, Args)]
pub struct ReproArgs {
    /// The seed: idler-llc (000), wake-affine-throttle (001), cache-aware
    /// (002), steal (003), asym-capacity (004), or its number.
    seed: Option<String>,
    /// Runs per cell, each with its own seed; with the rule (see -t), the
    /// first batch and each further one.
    #[arg(short, long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(2..=100))]
    reps: u32,
    /// The short version run by `make test`: one line of each table, short
    /// workloads; exits 1 if a direction differs from the one the full run
    /// showed (what the seed's entry records).
    #[arg(long)]
    quick: bool,
    /// Only the table(s) whose title contains this text.
    #[arg(long, value_name = "TEXT")]
    table: Option<String>,
    /// Also write report.md, results.json and summary.json here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replay traces of the real programs in place of their models: each
    /// hackbench and pgbench line runs `trace:DIR/<its spec>.data`, as
    /// `--record-traces DIR` records them; the other lines keep their
    /// model.
    /// A replay reports its time to do the recorded work: a table whose
    /// metric is a rate (pgbench's tps) compares 1 / that time.
    #[arg(long, value_name = "DIR")]
    traces: Option<PathBuf>,
    /// With --traces recorded in a TCG guest: that boot's measured
    /// slowdown k (as `arbor sim validate` measures it). Each recording's
    /// bursts are scaled by 1 / (k x the vCPUs it kept busy), back to the
    /// cost model's machine at full speed.
    #[arg(long, value_name = "K", requires = "traces", value_parser = parse_k)]
    trace_k: Option<f64>,
    /// Record, on this machine under its own kernel, the traces that
    /// `--traces DIR` replays (`perf record` of each hackbench and pgbench
    /// line of the chosen tables; pgbench's against a PostgreSQL that
    /// `arbor bench --host -s eevdf` starts here, as a fixed number of
    /// transactions; needs root, perf and tracefs), then exit.
    #[arg(long, value_name = "DIR")]
    record_traces: Option<PathBuf>,
    /// List the seeds and their tables, then exit.
    #[arg(long)]
    list: bool,
    /// Your machine instead of the seed's, repeatable: a preset (see
    /// `arbor sim --list`). With -t, --topology-from, -w, --era current or
    /// --explain, each cell (machine x workload) runs the mechanism off
    /// and on until the rule of `arbor sim verdict` decides its effect
    /// (more runs in batches of --reps, up to --max-reps), instead of the
    /// seed's table beside its published numbers.
    #[arg(short = 't', long = "topology", value_name = "PRESET")]
    topologies: Vec<String>,
    /// Your machine instead of the seed's, repeatable: a directory written
    /// by `arbor sim snapshot`, or a sysfs root such as /sys.
    #[arg(long, value_name = "DIR")]
    topology_from: Vec<PathBuf>,
    /// Your workload instead of the seed's sweep, repeatable: any of
    /// `arbor sim -w` (trace: and rt-app: included), judged on its primary
    /// metric.
    #[arg(short, long = "workload", value_name = "WORKLOAD")]
    workloads: Vec<String>,
    /// The baseline the mechanism is added to: the seed's kernel era (its
    /// table's baseline column) or today's kernel (arbor:stock).
    #[arg(long, value_enum)]
    era: Option<Era>,
    /// With the rule (see -t): the most runs a side in a cell; a cell still
    /// undecided then is reported undecided.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(2..=1000))]
    max_reps: u32,
    /// With the rule (see -t): for the headline cell of each machine, the
    /// simulator's counters per wake-up with the mechanism off and on
    /// (where tasks moved by distance, waits for a CPU, idle CPUs found,
    /// balance pulls, ...): what decides the effect's direction.
    #[arg(long)]
    explain: bool,
    /// With --explain (implied): the first machine's headline cell again,
    /// each cost-model parameter that the explanation names moved across
    /// its documented range (docs/sim/cost-model.md, "Ranges"), one at a
    /// time and the three most strongly named in pairs, each value decided
    /// by the rule: which parameters flip the effect, between which
    /// values. Give one cell (-t, -w or --quick) to keep it to minutes.
    #[arg(long)]
    sensitivity: bool,
    /// Internal: run one job (see `arbor sim`).
    #[arg(long, hide = true)]
    job: Option<usize>,
}

fn parse_k(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(k) if k.is_finite() && k >= 1.0 => Ok(k),
        _ => Err(format!("'{s}' is not a slowdown (a number >= 1)")),
    }
}

/// A change smaller than this (%) is "flat", published or simulated.
pub const FLAT_PCT: f64 = 2.0;
/// The magnitude goal: the simulated change within ±30% of the published
/// one.
pub const MAGNITUDE_TOL: f64 = 0.30;

/// The signed % change (+ = better) of `v` against `base`.
fn better_pct(base: f64, v: f64, higher_is_better: bool) -> f64 {
    let c = 100.0 * (v - base) / base;
    if higher_is_better {
        c
    } else {
        -c
    }
}

fn dir_of(pct: f64) -> Dir {
    if pct >= FLAT_PCT {
        Better
    } else if pct <= -FLAT_PCT {
        Worse
    } else {
        Flat
    }
}

/// One compared cell: a line and a non-baseline column.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Compared {
    pub table: String,
    pub param: String,
    pub column: String,
    /// published change, + = better (None: not published)
    pub published_pct: Option<f64>,
    /// simulated change, + = better, with its 95% Welch interval
    pub sim_pct: f64,
    pub sim_lo: f64,
    pub sim_hi: f64,
    /// the simulated direction: flat if the interval holds 0 or |change| < FLAT_PCT
    #[serde(skip)]
    pub sim_dir: Dir,
    /// the direction to check against: the published one, else the seed's claim
    #[serde(skip)]
    pub want: Option<Dir>,
}

impl Compared {
    fn direction_right(&self) -> Option<bool> {
        self.want.map(|w| w == self.sim_dir)
    }
    /// |sim - published| <= 30% of |published|, where a change was published.
    fn magnitude_within(&self) -> Option<bool> {
        let p = self.published_pct?;
        if dir_of(p) == Flat {
            return None;
        }
        Some((self.sim_pct - p).abs() <= MAGNITUDE_TOL * p.abs())
    }
}

/// What a replayed table compares in place of a rate: 1 / the replay's
/// time to do the recorded work (a fixed number of transactions: the
/// same change as their rate's).
pub const REPLAY_RATE: &str = "1/time_s";

fn values(done: &[Done], plan: usize, sched: usize, wl: usize, metric: &str) -> Vec<f64> {
    let (name, inverse) = match metric {
        REPLAY_RATE => ("time_s", true),
        m => (m, false),
    };
    done.iter()
        .filter(|d| d.plan == plan && d.sched == sched && d.workload == wl)
        .filter_map(|d| d.out.metrics.iter().find(|m| m.0 == name).map(|m| m.1))
        .map(|v| if inverse { 1.0 / v } else { v })
        .collect()
}

/// The metric a table compares and whether higher is better: its own,
/// except where its lines are replayed traces and its metric is not the
/// replay's `time_s` (a rate: compared as [`REPLAY_RATE`]).
fn compared_metric(t: &Table, replayed: bool) -> (&'static str, bool) {
    if replayed && t.metric != "time_s" && t.lines.iter().any(|l| traced(l.workload)) {
        (REPLAY_RATE, true)
    } else {
        (t.metric, t.higher_is_better)
    }
}

pub fn main(a: &ReproArgs) -> Result<i32> {
    if a.list || a.seed.is_none() {
        for s in SEEDS {
            println!("{:<22} seed {}: {}", s.name, s.number, s.mechanism);
            for t in s.tables {
                println!("    [{}] {}", t.preset, t.title);
            }
        }
        if a.seed.is_none() && !a.list {
            bail!("which seed? one of: {}", names());
        }
        return Ok(0);
    }
    let name = a.seed.as_deref().unwrap_or_default();
    let seed = find(name).with_context(|| format!("unknown seed '{name}' (seeds: {})", names()))?;
    let tables: Vec<&Table> = seed
        .tables
        .iter()
        .filter(|t| {
            a.table
                .as_ref()
                .is_none_or(|f| t.title.contains(f.as_str()))
        })
        .filter(|t| !a.quick || t.quick.is_some())
        .collect();
    if tables.is_empty() {
        bail!(
            "seed '{}': no table {}",
            seed.name,
            if a.quick {
                "has a --quick line"
            } else {
                "matches --table"
            }
        );
    }
    if let Some(dir) = &a.record_traces {
        return record_traces(&tables, dir);
    }
    let ruled = !a.topologies.is_empty()
        || !a.topology_from.is_empty()
        || !a.workloads.is_empty()
        || a.era == Some(Era::Current)
        || a.explain
        || a.sensitivity;
    if ruled {
        if a.traces.is_some() {
            bail!("--traces replays the seed's own sweep: with -t, -w or --era current, give each trace as -w trace:FILE");
        }
        return effect::main(&effect::Ask {
            seed,
            tables,
            topologies: &a.topologies,
            topology_from: &a.topology_from,
            workloads: &a.workloads,
            quick: a.quick,
            era: a.era.unwrap_or(Era::Seed),
            reps: a.reps,
            max_reps: a.max_reps,
            explain: a.explain || a.sensitivity,
            sensitivity: a
                .sensitivity
                .then_some(sensitivity::pass as effect::Sensitive),
            out: a.out.as_ref(),
        });
    }
    let cfg = Config {
        time_limit: 120_000_000_000,
        ..Config::default()
    };
    if let Some(dir) = &a.traces {
        let mut missing: Vec<PathBuf> = tables
            .iter()
            .flat_map(|t| t.lines.iter().map(|l| l.workload))
            .filter(|w| traced(w))
            .map(|w| trace_file(dir, w))
            .filter(|f| !f.is_file())
            .collect();
        missing.dedup();
        if let Some(first) = missing.first() {
            bail!(
                "--traces: {} trace(s) missing ({}, ...); record them on a machine like the table's with: arbor sim reproduce {} --record-traces {}",
                missing.len(),
                first.display(),
                seed.name,
                dir.display()
            );
        }
    }
    let mut plans = Vec::new();
    // per table, the replays that stood in for its lines (the report lists them)
    let mut replays: Vec<Vec<String>> = Vec::new();
    for t in &tables {
        let scheds: Vec<String> = t.columns.iter().map(|c| c.sched.to_string()).collect();
        let mut wls: Vec<String> = match (a.quick, t.quick) {
            (true, Some((_, w, _))) => vec![w.to_string()],
            _ => t.lines.iter().map(|l| l.workload.to_string()).collect(),
        };
        let mut replayed = Vec::new();
        if let Some(dir) = &a.traces {
            for w in wls.iter_mut() {
                if traced(w) {
                    *w = replay_spec(dir, w, a.trace_k)?;
                    replayed.push(w.clone());
                }
            }
        }
        replays.push(replayed);
        let machine = presets::find(t.preset)?;
        plans.push(
            Plan::new(
                machine,
                CostModel::default(),
                cfg.clone(),
                Knobs::default(),
                &scheds,
                &wls,
                a.reps,
                1,
            )
            .with_context(|| format!("seed '{}', table '{}'", seed.name, t.title))?,
        );
    }
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let wall = std::time::Instant::now();
    let Some(done) = execute(&plans, a.job)? else {
        return Ok(0);
    };
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Seed {} ({}): simulated beside published\n\nMechanism: {}.\n\nSimulated (not measured): scx_arbor's BPF code on each table's machine preset, {} runs per cell (seeds 1..{}), cost model as fixed in docs/sim/cost-model.md. Published: the seed's own numbers. Workloads run shorter than the seed's, so absolute values differ by design; compare the changes (signed so that + is better, as the seeds' %speedup). A simulated change is **flat** when its 95% Welch interval holds 0 or it is under {FLAT_PCT}%.\n",
        seed.number, seed.name, seed.mechanism, a.reps, a.reps
    );
    let mut all = Vec::new();
    let mut failed = Vec::new();
    let mut quick_bad = Vec::new();
    for (pi, t) in tables.iter().enumerate() {
        let plan = &plans[pi];
        let (metric, higher_is_better) = compared_metric(t, a.traces.is_some());
        let (_, f) = rows_of(plan, pi, &done);
        failed.extend(f);
        let lines: Vec<(usize, &Line)> = match (a.quick, t.quick) {
            (true, Some((li, _, _))) => vec![(0, &t.lines[li])],
            _ => t.lines.iter().enumerate().collect(),
        };
        let _ = writeln!(
            md,
            "## {} [`{}`]\n\nSource: {}. Metric: `{}` ({}, {}).{}\n",
            t.title,
            t.preset,
            t.source,
            metric,
            if metric == REPLAY_RATE {
                "1/s of the replay, published: tps"
            } else {
                t.unit
            },
            if higher_is_better {
                "higher is better"
            } else {
                "lower is better"
            },
            if metric == REPLAY_RATE {
                " Replayed traces of the real program: each run does the recorded work (a fixed set of transactions), so 1 / its time changes as its tps would; the published column is the seed's tps.".to_string()
            } else {
                String::new()
            }
        );
        if !replays[pi].is_empty() {
            let _ = writeln!(md, "Replayed, in line order:\n");
            for r in &replays[pi] {
                let _ = writeln!(md, "- `{r}`");
            }
            let _ = writeln!(md);
        }
        // header: param | published per column | simulated per column
        let mut h = format!("| {} |", t.param);
        let mut sep = String::from("|---|");
        for c in t.columns {
            let _ = write!(h, " {} (published) |", c.name);
            sep.push_str("---|");
        }
        for c in t.columns {
            let _ = write!(h, " {} (sim) |", c.name);
            sep.push_str("---|");
        }
        // how loaded the simulated machine was, per column (the seeds'
        // effects depend on it: seed 000's claim is at 60-70%)
        h.push_str(" busy % (sim) |");
        sep.push_str("---|");
        let _ = writeln!(md, "{h}\n{sep}");
        for (wi, line) in &lines {
            let base_pub = line.published.first().copied().flatten();
            let base_sim = values(&done, pi, 0, *wi, metric);
            let (bm, bsd) = crate::ci::mean_sd(&base_sim);
            let mut r = format!("| {} |", line.param);
            for (ci, _) in t.columns.iter().enumerate() {
                match (line.published.get(ci).copied().flatten(), base_pub) {
                    (Some(v), Some(b)) if ci > 0 => {
                        let _ = write!(
                            r,
                            " {} ({:+.1}%) |",
                            fmt_num(v),
                            better_pct(b, v, higher_is_better)
                        );
                    }
                    (Some(v), _) => {
                        let _ = write!(r, " {} |", fmt_num(v));
                    }
                    (None, _) => r.push_str(" - |"),
                }
            }
            let _ = write!(r, " {} ± {} |", fmt_num(bm), fmt_num(bsd));
            for (ci, c) in t.columns.iter().enumerate().skip(1) {
                let v = values(&done, pi, ci, *wi, metric);
                let (m, sd) = crate::ci::mean_sd(&v);
                let Some((chg, lo, hi)) = change_ci(&base_sim, &v) else {
                    let _ = write!(r, " {} ± {} |", fmt_num(m), fmt_num(sd));
                    continue;
                };
                // signed + = better
                let (s, slo, shi) = if higher_is_better {
                    (chg, lo, hi)
                } else {
                    (-chg, -hi, -lo)
                };
                let sim_dir = if slo <= 0.0 && shi >= 0.0 {
                    Flat
                } else {
                    dir_of(s)
                };
                let _ = write!(
                    r,
                    " {} ± {} ({:+.1}% [{:+.1}, {:+.1}]) |",
                    fmt_num(m),
                    fmt_num(sd),
                    s,
                    slo,
                    shi
                );
                let published_pct = match (line.published.get(ci).copied().flatten(), base_pub) {
                    (Some(v), Some(b)) => Some(better_pct(b, v, higher_is_better)),
                    _ => None,
                };
                let want = published_pct.map(dir_of).or(t.claim);
                let cmp = Compared {
                    table: t.title.to_string(),
                    param: line.param.to_string(),
                    column: c.name.to_string(),
                    published_pct,
                    sim_pct: s,
                    sim_lo: slo,
                    sim_hi: shi,
                    sim_dir,
                    want,
                };
                if a.quick {
                    if let Some((_, _, dirs)) = t.quick {
                        if let Some(Some(expect)) = dirs.get(ci - 1) {
                            if *expect != sim_dir {
                                quick_bad.push(format!(
                                    "{} [{}], {} = {}, {}: {} ({:+.1}%), the full run showed {}",
                                    seed.name,
                                    t.preset,
                                    t.param,
                                    line.param,
                                    c.name,
                                    sim_dir.word(),
                                    s,
                                    expect.word()
                                ));
                            }
                        }
                    }
                }
                all.push(cmp);
            }
            let busy: Vec<String> = (0..t.columns.len())
                .map(|ci| fmt_num(crate::ci::mean_sd(&values(&done, pi, ci, *wi, "busy_pct")).0))
                .collect();
            let _ = write!(r, " {} |", busy.join(" / "));
            let _ = writeln!(md, "{r}");
        }
        // per-table verdict
        let tc: Vec<&Compared> = all.iter().filter(|c| c.table == t.title).collect();
        let _ = writeln!(md, "\n{}\n", directions(&tc));
    }
    let _ = writeln!(
        md,
        "## Verdict, seed {}\n\n{}\n\nNot modelled: {}\n",
        seed.number,
        directions(&all.iter().collect::<Vec<_>>()),
        seed.not_modelled
    );
    println!("{md}");
    if let Some(dir) = &a.out {
        let body = serde_json::json!({
            "seed": seed.number, "name": seed.name, "reps": a.reps, "quick": a.quick,
            "compared": all,
        });
        summary::write_outputs(dir, &md, &body)?;
        eprintln!("arbor sim reproduce: report in {}", dir.display());
    }
    eprintln!("arbor sim reproduce: {}", speed_line(&done, wall));
    for f in &failed {
        eprintln!("arbor sim reproduce: {f}");
    }
    for q in &quick_bad {
        eprintln!("arbor sim reproduce: direction changed: {q}");
    }
    Ok(if failed.is_empty() && quick_bad.is_empty() {
        0
    } else {
        1
    })
}

/// "direction right in a/b compared cells; magnitude within ±30% in c/d".
fn directions(cells: &[&Compared]) -> String {
    let judged: Vec<bool> = cells.iter().filter_map(|c| c.direction_right()).collect();
    let right = judged.iter().filter(|r| **r).count();
    let mags: Vec<bool> = cells.iter().filter_map(|c| c.magnitude_within()).collect();
    let within = mags.iter().filter(|r| **r).count();
    let wrong: Vec<String> = cells
        .iter()
        .filter(|c| c.direction_right() == Some(false))
        .map(|c| {
            format!(
                "{} {} ({}): want {}, sim {} {:+.1}%",
                c.param,
                c.column,
                c.published_pct
                    .map(|p| format!("published {p:+.1}%"))
                    .unwrap_or_else(|| "claimed".into()),
                c.want.map(|w| w.word()).unwrap_or("-"),
                c.sim_dir.word(),
                c.sim_pct
            )
        })
        .collect();
    let mut s = format!(
        "**Direction right in {right} of {} cells; magnitude within ±{:.0}% of the published change in {within} of {} cells with a published non-flat change.**",
        judged.len(),
        MAGNITUDE_TOL * 100.0,
        mags.len()
    );
    if !wrong.is_empty() {
        let _ = write!(s, " Wrong direction: {}.", wrong.join("; "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replayed_tables_compare_what_a_replay_reports() {
        let t001 = &find("001").unwrap().tables[0];
        let t003 = &find("003").unwrap().tables[0];
        let t000 = &find("000").unwrap().tables[1];
        // pgbench's tps: the models report it, a replay only its time
        assert_eq!(compared_metric(t001, false), ("tps", true));
        assert_eq!(compared_metric(t001, true), (REPLAY_RATE, true));
        // hackbench's time is the replay's own
        assert_eq!(compared_metric(t003, true), ("time_s", false));
        // schbench keeps its model, and its metric
        assert_eq!(compared_metric(t000, true), ("wakeup_p99_us", false));
        assert!(parse_k("430.9").is_ok());
        assert!(parse_k("0.5").unwrap_err().contains("not a slowdown"));
        assert!(parse_k("nan").is_err());
    }

    #[test]
    fn signed_changes_and_verdicts() {
        assert_eq!(better_pct(8.0, 6.0, false), 25.0);
        assert_eq!(better_pct(100.0, 141.0, true), 41.0);
        let c = |p: Option<f64>, s: f64, want: Option<Dir>| Compared {
            table: "t".into(),
            param: "1".into(),
            column: "new".into(),
            published_pct: p,
            sim_pct: s,
            sim_lo: s - 1.0,
            sim_hi: s + 1.0,
            sim_dir: dir_of(s),
            want,
        };
        let a = c(Some(30.0), 25.0, Some(Better)); // right, within 30%
        let b = c(Some(30.0), 5.0, Some(Better)); // right, too small
        let d = c(Some(-18.0), 10.0, Some(Worse)); // wrong
        let e = c(Some(0.5), 0.0, Some(Flat)); // flat published: no magnitude
        assert_eq!(a.magnitude_within(), Some(true));
        assert_eq!(b.magnitude_within(), Some(false));
        assert_eq!(e.magnitude_within(), None);
        let v = directions(&[&a, &b, &d, &e]);
        assert!(v.contains("Direction right in 3 of 4"), "{v}");
        assert!(v.contains("in 1 of 3 cells"), "{v}");
        assert!(
            v.contains("Wrong direction: 1 new (published -18.0%)"),
            "{v}"
        );
    }
}
