//! The first pass over a trace: every thread it shows, its process, name,
//! parent, CPU time, wake-ups and blocks, without building anything per
//! event. `arbor sim trace-info` prints it; the replay uses it to choose
//! the processes to replay (their thread groups and descendants are only
//! known once the whole file has been read).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Result;

use super::perf::{self, Event, Header, Kind};

/// What ended a block (a switch-out in state S or D), as the trace shows it.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Blocks {
    /// Woken by another task's own code (a pipe write, a futex wake, ...):
    /// a dependency the replay keeps.
    pub by_task: u64,
    /// Woken in interrupt context or from the idle task: a timer, an IO
    /// completion, a signal from hardware; replayed as a fixed sleep.
    pub by_irq: u64,
    /// Still blocked when the trace ends.
    pub open: u64,
}

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Thread {
    pub tgid: i32,
    /// Every name it had, in order (an exec changes it).
    pub comms: Vec<String>,
    /// The thread that created it, if the trace says.
    pub parent: Option<i32>,
    pub first_t: u64,
    pub last_t: u64,
    pub cpu_ns: u64,
    pub runs: u64,
    /// Wake-ups of it while it was blocked.
    pub woken: u64,
    pub blocks: Blocks,
    pub exited: bool,
    /// Its first priority (120 + nice for a fair task), and how often it
    /// changed.
    pub prio: Option<i32>,
    pub prio_changes: u32,
    /// The cgroup id of its first sample (`perf record --all-cgroups`),
    /// and how often a later one differed (a move).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<u64>,
    #[serde(skip_serializing_if = "is_zero")]
    pub cgroup_changes: u32,
    /// The cgroup id of its latest sample.
    #[serde(skip)]
    cgroup_now: Option<u64>,
    #[serde(skip)]
    state: St,
}

