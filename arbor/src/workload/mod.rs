//! The workloads `arbor bench` runs. Each is one variant of [`Kind`], and
//! everything about it lives here: its spec's options and defaults
//! (`hackbench:g=4,mode=thread`), the command the guest runs, how its
//! output is read, and what each of its numbers means. A new workload is
//! a new variant and its arms in this file; the plan, the guest, the
//! report, results.json, the CSV and the charts follow from these.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use arbor_sim::workload::spec::Opts;
use serde::{Deserialize, Serialize};

use crate::report::metric::{def, Def, Kind as MetricKind, MetricInfo};

pub mod record;

pub const WORKLOADS: &str = "hackbench[:g=,l=,mode=process|thread,ipc=pipe|socket], \
perf-messaging[:g=,l=,mode=process|thread,ipc=socket|pipe], perf-pipe[:l=,mode=process|thread,cpu=N], \
sysbench[:threads=,time=], pgbench[:clients=,jobs=,scale=,mode=select|tpcb,time=|xacts=], \
wakeprobe[:m=,w=,t=,k=], cyclictest[:threads=,i=,t=], idle[:t=], stress-ng[:stressor=cpu|switch|pipe|cache,n=,t=], rt-app:FILE.json";

/// One workload as the user named it, and what it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub label: String,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Kind {
    /// rt-tests' hackbench: groups of senders and receivers.
    Hackbench {
        groups: u32,
        loops: u32,
        threads: bool,
        pipe: bool,
    },
    /// `perf bench sched messaging`, hackbench's port in perf.
    PerfMessaging {
        groups: u32,
        loops: u32,
        threads: bool,
        pipe: bool,
    },
    /// `perf bench sched pipe`: two tasks ping-pong over a pipe; with
    /// `cpu`, both pinned to it (the wake-up path's cost without placement).
    PerfPipe {
        loops: u32,
        threads: bool,
        cpu: Option<u32>,
    },
    /// `sysbench cpu`: independent CPU-bound threads.
    Sysbench { threads: u32, time: u32 },
    /// pgbench against the guest's PostgreSQL (select-only or TPC-B):
    /// for `time` seconds (`-T`), or, with `xacts`, until each client has
    /// run that many transactions (`-t`), however long that takes.
    Pgbench {
        clients: u32,
        jobs: u32,
        scale: u32,
        select: bool,
        time: u32,
        #[serde(default)]
        xacts: Option<u32>,
    },
    /// guest/wakeprobe.c, our schbench-style wake-up latency probe.
    Wakeprobe {
        messengers: u32,
        workers: u32,
        time: u32,
        work_kb: u32,
    },
    /// rt-tests' cyclictest at normal priority (SCHED_OTHER: the class
    /// sched_ext schedules): each thread sleeps `interval_us` and records
    /// how late it woke.
    Cyclictest {
        threads: u32,
        interval_us: u32,
        time: u32,
    },
    /// Nothing but the guest's own background for `time` seconds (what
    /// `arbor sim validate` reports beside the VM's counters).
    Idle { time: u32 },
    /// stress-ng with one stressor.
    StressNg {
        stressor: String,
        instances: u32,
        time: u32,
    },
    /// rt-app with a JSON task file (absolute path).
    RtApp { file: PathBuf },
}

/// Paths the guest fills in when it runs a command.
pub struct Env<'a> {
    pub wakeprobe: &'a str,
    pub pg_host: &'a str,
}

impl Env<'static> {
    /// What plans and reports show in their place.
    pub const SHOWN: Env<'static> = Env {
        wakeprobe: "wakeprobe",
        pg_host: "PGHOST",
    };
}

const TIME: Def = def("time_s", "s", false);
const HACKBENCH: &[Def] = &[TIME];
const SYSBENCH: &[Def] = &[def("eps", "events/s", true)];
const PGBENCH: &[Def] = &[
    def("tps", "transactions/s", true),
    def("lat_ms", "ms", false),
];
const WAKEPROBE: &[Def] = &[
    def("p99_us", "us", false),
    def("p50_us", "us", false),
    def("p90_us", "us", false),
    def("p999_us", "us", false),
    def("rps", "requests/s", true),
];
const CYCLICTEST: &[Def] = &[def("max_us", "us", false), def("avg_us", "us", false)];
const STRESS_NG: &[Def] = &[def("bogo_ops_s", "bogo ops/s", true)];

