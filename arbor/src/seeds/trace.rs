//! Traces of the seeds' real programs for `arbor sim reproduce`: which
//! lines a recording can stand in for, recording them on this machine
//! (`--record-traces`), and the replay spec of a recording (`--traces`).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::catalogue::Table;
use crate::workload::record::{file_stem, perf_record_argv, trace_scale};

/// The lines a recorded trace can stand in for: real programs whose
/// result the replay can give. hackbench's `time_s` is the replay's; a
/// pgbench trace holds a fixed set of transactions (recorded with
/// `xacts=`), so 1 / its replay time changes as its tps would. schbench's
/// latencies are not what a replay measures, and schbench is not packaged
/// for Debian: those keep their models.
pub fn traced(spec: &str) -> bool {
    spec.starts_with("hackbench:") || spec.starts_with("pgbench:")
}

/// Transactions a pgbench line's recording holds in all, over its clients
/// (`xacts=` = this / clients, rounded up): enough that the replay's window
/// is the clients' steady state, and a recording of a few MB.
const RECORDED_XACTS: u32 = 4000;

/// The spec `--record-traces` runs for a seed's pgbench line: its `time=`
/// (seconds, which a replay cannot hold fixed) becomes a fixed number of
/// transactions, [`RECORDED_XACTS`] over its clients.
fn recorded_pgbench_spec(spec: &str) -> Result<String> {
    let (_, keys) = spec.split_once(':').unwrap_or((spec, ""));
    let mut clients = 1u32;
    let mut kept = Vec::new();
    for kv in keys.split(',').filter(|k| !k.is_empty()) {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        match k {
            "time" | "xacts" => {}
            "clients" => {
                clients = v
                    .parse()
                    .ok()
                    .filter(|c| *c > 0)
                    .with_context(|| format!("{spec}: clients={v} is not a count"))?;
                kept.push(kv.to_string());
            }
            _ => kept.push(kv.to_string()),
        }
    }
    kept.push(format!("xacts={}", RECORDED_XACTS.div_ceil(clients)));
    Ok(format!("pgbench:{}", kept.join(",")))
}

/// pgbench's processes in a recording, as replay keys: pgbench and the
/// PostgreSQL processes that ended during it (its connections' backends,
/// forked by the postmaster, not by perf), from the last backend's fork
/// on. The server's own processes (postmaster, checkpointer, walwriter,
/// ...) outlive the recording, asleep most of it: replayed, they would
/// hold the replay open to the recording's end. Before its first
/// connection pgbench is loading itself and its libraries, IO waits that
/// interrupts end (in a guest, over its 9p root: 594 of the sched_waking
/// events for pgbench in an 8-client recording ran in the idle task,
/// docs/findings/2026-11-26-trace-seeds), which a replay keeps as fixed
/// sleeps. Then it opens its connections one after another, each waiting
/// for the postmaster (not replayed) to fork a backend: timing the replay
/// holds fixed, and which pgbench's own tps leaves out ("without initial
/// connection time": pgbench 15's threadRun connects every client before
/// its first transaction). The window starts at the last backend's fork,
/// so it is the transactions (and the last backend's own start).
fn pgbench_keys(file: &Path) -> Result<String> {
    let c = arbor_sim::workload::trace::census::Census::read(file)?;
    let procs = c.processes();
    let exited = |threads: &Vec<i32>| {
        threads
            .iter()
            .all(|t| c.threads.get(t).is_some_and(|th| th.exited))
    };
    let mut pgbench = Vec::new();
    let mut backends = Vec::new();
    for (tgid, threads) in &procs {
        match c.name(*tgid).as_str() {
            "pgbench" => pgbench.push(*tgid),
            "postgres" if exited(threads) => backends.push(*tgid),
            _ => {}
        }
    }
    if pgbench.is_empty() || backends.is_empty() {
        bail!(
            "{}: no pgbench process with backends that ended in the recording",
            file.display()
        );
    }
    let starts = |tgids: &[i32]| -> Vec<u64> {
        tgids
            .iter()
            .flat_map(|p| procs[p].iter())
            .filter_map(|t| c.threads.get(t).map(|th| th.first_t))
            .collect()
    };
    let all: Vec<i32> = pgbench.iter().chain(&backends).copied().collect();
    let last_backend = starts(&backends).into_iter().max().unwrap_or(0);
    let first_all = starts(&all).into_iter().min().unwrap_or(0);
    let from_ns = last_backend.saturating_sub(first_all);
    let pids: Vec<String> = all.iter().map(|p| p.to_string()).collect();
    Ok(format!(
        ",pid={},from={:.6}",
        pids.join("|"),
        from_ns as f64 / 1e9
    ))
}

/// The replay of `spec`'s recording in `dir`: its processes (pgbench's:
/// [`pgbench_keys`]), and with `k` (a TCG guest's slowdown) the scale
/// that brings its bursts back to the cost model's machine at full speed:
/// 1 / (k x the vCPUs it kept busy), [`trace_scale`].
pub fn replay_spec(dir: &Path, spec: &str, k: Option<f64>) -> Result<String> {
    let file = trace_file(dir, spec);
    let keys = if spec.starts_with("pgbench:") {
        pgbench_keys(&file).with_context(|| format!("the trace of {spec}"))?
    } else {
        String::new()
    };
    let base = format!("{}{keys}", file.display());
    let Some(k) = k else {
        return Ok(format!("trace:{base}"));
    };
    let sum = &arbor_sim::workload::trace::load(&base)
        .with_context(|| format!("the trace of {spec}"))?
        .summary;
    let scale = trace_scale(k, sum.cpu_ns, sum.wall_ns);
    Ok(format!("trace:{base},scale={scale:.8}"))
}

