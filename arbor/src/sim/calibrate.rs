//! `arbor sim calibrate`: the simulator checked against the machine it runs
//! on. Every Linux host is real parallel hardware whose own kernel runs the
//! placement `arbor:stock` ports, sched_ext or not. So: run a small suite
//! natively under the host's scheduler, measure the host's own costs with
//! microbenchmarks, simulate the same suite on the host's snapshot under
//! `arbor:stock` (by model, and by a trace recorded here when tracefs is
//! there), with the preset family's costs and with the measured ones, and
//! print real against simulated as a ratio with its spread.
//!
//! Closeness is what it measures, not what it asserts: `make test` runs
//! `--quick` and checks only that every ratio is finite.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use arbor_sim::core::Config;
use arbor_sim::cost::CostModel;
use arbor_sim::machine::Machine;
use arbor_sim::run::{simulate, RunSpec};
use arbor_sim::sched::SchedSpec;
use arbor_sim::snapshot;
use clap::Args;
use scx_arbor::knobs::Knobs;
use serde::Serialize;

use crate::report::summary;
use crate::workload::{check_wakeprobe, wakeprobe_bin, Env, Workload};

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Real runs and simulated runs (seeds) per workload.
    #[arg(short, long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..=50))]
    reps: u32,
    /// The short form `make test` runs: small workloads, fewer
    /// microbenchmark rounds.
    #[arg(long)]
    quick: bool,
    /// Write report.md, results.json and summary.json here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// min / median / max of a sample.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Spread {
    pub min: f64,
    pub median: f64,
    pub max: f64,
}

impl Spread {
    pub fn of(v: &[f64]) -> Option<Spread> {
        let mut v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Some(Spread {
            min: v[0],
            median,
            max: v[n - 1],
        })
    }
    fn show(&self, scale: f64) -> String {
        format!(
            "{:.3} ({:.3}–{:.3})",
            self.median * scale,
            self.min * scale,
            self.max * scale
        )
    }
}

/// sim / real: the ratio of medians, and the widest ratio the two spreads
/// allow (sim min / real max .. sim max / real min).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Ratio {
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Ratio {
    pub fn of(sim: &Spread, real: &Spread) -> Ratio {
        Ratio {
            ratio: sim.median / real.median,
            lo: sim.min / real.max,
            hi: sim.max / real.min,
        }
    }
    pub fn finite(&self) -> bool {
        self.ratio.is_finite() && self.lo.is_finite() && self.hi.is_finite() && self.ratio > 0.0
    }
}

/// The host's costs, measured (ns), and how each cost-model field follows.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Micro {
    /// write() of one byte into a pipe nobody waits on, then its read().
    pub write_ns: f64,
    pub read_ns: f64,
    /// Ping-pong of two threads pinned to one CPU: half a round trip (one
    /// write that wakes the partner, one read that blocks and switches).
    pub same_cpu_half_ns: f64,
    /// The write() of that ping-pong (it wakes a task on this CPU).
    pub same_cpu_write_ns: f64,
    /// Two threads on two CPUs: the write() that wakes the partner blocked
    /// on the other, idle CPU, and from that write's start to the
    /// partner's read() returning there.
    pub cross_write_ns: f64,
    pub cross_wake_to_run_ns: f64,
    /// The same with the partner's CPU kept busy (a SCHED_IDLE spinner
    /// there, which the wake-up preempts): no idle exit on the way.
    pub busy_write_ns: f64,
    pub busy_wake_to_run_ns: f64,
    /// Idle target less busy target: what waking an idle CPU adds (its
    /// idle-state exit; in a virtual machine, the vCPU's halt exit and
    /// the host's wake-up of it).
    pub idle_exit_ns: f64,
    /// The cost-model fields these give (ns).
    pub wakeup_ns: f64,
    pub ctx_switch_ns: f64,
    pub ipi_ns: f64,
    /// The arithmetic, for the report.
    pub how: Vec<String>,
}

