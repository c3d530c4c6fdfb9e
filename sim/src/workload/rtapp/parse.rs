//! Reading an rt-app file into the use case (mod.rs's types), as rt-app
//! 1.0's src/rt-app_parse_config.c reads it: the global section, the
//! declared resources, each task, its phases and their events, each key's
//! type checked, and every error one line naming the key and its task.

use std::collections::BTreeMap;

use anyhow::{anyhow, bail, Context, Result};

use super::jsonc::{read_json, J};
use super::*;

/// Bounds that keep a file from asking for absurd simulations.
const MAX_THREADS: u64 = crate::limits::MAX_TASKS as u64;
const MAX_DURATION_S: i64 = 1_000_000;

/// Names → indices, in order of first use.
#[derive(Default)]
struct Names(BTreeMap<String, usize>);

impl Names {
    fn id(&mut self, name: &str) -> usize {
        let n = self.0.len();
        *self.0.entry(name.to_string()).or_insert(n)
    }
}

/// The global section, as rt-app's `parse_global` reads it.
struct Global {
    /// `"duration"`, ns.
    end: Option<Ns>,
    default_policy: Policy,
    /// `"mem_buffer_size"`: bytes of each thread's buffer for mem/iorun.
    mem_buffer: u64,
    /// `"io_device"` is /dev/null (rt-app's default).
    io_null: bool,
}

impl Default for Global {
    fn default() -> Global {
        Global {
            end: None,
            default_policy: Policy::Other,
            mem_buffer: DEFAULT_MEM_BUF_SIZE,
            io_null: true,
        }
    }
}

/// Builds the use case while parsing: the shared resources by name.
#[derive(Default)]
struct Builder {
    glob: Global,
    timers: Names,
    absolute: Vec<bool>,
    mutexes: Names,
    conds: Names,
    barriers: Names,
    /// Each barrier's users: its events, once per thread (rt-app's
    /// parse_thread_event_data counts them in `barrier.waiting`).
    barrier_users: Vec<u32>,
}

impl Builder {
    fn cond(&mut self, name: &str) -> usize {
        self.conds.id(name)
    }
}

const TASK_KEYS: &str = "instance, delay, loop, phases, cpus, priority, policy, taskgroup, and the ignored exec, period, deadline, dl-runtime, dl-period, dl-deadline, resources";
const EVENT_KEYS: &str = "run, runtime, sleep, timer, suspend, resume, lock, unlock, wait, signal, broad, sync, mem, iorun, yield, barrier";

/// rt-app's default `mem_buffer_size` (DEFAULT_MEM_BUF_SIZE, 4 MiB).
const DEFAULT_MEM_BUF_SIZE: u64 = 4 << 20;
/// The event type a key names, or None. rt-app 1.0 matches the key's
/// prefix against its `events` table (`obj_is_event`), and then
/// `parse_thread_event_data` tests the prefixes in this order (so
/// `"runtime"` is a run first, then a runtime; `"memrun"` is a mem).
fn event_type(key: &str) -> Option<&'static str> {
    const TYPES: [&str; 15] = [
        "run", "sleep", "mem", "iorun", "lock", "unlock", "signal", "broad", "wait", "sync",
        "barrier", "timer", "resume", "suspend", "yield",
    ];
    let t = TYPES.iter().copied().find(|t| key.starts_with(t))?;
    Some(if t == "run" && key.starts_with("runtime") {
        "runtime"
    } else {
        t
    })
}

fn int(v: &J, what: &str) -> Result<i64> {
    match v {
        J::Int(i) => Ok(*i),
        _ => bail!("{what} must be an integer, not {}", v.kind()),
    }
}

fn us(v: &J, what: &str) -> Result<Ns> {
    let i = int(v, what)?;
    if !(0..=i32::MAX as i64).contains(&i) {
        bail!("{what} must be a number of µs in 0..{}, not {i}", i32::MAX);
    }
    Ok(i as Ns * US)
}

fn string<'a>(v: &'a J, what: &str) -> Result<&'a str> {
    match v {
        J::Str(s) => Ok(s),
        _ => bail!("{what} must be a string, not {}", v.kind()),
    }
}

fn object<'a>(v: &'a J, what: &str) -> Result<&'a [(String, J)]> {
    let J::Obj(o) = v else {
        bail!("{what} must be an object, not {}", v.kind());
    };
    Ok(o)
}

fn loops(v: &J, what: &str) -> Result<i64> {
    let n = int(v, what)?;
    if n == -1 || (1..=i32::MAX as i64).contains(&n) {
        Ok(n)
    } else {
        bail!("{what} must be a positive number of loops or -1 (for ever), not {n}")
    }
}

