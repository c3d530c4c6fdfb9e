//! The verdict's fresh run: every cell (machine x workload) starts with
//! --reps runs of every scheduler; when a cell's runs are in, the rule
//! judges it, and an undecided cell gets another batch of --reps runs of
//! the candidate and of the side(s) still undecided (the best peer, the
//! baseline), up to --max-reps, while the other cells run. Each run is a
//! child process, `arbor sim ... --job 0` (the same simulation `arbor sim`
//! runs for run k with seed + k), as many at once as --jobs. A run keeps
//! only its workload's metrics and the simulator's five charged totals
//! (no scheduler counters), so memory grows with the runs made, not with
//! what a run measures; the results are the same
//! whatever the order the runs finish in.

use std::collections::{BTreeMap, VecDeque};
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use arbor_sim::core::Config;
use arbor_sim::cost::CostModel;
use arbor_sim::machine::Machine;
use arbor_sim::presets::{self, random};
use arbor_sim::{snapshot, workload};
use scx_arbor::knobs::Knobs;
use serde::{Deserialize, Serialize};

use super::report::{self as rep, Counts};
use super::why::{self, Why};
use super::{judge, Cell, Side, Verdict, VerdictArgs, EXTRA_WORKLOADS, PEERS, RULE};
use crate::report::meta::Provenance;
use crate::report::summary;
use crate::shard::{self, Shard, ShardMeta};
use crate::simrun::{run_child, ChildRun, JobOut, Plan};

/// Where the outputs go without --out.
const OUT: &str = "arbor-verdict";

/// A machine of the verdict: how a run's process is told to build it, and
/// the machine itself.
struct Mach {
    args: Vec<String>,
    machine: Machine,
}

/// One run's outcome: its metrics, or why it gave none.
#[derive(Debug, Clone, Serialize)]
struct RunRec {
    rep: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    failed: Option<String>,
    metrics: BTreeMap<String, f64>,
    /// the machine's CPUs: with busy_pct and time_s, the run's CPU work
    cpus: u32,
    /// what the simulator charged beyond the scheduler's counters (cache
    /// refills, idle-state exits: counts and ns; all its switch-ins, ns),
    /// for why a lost cell's CPU work is larger
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    charged: BTreeMap<String, f64>,
}

struct CellState {
    machine: usize,
    workload: usize,
    /// per scheduler (the verdict's order), its runs so far
    runs: Vec<Vec<RunRec>>,
    pending: usize,
    decided: Option<Cell>,
}

struct State {
    queue: VecDeque<(usize, usize, u32)>,
    running: usize,
    cells: Vec<CellState>,
    cells_done: usize,
    runs_done: usize,
    /// each metric's (unit, higher is better), as the workloads declared it
    units: BTreeMap<String, (String, bool)>,
    error: Option<anyhow::Error>,
}

/// The machines asked for, in the order given: -t, --topology-from, then
/// --machines; x86-12 without any.
fn machines(a: &VerdictArgs) -> Result<Vec<Mach>> {
    let mut out = Vec::new();
    let drawn = |spec: &str, out: &mut Vec<Mach>| -> Result<()> {
        for d in random::machines(spec)? {
            out.push(Mach {
                args: vec!["-t".into(), d.machine.name.clone()],
                machine: d.machine,
            });
        }
        Ok(())
    };
    for t in &a.topologies {
        if random::parse_spec(t).is_some() {
            drawn(t, &mut out)?;
        } else {
            out.push(Mach {
                args: vec!["-t".into(), t.clone()],
                machine: presets::find(t)?,
            });
        }
    }
    for d in &a.topology_from {
        let s = snapshot::read(d)?;
        eprintln!("{}", s.assumed);
        out.push(Mach {
            args: vec!["--topology-from".into(), d.display().to_string()],
            machine: s.machine,
        });
    }
    for m in &a.machines {
        if random::parse_spec(m).is_none() {
            bail!("--machines {m}: write random:N@SEED, e.g. random:4@7");
        }
        drawn(m, &mut out)?;
    }
    if out.is_empty() {
        out.push(Mach {
            args: vec!["-t".into(), "x86-12".into()],
            machine: presets::find("x86-12")?,
        });
    }
    for (i, m) in out.iter().enumerate() {
        if out[..i].iter().any(|o| o.machine.name == m.machine.name) {
            bail!(
                "the machine '{}' is given twice: each machine once",
                m.machine.name
            );
        }
    }
    Ok(out)
}

