//! ops.select_cpu: when it is called, with what, and what its result does
//! (ext-semantics.md item 1, checklist 1-6).

use super::*;

fn selects_of(log: &Log, t: TaskId) -> Vec<Rec> {
    calls(
        log,
        |r| matches!(r.call, Call::Select { t: x, .. } if x == t),
    )
}

/// core.c:3632-3657, 4280 and 4965-4982 (checklist 1-2, item 1): every
/// wake-up of a task that may move calls ops.select_cpu with the CPU it
/// last ran on and the raw wake flags: WF_FORK for a new task, WF_TTWU for
/// a wake-up, with WF_SYNC when the waker says so; it runs on the waker's
/// CPU.
#[test]
fn select_cpu_gets_prev_and_wake_flags() {
    let mut s = Sched::fifo();
    let mut w = Script::new()
        .task("waker", &[Act::Run(MS), Act::Wake(1, true), Act::Run(MS)])
        .task(
            "wakee",
            &[Act::Block, Act::Run(MS), Act::Sleep(2 * MS), Act::Run(MS)],
        );
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);

    let fl = |r: &Rec| match r.call {
        Call::Select { flags, .. } => flags,
        _ => unreachable!(),
    };
    let a = selects_of(&s.log, 0);
    assert_eq!(a.iter().map(fl).collect::<Vec<_>>(), [abi::SCX_WAKE_FORK]);
    let b = selects_of(&s.log, 1);
    assert_eq!(
        b.iter().map(fl).collect::<Vec<_>>(),
        [
            abi::SCX_WAKE_FORK,
            abi::SCX_WAKE_TTWU | abi::SCX_WAKE_SYNC,
            abi::SCX_WAKE_TTWU
        ]
    );
    // prev is where the wakee last ran
    let runs = runs_of(&s.log, 1);
    for r in &b[1..] {
        let last = runs.iter().rev().find(|(at, _)| *at <= r.at).unwrap().1;
        assert!(
            matches!(r.call, Call::Select { prev, .. } if prev == last),
            "{r:?}: wakee last ran on CPU {last}"
        );
    }
    // the sync wake-up's select_cpu ran on the waker's CPU, at 1 ms
    let waker_cpu = runs_of(&s.log, 0)[0].1;
    assert_eq!((b[1].at, b[1].cpu), (MS, waker_cpu));
}

/// core.c:3636-3641 (checklist 2): a task allowed on one CPU, or with
/// migration disabled, never reaches ops.select_cpu; the core keeps it
/// where it is.
#[test]
fn select_cpu_skipped_for_pinned_and_migration_disabled_tasks() {
    let mut s = Sched::fifo_kick();
    s.init_task = Some(Box::new(|c: &mut Core, t| {
        if t == 2 {
            c.tasks[t].ts.migration_disabled = 1;
        }
    }));
    let acts = [Act::Run(MS), Act::Sleep(MS), Act::Run(MS)];
    let mut w = Script::new()
        .task_at("pinned", 0, Some(vec![2]), &acts)
        .task("free", &acts)
        .task("nomigrate", &acts);
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    assert!(selects_of(&s.log, 0).is_empty());
    assert!(runs_of(&s.log, 0).iter().all(|&(_, c)| c == 2));
    assert!(selects_of(&s.log, 2).is_empty());
    // the control: the same wake-ups of a free task do call it
    assert_eq!(selects_of(&s.log, 1).len(), 2);
}

/// core.c:3653-3654 (checklist 3): a CPU the task may not run on, returned
/// by ops.select_cpu, is silently replaced by select_fallback_rq: no error,
/// and the task runs on an allowed CPU.
#[test]
fn disallowed_cpu_is_replaced_by_fallback() {
    let mut s = Sched::fifo_kick();
    s.select = Some(Box::new(|_c: &mut Core, _t, _prev, _f| 3));
    let mut w = Script::new().task_at(
        "x",
        0,
        Some(vec![1, 2]),
        &[Act::Run(MS), Act::Sleep(MS), Act::Run(MS)],
    );
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(selects_of(&s.log, 0).len(), 2);
    let runs = runs_of(&s.log, 0);
    assert_eq!(runs.len(), 2);
    assert!(runs.iter().all(|&(_, c)| c == 1 || c == 2), "{runs:?}");
}

