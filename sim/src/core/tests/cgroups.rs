//! Cgroup changes during a run (core/cgroup_events.rs): the callbacks and
//! their order as 7.2's scx_cgroup_can_attach, sched_move_task (the
//! sched_change guard with DEQUEUE_MOVE, scx_cgroup_move_task),
//! scx_group_set_weight / _set_bandwidth / _set_idle and scx_tg_online /
//! _offline make them.

use super::*;
use crate::core::cgroup_events;

const DEQ: u64 =
    abi::DEQUEUE_SAVE | abi::DEQUEUE_MOVE | abi::DEQUEUE_NOCLOCK | abi::SCX_DEQ_SCHED_CHANGE;
const ENQ: u64 = abi::ENQUEUE_RESTORE | abi::DEQUEUE_MOVE | abi::ENQUEUE_NOCLOCK;

fn with_events(ev: &str) -> Config {
    Config {
        cgroup_events: cgroup_events::parse(&[ev.to_string()]).unwrap(),
        ..cfg()
    }
}

/// The calls about `t` from `from` ns on, without ticks.
fn after(log: &Log, t: TaskId, from: Ns) -> Vec<Call> {
    of_task(log, t)
        .into_iter()
        .filter(|r| r.at >= from && !matches!(r.call, Call::Tick(_)))
        .map(|r| r.call)
        .collect()
}

/// The group calls (no task) from `from` ns on.
fn group_calls(log: &Log, from: Ns) -> Vec<Call> {
    calls(log, |r| {
        r.at >= from
            && matches!(
                r.call,
                Call::CgSetWeight { .. }
                    | Call::CgSetBandwidth { .. }
                    | Call::CgSetIdle { .. }
                    | Call::CgInit(_)
                    | Call::CgExit(_)
            )
    })
    .into_iter()
    .map(|r| r.call)
    .collect()
}

/// Groups: / (0), /a (1), /b (2). On one CPU, a (in /a) runs and b (in /b)
/// waits in SHARED (in custody) when both move at 1 ms to /b then /a:
/// a, running: prep_move, then stopping(false), quiescent(DEQ), cgroup_move,
/// runnable(ENQ), running; b, queued: prep_move, dequeue(DEQ),
/// quiescent(DEQ), cgroup_move, runnable(ENQ), enqueue(ENQ). A task
/// already in the destination gets nothing (identity move).
#[test]
fn a_move_is_prepared_then_made_inside_the_change_guard() {
    let mut s = Sched::fifo_queued();
    s.cgroups = true;
    s.props = true;
    let mut w = Script::new()
        .task("a", &[Act::Run(3 * MS)])
        .in_cgroup("/a")
        .task_at("b", US, None, &[Act::Run(MS)])
        .in_cgroup("/b");
    let cfg = with_events("1ms move 0 /b; 1ms move 1 /a; 1500us move 0-1 /a");
    let (core, stop) = run_with(flat(1), zero_cost(), cfg, &mut s, &mut w);
    stopped_ok(&stop);
    let a = after(&s.log, 0, MS);
    assert_eq!(
        a[..6],
        [
            Call::PrepMove {
                t: 0,
                from: 1,
                to: 2
            },
            Call::Stopping {
                t: 0,
                runnable: false
            },
            Call::Quiescent { t: 0, flags: DEQ },
            Call::CgMove {
                t: 0,
                from: 1,
                to: 2
            },
            Call::Runnable { t: 0, flags: ENQ },
            Call::Running(0),
        ],
        "{a:?}"
    );
    let b = after(&s.log, 1, MS);
    assert_eq!(
        b[..6],
        [
            Call::PrepMove {
                t: 1,
                from: 2,
                to: 1
            },
            Call::Dequeue { t: 1, flags: DEQ },
            Call::Quiescent { t: 1, flags: DEQ },
            Call::CgMove {
                t: 1,
                from: 2,
                to: 1
            },
            Call::Runnable { t: 1, flags: ENQ },
            Call::Enqueue { t: 1, flags: ENQ },
        ],
        "{b:?}"
    );
    // at 1.5 ms only a moves: b is in /a already
    let moves = calls(&s.log, |r| matches!(r.call, Call::CgMove { .. })).len();
    assert_eq!(moves, 3);
    assert_eq!((core.cgroups.of_task(0), core.cgroups.of_task(1)), (1, 1));
}

