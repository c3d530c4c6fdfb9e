//! Cgroup changes while a run goes on (`--cgroup-event`), delivered to the
//! scheduler as Linux 7.2's kernel/sched/ext/ext.c delivers them:
//!
//! - **move**: a write to cgroup.procs / cgroup.threads migrates a batch
//!   of tasks. cgroup_migrate_execute calls cpu_cgroup_can_attach ->
//!   scx_cgroup_can_attach, which skips a task already in the destination
//!   (sched_move_task omits identity moves) and calls
//!   ops.cgroup_prep_move(p, from, to) for each other one; if one fails,
//!   ops.cgroup_cancel_move(p, from, to) for each task prepared before it,
//!   and the write fails: no task moves. Otherwise every task's css_set
//!   becomes the destination's and cpu_cgroup_attach -> sched_move_task
//!   runs for each: the sched_change guard (DEQUEUE_SAVE | DEQUEUE_MOVE |
//!   DEQUEUE_NOCLOCK: ops.dequeue if in custody, ops.stopping if running,
//!   ops.quiescent), sched_change_group (p->sched_task_group),
//!   scx_cgroup_move_task -> ops.cgroup_move(p, from, to), then
//!   enqueue_task with the matching ENQUEUE_RESTORE | ENQUEUE_MOVE |
//!   ENQUEUE_NOCLOCK; a running task is rescheduled (resched_curr).
//!   A task that has not started yet is only placed in the group (it is
//!   created there); one that exited is skipped; a real-time task gets
//!   ops.cgroup_move alone (its own class dequeues and enqueues it).
//! - **weight**: a cpu.weight write; scx_group_set_weight calls
//!   ops.cgroup_set_weight(cgrp, weight) only if the weight changes. fair.c
//!   refuses a write to an idle group (sched_group_set_shares: EINVAL), and
//!   then ext.c is not told.
//! - **max** / **burst**: a cpu.max / cpu.max.burst write;
//!   scx_group_set_bandwidth calls ops.cgroup_set_bandwidth(cgrp,
//!   period_us, quota_us, burst_us) if any of the three changes (quota
//!   "max" is RUNTIME_INF, u64::MAX).
//! - **idle**: a cpu.idle write; scx_group_set_idle calls
//!   ops.cgroup_set_idle(cgrp, idle) whether or not it changes.
//! - **mkdir**: scx_tg_online calls ops.cgroup_init(cgrp, args) with the
//!   new group's defaults (weight 100, cpu.max "max 100000", no burst); if
//!   it fails the mkdir fails and the group does not exist.
//! - **rmdir**: scx_tg_offline calls ops.cgroup_exit(cgrp) for a group
//!   that had its cgroup_init; an rmdir needs the group empty of tasks and
//!   of child groups (cgroup_destroy_locked: EBUSY).
//!
//! The events are checked before the run against the groups the workload
//! makes (a path must exist when it is named; `check`), so a run never
//! meets a write that the kernel would refuse for its form. Each write is
//! made by a task on the lowest-numbered online CPU, whose time the
//! callbacks take. A task forked by another (a launcher's child:
//! workload/parent.rs, or a replayed trace's fork) starts in its parent's
//! group at the fork, as cgroup_post_fork puts it in the parent's css_set
//! (ext.c: no cgroup_prep_move / cgroup_move, ops.init_task with
//! args->cgroup the parent's), so a move of the parent before the fork
//! takes the child along; a task a move named before its fork starts in
//! that group. `check` does not know when forks happen: it takes every
//! task to start in its spec's group, so an rmdir of a group that a forked
//! child is in at run time is refused then (EBUSY), with no callback.

use anyhow::{anyhow, bail, Result};

use super::cgroup::{check_path, Cgroups, PathError, MAX_DEPTH};
use super::{Core, Ctx, Ev, Ops, TaskState};
use crate::abi;
use crate::task::{Ns, TaskId};

