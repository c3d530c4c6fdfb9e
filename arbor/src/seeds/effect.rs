//! `arbor sim reproduce SEED` on any machine and workload: would the
//! seed's mechanism help there? Each cell (machine x workload) runs the
//! mechanism off and on, and the project's one decision rule
//! (crate::sim::verdict: Welch's 95% interval of the relative difference,
//! the 3% non-inferiority margin) decides its effect; an undecided cell
//! gets more runs in batches up to --max-reps. The baseline is the seed's
//! kernel era (its table's baseline column: the features that kernel did
//! not have are off) or today's kernel (arbor:stock); the mechanism is
//! what the seed's mechanism column adds to its baseline column. With
//! --explain, the simulator's counters of the headline cells, per wake-up,
//! off against on (explain.rs); with --sensitivity, the first headline
//! cell again across the ranges of the cost-model parameters they name
//! (sensitivity.rs).
//!
//! Each run is its own process, `arbor sim ... --job 0` with the seed and
//! time limit that the seed's own tables use, so a cell of the seed's own
//! machine and sweep gives the same runs as the table's.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::{bail, Context, Result};
use arbor_sim::sched::SchedSpec;
use arbor_sim::{presets, snapshot, workload};
use clap::ValueEnum;
use serde::Serialize;

use super::catalogue::fmt_num as g;
use super::catalogue::{Seed, Table};
use super::cell::Decided;
use super::explain::{self, Explained};
use crate::report::summary;
use crate::sim::verdict::{self, compare_text, Call, Side};
use crate::simrun::{run_child, JobOut};

/// The simulated time limit of every run (the seeds' tables' own).
pub const TIME_LIMIT_S: u32 = 120;
/// Run k of a side uses seed 1 + k, as the seeds' tables do.
const FIRST_SEED: u64 = 1;

/// Which kernel the mechanism is added to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// The kernel the seed was measured on: its table's baseline column.
    Seed,
    /// Today's kernel: arbor:stock.
    Current,
}

/// What the arguments ask of this mode.
pub struct Ask<'a> {
    pub seed: &'static Seed,
    pub tables: Vec<&'static Table>,
    pub topologies: &'a [String],
    pub topology_from: &'a [PathBuf],
    pub workloads: &'a [String],
    pub quick: bool,
    pub era: Era,
    pub reps: u32,
    pub max_reps: u32,
    pub explain: bool,
    /// --sensitivity's pass (sensitivity.rs, handed in by the caller: it
    /// builds on this module's machines, cells and runs)
    pub(super) sensitivity: Option<Sensitive>,
    pub out: Option<&'a PathBuf>,
}

/// A pass over the headline cell after --explain: its report section and
/// its JSON for summary.json.
pub(super) type Sensitive = fn(
    &[Mach],
    &[Want],
    &[Decided],
    &Explained,
    u32,
    u32,
    &str,
) -> Result<(String, serde_json::Value)>;

/// What a seed's table turns on: its mechanism column (the second) less
/// its baseline column (the first), e.g. `WA_IDLER_LLC` or
/// `WA_THROTTLE:wake-affine-interval-ms=1`.
pub fn mechanism(t: &Table) -> Result<&'static str> {
    let (base, on) = (t.columns[0].sched, t.columns[1].sched);
    on.strip_prefix(base)
        .and_then(|r| r.strip_prefix(','))
        .with_context(|| {
            format!(
                "table '{}': its second column ({on}) is not its first ({base}) plus features",
                t.title
            )
        })
}

/// The schedulers (off, on) of a table's mechanism in an era.
pub fn sides_of(t: &Table, era: Era) -> Result<(String, String)> {
    let m = mechanism(t)?;
    Ok(match era {
        Era::Seed => (
            t.columns[0].sched.to_string(),
            t.columns[1].sched.to_string(),
        ),
        Era::Current => ("arbor:stock".to_string(), format!("arbor:stock:{m}")),
    })
}

