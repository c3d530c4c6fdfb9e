//! The kfuncs a sched_ext scheduler calls, as the core implements them
//! (ext.c / idle.c semantics; docs/sim/ext-semantics.md checklist numbers
//! in the comments). Schedulers written in Rust for tests call these
//! methods directly; the native BPF scheduler reaches them through the
//! host table (sched/native.rs).

use super::*;

impl Core {
    /// scx_bpf_dsq_insert[_vtime]: in select_cpu and enqueue a direct
    /// dispatch, applied at enqueue (checklist 5); in dispatch buffered,
    /// applied after ops.dispatch returns (checklist 20).
    pub fn kf_dsq_insert(
        &mut self,
        t: TaskId,
        dsq: u64,
        slice: u64,
        vtime: Option<u64>,
        flags: u64,
    ) {
        // scx_vet_enq_flags (ext.c:8835-8850)
        let local =
            dsq == abi::SCX_DSQ_LOCAL || dsq & abi::SCX_DSQ_LOCAL_ON == abi::SCX_DSQ_LOCAL_ON;
        if flags & abi::SCX_ENQ_IMMED != 0 && !local {
            self.eject(format!("SCX_ENQ_IMMED on a non-local DSQ {dsq:#x}"));
            return;
        }
        let d = Insert {
            task: t,
            dsq,
            slice,
            vtime,
            flags,
            qseq: self.tasks[t].qseq,
        };
        match self.ctx {
            Ctx::SelectCpu | Ctx::Enqueue => {
                if self.ddsp.is_some() {
                    // mark_direct_dispatch (ext.c:1788-1806): the first
                    // insert spoiled direct_dispatch_task
                    let ts = &self.tasks[t].ts;
                    let n = ts.comm.iter().position(|&b| b == 0).unwrap_or(16);
                    self.eject(format!(
                        "{}[{}] already direct-dispatched",
                        String::from_utf8_lossy(&ts.comm[..n]),
                        ts.pid
                    ));
                    return;
                }
                self.ddsp = Some(d);
            }
            Ctx::Dispatch => {
                if self.dispatch_buf.len() >= 32 {
                    self.eject(
                        "dispatch buffer overflow (more than 32 inserts in one ops.dispatch)"
                            .into(),
                    );
                    return;
                }
                self.dispatch_buf.push(d);
            }
            _ => self
                .eject("scx_bpf_dsq_insert called outside select_cpu, enqueue and dispatch".into()),
        }
    }

    /// scx_bpf_dsq_move_to_local (checklist 22): the first task of a user
    /// DSQ that may run on this CPU moves to its local DSQ.
    pub fn kf_move_to_local(&mut self, dsq: u64) -> bool {
        if self.ctx != Ctx::Dispatch {
            self.eject("scx_bpf_dsq_move_to_local called outside ops.dispatch".into());
            return false;
        }
        let x = self.this_cpu;
        // it first flushes the dispatch buffer (ext-semantics.md item 5), so
        // an insert made earlier in this ops.dispatch is in its DSQ
        self.flush_dispatch(x);
        let Some(q) = self.user.get(dsq) else {
            self.eject(format!(
                "scx_bpf_dsq_move_to_local: non-existent DSQ {dsq:#x}"
            ));
            return false;
        };
        let pick = q.iter().find(|&t| self.allowed(t, x));
        match pick {
            Some(t) => {
                self.dsq_remove(t, DsqRef::User(dsq));
                self.set_state(t, TaskState::Bpf);
                // ext.c:9303-9310: a moved task counts in the round's
                // nr_tasks, so balance_one retries on an empty local DSQ
                self.dsp_nr_tasks += 1;
                self.enqueue_on(t, DsqRef::Local(x), 0, None)
            }
            None => false,
        }
    }

