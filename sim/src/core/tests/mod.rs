//! Unit tests of the sched_ext core, one semantic each, against Linux
//! 7.2.13's kernel/sched/ext/ext.c and idle.c as docs/sim/ext-semantics.md
//! describes them. Every test's doc comment cites the line it follows and
//! the number of the doc's "Simulator checklist" rule.
//!
//! The core is driven by crafted Rust schedulers ([`Sched`]: a FIFO one
//! like scx_simple, with hooks a test replaces to record calls or make a
//! particular kfunc call, or to corrupt the core's state on purpose) and
//! tiny scripted workloads ([`Script`]). Most tests use a machine without
//! idle-exit latency and a cost model of zero, so that times are exact.

mod accounting;
mod affinity;
mod callbacks;
mod cgroups;
mod dispatch;
mod enqueue;
mod hotplug;
mod idle;
mod immed;
mod invariants;
mod kick;
mod lavd;
mod peers;
mod rt;
mod select;
mod tick;
mod wakelat;
mod watchdog;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

pub use super::dsq::DsqRef;
pub use super::{Config, Core, Ops, Stop, TaskState};
pub use crate::abi;
use crate::cost::CostModel;
use crate::machine::{IdleState, Machine, Shape, SmtSpec};
use crate::presets;
pub use crate::task::{Effects, Metric, Ns, Step, TaskId, TaskSpec, Workload};

pub const US: Ns = 1_000;
pub const MS: Ns = 1_000_000;
/// The user DSQ the FIFO scheduler queues on (scx_simple's SHARED_DSQ).
pub const SHARED: u64 = 0;

// ---------------------------------------------------------------------
// Machines and costs
// ---------------------------------------------------------------------

/// A preset with its idle states replaced by one of zero exit latency, so
/// that waking an idle CPU takes no time.
pub fn preset(name: &str) -> Machine {
    let mut m = presets::find(name).unwrap();
    m.idle_states = vec![IdleState {
        name: "POLL".to_string(),
        exit_ns: 0,
        residency_ns: 0,
    }];
    m
}

/// `n` CPUs, each its own core (no SMT), one LLC, one node.
pub fn flat(n: usize) -> Machine {
    let mut m = preset("1s2c2t");
    m.name = format!("flat{n}");
    m.cpus = Shape {
        nodes: 1,
        llcs_per_node: 1,
        cores_per_llc: n,
        smt: 1,
        x86_numbering: false,
    }
    .cpus(|_| 1024);
    m.node_distance = vec![vec![10]];
    m.smt = SmtSpec {
        throughput: vec![1.0],
        source: "test",
    };
    m
}

/// Every software cost zero: times in a run are the workload's own.
pub fn zero_cost() -> CostModel {
    CostModel {
        ctx_switch_ns: 0.0,
        wakeup_ns: 0.0,
        ipi_ns: 0.0,
        bpf_callback_ns: 0.0,
        bpf_call_ns: 0.0,
        tick_ns: 0.0,
    }
}

/// Exact times: tasks start when the script says (no seeded jitter).
pub fn cfg() -> Config {
    Config {
        time_limit: 1_000_000_000,
        start_jitter_ns: 0,
        ..Config::default()
    }
}

// ---------------------------------------------------------------------
// A scripted workload
// ---------------------------------------------------------------------

/// What a scripted task does, in order; when its script ends it exits.
#[derive(Clone, Copy, Debug)]
pub enum Act {
    Run(Ns),
    Sleep(Ns),
    Block,
    /// Wake a task (sync or not); not a step: the next act follows at once.
    Wake(TaskId, bool),
    /// Start a task made with [`Script::forked_task`]; not a step either.
    Fork(TaskId),
    /// sched_setaffinity(task, the CPUs of this bit mask); not a step.
    SetCpus(TaskId, u64),
    /// setpriority(task, nice); not a step.
    SetNice(TaskId, i64),
}

#[derive(Default)]
pub struct Script {
    specs: Vec<TaskSpec>,
    acts: Vec<VecDeque<Act>>,
    exited: usize,
    /// Every `on_run` the core made: (task, woken at, resumed at).
    pub resumed: Vec<(TaskId, Ns, Ns)>,
}

impl Script {
    pub fn new() -> Script {
        Script::default()
    }