/// How many times the microbenchmarks are repeated (`--quick`: 3).
const REPEATS: usize = 5;
/// A measured cost is suggested only if its repeats agree: (max − min) /
/// median at most this. Each repeat is a median of thousands of rounds,
/// so on a quiet machine the repeats agree within a few percent; a wider
/// spread is other load, or a hypervisor scheduling the vCPUs.
const MAX_REL_SPREAD: f64 = 0.25;
/// ... and only if its median is within this factor of the preset's
/// value either way: the presets' costs are cited measurements of real
/// hardware (sim/src/cost.rs), and a cost four times off is a noisy or
/// virtualised measurement (a VM exit per IPI or halt), not another CPU.
const PLAUSIBLE_FACTOR: f64 = 4.0;

/// One cost-model field over the repeats of the microbenchmarks.
#[derive(Clone, Debug, Serialize)]
pub struct Cost {
    pub name: String,
    pub preset: f64,
    pub measured: Spread,
    /// What `--cost` gets: the measured median, or the preset's value.
    pub suggested: f64,
    /// Why the measured median is not suggested; empty if it is.
    pub refused: String,
}

impl Cost {
    fn of(name: &str, preset: f64, v: &[f64]) -> Cost {
        let measured = Spread::of(v).unwrap_or(Spread {
            min: f64::NAN,
            median: f64::NAN,
            max: f64::NAN,
        });
        let rel = (measured.max - measured.min) / measured.median;
        let refused = if !(measured.median.is_finite() && measured.median > 0.0) {
            format!("measured {:.0} ns: not a cost", measured.median)
        } else if !(rel <= MAX_REL_SPREAD) {
            format!(
                "unstable: its {} repeats span {:.0}–{:.0} ns, {:.0}% of the median (at most {:.0}%)",
                v.len(),
                measured.min,
                measured.max,
                rel * 100.0,
                MAX_REL_SPREAD * 100.0
            )
        } else if measured.median > preset * PLAUSIBLE_FACTOR
            || measured.median < preset / PLAUSIBLE_FACTOR
        {
            format!(
                "implausible: {:.0} ns is more than {PLAUSIBLE_FACTOR:.0}x from the preset's {preset:.0}",
                measured.median
            )
        } else {
            String::new()
        };
        Cost {
            name: name.into(),
            preset,
            measured,
            suggested: if refused.is_empty() {
                measured.median
            } else {
                preset
            },
            refused,
        }
    }
}

