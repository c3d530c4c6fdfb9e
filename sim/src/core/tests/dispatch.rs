//! DSQs, inserts and the dispatch loop (ext-semantics.md items 3-5;
//! checklist 11-12, 14, 20-22).

use std::collections::VecDeque;

use super::*;

/// A second user DSQ some tests park tasks on.
const PARK: u64 = 1;

fn keep_prev() -> Option<SelectFn> {
    Some(Box::new(|_c: &mut Core, _t, prev, _f| prev as i32))
}

/// Tasks 1.. start 1, 2, 3 ... us after task 0, which runs 1 ms first:
/// they queue in the order of their ids.
fn queued_behind_first(n: usize) -> Script {
    let mut w = Script::new().task("t0", &[Act::Run(MS)]);
    for i in 1..n {
        w = w.task_at(&format!("t{i}"), i as Ns * US, None, &[Act::Run(MS)]);
    }
    w
}

fn first_runs(log: &Log, n: usize) -> Vec<TaskId> {
    let mut r: Vec<(Ns, TaskId)> = (0..n).map(|t| (runs_of(log, t)[0].0, t)).collect();
    r.sort();
    r.into_iter().map(|x| x.1).collect()
}

/// ext.c:1602-1616 (checklist 12): a FIFO DSQ runs tasks in insertion
/// order; SCX_ENQ_HEAD puts a task first.
#[test]
fn fifo_order_and_head_insert() {
    let mut s = Sched::fifo_kick();
    let mut w = queued_behind_first(4);
    let (_core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(first_runs(&s.log, 4), [0, 1, 2, 3]);

    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        let head = if t == 3 { abi::SCX_ENQ_HEAD } else { 0 };
        insert_kick(c, t, SHARED, abi::SCX_SLICE_DFL, None, head)
    }));
    let mut w = queued_behind_first(4);
    let (_core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(first_runs(&s.log, 4), [0, 3, 1, 2]);
}

/// ext.c:1371-1380, 1584-1595 (checklist 12): a user DSQ filled by
/// scx_bpf_dsq_insert_vtime runs tasks by ascending vtime, equal vtimes in
/// insertion order.
#[test]
fn vtime_order_with_fifo_ties() {
    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        let v = [0, 30, 10, 20, 10][t];
        insert_kick(c, t, SHARED, abi::SCX_SLICE_DFL, Some(v), 0)
    }));
    let mut w = queued_behind_first(5);
    let (_core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(first_runs(&s.log, 5), [0, 2, 4, 3, 1]);
}

/// ext.c:1572-1575, 1597-1600 (checklist 11): inserting by vtime into a
/// user DSQ that holds FIFO-inserted tasks, or FIFO into one holding
/// vtime-ordered tasks, aborts the scheduler; once the DSQ is empty again
/// either kind is fine.
#[test]
fn mixing_fifo_and_vtime_on_one_dsq_ejects() {
    for vtime_first in [false, true] {
        let mut s = Sched::fifo_kick();
        s.enqueue = Some(Box::new(move |c: &mut Core, t, _f| {
            let v = (t == 1) == vtime_first;
            insert_kick(c, t, SHARED, abi::SCX_SLICE_DFL, v.then_some(5), 0)
        }));
        let mut w = queued_behind_first(3);
        let (_core, stop) = run(flat(1), &mut s, &mut w);
        let why = ejected(&stop);
        assert!(why.contains("cannot mix"), "{why}");
    }
    // t1 (FIFO) has left the DSQ before t2 (vtime) is inserted
    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        insert_kick(c, t, SHARED, abi::SCX_SLICE_DFL, (t == 2).then_some(5), 0)
    }));
    let mut w = Script::new()
        .task("t0", &[Act::Run(MS)])
        .task_at("t1", US, None, &[Act::Run(MS)])
        .task_at("t2", 5 * MS, None, &[Act::Run(MS)]);
    let (_core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
}

/// ext.c:1551-1562 (checklist 11): vtime ordering on a built-in DSQ
/// (global or local) aborts the scheduler.
#[test]
fn vtime_insert_into_a_builtin_dsq_ejects() {
    for dsq in [abi::SCX_DSQ_GLOBAL, abi::SCX_DSQ_LOCAL] {
        let mut s = Sched::fifo_kick();
        s.enqueue = Some(Box::new(move |c: &mut Core, t, _f| {
            c.kf_dsq_insert(t, dsq, abi::SCX_SLICE_DFL, Some(1), 0)
        }));
        let mut w = Script::new().task("x", &[Act::Run(MS)]);
        let (_core, stop) = run(flat(1), &mut s, &mut w);
        let why = ejected(&stop);
        assert!(why.contains("vtime ordering for built-in DSQs"), "{why}");
    }
}

