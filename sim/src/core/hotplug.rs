//! Offline CPUs, sparse numbering and CPU hotplug, as Linux 7.2.13 has
//! them (kernel/sched/core.c sched_cpu_activate / sched_cpu_deactivate,
//! kernel/sched/ext/ext.c handle_hotplug, rq_online_scx, rq_offline_scx):
//!
//! - A CPU id is possible or a hole (`Presence::Absent`); a possible CPU
//!   is online or offline. nr_cpu_ids counts the holes; no mask ever holds
//!   a hole, and only online CPUs are in the idle and online masks.
//! - A CPU going offline (`Core::cpu_down`): it leaves cpu_active_mask and
//!   the idle masks; rq_offline_scx (ext.c:3628-3647) takes every task of
//!   its runqueue that is not on its local DSQ back from the BPF scheduler
//!   onto that local DSQ, with no callback (do_enqueue_task skips the BPF
//!   scheduler for an offline rq, ext.c:1928-1933); then
//!   scx_rq_deactivate -> handle_hotplug (ext.c:3584-3611, 3618-3621)
//!   calls ops.cpu_offline, or, without it, exits the scheduler with
//!   SCX_EXIT_UNREG_KERN and SCX_ECODE_ACT_RESTART | SCX_ECODE_RSN_HOTPLUG;
//!   then balance_push (core.c:8501-8560) moves each task off, to
//!   select_fallback_rq's CPU, where it is enqueued (ops.enqueue, no
//!   ops.runnable: a migration, task_on_rq_migrating).
//! - A CPU coming online (`Core::cpu_up`): sched_cpu_activate (core.c:8723-
//!   8759) marks it active, then scx_rq_activate -> handle_hotplug calls
//!   ops.cpu_online or exits the scheduler the same way, then rq_online_scx
//!   (ext.c:3623-3626) sets SCX_RQ_ONLINE; the CPU then idles (its idle
//!   task runs: it enters the idle masks) and looks for work.
//! - A restart (`Core::reload`): what scx_arbor's loader does when the
//!   kernel asks for one (scheduler/src/main.rs, "restarting as the kernel
//!   asked"): the old instance's ops.exit, then a fresh instance loaded on
//!   the new topology, which gets ops.init, then ops.init_task (not a fork)
//!   and ops.enable for every task that exists (scx_root_enable's pass
//!   over the tasks), then every runnable task is enqueued afresh.
//!   Simplification: the reload takes no simulated time (a real one takes
//!   milliseconds, under the fair class), and the tasks that were running
//!   are switched out and enqueued like the queued ones.

use super::{Core, DsqRef, Ev, Ops, TaskState};
use crate::abi;
use crate::machine::{Machine, Presence};
use crate::task::{Ns, TaskId, Workload};

/// One CPU hotplug event of a run: at `at` ns, `cpu` goes online or offline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hotplug {
    pub at: Ns,
    pub cpu: usize,
    pub online: bool,
}

/// Builds a fresh instance of the run's scheduler for the CPUs online now
/// (`online[cpu]`), as its loader would on a restart.
pub type Reloader = Box<dyn FnMut(&Machine, &[bool]) -> anyhow::Result<Box<dyn Ops>>>;

/// At most this many restarts per run (scx_arbor's loader gives up after
/// 30 in a minute: scheduler/src/main.rs).
pub const MAX_RESTARTS: usize = 30;

/// `off:3@100ms,on:3@250ms`: hotplug events, each `off:CPU@TIME` or
/// `on:CPU@TIME`, TIME a whole number with a unit (ns, us, ms, s). One-line
/// errors.
pub fn parse(s: &str) -> anyhow::Result<Vec<Hotplug>> {
    let mut v = Vec::new();
    for item in s.split(',').filter(|x| !x.is_empty()) {
        let bad = || {
            anyhow::anyhow!(
                "--hotplug: '{item}' is not off:CPU@TIME or on:CPU@TIME (e.g. off:3@100ms)"
            )
        };
        let (what, when) = item.split_once('@').ok_or_else(bad)?;
        let (dir, cpu) = what.split_once(':').ok_or_else(bad)?;
        let online = match dir {
            "on" => true,
            "off" => false,
            _ => return Err(bad()),
        };
        let cpu: usize = cpu.parse().map_err(|_| bad())?;
        let split = when.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
        let (num, unit) = when.split_at(split);
        let num: u64 = num.parse().map_err(|_| bad())?;
        let mult = match unit {
            "ns" => 1,
            "us" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            _ => return Err(bad()),
        };
        let at = num
            .checked_mul(mult)
            .ok_or_else(|| anyhow::anyhow!("--hotplug: '{item}': time too large"))?;
        v.push(Hotplug { at, cpu, online });
    }
    Ok(v)
}