/// One cgroup change at `at` ns into the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub at: Ns,
    pub what: Change,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// the tasks (by id) migrate into the group, as one write
    Move {
        tasks: Vec<TaskId>,
        path: String,
    },
    /// cpu.weight, 1..=10000
    Weight {
        path: String,
        weight: u32,
    },
    /// cpu.max: quota (None: "max") and period (None: unchanged), in us
    Max {
        path: String,
        quota: Option<u64>,
        period: Option<u64>,
    },
    /// cpu.max.burst in us
    Burst {
        path: String,
        burst: u64,
    },
    /// cpu.idle
    Idle {
        path: String,
        idle: bool,
    },
    Mkdir {
        path: String,
    },
    Rmdir {
        path: String,
    },
}

/// The syntax, for the one-line errors.
const FORM: &str = "TIME move TASKS /PATH | TIME weight /PATH W | \
TIME max /PATH QUOTA[/PERIOD]|max | TIME burst /PATH US | TIME idle /PATH 0|1 | \
TIME mkdir /PATH | TIME rmdir /PATH";

/// Events from `--cgroup-event` values: each holds one or more events
/// separated by `;`, each `TIME OP ARGS` with TIME a whole number with a
/// unit (ns, us, ms, s) and TASKS a list of task ids like 0-3,7. The
/// events are sorted by time, those of one time kept in the given order.
pub fn parse(values: &[String]) -> Result<Vec<Event>> {
    let mut v = Vec::new();
    for item in values.iter().flat_map(|s| s.split(';')) {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        v.push(parse_one(item)?);
    }
    v.sort_by_key(|e| e.at);
    Ok(v)
}

fn parse_one(item: &str) -> Result<Event> {
    let bad = |why: &str| anyhow!("--cgroup-event '{item}': {why} (events: {FORM})");
    let w: Vec<&str> = item.split_whitespace().collect();
    if w.len() < 3 {
        return Err(bad("too few words"));
    }
    let at = parse_time(w[0]).ok_or_else(|| bad("TIME is not a number with ns, us, ms or s"))?;
    let path = |s: &str| -> Result<String> {
        match check_path(s) {
            Ok(()) => Ok(s.to_string()),
            Err(PathError::NotAPath) => {
                Err(bad(&format!("'{s}' is not a cgroup path /NAME[/NAME...]")))
            }
            Err(PathError::TooDeep) => {
                Err(bad(&format!("'{s}' is deeper than {MAX_DEPTH} levels")))
            }
        }
    };
    let n = |want: usize| -> Result<()> {
        if w.len() != want {
            return Err(bad(&format!("'{}' takes {} arguments", w[1], want - 2)));
        }
        Ok(())
    };
    let what = match w[1] {
        "move" => {
            n(4)?;
            let tasks = parse_tasks(w[2]).ok_or_else(|| bad("TASKS is not a list like 0-3,7"))?;
            Change::Move {
                tasks,
                path: path(w[3])?,
            }
        }
        "weight" => {
            n(4)?;
            match w[3].parse::<u32>() {
                Ok(weight) if (1..=10_000).contains(&weight) => Change::Weight {
                    path: path(w[2])?,
                    weight,
                },
                _ => return Err(bad("the weight is not an integer in 1..10000")),
            }
        }
        "max" => {
            n(4)?;
            let (q, p) = match w[3].split_once('/') {
                Some((q, p)) => (q, Some(p)),
                None => (w[3], None),
            };
            let us = |x: &str| {
                x.parse::<u64>()
                    .ok()
                    .filter(|v| (1000..=1_000_000).contains(v))
            };
            let quota = match q {
                "max" => None,
                q => Some(
                    us(q)
                        .ok_or_else(|| bad("QUOTA is not microseconds in 1000..1000000 or max"))?,
                ),
            };
            let period = match p {
                None => None,
                Some(p) => {
                    Some(us(p).ok_or_else(|| bad("PERIOD is not microseconds in 1000..1000000"))?)
                }
            };
            Change::Max {
                path: path(w[2])?,
                quota,
                period,
            }
        }
        "burst" => {
            n(4)?;
            let burst = w[3]
                .parse::<u64>()
                .map_err(|_| bad("the burst is not microseconds"))?;
            Change::Burst {
                path: path(w[2])?,
                burst,
            }
        }
        "idle" => {
            n(4)?;
            let idle = match w[3] {
                "0" => false,
                "1" => true,
                _ => return Err(bad("idle takes 0 or 1")),
            };
            Change::Idle {
                path: path(w[2])?,
                idle,
            }
        }
        "mkdir" => {
            n(3)?;
            Change::Mkdir { path: path(w[2])? }
        }
        "rmdir" => {
            n(3)?;
            Change::Rmdir { path: path(w[2])? }
        }
        _ => return Err(bad(&format!("'{}' is not an operation", w[1]))),
    };
    Ok(Event { at, what })
}

