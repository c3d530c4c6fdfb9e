//! The second pass: each replayed thread's program, built from the trace's
//! events. A program is what the thread's own code did, not where it ran:
//! - `Run(work)`: a CPU burst, switch-in to switch-out (preemptions
//!   merged), in work units (ns at capacity 1024) scaled by the recorded
//!   CPU's capacity and the `scale` option;
//! - `Wake(t)`, `Fork(t)`: at their offsets inside the bursts (the burst is
//!   cut there);
//! - `Block`: a switch-out in S/D state that another replayed thread's code
//!   ended (sched_waking in its context): a dependency, released by that
//!   thread's `Wake`, whenever the replay gets there;
//! - `Sleep(ns)`: a block that a timer, an IO completion (interrupt
//!   context, the idle task) or a thread not replayed ended, for its
//!   recorded length;
//! - `Exit`: the thread died (prev_state X/Z), or the trace (window) ended.
//!
//! The scheduler under test then decides where and when each burst runs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{bail, Result};
use serde::Serialize;

use super::census::{Census, STATE_DEAD, STATE_REPORT};
use super::ksyms::Ksyms;
use super::perf::{self, Event, Kind, Sync as WakeSync};
use crate::workload::{Ns, TaskSpec};

/// One step of a thread's program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Run(Ns),
    /// Wake a task; `sync`: with WF_SYNC.
    Wake {
        to: u32,
        sync: bool,
    },
    Fork(u32),
    Block,
    Sleep(Ns),
    Exit,
    /// A wake-up that turned out to have no effect (see `pending`).
    Nop,
}

/// Which processes to replay, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Select {
    /// Processes by name (any name one of its threads had), with the
    /// processes they created.
    pub comms: Vec<String>,
    /// Processes by id, with the processes they created.
    pub pids: Vec<i32>,
    /// Every process but the kernel's threads and the recorder.
    pub all: bool,
    /// The time window, ns after the first event of the replayed threads.
    pub from_ns: Ns,
    pub to_ns: Option<Ns>,
    /// Burst lengths are multiplied by this.
    pub scale: f64,
    /// `Some`: every dependency wake-up is sync (WF_SYNC), or none, in
    /// place of what the call chains say.
    pub sync: Option<bool>,
    /// The kallsyms copy that resolves the call chains (default
    /// `FILE.kallsyms`, when it exists).
    pub kallsyms: Option<String>,
    /// The capacity of each recorded CPU (1024 where not given).
    pub capacity: BTreeMap<u32, u32>,
    /// Each replayed thread runs in the cgroup of its first sample
    /// (`perf record --all-cgroups`; `cgroups=1`), of weight 100.
    pub cgroups: bool,
}

impl Default for Select {
    fn default() -> Select {
        Select {
            comms: vec![],
            pids: vec![],
            all: false,
            from_ns: 0,
            to_ns: None,
            scale: 1.0,
            sync: None,
            kallsyms: None,
            capacity: BTreeMap::new(),
            cgroups: false,
        }
    }
}

/// The sim's path of a recorded cgroup v2 path (core/cgroup.rs takes
/// names of letters, digits, `_`, `.`, `-`, at most MAX_DEPTH levels):
/// every other character becomes `_` (`user@1000.service` ->
/// `user_1000.service`), levels past MAX_DEPTH are dropped (the task is
/// in that ancestor); None for the root.
pub fn cgroup_path(recorded: &str) -> Option<String> {
    use crate::core::cgroup::MAX_DEPTH;
    let parts: Vec<String> = recorded
        .split('/')
        .filter(|p| !p.is_empty())
        .take(MAX_DEPTH)
        .map(|p| {
            p.chars()
                .map(|ch| {
                    if ch.is_ascii_alphanumeric() || "_.-".contains(ch) {
                        ch
                    } else {
                        '_'
                    }
                })
                .collect()
        })
        .collect();
    (!parts.is_empty()).then(|| format!("/{}", parts.join("/")))
}

