//! Changes of a task's properties while it is queued or running, and BPF
//! custody (Linux 7.2.13, kernel/sched/ext/ext.c and kernel/sched/core.c).
//!
//! - **Custody** (SCX_TASK_IN_CUSTODY): a task is in the BPF scheduler's
//!   custody once ops.enqueue kept it (do_enqueue_task, ext.c:1982-1986)
//!   or it was inserted into a user DSQ (dispatch_enqueue, ext.c:1649-1652).
//!   It leaves custody, and ops.dequeue(p, 0) fires, when it is inserted
//!   into a local DSQ (local_dsq_post_enq, ext.c:1467-1473) or the global
//!   DSQ (dispatch_enqueue, ext.c:1647-1660), and ops.dequeue(p, deq_flags)
//!   fires when the core dequeues it (ops_dequeue, ext.c:2110-2185).
//!   A kfunc that moves a task out of custody inside a callback
//!   (scx_bpf_dsq_move_to_local in ops.dispatch) has its ops.dequeue run
//!   when that callback returns, not nested in it as ext.c does: the
//!   scheduler sees the same calls with the same flags, one callback later.
//! - **A property change** (sched_setaffinity, setpriority) is the core's
//!   sched_change guard (core.c:11255-11340): dequeue_task with
//!   DEQUEUE_SAVE | DEQUEUE_NOCLOCK, the change, enqueue_task with
//!   ENQUEUE_RESTORE | ENQUEUE_NOCLOCK. For a sched_ext task
//!   (dequeue_task_scx, ext.c:2187-2236): ops.dequeue(p, SAVE | NOCLOCK |
//!   SCX_DEQ_SCHED_CHANGE) if in custody; ops.stopping(p, false) if it is
//!   running; ops.quiescent(p, same flags). Then ops.set_cpumask(p,
//!   p->cpus_ptr) (set_cpus_allowed_scx, ext.c:3562-3582) or
//!   ops.set_weight(p, weight) (reweight_task_scx, ext.c:4150-4174). Then
//!   enqueue_task_scx (ext.c:2051-2107): ops.runnable(p, RESTORE |
//!   NOCLOCK) and ops.enqueue(p, RESTORE | NOCLOCK), except that a running
//!   task goes straight back to its local DSQ (sticky_cpu, ext.c:2073-2079)
//!   and set_next_task_scx calls ops.running (ext.c:3041-3042).
//! - **Affinity that excludes the task's CPU** (affine_move_task,
//!   core.c:2970-3100): a queued task is moved at once (move_queued_task,
//!   core.c:2557-2575); a running one by the CPU's migration stopper,
//!   which preempts it first (put_prev_task_scx: ops.stopping(p, true)).
//!   The move is deactivate_task(DEQUEUE_NOCLOCK) on the old rq, with
//!   p->on_rq MIGRATING, so ops.quiescent and ops.runnable are skipped
//!   (ext.c:2093, 2216) but ops.dequeue(p, NOCLOCK | SCHED_CHANGE) fires
//!   if it is in custody; then activate_task(0 | ENQUEUE_MIGRATED) on the
//!   destination, i.e. ops.enqueue(p, ENQUEUE_MIGRATED) there, and
//!   wakeup_preempt. The destination is cpumask_any_and_distribute of the
//!   new mask (core.c:3183), the calling CPU's round-robin cursor.
//!   The sim runs the stopper at once (no IPI delay), without the
//!   ops.cpu_release(SCX_CPU_PREEMPT_STOP) that switch_class would call
//!   for a scheduler with SCX_OPS_HAS_CPU_PREEMPT.
//! - An RT task (core/rt.rs) is not a sched_ext task: its mask changes,
//!   and if it may no longer run where it waits or runs it is woken again
//!   on an allowed CPU, with no sched_ext callback.
//! - A task not yet started or exited is left alone (ESRCH). The mask is
//!   first and-ed with the possible CPUs (a hole of sparse numbering is
//!   dropped, an offline CPU kept: cpuset_cpus_allowed of the top
//!   cpuset); a mask with no active (online) CPU is refused (EINVAL), as
//!   sched_setaffinity refuses it, and changes nothing; the destination
//!   is an active CPU.

use super::dsq::DsqRef;
use super::{Core, Ctx, Note, Ops, TaskState};
use crate::abi::{self, CpuMask};
use crate::task::TaskId;

impl Core {
    /// Custody at an insert into `target` (dispatch_enqueue and
    /// local_dsq_post_enq): a user DSQ keeps (or starts) it; a local or
    /// the global DSQ ends it, and ops.dequeue(p, 0) is due.
    pub(super) fn custody_on_insert(&mut self, t: TaskId, target: DsqRef) {
        match target {
            DsqRef::User(_) => self.tasks[t].custody = true,
            DsqRef::Local(_) | DsqRef::Global => {
                if std::mem::take(&mut self.tasks[t].custody) {
                    self.pending_deq.push(t);
                }
            }
        }
    }