/// The hypervisor's CPUID signature (leaf 0x40000000: "KVMKVMKVM" for
/// KVM), when CPUID's hypervisor bit (leaf 1, ECX bit 31) is set.
fn hypervisor() -> Option<String> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::__cpuid;
        let l1 = __cpuid(1);
        if l1.ecx & (1 << 31) == 0 {
            return None;
        }
        // leaf 0x40000000 is the hypervisor's
        let h = __cpuid(0x4000_0000);
        let b: Vec<u8> = [h.ebx, h.ecx, h.edx]
            .iter()
            .flat_map(|r| r.to_le_bytes())
            .filter(|&c| c != 0)
            .collect();
        let sig = String::from_utf8_lossy(&b).trim().to_string();
        Some(match sig.as_str() {
            "KVMKVMKVM" => "KVM".into(),
            "" => "unknown".into(),
            s => s.into(),
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub workload: String,
    /// What is compared: `time_s` (s) or the probe's `p99_us` (µs).
    pub metric: String,
    /// "model" or "trace FILE"
    pub sim_by: String,
    pub real: Option<Spread>,
    pub before: Option<Spread>,
    pub after: Option<Spread>,
    pub ratio_before: Option<Ratio>,
    pub ratio_after: Option<Ratio>,
    pub note: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Calibration {
    pub host: String,
    pub cpus: usize,
    pub reps: u32,
    /// The microbenchmarks' medians over the repeats.
    pub micro: Micro,
    /// Each cost over the repeats, and whether it is suggested.
    pub costs: Vec<Cost>,
    /// The hypervisor this runs under (CPUID leaf 0x40000000), if any.
    pub hypervisor: Option<String>,
    pub cost_flags: String,
    pub rows: Vec<Row>,
}

pub fn main(a: &CalibrateArgs) -> Result<i32> {
    let snap = snapshot::read(Path::new("/sys")).context("reading this machine's topology")?;
    eprintln!("{}", snap.assumed);
    let machine = snap.machine;
    let ncpu = machine.nr_cpus();
    if ncpu < 2 {
        bail!("calibrate needs at least 2 online CPUs (this machine has {ncpu}): the cross-CPU wake-up is one of its measurements");
    }
    let rounds = if a.quick { 2_000 } else { 20_000 };
    let repeats = if a.quick { 3 } else { REPEATS };
    eprintln!("arbor sim calibrate: microbenchmarks ({rounds} rounds each, {repeats} times) ...");
    let runs = (0..repeats)
        .map(|_| micro(rounds, &machine))
        .collect::<Result<Vec<_>>>()?;
    let micro = Micro::median(&runs);
    let before = CostModel::default();
    let of = |f: fn(&Micro) -> f64| runs.iter().map(f).collect::<Vec<f64>>();
    let costs = vec![
        Cost::of(
            "ctx_switch_ns",
            before.ctx_switch_ns,
            &of(|m| m.ctx_switch_ns),
        ),
        Cost::of("wakeup_ns", before.wakeup_ns, &of(|m| m.wakeup_ns)),
        Cost::of("ipi_ns", before.ipi_ns, &of(|m| m.ipi_ns)),
    ];
    let mut after = before.clone();
    after.ctx_switch_ns = costs[0].suggested;
    after.wakeup_ns = costs[1].suggested;
    after.ipi_ns = costs[2].suggested;
    let cost_flags = format!(
        "--cost ctx_switch_ns={:.0} --cost wakeup_ns={:.0} --cost ipi_ns={:.0}",
        after.ctx_switch_ns, after.wakeup_ns, after.ipi_ns
    );
    // (workload, the metric compared): message passing by its time, and
    // a message thread waking 8 workers in turn (one FUTEX_WAKE each) by
    // the probe's wake-up p99, which counts each worker's place in the
    // batch (core/wake_batch.rs)
    let suite: Vec<(&str, &str)> = if a.quick {
        vec![
            ("hackbench:g=2,l=50", "time_s"),
            ("perf-pipe:l=2000", "time_s"),
            ("wakeprobe:m=1,w=8,t=1,k=4", "p99_us"),
        ]
    } else {
        vec![
            ("hackbench:g=4,l=200", "time_s"),
            ("perf-pipe:l=20000", "time_s"),
            ("wakeprobe:m=1,w=8,t=2,k=4", "p99_us"),
        ]
    };
    let probe = wakeprobe_bin();
    let env = Env {
        wakeprobe: &probe.to_string_lossy(),
        pg_host: Env::SHOWN.pg_host,
    };
    let tmp = tempfile::tempdir().context("a temporary directory for traces")?;
    let mut rows = Vec::new();
    for &(spec, metric) in &suite {
        eprintln!("arbor sim calibrate: {spec}: {} real runs ...", a.reps);
        let w = Workload::parse(spec, ncpu as u32)?;
        let argv = w.argv(&env);
        let runs = check_wakeprobe(&probe, std::slice::from_ref(&w))
            .and_then(|()| real_runs(&w, &argv, a.reps, metric));
        let (real, note) = match runs {
            Ok(v) => (Spread::of(&v), String::new()),
            Err(e) => (None, format!("real runs skipped: {e:#}")),
        };
        // (simulated time_s, the recorded run's wall for a trace)
        let sim = |cost: &CostModel, wl: &str| -> Result<(Option<Spread>, Option<f64>)> {
            let mut v = Vec::new();
            let mut rec = None;
            for seed in 1..=a.reps as u64 {
                let o = simulate(
                    &RunSpec {
                        machine: &machine,
                        cost,
                        cfg: Config::default(),
                        sched: &SchedSpec::parse("arbor:stock")?,
                        knobs: &Knobs::default(),
                        workload: wl,
                        seed,
                    },
                    |_| {},
                )?;
                for m in &o.metrics {
                    if m.name == metric {
                        v.push(m.value);
                    } else if m.name == "recorded_time_s" {
                        rec = Some(m.value);
                    }
                }
            }
            Ok((Spread::of(&v), rec))
        };
        let row = |by: String,
                   real: Option<Spread>,
                   b: Option<Spread>,
                   f: Option<Spread>,
                   note: String| Row {
            workload: spec.to_string(),
            metric: metric.to_string(),
            sim_by: by,
            real,
            ratio_before: b.zip(real).map(|(s, r)| Ratio::of(&s, &r)),
            ratio_after: f.zip(real).map(|(s, r)| Ratio::of(&s, &r)),
            before: b,
            after: f,
            note,
        };
        rows.push(row(
            "model".into(),
            real,
            sim(&before, spec)?.0,
            sim(&after, spec)?.0,
            note.clone(),
        ));
        // the same program, recorded here and replayed: compared with the
        // recorded run itself (recording slows a program down); a replay
        // gives the run's time, so only a timed workload has this row
        if metric != "time_s" {
            continue;
        }
        match record(&argv, &tmp.path().join(format!("{}.data", rows.len()))) {
            Ok(f) => {
                let t = format!("trace:{}", f.display());
                let (b, recorded) = sim(&before, &t)?;
                let (f, _) = sim(&after, &t)?;
                let real = recorded.and_then(|x| Spread::of(&[x]));
                rows.push(row(
                    "trace recorded here".into(),
                    real,
                    b,
                    f,
                    "real = the recorded run (1 run, under perf)".into(),
                ));
            }
            Err(e) => rows.push(row(
                "trace".into(),
                None,
                None,
                None,
                format!("no trace: {e:#}"),
            )),
        }
    }
    let c = Calibration {
        host: std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap_or_default()
            .trim()
            .to_string(),
        cpus: ncpu,
        reps: a.reps,
        micro,
        costs,
        hypervisor: hypervisor(),
        cost_flags,
        rows,
    };
    let md = markdown(&c);
    println!("{md}");
    if let Some(dir) = &a.out {
        summary::write_outputs(dir, &md, &c)?;
        eprintln!("arbor sim calibrate: report in {}", dir.display());
    }
    // every model row must give finite ratios (its real runs must have
    // run); a trace row only where a trace could be recorded
    let bad: Vec<&Row> = c
        .rows
        .iter()
        .filter(|r| r.sim_by == "model" || r.before.is_some())
        .filter(|r| {
            !(r.ratio_before.is_some_and(|x| x.finite())
                && r.ratio_after.is_some_and(|x| x.finite()))
        })
        .collect();
    if !bad.is_empty() {
        eprintln!(
            "arbor sim calibrate: {} row(s) without a finite ratio",
            bad.len()
        );
        return Ok(1);
    }
    Ok(0)
}

/// `reps` native runs of the workload's real command (as `arbor bench`
/// runs it in a guest); its `metric` from each run's output.
fn real_runs(w: &Workload, argv: &[String], reps: u32, metric: &str) -> Result<Vec<f64>> {
    let mut v = Vec::new();
    for _ in 0..reps {
        let out = Command::new(&argv[0])
            .args(&argv[1..])
            .output()
            .with_context(|| {
                format!("running {} (scripts/install-deps.sh installs it)", argv[0])
            })?;
        if !out.status.success() {
            bail!("{} failed: {}", argv.join(" "), out.status);
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let t = w
            .parse_output(&text)
            .into_iter()
            .find(|(k, _)| *k == metric)
            .map(|(_, x)| x)
            .with_context(|| format!("no {metric} in the output of {}", argv.join(" ")))?;
        v.push(t);
    }
    Ok(v)
}

/// Records `argv` with the sched tracepoints the replay reads.
fn record(argv: &[String], file: &Path) -> Result<PathBuf> {
    if !Path::new("/sys/kernel/tracing/events/sched").is_dir() {
        bail!("tracefs is not mounted (as root: mount -t tracefs nodev /sys/kernel/tracing)");
    }
    let rec = crate::workload::record::perf_record_argv(file);
    let st = Command::new(&rec[0])
        .args(&rec[1..])
        .args(argv)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .context("running perf")?;
    if !st.success() {
        bail!("perf record failed ({st}): root, or perf_event_paranoid <= 1, is needed");
    }
    arbor_sim::workload::trace::ksyms::save_for(file)?;
    Ok(file.to_path_buf())
}

fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we pass
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn pin(cpu: usize) -> Result<()> {
    // SAFETY: a zeroed cpu_set_t is valid; CPU_SET writes inside it
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: the set outlives the call
    let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if r != 0 {
        bail!(
            "cannot pin a thread to CPU {cpu}: {}",
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}

struct Pipe {
    r: i32,
    w: i32,
}

impl Pipe {
    fn new() -> Result<Pipe> {
        let mut fds = [0i32; 2];
        // SAFETY: pipe writes two fds into the array
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            bail!("pipe: {}", std::io::Error::last_os_error());
        }
        Ok(Pipe {
            r: fds[0],
            w: fds[1],
        })
    }
    fn put(&self) {
        let b = [1u8];
        // SAFETY: one byte from a live buffer into our own pipe
        unsafe { libc::write(self.w, b.as_ptr().cast(), 1) };
    }
    fn get(&self) {
        let mut b = [0u8];
        // SAFETY: one byte into a live buffer from our own pipe
        unsafe { libc::read(self.r, b.as_mut_ptr().cast(), 1) };
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        // SAFETY: our own fds, closed once
        unsafe {
            libc::close(self.r);
            libc::close(self.w);
        }
    }
}

/// Ping-pong between a thread on `a` and one on `b`: the median half
/// round trip, the median duration of the first thread's write() (which
/// wakes the other), and the median time from that write's start to the
/// other thread's read() returning.
fn ping_pong(a: usize, b: usize, rounds: usize, busy: bool) -> Result<(f64, f64, f64)> {
    // a SCHED_IDLE spinner on `b` keeps it out of idle; any wake-up there
    // preempts it at once (check_preempt_wakeup_fair)
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let spinner = busy.then(|| {
        let stop = stop.clone();
        std::thread::spawn(move || -> Result<()> {
            pin(b)?;
            let p = libc::sched_param { sched_priority: 0 };
            // SAFETY: this thread's own policy, from a live sched_param
            if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &p) } != 0 {
                bail!("SCHED_IDLE: {}", std::io::Error::last_os_error());
            }
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                std::hint::spin_loop();
            }
            Ok(())
        })
    });
    let r = ping_pong_run(a, b, rounds);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    if let Some(s) = spinner {
        s.join()
            .map_err(|_| anyhow::anyhow!("the spinner thread panicked"))??;
    }
    r
}

fn ping_pong_run(a: usize, b: usize, rounds: usize) -> Result<(f64, f64, f64)> {
    let (ab, ba) = (
        std::sync::Arc::new(Pipe::new()?),
        std::sync::Arc::new(Pipe::new()?),
    );
    let (ab2, ba2) = (ab.clone(), ba.clone());
    let other = std::thread::spawn(move || -> Result<Vec<u64>> {
        pin(b)?;
        let mut woke = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            ab2.get();
            woke.push(now_ns());
            ba2.put();
        }
        Ok(woke)
    });
    pin(a)?;
    // let the other thread block in its first read
    std::thread::sleep(std::time::Duration::from_millis(20));
    let mut starts = Vec::with_capacity(rounds);
    let mut writes = Vec::with_capacity(rounds);
    let mut trips = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t0 = now_ns();
        ab.put();
        let t1 = now_ns();
        ba.get();
        let t2 = now_ns();
        starts.push(t0);
        writes.push((t1 - t0) as f64);
        trips.push((t2 - t0) as f64 / 2.0);
    }
    let woke = other
        .join()
        .map_err(|_| anyhow::anyhow!("the ping-pong thread panicked"))??;
    let to_run: Vec<f64> = starts
        .iter()
        .zip(&woke)
        .map(|(s, w)| w.saturating_sub(*s) as f64)
        .collect();
    let med = |v: &[f64]| Spread::of(v).map_or(f64::NAN, |s| s.median);
    Ok((med(&trips), med(&writes), med(&to_run)))
}

