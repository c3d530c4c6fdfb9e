//! A step that wakes several tasks wakes them one after the other, as the
//! kernel does: futex_wake -> wake_up_q and a wait queue's
//! __wake_up_common call try_to_wake_up once a task, in turn, and
//! schbench's xlist_wake_all makes one FUTEX_WAKE system call a worker.
//! The k-th wakee becomes runnable only when the waker's CPU has done the
//! work of the k-1 before it (their `wakeup_ns` and BPF callbacks), so no
//! CPU can pick it up earlier, from a shared DSQ or otherwise.
//!
//! The waker stays on its CPU through its batch: each wake-up after the
//! first follows a Run step of no work (the "gap") that ends when the CPU's
//! pending stall, the previous wake-up's cost, has passed; the workload's
//! next step waits for the batch's end. Between two system calls
//! ([`Effects::wakes_apart`]) the waker may be preempted, and goes on with
//! its batch when it runs again. Inside one kernel call it may not: a
//! resched of its CPU waits for the batch's end (`held_resched`).
//!
//! A workload hands its step and its wake-ups over together, so when it
//! asks to block after a batch it has already told its wakers it waits
//! (schbench's message thread). A wake-up that reaches it before the batch
//! ends is not lost, as a futex wait on a word that changed or a wait
//! queue's condition re-checked does not sleep: it goes on at the batch's
//! end instead of blocking (`woken_in_batch`).

use super::{Core, TaskId, TaskState};
use crate::core::ops::Ops;
use crate::task::{Effects, Step, Workload};

impl Core {
    /// Queues the wake-ups of `fx` from index `from` on the waker, which
    /// makes them in turn (`batch_step`).
    pub(super) fn start_batch(
        &mut self,
        fx: &Effects,
        from: usize,
        waker_cpu: usize,
        waker: TaskId,
    ) {
        debug_assert!(self.tasks[waker].batch.is_empty());
        debug_assert_eq!(self.cpus[waker_cpu].curr, Some(waker));
        let t = &mut self.tasks[waker];
        t.batch.extend(fx.wakes[from..].iter().copied());
        t.batch_apart = fx.wakes_apart;
    }

    /// The waker's part of its batch, from `advance`: the wake-up the gap
    /// led to, then the next gap. Returns true while the batch goes on
    /// (the task's CPU runs its gap, or it left the CPU); false once the
    /// batch is done and the workload's next step may run.
    pub(super) fn batch_step(&mut self, ops: &mut dyn Ops, x: usize, t: TaskId) -> bool {
        if self.stop.is_some() || self.tasks[t].state != TaskState::Running(x) {
            return true; // the first wake-up took it off x (affinity.rs)
        }
        if self.tasks[t].in_wake_gap {
            self.tasks[t].in_wake_gap = false;
            if let Some(wk) = self.tasks[t].batch.pop_front() {
                self.wake_one(ops, wk, x);
            }
            if self.stop.is_some() || self.tasks[t].state != TaskState::Running(x) {
                return true;
            }
        }
        if self.tasks[t].batch.is_empty() {
            if std::mem::take(&mut self.cpus[x].held_resched) {
                self.resched(x);
            }
            return false;
        }
        // the gap: the CPU is busy with the last wake-up's cost
        let task = &mut self.tasks[t];
        task.in_wake_gap = true;
        task.remaining = 0.0;
        task.in_run = true;
        let c = &mut self.cpus[x];
        c.seg_start = c.seg_start.max(self.now) + c.pending_stall as super::Ns;
        c.pending_stall = 0.0;
        self.arm_run_end(x);
        true
    }

    /// A wake-up of `w`, which is not asleep: kept if it will block or
    /// sleep at the end of its batch.
    pub(super) fn note_wake_in_batch(&mut self, w: TaskId) {
        let now = self.now;
        let t = &mut self.tasks[w];
        if !t.batch.is_empty() && matches!(t.deferred, Some(Step::Block | Step::Sleep(_))) {
            t.woken_in_batch.get_or_insert(now);
        }
    }

    /// At the batch's end: a block or sleep a wake-up has already ended is
    /// not taken; the task's own code resumes now (`on_run`, as after a
    /// wait), and the workload gives its next step.
    pub(super) fn end_batch(&mut self, wl: &mut dyn Workload, t: TaskId) {
        if let Some(at) = self.tasks[t].woken_in_batch.take() {
            if matches!(self.tasks[t].deferred, Some(Step::Block | Step::Sleep(_))) {
                self.tasks[t].deferred = None;
                wl.on_run(t, at, self.now);
            }
        }
    }

    /// A resched of `x` while its task is inside a batch it may not be
    /// preempted in: held until the batch's end.
    pub(super) fn hold_resched(&mut self, x: usize) -> bool {
        let Some(t) = self.cpus[x].curr else {
            return false;
        };
        let task = &self.tasks[t];
        if task.batch.is_empty() || task.batch_apart {
            return false;
        }
        self.cpus[x].held_resched = true;
        true
    }
}
