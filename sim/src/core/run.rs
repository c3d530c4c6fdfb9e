//! The event loop, schedule() on a CPU (ext.c balance_one, pick_task_scx,
//! put_prev_task_scx, set_next_task_scx), task progress, ticks, and the
//! invariants and watchdog checked during every run.

use super::governor::{predicted_idle_ns, IDLE_HISTORY};
use super::*;

/// The dispatch rounds of one balance_one before the CPU kicks itself
/// (types.h:19).
const SCX_DSP_MAX_LOOPS: u32 = 32;

/// `x.ceil() as Ns` without a libm call (the baseline x86-64 target has no
/// rounding instruction): the same value for every f64, NaN and negatives
/// (0) and values past Ns::MAX (saturated) included.
fn ceil_ns(x: f64) -> Ns {
    // in [0, 2^63), every step's duration: the signed conversions give the
    // same integer and the same f64 in one instruction each, where the
    // unsigned ones take a dozen (no unsigned cvt before AVX-512)
    if (0.0..I64_END).contains(&x) {
        // SAFETY: x is in [0, 2^63), so its truncation fits an i64 (the
        // checked cast would test the range again)
        let i: i64 = unsafe { x.to_int_unchecked() };
        return if (i as f64) < x { i as Ns + 1 } else { i as Ns };
    }
    let i = x as Ns;
    if (i as f64) < x && i < Ns::MAX {
        i + 1
    } else {
        i
    }
}

/// 2^63: the f64s below it (and not below 0) truncate into an i64.
const I64_END: f64 = 9_223_372_036_854_775_808.0;

/// `x as Ns`, by the signed conversion where that gives the same value (as
/// `ceil_ns`).
#[inline(always)]
fn trunc_ns(x: f64) -> Ns {
    if (0.0..I64_END).contains(&x) {
        // SAFETY: as in ceil_ns
        unsafe { x.to_int_unchecked::<i64>() as Ns }
    } else {
        trunc_ns_slow(x)
    }
}

/// Out of line, so that the compiler keeps the branch above (it would
/// merge both arms into the dozen instructions of the unsigned cast).
#[cold]
#[inline(never)]
fn trunc_ns_slow(x: f64) -> Ns {
    x as Ns
}

/// `x as f64`, by the signed conversion below 2^63 (the same rounding).
#[inline(always)]
fn ns_f64(x: Ns) -> f64 {
    if (x as i64) >= 0 {
        x as i64 as f64
    } else {
        ns_f64_slow(x)
    }
}

/// Out of line, as `trunc_ns_slow`.
#[cold]
#[inline(never)]
fn ns_f64_slow(x: Ns) -> f64 {
    x as f64
}

/// A CPU's speed with `k` busy threads on its core (at least 1):
/// [capacity x the SMT share at k, that / slowdown] (Core::smt_rate).
pub(super) fn cpu_speed(
    cap_frac: f64,
    smt_throughput: &[f64],
    k: usize,
    slowdown: f64,
) -> [f64; 2] {
    let rate = cap_frac * smt_throughput.get(k - 1).copied().unwrap_or(1.0);
    [rate, slowed(rate, slowdown)]
}

/// `rate` / `slowdown`, the division skipped at 1.0, where it is exact.
#[inline(always)]
fn slowed(rate: f64, slowdown: f64) -> f64 {
    if slowdown != 1.0 {
        rate / slowdown
    } else {
        rate
    }
}

impl Core {
    // ---------------------------------------------------------------
    // Progress of running tasks
    // ---------------------------------------------------------------

    /// Sets the task `x` runs (rq->curr), keeping the busy counts that
    /// rate_of reads up to date.
    pub(super) fn set_curr(&mut self, x: usize, v: Option<TaskId>) {
        let was = self.cpus[x].curr.is_some();
        self.cpus[x].curr = v;
        if was != v.is_some() {
            if v.is_some() {
                self.nr_busy += 1;
            } else {
                self.nr_busy = self.nr_busy.saturating_sub(1);
            }
            self.recount_core(self.cpu_core[x]);
        }
    }

    /// The core's online threads that run a task, and its CPUs' speed at
    /// that count (smt_rate).
    pub(super) fn recount_core(&mut self, core: usize) {
        let cpus = &self.cpus;
        let busy = self.core_cpus[core]
            .iter()
            .filter(|&&c| cpus[c].curr.is_some())
            .count();
        // the speed depends on the count from 1 on only (a CPU that runs
        // a task on an otherwise idle core, or none, runs at 1): unchanged
        // when the count went between 0 and 1, as on most switches of a
        // machine with idle cores
        let (was, k) = (self.core_busy[core].max(1), busy.max(1));
        self.core_busy[core] = busy;
        if was == k {
            return;
        }
        let cpus = &self.core_all_cpus[self.core_all_at[core]..self.core_all_at[core + 1]];
        for &c in cpus {
            self.smt_rate[c] = cpu_speed(
                self.cap_frac[c],
                &self.machine.smt.throughput,
                k,
                self.cfg.slowdown,
            );
        }
    }

    /// Speed of the task running on `cpu`: capacity x SMT share x the
    /// slowdown from sharing data across LLCs; on one host thread
    /// (`Config::one_host_thread`), capacity / the number of busy CPUs.
    #[inline(always)]
    fn rate_of(&self, cpu: usize) -> f64 {
        let Some(t) = self.cpus[cpu].curr else {
            return 1.0;
        };
        if self.cfg.one_host_thread {
            return self.cap_frac[cpu] / self.nr_busy.max(1) as f64 / self.cfg.slowdown;
        }
        let [mut rate, plain] = self.smt_rate[cpu];
        // track_occupancy is set at spawn when some task shares lines
        // (Core::spawn): without one, the task's spec (a cache line of its
        // own, past the fields a step touches) is not read
        if !self.stats.track_occupancy {
            return plain;
        }
        let spec = &self.tasks[t].spec;
        if spec.shared_lines_per_us > 0.0 {
            let away = self.stats.proc_away(spec.tgid, self.cache.llc_of(cpu));
            rate /= 1.0 + self.cache.sharing_slowdown(spec.shared_lines_per_us, away);
            return slowed(rate, self.cfg.slowdown);
        }
        plain
    }

    /// Brings the running task's remaining work up to now. (Inline: every
    /// Run step's end settles, and the call's frame was a fifth of it.)
    #[inline(always)]
    pub(super) fn settle(&mut self, cpu: usize) {
        let Some(t) = self.cpus[cpu].curr else { return };
        let c = &mut self.cpus[cpu];
        if self.now > c.seg_start {
            let done = ns_f64(self.now - c.seg_start) * c.rate;
            self.tasks[t].remaining = (self.tasks[t].remaining - done).max(0.0);
            c.seg_start = self.now;
        }
    }