    /// A task that may run anywhere, starting at 0, with no working set
    /// (no cache refill costs).
    pub fn task(self, name: &str, acts: &[Act]) -> Script {
        self.task_at(name, 0, None, acts)
    }

    /// A task that starts only when another's [`Act::Fork`] starts it.
    pub fn forked_task(mut self, name: &str, acts: &[Act]) -> Script {
        self = self.task(name, acts);
        if let Some(s) = self.specs.last_mut() {
            s.on_fork = true;
        }
        self
    }

    /// The last task is forked by task `parent` (workload/parent.rs): it starts at
    /// its time on the CPU `parent` is on.
    pub fn child_of(mut self, parent: TaskId) -> Script {
        if let Some(s) = self.specs.last_mut() {
            s.parent = Some(parent);
        }
        self
    }

    /// A SCHED_FIFO task of real-time priority `prio` (core/rt.rs).
    pub fn rt_task(
        mut self,
        name: &str,
        prio: u32,
        start: Ns,
        cpus: Option<Vec<usize>>,
        acts: &[Act],
    ) -> Script {
        self = self.task_at(name, start, cpus, acts);
        if let Some(s) = self.specs.last_mut() {
            s.rt_prio = Some(prio);
        }
        self
    }

    /// The last task is in cgroup `path` (weight 100).
    pub fn in_cgroup(mut self, path: &str) -> Script {
        if let Some(s) = self.specs.last_mut() {
            s.cgroup = Some(crate::task::Cgroup {
                path: path.into(),
                weight: 100,
                limits: Default::default(),
            });
        }
        self
    }

    /// A task starting at `start`, allowed on `cpus` (None: all).
    pub fn task_at(
        mut self,
        name: &str,
        start: Ns,
        cpus: Option<Vec<usize>>,
        acts: &[Act],
    ) -> Script {
        let mut s = TaskSpec::new(name, 1 + self.specs.len() as u32);
        s.working_set = 0;
        s.start_at = start;
        s.cpus = cpus;
        self.specs.push(s);
        self.acts.push(acts.iter().copied().collect());
        self
    }
}

impl Workload for Script {
    fn tasks(&self) -> Vec<TaskSpec> {
        self.specs.clone()
    }
    fn next(&mut self, t: TaskId, _now: Ns, fx: &mut Effects) -> Step {
        loop {
            match self.acts[t].pop_front() {
                Some(Act::Wake(w, sync)) => fx.wake(w, sync, 0),
                Some(Act::Fork(c)) => fx.fork(c),
                Some(Act::SetCpus(o, m)) => {
                    fx.set_cpus(o, (0..64).filter(|&c| m >> c & 1 == 1).collect())
                }
                Some(Act::SetNice(o, n)) => fx.set_nice(o, n),
                Some(Act::Run(ns)) => return Step::Run(ns),
                Some(Act::Sleep(ns)) => return Step::Sleep(ns),
                Some(Act::Block) => return Step::Block,
                None => {
                    self.exited += 1;
                    return Step::Exit;
                }
            }
        }
    }
    fn on_run(&mut self, t: TaskId, woken_at: Ns, now: Ns) {
        self.resumed.push((t, woken_at, now));
    }
    fn finished(&self) -> bool {
        self.exited == self.specs.len()
    }
    fn metrics(&self, _elapsed: Ns) -> Vec<Metric> {
        Vec::new()
    }
}

// ---------------------------------------------------------------------
// A crafted scheduler that records every callback
// ---------------------------------------------------------------------

