//! `arbor bench`: real workloads under EEVDF, scx_arbor's profiles and the
//! peer schedulers, in one guest boot (or on the host itself, `--host`),
//! repetitions interleaved across schedulers (A B C A B C ...), reported as
//! seed-style tables.
//!
//! One typed pipeline: the host parses and checks every spec, writes a
//! [`plan::GuestPlan`] into the run's directory, and starts `arbor bench
//! guest PLAN.json` (guest/) in the VM or natively; that prints typed
//! [`Row`]s, which the host keeps as they arrive (store.rs) and aggregates
//! (crate::report) into report.md, results.json, summary.json, results.csv
//! and charts/*.png.

pub mod guest;
pub mod plan;
pub mod spec;
pub mod store;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};

use crate::report::metric::{self, MetricInfo};
use crate::report::{charts, meta, summary, Meta, Report, Results, Row, WorkloadEntry};
use crate::workload::{self, Workload};
use crate::{seeds, vm};
use plan::GuestPlan;
use spec::{Sched, SchedSpec};
use store::RunDir;

pub const DEFAULT_SCHEDS: &[&str] = &[
    "eevdf",
    "arbor:stock",
    "arbor:default",
    "bpfland",
    "cosmos",
    "lavd",
    "p2dq",
    "rusty",
];
/// Kept short: under TCG each sched_ext load takes about a minute, and the
/// default run loads 7 of them 3 times.
pub const DEFAULT_WORKLOADS: &[&str] = &[
    "hackbench:g=2,l=100",
    "perf-messaging:g=2,l=50,mode=thread",
    "perf-pipe:l=5000",
    "pgbench:clients=8,time=5",
    "wakeprobe:t=4",
];
const QUICK_SCHEDS: &[&str] = &["eevdf", "arbor:default"];
const QUICK_WORKLOADS: &[&str] = &["hackbench:g=1,l=50", "wakeprobe:m=1,w=2,t=2"];
/// The guest is killed (and the rows so far kept) after this long.
const VM_LIMIT: Duration = Duration::from_secs(12 * 3600);

#[derive(Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: Option<BenchCmd>,
    /// Guest topology (a preset of `arbor vm --list-topologies` or the explicit form).
    #[arg(short, long, global = true)]
    pub topology: Option<String>,
    /// A scheduler; repeat for several, the first is the baseline:
    /// eevdf[:NO_FEAT,key=val], arbor[:PROFILE][:FEAT,NO_FEAT][:KNOB=VALUE,...], bpfland, cosmos, lavd, p2dq, rusty.
    #[arg(short, long = "sched", value_name = "SPEC")]
    pub scheds: Vec<String>,
    /// A workload; repeat for several (see --list).
    #[arg(short, long = "workload", value_name = "SPEC")]
    pub workloads: Vec<String>,
    /// Repetitions per (scheduler, workload), interleaved across schedulers.
    #[arg(short, long, global = true)]
    pub reps: Option<u32>,
    /// Where to write the report (default: target/bench/<date>-<time>).
    #[arg(short, long, global = true, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace --out DIR (and an interrupted DIR.partial) if it exists.
    #[arg(long, global = true)]
    pub force: bool,
    /// Run on this machine, not in a VM: needs a kernel with sched_ext and root.
    #[arg(long, global = true)]
    pub host: bool,
    /// A smoke run: EEVDF vs scx_arbor, two short workloads, one repetition, 1s2c2t.
    #[arg(long)]
    pub quick: bool,
    /// Skip the PNG charts.
    #[arg(long, global = true)]
    pub no_charts: bool,
    /// Print only the headline table (each workload's primary metric per
    /// scheduler, changes against the first) and how many changes are
    /// significant; the report in --out DIR still holds every metric.
    #[arg(long)]
    pub brief: bool,
    /// List schedulers, workloads and reproducible seeds, and exit.
    #[arg(long)]
    pub list: bool,
    /// Record each workload run under an `eevdf` scheduler with `perf
    /// record` of the sched tracepoints into DIR (`WORKLOAD-rREP.data`, for
    /// `arbor sim -w trace:FILE`); the guest may write to DIR only.
    #[arg(long, value_name = "DIR")]
    pub record_traces: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum BenchCmd {
    /// Re-run a seed's experiment scaled to a VM: idler-llc,
    /// wake-affine-throttle, cache-aware, steal, asym-capacity.
    Reproduce { seed: String },
    /// Rebuild a run's report.md, CSV and charts: from results.json, or,
    /// for an interrupted DIR.partial, from the rows it kept.
    Render { dir: PathBuf },
    /// The side that runs a plan (inside the VM, or natively with --host).
    #[command(hide = true)]
    Guest { plan: PathBuf },
}