/// guest/wakeprobe.c as the Makefile builds it (target/guest/wakeprobe).
pub fn wakeprobe_bin() -> PathBuf {
    crate::vm::repo_root().join("target/guest/wakeprobe")
}

/// The probe a wakeprobe workload among `workloads` runs must have been
/// built at `probe`.
pub fn check_wakeprobe(probe: &Path, workloads: &[Workload]) -> Result<()> {
    let needed = workloads
        .iter()
        .any(|w| matches!(w.kind, Kind::Wakeprobe { .. }));
    if needed && !probe.is_file() {
        bail!(
            "{} not found: `make build` builds it from guest/wakeprobe.c",
            probe.display()
        );
    }
    Ok(())
}

impl Workload {
    /// Parses a spec; `ncpu` is the guest's CPU count (defaults scale with it).
    pub fn parse(s: &str, ncpu: u32) -> Result<Self> {
        let s = s.trim();
        let (name, args) = s.split_once(':').unwrap_or((s, ""));
        if name == "rt-app" {
            if args.is_empty() {
                bail!("workload '{s}': rt-app needs a JSON file: rt-app:FILE.json");
            }
            let path = Path::new(args);
            let text =
                arbor_sim::limits::read_text(path, "rt-app", arbor_sim::limits::MAX_JSON_BYTES)
                    .with_context(|| format!("workload '{s}'"))?;
            // rt-app's dialect (comments, trailing commas), as the simulator reads it
            arbor_sim::workload::rtapp::check_syntax(args, &text)
                .with_context(|| format!("workload '{s}': {args} is not valid JSON"))?;
            let file =
                std::fs::canonicalize(path).with_context(|| format!("workload '{s}': {args}"))?;
            return Ok(Workload {
                label: s.to_string(),
                kind: Kind::RtApp { file },
            });
        }
        let (_, mut o) = Opts::parse(s)?;
        let kind = match name {
            "hackbench" | "perf-messaging" => {
                let groups = o.u32("g", 2, 1, 100)?;
                let loops = o.u32(
                    "l",
                    if name == "hackbench" { 200 } else { 100 },
                    1,
                    1_000_000,
                )?;
                let threads = o.choice("mode", &["process", "thread"])? == "thread";
                // hackbench's default here is pipes, perf's is sockets
                let ipc = if name == "hackbench" {
                    o.choice("ipc", &["pipe", "socket"])?
                } else {
                    o.choice("ipc", &["socket", "pipe"])?
                };
                let pipe = ipc == "pipe";
                if name == "hackbench" {
                    Kind::Hackbench {
                        groups,
                        loops,
                        threads,
                        pipe,
                    }
                } else {
                    Kind::PerfMessaging {
                        groups,
                        loops,
                        threads,
                        pipe,
                    }
                }
            }
            "perf-pipe" => Kind::PerfPipe {
                loops: o.u32("l", 20000, 1, 10_000_000)?,
                threads: o.choice("mode", &["process", "thread"])? == "thread",
                cpu: o.opt_u32("cpu", 0, ncpu.saturating_sub(1))?,
            },
            "sysbench" => Kind::Sysbench {
                threads: o.u32("threads", ncpu, 1, 1024)?,
                time: o.u32("time", 5, 1, 3600)?,
            },
            "pgbench" => {
                let clients = o.u32("clients", 8, 1, 256)?;
                let time = o.opt_u32("time", 1, 3600)?;
                let xacts = o.opt_u32("xacts", 1, 10_000_000)?;
                if time.is_some() && xacts.is_some() {
                    bail!("workload '{s}': give time= (seconds) or xacts= (transactions per client), not both");
                }
                Kind::Pgbench {
                    clients,
                    scale: o.u32("scale", 4, 1, 1000)?,
                    select: o.choice("mode", &["select", "tpcb"])? == "select",
                    time: time.unwrap_or(10),
                    xacts,
                    jobs: o.u32("jobs", clients.min(ncpu), 1, 256)?,
                }
            }
            "wakeprobe" => Kind::Wakeprobe {
                messengers: o.u32("m", 2, 1, 64)?,
                workers: o.u32("w", (ncpu / 2).max(1), 1, 256)?,
                time: o.u32("t", 5, 1, 3600)?,
                work_kb: o.u32("k", 64, 0, 65536)?,
            },
            "cyclictest" => Kind::Cyclictest {
                threads: o.u32("threads", ncpu, 1, 1024)?,
                interval_us: o.u32("i", 1000, 100, 1_000_000)?,
                time: o.u32("t", 5, 1, 3600)?,
            },
            "idle" => Kind::Idle {
                time: o.u32("t", 3, 1, 3600)?,
            },
            "stress-ng" => Kind::StressNg {
                stressor: o
                    .choice("stressor", &["cpu", "switch", "pipe", "cache"])?
                    .to_string(),
                instances: o.u32("n", ncpu, 1, 1024)?,
                time: o.u32("t", 5, 1, 3600)?,
            },
            _ => bail!("unknown workload '{name}' (known: {WORKLOADS})"),
        };
        o.done()?;
        Ok(Workload {
            label: s.to_string(),
            kind,
        })
    }