/// The microbenchmarks, and the cost-model fields they give.
fn micro(rounds: usize, m: &Machine) -> Result<Micro> {
    let p = Pipe::new()?;
    pin(0)?;
    let (mut w, mut r) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t0 = now_ns();
        p.put();
        let t1 = now_ns();
        p.get();
        let t2 = now_ns();
        w.push((t1 - t0) as f64);
        r.push((t2 - t1) as f64);
    }
    let med = |v: &[f64]| Spread::of(v).map_or(f64::NAN, |s| s.median);
    let (write_ns, read_ns) = (med(&w), med(&r));
    let (same_half, same_write, _) = ping_pong(0, 0, rounds, false)?;
    let (_, cross_write, cross_run) = ping_pong(0, 1, rounds, false)?;
    let (_, busy_write, busy_run) = ping_pong(0, 1, rounds, true)?;
    // unpin this thread again
    // SAFETY: a set with every CPU of the machine
    let mut all: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for c in 0..m.nr_cpus() {
        unsafe { libc::CPU_SET(c, &mut all) };
    }
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &all) };
    // try_to_wake_up on the waker's side: the write that wakes, less a
    // plain write
    let wakeup_ns = (same_write - write_ns).max(0.0);
    // one CPU: half a trip = the waking write + a read that blocks and
    // switches to the partner (whose read then returns) = write + wake +
    // read + switch
    let ctx_switch_ns = (same_half - same_write - read_ns).max(0.0);
    // two CPUs, the partner's kept busy: from the write's start to the
    // partner running = the waking write (the waker's side), the IPI, a
    // switch, and the partner's read returning. The idle target adds its
    // idle exit, which the model takes from the idle states, not ipi_ns.
    let ipi_ns = (busy_run - busy_write - ctx_switch_ns - read_ns).max(0.0);
    let idle_exit_ns = cross_run - busy_run;
    // the model's idle exit for an idle period of about one trip: the
    // deepest state whose target residency it meets (core/run.rs
    // enter_idle)
    let exit_ns = m
        .idle_states
        .iter()
        .filter(|s| (s.residency_ns as f64) <= cross_run)
        .last()
        .map_or(0.0, |s| s.exit_ns as f64);
    let how = vec![
        format!("plain pipe write {write_ns:.0} ns, read {read_ns:.0} ns (one thread, nobody waiting)"),
        format!("wakeup_ns = waking write on one CPU {same_write:.0} − plain write {write_ns:.0} = {wakeup_ns:.0}"),
        format!("ctx_switch_ns = half round trip on one CPU {same_half:.0} − waking write {same_write:.0} − read {read_ns:.0} = {ctx_switch_ns:.0}"),
        format!(
            "ipi_ns = write-to-run across CPUs, the target busy {busy_run:.0} − waking write {busy_write:.0} − ctx_switch {ctx_switch_ns:.0} − read {read_ns:.0} = {ipi_ns:.0}"
        ),
        format!(
            "waking an idle CPU adds {idle_exit_ns:.0} (write-to-run, target idle {cross_run:.0} − target busy {busy_run:.0}); the model's idle exit for that idle period: {exit_ns:.0}"
        ),
    ];
    Ok(Micro {
        write_ns,
        read_ns,
        same_cpu_half_ns: same_half,
        same_cpu_write_ns: same_write,
        cross_write_ns: cross_write,
        cross_wake_to_run_ns: cross_run,
        busy_write_ns: busy_write,
        busy_wake_to_run_ns: busy_run,
        idle_exit_ns,
        wakeup_ns,
        ctx_switch_ns,
        ipi_ns,
        how,
    })
}