fn repo() -> PathBuf {
    vm::repo_root()
}

/// $SCX_ARBOR_BIN (e.g. a build in another target directory), else
/// target/release/scx_arbor.
pub(crate) fn arbor_bin() -> PathBuf {
    std::env::var_os("SCX_ARBOR_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/release/scx_arbor"))
}

/// What the run measures on, for the report's header.
fn platform(host: bool, topo: &str) -> String {
    if !host {
        return format!(
            "QEMU TCG single-threaded guest ({topo}): no parallelism; times compare total work, not placement"
        );
    }
    let model = fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let kernel = guest::kernel_release();
    let ncpu = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    format!(
        "this host, natively: {model}, kernel {}, {ncpu} CPUs",
        kernel.trim()
    )
}

/// `--host` refuses in one line when this machine cannot run the plan's
/// schedulers. A plan of `eevdf` runs only (the kernel's own scheduler, e.g.
/// to record traces of a program with `--record-traces` on any Linux
/// machine) needs no sched_ext; any other scheduler does.
fn host_check(scheds: &[SchedSpec]) -> Result<()> {
    let scx = scheds
        .iter()
        .find(|s| !matches!(s.sched, Sched::Eevdf { .. }));
    if let (Some(why), Some(s)) = (guest::no_sched_ext(), scx) {
        bail!(
            "--host: {why}, which '{}' needs; run without --host to use a VM (only eevdf runs need no sched_ext)",
            s.label
        );
    }
    // SAFETY: geteuid has no failure mode
    if unsafe { libc::geteuid() } != 0 {
        bail!("--host runs schedulers and writes to debugfs: run it as root");
    }
    Ok(())
}