    /// The ops.dequeue(p, 0) of the tasks that left custody in the last
    /// callback, on the CPU that ran it.
    // the check inline, the calls out of line: run after every event and
    // dispatch round, which most often leave none
    #[inline]
    pub(super) fn run_pending_dequeues(&mut self, ops: &mut dyn Ops) {
        if !self.pending_deq.is_empty() {
            self.pending_dequeues(ops);
        }
    }

    #[inline(never)]
    fn pending_dequeues(&mut self, ops: &mut dyn Ops) {
        while !self.pending_deq.is_empty() {
            let list = std::mem::take(&mut self.pending_deq);
            if !ops.has_dequeue() {
                continue;
            }
            for t in list {
                let cpu = self.this_cpu;
                self.call(cpu, Ctx::Other, "dequeue", |c| ops.dequeue(c, t, 0));
            }
        }
    }

    /// sched_setaffinity(t, cpus) by a task running on `caller`
    /// (__set_cpus_allowed_ptr_locked, core.c:3123-3192).
    pub(super) fn set_affinity(
        &mut self,
        ops: &mut dyn Ops,
        caller: usize,
        t: TaskId,
        cpus: &[usize],
    ) {
        let n = self.cpus.len();
        // __sched_setaffinity first ands the mask with
        // cpuset_cpus_allowed(), for a task of the top cpuset its possible
        // CPUs, offline ones included (kernel/cgroup/cpuset.c: "Tasks in
        // the top cpuset won't get update to their cpumasks when a hotplug
        // online/offline event happens. So we include all offline cpus"):
        // a hole of sparse numbering is dropped, an offline CPU kept
        let mut mask = CpuMask::empty();
        for &c in cpus.iter().filter(|&&c| c < n && self.machine.possible(c)) {
            mask.set(c, true);
        }
        let weight = (0..n).filter(|&c| mask.test(c)).count() as i32;
        // cpumask_any_and_distribute(cpu_active_mask, new_mask) finds no
        // CPU: EINVAL, nothing changes (core.c:3183-3187)
        let active = (0..n).any(|c| mask.test(c) && self.is_online(c));
        if t >= self.tasks.len() || weight == 0 || !active {
            return; // ESRCH / EINVAL
        }
        if matches!(self.tasks[t].state, TaskState::New | TaskState::Exited) {
            return; // ESRCH
        }
        if self.tasks[t].ts.cpus_mask.bits == mask.bits {
            // the mask is unchanged: __set_cpus_allowed_ptr_locked returns
            // before do_set_cpus_allowed (core.c:3163-3168)
            return;
        }
        self.this_cpu = caller;
        if self.is_rt(t) {
            self.write_mask(t, mask, weight);
            return self.rt_reaffine(caller, t);
        }
        // the destination is picked before the change, whether or not the
        // task will need it (core.c:3178-3187)
        let dest = self.distribute(caller, &mask, t);
        let flags = abi::DEQUEUE_SAVE | abi::DEQUEUE_NOCLOCK;
        self.change(ops, caller, t, flags, |c, ops| {
            c.write_mask(t, mask, weight);
            // set_cpus_allowed_scx (ext.c:3562-3582)
            if ops.has_set_cpumask() {
                c.call(caller, Ctx::Other, "set_cpumask", |c| ops.set_cpumask(c, t));
            }
        });
        if self.stop.is_some() {
            return;
        }
        // affine_move_task (core.c:2970-3100)
        let cpu = self.tasks[t].cpu;
        if self.allowed(t, cpu) {
            return;
        }
        match self.tasks[t].state {
            TaskState::Running(x) => self.migrate_running(ops, x, t, dest),
            TaskState::Bpf | TaskState::Queued(_) => self.move_queued(ops, caller, t, dest),
            // asleep: its next wake-up picks an allowed CPU
            _ => {}
        }
    }