/// A machine, and how a run's process is told to build it.
#[derive(Clone)]
pub(super) struct Mach {
    pub name: String,
    pub cpus: usize,
    pub args: Vec<String>,
    /// what the run's process builds from `args` (before any
    /// --cost/--machine-param that --sensitivity adds to them)
    pub machine: arbor_sim::machine::Machine,
}

/// A cell to decide: its machine, workload, metric (None: the workload's
/// primary one) and schedulers.
#[derive(Clone)]
pub(super) struct Want {
    pub machine: usize,
    pub workload: String,
    pub metric: Option<(&'static str, bool)>,
    pub off: String,
    pub on: String,
}

/// One run: its outcome, or why it gave none.
pub(super) type RunOut = std::result::Result<JobOut, String>;
/// A cell's runs, mechanism off and on, by rep.
pub(super) type Runs = [BTreeMap<u32, RunOut>; 2];

pub(super) fn machines(a: &Ask) -> Result<Vec<Mach>> {
    let mut out = Vec::new();
    for t in a.topologies {
        let m = presets::find(t)?;
        out.push(Mach {
            name: m.name.clone(),
            cpus: m.nr_cpus(),
            args: vec!["-t".into(), t.clone()],
            machine: m,
        });
    }
    for d in a.topology_from {
        let s = snapshot::read(d)?;
        eprintln!("{}", s.assumed);
        out.push(Mach {
            name: s.machine.name.clone(),
            cpus: s.machine.nr_cpus(),
            args: vec!["--topology-from".into(), d.display().to_string()],
            machine: s.machine,
        });
    }
    Ok(out)
}

/// The cells: the machines given (else each table's own) x the workloads
/// given (else each table's sweep, or its --quick line), once each.
pub(super) fn cells(a: &Ask, machs: &mut Vec<Mach>) -> Result<Vec<Want>> {
    let given = !machs.is_empty();
    let mut want: Vec<Want> = Vec::new();
    let add = |want: &mut Vec<Want>, w: Want| {
        let dup = want.iter().any(|x| {
            x.machine == w.machine && x.workload == w.workload && x.off == w.off && x.on == w.on
        });
        if !dup {
            want.push(w);
        }
    };
    for (ti, t) in a.tables.iter().enumerate() {
        let (off, on) = sides_of(t, a.era)?;
        let here: Vec<usize> = if given {
            (0..machs.len()).collect()
        } else {
            let m = presets::find(t.preset)?;
            let i = match machs.iter().position(|x| x.name == m.name) {
                Some(i) => i,
                None => {
                    machs.push(Mach {
                        name: m.name.clone(),
                        cpus: m.nr_cpus(),
                        args: vec!["-t".into(), t.preset.into()],
                        machine: m,
                    });
                    machs.len() - 1
                }
            };
            vec![i]
        };
        // -w: every workload given, with the first table's era and
        // mechanism (and the workload's own primary metric)
        let wls: Vec<(String, Option<(&'static str, bool)>)> = if !a.workloads.is_empty() {
            if ti > 0 {
                continue;
            }
            a.workloads.iter().map(|w| (w.clone(), None)).collect()
        } else {
            let m = Some((t.metric, t.higher_is_better));
            match (a.quick, t.quick) {
                (true, Some((_, w, _))) => vec![(w.to_string(), m)],
                _ => t
                    .lines
                    .iter()
                    .map(|l| (l.workload.to_string(), m))
                    .collect(),
            }
        };
        for machine in here {
            for (w, metric) in &wls {
                add(
                    &mut want,
                    Want {
                        machine,
                        workload: w.clone(),
                        metric: *metric,
                        off: off.clone(),
                        on: on.clone(),
                    },
                );
            }
        }
    }
    // every scheduler and workload checked before anything runs
    for w in &want {
        for s in [&w.off, &w.on] {
            SchedSpec::parse(s)?;
        }
        workload::spec::parse(&w.workload, machs[w.machine].cpus, FIRST_SEED)
            .with_context(|| format!("-w {} on {}", w.workload, machs[w.machine].name))?;
    }
    Ok(want)
}

/// One run in its own process: `arbor sim MACHINE -s S -w W --seed N
/// --time-limit 120 --job 0`.
fn run_one(m: &Mach, sched: &str, w: &str, rep: u32) -> Result<RunOut> {
    let mut args: Vec<&str> = m.args.iter().map(String::as_str).collect();
    args.extend(["-s", sched, "-w", w]);
    let c = run_child(&args, FIRST_SEED + rep as u64, TIME_LIMIT_S)?;
    Ok(match c.job {
        Some(j) if c.code == Some(0) && j.ok => Ok(j),
        Some(j) => Err(j.stop),
        None if c.last_err.is_empty() => Err("no output".into()),
        None => Err(c.last_err),
    })
}

/// Runs every (cell, side, rep) of `jobs`, as many at once as there are
/// cores, into `runs`.
fn run_batch(
    machs: &[Mach],
    want: &[Want],
    jobs: &[(usize, usize, u32)],
    runs: &mut [[BTreeMap<u32, RunOut>; 2]],
) -> Result<()> {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(jobs.len())
        .max(1);
    let next = Mutex::new(0usize);
    let got: Mutex<Vec<Result<((usize, usize, u32), RunOut)>>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                    *n += 1;
                    *n - 1
                };
                let Some(&(c, side, rep)) = jobs.get(i) else {
                    break;
                };
                let w = &want[c];
                let sched = if side == 0 { &w.off } else { &w.on };
                let r = run_one(&machs[w.machine], sched, &w.workload, rep)
                    .map(|o| ((c, side, rep), o));
                got.lock().unwrap_or_else(|e| e.into_inner()).push(r);
            });
        }
    });
    for r in got.into_inner().unwrap_or_else(|e| e.into_inner()) {
        let ((c, side, rep), o) = r?;
        runs[c][side].insert(rep, o);
    }
    Ok(())
}

