//! The simulator's speed, as a benchmark rather than a timed test: events
//! per second of host CPU time (an event = a callback or a task state
//! change, the unit `arbor sim` prints) on a fixed matrix of machines (12 to
//! 512 CPUs), workloads and schedulers, each cell run several times.
//!
//!   cargo run --release -p arbor_sim --example speed              (the matrix and EXTRA, 3 runs a cell)
//!   cargo run --release -p arbor_sim --example speed -- -n 5 --only xeon-88 --only hackbench
//!   cargo run --release -p arbor_sim --example speed -- --scaling [SECONDS]
//!        (how the cost grows with CPUs and with tasks; SECONDS adds that
//!        many simulated seconds of hackbench on power11)
//!   ... --json FILE   (the rows, for a finding's summary)
//!   ... --list        (the cells, one a line)
//!
//! A run's figure is its own host thread's CPU time (CLOCK_THREAD_CPUTIME_ID),
//! so load on the host slows it less than it slows wall time, but it still
//! does (shared caches, SMT siblings): each cell prints min, median and max
//! over its runs, and the host's load average before and after. Every run of
//! a cell must give the same events (the simulator is deterministic).

use anyhow::{bail, Context, Result};
use arbor_sim::core::Config;
use arbor_sim::cost::CostModel;
use arbor_sim::machine::Machine;
use arbor_sim::presets;
use arbor_sim::run::{simulate, RunSpec};
use arbor_sim::sched::SchedSpec;
use scx_arbor::knobs::Knobs;

/// The matrix's machines: a desktop, a two-socket server, a large POWER
/// box, and 512 CPUs (4 nodes x 4 LLCs x 16 cores x 2 threads).
const MACHINES: [&str; 4] = ["x86-12", "xeon-88", "power11", "shape:n=4,l=4,c=16,t=2"];
/// arbor's full feature set and two peers.
const SCHEDS: [&str; 3] = ["arbor:default", "bpfland", "cosmos"];
/// Message passing (the first is the row the simulator is judged by at 88
/// CPUs), a pipe ping-pong, a wake-up latency benchmark, a trace replay
/// (TRACE: the test fixture recorded from `hackbench -g 1 -l 5`).
const WORKLOADS: [&str; 5] = [
    "hackbench:g=8,l=400",
    "perf-messaging:g=8,l=100",
    "perf-pipe:l=20000",
    "schbench:r=2",
    "trace:TRACE",
];

/// Cells outside the product above, (machine, scheduler, workload): the
/// workloads that cost the verdict most CPU on large machines, one
/// request fan-out to half the CPUs (wakeprobe) and a client/server
/// database (pgbench).
const EXTRA: [(&str, &str, &str); 3] = [
    ("xeon-88", "arbor:default", "wakeprobe:t=1"),
    ("power11", "arbor:default", "wakeprobe:t=1"),
    ("xeon-88", "arbor:default", "pgbench:clients=8,time=5"),
];