    pub(super) fn arm_run_end(&mut self, cpu: usize) {
        let Some(t) = self.cpus[cpu].curr else { return };
        if !self.tasks[t].in_run {
            return;
        }
        let rate = self.rate_of(cpu);
        let c = &mut self.cpus[cpu];
        let end = (c.seg_start + ceil_ns(self.tasks[t].remaining / rate)).max(self.now);
        // re-timing at an unchanged speed (a sibling's switch that left this
        // core's busy count as it was) keeps the armed end: settle's float
        // rounding may move it by a nanosecond, not more
        if let Some(armed) = self.run_ends.armed(cpu) {
            if c.rate == rate && armed.abs_diff(end) <= 1 {
                return;
            }
        }
        c.rate = rate;
        c.gen += 1;
        let g = c.gen;
        self.seq += 1;
        self.run_ends.set(cpu, (end, self.seq), g);
    }

    /// Before a CPU of `core` starts or stops running: settle its siblings
    /// at their current speed.
    pub(super) fn core_settle(&mut self, core: usize) {
        if self.cfg.one_host_thread {
            // every busy CPU's speed changes with the number of busy CPUs
            for c in 0..self.cpus.len() {
                self.settle(c);
            }
            return;
        }
        for i in 0..self.core_cpus[core].len() {
            let c = self.core_cpus[core][i];
            self.settle(c);
        }
    }

    /// After: re-time their ends at the new speed.
    pub(super) fn core_rearm(&mut self, core: usize, except: usize) {
        if self.cfg.one_host_thread {
            for c in 0..self.cpus.len() {
                if c != except {
                    self.arm_run_end(c);
                }
            }
            return;
        }
        for i in 0..self.core_cpus[core].len() {
            let c = self.core_cpus[core][i];
            if c != except {
                self.arm_run_end(c);
            }
        }
    }

    // ---------------------------------------------------------------
    // Idle state (idle.c: update_builtin_idle, checklist 32-34)
    // ---------------------------------------------------------------

    pub(super) fn set_idle_bits(&mut self, cpu: usize, idle: bool) {
        self.idle_mask.set(cpu, idle);
        let core = self.cpu_core[cpu];
        if idle {
            if self.core_cpus[core].iter().all(|&c| self.idle_mask.test(c)) {
                for i in 0..self.core_cpus[core].len() {
                    let c = self.core_cpus[core][i];
                    self.smt_mask.set(c, true);
                }
            }
        } else {
            for i in 0..self.core_cpus[core].len() {
                let c = self.core_cpus[core][i];
                self.smt_mask.set(c, false);
            }
        }
    }

    /// Clears a CPU's idle bit and its core's SMT bits (a claim).
    pub fn claim_idle(&mut self, cpu: usize) -> bool {
        let core = self.cpu_core[cpu];
        for i in 0..self.core_cpus[core].len() {
            let c = self.core_cpus[core][i];
            self.smt_mask.set(c, false);
        }
        let was = self.idle_mask.test(cpu);
        self.idle_mask.set(cpu, false);
        was
    }

    // ---------------------------------------------------------------
    // schedule()
    // ---------------------------------------------------------------