/// A side's primary-metric statistics over its runs, in rep order.
fn side(sched: &str, runs: &BTreeMap<u32, RunOut>, metric: &str) -> Side {
    Side::of(
        sched,
        runs.values()
            .filter_map(|r| r.as_ref().ok())
            .filter_map(|j| j.metrics.iter().find(|m| m.0 == metric).map(|m| m.1)),
        runs.len(),
        runs.values().filter(|r| r.is_err()).count(),
    )
}

/// The metric of a cell and whether higher is better: the table's, else
/// the workload's primary (as its runs declared it).
fn metric_of(w: &Want, runs: &[BTreeMap<u32, RunOut>; 2]) -> (String, bool) {
    if let Some((m, hib)) = w.metric {
        return (m.to_string(), hib);
    }
    let jobs = || {
        runs.iter()
            .flat_map(|r| r.values())
            .filter_map(|r| r.as_ref().ok())
    };
    let name = workload::spec::primary_metric(&w.workload)
        .map(String::from)
        .or_else(|| jobs().find_map(|j| j.metrics.first().map(|m| m.0.clone())))
        .unwrap_or_default();
    let hib = jobs()
        .flat_map(|j| j.units.iter())
        .find(|u| u.0 == name)
        .is_some_and(|u| u.2);
    (name, hib)
}

fn decide(machs: &[Mach], w: &Want, runs: &[BTreeMap<u32, RunOut>; 2]) -> Decided {
    let (metric, hib) = metric_of(w, runs);
    let off = side(&w.off, &runs[0], &metric);
    let on = side(&w.on, &runs[1], &metric);
    // the verdict's rule, the mechanism on as the candidate and off as
    // the baseline (no peers)
    let c = verdict::judge(
        &machs[w.machine].name,
        &w.workload,
        &metric,
        hib,
        &[off.clone(), on.clone()],
        &w.on,
        &w.off,
        &[],
    );
    // the verdict's same-runs test, over all the runs of both sides
    let identical_runs = runs[0].len() == runs[1].len() && on.same_runs(&off);
    Decided {
        identical_runs,
        machine: c.machine,
        workload: c.workload,
        metric,
        higher_is_better: hib,
        off,
        on,
        effect: c.vs_baseline,
    }
}