/// The primary metric of workload `w`: its declared one, else the first
/// its runs reported.
fn primary(w: &str, runs: &[Vec<RunRec>]) -> Option<String> {
    workload::spec::primary_metric(w)
        .map(String::from)
        .or_else(|| {
            runs.iter()
                .flatten()
                .find_map(|r| r.metrics.keys().next().cloned())
        })
}

/// The cell's sides on its primary metric, runs in rep order.
fn sides(cs: &CellState, scheds: &[String], metric: &str) -> Vec<Side> {
    scheds
        .iter()
        .zip(&cs.runs)
        .filter(|(_, r)| !r.is_empty())
        .map(|(s, r)| {
            let mut r: Vec<&RunRec> = r.iter().collect();
            r.sort_by_key(|x| x.rep);
            Side::of(
                s,
                r.iter()
                    .filter(|x| x.failed.is_none())
                    .filter_map(|x| x.metrics.get(metric).copied()),
                r.len(),
                r.iter().filter(|x| x.failed.is_some()).count(),
            )
        })
        .collect()
}

/// Everything fixed for the whole run.
struct Setup<'a> {
    a: &'a VerdictArgs,
    machs: Vec<Mach>,
    workloads: Vec<String>,
    /// baseline, candidate, then the peers
    scheds: Vec<String>,
    peers: Vec<String>,
}

impl Setup<'_> {
    fn judge(&self, cs: &CellState, units: &BTreeMap<String, (String, bool)>) -> Cell {
        let w = &self.workloads[cs.workload];
        let metric = primary(w, &cs.runs).unwrap_or_default();
        let hib = units.get(&metric).map_or(false, |u| u.1);
        judge(
            &self.machs[cs.machine].machine.name,
            w,
            &metric,
            hib,
            &sides(cs, &self.scheds, &metric),
            &self.a.candidate,
            &self.a.baseline,
            &self.peers,
        )
    }

    /// One run in its own process: `arbor sim -t M -s S -w W --seed
    /// SEED+REP --job 0`.
    fn run_one(
        &self,
        machine: usize,
        wl: usize,
        sched: usize,
        rep: u32,
    ) -> Result<(RunRec, Option<JobOut>)> {
        let m = &self.machs[machine];
        let mut args: Vec<&str> = m.args.iter().map(String::as_str).collect();
        args.extend(["-s", &self.scheds[sched], "-w", &self.workloads[wl]]);
        let ChildRun {
            code,
            job,
            last_err,
        } = run_child(&args, self.a.seed + rep as u64, self.a.time_limit)?;
        let why = |what: &str| format!("{what}: {last_err}");
        let (failed, job) = match (code, job) {
            (Some(0), Some(j)) => {
                let f = if j.ejected {
                    Some(format!("ejected: {}", j.stop))
                } else if !j.ok {
                    Some(format!("failed: {}", j.stop))
                } else {
                    None
                };
                (f, Some(j))
            }
            (Some(2), _) => (Some(why("refused")), None),
            (c, _) => (
                Some(why(&format!(
                    "crashed ({})",
                    c.map_or("signal".into(), |c| format!("exit {c}"))
                ))),
                None,
            ),
        };
        let metrics = job.iter().flat_map(|j| j.metrics.iter().cloned()).collect();
        let charged = job
            .iter()
            .flat_map(|j| {
                j.charged
                    .iter()
                    .map(|(k, v)| (k.clone(), *v as f64))
                    .chain([("switch_in_ns".to_string(), j.switch_in_ns)])
            })
            .collect();
        Ok((
            RunRec {
                rep,
                failed,
                metrics,
                cpus: m.machine.nr_cpus() as u32,
                charged,
            },
            job,
        ))
    }
}