/// The events in the one-line form `parse` reads.
pub fn format(events: &[Hotplug]) -> String {
    events
        .iter()
        .map(|e| {
            let (n, u) = if e.at % 1_000_000 == 0 {
                (e.at / 1_000_000, "ms")
            } else if e.at % 1_000 == 0 {
                (e.at / 1_000, "us")
            } else {
                (e.at, "ns")
            };
            format!("{}:{}@{n}{u}", if e.online { "on" } else { "off" }, e.cpu)
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Checks a run's events against the machine: each names a possible CPU,
/// takes an online CPU offline or brings an offline one up (in time
/// order), and never leaves no CPU online (the kernel refuses to take the
/// last one down: cpu_down_maps_locked, -EBUSY). One-line errors.
pub fn check(m: &Machine, events: &[Hotplug]) -> anyhow::Result<()> {
    let mut on: Vec<bool> = (0..m.nr_cpus()).map(|c| m.online_at_start(c)).collect();
    let mut ev = events.to_vec();
    ev.sort_by_key(|e| e.at);
    for e in ev {
        if e.cpu >= on.len() || m.presence(e.cpu) == Presence::Absent {
            anyhow::bail!(
                "--hotplug: CPU {} does not exist on '{}' (possible CPUs: {})",
                e.cpu,
                m.name,
                cpulist(&(0..on.len()).filter(|&c| m.possible(c)).collect::<Vec<_>>())
            );
        }
        if on[e.cpu] == e.online {
            anyhow::bail!(
                "--hotplug: CPU {} is already {} at {} ns",
                e.cpu,
                if e.online { "online" } else { "offline" },
                e.at
            );
        }
        on[e.cpu] = e.online;
        if !on.iter().any(|&o| o) {
            anyhow::bail!(
                "--hotplug: taking CPU {} offline at {} ns would leave no CPU online",
                e.cpu,
                e.at
            );
        }
    }
    Ok(())
}

/// `0-3,6` for [0, 1, 2, 3, 6].
pub fn cpulist(v: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            v[i].to_string()
        } else {
            format!("{}-{}", v[i], v[j])
        });
        i = j + 1;
    }
    out.join(",")
}

impl Core {
    /// cpu_online(cpu) (and, in this model, cpu_active and SCX_RQ_ONLINE).
    pub fn is_online(&self, cpu: usize) -> bool {
        self.online.get(cpu).copied().unwrap_or(false)
    }

    /// The restarts so far: (when, the exit's message).
    pub fn restarts(&self) -> &[(Ns, String)] {
        &self.restarts
    }

    /// Rebuilds what depends on the online set: each core's online threads
    /// (cpu_smt_mask loses an offline sibling), the SMT idle mask, and
    /// scx_select_cpu_dfl's spans and gates, which handle_hotplug
    /// recomputes (scx_idle_update_selcpu_topology, ext.c:3600-3601).
    pub(super) fn rebuild_online_topology(&mut self) {
        for v in self.core_cpus.iter_mut() {
            v.clear();
        }
        for c in 0..self.cpus.len() {
            if self.online[c] {
                let core = self.cpu_core[c];
                self.core_cpus[core].push(c);
            }
        }
        for c in 0..self.cpus.len() {
            let core = self.cpu_core[c];
            let whole =
                self.online[c] && self.core_cpus[core].iter().all(|&s| self.idle_mask.test(s));
            self.smt_mask.set(c, whole);
        }
        for core in 0..self.core_cpus.len() {
            self.recount_core(core);
        }
        self.smt_on = self.core_cpus.iter().any(|c| c.len() > 1);
        self.selcpu_topo = None;
    }

