//! The C side's types, mirrored: `struct task_struct` as the shim declares
//! it (sim/shim/include/scx/common.bpf.h) and `struct sched_ext_ops`. A test
//! checks the layout against the compiled shim (`sim_task_layout`).

use std::ffi::{c_char, c_void};

pub const MAX_CPUS: usize = 1024;
pub const MAX_TASK_STORAGE: usize = 4;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct CpuMask {
    pub bits: [u64; MAX_CPUS / 64],
}

impl CpuMask {
    pub const fn empty() -> CpuMask {
        CpuMask {
            bits: [0; MAX_CPUS / 64],
        }
    }
    pub fn set(&mut self, cpu: usize, on: bool) {
        let (w, b) = (cpu / 64, cpu % 64);
        if on {
            self.bits[w] |= 1 << b;
        } else {
            self.bits[w] &= !(1 << b);
        }
    }
    pub fn test(&self, cpu: usize) -> bool {
        cpu < MAX_CPUS && (self.bits[cpu / 64] >> (cpu % 64)) & 1 == 1
    }

    /// CPUs 0..n.
    pub fn first(n: usize) -> CpuMask {
        let mut m = CpuMask::empty();
        for w in 0..n.div_ceil(64) {
            let left = n - w * 64;
            m.bits[w] = if left >= 64 { !0 } else { (1u64 << left) - 1 };
        }
        m
    }
}

/// find_next_and_bit_wrap (lib/find_bit.c), a word at a time: the first
/// CPU below `n` in the order start, start + 1, .., n - 1, 0, .., start -
/// 1 whose bit is set in `word(w)`, word w of the masks ANDed.
pub fn find_wrap(n: usize, start: usize, word: impl Fn(usize) -> u64) -> Option<usize> {
    let find = |lo: usize, hi: usize| -> Option<usize> {
        if lo >= hi {
            return None;
        }
        let mut w = lo / 64;
        let mut bits = word(w) & (!0u64 << (lo % 64));
        loop {
            if bits != 0 {
                let c = w * 64 + bits.trailing_zeros() as usize;
                return (c < hi).then_some(c);
            }
            w += 1;
            if w * 64 >= hi {
                return None;
            }
            bits = word(w);
        }
    };
    find(start, n).or_else(|| find(0, start.min(n)))
}

#[repr(C)]
pub struct Signal {
    pub nr_threads: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct ScxEntity {
    pub flags: u32,
    pub weight: u32,
    pub slice: u64,
    pub dsq_vtime: u64,
    /// read by scx_lavd's ops.dump_task only: SCX_DSQ_INVALID / 0
    pub ddsp_dsq_id: u64,
    pub ddsp_enq_flags: u64,
    /// p->scx.tid (7.2): the shim assigns it (sim_init_task, shim.c)
    pub tid: u64,
    /// p->scx.disallow: ops.init_task's request to stay out of sched_ext
    pub disallow: bool,
}

/// struct sched_entity, the fields scx_lavd reads (the shim's).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct SchedEntity {
    /// the task's total run time, ns (update_curr_scx)
    pub sum_exec_runtime: u64,
    /// se.avg.util_avg: 0 (nothing the sim compiles reads it)
    pub util_avg: u64,
}