    pub fn kf_nr_queued(&mut self, dsq: u64) -> i32 {
        let n = if dsq == abi::SCX_DSQ_LOCAL {
            self.cpus[self.this_cpu].local.len()
        } else if dsq & abi::SCX_DSQ_LOCAL_ON == abi::SCX_DSQ_LOCAL_ON {
            let c = (dsq & 0xffff_ffff) as usize;
            match self.cpus.get(c) {
                Some(cpu) => cpu.local.len(),
                None => return -(libc::ENOENT),
            }
        } else {
            match self.user.len(dsq) {
                Some(n) => n,
                None => return -(libc::ENOENT),
            }
        };
        n as i32
    }

    pub fn kf_create_dsq(&mut self, dsq: u64, _node: i32) -> i32 {
        if dsq & abi::SCX_DSQ_FLAG_BUILTIN != 0 {
            return -(libc::EINVAL);
        }
        if !self.user.create(dsq) {
            return -(libc::EEXIST);
        }
        0
    }

    /// scx_bpf_destroy_dsq -> destroy_dsq (ext.c:4964-5001): a DSQ that
    /// does not exist is ignored; one that holds tasks is an error.
    pub fn kf_destroy_dsq(&mut self, dsq: u64) {
        if let Err(nr) = self.user.destroy(dsq) {
            self.eject(format!(
                "attempting to destroy in-use dsq {dsq:#018x} (nr={nr})"
            ));
        }
    }

    /// scx_bpf_kick_cpu (checklist 27-29): IDLE wakes only an idle CPU;
    /// PREEMPT zeroes the running task's slice; both reschedule.
    pub fn kf_kick_cpu(&mut self, cpu: i32, flags: u64) {
        if cpu < 0 || cpu as usize >= self.cpus.len() {
            self.eject(format!("scx_bpf_kick_cpu: invalid CPU {cpu}"));
            return;
        }
        let c = cpu as usize;
        // kick_one_cpu / kick_one_cpu_if_idle (ext.c:8614, 8651): an
        // offline CPU other than the caller's is not kicked
        if !self.is_online(c) && c != self.this_cpu {
            return;
        }
        if flags & abi::SCX_KICK_IDLE != 0 && self.cpus[c].curr.is_some() {
            return;
        }
        if flags & abi::SCX_KICK_PREEMPT != 0 {
            if let Some(t) = self.cpus[c].curr {
                self.tasks[t].ts.scx.slice = 0;
            }
        }
        self.resched(c);
    }

    /// scx_bpf_test_and_clear_cpu_idle (idle.c:89-107, checklist 34).
    pub fn kf_test_and_clear_idle(&mut self, cpu: i32) -> bool {
        if cpu < 0 || cpu as usize >= self.cpus.len() {
            self.eject(format!(
                "scx_bpf_test_and_clear_cpu_idle: invalid CPU {cpu}"
            ));
            return false;
        }
        self.claim_idle(cpu as usize)
    }

    /// scx_bpf_pick_idle_cpu (idle.c:115-138, checklist 35): a whole idle
    /// core first, then any idle CPU; the pick is claimed. Each scan is
    /// cpumask_any_and_distribute(): it starts after the calling CPU's
    /// previous pick (a per-CPU cursor, 0 at first, so the first pick skips
    /// CPU 0) and wraps.
    pub fn kf_pick_idle(&mut self, mask: &CpuMask, flags: u64) -> i32 {
        let n = self.cpus.len();
        let me = self.this_cpu;
        let start = (self.pick_prev[me] + 1) % n;
        let scan = |m: &CpuMask, core_only: bool, me: &Core| {
            abi::find_wrap(n, start, |w| {
                mask.bits[w] & m.bits[w] & if core_only { me.smt_mask.bits[w] } else { !0 }
            })
        };
        let mut pick = scan(&self.idle_mask, true, self);
        if pick.is_none() && flags & abi::SCX_PICK_IDLE_CORE == 0 {
            pick = scan(&self.idle_mask, false, self);
        }
        match pick {
            Some(c) => {
                self.pick_prev[me] = c;
                self.claim_idle(c);
                c as i32
            }
            None => -(libc::EBUSY),
        }
    }

