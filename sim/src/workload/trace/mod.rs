//! `trace:FILE[,KEY=VALUE...]`: a scheduler trace recorded on a real Linux
//! machine (`perf sched record -a -- PROGRAM`), replayed causally: each
//! thread's bursts, wake-ups of others, blocks, forks and exits, with the
//! scheduler under test deciding where and when each burst runs.
//!
//! - [`perf`] reads perf.data (the `linux-perf-data` crate), [`format`] the
//!   tracepoint layouts from the file's own tracing-data section;
//! - [`census`] is the first pass (threads, processes, CPU time: what
//!   `arbor sim trace-info` prints);
//! - [`program`] is the second: each replayed thread's program;
//! - [`replay`] runs the programs as a [`super::Workload`];
//! - [`ksyms`] tells WF_SYNC wake-ups from their kernel call chains, with
//!   a copy of the recording boot's /proc/kallsyms (`FILE.kallsyms`).
//!
//! What a trace cannot carry: cache footprints (each task gets the default
//! working set), lock semantics beyond the recorded waker (a futex handed
//! to another waiter in the replay is still released by the recorded
//! one), data passed with a wake-up, frequency (bursts are normalised by capacity only),
//! and priority changes (each thread keeps its first).
//!
//! Cgroups (`cgroups=1`, a file recorded with `perf sched record -a
//! --all-cgroups`): each replayed thread runs in the cgroup v2 group of
//! its first sample (PERF_SAMPLE_CGROUP's id, named by the file's
//! PERF_RECORD_CGROUP), of weight 100: a trace carries no cpu.weight,
//! cpu.max or cpu.idle, and a thread's later move is not replayed (give
//! `--cgroup-event` for those). Names become the simulator's
//! ([`program::cgroup_path`]).

pub mod census;
pub mod check;
pub mod format;
pub mod info;
pub mod ksyms;
pub mod perf;
pub mod program;
pub mod replay;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{bail, Context, Result};

pub use program::{Compiled, Select, Summary};

/// The keys of a `trace:` spec (after the file name).
pub const KEYS: &str = "comm=NAME[|NAME..], pid=PID[|PID..], all=1, from=S, to=S, scale=F, sync=0|1 (every dependency wake-up sync or none, in place of the call chains'), kallsyms=PATH (default FILE.kallsyms), cap=CPUS:CAP[,..] (as --cpu-capacity, ';' between ranges), cgroups=1 (each thread in the cgroup of its first sample, weight 100: a file of `perf sched record --all-cgroups`)";