    /// The CPU goes through the scheduler. `blocked`: its task just left
    /// the runqueue (sleep or exit) and is `prev` for ops.dispatch.
    fn schedule(
        &mut self,
        ops: &mut dyn Ops,
        wl: &mut dyn Workload,
        x: usize,
        blocked: Option<TaskId>,
    ) {
        // the migration stopper left x without a task (affinity.rs): x was
        // busy, as after its task blocked
        let stopped = std::mem::take(&mut self.cpus[x].stopped);
        // the RT class picks before ext (rt.rs)
        if self.rt_schedule(ops, wl, x, blocked, stopped) {
            return;
        }
        let was_idle = self.cpus[x].curr.is_none() && blocked.is_none() && !stopped;
        // ops.dispatch's prev is an SCX task or none (balance_one)
        let blocked = blocked.filter(|&b| !self.is_rt(b));
        let prev = self.cpus[x].curr;
        if let Some(p) = prev {
            self.settle(x);
            self.charge_slice(x, p);
        }
        let prev_queued =
            prev.is_some_and(|p| self.tasks[p].ts.scx.flags & abi::SCX_TASK_QUEUED != 0);
        let prev_for_dispatch = prev.or(blocked);
        // until the pick, prev (running or blocking) is still rq->curr
        let saved_prev = self.sched_prev;
        self.sched_prev = prev_for_dispatch.map(|p| (x, p));

        // balance_one (ext.c:2841-3003); SCX_RQ_IN_BALANCE meanwhile
        self.in_balance = Some(x);
        // a CPU an RT task had taken is sched_ext's again (rt.rs)
        self.rt_acquire(ops, x);
        let mut keep = prev_queued && prev.is_some_and(|p| self.tasks[p].ts.scx.slice > 0);
        let mut have = keep || !self.cpus[x].local.is_empty() || self.consume_global(x);
        // the dispatch rounds' cost, when the CPU kicks itself after
        // SCX_DSP_MAX_LOOPS of them
        let mut self_kick = None;
        if !have && self.stop.is_none() {
            let stall0 = self.cpus[x].pending_stall;
            let mut loops = SCX_DSP_MAX_LOOPS;
            // scx_dispatch_sched's loop (ext.c:2893-2929)
            loop {
                self.dispatch_buf.clear();
                self.dsp_nr_tasks = 0;
                let defined = self.call(x, Ctx::Dispatch, "dispatch", |c| {
                    ops.dispatch(c, x, prev_for_dispatch)
                });
                self.flush_dispatch(x);
                // ops.dequeue of the tasks that left custody (affinity.rs)
                self.run_pending_dequeues(ops);
                if !defined {
                    break;
                }
                if prev_queued && prev.is_some_and(|p| self.tasks[p].ts.scx.slice > 0) {
                    keep = true;
                    have = true;
                    break;
                }
                if !self.cpus[x].local.is_empty() || self.consume_global(x) {
                    have = true;
                    break;
                }
                if self.stop.is_some() {
                    break;
                }
                // ext.c:2916-2927 (checklist 14): after SCX_DSP_MAX_LOOPS
                // rounds the CPU kicks itself and ends this pass
                loops -= 1;
                if loops == 0 {
                    self_kick = Some((self.cpus[x].pending_stall - stall0).max(0.0));
                    break;
                }
                // ext.c:2929: another round while this one inserted or
                // moved any task, applied or not (dspc->nr_tasks)
                if self.dsp_nr_tasks == 0 {
                    break;
                }
            }
            // checklist 16: nothing found, no ENQ_LAST: keep prev, refilled
            if !have && prev_queued && self.ops_flags & abi::SCX_OPS_ENQ_LAST == 0 {
                keep = true;
            }
        }
        self.in_balance = None;
        if self.stop.is_some() {
            self.sched_prev = saved_prev;
            return;
        }
        if keep || have {
            // has_tasks (ext.c:3008-3019)
            self.immed_after_balance(x);
        }

        if keep {
            let p = prev.expect("keep implies prev");
            if self.tasks[p].ts.scx.slice == 0 {
                self.tasks[p].ts.scx.slice = abi::SCX_SLICE_DFL;
            }
            // it goes on running; any stall charged here delays it
            self.cpus[x].seg_start =
                self.cpus[x].seg_start.max(self.now) + self.cpus[x].pending_stall as Ns;
            self.cpus[x].pending_stall = 0.0;
            self.arm_run_end(x);
            self.sched_prev = saved_prev;
            if let Some(spent) = self_kick {
                self.dispatch_self_kick(x, spent, false);
            }
            // the balance callback: run_deferred (ext.c:2805-2816, 1138-1141)
            self.run_deferred(ops);
            return;
        }

        let next = self.cpus[x].local.pop_first();
        let core = self.cpu_core[x];
        self.core_settle(core);

        // put_prev_task_scx (ext.c:3145-3193, checklist 17-19)
        if let Some(p) = prev {
            self.pelt_update(x);
            self.set_curr(x, None);
            self.switch_out(x, p);
            self.note(Note::Stop {
                t: p,
                cpu: x,
                runnable: prev_queued,
            });
            if prev_queued {
                self.set_state(p, TaskState::Bpf);
                self.stats.set_waiting(p, true, self.now);
                self.tasks[p].runnable_at = self.now;
                self.putting_prev = Some(p);
                self.call(x, Ctx::Other, "stopping", |c| ops.stopping(c, p, true));
                self.ddsp = None;
                if self.tasks[p].ts.scx.slice > 0 {
                    // ext.c:3150-3167: an IMMED task is re-enqueued
                    if self.tasks[p].immed {
                        self.do_enqueue(ops, p, x, abi::SCX_ENQ_REENQ);
                    } else {
                        self.enqueue_on(p, DsqRef::Local(x), abi::SCX_ENQ_HEAD, None);
                    }
                } else if next.is_none() && self.ops_flags & abi::SCX_OPS_ENQ_LAST != 0 {
                    self.do_enqueue(ops, p, x, abi::SCX_ENQ_LAST);
                } else {
                    self.do_enqueue(ops, p, x, 0);
                }
                self.putting_prev = None;
            }
        }

        // the pick: rq->curr and rq->next_class become next's (core.c:7196)
        self.sched_prev = saved_prev;
        self.cpus[x].next_ext = next.is_some();
        match next {
            Some(n) => {
                if was_idle {
                    self.leave_idle(ops, x);
                }
                self.switch_in(ops, wl, x, n);
            }
            None => {
                if !was_idle {
                    self.enter_idle(ops, x, true);
                } else {
                    // a kicked idle CPU found nothing: back to idle, no notify
                    self.set_idle_bits(x, true);
                }
            }
        }
        self.core_rearm(core, usize::MAX);
        if let Some(spent) = self_kick {
            self.dispatch_self_kick(x, spent, next.is_none());
        }
        // the balance callback: run_deferred (ext.c:2805-2816, 1138-1141)
        self.run_deferred(ops);
    }

    /// scx_kick_cpu(sch, cpu, 0) of balance_one's own CPU after
    /// SCX_DSP_MAX_LOOPS dispatch rounds (ext.c:2916-2927): the kick is
    /// irq work (scx_kick_cpu, 9646-9690; kick_cpus_irq_workfn, 8658), so
    /// the CPU finishes this scheduling pass and then reschedules itself,
    /// with no IPI. It does so once the rounds it ran are over: `spent`,
    /// their callback costs (bpf_callback_ns and helper calls each, as
    /// charged by `call`), and never at the same instant (1 ns, the
    /// clock's step, when they cost nothing), so that a scheduler that
    /// keeps inserting ineligible tasks lets simulated time, its tick and
    /// the watchdog run, as the kernel's break out of the loop does. An
    /// idle CPU spends that time before the kicked pass, not again at its
    /// next switch.
    fn dispatch_self_kick(&mut self, x: usize, spent: f64, idle: bool) {
        if idle {
            let c = &mut self.cpus[x];
            c.pending_stall = (c.pending_stall - spent).max(0.0);
        }
        let at = self.now + (spent.ceil() as Ns).max(1);
        if self.cpus[x].resched_at.is_some_and(|r| r <= at) {
            return;
        }
        self.cpus[x].resched_at = Some(at);
        self.push(at, Ev::Resched(x));
    }

    /// update_curr_scx: the time since the last charge comes off the
    /// slice and adds to se.sum_exec_runtime.
    pub(super) fn charge_slice(&mut self, x: usize, t: TaskId) {
        let used = self.now.saturating_sub(self.cpus[x].slice_ts);
        self.cpus[x].slice_ts = self.now;
        self.tasks[t].ts.se.sum_exec_runtime += used;
        let s = &mut self.tasks[t].ts.scx.slice;
        if *s != u64::MAX {
            *s = s.saturating_sub(used); // checklist 25, 26
        }
    }

    /// consume_global_dsq: the first task of this node's global DSQ that
    /// may run here.
    fn consume_global(&mut self, x: usize) -> bool {
        let node = self.cpu_node[x];
        let pick = self.global[node].iter().find(|&t| self.allowed(t, x));
        match pick {
            Some(t) => {
                self.global[node].remove(t);
                self.set_state(t, TaskState::Bpf);
                self.enqueue_on(t, DsqRef::Local(x), 0, None);
                true
            }
            None => false,
        }
    }

