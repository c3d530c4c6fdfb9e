//! What the guest reads around each workload run: /proc/stat (busy %,
//! context switches), task migrations by distance (the sched_migrate_task
//! tracepoint through tracefs), the scheduler's BPF op costs (bpftool),
//! and the scheduler's own counters over the run (its scx_stats server).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use scx_arbor::topology::Topo;
use scx_stats::prelude::StatsClient;

/// /proc/stat's totals: busy and all jiffies, context switches.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ProcStat {
    pub busy: u64,
    pub total: u64,
    pub ctxt: u64,
}

impl ProcStat {
    pub fn parse(text: &str) -> ProcStat {
        let mut s = ProcStat::default();
        for l in text.lines() {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.first() {
                Some(&"cpu") => {
                    // user nice system idle iowait irq softirq steal
                    let v: Vec<u64> = f[1..]
                        .iter()
                        .take(8)
                        .map(|x| x.parse().unwrap_or(0))
                        .collect();
                    s.total = v.iter().sum();
                    let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
                    s.busy = s.total - idle;
                }
                Some(&"ctxt") => s.ctxt = f.get(1).and_then(|x| x.parse().ok()).unwrap_or(0),
                _ => {}
            }
        }
        s
    }

    pub fn now() -> ProcStat {
        ProcStat::parse(&fs::read_to_string("/proc/stat").unwrap_or_default())
    }

    /// (busy %, context switches per second) from `self` to `later`.
    pub fn rates(&self, later: &ProcStat, wall_s: f64) -> (f64, f64) {
        let t = later.total.saturating_sub(self.total);
        let b = later.busy.saturating_sub(self.busy);
        let busy = if t > 0 {
            100.0 * b as f64 / t as f64
        } else {
            0.0
        };
        let cs = if wall_s > 0.0 {
            later.ctxt.saturating_sub(self.ctxt) as f64 / wall_s
        } else {
            0.0
        };
        (busy, cs)
    }
}

/// Task migrations classed by how far they went, per second: in total,
/// within a core, within an LLC, across LLCs of a node, across nodes.
/// The classes come from the scheduler's own topology reading (scx_utils).
pub fn classify_migrations(topo: &Topo, trace: &str, wall_s: f64) -> Vec<(&'static str, f64)> {
    let (mut n, mut smt, mut llc, mut xllc, mut xnode) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for l in trace.lines() {
        let field = |k: &str| {
            l.split_whitespace()
                .find_map(|f| f.strip_prefix(k))
                .and_then(|v| v.parse::<usize>().ok())
        };
        let (Some(o), Some(d)) = (field("orig_cpu="), field("dest_cpu=")) else {
            continue;
        };
        n += 1;
        let cpu = |c: usize| topo.cpus.get(c).and_then(|x| x.as_ref());
        // counted, not classed, when a CPU is unknown (hot-added)
        let (Some(a), Some(b)) = (cpu(o), cpu(d)) else {
            continue;
        };
        if a.core == b.core {
            smt += 1;
        } else if a.llc == b.llc {
            llc += 1;
        } else if a.node == b.node {
            xllc += 1;
        } else {
            xnode += 1;
        }
    }
    if wall_s <= 0.0 {
        return vec![];
    }
    let r = |x: u64| x as f64 / wall_s;
    vec![
        ("migr_per_s", r(n)),
        ("migr_smt_per_s", r(smt)),
        ("migr_llc_per_s", r(llc)),
        ("migr_xllc_per_s", r(xllc)),
        ("migr_xnode_per_s", r(xnode)),
    ]
}

const TRACE: &str = "/sys/kernel/tracing";

/// The sched_migrate_task tracepoint, switched on around one run.
pub struct MigrationTrace;

impl MigrationTrace {
    /// Mounts tracefs if needed and sizes the buffer; an error says why
    /// migrations cannot be classed (the run goes on without them).
    pub fn open() -> Result<MigrationTrace> {
        let enable = format!("{TRACE}/events/sched/sched_migrate_task/enable");
        if !Path::new(&enable).exists() {
            let _ = std::process::Command::new("mount")
                .args(["-t", "tracefs", "nodev", TRACE])
                .status();
        }
        if !Path::new(&enable).exists() {
            bail!("no tracefs with sched_migrate_task at {TRACE}");
        }
        fs::write(format!("{TRACE}/buffer_size_kb"), "8192").context("sizing the trace buffer")?;
        Ok(MigrationTrace)
    }

    pub fn start(&self) -> Result<()> {
        fs::write(format!("{TRACE}/trace"), "").context("clearing the trace")?;
        fs::write(
            format!("{TRACE}/events/sched/sched_migrate_task/enable"),
            "1",
        )
        .context("enabling sched_migrate_task")
    }