    /// select_fallback_rq (core.c) for a task whose CPU is not usable: an
    /// allowed online CPU of `prev`'s node, then any allowed online CPU,
    /// lowest id first; if it may run on no online CPU, its affinity is
    /// widened to every possible CPU, as the kernel's last resort does
    /// (do_set_cpus_allowed(p, task_cpu_fallback_mask(p))).
    pub(super) fn fallback_cpu(&mut self, t: TaskId, prev: usize) -> usize {
        let n = self.cpus.len();
        let node = self.cpu_node.get(prev).copied().unwrap_or(0);
        let ok = |c: &Core, x: usize| c.allowed(t, x) && c.online[x];
        if let Some(c) = (0..n)
            .find(|&c| self.cpu_node[c] == node && ok(self, c))
            .or_else(|| (0..n).find(|&c| ok(self, c)))
        {
            return c;
        }
        let ts = &mut self.tasks[t].ts;
        ts.cpus_mask = *self.possible_mask;
        ts.nr_cpus_allowed = (0..n).filter(|&c| ts.cpus_mask.test(c)).count() as i32;
        (0..n)
            .find(|&c| self.cpu_node[c] == node && self.online[c])
            .or_else(|| (0..n).find(|&c| self.online[c]))
            .unwrap_or(0)
    }

    /// select_fallback_rq for a sched_ext task, with the scheduler told of
    /// a widened mask: the kernel's last resort is do_set_cpus_allowed
    /// (core.c select_fallback_rq), whose __do_set_cpus_allowed calls the
    /// class's set_cpus_allowed, i.e. set_cpus_allowed_scx and so
    /// ops.set_cpumask(p, p->cpus_ptr) (ext.c:3562-3582), as for a
    /// sched_setaffinity. A scheduler that keeps per-task state derived
    /// from the mask (scx_rusty's domain) would otherwise run the task on
    /// a CPU its state says it may not use. The sched_change guard's
    /// dequeue / enqueue pair around it is not modelled: the wake-up path
    /// calls this before the task is queued, where the kernel has none.
    /// The callback runs on `caller`, the CPU doing the wake-up or the
    /// move.
    pub(super) fn fallback_cpu_scx(
        &mut self,
        ops: &mut dyn Ops,
        caller: usize,
        t: TaskId,
        prev: usize,
    ) -> usize {
        let before = self.tasks[t].ts.cpus_mask.bits;
        let cpu = self.fallback_cpu(t, prev);
        if self.tasks[t].ts.cpus_mask.bits != before
            && self.stop.is_none()
            && !self.is_rt(t)
            && ops.has_set_cpumask()
        {
            self.call(caller, super::Ctx::Other, "set_cpumask", |c| {
                ops.set_cpumask(c, t)
            });
        }
        cpu
    }

    /// handle_hotplug (ext.c:3584-3611): the scheduler's callback, or its
    /// exit with the restart request.
    fn handle_hotplug(&mut self, ops: &mut dyn Ops, cpu: usize, online: bool) {
        self.hotplug_seq += 1;
        let (has_on, has_off) = ops.hotplug_ops();
        if online && has_on {
            self.call(cpu, super::Ctx::Other, "cpu_online", |c| {
                ops.cpu_online(c, cpu)
            });
        } else if !online && has_off {
            self.call(cpu, super::Ctx::Other, "cpu_offline", |c| {
                ops.cpu_offline(c, cpu)
            });
        } else {
            self.eject_as(
                abi::SCX_EXIT_UNREG_KERN,
                abi::SCX_ECODE_ACT_RESTART | abi::SCX_ECODE_RSN_HOTPLUG,
                format!(
                    "cpu {cpu} going {}, exiting scheduler",
                    if online { "online" } else { "offline" }
                ),
            );
        }
    }

    /// A hotplug event (Ev::Hotplug).
    pub(super) fn hotplug(
        &mut self,
        ops: &mut dyn Ops,
        wl: &mut dyn Workload,
        cpu: usize,
        online: bool,
    ) {
        if cpu >= self.cpus.len() || self.online[cpu] == online {
            return; // checked before the run (`check`)
        }
        self.stats.hotplugs += 1;
        if online {
            self.cpu_up(ops, cpu)
        } else {
            self.cpu_down(ops, wl, cpu)
        }
    }