fn policy(v: &J, what: &str) -> Result<Policy> {
    // rt-app's string_to_policy (src/rt-app_utils.c); any other name is
    // "Invalid policy" and rt-app exits
    Ok(match string(v, what)? {
        "SCHED_OTHER" => Policy::Other,
        "SCHED_FIFO" => Policy::Fifo,
        "SCHED_RR" => Policy::Rr,
        "SCHED_DEADLINE" => bail!("{what} \"SCHED_DEADLINE\" is not supported: the deadline class is not modelled"),
        p => bail!("{what}: invalid policy {p:?} (rt-app knows SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_DEADLINE)"),
    })
}

impl RtApp {
    /// Reads and checks `path`. `nr_cpus`: the simulated machine's, for
    /// affinity lists.
    pub fn from_file(path: &str, nr_cpus: usize) -> Result<RtApp> {
        let text = crate::limits::read_text(
            std::path::Path::new(path),
            "rt-app",
            crate::limits::MAX_JSON_BYTES,
        )?;
        RtApp::parse(path, &text, nr_cpus)
    }

    /// Checks the text of `file`; errors are one line naming the file.
    pub fn parse(file: &str, text: &str, nr_cpus: usize) -> Result<RtApp> {
        Self::parse_inner(text, nr_cpus).map_err(|e| anyhow!("rt-app {file}: {e:#}"))
    }

    fn parse_inner(text: &str, nr_cpus: usize) -> Result<RtApp> {
        let root = read_json(text)?;
        let root = object(&root, "the file")?;
        let (mut global, mut tasks, mut resources) = (None, None, None);
        for (k, v) in root {
            match k.as_str() {
                "tasks" => tasks = Some(object(v, "\"tasks\"")?),
                "global" => global = Some(v),
                "resources" => resources = Some(v),
                _ => {
                    bail!("unsupported top-level key {k:?} (supported: tasks, global, resources)")
                }
            }
        }
        // rt-app's get_opts_from_json_object: global, then resources, then
        // tasks, whatever their order in the file
        let glob = match global {
            Some(g) => parse_global(g)?,
            None => Global::default(),
        };
        if let Some(r) = resources {
            parse_resources(r)?;
        }
        let tasks = tasks.context("no \"tasks\" object")?;
        if tasks.is_empty() {
            bail!("\"tasks\" is empty");
        }
        let end = glob.end;
        let mut b = Builder {
            glob,
            ..Builder::default()
        };
        // the thread limit before the tasks are parsed, and as they are
        if tasks.len() as u64 > MAX_THREADS {
            bail!("{} tasks; at most {MAX_THREADS}", tasks.len());
        }
        let mut groups = Vec::new();
        let mut so_far = 0u64;
        for (name, v) in tasks {
            let g = parse_task(name, v, nr_cpus, &mut b)
                .map_err(|e| anyhow!("task {name:?}: {e:#}"))?;
            so_far += g.instances as u64;
            if so_far > MAX_THREADS {
                bail!("more than {MAX_THREADS} threads (at task {name:?})");
            }
            groups.push(g);
        }
        let total: u64 = groups.iter().map(|g| g.instances as u64).sum();
        if total == 0 {
            bail!("no threads to run (every task has \"instance\": 0)");
        }
        if total > MAX_THREADS {
            bail!("{total} threads; at most {MAX_THREADS}");
        }
        let mut threads = Vec::new();
        for (gi, g) in groups.iter().enumerate() {
            for inst in 0..g.instances {
                threads.push(Thread {
                    group: gi,
                    inst,
                    phase: 0,
                    phase_loop: 0,
                    thread_loop: 0,
                    ev: 0,
                    busy: false,
                    blocked: Blocked::No,
                    exited: false,
                    timer_due: None,
                    woken: false,
                    cpus: g.cpus.clone(),
                    nice: match g.policy {
                        Policy::Other => g.priority.unwrap_or(0),
                        // a phase's priority is refused for these
                        Policy::Fifo | Policy::Rr => 0,
                    },
                    unique: g
                        .unique
                        .iter()
                        .map(|&(_, absolute)| TimerState {
                            absolute,
                            ..TimerState::default()
                        })
                        .collect(),
                });
            }
        }
        let timers = b
            .absolute
            .iter()
            .map(|&absolute| TimerState {
                absolute,
                ..TimerState::default()
            })
            .collect();
        Ok(RtApp {
            groups,
            threads,
            timers,
            mutexes: vec![Mutex::default(); b.mutexes.0.len()],
            conds: vec![VecDeque::new(); b.conds.0.len()],
            barriers: b.barrier_users.iter().map(|&u| (u, Vec::new())).collect(),
            end,
            lateness: Hist::default(),
            wakeup: Hist::default(),
            activations: 0,
            late: 0,
            exited: 0,
            blocked: 0,
            stalled: false,
            finish: None,
            nr_cpus,
        })
    }
}

