//! do_enqueue_task and what a wake-up does to the CPU it lands on
//! (ext-semantics.md items 2, 4 and 12; checklist 7-10, 16-18, 37-38).

use super::*;

/// select_cpu that keeps prev and inserts nothing.
fn keep_prev() -> Option<SelectFn> {
    Some(Box::new(|_c: &mut Core, _t, prev, _f| prev as i32))
}

/// ext.c:1957-1958 and 2011-2020 (checklist 7, 8): with no ops.enqueue the
/// task goes to the global DSQ with its slice refilled to SCX_SLICE_DFL,
/// and a CPU of its node runs it from there.
#[test]
fn no_enqueue_callback_inserts_into_the_global_dsq() {
    let mut s = Sched::fifo();
    s.select = keep_prev();
    s.enqueue = None;
    s.dispatch = None;
    s.init_task = Some(Box::new(|c: &mut Core, t| {
        if t == 1 {
            c.tasks[t].ts.scx.slice = 3 * MS;
        }
    }));
    let seen = cell::<Vec<(Ns, TaskState, u64)>>();
    let sn = seen.clone();
    s.tick = Some(Box::new(move |c: &mut Core, t| {
        if t == 0 && c.tasks.len() > 1 {
            let b = &c.tasks[1];
            sn.borrow_mut().push((c.now, b.state, b.ts.scx.slice));
        }
    }));
    let mut w =
        Script::new()
            .task("a", &[Act::Run(3 * MS)])
            .task_at("b", MS, None, &[Act::Run(MS)]);
    let (_core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    let at2 = seen.borrow().iter().find(|x| x.0 == 2 * MS).copied();
    assert_eq!(
        at2,
        Some((
            2 * MS,
            TaskState::Queued(DsqRef::Global),
            abi::SCX_SLICE_DFL
        ))
    );
    assert_eq!(runs_of(&s.log, 1), [(3 * MS, 0)]);
}

/// ext.c:354-357 and 2603-2608 (checklist 10): the global DSQ is one per
/// NUMA node, filled by task_cpu(p)'s node and consumed only by that
/// node's CPUs: a task queued on node 1 is not run by a CPU of node 0 that
/// goes through the scheduler meanwhile.
#[test]
fn global_dsq_is_per_node() {
    let mut s = Sched::fifo();
    s.enqueue = None;
    s.dispatch = None;
    // the free task is placed on CPU 5 (node 1), busy with a pinned task
    s.select = Some(Box::new(|_c: &mut Core, _t, _prev, _f| 5));
    let mut node0 = Vec::new();
    for _ in 0..10 {
        node0.extend([Act::Run(100 * US), Act::Sleep(400 * US)]);
    }
    let mut w = Script::new()
        .task_at("busy5", 0, Some(vec![5]), &[Act::Run(10 * MS)])
        .task_at("node0", 0, Some(vec![0]), &node0)
        .task_at("x", US, None, &[Act::Run(MS)]);
    let (_core, stop) = run(preset("2s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    // CPU 0 went through the scheduler many times while x waited
    assert!(runs_of(&s.log, 1).len() >= 10);
    assert_eq!(runs_of(&s.log, 2), [(10 * MS, 5)]);
}

/// ext.c:1965-1993 and 3650-3681 (checklist 9, 39): an ops.enqueue that
/// inserts nothing leaves the task in BPF custody; the core never runs it
/// on its own, and only the watchdog ends the stall.
#[test]
fn enqueue_inserting_nothing_leaves_the_task_with_bpf() {
    let mut s = Sched::fifo();
    s.select = keep_prev();
    s.enqueue = Some(Box::new(|_c: &mut Core, _t, _f| {}));
    s.dispatch = Some(Box::new(|_c: &mut Core, _cpu, _prev| {}));
    let mut w = Script::new().task("held", &[Act::Run(MS)]);
    let cfg = Config {
        watchdog_ns: 50 * MS,
        ..cfg()
    };
    let (core, stop) = run_with(flat(2), zero_cost(), cfg, &mut s, &mut w);
    let why = ejected(&stop);
    assert!(
        why.contains("runnable task stall") && why.contains("held["),
        "{why}"
    );
    assert_eq!(core.tasks[0].state, TaskState::Bpf);
    assert!(runs_of(&s.log, 0).is_empty());
    assert_eq!(
        calls(&s.log, |r| matches!(r.call, Call::Enqueue { .. })).len(),
        1
    );
}

/// core.c:2294-2305, ext.c:2262-2270 (checklist 37): a wake-up onto an
/// idle CPU reschedules it, whichever DSQ ops.enqueue chose: scx_simple's
/// enqueue into a shared DSQ, with no kick, still runs the task at once on
/// the CPU select_cpu picked.
#[test]
fn wakeup_on_an_idle_cpu_reschedules_it() {
    let mut s = Sched::fifo();
    s.select = Some(Box::new(|_c: &mut Core, _t, _prev, _f| 3));
    let mut w = Script::new().task_at("x", MS, None, &[Act::Run(MS)]);
    let (_core, stop) = run(flat(4), &mut s, &mut w);
    stopped_ok(&stop);
    assert!(
        !calls(&s.log, |r| r.call == Call::Dispatch { cpu: 3, prev: None }
            && r.at == MS)
        .is_empty()
    );
    assert_eq!(runs_of(&s.log, 0), [(MS, 3)]);
}

/// ext.c:2262-2284, 1521-1525 (checklist 37, 38): no wake-up preemption
/// between SCX tasks: a task woken onto a busy CPU waits for the running
/// task's slice or sleep, and no other CPU is woken for it.
#[test]
fn wakeup_on_a_busy_cpu_does_not_preempt() {
    let mut s = Sched::fifo();
    s.select = Some(Box::new(|_c: &mut Core, _t, _prev, _f| 0));
    let mut w = Script::new()
        .task_at("busy", 0, Some(vec![0]), &[Act::Run(5 * MS)])
        .task_at("x", MS, None, &[Act::Run(MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(runs_of(&s.log, 1), [(5 * MS, 0)]);
    assert!(calls(&s.log, |r| matches!(
        r.call,
        Call::Stopping { runnable: true, .. }
    ))
    .is_empty());
    assert!(calls(&s.log, |r| r.cpu == 1
        && matches!(r.call, Call::Dispatch { .. }))
    .is_empty());
}

/// select_cpu inserting into the local DSQ with a 2 ms slice.
fn local_2ms() -> Option<SelectFn> {
    Some(Box::new(|c: &mut Core, t, prev, _f| {
        c.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL, 2 * MS, None, 0);
        prev as i32
    }))
}

/// ext.c:2998-3003, 3397-3400, sched.h:2768 (checklist 16, 25): a task
/// whose slice ran out with nothing else runnable, without
/// SCX_OPS_ENQ_LAST, keeps its CPU: ops.dispatch is asked (with it as
/// prev), then it goes on with its slice refilled to 20 ms and no
/// stopping / enqueue / running callbacks.
#[test]
fn expired_lone_task_is_kept_without_enq_last() {
    let mut s = Sched::fifo();
    s.select = local_2ms();
    let slices = cell::<Vec<u64>>();
    let sl = slices.clone();
    s.tick = Some(Box::new(move |c: &mut Core, t| {
        sl.borrow_mut().push(c.tasks[t].ts.scx.slice)
    }));
    let mut w = Script::new().task("x", &[Act::Run(6 * MS)]);
    let (core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(core.now, 6 * MS);
    assert_eq!(
        calls(&s.log, |r| r.at < 6 * MS
            && matches!(r.call, Call::Dispatch { .. })),
        [Rec {
            at: 2 * MS,
            cpu: 0,
            call: Call::Dispatch {
                cpu: 0,
                prev: Some(0)
            }
        }]
    );
    assert_eq!(runs_of(&s.log, 0).len(), 1);
    assert!(calls(&s.log, |r| matches!(r.call, Call::Enqueue { .. })).is_empty());
    assert!(calls(&s.log, |r| matches!(
        r.call,
        Call::Stopping { runnable: true, .. }
    ))
    .is_empty());
    assert_eq!(*slices.borrow(), [MS, 0, 19 * MS, 18 * MS, 17 * MS]);
}

/// ext.c:3178-3191 (checklist 18): with SCX_OPS_ENQ_LAST, the expired
/// task with nothing else to run gets ops.stopping(p, true) then
/// ops.enqueue(p, SCX_ENQ_LAST); inserted into this CPU's local DSQ, the
/// CPU goes idle and at once runs it again.
#[test]
fn expired_lone_task_with_enq_last_gets_enqueue_last() {
    let mut s = Sched::fifo();
    s.flags = abi::SCX_OPS_ENQ_LAST;
    s.select = local_2ms();
    s.enqueue = Some(Box::new(|c: &mut Core, t, f| {
        let dsq = if f & abi::SCX_ENQ_LAST != 0 {
            abi::SCX_DSQ_LOCAL
        } else {
            SHARED
        };
        c.kf_dsq_insert(t, dsq, 2 * MS, None, 0);
    }));
    let mut w = Script::new().task("x", &[Act::Run(6 * MS)]);
    let (core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(core.now, 6 * MS);
    for at in [2 * MS, 4 * MS] {
        let seq: Vec<Call> = calls(&s.log, |r| r.at == at && !matches!(r.call, Call::Tick(_)))
            .into_iter()
            .map(|r| r.call)
            .collect();
        assert_eq!(
            seq,
            [
                Call::Dispatch {
                    cpu: 0,
                    prev: Some(0)
                },
                Call::Stopping {
                    t: 0,
                    runnable: true
                },
                Call::Enqueue {
                    t: 0,
                    flags: abi::SCX_ENQ_LAST
                },
                Call::UpdateIdle { cpu: 0, idle: true },
                Call::UpdateIdle {
                    cpu: 0,
                    idle: false
                },
                Call::Running(0),
            ],
            "at {at}"
        );
    }
}

/// ext.c:3145-3146, 3192-3194 (checklist 17): an expired task switched out
/// for another SCX task gets ops.stopping(p, true) then ops.enqueue(p, 0)
/// (no WAKEUP, and no ENQ_LAST even under SCX_OPS_ENQ_LAST).
#[test]
fn expired_task_with_another_queued_gets_enqueue_0() {
    let mut s = Sched::fifo();
    s.flags = abi::SCX_OPS_ENQ_LAST;
    s.select = keep_prev();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        insert_kick(c, t, SHARED, 2 * MS, None, 0)
    }));
    let mut w =
        Script::new()
            .task("a", &[Act::Run(3 * MS)])
            .task_at("b", US, None, &[Act::Run(3 * MS)]);
    let (_core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    let at2: Vec<Call> = calls(&s.log, |r| {
        r.at == 2 * MS && !matches!(r.call, Call::Tick(_))
    })
    .into_iter()
    .map(|r| r.call)
    .collect();
    assert_eq!(
        at2,
        [
            Call::Dispatch {
                cpu: 0,
                prev: Some(0)
            },
            Call::Stopping {
                t: 0,
                runnable: true
            },
            Call::Enqueue { t: 0, flags: 0 },
            Call::Running(1),
        ]
    );
}