    fn cpu_up(&mut self, ops: &mut dyn Ops, x: usize) {
        // sched_cpu_activate: set_cpu_active (core.c:8737)
        self.online[x] = true;
        self.all_mask.set(x, true);
        self.rebuild_online_topology();
        // scx_rq_activate -> handle_hotplug (core.c:8745, ext.c:3613-3616)
        self.this_cpu = x;
        self.handle_hotplug(ops, x, true);
        // the CPU runs its idle task: it enters the idle masks, ops.update_idle
        // (idle.c), and looks for work
        self.cpus[x].cstate = 0;
        self.set_idle_bits(x, true);
        self.stats.set_idle(x, true, self.now);
        if self.stop.is_none() {
            self.call(x, super::Ctx::Other, "update_idle", |c| {
                ops.update_idle(c, x, true)
            });
            self.resched(x);
        }
    }

    fn cpu_down(&mut self, ops: &mut dyn Ops, wl: &mut dyn Workload, x: usize) {
        let _ = wl;
        // sched_cpu_deactivate: set_cpu_active(false) (core.c:8777); the CPU
        // leaves the idle masks (it will never idle as an online CPU again)
        self.online[x] = false;
        self.all_mask.set(x, false);
        self.claim_idle(x);
        self.rebuild_online_topology();
        self.cpus[x].resched_at = None;
        self.this_cpu = x;
        // the running task is switched out (the CPU runs the hotplug
        // thread): put_prev_task_scx with the task still runnable
        if let Some(t) = self.cpus[x].curr {
            if self.is_rt(t) {
                // an RT task is pushed off by balance_push too; it goes to
                // the fallback CPU's RT queue (rt.rs wakes it there)
                self.preempt_out(x, t);
                self.set_state(t, TaskState::Sleeping);
                let to = self.fallback_cpu(t, x);
                self.set_task_cpu(t, to);
                self.rt_wake(t, to);
            } else {
                self.preempt_out(x, t);
                self.tasks[t].ts.scx.flags |= abi::SCX_TASK_QUEUED;
                self.call(x, super::Ctx::Other, "stopping", |c| {
                    ops.stopping(c, t, true)
                });
                self.set_state(t, TaskState::Bpf);
                self.enqueue_on(t, DsqRef::Local(x), 0, None);
            }
        }
        // rq_offline_scx (ext.c:3643-3647): the rq's other tasks, on no
        // local DSQ, come back onto this local DSQ without a callback
        let mut back: Vec<TaskId> = (0..self.tasks.len())
            .filter(|&t| self.tasks[t].cpu == x && !self.is_rt(t))
            .filter(|&t| {
                matches!(
                    self.tasks[t].state,
                    TaskState::Bpf
                        | TaskState::Queued(DsqRef::Global)
                        | TaskState::Queued(DsqRef::User(_))
                )
            })
            .collect();
        back.sort_unstable();
        for t in back {
            if let TaskState::Queued(q) = self.tasks[t].state {
                self.dsq_remove(t, q);
            }
            // a pending dispatch of the old queueing is stale (ext.c qseq)
            self.tasks[t].qseq += 1;
            self.set_state(t, TaskState::Bpf);
            self.enqueue_on(t, DsqRef::Local(x), 0, None);
        }
        // an RT task waiting on this CPU's RT queue goes too
        let rt = std::mem::take(&mut self.cpus[x].rt);
        for t in rt {
            self.set_state(t, TaskState::Sleeping);
            let to = self.fallback_cpu(t, x);
            self.set_task_cpu(t, to);
            self.rt_wake(t, to);
        }
        // an offline CPU is not an idle one ("idle while queued")
        self.stats.set_idle(x, false, self.now);
        // scx_rq_deactivate -> handle_hotplug (core.c:8804, ext.c:3618-3621)
        self.handle_hotplug(ops, x, false);
        // balance_push: every task of the local DSQ moves to the fallback
        // CPU; after an exit, straight onto that CPU's local DSQ (the
        // scheduler is going away: the restart enqueues every task afresh)
        while let Some(t) = self.cpus[x].local.pop_first() {
            self.set_state(t, TaskState::Bpf);
            let to = self.fallback_cpu_scx(ops, x, t, x);
            self.set_task_cpu(t, to);
            self.ddsp = None;
            if self.stop.is_some() {
                self.enqueue_on(t, DsqRef::Local(to), 0, None);
            } else {
                self.do_enqueue(ops, t, to, 0);
            }
        }
        self.cpus[x].resched_at = None;
    }

