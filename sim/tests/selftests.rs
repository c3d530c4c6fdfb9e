//! The kernel's own sched_ext selftests, run in the simulator: the check that
//! its ext.c model behaves as the kernel's tests expect.
//!
//! Each test's BPF scheduler is its `<test>.bpf.c` from
//! tools/testing/selftests/sched_ext/ of Linux 7.2.13 (Debian's
//! linux-source-7.2 7.2.13-1, fetched and sha256-checked by
//! scripts/install-ksrc.sh), compiled unmodified against the shim
//! (sim/build.rs, sim/src/sched/ksft.rs). What each test's user-space half
//! (`<test>.c` beside it) does and asserts is ported here, written for the
//! simulator: the same workload (forked children, sleeps), the same checks
//! (BSS / data globals, `uei.kind`, exit code and message). docs/sim/
//! ext-semantics.md tables every test of the suite.
//!
//! Where the kernel test reads a global while the scheduler is still
//! attached, the port reads it after the run: a run ends with the loader's
//! unregistration (SCX_EXIT_UNREG), or with the scheduler's exit.

use arbor_sim::core::{Config, Core, Ops, Stop};
use arbor_sim::cost::CostModel;
use arbor_sim::machine::Machine;
use arbor_sim::presets;
use arbor_sim::sched::abi;
use arbor_sim::sched::ksft;
use arbor_sim::sched::native::Native;
use arbor_sim::workload::{Effects, Metric, Ns, Step, TaskId, TaskSpec, Workload};

const MS: Ns = 1_000_000;
const SEC: Ns = 1_000 * MS;

/// A scripted workload: each task runs its steps in order, then exits.
struct Script {
    specs: Vec<TaskSpec>,
    steps: Vec<Vec<Step>>,
    pos: Vec<usize>,
    left: usize,
}

impl Script {
    fn new() -> Script {
        Script {
            specs: Vec::new(),
            steps: Vec::new(),
            pos: Vec::new(),
            left: 0,
        }
    }

    /// Adds a task named `name` (its comm) of process `tgid`.
    fn task(mut self, name: &str, tgid: u32, steps: &[Step]) -> Script {
        self.specs.push(TaskSpec::new(name, tgid));
        self.steps.push(steps.to_vec());
        self.pos.push(0);
        self.left += 1;
        self
    }

    /// The test runner's forks: `n` children, each `sleep(1); exit(0)`
    /// (a fork's return and the sleep's syscall: a few µs of work around
    /// it), each its own process.
    fn children(mut self, n: usize, name: &str) -> Script {
        for i in 0..n {
            self = self.task(
                name,
                10_000 + i as u32,
                &[Step::Run(20_000), Step::Sleep(SEC), Step::Run(20_000)],
            );
        }
        self
    }

    /// The runner's `sleep(1)` while the scheduler is attached, with the
    /// rest of the machine's tasks.
    fn sleep_one_second(self) -> Script {
        self.task("runner", 1, &[Step::Run(50_000), Step::Sleep(SEC)])
            .system(SEC)
    }

    /// The machine's own tasks for `time` ns, which every sched_ext
    /// scheduler also schedules: a per-CPU kworker on each CPU of the
    /// 8-CPU test machine (pinned, so ops.select_cpu is never called for
    /// it and it always reaches ops.enqueue), waking every 10 ms.
    fn system(mut self, time: Ns) -> Script {
        let mut periodic = Vec::new();
        for _ in 0..time / (10 * MS) {
            periodic.push(Step::Run(50_000));
            periodic.push(Step::Sleep(10 * MS));
        }
        for c in 0..8 {
            self = self.task(&format!("kworker/{c}"), 100 + c as u32, &periodic);
            self.specs.last_mut().unwrap().cpus = Some(vec![c]);
        }
        self
    }
}

impl Workload for Script {
    fn tasks(&self) -> Vec<TaskSpec> {
        self.specs.clone()
    }
    fn next(&mut self, t: TaskId, _now: Ns, _fx: &mut Effects) -> Step {
        let i = self.pos[t];
        self.pos[t] += 1;
        match self.steps[t].get(i) {
            Some(s) => *s,
            None => {
                self.left -= 1;
                Step::Exit
            }
        }
    }
    fn finished(&self) -> bool {
        self.left == 0
    }
    fn metrics(&self, _elapsed: Ns) -> Vec<Metric> {
        Vec::new()
    }
}

/// struct user_exit_info of the shim (common.bpf.h): kind, exit_code,
/// reason[128], msg[1024].
struct Uei {
    kind: i64,
    code: i64,
    reason: String,
    msg: String,
}

fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

fn uei(n: &Native) -> Uei {
    let kind: i64 = n.read_global_at("uei", 0).unwrap();
    let code: i64 = n.read_global_at("uei", 8).unwrap();
    let reason: [u8; 128] = n.read_global_at("uei", 16).unwrap();
    let msg: [u8; 1024] = n.read_global_at("uei", 144).unwrap();
    Uei {
        kind,
        code,
        reason: cstr(&reason),
        msg: cstr(&msg),
    }
}

/// Machine `preset` and the selftest or kernel scheduler `test` loaded for
/// it.
fn load(test: &str, preset: &str) -> (Machine, Native) {
    let m = presets::find(preset).unwrap();
    let topo = m.topo().unwrap();
    let n = ksft::load(test, &topo).unwrap_or_else(|e| panic!("{e:#}"));
    (m, n)
}

/// A core on `m` whose run stops after `limit` simulated ns at the latest.
fn core_for(m: Machine, limit: Ns) -> Core {
    let cfg = Config {
        time_limit: limit,
        ..Config::default()
    };
    Core::new(m, CostModel::default(), cfg).unwrap()
}

/// The run went to its end (every task exited) with no error exit: on a
/// failure, `what` and the exit info's reason and message.
fn assert_ran(what: &str, n: &Native, stop: &Stop) {
    let u = uei(n);
    assert_eq!(*stop, Stop::Finished, "{what}: {} / {}", u.reason, u.msg);
}

/// The hackbench runs of the kernel schedulers' tests: (machine, groups,
/// loops) on 8 and on 224 CPUs.
const HACKBENCH_RUNS: [(&str, usize, usize); 2] =
    [("2s2c2t", 2, 100), ("shape:n=2,l=1,c=56,t=2", 8, 50)];