    /// flush_dispatch_buf (ext.c:2789-2803, checklist 20): inserts made in
    /// ops.dispatch, applied if the task is still held by the BPF scheduler
    /// from the same enqueue (qseq). Every one of them, applied or not,
    /// counts in the round's nr_tasks (2801).
    pub(super) fn flush_dispatch(&mut self, x: usize) {
        let buf = std::mem::take(&mut self.dispatch_buf);
        self.dsp_nr_tasks += buf.len();
        for d in buf {
            let t = d.task;
            if self.tasks[t].qseq != d.qseq
                || self.tasks[t].ts.scx.flags & abi::SCX_TASK_QUEUED == 0
            {
                continue;
            }
            // finish_dispatch (ext.c:2721-2787): only a task the BPF
            // scheduler holds (ops_state QUEUED) is claimed; one already in
            // a DSQ, running or asleep is silently skipped
            if self.tasks[t].state != TaskState::Bpf {
                continue;
            }
            self.apply_insert(d, x, false);
        }
    }

    pub(super) fn dsq_remove(&mut self, t: TaskId, q: DsqRef) -> bool {
        match q {
            DsqRef::Local(c) => self.cpus[c].local.remove(t),
            DsqRef::Global => self.global.iter_mut().any(|g| g.remove(t)),
            DsqRef::User(id) => self.user.remove(id, t),
        }
    }

    /// set_next_task_scx: the task starts running on x.
    pub(super) fn switch_in(
        &mut self,
        ops: &mut dyn Ops,
        wl: &mut dyn Workload,
        x: usize,
        t: TaskId,
    ) {
        if !self.allowed(t, x) {
            self.violation(format!(
                "task {} runs on CPU {x}, outside its affinity",
                self.task_name(t)
            ));
            return;
        }
        if let TaskState::Running(c) = self.tasks[t].state {
            self.violation(format!(
                "task {} picked on CPU {x} while running on CPU {c}",
                self.task_name(t)
            ));
            return;
        }
        self.set_state(t, TaskState::Running(x));
        self.set_task_cpu(t, x);
        self.note(Note::Run { t, cpu: x });
        let rt = self.is_rt(t);
        if !rt {
            self.stats.set_waiting(t, false, self.now);
        }
        self.pelt_update(x);
        self.set_curr(x, Some(t));
        self.cpus[x].slice_ts = self.now;
        self.cpus[x].trace_start = self.now;
        let woken_at = self.tasks[t].woken_at.take();
        if let Some(w) = woken_at.filter(|_| !rt) {
            self.stats.wake_latency(self.now - w);
        }
        let dist = self.tasks[t].last_ran.map(|l| self.cache.distance(l, x));
        if let Some(d) = dist.filter(|_| !rt) {
            self.stats.migration(d);
        }
        self.tasks[t].last_ran = Some(x);
        if !self.is_rt(t) {
            self.call(x, Ctx::Other, "running", |c| ops.running(c, t));
        }

        let mut stall = self.cpus[x].pending_stall + self.cost.ctx_switch_ns;
        self.cpus[x].pending_stall = 0.0;
        let ws = self.tasks[t].spec.working_set;
        let mut w = std::mem::take(&mut self.tasks[t].warmth);
        let refill = self.cache.switch_in(&mut w, ws, x);
        let mut refill_stall = 0.0;
        if !self.cfg.one_host_thread {
            refill_stall = refill * self.cfg.slowdown;
            stall += refill_stall;
            self.stats.refill(refill_stall);
        }
        self.tasks[t].warmth = w;
        // charged after the woken task's code resumes: its working set's
        // refill and all but the first line of its message
        let mut later = refill_stall;
        if let Some((from, bytes)) = self.tasks[t].message.take() {
            let [m, head] = self.cache.message_cost(bytes, from, x);
            if !self.cfg.one_host_thread {
                stall += m * self.cfg.slowdown;
                later += (m - head) * self.cfg.slowdown;
            }
        }
        // the woken task's own code resumes once the switch is done and it
        // has read the first line its waker wrote (schbench's gettimeofday
        // after fwait's cmpxchg on the futex word, wakeprobe.c's clock read
        // after its futex, before it touches the buffer; rt-app's clock
        // read): a wake-up latency probe's interval ends there, not at the
        // pick. The rest of the message and the refill of its working set
        // come later, in its own work.
        let resumed = self.now + (stall - later) as Ns;
        self.stats.stall_ns += stall;
        self.cpus[x].seg_start = self.now + stall as Ns;
        if let Some(w) = woken_at {
            wl.on_run(t, w, resumed);
        }
        if !self.cpus[x].tick_armed {
            self.cpus[x].tick_armed = true;
            let period = 1_000_000_000 / self.cfg.hz as u64;
            self.push((self.now / period + 1) * period, Ev::Tick(x));
        }
        if !self.tasks[t].in_run {
            // it was woken: it now runs its own code (the workload's next step)
            self.advance(ops, wl, x, t);
        }
    }

    pub(super) fn switch_out(&mut self, x: usize, t: TaskId) {
        let ran = self.now.saturating_sub(self.cpus[x].trace_start);
        self.stats
            .task_ran(self.tasks[t].spec.tgid, self.cache.llc_of(x), ran, self.now);
        if self.cfg.trace && ran > 0 {
            self.stats.trace.push((x, t, self.cpus[x].trace_start, ran));
        }
        let mut w = std::mem::take(&mut self.tasks[t].warmth);
        self.cache.switch_out(&mut w);
        self.tasks[t].warmth = w;
    }

    pub(super) fn leave_idle(&mut self, ops: &mut dyn Ops, x: usize) {
        let c = &mut self.cpus[x];
        if let Some(s) = c.idle_since.take() {
            c.idle_ns += self.now - s;
            c.last_idle_ns = self.now - s;
            // in menu's unit, us
            c.idle_hist_us[c.idle_hist_at as usize] = c.last_idle_ns / 1000;
            c.idle_hist_at = ((c.idle_hist_at as usize + 1) % IDLE_HISTORY) as u8;
        }
        self.cpus[x].busy_since = Some(self.now);
        self.stats.set_idle(x, false, self.now);
        // idle.c:788-790: ops.update_idle runs after the masks are updated
        self.set_idle_bits(x, false);
        self.call(x, Ctx::Other, "update_idle", |c| {
            ops.update_idle(c, x, false)
        });
    }

    fn enter_idle(&mut self, ops: &mut dyn Ops, x: usize, notify: bool) {
        if let Some(s) = self.cpus[x].busy_since.take() {
            self.cpus[x].busy_ns += self.now - s;
        }
        self.cpus[x].idle_since = Some(self.now);
        self.cpus[x].pending_stall = 0.0;
        self.cpus[x].gen += 1;
        self.run_ends.clear(x);
        // the deepest state whose target residency the predicted idle
        // period meets (governor.rs: menu's prediction)
        let predicted = predicted_idle_ns(&self.cpus[x].idle_hist_us, self.cpus[x].last_idle_ns);
        self.cpus[x].cstate = self
            .machine
            .idle_states
            .iter()
            .rposition(|s| s.residency_ns <= predicted)
            .unwrap_or(0);
        self.stats.set_idle(x, true, self.now);
        self.note(Note::Idle(x));
        self.set_idle_bits(x, true);
        if notify {
            self.call(x, Ctx::Other, "update_idle", |c| {
                ops.update_idle(c, x, true)
            });
        }
    }