/// The next batch of an undecided cell, as (scheduler, rep): the
/// candidate and each side still undecided (the best peer, the baseline),
/// `reps` more runs of the candidate, the others up to the candidate's
/// count, at most `max_reps`; none when the cell is decided or at the cap.
/// `have`: each scheduler's runs so far, in `scheds`' order.
pub(super) fn next_batch(
    scheds: &[String],
    candidate: &str,
    baseline: &str,
    have: &[usize],
    cell: &Cell,
    reps: u32,
    max_reps: u32,
) -> Vec<(usize, u32)> {
    if cell.decided() {
        return Vec::new();
    }
    let idx = |s: &str| scheds.iter().position(|x| x == s);
    let Some(cand) = idx(candidate) else {
        return Vec::new();
    };
    let target = (have[cand] as u32 + reps).min(max_reps);
    let mut who = vec![cand];
    if !cell.vs_peer.call.decided() {
        who.extend(cell.best_peer.as_ref().and_then(|p| idx(&p.scheduler)));
    }
    if !cell.vs_baseline.call.decided() {
        who.extend(idx(baseline));
    }
    let mut jobs = Vec::new();
    for s in who {
        for rep in have[s] as u32..target {
            jobs.push((s, rep));
        }
    }
    jobs
}

/// The progress line: cells and runs done, and the time left at the pace
/// so far (runs queued and running; a cell's further batches are not
/// known in advance).
fn progress(st: &State, total_cells: usize, wall: Instant) -> String {
    let left = st.queue.len() + st.running;
    let per_run = wall.elapsed().as_secs_f64() / st.runs_done.max(1) as f64;
    let eta = per_run * left as f64;
    format!(
        "arbor sim verdict: {}/{} cells, {} runs done, {} queued or running, ~{} left (more if cells need more runs)",
        st.cells_done,
        total_cells,
        st.runs_done,
        left,
        if eta >= 120.0 {
            format!("{:.0} min", eta / 60.0)
        } else {
            format!("{eta:.0} s")
        }
    )
}