/// A batch of three where prep_move fails for the second: the first is
/// told by cancel_move, the third is never prepared, none moves.
#[test]
fn a_failed_prep_cancels_the_prepared_ones_and_moves_none() {
    let mut s = Sched::fifo_queued();
    s.cgroups = true;
    s.prep_fails = vec![1];
    let mut w = Script::new();
    for n in ["a", "b", "c"] {
        w = w.task(n, &[Act::Run(2 * MS)]).in_cgroup("/a");
    }
    w = w.task("d", &[Act::Run(2 * MS)]).in_cgroup("/b");
    let cfg = with_events("1ms move 0-2 /b");
    let (core, stop) = run_with(flat(2), zero_cost(), cfg, &mut s, &mut w);
    stopped_ok(&stop);
    let got: Vec<Call> = calls(&s.log, |r| {
        matches!(
            r.call,
            Call::PrepMove { .. } | Call::CancelMove { .. } | Call::CgMove { .. }
        )
    })
    .into_iter()
    .map(|r| r.call)
    .collect();
    assert_eq!(
        got,
        [
            Call::PrepMove {
                t: 0,
                from: 1,
                to: 2
            },
            Call::PrepMove {
                t: 1,
                from: 1,
                to: 2
            },
            Call::CancelMove {
                t: 0,
                from: 1,
                to: 2
            },
        ]
    );
    assert!((0..3).all(|t| core.cgroups.of_task(t) == 1));
}

/// A sleeping task moves with cgroup_move alone; a task not started yet
/// is only placed (it starts in the new group).
#[test]
fn sleeping_and_unstarted_tasks_move_without_a_requeue() {
    let mut s = Sched::fifo_queued();
    s.cgroups = true;
    let mut w = Script::new()
        .task("a", &[Act::Sleep(3 * MS), Act::Run(MS)])
        .in_cgroup("/a")
        .task_at("b", 2 * MS, None, &[Act::Run(MS)])
        .in_cgroup("/a")
        .task("c", &[Act::Run(MS)])
        .in_cgroup("/b");
    let cfg = with_events("1ms move 0-1 /b");
    let (core, stop) = run_with(flat(1), zero_cost(), cfg, &mut s, &mut w);
    stopped_ok(&stop);
    // asleep: no quiescent / runnable around the move
    assert_eq!(
        after(&s.log, 0, MS)[..3],
        [
            Call::PrepMove {
                t: 0,
                from: 1,
                to: 2
            },
            Call::CgMove {
                t: 0,
                from: 1,
                to: 2
            },
            Call::Runnable {
                t: 0,
                flags: abi::SCX_ENQ_WAKEUP
            },
        ]
    );
    assert!(after(&s.log, 1, 0)
        .iter()
        .all(|c| !matches!(c, Call::PrepMove { .. } | Call::CgMove { .. })));
    assert_eq!(core.cgroups.of_task(1), 2);
}

/// cpu.weight, cpu.max, cpu.max.burst and cpu.idle writes, an mkdir and
/// an rmdir: each callback with its arguments, a write that changes
/// nothing not passed on (but cpu.idle always), a weight write to an idle
/// group refused.
#[test]
fn group_writes_reach_the_scheduler_when_they_change_something() {
    let mut s = Sched::fifo_queued();
    s.cgroups = true;
    let mut w = Script::new().task("a", &[Act::Run(8 * MS)]).in_cgroup("/a");
    let ev = "1ms weight /a 100; 1ms weight /a 400; \
              2ms max /a 50000/200000; 2ms max /a 50000; 2ms burst /a 1000; \
              3ms max /a max; 4ms idle /a 1; 4ms idle /a 1; 4ms weight /a 50; \
              5ms mkdir /c; 6ms rmdir /c";
    let (core, stop) = run_with(flat(1), zero_cost(), with_events(ev), &mut s, &mut w);
    stopped_ok(&stop);
    let bw = |period, quota, burst| Call::CgSetBandwidth {
        g: 1,
        period,
        quota,
        burst,
    };
    assert_eq!(
        group_calls(&s.log, MS),
        [
            Call::CgSetWeight { g: 1, weight: 400 },
            bw(200_000, 50_000, 0),
            bw(200_000, 50_000, 1000),
            bw(200_000, u64::MAX, 1000),
            Call::CgSetIdle { g: 1, idle: true },
            Call::CgSetIdle { g: 1, idle: true },
            Call::CgInit(2),
            Call::CgExit(2),
        ]
    );
    assert!(core.cgroups.nodes()[2].removed);
    assert_eq!(core.cgroups.nodes()[1].weight, 400);
}