/// hackbench:g=`g`,l=`l` on a machine of `cpus` CPUs (`machine`) delivered
/// every message (g groups x 20 senders x 20 receivers x l).
fn assert_all_messages(metrics: &[Metric], machine: &str, cpus: usize, g: usize, l: usize) {
    let msgs = metrics.iter().find(|m| m.name == "messages").unwrap().value;
    assert_eq!(msgs, (g * 20 * 20 * l) as f64, "{cpus} CPUs");
    if machine.starts_with("shape") {
        assert_eq!(cpus, 224);
    }
}

/// Kernel scheduler `sched` runs hackbench:g=`g`,l=`l` on `machine` (seed
/// 1, at most 30 simulated s) to its end: no error exit (uei is the
/// loader's unregistration), every message delivered. Returns the program
/// (for its globals), the simulated ns and the CPU count.
fn hackbench_runs(sched: &str, machine: &str, g: usize, l: usize) -> (Native, Ns, usize) {
    let (m, mut n) = load(sched, machine);
    let cpus = m.nr_cpus();
    let wl_spec = format!("hackbench:g={g},l={l}");
    let mut wl = arbor_sim::workload::spec::parse(&wl_spec, cpus, 1).unwrap();
    let cfg = Config {
        seed: 1,
        time_limit: 30 * SEC,
        ..Config::default()
    };
    let mut core = Core::new(m, CostModel::default(), cfg).unwrap();
    let stop = core.run(&mut n, wl.as_mut(), |_| {});
    assert_ran(&format!("{cpus} CPUs"), &n, &stop);
    assert_eq!(
        uei(&n).kind,
        abi::SCX_EXIT_UNREG,
        "{cpus} CPUs: {}",
        uei(&n).msg
    );
    assert_all_messages(&wl.metrics(core.now.max(1)), machine, cpus, g, l);
    (n, core.now, cpus)
}

/// Selftest `test` attached on machine `preset` while `wl` runs (at most
/// 10 simulated seconds); `setup` writes its rodata first, as the
/// skeleton's open-then-load does. Returns the program (for its globals)
/// and how the run stopped.
fn run_with(
    test: &str,
    preset: &str,
    mut wl: Script,
    setup: impl FnOnce(&mut Native),
) -> (Native, Stop) {
    let (m, mut n) = load(test, preset);
    setup(&mut n);
    let mut core = core_for(m, 10 * SEC);
    let stop = core.run(&mut n, &mut wl, |_| {});
    (n, stop)
}

fn run(test: &str, preset: &str, wl: Script) -> (Native, Stop) {
    run_with(test, preset, wl, |_| {})
}

/// The selftest's scheduler, plus what its user-space half does once it
/// has attached it: the first time the runner (the workload's first task,
/// pid 1000) is on a CPU, it runs the SEC("syscall") program `prog` with
/// its own pid as argument (BPF_PROG_TEST_RUN, `struct task_cpu_arg`).
struct FromUser {
    n: Native,
    prog: &'static str,
    ret: Option<i32>,
}

impl Ops for FromUser {
    fn name(&self) -> &str {
        self.n.name()
    }
    fn flags(&self) -> u64 {
        self.n.flags()
    }
    fn init(&mut self, c: &mut Core) -> Result<(), String> {
        self.n.init(c)
    }
    fn init_task(&mut self, c: &mut Core, t: TaskId, fork: bool) -> Result<(), String> {
        self.n.init_task(c, t, fork)
    }
    fn enable(&mut self, c: &mut Core, t: TaskId) {
        self.n.enable(c, t)
    }
    fn exit_task(&mut self, c: &mut Core, t: TaskId) {
        self.n.exit_task(c, t)
    }
    fn select_cpu(&mut self, c: &mut Core, t: TaskId, prev: usize, wf: u64) -> Option<i32> {
        self.n.select_cpu(c, t, prev, wf)
    }
    fn enqueue(&mut self, c: &mut Core, t: TaskId, fl: u64) -> bool {
        self.n.enqueue(c, t, fl)
    }
    fn has_enqueue(&self) -> bool {
        self.n.has_enqueue()
    }
    fn dispatch(&mut self, c: &mut Core, cpu: usize, prev: Option<TaskId>) -> bool {
        self.n.dispatch(c, cpu, prev)
    }
    fn runnable(&mut self, c: &mut Core, t: TaskId, fl: u64) {
        self.n.runnable(c, t, fl)
    }
    fn running(&mut self, c: &mut Core, t: TaskId) {
        self.n.running(c, t);
        if self.ret.is_none() && c.tasks[t].ts.pid == 1000 {
            let mut pid = 1000i32;
            // SAFETY: the selftest's program takes a struct task_cpu_arg
            let r = unsafe { self.n.run_syscall_in(c, self.prog, &mut pid) };
            self.ret = Some(r.unwrap());
        }
    }
    fn stopping(&mut self, c: &mut Core, t: TaskId, runnable: bool) {
        self.n.stopping(c, t, runnable)
    }
    fn quiescent(&mut self, c: &mut Core, t: TaskId, fl: u64) {
        self.n.quiescent(c, t, fl)
    }
    fn tick(&mut self, c: &mut Core, t: TaskId) {
        self.n.tick(c, t)
    }
    fn update_idle(&mut self, c: &mut Core, cpu: usize, idle: bool) {
        self.n.update_idle(c, cpu, idle)
    }
    fn timer(&mut self, c: &mut Core, timer: usize) {
        self.n.timer(c, timer)
    }
    fn exit(&mut self, c: &mut Core, reason: &str) {
        self.n.exit(c, reason)
    }
    fn counters(&self) -> Vec<(String, u64)> {
        self.n.counters()
    }
    fn cgroup_ops(&self) -> (bool, bool) {
        self.n.cgroup_ops()
    }
    fn cgroup_init(&mut self, c: &mut Core) -> Result<(), String> {
        self.n.cgroup_init(c)
    }
    fn cgroup_exit(&mut self, c: &mut Core) {
        self.n.cgroup_exit(c)
    }
}

/// Selftest `test` whose user-space half runs its SEC("syscall") program
/// `prog` once attached (FromUser), during the runner's `sleep(1)`.
/// Returns the program, the syscall program's return and the stop.
fn run_from_user(test: &str, prog: &'static str) -> (Native, Option<i32>, Stop) {
    let (m, n) = load(test, "2s2c2t");
    let mut u = FromUser { n, prog, ret: None };
    let mut core = core_for(m, 10 * SEC);
    let mut wl = Script::new().sleep_one_second();
    let stop = core.run(&mut u, &mut wl, |_| {});
    (u.n, u.ret, stop)
}