/// Runs every cell until the rule decides it: --reps runs a side, then
/// --reps more a side for each undecided cell, up to --max-reps.
pub(super) fn until_decided(
    machs: &[Mach],
    want: &[Want],
    reps: u32,
    max_reps: u32,
) -> Result<(Vec<Decided>, Vec<Runs>)> {
    let mut runs: Vec<Runs> = (0..want.len()).map(|_| Default::default()).collect();
    let mut decided: Vec<Option<Decided>> = (0..want.len()).map(|_| None).collect();
    let mut batch = 0;
    loop {
        // each undecided cell: --reps more runs a side, up to --max-reps
        let mut jobs = Vec::new();
        for (c, d) in decided.iter().enumerate() {
            if d.as_ref().is_some_and(|d| d.effect.call.decided()) {
                continue;
            }
            let have = runs[c][0].len().min(runs[c][1].len()) as u32;
            let target = (have + reps).min(max_reps);
            for s in 0..2 {
                for rep in runs[c][s].len() as u32..target {
                    jobs.push((c, s, rep));
                }
            }
        }
        if jobs.is_empty() {
            break;
        }
        batch += 1;
        eprintln!(
            "arbor sim reproduce: batch {batch}: {} runs of {} cell(s)",
            jobs.len(),
            jobs.iter()
                .map(|j| j.0)
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        );
        run_batch(machs, want, &jobs, &mut runs)?;
        for (c, w) in want.iter().enumerate() {
            decided[c] = Some(decide(machs, w, &runs[c]));
        }
    }
    Ok((decided.into_iter().flatten().collect(), runs))
}

