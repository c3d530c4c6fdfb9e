//! `arbor sim`: scx_arbor's own BPF code on a simulated machine (the
//! arbor_sim crate), with the same scheduler and workload names as
//! `arbor bench`, and the same report (bench/report.rs).

use std::io::{BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{bail, Context, Result};
use arbor_sim::core::Config;
use arbor_sim::cost::{CostModel, PARAMS};
use arbor_sim::machine::Machine;
use arbor_sim::run::{simulate, Outcome, RunSpec};
use arbor_sim::sched::SchedSpec;
use arbor_sim::{presets, snapshot, workload};
use clap::{Args, Subcommand};
use scx_arbor::knobs::Knobs;
use serde::{Deserialize, Serialize};

use crate::bench::report::{Report, Row};

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SimArgs {
    #[command(subcommand)]
    cmd: Option<SimCmd>,
    /// Machine preset (see --list) [default: x86-12].
    #[arg(short, long)]
    topology: Option<String>,
    /// Your own machine: a directory written by `arbor sim snapshot`, or a
    /// sysfs root such as /sys (instead of -t).
    #[arg(long, value_name = "DIR")]
    topology_from: Option<PathBuf>,
    /// Scheduler, repeatable: arbor[:PROFILE][:FEAT,...], e.g. arbor:stock, arbor:seeds:NO_STEAL.
    #[arg(short, long = "sched")]
    scheds: Vec<String>,
    /// Workload, repeatable, e.g. hackbench:g=4,l=1000 (see --list).
    #[arg(short, long = "workload")]
    workloads: Vec<String>,
    /// Runs per (scheduler, workload), each with its own seed, in parallel.
    #[arg(short, long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    reps: u32,
    /// The first run's seed; run k uses seed + k.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Scheduler tick frequency.
    #[arg(long, default_value_t = 1000)]
    hz: u32,
    /// Stop each run after this much simulated time (s).
    #[arg(long, default_value_t = 60.0)]
    time_limit: f64,
    /// Override a cost-model parameter, NAME=VALUE (see --list).
    #[arg(long = "cost", value_name = "NAME=VALUE")]
    costs: Vec<String>,
    /// Write a trace of the first run that ui.perfetto.dev opens.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Write report.md, results.json, results.csv and charts/ here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Skip the PNG charts (with --out).
    #[arg(long)]
    no_charts: bool,
    /// List presets, workloads and cost parameters, then exit.
    #[arg(long)]
    list: bool,
    #[command(flatten)]
    knobs: Knobs,
    /// Internal: run only job N of this command's list and print its
    /// outcome as JSON (how -r N runs its jobs in parallel processes).
    #[arg(long, hide = true)]
    job: Option<usize>,
}

/// What a job's process sends back: its Outcome, minus the trace (which
/// the job with --trace writes itself).
#[derive(Serialize, Deserialize)]
struct JobOut {
    stop: String,
    ok: bool,
    ejected: bool,
    sim_ns: u64,
    events: u64,
    callbacks: u64,
    state_changes: u64,
    queue_events: u64,
    cpu_s: f64,
    /// (name, value), the workload's primary metric first
    metrics: Vec<(String, f64)>,
    counters: Vec<(String, u64)>,
}

impl From<&Outcome> for JobOut {
    fn from(o: &Outcome) -> JobOut {
        JobOut {
            stop: o.stop.clone(),
            ok: o.ok,
            ejected: o.ejected,
            sim_ns: o.sim_ns,
            events: o.events,
            callbacks: o.callbacks,
            state_changes: o.state_changes,
            queue_events: o.queue_events,
            cpu_s: o.cpu_s,
            metrics: o
                .metrics
                .iter()
                .map(|m| (m.name.clone(), m.value))
                .collect(),
            counters: o.counters.clone(),
        }
    }
}

/// A job's process reports its simulated time on stderr with this prefix.
const PROGRESS: &str = "@progress ";

#[derive(Debug, Subcommand)]
enum SimCmd {
    /// Copy this machine's CPU topology, caches, capacities, idle states and
    /// NUMA distances from /sys into OUT, for --topology-from OUT.
    Snapshot {
        /// A new (or empty) directory.
        out: PathBuf,
    },
}

fn list() {
    println!("Machine presets (-t), or --topology-from DIR for your own (arbor sim snapshot DIR):");
    for p in presets::all() {
        let m = (p.build)();
        println!("  {:<10} {:>4} CPUs  {}", p.name, m.nr_cpus(), p.about);
    }
    println!("\nWorkloads (-w): {}", workload::spec::WORKLOADS);
    println!("\nSchedulers (-s): arbor[:PROFILE][:[NO_]FEAT,...], profiles default, stock, seeds");
    println!("\nCost parameters (--cost NAME=VALUE), defaults from docs/sim/cost-model.md:");
    let d = CostModel::default();
    let v = serde_json::to_value(&d).unwrap_or_default();
    for (name, what, _src) in PARAMS {
        println!(
            "  {name:<16} {:>8}  {what}",
            v.get(*name).map(|x| x.to_string()).unwrap_or_default()
        );
    }
}

struct Job {
    sched: usize,
    workload: usize,
    rep: u32,
}

pub fn main(a: SimArgs) -> Result<i32> {
    if let Some(SimCmd::Snapshot { out }) = &a.cmd {
        let t = snapshot::take(Path::new("/sys"), out)?;
        eprintln!(
            "arbor sim: {} files of '{}' ({} CPUs) in {}; model it with: arbor sim --topology-from {}",
            t.files,
            t.hostname,
            t.cpus,
            out.display(),
            out.display()
        );
        return Ok(0);
    }
    if a.list {
        list();
        return Ok(0);
    }
    if !(a.time_limit.is_finite() && a.time_limit > 0.0 && a.time_limit <= 86_400.0) {
        bail!("--time-limit must be a number of seconds in (0, 86400]");
    }
    // checked here, not by clap, for a one-line error
    let mut machine: Machine = match (&a.topology_from, &a.topology) {
        (Some(_), Some(_)) => bail!("-t and --topology-from exclude each other: give one machine"),
        (Some(dir), None) => {
            let s = snapshot::read(dir)?;
            eprintln!("{}", s.assumed);
            s.machine
        }
        (None, t) => presets::find(t.as_deref().unwrap_or("x86-12"))?,
    };
    if let Some(spec) = &a.knobs.cpu_capacity {
        let mut topo = machine.topo()?;
        topo.override_capacity(spec)?;
        for c in machine.cpus.iter_mut() {
            if let Some(Some(info)) = topo.cpus.get(c.id) {
                c.capacity = info.capacity;
            }
        }
    }
    machine.validate()?;
    let mut cost = CostModel::default();
    for c in &a.costs {
        cost.set(c)?;
    }
    let sched_names = if a.scheds.is_empty() {
        vec!["arbor:stock".into(), "arbor:default".into()]
    } else {
        a.scheds.clone()
    };
    let scheds: Vec<SchedSpec> = sched_names
        .iter()
        .map(|s| SchedSpec::parse(s))
        .collect::<Result<_>>()?;
    let wl_names = if a.workloads.is_empty() {
        vec!["hackbench".to_string()]
    } else {
        a.workloads.clone()
    };
    // check every workload spec before running anything
    for w in &wl_names {
        workload::spec::parse(w, machine.nr_cpus(), a.seed)?;
    }
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let cfg = Config {
        hz: a.hz,
        time_limit: (a.time_limit * 1e9) as u64,
        trace: false,
        ..Config::default()
    };
    cfg.validate()?;

    let mut jobs = Vec::new();
    for (wi, _) in wl_names.iter().enumerate() {
        for rep in 0..a.reps {
            for (si, _) in scheds.iter().enumerate() {
                jobs.push(Job {
                    sched: si,
                    workload: wi,
                    rep,
                });
            }
        }
    }
    let total = jobs.len();
    if let Some(i) = a.job {
        return run_job(&a, &jobs, i, &machine, &cost, &cfg, &scheds, &wl_names);
    }
    let tty = std::io::stderr().is_terminal();
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(total)
        .max(1);
    let results: Vec<std::sync::Mutex<Option<Result<JobOut>>>> =
        (0..total).map(|_| std::sync::Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let wall = std::time::Instant::now();
    let limit = cfg.time_limit;
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= total {
                    break;
                }
                let r = spawn_job(i, |now| {
                    if tty {
                        let d = done.load(Ordering::SeqCst);
                        eprint!("\rarbor sim: {d}/{total} runs done; run {} at {:.2}/{:.0} s simulated   ", i + 1, now as f64 / 1e9, limit as f64 / 1e9);
                    }
                });
                *results[i].lock().unwrap() = Some(r);
                done.fetch_add(1, Ordering::SeqCst);
            });
        }
    });
    if tty {
        eprintln!(
            "\rarbor sim: {total}/{total} runs done in {:.1} s{}",
            wall.elapsed().as_secs_f64(),
            " ".repeat(40)
        );
    }

    let mut rows = Vec::new();
    let mut failed = Vec::new();
    let mut events = 0u64;
    let mut cpu_s = 0.0f64;
    let mut outcomes = Vec::new();
    for (i, r) in results.into_iter().enumerate() {
        let j = &jobs[i];
        let o = r.into_inner().unwrap().expect("every job ran")?;
        let sched = scheds[j.sched].label.clone();
        let wl = wl_names[j.workload].clone();
        events += o.events;
        cpu_s += o.cpu_s;
        if !o.ok {
            failed.push(format!(
                "{sched} on {wl} (seed {}): {}",
                a.seed + j.rep as u64,
                o.stop
            ));
        }
        rows.push(Row {
            rep: j.rep,
            sched: sched.clone(),
            workload: wl.clone(),
            metric: "ejected".into(),
            value: if o.ejected { 1.0 } else { 0.0 },
        });
        for (name, value) in &o.metrics {
            rows.push(Row {
                rep: j.rep,
                sched: sched.clone(),
                workload: wl.clone(),
                metric: name.clone(),
                value: *value,
            });
        }
        for (k, v) in &o.counters {
            rows.push(Row {
                rep: j.rep,
                sched: sched.clone(),
                workload: wl.clone(),
                metric: format!("c:{k}"),
                value: *v as f64,
            });
        }
        outcomes.push((sched, wl, j.rep, o));
    }
    let primary: Vec<(String, String)> = wl_names
        .iter()
        .map(|w| {
            // the workload's declared headline metric (bench's), else its first
            let first = workload::spec::primary_metric(w)
                .map(String::from)
                .or_else(|| {
                    outcomes
                        .iter()
                        .find(|o| &o.1 == w)
                        .and_then(|o| o.3.metrics.first())
                        .map(|m| m.0.clone())
                })
                .unwrap_or_default();
            (w.clone(), first)
        })
        .collect();
    let report = Report::build(&rows, &sched_names, &primary);
    let title = format!(
        "# arbor sim: {} ({} CPUs), {} run(s) per cell, seeds {}..{}\n\nSimulated (not measured): scx_arbor's BPF code compiled natively, on the `{}` model. The VM shows function; the simulator shows placement.\n\n",
        machine.name,
        machine.nr_cpus(),
        a.reps,
        a.seed,
        a.seed + a.reps as u64 - 1,
        machine.name
    );
    let md = format!("{title}{}", report.markdown());
    println!("{md}");
    if let Some(dir) = &a.out {
        let meta = serde_json::json!({
            "topology": format!("sim: {}", machine.name),
            "machine": machine, "cost": cost, "hz": a.hz, "time_limit_s": a.time_limit,
            "seed": a.seed, "reps": a.reps, "knobs": format!("{:?}", a.knobs),
            "runs": outcomes.iter().map(|(s, w, r, o)| serde_json::json!({
                "scheduler": s, "workload": w, "rep": r, "stop": o.stop,
                "sim_ns": o.sim_ns, "events": o.events, "callbacks": o.callbacks,
                "state_changes": o.state_changes, "queue_events": o.queue_events})).collect::<Vec<_>>(),
        });
        std::fs::write(dir.join("report.md"), &md)?;
        std::fs::write(dir.join("results.json"), report.json(&rows, &meta)?)?;
        std::fs::write(dir.join("results.csv"), Report::csv(&rows))?;
        if !a.no_charts {
            // bench's charts, from the same results.json
            match crate::bench::charts(dir) {
                Ok(n) => eprintln!("arbor sim: {n} charts in {}", dir.join("charts").display()),
                Err(e) => eprintln!("arbor sim: warning: no charts: {e:#}"),
            }
        }
        eprintln!("arbor sim: report in {}", dir.display());
    }
    let secs = wall.elapsed().as_secs_f64();
    eprintln!(
        "arbor sim: {events} events (callbacks + task state changes) in {cpu_s:.2} s of CPU, {secs:.2} s wall over {workers} thread(s): {:.2} M events/s per core",
        events as f64 / cpu_s.max(1e-9) / 1e6
    );
    if !failed.is_empty() {
        for f in &failed {
            eprintln!("arbor sim: {f}");
        }
        return Ok(1);
    }
    Ok(0)
}