fn flag(n: &Native, name: &str) -> bool {
    n.read_global::<u8>(name).unwrap() != 0
}

/// The run went to its end: every task exited, the scheduler was not
/// ejected, and ops.exit saw the loader's unregistration.
fn assert_finished(test: &str, stop: &Stop) {
    assert_eq!(*stop, Stop::Finished, "{test}");
}

/// The scheduler was ejected with an error ext.c raises (scx_error:
/// SCX_EXIT_ERROR, "runtime error") whose message contains `want`.
fn assert_error_exit(test: &str, n: &Native, stop: &Stop, want: &str) {
    assert!(matches!(stop, Stop::Ejected(_)), "{test}: {stop:?}");
    let u = uei(n);
    assert_eq!(
        u.kind,
        abi::SCX_EXIT_ERROR,
        "{test}: {} / {}",
        u.reason,
        u.msg
    );
    assert_eq!(u.reason, "runtime error", "{test}");
    assert!(
        u.msg.contains(want),
        "{test}: message '{}', expected '{want}'",
        u.msg
    );
}

/// minimal.c: the scheduler with only a name loads, attaches and runs the
/// machine's tasks (the kernel test only attaches and detaches).
#[test]
fn minimal() {
    let (_, stop) = run("minimal", "2s2c2t", Script::new().sleep_one_second());
    assert_finished("minimal", &stop);
}

/// select_cpu_dfl.c: with ops.enqueue and no ops.select_cpu, the default
/// idle pick dispatches a waking task straight to an idle CPU's local DSQ,
/// so ops.enqueue never sees a test task whose CPU is idle (`saw_local`
/// stays false) across 1028 forked children that each sleep 1 s. (The
/// kernel's children keep the runner's comm, "runner", which its
/// task_is_test() does not match; here they are named "select_cpu_dfl",
/// so the check bites.)
#[test]
fn select_cpu_dfl() {
    let (n, stop) = run(
        "select_cpu_dfl",
        "2s2c2t",
        Script::new().children(1028, "select_cpu_dfl"),
    );
    assert_finished("select_cpu_dfl", &stop);
    assert!(!flag(&n, "saw_local"));
}

/// select_cpu_dfl_nodispatch.c: scx_bpf_select_cpu_dfl() called from
/// ops.select_cpu reports an idle CPU it found (`found`), the task then
/// reaches ops.enqueue (no automatic direct dispatch), which inserts it
/// into SCX_DSQ_LOCAL: `saw_local` must be set.
#[test]
fn select_cpu_dfl_nodispatch() {
    let (n, stop) = run(
        "select_cpu_dfl_nodispatch",
        "2s2c2t",
        Script::new().children(1028, "runner"),
    );
    assert_finished("select_cpu_dfl_nodispatch", &stop);
    assert!(flag(&n, "saw_local"));
}

/// select_cpu_dispatch.c: direct dispatch from ops.select_cpu (to an idle
/// CPU's local DSQ, else the global DSQ) and no other callback: 1028
/// children fork, sleep 1 s and exit, none lost.
#[test]
fn select_cpu_dispatch() {
    let (_, stop) = run(
        "select_cpu_dispatch",
        "2s2c2t",
        Script::new().children(1028, "runner"),
    );
    assert_finished("select_cpu_dispatch", &stop);
}

/// select_cpu_dispatch_bad_dsq.c: an insert into a DSQ that does not exist
/// (0xcafef00d) from ops.select_cpu ejects the scheduler with
/// SCX_EXIT_ERROR (ext.c find_dsq_for_dispatch: "non-existent DSQ").
#[test]
fn select_cpu_dispatch_bad_dsq() {
    let t = "select_cpu_dispatch_bad_dsq";
    let (n, stop) = run(t, "2s2c2t", Script::new().sleep_one_second());
    assert_error_exit(t, &n, &stop, "non-existent DSQ 0xcafef00d");
}

/// select_cpu_dispatch_dbl_dsp.c: two inserts of one task in one
/// ops.select_cpu eject it with SCX_EXIT_ERROR (ext.c
/// mark_direct_dispatch: "already direct-dispatched").
#[test]
fn select_cpu_dispatch_dbl_dsp() {
    let t = "select_cpu_dispatch_dbl_dsp";
    let (n, stop) = run(t, "2s2c2t", Script::new().sleep_one_second());
    assert_error_exit(t, &n, &stop, "already direct-dispatched");
}

/// select_cpu_vtime.c: vtime-ordered direct dispatch into a user DSQ from
/// ops.select_cpu, consumed from ops.dispatch: `consumed` is false before
/// the attach and true after a second of the machine's tasks.
#[test]
fn select_cpu_vtime() {
    let (n, stop) = run_with(
        "select_cpu_vtime",
        "2s2c2t",
        Script::new().sleep_one_second(),
        |n| assert!(!flag(n, "consumed")),
    );
    assert_finished("select_cpu_vtime", &stop);
    assert!(flag(&n, "consumed"));
}

/// ddsp_bogus_dsq_fail.c: a vtime insert into a DSQ that does not exist,
/// from ops.select_cpu: SCX_EXIT_ERROR ("non-existent DSQ", which ext.c
/// raises before it would fall back to the global DSQ).
#[test]
fn ddsp_bogus_dsq_fail() {
    let t = "ddsp_bogus_dsq_fail";
    let (n, stop) = run(t, "2s2c2t", Script::new().sleep_one_second());
    assert_error_exit(t, &n, &stop, "non-existent DSQ 0xcafef00d");
}

/// ddsp_vtimelocal_fail.c: a vtime insert into SCX_DSQ_LOCAL from
/// ops.select_cpu: SCX_EXIT_ERROR (ext.c dispatch_enqueue: "cannot use
/// vtime ordering for built-in DSQs").
#[test]
fn ddsp_vtimelocal_fail() {
    let t = "ddsp_vtimelocal_fail";
    let (n, stop) = run(t, "2s2c2t", Script::new().sleep_one_second());
    assert_error_exit(t, &n, &stop, "cannot use vtime ordering for built-in DSQs");
}