/// ext.c:9277-9323 (checklist 22): scx_bpf_dsq_move_to_local is allowed
/// only in ops.dispatch; called from ops.enqueue it aborts the scheduler.
#[test]
fn move_to_local_outside_dispatch_ejects() {
    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        c.kf_dsq_insert(t, SHARED, abi::SCX_SLICE_DFL, None, 0);
        c.kf_move_to_local(SHARED);
    }));
    let mut w = Script::new().task("x", &[Act::Run(MS)]);
    let (_core, stop) = run(flat(1), &mut s, &mut w);
    let why = ejected(&stop);
    assert!(why.contains("move_to_local") && why.contains("outside ops.dispatch"));
}

/// ext.c:2556-2601 (checklist 22): move_to_local takes the first task in
/// list order that may run on this CPU, silently skipping the others.
#[test]
fn move_to_local_skips_tasks_that_may_not_run_here() {
    let mut s = Sched::fifo_kick();
    let mut w = Script::new()
        .task_at("z0", 0, Some(vec![0]), &[Act::Run(5 * MS)])
        .task_at("z1", 0, Some(vec![1]), &[Act::Run(10 * MS)])
        .task_at("p", MS, Some(vec![1]), &[Act::Run(MS)])
        .task_at("q", MS + US, None, &[Act::Run(MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(runs_of(&s.log, 3), [(5 * MS, 0)]);
    assert_eq!(runs_of(&s.log, 2), [(10 * MS, 1)]);
}

/// A scheduler whose ops.enqueue keeps every task (BPF custody) in
/// `held`, kicking the task's CPU, and whose ops.dispatch is `dispatch`.
fn custody(
    dispatch: impl FnMut(&mut Core, usize, &mut VecDeque<TaskId>) + 'static,
) -> (Sched, Rc<RefCell<VecDeque<TaskId>>>) {
    let held = cell::<VecDeque<TaskId>>();
    let mut s = Sched::fifo();
    s.select = keep_prev();
    let h = held.clone();
    s.enqueue = Some(Box::new(move |c: &mut Core, t, _f| {
        h.borrow_mut().push_back(t);
        let cpu = c.tasks[t].cpu as i32;
        c.kf_kick_cpu(cpu, 0);
    }));
    let h = held.clone();
    let mut d = dispatch;
    s.dispatch = Some(Box::new(move |c: &mut Core, cpu, _prev| {
        let mut q = h.borrow_mut();
        d(c, cpu, &mut q)
    }));
    (s, held)
}

/// ext.c:8891-8901, 2735-2767 (checklist 9, 20): a task kept by ops.enqueue
/// runs once ops.dispatch inserts it; the insert is buffered and applied
/// only after ops.dispatch returns, on the dispatching CPU for
/// SCX_DSQ_LOCAL.
#[test]
fn dispatch_inserts_apply_after_dispatch_returns() {
    let during = cell::<Vec<(TaskState, usize)>>();
    let dr = during.clone();
    let (mut s, held) = custody(move |c, cpu, q| {
        if let Some(t) = q.pop_front() {
            c.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL, abi::SCX_SLICE_DFL, None, 0);
            dr.borrow_mut()
                .push((c.tasks[t].state, c.cpus[cpu].local.len()));
        }
    });
    let mut w = Script::new().task_at("x", MS, Some(vec![1, 2]), &[Act::Run(MS)]);
    let (_core, stop) = run(flat(4), &mut s, &mut w);
    stopped_ok(&stop);
    assert!(held.borrow().is_empty());
    assert_eq!(*during.borrow(), [(TaskState::Bpf, 0)]);
    assert_eq!(runs_of(&s.log, 0), [(MS, 1)]);
}

/// ext.c:2893-2929, types.h:19 (checklist 14): ops.dispatch is called
/// again while its last round produced tasks, at most SCX_DSP_MAX_LOOPS =
/// 32 times; then the CPU kicks itself and the loop resumes in a new pass.
#[test]
fn dispatch_loop_is_bounded_and_self_kicks() {
    let passes = cell::<Vec<(u64, bool)>>();
    let p = passes.clone();
    let (mut s, _held) = custody(move |c, _cpu, q| {
        c.kf_create_dsq(PARK, -1);
        let t = q.pop_front();
        if let Some(t) = t {
            // produced, but never reaches the local DSQ
            c.kf_dsq_insert(t, PARK, abi::SCX_SLICE_DFL, None, 0);
        }
        p.borrow_mut().push((c.stats.events, t.is_some()));
    });
    let mut w = Script::new();
    for i in 0..40 {
        w = w.task(&format!("t{i}"), &[Act::Run(MS)]);
    }
    let cfg = Config {
        time_limit: 50 * MS,
        ..cfg()
    };
    let (_core, stop) = run_with(flat(1), zero_cost(), cfg, &mut s, &mut w);
    assert_eq!(stop, Stop::TimeLimit);
    let calls = passes.borrow();
    let first = calls[0].0;
    let in_first = calls.iter().filter(|c| c.0 == first).count();
    assert_eq!(in_first, 32);
    // the second pass inserts the other 8, then a round producing nothing
    let rest: Vec<bool> = calls[32..].iter().map(|c| c.1).collect();
    assert_eq!(rest.len(), 9, "{calls:?}");
    assert!(rest[..8].iter().all(|&x| x) && !rest[8]);
}

/// ext.c:8891-8901 (item 5): more than 32 inserts in one ops.dispatch
/// overflow the dispatch buffer and abort the scheduler; 32 are fine.
#[test]
fn dispatch_buffer_overflow_ejects() {
    for n in [32, 33] {
        let (mut s, _held) = custody(move |c, _cpu, q| {
            if let Some(t) = q.pop_front() {
                for _ in 0..n {
                    c.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL, abi::SCX_SLICE_DFL, None, 0);
                }
            }
        });
        let mut w = Script::new().task("x", &[Act::Run(MS)]);
        let (_core, stop) = run(flat(1), &mut s, &mut w);
        if n == 32 {
            stopped_ok(&stop);
            assert_eq!(runs_of(&s.log, 0).len(), 1);
        } else {
            assert!(ejected(&stop).contains("dispatch buffer overflow"));
        }
    }
}

/// ext.c:2721-2787 (finish_dispatch; checklist 20): an insert from
/// ops.dispatch of a task that is not held by the BPF scheduler (already
/// dispatched into a DSQ) is silently dropped: the task stays where it is.
/// The dropped insert still counts in the round's nr_tasks (ext.c:2801),
/// so each pass runs SCX_DSP_MAX_LOOPS rounds and the CPU kicks itself
/// (2916-2929); the rounds' callback cost (bpf_callback_ns, the default)
/// is the time each pass takes, which brings the watchdog (at zero cost a
/// pass would take the clock's 1 ns step, and 50 ms would be too many).
#[test]
fn dispatch_insert_of_a_task_already_in_a_dsq_is_dropped() {
    let mut s = Sched::fifo_kick();
    // wrong on purpose: insert what SHARED holds instead of moving it
    s.dispatch = Some(Box::new(|c: &mut Core, _cpu, _prev| {
        let it = c.kf_iter_new(SHARED);
        while let Some(t) = c.kf_iter_next(it) {
            c.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL, abi::SCX_SLICE_DFL, None, 0);
        }
        c.kf_iter_destroy(it);
    }));
    let mut w = Script::new().task("x", &[Act::Run(MS)]);
    let cfg = Config {
        watchdog_ns: 50 * MS,
        ..cfg()
    };
    let cost = CostModel {
        bpf_callback_ns: CostModel::default().bpf_callback_ns,
        ..zero_cost()
    };
    let (core, stop) = run_with(flat(1), cost, cfg, &mut s, &mut w);
    assert!(ejected(&stop).contains("x["));
    assert!(runs_of(&s.log, 0).is_empty());
    // every pass ran its 32 rounds, each one dropping x's insert
    let dispatches = core.stats.ops()["dispatch"].0;
    assert!(dispatches > 32 * 1000, "{dispatches}");
    assert_eq!(core.tasks[0].state, TaskState::Queued(DsqRef::User(SHARED)));
}

