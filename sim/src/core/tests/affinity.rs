//! Property changes of queued and running tasks, and BPF custody
//! (core/affinity.rs): the callbacks and their order as 7.2.13's
//! sched_change guard (core.c:11255-11340), dequeue_task_scx
//! (ext.c:2187-2236), set_cpus_allowed_scx (3562-3582), reweight_task_scx
//! (4150-4174), enqueue_task_scx (2051-2107), affine_move_task
//! (core.c:2970-3100) and move_queued_task (2557-2575) make them.

use super::*;

const DEQ: u64 = abi::DEQUEUE_SAVE | abi::DEQUEUE_NOCLOCK | abi::SCX_DEQ_SCHED_CHANGE;
const ENQ: u64 = abi::ENQUEUE_RESTORE | abi::ENQUEUE_NOCLOCK;

/// The calls about `t` from `from` ns on, without ticks.
fn after(log: &Log, t: TaskId, from: Ns) -> Vec<(Ns, usize, Call)> {
    of_task(log, t)
        .into_iter()
        .filter(|r| r.at >= from && !matches!(r.call, Call::Tick(_)))
        .map(|r| (r.at, r.cpu, r.call))
        .collect()
}

/// A nice change of a task waiting in a user DSQ (in BPF custody):
/// ops.dequeue and ops.quiescent with SAVE | NOCLOCK | SCX_DEQ_SCHED_CHANGE,
/// ops.set_weight with the new weight, then ops.runnable and ops.enqueue
/// with RESTORE | NOCLOCK; when ops.dispatch later moves it to a local DSQ
/// it leaves custody again: ops.dequeue(p, 0) (local_dsq_post_enq,
/// ext.c:1467-1473).
#[test]
fn nice_change_of_a_task_in_custody() {
    let mut s = Sched::fifo_queued();
    s.props = true;
    let mut w = Script::new()
        .task("a", &[Act::Run(MS), Act::SetNice(1, 5), Act::Run(MS)])
        .task_at("b", US, None, &[Act::Run(MS)]);
    let (core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    let w5 = crate::task::nice_to_weight(5);
    assert_eq!(core.tasks[1].ts.scx.weight, w5);
    let got: Vec<Call> = after(&s.log, 1, MS).into_iter().map(|r| r.2).collect();
    assert_eq!(
        got[..5],
        [
            Call::Dequeue { t: 1, flags: DEQ },
            Call::Quiescent { t: 1, flags: DEQ },
            Call::SetWeight { t: 1, weight: w5 },
            Call::Runnable { t: 1, flags: ENQ },
            Call::Enqueue { t: 1, flags: ENQ },
        ],
        "{got:?}"
    );
    // a exits at 2 ms; CPU 0's ops.dispatch moves b out of SHARED
    let rest = after(&s.log, 1, 2 * MS);
    assert_eq!(rest[0].2, Call::Dequeue { t: 1, flags: 0 }, "{rest:?}");
    assert_eq!(rest[1].2, Call::Running(1), "{rest:?}");
    // every ops.enqueue that kept b is paired with one ops.dequeue
    let enq = calls(&s.log, |r| matches!(r.call, Call::Enqueue { t: 1, .. })).len();
    let deq = calls(&s.log, |r| matches!(r.call, Call::Dequeue { t: 1, .. })).len();
    assert_eq!((enq, deq), (2, 2));
}

/// A task that sets its own affinity to exclude the CPU it runs on (what
/// rt-app does at a phase's "cpus"): the running task's change (stopping
/// false, quiescent, set_cpumask, runnable, running, on its CPU), then the
/// migration stopper: stopping(true) and ops.enqueue(p, ENQUEUE_MIGRATED)
/// for the new CPU; its next step runs there and never on CPU 0 again.
#[test]
fn a_running_task_that_excludes_its_cpu_moves_off_it() {
    let mut s = Sched::fifo_kick();
    s.props = true;
    let mut w = Script::new().task("a", &[Act::Run(MS), Act::SetCpus(0, 0b10), Act::Run(MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let got = after(&s.log, 0, MS);
    let want = [
        (
            MS,
            0,
            Call::Stopping {
                t: 0,
                runnable: false,
            },
        ),
        (MS, 0, Call::Quiescent { t: 0, flags: DEQ }),
        (MS, 0, Call::SetCpumask(0)),
        (MS, 0, Call::Runnable { t: 0, flags: ENQ }),
        (MS, 0, Call::Running(0)),
        (
            MS,
            0,
            Call::Stopping {
                t: 0,
                runnable: true,
            },
        ),
        (
            MS,
            0,
            Call::Enqueue {
                t: 0,
                flags: abi::ENQUEUE_MIGRATED,
            },
        ),
        (MS, 1, Call::Dequeue { t: 0, flags: 0 }),
        (MS, 1, Call::Running(0)),
    ];
    assert_eq!(got[..want.len()], want, "{got:?}");
    assert_eq!(runs_of(&s.log, 0), [(0, 0), (MS, 0), (MS, 1)]);
    // it ends after its 2 ms of work, on CPU 1
    let last = &got[got.len() - 2];
    assert_eq!(
        last.2,
        Call::Quiescent {
            t: 0,
            flags: abi::SCX_DEQ_SLEEP
        }
    );
    assert_eq!((last.0, last.1), (2 * MS, 1));
}

/// A task waiting in CPU 0's local DSQ (no custody: no ops.dequeue) whose
/// new mask excludes CPU 0: the restore's ops.enqueue on CPU 0's rq, whose
/// SCX_DSQ_LOCAL is not checked against the new mask (direct_dispatch,
/// ext.c:1840-1891), then move_queued_task: ops.enqueue(p,
/// ENQUEUE_MIGRATED) for CPU 1, with no ops.quiescent / ops.runnable
/// (task_on_rq_migrating); it runs on CPU 1 at once.
#[test]
fn a_queued_task_that_may_no_longer_run_there_is_moved() {
    let mut s = Sched::local();
    s.props = true;
    let mut w = Script::new()
        .task_at(
            "a",
            0,
            Some(vec![0]),
            &[Act::Run(MS), Act::SetCpus(1, 0b10), Act::Run(MS)],
        )
        .task_at("b", US, Some(vec![0, 1]), &[Act::Run(MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let got: Vec<(usize, Call)> = after(&s.log, 1, MS)
        .into_iter()
        .map(|r| (r.1, r.2))
        .collect();
    let want = [
        (0, Call::Quiescent { t: 1, flags: DEQ }),
        (0, Call::SetCpumask(1)),
        (0, Call::Runnable { t: 1, flags: ENQ }),
        (0, Call::Enqueue { t: 1, flags: ENQ }),
        (
            0,
            Call::Enqueue {
                t: 1,
                flags: abi::ENQUEUE_MIGRATED,
            },
        ),
        (1, Call::Running(1)),
    ];
    assert_eq!(got[..want.len()], want, "{got:?}");
    assert_eq!(runs_of(&s.log, 1), [(MS, 1)]);
}

/// A sleeping task's affinity change: only ops.set_cpumask
/// (set_cpus_allowed_scx; not queued, so no dequeue/enqueue); its next
/// wake-up, whose select_cpu keeps its disallowed prev, falls back to an
/// allowed CPU (select_fallback_rq).
#[test]
fn a_sleeping_task_gets_only_set_cpumask() {
    let mut s = Sched::fifo_kick();
    s.props = true;
    let mut w = Script::new()
        .task_at(
            "a",
            0,
            Some(vec![1]),
            &[Act::Run(MS), Act::SetCpus(1, 0b10), Act::Run(MS)],
        )
        .task_at(
            "b",
            0,
            Some(vec![0]),
            &[Act::Run(10 * US), Act::Sleep(5 * MS), Act::Run(MS)],
        );
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let got: Vec<Call> = after(&s.log, 1, MS).into_iter().map(|r| r.2).collect();
    assert_eq!(got[0], Call::SetCpumask(1), "{got:?}");
    // no property-change dequeue: only the custody one of its next run
    assert!(
        !got.iter().any(|c| matches!(c, Call::Dequeue { flags, .. } | Call::Quiescent { flags, .. } if flags & abi::SCX_DEQ_SCHED_CHANGE != 0)),
        "{got:?}"
    );
    assert_eq!(runs_of(&s.log, 1).last().map(|r| r.1), Some(1));
}

/// A running task's own nice change: stopping(false), quiescent,
/// set_weight, runnable, running, and it goes on running where it was.
#[test]
fn a_running_tasks_nice_change() {
    let mut s = Sched::fifo_kick();
    s.props = true;
    let mut w = Script::new().task("a", &[Act::Run(MS), Act::SetNice(0, -3), Act::Run(MS)]);
    let (core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    let w = crate::task::nice_to_weight(-3);
    let got: Vec<Call> = after(&s.log, 0, MS).into_iter().map(|r| r.2).collect();
    assert_eq!(
        got[..6],
        [
            Call::Stopping {
                t: 0,
                runnable: false
            },
            Call::Quiescent { t: 0, flags: DEQ },
            Call::SetWeight { t: 0, weight: w },
            Call::Runnable { t: 0, flags: ENQ },
            Call::Running(0),
            Call::Stopping {
                t: 0,
                runnable: false
            },
        ]
    );
    assert_eq!(core.tasks[0].ts.scx.weight, w);
    assert_eq!(core.now, 2 * MS);
}

/// Without ops.dequeue / set_cpumask / set_weight, nothing of them is
/// called (SCX_HAS_OP) and a change costs no callback.
#[test]
fn undefined_ops_are_not_called() {
    let mut s = Sched::fifo_queued();
    let mut w = Script::new()
        .task(
            "a",
            &[
                Act::Run(MS),
                Act::SetNice(1, 5),
                Act::SetCpus(1, 0b1),
                Act::Run(MS),
            ],
        )
        .task_at("b", US, None, &[Act::Run(MS)]);
    let (core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    assert!(!core.stats.ops().contains_key("dequeue"));
    assert!(!core.stats.ops().contains_key("set_weight"));
    assert!(!core.stats.ops().contains_key("set_cpumask"));
}

/// The invariant checker catches a task running outside its mask: a
/// scheduler that changes a running task's mask behind the core's back.
#[test]
fn running_outside_the_mask_is_a_violation() {
    let mut s = Sched::fifo_kick();
    s.tick = Some(Box::new(|c: &mut Core, t| {
        c.tasks[t].ts.cpus_mask.set(0, false);
        c.tasks[t].ts.cpus_mask.set(1, true);
    }));
    let mut w = Script::new().task("a", &[Act::Run(50 * MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    assert!(violated(&stop).contains("outside its affinity"), "{stop:?}");
}

/// sched_setaffinity with offline CPUs and holes (core.c:3130, 3183-3187;
/// cpuset_cpus_allowed of the top cpuset): a mask whose CPUs are all
/// offline or holes is refused (EINVAL) and the task stays where it is; a
/// mask with an offline and an online CPU moves it to the online one (the
/// destination is in cpu_active_mask) and keeps the offline CPU in its
/// mask, without the hole.
#[test]
fn affinity_to_offline_cpus_and_holes() {
    use crate::machine::Presence;
    let mut m = flat(4);
    m.set_presence(&[1], Presence::Absent).unwrap();
    m.set_presence(&[2], Presence::Offline).unwrap();
    let mut s = Sched::fifo_kick();
    s.props = true;
    let mut w = Script::new().task_at(
        "a",
        0,
        Some(vec![0]),
        &[
            Act::Run(MS),
            // only the hole and the offline CPU: EINVAL
            Act::SetCpus(0, 0b0110),
            Act::Run(MS),
            // the hole, the offline CPU and CPU 3: it moves to 3
            Act::SetCpus(0, 0b1110),
            Act::Run(MS),
        ],
    );
    let mut core = Core::new(m, zero_cost(), cfg()).unwrap();
    let stop = core.run(&mut s, &mut w, |_| {});
    stopped_ok(&stop);
    let mut cpus: Vec<usize> = runs_of(&s.log, 0).into_iter().map(|r| r.1).collect();
    cpus.dedup();
    assert_eq!(cpus, [0, 3]);
    // one ops.set_cpumask: the refused change made none
    let set = calls(&s.log, |r| r.call == Call::SetCpumask(0));
    assert_eq!(set.len(), 1);
    assert_eq!(set[0].at, 2 * MS);
    let mask = core.tasks[0].ts.cpus_mask;
    assert_eq!(
        (0..4).map(|c| mask.test(c)).collect::<Vec<_>>(),
        [false, false, true, true]
    );
}
