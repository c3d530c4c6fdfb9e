//! `arbor bench guest PLAN.json`: the side of `arbor bench` that runs the
//! plan, inside the VM (or on the host itself with `--host`). It prints
//!   `@P <progress>` and `@R <Row as JSON>`
//! lines on stdout; the host keeps each row as it arrives.
//!
//! Per repetition, each scheduler in turn (A B C A B C ...) is loaded once
//! and runs every workload; around each workload the guest reads
//! /proc/stat, the migrations tracepoint and the scheduler's own counters
//! (its scx_stats server); after the last, its BPF ops' costs. A scheduler
//! that is ejected is marked (metric "ejected") and reloaded for the next
//! workload.

mod pg;
pub mod probes;
mod sched;

use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use scx_arbor::topology::Topo;

use super::plan::{GuestPlan, PlanSched, Run};
use crate::report::{Row, EJECTED};
use crate::workload::{Env, Workload};
use probes::{MigrationTrace, ProcStat, StatsInterval};
use sched::{EevdfSettings, Loaded};

/// A workload run longer than this is killed (and reported without a result).
const RUN_LIMIT: Duration = Duration::from_secs(1800);

fn say(s: &str) {
    let mut o = std::io::stdout().lock();
    let _ = writeln!(o, "@P {s}");
    let _ = o.flush();
}

struct Emitter<'a> {
    rep: u32,
    sched: &'a str,
    workload: &'a str,
}

impl Emitter<'_> {
    fn emit(&self, metric: &str, value: f64) {
        let row = Row {
            rep: self.rep,
            sched: self.sched.to_string(),
            workload: self.workload.to_string(),
            metric: metric.to_string(),
            value,
        };
        let mut o = std::io::stdout().lock();
        // a Row always serializes
        let _ = writeln!(o, "@R {}", serde_json::to_string(&row).unwrap_or_default());
        let _ = o.flush();
    }
}

/// The command line of one workload run: as postgres for pgbench (which
/// cannot enter our 0700 directory), under `perf record` into `record`
/// when the run is recorded (perf runs as root: it records every CPU).
fn workload_command(argv: &[String], as_postgres: bool, record: Option<&Path>) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(f) = record {
        v.extend(crate::workload::record::perf_record_argv(f));
    }
    if as_postgres {
        v.extend(["runuser", "-u", "postgres", "--"].map(String::from));
    }
    v.extend(argv.iter().cloned());
    v
}

