//! `arbor sim`: scx_arbor's and the peers' own BPF code on a simulated machine (the
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

use crate::bench::metric::{self, Kind, MetricInfo};
use crate::bench::report::{Meta, Report, Row, WorkloadEntry};

mod calibrate;
mod fuzz;
mod reproduce;
mod validate;
mod verdict;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, allow_negative_numbers = true)]
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
    /// Scheduler, repeatable: arbor[:PROFILE][:FEAT,...][:KNOB=VALUE,...], e.g. arbor:stock, arbor:seeds:NO_STEAL, arbor:stock:WA_THROTTLE:wake-affine-interval-ms=10; or a peer from its own BPF source, with its loader's defaults: bpfland, cosmos, lavd, p2dq, rusty (rusty without its user-space load balancer and tuner; lavd with its tasks in the root cgroup and its futex tracing never firing: docs/sim/arena.md).
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
    /// sched_ext's watchdog timeout in ms: a runnable task that waits
    /// longer ejects the scheduler (the kernel's default: 30000).
    #[arg(long, default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    watchdog_ms: u64,
    /// Run every instruction K times slower with the clock unchanged (work,
    /// software costs and cache refills stretch; ticks, timers and sleeps do
    /// not): how a QEMU TCG guest runs; 1 is the machine itself.
    #[arg(long, default_value_t = 1.0, value_name = "K")]
    slowdown: f64,
    /// All CPUs take turns on one host thread, as in a QEMU TCG guest: busy
    /// CPUs share one CPU's speed; no SMT, cache-refill or idle-exit costs.
    #[arg(long)]
    one_host_thread: bool,
    /// CPU hotplug during each run: events off:CPU@TIME or on:CPU@TIME,
    /// comma-separated, TIME with a unit (ns, us, ms, s), e.g.
    /// off:3@100ms,on:3@300ms. A CPU goes offline with its tasks moved
    /// away; a scheduler without ops.cpu_online/cpu_offline exits asking
    /// for a restart and is loaded again, as its loader does
    /// (docs/sim/ext-semantics.md, "CPU hotplug").
    #[arg(long, value_name = "EVENTS")]
    hotplug: Option<String>,
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
pub struct JobOut {
    pub stop: String,
    pub ok: bool,
    pub ejected: bool,
    pub sim_ns: u64,
    pub events: u64,
    pub callbacks: u64,
    pub state_changes: u64,
    pub queue_events: u64,
    pub cpu_s: f64,
    /// (name, value), the workload's primary metric first
    pub metrics: Vec<(String, f64)>,
    /// each metric's (unit, higher is better), as the workload declared it
    #[serde(default)]
    pub units: Vec<(String, String, bool)>,
    pub counters: Vec<(String, u64)>,
    /// per BPF op: (name, calls, ns charged), as bench's `bpf:OP`
    #[serde(default)]
    pub bpf_ops: Vec<(String, u64, f64)>,
    /// the scheduler's restarts at the kernel's request (CPU hotplug):
    /// (simulated ns, the exit's message)
    #[serde(default)]
    pub restarts: Vec<(u64, String)>,
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
            units: o
                .metrics
                .iter()
                .map(|m| (m.name.clone(), m.unit.to_string(), m.higher_is_better))
                .collect(),
            counters: o.counters.clone(),
            bpf_ops: o.bpf_ops.clone(),
            restarts: o
                .restarts
                .iter()
                .map(|r| (r.at_ns, r.why.clone()))
                .collect(),
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
    /// Re-run a seed's experiment on its own machine (preset), its sweep,
    /// baseline vs mechanism, beside the seed's published numbers.
    Reproduce(reproduce::ReproArgs),
    /// Check the simulator against this machine: a small suite run natively
    /// under the host's own scheduler, the host's costs measured, and the
    /// same suite simulated on its snapshot under arbor:stock (by model and
    /// by a trace recorded here), real against simulated with spreads.
    Calibrate(calibrate::CalibrateArgs),
    /// Search random machines x workloads x schedulers for ejections,
    /// invariant failures and crashes; each failure as a one-line
    /// reproducer and a minimised one. Exits 1 if scx_arbor failed.
    Fuzz(fuzz::FuzzArgs),
    /// What a perf.data trace holds, before replaying it with -w
    /// trace:FILE: the recording machine, each process's threads, CPU
    /// time, wake-ups and blocks by kind, and what a replay keeps and drops.
    TraceInfo {
        /// FILE[,KEY=VALUE...]: the keys of -w trace: (comm=, pid=, all=1, from=, to=, ...).
        spec: String,
    },
    /// Check the simulator against the VM: the same schedulers and
    /// workloads in an arbor vm guest and in the simulator, compared on
    /// counter ratios that do not depend on timing.
    Validate(validate::ValidateArgs),
    /// Issue 24's bar from results.json: per workload, the candidate
    /// (arbor:default) against the best peer and the baseline
    /// (arbor:stock), Welch's 95% interval; "best", "tied" or "LOSES", and
    /// "worse than" the baseline. --require PCT exits 1 below the bar.
    Verdict(verdict::VerdictArgs),
}