/// `DIR/hackbench_g_2_l_1000_ipc_socket.data` for `hackbench:g=2,l=1000,ipc=socket`.
pub fn trace_file(dir: &Path, spec: &str) -> PathBuf {
    dir.join(format!("{}.data", file_stem(spec)))
}

/// Records each traced line of `tables` on this machine: `perf record` of
/// the sched tracepoints the replay reads, around the same command
/// `arbor bench` runs for the spec.
pub fn record_traces(tables: &[&Table], dir: &Path) -> Result<i32> {
    use crate::workload::{Env, Workload};
    if !Path::new("/sys/kernel/tracing/events/sched").is_dir() {
        bail!("--record-traces: tracefs is not mounted (as root: mount -t tracefs nodev /sys/kernel/tracing)");
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let ncpu = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    let mut specs: Vec<&str> = tables
        .iter()
        .flat_map(|t| t.lines.iter().map(|l| l.workload))
        .filter(|w| traced(w))
        .collect();
    specs.sort_unstable();
    specs.dedup();
    let (pgbench, specs): (Vec<&str>, Vec<&str>) =
        specs.into_iter().partition(|w| w.starts_with("pgbench:"));
    for spec in pgbench {
        record_pgbench(spec, dir)?;
    }
    for spec in specs {
        let f = trace_file(dir, spec);
        let argv = Workload::parse(spec, ncpu)?.argv(&Env::SHOWN);
        let rec = perf_record_argv(&f);
        let mut cmd = std::process::Command::new(&rec[0]);
        cmd.args(&rec[1..])
            .args(&argv)
            .stdout(std::process::Stdio::null());
        eprintln!(
            "arbor sim reproduce: recording {} -> {}",
            argv.join(" "),
            f.display()
        );
        let st = cmd
            .status()
            .context("running perf (install it: scripts/install-deps.sh)")?;
        if !st.success() {
            bail!(
                "--record-traces: perf record of '{}' failed ({st})",
                argv.join(" ")
            );
        }
        arbor_sim::workload::trace::ksyms::save_for(&f)
            .with_context(|| format!("--record-traces: the kallsyms copy of {}", f.display()))?;
    }
    Ok(0)
}

/// Records a seed's pgbench line on this machine under its own kernel:
/// `arbor bench --host -s eevdf` starts PostgreSQL (its data in a private
/// directory, fsync off) and runs the line as [`recorded_pgbench_spec`]
/// inside `perf record`; the recording and its kallsyms copy are then
/// moved to the name `--traces` reads for the seed's spec.
fn record_pgbench(spec: &str, dir: &Path) -> Result<()> {
    let run = recorded_pgbench_spec(spec)?;
    let tmp = tempfile::Builder::new()
        .prefix(".arbor-pgrec.")
        .tempdir_in(dir)
        .with_context(|| format!("creating a directory in {}", dir.display()))?;
    let rec = tmp.path().join("rec");
    eprintln!("arbor sim reproduce: recording {run} (for {spec}) with arbor bench --host");
    let st = std::process::Command::new(crate::simrun::self_exe()?)
        .args(["bench", "--host", "-s", "eevdf", "-w", &run, "-r", "1"])
        .args(["--no-charts", "--force", "--record-traces"])
        .arg(&rec)
        .arg("-o")
        .arg(tmp.path().join("bench"))
        .stdout(std::process::Stdio::null())
        .status()
        .context("running arbor bench")?;
    if !st.success() {
        bail!("--record-traces: arbor bench --host could not record {run} ({st})");
    }
    // the name bench gave the recording of `run`'s only repetition
    let made = crate::workload::record::trace_file(&rec, &run, 1);
    let f = trace_file(dir, spec);
    for ext in ["", ".kallsyms"] {
        let from = PathBuf::from(format!("{}{ext}", made.display()));
        let to = PathBuf::from(format!("{}{ext}", f.display()));
        std::fs::rename(&from, &to).with_context(|| {
            format!(
                "--record-traces: moving {} to {}",
                from.display(),
                to.display()
            )
        })?;
    }
    eprintln!("arbor sim reproduce: recorded {}", f.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traced_lines_are_recorded_and_replayed_by_name() {
        assert!(traced("pgbench:clients=8,jobs=1,time=1") && traced("hackbench:g=1"));
        assert!(!traced("schbench:m=1,w=1,r=1"));
        // a pgbench line is recorded as a fixed number of transactions
        assert_eq!(
            recorded_pgbench_spec("pgbench:clients=8,jobs=1,time=1").unwrap(),
            "pgbench:clients=8,jobs=1,xacts=500"
        );
        assert_eq!(
            recorded_pgbench_spec("pgbench:clients=24,jobs=1,time=1").unwrap(),
            "pgbench:clients=24,jobs=1,xacts=167"
        );
        assert!(recorded_pgbench_spec("pgbench:clients=0,time=1").is_err());
        // no k, no scale; pgbench's processes are read from its recording
        let d = Path::new("/t");
        let e = replay_spec(d, "pgbench:clients=8,jobs=1,time=1", None).unwrap_err();
        assert!(
            format!("{e:#}").contains("the trace of pgbench:clients=8,jobs=1,time=1"),
            "{e:#}"
        );
        assert_eq!(
            replay_spec(d, "hackbench:g=1,l=2000,ipc=socket", None).unwrap(),
            "trace:/t/hackbench_g_1_l_2000_ipc_socket.data"
        );
        // with k the trace is read for its scale: a missing one says so
        let e = replay_spec(d, "hackbench:g=1", Some(100.0)).unwrap_err();
        assert!(
            format!("{e:#}").contains("the trace of hackbench:g=1"),
            "{e:#}"
        );
    }
}
