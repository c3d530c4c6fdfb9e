//! SCX_ENQ_IMMED (Linux 7.2, kernel/sched/ext/ext.c): a task inserted into
//! a local DSQ with SCX_ENQ_IMMED must run on that CPU at once; if it
//! cannot, the core takes it back out of the local DSQ and gives it to
//! ops.enqueue again (SCX_ENQ_REENQ). Used by scx_cosmos 1.1.7
//! (main.bpf.c:1279-1282, 1475). The rules, each from the function it
//! ports:
//!
//! - `dsq_inc_nr` (ext.c:1382-1417): an IMMED insert into a local DSQ marks
//!   the task (SCX_TASK_IMMED, here `Task::immed`); inserting a marked task
//!   into a local DSQ that now holds more than it, or whose CPU is not open
//!   (`rq_is_open`), schedules a re-enqueue of that local DSQ.
//! - `rq_is_open` (ext.c:419-466): the CPU is open if its next class is
//!   below ext (it is idle and no SCX task has been woken onto it since:
//!   `Cpu::next_ext` false), or it is in balance (dispatching:
//!   SCX_RQ_IN_BALANCE), or the insert carries SCX_ENQ_PREEMPT. The sim has
//!   no class above ext, so the "higher class waking" case never occurs.
//! - `balance_one`'s has_tasks tail (ext.c:3008-3019): a local DSQ with more
//!   than one task and an IMMED one schedules a re-enqueue.
//! - `reenq_local` / `local_task_should_reenq` (ext.c:4281-4340): with the
//!   CPU's openness taken once, an IMMED task is kept only if it is the
//!   first task of the local DSQ and the CPU is open; every other IMMED task
//!   leaves the DSQ and goes through `do_enqueue_task(p, SCX_ENQ_REENQ)`,
//!   which clears the mark (ext.c:1920-1925). Non-IMMED tasks stay.
//! - `process_deferred_reenq_locals` (ext.c:4372-4421): more than
//!   SCX_REENQ_LOCAL_MAX_REPEAT (256) rounds on one CPU in one pass is a
//!   scheduler error.
//! - `put_prev_task_scx` (ext.c:3150-3167): a preempted IMMED task with
//!   slice left is re-enqueued, not put back at the head (run.rs).
//!
//! When the re-enqueue runs: the kernel runs the deferred work from the
//! wake-up that scheduled it (task_woken_scx), from the balance callback
//! after the pick (balance_one -> deferred_bal_cb_workfn), else from an
//! irq_work on the CPU. The sim runs it at the end of the wake-up, at the
//! end of schedule(), and after every other event: the irq_work's delay is
//! not modelled (it is taken as immediate).

use super::*;

/// types.h: SCX_REENQ_LOCAL_MAX_REPEAT
const REENQ_LOCAL_MAX_REPEAT: u32 = 256;

impl Core {
    /// rq_is_open (ext.c:419-466) for `cpu`, with the insert's flags.
    pub(super) fn rq_is_open(&self, cpu: usize, enq_flags: u64) -> bool {
        !self.cpus[cpu].next_ext
            || self.in_balance == Some(cpu)
            || enq_flags & abi::SCX_ENQ_PREEMPT != 0
    }

    /// dsq_inc_nr's IMMED part (ext.c:1395-1417): `t` was just inserted
    /// into `cpu`'s local DSQ with `flags`.
    pub(super) fn immed_local_insert(&mut self, t: TaskId, cpu: usize, flags: u64) {
        if flags & abi::SCX_ENQ_IMMED != 0 {
            self.tasks[t].immed = true;
        }
        if self.tasks[t].immed && (self.cpus[cpu].local.len() > 1 || !self.rq_is_open(cpu, flags)) {
            self.reenq.schedule(cpu);
        }
    }

    /// balance_one's has_tasks tail (ext.c:3008-3019).
    pub(super) fn immed_after_balance(&mut self, cpu: usize) {
        let local = &self.cpus[cpu].local;
        if local.len() > 1 && local.iter().any(|t| self.tasks[t].immed) {
            self.reenq.schedule(cpu);
        }
    }