    /// scx_bpf_pick_any_cpu: an idle one if any, else any allowed CPU.
    pub fn kf_pick_any(&mut self, mask: &CpuMask, flags: u64) -> i32 {
        let c = self.kf_pick_idle(mask, flags);
        if c >= 0 {
            return c;
        }
        (0..self.cpus.len())
            .find(|&c| mask.test(c))
            .map(|c| c as i32)
            .unwrap_or(-(libc::EBUSY))
    }

    /// bpf_iter_scx_dsq_new (checklist 23): it sees the tasks queued now.
    pub fn kf_iter_new(&mut self, dsq: u64) -> u64 {
        let tasks = match self.user.get(dsq) {
            Some(q) => q.order(),
            None => {
                // local DSQs may be iterated too (SCX_DSQ_LOCAL_ON)
                if dsq & abi::SCX_DSQ_LOCAL_ON == abi::SCX_DSQ_LOCAL_ON {
                    let c = (dsq & 0xffff_ffff) as usize;
                    self.cpus
                        .get(c)
                        .map(|x| x.local.order())
                        .unwrap_or_default()
                } else {
                    Vec::new()
                }
            }
        };
        let slot = self
            .iters
            .iter()
            .position(|s| s.is_none())
            .unwrap_or_else(|| {
                self.iters.push(None);
                self.iters.len() - 1
            });
        self.iters[slot] = Some((dsq, tasks, 0));
        slot as u64 + 1
    }

    /// The next task of the iteration still in that DSQ.
    pub fn kf_iter_next(&mut self, h: u64) -> Option<TaskId> {
        let i = (h as usize).checked_sub(1)?;
        loop {
            let (dsq, tasks, pos) = self.iters.get_mut(i)?.as_mut()?;
            let t = *tasks.get(*pos)?;
            *pos += 1;
            let want = dsq_ref(*dsq);
            if self.tasks[t].state == TaskState::Queued(want) {
                return Some(t);
            }
        }
    }

    pub fn kf_iter_destroy(&mut self, h: u64) {
        if let Some(s) = (h as usize)
            .checked_sub(1)
            .and_then(|i| self.iters.get_mut(i))
        {
            *s = None;
        }
    }

    /// scx_bpf_dsq_move from an iterator (checklist 21): moves the task to
    /// the target at once; false if it left the DSQ it was iterated in.
    pub fn kf_dsq_move(&mut self, h: u64, t: TaskId, dsq: u64, flags: u64) -> bool {
        let Some(Some((src, _, _))) = (h as usize).checked_sub(1).and_then(|i| self.iters.get(i))
        else {
            return false;
        };
        let src = dsq_ref(*src);
        if self.tasks[t].state != TaskState::Queued(src) {
            return false;
        }
        let x = self.this_cpu;
        let target_cpu = if dsq == abi::SCX_DSQ_LOCAL {
            Some(x)
        } else if dsq & abi::SCX_DSQ_LOCAL_ON == abi::SCX_DSQ_LOCAL_ON {
            Some((dsq & 0xffff_ffff) as usize)
        } else {
            None
        };
        // ext.c:2503-2554 (checklist 21): a move to the local DSQ of a CPU
        // outside the cpumask is an error; the task goes to the global DSQ
        // and the move still counts as done
        let mut dsq = dsq;
        if let Some(c) = target_cpu {
            if c < self.cpus.len() && !self.allowed(t, c) {
                self.eject(format!(
                    "scx_bpf_dsq_move to CPU {c}, which {} may not run on",
                    self.tasks[t].spec.name
                ));
                dsq = abi::SCX_DSQ_GLOBAL;
            }
        }
        self.dsq_remove(t, src);
        self.set_state(t, TaskState::Bpf);
        // scx_bpf_dsq_move_vtime: scx_dsq_move with SCX_ENQ_DSQ_PRIQ, in
        // p->scx.dsq_vtime's order (no scx_bpf_dsq_move_set_vtime here)
        let vtime = (flags & abi::SCX_ENQ_DSQ_PRIQ != 0).then(|| self.tasks[t].ts.scx.dsq_vtime);
        let d = Insert {
            task: t,
            dsq,
            slice: self.tasks[t].ts.scx.slice,
            vtime,
            flags: flags & !abi::SCX_ENQ_DSQ_PRIQ,
            qseq: self.tasks[t].qseq,
        };
        self.apply_insert(d, x, false)
    }