#[repr(C)]
pub struct TaskStruct {
    pub pid: i32,
    pub tgid: i32,
    pub flags: u32,
    pub nr_cpus_allowed: i32,
    pub migration_disabled: u16,
    pub cpus_ptr: *const CpuMask,
    pub signal: *mut Signal,
    pub scx: ScxEntity,
    pub sim_id: u32,
    pub cpus_mask: CpuMask,
    pub sim_storage: [*mut c_void; MAX_TASK_STORAGE],
    /// read by scx_rusty (error messages): the task's name, NUL-terminated
    pub comm: [u8; 16],
    /// struct mempolicy *: NULL, the simulated tasks have no memory policy
    pub mempolicy: *mut c_void,
    /// scx_cosmos: user time, read only with --cpu-busy-thresh (off by
    /// default); not accounted by the simulator: 0
    pub utime: u64,
    /// scx_cosmos: struct mm_struct *, read only with --mm-affinity (off by
    /// default): NULL
    pub mm: *mut c_void,
    /// read by scx_lavd: 120 + nice (from the weight); idle tasks 120
    pub prio: i32,
    pub static_prio: i32,
    pub normal_prio: i32,
    /// the launcher (simulated tasks) or swapper/0 (idle tasks)
    pub real_parent: *mut TaskStruct,
    pub se: SchedEntity,
    /// struct css_set * / struct task_group *: the root cgroup's (shim.c)
    pub cgroups: *mut c_void,
    pub sched_task_group: *mut c_void,
    /// struct thread_info (THREAD_INFO_IN_TASK): `cpu` is task_cpu(p), which
    /// a program may read from the task instead of calling
    /// scx_bpf_task_cpu(); the core keeps it equal to its own (Core::set_task_cpu)
    pub thread_info: ThreadInfo,
}

/// include/asm/thread_info.h: the field a BPF program reads (task_cpu's)
#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct ThreadInfo {
    pub cpu: u32,
}

/// include/linux/sched.h: set on the idle tasks (swapper/N)
pub const PF_IDLE: u32 = 0x0000_0002;
pub const PF_EXITING: u32 = 0x0000_0004;
pub const PF_KTHREAD: u32 = 0x0020_0000;

/// enum scx_exit_kind (kernel/sched/ext/internal.h:17-30)
pub const SCX_EXIT_UNREG: i64 = 64;
pub const SCX_EXIT_UNREG_BPF: i64 = 65;
/// Kernel-initiated unregistration (a CPU hotplug event the scheduler has
/// no ops.cpu_online / cpu_offline for: ext.c:3606-3609).
pub const SCX_EXIT_UNREG_KERN: i64 = 66;
/// exit_code bits (enum scx_exit_code, internal.h): the reason and the
/// action the kernel asks of user space.
pub const SCX_ECODE_RSN_HOTPLUG: i64 = 1 << 32;
pub const SCX_ECODE_ACT_RESTART: i64 = 1 << 48;
pub const SCX_EXIT_ERROR: i64 = 1024;
pub const SCX_EXIT_ERROR_BPF: i64 = 1025;
pub const SCX_EXIT_ERROR_STALL: i64 = 1026;

/// scx_exit_reason (ext.c:5945-5967): the reason ops.exit sees for a kind.
pub fn exit_reason(kind: i64) -> &'static str {
    match kind {
        SCX_EXIT_UNREG => "unregistered from user space",
        SCX_EXIT_UNREG_BPF => "unregistered from BPF",
        SCX_EXIT_UNREG_KERN => "unregistered from the main kernel",
        SCX_EXIT_ERROR => "runtime error",
        SCX_EXIT_ERROR_BPF => "scx_bpf_error",
        SCX_EXIT_ERROR_STALL => "runnable task stall",
        _ => "<UNKNOWN>",
    }
}

pub const SCX_DSQ_FLAG_BUILTIN: u64 = 1 << 63;
pub const SCX_DSQ_FLAG_LOCAL_ON: u64 = 1 << 62;
pub const SCX_DSQ_INVALID: u64 = SCX_DSQ_FLAG_BUILTIN;
pub const SCX_DSQ_GLOBAL: u64 = SCX_DSQ_FLAG_BUILTIN | 1;
pub const SCX_DSQ_LOCAL: u64 = SCX_DSQ_FLAG_BUILTIN | 2;
pub const SCX_DSQ_LOCAL_ON: u64 = SCX_DSQ_FLAG_BUILTIN | SCX_DSQ_FLAG_LOCAL_ON;
pub const SCX_SLICE_DFL: u64 = 20_000_000;

