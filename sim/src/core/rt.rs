//! SCHED_FIFO / SCHED_RR tasks as load that competes with sched_ext.
//!
//! The kernel picks classes in order, stop > deadline > RT > fair/ext >
//! idle (`__pick_next_task`, core.c), so a runnable RT task on a CPU runs
//! before any sched_ext task there. What sched_ext sees of it
//! (Linux 7.2.13's kernel/sched/ext/ext.c):
//!
//! - the sched_ext task it preempts goes through `put_prev_task_scx`
//!   (ext.c:3134-3200): `ops.stopping(p, true)`; with slice left it goes
//!   back to the head of its CPU's local DSQ (an IMMED task is re-enqueued
//!   instead), with none `ops.enqueue(p, 0)`;
//! - `switch_class` (ext.c:3095-3132), reached from `put_prev_task_scx`
//!   only, i.e. when the CPU was running (or had just blocked) a sched_ext
//!   task: if the scheduler implements `cpu_acquire` or `cpu_release`
//!   (SCX_OPS_HAS_CPU_PREEMPT) and the CPU is not released yet,
//!   `ops.cpu_release(cpu, {SCX_CPU_PREEMPT_RT, next})`, once, and the CPU
//!   is marked released. An RT task that takes an idle CPU releases nothing
//!   (`put_prev_task_idle` does not call it);
//! - the next `balance_one` of that CPU, when RT has left it and the ext
//!   class picks again, calls `ops.cpu_acquire(cpu, NULL)` first and clears
//!   the mark (ext.c:2951-2962);
//! - the RT task itself gets no sched_ext callback: no init_task, enable,
//!   select_cpu, enqueue, running, stopping, tick or exit_task. Its CPU
//!   leaves the idle mask while it runs (`put_prev_task_idle` ->
//!   `scx_update_idle`, idle.c).
//!
//! The RT class's own rules, kept to what placement against sched_ext
//! needs (kernel/sched/rt.c):
//! - wake-up (`select_task_rq_rt`): the task's previous CPU, unless that
//!   CPU runs an RT task of higher or equal priority; then
//!   `find_lowest_rq`: an allowed CPU of the lowest priority class (idle
//!   first, then one running no RT task), the previous CPU if it is one of
//!   them, else the waker's, else the lowest numbered;
//! - `wakeup_preempt_rt`: a woken RT task preempts a CPU running sched_ext
//!   or idle, or an RT task of lower priority; equal priorities do not
//!   preempt, and run first come, first served (a preempted RT task keeps
//!   its place at the head).
//!
//! Not modelled: SCHED_RR's 100 ms round-robin among equal priorities (it
//! runs as SCHED_FIFO), RT push/pull migration of a queued RT task to
//! another CPU, and RT throttling / the fair and ext servers (the
//! sched_rt_runtime_us share left to lower classes).

use super::dsq::DsqRef;
use super::{Core, Note, Ops, TaskState};
use crate::abi;
use crate::task::{TaskId, Workload};

impl Core {
    /// `t` is a SCHED_FIFO/SCHED_RR task, not a sched_ext one.
    pub fn is_rt(&self, t: TaskId) -> bool {
        self.tasks[t].spec.rt_prio.is_some()
    }

    fn rt_prio(&self, t: TaskId) -> u32 {
        self.tasks[t].spec.rt_prio.unwrap_or(0)
    }

    /// The CPU's RT priority as cpupri ranks it: 0 idle, 1 running a
    /// sched_ext task (CPUPRI_NORMAL), 2 + prio running an RT task.
    fn rt_rank(&self, c: usize) -> u32 {
        let run = self.cpus[c]
            .rt
            .iter()
            .chain(self.cpus[c].curr.iter())
            .filter(|&&t| self.is_rt(t))
            .map(|&t| 2 + self.rt_prio(t))
            .max();
        match (run, self.cpus[c].curr) {
            (Some(r), _) => r,
            (None, Some(_)) => 1,
            (None, None) => 0,
        }
    }

    /// try_to_wake_up for an RT task: select_task_rq_rt, enqueue on that
    /// CPU's RT queue, wakeup_preempt_rt.
    pub(super) fn rt_wake(&mut self, t: TaskId, waker_cpu: usize) {
        let prev = self.tasks[t].cpu;
        let me = 2 + self.rt_prio(t);
        let n = self.cpus.len();
        let mut cpu = prev;
        if !self.allowed(t, prev) || self.rt_rank(prev) >= me {
            // find_lowest_rq: the lowest-ranked allowed CPUs
            let low = (0..n)
                .filter(|&c| self.allowed(t, c))
                .map(|c| self.rt_rank(c))
                .min();
            if let Some(low) = low.filter(|&l| l < me || !self.allowed(t, prev)) {
                let ok = |c: usize| self.allowed(t, c) && self.rt_rank(c) == low;
                cpu = if ok(prev) {
                    prev
                } else if ok(waker_cpu) {
                    waker_cpu
                } else {
                    (0..n).find(|&c| ok(c)).unwrap_or(prev)
                };
            }
        }
        self.set_task_cpu(t, cpu);
        self.tasks[t].woken_at = Some(self.now);
        self.tasks[t].runnable_at = self.now;
        self.set_state(t, TaskState::RtQueued(cpu));
        self.cpus[cpu].rt.push(t);
        self.note(Note::Wake {
            t,
            cpu,
            flags: abi::SCX_WAKE_TTWU,
        });
        // wakeup_preempt_rt: only a lower class or a lower RT priority
        let preempt = match self.cpus[cpu].curr {
            None => true,
            Some(c) => !self.is_rt(c) || self.rt_prio(c) < self.rt_prio(t),
        };
        if preempt && self.stop.is_none() {
            self.resched(cpu);
        }
    }

