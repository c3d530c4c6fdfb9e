//! Workload specs for `arbor sim`: the same names and keys as `arbor bench`
//! (arbor/src/bench/spec.rs) where a workload exists there, so one spec
//! string describes both the measured and the simulated run
//! (`hackbench:g=4,mode=thread`), plus simulator-only models (`schbench`,
//! `spinners`) and keys for costs a model has to assume (`event_us`, `c`).
//! `rt-app:FILE.json` takes an rt-app use case, as `arbor bench` does
//! (its keys: the doc of [`super::rtapp`]).

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};

use super::channel::Ipc;
use super::{
    background, hackbench, parent, pgbench, pipe, rtapp, schbench, spinners, sysbench, trace,
    wakeprobe, Workload,
};

/// Help text: every workload with its keys and defaults.
pub const WORKLOADS: &str = "\
hackbench[:g=2,l=200,mode=process|thread,ipc=pipe|socket]
perf-messaging[:g=2,l=100,mode=process|thread,ipc=socket|pipe]
perf-pipe[:l=20000,mode=process|thread,cpu=N (both tasks pinned to CPU N)]
sysbench[:threads=NCPU,time=5,event_us=570]
pgbench[:clients=8,jobs=min(clients,NCPU),scale=4,mode=select|tpcb,time=10,think_us=0,wal_us=0]
wakeprobe[:m=2,w=NCPU/2,t=5,k=64]
schbench[:v=2023,m=2,w=ceil(NCPU/m),r=5,s=100,c=17000,cj=0] (v=2020: seed 000's schbench, w=16,s=30000 (message thread's sleep),c=30000,mc=30000)
spinners[:procs=2,threads=4,ws_kb=1024,work_us=1000,sleep_us=0,time=5,sweeps=1]
rt-app:FILE.json (as rt-app 1.0 reads it; tasks: instance, delay, loop, phases, cpus, priority, policy, taskgroup (its cgroup, weight 100); events: run, runtime, sleep, timer, suspend, resume, lock, unlock, wait, signal, broad, sync, mem, iorun, barrier, yield; global: duration, mem_buffer_size, io_device; resources)
trace:FILE.data[,comm=NAME|..,pid=PID|..,all=1,from=S,to=S,scale=F,sync=0|1,cap=CPUS:CAP;..] (a `perf sched record -a -- PROGRAM` trace, replayed causally; default: what the recorder ran)
any of these +background:r=RATE[,k=NCPU,ns=2000] (with a VM guest's background: k timer-driven tasks waking RATE times a second in all, ns of work each)
any of these but rt-app and trace with ,cg=/PATH[:weight=100][:max=QUOTA/PERIOD][:burst=US][:idle=1]: its tasks run in that cgroup, of that cpu.weight (1..10000; ancestors not given a weight have 100), cpu.max (microseconds, as the cgroup file: QUOTA/PERIOD or QUOTA with the period 100000, 1000..1000000 each), cpu.max.burst (up to QUOTA) and cpu.idle
WORKLOAD & WORKLOAD [& ...] (run together, each part's tasks after the previous ones'; part k > 0's metrics are named k.NAME)
any of these but rt-app and trace: its tasks are forked by a parent that runs on its CPU meanwhile, as a real program's main thread forks its workers; +noparent: each started from an idle CPU 0 instead (the simulator before 2026-11-27)
(the first value of a choice is its default)";

/// The label a spec is reported under (as `arbor bench` does: the spec
/// itself, trimmed).
pub fn label(spec: &str) -> String {
    spec.trim().to_string()
}

/// The metric a workload is judged by, for a spec's workload name.
pub fn primary_metric(spec: &str) -> Option<&'static str> {
    // the workload's own name: before its options and any `+background` / `+noparent`
    let name = spec.trim().split([':', '+']).next().unwrap_or_default();
    Some(match name {
        "hackbench" | "perf-messaging" | "perf-pipe" | "rt-app" | "trace" => "time_s",
        "sysbench" => "eps",
        "pgbench" => "tps",
        "wakeprobe" => "p99_us",
        "schbench" => "wakeup_p99_us",
        "spinners" => "work_per_s",
        _ => return None,
    })
}

/// The `key=value` options of one workload spec (`NAME:k=v,k=v`), consumed
/// as they are read, so that what is left over is an unknown option. One
/// reader for `arbor sim` and `arbor bench`, with the same one-line errors.
pub struct Opts<'a> {
    spec: &'a str,
    kv: BTreeMap<String, String>,
}

