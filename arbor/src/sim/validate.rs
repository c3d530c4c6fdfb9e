//! `arbor sim validate`: the simulator checked against the VM on what does
//! not depend on timing. The same schedulers and workloads run in an
//! `arbor vm` guest (through `arbor bench`: real kernel, real BPF, TCG's
//! wrong timing) and in the simulator on the guest's preset; the ratios of
//! scx_arbor's own counters (affine moves per wake-up, idle CPU found per
//! wake-up, ...) are compared, and a ratio that differs by more than the
//! tolerance fails the command.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use arbor_sim::core::Config;
use arbor_sim::cost::CostModel;
use arbor_sim::presets;
use clap::Args;
use scx_arbor::knobs::Knobs;
use serde::Deserialize;

use super::{execute, speed_line, Done, Plan};

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The guest (and simulator preset): 2s2c2t or 1s2c2t.
    #[arg(short, long, default_value = "2s2c2t")]
    topology: String,
    /// The VM side from an earlier `arbor bench` run of the validation set
    /// (its --out directory); without it, validate runs that bench first
    /// (one TCG boot, about 15 minutes).
    #[arg(long, value_name = "DIR")]
    vm_results: Option<PathBuf>,
    /// Runs per cell on each side.
    #[arg(short, long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=20))]
    reps: u32,
    /// Write report.md and results.json here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the arbor bench command of the VM side, then exit.
    #[arg(long)]
    print_bench_command: bool,
    /// Internal: run one job (see `arbor sim`).
    #[arg(long, hide = true)]
    job: Option<usize>,
}

/// The schedulers and workloads both sides run.
pub const SCHEDS: &[&str] = &["arbor:stock", "arbor:seeds"];
pub const WORKLOADS: &[&str] = &[
    "hackbench:g=2,l=100",
    "perf-pipe:l=5000",
    "wakeprobe:m=2,w=2,t=3",
];

/// Run in the VM only: nothing but the guest's own background (kernel
/// threads, timers, the harness). scx_arbor counts every task of the
/// guest, the simulator only the workload's; the report states the
/// background's rate so that a reader can judge how much it dilutes.
pub const BACKGROUND: &str = "idle:t=3";

/// Run in the VM first, in every (scheduler, rep), and not compared: the
/// first `perf bench` of a boot made ~3,600 more wake-ups than the later
/// ones (without WF_SYNC; 14,104-14,829 against 10,469-10,632 in four VM
/// runs, always arbor:stock's rep 1, the first perf run after boot:
/// docs/results/2026-11-23-sim-validate-second), which took its "affine
/// moves / wake-up" from 0.93 to 0.68. A cold start of the guest, not
/// scheduling: the compared cells run warm.
pub const WARMUP: &str = "perf-pipe:l=200";

/// Two ratios differ when |sim - vm| > TOLERANCE x max(vm, sim), unless
/// both are below RARE (an event in fewer than 2% of the cases on both
/// sides: too few for a relative comparison).
pub const TOLERANCE: f64 = 0.10;
pub const RARE: f64 = 0.02;

