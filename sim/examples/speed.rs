//! The simulator's speed, as a benchmark rather than a timed test: how its
//! cost grows with CPUs and tasks. Prints a table of events per second of
//! host CPU time (an event = a callback or a task state change, the issue's
//! unit) and peak memory.
//!
//!   cargo run --release -p arbor_sim --example speed            (the table)
//!   cargo run --release -p arbor_sim --example speed -- 10      (+ 10 s of
//!        simulated hackbench on power11, the 2-minute target)
//!
//! Each cell is one run on one host thread; the figure is that thread's CPU
//! time, so other load on the host slows it less than it slows wall time.
//! Repeat the command to see the spread.

use anyhow::Result;
use arbor_sim::core::Config;
use arbor_sim::cost::CostModel;
use arbor_sim::presets;
use arbor_sim::run::{simulate, RunSpec};
use arbor_sim::sched::SchedSpec;
use scx_arbor::knobs::Knobs;

/// Peak resident memory of this process so far, MiB.
fn max_rss_mib() -> f64 {
    // SAFETY: getrusage fills the struct we pass
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    ru.ru_maxrss as f64 / 1024.0
}

fn cell(machine: &str, sched: &str, workload: &str, time_limit_s: f64) -> Result<()> {
    let m = presets::find(machine)?;
    let cost = CostModel::default();
    let s = SchedSpec::parse(sched)?;
    let knobs = Knobs::default();
    let cfg = Config {
        time_limit: (time_limit_s * 1e9) as u64,
        ..Config::default()
    };
    let o = simulate(
        &RunSpec {
            machine: &m,
            cost: &cost,
            cfg,
            sched: &s,
            knobs: &knobs,
            workload,
            seed: 1,
        },
        |_| {},
    )?;
    println!(
        "| {machine} | {} | {sched} | `{workload}` | {:.3} | {} | {:.2} | {:.2} | {:.0} |",
        m.nr_cpus(),
        o.sim_ns as f64 / 1e9,
        o.events,
        o.cpu_s,
        o.events as f64 / o.cpu_s.max(1e-9) / 1e6,
        max_rss_mib()
    );
    Ok(())
}

fn main() -> Result<()> {
    let long: Option<f64> = std::env::args().nth(1).and_then(|a| a.parse().ok());
    println!("| machine | CPUs | scheduler | workload | simulated s | events | CPU s | M events/s | peak RSS MiB |");
    println!("|---|---|---|---|---|---|---|---|---|");
    // CPUs grow at a fixed load (4 groups = 160 tasks)
    for m in ["x86-12", "power10", "epyc", "power11"] {
        cell(m, "arbor:stock", "hackbench:g=4,l=200", 60.0)?;
    }
    // tasks grow on the largest machine (40, 400, 4000, 10000 tasks), the
    // messages stay near 1.6 M
    for (g, l) in [(1, 2000), (10, 200), (100, 20), (250, 8)] {
        cell(
            "power11",
            "arbor:stock",
            &format!("hackbench:g={g},l={l}"),
            60.0,
        )?;
    }
    // the full feature set costs more BPF per event
    cell("power11", "arbor:default", "hackbench:g=4,l=200", 60.0)?;
    if let Some(secs) = long {
        cell("power11", "arbor:stock", "hackbench:g=4,l=1000000", secs)?;
    }
    Ok(())
}