fn parse_time(s: &str) -> Option<Ns> {
    let split = s.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = s.split_at(split);
    let mult = match unit {
        "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        _ => return None,
    };
    num.parse::<u64>().ok()?.checked_mul(mult)
}

/// An event's time as a user writes it: the largest unit that divides it
/// (1000000000 ns -> 1s, 1500000 -> 1500us), for errors.
fn show_time(at: Ns) -> String {
    match at {
        0 => "0s".into(),
        t if t % 1_000_000_000 == 0 => format!("{}s", t / 1_000_000_000),
        t if t % 1_000_000 == 0 => format!("{}ms", t / 1_000_000),
        t if t % 1_000 == 0 => format!("{}us", t / 1_000),
        t => format!("{t}ns"),
    }
}

/// `0-3,7`: task ids, in the order given, each once.
fn parse_tasks(s: &str) -> Option<Vec<TaskId>> {
    let mut v: Vec<TaskId> = Vec::new();
    for part in s.split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
            None => {
                let a = part.parse().ok()?;
                (a, a)
            }
        };
        if a > b || b - a > 1 << 20 {
            return None;
        }
        for t in a..=b {
            if !v.contains(&t) {
                v.push(t);
            }
        }
    }
    Some(v)
}

/// What an event does to the groups, for the run and for `check`: Err is
/// why the write could not be made at all (a user error: no such group, a
/// group still in use).
enum Applied {
    /// move the tasks (those not already there) from their groups into `to`
    Move(Vec<(TaskId, usize)>, usize),
    /// group g's cpu.weight write (the old weight)
    Weight(usize, u32),
    /// group g's cpu.max / burst write (the old period, quota, burst)
    Bandwidth(usize, (u64, u64, u64)),
    Idle(usize),
    Mkdir(usize),
    Rmdir(usize),
}

/// (period, quota, burst) as the task group holds them (RUNTIME_INF: u64::MAX).
fn bandwidth(c: &Cgroups, g: usize) -> (u64, u64, u64) {
    let n = &c.nodes()[g];
    let quota = n.limits.max.map_or(u64::MAX, |m| m.0);
    (n.period_us, quota, n.limits.burst)
}

impl Cgroups {
    fn alive(&self, path: &str, e: &Event) -> Result<usize> {
        match self.find(path) {
            Some(g) if g > 0 => Ok(g),
            _ => bail!(
                "--cgroup-event at {}: no group {path} then (a workload's cg= or an earlier mkdir makes one)",
                show_time(e.at)
            ),
        }
    }