/// ext.c:1757-1786, 1507-1508 (item 3): SCX_DSQ_LOCAL_ON | cpu is that
/// CPU's local DSQ; inserting there wakes it if it is idle.
#[test]
fn local_on_inserts_into_that_cpus_local_dsq() {
    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        c.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL_ON | 2, abi::SCX_SLICE_DFL, None, 0)
    }));
    let mut w = Script::new().task_at("x", MS, None, &[Act::Run(MS)]);
    let (_core, stop) = run(flat(4), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(runs_of(&s.log, 0), [(MS, 2)]);
}

/// ext.c:2391-2409, 2680-2684 (checklist 21): an insert into the local
/// DSQ of a CPU outside the task's cpumask, from ops.enqueue or from
/// ops.dispatch, is a scheduler error, and the task falls back to the
/// global DSQ. (x may run on CPUs 0-1; ops.dispatch runs on CPU 2, which
/// cannot take x from the global DSQ.)
#[test]
fn local_on_outside_the_cpumask_ejects_and_falls_back_to_global() {
    for from_dispatch in [false, true] {
        let mut s = Sched::fifo_kick();
        if from_dispatch {
            let held = cell::<Vec<TaskId>>();
            let h = held.clone();
            s.enqueue = Some(Box::new(move |c: &mut Core, t, _f| {
                h.borrow_mut().push(t);
                c.kf_kick_cpu(2, 0);
            }));
            s.dispatch = Some(Box::new(move |c: &mut Core, _cpu, _prev| {
                if let Some(t) = held.borrow_mut().pop() {
                    c.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL_ON | 3, abi::SCX_SLICE_DFL, None, 0);
                }
            }));
        } else {
            s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
                c.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL_ON | 3, abi::SCX_SLICE_DFL, None, 0)
            }));
        }
        let mut w = Script::new().task_at("x", 0, Some(vec![0, 1]), &[Act::Run(MS)]);
        let (core, stop) = run(flat(4), &mut s, &mut w);
        let why = ejected(&stop);
        assert!(why.contains("CPU 3") && why.contains("x"), "{why}");
        assert_eq!(core.tasks[0].state, TaskState::Queued(DsqRef::Global));
        assert_eq!(core.global[0].order(), [0]);
    }
}