/// Not a selftest of its own: exit.bpf.c's ops.init creates DSQ 0, which
/// here already exists, so ops.init fails with -EEXIST. ext.c raises
/// "ops.init() failed (-17)" and still calls ops.exit (SCX_EXIT_ERROR).
#[test]
fn a_failed_ops_init_still_reaches_ops_exit() {
    let (m, mut n) = load("exit", "2s2c2t");
    // an exit point none of the callbacks has
    n.write_global("exit_point", 0, &99i32.to_ne_bytes())
        .unwrap();
    let mut core = Core::new(m, CostModel::default(), Config::default()).unwrap();
    assert_eq!(core.kf_create_dsq(0, -1), 0);
    let stop = core.run(&mut n, &mut Script::new().sleep_one_second(), |_| {});
    assert!(matches!(stop, Stop::Ejected(_)), "{stop:?}");
    let u = uei(&n);
    assert_eq!(u.kind, abi::SCX_EXIT_ERROR, "{}", u.msg);
    assert_eq!(u.msg, "ops.init() failed (-17)");
}

/// enq_last_no_enq_fails.c: SCX_OPS_ENQ_LAST without ops.enqueue is
/// refused once attached (ext.c validate_ops): its ops.exit records
/// SCX_EXIT_ERROR in the BSS `exit_kind`.
#[test]
fn enq_last_no_enq_fails() {
    let t = "enq_last_no_enq_fails";
    let (n, stop) = run(t, "2s2c2t", Script::new().sleep_one_second());
    assert!(
        matches!(&stop, Stop::Ejected(m) if m.contains("SCX_OPS_ENQ_LAST requires ops.enqueue()")),
        "{stop:?}"
    );
    assert_eq!(
        n.read_global::<u32>("exit_kind").unwrap() as i64,
        abi::SCX_EXIT_ERROR
    );
}

/// enq_select_cpu.c: ops.select_cpu returns prev, so every wake-up
/// reaches ops.enqueue, which calls scx_bpf_select_cpu_dfl() there and
/// inserts into SCX_DSQ_LOCAL_ON of the idle CPU it found; user space also
/// calls it, from a SEC("syscall") program (select_cpu_from_user) run on
/// the runner's CPU. After a second no error exit (SCX_EXIT_NONE while
/// attached; the loader's detach then gives SCX_EXIT_UNREG).
#[test]
fn enq_select_cpu() {
    select_cpu_from_user_runs("enq_select_cpu");
}

/// Selftest `test`, whose user space runs its SEC("syscall")
/// select_cpu_from_user once attached: the run finishes, the program
/// returned a CPU or -EBUSY, and the exit is the loader's unregistration.
fn select_cpu_from_user_runs(test: &str) {
    let (n, ret, stop) = run_from_user(test, "select_cpu_from_user");
    assert_finished(test, &stop);
    let ret = ret.expect("the runner never ran the syscall program");
    assert!(
        ret >= 0 || ret == -16,
        "select_cpu_from_user returned {ret}"
    );
    assert_eq!(uei(&n).kind, abi::SCX_EXIT_UNREG);
}

/// allowed_cpus.c: scx_bpf_select_cpu_and() restricted to a one-CPU
/// domain (the first online CPU) from ops.select_cpu and ops.enqueue,
/// each pick checked to be claimed (busy) and inside the domain, and from
/// user space (SEC("syscall") select_cpu_from_user with the task's own
/// cpus_ptr); no error exit in a second.
#[test]
fn allowed_cpus() {
    select_cpu_from_user_runs("allowed_cpus");
}

/// prog_run.c: once the scheduler is attached, user space runs a
/// SEC("syscall") program (BPF_PROG_RUN) that creates a DSQ and calls
/// scx_bpf_exit(0xdeadbeef): the scheduler unregisters itself,
/// uei.kind = SCX_EXIT_UNREG_BPF and uei.exit_code = 0xdeadbeef.
#[test]
fn prog_run() {
    let (n, ret, stop) = run_from_user("prog_run", "prog_run_syscall");
    assert_eq!(ret, Some(0), "BPF_PROG_RUN");
    assert!(matches!(stop, Stop::Ejected(_)), "{stop:?}");
    let u = uei(&n);
    assert_eq!(u.kind, abi::SCX_EXIT_UNREG_BPF, "{}", u.msg);
    assert_eq!(u.code, 0xdeadbeef);
    assert_eq!(u.msg, "Exited from PROG_RUN");
}

/// exit.c: scx_bpf_exit() from each of ops.select_cpu, ops.enqueue,
/// ops.dispatch, ops.enable, ops.init_task and ops.init (rodata
/// `exit_point`) unregisters the scheduler: uei.kind is
/// SCX_EXIT_UNREG_BPF, uei.exit_code the exit point, uei.msg its number.
#[test]
fn exit() {
    for tc in 0..6i32 {
        let (n, stop) = run_with("exit", "2s2c2t", Script::new().sleep_one_second(), |n| {
            n.write_global("exit_point", 0, &tc.to_ne_bytes()).unwrap()
        });
        assert!(
            matches!(stop, Stop::Ejected(_)),
            "exit point {tc}: {stop:?}"
        );
        let u = uei(&n);
        assert_eq!(
            u.kind,
            abi::SCX_EXIT_UNREG_BPF,
            "exit point {tc}: {}",
            u.msg
        );
        assert_eq!(u.code, tc as i64);
        assert_eq!(u.reason, "unregistered from BPF");
        assert_eq!(u.msg, tc.to_string());
    }
}

/// maximal.c: a scheduler defining every callback (sched_ext_ops in full,
/// with a user DSQ its ops.init creates and ops.dispatch consumes) loads
/// and runs the machine's tasks. ops.yield, ops.core_sched_before and the
/// cgroup-move / hotplug callbacks are compiled in and never called (no
/// sched_yield, no core scheduling, no cgroup moves or hotplug here).
#[test]
fn maximal() {
    let (_, stop) = run("maximal", "2s2c2t", Script::new().sleep_one_second());
    assert_finished("maximal", &stop);
}

/// create_dsq.c: ops.init creates user DSQs 0..1023 and destroys them all,
/// then ops.init_task creates one DSQ per task (its pid, which must be
/// free again) and ops.exit_task destroys it; any failed create is a
/// scx_bpf_error. The kernel test attaches and detaches; here the tasks
/// also fork and exit.
#[test]
fn create_dsq() {
    let (_, stop) = run("create_dsq", "2s2c2t", Script::new().sleep_one_second());
    assert_finished("create_dsq", &stop);
}