    /// The event's change to the groups (not yet to the scheduler).
    fn apply(&mut self, e: &Event, ntasks: usize) -> Result<Applied> {
        let when = show_time(e.at);
        Ok(match &e.what {
            Change::Move { tasks, path } => {
                let to = self.alive(path, e)?;
                let mut v = Vec::new();
                for &t in tasks {
                    if t >= ntasks {
                        bail!("--cgroup-event at {when}: no task {t} (the run has {ntasks})");
                    }
                    let from = self.of_task(t);
                    if from != to {
                        v.push((t, from));
                    }
                }
                for &(t, _) in &v {
                    self.set_task(t, to);
                }
                Applied::Move(v, to)
            }
            Change::Weight { path, weight } => {
                let g = self.alive(path, e)?;
                let old = self.nodes()[g].weight;
                if !self.nodes()[g].limits.idle {
                    self.node_mut(g).weight = *weight;
                }
                Applied::Weight(g, old)
            }
            Change::Max {
                path,
                quota,
                period,
            } => {
                let g = self.alive(path, e)?;
                let old = bandwidth(self, g);
                let n = self.node_mut(g);
                let p = period.unwrap_or(n.period_us);
                if let Some(q) = quota {
                    if n.limits.burst > *q {
                        bail!(
                            "--cgroup-event at {when}: {path}'s burst {} is above the quota {q} (tg_set_bandwidth: EINVAL)",
                            n.limits.burst
                        );
                    }
                }
                n.period_us = p;
                n.limits.max = quota.map(|q| (q, p));
                Applied::Bandwidth(g, old)
            }
            Change::Burst { path, burst } => {
                let g = self.alive(path, e)?;
                let old = bandwidth(self, g);
                let n = self.node_mut(g);
                if *burst > 0 && n.limits.max.is_none_or(|(q, _)| *burst > q) {
                    bail!(
                        "--cgroup-event at {when}: {path}'s burst {burst} needs a cpu.max quota of at least as much (tg_set_bandwidth)"
                    );
                }
                n.limits.burst = *burst;
                Applied::Bandwidth(g, old)
            }
            Change::Idle { path, idle } => {
                let g = self.alive(path, e)?;
                self.node_mut(g).limits.idle = *idle;
                Applied::Idle(g)
            }
            Change::Mkdir { path } => {
                if self.find(path).is_some() {
                    bail!("--cgroup-event at {when}: mkdir {path}: it exists");
                }
                let parent = match path.rsplit_once('/') {
                    Some(("", _)) => 0,
                    Some((p, _)) => self.alive(p, e)?,
                    None => unreachable!("parse checks the path"),
                };
                Applied::Mkdir(self.push_child(parent, path))
            }
            Change::Rmdir { path } => {
                let g = self.alive(path, e)?;
                if let Some(t) = (0..ntasks).find(|&t| self.of_task(t) == g) {
                    bail!("--cgroup-event at {when}: rmdir {path}: task {t} is still in it (EBUSY; move it out first)");
                }
                if self
                    .nodes()
                    .iter()
                    .any(|n| !n.removed && n.parent == g && n.level > 0)
                {
                    bail!("--cgroup-event at {when}: rmdir {path}: it has child groups (EBUSY)");
                }
                self.node_mut(g).removed = true;
                Applied::Rmdir(g)
            }
        })
    }

    /// Whether the events can be made, in time order, on the groups of a
    /// run of `ntasks` tasks: each path named exists then, each task id is
    /// the run's, an rmdir'd group is empty. One-line errors.
    pub fn check_events(&self, events: &[Event], ntasks: usize) -> Result<()> {
        let mut c = self.clone();
        for e in events {
            c.apply(e, ntasks)?;
        }
        Ok(())
    }
}

impl Core {
    /// The run's cgroup events on the event queue (after the groups of the
    /// workload were made: `check_events` ran).
    pub(super) fn queue_cgroup_events(&mut self) {
        for i in 0..self.cfg.cgroup_events.len() {
            self.push(self.cfg.cgroup_events[i].at, Ev::Cgroup(i));
        }
    }