/// A running SCHED_FIFO task (core/rt.rs) moved: prep_move and
/// cgroup_move, and no sched_ext dequeue / enqueue callback around them
/// (its own class requeues it).
#[test]
fn a_real_time_task_moves_with_the_cgroup_callbacks_alone() {
    let mut s = Sched::fifo_queued();
    s.cgroups = true;
    let mut w = Script::new()
        .rt_task("r", 50, 0, None, &[Act::Run(3 * MS)])
        .in_cgroup("/a")
        .task("b", &[Act::Run(MS)])
        .in_cgroup("/b");
    let (core, stop) = run_with(
        flat(2),
        zero_cost(),
        with_events("1ms move 0 /b"),
        &mut s,
        &mut w,
    );
    stopped_ok(&stop);
    assert_eq!(
        after(&s.log, 0, MS),
        [
            Call::PrepMove {
                t: 0,
                from: 1,
                to: 2
            },
            Call::CgMove {
                t: 0,
                from: 1,
                to: 2
            },
        ]
    );
    assert_eq!(core.cgroups.of_task(0), 2);
}

/// The group each task is in when ops.init_task sees it, by task.
fn groups_at_init(s: &mut Sched) -> Rc<RefCell<Vec<(TaskId, usize)>>> {
    let seen = cell::<Vec<(TaskId, usize)>>();
    let v = seen.clone();
    s.init_task = Some(Box::new(move |c: &mut Core, t| {
        v.borrow_mut().push((t, c.cgroups.of_task(t)))
    }));
    seen
}

/// A task forked after its parent moved starts in the parent's group
/// (cgroup_post_fork: the child gets the parent's css_set; ext.c's
/// ops.init_task has args->cgroup = the parent's), both for a fork made by
/// a running task's step (a replayed trace) and for one made by the
/// launcher (workload/parent.rs); a child that an event named before its
/// fork stays where that put it. Groups: / (0), /a (1), /b (2), /c (3).
#[test]
fn a_child_forked_after_its_parent_moved_starts_in_the_parents_group() {
    let mut s = Sched::fifo_queued();
    s.cgroups = true;
    let seen = groups_at_init(&mut s);
    let mut w = Script::new()
        // 0: forks 1 at 2 ms, moved to /b at 1 ms
        .task("p", &[Act::Run(2 * MS), Act::Fork(1), Act::Run(MS)])
        .in_cgroup("/a")
        .forked_task("c", &[Act::Run(MS)])
        .in_cgroup("/a")
        // 2: launches 3 at 2 ms, moved to /b at 1 ms
        .task("q", &[Act::Run(3 * MS)])
        .in_cgroup("/a")
        .task_at("d", 2 * MS, None, &[Act::Run(MS)])
        .in_cgroup("/a")
        .child_of(2)
        // 4: launches 5 at 2 ms, moved to /b; 5 was placed in /c
        .task("r", &[Act::Run(3 * MS)])
        .in_cgroup("/a")
        .task_at("e", 2 * MS, None, &[Act::Run(MS)])
        .in_cgroup("/a")
        .child_of(4)
        .task("x", &[Act::Run(MS)])
        .in_cgroup("/b")
        .task("y", &[Act::Run(MS)])
        .in_cgroup("/c");
    let cfg = with_events("1ms move 0 /b; 1ms move 2 /b; 1ms move 4 /b; 1ms move 5 /c");
    let (core, stop) = run_with(flat(4), zero_cost(), cfg, &mut s, &mut w);
    stopped_ok(&stop);
    let at_init = |t: TaskId| {
        seen.borrow()
            .iter()
            .find(|&&(u, _)| u == t)
            .map(|&(_, g)| g)
    };
    assert_eq!(at_init(1), Some(2), "forked by a step");
    assert_eq!(at_init(3), Some(2), "launched");
    assert_eq!(at_init(5), Some(3), "placed before its fork");
    assert_eq!(
        (1..6).map(|t| core.cgroups.of_task(t)).collect::<Vec<_>>(),
        [2, 2, 2, 2, 3]
    );
}