/// (name, numerator counters, denominator counters); a counter written
/// `-name` is subtracted.
pub const RATIOS: &[(&str, &[&str], &[&str])] = &[
    ("affine moves / wake-up", &["affine_moves"], &["wakeups"]),
    ("wake_wide / wake-up", &["wake_wide"], &["wakeups"]),
    (
        "idle core found / wake-up",
        &["found_idle_core"],
        &["wakeups"],
    ),
    (
        "idle CPU found / wake-up",
        &["found_idle_cpu"],
        &["wakeups"],
    ),
    ("no idle CPU / wake-up", &["nofound_idle"], &["wakeups"]),
    (
        "newidle pulls / newidle attempt",
        &["newidle_pulls"],
        &["newidle_pulls", "newidle_fails"],
    ),
    // The attempts above include those that scanned nothing: the cost gate
    // (avg_idle < max_newidle_lb_cost, a maximum of measured wall-clock
    // costs that decays ~1% a second) or NI_RANDOM's dice stopped them
    // (newidle_skips). In the VM a single attempt stretched by the host
    // descheduling a vCPU raises that maximum for seconds, which the
    // simulator's uniform slowdown does not do: the skips are timing. The
    // attempts that scanned a level are compared here.
    (
        "newidle pulls / newidle scan",
        &["newidle_pulls"],
        &["newidle_pulls", "newidle_fails", "-newidle_skips"],
    ),
    (
        "steals / steal attempt",
        &["steal"],
        &["steal", "steal_fail"],
    ),
    (
        "same-LLC migrations / wake-up",
        &["migrations_same_llc"],
        &["wakeups"],
    ),
    (
        "cross-LLC migrations / wake-up",
        &["migrations_cross_llc"],
        &["wakeups"],
    ),
    (
        "cross-node migrations / wake-up",
        &["migrations_cross_node"],
        &["wakeups"],
    ),
];

/// The part of bench's results.json read here.
#[derive(Deserialize)]
struct BenchResults {
    cells: Vec<BenchCell>,
}

#[derive(Deserialize)]
struct BenchCell {
    workload: String,
    metric: String,
    scheduler: String,
    mean: Option<f64>,
}

/// (scheduler, workload, counter) -> mean over the runs
type Means = std::collections::BTreeMap<(String, String, String), f64>;

fn vm_means(dir: &Path) -> Result<Means> {
    let path = dir.join("results.json");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let r: BenchResults =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let mut m = Means::new();
    for c in r.cells {
        let name = match c.metric.strip_prefix("c:") {
            Some(n) => n.to_string(),
            None if c.metric == "time_s" || c.metric == "wall_s" => c.metric.clone(),
            None => continue,
        };
        if let Some(v) = c.mean {
            m.insert((c.scheduler, c.workload, name), v);
        }
    }
    Ok(m)
}

/// The counter means of plan `pi`'s runs.
fn sim_means(plan: &Plan, pi: usize, done: &[Done]) -> Means {
    let mut sums: std::collections::BTreeMap<(String, String, String), (f64, u32)> =
        Default::default();
    for d in done.iter().filter(|d| d.plan == pi) {
        for (k, v) in &d.out.counters {
            let e = sums
                .entry((
                    plan.scheds[d.sched].label.clone(),
                    // reported under the VM's label, without the background
                    base_label(&plan.workloads[d.workload]).to_string(),
                    k.clone(),
                ))
                .or_default();
            e.0 += *v as f64;
            e.1 += 1;
        }
    }
    sums.into_iter()
        .map(|(k, (s, n))| (k, s / n.max(1) as f64))
        .collect()
}

/// The guest's background wake-ups per second per scheduler, from the
/// `BACKGROUND` cell (empty when the VM results have none). Reported, not
/// subtracted: the background while a workload runs is not the idle one
/// (subtracting it drove "no idle CPU / wake-up" above 1 for hackbench).
fn background_rates(vm: &Means) -> Vec<(String, f64)> {
    SCHEDS
        .iter()
        .filter_map(|s| {
            let key = |c: &str| (s.to_string(), BACKGROUND.to_string(), c.to_string());
            let wall = vm.get(&key("wall_s")).copied().filter(|w| *w > 0.0)?;
            let wakeups = vm.get(&key("wakeups")).copied()?;
            Some((s.to_string(), wakeups / wall))
        })
        .collect()
}

/// The background the simulator runs beside each workload: the VM's idle
/// wake-up rate (`BACKGROUND`), mean over the schedulers, rounded; None
/// when the VM results have no such cell.
fn background_rate(rates: &[(String, f64)]) -> Option<u32> {
    if rates.is_empty() {
        return None;
    }
    let mean = rates.iter().map(|(_, r)| r).sum::<f64>() / rates.len() as f64;
    (mean >= 0.5).then(|| mean.round() as u32)
}

