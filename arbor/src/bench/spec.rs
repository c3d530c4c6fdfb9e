//! What `arbor bench` runs: scheduler specs (`eevdf:NO_SIS_UTIL`,
//! `arbor:stock:STEAL`, `lavd`) and workload specs (`hackbench:g=4,mode=thread`),
//! parsed and checked on the host so a typo fails before a guest boots.

use arbor_sim::workload::spec::Opts;
use std::path::Path;

use anyhow::{bail, Context, Result};
use scx_arbor::spec::ArborSpec;

/// The peers `arbor bench` knows how to install (scripts/install-peers.sh).
pub const PEERS: &[&str] = &["bpfland", "cosmos", "lavd", "p2dq", "rusty"];

#[derive(Debug, Clone, PartialEq)]
pub enum Sched {
    /// No sched_ext scheduler; tokens are written to debugfs: `NO_SIS_UTIL`
    /// to sched/features, `key=value` to sched/<key>.
    Eevdf { tokens: Vec<String> },
    /// scx_arbor with a profile, `-f` features and knobs (scx_arbor::spec).
    Arbor(ArborSpec),
    /// A peer scheduler from .peers/bin, with its defaults.
    Peer { name: String },
}

#[derive(Debug, Clone, PartialEq)]
pub struct SchedSpec {
    pub label: String,
    pub sched: Sched,
}

fn is_feature_name(t: &str) -> bool {
    !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

impl SchedSpec {
    pub fn parse(s: &str) -> Result<Self> {
        let s = s.trim();
        let mut parts = s.split(':');
        let head = parts.next().unwrap_or_default();
        let rest: Vec<&str> = parts.collect();
        let sched = match head {
            "eevdf" => {
                let mut tokens = Vec::new();
                for part in &rest {
                    for t in part.split(',').filter(|t| !t.is_empty()) {
                        let ok = match t.split_once('=') {
                            Some((k, v)) => {
                                !k.is_empty()
                                    && !v.is_empty()
                                    && k.chars().all(|c| {
                                        c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'
                                    })
                                    && v.chars().all(|c| c.is_ascii_alphanumeric())
                            }
                            None => is_feature_name(t),
                        };
                        if !ok {
                            bail!("scheduler '{s}': '{t}' is neither a sched feature (NAME or NO_NAME) nor a debugfs setting (key=value)");
                        }
                        tokens.push(t.to_string());
                    }
                }
                Sched::Eevdf { tokens }
            }
            "arbor" => Sched::Arbor(ArborSpec::parse(s)?),
            p if PEERS.contains(&p) => {
                if !rest.is_empty() {
                    bail!("scheduler '{s}': peers run with their defaults; options are not supported");
                }
                Sched::Peer { name: p.to_string() }
            }
            _ => bail!(
                "unknown scheduler '{s}' (known: eevdf[:FEAT,key=val], arbor[:PROFILE][:FEATS][:KNOB=VALUE,...], {})",
                PEERS.join(", ")
            ),
        };
        Ok(SchedSpec {
            label: s.to_string(),
            sched,
        })
    }

    /// One line of the guest plan: label, kind, argument.
    pub fn plan_line(&self, repo: &Path) -> String {
        let (kind, arg) = match &self.sched {
            Sched::Eevdf { tokens } => ("eevdf", tokens.join(",")),
            // the guest splits the argument on blanks: no value holds one
            // (ArborSpec checked each against scx_arbor's own parser)
            Sched::Arbor(spec) => ("arbor", spec.args().join(" ")),
            Sched::Peer { name } => (
                "peer",
                repo.join(".peers/bin")
                    .join(format!("scx_{name}"))
                    .display()
                    .to_string(),
            ),
        };
        format!("{}\t{kind}\t{arg}", self.label)
    }
}

/// A workload: how to run it in the guest and how to read its result.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    pub label: String,
    /// hackbench, perf, sysbench, pgbench, wakeprobe, stress-ng, rt-app:
    /// tells the guest how to parse the output
    pub parser: &'static str,
    pub command: String,
    /// the metric charts and the headline table use
    pub primary: &'static str,
    /// pgbench needs a PostgreSQL server in the guest
    pub needs_pg: Option<u32>,
}