    // ---------------------------------------------------------------
    // A task's own code: the workload's steps
    // ---------------------------------------------------------------

    /// Runs the workload's next steps for t on x until it computes, sleeps,
    /// blocks or exits.
    fn advance(&mut self, ops: &mut dyn Ops, wl: &mut dyn Workload, x: usize, t: TaskId) {
        loop {
            // inside a batch of wake-ups (wake_batch.rs)
            if !self.tasks[t].batch.is_empty() {
                if self.batch_step(ops, x, t) {
                    return;
                }
                self.end_batch(wl, t);
            }
            // a step taken before the stopper moved it off its last CPU,
            // or the step after a batch of wake-ups
            let step = match self.tasks[t].deferred.take() {
                Some(s) => s,
                None => {
                    // an emptied Effects from the pool (applying one may
                    // run another task's step: a stack of them)
                    let mut fx = self.fx_pool.pop().unwrap_or_default();
                    let s = wl.next(t, self.now, &mut fx);
                    if !fx.is_empty() {
                        self.apply_effects(ops, &fx, x, t);
                        fx.clear();
                    }
                    // (a step may mark wake-ups apart and make none)
                    fx.wakes_apart = false;
                    self.fx_pool.push(fx);
                    if !self.tasks[t].batch.is_empty() {
                        // the step after the batch waits for its end
                        self.tasks[t].deferred = Some(s);
                        continue;
                    }
                    s
                }
            };
            if self.stop.is_some() {
                return;
            }
            if self.tasks[t].state != TaskState::Running(x) {
                // its sched_setaffinity excluded x: the migration stopper
                // took it off x before the call returned (affinity.rs); it
                // takes this step when it next runs
                self.tasks[t].deferred = Some(step);
                return;
            }
            match step {
                Step::Run(0) => continue,
                Step::Run(w) => {
                    self.tasks[t].remaining = ns_f64(w);
                    self.tasks[t].in_run = true;
                    let c = &mut self.cpus[x];
                    c.seg_start = c.seg_start.max(self.now) + trunc_ns(c.pending_stall);
                    c.pending_stall = 0.0;
                    self.arm_run_end(x);
                    return;
                }
                Step::Sleep(ns) => {
                    self.arm_sleep(t, ns);
                    self.block(ops, wl, x, t, false);
                    return;
                }
                Step::Block => {
                    self.block(ops, wl, x, t, false);
                    return;
                }
                Step::Exit => {
                    self.block(ops, wl, x, t, true);
                    return;
                }
            }
        }
    }

    /// dequeue_task_scx for a sleep or exit: stopping(false), quiescent,
    /// then the CPU schedules.
    fn block(&mut self, ops: &mut dyn Ops, wl: &mut dyn Workload, x: usize, t: TaskId, exit: bool) {
        self.settle(x);
        self.tasks[t].in_run = false;
        // an RT task (rt.rs) leaves without sched_ext callbacks
        if !self.is_rt(t) {
            self.charge_slice(x, t);
            self.tasks[t].ts.scx.flags &= !abi::SCX_TASK_QUEUED;
            self.call(x, Ctx::Other, "stopping", |c| ops.stopping(c, t, false));
            self.call(x, Ctx::Other, "quiescent", |c| {
                ops.quiescent(c, t, abi::SCX_DEQ_SLEEP)
            });
        }
        self.set_state(t, TaskState::Sleeping);
        let core = self.cpu_core[x];
        self.core_settle(core);
        self.pelt_update(x);
        self.set_curr(x, None);
        self.switch_out(x, t);
        self.note(Note::Stop {
            t,
            cpu: x,
            runnable: false,
        });
        if exit {
            self.exit_task(ops, t);
        }
        self.cpus[x].resched_at = None;
        self.schedule(ops, wl, x, Some(t));
        self.core_rearm(core, usize::MAX);
    }

    pub(super) fn exit_task(&mut self, ops: &mut dyn Ops, t: TaskId) {
        let cpu = self.tasks[t].cpu;
        if !self.is_rt(t) {
            self.call(cpu, Ctx::Other, "exit_task", |c| ops.exit_task(c, t));
        }
        self.set_state(t, TaskState::Exited);
        if let Some(s) = self.signals.get_mut(&self.tasks[t].spec.tgid) {
            s.nr_threads -= 1;
        }
    }

    // ---------------------------------------------------------------
    // The event loop
    // ---------------------------------------------------------------