    /// reenq_local (ext.c:4300-4366) with local_task_should_reenq
    /// (ext.c:4281-4298) for the IMMED reason; returns how many tasks went
    /// back through ops.enqueue.
    fn reenq_local(&mut self, ops: &mut dyn Ops, cpu: usize) -> u32 {
        let open = self.rq_is_open(cpu, 0);
        let mut back = Vec::new();
        for (i, t) in self.cpus[cpu].local.order().into_iter().enumerate() {
            if self.tasks[t].immed && (i > 0 || !open) {
                back.push(t);
            }
        }
        for &t in &back {
            self.cpus[cpu].local.remove(t);
            self.set_state(t, TaskState::Bpf);
            self.stats.reenq_immed += 1;
        }
        for &t in &back {
            if self.stop.is_some() {
                break;
            }
            self.ddsp = None;
            self.do_enqueue(ops, t, cpu, abi::SCX_ENQ_REENQ);
        }
        back.len() as u32
    }

    /// run_deferred's local re-enqueues (process_deferred_reenq_locals,
    /// ext.c:4372-4421) for every CPU that has one pending, lowest CPU
    /// first. Called after every event: with none pending it returns at
    /// once, whatever the machine's size.
    // the check inline, the pass out of line: the event loop calls this
    // after every event, and most have nothing deferred
    #[inline]
    pub(super) fn run_deferred(&mut self, ops: &mut dyn Ops) {
        if self.deferring || self.reenq.is_empty() {
            return; // a pass under way picks up what this call would
        }
        self.deferred_pass(ops);
    }

    #[inline(never)]
    fn deferred_pass(&mut self, ops: &mut dyn Ops) {
        self.deferring = true;
        while self.stop.is_none() {
            let Some(c) = self.reenq.take_lowest() else {
                break;
            };
            let rounds = self.reenq.count_round(c);
            if rounds > REENQ_LOCAL_MAX_REPEAT {
                self.eject(format!(
                    "SCX_ENQ_REENQ on SCX_DSQ_LOCAL repeated {rounds} times"
                ));
                break;
            }
            self.reenq_local(ops, c);
        }
        self.reenq.end_pass();
        self.deferring = false;
    }
}

/// The CPUs with a local re-enqueue scheduled, as a bitmap (the lowest is
/// found in a word scan, no allocation), and the rounds each ran in the
/// current run_deferred pass.
pub(super) struct Pending {
    bits: Vec<u64>,
    count: usize,
    rounds: Vec<u32>,
    /// The CPUs whose rounds are not 0.
    counted: Vec<usize>,
}

impl Pending {
    pub(super) fn new(ncpus: usize) -> Pending {
        Pending {
            bits: vec![0; ncpus.div_ceil(64).max(1)],
            count: 0,
            rounds: vec![0; ncpus],
            counted: Vec::new(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub(super) fn schedule(&mut self, cpu: usize) {
        let (w, b) = (cpu / 64, 1u64 << (cpu % 64));
        if self.bits[w] & b == 0 {
            self.bits[w] |= b;
            self.count += 1;
        }
    }

    /// The lowest CPU with one scheduled, which it no longer has.
    fn take_lowest(&mut self) -> Option<usize> {
        if self.count == 0 {
            return None;
        }
        let w = self.bits.iter().position(|&x| x != 0)?;
        let b = self.bits[w].trailing_zeros() as usize;
        self.bits[w] &= !(1u64 << b);
        self.count -= 1;
        Some(w * 64 + b)
    }

    /// One more round on `cpu` in this pass; the rounds so far.
    fn count_round(&mut self, cpu: usize) -> u32 {
        if self.rounds[cpu] == 0 {
            self.counted.push(cpu);
        }
        self.rounds[cpu] += 1;
        self.rounds[cpu]
    }

    fn end_pass(&mut self) {
        for c in self.counted.drain(..) {
            self.rounds[c] = 0;
        }
    }
}
