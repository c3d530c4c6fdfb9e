//! Slices and the tick (ext-semantics.md item 6; checklist 24-26).

use super::*;

/// Runs "a" (10 ms, inserted with `slice`, or its own residual slice for
/// 0) with "b" queued behind it on one CPU; returns the log and a's slice
/// as ops.tick saw it at each tick before b first ran.
fn a_then_b(hz: u32, slice: u64, a_init: Option<u64>) -> (Log, Vec<(Ns, u64)>) {
    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(move |c: &mut Core, t, _f| {
        let sl = if t == 0 { slice } else { abi::SCX_SLICE_DFL };
        insert_kick(c, t, SHARED, sl, None, 0)
    }));
    if let Some(v) = a_init {
        s.init_task = Some(Box::new(move |c: &mut Core, t| {
            if t == 0 {
                c.tasks[t].ts.scx.slice = v;
            }
        }));
    }
    let ticks = cell::<Vec<(Ns, u64)>>();
    let tk = ticks.clone();
    s.tick = Some(Box::new(move |c: &mut Core, t| {
        if t == 0 {
            tk.borrow_mut().push((c.now, c.tasks[t].ts.scx.slice));
        }
    }));
    let mut w =
        Script::new()
            .task("a", &[Act::Run(10 * MS)])
            .task_at("b", US, None, &[Act::Run(MS)]);
    let cfg = Config { hz, ..cfg() };
    let (_core, stop) = run_with(flat(1), zero_cost(), cfg, &mut s, &mut w);
    stopped_ok(&stop);
    let b_at = runs_of(&s.log, 1)[0].0;
    let v = ticks
        .borrow()
        .iter()
        .copied()
        .filter(|x| x.0 <= b_at)
        .collect();
    (s.log, v)
}

/// ext.c:1353-1369, 3727-3746 (checklist 25): the slice is charged with
/// the time run at each tick and ops.tick sees what is left; it expires
/// only at a tick (1/HZ resolution), where the CPU reschedules and the
/// next queued task runs.
#[test]
fn slice_is_charged_and_expires_at_the_tick() {
    let (log, ticks) = a_then_b(1000, 2500 * US, None);
    assert_eq!(ticks, [(MS, 1500 * US), (2 * MS, 500 * US), (3 * MS, 0)]);
    assert_eq!(runs_of(&log, 1), [(3 * MS, 0)]);
    assert!(!calls(&log, |r| r.at == 3 * MS
        && r.call
            == Call::Stopping {
                t: 0,
                runnable: true
            })
    .is_empty());

    // HZ 250: one tick every 4 ms
    let (log, ticks) = a_then_b(250, 2500 * US, None);
    assert_eq!(ticks, [(4 * MS, 0)]);
    assert_eq!(runs_of(&log, 1), [(4 * MS, 0)]);
}

/// ext.c:1362, sext.h:32 (checklist 26): SCX_SLICE_INF is never charged,
/// so the task runs until it blocks.
#[test]
fn slice_inf_never_expires() {
    let (log, ticks) = a_then_b(1000, u64::MAX, None);
    assert_eq!(ticks.len(), 9);
    assert!(ticks.iter().all(|&(_, s)| s == u64::MAX), "{ticks:?}");
    assert_eq!(runs_of(&log, 1), [(10 * MS, 0)]);
}

/// ext.c:8960-8963 (checklist 24): an insert with slice 0 keeps the task's
/// residual slice, or gives it 1 ns if nothing is left, so that it expires
/// at its next tick.
#[test]
fn insert_with_slice_0_keeps_the_residual() {
    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        let sl = if t == 0 { 0 } else { abi::SCX_SLICE_DFL };
        insert_kick(c, t, SHARED, sl, None, 0)
    }));
    s.init_task = Some(Box::new(|c: &mut Core, t| {
        if t == 0 {
            c.tasks[t].ts.scx.slice = 3 * MS;
        }
    }));
    let at_run = cell::<Vec<(Ns, TaskId, u64)>>();
    let ar = at_run.clone();
    s.running = Some(Box::new(move |c: &mut Core, t| {
        ar.borrow_mut().push((c.now, t, c.tasks[t].ts.scx.slice))
    }));
    let mut w =
        Script::new()
            .task("a", &[Act::Run(5 * MS)])
            .task_at("b", US, None, &[Act::Run(10 * MS)]);
    let (core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(
        *at_run.borrow(),
        [
            (0, 0, 3 * MS),
            (3 * MS, 1, abi::SCX_SLICE_DFL),
            (13 * MS, 0, 1)
        ]
    );
    // the 1 ns slice expired at the tick after 13 ms; nothing else was
    // runnable, so a was kept and finished at 15 ms
    assert_eq!(core.now, 15 * MS);
    assert!(!calls(&s.log, |r| r.at == 14 * MS
        && r.call
            == Call::Dispatch {
                cpu: 0,
                prev: Some(0)
            })
    .is_empty());
}

/// ext.c:3727-3746, core.c:5786-5834: ops.tick is called on the running
/// task at every tick of its CPU, and not on an idle CPU.
#[test]
fn tick_is_called_on_the_running_task() {
    let mut s = Sched::local();
    let mut w = Script::new()
        .task_at("a", 0, Some(vec![0]), &[Act::Run(3500 * US)])
        .task_at(
            "b",
            0,
            Some(vec![1]),
            &[Act::Run(500 * US), Act::Sleep(MS), Act::Run(800 * US)],
        );
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let ticks: Vec<(Ns, usize, TaskId)> = calls(&s.log, |r| matches!(r.call, Call::Tick(_)))
        .into_iter()
        .map(|r| (r.at, r.cpu, r.call.task().unwrap()))
        .collect();
    assert_eq!(
        ticks,
        [(MS, 0, 0), (2 * MS, 0, 0), (2 * MS, 1, 1), (3 * MS, 0, 0)]
    );
}