impl Micro {
    /// Each field's median over `runs`; the arithmetic of the run whose
    /// ipi_ns is the median (the least stable of the three).
    fn median(runs: &[Micro]) -> Micro {
        let med = |f: fn(&Micro) -> f64| {
            Spread::of(&runs.iter().map(f).collect::<Vec<_>>()).map_or(f64::NAN, |s| s.median)
        };
        let mut by_ipi: Vec<&Micro> = runs.iter().collect();
        by_ipi.sort_by(|a, b| a.ipi_ns.total_cmp(&b.ipi_ns));
        Micro {
            write_ns: med(|m| m.write_ns),
            read_ns: med(|m| m.read_ns),
            same_cpu_half_ns: med(|m| m.same_cpu_half_ns),
            same_cpu_write_ns: med(|m| m.same_cpu_write_ns),
            cross_write_ns: med(|m| m.cross_write_ns),
            cross_wake_to_run_ns: med(|m| m.cross_wake_to_run_ns),
            busy_write_ns: med(|m| m.busy_write_ns),
            busy_wake_to_run_ns: med(|m| m.busy_wake_to_run_ns),
            idle_exit_ns: med(|m| m.idle_exit_ns),
            wakeup_ns: med(|m| m.wakeup_ns),
            ctx_switch_ns: med(|m| m.ctx_switch_ns),
            ipi_ns: med(|m| m.ipi_ns),
            how: by_ipi
                .get(runs.len() / 2)
                .map(|m| m.how.clone())
                .unwrap_or_default(),
        }
    }
}

