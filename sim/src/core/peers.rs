//! The kfuncs the peers (scx_bpfland, ...) call that scx_arbor does not:
//! the kernel's default idle-CPU selection (scx_select_cpu_dfl, reached
//! through scx_bpf_select_cpu_and / scx_bpf_select_cpu_dfl), the per-node
//! idle masks, scx_bpf_task_running, scx_bpf_dsq_peek. Semantics: 7.2's
//! kernel/sched/ext_idle.c and ext.c, as docs/sim/ext-semantics.md 8a/8b
//! write them down; each method names the function it models.

use super::*;

/// scx_select_cpu_dfl's topology (Core::selcpu).
pub struct SelCpuTopo {
    llc: Vec<CpuMask>,
    node: Vec<CpuMask>,
    gates: (bool, bool),
}

impl Core {
    fn per_node(&self) -> bool {
        self.ops_flags & abi::SCX_OPS_BUILTIN_IDLE_PER_NODE != 0
    }

    /// Some core has two online threads (kept by rebuild_online_topology).
    fn smt_active(&self) -> bool {
        self.smt_on
    }

    /// `cpus` restricted to `node` (None: all nodes) and to the machine's
    /// CPUs, a word at a time.
    fn in_node(&self, cpus: &CpuMask, node: Option<usize>) -> CpuMask {
        let span = match node {
            Some(x) => self.node_cpus.get(x).unwrap_or(&self.machine_cpus),
            None => &self.machine_cpus,
        };
        let mut m = CpuMask::empty();
        if node.is_some_and(|x| x >= self.node_cpus.len()) {
            return m; // no CPU is on a node the machine does not have
        }
        for w in 0..self.cpus.len().div_ceil(64) {
            m.bits[w] = cpus.bits[w] & span.bits[w];
        }
        m
    }

    /// pick_idle_cpu_in_node (ext_idle.c): a CPU of a whole idle core in
    /// `cpus` (SMT on), else, unless SCX_PICK_IDLE_CORE with SMT on, any
    /// idle CPU;
    /// each scan is cpumask_any_and_distribute (the per-CPU cursor of
    /// kf_pick_idle); the pick is claimed.
    fn pick_idle_in_node(&mut self, cpus: &CpuMask, node: Option<usize>, flags: u64) -> i32 {
        let n = self.cpus.len();
        let me = self.this_cpu;
        let start = (self.pick_prev[me] + 1) % n;
        let m = self.in_node(cpus, node);
        let scan = |idle: &CpuMask| abi::find_wrap(n, start, |w| m.bits[w] & idle.bits[w]);
        let mut pick = None;
        // without SMT there are no cores to prefer: SCX_PICK_IDLE_CORE
        // takes any idle CPU
        if self.smt_active() {
            pick = scan(&self.smt_mask);
            if pick.is_none() && flags & abi::SCX_PICK_IDLE_CORE != 0 {
                return -libc::EBUSY;
            }
        }
        if pick.is_none() {
            pick = scan(&self.idle_mask);
        }
        match pick {
            Some(c) => {
                self.pick_prev[me] = c;
                self.claim_idle(c);
                c as i32
            }
            None => -libc::EBUSY,
        }
    }

    /// scx_pick_idle_cpu (ext_idle.c): `node` first; then, unless
    /// NUMA_NO_NODE or SCX_PICK_IDLE_IN_NODE, the other nodes by
    /// increasing distance (pick_idle_cpu_from_online_nodes).
    fn pick_idle_from(&mut self, cpus: &CpuMask, node: Option<usize>, flags: u64) -> i32 {
        let cpu = self.pick_idle_in_node(cpus, node, flags);
        let Some(start) = node else { return cpu };
        if cpu >= 0 || flags & abi::SCX_PICK_IDLE_IN_NODE != 0 {
            return cpu;
        }
        let d = &self.machine.node_distance;
        let mut others: Vec<usize> = (0..self.global.len()).filter(|&x| x != start).collect();
        others.sort_by_key(|&x| {
            (
                d.get(start)
                    .and_then(|r| r.get(x))
                    .copied()
                    .unwrap_or(u32::MAX),
                x,
            )
        });
        for x in others {
            let c = self.pick_idle_in_node(cpus, Some(x), flags);
            if c >= 0 {
                return c;
            }
        }
        -libc::EBUSY
    }