pub fn main(a: &VerdictArgs) -> Result<Verdict> {
    if !(a.time_limit.is_finite() && a.time_limit > 0.0 && a.time_limit <= 86_400.0) {
        bail!("--time-limit must be a number of seconds in (0, 86400]");
    }
    if a.max_reps < a.reps {
        bail!(
            "--max-reps {} is below --reps {}: the most runs cannot be fewer than the first batch",
            a.max_reps,
            a.reps
        );
    }
    if a.candidate == a.baseline {
        bail!("the candidate and the baseline are both {}", a.candidate);
    }
    let shard = match &a.shard {
        None => None,
        Some(_) if a.out.is_none() => {
            bail!("--shard needs --out DIR: `arbor sim merge` reads each shard's directory")
        }
        Some(s) => Some(s.here()?),
    };
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from(OUT));
    let machs = machines(a)?;
    let workloads: Vec<String> = if a.workloads.is_empty() {
        crate::bench::DEFAULT_WORKLOADS
            .iter()
            .chain(EXTRA_WORKLOADS)
            .map(|s| s.to_string())
            .collect()
    } else {
        a.workloads.clone()
    };
    let mut peers: Vec<String> = if a.peers.is_empty() {
        PEERS.iter().map(|s| s.to_string()).collect()
    } else {
        a.peers.clone()
    };
    peers.dedup();
    if let Some(p) = peers
        .iter()
        .find(|p| **p == a.candidate || **p == a.baseline)
    {
        bail!("-p {p}: the candidate and the baseline are not peers");
    }
    let mut scheds = vec![a.baseline.clone(), a.candidate.clone()];
    scheds.extend(peers.iter().cloned());
    // every scheduler and workload checked on every machine before a run
    let cfg = Config {
        time_limit: (a.time_limit * 1e9) as u64,
        ..Config::default()
    };
    for m in &machs {
        Plan::new(
            m.machine.clone(),
            CostModel::default(),
            cfg.clone(),
            Knobs::default(),
            &scheds,
            &workloads,
            1,
            a.seed,
        )
        .with_context(|| m.machine.name.clone())?;
    }
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let setup = Setup {
        a,
        machs,
        workloads,
        scheds,
        peers,
    };
    let mut head = format!(
        "# arbor sim verdict: {} against the best peer ({}) and {}\n\n{RULE}\n\nMachines:\n",
        a.candidate,
        setup.peers.join(", "),
        a.baseline
    );
    for m in &setup.machs {
        head.push_str(&format!(
            "- {} ({} CPUs): {}\n",
            m.machine.name,
            m.machine.nr_cpus(),
            m.machine.about
        ));
    }
    head.push_str(&format!(
        "\nWorkloads: {}. Runs: {} per scheduler and cell, then batches of {} up to {}; seeds from {}.\n",
        setup.workloads.join(", "),
        a.reps,
        a.reps,
        a.max_reps,
        a.seed
    ));
    print!("{head}");
    let _ = std::io::stdout().flush();

    let mut cells = Vec::new();
    let mut queue = VecDeque::new();
    let n_cells = setup.machs.len() * setup.workloads.len();
    let part = shard.unwrap_or(Shard::ALL);
    for mi in 0..setup.machs.len() {
        for wi in 0..setup.workloads.len() {
            // --shard's numbering: machine by machine, then the workloads
            if !part.owns(mi * setup.workloads.len() + wi) {
                continue;
            }
            let c = cells.len();
            for rep in 0..a.reps {
                for s in 0..setup.scheds.len() {
                    queue.push_back((c, s, rep));
                }
            }
            cells.push(CellState {
                machine: mi,
                workload: wi,
                runs: vec![Vec::new(); setup.scheds.len()],
                pending: setup.scheds.len() * a.reps as usize,
                decided: None,
            });
        }
    }
    let total_cells = cells.len();
    let state = Mutex::new(State {
        queue,
        running: 0,
        cells,
        cells_done: 0,
        runs_done: 0,
        units: BTreeMap::new(),
        error: None,
    });
    let cv = Condvar::new();
    let tty = std::io::stderr().is_terminal();
    let wall = Instant::now();
    let workers = a
        .jobs
        .map(|j| j as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let cpu_s = Mutex::new(0.0f64);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| worker(&setup, &state, &cv, &cpu_s, total_cells, tty, wall));
        }
    });
    let st = state.into_inner().unwrap_or_else(|e| e.into_inner());
    if tty {
        eprintln!();
    }
    if let Some(e) = st.error {
        return Err(e);
    }
    let verdict = Verdict {
        candidate: a.candidate.clone(),
        baseline: a.baseline.clone(),
        cells: st.cells.iter().filter_map(|c| c.decided.clone()).collect(),
    };
    let runs_made: usize = st.cells.iter().flat_map(|c| &c.runs).map(|r| r.len()).sum();
    let cpu = *cpu_s.lock().unwrap_or_else(|e| e.into_inner());
    let wall_s = wall.elapsed().as_secs_f64();
    eprintln!(
        "arbor sim verdict: {runs_made} runs in {wall_s:.1} s wall, {cpu:.1} s of simulation CPU; report in {}",
        out.display()
    );
    let o = outcome(&setup, &st, verdict, head, wall_s, cpu);
    print!("{}", o.text());
    let mut meta = Provenance::here();
    if let Some(s) = shard {
        meta.shard = Some(shard_meta(a, s, n_cells, &o)?);
    }
    o.write(&out, meta)?;
    Ok(o.verdict)
}