fn is_zero(x: &u32) -> bool {
    *x == 0
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum St {
    #[default]
    Unknown,
    Running(u64),
    Runnable,
    Blocked,
    Dead,
}

/// The whole file, summarised.
#[derive(Debug, Default)]
pub struct Census {
    pub header: Header,
    pub threads: BTreeMap<i32, Thread>,
    /// First and last event time (ns, the recording kernel's clock).
    pub t0: u64,
    pub t1: u64,
    pub events: u64,
    /// The highest CPU number seen, plus one.
    pub cpus_seen: u32,
    /// Each cgroup's path by id (PERF_RECORD_CGROUP).
    pub cgroups: BTreeMap<u64, String>,
}

/// TASK_REPORT bits of sched_switch's prev_state (include/linux/sched.h,
/// `__task_state_index`): EXIT_DEAD 0x10 and EXIT_ZOMBIE 0x20 end a thread;
/// 0 (or only the preempt marker above the report bits) means preempted.
pub const STATE_DEAD: i64 = 0x10 | 0x20;
pub const STATE_REPORT: i64 = 0xff;

impl Census {
    pub fn read(path: &Path) -> Result<Census> {
        let mut c = Census::default();
        let mut cur: Vec<(i32, u64)> = Vec::new();
        let header = perf::read(path, None, |e| {
            c.event(e, &mut cur);
            Ok(())
        })?;
        c.header = header;
        for t in c.threads.values_mut() {
            if t.state == St::Blocked {
                t.blocks.open += 1;
            }
        }
        let t1 = c.t1;
        for &(tid, since) in &cur {
            if let Some(t) = c.threads.get_mut(&tid) {
                t.cpu_ns = t.cpu_ns.saturating_add(t1.saturating_sub(since));
            }
        }
        Ok(c)
    }

    fn thread(&mut self, tid: i32, t: u64) -> &mut Thread {
        let th = self.threads.entry(tid).or_insert_with(|| Thread {
            tgid: tid,
            first_t: t,
            ..Thread::default()
        });
        if th.first_t == 0 || (t != 0 && t < th.first_t) {
            th.first_t = t;
        }
        th.last_t = th.last_t.max(t);
        th
    }

    /// CPU time is what lies between a CPU's switches, given to the task
    /// it ran (a thread is never counted on two CPUs at once, even where
    /// the file lacks a switch); `cur` is what each CPU runs, since when.
    fn event(&mut self, e: &Event, cur: &mut Vec<(i32, u64)>) {
        const NOBODY: i32 = i32::MIN;
        if e.cpu != u32::MAX {
            if self.t0 == 0 {
                self.t0 = e.t;
            }
            let c = e.cpu as usize;
            if cur.len() <= c {
                cur.resize(c + 1, (NOBODY, 0));
            }
            if cur[c].0 != e.tid {
                // since the trace began, if the CPU showed nothing yet
                cur[c] = (e.tid, if cur[c].0 == NOBODY { self.t0 } else { e.t });
            }
            self.events += 1;
            self.t1 = self.t1.max(e.t);
            self.cpus_seen = self.cpus_seen.max(e.cpu + 1);
            if e.tid > 0 {
                // the sample's task is running, whatever the file showed
                // before (the same rule as the replay's programs)
                let t0 = self.t0;
                let th = self.thread(e.tid, e.t);
                th.tgid = e.pid;
                if let Some(g) = e.cgroup {
                    th.cgroup.get_or_insert(g);
                    if th.cgroup_now.is_some_and(|h| h != g) {
                        th.cgroup_changes += 1;
                    }
                    th.cgroup_now = Some(g);
                }
                match th.state {
                    St::Unknown => th.state = St::Running(t0),
                    St::Running(_) | St::Dead => {}
                    St::Blocked | St::Runnable => th.state = St::Running(e.t),
                }
            }
        }
        match &e.kind {
            Kind::Cgroup { id, path } => {
                self.cgroups.insert(*id, path.clone());
            }
            Kind::Comm { pid, tid, comm, .. } => {
                let th = self.thread(*tid, e.t);
                th.tgid = *pid;
                if th.comms.last() != Some(comm) {
                    th.comms.push(comm.clone());
                }
            }
            Kind::TaskFork { pid, tid, ptid } => {
                let th = self.thread(*tid, e.t);
                th.tgid = *pid;
                if *ptid > 0 && *ptid != *tid {
                    th.parent = Some(*ptid);
                }
            }
            Kind::Fork { parent, child } => {
                let th = self.thread(*child, e.t);
                th.parent.get_or_insert(*parent);
                th.state = St::Runnable;
            }
            Kind::Switch {
                prev,
                prev_prio,
                prev_state,
                next,
                next_prio,
                next_comm,
            } => {
                let c = e.cpu as usize;
                let (on, since) = cur[c];
                cur[c] = (*next, e.t);
                if *prev > 0 {
                    let th = self.thread(*prev, e.t);
                    if on == *prev {
                        th.cpu_ns = th.cpu_ns.saturating_add(e.t.saturating_sub(since));
                    }
                    th.runs += 1;
                    note_prio(th, *prev_prio);
                    th.state = if prev_state & STATE_DEAD != 0 {
                        th.exited = true;
                        St::Dead
                    } else if prev_state & STATE_REPORT == 0 {
                        St::Runnable
                    } else {
                        St::Blocked
                    };
                }
                if *next > 0 {
                    let th = self.thread(*next, e.t);
                    th.state = St::Running(e.t);
                    note_prio(th, *next_prio);
                    if th.comms.last() != Some(next_comm) {
                        th.comms.push(next_comm.clone());
                    }
                }
            }
            Kind::Waking { pid, .. } => {
                let by_task = !e.irq && e.tid > 0 && e.tid != *pid;
                let th = self.thread(*pid, e.t);
                if matches!(th.state, St::Blocked | St::Unknown) {
                    th.woken += 1;
                    if by_task {
                        th.blocks.by_task += 1;
                    } else {
                        th.blocks.by_irq += 1;
                    }
                    th.state = St::Runnable;
                }
            }
            Kind::WakeupNew { pid } => {
                self.thread(*pid, e.t).state = St::Runnable;
            }
            Kind::Exit { pid } => {
                self.thread(*pid, e.t).exited = true;
            }
        }
    }

    /// The thread group of each thread's creator, i.e. each process's
    /// parent process (from its leader's creator).
    pub fn parent_process(&self, tgid: i32) -> Option<i32> {
        let p = self.threads.get(&tgid)?.parent?;
        let pt = self.threads.get(&p).map(|t| t.tgid).unwrap_or(p);
        (pt != tgid).then_some(pt)
    }

    /// Processes: tgid -> their threads.
    pub fn processes(&self) -> BTreeMap<i32, Vec<i32>> {
        let mut m: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
        for (&tid, th) in &self.threads {
            m.entry(th.tgid).or_default().push(tid);
        }
        m
    }

    /// A process's name: its leader's last name, else any thread's.
    pub fn name(&self, tgid: i32) -> String {
        let of = |t: &Thread| t.comms.last().cloned();
        self.threads
            .get(&tgid)
            .and_then(of)
            .or_else(|| {
                self.threads
                    .values()
                    .filter(|t| t.tgid == tgid)
                    .find_map(of)
            })
            .unwrap_or_else(|| "?".into())
    }

    /// Kernel threads: kthreadd (pid 2) and what it created; the idle
    /// task (pid 0) is never a thread here.
    pub fn is_kernel(&self, tgid: i32) -> bool {
        let mut p = Some(tgid);
        for _ in 0..64 {
            match p {
                Some(2) => return true,
                Some(x) if x > 0 => p = self.parent_process(x),
                _ => return false,
            }
        }
        false
    }

    /// The recorder: processes named `perf` to the end (the perf tool; its
    /// child that execs the recorded program is named `perf` or
    /// `perf-exec` only until the exec).
    pub fn recorders(&self) -> BTreeSet<i32> {
        self.processes()
            .keys()
            .copied()
            .filter(|&p| {
                self.threads
                    .get(&p)
                    .and_then(|t| t.comms.last())
                    .is_some_and(|c| c == "perf")
            })
            .collect()
    }

    /// `roots` and every process they created, transitively.
    pub fn with_descendants(&self, roots: &BTreeSet<i32>) -> BTreeSet<i32> {
        let procs: Vec<i32> = self.processes().keys().copied().collect();
        let mut out = roots.clone();
        loop {
            let before = out.len();
            for &p in &procs {
                if !out.contains(&p) && self.parent_process(p).is_some_and(|q| out.contains(&q)) {
                    out.insert(p);
                }
            }
            if out.len() == before {
                return out;
            }
        }
    }
}

fn note_prio(th: &mut Thread, prio: i32) {
    match th.prio {
        None => th.prio = Some(prio),
        Some(p) if p != prio => {
            th.prio = Some(prio);
            th.prio_changes += 1;
        }
        _ => {}
    }
}