impl<'a> Opts<'a> {
    /// Splits `spec` (already trimmed) into its name and options.
    pub fn parse(spec: &'a str) -> Result<(&'a str, Opts<'a>)> {
        let (name, args) = spec.split_once(':').unwrap_or((spec, ""));
        let mut kv = BTreeMap::new();
        for a in args.split(',').filter(|a| !a.is_empty()) {
            let (k, v) = a
                .split_once('=')
                .with_context(|| format!("workload '{spec}': option '{a}' is not key=value"))?;
            if kv.insert(k.to_string(), v.to_string()).is_some() {
                bail!("workload '{spec}': option '{k}' is given twice");
            }
        }
        Ok((name, Opts { spec, kv }))
    }
}

impl Opts<'_> {
    pub fn u32(&mut self, key: &str, def: u32, lo: u32, hi: u32) -> Result<u32> {
        let Some(v) = self.kv.remove(key) else {
            return Ok(def);
        };
        match v.parse::<u32>() {
            Ok(x) if (lo..=hi).contains(&x) => Ok(x),
            _ => bail!(
                "workload '{}': {key}={v} is not an integer in {lo}..{hi}",
                self.spec
            ),
        }
    }

    /// An option with no default: `None` when absent.
    pub fn opt_u32(&mut self, key: &str, lo: u32, hi: u32) -> Result<Option<u32>> {
        if !self.kv.contains_key(key) {
            return Ok(None);
        }
        self.u32(key, lo, lo, hi).map(Some)
    }

    pub fn choice(&mut self, key: &str, choices: &[&'static str]) -> Result<&'static str> {
        let Some(v) = self.kv.remove(key) else {
            return Ok(choices[0]);
        };
        choices.iter().find(|c| **c == v).copied().with_context(|| {
            format!(
                "workload '{}': {key}={v} is not one of {}",
                self.spec,
                choices.join(", ")
            )
        })
    }

    /// `cg=/PATH[:weight=W][:max=Q/P][:burst=B][:idle=1]`: the cgroup the
    /// workload's tasks run in.
    pub fn cgroup(&mut self) -> Result<Option<crate::task::Cgroup>> {
        let Some(v) = self.kv.remove("cg") else {
            return Ok(None);
        };
        let (path, rest) = v.split_once(':').unwrap_or((&v, ""));
        let mut weight = 100;
        let mut limits = crate::task::CgroupLimits::default();
        for kv in rest.split(':').filter(|x| !x.is_empty()) {
            match kv.split_once('=') {
                Some(("weight", w)) => match w.parse::<u32>() {
                    Ok(w) if (1..=10_000).contains(&w) => weight = w,
                    _ => bail!(
                        "workload '{}': cg weight={w} is not an integer in 1..10000",
                        self.spec
                    ),
                },
                Some(("max", m)) => limits.max = Some(self.cpu_max(m)?),
                Some(("burst", b)) => match b.parse::<u64>() {
                    Ok(b) => limits.burst = b,
                    _ => bail!("workload '{}': cg burst={b} is not microseconds", self.spec),
                },
                Some(("idle", "0")) => limits.idle = false,
                Some(("idle", "1")) => limits.idle = true,
                _ => bail!(
                    "workload '{}': cg option '{kv}' is not weight=W, max=QUOTA/PERIOD, burst=US or idle=0|1",
                    self.spec
                ),
            }
        }
        if limits.burst > 0 && limits.max.is_none_or(|(q, _)| limits.burst > q) {
            bail!(
                "workload '{}': cg burst={} needs a max=QUOTA of at least as much (tg_set_bandwidth)",
                self.spec,
                limits.burst
            );
        }
        use crate::core::cgroup::{check_path, PathError, MAX_DEPTH};
        match check_path(path) {
            Ok(()) => {}
            Err(PathError::NotAPath) => bail!(
                "workload '{}': cg={path} is not a cgroup path /NAME[/NAME...]",
                self.spec
            ),
            Err(PathError::TooDeep) => bail!(
                "workload '{}': cg={path} is deeper than {MAX_DEPTH} levels",
                self.spec
            ),
        }
        Ok(Some(crate::task::Cgroup {
            path: path.to_string(),
            weight,
            limits,
        }))
    }

    /// cpu.max's QUOTA/PERIOD or QUOTA (period 100000), in microseconds,
    /// each 1000..=1000000 (tg_set_bandwidth's min_bw_quota_period_us and
    /// max_bw_quota_period_us; a quota above the period is allowed there
    /// too, up to max_bw_runtime_us, but 1000000 is plenty here).
    fn cpu_max(&self, m: &str) -> Result<(u64, u64)> {
        let (q, p) = m.split_once('/').unwrap_or((m, "100000"));
        match (q.parse::<u64>(), p.parse::<u64>()) {
            (Ok(q), Ok(p))
                if (1000..=1_000_000).contains(&q) && (1000..=1_000_000).contains(&p) =>
            {
                Ok((q, p))
            }
            _ => bail!(
                "workload '{}': cg max={m} is not QUOTA/PERIOD in microseconds, each 1000..1000000",
                self.spec
            ),
        }
    }

    pub fn done(&self) -> Result<()> {
        if let Some(k) = self.kv.keys().next() {
            bail!("workload '{}': unknown option '{k}'", self.spec);
        }
        Ok(())
    }
}

fn ipc(s: &str) -> Ipc {
    if s == "socket" {
        Ipc::Socket
    } else {
        Ipc::Pipe
    }
}

/// Builds the workload a spec names. `nr_cpus` scales defaults as `arbor
/// bench` scales them with the guest's CPUs. `seed` is for models that
/// draw random numbers (schbench v=2020's message-thread jitter, from a
/// generator seeded with it); all the others are deterministic by
/// construction. The same spec and seed always give the same tasks and
/// steps.
pub fn parse(spec: &str, nr_cpus: usize, seed: u64) -> Result<Box<dyn Workload>> {
    let s = spec.trim();
    // A & B: run together (mix.rs)
    if s.contains('&') {
        let mut parts = Vec::new();
        for p in s.split('&') {
            if p.trim().is_empty() {
                bail!("workload '{s}': an empty part around '&'");
            }
            parts.push(parse(p, nr_cpus, seed)?);
        }
        return Ok(Box::new(super::mix::Mix::new(parts)));
    }
    // a model's tasks are forked by a running parent (parent.rs), unless
    // WORKLOAD+noparent: each started from its first allowed CPU, idle (the
    // simulator before 2026-11-27)
    match s.strip_suffix("+noparent") {
        Some("") => bail!("workload '{s}': nothing before '+noparent'"),
        Some(inner) => parse_with(inner, nr_cpus, seed, false),
        None => parse_with(s, nr_cpus, seed, true),
    }
}

fn parse_with(s: &str, nr_cpus: usize, seed: u64, parent: bool) -> Result<Box<dyn Workload>> {
    // WORKLOAD+background:r=RATE[,k=TASKS][,ns=WORK]: with a guest's background
    if let Some(i) = s.rfind("+background") {
        let (inner, extra) = (&s[..i], &s[i + 1..]);
        if inner.is_empty() {
            bail!("workload '{s}': nothing before '+background'");
        }
        let (name, mut o) = Opts::parse(extra)?;
        if name != "background" {
            bail!("workload '{s}': unknown '+{name}' (valid: +background:r=RATE)");
        }
        let Some(rate) = o.opt_u32("r", 1, 1_000_000)? else {
            bail!("workload '{s}': background needs r=WAKEUPS_PER_S");
        };
        let k = o.u32("k", nr_cpus.clamp(1, 1024) as u32, 1, 1024)?;
        let ns = o.u32("ns", background::WORK_NS as u32, 1, 1_000_000_000)?;
        o.done()?;
        let w = parse_with(inner, nr_cpus, seed, parent)?;
        return Ok(Box::new(background::WithBackground::new(
            w, rate, k as usize, ns as u64, seed,
        )));
    }
    let ncpu = nr_cpus.clamp(1, u32::MAX as usize) as u32;
    let (name, args) = s.split_once(':').unwrap_or((s, ""));
    if name == "rt-app" {
        // the argument is a path, which may hold ',' and '='
        if args.is_empty() {
            bail!("workload '{s}': rt-app needs a JSON file: rt-app:FILE.json");
        }
        return Ok(Box::new(rtapp::RtApp::from_file(args, nr_cpus)?));
    }
    if name == "trace" {
        // FILE[,KEY=VALUE...]: the file may hold ',' (trace::parse_spec)
        return Ok(Box::new(trace::replay::Replay::new(trace::load(args)?)));
    }
    let (_, mut o) = Opts::parse(s)?;
    let cg = o.cgroup()?;
    let w: Box<dyn Workload> = match name {
        "hackbench" | "perf-messaging" => {
            let (l_def, ipcs): (u32, &[&'static str]) = if name == "hackbench" {
                (200, &["pipe", "socket"])
            } else {
                (100, &["socket", "pipe"])
            };
            let groups = o.u32("g", 2, 1, 1000)?;
            let loops = o.u32("l", l_def, 1, 1_000_000)?;
            let mode = match o.choice("mode", &["process", "thread"])? {
                "thread" => hackbench::Mode::Thread,
                _ => hackbench::Mode::Process,
            };
            let ipc = ipc(o.choice("ipc", ipcs)?);
            Box::new(hackbench::Hackbench::new(hackbench::Params {
                name: if name == "hackbench" {
                    "hackbench"
                } else {
                    "perf-messaging"
                },
                groups,
                loops,
                mode,
                ipc,
                capacity: None,
            }))
        }
        "perf-pipe" => {
            let l = o.u32("l", 20_000, 1, 10_000_000)?;
            let mode = match o.choice("mode", &["process", "thread"])? {
                "thread" => pipe::Mode::Thread,
                _ => pipe::Mode::Process,
            };
            let cpu = o.opt_u32("cpu", 0, ncpu - 1)?;
            Box::new(pipe::PerfPipe::new(l, mode, cpu.map(|c| c as usize)))
        }
        "sysbench" => {
            let threads = o.u32("threads", ncpu.min(1024), 1, 1024)?;
            let time = o.u32("time", 5, 1, 3600)?;
            let ev = o.u32("event_us", sysbench::EVENT_US, 1, 1_000_000)?;
            Box::new(sysbench::Sysbench::new(threads, time, ev))
        }
        "pgbench" => {
            let clients = o.u32("clients", 8, 1, 256)?;
            // the database size; accepted for bench compatibility, not modelled
            o.u32("scale", 4, 1, 1000)?;
            let mode = match o.choice("mode", &["select", "tpcb"])? {
                "tpcb" => pgbench::Mode::Tpcb,
                _ => pgbench::Mode::Select,
            };
            let time = o.u32("time", 10, 1, 3600)?;
            let think = o.u32("think_us", 0, 0, 10_000_000)?;
            let wal = o.u32("wal_us", 0, 0, 1_000_000)?;
            // pgbench -j: its own default is 1 (one thread multiplexing
            // every connection, a 1:N waker); `arbor bench` passes
            // min(clients, ncpu), which is this default
            let threads = o.u32("jobs", clients.min(ncpu), 1, 256)?;
            Box::new(pgbench::Pgbench::new(
                clients, threads, mode, time, think, wal,
            ))
        }
        "wakeprobe" => {
            let m = o.u32("m", 2, 1, 64)?;
            let w = o.u32("w", (ncpu / 2).max(1), 1, 256)?;
            let t = o.u32("t", 5, 1, 3600)?;
            let k = o.u32("k", 64, 0, 65536)?;
            Box::new(wakeprobe::Wakeprobe::new(m, w, t, k))
        }
        "schbench" => {
            // v=2023 (default): the v1.0 design; v=2020: seed 000's
            // schbench (abe4f96), with its own defaults
            let v = o.u32("v", 2023, 2020, 2023)?;
            let m = o.u32("m", 2, 1, 64)?;
            let r = o.u32("r", 5, 1, 3600)?;
            let cj = o.u32("cj", 0, 0, 50)?;
            match v {
                2023 => {
                    let w = o.u32("w", ncpu.div_ceil(m).clamp(1, 1024), 1, 1024)?;
                    let sl = o.u32("s", schbench::SLEEP_US, 0, 1_000_000)?;
                    let c = o.u32("c", schbench::CPUTIME_US, 1, 10_000_000)?;
                    Box::new(schbench::Schbench::new(m, w, r, sl, c).with_jitter(cj, seed))
                }
                2020 => {
                    let w = o.u32("w", schbench::V2020_WORKERS, 1, 1024)?;
                    let sl = o.u32("s", schbench::V2020_SLEEPTIME_US, 0, 10_000_000)?;
                    let c = o.u32("c", schbench::V2020_CPUTIME_US, 1, 10_000_000)?;
                    let mc = o.u32("mc", schbench::V2020_MSG_CPUTIME_US, 0, 10_000_000)?;
                    Box::new(schbench::Schbench::with_version(
                        m,
                        w,
                        r,
                        sl,
                        c,
                        schbench::Version::V2020 { msg_cpu_us: mc, seed },
                    )
                    .with_jitter(cj, seed))
                }
                _ => bail!("workload '{s}': schbench v={v}: the versions are 2020 (seed 000's, abe4f96) and 2023 (the v1.0 design)"),
            }
        }
        "spinners" => Box::new(spinners::Spinners::new(spinners::Params {
            procs: o.u32("procs", 2, 1, 256)?,
            threads: o.u32("threads", 4, 1, 256)?,
            ws_kb: o.u32("ws_kb", 1024, 0, 1 << 20)?,
            work_us: o.u32("work_us", 1000, 1, 10_000_000)?,
            sleep_us: o.u32("sleep_us", 0, 0, 10_000_000)?,
            time_s: o.u32("time", 5, 1, 3600)?,
            sweeps: o.u32("sweeps", 1, 0, 1000)?,
        })),
        "stress-ng" => {
            bail!("workload '{s}': {name} runs under `arbor bench` only; the simulator has no model of it")
        }
        _ => bail!(
            "unknown workload '{name}' (known: {})",
            WORKLOADS
                .lines()
                .filter(|l| !l.starts_with('('))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    o.done()?;
    let w: Box<dyn Workload> = if parent {
        Box::new(parent::WithParent::new(w))
    } else {
        w
    };
    // the parent too runs in the workload's cgroup, as a program's main thread
    Ok(match cg {
        Some(cg) => Box::new(super::mix::InCgroup::new(w, cg)),
        None => w,
    })
}

#[cfg(test)]
mod tests {
    use super::super::testkit::drive;
    use super::*;

    /// The model's own tasks, without its parent (parent.rs).
    fn model(s: &str, nr_cpus: usize) -> Vec<crate::workload::TaskSpec> {
        parse(&format!("{s}+noparent"), nr_cpus, 0).unwrap().tasks()
    }

    fn err(s: &str) -> String {
        match parse(s, 8, 1) {
            Ok(_) => panic!("'{s}' parsed"),
            Err(e) => format!("{e:#}"),
        }
    }

    #[test]
    fn every_listed_workload_parses_with_defaults() {
        for name in [
            "hackbench",
            "perf-messaging",
            "perf-pipe",
            "sysbench",
            "pgbench",
            "wakeprobe",
            "schbench",
            "spinners",
        ] {
            let w = parse(name, 8, 1).unwrap_or_else(|e| panic!("{name}: {e:#}"));
            assert!(!w.tasks().is_empty(), "{name}");
            assert!(WORKLOADS.contains(name));
            let primary = primary_metric(name).unwrap();
            assert!(w.metrics(1).iter().any(|m| m.name == primary), "{name}");
        }
    }

    #[test]
    fn defaults_and_keys_follow_bench() {
        // hackbench g=2: 80 tasks; g=4, thread mode: 160 sharing one tgid;
        // each with its parent (parent.rs) unless +noparent
        assert_eq!(parse("hackbench", 8, 0).unwrap().tasks().len(), 80 + 1);
        assert_eq!(model("hackbench", 8).len(), 80);
        let t = parse("hackbench:g=4,mode=thread", 8, 0).unwrap().tasks();
        assert_eq!(t.len(), 160 + 1);
        let t = model("hackbench:g=4,mode=thread", 8);
        assert_eq!(t.len(), 160);
        assert!(t.iter().all(|s| s.tgid == t[0].tgid));
        assert_eq!(model("sysbench", 12).len(), 12);
        assert_eq!(model("sysbench:threads=3", 12).len(), 3);
        // pgbench: min(clients, ncpu) threads + one backend per client
        assert_eq!(model("pgbench", 4).len(), 4 + 8);
        assert_eq!(model("pgbench:clients=2,scale=10,mode=tpcb", 4).len(), 4);
        // wakeprobe: m * (1 + w), w = ncpu/2
        assert_eq!(model("wakeprobe", 8).len(), 2 * 5);
        assert_eq!(model("wakeprobe:m=3,w=2,t=5,k=256", 8).len(), 9);
        // schbench: w = ceil(ncpu / m)
        assert_eq!(model("schbench", 7).len(), 2 * (1 + 4));
        assert_eq!(model("schbench:m=3,w=2,r=1", 7).len(), 9);
        assert_eq!(model("spinners:procs=3,threads=2", 8).len(), 6);
        assert_eq!(label("  perf-pipe:l=5 "), "perf-pipe:l=5");
    }

    #[test]
    fn bad_specs_say_what_is_wrong_in_one_line() {
        let cases = [
            (
                "hackbench:x=1",
                "workload 'hackbench:x=1': unknown option 'x'",
            ),
            (
                "hackbench:g=0",
                "workload 'hackbench:g=0': g=0 is not an integer in 1..1000",
            ),
            (
                "hackbench:l=ten",
                "workload 'hackbench:l=ten': l=ten is not an integer in 1..1000000",
            ),
            (
                "hackbench:g",
                "workload 'hackbench:g': option 'g' is not key=value",
            ),
            (
                "hackbench:g=1,g=2",
                "workload 'hackbench:g=1,g=2': option 'g' is given twice",
            ),
            (
                "pgbench:mode=fast",
                "workload 'pgbench:mode=fast': mode=fast is not one of select, tpcb",
            ),
            (
                "perf-messaging:ipc=shm",
                "workload 'perf-messaging:ipc=shm': ipc=shm is not one of socket, pipe",
            ),
            (
                "sysbench:threads=-1",
                "workload 'sysbench:threads=-1': threads=-1 is not an integer in 1..1024",
            ),
            (
                "schbench:m=2,t=3",
                "workload 'schbench:m=2,t=3': unknown option 't'",
            ),
        ];
        for (spec, want) in cases {
            let e = err(spec);
            assert_eq!(e, want);
            assert!(!e.contains('\n'));
        }
        let e = err("tbench:x=1");
        assert!(
            e.starts_with("unknown workload 'tbench' (known: hackbench["),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
        assert!(err("stress-ng:n=2").contains("no model"));
    }

    #[test]
    fn rt_app_files_are_read_through_the_spec() {
        let dir = std::env::temp_dir().join(format!("arbor-rtapp-spec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // a path is taken whole: ',' and '=' are not options here
        let f = dir.join("a,b=c.json");
        std::fs::write(
            &f,
            r#"{"tasks": {"t": {"loop": 1, "phases": {"p": {"loop": 3, "run": 100, "sleep": 100}}}}}"#,
        )
        .unwrap();
        let spec = format!("rt-app:{}", f.display());
        let mut w = parse(&spec, 2, 1).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(primary_metric(&spec), Some("time_s"));
        assert_eq!(w.tasks().len(), 1);
        let out = drive(w.as_mut(), 0, u64::MAX);
        // 3 x (100 us of run + 100 us of sleep)
        assert_eq!(out.end, 600_000);
        let m = w.metrics(out.end);
        assert_eq!((m[0].name.as_str(), m[0].value), ("time_s", 0.0006));
        assert!(err("rt-app").contains("needs a JSON file"));
        let e = err("rt-app:/nonexistent.json");
        assert!(
            e.starts_with("rt-app /nonexistent.json: cannot read it"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_same_spec_gives_the_same_tasks_and_run() {
        for spec in [
            // the models alone (a parent never exits: `drive` counts exits)
            "hackbench:g=1,l=5,ipc=socket+noparent",
            "pgbench:clients=3,mode=tpcb,time=1+noparent",
            "schbench:m=1,w=3,r=1,c=500+noparent",
            "wakeprobe:m=2,w=2,t=1+noparent",
        ] {
            let mut a = parse(spec, 4, 7).unwrap();
            let mut b = parse(spec, 4, 7).unwrap();
            let ta = serde_json::to_string(&a.tasks()).unwrap();
            assert_eq!(ta, serde_json::to_string(&b.tasks()).unwrap());
            let oa = drive(a.as_mut(), 3000, 30_000_000_000);
            let ob = drive(b.as_mut(), 3000, 30_000_000_000);
            assert_eq!(
                (oa.end, oa.wakes, oa.run_ns.clone()),
                (ob.end, ob.wakes, ob.run_ns.clone()),
                "{spec}"
            );
            assert!(a.finished() && oa.exited == oa.tasks, "{spec}");
            let ma: Vec<f64> = a.metrics(oa.end).iter().map(|m| m.value).collect();
            let mb: Vec<f64> = b.metrics(ob.end).iter().map(|m| m.value).collect();
            assert_eq!(ma, mb);
        }
    }
}
