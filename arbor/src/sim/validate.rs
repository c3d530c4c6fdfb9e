//! `arbor sim validate`: the simulator checked against the VM on what does
//! not depend on timing. The same schedulers and workloads run in an
//! `arbor vm` guest (through `arbor bench`: real kernel, real BPF, TCG's
//! wrong timing) and in the simulator on the guest's preset; the ratios of
//! scx_arbor's own counters (affine moves per wake-up, idle CPU found per
//! wake-up, ...) are compared, and a ratio that differs by more than the
//! tolerance fails the command.
//!
//! **Trace rows** (`--traces DIR`) ask whether real programs, replayed,
//! agree better than the hand-written models. The guest runs each workload
//! three ways in one boot: under EEVDF (no sched_ext) inside `perf record`
//! of the sched tracepoints (`arbor bench --record-traces DIR`), and under
//! each scx_arbor profile as for the model rows. A trace row compares
//! - VM: scx_arbor's counters while it ran the real program (the same
//!   cells as the model rows, plus pgbench against the guest's real
//!   PostgreSQL);
//! - sim: the EEVDF recording of that program replayed causally
//!   (`-w trace:FILE`) under the same scx_arbor profile, on the guest's
//!   preset, at TCG's pace, with the same guest background as the model
//!   rows.
//!
//! The recording is made under EEVDF, not scx_arbor, on purpose: what a
//! trace keeps is the program's own behaviour (its bursts and who wakes
//! whom), and the replay must let the scheduler under test place it, as a
//! user's `perf sched record` on a kernel without sched_ext would. The
//! recorded bursts are TCG wall time: each vCPU runs k times slower than
//! the cost model's machine (k = `tcg_slowdown`) and shares one host thread
//! with the other busy vCPUs. The replay at TCG's pace applies both again,
//! so its bursts are scaled by 1 / (k x n), n = the vCPUs the program kept
//! busy while it was recorded (its CPU time over its wall time in the
//! trace, at least 1; [`trace_scale`], crate::workload::record): measured, never fitted to the
//! ratios. (bench's `busy_pct` cannot serve: its wall time includes perf's
//! own start and end, minutes under TCG.)

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

use crate::simrun::{execute, speed_line, Done, Plan};
use crate::workload::record::trace_scale;

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
    /// Write report.md here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Trace rows: the workloads recorded in the guest under EEVDF (`perf
    /// record`, in DIR), replayed in the simulator under each scx_arbor
    /// profile, beside scx_arbor's counters in the VM. Without
    /// --vm-results, the VM side runs EEVDF too and records into DIR.
    #[arg(long, value_name = "DIR")]
    traces: Option<PathBuf>,
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

/// Run in the VM with --traces only, and compared in trace rows only: a
/// real PostgreSQL, which the simulator has as a model too, but which the
/// hand-written model rows never covered (their 30 of 39 is over
/// WORKLOADS). A fixed number of transactions per client, not a time
/// window: under `perf record` in a TCG guest `time=3` ended before any
/// client's first transaction did, and pgbench printed no result
/// (docs/findings/2026-11-26-trace-seeds).
pub const PGBENCH: &str = "pgbench:clients=4,xacts=100";

/// The scheduler whose runs are recorded (no sched_ext: the kernel's own
/// EEVDF placement), run in the VM with --traces only.
pub const RECORDED: &str = "eevdf";

/// Run in the VM only: nothing but the guest's own background (kernel
/// threads, timers, the harness). scx_arbor counts every task of the
/// guest, the simulator only the workload's; the report states the
/// background's rate so that a reader can judge how much it dilutes.
pub const BACKGROUND: &str = "idle:t=3";