/// dsp_local_on.c: ops.enqueue pushes pids on a BPF_MAP_TYPE_QUEUE,
/// ops.dispatch pops one and inserts it into SCX_DSQ_LOCAL_ON of a random
/// CPU (the task's own when it is pinned); after a second the loader's
/// detach leaves uei.kind = SCX_EXIT_UNREG, not an error.
#[test]
fn dsp_local_on() {
    let t = "dsp_local_on";
    let m = presets::find("2s2c2t").unwrap();
    let nr = m.nr_cpus() as i32;
    let (n, stop) = run_with(t, "2s2c2t", Script::new().sleep_one_second(), |n| {
        n.write_global("nr_cpus", 0, &nr.to_ne_bytes()).unwrap()
    });
    assert_finished(t, &stop);
    assert_eq!(uei(&n).kind, abi::SCX_EXIT_UNREG);
}

/// numa.c: SCX_OPS_BUILTIN_IDLE_PER_NODE with one user DSQ per node; an
/// idle CPU of the task's node from scx_bpf_pick_idle_cpu_node, else
/// scx_bpf_pick_any_cpu_node, each checked to be busy (claimed) and in the
/// node; no error in a second of the machine's tasks on two nodes.
#[test]
fn numa() {
    let t = "numa";
    let (n, stop) = run_with(t, "2s2c2t", Script::new().sleep_one_second(), |n| {
        let off = std::mem::offset_of!(abi::SchedExtOps, flags);
        n.write_global(
            "numa_ops",
            off,
            &abi::SCX_OPS_BUILTIN_IDLE_PER_NODE.to_ne_bytes(),
        )
        .unwrap();
        n.write_global(
            "__COMPAT_SCX_PICK_IDLE_IN_NODE",
            0,
            &(abi::SCX_PICK_IDLE_IN_NODE as u32).to_ne_bytes(),
        )
        .unwrap();
    });
    assert_finished(t, &stop);
    assert_eq!(uei(&n).kind, abi::SCX_EXIT_UNREG);
}

/// peek_dsq.c: four threads that sleep 1 ms in a loop (the kernel's also
/// sched_yield(), which the simulator's workloads do not) for 3 s. The
/// first enqueue peeks the empty test DSQ (NULL), inserts the task, and
/// the dispatch on that CPU peeks it back (the same task); then tasks are
/// spread over a pool of DSQs that ops.dispatch scans with
/// scx_bpf_dsq_peek: some peeks must see a task (the peek_results map
/// holds pids). No error exit.
#[test]
fn peek_dsq() {
    let t = "peek_dsq";
    let mut wl = Script::new();
    let mut steps = Vec::new();
    for _ in 0..3000 {
        steps.push(Step::Run(10_000));
        steps.push(Step::Sleep(MS));
    }
    for _ in 0..4 {
        wl = wl.task("peek_dsq", 1, &steps);
    }
    let (n, stop) = run(t, "2s2c2t", wl.system(3 * SEC));
    assert_finished(t, &stop);
    let g = |name: &str| n.read_global::<i64>(name).unwrap();
    let gi = |name: &str| n.read_global::<i32>(name).unwrap();
    assert!(gi("enqueue_count") > 0);
    assert_ne!(gi("insert_test_cpu"), -1, "DSQ insert not attempted");
    assert_eq!(gi("dsq_peek_result1"), 0, "peek of the empty DSQ");
    assert_eq!(
        g("dsq_peek_result2"),
        g("dsq_peek_result2_expected"),
        "peek after the insert"
    );
    assert!(n.read_global::<u8>("debug_ksym_exists").unwrap() != 0);
    // print_observed_pids: the peek_results array's positive entries (its
    // storage hangs at the map struct's `value` slot: type, max_entries,
    // key, value pointers)
    let max = gi("max_samples") as usize;
    let base: *const i64 = n.read_global_at("peek_results", 24).unwrap();
    assert!(!base.is_null(), "peek_results was never written");
    // SAFETY: the array map's storage, max_entries (>= max_samples) longs
    let pids = (0..max).filter(|&i| unsafe { *base.add(i) } > 0).count();
    assert!(pids > 0, "no successful peeks");
}

/// The selftests are the kernel's: the built-in list names the version.
#[test]
fn the_selftests_are_from_linux_7_2_13() {
    assert!(ksft::KERNEL.contains("7.2.13"));
    assert!(ksft::names().contains(&"minimal"));
}

/// scx_simple (tools/sched_ext/scx_simple.bpf.c of 7.2.13, unmodified, with
/// its loader's defaults: weighted vtime, one shared DSQ) runs hackbench to
/// completion through `-s kernel:scx_simple` on 8 and on 224 CPUs: every
/// message delivered, no stall, no error exit.
#[test]
fn scx_simple_runs_hackbench_at_8_and_224_cpus() {
    use arbor_sim::run::simulate_defaults;
    use arbor_sim::sched::SchedSpec;
    let sched = SchedSpec::parse("kernel:scx_simple").unwrap();
    for (machine, g, l) in HACKBENCH_RUNS {
        let m = presets::find(machine).unwrap();
        let cpus = m.nr_cpus();
        let wl = format!("hackbench:g={g},l={l}");
        let o = simulate_defaults(&m, &sched, &wl, Config::default(), 1)
            .unwrap_or_else(|e| panic!("{cpus} CPUs: {e:#}"));
        assert_eq!(o.stop, "finished", "{cpus} CPUs");
        assert_all_messages(&o.metrics, machine, cpus, g, l);
    }
}

/// struct qmap_arena (tools/sched_ext/scx_qmap.h of 7.2.13): the counters
/// scx_qmap.c's loop prints, by their byte offsets in `qa` (its arena
/// global; natively a plain one).
struct QmapStats {
    enqueued: u64,
    dispatched: u64,
    reenqueued: u64,
    dequeued: u64,
    ddsp_from_enq: u64,
    cpuperf_avg: u32,
    cpuperf_target_avg: u32,
}

fn qmap_stats(n: &Native) -> QmapStats {
    let g = |off: usize| n.read_global_at::<u64>("qa", off).unwrap();
    let h = |off: usize| n.read_global_at::<u32>("qa", off).unwrap();
    QmapStats {
        enqueued: g(0),
        dispatched: g(8),
        reenqueued: g(16),
        dequeued: g(32),
        ddsp_from_enq: g(40),
        // test_error_cnt at 96, then cpuperf_min/avg/max, target_min/avg/max
        cpuperf_avg: h(104),
        cpuperf_target_avg: h(116),
    }
}