    /// Runs the workload under the scheduler until it finishes, the time
    /// limit passes, the scheduler is ejected or an invariant fails.
    pub fn run(
        &mut self,
        ops: &mut dyn Ops,
        wl: &mut dyn Workload,
        mut progress: impl FnMut(Ns),
    ) -> Stop {
        self.ops_flags = ops.flags();
        self.ops_name = ops.name().to_string();
        // validate_ops (ext.c:7284-7293), before ops.init: an error exit,
        // which ops.exit is told of (scx_root_disable, ext.c:6433-6434)
        if self.ops_flags & abi::SCX_OPS_ENQ_LAST != 0 && !ops.has_enqueue() {
            let why = "SCX_OPS_ENQ_LAST requires ops.enqueue() to be implemented";
            self.eject(why.into());
            self.call(0, Ctx::Other, "exit", |c| ops.exit(c, why));
            return Stop::Ejected(why.into());
        }
        if let Err(e) = self.call(0, Ctx::Other, "init", |c| ops.init(c)) {
            // scx_root_enable_workfn: scx_error("ops.init() failed (%d)"),
            // then the disable path, which calls ops.exit (ext.c:6433-6434)
            self.eject(format!("ops.init() failed ({e})"));
            let why = match &self.stop {
                Some(Stop::Ejected(m)) => m.clone(),
                _ => unreachable!("eject sets stop"),
            };
            self.call(0, Ctx::Other, "exit", |c| ops.exit(c, &why));
            return Stop::Ejected(why);
        }
        if self.check_hotplug_seq() {
            let why = match &self.stop {
                Some(Stop::Ejected(m)) => m.clone(),
                _ => unreachable!("eject sets stop"),
            };
            self.call(0, Ctx::Other, "exit", |c| ops.exit(c, &why));
            return Stop::Ejected(why);
        }
        // scx_cgroup_init (ext.c:7554): the root cgroup and those below it
        // that the tasks are in (cgroup.rs), after ops.init, before the tasks
        let specs = wl.tasks();
        match super::cgroup::Cgroups::from_specs(&specs) {
            Ok(c) => self.cgroups = c,
            Err(e) => return Stop::Invariant(format!("{e:#}")),
        }
        if let Err(e) = self
            .cgroups
            .check_events(&self.cfg.cgroup_events, specs.len())
        {
            return Stop::Invariant(format!("{e:#}"));
        }
        let (cg_init, _) = self.cgroup_ops_of(ops);
        if cg_init {
            if let Err(e) = self.call(0, Ctx::Other, "cgroup_init", |c| ops.cgroup_init(c)) {
                return Stop::Ejected(format!("ops.cgroup_init() failed ({e})"));
            }
        }
        // Every online CPU starts idle, in the idle masks (set since the
        // machine was built, before ops.init, as ext/idle.c
        // reset_idle_masks() runs right before it) but not through
        // ops.update_idle: ext/idle.c __scx_update_idle() notifies only a
        // CPU's transitions between a task and the idle task, and none while
        // the scheduler loads (bypass). Until 2026-11-28 the simulator
        // called update_idle(cpu, true) here for every online CPU, which a
        // scheduler on a real machine never gets.
        if let Err(e) = self.spawn(specs) {
            return Stop::Invariant(format!("{e:#}"));
        }
        self.push(self.cfg.sweep_ns, Ev::Sweep);
        self.queue_hotplug();
        self.queue_cgroup_events();
        // the instance a restart loaded (core/hotplug.rs), once there is one
        let mut fresh: Option<Box<dyn Ops>> = None;
        let mut next_progress = 0;
        while let Some((at, ev)) = self.next_event() {
            let ops: &mut dyn Ops = match fresh.as_mut() {
                Some(b) => b.as_mut(),
                None => &mut *ops,
            };
            if at > self.cfg.time_limit {
                self.now = self.cfg.time_limit;
                self.stop.get_or_insert(Stop::TimeLimit);
                break;
            }
            self.now = at;
            self.stats.events += 1;
            if at >= next_progress {
                progress(at);
                next_progress = at + 100_000_000;
            }
            self.ctx = Ctx::None;
            match ev {
                // most of a message-passing run's entries: here, not
                // through handle's dispatch and frame
                Ev::RunEnd(x, g) => {
                    self.run_end(ops, wl, x, g);
                    self.after_event(ops);
                }
                _ => self.handle(ops, wl, ev),
            }
            // deferred re-enqueues left by the event (irq_work, immed.rs)
            self.run_deferred(ops);
            if self.wants_restart() {
                // the loader loads the scheduler again (core/hotplug.rs)
                if let Some(n) = self.reload(ops) {
                    fresh = Some(n);
                }
            }
            if self.stop.is_some() {
                break;
            }
            if wl.finished() {
                self.stop = Some(Stop::Finished);
                break;
            }
        }
        // the invariants once more: a violation since the last sweep must
        // not go unseen (not after an ejection, which may stop the core
        // halfway through an operation)
        if !matches!(self.stop, Some(Stop::Ejected(_)) | Some(Stop::Invariant(_))) {
            if let Some(what) = self.find_violation() {
                self.stop = Some(Stop::Invariant(self.report(what)));
            }
        }
        let reason = match &self.stop {
            Some(Stop::Ejected(r)) => r.clone(),
            _ => String::new(),
        };
        let ops: &mut dyn Ops = match fresh.as_mut() {
            Some(b) => b.as_mut(),
            None => ops,
        };
        let (_, cg_exit) = self.cgroup_ops_of(ops);
        // scx_disable_workfn: scx_cgroup_exit (ext.c:6354), then ops.exit
        if cg_exit {
            self.call(0, Ctx::Other, "cgroup_exit", |c| ops.cgroup_exit(c));
        }
        self.call(0, Ctx::Other, "exit", |c| ops.exit(c, &reason));
        self.reloaded = fresh;
        self.finish_accounting();
        self.stop.clone().unwrap_or(Stop::Finished)
    }

    /// The earliest of the queue's head and the CPUs' run ends, in the
    /// order (time, then sequence of arming) that one queue would give.
    /// Inline: once a queue entry, and its (time, event) return through
    /// memory cost more than its comparisons.
    #[inline(always)]
    fn next_event(&mut self) -> Option<(Ns, Ev)> {
        let head = self.events.peek().map(|Reverse((at, seq, _))| (*at, *seq));
        match (head, self.run_ends.min()) {
            (Some(h), Some((cpu, k, g))) if k < h => {
                self.run_ends.take(cpu);
                Some((k.0, Ev::RunEnd(cpu, g)))
            }
            (None, Some((cpu, k, g))) => {
                self.run_ends.take(cpu);
                Some((k.0, Ev::RunEnd(cpu, g)))
            }
            _ => self.events.pop().map(|Reverse((at, _, ev))| (at, ev)),
        }
    }

    fn handle(&mut self, ops: &mut dyn Ops, wl: &mut dyn Workload, ev: Ev) {
        match ev {
            Ev::Resched(x) => {
                if self.cpus[x].resched_at != Some(self.now) {
                    return; // superseded by an earlier one
                }
                if !self.online[x] {
                    // an offline rq never calls ops.dispatch (ext.c:2881)
                    // and runs no task (core/hotplug.rs)
                    self.cpus[x].resched_at = None;
                    return;
                }
                self.cpus[x].resched_at = None;
                if self.hold_resched(x) {
                    return; // its task is inside a batch of wake-ups
                }
                self.this_cpu = x;
                self.schedule(ops, wl, x, None);
            }
            // the loop takes Run step ends itself (run); kept for completeness
            Ev::RunEnd(x, g) => self.run_end(ops, wl, x, g),
            Ev::Tick(x) => self.tick(ops, x),
            Ev::Wake(t, g) => {
                if self.tasks[t].timer_gen != g || self.tasks[t].state != TaskState::Sleeping {
                    return;
                }
                // the timer interrupt runs on the CPU the task slept on,
                // or where its timers migrated if that one went offline
                // (hrtimers_cpu_dying)
                let mut on = self.tasks[t].cpu;
                if !self.online[on] {
                    on = (0..self.cpus.len()).find(|&c| self.online[c]).unwrap_or(on);
                }
                self.this_cpu = on;
                self.wake_up(ops, t, on, abi::SCX_WAKE_TTWU);
            }
            Ev::Start(t) => {
                // forked by a running parent: from the CPU it is on (or last ran on)
                if let Some(p) = self.tasks[t].spec.parent {
                    if self.tasks[p].state != TaskState::New {
                        self.set_task_cpu(t, self.tasks[p].cpu);
                        self.cgroups.fork_into_parents(t, p);
                    }
                }
                self.start_task(ops, t)
            }
            Ev::BpfTimer(i, g) => {
                if self.timers.get(i).map(|t| t.0) != Some(g) {
                    return;
                }
                let cpu = self.timers[i].1;
                self.this_cpu = cpu;
                self.call(cpu, Ctx::Other, "timer", |c| ops.timer(c, i));
            }
            Ev::Sweep => {
                self.sweep();
                self.push(self.now + self.cfg.sweep_ns, Ev::Sweep);
            }
            Ev::Hotplug(x, online) => self.hotplug(ops, wl, x, online),
            Ev::Cgroup(i) => self.cgroup_event(ops, i),
        }
        self.after_event(ops);
    }