#[allow(clippy::too_many_arguments)]
fn worker(
    setup: &Setup,
    state: &Mutex<State>,
    cv: &Condvar,
    cpu_s: &Mutex<f64>,
    total_cells: usize,
    tty: bool,
    wall: Instant,
) {
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let (c, s, rep, cell_machine, cell_workload) = {
            let mut st = lock();
            loop {
                if st.error.is_some() {
                    return;
                }
                if let Some((c, s, rep)) = st.queue.pop_front() {
                    st.running += 1;
                    let cs = &st.cells[c];
                    break (c, s, rep, cs.machine, cs.workload);
                }
                if st.running == 0 {
                    cv.notify_all();
                    return;
                }
                st = cv.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        };
        let r = setup.run_one(cell_machine, cell_workload, s, rep);
        let mut st = lock();
        st.running -= 1;
        match r {
            Err(e) => st.error = Some(e),
            Ok((rec, job)) => {
                let job = job.as_ref();
                *cpu_s.lock().unwrap_or_else(|e| e.into_inner()) += job.map_or(0.0, |j| j.cpu_s);
                for (name, unit, hib) in job.iter().flat_map(|j| &j.units) {
                    st.units.entry(name.clone()).or_insert((unit.clone(), *hib));
                }
                st.runs_done += 1;
                let cs = &mut st.cells[c];
                cs.runs[s].push(rec);
                cs.pending -= 1;
                if cs.pending == 0 {
                    let units = st.units.clone();
                    let cs = &st.cells[c];
                    let cell = setup.judge(cs, &units);
                    let have: Vec<usize> = cs.runs.iter().map(|r| r.len()).collect();
                    let next = next_batch(
                        &setup.scheds,
                        &setup.a.candidate,
                        &setup.a.baseline,
                        &have,
                        &cell,
                        setup.a.reps,
                        setup.a.max_reps,
                    );
                    if next.is_empty() {
                        st.cells_done += 1;
                        if !tty {
                            eprintln!(
                                "arbor sim verdict: [{}/{}] {} {}: vs best peer {}, vs {} {} ({} runs)",
                                st.cells_done,
                                total_cells,
                                cell.machine,
                                cell.workload,
                                cell.vs_peer.call.text(),
                                rep::short(&setup.a.baseline),
                                cell.vs_baseline.call.text(),
                                cell.candidate.runs
                            );
                        }
                        st.cells[c].decided = Some(cell);
                    } else {
                        st.cells[c].pending = next.len();
                        // a cell's next batch before new cells: cells finish early
                        for (s, rep) in next.into_iter().rev() {
                            st.queue.push_front((c, s, rep));
                        }
                    }
                }
                if tty {
                    eprint!("\r{}   ", progress(&st, total_cells, wall));
                }
            }
        }
        cv.notify_all();
    }
}

/// What results.json records of the verdict's inputs, before its counts
/// and cells.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Inputs {
    pub candidate: String,
    pub baseline: String,
    pub peers: Vec<String>,
    pub workloads: Vec<String>,
    pub rule: String,
    pub margin_pct: f64,
    pub reps: u32,
    pub max_reps: u32,
    pub seed: u64,
    pub time_limit_s: f64,
    /// every machine of the run: name, CPUs, shape
    pub machines: Vec<serde_json::Value>,
}

/// What a verdict writes, from its run or from its shards' (shard.rs).
pub(super) struct Outcome {
    pub inputs: Inputs,
    /// report.md's header: the rule, the machines, the workloads
    pub head: String,
    pub verdict: Verdict,
    /// per cell (the verdict's order), how many of `runs` are its
    pub cell_runs: Vec<usize>,
    pub runs: Vec<serde_json::Value>,
    /// each metric's (unit, higher is better), as the workloads declared it
    pub metrics: BTreeMap<String, (String, bool)>,
    pub wall_s: f64,
    pub cpu_s: f64,
    /// why the lost cells are lost (why.rs), computed once, at first use:
    /// the printed table, report.md, results.json and a shard's meta
    /// all show it
    pub why: std::cell::OnceCell<Vec<Why>>,
}

/// results.json after `meta`: the inputs, the counts (overall and per
/// machine), every cell's decision and every run's metrics.
#[derive(Serialize)]
pub(super) struct Body<'a> {
    #[serde(flatten)]
    inputs: &'a Inputs,
    counts: Counts,
    per_machine: BTreeMap<String, Counts>,
    decisions: &'a [Cell],
    metrics: &'a BTreeMap<String, (String, bool)>,
    runs: &'a [serde_json::Value],
    /// every lost cell's counters (why.rs)
    why: &'a [Why],
    wall_s: f64,
    cpu_s: f64,
}