fn list() {
    println!("Machine presets (-t), or --topology-from DIR for your own (arbor sim snapshot DIR):");
    for p in presets::all() {
        let m = (p.build)();
        println!("  {:<10} {:>4} CPUs  {}", p.name, m.nr_cpus(), p.about);
    }
    println!("\nWorkloads (-w): {}", workload::spec::WORKLOADS);
    println!("\nSchedulers (-s): arbor[:PROFILE][:[NO_]FEAT,...][:KNOB=VALUE,...], profiles default, stock, seeds; knobs are scx_arbor's long options");
    println!(
        "  peers, from their own BPF source with their loaders' defaults: {}",
        arbor_sim::sched::peers::Peer::names().join(", ")
    );
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
    plan: usize,
    sched: usize,
    workload: usize,
    rep: u32,
}

/// What to simulate on one machine: every (scheduler, workload, run).
/// `arbor sim` makes one plan from its options; `arbor sim reproduce` one
/// per table of the seed.
pub struct Plan {
    pub machine: Machine,
    pub cost: CostModel,
    pub cfg: Config,
    pub knobs: Knobs,
    pub scheds: Vec<SchedSpec>,
    pub workloads: Vec<String>,
    pub reps: u32,
    pub seed: u64,
    /// write the trace of this plan's first run here
    pub trace: Option<PathBuf>,
}

impl Plan {
    /// Checks every scheduler and workload before anything runs.
    pub fn new(
        machine: Machine,
        cost: CostModel,
        cfg: Config,
        knobs: Knobs,
        scheds: &[String],
        workloads: &[String],
        reps: u32,
        seed: u64,
    ) -> Result<Plan> {
        machine.validate()?;
        cfg.validate()?;
        let scheds: Vec<SchedSpec> = scheds
            .iter()
            .map(|s| SchedSpec::parse(s).and_then(|sp| sp.knobs(&knobs).map(|_| sp)))
            .collect::<Result<_>>()?;
        for w in workloads {
            workload::spec::parse(w, machine.nr_cpus(), seed)?;
        }
        Ok(Plan {
            machine,
            cost,
            cfg,
            knobs,
            scheds,
            workloads: workloads.to_vec(),
            reps,
            seed,
            trace: None,
        })
    }
}

/// One finished run of a plan.
pub struct Done {
    pub plan: usize,
    pub sched: usize,
    pub workload: usize,
    pub rep: u32,
    pub out: JobOut,
}

fn jobs_of(plans: &[Plan]) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (pi, p) in plans.iter().enumerate() {
        for workload in 0..p.workloads.len() {
            for rep in 0..p.reps {
                for sched in 0..p.scheds.len() {
                    jobs.push(Job {
                        plan: pi,
                        sched,
                        workload,
                        rep,
                    });
                }
            }
        }
    }
    jobs
}

/// Runs every job of `plans`, each in its own child process (this same
/// command line with `--job i`), as many at once as there are cores. With
/// `job`, this process is that child: it runs job `job`, prints its
/// outcome and returns None.
pub fn execute(plans: &[Plan], job: Option<usize>) -> Result<Option<Vec<Done>>> {
    let jobs = jobs_of(plans);
    if let Some(i) = job {
        run_job(plans, &jobs, i)?;
        return Ok(None);
    }
    let total = jobs.len();
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
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= total {
                    break;
                }
                let limit = plans[jobs[i].plan].cfg.time_limit;
                let r = spawn_job(i, |now| {
                    if tty {
                        let d = done.load(Ordering::SeqCst);
                        eprint!("\rarbor sim: {d}/{total} runs done; run {} at {:.2}/{:.0} s simulated   ", i + 1, now as f64 / 1e9, limit as f64 / 1e9);
                    }
                });
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
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
    let mut out = Vec::with_capacity(total);
    for (j, r) in jobs.iter().zip(results) {
        let o = r
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .context("a simulation job did not run")??;
        out.push(Done {
            plan: j.plan,
            sched: j.sched,
            workload: j.workload,
            rep: j.rep,
            out: o,
        });
    }
    Ok(Some(out))
}