/// scx_qmap (tools/sched_ext/scx_qmap.bpf.c of 7.2.13, unmodified: a
/// cid-form scheduler, struct sched_ext_ops_cid, with five arena-backed
/// FIFOs, bpf_res_spin_lock, task ids, cmasks) with its loader's defaults
/// (`-s kernel:scx_qmap`) runs hackbench to completion on 8 and on 224
/// CPUs: every message delivered, no error exit (uei is the loader's
/// unregistration), and its own counters moved as scx_qmap.c prints them:
/// tasks went through its FIFOs (enq, dsp, each dispatched one was
/// enqueued), and nothing was re-enqueued (the sim's hackbench has no
/// higher-class task to take a CPU).
#[test]
fn scx_qmap_runs_hackbench_at_8_and_224_cpus() {
    for (machine, g, l) in HACKBENCH_RUNS {
        let (n, now, cpus) = hackbench_runs("scx_qmap", machine, g, l);
        let q = qmap_stats(&n);
        eprintln!(
            "scx_qmap {cpus} CPUs: {:.4} s simulated; stats: enq={} dsp={} delta={} reenq={} deq={} enq_ddsp={} cpuperf avg={} target avg={}",
            now as f64 / 1e9,
            q.enqueued,
            q.dispatched,
            q.enqueued as i64 - q.dispatched as i64,
            q.reenqueued,
            q.dequeued,
            q.ddsp_from_enq,
            q.cpuperf_avg,
            q.cpuperf_target_avg
        );
        assert!(
            q.enqueued > 0,
            "{cpus} CPUs: nothing went through qmap's FIFOs"
        );
        assert!(
            q.dispatched > 0,
            "{cpus} CPUs: nothing dispatched from the FIFOs"
        );
        assert!(
            q.dispatched <= q.enqueued,
            "{cpus} CPUs: dispatched more than enqueued"
        );
        assert_eq!(
            q.reenqueued, 0,
            "{cpus} CPUs: no higher class, no re-enqueue"
        );
    }
}

/// The cid mapping scx_qmap sees is the kernel's (scx_cid_init, cid.c:80-
/// 222 of 7.2.13): on x86-12, whose SMT siblings are numbered apart as
/// Linux numbers x86 threads (CPU k and k+6 share a core), the cids walk
/// core by core, so CPU k is cid 2k and CPU k+6 is cid 2k+1; and qmap,
/// whose FIFOs, idle mask and task affinities are all in cid space, runs
/// hackbench to completion on it.
#[test]
fn scx_qmap_cids_follow_the_topology() {
    let (m, mut n) = load("scx_qmap", "x86-12");
    assert_eq!(m.cpus[0].core, m.cpus[6].core, "x86-12's numbering changed");
    assert_ne!(m.cpus[0].core, m.cpus[1].core, "x86-12's numbering changed");
    let mut wl = arbor_sim::workload::spec::parse("hackbench:g=1,l=50", 12, 1).unwrap();
    let mut core = Core::new(m, CostModel::default(), Config::default()).unwrap();
    let stop = core.run(&mut n, wl.as_mut(), |_| {});
    assert_ran("x86-12", &n, &stop);
    let tbl: [i16; 12] = n.read_global_at("sim_cpu_to_cid_tbl", 0).unwrap();
    let want: Vec<i16> = (0..12)
        .map(|c| if c < 6 { 2 * c } else { 2 * (c - 6) + 1 })
        .collect();
    assert_eq!(tbl.to_vec(), want);
    let back: [i16; 12] = n.read_global_at("sim_cid_to_cpu_tbl", 0).unwrap();
    for (cpu, &cid) in tbl.iter().enumerate() {
        assert_eq!(back[cid as usize] as usize, cpu);
    }
    assert!(qmap_stats(&n).dispatched > 0);
}

/// scx_qmap's tick and monitor timer: ops.tick sets each CPU's performance
/// target from its tasks' running weight average (scx_bpf_cidperf_set),
/// and the 1 s monitor_timerfn aggregates the online cids' current
/// performance and capacity (scx_bpf_cidperf_cur / _cap) into qa. With
/// eight nice-0 tasks spinning 1.5 s on 2s2c2t, beside the machine's own
/// per-CPU kworkers (qmap learns that a CPU is idle only from
/// ops.update_idle, which ext.c calls on a CPU's transitions between a
/// task and idle, never at load: without them, CPUs idle since the load
/// are never used), every CPU ticks: the
/// average of weight 100 settles at queue 2 (weight_to_idx), target
/// SCX_CPUPERF_ONE * 2 / 4 = 512; the sim has no cpufreq, so the current
/// performance is SCX_CPUPERF_ONE (1024) on every CPU.
#[test]
fn scx_qmap_tick_and_monitor_use_cidperf() {
    let (m, mut n) = load("scx_qmap", "2s2c2t");
    let mut wl = Script::new();
    for i in 0..8 {
        wl = wl.task("spin", 200 + i, &[Step::Run(1_500 * MS)]);
    }
    wl = wl.system(2 * SEC);
    let mut core = core_for(m, 10 * SEC);
    let stop = core.run(&mut n, &mut wl, |_| {});
    assert_ran("scx_qmap", &n, &stop);
    let q = qmap_stats(&n);
    assert_eq!(q.cpuperf_avg, 1024, "the monitor timer did not run");
    assert_eq!(q.cpuperf_target_avg, 512);
}

/// hotplug.c's run: the selftest's scheduler `test` (hotplug_cb: with
/// ops.cpu_online/cpu_offline, each of which calls scx_bpf_exit;
/// hotplug_nocb: without them) attached on 2s2c2t while the runner sleeps;
/// CPU 1 goes offline 100 ms in, or, `onlining`, is offline from the start
/// and comes online 100 ms in. `seq`: (ops.hotplug_seq as the loader read
/// it at load, scx_hotplug_seq at attach) for test_hotplug_attach.
fn hotplug_run(test: &str, onlining: bool, seq: Option<(u64, u64)>) -> (Native, Stop) {
    use arbor_sim::core::hotplug::Hotplug;
    use arbor_sim::machine::Presence;
    let mut m = presets::find("2s2c2t").unwrap();
    if onlining {
        m.set_presence(&[1], Presence::Offline).unwrap();
    }
    let topo = m.topo().unwrap();
    let mut n = ksft::load(test, &topo).unwrap_or_else(|e| panic!("{e:#}"));
    let cfg = Config {
        time_limit: 10 * SEC,
        hotplug: if seq.is_some() {
            Vec::new()
        } else {
            vec![Hotplug {
                at: 100 * MS,
                cpu: 1,
                online: onlining,
            }]
        },
        ..Config::default()
    };
    let mut core = Core::new(m, CostModel::default(), cfg).unwrap();
    if let Some((at_load, now)) = seq {
        core.expected_hotplug_seq = Some(at_load);
        core.hotplug_seq = now;
    }
    let mut wl = Script::new().sleep_one_second();
    let stop = core.run(&mut n, &mut wl, |_| {});
    (n, stop)
}