/// Is a bigger value better for this metric?
pub fn higher_is_better(metric: &str) -> bool {
    matches!(
        metric,
        "eps" | "tps" | "rps" | "bogo_ops_s" | "busy_pct" | "work_per_s"
    )
}

/// Units for the table headers.
pub fn unit(metric: &str) -> &'static str {
    match metric {
        "time_s" => "s",
        "eps" => "events/s",
        "tps" => "transactions/s",
        "rps" => "requests/s",
        "bogo_ops_s" => "bogo ops/s",
        "lat_ms" => "ms",
        m if m.ends_with("_us") => "us",
        _ => "",
    }
}

pub const WORKLOADS: &str = "hackbench[:g=,l=,mode=process|thread,ipc=pipe|socket], \
perf-messaging[:g=,l=,mode=process|thread,ipc=socket|pipe], perf-pipe[:l=,mode=process|thread,cpu=N], \
sysbench[:threads=,time=], pgbench[:clients=,jobs=,scale=,mode=select|tpcb,time=], \
wakeprobe[:m=,w=,t=,k=], idle[:t=], stress-ng[:stressor=cpu|switch|pipe|cache,n=,t=], rt-app:FILE.json";

impl Workload {
    /// `ncpu`: the guest's CPU count (defaults scale with it).
    pub fn parse(s: &str, ncpu: u32) -> Result<Self> {
        let s = s.trim();
        let (name, args) = s.split_once(':').unwrap_or((s, ""));
        if name == "rt-app" {
            let path = Path::new(args);
            if args.is_empty() {
                bail!("workload '{s}': rt-app needs a JSON file: rt-app:FILE.json");
            }
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("workload '{s}': reading {args}"))?;
            // rt-app's dialect (comments, trailing commas), as the simulator reads it
            arbor_sim::workload::rtapp::check_syntax(args, &text)
                .with_context(|| format!("workload '{s}': {args} is not valid JSON"))?;
            let abs =
                std::fs::canonicalize(path).with_context(|| format!("workload '{s}': {args}"))?;
            return Ok(Workload {
                label: s.to_string(),
                parser: "rt-app",
                command: format!("rt-app {}", abs.display()),
                primary: "time_s",
                needs_pg: None,
            });
        }
        let (_, mut o) = Opts::parse(s)?;
        let w = match name {
            "hackbench" => {
                let g = o.u32("g", 2, 1, 100)?;
                let l = o.u32("l", 200, 1, 1_000_000)?;
                let mode = o.choice("mode", &["process", "thread"])?;
                let ipc = o.choice("ipc", &["pipe", "socket"])?;
                let mut c = format!("hackbench -g {g} -l {l}");
                if mode == "thread" {
                    c += " -T";
                }
                if ipc == "pipe" {
                    c += " -p";
                }
                ("hackbench", c, "time_s", None)
            }
            "perf-messaging" => {
                let g = o.u32("g", 2, 1, 100)?;
                let l = o.u32("l", 100, 1, 1_000_000)?;
                let mode = o.choice("mode", &["process", "thread"])?;
                let ipc = o.choice("ipc", &["socket", "pipe"])?;
                let mut c = format!("perf bench sched messaging -g {g} -l {l}");
                if mode == "thread" {
                    c += " -t";
                }
                if ipc == "pipe" {
                    c += " -p";
                }
                ("perf", c, "time_s", None)
            }
            "perf-pipe" => {
                let l = o.u32("l", 20000, 1, 10_000_000)?;
                let mode = o.choice("mode", &["process", "thread"])?;
                // cpu=N: both tasks on one CPU, so no placement is left to
                // decide and the time is the wake-up path's cost (issue 10)
                let cpu = o.opt_u32("cpu", 0, ncpu.saturating_sub(1))?;
                let mut c = String::new();
                if let Some(cpu) = cpu {
                    c += &format!("taskset -c {cpu} ");
                }
                c += &format!("perf bench sched pipe -l {l}");
                if mode == "thread" {
                    c += " -T";
                }
                ("perf", c, "time_s", None)
            }
            "sysbench" => {
                let t = o.u32("threads", ncpu, 1, 1024)?;
                let time = o.u32("time", 5, 1, 3600)?;
                (
                    "sysbench",
                    format!("sysbench cpu --threads={t} --time={time} run"),
                    "eps",
                    None,
                )
            }
            "pgbench" => {
                let c = o.u32("clients", 8, 1, 256)?;
                let scale = o.u32("scale", 4, 1, 1000)?;
                let mode = o.choice("mode", &["select", "tpcb"])?;
                let time = o.u32("time", 10, 1, 3600)?;
                let j = o.u32("jobs", c.min(ncpu), 1, 256)?;
                let sel = if mode == "select" { " -S" } else { "" };
                (
                    "pgbench",
                    format!("pgbench -h @PGHOST@ -n{sel} -c {c} -j {j} -T {time} bench{scale}"),
                    "tps",
                    Some(scale),
                )
            }
            "wakeprobe" => {
                let m = o.u32("m", 2, 1, 64)?;
                let w = o.u32("w", (ncpu / 2).max(1), 1, 256)?;
                let t = o.u32("t", 5, 1, 3600)?;
                let k = o.u32("k", 64, 0, 65536)?;
                (
                    "wakeprobe",
                    format!("@WAKEPROBE@ -m {m} -w {w} -t {t} -k {k}"),
                    "p99_us",
                    None,
                )
            }
            // nothing but the guest's own background (kernel threads, the
            // harness) for t seconds: what `arbor sim validate` subtracts
            // from the VM's counters
            "idle" => {
                let t = o.u32("t", 3, 1, 3600)?;
                ("wall", format!("sleep {t}"), "time_s", None)
            }
            "stress-ng" => {
                let st = o.choice("stressor", &["cpu", "switch", "pipe", "cache"])?;
                let n = o.u32("n", ncpu, 1, 1024)?;
                let t = o.u32("t", 5, 1, 3600)?;
                (
                    "stress-ng",
                    format!("stress-ng --{st} {n} -t {t} --metrics-brief"),
                    "bogo_ops_s",
                    None,
                )
            }
            _ => bail!("unknown workload '{name}' (known: {WORKLOADS})"),
        };
        o.done()?;
        Ok(Workload {
            label: s.to_string(),
            parser: w.0,
            command: w.1,
            primary: w.2,
            needs_pg: w.3,
        })
    }

    pub fn plan_line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}",
            self.label, self.parser, self.primary, self.command
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_specs_parse() {
        assert_eq!(
            SchedSpec::parse("eevdf").unwrap().sched,
            Sched::Eevdf { tokens: vec![] }
        );
        assert_eq!(
            SchedSpec::parse("eevdf:NO_SIS_UTIL,llc_balancing=0")
                .unwrap()
                .sched,
            Sched::Eevdf {
                tokens: vec!["NO_SIS_UTIL".into(), "llc_balancing=0".into()]
            }
        );
        assert_eq!(
            SchedSpec::parse("arbor:stock:STEAL,NO_WA_IDLE")
                .unwrap()
                .sched,
            Sched::Arbor(ArborSpec {
                profile: Some("stock".into()),
                feats: vec!["STEAL".into(), "NO_WA_IDLE".into()],
                knobs: vec![]
            })
        );
        assert_eq!(
            SchedSpec::parse("arbor:CACHE_LB").unwrap().sched,
            Sched::Arbor(ArborSpec {
                profile: None,
                feats: vec!["CACHE_LB".into()],
                knobs: vec![]
            })
        );
        assert_eq!(
            SchedSpec::parse("lavd").unwrap().sched,
            Sched::Peer {
                name: "lavd".into()
            }
        );
        let p = SchedSpec::parse("rusty")
            .unwrap()
            .plan_line(Path::new("/r"));
        assert_eq!(p, "rusty\tpeer\t/r/.peers/bin/scx_rusty");
        let p = SchedSpec::parse("arbor:seeds:STEAL")
            .unwrap()
            .plan_line(Path::new("/r"));
        assert_eq!(p, "arbor:seeds:STEAL\tarbor\t--profile seeds -f STEAL");
        // knobs, checked against scx_arbor's own options (issue 13)
        let p = SchedSpec::parse("arbor:stock:WA_THROTTLE:wake-affine-interval-ms=10")
            .unwrap()
            .plan_line(Path::new("/r"));
        assert!(
            p.ends_with("\t--profile stock -f WA_THROTTLE --wake-affine-interval-ms=10"),
            "{p}"
        );
    }

    #[test]
    fn bad_scheduler_specs_say_what_is_wrong() {
        let e = |s: &str| format!("{:#}", SchedSpec::parse(s).unwrap_err());
        assert!(e("cfs").contains("unknown scheduler 'cfs'"));
        assert!(e("arbor:fast").contains("unknown profile 'fast'"));
        assert!(e("arbor:stock:STEEL").contains("STEEL"));
        assert!(e("arbor:stock:no-knob=3").contains("unknown knob 'no-knob'"));
        assert!(e("eevdf:sis util").contains("neither a sched feature"));
        assert!(e("lavd:--performance").contains("defaults"));
        assert!(e("arbor:stock:STEAL:X").contains("one ':' part"));
    }

    #[test]
    fn workload_specs_build_commands() {
        let w = Workload::parse("hackbench:g=4,mode=thread", 8).unwrap();
        assert_eq!(w.command, "hackbench -g 4 -l 200 -T -p");
        assert_eq!(w.primary, "time_s");
        let w = Workload::parse("hackbench:ipc=socket", 8).unwrap();
        assert_eq!(w.command, "hackbench -g 2 -l 200");
        let w = Workload::parse("perf-messaging:mode=thread,g=2,l=50", 8).unwrap();
        assert_eq!(w.command, "perf bench sched messaging -g 2 -l 50 -t");
        let w = Workload::parse("sysbench", 8).unwrap();
        assert_eq!(w.command, "sysbench cpu --threads=8 --time=5 run");
        assert!(higher_is_better(w.primary));
        let w = Workload::parse("pgbench:clients=16,scale=2", 8).unwrap();
        assert_eq!(
            w.command,
            "pgbench -h @PGHOST@ -n -S -c 16 -j 8 -T 10 bench2"
        );
        assert_eq!(w.needs_pg, Some(2));
        let w = Workload::parse("pgbench:clients=24,jobs=1", 8).unwrap();
        assert!(w.command.contains(" -c 24 -j 1 "), "{}", w.command);
        let w = Workload::parse("pgbench:mode=tpcb,clients=1", 8).unwrap();
        assert_eq!(w.command, "pgbench -h @PGHOST@ -n -c 1 -j 1 -T 10 bench4");
        let w = Workload::parse("wakeprobe:t=3", 8).unwrap();
        assert_eq!(w.command, "@WAKEPROBE@ -m 2 -w 4 -t 3 -k 64");
        assert!(!higher_is_better(w.primary));
        let w = Workload::parse("perf-pipe:cpu=7,mode=thread", 8).unwrap();
        assert_eq!(w.command, "taskset -c 7 perf bench sched pipe -l 20000 -T");
        let w = Workload::parse("idle:t=2", 8).unwrap();
        assert_eq!((w.command.as_str(), w.parser), ("sleep 2", "wall"));
        let w = Workload::parse("perf-pipe", 8).unwrap();
        assert_eq!(w.command, "perf bench sched pipe -l 20000");
        let w = Workload::parse("stress-ng:stressor=switch,n=2", 8).unwrap();
        assert_eq!(w.command, "stress-ng --switch 2 -t 5 --metrics-brief");
    }

    #[test]
    fn bad_workload_specs_say_what_is_wrong() {
        let e = |s: &str| format!("{:#}", Workload::parse(s, 8).unwrap_err());
        assert!(e("tbench").contains("unknown workload 'tbench'"));
        assert!(e("hackbench:g=0").contains("g=0 is not an integer in 1..100"));
        assert!(e("hackbench:groups=2").contains("unknown option 'groups'"));
        assert!(e("hackbench:g").contains("not key=value"));
        assert!(e("pgbench:mode=fast").contains("mode=fast is not one of select, tpcb"));
        assert!(e("rt-app").contains("needs a JSON file"));
        assert!(e("perf-pipe:cpu=8").contains("cpu=8 is not an integer in 0..7"));
        assert!(e("rt-app:/nonexistent.json").contains("reading /nonexistent.json"));
        let dir = std::env::temp_dir().join(format!("arbor-spec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.json");
        std::fs::write(&bad, "{ \"tasks\": ").unwrap();
        assert!(e(&format!("rt-app:{}", bad.display())).contains("is not valid JSON"));
        let good = dir.join("good.json");
        std::fs::write(&good, "{ \"tasks\": {} }").unwrap();
        assert_eq!(
            Workload::parse(&format!("rt-app:{}", good.display()), 8)
                .unwrap()
                .parser,
            "rt-app"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