    /// Stops tracing; the trace text and the events lost to a full buffer.
    pub fn stop(&self) -> Result<(String, u64)> {
        fs::write(
            format!("{TRACE}/events/sched/sched_migrate_task/enable"),
            "0",
        )?;
        let text = fs::read_to_string(format!("{TRACE}/trace")).context("reading the trace")?;
        let mut lost = 0;
        if let Ok(d) = fs::read_dir(format!("{TRACE}/per_cpu")) {
            for e in d.flatten() {
                let s = fs::read_to_string(e.path().join("stats")).unwrap_or_default();
                lost += s
                    .lines()
                    .filter_map(|l| l.strip_prefix("overrun:"))
                    .filter_map(|v| v.trim().parse::<u64>().ok())
                    .sum::<u64>();
            }
        }
        Ok((text, lost))
    }
}

/// Cumulative run time and count of each struct_ops program, from
/// `bpftool -j prog show` with kernel.bpf_stats_enabled=1.
pub fn bpf_snapshot() -> BTreeMap<String, (u64, u64)> {
    let Ok(out) = std::process::Command::new("bpftool")
        .args(["-j", "prog", "show"])
        .output()
    else {
        return BTreeMap::new();
    };
    parse_bpftool(&String::from_utf8_lossy(&out.stdout))
}

pub fn parse_bpftool(json: &str) -> BTreeMap<String, (u64, u64)> {
    let mut m = BTreeMap::new();
    let Ok(serde_json::Value::Array(progs)) = serde_json::from_str(json) else {
        return m;
    };
    for p in progs {
        if p.get("type").and_then(|t| t.as_str()) != Some("struct_ops") {
            continue;
        }
        let (Some(name), Some(ns), Some(cnt)) = (
            p.get("name").and_then(|x| x.as_str()),
            p.get("run_time_ns").and_then(|x| x.as_u64()),
            p.get("run_cnt").and_then(|x| x.as_u64()),
        ) else {
            continue;
        };
        m.insert(name.to_string(), (ns, cnt));
    }
    m
}

/// ns per call of each op between two snapshots (ops not called are left out).
pub fn bpf_costs(
    before: &BTreeMap<String, (u64, u64)>,
    after: &BTreeMap<String, (u64, u64)>,
) -> Vec<(String, f64)> {
    after
        .iter()
        .filter_map(|(k, &(ns, cnt))| {
            let (ns0, cnt0) = before.get(k).copied().unwrap_or((0, 0));
            let c = cnt.checked_sub(cnt0)?;
            (c > 0).then(|| (format!("bpf:{k}"), ns.saturating_sub(ns0) as f64 / c as f64))
        })
        .collect()
}

/// A scheduler's own counters over one run: scx_stats' "stats" request
/// answers, on one connection, for the interval since the previous one
/// (scx_arbor's server and the peers' alike). Opened before the run,
/// read after it.
pub struct StatsInterval {
    client: StatsClient,
}

pub const STATS_SOCKET: &str = "/var/run/scx/root/stats";

impl StatsInterval {
    /// Connects (retrying while the scheduler starts its server) and opens
    /// the interval.
    pub fn open(socket: &Path, wait: Duration) -> Result<StatsInterval> {
        let t0 = std::time::Instant::now();
        let client = loop {
            match StatsClient::new().set_path(socket).connect(Some(60_000)) {
                Ok(c) => break c,
                Err(e) if t0.elapsed() >= wait => {
                    return Err(e).with_context(|| format!("connecting to {}", socket.display()))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(500)),
            }
        };
        let mut s = StatsInterval { client };
        s.read()?;
        Ok(s)
    }

    fn read(&mut self) -> Result<serde_json::Value> {
        self.client
            .request::<serde_json::Value>("stats", vec![])
            .context("the stats request failed")
    }