/// What waking an idle CPU adds over waking a busy one, in words.
fn idle_text(ns: f64, cpu: &str) -> String {
    if ns > 0.0 {
        format!("waking an idle {cpu} costs {ns:.0} ns more than waking a busy one")
    } else {
        format!("waking an idle {cpu} costs no more than waking a busy one here ({ns:.0} ns: within the noise)")
    }
}

/// |log ratio|: how far from agreement.
fn off(r: &Option<Ratio>) -> Option<f64> {
    r.filter(|r| r.finite()).map(|r| r.ratio.ln().abs())
}

fn markdown(c: &Calibration) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# arbor sim calibrate: '{}' ({} CPUs)\n\nReal: measured natively on this machine under its own kernel's scheduler, {} runs each (median, min–max). Simulated: `arbor:stock` on this machine's snapshot (`--topology-from /sys`), {} seeds, with the preset family's costs (before) and with the costs measured below (after). Ratio = simulated / real median, in brackets the widest the two spreads allow; 1.00 is agreement.\n",
        c.host, c.cpus, c.reps, c.reps
    );
    let _ = writeln!(
        md,
        "## The host's costs, measured\n\nEach microbenchmark repeated; a cost is suggested only if its repeats span at most {:.0}% of their median and the median is within {PLAUSIBLE_FACTOR:.0}x of the preset's (else the preset's value is kept).\n\n| cost | preset family | measured: median (min–max) | spread | suggested | why not |\n|---|---|---|---|---|---|",
        MAX_REL_SPREAD * 100.0
    );
    for k in &c.costs {
        let m = &k.measured;
        let _ = writeln!(
            md,
            "| {} | {:.0} | {:.0} ({:.0}–{:.0}) | {:.0}% | {:.0} | {} |",
            k.name,
            k.preset,
            m.median,
            m.min,
            m.max,
            (m.max - m.min) / m.median * 100.0,
            k.suggested,
            k.refused
        );
    }
    let _ = writeln!(md, "\nThe arithmetic (the median repeat of ipi_ns):\n");
    for h in &c.micro.how {
        let _ = writeln!(md, "- {h}");
    }
    match &c.hypervisor {
        Some(h) => {
            let _ = writeln!(
                md,
                "\nThis is a virtual machine ({h}): {}; an idle vCPU's halt exit and the host's wake-up of its thread are the host's costs, not the hardware's (bare metal: the idle state's exit, a few hundred ns to tens of µs), and each cross-CPU wake-up may exit to the hypervisor, which is why ipi_ns measured here can be far above the hardware's.",
                idle_text(c.micro.idle_exit_ns, "vCPU")
            );
        }
        None => {
            let _ = writeln!(
                md,
                "\nNo hypervisor (CPUID): {} (its idle-state exit).",
                idle_text(c.micro.idle_exit_ns, "CPU")
            );
        }
    }
    let _ = writeln!(
        md,
        "\nTo use them for this machine: `arbor sim --topology-from DIR {}`\n",
        c.cost_flags
    );
    // the suggested costs must not make agreement worse unannounced
    for row in &c.rows {
        if let (Some(b), Some(a)) = (off(&row.ratio_before), off(&row.ratio_after)) {
            if a > b + 1e-9 {
                let _ = writeln!(
                    md,
                    "Warning: with these costs `{}` ({}) agrees worse than with the preset's: ratio {:.2} against {:.2}.\n",
                    row.workload,
                    row.sim_by,
                    row.ratio_after.map_or(f64::NAN, |r| r.ratio),
                    row.ratio_before.map_or(f64::NAN, |r| r.ratio)
                );
            }
        }
    }
    let _ = writeln!(
        md,
        "## Real against simulated\n\n| workload | metric | simulated by | real | sim, preset costs | ratio | sim, measured costs | ratio | note |\n|---|---|---|---|---|---|---|---|---|"
    );
    let s = |x: &Option<Spread>| x.map_or("-".into(), |s| s.show(1.0));
    let r = |x: &Option<Ratio>| {
        x.map_or("-".into(), |r| {
            format!("{:.2} [{:.2}, {:.2}]", r.ratio, r.lo, r.hi)
        })
    };
    for row in &c.rows {
        let _ = writeln!(
            md,
            "| `{}` | `{}` | {} | {} | {} | {} | {} | {} | {} |",
            row.workload,
            row.metric,
            row.sim_by,
            s(&row.real),
            s(&row.before),
            r(&row.ratio_before),
            s(&row.after),
            r(&row.ratio_after),
            row.note
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cost_is_suggested_only_when_stable_and_plausible() {
        let ok = Cost::of("ipi_ns", 1000.0, &[900.0, 1000.0, 1100.0]);
        assert_eq!((ok.suggested, ok.refused.as_str()), (1000.0, ""));
        // one repeat of 26,636 ns among ~2,000: unstable, the preset kept
        let noisy = Cost::of("ipi_ns", 1000.0, &[1900.0, 2100.0, 26636.0]);
        assert_eq!(noisy.suggested, 1000.0);
        assert!(noisy.refused.contains("unstable"), "{}", noisy.refused);
        // stable but 8x the preset (this KVM guest's ipi_ns)
        let far = Cost::of("ipi_ns", 1000.0, &[8_000.0, 8_400.0, 8_800.0]);
        assert_eq!(far.suggested, 1000.0);
        assert!(far.refused.contains("implausible"), "{}", far.refused);
        let zero = Cost::of("ipi_ns", 1000.0, &[0.0, 0.0, 0.0]);
        assert_eq!(zero.suggested, 1000.0);
        assert!(!zero.refused.is_empty());
    }

    #[test]
    fn spread_and_ratio() {
        let s = Spread::of(&[3.0, 1.0, 2.0, f64::NAN]).unwrap();
        assert_eq!((s.min, s.median, s.max), (1.0, 2.0, 3.0));
        let e = Spread::of(&[1.0, 4.0]).unwrap();
        assert_eq!(e.median, 2.5);
        assert!(Spread::of(&[]).is_none());
        let r = Ratio::of(&s, &e);
        assert_eq!((r.ratio, r.lo, r.hi), (0.8, 0.25, 3.0));
        assert!(r.finite());
        let z = Ratio::of(&s, &Spread::default());
        assert!(!z.finite());
    }
}