/// One callback the core made, as the scheduler saw it.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    InitTask {
        t: TaskId,
        fork: bool,
    },
    Enable(TaskId),
    ExitTask(TaskId),
    Select {
        t: TaskId,
        prev: usize,
        flags: u64,
    },
    Enqueue {
        t: TaskId,
        flags: u64,
    },
    Dispatch {
        cpu: usize,
        prev: Option<TaskId>,
    },
    Runnable {
        t: TaskId,
        flags: u64,
    },
    Running(TaskId),
    Stopping {
        t: TaskId,
        runnable: bool,
    },
    Quiescent {
        t: TaskId,
        flags: u64,
    },
    Tick(TaskId),
    UpdateIdle {
        cpu: usize,
        idle: bool,
    },
    CpuRelease {
        cpu: usize,
        next: TaskId,
    },
    CpuAcquire(usize),
    CpuOnline(usize),
    CpuOffline(usize),
    Dequeue {
        t: TaskId,
        flags: u64,
    },
    SetCpumask(TaskId),
    SetWeight {
        t: TaskId,
        weight: u32,
    },
    /// run-time cgroup callbacks (core/cgroup_events.rs): groups by index
    PrepMove {
        t: TaskId,
        from: usize,
        to: usize,
    },
    CgMove {
        t: TaskId,
        from: usize,
        to: usize,
    },
    CancelMove {
        t: TaskId,
        from: usize,
        to: usize,
    },
    CgSetWeight {
        g: usize,
        weight: u32,
    },
    CgSetBandwidth {
        g: usize,
        period: u64,
        quota: u64,
        burst: u64,
    },
    CgSetIdle {
        g: usize,
        idle: bool,
    },
    CgInit(usize),
    CgExit(usize),
}

impl Call {
    /// The task the callback is about, if any.
    pub fn task(&self) -> Option<TaskId> {
        match *self {
            Call::InitTask { t, .. }
            | Call::Enable(t)
            | Call::ExitTask(t)
            | Call::Select { t, .. }
            | Call::Enqueue { t, .. }
            | Call::Runnable { t, .. }
            | Call::Running(t)
            | Call::Stopping { t, .. }
            | Call::Quiescent { t, .. }
            | Call::Dequeue { t, .. }
            | Call::SetCpumask(t)
            | Call::SetWeight { t, .. }
            | Call::PrepMove { t, .. }
            | Call::CgMove { t, .. }
            | Call::CancelMove { t, .. }
            | Call::Tick(t) => Some(t),
            Call::Dispatch { .. }
            | Call::UpdateIdle { .. }
            | Call::CpuRelease { .. }
            | Call::CpuAcquire(_)
            | Call::CpuOnline(_)
            | Call::CpuOffline(_)
            | Call::CgSetWeight { .. }
            | Call::CgSetBandwidth { .. }
            | Call::CgSetIdle { .. }
            | Call::CgInit(_)
            | Call::CgExit(_) => None,
        }
    }
}

/// A callback with when and on which CPU (`core.this_cpu`) it ran.
#[derive(Clone, Debug, PartialEq)]
pub struct Rec {
    pub at: Ns,
    pub cpu: usize,
    pub call: Call,
}

pub type Log = Rc<RefCell<Vec<Rec>>>;
pub type SelectFn = Box<dyn FnMut(&mut Core, TaskId, usize, u64) -> i32>;
type TaskFlagsFn = Box<dyn FnMut(&mut Core, TaskId, u64)>;
type DispatchFn = Box<dyn FnMut(&mut Core, usize, Option<TaskId>)>;
type TaskFn = Box<dyn FnMut(&mut Core, TaskId)>;
type StoppingFn = Box<dyn FnMut(&mut Core, TaskId, bool)>;
type IdleFn = Box<dyn FnMut(&mut Core, usize, bool)>;

/// A scheduler written in Rust. Each callback is recorded in `log`, then
/// handed to its hook; a `None` select / enqueue / dispatch hook means the
/// scheduler does not implement that callback (the core's defaults apply).
pub struct Sched {
    pub flags: u64,
    pub log: Log,
    pub select: Option<SelectFn>,
    pub enqueue: Option<TaskFlagsFn>,
    pub dispatch: Option<DispatchFn>,
    pub init_task: Option<TaskFn>,
    pub running: Option<TaskFn>,
    pub stopping: Option<StoppingFn>,
    pub tick: Option<TaskFn>,
    pub update_idle: Option<IdleFn>,
    /// Implements ops.cpu_acquire and ops.cpu_release (both recorded).
    pub cpu_preempt: bool,
    /// Implements ops.cpu_online and ops.cpu_offline (both recorded).
    pub hotplug: bool,
    /// Implements ops.dequeue, ops.set_cpumask and ops.set_weight (all
    /// recorded).
    pub props: bool,
    /// Implements the cgroup callbacks (all recorded); ops.cgroup_prep_move
    /// fails (-EBUSY) for the tasks listed in `prep_fails`.
    pub cgroups: bool,
    pub prep_fails: Vec<TaskId>,
}