    /// After an event that was not superseded: any task a callback moved
    /// out of custody (affinity.rs). `handle` ends with it, and the loop's
    /// Run step end, which bypasses `handle`, too.
    #[inline(always)]
    fn after_event(&mut self, ops: &mut dyn Ops) {
        if self.stop.is_none() {
            self.run_pending_dequeues(ops);
        }
    }

    /// A Run step's end (if `g` still matches): the task's next steps.
    #[inline(always)]
    fn run_end(&mut self, ops: &mut dyn Ops, wl: &mut dyn Workload, x: usize, g: u64) {
        if self.cpus[x].gen != g {
            return;
        }
        let Some(t) = self.cpus[x].curr else { return };
        self.settle(x);
        if self.tasks[t].remaining > 0.5 {
            self.arm_run_end(x);
            return;
        }
        self.tasks[t].in_run = false;
        self.this_cpu = x;
        self.advance(ops, wl, x, t);
    }

    /// A new task's start (sched_fork -> wake_up_new_task): ops.init_task
    /// (fork), ops.enable, then its first wake-up with SCX_WAKE_FORK from
    /// its CPU.
    pub(super) fn start_task(&mut self, ops: &mut dyn Ops, t: TaskId) {
        self.this_cpu = self.tasks[t].cpu;
        let cpu = self.tasks[t].cpu;
        if self.is_rt(t) {
            // not a sched_ext task: no init_task / enable (rt.rs)
            self.set_state(t, TaskState::Sleeping);
            return self.wake_up(ops, t, cpu, abi::SCX_WAKE_FORK);
        }
        let r = self.call(cpu, Ctx::Other, "init_task", |c| ops.init_task(c, t, true));
        if let Err(e) = r {
            self.eject(format!(
                "ops.init_task failed for {}: {e}",
                self.tasks[t].spec.name
            ));
            return;
        }
        self.call(cpu, Ctx::Other, "enable", |c| ops.enable(c, t));
        self.set_state(t, TaskState::Sleeping);
        self.wake_up(ops, t, cpu, abi::SCX_WAKE_FORK);
    }

    /// task_tick_scx (ext.c:3727-3746): charge the slice, ops.tick, resched
    /// at 0. Idle CPUs stop ticking (NOHZ idle).
    fn tick(&mut self, ops: &mut dyn Ops, x: usize) {
        let Some(t) = self.cpus[x].curr else {
            self.cpus[x].tick_armed = false;
            return;
        };
        self.this_cpu = x;
        self.settle(x);
        // task_tick_scx runs for a sched_ext curr only (rt.rs)
        let rt = self.is_rt(t);
        if !rt {
            self.charge_slice(x, t);
        }
        // sched_tick: update_rq_clock
        self.pelt_update(x);
        if !rt {
            self.call(x, Ctx::Other, "tick", |c| ops.tick(c, t));
        }
        let stall = self.cpus[x].pending_stall + self.cost.tick_ns;
        self.cpus[x].pending_stall = 0.0;
        self.cpus[x].seg_start = self.cpus[x].seg_start.max(self.now) + stall as Ns;
        self.arm_run_end(x);
        if !rt && self.tasks[t].ts.scx.slice == 0 {
            self.resched(x);
        }
        let period = 1_000_000_000 / self.cfg.hz as u64;
        self.push(self.now + period, Ev::Tick(x));
    }

    /// The invariants, then sched_ext's watchdog; every `sweep_ns` of
    /// simulated time in every run.
    pub fn sweep(&mut self) {
        if let Some(what) = self.find_violation() {
            return self.violation(what);
        }
        self.watchdog();
    }

