//! `arbor sim`: scx_arbor's and the peers' own BPF code on a simulated machine (the
//! arbor_sim crate), with the same scheduler and workload names as
//! `arbor bench`, and the same report (crate::report); running it is
//! crate::simrun's.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use arbor_sim::core::Config;
use arbor_sim::cost::{CostModel, PARAMS};
use arbor_sim::machine::Machine;
use arbor_sim::{presets, snapshot, workload};
use clap::{Args, Subcommand};
use scx_arbor::knobs::Knobs;

use crate::report::meta::{self, Meta};
use crate::report::{summary, WorkloadEntry};
use crate::seeds;
use crate::simrun::{execute, infos_of, rows_of, speed_line, Plan};

mod calibrate;
mod fuzz;
mod merge;
mod sweep;
mod validate;
pub(crate) mod verdict;

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
    /// A cgroup change during each run, repeatable; one value may hold
    /// several separated by ';'. Each is TIME OP ARGS, TIME with a unit
    /// (ns, us, ms, s): `TIME move TASKS /PATH` (task ids like 0-3,7, as
    /// one write to cgroup.procs; the ids are the run's tasks in the
    /// workload's order, a model's forking parent after its own tasks, in
    /// A & B those of A first), `TIME weight /PATH W` (cpu.weight,
    /// 1..10000), `TIME max /PATH QUOTA[/PERIOD]` or `TIME max /PATH max`
    /// (cpu.max in microseconds), `TIME burst /PATH US` (cpu.max.burst),
    /// `TIME idle /PATH 0|1` (cpu.idle), `TIME mkdir /PATH`, `TIME rmdir
    /// /PATH` (its tasks moved out first). The groups are the workload's
    /// (cg=) and those made by mkdir; the scheduler hears of each change
    /// as ext.c tells it (docs/sim/ext-semantics.md, "Cgroup changes during
    /// a run"), e.g. --cgroup-event '500ms move 0-3 /b; 1s weight /a 400'.
    #[arg(long = "cgroup-event", value_name = "EVENT")]
    cgroup_events: Vec<String>,
    /// Override a cost-model parameter, NAME=VALUE (see --list).
    #[arg(long = "cost", value_name = "NAME=VALUE")]
    costs: Vec<String>,
    /// Override a machine parameter, NAME=VALUE: core_bytes, llc_bytes,
    /// core_hit_ns, llc_hit_ns, remote_llc_ns, dram_ns, remote_dram_ns,
    /// mlp, smt2_throughput, deepest_exit_ns (docs/sim/cost-model.md,
    /// "Ranges").
    #[arg(long = "machine-param", value_name = "NAME=VALUE")]
    machine_params: Vec<String>,
    /// Write a trace of the first run that ui.perfetto.dev opens.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Write report.md, results.json, summary.json, results.csv and
    /// charts/ here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Skip the PNG charts (with --out).
    #[arg(long)]
    no_charts: bool,
    /// Print only the headline table (each workload's primary metric per
    /// scheduler) and its outcome: when the run has arbor:default,
    /// arbor:stock and a peer, the verdict's table (default against the
    /// best peer and stock, per workload) and count; else how many changes
    /// are significant. --out still writes the whole report.
    #[arg(long)]
    brief: bool,
    /// List presets, workloads and cost parameters, then exit.
    #[arg(long)]
    list: bool,
    #[command(flatten)]
    knobs: Knobs,
    /// Run part I of N of the sweep, for a job array: the workloads are its
    /// cells, workload k (in -w order, each with all its schedulers and
    /// runs) in part k mod N. Takes I/N (I from 0 to N-1), auto (a Slurm
    /// array task: SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT) or auto/N (a
    /// Kubernetes Indexed Job's JOB_COMPLETION_INDEX of N completions).
    /// Needs --out; `arbor sim merge` joins the parts' directories.
    #[arg(long, value_name = "I/N|auto[/N]", value_parser = crate::shard::parse)]
    shard: Option<crate::shard::ShardArg>,
    /// Internal: run only job N of this command's list and print its
    /// outcome as JSON (how -r N runs its jobs in parallel processes).
    #[arg(long, hide = true)]
    job: Option<usize>,
}