/// The simulator's workloads: the validation set, each with the guest's
/// background (sim/src/workload/background.rs) when there is one.
fn with_background(rate: Option<u32>) -> Vec<String> {
    WORKLOADS
        .iter()
        .map(|w| match rate {
            Some(r) => format!("{w}+background:r={r}"),
            None => w.to_string(),
        })
        .collect()
}

/// A simulator workload's label without its `+background` part.
fn base_label(w: &str) -> &str {
    w.rfind("+background").map_or(w, |i| &w[..i])
}

/// The sum of counters (a leading '-' subtracts one) of one (scheduler,
/// workload), per run; None if a counter is missing.
fn counter_sum(m: &Means, sched: &str, wl: &str, names: &[&str]) -> Option<f64> {
    names
        .iter()
        .map(|n| {
            let (sign, n) = match n.strip_prefix('-') {
                Some(n) => (-1.0, n),
                None => (1.0, *n),
            };
            m.get(&(sched.to_string(), wl.to_string(), n.to_string()))
                .map(|v| sign * v)
        })
        .sum()
}

/// num / den of one (scheduler, workload), None if a counter is missing or
/// the denominator is 0.
fn ratio(m: &Means, sched: &str, wl: &str, num: &[&str], den: &[&str]) -> Option<f64> {
    let d = counter_sum(m, sched, wl, den)?;
    (d > 0.0)
        .then(|| counter_sum(m, sched, wl, num).map(|n| n / d))
        .flatten()
}

/// A ratio's denominator per run on the VM and in the simulator at TCG's
/// pace ("20 / 16"): a ratio of rare events (newidle scans in a ping-pong)
/// rests on a handful of them, which the reader should see.
fn events_cell(vm: &Means, sim: &Means, sched: &str, wl: &str, den: &[&str]) -> String {
    let f = |x: Option<f64>| x.map(|x| format!("{x:.0}")).unwrap_or("-".into());
    format!(
        "{} / {}",
        f(counter_sum(vm, sched, wl, den)),
        f(counter_sum(sim, sched, wl, den))
    )
}

/// The workload that measures the VM's speed: a ping-pong, so one task
/// runs at a time and TCG's sharing of one host thread does not enter.
pub const CALIBRATION: &str = "perf-pipe:l=5000";

/// The simulator's stand-in for the VM: every CPU on one host thread, each
/// instruction `k` times slower than the cost model's machine (both in
/// core::Config).
fn tcg_config(k: f64) -> Config {
    Config {
        time_limit: 600_000_000_000,
        slowdown: k,
        one_host_thread: true,
        ..Config::default()
    }
}

/// How much slower the VM runs than the simulated machine: the VM's
/// `CALIBRATION` time over the simulator's on one host thread at full
/// speed, per scheduler, geometric mean. Measured from times only, never
/// from the ratios compared, so it cannot be tuned towards agreement.
fn tcg_slowdown(plan: &Plan, vm: &Means) -> Result<(f64, Vec<(String, f64, f64)>)> {
    let mut per = Vec::new();
    for sp in &plan.scheds {
        let label = sp.label.clone();
        let vm_t = vm
            .get(&(label.clone(), CALIBRATION.to_string(), "time_s".into()))
            .copied()
            .with_context(|| {
                format!("the VM results have no time_s for {label} {CALIBRATION} to measure TCG's speed with")
            })?;
        let spec = arbor_sim::run::RunSpec {
            machine: &plan.machine,
            cost: &plan.cost,
            cfg: tcg_config(1.0),
            sched: sp,
            knobs: &plan.knobs,
            workload: CALIBRATION,
            seed: 1,
        };
        let o = std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(1 << 30)
                .spawn_scoped(s, || arbor_sim::run::simulate(&spec, |_| {}))
                .context("starting the calibration run")?
                .join()
                .map_err(|_| anyhow::anyhow!("the calibration run panicked"))?
        })?;
        let sim_t = o
            .metrics
            .iter()
            .find(|m| m.name == "time_s")
            .map(|m| m.value)
            .filter(|t| *t > 0.0)
            .context("the calibration run gave no time")?;
        per.push((label, vm_t, sim_t));
    }
    let logs: f64 = per.iter().map(|(_, v, s)| (v / s).ln()).sum();
    let k = (logs / per.len().max(1) as f64).exp().clamp(1.0, 10_000.0);
    Ok((k, per))
}