/// What the replay kept and dropped, for the report and trace-info.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub file: String,
    /// How the processes were chosen.
    pub selection: String,
    pub processes: Vec<(i32, String, usize)>,
    pub threads: usize,
    /// Threads of the chosen processes that did nothing in the window.
    pub threads_idle: usize,
    pub window_ns: (Ns, Ns),
    /// Recorded CPU time of the replayed threads in the window, and of
    /// every task in the trace (the idle task excluded).
    pub cpu_ns: u64,
    pub cpu_ns_all: u64,
    pub bursts: u64,
    pub wakes_dep: u64,
    /// Of them, sync (WF_SYNC); and where that came from.
    pub wakes_dep_sync: u64,
    pub sync_source: String,
    pub sleeps_irq: u64,
    pub sleeps_dropped_waker: u64,
    /// Blocks whose end the file does not show (a lost record).
    pub sleeps_unrecorded: u64,
    pub blocks_open: u64,
    pub forks: u64,
    pub timed_starts: u64,
    pub exits: u64,
    /// Wake-ups of threads not replayed by replayed ones (dropped).
    pub wakes_of_dropped: u64,
    /// Wake-ups of a thread that was not blocked (no effect).
    pub wakes_noop: u64,
    pub prio_changes: u64,
    /// Recorded wall time: first to last event of the replayed threads.
    pub wall_ns: Ns,
    pub lost_records: u64,
}

impl Summary {
    pub fn coverage(&self) -> f64 {
        if self.cpu_ns_all == 0 {
            0.0
        } else {
            self.cpu_ns as f64 / self.cpu_ns_all as f64
        }
    }

    /// Recorded wake-ups of the replayed threads: dependencies, timer/IO
    /// ends of blocks, and starts.
    pub fn wakeups(&self) -> u64 {
        self.wakes_dep
            + self.sleeps_irq
            + self.sleeps_dropped_waker
            + self.forks
            + self.timed_starts
    }

    /// What was replayed and dropped, in a few lines.
    pub fn text(&self) -> String {
        let procs: Vec<String> = self
            .processes
            .iter()
            .take(8)
            .map(|(p, n, k)| format!("{n}[{p}] {k} thr"))
            .collect();
        let more = self.processes.len().saturating_sub(8);
        format!(
            "trace {}: replayed {} threads of {} processes ({}{}; {}), {:.3} s window\n\
             kept: {:.3} s CPU in {} bursts = {:.1}% of the trace's CPU time; {} dependency wake-ups ({} sync: {}), {} timer/IO sleeps, {} forks, {} exits; recorded wall {:.3} s\n\
             dropped: {} blocks whose end the file lacks (kept as fixed sleeps), {} wake-ups of threads not replayed, {} blocks ended by threads not replayed (kept as fixed sleeps), {} wake-ups of running threads (no effect), {} blocks still open at the end (the thread ends there), {} priority changes (each thread keeps its first), {} lost records, {} threads idle in the window",
            self.file,
            self.threads,
            self.processes.len(),
            procs.join(", "),
            if more > 0 { format!(", +{more}") } else { String::new() },
            self.selection,
            (self.window_ns.1 - self.window_ns.0) as f64 / 1e9,
            self.cpu_ns as f64 / 1e9,
            self.bursts,
            100.0 * self.coverage(),
            self.wakes_dep,
            self.wakes_dep_sync,
            self.sync_source,
            self.sleeps_irq,
            self.forks,
            self.exits,
            self.wall_ns as f64 / 1e9,
            self.sleeps_unrecorded,
            self.wakes_of_dropped,
            self.sleeps_dropped_waker,
            self.wakes_noop,
            self.blocks_open,
            self.prio_changes,
            self.lost_records,
            self.threads_idle,
        )
    }
}