pub const SCX_WAKE_FORK: u64 = 0x04;
pub const SCX_WAKE_TTWU: u64 = 0x08;
pub const SCX_WAKE_SYNC: u64 = 0x10;

pub const SCX_ENQ_WAKEUP: u64 = 1 << 0;
pub const SCX_ENQ_HEAD: u64 = 1 << 4;
/// The shim's value (sim/shim/include/scx/common.bpf.h), set when the
/// class's select_task_rq ran for a ttwu wake-up (ENQUEUE_RQ_SELECTED).
pub const SCX_ENQ_CPU_SELECTED: u64 = 1 << 10;
pub const SCX_ENQ_PREEMPT: u64 = 1 << 32;
/// 7.2 (sched/ext/internal.h): a local insert the task must run at once
/// from, else it goes back through ops.enqueue (dsq_inc_nr)
pub const SCX_ENQ_IMMED: u64 = 1 << 33;
/// internal.h: set on the ops.enqueue of a re-enqueue (reenq_local)
pub const SCX_ENQ_REENQ: u64 = 1 << 40;
pub const SCX_ENQ_LAST: u64 = 1 << 41;
pub const SCX_ENQ_DSQ_PRIQ: u64 = 1 << 57;
pub const SCX_DEQ_SLEEP: u64 = 1 << 0;
/// 7.2 (sched/ext/internal.h:1326): dequeue_task_scx adds it to every
/// dequeue that is not a sleep or a core-sched pick (ext.c:2193-2197): a
/// property change (affinity, nice) or the core's migration of the task.
pub const SCX_DEQ_SCHED_CHANGE: u64 = 1 << 33;
/// The core's own dequeue/enqueue flags, which sched_ext passes through in
/// deq_flags / enq_flags (7.2 kernel/sched/sched.h:2550-2575):
/// sched_change_begin dequeues with DEQUEUE_SAVE (| DEQUEUE_NOCLOCK, which
/// it adds, core.c:11268-11271) and sched_change_end enqueues with the
/// matching ENQUEUE_RESTORE | ENQUEUE_NOCLOCK.
pub const DEQUEUE_SAVE: u64 = 0x0002;
pub const DEQUEUE_NOCLOCK: u64 = 0x0008;
/// a task moves between task groups (sched_move_task); ENQUEUE_MOVE alike
pub const DEQUEUE_MOVE: u64 = 0x0004;
pub const ENQUEUE_RESTORE: u64 = 0x0002;
pub const ENQUEUE_NOCLOCK: u64 = 0x0008;
/// activate_task's flag for a task the core moved between rqs
/// (core.c:2230-2233, sched.h:2573).
pub const ENQUEUE_MIGRATED: u64 = 0x0004_0000;

pub const SCX_KICK_IDLE: u64 = 1 << 0;
pub const SCX_KICK_PREEMPT: u64 = 1 << 1;
pub const SCX_KICK_WAIT: u64 = 1 << 2;
pub const SCX_PICK_IDLE_CORE: u64 = 1 << 0;

pub const SCX_TASK_QUEUED: u32 = 1 << 0;

pub const SCX_OPS_KEEP_BUILTIN_IDLE: u64 = 1 << 0;
pub const SCX_OPS_ENQ_LAST: u64 = 1 << 1;
pub const SCX_OPS_ENQ_EXITING: u64 = 1 << 2;
pub const SCX_OPS_ENQ_MIGRATION_DISABLED: u64 = 1 << 4;
pub const SCX_OPS_ALLOW_QUEUED_WAKEUP: u64 = 1 << 5;
pub const SCX_OPS_BUILTIN_IDLE_PER_NODE: u64 = 1 << 6;
pub const SCX_PICK_IDLE_IN_NODE: u64 = 1 << 1;

