//! The sched_ext core, modelled on kernel/sched/ext/ext.c and idle.c of
//! Linux 7.2.13 (docs/sim/ext-semantics.md gives the line of each rule,
//! cited below as "ext.c:N" / "idle.c:N" / "checklist N"), driving a
//! simulated machine in discrete events with nanosecond resolution.
//!
//! Every CPU advances at once: a CPU is a timeline of task runs, each
//! progressing at the CPU's speed (capacity x SMT sharing x data-sharing
//! slowdown), with the costs of switching, waking and refilling caches
//! added where they occur.

mod affinity;
pub mod cache;
pub mod cgroup;
pub mod cgroup_events;
pub mod dsq;
pub mod governor;
pub mod hotplug;
mod immed;
pub mod kfuncs;
pub mod lavd;
pub mod ops;
pub mod peers;
mod rt;
pub mod run;
pub mod slots;
pub mod stats;
#[cfg(test)]
pub(crate) mod tests;
mod wake_batch;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use crate::abi::{self, CpuMask, Signal, TaskStruct};
use crate::cost::CostModel;
use crate::machine::Machine;
use crate::task::{Effects, Ns, Step, TaskId, TaskSpec, Workload};
use cache::{CacheModel, Warmth};
use dsq::{Dsq, DsqRef};
use governor::IDLE_HISTORY;
pub use ops::Ops;
use stats::Stats;

/// Run settings that are not the machine, the costs or the workload.
#[derive(Clone, Debug)]
pub struct Config {
    pub hz: u32,
    /// Stop at this simulated time even if the workload is not finished.
    pub time_limit: Ns,
    /// sched_ext's watchdog timeout (scx_watchdog_timeout, 30 s).
    pub watchdog_ns: Ns,
    /// Keep a per-CPU timeline for --trace.
    pub trace: bool,
    /// Sweep all invariants every this many ns of simulated time.
    pub sweep_ns: Ns,
    /// The run's seed. It perturbs only when tasks start: each start is
    /// delayed by a pseudo-random 0..start_jitter_ns. Without it, a workload
    /// with no randomness of its own (hackbench) gives the same trajectory
    /// for every seed, and -r N could not show how much a result depends on
    /// chance: a real machine never starts two runs in the same state.
    pub seed: u64,
    /// 10 µs: less than one fork (lmbench's lat_proc fork is ~100 µs on
    /// x86 servers), so the start order a workload asks for is kept in
    /// the large and perturbed only in detail.
    pub start_jitter_ns: Ns,
    /// Every instruction runs this many times slower while the clock keeps
    /// its pace: tasks' work, the cost model's software costs and cache
    /// refills are stretched by it; timers, ticks and idle-exit latencies
    /// are not. 1.0 is the machine itself. `arbor sim validate` uses it to
    /// stand for a QEMU TCG guest, whose clock is the host's while its code
    /// runs emulated (measured, not tuned: see validate.rs).
    pub slowdown: f64,
    /// All CPUs take turns on one host thread (QEMU's single-threaded TCG):
    /// the busy CPUs share one CPU's speed equally (the fluid limit of
    /// TCG's round-robin, which switches vCPUs on halt, on an IPI to
    /// another vCPU, and every 100 ms at the latest), and the machine's
    /// hardware costs that an emulator does not have are off: no SMT
    /// sharing, no cache refill or cross-LLC sharing cost, no idle-state
    /// exit latency.
    pub one_host_thread: bool,
    /// CPU hotplug events during the run (core/hotplug.rs).
    pub hotplug: Vec<hotplug::Hotplug>,
    /// Cgroup changes during the run, in time order (core/cgroup_events.rs).
    pub cgroup_events: Vec<cgroup_events::Event>,
}