/// ext.c:2503-2554 (checklist 21, item 5): scx_bpf_dsq_move of an
/// iterated task to the local DSQ of a CPU outside its cpumask is a
/// scheduler error; the task goes to the global DSQ and the call still
/// returns true. (ops.dispatch runs on CPU 2, which x may not run on.)
#[test]
fn dsq_move_outside_the_cpumask_ejects_and_falls_back_to_global() {
    let returned = cell::<Vec<bool>>();
    let r = returned.clone();
    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        c.kf_dsq_insert(t, SHARED, abi::SCX_SLICE_DFL, None, 0);
        c.kf_kick_cpu(2, 0);
    }));
    s.dispatch = Some(Box::new(move |c: &mut Core, _cpu, _prev| {
        let it = c.kf_iter_new(SHARED);
        while let Some(t) = c.kf_iter_next(it) {
            r.borrow_mut()
                .push(c.kf_dsq_move(it, t, abi::SCX_DSQ_LOCAL_ON | 3, 0));
        }
        c.kf_iter_destroy(it);
    }));
    let mut w = Script::new().task_at("x", 0, Some(vec![0, 1]), &[Act::Run(MS)]);
    let (core, stop) = run(flat(4), &mut s, &mut w);
    let why = ejected(&stop);
    assert!(why.contains("CPU 3"), "{why}");
    assert_eq!(*returned.borrow(), [true]);
    assert_eq!(core.tasks[0].state, TaskState::Queued(DsqRef::Global));
    assert_eq!(core.global[0].order(), [0]);
}

/// ext-semantics.md item 5 (scx_bpf_dsq_move_to_local): it first flushes
/// the dispatch buffer, so a task inserted into a user DSQ earlier in the
/// same ops.dispatch is there to be moved.
#[test]
fn move_to_local_flushes_the_dispatch_buffer_first() {
    let moved = cell::<Vec<bool>>();
    let m = moved.clone();
    let (mut s, _held) = custody(move |c, _cpu, q| {
        if q.len() < 2 {
            return;
        }
        c.kf_create_dsq(SHARED, -1);
        let (a, b) = (q.pop_front().unwrap(), q.pop_front().unwrap());
        c.kf_dsq_insert(a, abi::SCX_DSQ_LOCAL, abi::SCX_SLICE_DFL, None, 0);
        c.kf_dsq_insert(b, SHARED, abi::SCX_SLICE_DFL, None, 0);
        m.borrow_mut().push(c.kf_move_to_local(SHARED));
    });
    let mut w = Script::new()
        .task_at("a", 0, Some(vec![0]), &[Act::Run(MS)])
        .task_at("b", US, Some(vec![0]), &[Act::Run(MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(*moved.borrow(), [true]);
    // both ran, a first (inserted first), b right after it
    assert_eq!(runs_of(&s.log, 0).len(), 1);
    assert_eq!(runs_of(&s.log, 1), [(runs_of(&s.log, 0)[0].0 + MS, 0)]);
}