/// scx_simple's select_cpu, with the core's own idle kfuncs: prev if it
/// was idle, else any idle CPU (a whole idle core first); an idle CPU gets
/// the task by direct dispatch to its local DSQ. Otherwise prev.
pub fn simple_select(core: &mut Core, t: TaskId, prev: usize, _flags: u64) -> i32 {
    if core.allowed(t, prev) && core.kf_test_and_clear_idle(prev as i32) {
        core.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL, abi::SCX_SLICE_DFL, None, 0);
        return prev as i32;
    }
    let mask = core.tasks[t].ts.cpus_mask;
    let cpu = core.kf_pick_idle(&mask, 0);
    if cpu >= 0 {
        core.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL, abi::SCX_SLICE_DFL, None, 0);
        return cpu;
    }
    prev as i32
}

/// Inserts `t` into `dsq` and kicks its CPU if idle (scx_arbor's
/// enqueue pattern).
pub fn insert_kick(
    core: &mut Core,
    t: TaskId,
    dsq: u64,
    slice: u64,
    vtime: Option<u64>,
    flags: u64,
) {
    core.kf_dsq_insert(t, dsq, slice, vtime, flags);
    let cpu = core.tasks[t].cpu as i32;
    core.kf_kick_cpu(cpu, abi::SCX_KICK_IDLE);
}

impl Sched {
    /// The FIFO scheduler: scx_simple's select_cpu; enqueue into SHARED;
    /// dispatch moves SHARED's first task to the local DSQ.
    pub fn fifo() -> Sched {
        Sched {
            flags: 0,
            log: Rc::new(RefCell::new(Vec::new())),
            select: Some(Box::new(simple_select)),
            enqueue: Some(Box::new(|c: &mut Core, t, _f| {
                c.kf_dsq_insert(t, SHARED, abi::SCX_SLICE_DFL, None, 0)
            })),
            dispatch: Some(Box::new(|c: &mut Core, _cpu, _prev| {
                c.kf_move_to_local(SHARED);
            })),
            init_task: None,
            running: None,
            stopping: None,
            tick: None,
            update_idle: None,
            cpu_preempt: false,
            hotplug: false,
            props: false,
            cgroups: false,
            prep_fails: Vec::new(),
        }
    }

    /// FIFO without direct dispatch: select_cpu keeps prev, so every task
    /// goes through ops.enqueue and SHARED.
    pub fn fifo_queued() -> Sched {
        let mut s = Sched::fifo();
        s.select = Some(Box::new(|_c: &mut Core, _t, prev, _f| prev as i32));
        s
    }

    /// FIFO that kicks: select_cpu keeps prev; enqueue inserts into SHARED
    /// and kicks the task's CPU if it is idle (SCX_KICK_IDLE), as
    /// scx_arbor does; tests not about wake-up placement use it.
    pub fn fifo_kick() -> Sched {
        let mut s = Sched::fifo_queued();
        s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
            insert_kick(c, t, SHARED, abi::SCX_SLICE_DFL, None, 0)
        }));
        s
    }

    /// Every task to its own CPU's local DSQ: select_cpu keeps prev and
    /// enqueue inserts into SCX_DSQ_LOCAL (which wakes an idle CPU).
    pub fn local() -> Sched {
        let mut s = Sched::fifo_queued();
        s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
            c.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL, abi::SCX_SLICE_DFL, None, 0)
        }));
        s
    }

    fn rec(&self, core: &Core, call: Call) {
        self.log.borrow_mut().push(Rec {
            at: core.now,
            cpu: core.this_cpu,
            call,
        });
    }
}