/// Runs job `i` of this same command in a child process (`--job i`),
/// passing its progress lines to `progress`; returns what it printed.
fn spawn_job(i: usize, mut progress: impl FnMut(u64)) -> Result<JobOut> {
    let exe = std::env::current_exe().context("finding the arbor binary")?;
    let mut child = Command::new(exe)
        .args(std::env::args_os().skip(1))
        .arg("--job")
        .arg(i.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting a simulation process")?;
    let stdout = child.stdout.take().context("the job's stdout")?;
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let mut r = BufReader::new(stdout);
        r.read_to_string(&mut s).map(|_| s)
    });
    let mut errors = Vec::new();
    if let Some(err) = child.stderr.take() {
        for line in BufReader::new(err).lines() {
            let line = line.context("reading a job's stderr")?;
            match line.strip_prefix(PROGRESS).and_then(|n| n.parse().ok()) {
                Some(ns) => progress(ns),
                None => errors.push(line),
            }
        }
    }
    let status = child.wait().context("waiting for a simulation process")?;
    let text = out
        .join()
        .map_err(|_| anyhow::anyhow!("reading a job's output"))?
        .context("reading a job's output")?;
    if !status.success() {
        let why = errors
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .cloned()
            .unwrap_or_else(|| format!("the simulation process failed ({status})"));
        bail!("{}", why.trim_start_matches("arbor: error: "));
    }
    serde_json::from_str(&text).context("a simulation process printed no result")
}