    /// The running task `t` leaves CPU `x` still runnable, with no pick
    /// after it: the CPU is idle (its accounting, not its masks).
    fn preempt_out(&mut self, x: usize, t: TaskId) {
        self.settle(x);
        if !self.is_rt(t) {
            self.charge_slice(x, t);
        }
        let core = self.cpu_core[x];
        self.core_settle(core);
        self.pelt_update(x);
        self.set_curr(x, None);
        self.switch_out(x, t);
        self.note(super::Note::Stop {
            t,
            cpu: x,
            runnable: true,
        });
        if let Some(s) = self.cpus[x].busy_since.take() {
            self.cpus[x].busy_ns += self.now - s;
        }
        self.cpus[x].idle_since = Some(self.now);
        self.cpus[x].pending_stall = 0.0;
        self.cpus[x].gen += 1;
        self.run_ends.clear(x);
        self.cpus[x].next_ext = false;
        self.cpus[x].cpu_released = false;
        self.stats.set_idle(x, true, self.now);
        self.tasks[t].runnable_at = self.now;
        self.stats.set_waiting(t, true, self.now);
        self.core_rearm(core, usize::MAX);
    }

    /// Whether the stop is an exit that asks user space to load the
    /// scheduler again (SCX_ECODE_ACT_RESTART) and a reload is possible.
    pub(super) fn wants_restart(&self) -> bool {
        matches!(self.stop, Some(super::Stop::Ejected(_)))
            && self.exit_code & abi::SCX_ECODE_ACT_RESTART != 0
            && self.reloader.is_some()
            && self.restarts.len() < MAX_RESTARTS
    }