/// Runs `argv` in the private directory `dir` (stress-ng writes its temp
/// files to its working directory; the repository is read-only in the
/// guest) with its output to `out`, killed after RUN_LIMIT; the exit code
/// (None when it could not run or was killed).
fn run_workload(
    argv: &[String],
    as_postgres: bool,
    record: Option<&Path>,
    dir: &Path,
    out: &Path,
) -> Result<Option<i32>> {
    let f = fs::File::create(out)?;
    let full = workload_command(argv, as_postgres, record);
    let mut c = Command::new(&full[0]);
    c.args(&full[1..])
        .current_dir(if as_postgres { Path::new("/") } else { dir });
    let mut child = c
        .stdin(Stdio::null())
        .stdout(f.try_clone()?)
        .stderr(f)
        .spawn()
        .with_context(|| format!("starting {}", full[0]))?;
    let t0 = Instant::now();
    loop {
        if let Some(st) = child.try_wait()? {
            return Ok(st.code());
        }
        if t0.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The running kernel's release, for messages and reports.
pub fn kernel_release() -> String {
    fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Why this machine cannot load a sched_ext scheduler, if it cannot.
pub fn no_sched_ext() -> Option<String> {
    (!Path::new("/sys/kernel/sched_ext").exists())
        .then(|| format!("this kernel ({}) has no sched_ext", kernel_release()))
}

/// The checks a user sees as one line before anything runs.
pub fn preflight(plan: &GuestPlan) -> Result<()> {
    // SAFETY: geteuid has no failure mode
    if unsafe { libc::geteuid() } != 0 {
        bail!("arbor bench runs schedulers and writes to debugfs: it must run as root");
    }
    let scx = plan.scheds.iter().any(|s| matches!(s.run, Run::Scx { .. }));
    if let Some(why) = no_sched_ext().filter(|_| scx) {
        bail!("{why} (/sys/kernel/sched_ext is missing)");
    }
    plan.check_wakeprobe()?;
    for s in &plan.scheds {
        if let Run::Scx { bin, .. } = &s.run {
            if !bin.is_file() {
                bail!("{}: {} is not installed", s.label, bin.display());
            }
        }
    }
    Ok(())
}

pub fn main(plan_path: &Path) -> Result<i32> {
    let text = fs::read_to_string(plan_path)
        .with_context(|| format!("reading {}", plan_path.display()))?;
    let plan: GuestPlan = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a bench plan", plan_path.display()))?;
    preflight(&plan)?;
    // private (0700) temporary files, not fixed /tmp names
    let tmp = tempfile::Builder::new()
        .prefix("arbor-bench.")
        .tempdir_in("/tmp")
        .context("creating a private temporary directory")?;
    let tmp = tmp.path();
    let wakeprobe = plan.wakeprobe.to_string_lossy().to_string();
    let scales = plan.pg_scales();
    let pg = if scales.is_empty() {
        None
    } else {
        Some(pg::Postgres::start(&scales, &say)?)
    };
    let pg_host = pg.as_ref().map(|p| p.host()).unwrap_or_default();
    let env = Env {
        wakeprobe: &wakeprobe,
        pg_host: &pg_host,
    };
    let _ = fs::write("/proc/sys/kernel/bpf_stats_enabled", "1");
    let topo = Topo::from_system()?;
    let trace = match MigrationTrace::open() {
        Ok(t) => Some(t),
        Err(e) => {
            say(&format!(
                "warning: migrations are not classed by distance: {e:#}"
            ));
            None
        }
    };
    say(&format!(
        "guest: {}, {} CPUs, {} schedulers x {} workloads x {} reps",
        kernel_release(),
        topo.all().count(),
        plan.scheds.len(),
        plan.workloads.len(),
        plan.reps
    ));
    let r = Runner {
        record: plan.record.as_deref(),
        tmp,
        env: &env,
        topo: &topo,
        trace: trace.as_ref(),
    };
    for rep in 1..=plan.reps {
        for s in &plan.scheds {
            r.one_scheduler(rep, s, &plan.workloads)?;
        }
    }
    drop(pg);
    say("finished");
    Ok(0)
}

struct Runner<'a> {
    /// where EEVDF's runs are recorded (GuestPlan::record)
    record: Option<&'a Path>,
    tmp: &'a Path,
    env: &'a Env<'a>,
    topo: &'a Topo,
    trace: Option<&'a MigrationTrace>,
}

impl Runner<'_> {
    fn load(&self, s: &PlanSched, rep: u32) -> Option<Loaded> {
        let Run::Scx { bin, args, ops } = &s.run else {
            return None;
        };
        say(&format!("rep {rep}: loading {}", s.label));
        let log = self.tmp.join(format!("sched-{rep}.log"));
        match Loaded::start(bin, args, ops, log) {
            Ok(l) => Some(l),
            Err(e) => {
                say(&format!("warning: {} failed to load: {e:#}", s.label));
                None
            }
        }
    }

    /// One repetition of every workload under one scheduler.
    fn one_scheduler(&self, rep: u32, s: &PlanSched, workloads: &[Workload]) -> Result<()> {
        let scx = matches!(s.run, Run::Scx { .. });
        let mut eevdf = match &s.run {
            Run::Eevdf { tokens } => Some(EevdfSettings::apply(tokens)?),
            Run::Scx { .. } => None,
        };
        let mut loaded = self.load(s, rep);
        let bpf0 = probes::bpf_snapshot();
        for w in workloads {
            let e = Emitter {
                rep,
                sched: &s.label,
                workload: &w.label,
            };
            if scx && loaded.is_none() {
                // not running: try once more, else record the failure
                loaded = self.load(s, rep);
                if loaded.is_none() {
                    e.emit(EJECTED, 1.0);
                    e.emit(w.primary(), f64::NAN);
                    say(&format!(
                        "done rep {rep} {} {}: FAILED (scheduler not loaded)",
                        s.label, w.label
                    ));
                    continue;
                }
            }
            let record = self
                .record
                .filter(|_| !scx)
                .map(|d| crate::workload::record::trace_file(d, &w.label, rep));
            let ejected = self.one_run(&e, w, loaded.as_mut(), record.as_deref())?;
            if ejected {
                if let Some(mut l) = loaded.take() {
                    l.stop();
                }
            }
        }
        if let Some(mut ev) = eevdf.take() {
            ev.undo();
        }
        if let Some(mut l) = loaded {
            let e = Emitter {
                rep,
                sched: &s.label,
                workload: "(all)",
            };
            for (op, ns) in probes::bpf_costs(&bpf0, &probes::bpf_snapshot()) {
                e.emit(&op, ns);
            }
            let st = l.stop();
            if !st.contains("exit status: 0") {
                say(&format!(
                    "warning: {} exited with {st}: {}",
                    s.label,
                    sched::tail(&l.log, 2)
                ));
            }
        }
        Ok(())
    }

    /// One workload run; returns whether the scheduler was ejected.
    fn one_run(
        &self,
        e: &Emitter,
        w: &Workload,
        mut loaded: Option<&mut Loaded>,
        record: Option<&Path>,
    ) -> Result<bool> {
        let stats = loaded
            .as_ref()
            .map(|_| StatsInterval::open(Path::new(probes::STATS_SOCKET), Duration::from_secs(30)));
        let stats = match stats {
            Some(Ok(s)) => Some(s),
            Some(Err(err)) => {
                say(&format!("warning: no counters from {}: {err:#}", e.sched));
                None
            }
            None => None,
        };
        let out = self.tmp.join("out");
        let argv = w.argv(self.env);
        let p0 = ProcStat::now();
        if let Some(t) = self.trace {
            t.start()?;
        }
        let t0 = Instant::now();
        // perf writes into the guest's own /tmp, then the file is copied to
        // the shared directory: perf wrote to the 9p share only a header
        // whose data size stayed 0 (exit 255, in the first VM run)
        let local = self.tmp.join("record.data");
        let rc = run_workload(
            &argv,
            w.pg_scale().is_some(),
            record.map(|_| local.as_path()),
            self.tmp,
            &out,
        )?;
        let wall = t0.elapsed().as_secs_f64();
        if let Some(dest) = record {
            match fs::copy(&local, dest) {
                Err(err) => say(&format!(
                    "warning: the recording of {} (rep {}) was not kept: {err}",
                    e.workload, e.rep
                )),
                // the addresses that resolve its wake-ups' call chains
                // (WF_SYNC), from this boot
                Ok(_) => {
                    if let Err(err) = arbor_sim::workload::trace::ksyms::save_for(dest) {
                        say(&format!(
                            "warning: no kallsyms copy for the recording of {} (rep {}): its wake-ups will replay as sync unknown: {err:#}",
                            e.workload, e.rep
                        ));
                    }
                }
            }
            let _ = fs::remove_file(&local);
        }
        let migr = self.trace.map(|t| t.stop()).transpose()?;
        let p1 = ProcStat::now();
        let ejected = match loaded.as_deref_mut() {
            Some(l) => {
                let gone = !l.alive();
                if gone {
                    say(&format!(
                        "warning: {} was ejected during {} (rep {}): {}",
                        e.sched,
                        e.workload,
                        e.rep,
                        sched::tail(&l.log, 2)
                    ));
                }
                gone
            }
            None => false,
        };
        e.emit(EJECTED, if ejected { 1.0 } else { 0.0 });
        let text = String::from_utf8_lossy(&fs::read(&out).unwrap_or_default()).to_string();
        let mut got = w.parse_output(&text);
        if w.timed_by_wall() {
            got.push(("time_s", wall));
        }
        if got.is_empty() || rc != Some(0) {
            // the workload's own reason when its output gives one, else its last lines
            let why = w.why_no_result(&text).unwrap_or_else(|| {
                let last: Vec<&str> = text.lines().rev().take(2).collect();
                last.join(" | ")
            });
            say(&format!(
                "warning: {} under {} (rep {}): {}, no result: {}",
                e.workload,
                e.sched,
                e.rep,
                match rc {
                    Some(c) => format!("exit {c}"),
                    None => format!("killed or died (limit {} s)", RUN_LIMIT.as_secs()),
                },
                why
            ));
            if got.is_empty() {
                e.emit(w.primary(), f64::NAN);
            }
        }
        for (m, v) in got {
            e.emit(m, v);
        }
        e.emit("wall_s", wall);
        let (busy, cs) = p0.rates(&p1, wall);
        e.emit("busy_pct", busy);
        e.emit("ctxsw_per_s", cs);
        if let Some((trace, lost)) = migr {
            for (m, v) in probes::classify_migrations(self.topo, &trace, wall) {
                e.emit(m, v);
            }
            if lost > 0 {
                say(&format!(
                    "warning: {lost} migration events lost (trace buffer full) in {} under {}",
                    e.workload, e.sched
                ));
            }
        }
        if let (Some(s), false) = (stats, ejected) {
            match s.close() {
                Ok(cs) => {
                    for (k, v) in cs {
                        e.emit(&format!("c:{k}"), v);
                    }
                }
                Err(err) => say(&format!("warning: no counters from {}: {err:#}", e.sched)),
            }
        }
        say(&format!(
            "done rep {} {} {} ({wall:.3}s)",
            e.rep, e.sched, e.workload
        ));
        Ok(ejected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_run_is_the_workload_under_perf_record() {
        let argv: Vec<String> = ["pgbench", "-c", "4"].map(String::from).to_vec();
        assert_eq!(workload_command(&argv, false, None), argv);
        let pg = workload_command(&argv, true, None);
        assert_eq!(pg[..4], ["runuser", "-u", "postgres", "--"]);
        let rec = workload_command(&argv, true, Some(Path::new("/t/x.data")));
        assert_eq!(rec[..2], ["perf", "record"]);
        // sched_waking's kernel call chain: where WF_SYNC shows
        assert!(rec.iter().any(|a| a == "sched:sched_waking/call-graph=fp/"));
        assert!(rec.iter().any(|a| a == "--kernel-callchains"));
        assert!(rec.iter().any(|a| a == "--no-buildid"));
        let sep = rec.iter().position(|a| a == "--").unwrap();
        assert!(rec[..sep]
            .windows(2)
            .any(|w| w[0] == "-o" && w[1] == "/t/x.data"));
        assert!(rec[..sep].contains(&"sched:sched_switch".to_string()));
        // perf runs as root around runuser: it records every CPU
        assert_eq!(rec[sep + 1..sep + 5], ["runuser", "-u", "postgres", "--"]);
        assert_eq!(rec[sep + 5..], argv[..]);
    }
}