/// The replay's input: one task and one program per replayed thread.
#[derive(Debug)]
pub struct Compiled {
    pub tasks: Vec<TaskSpec>,
    pub programs: Vec<Vec<Op>>,
    /// Task index -> started by its parent's `Fork` (else at start_at).
    pub by_fork: Vec<bool>,
    pub summary: Summary,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum St {
    Unseen,
    Running(u32),
    Runnable,
    Blocked(u64, usize),
    Dead,
}

struct Th {
    tid: i32,
    /// A wake-up that arrived while it was still running, on its way to
    /// sleep (ttwu racing __schedule: sched_switch then reports S although
    /// the task never left the run queue): `Some(Some((waker, op)))` from a
    /// replayed waker's `Wake` at that op, `Some(None)` from an interrupt
    /// or a thread not replayed. The switch-out decides: S/D consumes it
    /// at once; R turns the waker's op into a no-op.
    pending: Option<Option<(usize, usize)>>,
    ops: Vec<Op>,
    st: St,
    start_at: Option<Ns>,
    by_fork: bool,
    prio: Option<i32>,
    last_cpu: u32,
}

/// The kernel's nice-to-weight table (kernel/sched/core.c,
/// sched_prio_to_weight), nice -20..19; nice 0 = 1024.
const PRIO_TO_WEIGHT: [u32; 40] = [
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
    3906, 3121, 2501, 1991, 1586, 1277, 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87,
    70, 56, 45, 36, 29, 23, 18, 15,
];

/// sched_ext's p->scx.weight for a fair priority (100 = nice 0:
/// `sched_weight_to_cgroup`, kernel/sched/ext.c); RT priorities (< 100)
/// replay as nice 0.
pub fn weight_of(prio: i32) -> u32 {
    let nice = prio.saturating_sub(120);
    if !(-20..=19).contains(&nice) {
        return 100;
    }
    let w = PRIO_TO_WEIGHT[(nice + 20) as usize];
    ((w as u64 * 100 + 512) / 1024).clamp(1, 10000) as u32
}

/// Chooses the processes to replay from the census.
pub fn choose(c: &Census, sel: &Select) -> Result<(BTreeSet<i32>, String)> {
    let procs = c.processes();
    let user = |p: &i32| *p > 0 && !c.is_kernel(*p);
    let recorders = c.recorders();
    let (roots, how): (BTreeSet<i32>, String) = if !sel.pids.is_empty() {
        for p in &sel.pids {
            if !procs.contains_key(p) {
                bail!("pid={p}: the trace has no process {p} (see `arbor sim trace-info`)");
            }
        }
        (
            sel.pids.iter().copied().collect(),
            format!(
                "pid={} and what they created",
                sel.pids
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join("|")
            ),
        )
    } else if !sel.comms.is_empty() {
        let r: BTreeSet<i32> = procs
            .iter()
            .filter(|(_, ts)| {
                ts.iter().any(|t| {
                    c.threads[t]
                        .comms
                        .iter()
                        .any(|n| sel.comms.iter().any(|w| w == n))
                })
            })
            .map(|(p, _)| *p)
            .filter(user)
            .collect();
        if r.is_empty() {
            bail!(
                "comm={}: no process of that name in the trace (see `arbor sim trace-info`)",
                sel.comms.join("|")
            );
        }
        (
            r,
            format!("comm={} and what they created", sel.comms.join("|")),
        )
    } else if sel.all {
        (
            procs
                .keys()
                .copied()
                .filter(user)
                .filter(|p| !recorders.contains(p))
                .collect(),
            "all but the kernel's threads and the recorder".into(),
        )
    } else {
        // what the recorder started: `perf sched record -- PROGRAM`
        let kids: BTreeSet<i32> = procs
            .keys()
            .copied()
            .filter(|&p| !recorders.contains(&p))
            .filter(|&p| c.parent_process(p).is_some_and(|q| recorders.contains(&q)))
            .collect();
        if kids.is_empty() {
            bail!("the recorder started no program: record with `perf sched record -a -- PROGRAM`, or choose processes with comm=NAME, pid=PID or all=1 (see `arbor sim trace-info`)");
        }
        (kids, "what the recorder ran (perf ... -- PROGRAM)".into())
    };
    let set: BTreeSet<i32> = c
        .with_descendants(&roots)
        .into_iter()
        .filter(|p| !recorders.contains(p) || (!sel.all && roots.contains(p)))
        .filter(user)
        .collect();
    Ok((set, how))
}

/// The kallsyms copy that resolves the trace's call chains (WF_SYNC):
/// `kallsyms=PATH`, else `FILE.kallsyms` when it exists; none under
/// `sync=`. A copy that is named or present but unreadable is an error.
pub fn kallsyms(path: &Path, sel: &Select) -> Result<Option<Ksyms>> {
    let p = match &sel.kallsyms {
        Some(k) => std::path::PathBuf::from(k),
        None => super::ksyms::path_for(path),
    };
    if sel.sync.is_some() || sel.kallsyms.is_none() && !p.exists() {
        return Ok(None);
    }
    Ksyms::read(&p).map(Some)
}

/// `cap=` names only CPUs the trace has (online in its header, or seen).
pub fn capacities(c: &Census, sel: &Select) -> Result<()> {
    let cpus = c.cpus_seen.max(c.header.nr_cpus.unwrap_or(0));
    if let Some((&cpu, _)) = sel.capacity.range(cpus..).next() {
        bail!(
            "cap=: CPU {cpu} is not in the trace (it has CPUs 0-{})",
            cpus.saturating_sub(1)
        );
    }
    Ok(())
}

/// Builds the programs (the second pass over the file).
pub fn compile(path: &Path, c: &Census, sel: &Select) -> Result<Compiled> {
    capacities(c, sel)?;
    if sel.cgroups && c.threads.values().all(|t| t.cgroup.is_none()) {
        bail!("cgroups=1: its samples carry no cgroup id (record with `perf sched record -a --all-cgroups`)");
    }
    let (procs, how) = choose(c, sel)?;
    let mut tids: Vec<i32> = c
        .threads
        .iter()
        .filter(|(_, t)| procs.contains(&t.tgid))
        .map(|(&tid, _)| tid)
        .collect();
    tids.sort_unstable();
    if tids.is_empty() {
        bail!("no thread to replay ({how})");
    }
    if tids.len() > crate::limits::MAX_TASKS {
        bail!(
            "{} threads to replay ({how}); at most {}: choose fewer processes (comm=, pid=) or a window (from=, to=)",
            tids.len(),
            crate::limits::MAX_TASKS
        );
    }
    // the window, from the first event of a replayed thread
    let first = tids
        .iter()
        .map(|t| c.threads[t].first_t)
        .filter(|&t| t > 0)
        .min()
        .unwrap_or(c.t0)
        .max(c.t0);
    let w0 = first.saturating_add(sel.from_ns);
    let w1 = sel
        .to_ns
        .map_or(c.t1, |to| first.saturating_add(to).min(c.t1));
    if w0 >= w1 {
        bail!(
            "the window from={:.3}s to={} is empty: the replayed threads' events span {:.3} s",
            sel.from_ns as f64 / 1e9,
            sel.to_ns
                .map_or("end".into(), |t| format!("{:.3}s", t as f64 / 1e9)),
            (c.t1 - first) as f64 / 1e9
        );
    }
    let idx: BTreeMap<i32, usize> = tids.iter().enumerate().map(|(i, &t)| (t, i)).collect();
    let mut th: Vec<Th> = tids
        .iter()
        .map(|&tid| Th {
            tid,
            pending: None,
            ops: Vec::new(),
            st: St::Unseen,
            start_at: None,
            by_fork: false,
            prio: None,
            last_cpu: 0,
        })
        .collect();
    let mut s = Summary {
        file: path.display().to_string(),
        selection: how,
        window_ns: (0, w1 - w0),
        lost_records: c.header.lost,
        ..Summary::default()
    };
    let cap = |cpu: u32| sel.capacity.get(&cpu).copied().unwrap_or(1024) as f64;
    let scale = sel.scale;
    // a burst of `ns` on `cpu`, appended (merged into a preceding Run)
    let run = |t: &mut Th, ns: u64, cpu: u32, s: &mut Summary| {
        if ns == 0 {
            return;
        }
        // saturating: a corrupt timestamp makes a burst of centuries, not
        // a wrapped sum
        s.cpu_ns = s.cpu_ns.saturating_add(ns);
        let w = (ns as f64 * cap(cpu) / 1024.0 * scale).round() as u64;
        match t.ops.last_mut() {
            Some(Op::Run(x)) => *x = x.saturating_add(w),
            _ => {
                t.ops.push(Op::Run(w.max(1)));
                s.bursts += 1;
            }
        }
    };
    // first sight of a thread that existed when the window opened
    let begin = |t: &mut Th, st: St| {
        if t.st == St::Unseen {
            t.start_at = Some(0);
            t.st = st;
        }
    };
    let mut last_t = w0;
    let mut unknown: Option<(i32, u64)> = None;
    // what each CPU runs, and since when: CPU time is what lies between a
    // CPU's switches, given to the task it ran (robust to a switch the
    // file lacks: a thread's time is never counted on two CPUs at once)
    const NOBODY: i32 = i32::MIN;
    let mut oncpu: Vec<(i32, u64)> = Vec::new();
    // the burst of th[i] on `cpu` up to `now`, if it is what `cpu` runs
    let flush = |t: &mut Th, cpu: u32, now: u64, oncpu: &mut Vec<(i32, u64)>, s: &mut Summary| {
        if let Some(slot) = oncpu.get_mut(cpu as usize) {
            if slot.0 == t.tid {
                run(t, now.saturating_sub(slot.1), cpu, s);
                slot.1 = now;
            }
        }
    };
    let ksyms = kallsyms(path, sel)?;
    // how the dependency wake-ups' WF_SYNC was known
    let mut seen = [0u64; 4];
    perf::read(path, ksyms.as_ref(), |e: &Event| {
        if e.cpu == u32::MAX || e.t < w0 {
            return Ok(());
        }
        if e.t > w1 {
            return Ok(());
        }
        let now = e.t;
        let rel = now - w0;
        let cpu = e.cpu as usize;
        if oncpu.len() <= cpu {
            oncpu.resize(cpu + 1, (NOBODY, w0));
        }
        // the sample's task is what the CPU runs (since the window opened,
        // if the CPU had shown nothing yet), whatever the events before
        // said: a switch-in or wake-up the file lacks
        if oncpu[cpu].0 != e.tid {
            oncpu[cpu] = (e.tid, if oncpu[cpu].0 == NOBODY { w0 } else { now });
        }
        if let Some(&i) = idx.get(&e.tid) {
            let t = &mut th[i];
            match t.st {
                St::Unseen => begin(t, St::Running(e.cpu)),
                St::Running(..) | St::Dead => {}
                St::Blocked(since, slot) => {
                    t.ops[slot] = Op::Sleep(now.saturating_sub(since).max(1));
                    s.sleeps_unrecorded += 1;
                    t.st = St::Running(e.cpu);
                }
                St::Runnable => t.st = St::Running(e.cpu),
            }
        }
        match &e.kind {
            Kind::Switch {
                prev,
                prev_state,
                next,
                next_prio,
                prev_prio,
                ..
            } => {
                if let Some(&i) = idx.get(prev) {
                    let t = &mut th[i];
                    if let St::Blocked(since, slot) = t.st {
                        // it ran, so something woke it that the file lacks
                        t.ops[slot] = Op::Sleep(now.saturating_sub(since).max(1));
                        s.sleeps_unrecorded += 1;
                        t.st = St::Running(e.cpu);
                    }
                    flush(t, e.cpu, now, &mut oncpu, &mut s);
                    t.prio.get_or_insert(*prev_prio);
                    t.last_cpu = e.cpu;
                    let pending = t.pending.take();
                    t.st = if prev_state & STATE_DEAD != 0 {
                        t.ops.push(Op::Exit);
                        s.exits += 1;
                        St::Dead
                    } else if prev_state & STATE_REPORT == 0 {
                        St::Runnable
                    } else if let Some(p) = pending {
                        // already woken: the block ends where it starts
                        if p.is_some() {
                            t.ops.push(Op::Block);
                            s.wakes_dep += 1;
                        }
                        St::Runnable
                    } else {
                        t.ops.push(Op::Block);
                        St::Blocked(now, t.ops.len() - 1)
                    };
                    if let (Some(Some((k, op))), St::Runnable | St::Dead) = (pending, t.st) {
                        if prev_state & STATE_REPORT == 0 || prev_state & STATE_DEAD != 0 {
                            th[k].ops[op] = Op::Nop;
                            s.wakes_noop += 1;
                        } else if let Op::Wake { sync: true, .. } = th[k].ops[op] {
                            // the dependency counted above
                            s.wakes_dep_sync += 1;
                        }
                    }
                }
                oncpu[cpu] = (*next, now);
                if let Some(&i) = idx.get(next) {
                    let t = &mut th[i];
                    begin(t, St::Runnable);
                    if let St::Blocked(since, slot) = t.st {
                        // woken with no sched_waking in the file (lost
                        // records): a fixed sleep
                        t.ops[slot] = Op::Sleep(now.saturating_sub(since).max(1));
                        s.sleeps_unrecorded += 1;
                        t.st = St::Runnable;
                    }
                    if t.st != St::Dead {
                        if let Some(p) = t.prio {
                            if p != *next_prio {
                                s.prio_changes += 1;
                            }
                        }
                        t.prio.get_or_insert(*next_prio);
                        t.st = St::Running(e.cpu);
                    }
                }
            }
            Kind::Waking { pid, sync } => {
                let sync_now = match sel.sync {
                    Some(x) => x,
                    None => *sync == WakeSync::Yes,
                };
                // a dependency: a replayed thread's own code, still alive
                // (a dead thread's wake, after a lost switch, would follow
                // its Exit and never be replayed)
                let waker = (!e.irq && e.tid > 0 && e.tid != *pid)
                    .then(|| idx.get(&e.tid).copied())
                    .flatten()
                    .filter(|&k| th[k].st != St::Dead);
                let Some(&wi) = idx.get(pid) else {
                    if waker.is_some() {
                        s.wakes_of_dropped += 1;
                        if !c.threads.contains_key(pid) && unknown.is_none() {
                            unknown = Some((*pid, rel));
                        }
                    }
                    return Ok(());
                };
                begin(&mut th[wi], St::Blocked(w0, usize::MAX));
                if let St::Blocked(since, slot) = th[wi].st {
                    let slot = if slot == usize::MAX {
                        // blocked since before the window: its program
                        // starts with this block
                        th[wi].ops.push(Op::Block);
                        th[wi].ops.len() - 1
                    } else {
                        slot
                    };
                    match waker {
                        Some(k) => {
                            flush(&mut th[k], e.cpu, now, &mut oncpu, &mut s);
                            th[k].ops.push(Op::Wake {
                                to: wi as u32,
                                sync: sync_now,
                            });
                            seen[*sync as usize] += 1;
                            th[wi].ops[slot] = Op::Block;
                            s.wakes_dep += 1;
                            s.wakes_dep_sync += sync_now as u64;
                        }
                        None => {
                            th[wi].ops[slot] = Op::Sleep(now.saturating_sub(since).max(1));
                            if !e.irq && e.tid > 0 && e.tid != *pid {
                                s.sleeps_dropped_waker += 1;
                            } else {
                                s.sleeps_irq += 1;
                            }
                        }
                    }
                    th[wi].st = St::Runnable;
                } else if matches!(th[wi].st, St::Running(..)) && th[wi].pending.is_none() {
                    let p = match waker {
                        Some(k) => {
                            flush(&mut th[k], e.cpu, now, &mut oncpu, &mut s);
                            th[k].ops.push(Op::Wake {
                                to: wi as u32,
                                sync: sync_now,
                            });
                            seen[*sync as usize] += 1;
                            Some((k, th[k].ops.len() - 1))
                        }
                        None => None,
                    };
                    th[wi].pending = Some(p);
                } else {
                    s.wakes_noop += 1;
                }
            }
            Kind::Fork { parent, child } => {
                let Some(&ci) = idx.get(child) else {
                    return Ok(());
                };
                if th[ci].st != St::Unseen {
                    return Ok(());
                }
                match idx.get(parent).copied() {
                    Some(pi) if pi != ci && th[pi].st != St::Dead => {
                        flush(&mut th[pi], e.cpu, now, &mut oncpu, &mut s);
                        th[pi].ops.push(Op::Fork(ci as u32));
                        th[ci].by_fork = true;
                        th[ci].start_at = Some(rel);
                        s.forks += 1;
                    }
                    _ => {
                        th[ci].start_at = Some(rel);
                        s.timed_starts += 1;
                    }
                }
                th[ci].st = St::Runnable;
            }
            Kind::WakeupNew { .. } | Kind::Exit { .. } => {}
            Kind::Comm { .. } | Kind::TaskFork { .. } | Kind::Cgroup { .. } => {}
        }
        last_t = last_t.max(now);
        Ok(())
    })?;
    if let Some((pid, at)) = unknown {
        bail!(
            "a replayed thread wakes pid {pid} at {:.6} s, which the trace never introduced (no COMM or FORK record, never ran): the file is inconsistent",
            at as f64 / 1e9
        );
    }
    // the window ends: every thread still alive ends there
    let end = w1.min(last_t.max(w0));
    for (cpu, &(tid, _)) in oncpu.clone().iter().enumerate() {
        if let Some(&i) = idx.get(&tid) {
            flush(&mut th[i], cpu as u32, end, &mut oncpu, &mut s);
        }
    }
    let mut last_event = 0;
    for t in th.iter_mut() {
        match t.st {
            St::Unseen | St::Dead => {}
            St::Running(_) | St::Runnable => t.ops.push(Op::Exit),
            St::Blocked(_, slot) => {
                if slot < t.ops.len() {
                    t.ops[slot] = Op::Exit;
                } else {
                    t.ops.push(Op::Exit);
                }
                s.blocks_open += 1;
            }
        }
        last_event = last_event.max(c.threads[&t.tid].last_t.min(end));
    }
    s.wall_ns = last_event.saturating_sub(w0);
    s.cpu_ns_all = c
        .threads
        .iter()
        .filter(|(&k, _)| k > 0)
        .map(|(_, t)| t.cpu_ns)
        .fold(0u64, u64::saturating_add);
    // the tasks: threads seen in the window
    let mut tasks = Vec::new();
    let mut programs = Vec::new();
    let mut by_fork = Vec::new();
    let mut remap = vec![u32::MAX; th.len()];
    for (i, t) in th.into_iter().enumerate() {
        if t.st == St::Unseen {
            s.threads_idle += 1;
            continue;
        }
        remap[i] = tasks.len() as u32;
        let info = &c.threads[&t.tid];
        let mut spec = TaskSpec::new(
            format!(
                "{}-{}",
                info.comms.last().map(String::as_str).unwrap_or("?"),
                t.tid
            ),
            info.tgid.max(1) as u32,
        );
        spec.start_at = t.start_at.unwrap_or(0);
        spec.forked = t.by_fork;
        spec.on_fork = t.by_fork;
        spec.weight = weight_of(t.prio.unwrap_or(120));
        if sel.cgroups {
            // its first sample's group (a later move is not replayed)
            spec.cgroup = info
                .cgroup
                .and_then(|id| c.cgroups.get(&id))
                .and_then(|p| cgroup_path(p))
                .map(|path| crate::task::Cgroup {
                    path,
                    weight: 100,
                    limits: Default::default(),
                });
        }
        tasks.push(spec);
        by_fork.push(t.by_fork);
        programs.push(t.ops);
    }
    for p in programs.iter_mut() {
        for op in p.iter_mut() {
            if let Op::Wake { to: x, .. } | Op::Fork(x) = op {
                *x = remap[*x as usize];
            }
        }
    }
    if tasks.is_empty() {
        bail!(
            "the chosen processes ({}) did nothing in the window",
            s.selection
        );
    }
    // every Block must have a Wake somewhere, or the replay would wait
    // for ever: a failure here is this reader's bug, said loudly
    let mut need = vec![0i64; tasks.len()];
    for (i, p) in programs.iter().enumerate() {
        for op in p {
            match op {
                Op::Block => need[i] += 1,
                Op::Wake { to: x, .. } => need[*x as usize] -= 1,
                _ => {}
            }
        }
    }
    if let Some(i) = need.iter().position(|&n| n > 0) {
        bail!(
            "internal error: thread {} would wait for {} wake-ups no replayed thread sends (please report it with the file)",
            tasks[i].name,
            need[i]
        );
    }
    let mut per: BTreeMap<i32, usize> = BTreeMap::new();
    for t in &tasks {
        *per.entry(t.tgid as i32).or_default() += 1;
    }
    s.processes = per.into_iter().map(|(p, k)| (p, c.name(p), k)).collect();
    s.threads = tasks.len();
    let (no_chain, no_syms) = (
        seen[WakeSync::NoCallchain as usize],
        seen[WakeSync::NoSymbols as usize],
    );
    s.sync_source = match (sel.sync, &ksyms) {
        (Some(true), _) => "sync=1, every dependency wake-up".into(),
        (Some(false), _) => "sync=0, none".into(),
        (None, Some(k)) if no_chain == 0 => {
            format!("WF_SYNC from the kernel call chains, symbols from {}", k.file)
        }
        (None, Some(k)) => format!(
            "WF_SYNC from the kernel call chains (symbols from {}); {no_chain} had no call chain and were replayed as not sync",
            k.file
        ),
        (None, None) if no_syms > 0 => format!(
            "unknown, replayed as not sync: the file has call chains but no kallsyms copy resolves them ({}.kallsyms, or kallsyms=PATH)",
            s.file
        ),
        (None, None) => {
            "unknown, replayed as not sync: the file has no kernel call chains of sched_waking (record with -g)".into()
        }
    };
    Ok(Compiled {
        tasks,
        programs,
        by_fork,
        summary: s,
    })
}

#[cfg(test)]
mod tests {
    use super::cgroup_path;

    #[test]
    fn recorded_cgroup_paths_become_the_simulators() {
        assert_eq!(cgroup_path("/"), None);
        assert_eq!(cgroup_path(""), None);
        assert_eq!(cgroup_path("/pipe").as_deref(), Some("/pipe"));
        assert_eq!(
            cgroup_path("/user.slice/user@1000.service/app.slice").as_deref(),
            Some("/user.slice/user_1000.service/app.slice")
        );
        assert_eq!(
            cgroup_path("/1/2/3/4/5/6/7/8/9/10").as_deref(),
            Some("/1/2/3/4/5/6/7/8")
        );
        for p in ["/a b", "/x:y/z", "/1/2/3/4/5/6/7/8/9"] {
            let got = cgroup_path(p).unwrap();
            assert!(crate::core::cgroup::check_path(&got).is_ok(), "{p}: {got}");
        }
    }
}