impl Ops for Sched {
    fn name(&self) -> &str {
        "test"
    }
    fn flags(&self) -> u64 {
        self.flags
    }
    fn init(&mut self, core: &mut Core) -> Result<(), String> {
        match core.kf_create_dsq(SHARED, -1) {
            0 => Ok(()),
            e => Err(format!("create_dsq: {e}")),
        }
    }
    fn init_task(&mut self, core: &mut Core, t: TaskId, fork: bool) -> Result<(), String> {
        self.rec(core, Call::InitTask { t, fork });
        if let Some(f) = self.init_task.as_mut() {
            f(core, t);
        }
        Ok(())
    }
    fn enable(&mut self, core: &mut Core, t: TaskId) {
        self.rec(core, Call::Enable(t));
    }
    fn exit_task(&mut self, core: &mut Core, t: TaskId) {
        self.rec(core, Call::ExitTask(t));
    }
    fn select_cpu(
        &mut self,
        core: &mut Core,
        t: TaskId,
        prev: usize,
        wake_flags: u64,
    ) -> Option<i32> {
        let f = self.select.as_mut()?;
        self.log.borrow_mut().push(Rec {
            at: core.now,
            cpu: core.this_cpu,
            call: Call::Select {
                t,
                prev,
                flags: wake_flags,
            },
        });
        Some(f(core, t, prev, wake_flags))
    }
    fn enqueue(&mut self, core: &mut Core, t: TaskId, enq_flags: u64) -> bool {
        let Some(f) = self.enqueue.as_mut() else {
            return false;
        };
        self.log.borrow_mut().push(Rec {
            at: core.now,
            cpu: core.this_cpu,
            call: Call::Enqueue {
                t,
                flags: enq_flags,
            },
        });
        f(core, t, enq_flags);
        true
    }
    fn dispatch(&mut self, core: &mut Core, cpu: usize, prev: Option<TaskId>) -> bool {
        let Some(f) = self.dispatch.as_mut() else {
            return false;
        };
        self.log.borrow_mut().push(Rec {
            at: core.now,
            cpu: core.this_cpu,
            call: Call::Dispatch { cpu, prev },
        });
        f(core, cpu, prev);
        true
    }
    fn runnable(&mut self, core: &mut Core, t: TaskId, enq_flags: u64) {
        self.rec(
            core,
            Call::Runnable {
                t,
                flags: enq_flags,
            },
        );
    }
    fn running(&mut self, core: &mut Core, t: TaskId) {
        self.rec(core, Call::Running(t));
        if let Some(f) = self.running.as_mut() {
            f(core, t);
        }
    }
    fn stopping(&mut self, core: &mut Core, t: TaskId, runnable: bool) {
        self.rec(core, Call::Stopping { t, runnable });
        if let Some(f) = self.stopping.as_mut() {
            f(core, t, runnable);
        }
    }
    fn quiescent(&mut self, core: &mut Core, t: TaskId, deq_flags: u64) {
        self.rec(
            core,
            Call::Quiescent {
                t,
                flags: deq_flags,
            },
        );
    }
    fn tick(&mut self, core: &mut Core, t: TaskId) {
        self.rec(core, Call::Tick(t));
        if let Some(f) = self.tick.as_mut() {
            f(core, t);
        }
    }
    fn update_idle(&mut self, core: &mut Core, cpu: usize, idle: bool) {
        self.rec(core, Call::UpdateIdle { cpu, idle });
        if let Some(f) = self.update_idle.as_mut() {
            f(core, cpu, idle);
        }
    }
    fn has_cpu_preempt(&self) -> bool {
        self.cpu_preempt
    }
    fn cpu_acquire(&mut self, core: &mut Core, cpu: usize) {
        self.rec(core, Call::CpuAcquire(cpu));
    }
    fn cpu_release(&mut self, core: &mut Core, cpu: usize, next: TaskId) {
        self.rec(core, Call::CpuRelease { cpu, next });
    }
    fn hotplug_ops(&self) -> (bool, bool) {
        (self.hotplug, self.hotplug)
    }
    fn cpu_online(&mut self, core: &mut Core, cpu: usize) {
        self.rec(core, Call::CpuOnline(cpu));
    }
    fn cpu_offline(&mut self, core: &mut Core, cpu: usize) {
        self.rec(core, Call::CpuOffline(cpu));
    }
    fn has_dequeue(&self) -> bool {
        self.props
    }
    fn dequeue(&mut self, core: &mut Core, t: TaskId, flags: u64) {
        self.rec(core, Call::Dequeue { t, flags });
    }
    fn has_set_cpumask(&self) -> bool {
        self.props
    }
    fn set_cpumask(&mut self, core: &mut Core, t: TaskId) {
        self.rec(core, Call::SetCpumask(t));
    }
    fn has_set_weight(&self) -> bool {
        self.props
    }
    fn set_weight(&mut self, core: &mut Core, t: TaskId, weight: u32) {
        self.rec(core, Call::SetWeight { t, weight });
    }
    fn cgroup_run_ops(&self) -> crate::core::ops::RunOps {
        let c = self.cgroups;
        crate::core::ops::RunOps {
            prep_move: c,
            move_: c,
            cancel_move: c,
            set_weight: c,
            set_bandwidth: c,
            set_idle: c,
        }
    }
    fn cgroup_ops(&self) -> (bool, bool) {
        (self.cgroups, self.cgroups)
    }
    fn cgroup_prep_move(&mut self, core: &mut Core, t: TaskId, from: usize, to: usize) -> i32 {
        self.rec(core, Call::PrepMove { t, from, to });
        if self.prep_fails.contains(&t) {
            -16
        } else {
            0
        }
    }
    fn cgroup_move(&mut self, core: &mut Core, t: TaskId, from: usize, to: usize) {
        self.rec(core, Call::CgMove { t, from, to });
    }
    fn cgroup_cancel_move(&mut self, core: &mut Core, t: TaskId, from: usize, to: usize) {
        self.rec(core, Call::CancelMove { t, from, to });
    }
    fn cgroup_set_weight(&mut self, core: &mut Core, g: usize, weight: u32) {
        self.rec(core, Call::CgSetWeight { g, weight });
    }
    fn cgroup_set_bandwidth(&mut self, core: &mut Core, g: usize, p: u64, q: u64, b: u64) {
        self.rec(
            core,
            Call::CgSetBandwidth {
                g,
                period: p,
                quota: q,
                burst: b,
            },
        );
    }
    fn cgroup_set_idle(&mut self, core: &mut Core, g: usize, idle: bool) {
        self.rec(core, Call::CgSetIdle { g, idle });
    }
    fn cgroup_init_one(&mut self, core: &mut Core, g: usize) -> Result<(), String> {
        self.rec(core, Call::CgInit(g));
        Ok(())
    }
    fn cgroup_exit_one(&mut self, core: &mut Core, g: usize) {
        self.rec(core, Call::CgExit(g));
    }
    fn timer(&mut self, _core: &mut Core, _timer: usize) {}
    fn exit(&mut self, _core: &mut Core, _reason: &str) {}
    fn counters(&self) -> Vec<(String, u64)> {
        Vec::new()
    }
}