    /// Event i of cfg.cgroup_events.
    pub(super) fn cgroup_event(&mut self, ops: &mut dyn Ops, i: usize) {
        let e = self.cfg.cgroup_events[i].clone();
        let ntasks = self.tasks.len();
        let Ok(applied) = self.cgroups.apply(&e, ntasks) else {
            // refused by check_events before the run, or an rmdir of a
            // group a forked child went to (EBUSY)
            return;
        };
        // the writer's CPU
        let caller = (0..self.cpus.len()).find(|&c| self.online[c]).unwrap_or(0);
        self.this_cpu = caller;
        let has = ops.cgroup_run_ops();
        let cg = |c: &Core, g: usize| c.cgroups.nodes()[g].clone();
        match applied {
            Applied::Move(v, to) => self.cgroup_move(ops, caller, v, to),
            Applied::Weight(g, old) => {
                let n = cg(self, g);
                // sched_group_set_shares refuses an idle group (EINVAL)
                if has.set_weight && !n.limits.idle && n.weight != old {
                    self.call(caller, Ctx::Other, "cgroup_set_weight", |c| {
                        ops.cgroup_set_weight(c, g, n.weight)
                    });
                }
            }
            Applied::Bandwidth(g, old) => {
                let now = bandwidth(&self.cgroups, g);
                if has.set_bandwidth && now != old {
                    self.call(caller, Ctx::Other, "cgroup_set_bandwidth", |c| {
                        ops.cgroup_set_bandwidth(c, g, now.0, now.1, now.2)
                    });
                }
            }
            Applied::Idle(g) => {
                let idle = cg(self, g).limits.idle;
                if has.set_idle {
                    self.call(caller, Ctx::Other, "cgroup_set_idle", |c| {
                        ops.cgroup_set_idle(c, g, idle)
                    });
                }
            }
            Applied::Mkdir(g) => {
                // cgroup_mkdir activates the group's kernfs node only
                // after its csses are online: ops.cgroup_init does not
                // find it by its id (bpf_cgroup_from_id)
                ops.cgroup_set_active(self, g, false);
                let mut made = true;
                if ops.cgroup_ops().0 {
                    let r = self.call(caller, Ctx::Other, "cgroup_init", |c| {
                        ops.cgroup_init_one(c, g)
                    });
                    if r.is_err() {
                        // the mkdir fails: the group is not there
                        self.cgroups.node_mut(g).removed = true;
                        made = false;
                    }
                }
                if made {
                    ops.cgroup_set_active(self, g, true);
                }
            }
            Applied::Rmdir(g) => {
                // cgroup_destroy_locked removes the kernfs node (kernfs_remove)
                // before the css goes offline: from ops.cgroup_exit on,
                // bpf_cgroup_from_id does not find the group
                ops.cgroup_set_active(self, g, false);
                if ops.cgroup_ops().1 {
                    self.call(caller, Ctx::Other, "cgroup_exit", |c| {
                        ops.cgroup_exit_one(c, g)
                    });
                }
            }
        }
    }