    /// setpriority(t, nice): the weight `weight` (sched_prio_to_weight,
    /// scaled so nice 0 is 100) through set_load_weight -> reweight_task
    /// (core.c:1553), inside the same sched_change guard.
    pub(super) fn set_task_weight(
        &mut self,
        ops: &mut dyn Ops,
        caller: usize,
        t: TaskId,
        weight: u32,
    ) {
        if t >= self.tasks.len()
            || matches!(self.tasks[t].state, TaskState::New | TaskState::Exited)
        {
            return; // ESRCH
        }
        self.this_cpu = caller;
        let prio = super::lavd::static_prio(weight);
        if self.is_rt(t) {
            // an RT task's nice is kept for when it returns to SCHED_OTHER
            self.tasks[t].ts.static_prio = prio;
            return;
        }
        let flags = abi::DEQUEUE_SAVE | abi::DEQUEUE_NOCLOCK;
        self.change(ops, caller, t, flags, |c, ops| {
            let ts = &mut c.tasks[t].ts;
            ts.static_prio = prio;
            ts.normal_prio = prio;
            ts.prio = prio;
            // reweight_task_scx (ext.c:4150-4174)
            ts.scx.weight = weight;
            if ops.has_set_weight() {
                c.call(caller, Ctx::Other, "set_weight", |c| {
                    ops.set_weight(c, t, weight)
                });
            }
        });
    }

    fn write_mask(&mut self, t: TaskId, mask: CpuMask, weight: i32) {
        // set_cpus_allowed_common (core.c:2783-2800)
        let ts = &mut self.tasks[t].ts;
        ts.cpus_mask = mask;
        ts.cpus_ptr = &ts.cpus_mask;
        ts.nr_cpus_allowed = weight;
    }

    /// The sched_change guard around `f` (sched_change_begin / _end,
    /// core.c:11255-11340) for a sched_ext task in any state.
    pub(super) fn change(
        &mut self,
        ops: &mut dyn Ops,
        caller: usize,
        t: TaskId,
        flags: u64,
        f: impl FnOnce(&mut Core, &mut dyn Ops),
    ) {
        let deq = flags | abi::SCX_DEQ_SCHED_CHANGE;
        // sched_change_end enqueues with the same flags: DEQUEUE_SAVE is
        // ENQUEUE_RESTORE, DEQUEUE_MOVE ENQUEUE_MOVE, NOCLOCK both
        let enq = flags & (abi::DEQUEUE_SAVE | abi::DEQUEUE_MOVE | abi::DEQUEUE_NOCLOCK);
        match self.tasks[t].state {
            TaskState::Running(x) => {
                self.settle(x);
                self.charge_slice(x, t);
                // dequeue_task_scx of the current task (ext.c:2211-2217):
                // not in custody (it runs); stopping(false), quiescent
                self.tasks[t].ts.scx.flags &= !abi::SCX_TASK_QUEUED;
                self.call(x, Ctx::Other, "stopping", |c| ops.stopping(c, t, false));
                self.call(x, Ctx::Other, "quiescent", |c| ops.quiescent(c, t, deq));
                f(self, ops);
                // enqueue_task_scx with ENQUEUE_RESTORE of the current task
                // (ext.c:2073-2079, 1916-1917): runnable, then straight back
                // to its local DSQ; set_next_task_scx: running (3041-3042)
                self.tasks[t].ts.scx.flags |= abi::SCX_TASK_QUEUED;
                self.call(x, Ctx::Other, "runnable", |c| ops.runnable(c, t, enq));
                self.call(x, Ctx::Other, "running", |c| ops.running(c, t));
            }
            TaskState::Bpf | TaskState::Queued(_) => {
                self.dequeue_queued(ops, caller, t, deq, true);
                f(self, ops);
                let at = self.tasks[t].runnable_at;
                // ops.enqueue on its own rq, whose local DSQ it may no
                // longer be allowed on until affine_move_task moves it
                self.restoring = Some(t);
                self.ddsp = None;
                self.enqueue_task(ops, t, caller, enq);
                self.restoring = None;
                self.run_pending_dequeues(ops);
                // a property change does not reset runnable_at (ext.c:2113-2114)
                self.tasks[t].runnable_at = at;
            }
            // not queued: only the change (set_cpus_allowed_scx /
            // reweight_task_scx still run)
            _ => f(self, ops),
        }
    }

    /// dequeue_task_scx of a queued task that is not running: ops.dequeue
    /// if in custody, ops.quiescent unless `quiescent` is false (a
    /// migration: task_on_rq_migrating, ext.c:2216), then out of its DSQ.
    fn dequeue_queued(
        &mut self,
        ops: &mut dyn Ops,
        caller: usize,
        t: TaskId,
        deq: u64,
        quiescent: bool,
    ) {
        if std::mem::take(&mut self.tasks[t].custody) && ops.has_dequeue() {
            self.call(caller, Ctx::Other, "dequeue", |c| ops.dequeue(c, t, deq));
        }
        if quiescent {
            self.call(caller, Ctx::Other, "quiescent", |c| {
                ops.quiescent(c, t, deq)
            });
        }
        if let TaskState::Queued(q) = self.tasks[t].state {
            self.dsq_remove(t, q);
        }
        self.tasks[t].ts.scx.flags &= !abi::SCX_TASK_QUEUED;
        // dispatch_dequeue + ops_state NONE: an insert the scheduler made
        // for this queueing no longer applies
        self.tasks[t].qseq += 1;
        self.set_state(t, TaskState::Bpf);
    }