fn boolean(v: &J, what: &str) -> Result<()> {
    match v {
        J::Bool(_) => Ok(()),
        _ => bail!("{what} must be true or false, not {}", v.kind()),
    }
}

/// The global object, as rt-app 1.0's `parse_global` reads it: each key it
/// knows must have its type (`assure_type_is`: "Invalid type for key" and
/// rt-app exits).
fn parse_global(v: &J) -> Result<Global> {
    let mut g = Global::default();
    for (k, v) in object(v, "\"global\"")? {
        let what = format!("global: {k:?}");
        match k.as_str() {
            "duration" => {
                let d = int(v, &what)?;
                if d > MAX_DURATION_S {
                    bail!("{what} {d} s is more than {MAX_DURATION_S} s");
                }
                g.end = (d > 0).then(|| d as Ns * 1_000_000_000);
            }
            "default_policy" => g.default_policy = policy(v, &what)?,
            "gnuplot" | "ftrace" | "lock_pages" | "pi_enabled" | "cumulative_slack" => {
                boolean(v, &what)?
            }
            // a string or null (get_string_value_from)
            "logdir" | "log_basename" if matches!(v, J::Null) => {}
            "logdir" | "log_basename" => {
                string(v, &what)?;
            }
            "io_device" => {
                g.io_null = match v {
                    J::Null => true,
                    _ => string(v, &what)? == "/dev/null",
                }
            }
            // an integer (ns per loop), or "CPUn" (the CPU to calibrate on)
            "calibration" => match v {
                J::Int(_) => {}
                J::Str(c) if c.starts_with("CPU") => {}
                _ => bail!("{what} must be an integer (ns per loop) or \"CPUn\", not {v:?}"),
            },
            // MB per thread, or a mode string
            "log_size" => {
                if !matches!(v, J::Int(_)) {
                    string(v, &what)?;
                }
            }
            "mem_buffer_size" => {
                let n = int(v, &what)?;
                if !(1..=i32::MAX as i64).contains(&n) {
                    bail!("{what} must be a positive number of bytes, not {n}");
                }
                g.mem_buffer = n as u64;
            }
            // the log fragment count of rt-app before 1.0 (the "frag" of
            // the browser and mp3 examples); rt-app 1.0 ignores it
            "frag" => {}
            _ => bail!("global: unsupported key {k:?}"),
        }
    }
    Ok(g)
}

/// rt-app 1.0's top-level `"resources"` (`parse_resources`): when it is an
/// object, each member is a resource whose `"type"` must be one of
/// `string_to_resource`'s, else "Invalid type of resource" and rt-app exits.
/// A resource declared here is the one events of that name and kind use
/// anyway (`get_resource_index` finds it or adds it), so nothing else
/// changes; anything else than an object is ignored, as rt-app does.
fn parse_resources(v: &J) -> Result<()> {
    const TYPES: [&str; 8] = [
        "mutex",
        "signal",
        "wait",
        "broadcast",
        "sync",
        "sleep",
        "run",
        "timer",
    ];
    let J::Obj(o) = v else { return Ok(()) };
    for (name, r) in o {
        let ty = match r {
            J::Obj(m) => m.iter().rev().find(|(k, _)| k == "type").map(|(_, t)| t),
            _ => None,
        };
        match ty {
            Some(J::Str(t)) if TYPES.contains(&t.as_str()) => {}
            Some(J::Str(t)) => bail!(
                "\"resources\": {name:?}: invalid type of resource {t:?} (rt-app knows {})",
                TYPES.join(", ")
            ),
            _ => bail!(
                "\"resources\": {name:?} must be an object with a \"type\" (one of {})",
                TYPES.join(", ")
            ),
        }
    }
    Ok(())
}

/// Keys rt-app 1.0 reads as integers in a task, for SCHED_DEADLINE only
/// (`parse_thread_data`): type-checked, otherwise without effect.
const DL_KEYS: [&str; 5] = [
    "dl-runtime",
    "dl-period",
    "period",
    "dl-deadline",
    "deadline",
];
/// Keys of rt-app before 1.0 (its `taskset.json` and `merge/` examples)
/// that rt-app 1.0 ignores: a task's `"exec"` and its own `"resources"`.
const OLD_KEYS: [&str; 2] = ["exec", "resources"];