    /// The counters since `open`: every numeric top-level field.
    pub fn close(mut self) -> Result<Vec<(String, f64)>> {
        let v = self.read()?;
        let obj = v
            .as_object()
            .with_context(|| format!("unexpected stats reply: {v}"))?;
        Ok(obj
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_busy_and_switches() {
        let a = ProcStat::parse("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3\nctxt 1000\n");
        assert_eq!(
            a,
            ProcStat {
                busy: 150,
                total: 1000,
                ctxt: 1000
            }
        );
        let b = ProcStat::parse("cpu  200 0 100 1500 100 0 0 0\nctxt 3000\n");
        // 150 busy of 900 jiffies; 2000 switches in 2 s
        let (busy, cs) = a.rates(&b, 2.0);
        assert!((busy - 100.0 * 150.0 / 900.0).abs() < 1e-9);
        assert_eq!(cs, 1000.0);
    }

    /// 2 nodes; node 0 has LLC 0 (core 0 = CPUs 0,1; core 1 = CPU 2) and
    /// LLC 1 (CPU 3); node 1 has CPU 4.
    #[test]
    fn migrations_are_classed_by_distance() {
        let topo = Topo::from_raw(&[
            (0, 0, 0, 0, 1024),
            (1, 0, 0, 0, 1024),
            (2, 1, 0, 0, 1024),
            (3, 2, 1, 0, 1024),
            (4, 3, 2, 1, 1024),
        ])
        .unwrap();
        let trace = "# tracer: nop\n\
            a-1 [000] d..2. 1.0: sched_migrate_task: comm=a pid=1 prio=120 orig_cpu=0 dest_cpu=1\n\
            b-2 [001] d..2. 1.0: sched_migrate_task: comm=b pid=2 prio=120 orig_cpu=1 dest_cpu=2\n\
            c-3 [002] d..2. 1.0: sched_migrate_task: comm=c pid=3 prio=120 orig_cpu=2 dest_cpu=0\n\
            d-4 [002] d..2. 1.0: sched_migrate_task: comm=d pid=4 prio=120 orig_cpu=2 dest_cpu=3\n\
            e-5 [003] d..2. 1.0: sched_migrate_task: comm=e pid=5 prio=120 orig_cpu=3 dest_cpu=4\n\
            f-6 [004] d..2. 1.0: sched_migrate_task: comm=f pid=6 prio=120 orig_cpu=4 dest_cpu=0\n\
            g-7 [004] d..2. 1.0: sched_migrate_task: comm=g pid=7 prio=120 orig_cpu=4 dest_cpu=9\n\
            not a migration line\n";
        assert_eq!(
            classify_migrations(&topo, trace, 2.0),
            vec![
                ("migr_per_s", 3.5),
                ("migr_smt_per_s", 0.5),
                ("migr_llc_per_s", 1.0),
                ("migr_xllc_per_s", 0.5),
                ("migr_xnode_per_s", 1.0)
            ]
        );
        assert!(classify_migrations(&topo, trace, 0.0).is_empty());
    }

    #[test]
    fn bpf_costs_per_call() {
        let a = parse_bpftool(
            r#"[{"id":1,"type":"struct_ops","name":"arbor_enqueue","run_time_ns":1000,"run_cnt":10},
            {"id":2,"type":"kprobe","name":"x","run_time_ns":5,"run_cnt":1},
            {"id":3,"type":"struct_ops","name":"arbor_init"}]"#,
        );
        assert_eq!(a.len(), 1);
        let b = parse_bpftool(
            r#"[{"type":"struct_ops","name":"arbor_enqueue","run_time_ns":4000,"run_cnt":20},
                {"type":"struct_ops","name":"arbor_tick","run_time_ns":900,"run_cnt":3}]"#,
        );
        assert_eq!(
            bpf_costs(&a, &b),
            vec![
                ("bpf:arbor_enqueue".to_string(), 300.0),
                ("bpf:arbor_tick".to_string(), 300.0)
            ]
        );
        assert!(parse_bpftool("not json").is_empty());
    }

    /// A fake scx_stats server answering like the peers: each request on a
    /// connection reports the interval since the previous one.
    #[test]
    fn stats_interval_reads_the_second_answer() {
        use std::io::{BufRead, BufReader, Write};
        use std::os::unix::net::UnixListener;
        let dir = tempfile::tempdir().unwrap();
        let sock = dir.path().join("stats");
        let l = UnixListener::bind(&sock).unwrap();
        let srv = std::thread::spawn(move || {
            let (s, _) = l.accept().unwrap();
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut w = s;
            for reply in [
                r#"{"errno":0,"args":{"resp":{"nr_sched":1}}}"#,
                r#"{"errno":0,"args":{"resp":{"nr_sched":42,"mode":"x","load":0.5}}}"#,
            ] {
                let mut line = String::new();
                r.read_line(&mut line).unwrap();
                assert!(line.contains("\"stats\""), "{line}");
                writeln!(w, "{reply}").unwrap();
            }
        });
        let i = StatsInterval::open(&sock, Duration::from_secs(5)).unwrap();
        let mut got = i.close().unwrap();
        got.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            got,
            vec![("load".to_string(), 0.5), ("nr_sched".to_string(), 42.0)]
        );
        srv.join().unwrap();
        // no server: a one-line error after the wait
        let e = StatsInterval::open(&dir.path().join("none"), Duration::from_millis(10));
        assert!(format!("{:#}", e.err().unwrap()).contains("connecting to"));
    }
}