/// The run's outcome: its cells' runs in cell, scheduler and rep order.
fn outcome(
    setup: &Setup,
    st: &State,
    verdict: Verdict,
    head: String,
    wall_s: f64,
    cpu_s: f64,
) -> Outcome {
    let a = setup.a;
    let mut runs = Vec::new();
    let mut cell_runs = Vec::new();
    for cs in &st.cells {
        cell_runs.push(cs.runs.iter().map(|r| r.len()).sum());
        for (s, rs) in setup.scheds.iter().zip(&cs.runs) {
            let mut rs: Vec<&RunRec> = rs.iter().collect();
            rs.sort_by_key(|r| r.rep);
            for r in rs {
                runs.push(serde_json::json!({
                    "machine": setup.machs[cs.machine].machine.name,
                    "workload": setup.workloads[cs.workload],
                    "scheduler": s,
                    "run": r,
                }));
            }
        }
    }
    let inputs = Inputs {
        candidate: a.candidate.clone(),
        baseline: a.baseline.clone(),
        peers: setup.peers.clone(),
        workloads: setup.workloads.clone(),
        rule: RULE.to_string(),
        margin_pct: super::rule::MARGIN,
        reps: a.reps,
        max_reps: a.max_reps,
        seed: a.seed,
        time_limit_s: a.time_limit,
        machines: setup
            .machs
            .iter()
            .map(|m| {
                serde_json::json!({"name": m.machine.name, "cpus": m.machine.nr_cpus(), "about": m.machine.about})
            })
            .collect(),
    };
    Outcome {
        inputs,
        head,
        verdict,
        cell_runs,
        runs,
        metrics: st.units.clone(),
        wall_s,
        cpu_s,
        why: Default::default(),
    }
}

impl Outcome {
    /// The lost cells' counters; the cells and runs are final by then.
    fn why(&self) -> &[Why] {
        self.why
            .get_or_init(|| why::of(&self.verdict.cells, &self.runs))
    }

    pub(super) fn body(&self) -> Body<'_> {
        let v = &self.verdict;
        let per_machine = self
            .inputs
            .machines
            .iter()
            .map(|m| {
                let name = m["name"].as_str().unwrap_or_default();
                (
                    name.to_string(),
                    Counts::of(v.cells.iter().filter(|c| c.machine == name)),
                )
            })
            .collect();
        Body {
            inputs: &self.inputs,
            counts: v.counts(),
            per_machine,
            decisions: &v.cells,
            metrics: &self.metrics,
            runs: &self.runs,
            why: self.why(),
            wall_s: self.wall_s,
            cpu_s: self.cpu_s,
        }
    }

    /// The cells' table, the counts and why the lost cells are lost.
    pub(super) fn text(&self) -> String {
        let v = &self.verdict;
        format!("{}{}", v.text(), why::text(self.why(), &v.candidate))
    }

    /// report.md, results.json (`meta` first) and summary.json in `out`.
    pub(super) fn write(&self, out: &Path, meta: Provenance) -> Result<()> {
        let md = format!("{}{}", self.head, self.text());
        summary::write_stamped(out, &md, meta, &self.body())
    }
}

/// `arbor sim snapshot --machines random:N@SEED OUT`: each drawn machine
/// as OUT/random-SEED-K, a snapshot directory; prints its shape.
pub fn write_snapshots(spec: &str, out: &std::path::Path) -> Result<()> {
    let drawn = random::machines(spec)?;
    for d in &drawn {
        let dir: PathBuf = out.join(&d.machine.name);
        let files = random::write_snapshot(d, &dir)?;
        println!(
            "{} ({files} files in {})",
            random::shape_line(&d.machine),
            dir.display()
        );
    }
    Ok(())
}

/// A part's `meta.shard.merge`.
#[derive(Serialize, Deserialize)]
pub(super) struct ShardPart {
    /// report.md's header, the same in every part
    pub(super) head: String,
    /// per cell of the part, how many of its runs are the cell's
    pub(super) cell_runs: Vec<usize>,
    /// the floats of results.json after `meta` (crate::shard::float_bits)
    pub(super) floats: Vec<u64>,
    /// the command's --require and --max-undecided: the merge's bar
    pub(super) require: Option<f64>,
    pub(super) max_undecided: f64,
}