#[repr(C)]
pub struct InitTaskArgs {
    pub fork: bool,
    /// struct cgroup *: the root cgroup
    pub cgroup: *mut c_void,
}

/// struct scx_cgroup_init_args (ext/internal.h:223-231).
#[repr(C)]
pub struct CgroupInitArgs {
    pub weight: u32,
    pub bw_period_us: u64,
    pub bw_quota_us: u64,
    pub bw_burst_us: u64,
}

#[repr(C)]
pub struct ExitTaskArgs {
    pub cancelled: bool,
}

#[repr(C)]
pub struct ExitInfo {
    pub kind: i64,
    pub exit_code: i64,
    pub reason: *const c_char,
    pub msg: *const c_char,
}

type P = *mut TaskStruct;

#[repr(C)]
pub struct SchedExtOps {
    pub select_cpu: Option<unsafe extern "C" fn(P, i32, u64) -> i32>,
    pub enqueue: Option<unsafe extern "C" fn(P, u64)>,
    pub dequeue: Option<unsafe extern "C" fn(P, u64)>,
    pub dispatch: Option<unsafe extern "C" fn(i32, P)>,
    pub tick: Option<unsafe extern "C" fn(P)>,
    pub runnable: Option<unsafe extern "C" fn(P, u64)>,
    pub running: Option<unsafe extern "C" fn(P)>,
    pub stopping: Option<unsafe extern "C" fn(P, bool)>,
    pub quiescent: Option<unsafe extern "C" fn(P, u64)>,
    pub update_idle: Option<unsafe extern "C" fn(i32, bool)>,
    pub init_task: Option<unsafe extern "C" fn(P, *mut InitTaskArgs) -> i32>,
    pub exit_task: Option<unsafe extern "C" fn(P, *mut ExitTaskArgs)>,
    pub enable: Option<unsafe extern "C" fn(P)>,
    pub disable: Option<unsafe extern "C" fn(P)>,
    pub cpu_online: Option<unsafe extern "C" fn(i32)>,
    pub cpu_offline: Option<unsafe extern "C" fn(i32)>,
    pub init: Option<unsafe extern "C" fn() -> i32>,
    pub exit: Option<unsafe extern "C" fn(*mut ExitInfo)>,
    pub flags: u64,
    pub timeout_ms: u32,
    pub exit_dump_len: u32,
    pub name: *const c_char,
    /// ops.set_cpumask: on an affinity change (set_cpus_allowed_scx,
    /// ext.c:3562-3582; core/affinity.rs).
    pub set_cpumask: Option<unsafe extern "C" fn(P, *const CpuMask)>,
    /// ops.set_weight: called after ops.enable with the task's weight, as
    /// __scx_enable_task does (ext.c:3849-3853), and on a nice change
    /// (reweight_task_scx, ext.c:4150-4174; core/affinity.rs).
    pub set_weight: Option<unsafe extern "C" fn(P, u32)>,
    // added for scx_lavd: see the shim's struct sched_ext_ops
    /// when an RT task takes the CPU from sched_ext (core/rt.rs;
    /// switch_class, ext.c:3095-3132): args is a [`CpuReleaseArgs`]
    pub cpu_release: Option<unsafe extern "C" fn(i32, *mut c_void)>,
    /// never called: the sim prints no error-exit dumps
    pub dump: Option<unsafe extern "C" fn(*mut c_void)>,
    pub dump_task: Option<unsafe extern "C" fn(*mut c_void, P)>,
    /// for every cgroup at enable / disable (ext.c scx_cgroup_init / exit),
    /// and for one made / removed at run time (scx_tg_online / offline)
    pub cgroup_init: Option<unsafe extern "C" fn(*mut c_void, *mut CgroupInitArgs) -> i32>,
    pub cgroup_exit: Option<unsafe extern "C" fn(*mut c_void)>,
    /// a task's move between cgroups and the cpu.weight / cpu.max writes
    /// of a run's cgroup events (core/cgroup_events.rs)
    pub cgroup_prep_move: Option<unsafe extern "C" fn(P, *mut c_void, *mut c_void) -> i32>,
    pub cgroup_move: Option<unsafe extern "C" fn(P, *mut c_void, *mut c_void)>,
    pub cgroup_cancel_move: Option<unsafe extern "C" fn(P, *mut c_void, *mut c_void)>,
    pub cgroup_set_weight: Option<unsafe extern "C" fn(*mut c_void, u32)>,
    pub cgroup_set_bandwidth: Option<unsafe extern "C" fn(*mut c_void, u64, u64, u64)>,
    /// never called (the kernel's maximal selftest defines them): no
    /// sched_yield() in the workloads, no core scheduling
    pub yield_: Option<unsafe extern "C" fn(P, P) -> bool>,
    pub core_sched_before: Option<unsafe extern "C" fn(P, P) -> bool>,
    /// when the CPU is back under sched_ext after an RT task (balance_one,
    /// ext.c:2951-2962); args NULL, as there
    pub cpu_acquire: Option<unsafe extern "C" fn(i32, *mut c_void)>,
    /// a cpu.idle write (scx_group_set_idle, ext.c:4744-4757): for the
    /// groups a workload makes idle, right after the load (core/cgroup.rs),
    /// and for a run's cgroup events (core/cgroup_events.rs)
    pub cgroup_set_idle: Option<unsafe extern "C" fn(*mut c_void, bool)>,
}

