//! Per-op BPF cost per wake-up as the machine grows: the simulator's cost
//! model charges each helper/kfunc call and map lookup
//! (docs/sim/cost-model.md), so a scan that grows with the CPU count (what
//! a large real server must not pay) shows here as ns per call growing
//! with n. Prints, for each machine, each callback's calls per wake-up and
//! ns per call, and the BPF ns per wake-up.
//!
//!   cargo run --release -p arbor_sim --example opcost [-- SIM_SECONDS [PROFILE [CPUS_PER_GROUP]]]
//!
//! The load grows with the machine: hackbench with one group (40 tasks) per
//! CPUS_PER_GROUP CPUs (default 6: saturated; 48 leaves CPUs idle, so the
//! idle scans run), so every size is about equally busy.

use anyhow::Result;
use arbor_sim::core::Config;
use arbor_sim::presets;
use arbor_sim::run::simulate_defaults;
use arbor_sim::sched::SchedSpec;

fn main() -> Result<()> {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(0.3);
    let profile = std::env::args().nth(2).unwrap_or_else(|| "stock".into());
    let per: usize = std::env::args()
        .nth(3)
        .and_then(|a| a.parse().ok())
        .unwrap_or(6)
        .max(1);
    let sched = SchedSpec::parse(&format!("arbor:{profile}"))?;
    let machines = ["x86-12", "xeon-88", "power11"];
    let mut rows: Vec<(String, usize, u64, f64, Vec<(String, u64, f64)>)> = Vec::new();
    for name in machines {
        let m = presets::find(name)?;
        let n = m.nr_cpus();
        let g = (n / per).max(1);
        let cfg = Config {
            time_limit: (secs * 1e9) as u64,
            ..Config::default()
        };
        let o = simulate_defaults(&m, &sched, &format!("hackbench:g={g},l=1000000"), cfg, 1)?;
        let total: f64 = o.bpf_ops.iter().map(|r| r.2).sum();
        rows.push((name.to_string(), n, o.wakeups, total, o.bpf_ops));
    }
    let mut ops: Vec<String> = rows
        .iter()
        .flat_map(|r| r.4.iter().map(|o| o.0.clone()))
        .collect();
    ops.sort();
    ops.dedup();
    print!("| op |");
    for r in &rows {
        print!(" {} ({} CPUs) calls/wake | ns/call |", r.0, r.1);
    }
    println!();
    print!("|---|");
    for _ in &rows {
        print!("---|---|");
    }
    println!();
    for op in &ops {
        print!("| {op} |");
        for r in &rows {
            let w = r.2.max(1) as f64;
            match r.4.iter().find(|o| &o.0 == op) {
                Some((_, c, ns)) => {
                    print!(" {:.2} | {:.0} |", *c as f64 / w, ns / (*c).max(1) as f64)
                }
                None => print!(" - | - |"),
            }
        }
        println!();
    }
    print!("| **BPF ns per wake-up** |");
    for r in &rows {
        print!(" {:.0} | |", r.3 / r.2.max(1) as f64);
    }
    println!();
    print!("| wake-ups |");
    for r in &rows {
        print!(" {} | |", r.2);
    }
    println!();
    Ok(())
}