    /// Online CPUs sharing `cpu`'s LLC (llc_span) / node (numa_span): the
    /// sched domains span online CPUs only (rebuilt on hotplug).
    fn span(&self, cpu: usize, llc: bool) -> CpuMask {
        let mut m = CpuMask::empty();
        let me = &self.machine.cpus[cpu];
        for c in &self.machine.cpus {
            if !self.is_online(c.id) {
                continue;
            }
            if if llc {
                c.llc == me.llc
            } else {
                c.node == me.node
            } {
                m.set(c.id, true);
            }
        }
        m
    }

    /// The spans and gates of scx_select_cpu_dfl, computed once per run (the
    /// kernel computes them at enable and on hotplug): each CPU's LLC and
    /// node spans, and (topo_llc, topo_numa).
    fn selcpu(&mut self) -> &SelCpuTopo {
        if self.selcpu_topo.is_none() {
            let n = self.cpus.len();
            let llc = (0..n).map(|c| self.span(c, true)).collect();
            let node = (0..n).map(|c| self.span(c, false)).collect();
            let gates = self.selcpu_topology();
            self.selcpu_topo = Some(Box::new(SelCpuTopo { llc, node, gates }));
        }
        self.selcpu_topo.as_ref().unwrap()
    }

    fn weight(m: &CpuMask) -> usize {
        m.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// scx_idle_update_selcpu_topology (ext_idle.c): topo_llc is on iff the
    /// first CPU's LLC is smaller than the online set; topo_numa iff per-node
    /// tracking is off, the first CPU's node is smaller than the online set,
    /// and some CPU's LLC differs from its node in weight.
    fn selcpu_topology(&self) -> (bool, bool) {
        // (the first online CPU, and the online set: idle.c:348)
        let n = Self::weight(&self.all_mask);
        let first = (0..self.cpus.len())
            .find(|&c| self.is_online(c))
            .unwrap_or(0);
        let llc = Self::weight(&self.span(first, true)) < n;
        let numa = !self.per_node()
            && Self::weight(&self.span(first, false)) < n
            && (0..self.cpus.len())
                .filter(|&c| self.is_online(c))
                .any(|c| Self::weight(&self.span(c, true)) != Self::weight(&self.span(c, false)));
        (llc, numa)
    }

    /// scx_bpf_select_cpu_and / scx_bpf_select_cpu_dfl: select_cpu_from_kfunc
    /// (ext_idle.c), then scx_select_cpu_dfl (ext_idle.c; ext-semantics.md
    /// 8b, steps 1-8). Returns the claimed idle CPU or -EBUSY.
    pub fn kf_select_cpu_and(
        &mut self,
        t: TaskId,
        prev: i32,
        wake_flags: u64,
        cpus_allowed: Option<&CpuMask>,
        flags: u64,
    ) -> i32 {
        let n = self.cpus.len();
        if prev < 0 || prev as usize >= n {
            self.eject(format!("scx_bpf_select_cpu_*: invalid CPU {prev}"));
            return -libc::EINVAL;
        }
        // called from an rq-locked op other than select_cpu / enqueue: -EPERM;
        // an unlocked caller (a SEC("syscall") program run from user space)
        // takes p's pi_lock itself (select_cpu_from_kfunc, idle.c)
        if !matches!(self.ctx, Ctx::SelectCpu | Ctx::Enqueue | Ctx::None) {
            self.eject("scx_bpf_select_cpu_*: not allowed from this callback".into());
            return -libc::EPERM;
        }
        let prev = prev as usize;
        let ts = &self.tasks[t].ts;
        let pmask = ts.cpus_mask;
        // select_cpu_from_kfunc: a pinned task only gets prev, if idle
        // (is_bpf_migration_disabled: the sim never runs BPF code as the task)
        if ts.nr_cpus_allowed == 1 || ts.migration_disabled != 0 {
            let m = cpus_allowed.unwrap_or(&pmask);
            return if m.test(prev) && self.claim_idle(prev) {
                prev as i32
            } else {
                -libc::EBUSY
            };
        }
        // step 1: allowed = cpus_allowed ∩ p->cpus_ptr
        let mut allowed = pmask;
        if let Some(m) = cpus_allowed {
            for w in 0..allowed.bits.len() {
                allowed.bits[w] &= m.bits[w];
            }
        }
        let is_prev_allowed = cpus_allowed.unwrap_or(&pmask).test(prev);
        if Self::weight(&allowed) == 0 {
            return -libc::EBUSY;
        }
        let node = self.per_node().then(|| self.cpu_node[prev]);
        let topo = self.selcpu();
        let (topo_llc, topo_numa) = topo.gates;
        let (llc_span, numa_span) = (topo.llc[prev], topo.node[prev]);
        let and = |a: &CpuMask, b: &CpuMask| {
            let mut m = *a;
            for w in 0..m.bits.len() {
                m.bits[w] &= b.bits[w];
            }
            m
        };
        let numa_cpus = topo_numa
            .then(|| and(&numa_span, &allowed))
            .filter(|m| Self::weight(m) > 0);
        let llc_cpus = topo_llc
            .then(|| and(&llc_span, &allowed))
            .filter(|m| Self::weight(m) > 0);

        // step 2: SCX_WAKE_SYNC
        if wake_flags & abi::SCX_WAKE_SYNC != 0 {
            let w = self.this_cpu;
            if is_prev_allowed
                && self.machine.cpus[w].llc == self.machine.cpus[prev].llc
                && self.claim_idle(prev)
            {
                return prev as i32;
            }
            let waker_node = self.cpu_node[w];
            let exiting = self.cpus[w]
                .curr
                .is_some_and(|c| self.tasks[c].ts.flags & abi::PF_EXITING != 0);
            let span = if self.per_node() {
                &self.node_cpus[waker_node]
            } else {
                &self.machine_cpus
            };
            let node_idle = (0..n.div_ceil(64)).any(|w| self.idle_mask.bits[w] & span.bits[w] != 0);
            if !exiting
                && self.cpus[w].local.is_empty()
                && (flags & abi::SCX_PICK_IDLE_IN_NODE == 0 || Some(waker_node) == node)
                && node_idle
                && allowed.test(w)
            {
                self.claim_idle(w);
                return w as i32;
            }
        }
        // step 3: whole idle cores first
        if self.smt_active() {
            if is_prev_allowed && self.smt_mask.test(prev) && self.claim_idle(prev) {
                return prev as i32;
            }
            for m in [llc_cpus, numa_cpus].into_iter().flatten() {
                let c = self.pick_idle_in_node(&m, node, abi::SCX_PICK_IDLE_CORE);
                if c >= 0 {
                    return c;
                }
            }
            let c = self.pick_idle_from(&allowed, node, flags | abi::SCX_PICK_IDLE_CORE);
            if c >= 0 {
                return c;
            }
            if flags & abi::SCX_PICK_IDLE_CORE != 0 {
                return -libc::EBUSY;
            }
        }
        // step 4: prev, if idle
        if is_prev_allowed && self.claim_idle(prev) {
            return prev as i32;
        }
        // step 5: an idle SMT sibling of prev
        if self.smt_active() {
            let sibs = self.core_cpus[self.cpu_core[prev]].clone();
            for c in sibs {
                if c != prev && allowed.test(c) && self.claim_idle(c) {
                    return c as i32;
                }
            }
        }
        // steps 6-8: any idle CPU in the LLC, the node, then anywhere
        for m in [llc_cpus, numa_cpus].into_iter().flatten() {
            let c = self.pick_idle_in_node(&m, node, 0);
            if c >= 0 {
                return c;
            }
        }
        self.pick_idle_from(&allowed, node, flags)
    }

    /// scx_bpf_get_idle_{cpu,smt}mask_node: the node's built-in idle mask
    /// (validate_node: an error unless SCX_OPS_BUILTIN_IDLE_PER_NODE). The
    /// sim keeps one global pair; the node's view is the pair ∩ the node,
    /// copied at the call (the kernel's is live).
    pub fn kf_idle_mask_node(&mut self, node: i32, smt: bool) -> *const CpuMask {
        if !self.per_node() {
            self.eject("per-node idle tracking is disabled".into());
        } else if node < 0 || node as usize >= self.global.len() {
            self.eject(format!("invalid node {node}"));
        }
        let src = if smt { *self.smt_mask } else { *self.idle_mask };
        let m = self.in_node(&src, usize::try_from(node).ok());
        let slot = if smt { 1 } else { 0 };
        *self.node_masks[slot] = m;
        &*self.node_masks[slot]
    }

    /// scx_bpf_cpu_node: cpu_to_node(), NUMA_NO_NODE for an invalid CPU.
    pub fn kf_cpu_node(&self, cpu: i32) -> i32 {
        usize::try_from(cpu)
            .ok()
            .and_then(|c| self.cpu_node.get(c))
            .map(|&x| x as i32)
            .unwrap_or(-1)
    }

    /// per_cpu(sd_llc_id, cpu): the first CPU of cpu's LLC.
    pub fn kf_cpu_llc_id(&self, cpu: i32) -> i32 {
        self.first_cpu_with_same(cpu, |c| c.llc)
    }

    /// The first CPU of cpu's core (topology_sibling_cpumask's first):
    /// the cid mapping groups a core's CPUs (cid.c:155-181).
    pub fn kf_cpu_core_id(&self, cpu: i32) -> i32 {
        self.first_cpu_with_same(cpu, |c| c.core)
    }

    /// The first CPU whose `key` equals cpu's (-EINVAL for an id off the
    /// machine).
    fn first_cpu_with_same(
        &self,
        cpu: i32,
        key: impl Fn(&crate::machine::CpuSpec) -> usize,
    ) -> i32 {
        let Some(me) = usize::try_from(cpu)
            .ok()
            .and_then(|c| self.machine.cpus.get(c))
        else {
            return -libc::EINVAL;
        };
        self.machine
            .cpus
            .iter()
            .find(|c| key(c) == key(me))
            .map(|c| c.id as i32)
            .unwrap_or(cpu)
    }

    pub fn online_mask_ptr(&self) -> *const CpuMask {
        &*self.all_mask
    }

    /// scx_bpf_task_running: task_rq(p)->curr == p. A task being switched
    /// out (put_prev_task, where ops.enqueue re-queues it) is still curr.
    pub fn kf_task_running(&self, t: TaskId) -> bool {
        matches!(self.tasks[t].state, TaskState::Running(_)) || self.putting_prev == Some(t)
    }

    /// scx_bpf_dsq_peek: the first task of a user DSQ (the vtime order's
    /// first for a vtime DSQ), None if empty or not a user DSQ.
    pub fn kf_dsq_peek(&mut self, dsq: u64) -> Option<TaskId> {
        // scx_bpf_dsq_peek (ext.c:9911-9933): a built-in DSQ or one that
        // does not exist is an error (and NULL)
        if dsq & abi::SCX_DSQ_FLAG_BUILTIN != 0 {
            self.eject(format!("peek disallowed on builtin DSQ {dsq:#x}"));
            return None;
        }
        match self.user.get(dsq) {
            Some(q) => q.first(),
            None => {
                self.eject(format!("peek on non-existent DSQ {dsq:#x}"));
                None
            }
        }
    }

    /// bpf_get_prandom_u32: the kernel's per-CPU prandom state, here one
    /// stream per run from its seed (SplitMix64(seed, n), n = draws so
    /// far), so a run is reproducible and seeds differ.
    pub fn kf_prandom(&mut self) -> u32 {
        let n = self.prandom_n;
        self.prandom_n += 1;
        (super::splitmix(self.cfg.seed ^ 0x7072_616e_646f_6d00, n) >> 32) as u32
    }

    /// bpf_cpumask_any_distribute (kernel/bpf/cpumask.c) ->
    /// cpumask_any_distribute (lib/cpumask.c): the next CPU of `mask` after
    /// this CPU's previous pick, wrapping (find_next_bit_wrap); the cursor
    /// (distribute_cpu_mask_prev) is the one cpumask_any_and_distribute and
    /// so the idle picks use too, and moves only on a hit. nr_cpu_ids if
    /// the mask is empty.
    pub fn kf_any_distribute(&mut self, mask: &CpuMask) -> u32 {
        let n = self.cpus.len();
        let me = self.this_cpu;
        let start = (self.pick_prev[me] + 1) % n;
        match abi::find_wrap(n, start, |w| mask.bits[w]) {
            Some(c) => {
                self.pick_prev[me] = c;
                c as u32
            }
            None => n as u32,
        }
    }

    /// bpf_task_from_pid: the live task with that pid (find_task_by_pid_ns
    /// with a reference, refcount_inc_not_zero: an exited task is gone),
    /// None if there is none.
    pub fn kf_task_from_pid(&self, pid: i32) -> Option<TaskId> {
        self.tasks
            .iter()
            .position(|t| t.ts.pid == pid && !matches!(t.state, TaskState::Exited))
    }

    // ---- scx_cosmos: scx_bpf_cpu_curr ----

    /// scx_bpf_cpu_curr (ext.c:10527-10541): rq->curr of a valid CPU
    /// (scx_cpu_valid: an invalid one is an error and NULL). rq->curr is the
    /// running task; while the CPU is in the scheduler, the task switching
    /// out or blocking (it stays curr until the pick); else the CPU's idle
    /// task, whose flags carry PF_IDLE.
    pub fn kf_cpu_curr(&mut self, cpu: i32) -> *mut TaskStruct {
        let Some(c) = usize::try_from(cpu).ok().filter(|&c| c < self.cpus.len()) else {
            self.eject(format!("invalid CPU {cpu}"));
            return std::ptr::null_mut();
        };
        match self.sched_prev {
            Some((x, t)) if x == c => self.task_ptr(t),
            _ => self.current_ptr(c),
        }
    }

    // ---- scx_cosmos: scx_bpf_pick_idle_cpu_node ----

    /// scx_bpf_pick_idle_cpu_node (idle.c:1334-1351): validate_node
    /// (idle.c:840-864: an error unless SCX_OPS_BUILTIN_IDLE_PER_NODE;
    /// NUMA_NO_NODE -ENOENT; a node out of range an error), then
    /// scx_pick_idle_cpu(cpus, node, flags).
    pub fn kf_pick_idle_cpu_node(&mut self, cpus: &CpuMask, node: i32, flags: u64) -> i32 {
        if !self.per_node() {
            self.eject("per-node idle tracking is disabled".into());
            return -libc::EOPNOTSUPP;
        }
        if node == -1 {
            return -libc::ENOENT;
        }
        if node < 0 || node as usize >= self.global.len() {
            self.eject(format!("invalid node {node}"));
            return -libc::EINVAL;
        }
        self.pick_idle_from(cpus, Some(node as usize), flags)
    }
}