#[derive(Debug, Subcommand)]
enum SimCmd {
    /// Copy this machine's CPU topology, caches, capacities, idle states and
    /// NUMA distances from /sys into OUT, for --topology-from OUT.
    Snapshot {
        /// A new (or empty) directory.
        out: PathBuf,
        /// Instead of this machine: the machines of random:N@SEED (see
        /// `arbor sim verdict --help`), each into OUT/random-SEED-K.
        #[arg(long, value_name = "random:N@SEED")]
        machines: Option<String>,
    },
    /// Re-run a seed's experiment on its own machine (preset), its sweep,
    /// baseline vs mechanism, beside the seed's published numbers; or, with
    /// -t, -w or --era current, whether its mechanism helps on another
    /// machine or workload, each cell decided by the verdict's rule.
    Reproduce(seeds::sim::ReproArgs),
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
    /// Which scheduler wins, decided: runs the candidate (arbor:default),
    /// the baseline (arbor:stock) and the peers on every machine x
    /// workload at this build, each cell until the rule below decides it
    /// (more runs in batches up to --max-reps), prints one table per
    /// machine, the counts and, for each lost cell, the simulator's
    /// counters that differ most from the winner's (idle while a task
    /// waited, wake-up moves by distance, run-queue wait, scheduler cost,
    /// a schbench wakee's place in its batch)
    /// and, for a run to completion, whether its longer time is more CPU
    /// work or fewer busy CPUs, writes results.json and summary.json. With DIRs, judges earlier
    /// runs by the same rule instead.
    Verdict(verdict::VerdictArgs),
    /// Join the output directories of a sweep's shards (each run with
    /// --shard I/N or auto, of arbor sim, arbor sim fuzz or arbor sim
    /// verdict) into OUT: the
    /// report.md, results.json, summary.json (and results.csv, charts) that
    /// the sweep run unsharded writes. Refuses, in one line, a missing or
    /// repeated shard and shards of different commands or builds.
    Merge(merge::MergeArgs),
    /// Write DIR/summary.json from DIR/results.json, for each DIR: per
    /// cell the primary metric's mean, sd, runs, 95% interval and
    /// ejections, and the command (what a kept finding holds, and what
    /// verdict reads without results.json).
    Summarize {
        /// Directories holding a results.json of arbor sim, bench,
        /// reproduce, fuzz or calibrate.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
}

fn list() {
    println!("Machine presets (-t), or --topology-from DIR for your own (arbor sim snapshot DIR):");
    for p in presets::all() {
        let m = (p.build)();
        println!("  {:<10} {:>4} CPUs  {}", p.name, m.nr_cpus(), p.about);
    }
    println!("  random-SEED-K     machine K of random:N@SEED, drawn realistic machines (arbor sim verdict --help)");
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

pub fn main(a: SimArgs) -> Result<i32> {
    match &a.cmd {
        Some(SimCmd::Snapshot {
            out,
            machines: Some(spec),
        }) => {
            verdict::write_snapshots(spec, out)?;
            return Ok(0);
        }
        Some(SimCmd::Snapshot {
            out,
            machines: None,
        }) => {
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
        Some(SimCmd::Reproduce(r)) => return seeds::sim::main(r),
        Some(SimCmd::Validate(v)) => return validate::main(v),
        Some(SimCmd::Calibrate(c)) => return calibrate::main(c),
        Some(SimCmd::Fuzz(f)) => return fuzz::main(f),
        Some(SimCmd::Verdict(v)) => return verdict::main(v),
        Some(SimCmd::Merge(m)) => return merge::main(m),
        Some(SimCmd::Summarize { dirs }) => {
            // every input checked before anything is written
            let sums = dirs
                .iter()
                .map(|d| summary::of_dir(d))
                .collect::<Result<Vec<_>>>()?;
            for (d, s) in dirs.iter().zip(sums) {
                let path = d.join(summary::FILE);
                std::fs::write(&path, s.json()?)
                    .with_context(|| format!("writing {}", path.display()))?;
                eprintln!("arbor sim summarize: {}", path.display());
            }
            return Ok(0);
        }
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
    for p in &a.machine_params {
        seeds::params::set_machine(&mut machine, p)?;
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
        cgroup_events: arbor_sim::core::cgroup_events::parse(&a.cgroup_events)?,
        ..Config::default()
    };
    cfg.validate()?;
    arbor_sim::core::hotplug::check(&machine, &cfg.hotplug)?;
    // every workload is checked by every shard; then the shard keeps its cells
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
    let shard = match &a.shard {
        None => None,
        Some(_) if a.out.is_none() => {
            bail!("--shard needs --out DIR: `arbor sim merge` reads each shard's directory")
        }
        Some(_) if a.trace.is_some() => {
            bail!("--trace writes one run's trace: run it without --shard")
        }
        Some(s) => Some(s.here()?),
    };
    let all_cells = wl_names.len();
    let wl_names: Vec<String> = match shard {
        Some(s) => s
            .cells(wl_names.len())
            .into_iter()
            .map(|k| wl_names[k].clone())
            .collect(),
        None => wl_names,
    };
    plan.workloads = wl_names.clone();
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
    // per cell (workload, in order; the jobs run workload by workload): its
    // rows, its runs that did not finish cleanly, what its trace replayed
    let mut rows = Vec::new();
    let mut cells = Vec::new();
    let mut at = 0;
    for (wi, w) in wl_names.iter().enumerate() {
        let n = done[at..].iter().take_while(|d| d.workload == wi).count();
        let (r, failed) = rows_of(plan, 0, &done[at..at + n]);
        cells.push(sweep::Cell {
            rows: r.len(),
            runs: n,
            replayed: replayed_of(w)?,
            failed,
        });
        rows.extend(r);
        at += n;
    }
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
    let title = format!(
        "# arbor sim: {} ({} CPUs), {} run(s) per cell, seeds {}..{}\n\nSimulated (not measured): each scheduler's own BPF code (scx_arbor's, a peer's from its crate) compiled natively, on the `{}` model. The VM shows function; the simulator shows placement.\n\n",
        machine.name,
        machine.nr_cpus(),
        a.reps,
        a.seed,
        a.seed + a.reps as u64 - 1,
        machine.name
    );
    let extra = serde_json::json!({
        "machine": machine, "cost": plan.cost, "hz": a.hz, "time_limit_s": a.time_limit, "slowdown": a.slowdown, "one_host_thread": a.one_host_thread,
        "seed": a.seed, "knobs": format!("{:?}", a.knobs),
        "runs": done.iter().map(|d| serde_json::json!({
            "scheduler": plan.scheds[d.sched].label, "workload": plan.workloads[d.workload],
            "rep": d.rep, "stop": d.out.stop, "restarts": d.out.restarts,
            "sim_ns": d.out.sim_ns, "events": d.out.events, "callbacks": d.out.callbacks,
            "state_changes": d.out.state_changes, "queue_events": d.out.queue_events})).collect::<Vec<_>>(),
    });
    let sweep = sweep::Sweep {
        meta: Meta {
            title: format!("arbor sim: {}", machine.name),
            command: meta::command(),
            commit: meta::COMMIT.to_string(),
            platform: format!("simulated: {} ({} CPUs)", machine.name, machine.nr_cpus()),
            topology: format!("sim: {}", machine.name),
            reps: a.reps,
            extra: serde_json::from_value(extra)?,
            ..Meta::default()
        },
        title,
        scheds: sched_names,
        primary,
        infos: infos_of(&done),
        rows,
        cells,
    };
    let sweep = match shard {
        Some(s) => sweep.as_shard(s, all_cells)?,
        None => sweep,
    };
    sweep.finish(a.out.as_deref(), a.brief, !a.no_charts)?;
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
    Ok(sweep.failures())
}

/// What a replayed trace (`-w trace:...`) kept and dropped, for the
/// report; "" for any other workload.
fn replayed_of(w: &str) -> Result<String> {
    let Some(args) = w.trim().strip_prefix("trace:") else {
        return Ok(String::new());
    };
    // the trace's own spec, without a `+background` beside it
    let args = args.rfind("+background").map_or(args, |i| &args[..i]);
    let k = workload::trace::load(args)?;
    Ok(format!(
        "Replayed, causally (not a copy of the recorded placement): {}\n\n",
        k.summary.text().replace('\n', "; ")
    ))
}