/// Run in the VM first, in every (scheduler, rep), and not compared: the
/// first `perf bench` of a boot made ~3,600 more wake-ups than the later
/// ones (without WF_SYNC; 14,104-14,829 against 10,469-10,632 in four VM
/// runs, always arbor:stock's rep 1, the first perf run after boot:
/// docs/findings/2026-11-23-sim-validate-second), which took its "affine
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
    let text = crate::report::read_json_text(&path)?;
    let r: BenchResults =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let mut m = Means::new();
    for c in r.cells {
        let name = match c.metric.strip_prefix("c:") {
            Some(n) => n.to_string(),
            None if ["time_s", "wall_s", "busy_pct"].contains(&c.metric.as_str()) => {
                c.metric.clone()
            }
            None => continue,
        };
        if let Some(v) = c.mean {
            m.insert((c.scheduler, c.workload, name), v);
        }
    }
    Ok(m)
}

/// The counter means of plan `pi`'s runs, each under the VM's label of its
/// workload (`label` maps the simulator's workload spec to it).
fn sim_means(plan: &Plan, pi: usize, done: &[Done], label: &dyn Fn(&str) -> String) -> Means {
    mean_by_label(done.iter().filter(|d| d.plan == pi).map(|d| {
        (
            plan.scheds[d.sched].label.clone(),
            label(&plan.workloads[d.workload]),
            d.out.counters.as_slice(),
        )
    }))
}

/// Each counter's mean over the runs of a (scheduler, label): runs of
/// several simulator workloads under one label (a model's seeds, the
/// replays of each repetition's recording) are averaged together.
fn mean_by_label<'a>(runs: impl Iterator<Item = (String, String, &'a [(String, u64)])>) -> Means {
    let mut sums: std::collections::BTreeMap<(String, String, String), (f64, u32)> =
        Default::default();
    for (sched, label, counters) in runs {
        for (k, v) in counters {
            let e = sums
                .entry((sched.clone(), label.clone(), k.clone()))
                .or_default();
            e.0 += *v as f64;
            e.1 += 1;
        }
    }
    sums.into_iter()
        .map(|(k, (s, n))| (k, s / n.max(1) as f64))
        .collect()
}

/// The workloads of the trace rows, as the VM runs them.
pub fn traced_workloads() -> Vec<&'static str> {
    WORKLOADS.iter().copied().chain([PGBENCH]).collect()
}

/// The replay's keys for a workload's recording: what perf ran (the
/// default), except for pgbench, whose server (forked by the postmaster,
/// not by perf) is chosen by name with its clients.
pub fn replay_keys(workload: &str) -> &'static str {
    if workload.starts_with("pgbench") {
        ",comm=pgbench|postgres"
    } else {
        ""
    }
}

