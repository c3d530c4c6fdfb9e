//! The callbacks over a task's life (ext-semantics.md item 9).

use super::*;

/// The callback's name, without its arguments.
fn kind(c: &Call) -> &'static str {
    match c {
        Call::InitTask { .. } => "init_task",
        Call::Enable(_) => "enable",
        Call::ExitTask(_) => "exit_task",
        Call::Select { .. } => "select_cpu",
        Call::Enqueue { .. } => "enqueue",
        Call::Dispatch { .. } => "dispatch",
        Call::Runnable { .. } => "runnable",
        Call::Running(_) => "running",
        Call::Stopping { .. } => "stopping",
        Call::Quiescent { .. } => "quiescent",
        Call::Tick(_) => "tick",
        Call::UpdateIdle { .. } => "update_idle",
        Call::CpuRelease { .. } => "cpu_release",
        Call::CpuAcquire(_) => "cpu_acquire",
        Call::CpuOnline(_) => "cpu_online",
        Call::CpuOffline(_) => "cpu_offline",
        Call::Dequeue { .. } => "dequeue",
        Call::SetCpumask(_) => "set_cpumask",
        Call::SetWeight { .. } => "set_weight",
        Call::PrepMove { .. } => "cgroup_prep_move",
        Call::CgMove { .. } => "cgroup_move",
        Call::CancelMove { .. } => "cgroup_cancel_move",
        Call::CgSetWeight { .. } => "cgroup_set_weight",
        Call::CgSetBandwidth { .. } => "cgroup_set_bandwidth",
        Call::CgSetIdle { .. } => "cgroup_set_idle",
        Call::CgInit(_) => "cgroup_init",
        Call::CgExit(_) => "cgroup_exit",
    }
}

/// ext.c:4009-4063 (fork: init_task, enable), 2091-2092 (runnable),
/// 1965-1993 (enqueue), 3041-3042 (running), 2187-2238 (sleep: stopping,
/// quiescent), 4109-4148 (exit_task), item 9: the callbacks of a task that
/// is forked, runs, sleeps, is woken, runs and exits come in this order,
/// ops.tick only while it runs.
#[test]
fn callbacks_over_a_task_life_in_order() {
    let mut s = Sched::fifo_kick();
    let mut w = Script::new().task(
        "x",
        &[Act::Run(1500 * US), Act::Sleep(MS), Act::Run(400 * US)],
    );
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let all = of_task(&s.log, 0);
    let seq: Vec<&str> = all
        .iter()
        .map(|r| kind(&r.call))
        .filter(|k| *k != "tick")
        .collect();
    assert_eq!(
        seq,
        [
            "init_task",
            "enable",
            "select_cpu",
            "runnable",
            "enqueue",
            "running",
            "stopping",
            "quiescent",
            "select_cpu",
            "runnable",
            "enqueue",
            "running",
            "stopping",
            "quiescent",
            "exit_task",
        ]
    );
    assert_eq!(all[0].call, Call::InitTask { t: 0, fork: true });
    for r in &all {
        match r.call {
            Call::Stopping { runnable, .. } => assert!(!runnable),
            Call::Quiescent { flags, .. } => assert_eq!(flags, abi::SCX_DEQ_SLEEP),
            _ => {}
        }
    }
    // one tick, at 1 ms, between the first running and stopping
    let ticks: Vec<Ns> = all
        .iter()
        .filter(|r| matches!(r.call, Call::Tick(_)))
        .map(|r| r.at)
        .collect();
    assert_eq!(ticks, [MS]);
}