    /// The first RT task of the highest priority queued on `x`.
    fn rt_best(&self, x: usize) -> Option<(usize, TaskId)> {
        let q = &self.cpus[x].rt;
        let top = q.iter().map(|&t| self.rt_prio(t)).max()?;
        q.iter()
            .position(|&t| self.rt_prio(t) == top)
            .map(|i| (i, q[i]))
    }

    /// switch_class (ext.c:3095-3132): the CPU leaves sched_ext for an RT
    /// task; ops.cpu_release once until it comes back.
    fn switch_class(&mut self, ops: &mut dyn Ops, x: usize, next: TaskId) {
        if !ops.has_cpu_preempt() || self.cpus[x].cpu_released {
            return;
        }
        self.call(x, super::Ctx::Other, "cpu_release", |c| {
            ops.cpu_release(c, x, next)
        });
        self.cpus[x].cpu_released = true;
    }

    /// balance_one's start (ext.c:2951-2962): a released CPU is acquired
    /// back, ops.cpu_acquire first.
    pub(super) fn rt_acquire(&mut self, ops: &mut dyn Ops, x: usize) {
        if std::mem::take(&mut self.cpus[x].cpu_released) {
            self.call(x, super::Ctx::Other, "cpu_acquire", |c| {
                ops.cpu_acquire(c, x)
            });
        }
    }

    /// The RT class's turn in schedule(): true if an RT task runs (or goes
    /// on running) on `x`, false if the ext class picks. `blocked`: the
    /// task that just left the CPU (its curr is already None).
    pub(super) fn rt_schedule(
        &mut self,
        ops: &mut dyn Ops,
        wl: &mut dyn Workload,
        x: usize,
        blocked: Option<TaskId>,
        stopped: bool,
    ) -> bool {
        let prev = self.cpus[x].curr;
        let best = self.rt_best(x);
        if let Some(p) = prev.filter(|&p| self.is_rt(p)) {
            if best.is_none_or(|(_, b)| self.rt_prio(b) <= self.rt_prio(p)) {
                // nothing outranks the running RT task: it goes on
                self.settle(x);
                let c = &mut self.cpus[x];
                c.seg_start = c.seg_start.max(self.now) + c.pending_stall as u64;
                c.pending_stall = 0.0;
                self.arm_run_end(x);
                return true;
            }
        }
        let Some((i, next)) = best else {
            return false;
        };
        self.cpus[x].rt.remove(i);
        let was_idle = prev.is_none() && blocked.is_none() && !stopped;
        let core = self.cpu_core[x];
        if let Some(p) = prev {
            self.settle(x);
            self.core_settle(core);
            self.pelt_update(x);
            self.set_curr(x, None);
            self.switch_out(x, p);
            self.note(Note::Stop {
                t: p,
                cpu: x,
                runnable: true,
            });
            if self.is_rt(p) {
                // a preempted RT task keeps its place at the head
                self.set_state(p, TaskState::RtQueued(x));
                self.cpus[x].rt.insert(0, p);
            } else {
                // put_prev_task_scx (ext.c:3134-3200)
                self.charge_slice(x, p);
                let saved = self.sched_prev.replace((x, p));
                self.set_state(p, TaskState::Bpf);
                self.stats.set_waiting(p, true, self.now);
                self.tasks[p].runnable_at = self.now;
                self.putting_prev = Some(p);
                self.call(x, super::Ctx::Other, "stopping", |c| {
                    ops.stopping(c, p, true)
                });
                self.ddsp = None;
                if self.tasks[p].ts.scx.slice > 0 {
                    if self.tasks[p].immed {
                        self.do_enqueue(ops, p, x, abi::SCX_ENQ_REENQ);
                    } else {
                        self.enqueue_on(p, DsqRef::Local(x), abi::SCX_ENQ_HEAD, None);
                    }
                } else {
                    // next (RT) is above ext: not the ENQ_LAST case
                    self.do_enqueue(ops, p, x, 0);
                }
                self.putting_prev = None;
                self.sched_prev = saved;
                self.switch_class(ops, x, next);
            }
        } else if blocked.is_some_and(|b| !self.is_rt(b)) {
            // put_prev_task_scx of a sched_ext task that blocked: not
            // QUEUED, so only switch_class
            self.switch_class(ops, x, next);
        }
        if self.stop.is_some() {
            return true;
        }
        self.cpus[x].next_ext = false;
        if was_idle {
            self.leave_idle(ops, x);
        }
        self.switch_in(ops, wl, x, next);
        self.core_rearm(core, usize::MAX);
        true
    }
}
