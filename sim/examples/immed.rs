//! How often the core sends a peer's SCX_ENQ_IMMED inserts back through
//! ops.enqueue (core/immed.rs; the kernel's SCX_EV_REENQ_IMMED): per
//! machine and workload, re-enqueues per 1000 wake-ups, seed 1.
//!
//!   cargo run --release -p arbor_sim --example immed [-- PEER [WORKLOAD ...]]
//!
//! PEER defaults to cosmos (the one peer that inserts with SCX_ENQ_IMMED);
//! the workloads default to docs/findings/2026-11-23-sim-peers-all's.

use anyhow::Result;
use arbor_sim::core::Config;
use arbor_sim::presets;
use arbor_sim::run::simulate_defaults;
use arbor_sim::sched::SchedSpec;

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let peer = args.next().unwrap_or_else(|| "cosmos".into());
    let mut workloads: Vec<String> = args.collect();
    if workloads.is_empty() {
        workloads = [
            "hackbench:g=2,l=100",
            "perf-messaging:g=2,l=50,mode=thread",
            "perf-pipe:l=5000",
            "pgbench:clients=8,time=5",
            "wakeprobe:t=4",
            "schbench",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
    }
    let sched = SchedSpec::parse(&peer)?;
    println!("| machine | workload | wake-ups | IMMED re-enqueues | per 1000 wake-ups |");
    println!("|---|---|---|---|---|");
    for name in ["x86-12", "xeon-88", "power11"] {
        let m = presets::find(name)?;
        for w in &workloads {
            let o = simulate_defaults(&m, &sched, w, Config::default(), 1)?;
            println!(
                "| {name} | `{w}` | {} | {} | {:.2} |",
                o.wakeups,
                o.reenq_immed,
                1e3 * o.reenq_immed as f64 / o.wakeups.max(1) as f64
            );
        }
    }
    Ok(())
}