/// core.c select_fallback_rq(): the replacement is an allowed CPU of the
/// node the task was on (task_cpu) first, before any other allowed CPU.
#[test]
fn fallback_prefers_an_allowed_cpu_of_prevs_node() {
    let calls = cell::<u32>();
    let k = calls.clone();
    let mut s = Sched::fifo_kick();
    // first placement on CPU 5 (node 1); then a disallowed CPU 3 (node 0)
    s.select = Some(Box::new(move |_c: &mut Core, _t, _prev, _f| {
        *k.borrow_mut() += 1;
        if *k.borrow() == 1 {
            5
        } else {
            3
        }
    }));
    let mut w = Script::new().task_at(
        "x",
        0,
        Some(vec![1, 5]),
        &[Act::Run(MS), Act::Sleep(MS), Act::Run(MS)],
    );
    let (_core, stop) = run(preset("2s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    let cpus: Vec<usize> = runs_of(&s.log, 0).iter().map(|r| r.1).collect();
    assert_eq!(cpus, [5, 5]);
}

/// ext.c:3535-3538, 1108-1116 (checklist 4): a CPU out of range from
/// ops.select_cpu aborts the scheduler ("invalid CPU").
#[test]
fn out_of_range_cpu_ejects() {
    for bad in [4, -1] {
        let mut s = Sched::fifo();
        s.select = Some(Box::new(move |_c: &mut Core, _t, _prev, _f| bad));
        let mut w = Script::new().task("x", &[Act::Run(MS)]);
        let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
        let why = ejected(&stop);
        assert!(why.contains(&format!("invalid CPU {bad}")), "{why}");
        assert!(runs_of(&s.log, 0).is_empty());
    }
}

/// ext.c:1788-1817, 1840-1891, 8960-8963 (checklist 5): an insert made in
/// ops.select_cpu is a direct dispatch: ops.enqueue is not called, the
/// slice is the one given, and SCX_DSQ_LOCAL means the selected CPU.
#[test]
fn insert_from_select_cpu_is_direct_dispatch_to_selected_cpu() {
    let mut s = Sched::fifo();
    s.select = Some(Box::new(|c: &mut Core, t, _prev, _f| {
        c.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL, 7 * MS, None, 0);
        3
    }));
    let slice = cell::<Vec<u64>>();
    let sl = slice.clone();
    s.running = Some(Box::new(move |c: &mut Core, t| {
        sl.borrow_mut().push(c.tasks[t].ts.scx.slice)
    }));
    let mut w = Script::new().task("x", &[Act::Run(MS), Act::Sleep(MS), Act::Run(MS)]);
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    assert!(calls(&s.log, |r| matches!(r.call, Call::Enqueue { .. })).is_empty());
    assert_eq!(runs_of(&s.log, 0), [(0, 3), (2 * MS, 3)]);
    assert_eq!(*slice.borrow(), [7 * MS, 7 * MS]);
}

/// ext.c:1840-1891 with core.c:3653-3654 (checklist 3, 5): when the
/// selected CPU is not allowed, a direct dispatch to SCX_DSQ_LOCAL still
/// happens (no ops.enqueue), on the local DSQ of the fallback CPU the core
/// placed the task on.
#[test]
fn direct_dispatch_to_local_binds_to_the_fallback_cpu() {
    let mut s = Sched::fifo();
    s.select = Some(Box::new(|c: &mut Core, t, _prev, _f| {
        c.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL, 7 * MS, None, 0);
        3
    }));
    let mut w = Script::new().task_at("x", 0, Some(vec![0, 1]), &[Act::Run(MS)]);
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    assert!(calls(&s.log, |r| matches!(r.call, Call::Enqueue { .. })).is_empty());
    let runs = runs_of(&s.log, 0);
    assert_eq!(runs.len(), 1);
    assert!(runs[0].1 < 2, "{runs:?}");
}

/// ext.c:3539-3554 (checklist 6): without ops.select_cpu the kernel runs
/// scx_select_cpu_dfl; an idle CPU found there gets the task by direct
/// dispatch to its local DSQ, and ops.enqueue is not called.
#[test]
fn no_select_cpu_uses_the_default_idle_picker() {
    let mut s = Sched::fifo();
    s.select = None;
    let mut w = Script::new()
        .task_at("busy", 0, Some(vec![0]), &[Act::Run(5 * MS)])
        .task_at("x", MS, None, &[Act::Run(MS)]);
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    assert!(calls(&s.log, |r| matches!(r.call, Call::Enqueue { t: 1, .. })).is_empty());
    let runs = runs_of(&s.log, 1);
    assert_eq!(runs[0].0, MS);
    assert_ne!(runs[0].1, 0);
}