pub fn main(a: &Ask) -> Result<i32> {
    if a.max_reps < a.reps {
        bail!(
            "--max-reps {} is below --reps {}: the most runs cannot be fewer than the first batch",
            a.max_reps,
            a.reps
        );
    }
    let mut machs = machines(a)?;
    let want = cells(a, &mut machs)?;
    if want.is_empty() {
        bail!("seed '{}': no cell to run", a.seed.name);
    }
    let mech = mechanism(a.tables[0])?;
    let (decided, runs) = until_decided(&machs, &want, a.reps, a.max_reps)?;
    let mut md = String::new();
    let era_text = match a.era {
        Era::Seed => format!(
            "the seed's kernel era ({}: {})",
            a.tables[0].columns[0].name, a.tables[0].columns[0].sched
        ),
        Era::Current => "today's kernel (arbor:stock)".to_string(),
    };
    let _ = writeln!(
        md,
        "# Seed {} ({}): {mech} off against on, on {}\n\nMechanism: {}. Simulated (not measured). Each cell is decided by the rule of `arbor sim verdict` (its --help), the mechanism on as the candidate and off as the baseline: the effect is + when the mechanism makes the metric better; undecided cells got --reps more runs a side, up to {}.\n",
        a.seed.number, a.seed.name, era_text, a.seed.mechanism, a.max_reps
    );
    let _ = writeln!(
        md,
        "| machine | workload | metric | off | on | effect of {mech} [95%] | verdict | runs |\n|---|---|---|---|---|---|---|---|"
    );
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &decided {
        *counts.entry(d.effect.call.text()).or_default() += 1;
        let _ = writeln!(
            md,
            "| {} | {} | {} ({}) | {} ± {} | {} ± {} | {} | {} | {} |",
            d.machine,
            d.workload,
            d.metric,
            if d.higher_is_better {
                "higher is better"
            } else {
                "lower is better"
            },
            g(d.off.mean),
            g(d.off.sd),
            g(d.on.mean),
            g(d.on.sd),
            compare_text(&d.effect),
            d.effect.call.text(),
            d.off.runs.min(d.on.runs)
        );
    }
    let tally: Vec<String> = [
        Call::Better,
        Call::NotWorse,
        Call::Tie,
        Call::Worse,
        Call::Undecided,
    ]
    .iter()
    .map(|c| {
        format!(
            "{} {}",
            counts.get(c.text()).copied().unwrap_or(0),
            c.text()
        )
    })
    .collect();
    let _ = writeln!(
        md,
        "\n{mech} in {} cell(s): {}.\n\noff: `{}`; on: `{}`{}.\n",
        decided.len(),
        tally.join(", "),
        want[0].off,
        want[0].on,
        if want.iter().any(|w| w.off != want[0].off) {
            " (and each table's own columns for its sweep)"
        } else {
            ""
        }
    );
    let same: Vec<String> = decided
        .iter()
        .filter(|d| d.identical_runs)
        .map(|d| format!("{} {}", d.machine, d.workload))
        .collect();
    if !same.is_empty() {
        let _ = writeln!(
            md,
            "{mech} left the metric the same in every run, seed for seed, in {} cell(s) (as where it has nothing to act on, e.g. one LLC; see --explain): {}.\n",
            same.len(),
            same.join(", ")
        );
    }
    let explained = if a.explain {
        let e = explain::explain(&decided, &runs);
        md.push_str(&explain::markdown(&e, mech));
        Some(e)
    } else {
        None
    };
    let sens = match (&explained, a.sensitivity) {
        (Some(e), Some(pass)) => {
            let (section, json) = pass(&machs, &want, &decided, e, a.reps, a.max_reps, mech)?;
            md.push_str(&section);
            Some(json)
        }
        _ => None,
    };
    println!("{md}");
    if let Some(dir) = a.out {
        let body = serde_json::json!({
            "seed": a.seed.number, "name": a.seed.name, "era": a.era, "mechanism": mech,
            "reps": a.reps, "max_reps": a.max_reps, "rule": verdict::RULE,
            "effects": decided, "explain": explained, "sensitivity": sens,
        });
        summary::write_outputs(dir, &md, &body)?;
        eprintln!("arbor sim reproduce: report in {}", dir.display());
    }
    for (c, w) in want.iter().enumerate() {
        for (s, sched) in [&w.off, &w.on].iter().enumerate() {
            for (rep, r) in &runs[c][s] {
                if let Err(why) = r {
                    eprintln!(
                        "arbor sim reproduce: {sched} on {} {} (seed {}): {why}",
                        machs[w.machine].name,
                        w.workload,
                        FIRST_SEED + *rep as u64
                    );
                }
            }
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeds::catalogue::SEEDS;

    #[test]
    fn every_table_adds_its_mechanism_to_its_baseline() {
        for s in SEEDS {
            for t in s.tables {
                let m = mechanism(t).unwrap();
                assert!(!m.is_empty() && !m.starts_with("NO_"), "{}: {m}", t.title);
                let (off, on) = sides_of(t, Era::Current).unwrap();
                assert_eq!(off, "arbor:stock");
                assert!(on.starts_with("arbor:stock:") && on.ends_with(m), "{on}");
                SchedSpec::parse(&on).unwrap();
                let (off, on) = sides_of(t, Era::Seed).unwrap();
                assert_eq!(
                    (off.as_str(), on.as_str()),
                    (t.columns[0].sched, t.columns[1].sched)
                );
            }
        }
        let idler = &crate::seeds::catalogue::find("000").unwrap().tables[0];
        assert_eq!(mechanism(idler).unwrap(), "WA_IDLER_LLC");
        let wa = &crate::seeds::catalogue::find("001").unwrap().tables[0];
        assert_eq!(
            mechanism(wa).unwrap(),
            "WA_THROTTLE:wake-affine-interval-ms=1"
        );
    }
}