fn parse_task(name: &str, v: &J, nr_cpus: usize, b: &mut Builder) -> Result<Group> {
    let obj = object(v, "the task")?;
    let mut g = Group {
        name: name.to_string(),
        instances: 1,
        loops: -1,
        phases: Vec::new(),
        delay: 0,
        weight: 100,
        policy: b.glob.default_policy,
        priority: None,
        cpus: None,
        taskgroup: None,
        unique: Vec::new(),
        has_timer: false,
        has_wait: false,
        mem_bytes: 0,
        barriers: Vec::new(),
        lateness: Hist::default(),
        wakeup: Hist::default(),
    };
    let mut loop_key = None;
    let mut phases = None;
    let mut events = Vec::new();
    for (k, v) in obj {
        match k.as_str() {
            "instance" => {
                let n = int(v, "\"instance\"")?;
                if !(0..=MAX_THREADS as i64).contains(&n) {
                    bail!("\"instance\" must be in 0..{MAX_THREADS}, not {n}");
                }
                g.instances = n as u32;
            }
            // rt-app: a negative delay is 0
            "delay" => g.delay = int(v, "\"delay\"")?.clamp(0, i32::MAX as i64) as Ns * US,
            "loop" => loop_key = Some(loops(v, "\"loop\"")?),
            "phases" => phases = Some(object(v, "\"phases\"")?),
            "cpus" => g.cpus = Some(cpus(v, nr_cpus)?),
            "priority" => g.priority = Some(int(v, "\"priority\"")?),
            "policy" => g.policy = policy(v, "\"policy\"")?,
            "taskgroup" => g.taskgroup = taskgroup(v)?,
            _ if DL_KEYS.contains(&k.as_str()) => {
                int(v, &format!("{k:?}"))?;
            }
            _ if OLD_KEYS.contains(&k.as_str()) => {}
            _ if event_type(k).is_some() => events.push((k, v)),
            _ => bail!("unsupported key {k:?} (supported: {TASK_KEYS}; events {EVENT_KEYS})"),
        }
    }
    // rt-app's thread_body: pthread_setschedparam for SCHED_FIFO/RR (1..99,
    // default 10: DEFAULT_THREAD_PRIORITY), setpriority (nice) otherwise
    // (default 0); a bad value makes the thread, and rt-app, exit
    match g.policy {
        Policy::Other => {
            let n = g.priority.unwrap_or(0);
            if !(-20..=19).contains(&n) {
                bail!("\"priority\" is a SCHED_OTHER thread's nice value, in -20..19, not {n}");
            }
            g.weight = nice_to_weight(n as i32);
        }
        Policy::Fifo | Policy::Rr => {
            let n = *g.priority.get_or_insert(10);
            if !(1..=99).contains(&n) {
                bail!("\"priority\" is a SCHED_FIFO/SCHED_RR thread's real-time priority, in 1..99, not {n}");
            }
        }
    }
    match phases {
        Some(ps) => {
            if let Some((k, _)) = events.first() {
                bail!("event {k:?} beside \"phases\" (rt-app ignores it): move it into a phase");
            }
            if ps.is_empty() {
                bail!("\"phases\" is empty");
            }
            for (pname, pv) in ps {
                let p = parse_phase(name, pv, nr_cpus, &mut g, b)
                    .map_err(|e| anyhow!("phase {pname:?}: {e:#}"))?;
                g.phases.push(p);
            }
            g.loops = loop_key.unwrap_or(-1);
        }
        None => {
            // the task is its only phase; rt-app 1.0's parse_thread_data
            // reads "loop" as that phase's count and loops the thread for
            // ever (data->loop = -1): "loop": 3 without phases runs three
            // iterations, then three more, until the duration (checked
            // with the installed rt-app 1.0). rt-app 1.1 and later run
            // such a task once instead.
            let evs = events
                .iter()
                .map(|(k, v)| parse_event(name, k, v, &mut g, b))
                .collect::<Result<Vec<_>>>()?;
            if evs.is_empty() {
                bail!("no events (one of {EVENT_KEYS}) and no \"phases\"");
            }
            g.phases.push(Phase {
                loops: loop_key.unwrap_or(1),
                events: evs,
                cpus: None,
                nice: None,
            });
            g.loops = -1;
        }
    }
    // each thread of the task is one more user of its barriers
    for &bar in &g.barriers {
        b.barrier_users[bar] += g.instances;
    }
    Ok(g)
}

/// rt-app's `parse_cpuset_data`: an array of CPU numbers, each at most the
/// last CPU (here of the simulated machine; rt-app: of the machine it runs
/// on, `sysconf(_SC_NPROCESSORS_CONF)`), else "Invalid cpu" and rt-app exits.
fn cpus(v: &J, nr_cpus: usize) -> Result<Vec<usize>> {
    let J::Arr(a) = v else {
        bail!("\"cpus\" must be an array of CPU numbers, not {}", v.kind());
    };
    if a.is_empty() {
        bail!("\"cpus\" is empty");
    }
    let mut out = Vec::new();
    for x in a {
        let c = int(x, "each of \"cpus\"")?;
        if c < 0 || c as u64 >= nr_cpus as u64 {
            bail!(
                "\"cpus\": CPU {c} is not on the simulated machine (CPUs 0..{})",
                nr_cpus.saturating_sub(1)
            );
        }
        if !out.contains(&(c as usize)) {
            out.push(c as usize);
        }
    }
    Ok(out)
}