    /// cpumask_any_and_distribute(cpu_valid_mask, new_mask) on `caller`
    /// (core.c:3183): the first CPU of `mask` after the caller's last pick
    /// that is in cpu_active_mask (a user task's cpu_valid_mask,
    /// core.c:3130).
    fn distribute(&mut self, caller: usize, mask: &CpuMask, t: TaskId) -> usize {
        let n = self.cpus.len();
        let start = (self.pick_prev[caller] + 1) % n;
        let c = (0..n)
            .map(|i| (start + i) % n)
            .find(|&c| mask.test(c) && self.is_online(c))
            .unwrap_or(self.tasks[t].cpu);
        self.pick_prev[caller] = c;
        c
    }

    /// move_queued_task (core.c:2557-2575) of a queued sched_ext task.
    fn move_queued(&mut self, ops: &mut dyn Ops, caller: usize, t: TaskId, dest: usize) {
        let deq = abi::DEQUEUE_NOCLOCK | abi::SCX_DEQ_SCHED_CHANGE;
        self.dequeue_queued(ops, caller, t, deq, false);
        self.set_task_cpu(t, dest);
        // activate_task with MIGRATING: no ops.runnable (ext.c:2093)
        self.tasks[t].ts.scx.flags |= abi::SCX_TASK_QUEUED;
        self.ddsp = None;
        self.do_enqueue(ops, t, caller, abi::ENQUEUE_MIGRATED);
        self.run_pending_dequeues(ops);
        // wakeup_preempt on the destination: an idle CPU reschedules
        if self.stop.is_none() && self.cpus[dest].curr.is_none() {
            self.resched(dest);
        }
    }

    /// The migration stopper on `x` (migration_cpu_stop): t, running
    /// there, is preempted and moved to `dest`; x schedules again.
    fn migrate_running(&mut self, ops: &mut dyn Ops, x: usize, t: TaskId, dest: usize) {
        let core = self.cpu_core[x];
        self.settle(x);
        self.core_settle(core);
        self.pelt_update(x);
        self.charge_slice(x, t);
        self.set_curr(x, None);
        self.cpus[x].stopped = true;
        self.cpus[x].gen += 1;
        self.run_ends.clear(x);
        self.switch_out(x, t);
        self.note(Note::Stop {
            t,
            cpu: x,
            runnable: true,
        });
        self.set_state(t, TaskState::Bpf);
        self.stats.set_waiting(t, true, self.now);
        self.tasks[t].runnable_at = self.now;
        // put_prev_task_scx (ext.c:3145-3193): stopping(true); with slice
        // left it goes to the head of x's local DSQ (no callback), which
        // the move takes it from at once; with none, ops.enqueue(p, 0) on x
        self.putting_prev = Some(t);
        self.call(x, Ctx::Other, "stopping", |c| ops.stopping(c, t, true));
        if self.tasks[t].ts.scx.slice == 0 {
            self.restoring = Some(t);
            self.ddsp = None;
            self.do_enqueue(ops, t, x, 0);
            self.restoring = None;
            self.run_pending_dequeues(ops);
        }
        self.putting_prev = None;
        if self.stop.is_some() {
            return;
        }
        self.move_queued(ops, x, t, dest);
        self.core_rearm(core, usize::MAX);
        self.cpus[x].resched_at = None;
        self.resched(x);
    }

    /// An RT task whose new mask excludes where it waits or runs: taken
    /// off that CPU and woken again on an allowed one (rt.rs).
    fn rt_reaffine(&mut self, caller: usize, t: TaskId) {
        match self.tasks[t].state {
            TaskState::RtQueued(c) if !self.allowed(t, c) => {
                self.cpus[c].rt.retain(|&o| o != t);
                self.set_state(t, TaskState::Sleeping);
                self.rt_wake(t, caller);
            }
            TaskState::Running(x) if !self.allowed(t, x) => {
                let core = self.cpu_core[x];
                self.settle(x);
                self.core_settle(core);
                self.pelt_update(x);
                self.set_curr(x, None);
                self.cpus[x].stopped = true;
                self.cpus[x].gen += 1;
                self.run_ends.clear(x);
                self.switch_out(x, t);
                self.note(Note::Stop {
                    t,
                    cpu: x,
                    runnable: true,
                });
                self.set_state(t, TaskState::Sleeping);
                self.rt_wake(t, caller);
                self.tasks[t].woken_at = None;
                self.core_rearm(core, usize::MAX);
                self.cpus[x].resched_at = None;
                self.resched(x);
            }
            _ => {}
        }
    }
}