/// hotplug.c, test_hotplug(onlining, cbs_defined) x 4 and
/// test_hotplug_attach: with the callbacks, the scheduler's own
/// scx_bpf_exit from ops.cpu_online / cpu_offline (after a blocking
/// scx_bpf_create_dsq there) ends it: SCX_EXIT_UNREG_BPF, code
/// SCX_ECODE_ACT_RESTART | HOTPLUG_EXIT_RSN (| HOTPLUG_ONLINING when
/// onlining); without them the kernel exits it (handle_hotplug,
/// ext.c:3606-3610): SCX_EXIT_UNREG_KERN, SCX_ECODE_ACT_RESTART |
/// SCX_ECODE_RSN_HOTPLUG. test_hotplug_attach: a CPU went offline between
/// the load (ops.hotplug_seq) and the attach: check_hotplug_seq
/// (ext.c:7260-7280) exits it the same way.
#[test]
fn hotplug() {
    // hotplug_test.h
    const HOTPLUG_EXIT_RSN: i64 = 1 << 0;
    const HOTPLUG_ONLINING: i64 = 1 << 1;
    for (onlining, cbs) in [(true, true), (false, true), (true, false), (false, false)] {
        let test = if cbs { "hotplug_cb" } else { "hotplug_nocb" };
        let (n, stop) = hotplug_run(test, onlining, None);
        let what = format!("hotplug onlining={onlining} cbs={cbs}");
        assert!(matches!(stop, Stop::Ejected(_)), "{what}: {stop:?}");
        let u = uei(&n);
        let (kind, code) = if cbs {
            let mut code = abi::SCX_ECODE_ACT_RESTART | HOTPLUG_EXIT_RSN;
            if onlining {
                code |= HOTPLUG_ONLINING;
            }
            (abi::SCX_EXIT_UNREG_BPF, code)
        } else {
            (
                abi::SCX_EXIT_UNREG_KERN,
                abi::SCX_ECODE_ACT_RESTART | abi::SCX_ECODE_RSN_HOTPLUG,
            )
        };
        assert_eq!(u.kind, kind, "{what}: {} / {}", u.reason, u.msg);
        assert_eq!(u.code, code, "{what}: {}", u.msg);
        let dir = if onlining { "online" } else { "offline" };
        let msg = if cbs {
            format!("hotplug event detected (1 going {dir})")
        } else {
            format!("cpu 1 going {dir}, exiting scheduler")
        };
        assert_eq!(u.msg, msg, "{what}");
    }
    // test_hotplug_attach: scx_hotplug_seq() > 0 at load, one more since
    let (n, stop) = hotplug_run("hotplug_nocb", true, Some((1, 2)));
    assert!(matches!(stop, Stop::Ejected(_)), "{stop:?}");
    let u = uei(&n);
    assert_eq!(u.kind, abi::SCX_EXIT_UNREG_KERN, "{}", u.msg);
    assert_eq!(
        u.code,
        abi::SCX_ECODE_ACT_RESTART | abi::SCX_ECODE_RSN_HOTPLUG
    );
    assert_eq!(u.msg, "expected hotplug seq 1 did not match actual 2");
}

/// dequeue.c's processes: 8 forked workers, each 1000 times a little work
/// (10000 additions: ~15 µs) then usleep(1000 + id * 100); and, in the
/// runner, the affinity hammer thread: for 500 ms, sched_setaffinity of
/// worker i % 8 to CPU (i / 8) % 4, one call after the other (~2 µs each);
/// beside them the machine's per-CPU kworkers for 3 s, as
/// [`Script::system`] has them (the kernel test runs on a live machine:
/// scenario 6's ops.dispatch consumes one BPF-queue entry per call and
/// relies on other enqueues' kicks to come back to the queue).
struct DequeueLoad {
    done: Vec<u32>,
    hammer_until: Option<Ns>,
    hammered: u64,
    left: usize,
}

const WORKERS: usize = 8;

impl DequeueLoad {
    fn new() -> DequeueLoad {
        DequeueLoad {
            done: vec![0; WORKERS + 9],
            hammer_until: None,
            hammered: 0,
            left: WORKERS + 9,
        }
    }
}

impl Workload for DequeueLoad {
    fn tasks(&self) -> Vec<TaskSpec> {
        let mut v: Vec<TaskSpec> = (0..WORKERS)
            .map(|i| TaskSpec::new("dequeue", 10_000 + i as u32))
            .collect();
        v.push(TaskSpec::new("dequeue", 1));
        for c in 0..8 {
            let mut k = TaskSpec::new(format!("kworker/{c}"), 100 + c as u32);
            k.cpus = Some(vec![c]);
            v.push(k);
        }
        v
    }
    fn next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        if t == WORKERS {
            let until = *self.hammer_until.get_or_insert(now + 500 * MS);
            if now >= until {
                self.left -= 1;
                return Step::Exit;
            }
            let i = self.hammered;
            self.hammered += 1;
            fx.set_cpus(
                (i % WORKERS as u64) as usize,
                vec![((i / WORKERS as u64) % 4) as usize],
            );
            return Step::Run(2_000);
        }
        // a worker: work, then sleep, 1000 times; a kworker: 50 µs every 10 ms
        let k = self.done[t];
        self.done[t] += 1;
        if t > WORKERS {
            if k == 600 {
                self.left -= 1;
                return Step::Exit;
            }
            return if k % 2 == 0 {
                Step::Run(50_000)
            } else {
                Step::Sleep(10 * MS)
            };
        }
        if k == 2000 {
            self.left -= 1;
            return Step::Exit;
        }
        if k % 2 == 0 {
            Step::Run(15_000)
        } else {
            Step::Sleep(1_000_000 + t as Ns * 100_000)
        }
    }
    fn finished(&self) -> bool {
        self.left == 0
    }
    fn metrics(&self, _elapsed: Ns) -> Vec<Metric> {
        Vec::new()
    }
}