/// `"taskgroup"`: the cgroup of the task's threads, a path below the cpu
/// controller's mount ("/" or "": the root), as upstream rt-app reads it
/// after v1.0 (rt-app_taskgroups.c creates the group and moves each thread
/// in; Debian's 1.0 ignores the key, so such a file runs in the root
/// there). rt-app writes no cpu.weight: the group has the default 100, as
/// an ancestor without a task of its own does.
fn taskgroup(v: &J) -> Result<Option<String>> {
    let path = string(v, "\"taskgroup\"")?;
    if path.is_empty() || path == "/" {
        return Ok(None);
    }
    use crate::core::cgroup::{check_path, PathError, MAX_DEPTH};
    match check_path(path) {
        Ok(()) => Ok(Some(path.to_string())),
        Err(PathError::NotAPath) => {
            bail!("\"taskgroup\" {path:?} is not a cgroup path /NAME[/NAME...]")
        }
        Err(PathError::TooDeep) => {
            bail!("\"taskgroup\" {path:?} is deeper than {MAX_DEPTH} levels")
        }
    }
}

fn parse_phase(task: &str, v: &J, nr_cpus: usize, g: &mut Group, b: &mut Builder) -> Result<Phase> {
    let mut p = Phase {
        loops: 1,
        events: Vec::new(),
        cpus: None,
        nice: None,
    };
    for (k, v) in object(v, "the phase")? {
        match k.as_str() {
            "loop" => p.loops = loops(v, "\"loop\"")?,
            // rt-app 1.0's parse_thread_phase_data reads a phase's cpus
            "cpus" => p.cpus = Some(cpus(v, nr_cpus)?),
            // later rt-app's parse_thread_phase_data reads a phase's
            // priority too (parse_sched_data(obj, same), rt-app commit
            // 395ec42): for a SCHED_OTHER thread its nice, which
            // __set_thread_sched_other_attrs refuses (and rt-app exits)
            // outside -20..19
            "priority" => {
                let n = int(v, "\"priority\"")?;
                if g.policy != Policy::Other {
                    bail!("\"priority\" per phase is supported for SCHED_OTHER tasks only (their nice), not for real-time ones: set it on the task");
                }
                if !(-20..=19).contains(&n) {
                    bail!("\"priority\" is a SCHED_OTHER thread's nice value, in -20..19, not {n}");
                }
                p.nice = Some(n);
            }
            // a move to another cgroup at a phase's start (rt-app's
            // per-phase taskgroup) is not modelled
            "taskgroup" => bail!(
                "\"taskgroup\" per phase is not supported (a move between cgroups at each phase): set it on the task, or use arbor sim --cgroup-event"
            ),
            // a change of class per phase (later rt-app's) is not modelled
            "policy" => bail!(
                "\"policy\" per phase is not supported (rt-app 1.0 ignores it; later rt-app changes the class per phase): set it on the task"
            ),
            _ if DL_KEYS.contains(&k.as_str()) || OLD_KEYS.contains(&k.as_str()) => {}
            _ if event_type(k).is_some() => p.events.push(parse_event(task, k, v, g, b)?),
            _ => bail!("unsupported key {k:?} (supported: loop, cpus, priority; events {EVENT_KEYS})"),
        }
    }
    if p.events.is_empty() {
        bail!("no events (one of {EVENT_KEYS})");
    }
    Ok(p)
}

/// `{"ref": .., "mutex": ..}` of a wait or sync; rt-app 1.0 names a missing
/// one "unknown" (`get_string_value_from`'s default).
fn cond_ref(k: &str, v: &J, b: &mut Builder) -> Result<(usize, Option<usize>)> {
    let mut cond = None;
    let mut mutex = None;
    if let J::Obj(o) = v {
        for (kk, vv) in o {
            match kk.as_str() {
                "ref" => cond = Some(b.cond(string(vv, &format!("{k:?}: \"ref\""))?)),
                "mutex" => mutex = Some(b.mutexes.id(string(vv, &format!("{k:?}: \"mutex\""))?)),
                _ => bail!("{k:?}: unsupported key {kk:?} (supported: ref, mutex)"),
            }
        }
    }
    let cond = cond.unwrap_or_else(|| b.cond("unknown"));
    Ok((cond, mutex))
}