pub fn main(a: BenchArgs) -> Result<i32> {
    if a.list {
        println!("schedulers: eevdf[:NO_FEAT,FEAT,key=value]  arbor[:stock|seeds|default][:FEAT,NO_FEAT,...][:KNOB=VALUE,...]  {}", spec::PEERS.join("  "));
        println!("workloads:  {}", workload::WORKLOADS);
        println!("reproduce:  {}", seeds::catalogue::plain_names());
        // "-s a -s b ...": a list as the repeated flag that gives it
        let flags = |flag: &str, items: &[&str]| {
            items
                .iter()
                .map(|s| format!("{flag} {s}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!("default:    -t 2s2c2t -r 3 {}", flags("-s", DEFAULT_SCHEDS));
        println!("            {}", flags("-w", DEFAULT_WORKLOADS));
        return Ok(0);
    }
    match &a.what {
        Some(BenchCmd::Render { dir }) => return render(dir, a.no_charts),
        Some(BenchCmd::Guest { plan }) => return guest::main(plan),
        _ => {}
    }
    if a.host {
        if a.topology.is_some() {
            bail!("--host runs on this machine's own topology; drop -t");
        }
    }
    let bin = arbor_bin();
    if !bin.is_file() {
        bail!(
            "{} not found: build it with `make build` (or point SCX_ARBOR_BIN at one)",
            bin.display()
        );
    }
    let reps = a.reps.unwrap_or(if a.quick { 1 } else { 3 });
    if reps == 0 || reps > 100 {
        bail!("--reps must be in 1..100, got {reps}");
    }
    let (topo_s, scheds, workloads, title, published) = match &a.what {
        Some(BenchCmd::Reproduce { seed }) => {
            if !a.scheds.is_empty() || !a.workloads.is_empty() || a.quick {
                bail!("reproduce runs the seed's own schedulers and workloads; drop -s/-w/--quick");
            }
            let e = seeds::bench::experiment(seed)?;
            (
                a.topology.clone().unwrap_or(e.topology.to_string()),
                e.scheds.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                e.workloads
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>(),
                e.title,
                Some((e.published.to_string(), e.scaling.to_string())),
            )
        }
        _ => {
            let pick = |given: &Vec<String>, quick: &[&str], def: &[&str]| -> Vec<String> {
                if !given.is_empty() {
                    given.clone()
                } else if a.quick {
                    quick.iter().map(|s| s.to_string()).collect()
                } else {
                    def.iter().map(|s| s.to_string()).collect()
                }
            };
            (
                a.topology
                    .clone()
                    .unwrap_or(if a.quick { "1s2c2t" } else { "2s2c2t" }.into()),
                pick(&a.scheds, QUICK_SCHEDS, DEFAULT_SCHEDS),
                pick(&a.workloads, QUICK_WORKLOADS, DEFAULT_WORKLOADS),
                if a.quick {
                    "Quick smoke run".into()
                } else {
                    "arbor bench".into()
                },
                None,
            )
        }
    };
    let (topo, ncpu, topo_text) = if a.host {
        let n = std::thread::available_parallelism()
            .map(|n| n.get() as u32)
            .unwrap_or(1);
        (None, n, format!("this host ({n} CPUs)"))
    } else {
        let t = vm::VmTopology::parse(&topo_s)?;
        let n = t.nr_cpus();
        let text = t.to_string();
        (Some(t), n, text)
    };
    let scheds = scheds
        .iter()
        .map(|s| SchedSpec::parse(s))
        .collect::<Result<Vec<_>>>()?;
    let workloads = workloads
        .iter()
        .map(|w| Workload::parse(w, ncpu))
        .collect::<Result<Vec<_>>>()?;
    for (i, s) in scheds.iter().enumerate() {
        if scheds[..i].iter().any(|t| t.label == s.label) {
            bail!("scheduler '{}' is given twice", s.label);
        }
    }
    for (i, w) in workloads.iter().enumerate() {
        if workloads[..i].iter().any(|t| t.label == w.label) {
            bail!("workload '{}' is given twice", w.label);
        }
    }
    if a.host {
        host_check(&scheds)?;
    }
    install_peers(&scheds)?;
    let plan = GuestPlan {
        reps,
        scheds: scheds.iter().map(|s| s.to_plan(&repo(), &bin)).collect(),
        workloads,
        wakeprobe: crate::workload::wakeprobe_bin(),
        record: match &a.record_traces {
            Some(d) => Some(record_dir(d, &scheds)?),
            None => None,
        },
    };
    plan.check_wakeprobe()?;
    let meta = Meta {
        title,
        command: meta::command(),
        commit: meta::COMMIT.to_string(),
        platform: platform(a.host, &topo_text),
        topology: topo_text,
        reps,
        published: published.as_ref().map(|p| p.0.clone()),
        scaling: published.as_ref().map(|p| p.1.clone()),
        arbor_bin: std::env::var_os("SCX_ARBOR_BIN").map(|b| b.to_string_lossy().to_string()),
        partial: false,
        shard: None,
        extra: BTreeMap::new(),
    };
    run(&plan, meta, topo.as_ref(), &a)
}

/// The --record-traces directory, created and absolute (the guest runs in
/// another working directory); refused when no scheduler is EEVDF, whose
/// runs are the ones recorded.
fn record_dir(d: &Path, scheds: &[SchedSpec]) -> Result<PathBuf> {
    if !scheds.iter().any(|s| s.label.starts_with("eevdf")) {
        bail!("--record-traces records the runs under eevdf: add -s eevdf");
    }
    fs::create_dir_all(d).with_context(|| format!("--record-traces: creating {}", d.display()))?;
    let d = d
        .canonicalize()
        .with_context(|| format!("--record-traces: {}", d.display()))?;
    if d.to_string_lossy().contains(['=', ',']) {
        bail!(
            "--record-traces {}: the VM runner cannot share a path holding '=' or ','",
            d.display()
        );
    }
    Ok(d)
}

fn install_peers(scheds: &[SchedSpec]) -> Result<()> {
    let peers: Vec<&str> = scheds
        .iter()
        .filter_map(|s| match &s.sched {
            Sched::Peer { name } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    if peers.is_empty() {
        return Ok(());
    }
    let st = Command::new("bash")
        .arg(repo().join("scripts/install-peers.sh"))
        .args(&peers)
        .status()
        .context("running scripts/install-peers.sh")?;
    if !st.success() {
        bail!("a peer scheduler failed to build (see the lines above); nothing was run");
    }
    Ok(())
}

fn stamp() -> String {
    Command::new("date")
        .arg("+%Y%m%d-%H%M%S")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| std::process::id().to_string())
}

/// The metric infos of a run's rows, from its typed workloads.
fn infos(plan: &GuestPlan, rows: &[Row]) -> BTreeMap<String, MetricInfo> {
    let mut m = BTreeMap::new();
    for r in rows {
        if m.contains_key(&r.metric) {
            continue;
        }
        let info = plan
            .workloads
            .iter()
            .find(|w| w.label == r.workload)
            .and_then(|w| w.info(&r.metric))
            .or_else(|| metric::common(&r.metric));
        if let Some(i) = info {
            m.insert(r.metric.clone(), i);
        }
    }
    m
}

fn entries(plan: &GuestPlan) -> Vec<WorkloadEntry> {
    plan.workloads
        .iter()
        .map(|w| WorkloadEntry {
            workload: w.label.clone(),
            primary: w.primary().to_string(),
        })
        .collect()
}

/// Cells of the plan with no result (failed, or ejected in a run).
fn missing(plan: &GuestPlan, rep: &Report) -> Vec<String> {
    let mut v = Vec::new();
    for w in &plan.workloads {
        for s in &plan.scheds {
            let c = rep
                .cells
                .get(&(w.label.clone(), w.primary().to_string(), s.label.clone()));
            if c.is_none_or(|c| c.n == 0 || c.ejected > 0) {
                v.push(format!("{} under {}", w.label, s.label));
            }
        }
    }
    v
}

/// Runs the plan's guest side in the VM, or natively; every line goes to
/// `on_line`. The exit code, or why it stopped.
fn execute(
    plan_path: &Path,
    topo: Option<&vm::VmTopology>,
    record: Option<&Path>,
    on_line: &mut dyn FnMut(&str),
) -> Result<i32> {
    let exe = std::env::current_exe().context("finding the arbor binary")?;
    match topo {
        Some(t) => {
            let cmd = format!(
                "{} bench guest {}",
                vm::shell_quote(&exe.to_string_lossy()),
                vm::shell_quote(&plan_path.to_string_lossy())
            );
            let rw: Vec<PathBuf> = record.into_iter().map(Path::to_path_buf).collect();
            vm::run_with_rw(t, None, &cmd, Some(VM_LIMIT), Some(on_line), &rw)
        }
        None => {
            let mut child = Command::new(&exe)
                .args(["bench", "guest"])
                .arg(plan_path)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .spawn()
                .context("starting the bench runner")?;
            let out = child.stdout.take().context("the runner's stdout")?;
            for line in BufReader::new(out).lines() {
                on_line(&line?);
            }
            let st = child.wait()?;
            Ok(st.code().unwrap_or(128 + 9))
        }
    }
}

fn run(plan: &GuestPlan, meta: Meta, topo: Option<&vm::VmTopology>, a: &BenchArgs) -> Result<i32> {
    let mut dir = RunDir::create(
        a.out.as_deref(),
        &repo().join("target/bench"),
        &stamp(),
        a.force,
    )?;
    let plan_path = dir.write_plan(plan, &meta)?;
    let total = plan.runs();
    eprintln!(
        "arbor bench: {} on {}: {} schedulers x {} workloads x {} reps = {} runs; results kept in {}",
        meta.title,
        meta.topology,
        plan.scheds.len(),
        plan.workloads.len(),
        plan.reps,
        total,
        dir.partial.display()
    );
    let mut rows: Vec<Row> = Vec::new();
    let mut log = fs::File::create(dir.partial.join("guest.log"))?;
    let mut err: Option<anyhow::Error> = None;
    let mut done = 0usize;
    let mut finished = false;
    let res = {
        let mut on_line = |line: &str| {
            let _ = writeln!(log, "{line}");
            if let Some(p) = line.strip_prefix("@P ") {
                if p.starts_with("done ") {
                    done += 1;
                }
                finished |= p == "finished";
                eprintln!("[{done}/{total}] {p}");
            } else if let Some(j) = line.strip_prefix("@R ") {
                match serde_json::from_str::<Row>(j) {
                    Ok(r) => {
                        if let Err(e) = dir.append(&r) {
                            err.get_or_insert(e);
                        }
                        rows.push(r);
                    }
                    Err(e) => {
                        err.get_or_insert(anyhow::anyhow!(
                            "a malformed result line from the guest: {line:?}: {e}"
                        ));
                    }
                }
            } else if line.starts_with("arbor: error:") {
                // the guest side's own one-line error
                eprintln!("{line}");
            }
        };
        execute(&plan_path, topo, plan.record.as_deref(), &mut on_line)
    };
    let failure = match (&res, err) {
        (_, Some(e)) => Some(e),
        (Err(e), None) => Some(anyhow::anyhow!("{e:#}")),
        (Ok(0), None) if finished => None,
        (Ok(code), None) => Some(anyhow::anyhow!(
            "the guest run failed (exit {code}); its log is {}",
            dir.partial.join("guest.log").display()
        )),
    };
    if let Some(e) = failure {
        // keep what was measured: a report of the finished cells, in DIR.partial
        let mut meta = meta;
        meta.partial = true;
        if !rows.is_empty() {
            let _ = write_report(&dir.partial, plan, &rows, &meta, a.no_charts);
        }
        eprintln!(
            "arbor bench: {} result rows kept in {} (`arbor bench render {}` rebuilds its report)",
            rows.len(),
            dir.partial.display(),
            dir.partial.display()
        );
        return Err(e);
    }
    let (rep, md) = write_report(&dir.partial, plan, &rows, &meta, a.no_charts)?;
    let out = dir.finish()?;
    if a.brief {
        println!("{}\n{}", rep.headline(), rep.significant_line());
    } else {
        println!("{md}");
    }
    eprintln!("arbor bench: report in {}", out.display());
    // every cell must hold a result: a failed cell or an ejection fails the run
    let missing = missing(plan, &rep);
    if !missing.is_empty() {
        eprintln!(
            "arbor bench: no result (failed or ejected) for: {}; the report holds the rest",
            missing.join("; ")
        );
        return Ok(1);
    }
    Ok(0)
}

/// Writes report.md, results.json, results.csv and the charts of one run
/// into `dir`; returns the aggregate and the markdown.
fn write_report(
    dir: &Path,
    plan: &GuestPlan,
    rows: &[Row],
    meta: &Meta,
    no_charts: bool,
) -> Result<(Report, String)> {
    let scheds: Vec<String> = plan.scheds.iter().map(|s| s.label.clone()).collect();
    let rep = Report::build(rows, &scheds, &entries(plan), &infos(plan, rows));
    let mut md = format!("# {}\n\n", meta.title);
    if meta.partial {
        let _ = writeln!(
            md,
            "**PARTIAL: the run stopped before its plan was done; these are the {} rows it kept.**\n",
            rows.len()
        );
    }
    md += &format!(
        "- command: `{}`\n- commit: `{}`\n- platform: {}\n- {} repetitions interleaved across schedulers\n",
        meta.command, meta.commit, meta.platform, meta.reps
    );
    if let Some(bin) = &meta.arbor_bin {
        md += &format!("- scx_arbor binary: `{bin}` (SCX_ARBOR_BIN)\n");
    }
    if let Some(p) = &meta.published {
        md += &format!("- **the seed's published result:** {p}\n");
        if let Some(s) = &meta.scaling {
            md += &format!("- scaled to the VM: {s}\n");
        }
    }
    md += "- workloads run as:";
    for w in &plan.workloads {
        let _ = write!(md, " `{}` = `{}`;", w.label, w.command());
    }
    md += "\n\n";
    md += &rep.markdown();
    fs::write(dir.join(summary::RESULTS), rep.json(rows, meta)?)?;
    summary::write_beside(dir)?;
    fs::write(dir.join("results.csv"), Report::csv(rows))?;
    if !no_charts {
        match charts(dir) {
            Ok(n) => md += &format!("\nCharts: {n} PNG files in `charts/`.\n"),
            Err(e) => eprintln!("arbor bench: warning: no charts: {e:#}"),
        }
    }
    fs::write(dir.join("report.md"), &md)?;
    Ok((rep, md))
}

/// `arbor bench render DIR`: rebuild a run's report: a finished run's from
/// its plan and results.json rows, an interrupted one's (DIR.partial) from
/// the rows it kept.
fn render(dir: &Path, no_charts: bool) -> Result<i32> {
    if !(dir.join(store::ROWS).exists() && dir.join(store::PLAN).exists()) {
        // a results.json alone (e.g. kept from an older run)
        let r = Results::read(&dir.join("results.json"))?;
        return render_results(dir, &r, no_charts);
    }
    let (plan, mut meta, rows) = store::load(dir)?;
    if rows.is_empty() {
        bail!("{}: no results to render", dir.display());
    }
    meta.partial |= dir.to_string_lossy().ends_with(".partial");
    let (_, md) = write_report(dir, &plan, &rows, &meta, no_charts)?;
    println!("{md}");
    Ok(0)
}

/// Re-renders from results.json alone (no plan): its own metric infos.
fn render_results(dir: &Path, r: &Results, no_charts: bool) -> Result<i32> {
    if r.schedulers.is_empty() || r.workloads.is_empty() || r.raw.is_empty() {
        bail!(
            "{}: no results to render",
            dir.join("results.json").display()
        );
    }
    let rep = Report::build(&r.raw, &r.schedulers, &r.workloads, &r.metrics);
    let mut md = format!("# {}\n\n", r.meta.title);
    md += &format!(
        "- command: `{}`\n- commit: `{}`\n- platform: {}\n\n",
        r.meta.command, r.meta.commit, r.meta.platform
    );
    md += &rep.markdown();
    fs::write(dir.join(summary::RESULTS), rep.json(&r.raw, &r.meta)?)?;
    summary::write_beside(dir)?;
    fs::write(dir.join("results.csv"), Report::csv(&r.raw))?;
    if !no_charts {
        if let Err(e) = charts(dir) {
            eprintln!("arbor bench: warning: no charts: {e:#}");
        }
    }
    fs::write(dir.join("report.md"), &md)?;
    println!("{md}");
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names bench checks `arbor:...:FEAT` against are the scheduler's
    /// own, so `arbor:stock:FEATURE` (the header word of --list-features)
    /// is refused on the host, not in the guest.
    #[test]
    fn feature_names_are_the_schedulers_own() {
        assert!(spec::SchedSpec::parse("arbor:stock:WA_IDLE,STEAL").is_ok());
        let e = spec::SchedSpec::parse("arbor:stock:FEATURE");
        assert!(e.is_err());
    }

    /// Every seed's VM experiment runs as given: its topology, schedulers
    /// and workloads parse.
    #[test]
    fn every_seed_experiment_is_valid() {
        for e in seeds::bench::all() {
            vm::VmTopology::parse(e.topology).unwrap();
            for s in e.scheds {
                SchedSpec::parse(s).unwrap();
            }
            for w in e.workloads {
                Workload::parse(w, 4).unwrap();
            }
        }
    }

    #[test]
    fn the_platform_line_says_what_a_vm_can_prove() {
        assert!(platform(false, "1s2c2t").contains("no parallelism"));
        assert!(platform(true, "").starts_with("this host, natively"));
    }
}