/// The simulator's trace workloads: (spec, VM label) for each recording in
/// `dir` of a traced workload (`arbor bench --record-traces` names them),
/// repetitions 1..=100, with the background when there is one, and what
/// the replay knows of WF_SYNC. A file that does not read as a trace is an
/// error.
fn trace_specs(dir: &Path, k: f64, bg: Option<u32>) -> Result<Vec<(String, String, String)>> {
    let mut v = Vec::new();
    for w in traced_workloads() {
        for rep in 1..=100 {
            let f = crate::workload::record::trace_file(dir, w, rep);
            if !f.is_file() {
                continue;
            }
            let base = format!("{}{}", f.display(), replay_keys(w));
            let sum = &arbor_sim::workload::trace::load(&base)?.summary;
            let scale = trace_scale(k, sum.cpu_ns, sum.wall_ns);
            let mut spec = format!("trace:{base},scale={scale:.6}");
            if let Some(r) = bg {
                spec.push_str(&format!("+background:r={r}"));
            }
            let sync = format!(
                "{} of {} dependency wake-ups sync: {}",
                sum.wakes_dep_sync, sum.wakes_dep, sum.sync_source
            );
            v.push((spec, w.to_string(), sync));
        }
    }
    Ok(v)
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

fn bench_args(topology: &str, reps: u32, out: &Path, traces: Option<&Path>) -> Vec<String> {
    let mut v = vec!["bench".to_string(), "-t".into(), topology.into()];
    for s in traces.map(|_| &RECORDED).into_iter().chain(SCHEDS) {
        v.extend(["-s".to_string(), s.to_string()]);
    }
    let pg = traces.map(|_| &PGBENCH);
    for w in [&WARMUP]
        .into_iter()
        .chain(WORKLOADS)
        .chain(pg)
        .chain([&BACKGROUND])
    {
        v.extend(["-w".to_string(), w.to_string()]);
    }
    if let Some(t) = traces {
        v.extend(["--record-traces".to_string(), t.display().to_string()]);
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

/// One compared ratio of one (scheduler, workload).
#[derive(Clone, Debug, PartialEq)]
pub struct Cmp {
    pub sched: String,
    pub workload: String,
    pub name: &'static str,
    pub den: &'static [&'static str],
    pub vm: Option<f64>,
    /// the simulator at TCG's pace, at full speed, and at TCG's pace
    /// without the background (None when not run)
    pub sim: Option<f64>,
    pub native: Option<f64>,
    pub plain: Option<Option<f64>>,
}

impl Cmp {
    /// Whether the ratio moves between the simulator's two paces.
    fn timing(&self) -> Option<bool> {
        Some(!agree(self.sim?, self.native?))
    }

    fn ok(&self) -> Option<bool> {
        Some(agree(self.vm?, self.sim?))
    }

    fn differs(&self) -> Option<String> {
        (self.ok() == Some(false)).then(|| {
            format!(
                "{} {} {}: VM {:.3}, sim {:.3}",
                self.sched,
                self.workload,
                self.name,
                self.vm.unwrap_or_default(),
                self.sim.unwrap_or_default()
            )
        })
    }
}

/// Every ratio of RATIOS for each scheduler of SCHEDS and each workload.
fn compare(
    vm: &Means,
    sim: &Means,
    native: &Means,
    plain: Option<&Means>,
    workloads: &[&str],
) -> Vec<Cmp> {
    let mut v = Vec::new();
    for s in SCHEDS {
        for w in workloads {
            for (name, num, den) in RATIOS {
                v.push(Cmp {
                    sched: s.to_string(),
                    workload: w.to_string(),
                    name,
                    den,
                    vm: ratio(vm, s, w, num, den),
                    sim: ratio(sim, s, w, num, den),
                    native: ratio(native, s, w, num, den),
                    plain: plain.map(|p| ratio(p, s, w, num, den)),
                });
            }
        }
    }
    v
}

/// The counts of a set of compared ratios.
#[derive(Debug, Default, PartialEq)]
pub struct Tally {
    /// with data on both sides, and agreeing
    pub compared: u32,
    pub agree: u32,
    /// without data on a side
    pub missing: u32,
    /// moving between the simulator's two paces
    pub timed: u32,
    /// compared and not moving with timing, and of those agreeing
    pub steady: u32,
    pub steady_ok: u32,
}

fn tally(rows: &[Cmp]) -> Tally {
    let mut t = Tally::default();
    for c in rows {
        let timed = c.timing() == Some(true);
        t.timed += timed as u32;
        match c.ok() {
            Some(ok) => {
                t.compared += 1;
                t.agree += ok as u32;
                if c.timing() == Some(false) {
                    t.steady += 1;
                    t.steady_ok += ok as u32;
                }
            }
            None => t.missing += 1,
        }
    }
    t
}

/// The comparison table: its header, then a row per ratio.
fn write_table(md: &mut String, rows: &[Cmp], vm: &Means, sim: &Means) {
    let _ = writeln!(
        md,
        "| scheduler | workload | ratio | VM | sim (TCG) | difference | | sim (native) | timing | sim (TCG) without background | denominator per run (VM / sim TCG) |\n|---|---|---|---|---|---|---|---|---|---|---|"
    );
    write_rows(md, rows, vm, sim);
}

fn write_rows(md: &mut String, rows: &[Cmp], vm: &Means, sim: &Means) {
    let f3 = |x: Option<f64>| x.map(|x| format!("{x:.3}")).unwrap_or("-".into());
    for c in rows {
        let timing = match c.timing() {
            Some(true) => "depends",
            Some(false) => "",
            None => "-",
        };
        let (diff, mark) = match (c.vm, c.sim, c.ok()) {
            (Some(v), Some(m), Some(ok)) => (
                format!("{:+.3}", m - v),
                if ok { "ok" } else { "**differs**" },
            ),
            _ => ("-".to_string(), "no data"),
        };
        let _ = writeln!(
            md,
            "| {} | `{}` | {} | {} | {} | {diff} | {mark} | {} | {timing} | {} | {} |",
            c.sched,
            c.workload,
            c.name,
            f3(c.vm),
            f3(c.sim),
            f3(c.native),
            c.plain.map(f3).unwrap_or("-".into()),
            events_cell(vm, sim, &c.sched, &c.workload, c.den)
        );
    }
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
    // the VM side records only when it runs now
    let recording = a.traces.as_deref().filter(|_| a.vm_results.is_none());
    if a.print_bench_command {
        println!(
            "arbor {}",
            bench_args(&a.topology, a.reps, &vm_dir, recording).join(" ")
        );
        return Ok(0);
    }
    if a.job.is_none() && a.vm_results.is_none() {
        eprintln!(
            "arbor sim validate: the VM side first: arbor {}",
            bench_args(&a.topology, a.reps, &vm_dir, recording).join(" ")
        );
        let st = Command::new(crate::simrun::self_exe()?)
            .args(bench_args(&a.topology, a.reps, &vm_dir, recording))
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
    // the simulated sides differ only in pace, workloads and repetitions
    let side = |cfg, workloads: &[String], reps| -> Result<Plan> {
        let mut p = Plan::new(
            plan.machine.clone(),
            plan.cost.clone(),
            cfg,
            Knobs::default(),
            &scheds,
            workloads,
            reps,
            1,
        )?;
        p.trace = None;
        Ok(p)
    };
    let tcg = side(tcg_config(k), &with_bg, a.reps)?;
    let native = side(plan.cfg.clone(), &with_bg, a.reps)?;
    let tcg_plain = side(tcg_config(k), &plain, a.reps)?;
    let traces = match &a.traces {
        Some(d) => trace_specs(d, k, bg_rate)?,
        None => Vec::new(),
    };
    if a.traces.is_some() && traces.is_empty() {
        bail!(
            "--traces {}: no recording of {}; record them with: arbor {}",
            a.traces.as_deref().unwrap_or(Path::new("")).display(),
            traced_workloads().join(", "),
            bench_args(&a.topology, a.reps, &vm_dir, a.traces.as_deref()).join(" ")
        );
    }
    let trace_wls: Vec<String> = traces.iter().map(|t| t.0.clone()).collect();
    let mut plans = vec![tcg, native, tcg_plain];
    if !traces.is_empty() {
        // one replay per recording: the recordings carry the run-to-run spread
        plans.push(side(tcg_config(k), &trace_wls, 1)?);
        plans.push(side(plan.cfg.clone(), &trace_wls, 1)?);
    }
    let wall = std::time::Instant::now();
    let Some(done) = execute(&plans, a.job)? else {
        return Ok(0);
    };
    let model_label = |w: &str| base_label(w).to_string();
    let sim = sim_means(&plans[0], 0, &done, &model_label);
    let native = sim_means(&plans[1], 1, &done, &model_label);
    let sim_plain = sim_means(&plans[2], 2, &done, &model_label);
    let trace_label = |w: &str| {
        traces
            .iter()
            .find(|t| t.0 == w)
            .map(|t| t.1.clone())
            .unwrap_or_default()
    };
    let (trace_sim, trace_native) = if traces.is_empty() {
        (Means::new(), Means::new())
    } else {
        (
            sim_means(&plans[3], 3, &done, &trace_label),
            sim_means(&plans[4], 4, &done, &trace_label),
        )
    };

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
    let model = compare(&vm, &sim, &native, Some(&sim_plain), WORKLOADS);
    write_table(&mut md, &model, &vm, &sim);
    let t = tally(&model);
    let _ = writeln!(
        md,
        "\n**{} of {} ratios agree within {:.0}%; {} differ; {} without data on a side.** {} ratios move by more than the tolerance between the simulator at TCG's pace and at full speed; of the {} compared ratios that do not, {} agree.\n",
        t.agree,
        t.compared,
        TOLERANCE * 100.0,
        t.compared - t.agree,
        t.missing,
        t.timed,
        t.steady,
        t.steady_ok
    );
    let mut differ: Vec<String> = model.iter().filter_map(Cmp::differs).collect();
    if !traces.is_empty() {
        let files = traces
            .iter()
            .map(|t| {
                format!(
                    "- `{}`: {}",
                    t.0.strip_prefix("trace:").unwrap_or(&t.0),
                    t.2
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        let _ = writeln!(
            md,
            "## Trace rows: real programs recorded in the guest, replayed\n\nVM: scx_arbor's counters while it ran the real program (the cells above, and `{PGBENCH}` against the guest's PostgreSQL). sim: the program's recording in the same boot under `{RECORDED}` (no sched_ext; `perf record` of the sched tracepoints), replayed causally under the same scx_arbor profile on the `{}` preset, one replay per recording, with the same background. Bursts are scaled by 1 / ({k:.1} x the vCPUs the program kept busy in its recording): the recording is TCG wall time, which the replay at TCG's pace would otherwise slow twice. Column `sim (TCG) without background` is not run for traces. WF_SYNC of each replayed wake-up is read from its kernel call chain (sched_waking's, resolved with the guest's kallsyms: `arbor_sim::workload::trace::ksyms`). The replays:\n\n{files}\n",
            a.topology
        );
        let tw = traced_workloads();
        let trace = compare(&vm, &trace_sim, &trace_native, None, &tw);
        write_table(&mut md, &trace, &vm, &trace_sim);
        let tt = tally(&trace);
        let common: Vec<Cmp> = trace
            .iter()
            .filter(|c| WORKLOADS.contains(&c.workload.as_str()))
            .cloned()
            .collect();
        let tc = tally(&common);
        let _ = writeln!(
            md,
            "\n**Trace rows: {} of {} ratios agree within {:.0}%; {} without data on a side; {} move with timing; of the {} that do not, {} agree.** On the model rows' workloads only: {} of {} agree, {} of {} timing-independent (model rows: {} of {}).\n",
            tt.agree,
            tt.compared,
            TOLERANCE * 100.0,
            tt.missing,
            tt.timed,
            tt.steady,
            tt.steady_ok,
            tc.agree,
            tc.compared,
            tc.steady_ok,
            tc.steady,
            t.steady_ok,
            t.steady
        );
        differ.extend(trace.iter().filter_map(Cmp::differs));
    }
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
    Ok(if differ.is_empty() && t.compared > 0 {
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

    /// Means of arbor:stock's counters on workload "w".
    fn stock_w(counters: &[(&str, f64)]) -> Means {
        counters
            .iter()
            .map(|&(c, v)| (("arbor:stock".into(), "w".into(), c.into()), v))
            .collect()
    }

    #[test]
    fn ratios_read_bench_cells_and_sum_denominators() {
        let m = stock_w(&[
            ("newidle_pulls", 30.0),
            ("newidle_fails", 10.0),
            ("wakeups", 0.0),
        ]);
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
        let vm = stock_w(&[("newidle_fails", 61.0), ("newidle_skips", 30.0)]);
        let sim = stock_w(&[("newidle_fails", 10.4), ("newidle_skips", 1.0)]);
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
        let a = bench_args("2s2c2t", 3, Path::new("out"), None);
        let ws: Vec<&str> = a
            .windows(2)
            .filter(|p| p[0] == "-w")
            .map(|p| p[1].as_str())
            .collect();
        assert_eq!(ws.first(), Some(&WARMUP));
        assert_eq!(&ws[1..=WORKLOADS.len()], WORKLOADS);
        assert_eq!(ws.last(), Some(&BACKGROUND));
        assert!(!WORKLOADS.contains(&WARMUP));
        crate::workload::Workload::parse(WARMUP, 8).unwrap();
    }

    #[test]
    fn newidle_scans_leave_out_the_attempts_that_scanned_nothing() {
        // 40 attempts, 25 of them stopped by the cost gate or the dice
        // before any scan: 10 pulls in 15 scans
        let mut m = stock_w(&[
            ("newidle_pulls", 10.0),
            ("newidle_fails", 30.0),
            ("newidle_skips", 25.0),
        ]);
        let (_, num, den) = RATIOS
            .iter()
            .find(|r| r.0 == "newidle pulls / newidle scan")
            .expect("the ratio is in the set");
        let r = ratio(&m, "arbor:stock", "w", num, den).unwrap();
        assert!((r - 10.0 / 15.0).abs() < 1e-12, "{r}");
        // every attempt skipped: nothing to compare
        m.extend(stock_w(&[("newidle_pulls", 0.0), ("newidle_skips", 30.0)]));
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
            crate::workload::Workload::parse(w, 8).unwrap();
            arbor_sim::workload::spec::parse(w, 8, 1).unwrap();
        }
    }

    #[test]
    fn a_replay_at_tcg_pace_undoes_the_recordings_slowdown_and_sharing() {
        // a ping-pong: one vCPU busy at a time
        assert!((trace_scale(80.0, 900, 1000) - 1.0 / 80.0).abs() < 1e-12);
        // 8 vCPUs busy shared one host thread: 8 times longer again
        assert!((trace_scale(80.0, 8000, 1000) - 1.0 / 640.0).abs() < 1e-12);
        assert!((trace_scale(50.0, 2000, 1000) - 1.0 / 100.0).abs() < 1e-12);
        // nothing recorded still counts one busy vCPU
        assert!((trace_scale(50.0, 0, 0) - 1.0 / 50.0).abs() < 1e-12);
    }

    #[test]
    fn trace_specs_replay_each_recording_under_its_vm_label() {
        let d = tempfile::tempdir().unwrap();
        let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim/tests/fixtures/trace");
        let hb = WORKLOADS[0];
        let pipe = WORKLOADS[1];
        for (w, rep, f) in [
            (hb, 1, "hackbench.data"),
            (hb, 2, "hackbench.data"),
            (pipe, 1, "pipe.data"),
        ] {
            std::fs::copy(
                fx.join(f),
                crate::workload::record::trace_file(d.path(), w, rep),
            )
            .unwrap();
        }
        let v = trace_specs(d.path(), 10.0, Some(300)).unwrap();
        assert_eq!(v.len(), 3, "{v:?}");
        assert!(v[..2].iter().all(|(_, l, _)| l == hb));
        // a recording without call chains says so
        assert!(
            v[0].2.contains("unknown, replayed as not sync"),
            "{}",
            v[0].2
        );
        assert_eq!(v[2].1, pipe);
        assert!(v[0].0.contains("-r1.data,scale="), "{}", v[0].0);
        assert!(v[0].0.ends_with("+background:r=300"), "{}", v[0].0);
        assert!(v[1].0.contains("-r2.data,"), "{}", v[1].0);
        let scale = |spec: &str| -> f64 {
            let t = spec.strip_prefix("trace:").unwrap();
            let t = &t[..t.rfind("+background").unwrap()];
            let (file, sel) = arbor_sim::workload::trace::parse_spec(t).unwrap();
            assert!(Path::new(&file).is_file());
            sel.scale
        };
        // the ping-pong keeps about one vCPU busy: 1/k; hackbench more
        assert!((scale(&v[2].0) - 0.1).abs() < 1e-6, "{}", v[2].0);
        assert!(scale(&v[0].0) < 0.1, "{}", v[0].0);
        assert!(!trace_specs(d.path(), 10.0, None).unwrap()[0]
            .0
            .contains("+background"));
        // pgbench's server is chosen by name
        std::fs::copy(
            fx.join("pipe.data"),
            crate::workload::record::trace_file(d.path(), PGBENCH, 1),
        )
        .unwrap();
        let e = trace_specs(d.path(), 10.0, None).unwrap_err();
        assert!(format!("{e:#}").contains("comm=pgbench|postgres"), "{e:#}");
        // not a trace: an error, not a panic
        std::fs::write(
            crate::workload::record::trace_file(d.path(), PGBENCH, 1),
            b"x",
        )
        .unwrap();
        assert!(trace_specs(d.path(), 10.0, None).is_err());
    }

    /// Trace rows on crafted counters: each recording's replay is averaged
    /// under the VM's label, the ratios are the same as the model rows', a
    /// ratio that moves between the two paces is left out of the
    /// timing-independent count, and a side without data is counted apart.
    #[test]
    fn trace_rows_compare_the_replays_means_with_the_vms_counters() {
        let hb = WORKLOADS[0].to_string();
        let c = |pairs: &[(&str, u64)]| -> Vec<(String, u64)> {
            pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
        };
        let r1 = c(&[
            ("wakeups", 1000),
            ("affine_moves", 500),
            ("found_idle_cpu", 100),
        ]);
        let r2 = c(&[
            ("wakeups", 3000),
            ("affine_moves", 1300),
            ("found_idle_cpu", 700),
        ]);
        let sim = mean_by_label(
            [
                ("arbor:stock".to_string(), hb.clone(), r1.as_slice()),
                ("arbor:stock".to_string(), hb.clone(), r2.as_slice()),
            ]
            .into_iter(),
        );
        let key = |c: &str| ("arbor:stock".to_string(), hb.clone(), c.to_string());
        assert_eq!(sim[&key("wakeups")], 2000.0);
        assert_eq!(sim[&key("affine_moves")], 900.0);
        // at full speed the affine share moves, the idle share does not
        let mut native = sim.clone();
        native.insert(key("affine_moves"), 1500.0);
        let mut vm = Means::new();
        vm.insert(key("wakeups"), 10_000.0);
        vm.insert(key("affine_moves"), 4600.0); // 0.46 vs 0.45: agrees
        vm.insert(key("found_idle_cpu"), 3000.0); // 0.30 vs 0.20: differs
        let rows = compare(&vm, &sim, &native, None, &[WORKLOADS[0]]);
        let get = |n: &str| {
            rows.iter()
                .find(|r| r.sched == "arbor:stock" && r.name == n)
                .unwrap()
        };
        let a = get("affine moves / wake-up");
        assert_eq!(
            (a.vm, a.sim, a.ok(), a.timing()),
            (Some(0.46), Some(0.45), Some(true), Some(true))
        );
        let i = get("idle CPU found / wake-up");
        assert_eq!(i.ok(), Some(false));
        assert_eq!(i.timing(), Some(false));
        assert!(i.differs().unwrap().contains("VM 0.300, sim 0.200"));
        let t = tally(&rows);
        // arbor:seeds has no data at all, arbor:stock only two ratios
        assert_eq!(t.missing, 11 + 9);
        assert_eq!(t.compared, 2);
        assert_eq!(t.agree, 1);
        assert_eq!(t.timed, 1);
        // the affine share moves with timing: only the idle share counts
        assert_eq!((t.steady, t.steady_ok), (1, 0));
        let mut md = String::new();
        write_rows(&mut md, &rows, &vm, &sim);
        assert!(md.contains("| arbor:stock | `hackbench:g=2,l=100` | idle CPU found / wake-up | 0.300 | 0.200 | -0.100 | **differs** | 0.200 |  | - | 10000 / 2000 |"), "{md}");
    }
}