    /// The first invariant that fails, if any:
    /// - every task in a DSQ is queued there by its state, and every task
    ///   a CPU runs is running there by its state (none is in two places);
    /// - every runnable task (queued or running) is in exactly one such
    ///   place (none is lost, none runs twice);
    /// - a task queued on a CPU's local DSQ or running on a CPU may run
    ///   there (affinity);
    /// - on each CPU, busy + idle = the time elapsed;
    /// - every task's thread_info.cpu is its CPU (task_cpu(p) read from the
    ///   task, as scx_arbor does).
    ///
    /// One pass over the DSQs, the CPUs and the tasks.
    fn find_violation(&self) -> Option<String> {
        let mut seen = vec![0u32; self.tasks.len()];
        let dsqs = (0..self.cpus.len())
            .map(|c| (DsqRef::Local(c), &self.cpus[c].local))
            .chain(self.global.iter().map(|g| (DsqRef::Global, g)))
            .chain(self.user.iter().map(|(id, d)| (DsqRef::User(id), d)));
        for (q, d) in dsqs {
            for t in d.iter() {
                if self.tasks[t].state != TaskState::Queued(q) {
                    return Some(format!(
                        "task {} is in {}, but its state is {:?}",
                        self.task_name(t),
                        dsq_name(q),
                        self.tasks[t].state
                    ));
                }
                if let DsqRef::Local(c) = q {
                    if !self.online[c] {
                        return Some(format!(
                            "task {} is queued on CPU {c}, which is offline",
                            self.task_name(t)
                        ));
                    }
                    if !self.allowed(t, c) {
                        return Some(format!(
                            "task {} is queued on CPU {c}, outside its affinity",
                            self.task_name(t)
                        ));
                    }
                }
                seen[t] += 1;
            }
        }
        for (c, cpu) in self.cpus.iter().enumerate() {
            if let Some(t) = cpu.curr {
                if self.tasks[t].state != TaskState::Running(c) {
                    return Some(format!(
                        "CPU {c} runs task {}, whose state is {:?}",
                        self.task_name(t),
                        self.tasks[t].state
                    ));
                }
                if !self.online[c] {
                    return Some(format!(
                        "task {} runs on CPU {c}, which is offline",
                        self.task_name(t)
                    ));
                }
                if !self.allowed(t, c) {
                    return Some(format!(
                        "task {} runs on CPU {c}, outside its affinity",
                        self.task_name(t)
                    ));
                }
                seen[t] += 1;
            }
            let open = match (cpu.busy_since, cpu.idle_since) {
                (Some(s), None) | (None, Some(s)) => self.now.saturating_sub(s),
                (b, i) => {
                    return Some(format!(
                        "CPU {c} is busy since {b:?} and idle since {i:?}: not one of the two"
                    ))
                }
            };
            if cpu.busy_ns + cpu.idle_ns + open != self.now {
                let running = match cpu.curr {
                    Some(t) => format!(" (running {})", self.task_name(t)),
                    None => String::new(),
                };
                return Some(format!(
                    "CPU {c}{running}: busy {} + idle {} ns (+ {open} ns {} now) != {} ns elapsed",
                    cpu.busy_ns,
                    cpu.idle_ns,
                    if cpu.busy_since.is_some() {
                        "busy"
                    } else {
                        "idle"
                    },
                    self.now
                ));
            }
        }
        for (t, task) in self.tasks.iter().enumerate() {
            // task_cpu(p) two ways: the core's and the task_struct's
            // thread_info.cpu, which a program may read instead of calling
            // scx_bpf_task_cpu() (Core::set_task_cpu keeps them one)
            if task.ts.thread_info.cpu as usize != task.cpu {
                return Some(format!(
                    "task {} is on CPU {}, but its thread_info.cpu says {}",
                    self.task_name(t),
                    task.cpu,
                    task.ts.thread_info.cpu
                ));
            }
            let want = match task.state {
                TaskState::Queued(_) | TaskState::Running(_) => 1,
                _ => 0,
            };
            if seen[t] == want {
                continue;
            }
            return Some(match task.state {
                TaskState::Queued(q) if seen[t] == 0 => format!(
                    "task {} is lost: its state is queued in {}, which does not hold it",
                    self.task_name(t),
                    dsq_name(q)
                ),
                TaskState::Running(c) if seen[t] == 0 => format!(
                    "task {} is lost: its state is running on CPU {c}, which runs {}",
                    self.task_name(t),
                    match self.cpus[c].curr {
                        Some(o) => self.task_name(o),
                        None => "nothing".into(),
                    }
                ),
                st => format!(
                    "task {} ({st:?}) is queued or running {} times, not {want}",
                    self.task_name(t),
                    seen[t]
                ),
            });
        }
        None
    }

    /// sched_ext's watchdog (checklist 39): a runnable task that has not
    /// run for `watchdog_ns` since it became runnable aborts the scheduler.
    fn watchdog(&mut self) {
        for t in 0..self.tasks.len() {
            if matches!(self.tasks[t].state, TaskState::Queued(_) | TaskState::Bpf)
                && self.now.saturating_sub(self.tasks[t].runnable_at) > self.cfg.watchdog_ns
            {
                let msg = format!(
                    "runnable task stall ({}[{}] failed to run for {:.3}s)",
                    self.tasks[t].spec.name,
                    self.tasks[t].ts.pid,
                    (self.now - self.tasks[t].runnable_at) as f64 / 1e9
                );
                return self.eject_as(abi::SCX_EXIT_ERROR_STALL, 0, msg);
            }
        }
    }

    fn finish_accounting(&mut self) {
        let now = self.now;
        for x in 0..self.cpus.len() {
            if let Some(s) = self.cpus[x].busy_since.take() {
                self.cpus[x].busy_ns += now - s;
                self.cpus[x].busy_since = Some(now);
            }
            if let Some(s) = self.cpus[x].idle_since.take() {
                self.cpus[x].idle_ns += now - s;
                self.cpus[x].idle_since = Some(now);
            }
            if let Some(t) = self.cpus[x].curr {
                let ran = now.saturating_sub(self.cpus[x].trace_start);
                if self.cfg.trace && ran > 0 {
                    self.stats.trace.push((x, t, self.cpus[x].trace_start, ran));
                }
            }
            // invariant: busy + idle = elapsed on every CPU
            let total = self.cpus[x].busy_ns + self.cpus[x].idle_ns;
            if total != now
                && self
                    .stop
                    .as_ref()
                    .is_none_or(|s| !matches!(s, Stop::Invariant(_)))
            {
                let what = format!(
                    "CPU {x}: busy {} + idle {} = {total} ns, but {now} ns elapsed",
                    self.cpus[x].busy_ns, self.cpus[x].idle_ns
                );
                self.stop = Some(Stop::Invariant(self.report(what)));
            }
        }
        self.stats.close(now);
    }
}

#[cfg(test)]
mod tests {
    use super::{ceil_ns, ns_f64, trunc_ns};

    /// Against f64::ceil, on the edges of the cast.
    #[test]
    fn ceil_ns_is_ceil_then_the_cast() {
        let xs = [
            0.0,
            -0.0,
            0.3,
            1.0,
            1.5,
            -0.3,
            -2.5,
            4503599627370495.5,
            9.0e15 + 0.5,
            1.5e19,
            1.8446744073709552e19,
            2.0e19,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            123456.000001,
        ];
        for x in xs {
            assert_eq!(ceil_ns(x), x.ceil() as u64, "{x}");
            assert_eq!(trunc_ns(x), x as u64, "{x}");
        }
        // the largest f64 below 2^63 and 2^63 itself, either side of the
        // signed path's bound
        for x in [9223372036854774784.0, 9223372036854775808.0] {
            assert_eq!(ceil_ns(x), x.ceil() as u64, "{x}");
            assert_eq!(trunc_ns(x), x as u64, "{x}");
        }
    }

    /// Against the unsigned cast, both sides of 2^63.
    #[test]
    fn ns_f64_is_the_cast() {
        let ns = [
            0,
            1,
            (1 << 53) + 1,
            (1 << 63) - 1,
            1 << 63,
            (1 << 63) + 1025,
            u64::MAX,
        ];
        for n in ns {
            assert_eq!(ns_f64(n).to_bits(), (n as f64).to_bits(), "{n}");
        }
    }
}