    /// The loader's restart (module docs): ops.exit of `old`, a fresh
    /// instance, ops.init, init_task + enable for every task, and every
    /// runnable task enqueued afresh. None: the reload failed (the run
    /// stops, ejected, with why).
    pub(super) fn reload(&mut self, old: &mut dyn Ops) -> Option<Box<dyn Ops>> {
        let why = match self.stop.take() {
            Some(super::Stop::Ejected(m)) => m,
            other => {
                self.stop = other;
                return None;
            }
        };
        self.restarts.push((self.now, why.clone()));
        // the ops.dequeue calls due for tasks that left the old instance's
        // custody (an offline CPU's rq took them back just before the
        // exit) are the old instance's: they reach it now, not the fresh
        // one, which would take the task it was just given back out of
        // its queue (scx_qmap's FIFO does)
        self.run_pending_dequeues(old);
        // the old instance is disabled (scx_root_disable): cgroup_exit
        // (ext.c:6354), ops.exit_task for every task (6380:
        // scx_disable_and_exit_task; the task's storage of that instance
        // goes with it), then ops.exit (6433-6434)
        let (_, cg_exit) = self.cgroup_ops_of(old);
        if cg_exit {
            self.call(0, super::Ctx::Other, "cgroup_exit", |c| old.cgroup_exit(c));
        }
        for t in 0..self.tasks.len() {
            if !matches!(self.tasks[t].state, TaskState::New | TaskState::Exited) && !self.is_rt(t)
            {
                let cpu = self.tasks[t].cpu;
                self.call(cpu, super::Ctx::Other, "exit_task", |c| old.exit_task(c, t));
            }
        }
        self.call(0, super::Ctx::Other, "exit", |c| old.exit(c, &why));
        // no task is in the fresh instance's custody until it keeps one
        for t in &mut self.tasks {
            t.custody = false;
        }
        self.exit_kind = 0;
        self.exit_code = 0;
        // what belonged to the old instance: its DSQs, timers, buffers
        let mut runnable: Vec<TaskId> = Vec::new();
        for x in 0..self.cpus.len() {
            if let Some(t) = self.cpus[x].curr {
                if !self.is_rt(t) {
                    self.preempt_out(x, t);
                    self.set_state(t, TaskState::Bpf);
                    runnable.push(t);
                }
            }
            while let Some(t) = self.cpus[x].local.pop_first() {
                runnable.push(t);
            }
        }
        for g in 0..self.global.len() {
            while let Some(t) = self.global[g].pop_first() {
                runnable.push(t);
            }
        }
        for t in 0..self.tasks.len() {
            match self.tasks[t].state {
                TaskState::Queued(DsqRef::User(id)) => {
                    self.user.remove(id, t);
                    runnable.push(t);
                }
                TaskState::Bpf => runnable.push(t),
                _ => {}
            }
        }
        runnable.sort_unstable();
        runnable.dedup();
        self.user = Default::default();
        self.timers.clear();
        self.timer_ptrs.clear();
        self.calls_ptr = None;
        self.ddsp = None;
        self.dispatch_buf.clear();
        self.iters.clear();
        for t in &runnable {
            self.set_state(*t, TaskState::Bpf);
            self.tasks[*t].qseq += 1;
        }
        let online = self.online.clone();
        let fresh = match self.reloader.as_mut().map(|r| r(&self.machine, &online)) {
            Some(Ok(o)) => o,
            Some(Err(e)) => {
                self.eject(format!("reloading the scheduler after '{why}': {e:#}"));
                return None;
            }
            None => return None,
        };
        let mut fresh = fresh;
        let ops = fresh.as_mut();
        self.ops_flags = ops.flags();
        if let Err(e) = self.call(0, super::Ctx::Other, "init", |c| ops.init(c)) {
            self.eject(format!("ops.init() failed ({e}) on reload"));
            return Some(fresh);
        }
        let (cg_init, _) = self.cgroup_ops_of(ops);
        if cg_init {
            if let Err(e) = self.call(0, super::Ctx::Other, "cgroup_init", |c| ops.cgroup_init(c)) {
                self.eject(format!("ops.cgroup_init() failed ({e}) on reload"));
                return Some(fresh);
            }
        }
        for x in 0..self.cpus.len() {
            if self.online[x] && self.cpus[x].curr.is_none() {
                self.call(x, super::Ctx::Other, "update_idle", |c| {
                    ops.update_idle(c, x, true)
                });
            }
        }
        // scx_root_enable: ops.init_task for every task, then ops.enable
        let live: Vec<TaskId> = (0..self.tasks.len())
            .filter(|&t| {
                !matches!(self.tasks[t].state, TaskState::New | TaskState::Exited) && !self.is_rt(t)
            })
            .collect();
        for &t in &live {
            let cpu = self.tasks[t].cpu;
            if let Err(e) = self.call(cpu, super::Ctx::Other, "init_task", |c| {
                ops.init_task(c, t, false)
            }) {
                self.eject(format!(
                    "ops.init_task failed for {} on reload: {e}",
                    self.tasks[t].spec.name
                ));
                return Some(fresh);
            }
        }
        for &t in &live {
            let cpu = self.tasks[t].cpu;
            self.call(cpu, super::Ctx::Other, "enable", |c| ops.enable(c, t));
        }
        // the runnable tasks, enqueued afresh on a usable CPU
        for t in runnable {
            let mut cpu = self.tasks[t].cpu;
            if !self.online[cpu] || !self.allowed(t, cpu) {
                cpu = self.fallback_cpu_scx(ops, cpu, t, cpu);
                self.set_task_cpu(t, cpu);
            }
            self.set_state(t, TaskState::Sleeping);
            self.stats.set_waiting(t, false, self.now);
            self.enqueue_task(ops, t, cpu, 0);
            if self.stop.is_some() {
                return Some(fresh);
            }
        }
        for x in 0..self.cpus.len() {
            if self.online[x] {
                self.resched(x);
            }
        }
        Some(fresh)
    }

    /// check_hotplug_seq (ext.c:7260-7280, called after ops.init at
    /// 7473): a hotplug event between the load (which read
    /// scx_hotplug_seq into ops.hotplug_seq) and the attach exits the
    /// scheduler asking for a restart. True: it did.
    pub(super) fn check_hotplug_seq(&mut self) -> bool {
        match self.expected_hotplug_seq {
            Some(want) if want != 0 && want != self.hotplug_seq => {
                let msg = format!(
                    "expected hotplug seq {want} did not match actual {}",
                    self.hotplug_seq
                );
                self.eject_as(
                    abi::SCX_EXIT_UNREG_KERN,
                    abi::SCX_ECODE_ACT_RESTART | abi::SCX_ECODE_RSN_HOTPLUG,
                    msg,
                );
                true
            }
            _ => false,
        }
    }

    /// Queues the run's hotplug events.
    pub(super) fn queue_hotplug(&mut self) {
        for e in self.cfg.hotplug.clone() {
            self.push(e.at, Ev::Hotplug(e.cpu, e.online));
        }
    }
}
