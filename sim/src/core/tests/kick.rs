//! scx_bpf_kick_cpu (ext-semantics.md item 7; checklist 27-29).

use super::*;

/// ext.c:8643-8656 (checklist 28): SCX_KICK_IDLE wakes an idle CPU, which
/// goes through the scheduler and runs what ops.dispatch gives it.
#[test]
fn kick_idle_wakes_an_idle_cpu() {
    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        c.kf_dsq_insert(t, SHARED, abi::SCX_SLICE_DFL, None, 0);
        let cpu = if t == 1 { 1 } else { c.tasks[t].cpu as i32 };
        c.kf_kick_cpu(cpu, abi::SCX_KICK_IDLE);
    }));
    let mut w = Script::new()
        .task_at("busy", 0, Some(vec![0]), &[Act::Run(5 * MS)])
        .task_at("x", MS, None, &[Act::Run(MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    // select_cpu kept it on busy CPU 0; the kick of CPU 1 ran it there
    assert_eq!(runs_of(&s.log, 1), [(MS, 1)]);
}

/// ext.c:8580-8595 (checklist 28) and item 7: SCX_KICK_IDLE does nothing
/// to a busy CPU; a plain kick reschedules it, but a running task with
/// slice left is kept with no dispatch and no callbacks.
#[test]
fn kick_idle_leaves_a_busy_cpu_alone() {
    let mut s = Sched::local();
    let seen = cell::<Vec<(bool, bool)>>();
    let sn = seen.clone();
    s.tick = Some(Box::new(move |c: &mut Core, t| {
        if t == 0 && c.now == MS {
            let before = c.cpus[1].resched_at.is_some();
            c.kf_kick_cpu(1, abi::SCX_KICK_IDLE);
            let after_idle = c.cpus[1].resched_at.is_some();
            c.kf_kick_cpu(1, 0);
            let after_plain = c.cpus[1].resched_at.is_some();
            assert!(!before);
            sn.borrow_mut().push((after_idle, after_plain));
        }
    }));
    let mut w = Script::new()
        .task_at("a", 0, Some(vec![0]), &[Act::Run(3 * MS)])
        .task_at("b", 0, Some(vec![1]), &[Act::Run(3 * MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(*seen.borrow(), [(false, true)]);
    // the plain kick switched nothing: b ran once, without interruption
    assert_eq!(runs_of(&s.log, 1), [(0, 1)]);
    assert!(calls(&s.log, |r| r.cpu == 1
        && r.at < 3 * MS
        && matches!(r.call, Call::Dispatch { .. } | Call::Stopping { .. }))
    .is_empty());
}

/// ext.c:8614-8631, 3145-3146, 3192-3194 (checklist 29, 17): SCX_KICK_PREEMPT
/// zeroes the running task's slice and reschedules its CPU: the task gets
/// ops.stopping(p, true) and ops.enqueue(p, 0) with slice 0, and the
/// waiting task runs at once.
#[test]
fn kick_preempt_preempts_the_running_task() {
    let mut s = Sched::fifo_kick();
    let slice_at_enqueue = cell::<Vec<(TaskId, u64)>>();
    let se = slice_at_enqueue.clone();
    s.enqueue = Some(Box::new(move |c: &mut Core, t, _f| {
        se.borrow_mut().push((t, c.tasks[t].ts.scx.slice));
        c.kf_dsq_insert(t, SHARED, abi::SCX_SLICE_DFL, None, 0);
        let kick = if t == 0 && c.now > 0 {
            abi::SCX_KICK_PREEMPT
        } else {
            abi::SCX_KICK_IDLE
        };
        c.kf_kick_cpu(0, kick);
    }));
    // "wakee" blocks at once; "waker" wakes it after 5 ms of its 10
    let mut w = Script::new()
        .task("wakee", &[Act::Block, Act::Run(MS)])
        .task_at(
            "waker",
            US,
            None,
            &[Act::Run(5 * MS), Act::Wake(0, false), Act::Run(5 * MS)],
        );
    let (_core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    let at = 5 * MS + US;
    let seq: Vec<Call> = calls(&s.log, |r| r.at == at)
        .into_iter()
        .map(|r| r.call)
        .collect();
    assert_eq!(
        seq,
        [
            Call::Runnable {
                t: 0,
                flags: abi::SCX_ENQ_WAKEUP
            },
            Call::Enqueue {
                t: 0,
                flags: abi::SCX_ENQ_WAKEUP
            },
            Call::Dispatch {
                cpu: 0,
                prev: Some(1)
            },
            Call::Stopping {
                t: 1,
                runnable: true
            },
            Call::Enqueue { t: 1, flags: 0 },
            Call::Running(0),
        ]
    );
    assert_eq!(slice_at_enqueue.borrow().last(), Some(&(1, 0)));
    // the waker gets its CPU back when the wakee is done
    assert_eq!(runs_of(&s.log, 1), [(US, 0), (at + MS, 0)]);
}

/// resched_curr (core.c): telling another CPU to reschedule costs an IPI;
/// a CPU woken by its own timer interrupt (a sleeper's timer on the CPU it
/// slept on) needs none.
#[test]
fn an_ipi_is_charged_only_to_another_cpu() {
    let ipi = 7 * US;
    let cost = CostModel {
        ipi_ns: ipi as f64,
        ..zero_cost()
    };
    // another CPU: a (CPU 0) wakes b, blocked on CPU 1
    let mut s = Sched::local();
    let mut w = Script::new()
        .task_at("a", 0, Some(vec![0]), &[Act::Run(MS), Act::Wake(1, false)])
        .task_at("b", 0, Some(vec![1]), &[Act::Block, Act::Run(MS)]);
    let (_c, stop) = run_with(flat(2), cost.clone(), cfg(), &mut s, &mut w);
    stopped_ok(&stop);
    let a_start = runs_of(&s.log, 0)[0].0;
    assert_eq!(runs_of(&s.log, 1).last(), Some(&(a_start + MS + ipi, 1)));
    // its own CPU: c's sleep timer fires on CPU 0, where c slept
    let mut s = Sched::local();
    let mut w = Script::new().task_at("c", 0, Some(vec![0]), &[Act::Sleep(MS), Act::Run(MS)]);
    let (_c, stop) = run_with(flat(2), cost, cfg(), &mut s, &mut w);
    stopped_ok(&stop);
    let runs = runs_of(&s.log, 0);
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[1], (runs[0].0 + MS, 0));
}