/// dequeue.c (Linux 7.2.13's tools/testing/selftests/sched_ext/): each of
/// its scenarios attaches the scheduler with `test_scenario` set, runs
/// the workers and the affinity hammer (DequeueLoad) and detaches; the
/// BPF side checks every ops.dequeue against its per-task state machine
/// (scx_bpf_error on a violation). As its user-space half asserts: the
/// exit is SCX_EXIT_UNREG; scenarios 0, 1, 3, 4 (local and global DSQs
/// from ops.select_cpu / ops.enqueue: no custody) have no enqueue and no
/// dequeue of any kind; scenarios 2, 5, 6 (a user DSQ, a BPF queue) have
/// enqueues, dequeues, and as many of each. Added here: the hammer's
/// property-change dequeues (SCX_DEQ_SCHED_CHANGE) did happen in them.
///
/// Scenario 6 (a BPF queue) pops one queue entry per ops.dispatch, some
/// stale (a property change re-enqueues the task, so its pid is queued
/// twice), whose inserts finish_dispatch ignores. balance_one goes on
/// calling ops.dispatch while a round inserted anything, applied or not
/// (dspc->nr_tasks, ext.c:2801, 2893-2929), so a stale entry does not
/// leave the CPU idle with tasks queued behind it.
#[test]
fn dequeue() {
    let t = "dequeue";
    let mut changes = 0;
    for scenario in 0u32..7 {
        let (m, mut n) = load(t, "2s2c2t");
        n.write_global("test_scenario", 0, &scenario.to_ne_bytes())
            .unwrap();
        let mut core = core_for(m, 10 * SEC);
        let mut wl = DequeueLoad::new();
        let stop = core.run(&mut n, &mut wl, |_| {});
        assert_ran(&format!("scenario {scenario}"), &n, &stop);
        assert_eq!(uei(&n).kind, abi::SCX_EXIT_UNREG, "scenario {scenario}");
        let g = |name: &str| n.read_global::<u64>(name).unwrap();
        let (enq, deq) = (g("enqueue_cnt"), g("dequeue_cnt"));
        let (dsp, chg) = (g("dispatch_dequeue_cnt"), g("change_dequeue_cnt"));
        assert!(wl.hammered > 100_000, "{}", wl.hammered);
        if matches!(scenario, 0 | 1 | 3 | 4) {
            assert_eq!((enq, deq, dsp, chg), (0, 0, 0, 0), "scenario {scenario}");
        } else {
            assert!(enq > 0 && deq > 0, "scenario {scenario}: {enq} / {deq}");
            assert_eq!(enq, deq, "scenario {scenario}: enqueues vs dequeues");
            assert_eq!(dsp + chg, deq, "scenario {scenario}");
            changes += chg;
        }
    }
    assert!(
        changes > 0,
        "no property-change dequeue in scenarios 2, 5, 6"
    );
}

/// scx_qmap under dequeue.c's load: pinned per-CPU kworkers (qmap's
/// nr_cpus_allowed == 1 path) and the affinity hammer, whose every
/// sched_setaffinity reaches qmap as ops.set_cmask with the task's new
/// CPUs as a cmask (scx_call_op_set_cpumask, ext.c:526-551). qmap copies
/// it into the task's cid-space affinity; a dispatched task whose cmask
/// excludes the dispatching cid makes it kick the task's cid. The run
/// finishes with no error exit and tasks went through the FIFOs.
#[test]
fn scx_qmap_follows_affinity_changes() {
    let (m, mut n) = load("scx_qmap", "2s2c2t");
    let mut core = core_for(m, 10 * SEC);
    let mut wl = DequeueLoad::new();
    let stop = core.run(&mut n, &mut wl, |_| {});
    assert_ran("scx_qmap", &n, &stop);
    assert_eq!(uei(&n).kind, abi::SCX_EXIT_UNREG);
    assert!(wl.hammered > 100_000, "{}", wl.hammered);
    let q = qmap_stats(&n);
    assert!(q.enqueued > 0 && q.dispatched > 0);
}

/// scx_central (tools/sched_ext/scx_central.bpf.c of 7.2.13, unmodified,
/// with its loader's defaults: central CPU 0, nr_cpu_ids and its two
/// RESIZABLE_ARRAYs of that many CPUs) runs hackbench to completion on 8
/// and on 224 CPUs with no error exit: every wake-up goes to the central
/// CPU's ops.dispatch, which hands tasks out with SCX_SLICE_INF, and its
/// 1 ms BPF_F_TIMER_CPU_PIN timer, armed on the central CPU, kicks CPUs
/// whose task overran slice_ns (a timer firing elsewhere would be its own
/// scx_bpf_error). Its counters move as scx_central.c prints them.
#[test]
fn scx_central_runs_hackbench_at_8_and_224_cpus() {
    for (machine, g, l) in HACKBENCH_RUNS {
        let (n, now, cpus) = hackbench_runs("scx_central", machine, g, l);
        let c = |name: &str| n.read_global::<u64>(name).unwrap();
        eprintln!(
            "scx_central {cpus} CPUs: {:.4} s simulated; total={} locals={} queued={} lost_pids={} timers={} dispatch={} mismatch={} retry={} overflow={}",
            now as f64 / 1e9,
            c("nr_total"),
            c("nr_locals"),
            c("nr_queued"),
            c("nr_lost_pids"),
            c("nr_timers"),
            c("nr_dispatches"),
            c("nr_mismatches"),
            c("nr_retries"),
            c("nr_overflows")
        );
        assert!(c("nr_total") > 0, "{cpus} CPUs");
        // nr_queued is a gauge (central_q's length: +1 at push, -1 at
        // pop): every pushed task was popped by the end
        assert_eq!(c("nr_queued"), 0, "{cpus} CPUs: tasks left in central_q");
        assert!(
            c("nr_dispatches") > 0,
            "{cpus} CPUs: the central CPU dispatched nothing"
        );
        assert!(
            c("nr_timers") > 0,
            "{cpus} CPUs: the central timer never fired"
        );
        assert_eq!(c("nr_overflows"), 0, "{cpus} CPUs");
        assert!(n.read_global::<u8>("timer_pinned").unwrap() != 0);
        assert!(n.read_global::<u8>("timer_started").unwrap() != 0);
    }
}
