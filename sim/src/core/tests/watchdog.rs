//! sched_ext's watchdog (ext-semantics.md item 10; checklist 39).

use super::*;

fn small_watchdog() -> Config {
    Config {
        watchdog_ns: 50 * MS,
        ..cfg()
    }
}

/// ext.c:3650-3681, 5962-5963 (checklist 39): a task left runnable and
/// never run for longer than the watchdog timeout aborts the scheduler
/// with "runnable task stall" naming it; here it sits in a user DSQ that
/// ops.dispatch never drains.
#[test]
fn a_stalled_task_ejects_naming_it() {
    let mut s = Sched::fifo_kick();
    // "fine" goes to its CPU's local DSQ; "stuck" to SHARED, never drained
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        let dsq = if t == 0 { abi::SCX_DSQ_LOCAL } else { SHARED };
        insert_kick(c, t, dsq, abi::SCX_SLICE_DFL, None, 0)
    }));
    s.dispatch = Some(Box::new(|_c: &mut Core, _cpu, _prev| {}));
    let mut w = Script::new().task("fine", &[Act::Run(200 * MS)]).task_at(
        "stuck",
        MS,
        None,
        &[Act::Run(MS)],
    );
    let cfg = small_watchdog();
    let sweep = cfg.sweep_ns;
    let (core, stop) = run_with(flat(2), zero_cost(), cfg, &mut s, &mut w);
    let why = ejected(&stop);
    assert!(why.starts_with("runnable task stall"), "{why}");
    assert!(why.contains("stuck[1001] failed to run for"), "{why}");
    assert!(!why.contains("fine"), "{why}");
    // caught within one sweep of the timeout, counted from when it became
    // runnable
    assert!(
        core.now > 51 * MS && core.now <= 51 * MS + sweep,
        "{}",
        core.now
    );
    assert!(runs_of(&s.log, 1).is_empty());
}

/// ext.c:2028-2049, 3025-3081 (item 10): runnable_at is reset each time a
/// task runs, so tasks that share a CPU in turns, each waiting less than
/// the timeout, never trip the watchdog however long the run.
#[test]
fn tasks_taking_turns_do_not_stall() {
    let mut s = Sched::fifo_kick();
    let mut w = Script::new()
        .task("a", &[Act::Run(200 * MS)])
        .task("b", &[Act::Run(200 * MS)])
        .task("c", &[Act::Run(200 * MS)]);
    // 20 ms slices: each waits 40 ms at a time, under the 50 ms timeout
    let (core, stop) = run_with(flat(1), zero_cost(), small_watchdog(), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(core.now, 600 * MS);
    assert!(runs_of(&s.log, 0).len() >= 10);
}
