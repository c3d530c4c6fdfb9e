//! Running the simulator: a plan of (machine, schedulers, workloads, runs)
//! as parallel child processes of this same command (`--job i`), their
//! outcomes, and the report's rows of them. `arbor sim` runs one plan,
//! `arbor sim reproduce` one per table of a seed, `arbor sim validate` and
//! `fuzz` theirs.

use std::io::{BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{bail, Context, Result};
use arbor_sim::core::Config;
use arbor_sim::cost::CostModel;
use arbor_sim::machine::Machine;
use arbor_sim::run::{simulate, Outcome, RunSpec};
use arbor_sim::sched::SchedSpec;
use arbor_sim::workload;
use scx_arbor::knobs::Knobs;
use serde::{Deserialize, Serialize};

use crate::report::metric::{self, Kind, MetricInfo};
use crate::report::Row;

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
    /// what the simulator charged beyond the scheduler's counters (cache
    /// refills, idle-state exits): --explain's rows, not the report's
    #[serde(default)]
    pub charged: Vec<(String, u64)>,
    /// what the run's switch-ins charged their CPUs, ns (Outcome::switch_in_ns)
    #[serde(default)]
    pub switch_in_ns: f64,
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
            charged: o.charged.clone(),
            switch_in_ns: o.switch_in_ns,
        }
    }
}

/// A job's process reports its simulated time on stderr with this prefix.
const PROGRESS: &str = "@progress ";

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
            let wl = workload::spec::parse(w, machine.nr_cpus(), seed)?;
            // the cgroup events against each workload's groups and tasks
            if !cfg.cgroup_events.is_empty() {
                let specs = wl.tasks();
                arbor_sim::core::cgroup::Cgroups::from_specs(&specs)?
                    .check_events(&cfg.cgroup_events, specs.len())
                    .map_err(|e| anyhow::anyhow!("{e} (workload '{w}')"))?;
            }
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
pub fn speed_line(done: &[Done], wall: std::time::Instant) -> String {
    let events: u64 = done.iter().map(|d| d.out.events).sum();
    let cpu_s: f64 = done.iter().map(|d| d.out.cpu_s).sum();
    format!(
        "{events} events (callbacks + task state changes) in {cpu_s:.2} s of CPU, {:.2} s wall: {:.2} M events/s per core",
        wall.elapsed().as_secs_f64(),
        events as f64 / cpu_s.max(1e-9) / 1e6
    )
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

/// What one `arbor sim ... --job 0` child process gave back.
pub struct ChildRun {
    /// its exit code (None: killed by a signal)
    pub code: Option<i32>,
    /// the outcome it printed as its last JSON line, if any
    pub job: Option<JobOut>,
    /// the last line of its error output, without the `arbor: error: `
    /// prefix or progress lines ("" if there was none)
    pub last_err: String,
}

/// Runs one simulation in its own process: `arbor sim ARGS --seed SEED
/// --time-limit LIMIT --job 0`, for the commands (verdict, seeds) that
/// batch their own runs.
pub fn run_child(args: &[&str], seed: u64, time_limit_s: impl ToString) -> Result<ChildRun> {
    let out = Command::new(self_exe()?)
        .arg("sim")
        .args(args)
        .args(["--seed", &seed.to_string()])
        .args(["--time-limit", &time_limit_s.to_string(), "--job", "0"])
        .output()
        .context("starting a simulation process")?;
    let job = String::from_utf8_lossy(&out.stdout)
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .and_then(|l| serde_json::from_str::<JobOut>(l).ok());
    let last_err = String::from_utf8_lossy(&out.stderr)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty() && !l.starts_with('@'))
        .unwrap_or("")
        .trim()
        .trim_start_matches("arbor: error: ")
        .to_string();
    Ok(ChildRun {
        code: out.status.code(),
        job,
        last_err,
    })
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