/// Peak resident memory of this process so far, MiB.
fn max_rss_mib() -> f64 {
    // SAFETY: getrusage fills the struct we pass
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    ru.ru_maxrss as f64 / 1024.0
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn trace_file() -> String {
    format!(
        "{}/tests/fixtures/trace/hackbench.data",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn machine(name: &str) -> Result<Machine> {
    presets::find(name)
}

/// One run: (events, simulated s, host CPU s).
fn one(m: &Machine, sched: &str, workload: &str, time_limit_s: f64) -> Result<(u64, f64, f64)> {
    let cost = CostModel::default();
    let s = SchedSpec::parse(sched)?;
    let knobs = Knobs::default();
    let cfg = Config {
        time_limit: (time_limit_s * 1e9) as u64,
        ..Config::default()
    };
    let o = simulate(
        &RunSpec {
            machine: m,
            cost: &cost,
            cfg,
            sched: &s,
            knobs: &knobs,
            workload,
            seed: 1,
        },
        |_| {},
    )
    .with_context(|| format!("{} {sched} {workload}", m.name))?;
    if !o.ok {
        bail!("{} {sched} {workload}: stopped: {}", m.name, o.stop);
    }
    Ok((o.events, o.sim_ns as f64 / 1e9, o.cpu_s))
}

#[derive(serde::Serialize)]
struct Row {
    machine: String,
    cpus: usize,
    sched: String,
    workload: String,
    events: u64,
    sim_s: f64,
    runs: usize,
    /// M events per second of host CPU time: min, median, max over the runs.
    mevs_min: f64,
    mevs_median: f64,
    mevs_max: f64,
    cpu_s_median: f64,
}

fn cell(machine_name: &str, sched: &str, workload: &str, runs: usize) -> Result<Row> {
    let m = machine(machine_name)?;
    let w = workload.replace("TRACE", &trace_file());
    let mut rates = Vec::new();
    let mut cpu = Vec::new();
    let mut first = None;
    for _ in 0..runs {
        let (events, sim_s, cpu_s) = one(&m, sched, &w, 60.0)?;
        match first {
            None => first = Some((events, sim_s)),
            Some((e, _)) if e != events => {
                bail!("{machine_name} {sched} {workload}: {e} events, then {events}: not deterministic")
            }
            _ => {}
        }
        rates.push(events as f64 / cpu_s.max(1e-9) / 1e6);
        cpu.push(cpu_s);
    }
    rates.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let (events, sim_s) = first.expect("runs >= 1");
    let r = Row {
        machine: machine_name.into(),
        cpus: m.nr_cpus(),
        sched: sched.into(),
        workload: workload.into(),
        events,
        sim_s,
        runs,
        mevs_min: rates[0],
        mevs_median: rates[rates.len() / 2],
        mevs_max: rates[rates.len() - 1],
        cpu_s_median: cpu[cpu.len() / 2],
    };
    println!(
        "| {} | {} | {} | `{}` | {} | {:.3} | {:.3} | **{:.2}** | {:.2}–{:.2} | {:.0} |",
        r.machine,
        r.cpus,
        r.sched,
        r.workload,
        r.events,
        r.sim_s,
        r.cpu_s_median,
        r.mevs_median,
        r.mevs_min,
        r.mevs_max,
        max_rss_mib()
    );
    Ok(r)
}

/// The matrix's cells: the product, then EXTRA.
fn cells() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    let product = MACHINES.iter().flat_map(|&m| {
        WORKLOADS
            .iter()
            .flat_map(move |&w| SCHEDS.iter().map(move |&s| (m, s, w)))
    });
    product.chain(EXTRA)
}

fn matrix(runs: usize, only: &[String]) -> Result<Vec<Row>> {
    println!("| machine | CPUs | scheduler | workload | events | simulated s | CPU s (median) | M events/s per core (median) | min–max | peak RSS MiB |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut rows = Vec::new();
    for (m, s, w) in cells() {
        let name = format!("{m} {s} {w}");
        if only.iter().all(|o| name.contains(o.as_str())) {
            rows.push(cell(m, s, w, runs)?);
        }
    }
    Ok(rows)
}

/// How the cost grows with CPUs at a fixed load, and with tasks on the
/// largest machine.
fn scaling(long: Option<f64>) -> Result<()> {
    println!("| machine | CPUs | scheduler | workload | events | simulated s | CPU s | M events/s per core |");
    println!("|---|---|---|---|---|---|---|---|");
    let row = |mn: &str, s: &str, w: &str, t: f64| -> Result<()> {
        let m = machine(mn)?;
        let (e, sim_s, cpu_s) = one(&m, s, w, t)?;
        println!(
            "| {mn} | {} | {s} | `{w}` | {e} | {sim_s:.3} | {cpu_s:.2} | {:.2} |",
            m.nr_cpus(),
            e as f64 / cpu_s.max(1e-9) / 1e6
        );
        Ok(())
    };
    // CPUs grow at a fixed load (4 groups = 160 tasks)
    for m in ["x86-12", "power10", "epyc", "power11"] {
        row(m, "arbor:stock", "hackbench:g=4,l=200", 60.0)?;
    }
    // tasks grow on the largest machine (40, 400, 4000, 10000 tasks), the
    // messages stay near 1.6 M
    for (g, l) in [(1, 2000), (10, 200), (100, 20), (250, 8)] {
        row(
            "power11",
            "arbor:stock",
            &format!("hackbench:g={g},l={l}"),
            60.0,
        )?;
    }
    if let Some(secs) = long {
        row("power11", "arbor:stock", "hackbench:g=4,l=1000000", secs)?;
    }
    Ok(())
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let (mut runs, mut only, mut json, mut scale, mut long) =
        (3usize, Vec::new(), None, false, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "-n" => {
                runs = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n| (1..=100).contains(&n))
                    .context("-n takes a number of runs in 1..=100")?
            }
            "--only" => only.push(args.next().context("--only takes a word of the cell's name")?),
            "--json" => json = Some(args.next().context("--json takes a file")?),
            "--scaling" => scale = true,
            "--list" => {
                // the cells, one "MACHINE SCHEDULER WORKLOAD" a line, for a
                // script that runs them one by one (a finding's run.sh)
                for (m, s, w) in cells() {
                    println!("{m} {s} {w}");
                }
                return Ok(());
            }
            x => match x.parse::<f64>() {
                Ok(s) if s > 0.0 && scale => long = Some(s),
                _ => bail!("unknown argument '{x}' (-n RUNS, --only WORD, --json FILE, --list, --scaling [SECONDS])"),
            },
        }
    }
    println!("host load average before: {}", loadavg());
    if scale {
        scaling(long)?;
    } else {
        let rows = matrix(runs, &only)?;
        if let Some(f) = json {
            std::fs::write(&f, serde_json::to_string_pretty(&rows)? + "\n")
                .with_context(|| format!("writing {f}"))?;
        }
    }
    println!("host load average after: {}", loadavg());
    Ok(())
}