/// struct scx_cpu_release_args (ext.c 7.2): why the CPU was taken, and
/// the task of the higher class that takes it.
#[repr(C)]
pub struct CpuReleaseArgs {
    /// enum scx_cpu_preempt_reason: SCX_CPU_PREEMPT_RT = 0
    pub reason: u32,
    pub task: P,
}

/// The host table the shim calls (struct sim_host).
#[repr(C)]
pub struct SimHost {
    pub ctx: *mut c_void,
    pub ktime: unsafe extern "C" fn(*mut c_void) -> u64,
    pub this_cpu: unsafe extern "C" fn(*mut c_void) -> i32,
    pub current: unsafe extern "C" fn(*mut c_void) -> P,
    pub task_cpu: unsafe extern "C" fn(*mut c_void, *const TaskStruct) -> i32,
    pub dsq_insert: unsafe extern "C" fn(*mut c_void, P, u64, u64, u64, u64, bool),
    pub dsq_move_to_local: unsafe extern "C" fn(*mut c_void, u64, u64) -> bool,
    pub dsq_nr_queued: unsafe extern "C" fn(*mut c_void, u64) -> i32,
    pub create_dsq: unsafe extern "C" fn(*mut c_void, u64, i32) -> i32,
    pub kick_cpu: unsafe extern "C" fn(*mut c_void, i32, u64),
    pub test_and_clear_cpu_idle: unsafe extern "C" fn(*mut c_void, i32) -> bool,
    pub pick_idle_cpu: unsafe extern "C" fn(*mut c_void, *const CpuMask, u64) -> i32,
    pub pick_any_cpu: unsafe extern "C" fn(*mut c_void, *const CpuMask, u64) -> i32,
    pub get_idle_cpumask: unsafe extern "C" fn(*mut c_void) -> *const CpuMask,
    pub get_idle_smtmask: unsafe extern "C" fn(*mut c_void) -> *const CpuMask,
    pub put_idle_cpumask: unsafe extern "C" fn(*mut c_void, *const CpuMask),
    pub error: unsafe extern "C" fn(*mut c_void, *const c_char),
    pub iter_new: unsafe extern "C" fn(*mut c_void, u64, u64) -> u64,
    pub iter_next: unsafe extern "C" fn(*mut c_void, u64) -> P,
    pub iter_destroy: unsafe extern "C" fn(*mut c_void, u64),
    pub dsq_move: unsafe extern "C" fn(*mut c_void, u64, P, u64, u64) -> bool,
    pub timer_start: unsafe extern "C" fn(*mut c_void, *mut c_void, u64, u64) -> i32,
    pub nr_cpu_slots: u32,
    // added for the peers
    pub nr_nodes: u32,
    pub select_cpu_and: unsafe extern "C" fn(*mut c_void, P, i32, u64, *const CpuMask, u64) -> i32,
    pub get_idle_mask_node: unsafe extern "C" fn(*mut c_void, i32, bool) -> *const CpuMask,
    pub host_cpu_node: unsafe extern "C" fn(*mut c_void, i32) -> i32,
    pub host_cpu_llc: unsafe extern "C" fn(*mut c_void, i32) -> i32,
    pub online_cpumask: unsafe extern "C" fn(*mut c_void) -> *const CpuMask,
    pub task_running: unsafe extern "C" fn(*mut c_void, *const TaskStruct) -> bool,
    pub dsq_peek: unsafe extern "C" fn(*mut c_void, u64) -> P,
    pub cpuperf_set: unsafe extern "C" fn(*mut c_void, i32, u32),
    // added for scx's arena library and p2dq
    pub task_from_pid: unsafe extern "C" fn(*mut c_void, i32) -> P,
    pub prandom: unsafe extern "C" fn(*mut c_void) -> u32,
    pub any_distribute: unsafe extern "C" fn(*mut c_void, *const CpuMask) -> u32,
    // ---- added for scx_cosmos: scx_bpf_cpu_curr ----
    pub cpu_curr: unsafe extern "C" fn(*mut c_void, i32) -> P,
    // ---- added for scx_cosmos: scx_bpf_pick_idle_cpu_node ----
    pub pick_idle_cpu_node: unsafe extern "C" fn(*mut c_void, *const CpuMask, i32, u64) -> i32,
    // added for scx_lavd
    pub clock_task: unsafe extern "C" fn(*mut c_void, u32) -> u64,
    pub clock_pelt: unsafe extern "C" fn(*mut c_void, u32) -> u64,
    pub cpuperf_cap: unsafe extern "C" fn(*mut c_void, i32) -> u32,
    /// scx_bpf_exit(code, msg): the scheduler unregisters itself
    pub exit_bpf: unsafe extern "C" fn(*mut c_void, i64, *const c_char),
    /// scx_bpf_destroy_dsq
    pub destroy_dsq: unsafe extern "C" fn(*mut c_void, u64),
    // ---- added for scx_qmap (the cid interface, 7.2) ----
    /// the first CPU of cpu's core
    pub cpu_core_id: unsafe extern "C" fn(*mut c_void, i32) -> i32,
    /// scx_bpf_dispatch_nr_slots
    pub dispatch_nr_slots: unsafe extern "C" fn(*mut c_void) -> u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// find_wrap against a bit-by-bit scan, on sizes across word edges.
    #[test]
    fn find_wrap_is_the_wrapped_bit_scan() {
        let mut x: u64 = 99;
        for n in [1, 2, 63, 64, 65, 88, 128, 200, 512, 1024] {
            for _ in 0..200 {
                let mut a = CpuMask::empty();
                let mut b = CpuMask::empty();
                for w in 0..a.bits.len() {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    a.bits[w] = x & (x >> 7) & (x >> 13);
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    b.bits[w] = x | (x >> 3);
                }
                let start = (x >> 40) as usize % n;
                let want = (0..n)
                    .map(|i| (start + i) % n)
                    .find(|&c| a.test(c) && b.test(c));
                assert_eq!(
                    find_wrap(n, start, |w| a.bits[w] & b.bits[w]),
                    want,
                    "n={n}"
                );
            }
            let first = CpuMask::first(n);
            assert!(
                (0..MAX_CPUS).all(|c| first.test(c) == (c < n)),
                "first({n})"
            );
        }
    }
}