/// Splits `FILE[,KEY=VALUE...]`: the file is everything before the first
/// `,WORD=` (a WORD of letters, digits and '_'), so a path may hold commas
/// but not `,WORD=`; an unknown key is an error, not part of the path.
pub fn parse_spec(args: &str) -> Result<(String, Select)> {
    if args.is_empty() {
        bail!("workload 'trace:': give a perf.data file: trace:FILE[,{KEYS}]");
    }
    let mut cut = args.len();
    for (i, _) in args.match_indices(',') {
        let rest = &args[i + 1..];
        let word = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if word > 0 && rest[word..].starts_with('=') {
            cut = i;
            break;
        }
    }
    let file = args[..cut].to_string();
    let mut sel = Select::default();
    let mut seen = std::collections::BTreeSet::new();
    let err = |m: String| anyhow::anyhow!("workload 'trace:{args}': {m}");
    if cut < args.len() {
        for kv in args[cut + 1..].split(',') {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| err(format!("option '{kv}' is not key=value")))?;
            if !seen.insert(k.to_string()) {
                return Err(err(format!("option '{k}' is given twice")));
            }
            let secs = |v: &str| -> Result<u64> {
                match v.parse::<f64>() {
                    Ok(x) if x.is_finite() && (0.0..=86_400.0).contains(&x) => Ok((x * 1e9) as u64),
                    _ => Err(err(format!(
                        "{k}={v} is not a number of seconds in 0..86400"
                    ))),
                }
            };
            match k {
                "comm" => sel.comms = v.split('|').map(String::from).collect(),
                "pid" => {
                    sel.pids = v
                        .split('|')
                        .map(|p| match p.parse::<i32>() {
                            Ok(x) if x > 0 => Ok(x),
                            _ => Err(err(format!("pid={v}: '{p}' is not a process id"))),
                        })
                        .collect::<Result<_>>()?
                }
                "all" => {
                    sel.all = match v {
                        "1" => true,
                        "0" => false,
                        _ => return Err(err(format!("all={v} is not 0 or 1"))),
                    }
                }
                "sync" => {
                    sel.sync = match v {
                        "1" => Some(true),
                        "0" => Some(false),
                        _ => return Err(err(format!("sync={v} is not 0 or 1"))),
                    }
                }
                "kallsyms" => sel.kallsyms = Some(v.to_string()),
                "from" => sel.from_ns = secs(v)?,
                "to" => sel.to_ns = Some(secs(v)?),
                "scale" => {
                    sel.scale = match v.parse::<f64>() {
                        Ok(x) if x.is_finite() && x > 0.0 && x <= 1000.0 => x,
                        _ => return Err(err(format!("scale={v} is not a number in (0, 1000]"))),
                    }
                }
                "cap" => sel.capacity = capacity(v).map_err(|e| err(format!("cap={v}: {e}")))?,
                "cgroups" => {
                    sel.cgroups = match v {
                        "1" => true,
                        "0" => false,
                        _ => return Err(err(format!("cgroups={v} is not 0 or 1"))),
                    }
                }
                _ => return Err(err(format!("unknown key '{k}' (keys: {KEYS})"))),
            }
        }
    }
    if let Some(to) = sel.to_ns {
        if to <= sel.from_ns {
            return Err(err("to= must be after from=".into()));
        }
    }
    Ok((file, sel))
}

/// `0-3:1024;4-7:446`: the capacity of each recorded CPU.
fn capacity(v: &str) -> Result<BTreeMap<u32, u32>> {
    let mut m = BTreeMap::new();
    for part in v.split(';') {
        let (cpus, cap) = part
            .split_once(':')
            .with_context(|| format!("'{part}' is not CPUS:CAPACITY"))?;
        let cap: u32 = cap
            .parse()
            .ok()
            .filter(|c| (1..=1024).contains(c))
            .with_context(|| format!("capacity '{cap}' is not in 1..1024"))?;
        let (a, b) = cpus.split_once('-').unwrap_or((cpus, cpus));
        let (a, b): (u32, u32) = (
            a.parse()
                .with_context(|| format!("'{cpus}' is not a CPU range"))?,
            b.parse()
                .with_context(|| format!("'{cpus}' is not a CPU range"))?,
        );
        if a > b || b > 65535 {
            bail!("'{cpus}' is not a CPU range");
        }
        for c in a..=b {
            if m.insert(c, cap).is_some() {
                bail!("CPU {c} is given twice");
            }
        }
    }
    Ok(m)
}

type Cache = Mutex<BTreeMap<String, Arc<Compiled>>>;

/// The compiled trace of a spec: read once per process (a run of several
/// seeds or schedulers replays the same programs).
pub fn load(args: &str) -> Result<Arc<Compiled>> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(c) = cache.lock().ok().and_then(|m| m.get(args).cloned()) {
        return Ok(c);
    }
    let (file, sel) = parse_spec(args)?;
    let path = Path::new(&file);
    let census = census::Census::read(path)?;
    let compiled =
        program::compile(path, &census, &sel).with_context(|| format!("trace {file}"))?;
    let c = Arc::new(compiled);
    if let Ok(mut m) = cache.lock() {
        m.insert(args.to_string(), c.clone());
    }
    Ok(c)
}