impl Config {
    /// Settings a run cannot use; one-line errors.
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.hz == 0 || self.hz > 10_000 {
            anyhow::bail!("--hz must be in 1..=10000 (got {})", self.hz);
        }
        // a sweep re-queued at the same time would never let time advance
        if !(self.slowdown.is_finite() && (1.0..=10_000.0).contains(&self.slowdown)) {
            anyhow::bail!(
                "--slowdown must be a number in 1..=10000 (got {})",
                self.slowdown
            );
        }
        if self.sweep_ns == 0 {
            anyhow::bail!("the invariant sweep period must be above 0 ns");
        }
        Ok(())
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            hz: 1000,
            time_limit: 60_000_000_000,
            watchdog_ns: 30_000_000_000,
            trace: false,
            sweep_ns: 10_000_000,
            seed: 1,
            start_jitter_ns: 10_000,
            slowdown: 1.0,
            one_host_thread: false,
            hotplug: Vec::new(),
            cgroup_events: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskState {
    /// Not yet started.
    New,
    /// Asleep or blocked.
    Sleeping,
    /// Runnable, held by the BPF scheduler (enqueue inserted nowhere).
    Bpf,
    /// Runnable, in a DSQ.
    Queued(DsqRef),
    /// Runnable, a SCHED_FIFO/RR task waiting on this CPU's RT queue.
    RtQueued(usize),
    Running(usize),
    Exited,
}

/// A simulated task. The fields a Run step's end reads and writes
/// (remaining, deferred, state, in_run: run_end, settle, advance,
/// arm_run_end; then batch) come first, in declaration order (repr(C)),
/// and the record starts on a cache line (align(64)): a step touches the
/// first two lines of its task, where the compiler's order spread them
/// over offsets 344-464 of 464 bytes (three or four lines); 320 tasks of
/// hackbench do not stay in a 32 KiB L1.
#[repr(C, align(64))]
pub struct Task {
    /// Work left in the current Run step (ns at full speed).
    pub remaining: f64,
    /// The step it took just before the migration stopper moved it off
    /// its CPU (a sched_setaffinity on itself that excluded its CPU): it
    /// takes it when it next runs (affinity.rs).
    pub deferred: Option<Step>,
    pub state: TaskState,
    /// It has a Run step in progress.
    pub in_run: bool,
    /// The rest of a batch of wake-ups this task issued in one step, made
    /// one at a time as its CPU finishes the one before (wake_batch.rs).
    pub batch: VecDeque<(TaskId, bool, u64)>,
    pub spec: TaskSpec,
    pub ts: Box<TaskStruct>,
    /// The CPU it is assigned to (task_cpu(p)).
    pub cpu: usize,
    /// The CPU it last ran on.
    pub last_ran: Option<usize>,
    pub warmth: Warmth,
    /// When it last became runnable (watchdog) and when it was woken (latency).
    pub runnable_at: Ns,
    pub woken_at: Option<Ns>,
    /// Data its waker wrote for it: (waker's CPU, bytes).
    pub message: Option<(usize, u64)>,
    /// Generation of its sleep timer.
    pub timer_gen: u64,
    /// A dispatch-buffer or direct-dispatch entry refers to this queueing.
    pub qseq: u64,
    /// SCX_TASK_IMMED: inserted into a local DSQ with SCX_ENQ_IMMED since
    /// its last enqueue (immed.rs).
    pub immed: bool,
    /// SCX_TASK_IN_CUSTODY: the BPF scheduler holds it (ops.enqueue kept
    /// it, or it is in a user DSQ); ops.dequeue fires when it leaves
    /// (affinity.rs).
    pub custody: bool,
    /// The batch's wake-ups are system calls of their own
    /// ([`Effects::wakes_apart`]): preemptible between them.
    pub batch_apart: bool,
    /// Its current Run step is the gap before the batch's next wake-up.
    pub in_wake_gap: bool,
    /// Woken (at this time) while inside its batch, before the block or
    /// sleep its workload asked for after it (wake_batch.rs).
    pub woken_in_batch: Option<Ns>,
}

/// SplitMix64's finaliser of (seed, i)
fn splitmix(seed: u64, i: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(i.wrapping_add(1).wrapping_mul(0xbf58_476d_1ce4_e5b9));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A pseudo-random 0..max from (seed, i): SplitMix64's finaliser
/// (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014), so each task's draw depends on nothing but its index.
fn jitter(seed: u64, i: u64, max: Ns) -> Ns {
    if max == 0 {
        return 0;
    }
    splitmix(seed, i) % max
}

/// A direct or buffered insert (ext.c: ddsp / dispatch buffer).
#[derive(Clone, Copy, Debug)]
pub struct Insert {
    pub task: TaskId,
    pub dsq: u64,
    pub slice: u64,
    pub vtime: Option<u64>,
    pub flags: u64,
    pub qseq: u64,
}

/// One CPU's state. The fields every Run step's end reads and writes
/// (curr, gen, seg_start, rate, pending_stall: run_end, settle,
/// arm_run_end, advance) come first, in declaration order (repr(C)), and
/// the record starts on a cache line (align(64)), so that a step touches
/// one line of its CPU instead of the three that the compiler's order put
/// them on (offsets 0, 184-208 and 248 of 272 bytes); with 88 CPUs and 320
/// tasks the records do not stay in a 32 KiB L1.
#[repr(C, align(64))]
pub struct Cpu {
    pub curr: Option<TaskId>,
    pub gen: u64,
    /// When the current run's progress (re)started, after any stall.
    pub seg_start: Ns,
    pub rate: f64,
    /// Extra time charged to this CPU by callbacks and wake-ups in the
    /// current step, added before its next run.
    pub pending_stall: f64,
    pub local: Dsq,
    /// When the slice was last charged (update_curr_scx).
    pub slice_ts: Ns,
    pub busy_since: Option<Ns>,
    pub idle_since: Option<Ns>,
    pub busy_ns: u64,
    pub idle_ns: u64,
    pub resched_at: Option<Ns>,
    pub tick_armed: bool,
    /// Index of the idle state entered, and the last idle period (the
    /// governor's stand-in for its timer guess: governor.rs).
    pub cstate: usize,
    pub last_idle_ns: u64,
    /// The last `IDLE_HISTORY` idle periods in us (a ring, oldest
    /// overwritten first) and the next slot: the menu governor's
    /// `intervals[]`.
    pub idle_hist_us: [u64; IDLE_HISTORY],
    pub idle_hist_at: u8,
    /// A resched that came while its task was inside a batch of wake-ups
    /// it may not be preempted in: taken at the batch's end (wake_batch.rs).
    pub held_resched: bool,
    pub trace_start: Ns,
    /// rq->next_class is ext (not idle): an SCX task runs, is being
    /// picked, or was woken onto this idle CPU (immed.rs rq_is_open).
    pub next_ext: bool,
    /// Runnable RT tasks waiting on this CPU, in arrival order (rt.rs).
    pub rt: Vec<TaskId>,
    /// rq->scx.cpu_released: ops.cpu_release ran, cpu_acquire has not yet.
    pub cpu_released: bool,
    /// The migration stopper took its task off it (affinity.rs): no task
    /// runs, but it is not idle until its next schedule() says so.
    pub stopped: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// A CPU goes through the scheduler (resched_curr delivered).
    Resched(usize),
    /// The running task's Run step ends (if `gen` still matches).
    RunEnd(usize, u64),
    Tick(usize),
    /// A sleeping task's timer fires.
    Wake(TaskId, u64),
    /// A task starts (spawned at its start time).
    Start(TaskId),
    /// A BPF timer fires.
    BpfTimer(usize, u64),
    Sweep,
    /// A CPU goes online (true) or offline (false): core/hotplug.rs.
    Hotplug(usize, bool),
    /// A cgroup change: cfg.cgroup_events[i] (core/cgroup_events.rs).
    Cgroup(usize),
}

/// Why a run stopped early.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    Finished,
    TimeLimit,
    /// The scheduler was ejected (scx_bpf_error, watchdog, bad kfunc use).
    Ejected(String),
    /// An invariant was violated: a bug in the scheduler or the model.
    Invariant(String),
}

pub struct Core {
    pub now: Ns,
    pub cfg: Config,
    pub machine: Machine,
    pub cost: CostModel,
    pub cpus: Vec<Cpu>,
    pub tasks: Vec<Task>,
    /// The cgroups the tasks are in (cgroup.rs).
    pub cgroups: cgroup::Cgroups,
    pub cache: CacheModel,
    /// One global DSQ per NUMA node (ext.c:354-357, checklist 10).
    global: Vec<Dsq>,
    user: dsq::UserDsqs,
    idle_mask: Box<CpuMask>,
    smt_mask: Box<CpuMask>,
    /// The online CPUs (cpu_online_mask).
    all_mask: Box<CpuMask>,
    /// The possible CPUs (cpu_possible_mask): an unpinned task's cpumask.
    possible_mask: Box<CpuMask>,
    /// cpu_online(cpu) for each CPU id (core/hotplug.rs).
    online: Vec<bool>,
    /// scx_hotplug_seq: hotplug events so far (ext.c:3589); a test may
    /// set it to stand for events before the run.
    pub hotplug_seq: u64,
    /// ops.hotplug_seq, which a loader sets to scx_hotplug_seq when it
    /// loads the program (SCX_OPS_LOAD); None: 0, not checked.
    pub expected_hotplug_seq: Option<u64>,
    /// The scheduler's restarts at the kernel's request: (when, why).
    restarts: Vec<(Ns, String)>,
    /// Loads a fresh instance of the scheduler for a restart; without one
    /// an exit that asks for a restart ends the run.
    pub reloader: Option<hotplug::Reloader>,
    /// The instance loaded by the last restart (its counters are the run's).
    pub reloaded: Option<Box<dyn Ops>>,
    /// Idle tasks (swapper/N), one per CPU: `current` when a CPU is idle.
    idle_tasks: Vec<Box<TaskStruct>>,
    signals: BTreeMap<u32, Box<Signal>>,
    events: BinaryHeap<Reverse<(Ns, u64, Ev)>>,
    /// Each CPU's pending RunEnd, outside the heap (see slots.rs).
    run_ends: slots::CpuSlots,
    seq: u64,
    /// The CPU whose callback is running, and whether it is select_cpu /
    /// enqueue (direct dispatch) or dispatch (buffered).
    pub this_cpu: usize,
    /// Each CPU's last idle pick (cpumask_any_and_distribute's per-CPU
    /// distribute_cpu_mask_prev).
    pick_prev: Vec<usize>,
    /// Draws of bpf_get_prandom_u32 so far (the i of SplitMix64(seed, i)).
    prandom_n: u64,
    ctx: Ctx,
    ddsp: Option<Insert>,
    dispatch_buf: Vec<Insert>,
    /// dspc->nr_tasks of the dispatch round under way (ext.c:2894): every
    /// insert ops.dispatch made, applied or not (flush_dispatch_buf, 2801),
    /// and every task scx_bpf_dsq_move_to_local moved (9310).
    dsp_nr_tasks: usize,
    iters: Vec<Option<(u64, Vec<TaskId>, usize)>>,
    pub timers: Vec<(u64 /*armed gen*/, usize /*cpu*/)>,
    /// BPF timers by address (native schedulers), index = timer id.
    pub timer_ptrs: Vec<usize>,
    /// The native scheduler's live count of helper calls in a callback.
    pub calls_ptr: Option<*const u64>,
    pub stop: Option<Stop>,
    /// How the scheduler exited, as ops.exit is told (struct scx_exit_info):
    /// the kind (SCX_EXIT_*, 0 = none yet) and scx_bpf_exit's code.
    pub exit_kind: i64,
    pub exit_code: i64,
    pub ops_flags: u64,
    pub stats: Stats,
    /// ns spent inside the current callback (helper and kfunc calls).
    pub cb_ns: f64,
    /// The latest time a callback read (kf_ktime): no later reading is
    /// earlier.
    ktime_last: Ns,
    /// Inside a wake-up: (waker's CPU, its pending stall when the wake-up
    /// began); see wake_one.
    wake_batch: Option<(usize, f64)>,
    ops_name: String,
    /// The per-node idle masks a peer last asked for (cpu, smt).
    node_masks: Vec<Box<CpuMask>>,
    /// The task put_prev_task is switching out (still rq->curr).
    putting_prev: Option<TaskId>,
    /// The CPU in balance_one (SCX_RQ_IN_BALANCE) while its ops.dispatch
    /// loop runs.
    in_balance: Option<usize>,
    /// A CPU in schedule() and the task that is still its rq->curr there
    /// (the one switching out, or blocking) until the pick.
    sched_prev: Option<(usize, TaskId)>,
    /// run_deferred is under way (immed.rs).
    deferring: bool,
    /// The CPUs whose local DSQ has a re-enqueue scheduled
    /// (schedule_reenq_local), and each one's rounds in the run_deferred
    /// pass under way (immed.rs).
    reenq: immed::Pending,
    /// Emptied Effects for the workload's steps, reused so that a step
    /// allocates nothing (advance); boxed, so that taking one and giving it
    /// back moves a pointer.
    fx_pool: Vec<Box<Effects>>,
    /// scx_select_cpu_dfl's spans and gates, once computed.
    selcpu_topo: Option<Box<peers::SelCpuTopo>>,
    cpu_core: Vec<usize>,
    core_cpus: Vec<Vec<usize>>,
    /// Each core's online threads that run a task, and all CPUs that do
    /// (set_curr keeps them): a run's speed reads them at every re-timing.
    core_busy: Vec<usize>,
    nr_busy: usize,
    /// Each CPU's capacity / 1024 (the same f64 rate_of computed each time).
    cap_frac: Vec<f64>,
    /// Each CPU's speed at its core's busy count, at least 1
    /// (recount_core keeps it with core_busy): [capacity x SMT share,
    /// that / cfg.slowdown] (run.rs cpu_speed), the two values rate_of
    /// computes on the way for a task that shares no lines, so that a Run
    /// step's re-arm reads one figure instead of four.
    smt_rate: Vec<[f64; 2]>,
    /// Each core's CPUs, online or not (rate_of reads an offline CPU's
    /// core's busy count too): core k's are
    /// core_all_cpus[core_all_at[k]..core_all_at[k + 1]] (two vectors, not
    /// one a core: a short run's setup is much of its cost).
    core_all_cpus: Vec<usize>,
    core_all_at: Vec<usize>,
    /// Some core has two online threads (smt_active).
    smt_on: bool,
    /// CPUs 0..nr_cpus, and each node's CPUs, for word-wise mask scans.
    machine_cpus: CpuMask,
    node_cpus: Vec<CpuMask>,
    cpu_node: Vec<usize>,
    /// The last events, for invariant reports (formatted only then).
    recent: std::collections::VecDeque<(Ns, Note)>,
    /// The process that started the workload: every simulated task's
    /// real_parent (lavd.rs); the sim does not schedule it.
    launcher: Box<TaskStruct>,
    /// Each CPU's rq->clock_pelt and rq->clock_task, and when they were
    /// last brought up to date (lavd.rs, update_rq_clock).
    pelt: Vec<(u64, u64, Ns)>,
    /// Tasks that left BPF custody inside a callback (a kfunc moved them):
    /// their ops.dequeue(p, 0) runs when the callback returns (affinity.rs).
    pending_deq: Vec<TaskId>,
    /// The task being re-enqueued on its own rq by a property change
    /// (ENQUEUE_RESTORE) before the core migrates it: a direct dispatch to
    /// its own CPU's local DSQ is not checked against its new mask there,
    /// as direct_dispatch does not check it (ext.c:1840-1891).
    restoring: Option<TaskId>,
}

/// How many of the last events an invariant report shows.
const RECENT: usize = 16;

/// One of the last events, kept for invariant reports.
#[derive(Clone, Copy, Debug)]
enum Note {
    Wake {
        t: TaskId,
        cpu: usize,
        flags: u64,
    },
    Insert {
        t: TaskId,
        dsq: DsqRef,
    },
    Run {
        t: TaskId,
        cpu: usize,
    },
    /// Switched out: still runnable (preempted, expired) or not (sleeps, exits).
    Stop {
        t: TaskId,
        cpu: usize,
        runnable: bool,
    },
    Idle(usize),
}

/// A DSQ as a report names it.
fn dsq_name(q: DsqRef) -> String {
    match q {
        DsqRef::Local(c) => format!("CPU {c}'s local DSQ"),
        DsqRef::Global => "the global DSQ".into(),
        DsqRef::User(id) => format!("DSQ {id:#x}"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    None,
    SelectCpu,
    Enqueue,
    Dispatch,
    Other,
}

impl Core {
    pub fn new(machine: Machine, cost: CostModel, cfg: Config) -> anyhow::Result<Core> {
        machine.validate()?;
        let n = machine.nr_cpus();
        if n > abi::MAX_CPUS {
            anyhow::bail!(
                "{} CPUs exceed the simulator's maximum of {}",
                n,
                abi::MAX_CPUS
            );
        }
        cfg.validate()?;
        let stretched_cost = cost.stretched(cfg.slowdown);
        let nodes = machine.cpus.iter().map(|c| c.node).max().unwrap_or(0) + 1;
        let cores = machine.cpus.iter().map(|c| c.core).max().unwrap_or(0) + 1;
        // each core's online threads (cpu_smt_mask holds online CPUs only)
        let mut core_cpus = vec![Vec::new(); cores];
        for c in &machine.cpus {
            if machine.online_at_start(c.id) {
                core_cpus[c.core].push(c.id);
            }
        }
        hotplug::check(&machine, &cfg.hotplug)?;
        let online: Vec<bool> = (0..n).map(|c| machine.online_at_start(c)).collect();
        let online_count = online.iter().filter(|&&o| o).count();
        let mut all = CpuMask::empty();
        let mut possible = CpuMask::empty();
        for c in 0..n {
            all.set(c, online[c]);
            possible.set(c, machine.possible(c));
        }
        let idle_tasks = (0..n)
            .map(|c| {
                let mut ts = Box::new(new_task_struct(0, 0, PF_IDLE_FLAGS, 100));
                ts.cpus_mask.set(c, true);
                ts.cpus_ptr = &ts.cpus_mask;
                ts.nr_cpus_allowed = 1;
                ts.sim_id = u32::MAX;
                ts.thread_info.cpu = c as u32;
                ts
            })
            .collect::<Vec<_>>();
        let mut idle_tasks = idle_tasks;
        // every idle task's parent is swapper/0 (fork_idle from init_task)
        let swapper0: *mut TaskStruct = &mut *idle_tasks[0];
        for ts in idle_tasks.iter_mut() {
            ts.real_parent = swapper0;
        }
        let cpus = (0..n)
            .map(|_| Cpu {
                curr: None,
                local: Dsq::default(),
                seg_start: 0,
                rate: 1.0,
                gen: 0,
                slice_ts: 0,
                busy_since: None,
                idle_since: Some(0),
                busy_ns: 0,
                idle_ns: 0,
                resched_at: None,
                tick_armed: false,
                cstate: 0,
                last_idle_ns: 0,
                idle_hist_us: [0; IDLE_HISTORY],
                idle_hist_at: 0,
                pending_stall: 0.0,
                held_resched: false,
                trace_start: 0,
                next_ext: false,
                rt: Vec::new(),
                cpu_released: false,
                stopped: false,
            })
            .collect();
        // idle.c:801-812: the idle masks start as the online CPUs
        let mut idle_mask = Box::new(CpuMask::empty());
        for c in 0..n {
            idle_mask.set(c, online[c]);
        }
        let mut smt_mask = Box::new(CpuMask::empty());
        for c in 0..n {
            smt_mask.set(c, online[c]);
        }
        let cap_frac: Vec<f64> = machine
            .cpus
            .iter()
            .map(|c| c.capacity as f64 / 1024.0)
            .collect();
        // each core's CPUs, online or not, by a counting sort
        let mut core_all_at = vec![0; cores + 1];
        for c in &machine.cpus {
            core_all_at[c.core + 1] += 1;
        }
        for k in 0..cores {
            core_all_at[k + 1] += core_all_at[k];
        }
        let mut core_all_cpus = vec![0; machine.cpus.len()];
        let mut next = core_all_at.clone();
        for c in &machine.cpus {
            core_all_cpus[next[c.core]] = c.id;
            next[c.core] += 1;
        }
        Ok(Core {
            now: 0,
            cache: CacheModel::new(&machine),
            cpu_core: machine.cpus.iter().map(|c| c.core).collect(),
            cpu_node: machine.cpus.iter().map(|c| c.node).collect(),
            core_busy: vec![0; core_cpus.len()],
            nr_busy: 0,
            // every CPU's speed with no busy thread on its core, as
            // recount_core computes it for a busy count of 0 or 1
            smt_rate: cap_frac
                .iter()
                .map(|&f| run::cpu_speed(f, &machine.smt.throughput, 1, cfg.slowdown))
                .collect(),
            cap_frac,
            core_all_cpus,
            core_all_at,
            smt_on: core_cpus.iter().any(|c| c.len() > 1),
            machine_cpus: CpuMask::first(n),
            node_cpus: (0..nodes)
                .map(|x| {
                    let mut m = CpuMask::empty();
                    for (i, c) in machine.cpus.iter().enumerate() {
                        m.set(i, c.node == x);
                    }
                    m
                })
                .collect(),
            core_cpus,
            cfg,
            cost: stretched_cost,
            cpus,
            tasks: Vec::new(),
            cgroups: Default::default(),
            global: (0..nodes).map(|_| Dsq::default()).collect(),
            user: Default::default(),
            idle_mask,
            smt_mask,
            all_mask: Box::new(all),
            possible_mask: Box::new(possible),
            online,
            hotplug_seq: 0,
            expected_hotplug_seq: None,
            restarts: Vec::new(),
            reloader: None,
            reloaded: None,
            idle_tasks,
            signals: BTreeMap::new(),
            events: BinaryHeap::new(),
            run_ends: slots::CpuSlots::new(n),
            seq: 0,
            this_cpu: 0,
            pick_prev: vec![0; n],
            prandom_n: 0,
            ctx: Ctx::None,
            ddsp: None,
            dispatch_buf: Vec::new(),
            dsp_nr_tasks: 0,
            iters: Vec::new(),
            timers: Vec::new(),
            timer_ptrs: Vec::new(),
            calls_ptr: None,
            stop: None,
            exit_kind: 0,
            exit_code: 0,
            ops_flags: 0,
            stats: Stats::new(online_count),
            cb_ns: 0.0,
            ktime_last: 0,
            wake_batch: None,
            ops_name: String::new(),
            node_masks: vec![Box::new(CpuMask::empty()), Box::new(CpuMask::empty())],
            putting_prev: None,
            in_balance: None,
            sched_prev: None,
            deferring: false,
            reenq: immed::Pending::new(n),
            fx_pool: Vec::new(),
            selcpu_topo: None,
            recent: Default::default(),
            launcher: lavd::launcher(),
            pelt: vec![(0, 0, 0); n],
            pending_deq: Vec::new(),
            restoring: None,
            machine,
        })
    }

    pub fn nr_cpus(&self) -> usize {
        self.cpus.len()
    }

    pub fn nr_nodes(&self) -> usize {
        self.global.len()
    }

    fn push(&mut self, at: Ns, ev: Ev) {
        self.seq += 1;
        self.events.push(Reverse((at, self.seq, ev)));
    }

    /// Every change of a task's state goes through here (it is counted:
    /// the speed figures' "events" are callbacks and state changes).
    pub(crate) fn set_state(&mut self, t: TaskId, s: TaskState) {
        self.tasks[t].state = s;
        self.stats.state_changes += 1;
    }

    /// Remembers an event for a violation report (formatted only then).
    fn note(&mut self, n: Note) {
        if self.recent.len() >= RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back((self.now, n));
    }

    /// A task as a report names it.
    fn task_name(&self, t: TaskId) -> String {
        format!("{} (task {t})", self.tasks[t].spec.name)
    }

    fn describe(&self, n: Note) -> String {
        match n {
            Note::Wake { t, cpu, flags } => {
                format!(
                    "wake {} onto CPU {cpu} (wake flags {flags:#x})",
                    self.task_name(t)
                )
            }
            Note::Insert { t, dsq } => {
                format!("insert {} into {}", self.task_name(t), dsq_name(dsq))
            }
            Note::Run { t, cpu } => format!("CPU {cpu} runs {}", self.task_name(t)),
            Note::Stop { t, cpu, runnable } => format!(
                "CPU {cpu} switches out {} ({})",
                self.task_name(t),
                if runnable {
                    "still runnable"
                } else {
                    "sleeps or exits"
                }
            ),
            Note::Idle(cpu) => format!("CPU {cpu} goes idle"),
        }
    }

    /// An invariant report: what failed, when, and the last events.
    fn report(&self, what: String) -> String {
        let last: Vec<String> = self
            .recent
            .iter()
            .map(|&(at, n)| format!("{at:>12} ns  {}", self.describe(n)))
            .collect();
        format!(
            "{what} at {} ns; last events:\n  {}",
            self.now,
            last.join("\n  ")
        )
    }

    /// Runs `f` outside any callback, as a user-space BPF_PROG_TEST_RUN of
    /// a SEC("syscall") program runs: no rq lock held, so kfuncs that
    /// allow unlocked callers (scx_bpf_select_cpu_and / _dfl) take it.
    pub fn unlocked<R>(&mut self, f: impl FnOnce(&mut Core) -> R) -> R {
        let saved = self.ctx;
        self.ctx = Ctx::None;
        let r = f(self);
        self.ctx = saved;
        r
    }

    /// Stops the run: the scheduler is ejected (first reason wins), by an
    /// error ext.c finds (scx_error: SCX_EXIT_ERROR).
    pub fn eject(&mut self, why: String) {
        self.eject_as(abi::SCX_EXIT_ERROR, 0, why);
    }

    /// Stops the run with exit `kind` (SCX_EXIT_*) and `code` (scx_exit,
    /// ext.c: the first exit wins).
    pub fn eject_as(&mut self, kind: i64, code: i64, why: String) {
        if self.stop.is_none() {
            self.stop = Some(Stop::Ejected(why));
            self.exit_kind = kind;
            self.exit_code = code;
        }
    }

    /// Stops the run: an invariant failed. Names the task, CPU and time,
    /// and the last events.
    pub fn violation(&mut self, what: String) {
        if self.stop.is_none() {
            self.stop = Some(Stop::Invariant(self.report(what)));
        }
    }

    pub fn task_ptr(&mut self, t: TaskId) -> *mut TaskStruct {
        &mut *self.tasks[t].ts as *mut TaskStruct
    }

    /// The task whose task_struct `p` is (the shim passes back pointers the
    /// core gave it; anything else is None).
    pub(crate) fn task_of(&self, p: *const TaskStruct) -> Option<TaskId> {
        if p.is_null() {
            return None;
        }
        // SAFETY: every task_struct the shim sees was made by this core
        let id = unsafe { (*p).sim_id } as usize;
        let t = self.tasks.get(id)?;
        std::ptr::eq(&*t.ts, p).then_some(id)
    }

    /// The task running on `cpu`'s behalf (bpf_get_current_task_btf): the
    /// running task, or the CPU's idle task.
    pub fn current_ptr(&mut self, cpu: usize) -> *mut TaskStruct {
        match self.cpus[cpu].curr {
            Some(t) => self.task_ptr(t),
            None => &mut *self.idle_tasks[cpu] as *mut TaskStruct,
        }
    }

    pub fn idle_mask_ptr(&self) -> *const CpuMask {
        &*self.idle_mask
    }

    pub fn smt_mask_ptr(&self) -> *const CpuMask {
        &*self.smt_mask
    }

    fn allowed(&self, t: TaskId, cpu: usize) -> bool {
        cpu < self.cpus.len() && self.tasks[t].ts.cpus_mask.test(cpu)
    }

    // ---------------------------------------------------------------
    // Callbacks: cost accounting around every call into the scheduler
    // ---------------------------------------------------------------

    /// Runs one callback on `cpu` in context `ctx`, charging its cost.
    fn call<R>(
        &mut self,
        cpu: usize,
        ctx: Ctx,
        op: &'static str,
        f: impl FnOnce(&mut Core) -> R,
    ) -> R {
        let (saved_cpu, saved_ctx, saved_ns) = (self.this_cpu, self.ctx, self.cb_ns);
        self.this_cpu = cpu;
        self.ctx = ctx;
        self.cb_ns = 0.0;
        let r = f(self);
        let spent = self.cost.bpf_callback_ns + self.cb_ns;
        self.cpus[cpu].pending_stall += spent;
        self.stats.bpf_ns += spent;
        self.stats.callbacks += 1;
        self.stats.count_op(op, spent);
        self.this_cpu = saved_cpu;
        self.ctx = saved_ctx;
        self.cb_ns = saved_ns;
        r
    }

    /// The shim counted `calls` helper/kfunc calls in the callback.
    pub fn charge_calls(&mut self, calls: u64) {
        self.cb_ns += calls as f64 * self.cost.bpf_call_ns;
    }

    // ---------------------------------------------------------------
    // Tasks: creation, wake-up, enqueue (ext.c do_enqueue_task)
    // ---------------------------------------------------------------

    /// Adds the workload's tasks; each starts at its start time.
    pub fn spawn(&mut self, specs: Vec<TaskSpec>) -> anyhow::Result<()> {
        // a task others name as their parent starts exactly at its time,
        // before them: their jitter is their fork times within its run
        let n = specs.len();
        // spawned before the first run: no run time has gone untracked
        self.stats.track_occupancy |= specs.iter().any(|s| s.shared_lines_per_us > 0.0);
        let mut is_parent = vec![false; n];
        for s in &specs {
            match s.parent {
                Some(p) if p < n && specs[p].parent.is_none() && !specs[p].on_fork => {
                    is_parent[p] = true
                }
                Some(p) => anyhow::bail!(
                    "task '{}' names task {p} as its parent, which is not a task started at its time",
                    s.name
                ),
                None => {}
            }
        }
        for (i, s) in specs.into_iter().enumerate() {
            let pid = 1000 + i as i32;
            let tgid = s.tgid as i32;
            let on_fork = s.on_fork;
            let mut ts = Box::new(new_task_struct(pid, tgid, 0, s.weight));
            ts.sim_id = i as u32;
            // p->comm: the task's name, NUL-terminated in TASK_COMM_LEN (16)
            for (d, b) in ts.comm.iter_mut().zip(s.name.bytes().take(15)) {
                *d = b;
            }
            ts.real_parent = &mut *self.launcher;
            match &s.cpus {
                Some(list) => {
                    for &c in list {
                        if c >= self.cpus.len() {
                            anyhow::bail!(
                                "task '{}' is pinned to CPU {c}, which the machine does not have",
                                s.name
                            );
                        }
                        // a hole of sparse numbering is in no cpumask
                        ts.cpus_mask.set(c, self.machine.possible(c));
                    }
                    // pinned to holes only (a per-CPU task of a workload
                    // drawn for nr_cpu_ids CPUs): the possible CPUs, as
                    // select_fallback_rq's last resort widens a task whose
                    // CPUs are all gone (core/hotplug.rs)
                    if (0..self.cpus.len()).all(|c| !ts.cpus_mask.test(c)) {
                        ts.cpus_mask = *self.possible_mask;
                    }
                }
                None => ts.cpus_mask = *self.possible_mask,
            }
            ts.cpus_ptr = &ts.cpus_mask;
            ts.nr_cpus_allowed = (0..self.cpus.len())
                .filter(|&c| ts.cpus_mask.test(c))
                .count() as i32;
            if ts.nr_cpus_allowed == 0 {
                anyhow::bail!("task '{}' may run on no CPU", s.name);
            }
            let sig = self
                .signals
                .entry(s.tgid)
                .or_insert_with(|| Box::new(Signal { nr_threads: 0 }));
            sig.nr_threads += 1;
            ts.signal = &mut **sig as *mut Signal;
            let start = if is_parent[i] {
                s.start_at
            } else {
                s.start_at + jitter(self.cfg.seed, i as u64, self.cfg.start_jitter_ns)
            };
            // an allowed online CPU (a task pinned to offline CPUs only
            // starts on the first allowed one; its wake-up falls back)
            let first = (0..self.cpus.len())
                .find(|&c| ts.cpus_mask.test(c) && self.online[c])
                .or_else(|| (0..self.cpus.len()).find(|&c| ts.cpus_mask.test(c)))
                .unwrap_or(0);
            ts.thread_info.cpu = first as u32;
            self.tasks.push(Task {
                spec: s,
                ts,
                state: TaskState::New,
                cpu: first,
                last_ran: None,
                warmth: Warmth::default(),
                remaining: 0.0,
                in_run: false,
                runnable_at: 0,
                woken_at: None,
                message: None,
                timer_gen: 0,
                qseq: 0,
                immed: false,
                custody: false,
                deferred: None,
                batch: VecDeque::new(),
                batch_apart: false,
                in_wake_gap: false,
                woken_in_batch: None,
            });
            if !on_fork {
                self.push(start, Ev::Start(i));
            }
        }
        Ok(())
    }

    /// set_task_cpu(): the task's CPU, here and in its task_struct's
    /// thread_info.cpu, which a program may read instead of calling
    /// scx_bpf_task_cpu() (both are task_cpu(p) in the kernel)
    pub(crate) fn set_task_cpu(&mut self, t: TaskId, cpu: usize) {
        self.tasks[t].cpu = cpu;
        self.tasks[t].ts.thread_info.cpu = cpu as u32;
    }

    fn arm_sleep(&mut self, t: TaskId, ns: Ns) {
        self.tasks[t].timer_gen += 1;
        let g = self.tasks[t].timer_gen;
        self.push(self.now + ns.max(1), Ev::Wake(t, g));
    }

    // out of line: most steps have no effects, and advance, the path of
    // every step, stays small without it
    #[inline(never)]
    fn apply_effects(&mut self, ops: &mut dyn Ops, fx: &Effects, waker_cpu: usize, waker: TaskId) {
        // A wake-up's IPI goes out only after the waker's work for it
        // (`wakeup_ns` and the BPF callbacks, charged to its CPU), so
        // `resched` adds what the waker's CPU has been charged since the
        // wake-up began. Several wake-ups are made one at a time
        // (wake_batch.rs).
        // property changes first (sched_setaffinity, setpriority: affinity.rs)
        for (t, p) in &fx.props {
            match p {
                crate::task::Prop::Cpus(cpus) => self.set_affinity(ops, waker_cpu, *t, cpus),
                crate::task::Prop::Weight(w) => self.set_task_weight(ops, waker_cpu, *t, *w),
            }
            if self.stop.is_some() {
                return;
            }
        }
        // forks first (a replayed trace's Fork ops): the child starts on
        // the parent's CPU, as wake_up_new_task selects from it, and in
        // its group (cgroup.rs fork_into_parents)
        for &c in &fx.forks {
            if c < self.tasks.len() && self.tasks[c].state == TaskState::New {
                self.set_task_cpu(c, waker_cpu);
                self.cgroups.fork_into_parents(c, waker);
                self.start_task(ops, c);
                if self.stop.is_some() {
                    return;
                }
            }
        }
        self.apply_wakes(ops, fx, waker_cpu, waker);
    }

    fn apply_wakes(&mut self, ops: &mut dyn Ops, fx: &Effects, waker_cpu: usize, waker: TaskId) {
        let asleep =
            |c: &Self, w: TaskId| w < c.tasks.len() && c.tasks[w].state == TaskState::Sleeping;
        let mut first = None;
        for (i, &(w, ..)) in fx.wakes.iter().enumerate() {
            if !asleep(self, w) {
                // ttwu on a task that is not asleep does nothing (but see
                // note_wake_in_batch)
                if w < self.tasks.len() {
                    self.note_wake_in_batch(w);
                }
                continue;
            }
            if first.is_some() {
                // more than one: the first now, the rest in turn
                self.start_batch(fx, i, waker_cpu, waker);
                break;
            }
            first = Some(fx.wakes[i]);
        }
        if let Some(wk) = first {
            self.wake_one(ops, wk, waker_cpu);
        }
    }

    /// One wake-up from `waker_cpu`: its cost, then try_to_wake_up.
    pub(super) fn wake_one(
        &mut self,
        ops: &mut dyn Ops,
        (w, sync, bytes): (TaskId, bool, u64),
        waker_cpu: usize,
    ) {
        if w >= self.tasks.len() {
            return;
        }
        if self.tasks[w].state != TaskState::Sleeping {
            // ttwu on a task that is not asleep does nothing, but one that
            // will block after its batch of wake-ups finds the wake-up
            // when it gets there (wake_batch.rs)
            self.note_wake_in_batch(w);
            return;
        }
        let saved = self
            .wake_batch
            .replace((waker_cpu, self.cpus[waker_cpu].pending_stall));
        self.cpus[waker_cpu].pending_stall += self.cost.wakeup_ns;
        self.tasks[w].message = (bytes > 0).then_some((waker_cpu, bytes));
        let flags = abi::SCX_WAKE_TTWU | if sync { abi::SCX_WAKE_SYNC } else { 0 };
        self.wake_up(ops, w, waker_cpu, flags);
        self.wake_batch = saved;
    }

    /// try_to_wake_up(): select_task_rq_scx, then enqueue_task_scx.
    fn wake_up(&mut self, ops: &mut dyn Ops, t: TaskId, waker_cpu: usize, wake_flags: u64) {
        if self.is_rt(t) {
            return self.rt_wake(t, waker_cpu);
        }
        let prev = self.tasks[t].cpu;
        let mut cpu = prev;
        // checklist 2: no select_cpu for pinned or migration-disabled tasks
        let selected =
            self.tasks[t].ts.nr_cpus_allowed > 1 && self.tasks[t].ts.migration_disabled == 0;
        if selected {
            self.ddsp = None;
            let r = self.call(waker_cpu, Ctx::SelectCpu, "select_cpu", |c| {
                ops.select_cpu(c, t, prev, wake_flags)
            });
            if let Some(sel) = r {
                // checklist 4: an out-of-range CPU aborts the scheduler
                if sel < 0 || sel as usize >= self.cpus.len() {
                    self.eject(format!(
                        "select_cpu returned invalid CPU {sel} for {}",
                        self.tasks[t].spec.name
                    ));
                    return;
                }
                cpu = sel as usize;
            } else {
                // select_task_rq_scx without ops.select_cpu (ext.c:3539-
                // 3554): scx_select_cpu_dfl; an idle CPU it claims gets the
                // task directly (SCX_DSQ_LOCAL, slice refilled to the
                // default), so ops.enqueue is skipped; else prev
                let saved = self.ctx;
                self.ctx = Ctx::SelectCpu;
                let sel = self.kf_select_cpu_and(t, prev as i32, wake_flags, None, 0);
                self.ctx = saved;
                if sel >= 0 {
                    cpu = sel as usize;
                    self.ddsp = Some(Insert {
                        task: t,
                        dsq: abi::SCX_DSQ_LOCAL,
                        slice: abi::SCX_SLICE_DFL,
                        vtime: None,
                        flags: 0,
                        qseq: self.tasks[t].qseq,
                    });
                }
            }
        }
        // checklist 3: a disallowed CPU is replaced by select_fallback_rq;
        // a direct dispatch recorded by select_cpu stands, SCX_DSQ_LOCAL
        // then meaning the fallback CPU (ext.c:1840-1891, checklist 5)
        // (select_task_rq: !is_cpu_allowed, which also refuses a CPU that
        // is not active, i.e. offline: core/hotplug.rs)
        if !self.allowed(t, cpu) || !self.online[cpu] {
            // select_fallback_rq(task_cpu(p)): an allowed online CPU of
            // prev's node first, then any, lowest id first
            cpu = self.fallback_cpu_scx(ops, waker_cpu, t, prev);
        }
        self.set_task_cpu(t, cpu);
        self.tasks[t].woken_at = Some(self.now);
        self.stats.wakeups += 1;
        self.note(Note::Wake {
            t,
            cpu,
            flags: wake_flags,
        });
        // a fork's first enqueue (wake_up_new_task) has no ENQUEUE_WAKEUP
        // (core.c:4987); a ttwu's has (core.c:4280)
        let mut enq_flags = if wake_flags & abi::SCX_WAKE_FORK != 0 {
            0
        } else {
            abi::SCX_ENQ_WAKEUP
        };
        // ttwu_do_activate: WF_RQ_SELECTED -> ENQUEUE_RQ_SELECTED, i.e.
        // SCX_ENQ_CPU_SELECTED, when the class chose the CPU (core.c, see
        // docs/sim/ext-semantics.md item 1); not for a fork's first enqueue
        if selected && wake_flags & abi::SCX_WAKE_FORK == 0 {
            enq_flags |= abi::SCX_ENQ_CPU_SELECTED;
        }
        self.enqueue_task(ops, t, waker_cpu, enq_flags);
        // wakeup_preempt (core.c:2294-2305) raises rq->next_class to ext
        self.cpus[cpu].next_ext = true;
        // wakeup_preempt (core.c:2294-2305, ext.c:2262-2270, checklist 37):
        // an SCX task woken onto a CPU running the idle class reschedules
        // it, whichever DSQ ops.enqueue chose; a busy CPU is left alone
        if self.stop.is_none() && self.cpus[cpu].curr.is_none() {
            self.resched(cpu);
        }
        // task_woken_scx -> run_deferred (ext.c:3557-3560)
        self.run_deferred(ops);
    }

    /// enqueue_task_scx: ops.runnable, then do_enqueue_task.
    fn enqueue_task(&mut self, ops: &mut dyn Ops, t: TaskId, on_cpu: usize, enq_flags: u64) {
        self.tasks[t].runnable_at = self.now;
        self.tasks[t].ts.scx.flags |= abi::SCX_TASK_QUEUED;
        self.set_state(t, TaskState::Bpf);
        self.stats.set_waiting(t, true, self.now);
        self.call(on_cpu, Ctx::Other, "runnable", |c| {
            ops.runnable(c, t, enq_flags)
        });
        self.do_enqueue(ops, t, on_cpu, enq_flags);
    }

    /// do_enqueue_task (ext.c:1916-1993, checklist 5-9): a direct dispatch
    /// recorded by select_cpu wins; else ops.enqueue; its insert is
    /// applied at once; nothing inserted leaves the task with the BPF side.
    fn do_enqueue(&mut self, ops: &mut dyn Ops, t: TaskId, on_cpu: usize, enq_flags: u64) {
        self.tasks[t].qseq += 1;
        // a fresh enqueue clears SCX_TASK_IMMED (ext.c:1920-1925)
        self.tasks[t].immed = false;
        if let Some(d) = self.ddsp.take() {
            if d.task == t {
                self.apply_insert(d, self.tasks[t].cpu, true);
                return;
            }
        }
        let has = self.call(on_cpu, Ctx::Enqueue, "enqueue", |c| {
            ops.enqueue(c, t, enq_flags)
        });
        if !has {
            // no ops.enqueue: the global DSQ (checklist 7, no-op-global)
            let d = Insert {
                task: t,
                dsq: abi::SCX_DSQ_GLOBAL,
                slice: abi::SCX_SLICE_DFL,
                vtime: None,
                flags: enq_flags,
                qseq: self.tasks[t].qseq,
            };
            self.apply_insert(d, self.tasks[t].cpu, true);
            return;
        }
        if let Some(d) = self.ddsp.take() {
            if d.task == t {
                self.apply_insert(d, self.tasks[t].cpu, true);
                return;
            }
        }
        // do_enqueue_task (ext.c:1982-1986): not directly dispatched, the
        // task is in the BPF scheduler's custody
        if self.tasks[t].state == TaskState::Bpf {
            self.tasks[t].custody = true;
        }
    }

    /// Puts a task into the DSQ an insert names. `local_cpu` is the CPU
    /// SCX_DSQ_LOCAL means in this context. Returns whether it was inserted.
    fn apply_insert(&mut self, d: Insert, local_cpu: usize, _direct: bool) -> bool {
        let t = d.task;
        // ext.c:8960-8963: slice 0 keeps the residual slice (1 ns if none)
        let ts = &mut self.tasks[t].ts;
        ts.scx.slice = if d.slice == 0 {
            ts.scx.slice.max(1)
        } else {
            d.slice
        };
        if let Some(v) = d.vtime {
            ts.scx.dsq_vtime = v;
        }
        let mut target = if d.dsq == abi::SCX_DSQ_LOCAL {
            DsqRef::Local(local_cpu)
        } else if d.dsq & abi::SCX_DSQ_LOCAL_ON == abi::SCX_DSQ_LOCAL_ON {
            let c = (d.dsq & 0xffff_ffff) as usize;
            if c >= self.cpus.len() {
                self.eject(format!("invalid CPU {c} in SCX_DSQ_LOCAL_ON"));
                return false;
            }
            DsqRef::Local(c)
        } else if d.dsq == abi::SCX_DSQ_GLOBAL {
            DsqRef::Global
        } else if d.dsq & abi::SCX_DSQ_FLAG_BUILTIN != 0 {
            self.eject(format!("invalid built-in DSQ {:#x}", d.dsq));
            return false;
        } else {
            if !self.user.contains(d.dsq) {
                self.eject(format!(
                    "non-existent DSQ {:#x} for {}",
                    d.dsq, self.tasks[t].spec.name
                ));
                return false;
            }
            DsqRef::User(d.dsq)
        };
        // checklist 11: vtime ordering on a built-in DSQ is an error
        if d.vtime.is_some() && !matches!(target, DsqRef::User(_)) {
            self.eject("cannot use vtime ordering for built-in DSQs".into());
            return false;
        }
        // checklist 21: a local DSQ outside the task's cpumask is an error,
        // and the task goes to the global DSQ (ext.c:2391-2409, 2680-2684)
        // a property change's restore on the task's own rq (affinity.rs)
        let restoring = self.restoring == Some(t) && target == DsqRef::Local(self.tasks[t].cpu);
        if let DsqRef::Local(c) = target {
            if !self.allowed(t, c) && !restoring {
                self.eject(format!(
                    "SCX_DSQ_LOCAL[_ON] to CPU {c}, which {} may not run on",
                    self.tasks[t].spec.name
                ));
                target = DsqRef::Global;
            } else if !self.online[c] {
                // task_can_run_on_remote_rq (ext.c:2411-2415): an offline
                // CPU's local DSQ is refused without an error
                // (SCX_EV_DISPATCH_LOCAL_DSQ_OFFLINE) and the task goes to
                // the global DSQ, as dispatch_to_local_dsq falls back
                self.stats.dispatch_offline += 1;
                target = DsqRef::Global;
            }
        }
        self.enqueue_on(t, target, d.flags, d.vtime)
    }

    fn enqueue_on(&mut self, t: TaskId, target: DsqRef, flags: u64, vtime: Option<u64>) -> bool {
        if let TaskState::Queued(q) = self.tasks[t].state {
            self.violation(format!(
                "task {} inserted into {} while already in {}",
                self.task_name(t),
                dsq_name(target),
                dsq_name(q)
            ));
            return false;
        }
        if let TaskState::Running(c) = self.tasks[t].state {
            self.violation(format!(
                "task {} inserted into {} while running on CPU {c}",
                self.task_name(t),
                dsq_name(target)
            ));
            return false;
        }
        let head = flags & (abi::SCX_ENQ_HEAD | abi::SCX_ENQ_PREEMPT) != 0;
        let res = match target {
            DsqRef::Local(c) => self.cpus[c].local.insert(t, None, head),
            DsqRef::Global => {
                let node = self.cpu_node[self.tasks[t].cpu];
                self.global[node].insert(t, None, head)
            }
            DsqRef::User(id) => self.user.insert(id, t, vtime, head),
        };
        if let Err(e) = res {
            self.eject(e);
            return false;
        }
        self.set_state(t, TaskState::Queued(target));
        self.note(Note::Insert { t, dsq: target });
        self.custody_on_insert(t, target);
        if let DsqRef::Local(c) = target {
            self.set_task_cpu(t, c);
            // dsq_inc_nr (ext.c:1382-1417), then local_dsq_post_enq's
            // wakeup_preempt raises next_class (ext.c:1507-1508)
            self.immed_local_insert(t, c, flags);
            self.cpus[c].next_ext = true;
            // ext.c:1507-1525 (checklist 37, 38): an idle CPU is rescheduled;
            // a busy one only with SCX_ENQ_PREEMPT
            if flags & abi::SCX_ENQ_PREEMPT != 0 {
                if let Some(r) = self.cpus[c].curr {
                    self.tasks[r].ts.scx.slice = 0;
                }
                self.resched(c);
            } else if self.cpus[c].curr.is_none() {
                self.resched(c);
            }
        }
        true
    }

    // ---------------------------------------------------------------
    // Rescheduling (resched_curr) and schedule() on a CPU
    // ---------------------------------------------------------------

    /// resched_curr(cpu): the CPU will go through the scheduler; from
    /// another CPU after an IPI, from idle after leaving its idle state.
    pub fn resched(&mut self, cpu: usize) {
        // resched_curr (core.c): another CPU is told by an IPI; a CPU
        // rescheduling itself (its tick, its own timer interrupt, a callback
        // running on it) needs none. An idle CPU pays its idle state's exit
        // latency unless it is already running code (inside a callback).
        let remote = cpu != self.this_cpu;
        let mut delay = if remote { self.cost.ipi_ns } else { 0.0 };
        if let Some((wc, base)) = self.wake_batch.filter(|_| remote) {
            // sent by a waker from inside its wake-up: after the work it
            // has done for it so far (wake_one)
            let inflight = if self.ctx != Ctx::None && self.this_cpu == wc {
                self.cost.bpf_callback_ns + self.cb_ns
            } else {
                0.0
            };
            delay += (self.cpus[wc].pending_stall + inflight - base).max(0.0);
        }
        let mut exit = None;
        if self.cpus[cpu].curr.is_none()
            && (remote || self.ctx == Ctx::None)
            && !self.cfg.one_host_thread
        {
            let e = self
                .machine
                .idle_states
                .get(self.cpus[cpu].cstate)
                .map(|s| s.exit_ns as f64)
                .unwrap_or(0.0);
            delay += e;
            exit = Some(e);
        }
        let at = self.now + delay as Ns;
        if self.cpus[cpu].resched_at.is_some_and(|r| r <= at) {
            return;
        }
        if let Some(e) = exit {
            self.stats.idle_exit(e);
        }
        self.cpus[cpu].resched_at = Some(at);
        self.push(at, Ev::Resched(cpu));
    }
}

/// The idle tasks' flags (init_idle, core.c: PF_KTHREAD | PF_IDLE).
const PF_IDLE_FLAGS: u32 = abi::PF_KTHREAD | abi::PF_IDLE;

fn new_task_struct(pid: i32, tgid: i32, flags: u32, weight: u32) -> TaskStruct {
    TaskStruct {
        pid,
        tgid,
        flags,
        nr_cpus_allowed: 0,
        migration_disabled: 0,
        cpus_ptr: std::ptr::null(),
        signal: std::ptr::null_mut(),
        scx: abi::ScxEntity {
            flags: 0,
            weight,
            slice: abi::SCX_SLICE_DFL,
            dsq_vtime: 0,
            ddsp_dsq_id: abi::SCX_DSQ_INVALID,
            ddsp_enq_flags: 0,
            tid: 0,
            disallow: false,
        },
        sim_id: 0,
        cpus_mask: CpuMask::empty(),
        sim_storage: [std::ptr::null_mut(); abi::MAX_TASK_STORAGE],
        comm: [0; 16],
        mempolicy: std::ptr::null_mut(),
        utime: 0,
        mm: std::ptr::null_mut(),
        prio: lavd::static_prio(weight),
        static_prio: lavd::static_prio(weight),
        normal_prio: lavd::static_prio(weight),
        real_parent: std::ptr::null_mut(),
        se: abi::SchedEntity::default(),
        cgroups: std::ptr::null_mut(),
        sched_task_group: std::ptr::null_mut(),
        thread_info: abi::ThreadInfo::default(),
    }
}