    /// The command the guest runs, as an argument vector.
    pub fn argv(&self, env: &Env) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        let mut push = |a: &[&str]| v.extend(a.iter().map(|s| s.to_string()));
        match &self.kind {
            Kind::Hackbench {
                groups,
                loops,
                threads,
                pipe,
            }
            | Kind::PerfMessaging {
                groups,
                loops,
                threads,
                pipe,
            } => {
                // perf bench sched messaging is hackbench with perf's
                // spelling of threads: -t, not -T
                let perf = matches!(self.kind, Kind::PerfMessaging { .. });
                if perf {
                    push(&["perf", "bench", "sched", "messaging"]);
                } else {
                    push(&["hackbench"]);
                }
                push(&["-g", &groups.to_string(), "-l", &loops.to_string()]);
                if *threads {
                    push(&[if perf { "-t" } else { "-T" }]);
                }
                if *pipe {
                    push(&["-p"]);
                }
            }
            Kind::PerfPipe {
                loops,
                threads,
                cpu,
            } => {
                if let Some(c) = cpu {
                    push(&["taskset", "-c", &c.to_string()]);
                }
                push(&["perf", "bench", "sched", "pipe", "-l", &loops.to_string()]);
                if *threads {
                    push(&["-T"]);
                }
            }
            Kind::Sysbench { threads, time } => push(&[
                "sysbench",
                "cpu",
                &format!("--threads={threads}"),
                &format!("--time={time}"),
                "run",
            ]),
            Kind::Pgbench {
                clients,
                jobs,
                scale,
                select,
                time,
                xacts,
            } => {
                push(&["pgbench", "-h", env.pg_host, "-n"]);
                if *select {
                    push(&["-S"]);
                }
                push(&["-c", &clients.to_string(), "-j", &jobs.to_string()]);
                match xacts {
                    Some(n) => push(&["-t", &n.to_string()]),
                    None => push(&["-T", &time.to_string()]),
                }
                push(&[&format!("bench{scale}")]);
            }
            Kind::Wakeprobe {
                messengers,
                workers,
                time,
                work_kb,
            } => push(&[
                env.wakeprobe,
                "-m",
                &messengers.to_string(),
                "-w",
                &workers.to_string(),
                "-t",
                &time.to_string(),
                "-k",
                &work_kb.to_string(),
            ]),
            Kind::Cyclictest {
                threads,
                interval_us,
                time,
            } => push(&[
                "cyclictest",
                "-q",
                "-t",
                &threads.to_string(),
                "-i",
                &interval_us.to_string(),
                "-D",
                &time.to_string(),
            ]),
            Kind::Idle { time } => push(&["sleep", &time.to_string()]),
            Kind::StressNg {
                stressor,
                instances,
                time,
            } => push(&[
                "stress-ng",
                &format!("--{stressor}"),
                &instances.to_string(),
                "-t",
                &time.to_string(),
                "--metrics-brief",
            ]),
            Kind::RtApp { file } => push(&["rt-app", &file.display().to_string()]),
        }
        v
    }

    /// The command as plans and reports show it.
    pub fn command(&self) -> String {
        self.argv(&Env::SHOWN).join(" ")
    }

    /// Its metrics, the primary (headline table, charts) first.
    pub fn metrics(&self) -> &'static [Def] {
        match &self.kind {
            Kind::Hackbench { .. } | Kind::PerfMessaging { .. } | Kind::PerfPipe { .. } => {
                HACKBENCH
            }
            Kind::Sysbench { .. } => SYSBENCH,
            Kind::Pgbench { .. } => PGBENCH,
            Kind::Wakeprobe { .. } => WAKEPROBE,
            Kind::StressNg { .. } => STRESS_NG,
            Kind::Cyclictest { .. } => CYCLICTEST,
            // the guest's wall clock around the run
            Kind::Idle { .. } | Kind::RtApp { .. } => HACKBENCH,
        }
    }

    pub fn primary(&self) -> &'static str {
        self.metrics()[0].name
    }

    /// The info of one of its metrics, or of a system figure or counter.
    pub fn info(&self, metric: &str) -> Option<MetricInfo> {
        self.metrics()
            .iter()
            .find(|d| d.name == metric)
            .map(|d| d.info(MetricKind::Performance))
            .or_else(|| crate::report::metric::common(metric))
    }

    /// The PostgreSQL database scale it needs, if it is pgbench.
    pub fn pg_scale(&self) -> Option<u32> {
        match &self.kind {
            Kind::Pgbench { scale, .. } => Some(*scale),
            _ => None,
        }
    }

    /// Its result is the guest's wall clock around the run, not its output.
    pub fn timed_by_wall(&self) -> bool {
        matches!(self.kind, Kind::Idle { .. } | Kind::RtApp { .. })
    }

    /// Why a run that exited 0 printed no result, when its output says:
    /// pgbench (15) that completed no transaction in its `-T` window
    /// prints "number of transactions actually processed: 0" and stops
    /// there, without its tps and latency lines, and exits 0. Under
    /// `perf record` in a TCG guest the window can end before any client's
    /// first transaction does (`xacts=` bounds the work, not the time).
    pub fn why_no_result(&self, out: &str) -> Option<String> {
        match &self.kind {
            Kind::Pgbench { time, xacts, .. } => {
                let n = out
                    .lines()
                    .find_map(|l| {
                        l.trim_start()
                            .strip_prefix("number of transactions actually processed:")
                    })?
                    .split(|c: char| c == '/' || c.is_whitespace())
                    .find(|t| !t.is_empty())?
                    .parse::<u64>()
                    .ok()?;
                (n == 0).then(|| match xacts {
                    None => format!(
                        "pgbench completed no transaction in its {time} s window (-T {time}): it prints no tps then; xacts=N runs a fixed number of transactions instead"
                    ),
                    Some(_) => "pgbench completed no transaction".to_string(),
                })
            }
            _ => None,
        }
    }

    /// Reads the workload's own numbers from its output; an empty list
    /// when the output holds none (the guest then says so).
    pub fn parse_output(&self, out: &str) -> Vec<(&'static str, f64)> {
        // the n-th blank-separated field of the first line that `pick`s
        let field = |pick: &dyn Fn(&str) -> bool, n: usize| -> Option<f64> {
            out.lines()
                .find(|l| pick(l.trim_start()))
                .and_then(|l| l.split_whitespace().nth(n))
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite())
        };
        let one =
            |name: &'static str, v: Option<f64>| v.map(|v| vec![(name, v)]).unwrap_or_default();
        match &self.kind {
            // "Time: 1.234"
            Kind::Hackbench { .. } => one("time_s", field(&|l| l.starts_with("Time:"), 1)),
            // " Total time: 0.123 [sec]"
            Kind::PerfMessaging { .. } | Kind::PerfPipe { .. } => {
                one("time_s", field(&|l| l.starts_with("Total time:"), 2))
            }
            // "    events per second:  1234.56"
            Kind::Sysbench { .. } => one("eps", field(&|l| l.starts_with("events per second:"), 3)),
            // "tps = 1234.5 (without initial connection time)", "latency average = 1.2 ms"
            Kind::Pgbench { .. } => {
                let mut v = one("tps", field(&|l| l.starts_with("tps = "), 2));
                v.extend(one(
                    "lat_ms",
                    field(&|l| l.starts_with("latency average = "), 3),
                ));
                v
            }
            // one JSON object: {"rps": .., "p50_us": .., ..., "samples": N}
            Kind::Wakeprobe { .. } => {
                let Some(obj) = out
                    .lines()
                    .rev()
                    .find_map(|l| serde_json::from_str::<serde_json::Value>(l.trim()).ok())
                else {
                    return vec![];
                };
                WAKEPROBE
                    .iter()
                    .filter_map(|d| Some((d.name, obj.get(d.name)?.as_f64()?)))
                    .collect()
            }
            // "stress-ng: metrc: [123] cpu  4000  5.00  9.9  0.0  800.0  ..."
            // (stressor, bogo ops, real s, usr s, sys s, bogo ops/s real time)
            Kind::StressNg { .. } => {
                let v = out.lines().find_map(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    (f.len() > 8
                        && f[1] == "metrc:"
                        && f[3].chars().all(|c| c.is_ascii_lowercase() || c == '-')
                        && f[4].parse::<u64>().is_ok())
                    .then(|| f[8].parse::<f64>().ok())
                    .flatten()
                });
                one("bogo_ops_s", v)
            }
            // per thread: "T: 0 (123) P: 0 I:1000 C: 993 Min: 24 Act: 72 Avg: 91 Max: 3255";
            // the worst thread's Max, the threads' mean Avg
            Kind::Cyclictest { .. } => {
                // cyclictest pads to 5 digits: "Avg:30651" has no blank
                let val = |l: &str, k: &str| {
                    let rest = l[l.find(k)? + k.len()..].trim_start();
                    let end = rest
                        .find(|c: char| !c.is_ascii_digit())
                        .unwrap_or(rest.len());
                    rest[..end].parse::<f64>().ok()
                };
                let t: Vec<(f64, f64)> = out
                    .lines()
                    .filter(|l| l.starts_with("T:"))
                    .filter_map(|l| Some((val(l, "Max:")?, val(l, "Avg:")?)))
                    .collect();
                if t.is_empty() {
                    return vec![];
                }
                let max = t.iter().map(|x| x.0).fold(0.0, f64::max);
                let avg = t.iter().map(|x| x.1).sum::<f64>() / t.len() as f64;
                vec![("max_us", max), ("avg_us", avg)]
            }
            Kind::Idle { .. } | Kind::RtApp { .. } => vec![],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Workload {
        Workload::parse(s, 8).unwrap()
    }

    /// A wakeprobe workload needs the probe built; others do not.
    #[test]
    fn a_missing_probe_is_named_only_where_needed() {
        let gone = Path::new("/nonexistent/target/guest/wakeprobe");
        let e = check_wakeprobe(gone, &[w("hackbench"), w("wakeprobe")]).unwrap_err();
        assert!(format!("{e}").contains("`make build` builds it"), "{e}");
        check_wakeprobe(gone, &[w("hackbench")]).unwrap();
        let here = std::env::current_exe().unwrap();
        check_wakeprobe(&here, &[w("wakeprobe")]).unwrap();
    }

    #[test]
    fn specs_build_commands() {
        assert_eq!(
            w("hackbench:g=4,mode=thread").command(),
            "hackbench -g 4 -l 200 -T -p"
        );
        assert_eq!(w("hackbench:g=4").primary(), "time_s");
        assert_eq!(w("hackbench:ipc=socket").command(), "hackbench -g 2 -l 200");
        assert_eq!(
            w("perf-messaging:mode=thread,g=2,l=50").command(),
            "perf bench sched messaging -g 2 -l 50 -t"
        );
        let s = w("sysbench");
        assert_eq!(s.command(), "sysbench cpu --threads=8 --time=5 run");
        assert!(s.info(s.primary()).unwrap().higher_is_better);
        let p = w("pgbench:clients=16,scale=2");
        assert_eq!(
            p.command(),
            "pgbench -h PGHOST -n -S -c 16 -j 8 -T 10 bench2"
        );
        assert_eq!(p.pg_scale(), Some(2));
        assert!(w("pgbench:clients=24,jobs=1")
            .command()
            .contains(" -c 24 -j 1 "));
        assert_eq!(
            w("pgbench:mode=tpcb,clients=1").command(),
            "pgbench -h PGHOST -n -c 1 -j 1 -T 10 bench4"
        );
        // a fixed number of transactions per client, not a time window
        assert_eq!(
            w("pgbench:clients=4,xacts=50").command(),
            "pgbench -h PGHOST -n -S -c 4 -j 4 -t 50 bench4"
        );
        let p = w("wakeprobe:t=3");
        assert_eq!(
            p.argv(&Env {
                wakeprobe: "/x/wp",
                pg_host: ""
            })
            .join(" "),
            "/x/wp -m 2 -w 4 -t 3 -k 64"
        );
        assert!(!p.info(p.primary()).unwrap().higher_is_better);
        assert_eq!(
            w("perf-pipe:cpu=7,mode=thread").command(),
            "taskset -c 7 perf bench sched pipe -l 20000 -T"
        );
        let i = w("idle:t=2");
        assert_eq!(i.command(), "sleep 2");
        assert!(i.timed_by_wall());
        assert_eq!(w("perf-pipe").command(), "perf bench sched pipe -l 20000");
        assert_eq!(
            w("stress-ng:stressor=switch,n=2").command(),
            "stress-ng --switch 2 -t 5 --metrics-brief"
        );
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let e = |s: &str| format!("{:#}", Workload::parse(s, 8).unwrap_err());
        assert!(e("tbench").contains("unknown workload 'tbench'"));
        assert!(e("hackbench:g=0").contains("g=0 is not an integer in 1..100"));
        assert!(e("hackbench:groups=2").contains("unknown option 'groups'"));
        assert!(e("hackbench:g").contains("not key=value"));
        assert!(e("hackbench:g=1,g=2").contains("option 'g' is given twice"));
        assert!(e("pgbench:mode=fast").contains("mode=fast is not one of select, tpcb"));
        assert!(e("pgbench:time=3,xacts=10").contains("time= (seconds) or xacts="));
        assert!(e("pgbench:xacts=0").contains("xacts=0 is not an integer in 1.."));
        assert!(e("rt-app").contains("needs a JSON file"));
        assert!(e("perf-pipe:cpu=8").contains("cpu=8 is not an integer in 0..7"));
        assert!(e("rt-app:/nonexistent.json").contains("/nonexistent.json: cannot read it"));
        // a device is refused, not read until memory runs out
        assert!(e("rt-app:/dev/zero").contains("not a regular file"));
        let dir = std::env::temp_dir().join(format!("arbor-wl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.json");
        std::fs::write(&bad, "{ \"tasks\": ").unwrap();
        assert!(e(&format!("rt-app:{}", bad.display())).contains("is not valid JSON"));
        let good = dir.join("good.json");
        std::fs::write(&good, "{ \"tasks\": {} }").unwrap();
        let g = w(&format!("rt-app:{}", good.display()));
        assert!(g.command().starts_with("rt-app /"), "{}", g.command());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Each workload's output as the real tool prints it (trimmed).
    #[test]
    fn outputs_are_read() {
        let hb = "Running in process mode with 2 groups using 40 file descriptors each (== 80 tasks)\nEach sender will pass 100 messages of 100 bytes\nTime: 1.234\n";
        assert_eq!(w("hackbench").parse_output(hb), vec![("time_s", 1.234)]);
        let perf = "# Running 'sched/pipe' benchmark:\n# Executed 20000 pipe operations between two processes\n\n     Total time: 0.456 [sec]\n\n      22.800000 usecs/op\n";
        assert_eq!(w("perf-pipe").parse_output(perf), vec![("time_s", 0.456)]);
        assert_eq!(
            w("perf-messaging").parse_output(perf),
            vec![("time_s", 0.456)]
        );
        let sb = "CPU speed:\n    events per second:  1234.56\n\nGeneral statistics:\n";
        assert_eq!(w("sysbench").parse_output(sb), vec![("eps", 1234.56)]);
        let pg = "number of transactions actually processed: 1000\nlatency average = 1.234 ms\ninitial connection time = 5.0 ms\ntps = 6543.21 (without initial connection time)\n";
        assert_eq!(
            w("pgbench").parse_output(pg),
            vec![("tps", 6543.21), ("lat_ms", 1.234)]
        );
        let wp = "{\"rps\": 1000.5, \"p50_us\": 12, \"p90_us\": 30, \"p99_us\": 90, \"p999_us\": 400, \"samples\": 5000}\n";
        let got = w("wakeprobe").parse_output(wp);
        assert_eq!(got[0], ("p99_us", 90.0));
        assert!(got.contains(&("rps", 1000.5)));
        assert!(!got.iter().any(|(m, _)| *m == "samples"));
        let sn = "stress-ng: info:  [99] dispatching hogs: 2 switch\nstress-ng: metrc: [99] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s\nstress-ng: metrc: [99]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\nstress-ng: metrc: [99] switch           40000      5.00      1.00      4.00      8000.00        8000.00\n";
        assert_eq!(
            w("stress-ng:stressor=switch").parse_output(sn),
            vec![("bogo_ops_s", 8000.0)]
        );
        let ct = "# /dev/cpu_dma_latency set to 0us\nT: 0 (27056) P: 0 I:1000 C:    993 Min:     24 Act:   72 Avg:   91 Max:    3255\nT: 1 (27057) P: 0 I:1500 C:    631 Min:     38 Act:   75 Avg:  217 Max:    5802\n";
        let c = w("cyclictest:threads=2,t=1");
        assert_eq!(c.command(), "cyclictest -q -t 2 -i 1000 -D 1");
        assert_eq!(
            c.parse_output(ct),
            vec![("max_us", 5802.0), ("avg_us", 154.0)]
        );
        // no result in the output: nothing, not a zero
        assert!(w("hackbench").parse_output("hackbench: error\n").is_empty());
        // pgbench 15.18 (Debian 12) whose clients completed no transaction
        // in the -T window (each one's first query held behind a lock for
        // longer than -T 1, on this host): exit 0, no tps or latency line
        let none = "pgbench (15.18 (Debian 15.18-0+deb12u1))\ntransaction type: <builtin: select only>\nscaling factor: 1\nquery mode: simple\nnumber of clients: 4\nnumber of threads: 4\nmaximum number of tries: 1\nduration: 1 s\nnumber of transactions actually processed: 0\nnumber of failed transactions: 0 (NaN%)\n";
        let p = w("pgbench:clients=4,time=1");
        assert!(p.parse_output(none).is_empty());
        let why = p.why_no_result(none).unwrap();
        assert!(why.contains("no transaction in its 1 s window"), "{why}");
        // a run with transactions, or output that is not pgbench's, has no such reason
        assert_eq!(p.why_no_result(pg), None);
        assert_eq!(p.why_no_result("could not connect to server\n"), None);
        assert_eq!(
            w("pgbench:xacts=5").why_no_result(&none.replace(": 0\n", ": 0/20\n")),
            Some("pgbench completed no transaction".to_string())
        );
        assert_eq!(w("hackbench").why_no_result(none), None);
        assert!(w("wakeprobe").parse_output("").is_empty());
    }

    #[test]
    fn plans_carry_workloads_through_serde() {
        for s in [
            "hackbench:g=3,ipc=socket",
            "pgbench:clients=4",
            "perf-pipe:cpu=1",
        ] {
            let a = w(s);
            let j = serde_json::to_string(&a).unwrap();
            assert_eq!(serde_json::from_str::<Workload>(&j).unwrap(), a);
        }
    }
}