/// The body of `--job i`: one run, its outcome as JSON on stdout, its
/// progress on stderr, and the trace if it is the first job.
#[allow(clippy::too_many_arguments)]
fn run_job(
    a: &SimArgs,
    jobs: &[Job],
    i: usize,
    machine: &Machine,
    cost: &CostModel,
    cfg: &Config,
    scheds: &[SchedSpec],
    wl_names: &[String],
) -> Result<i32> {
    let j = jobs
        .get(i)
        .with_context(|| format!("--job {i}: this command has {} jobs", jobs.len()))?;
    let mut c = cfg.clone();
    c.trace = i == 0 && a.trace.is_some();
    let spec = RunSpec {
        machine,
        cost,
        cfg: c,
        sched: &scheds[j.sched],
        knobs: &a.knobs,
        workload: &wl_names[j.workload],
        seed: a.seed + j.rep as u64,
    };
    // a CPU's schedule() may run a chain of tasks that block at once: give
    // the simulation a deep stack
    let o = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn_scoped(s, || simulate(&spec, |now| eprintln!("{PROGRESS}{now}")))
            .context("starting the simulation thread")?
            .join()
            .map_err(|_| anyhow::anyhow!("the simulation panicked"))?
    })?;
    if let (0, Some(path)) = (i, &a.trace) {
        write_trace(path, &o, machine)?;
    }
    println!("{}", serde_json::to_string(&JobOut::from(&o))?);
    Ok(0)
}

/// Chrome trace-event JSON (ui.perfetto.dev opens it): a track per CPU, a
/// slice per task run.
fn write_trace(path: &Path, o: &Outcome, m: &Machine) -> Result<()> {
    let mut f = std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
    );
    write!(f, "{{\"displayTimeUnit\":\"ns\",\"traceEvents\":[")?;
    let mut first = true;
    for c in 0..m.nr_cpus() {
        if !first {
            write!(f, ",")?;
        }
        first = false;
        write!(f, "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":{c},\"args\":{{\"name\":\"CPU {c}\"}}}}")?;
    }
    for (cpu, name, start, dur) in &o.trace {
        write!(
            f,
            ",{{\"ph\":\"X\",\"pid\":1,\"tid\":{cpu},\"name\":{},\"ts\":{:.3},\"dur\":{:.3}}}",
            serde_json::to_string(name)?,
            *start as f64 / 1e3,
            *dur as f64 / 1e3
        )?;
    }
    writeln!(f, "]}}")?;
    Ok(())
}