    /// scx_cgroup_can_attach for the batch, then sched_move_task for each.
    fn cgroup_move(
        &mut self,
        ops: &mut dyn Ops,
        caller: usize,
        v: Vec<(TaskId, usize)>,
        to: usize,
    ) {
        let has = ops.cgroup_run_ops();
        // tasks that exist now; one not started is only placed (above)
        let live: Vec<(TaskId, usize)> = v
            .iter()
            .copied()
            .filter(|&(t, _)| !matches!(self.tasks[t].state, TaskState::New | TaskState::Exited))
            .collect();
        if has.prep_move {
            for (k, &(t, from)) in live.iter().enumerate() {
                let r = self.call(caller, Ctx::Other, "cgroup_prep_move", |c| {
                    ops.cgroup_prep_move(c, t, from, to)
                });
                if self.stop.is_some() {
                    return;
                }
                if r != 0 {
                    // scx_cgroup_can_attach's error path: the tasks prepared
                    // so far are told, and the write fails: all stay
                    for &(t, from) in &live[..k] {
                        if has.cancel_move {
                            self.call(caller, Ctx::Other, "cgroup_cancel_move", |c| {
                                ops.cgroup_cancel_move(c, t, from, to)
                            });
                        }
                    }
                    for &(t, from) in &v {
                        self.cgroups.set_task(t, from);
                    }
                    return;
                }
            }
        }
        // the write succeeded: a task not started yet starts in `to`, not
        // in the group of the task that forks it
        for &(t, _) in &v {
            if self.tasks[t].state == TaskState::New {
                self.cgroups.set_placed(t);
            }
        }
        let flags = abi::DEQUEUE_SAVE | abi::DEQUEUE_MOVE | abi::DEQUEUE_NOCLOCK;
        for &(t, from) in &live {
            if self.is_rt(t) {
                // a real-time task (core/rt.rs) is dequeued and enqueued by
                // its own class, with no sched_ext callback; ext.c still
                // tells the scheduler of its move (scx_cgroup_move_task)
                ops.cgroup_attach(self, t, to);
                if has.move_ {
                    self.call(caller, Ctx::Other, "cgroup_move", |c| {
                        ops.cgroup_move(c, t, from, to)
                    });
                }
                continue;
            }
            let running = matches!(self.tasks[t].state, TaskState::Running(_));
            self.change(ops, caller, t, flags, |c, ops| {
                // sched_change_group: the task's css_set and task group
                ops.cgroup_attach(c, t, to);
                if has.move_ {
                    c.call(caller, Ctx::Other, "cgroup_move", |c| {
                        ops.cgroup_move(c, t, from, to)
                    });
                }
            });
            if self.stop.is_some() {
                return;
            }
            if let (true, TaskState::Running(x)) = (running, self.tasks[t].state) {
                self.resched(x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_give_the_time_as_written() {
        assert_eq!(show_time(1_000_000_000), "1s");
        assert_eq!(show_time(500_000_000), "500ms");
        assert_eq!(show_time(1_500_000), "1500us");
        assert_eq!(show_time(1_234), "1234ns");
        assert_eq!(show_time(0), "0s");
    }

    fn one(s: &str) -> Result<Event> {
        parse(&[s.to_string()]).map(|mut v| v.remove(0))
    }

    #[test]
    fn events_parse_and_sort() {
        let v = parse(&[
            "1s weight /a 400; 500ms move 0-2,7 /b/c".into(),
            "2s rmdir /a".into(),
        ])
        .unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].at, 500_000_000);
        assert_eq!(
            v[0].what,
            Change::Move {
                tasks: vec![0, 1, 2, 7],
                path: "/b/c".into()
            }
        );
        assert_eq!(
            v[1].what,
            Change::Weight {
                path: "/a".into(),
                weight: 400
            }
        );
        assert_eq!(
            one("3ms max /a 50000/100000").unwrap().what,
            Change::Max {
                path: "/a".into(),
                quota: Some(50_000),
                period: Some(100_000)
            }
        );
        assert_eq!(
            one("3ms max /a max").unwrap().what,
            Change::Max {
                path: "/a".into(),
                quota: None,
                period: None
            }
        );
        assert_eq!(
            one("0ns idle /x 1").unwrap().what,
            Change::Idle {
                path: "/x".into(),
                idle: true
            }
        );
    }

    #[test]
    fn bad_events_are_one_line_errors() {
        for s in [
            "1s",
            "1 weight /a 100",
            "1s weight a 100",
            "1s weight /a 0",
            "1s weight /a",
            "1s move 3-1 /a",
            "1s move x /a",
            "1s max /a 10/100000",
            "1s idle /a 2",
            "1s chmod /a",
            "1s rmdir /a extra",
            "1s mkdir /1/2/3/4/5/6/7/8/9",
        ] {
            let e = one(s).unwrap_err().to_string();
            assert!(
                e.starts_with("--cgroup-event") && !e.contains('\n'),
                "{s}: {e}"
            );
        }
    }

    #[test]
    fn events_are_checked_against_the_groups() {
        use crate::task::{Cgroup, TaskSpec};
        let spec = |p: &str| {
            let mut s = TaskSpec::new("t", 1);
            s.cgroup = Some(Cgroup {
                path: p.into(),
                weight: 100,
                limits: Default::default(),
            });
            s
        };
        let c = Cgroups::from_specs(&[spec("/a"), spec("/b")]).unwrap();
        let ev = |s: &str| parse(&[s.to_string()]).unwrap();
        c.check_events(&ev("1s move 0 /b; 2s rmdir /a"), 2).unwrap();
        c.check_events(
            &ev("1s mkdir /c; 2s move 0-1 /c; 3s rmdir /a; 3s rmdir /b"),
            2,
        )
        .unwrap();
        for (s, why) in [
            ("1s rmdir /a", "task 0 is still in it"),
            ("1s move 0 /c", "no group /c"),
            ("1s move 5 /b", "no task 5"),
            ("1s mkdir /a", "exists"),
            ("1s mkdir /c/d", "no group /c"),
            ("1s mkdir /a/x; 2s move 0 /b; 3s rmdir /a", "child groups"),
            ("1s move 0 /b; 2s rmdir /a; 3s weight /a 10", "no group /a"),
            ("1s burst /a 100", "needs a cpu.max quota"),
        ] {
            let e = c.check_events(&ev(s), 2).unwrap_err().to_string();
            assert!(e.contains(why), "{s}: {e}");
        }
    }
}