// ---------------------------------------------------------------------
// Running and reading the log
// ---------------------------------------------------------------------

/// Runs `w` under `s` on `m`; returns the core (for its final state) and
/// why the run stopped.
pub fn run_with(
    m: Machine,
    cost: CostModel,
    cfg: Config,
    s: &mut Sched,
    w: &mut Script,
) -> (Core, Stop) {
    let mut core = Core::new(m, cost, cfg).unwrap();
    let stop = core.run(s, w, |_| {});
    (core, stop)
}

/// Runs with no costs and the default test config.
pub fn run(m: Machine, s: &mut Sched, w: &mut Script) -> (Core, Stop) {
    run_with(m, zero_cost(), cfg(), s, w)
}

/// The records of the log that `keep` selects.
pub fn calls(log: &Log, keep: impl Fn(&Rec) -> bool) -> Vec<Rec> {
    log.borrow().iter().filter(|r| keep(r)).cloned().collect()
}

/// The records about task `t`.
pub fn of_task(log: &Log, t: TaskId) -> Vec<Rec> {
    calls(log, |r| r.call.task() == Some(t))
}

/// (time, CPU) of each time `t` started running.
pub fn runs_of(log: &Log, t: TaskId) -> Vec<(Ns, usize)> {
    calls(log, |r| r.call == Call::Running(t))
        .into_iter()
        .map(|r| (r.at, r.cpu))
        .collect()
}

pub fn stopped_ok(stop: &Stop) {
    assert_eq!(*stop, Stop::Finished, "the run should finish");
}

/// The reason of an ejection; panics on any other stop.
pub fn ejected(stop: &Stop) -> &str {
    match stop {
        Stop::Ejected(r) => r,
        other => panic!("expected an ejection, got {other:?}"),
    }
}

/// The message of an invariant violation; panics on any other stop.
pub fn violated(stop: &Stop) -> &str {
    match stop {
        Stop::Invariant(r) => r,
        other => panic!("expected an invariant violation, got {other:?}"),
    }
}

/// A shared cell for hooks to report into.
pub fn cell<T: Default>() -> Rc<RefCell<T>> {
    Rc::new(RefCell::new(T::default()))
}