/// The report's rows of one plan's runs (bench's Row: one per metric and
/// counter), and the runs that did not finish cleanly.
pub fn rows_of(plan: &Plan, plan_idx: usize, done: &[Done]) -> (Vec<Row>, Vec<String>) {
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for d in done.iter().filter(|d| d.plan == plan_idx) {
        let o = &d.out;
        let sched = plan.scheds[d.sched].label.clone();
        let wl = plan.workloads[d.workload].clone();
        if !o.ok {
            failed.push(format!(
                "{sched} on {wl} (seed {}): {}",
                plan.seed + d.rep as u64,
                o.stop
            ));
        }
        let row = |metric: String, value: f64| Row {
            rep: d.rep,
            sched: sched.clone(),
            workload: wl.clone(),
            metric,
            value,
        };
        rows.push(row("ejected".into(), if o.ejected { 1.0 } else { 0.0 }));
        for (name, value) in &o.metrics {
            rows.push(row(name.clone(), *value));
        }
        for (k, v) in &o.counters {
            rows.push(row(format!("c:{k}"), *v as f64));
        }
        // what the cost model charged per call of each BPF op (the
        // callback's entry plus its helper and kfunc calls): bench's
        // bpf:OP, which a VM measures with the kernel's BPF run stats
        for (op, calls, ns) in &o.bpf_ops {
            if *calls > 0 {
                rows.push(row(format!("bpf:{op}"), ns / *calls as f64));
            }
        }
    }
    (rows, failed)
}

/// The simulator's figures around a run (not the workload's own result):
/// plain change in the report.
const SIM_SYSTEM: &[&str] = &[
    "rq_wait_us_per_wakeup",
    "idle_while_queued_pct",
    "mig_smt_per_kwake",
    "mig_llc_per_kwake",
    "mig_xllc_per_kwake",
    "mig_xnode_per_kwake",
    "bpf_ns_per_callback",
    "bpf_ns_per_wakeup",
];

/// Each metric's info as the simulated workload declared it.
pub fn infos_of(done: &[Done]) -> std::collections::BTreeMap<String, MetricInfo> {
    let mut m = std::collections::BTreeMap::new();
    for d in done {
        for (name, unit, hib) in &d.out.units {
            let kind = match metric::common(name) {
                Some(i) => i.kind,
                None if SIM_SYSTEM.contains(&name.as_str()) => Kind::System,
                None => Kind::Performance,
            };
            m.entry(name.clone()).or_insert(MetricInfo {
                unit: unit.clone(),
                higher_is_better: *hib,
                kind,
            });
        }
        let counters = d.out.counters.iter().map(|(k, _)| format!("c:{k}"));
        let ops = d.out.bpf_ops.iter().map(|(k, _, _)| format!("bpf:{k}"));
        for name in counters.chain(ops) {
            if let Some(i) = metric::counter(&name) {
                m.entry(name).or_insert(i);
            }
        }
    }
    m
}

/// "N events in X s of CPU ... M events/s per core", for every run.
fn speed_line(done: &[Done], wall: std::time::Instant) -> String {
    let events: u64 = done.iter().map(|d| d.out.events).sum();
    let cpu_s: f64 = done.iter().map(|d| d.out.cpu_s).sum();
    format!(
        "{events} events (callbacks + task state changes) in {cpu_s:.2} s of CPU, {:.2} s wall: {:.2} M events/s per core",
        wall.elapsed().as_secs_f64(),
        events as f64 / cpu_s.max(1e-9) / 1e6
    )
}