/// core.c:4280, 4987, ext.c:2091-2092 (item 2, item 9): a ttwu wake-up
/// reaches ops.runnable and ops.enqueue with SCX_ENQ_WAKEUP; a fork's
/// first enqueue (wake_up_new_task) has no SCX_ENQ_WAKEUP.
#[test]
fn wakeup_flag_on_wakeups_not_on_fork() {
    let mut s = Sched::fifo_kick();
    let mut w = Script::new().task("x", &[Act::Run(MS), Act::Sleep(MS), Act::Run(MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let flags = |want: fn(&Call) -> Option<u64>| -> Vec<u64> {
        s.log
            .borrow()
            .iter()
            .filter_map(|r| want(&r.call))
            .collect()
    };
    let runnable = flags(|c| match c {
        Call::Runnable { flags, .. } => Some(*flags),
        _ => None,
    });
    let enqueue = flags(|c| match c {
        Call::Enqueue { flags, .. } => Some(*flags),
        _ => None,
    });
    for v in [runnable, enqueue] {
        assert_eq!(v.len(), 2);
        assert_eq!(v[0] & abi::SCX_ENQ_WAKEUP, 0, "fork: {:#x}", v[0]);
        assert_ne!(v[1] & abi::SCX_ENQ_WAKEUP, 0, "ttwu: {:#x}", v[1]);
    }
}

/// ext.c:3145-3146 (put_prev_task_scx) and 2187-2238 (dequeue_task_scx):
/// ops.stopping(p, true) when a runnable task is switched out (slice
/// expired), with no ops.quiescent; ops.stopping(p, false) then
/// ops.quiescent(p, SCX_DEQ_SLEEP) when it blocks or exits.
#[test]
fn stopping_runnable_on_expiry_not_on_sleep() {
    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        insert_kick(c, t, SHARED, 2 * MS, None, 0)
    }));
    let mut w =
        Script::new()
            .task("a", &[Act::Run(3 * MS)])
            .task_at("b", US, None, &[Act::Run(MS)]);
    let (_core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    let stops: Vec<(Ns, Call)> = calls(&s.log, |r| {
        matches!(r.call, Call::Stopping { .. } | Call::Quiescent { .. })
    })
    .into_iter()
    .map(|r| (r.at, r.call))
    .collect();
    let sleep = abi::SCX_DEQ_SLEEP;
    assert_eq!(
        stops,
        [
            (
                2 * MS,
                Call::Stopping {
                    t: 0,
                    runnable: true
                }
            ),
            (
                3 * MS,
                Call::Stopping {
                    t: 1,
                    runnable: false
                }
            ),
            (3 * MS, Call::Quiescent { t: 1, flags: sleep }),
            (
                4 * MS,
                Call::Stopping {
                    t: 0,
                    runnable: false
                }
            ),
            (4 * MS, Call::Quiescent { t: 0, flags: sleep }),
        ]
    );
}

/// A task started by another's fork (Effects::fork, a replayed trace's
/// Fork op: sched_fork -> wake_up_new_task, core.c): nothing happens to it
/// before the fork; at the fork it gets init_task(fork) and enable, then
/// its first select_cpu with SCX_WAKE_FORK from the parent's CPU, at the
/// parent's time; a second fork of it does nothing.
#[test]
fn a_forked_task_starts_at_its_parents_fork_on_its_parents_cpu() {
    let mut s = Sched::fifo_kick();
    let mut w = Script::new()
        .task_at(
            "parent",
            0,
            Some(vec![1]),
            &[
                Act::Run(300 * US),
                Act::Fork(1),
                Act::Fork(1),
                Act::Run(100 * US),
            ],
        )
        .forked_task("child", &[Act::Run(50 * US)]);
    let (core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let child = of_task(&s.log, 1);
    let init = child
        .iter()
        .position(|r| matches!(r.call, Call::InitTask { fork: true, .. }))
        .expect("init_task");
    assert_eq!(child[init].at, 300 * US, "{child:?}");
    assert_eq!(
        child
            .iter()
            .filter(|r| matches!(r.call, Call::InitTask { .. }))
            .count(),
        1
    );
    let sel = child
        .iter()
        .find(|r| matches!(r.call, Call::Select { .. }))
        .expect("select_cpu");
    match sel.call {
        Call::Select { prev, flags, .. } => {
            assert_eq!(prev, 1, "selected from the parent's CPU");
            assert!(flags & abi::SCX_WAKE_FORK != 0, "{flags:#x}");
        }
        _ => unreachable!(),
    }
    assert_eq!(sel.cpu, 1);
    assert_eq!(core.tasks[1].state, TaskState::Exited);
}

/// A model workload's parent (workload/parent.rs): a task forked by a running parent
/// starts at its own time, but its fork placement runs on the parent's
/// CPU with that CPU as prev, while the parent runs there; a task naming
/// no running task as its parent is refused.
#[test]
fn a_task_with_a_parent_starts_from_the_parents_cpu() {
    let mut s = Sched::fifo_kick();
    let mut w = Script::new()
        .task_at("parent", 0, Some(vec![1]), &[Act::Run(100 * US)])
        .task_at("child", 10 * US, None, &[Act::Run(50 * US)])
        .child_of(0)
        .task_at("orphan", 10 * US, None, &[Act::Run(50 * US)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let sel = |t| {
        of_task(&s.log, t)
            .into_iter()
            .find(|r| matches!(r.call, Call::Select { .. }))
            .expect("select_cpu")
    };
    let (child, orphan) = (sel(1), sel(2));
    assert_eq!(child.at, 10 * US);
    match (child.call, orphan.call) {
        (Call::Select { prev, flags, .. }, Call::Select { prev: oprev, .. }) => {
            assert_eq!(prev, 1, "forked from the parent's CPU");
            assert!(flags & abi::SCX_WAKE_FORK != 0, "{flags:#x}");
            assert_eq!(oprev, 0, "no parent: its first allowed CPU");
        }
        _ => unreachable!(),
    }
    assert_eq!(child.cpu, 1, "select_cpu ran on the parent's CPU");
    let mut s = Sched::fifo_kick();
    let mut w = Script::new().task("a", &[Act::Run(US)]).child_of(0);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    assert!(
        matches!(&stop, Stop::Invariant(e) if e.contains("as its parent")),
        "{stop:?}"
    );
}

/// bpf_ktime_get_ns never goes backwards (kf_ktime), on one CPU or across
/// CPUs. The case that needed it: a task that is switched in and blocks at
/// the same simulated instant read an earlier time in ops.stopping than in
/// ops.running (switch_in charged the CPU's pending callback cost to the
/// task's segment and cleared it), and bpfland's `now - last_run_at`
/// wrapped (docs/peers/bpfland-pinned-starvation.md). Here every wake-up
/// of the three tasks is followed at once by the next sleep: zero-length
/// runs, after a select_cpu, an enqueue and a dispatch on the same CPU;
/// ops.running reads the clock after three helper calls, ops.stopping at
/// once.
#[test]
fn the_time_a_callback_reads_never_goes_backwards() {
    let mut s = Sched::fifo();
    let reads = Rc::new(RefCell::new(Vec::new()));
    let (r1, r2) = (reads.clone(), reads.clone());
    s.running = Some(Box::new(move |c: &mut Core, t| {
        // a BPF callback that made a few helper calls before it reads the
        // clock (bpfland's running does), so its reading is past the
        // callback's start
        c.charge_calls(3);
        let now = c.kf_ktime();
        r1.borrow_mut().push((t, "running", now));
    }));
    s.stopping = Some(Box::new(move |c: &mut Core, t, _| {
        let now = c.kf_ktime();
        r2.borrow_mut().push((t, "stopping", now));
    }));
    let acts = [Act::Sleep(MS), Act::Sleep(MS), Act::Sleep(MS), Act::Run(MS)];
    let mut w = Script::new()
        .task_at("a", 0, Some(vec![0]), &acts)
        .task_at("b", 0, Some(vec![0]), &acts)
        .task_at("c", 0, Some(vec![1]), &acts);
    // the preset family's costs: callbacks and helper calls take time
    let (_core, stop) = run_with(flat(2), CostModel::default(), cfg(), &mut s, &mut w);
    stopped_ok(&stop);
    let reads = reads.borrow();
    assert!(reads.len() >= 12, "{reads:?}");
    for p in reads.windows(2) {
        assert!(p[1].2 >= p[0].2, "the clock went back: {p:?}");
    }
    // and a task's stopping is never before its own running
    for t in 0..3 {
        let mine: Vec<_> = reads.iter().filter(|r| r.0 == t).collect();
        for p in mine.windows(2) {
            assert!(p[1].2 >= p[0].2, "{p:?}");
        }
    }
}