/// Whether two ratios agree within the stated tolerance.
pub fn agree(vm: f64, sim: f64) -> bool {
    (vm < RARE && sim < RARE) || (sim - vm).abs() <= TOLERANCE * vm.max(sim)
}

fn bench_args(topology: &str, reps: u32, out: &Path) -> Vec<String> {
    let mut v = vec!["bench".to_string(), "-t".into(), topology.into()];
    for s in SCHEDS {
        v.extend(["-s".to_string(), s.to_string()]);
    }
    for w in [&WARMUP].into_iter().chain(WORKLOADS).chain([&BACKGROUND]) {
        v.extend(["-w".to_string(), w.to_string()]);
    }
    v.extend([
        "-r".to_string(),
        reps.to_string(),
        "--no-charts".into(),
        // validate's own directory: a rerun replaces it
        "--force".into(),
        "-o".into(),
        out.display().to_string(),
    ]);
    v
}

pub fn main(a: &ValidateArgs) -> Result<i32> {
    if !matches!(a.topology.as_str(), "2s2c2t" | "1s2c2t") {
        bail!(
            "--topology {}: validate runs on the VM presets 2s2c2t and 1s2c2t, which the simulator models",
            a.topology
        );
    }
    let machine = presets::find(&a.topology)?;
    let plan = Plan::new(
        machine,
        CostModel::default(),
        Config {
            time_limit: 120_000_000_000,
            ..Config::default()
        },
        Knobs::default(),
        &SCHEDS.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        &WORKLOADS.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        a.reps,
        1,
    )?;
    let default_out = PathBuf::from(format!("target/validate/{}", a.topology));
    let vm_dir = a
        .vm_results
        .clone()
        .unwrap_or_else(|| default_out.join("vm"));
    if a.print_bench_command {
        println!(
            "arbor {}",
            bench_args(&a.topology, a.reps, &vm_dir).join(" ")
        );
        return Ok(0);
    }
    if a.job.is_none() && a.vm_results.is_none() {
        eprintln!(
            "arbor sim validate: the VM side first: arbor {}",
            bench_args(&a.topology, a.reps, &vm_dir).join(" ")
        );
        let st = Command::new(super::self_exe()?)
            .args(bench_args(&a.topology, a.reps, &vm_dir))
            .status()
            .context("starting arbor bench")?;
        if !st.success() {
            bail!(
                "the VM side (arbor bench) failed ({st}); its log is in {}",
                vm_dir.display()
            );
        }
    }
    // both the parent and each job process read the VM side: the TCG
    // plan's slowdown is measured from it, the same way in each
    let vm = vm_means(&vm_dir)?;
    let (k, calib) = tcg_slowdown(&plan, &vm)?;
    let background = background_rates(&vm);
    let bg_rate = background_rate(&background);
    let scheds = SCHEDS.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let plain = WORKLOADS.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let with_bg = with_background(bg_rate);
    // the three simulated sides differ only in pace and workloads
    let side = |cfg, workloads: &[String]| -> Result<Plan> {
        let mut p = Plan::new(
            plan.machine.clone(),
            plan.cost.clone(),
            cfg,
            Knobs::default(),
            &scheds,
            workloads,
            a.reps,
            1,
        )?;
        p.trace = None;
        Ok(p)
    };
    let tcg = side(tcg_config(k), &with_bg)?;
    let native = side(plan.cfg.clone(), &with_bg)?;
    let tcg_plain = side(tcg_config(k), &plain)?;
    let wall = std::time::Instant::now();
    let plans = [tcg, native, tcg_plain];
    let Some(done) = execute(&plans, a.job)? else {
        return Ok(0);
    };
    let sim = sim_means(&plans[0], 0, &done);
    let native = sim_means(&plans[1], 1, &done);
    let sim_plain = sim_means(&plans[2], 2, &done);

    let mut md = String::new();
    let _ = writeln!(
        md,
        "# arbor sim validate: VM vs simulator on {}\n\nThe same schedulers and workloads in an `arbor vm` guest (real kernel and BPF, QEMU TCG timing; `{}`) and in the simulator on the `{}` preset, {} runs per cell each side. Compared: ratios of scx_arbor's own counters. Two ratios **differ** when |sim − vm| > {:.0}% of the larger, unless both are under {:.0}% (too rare to compare).\n",
        a.topology,
        vm_dir.display(),
        a.topology,
        a.reps,
        TOLERANCE * 100.0,
        RARE * 100.0
    );
    let _ = writeln!(
        md,
        "**The simulator runs as the VM does** (`sim (TCG)`): all CPUs on one host thread, each instruction {k:.1}× slower than the cost model's machine while the clock keeps its pace (`arbor sim --one-host-thread --slowdown {k:.1}`). Several mechanisms count in wall-clock time (wake_wide's flips decay each second, WA_THROTTLE's interval, the newidle cost gate, the timer's balancing), so their ratios depend on how much work fits in a second. {k:.1} is measured, not fitted: the VM's `{CALIBRATION}` time over the simulator's on one host thread at full speed, geometric mean over the schedulers ({}). `sim (native)` is the cost model's machine at full speed and in parallel; where it differs from `sim (TCG)` the ratio depends on timing (column `timing`).\n",
        calib
            .iter()
            .map(|(s, v, m)| format!("{s}: {v:.3} s / {m:.4} s"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        md,
        "{}\n",
        if background.is_empty() {
            format!("**The VM side includes the guest's background** (kernel threads, timers, the harness): scx_arbor counts every task of the guest, the simulator only the workload's. These VM results have no `{BACKGROUND}` cell to measure it.")
        } else {
            format!(
                "**The VM side includes the guest's background** (kernel threads, timers, the harness): scx_arbor counts every task of the guest, the simulator only its own tasks. Idle (`{BACKGROUND}`), the guest makes {} wake-ups per second. The simulator runs that rate beside each workload (`+background:r={}`: one task per CPU sleeping on a timer, exponential intervals, {} ns of work per wake-up; sim/src/workload/background.rs): its wake-ups enter the denominators, and a timer's wake-up is charged to the task it interrupts (record_wakee's flips), as in the guest. Not subtracted from the VM side: the background while a workload runs is not the idle one. Column `sim (TCG) without background` is the simulator without it.",
                background
                    .iter()
                    .map(|(s, r)| format!("{s} {r:.0}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                bg_rate.unwrap_or(0),
                arbor_sim::workload::background::WORK_NS
            )
        }
    );
    let _ = writeln!(
        md,
        "| scheduler | workload | ratio | VM | sim (TCG) | difference | | sim (native) | timing | sim (TCG) without background | denominator per run (VM / sim TCG) |\n|---|---|---|---|---|---|---|---|---|---|---|"
    );
    let (mut compared, mut differ, mut missing, mut timed) = (0, Vec::new(), 0, 0);
    // (compared, agreeing) among the ratios that do not move with timing
    let (mut steady, mut steady_ok) = (0, 0);
    let f3 = |x: Option<f64>| x.map(|x| format!("{x:.3}")).unwrap_or("-".into());
    for s in SCHEDS {
        for w in WORKLOADS {
            for (name, num, den) in RATIOS {
                let v = ratio(&vm, s, w, num, den);
                let m = ratio(&sim, s, w, num, den);
                let n = ratio(&native, s, w, num, den);
                let p = ratio(&sim_plain, s, w, num, den);
                let timing = match (m, n) {
                    (Some(m), Some(n)) if !agree(m, n) => {
                        timed += 1;
                        "depends"
                    }
                    (Some(_), Some(_)) => "",
                    _ => "-",
                };
                let (diff, mark) = match (v, m) {
                    (Some(v), Some(m)) => {
                        compared += 1;
                        let ok = agree(v, m);
                        if timing.is_empty() {
                            steady += 1;
                            steady_ok += ok as u32;
                        }
                        if !ok {
                            differ.push(format!("{s} {w} {name}: VM {v:.3}, sim {m:.3}"));
                        }
                        (
                            format!("{:+.3}", m - v),
                            if ok { "ok" } else { "**differs**" },
                        )
                    }
                    _ => {
                        missing += 1;
                        ("-".to_string(), "no data")
                    }
                };
                let _ = writeln!(
                    md,
                    "| {s} | `{w}` | {name} | {} | {} | {diff} | {mark} | {} | {timing} | {} | {} |",
                    f3(v),
                    f3(m),
                    f3(n),
                    f3(p),
                    events_cell(&vm, &sim, s, w, den)
                );
            }
        }
    }
    let _ = writeln!(
        md,
        "\n**{} of {compared} ratios agree within {:.0}%; {} differ; {missing} without data on a side.** {timed} ratios move by more than the tolerance between the simulator at TCG's pace and at full speed; of the {steady} compared ratios that do not, {steady_ok} agree.\n",
        compared - differ.len(),
        TOLERANCE * 100.0,
        differ.len()
    );
    println!("{md}");
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        std::fs::write(dir.join("report.md"), &md)?;
        eprintln!("arbor sim validate: report in {}", dir.display());
    }
    eprintln!(
        "arbor sim validate: simulator side: {}",
        speed_line(&done, wall)
    );
    Ok(if differ.is_empty() && compared > 0 {
        0
    } else {
        1
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_is_relative_with_a_floor_for_rare_events() {
        assert!(agree(0.50, 0.54));
        assert!(!agree(0.50, 0.57));
        assert!(agree(0.010, 0.019)); // both rare
        assert!(!agree(0.010, 0.030));
        assert!(agree(0.0, 0.0));
    }

    #[test]
    fn the_background_rate_is_wake_ups_per_wall_second() {
        let mut m = Means::new();
        let k = |s: &str, c: &str| (s.to_string(), BACKGROUND.to_string(), c.to_string());
        m.insert(k("arbor:stock", "wall_s"), 3.0);
        m.insert(k("arbor:stock", "wakeups"), 300.0);
        m.insert(k("arbor:seeds", "wall_s"), 0.0);
        m.insert(k("arbor:seeds", "wakeups"), 300.0);
        assert_eq!(
            background_rates(&m),
            vec![("arbor:stock".to_string(), 100.0)]
        );
    }

    #[test]
    fn ratios_read_bench_cells_and_sum_denominators() {
        let mut m = Means::new();
        let k = |c: &str| ("arbor:stock".to_string(), "w".to_string(), c.to_string());
        m.insert(k("newidle_pulls"), 30.0);
        m.insert(k("newidle_fails"), 10.0);
        m.insert(k("wakeups"), 0.0);
        assert_eq!(
            ratio(
                &m,
                "arbor:stock",
                "w",
                &["newidle_pulls"],
                &["newidle_pulls", "newidle_fails"]
            ),
            Some(0.75)
        );
        assert_eq!(
            ratio(&m, "arbor:stock", "w", &["newidle_pulls"], &["wakeups"]),
            None
        );
        assert_eq!(
            ratio(&m, "arbor:stock", "w", &["steal"], &["newidle_fails"]),
            None
        );
    }

    /// The denominators are shown per run, VM first; a side without the
    /// counter shows '-'.
    #[test]
    fn events_cell_shows_each_sides_denominator_per_run() {
        let k = |c: &str| ("arbor:stock".to_string(), "w".to_string(), c.to_string());
        let mut vm = Means::new();
        vm.insert(k("newidle_fails"), 61.0);
        vm.insert(k("newidle_skips"), 30.0);
        let mut sim = Means::new();
        sim.insert(k("newidle_fails"), 10.4);
        sim.insert(k("newidle_skips"), 1.0);
        let den = ["newidle_fails", "-newidle_skips"];
        assert_eq!(events_cell(&vm, &sim, "arbor:stock", "w", &den), "31 / 9");
        assert_eq!(
            events_cell(&vm, &Means::new(), "arbor:stock", "w", &den),
            "31 / -"
        );
    }

    #[test]
    fn the_simulator_runs_the_measured_background_and_reports_under_the_vm_label() {
        let rates = vec![
            ("arbor:stock".to_string(), 313.3),
            ("arbor:seeds".to_string(), 285.7),
        ];
        assert_eq!(background_rate(&rates), Some(300));
        assert_eq!(background_rate(&[]), None);
        let w = with_background(Some(300));
        assert_eq!(w[1], "perf-pipe:l=5000+background:r=300");
        assert_eq!(with_background(None)[1], "perf-pipe:l=5000");
        for (w, plain) in w.iter().zip(WORKLOADS) {
            assert_eq!(base_label(w), *plain);
            // the simulator takes every one of them
            arbor_sim::workload::spec::parse(w, 8, 1).unwrap();
        }
    }

    #[test]
    fn the_vm_side_warms_up_before_the_compared_workloads() {
        let a = bench_args("2s2c2t", 3, Path::new("out"));
        let ws: Vec<&str> = a
            .windows(2)
            .filter(|p| p[0] == "-w")
            .map(|p| p[1].as_str())
            .collect();
        assert_eq!(ws.first(), Some(&WARMUP));
        assert_eq!(&ws[1..=WORKLOADS.len()], WORKLOADS);
        assert_eq!(ws.last(), Some(&BACKGROUND));
        assert!(!WORKLOADS.contains(&WARMUP));
        crate::bench::workload::Workload::parse(WARMUP, 8).unwrap();
    }

    #[test]
    fn newidle_scans_leave_out_the_attempts_that_scanned_nothing() {
        // 40 attempts, 25 of them stopped by the cost gate or the dice
        // before any scan: 10 pulls in 15 scans
        let mut m = Means::new();
        let k = |c: &str| ("arbor:stock".to_string(), "w".to_string(), c.to_string());
        m.insert(k("newidle_pulls"), 10.0);
        m.insert(k("newidle_fails"), 30.0);
        m.insert(k("newidle_skips"), 25.0);
        let (_, num, den) = RATIOS
            .iter()
            .find(|r| r.0 == "newidle pulls / newidle scan")
            .expect("the ratio is in the set");
        let r = ratio(&m, "arbor:stock", "w", num, den).unwrap();
        assert!((r - 10.0 / 15.0).abs() < 1e-12, "{r}");
        // every attempt skipped: nothing to compare
        m.insert(k("newidle_pulls"), 0.0);
        m.insert(k("newidle_skips"), 30.0);
        assert_eq!(ratio(&m, "arbor:stock", "w", num, den), None);
    }

    #[test]
    fn every_counter_named_exists_and_both_sides_parse_the_set() {
        for (_, num, den) in RATIOS {
            for c in num.iter().chain(den.iter()) {
                let c = c.strip_prefix('-').unwrap_or(c);
                assert!(scx_arbor::stats::NAMES.contains(&c), "{c}");
            }
        }
        for w in WORKLOADS {
            crate::bench::workload::Workload::parse(w, 8).unwrap();
            arbor_sim::workload::spec::parse(w, 8, 1).unwrap();
        }
    }
}