fn parse_event(task: &str, k: &str, v: &J, g: &mut Group, b: &mut Builder) -> Result<Event> {
    let what = format!("{k:?}");
    let ty = event_type(k).unwrap_or_default();
    // rt-app 1.0's parse_thread_event_data: an event whose value has the
    // wrong type ("sleep": false, "lock_order": [...]) is logged as
    // "Unknown or mismatch event type" and becomes a run of 0 µs
    let nothing = Event::Run(0);
    let _ = task;
    // a fractional duration or size: rt-app 1.0 logs the type mismatch
    // and runs 0 µs; refused here, since 1000.5 µs becoming 0 is never
    // what was meant
    if let J::Num(x) = v {
        if matches!(ty, "run" | "runtime" | "sleep" | "mem" | "iorun") {
            bail!("{what} must be an integer number of µs (or bytes), not {x}");
        }
    }
    Ok(match ty {
        "run" | "runtime" | "sleep" => {
            let J::Int(_) = v else { return Ok(nothing) };
            let ns = us(v, &what)?;
            if ty == "sleep" {
                Event::Sleep(ns)
            } else {
                Event::Run(ns)
            }
        }
        // memload: memset of that many bytes of the thread's buffer, in
        // pieces of mem_buffer_size; ioload: write(2) of that many bytes
        // from it to io_device, in pieces of mem_buffer_size
        "mem" | "iorun" => {
            let J::Int(n) = *v else { return Ok(nothing) };
            if !(0..=i32::MAX as i64).contains(&n) {
                bail!(
                    "{what} must be a number of bytes in 0..{}, not {n}",
                    i32::MAX
                );
            }
            let n = n as u64;
            let piece = b.glob.mem_buffer;
            g.mem_bytes = g.mem_bytes.max(n.min(piece));
            if ty == "mem" {
                Event::Run(n.div_ceil(MEMSET_BYTES_PER_NS))
            } else {
                let writes = n.div_ceil(piece);
                // to a file other than /dev/null, each write also copies
                // its bytes (into the page cache): counted as a memset
                let copy = if b.glob.io_null {
                    0
                } else {
                    n.div_ceil(MEMSET_BYTES_PER_NS)
                };
                Event::Run(writes * WRITE_NULL_NS + copy)
            }
        }
        "timer" => {
            // rt-app 1.0: "ref" defaults to "unknown", "period" to 0, and
            // a mode starting with "absolute" is absolute
            let mut name = "unknown";
            let mut period = 0;
            let mut absolute = false;
            if let J::Obj(o) = v {
                for (kk, vv) in o {
                    match kk.as_str() {
                        "ref" => name = string(vv, &format!("{what}: \"ref\""))?,
                        "period" => period = us(vv, &format!("{what}: \"period\""))?,
                        "mode" => {
                            absolute =
                                string(vv, &format!("{what}: \"mode\""))?.starts_with("absolute")
                        }
                        _ => {
                            bail!("{what}: unsupported key {kk:?} (supported: ref, period, mode)")
                        }
                    }
                }
            }
            g.has_timer = true;
            // rt-app: one use in absolute mode makes the timer absolute
            let timer = if name.starts_with("unique") {
                let i = match g.unique.iter().position(|u| u.0 == name) {
                    Some(i) => i,
                    None => {
                        g.unique.push((name.to_string(), false));
                        g.unique.len() - 1
                    }
                };
                g.unique[i].1 |= absolute;
                TimerRef::Unique(i)
            } else {
                let i = b.timers.id(name);
                if b.absolute.len() <= i {
                    b.absolute.resize(i + 1, false);
                }
                b.absolute[i] |= absolute;
                TimerRef::Shared(i)
            };
            Event::Timer { timer, period }
        }
        // rt-app 1.0: "suspend": NAME waits on the condition NAME (with
        // the mutex NAME), whatever task it is in; "resume": NAME
        // broadcasts it. (rt-app 1.1 and later suspend on the task's own
        // name whatever the string says.) A resume that nobody waits for
        // is lost, as a condition variable's broadcast is.
        "suspend" | "resume" | "signal" | "broad" | "lock" | "unlock" | "barrier" => {
            let J::Str(name) = v else { return Ok(nothing) };
            match ty {
                "suspend" => {
                    g.has_wait = true;
                    Event::Wait {
                        cond: b.cond(name),
                        mutex: None,
                    }
                }
                "signal" => Event::Signal(b.cond(name)),
                "resume" | "broad" => Event::Broad(b.cond(name)),
                "lock" => {
                    g.has_wait = true;
                    Event::Lock(b.mutexes.id(name))
                }
                "unlock" => Event::Unlock(b.mutexes.id(name)),
                _ => {
                    let i = b.barriers.id(name);
                    if b.barrier_users.len() <= i {
                        b.barrier_users.resize(i + 1, 0);
                    }
                    g.barriers.push(i);
                    g.has_wait = true;
                    Event::Barrier(i)
                }
            }
        }
        "wait" | "sync" => {
            let (cond, mutex) = cond_ref(k, v, b)?;
            g.has_wait = true;
            if ty == "wait" {
                Event::Wait { cond, mutex }
            } else {
                Event::Sync { cond, mutex }
            }
        }
        // pthread_yield: the model has no yield; with nothing else
        // runnable on the CPU it returns at once, which is what it does
        // here
        "yield" => nothing,
        _ => bail!("unsupported key {k:?} (supported events: {EVENT_KEYS})"),
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{app, err, once};
    use super::*;
    use crate::task::Workload;
    use crate::workload::testkit::drive;

    #[test]
    fn instance_creates_that_many_threads() {
        let t = once(2, r#""run": 100"#).replacen('{', r#"{"instance": 3, "#, 1);
        let u = once(1, r#""run": 5"#);
        let mut w = app(&format!(
            r#"{{"tasks": {{"t": {t}, "u": {u}, "none": {{"instance": 0, "run": 5}}}}}}"#
        ));
        let t = w.tasks();
        let names: Vec<&str> = t.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["t-0", "t-1", "t-2", "u"]);
        assert!(t.iter().all(|s| s.tgid == t[0].tgid));
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(out.exited, 4);
        assert_eq!(out.run_ns, vec![200_000, 200_000, 200_000, 5000]);
    }

    #[test]
    fn priority_is_nice_and_sets_the_weight() {
        // SCHED_FIFO/RR: a real-time priority, 10 by default
        let w = app(r#"{"global": {"default_policy": "SCHED_FIFO"},
            "tasks": {"f": {"run": 1}, "r": {"policy": "SCHED_RR", "priority": 70, "run": 1},
                "o": {"policy": "SCHED_OTHER", "run": 1}}}"#);
        let t = w.tasks();
        assert_eq!(
            t.iter().map(|s| s.rt_prio).collect::<Vec<_>>(),
            [Some(10), Some(70), None]
        );
        let w = app(
            r#"{"tasks": {"t": {"priority": 5, "cpus": [1, 3, 1], "run": 10},
            "u": {"policy": "SCHED_OTHER", "run": 10}}}"#,
        );
        let t = w.tasks();
        assert_eq!(t[0].weight, 33);
        assert_eq!(t[0].cpus, Some(vec![1, 3]));
        assert_eq!(t[1].weight, 100);
        assert_eq!(t[1].cpus, None);
    }

    #[test]
    fn bad_files_say_what_is_wrong_in_one_line() {
        let cases = [
            (
                r#"{"tasks": {"t1": {"run": 10, "fork": "t2"}}}"#,
                r#"rt-app t.json: task "t1": unsupported key "fork""#,
            ),
            (r#"{"tasks": "#, "rt-app t.json: not valid JSON: "),
            (r#"{"global": {}}"#, r#"rt-app t.json: no "tasks" object"#),
            (r#"{"tasks": {}}"#, r#"rt-app t.json: "tasks" is empty"#),
            (
                r#"{"tasks": {"t": {"run": -5}}}"#,
                r#"task "t": "run" must be a number of µs"#,
            ),
            (
                r#"{"tasks": {"t": {"run": 5, "timer": {"ref": "x", "period": 10, "slack": 1}}}}"#,
                r#""timer": unsupported key "slack""#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "cpus": [4]}}}"#,
                "CPU 4 is not on the simulated machine (CPUs 0..3)",
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "priority": 20}}}"#,
                "nice value, in -20..19, not 20",
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "nice": 2}}}"#,
                r#"unsupported key "nice""#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "policy": "SCHED_BATCH"}}}"#,
                r#"task "t": "policy": invalid policy "SCHED_BATCH""#,
            ),
            (
                r#"{"global": {"default_policy": "SCHED_DEADLINE"}, "tasks": {"t": {"run": 1}}}"#,
                "the deadline class is not modelled",
            ),
            (
                r#"{"global": {"gnuplot": 1}, "tasks": {"t": {"run": 1}}}"#,
                r#"global: "gnuplot" must be true or false, not an integer"#,
            ),
            (
                r#"{"global": {"calibration": "fast"}, "tasks": {"t": {"run": 1}}}"#,
                r#"global: "calibration" must be an integer (ns per loop) or "CPUn""#,
            ),
            (
                r#"{"global": {"mem_buffer_size": "1M"}, "tasks": {"t": {"run": 1}}}"#,
                r#"global: "mem_buffer_size" must be an integer, not a string"#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "period": "y"}}}"#,
                r#"task "t": "period" must be an integer, not a string"#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "mem": -3}}}"#,
                r#"task "t": "mem" must be a number of bytes"#,
            ),
            (
                r#"{"global": {"frobnicate": 1}, "tasks": {"t": {"run": 1}}}"#,
                r#"global: unsupported key "frobnicate""#,
            ),
            (
                r#"{"resources": {"m": {"type": "bogus"}}, "tasks": {"t": {"run": 1}}}"#,
                r#"rt-app t.json: "resources": "m": invalid type of resource "bogus""#,
            ),
            (
                r#"{"resources": {"m": 3}, "tasks": {"t": {"run": 1}}}"#,
                r#""resources": "m" must be an object with a "type""#,
            ),
            (
                r#"{"frag": 1, "tasks": {"t": {"run": 1}}}"#,
                r#"unsupported top-level key "frag""#,
            ),
            (
                r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "policy": "SCHED_OTHER"}}}}}"#,
                r#"task "t": phase "p": "policy" per phase is not supported"#,
            ),
            (
                r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "taskgroup": "/a"}}}}}"#,
                r#"task "t": phase "p": "taskgroup" per phase is not supported"#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "taskgroup": "a//b"}}}"#,
                r#"task "t": "taskgroup" "a//b" is not a cgroup path /NAME[/NAME...]"#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "taskgroup": "/1/2/3/4/5/6/7/8/9"}}}"#,
                r#"task "t": "taskgroup" "/1/2/3/4/5/6/7/8/9" is deeper than 8 levels"#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "taskgroup": 3}}}"#,
                r#"task "t": "taskgroup""#,
            ),
            (
                r#"{"tasks": {"t": {"policy": "SCHED_FIFO", "phases": {"p": {"run": 1, "priority": 3}}}}}"#,
                r#"task "t": phase "p": "priority" per phase is supported for SCHED_OTHER tasks only"#,
            ),
            (
                r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "priority": -21}}}}}"#,
                r#"task "t": phase "p": "priority" is a SCHED_OTHER thread's nice value, in -20..19, not -21"#,
            ),
            (
                r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "priority": "high"}}}}}"#,
                r#"task "t": phase "p": "priority""#,
            ),
            (
                r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "sem_wait": "s"}}}}}"#,
                r#"task "t": phase "p": unsupported key "sem_wait""#,
            ),
            (
                r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "cpus": [0, 9]}}}}}"#,
                r#"task "t": phase "p": "cpus": CPU 9 is not on the simulated machine"#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "policy": "SCHED_FIFO", "priority": 0}}}"#,
                "real-time priority, in 1..99, not 0",
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "phases": {"p": {"run": 1}}}}}"#,
                r#"event "run" beside "phases""#,
            ),
            (
                r#"{"tasks": {"t": {"loop": 0, "run": 1}}}"#,
                r#""loop" must be a positive number of loops or -1"#,
            ),
            (
                r#"{"tasks": {"t": {"instance": 0, "run": 1}}}"#,
                "no threads to run",
            ),
            (r#"{"tasks": {"t": {"loop": 3}}}"#, r#"task "t": no events"#),
            (r#"[1, 2]"#, "the file must be an object, not an array"),
        ];
        for (json, want) in cases {
            let e = err(json);
            assert!(e.starts_with("rt-app t.json: "), "{e}");
            assert!(e.contains(want), "{json}\n  gave: {e}\n  want: {want}");
            assert!(!e.contains('\n'), "{e}");
        }
        let e = match RtApp::from_file("/nonexistent/x.json", 4) {
            Ok(_) => panic!("read a missing file"),
            Err(e) => format!("{e:#}"),
        };
        assert!(
            e.starts_with("rt-app /nonexistent/x.json: cannot read it"),
            "{e}"
        );
    }

    #[test]
    fn the_keys_rt_app_1_0_ignores_are_accepted() {
        // mp3/browser: global "frag"; merge/resources.json: declared
        // resources; taskset.json: exec, period, deadline, resources
        let w = app(r#"{"global": {"frag": 1, "gnuplot": false, "log_size": 2,
                "calibration": 128, "logdir": null, "mem_buffer_size": 4096},
            "resources": {"m0": {"type": "mutex"}, "trig": {"type": "signal", "target": "wait"}},
            "tasks": {"t": {"exec": 5000, "period": 24000, "dl-runtime": 3,
                "resources": {"r0": {"duration": 1000}}, "delay": -5, "run": 1}}}"#);
        assert_eq!(w.tasks()[0].start_at, 0);
        // a top-level "resources" that is not an object is ignored
        app(r#"{"resources": [1], "tasks": {"t": {"run": 1}}}"#);
    }
}