pub fn main(a: SimArgs) -> Result<i32> {
    match &a.cmd {
        Some(SimCmd::Snapshot { out }) => {
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
        Some(SimCmd::Reproduce(r)) => return reproduce::main(r),
        Some(SimCmd::Validate(v)) => return validate::main(v),
        Some(SimCmd::Calibrate(c)) => return calibrate::main(c),
        Some(SimCmd::Fuzz(f)) => return fuzz::main(f),
        Some(SimCmd::Verdict(v)) => return verdict::main(v),
        Some(SimCmd::TraceInfo { spec }) => {
            print!("{}", workload::trace::info::text(spec)?);
            return Ok(0);
        }
        None => {}
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
            if a.job.is_none() {
                eprintln!("{}", s.assumed);
            }
            s.machine
        }
        (None, t) => presets::find(t.as_deref().unwrap_or("x86-12"))?,
    };
    if let Some(spec) = &a.knobs.capacity.cpu_capacity {
        let mut topo = machine.topo()?;
        topo.override_capacity(spec)?;
        for c in machine.cpus.iter_mut() {
            if let Some(Some(info)) = topo.cpus.get(c.id) {
                c.capacity = info.capacity;
            }
        }
    }
    let mut cost = CostModel::default();
    for c in &a.costs {
        cost.set(c)?;
    }
    let sched_names: Vec<String> = if a.scheds.is_empty() {
        vec!["arbor:stock".into(), "arbor:default".into()]
    } else {
        a.scheds.clone()
    };
    let wl_names = if a.workloads.is_empty() {
        vec!["hackbench".to_string()]
    } else {
        a.workloads.clone()
    };
    let cfg = Config {
        hz: a.hz,
        time_limit: (a.time_limit * 1e9) as u64,
        watchdog_ns: a.watchdog_ms * 1_000_000,
        trace: false,
        slowdown: a.slowdown,
        one_host_thread: a.one_host_thread,
        hotplug: match &a.hotplug {
            Some(h) => arbor_sim::core::hotplug::parse(h)?,
            None => Vec::new(),
        },
        ..Config::default()
    };
    cfg.validate()?;
    arbor_sim::core::hotplug::check(&machine, &cfg.hotplug)?;
    let mut plan = Plan::new(
        machine,
        cost,
        cfg,
        a.knobs.clone(),
        &sched_names,
        &wl_names,
        a.reps,
        a.seed,
    )?;
    plan.trace = a.trace.clone();
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let wall = std::time::Instant::now();
    let plans = [plan];
    let Some(done) = execute(&plans, a.job)? else {
        return Ok(0);
    };
    let plan = &plans[0];
    let machine = &plan.machine;
    let (rows, failed) = rows_of(plan, 0, &done);
    let primary: Vec<WorkloadEntry> = wl_names
        .iter()
        .enumerate()
        .map(|(wi, w)| {
            // the workload's declared headline metric (bench's), else its first
            let first = workload::spec::primary_metric(w)
                .map(String::from)
                .or_else(|| {
                    done.iter()
                        .find(|d| d.workload == wi)
                        .and_then(|d| d.out.metrics.first())
                        .map(|m| m.0.clone())
                })
                .unwrap_or_default();
            WorkloadEntry {
                workload: w.clone(),
                primary: first,
            }
        })
        .collect();
    let report = Report::build(&rows, &sched_names, &primary, &infos_of(&done));
    let title = format!(
        "# arbor sim: {} ({} CPUs), {} run(s) per cell, seeds {}..{}\n\nSimulated (not measured): each scheduler's own BPF code (scx_arbor's, a peer's from its crate) compiled natively, on the `{}` model. The VM shows function; the simulator shows placement.\n\n",
        machine.name,
        machine.nr_cpus(),
        a.reps,
        a.seed,
        a.seed + a.reps as u64 - 1,
        machine.name
    );
    // what each replayed trace kept and dropped (issue 22)
    let mut replayed = String::new();
    for w in &wl_names {
        if let Some(args) = w.trim().strip_prefix("trace:") {
            // the trace's own spec, without a `+background` beside it
            let args = args.rfind("+background").map_or(args, |i| &args[..i]);
            let k = workload::trace::load(args)?;
            replayed.push_str(&format!(
                "Replayed, causally (not a copy of the recorded placement): {}\n\n",
                k.summary.text().replace('\n', "; ")
            ));
        }
    }
    // issue 24's verdict, when the run has arbor:default, arbor:stock and a peer
    let verdict = verdict::report_section(&report.results(&rows, &Meta::default()));
    let md = format!(
        "{title}{replayed}{}{}",
        report.markdown(),
        verdict.unwrap_or_default()
    );
    println!("{md}");
    if let Some(dir) = &a.out {
        let extra = serde_json::json!({
            "machine": machine, "cost": plan.cost, "hz": a.hz, "time_limit_s": a.time_limit, "slowdown": a.slowdown, "one_host_thread": a.one_host_thread,
            "seed": a.seed, "knobs": format!("{:?}", a.knobs),
            "runs": done.iter().map(|d| serde_json::json!({
                "scheduler": plan.scheds[d.sched].label, "workload": plan.workloads[d.workload],
                "rep": d.rep, "stop": d.out.stop, "restarts": d.out.restarts,
                "sim_ns": d.out.sim_ns, "events": d.out.events, "callbacks": d.out.callbacks,
                "state_changes": d.out.state_changes, "queue_events": d.out.queue_events})).collect::<Vec<_>>(),
        });
        let meta = Meta {
            // no command line: it names the output directory, and a
            // simulated results.json is the same for the same inputs
            title: format!("arbor sim: {}", machine.name),
            platform: format!("simulated: {} ({} CPUs)", machine.name, machine.nr_cpus()),
            topology: format!("sim: {}", machine.name),
            reps: a.reps,
            extra: serde_json::from_value(extra)?,
            ..Meta::default()
        };
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
    eprintln!("arbor sim: {}", speed_line(&done, wall));
    for d in &done {
        for (at, why) in &d.out.restarts {
            eprintln!(
                "arbor sim: {} on {} (seed {}): restarted at {:.3} ms as the kernel asked: {why}",
                plan.scheds[d.sched].label,
                plan.workloads[d.workload],
                plan.seed + d.rep as u64,
                *at as f64 / 1e6
            );
        }
    }
    if !failed.is_empty() {
        for f in &failed {
            eprintln!("arbor sim: {f}");
        }
        return Ok(1);
    }
    Ok(0)
}

/// This very binary, for its job processes: /proc/self/exe runs the image
/// we were started from even after `cargo build` replaced the file (its
/// path then reads "arbor (deleted)", and spawning that failed mid-run).
pub fn self_exe() -> Result<PathBuf> {
    let proc = Path::new("/proc/self/exe");
    if proc.exists() {
        return Ok(proc.to_path_buf());
    }
    std::env::current_exe().context("finding the arbor binary")
}

/// Runs job `i` of this same command in a child process (`--job i`),
/// passing its progress lines to `progress`; returns what it printed.
fn spawn_job(i: usize, mut progress: impl FnMut(u64)) -> Result<JobOut> {
    let mut child = Command::new(self_exe()?)
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
    let mut last_progress = 0u64;
    if let Some(err) = child.stderr.take() {
        for line in BufReader::new(err).lines() {
            let line = line.context("reading a job's stderr")?;
            match line.strip_prefix(PROGRESS).and_then(|n| n.parse().ok()) {
                Some(ns) => {
                    last_progress = ns;
                    progress(ns)
                }
                None => errors.push(line),
            }
        }
    }
    let status = child.wait().context("waiting for a simulation process")?;
    let text = out
        .join()
        .map_err(|_| anyhow::anyhow!("reading a job's output"))?
        .context("reading a job's output")?;
    if let Some(sig) = std::os::unix::process::ExitStatusExt::signal(&status) {
        // a crash prints nothing of its own: say where to look
        let name = match sig {
            libc::SIGSEGV => "SIGSEGV",
            libc::SIGBUS => "SIGBUS",
            libc::SIGFPE => "SIGFPE",
            libc::SIGILL => "SIGILL",
            libc::SIGABRT => "SIGABRT",
            libc::SIGKILL => "SIGKILL",
            _ => "",
        };
        let last = errors.iter().rev().find(|l| !l.trim().is_empty());
        bail!(
            "the simulation process died of signal {sig} {name} past simulated {:.0} ms{}: a \
             fault in native code (the simulator, its shim, or a scheduler's BPF C built \
             natively); to debug, rerun this command with `--job {i}` appended (one run, \
             in-process) under `ulimit -c unlimited` and open the core with gdb",
            last_progress as f64 / 1e6,
            last.map_or(String::new(), |l| format!(
                " (its last words: {})",
                l.trim()
            ))
        );
    }
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
/// progress on stderr, and the trace if it is its plan's first run.
fn run_job(plans: &[Plan], jobs: &[Job], i: usize) -> Result<()> {
    let j = jobs
        .get(i)
        .with_context(|| format!("--job {i}: this command has {} jobs", jobs.len()))?;
    let p = &plans[j.plan];
    let first = j.sched == 0 && j.workload == 0 && j.rep == 0;
    let trace = p.trace.as_ref().filter(|_| first);
    let mut c = p.cfg.clone();
    c.trace = trace.is_some();
    let spec = RunSpec {
        machine: &p.machine,
        cost: &p.cost,
        cfg: c,
        sched: &p.scheds[j.sched],
        knobs: &p.knobs,
        workload: &p.workloads[j.workload],
        seed: p.seed + j.rep as u64,
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
    if let Some(path) = trace {
        write_trace(path, &o, &p.machine)?;
    }
    println!("{}", serde_json::to_string(&JobOut::from(&o))?);
    Ok(())
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