/// `meta.shard` of part `s` of the verdict `a` of `cells` cells, whose
/// outcome is `o`.
pub(super) fn shard_meta(
    a: &VerdictArgs,
    s: Shard,
    cells: usize,
    o: &Outcome,
) -> Result<ShardMeta> {
    let mut m = ShardMeta::new("verdict", s, cells);
    m.merge = serde_json::to_value(ShardPart {
        head: o.head.clone(),
        cell_runs: o.cell_runs.clone(),
        floats: shard::float_bits(&serde_json::to_value(o.body())?),
        require: a.require,
        max_undecided: a.max_undecided,
    })?;
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::verdict::rule::Call;

    const SCHEDS: [&str; 3] = ["arbor:stock", "arbor:default", "cosmos"];

    /// Runs the adaptive loop on a cell whose run k of scheduler s gives
    /// `value(s, k)` (lower is better), as the runner does; returns the
    /// final cell and each scheduler's runs.
    fn adapt(value: impl Fn(usize, usize) -> f64, reps: u32, max_reps: u32) -> (Cell, Vec<usize>) {
        let scheds: Vec<String> = SCHEDS.iter().map(|s| s.to_string()).collect();
        let mut runs: Vec<Vec<f64>> = vec![Vec::new(); 3];
        let mut batch: Vec<(usize, u32)> = (0..reps)
            .flat_map(|k| (0..3).map(move |s| (s, k)))
            .collect();
        loop {
            for (s, k) in batch {
                assert_eq!(runs[s].len(), k as usize, "runs are added in order");
                runs[s].push(value(s, k as usize));
            }
            let sides: Vec<Side> = scheds
                .iter()
                .zip(&runs)
                .map(|(s, v)| Side::of(s, v.iter().copied(), v.len(), 0))
                .collect();
            let cell = judge(
                "m",
                "w",
                "t",
                false,
                &sides,
                SCHEDS[1],
                SCHEDS[0],
                &[SCHEDS[2].to_string()],
            );
            let have: Vec<usize> = runs.iter().map(|r| r.len()).collect();
            batch = next_batch(&scheds, SCHEDS[1], SCHEDS[0], &have, &cell, reps, max_reps);
            if batch.is_empty() {
                return (cell, have);
            }
        }
    }

    /// A fixed, sign-alternating noise of amplitude `a`.
    fn noise(k: usize, a: f64) -> f64 {
        a * [1.0, -0.7, 0.3, -0.9, 0.5, -0.2, 0.8, -0.4][k % 8]
    }

    #[test]
    fn a_clear_cell_stops_after_the_first_batch() {
        // default 8, stock 10, cosmos 12: better on both sides at once
        let (c, have) = adapt(|s, k| [10.0, 8.0, 12.0][s] + noise(k, 0.1), 3, 40);
        assert_eq!(
            (c.vs_peer.call, c.vs_baseline.call),
            (Call::Better, Call::Better)
        );
        assert_eq!(have, [3, 3, 3]);
    }

    #[test]
    fn a_noisy_cell_gets_batches_until_decided() {
        // the same means, noisy: undecided at 3 runs, not worse with more
        let (c, have) = adapt(|s, k| 10.0 + noise(k + s, 1.0), 3, 40);
        assert_eq!(c.vs_peer.call, Call::NotWorse, "{:?}", c.vs_peer);
        assert!(have[1] > 3 && have[1] < 40, "{have:?}");
        assert_eq!(have[1] % 3, 0, "batches of --reps: {have:?}");
    }

    #[test]
    fn a_cell_on_the_margin_stops_at_max_reps_undecided() {
        // 3% behind the peer and the baseline: never decided
        let (c, have) = adapt(|s, k| [10.0, 10.3, 10.0][s] + noise(k + s, 1.0), 5, 12);
        assert_eq!(c.vs_peer.call, Call::Undecided, "{:?}", c.vs_peer);
        assert_eq!(have, [12, 12, 12], "capped at --max-reps, not past it");
        // a decided side gets no more runs: only the undecided one grows
        let (c, have) = adapt(
            |s, k| [5.0, 10.3, 10.0][s] + noise(k + s, if s == 0 { 0.01 } else { 1.0 }),
            5,
            12,
        );
        assert_eq!(
            (c.vs_baseline.call, c.vs_peer.call),
            (Call::Worse, Call::Undecided)
        );
        assert_eq!(have, [5, 12, 12]);
    }
}