    /// scx_bpf_dispatch_nr_slots (ext.c:9213-9224): dsp_max_batch
    /// (SCX_DSP_DFL_MAX_BATCH, 32: types.h:14; no scheduler the sim runs
    /// sets ops.dispatch_max_batch) minus this ops.dispatch's buffered
    /// inserts. The kfunc may only be called from ops.dispatch (its kfunc
    /// set, which the verifier enforces); elsewhere it is an error here.
    pub fn kf_dispatch_nr_slots(&mut self) -> u32 {
        if !matches!(self.ctx, Ctx::Dispatch) {
            self.eject("scx_bpf_dispatch_nr_slots() outside ops.dispatch".into());
            return 0;
        }
        32u32.saturating_sub(self.dispatch_buf.len() as u32)
    }

    /// bpf_timer_start: the timer fires on this CPU after `ns`.
    pub fn kf_timer_start(&mut self, timer: usize, ns: u64) -> i32 {
        while self.timers.len() <= timer {
            self.timers.push((0, 0));
        }
        let g = self.timers[timer].0 + 1;
        self.timers[timer] = (g, self.this_cpu);
        self.push(self.now + ns.max(1), Ev::BpfTimer(timer, g));
        0
    }

    /// bpf_ktime_get_ns / scx_bpf_now inside a callback: the event's time
    /// plus this callback's cost so far (time advances with its helper
    /// calls). Never earlier than a previous reading, on any CPU: the
    /// kernel's clock (ktime_get_mono_fast_ns) is monotonic. Without that
    /// floor, a callback read an earlier time than one before it at the same
    /// simulated instant whenever it had made fewer helper calls: a task
    /// that ran and blocked at once read less in ops.stopping than in
    /// ops.running, and bpfland's `now - last_run_at` wrapped to ~2^64 (its
    /// vruntime jumped by ~2^62 and the task never ran again:
    /// docs/peers/bpfland-pinned-starvation.md, found by arbor sim fuzz);
    /// scx_arbor's unguarded `now - last_ran` (task_hot) wrapped the same
    /// way when another CPU's callback had stored last_ran at that instant.
    pub fn kf_ktime(&mut self) -> u64 {
        // SAFETY: calls_ptr points at the loaded scheduler's call counter
        let live = self
            .calls_ptr
            .map(|p| unsafe { std::ptr::read_volatile(p) })
            .unwrap_or(0);
        let t = self.now + (self.cb_ns + live as f64 * self.cost.bpf_call_ns) as u64;
        let t = t.max(self.ktime_last);
        self.ktime_last = t;
        t
    }

    /// The index of a BPF timer, by its address.
    pub fn timer_id(&mut self, ptr: usize) -> usize {
        match self.timer_ptrs.iter().position(|&p| p == ptr) {
            Some(i) => i,
            None => {
                self.timer_ptrs.push(ptr);
                self.timer_ptrs.len() - 1
            }
        }
    }
}

/// The DSQ a built-in or user id names, for iterated DSQs.
fn dsq_ref(id: u64) -> DsqRef {
    if id & abi::SCX_DSQ_LOCAL_ON == abi::SCX_DSQ_LOCAL_ON {
        DsqRef::Local((id & 0xffff_ffff) as usize)
    } else if id == abi::SCX_DSQ_GLOBAL {
        DsqRef::Global
    } else {
        DsqRef::User(id)
    }
}
