//! What scx_lavd reads of the kernel (core/lavd.rs): the PELT clocks,
//! scx_bpf_cpuperf_cap, scx_bpf_cpu_curr, se.sum_exec_runtime, the
//! priorities and parents of tasks.

use super::*;

/// `flat(2)` with CPU 1 at half capacity.
fn half_cpu1() -> Machine {
    let mut m = flat(2);
    m.cpus[1].capacity = 512;
    m
}

/// update_rq_clock_pelt: a CPU's rq_clock_pelt advances by the time it
/// runs a task scaled by its capacity (512 / 1024: half as fast), and is
/// clock_task again once it has been idle; clock_task follows the clock.
/// A task pinned to CPU 1 runs 4 ms, sleeps 4 ms, runs 4 ms; its tick
/// reads both clocks on CPU 1.
#[test]
fn pelt_clock_advances_by_capacity_while_busy_and_resyncs_when_idle() {
    let seen: Rc<RefCell<Vec<(Ns, u64, u64)>>> = cell();
    let s2 = seen.clone();
    let mut s = Sched::fifo();
    s.tick = Some(Box::new(move |c: &mut Core, _t| {
        let (task, pelt) = (c.kf_clock_task(1), c.kf_clock_pelt(1));
        s2.borrow_mut().push((c.now, task, pelt));
    }));
    let mut w = Script::new().task_at(
        "p",
        0,
        Some(vec![1]),
        &[Act::Run(4 * MS), Act::Sleep(4 * MS), Act::Run(4 * MS)],
    );
    let (_core, stop) = run(half_cpu1(), &mut s, &mut w);
    stopped_ok(&stop);
    let seen = seen.borrow();
    assert!(seen.len() >= 6, "{seen:?}");
    for &(now, task, _) in seen.iter() {
        assert_eq!(task, now, "clock_task on the CPU itself is the clock");
    }
    // within one busy stretch, pelt advances half as fast as the clock
    let (a, b) = (seen[0], seen[1]);
    assert_eq!(b.2 - a.2, (b.0 - a.0) / 2, "{seen:?}");
    // after the sleep: pelt was reset to clock_task when the CPU was idle,
    // so the first tick of the second stretch is within one tick of now
    let second = seen.iter().find(|x| x.0 > 8 * MS).unwrap();
    assert!(
        second.2 + MS >= second.0 && second.2 <= second.0,
        "{seen:?}"
    );
}

/// A remote reader sees the clocks of an idle CPU as of its last update
/// (no ticks while idle: NO_HZ_IDLE); scx_clock_* of an invalid CPU is 0.
#[test]
fn an_idle_cpus_clocks_stand_still_for_a_remote_reader() {
    let seen: Rc<RefCell<Vec<(Ns, u64, u64)>>> = cell();
    let s2 = seen.clone();
    let mut s = Sched::fifo();
    s.tick = Some(Box::new(move |c: &mut Core, _t| {
        if c.this_cpu == 0 {
            let (task, pelt) = (c.kf_clock_task(1), c.kf_clock_pelt(1));
            s2.borrow_mut().push((c.now, task, pelt));
            assert_eq!(c.kf_clock_task(7), 0);
            assert_eq!(c.kf_clock_pelt(7), 0);
        }
    }));
    let mut w = Script::new()
        .task_at("a", 0, Some(vec![0]), &[Act::Run(6 * MS)])
        .task_at("b", 0, Some(vec![1]), &[Act::Run(MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let seen = seen.borrow();
    // CPU 1 went idle at about 1 ms; from then on its clocks do not move
    let late: Vec<_> = seen.iter().filter(|x| x.0 >= 3 * MS).collect();
    assert!(late.len() >= 2, "{seen:?}");
    assert!(
        late.windows(2)
            .all(|w| w[0].1 == w[1].1 && w[0].2 == w[1].2),
        "{seen:?}"
    );
    assert!(late[0].1 < 2 * MS, "{seen:?}");
}

/// scx_bpf_cpuperf_cap: arch_scale_cpu_capacity; an invalid CPU is a
/// scheduler error (scx_cpu_valid) and the call returns SCX_CPUPERF_ONE
/// (1024).
#[test]
fn cpuperf_cap_is_the_cpus_capacity() {
    let mut c = Core::new(half_cpu1(), zero_cost(), cfg()).unwrap();
    assert_eq!(c.kf_cpuperf_cap(0), 1024);
    assert_eq!(c.kf_cpuperf_cap(1), 512);
    assert!(c.stop.is_none());
    assert_eq!(c.kf_cpuperf_cap(-1), 1024);
    assert!(
        matches!(&c.stop, Some(Stop::Ejected(w)) if w.contains("invalid CPU -1")),
        "{:?}",
        c.stop
    );
}

/// se.sum_exec_runtime: the time the task has run, kept up to date at each
/// tick and when it stops (update_curr_scx), as the slice is.
#[test]
fn sum_exec_runtime_counts_the_time_run() {
    let seen: Rc<RefCell<Vec<(Ns, u64)>>> = cell();
    let s2 = seen.clone();
    let mut s = Sched::fifo();
    s.tick = Some(Box::new(move |c: &mut Core, t| {
        s2.borrow_mut()
            .push((c.now, c.tasks[t].ts.se.sum_exec_runtime));
    }));
    let mut w = Script::new().task_at(
        "a",
        0,
        Some(vec![0]),
        &[Act::Run(3 * MS), Act::Sleep(5 * MS), Act::Run(3 * MS)],
    );
    let (core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    let seen = seen.borrow();
    // during the first run: the time since it started
    assert_eq!(seen[0].1, seen[0].0, "{seen:?}");
    // in the second run: the 3 ms of the first plus the second's so far
    let late = seen.iter().find(|x| x.0 > 8 * MS).unwrap();
    assert!(late.1 < late.0 - 4 * MS && late.1 > 3 * MS, "{seen:?}");
    // at the end: both runs
    let total = core.tasks[0].ts.se.sum_exec_runtime;
    assert!((6 * MS..7 * MS).contains(&total), "{total}");
}

/// prio / static_prio: 120 + nice from the weight (nice 0: 120; rt-app's
/// nice -5 and 10 weights); every task's real_parent is the launcher
/// (pid 1), the idle tasks' swapper/0.
#[test]
fn tasks_have_their_nice_prio_and_the_launcher_as_parent() {
    use crate::task::nice_to_weight;
    assert_eq!(super::super::lavd::static_prio(100), 120);
    assert_eq!(super::super::lavd::static_prio(nice_to_weight(-5)), 115);
    assert_eq!(super::super::lavd::static_prio(nice_to_weight(10)), 130);
    let mut s = Sched::fifo();
    let mut w = Script::new()
        .task("a", &[Act::Run(MS)])
        .task("b", &[Act::Run(MS)]);
    let (mut core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let (a, b) = (core.task_ptr(0), core.task_ptr(1));
    // SAFETY: the core's task_structs
    unsafe {
        assert_eq!(((*a).prio, (*a).static_prio), (120, 120));
        assert!(!(*a).real_parent.is_null());
        assert_eq!((*a).real_parent, (*b).real_parent);
        assert_eq!((*(*a).real_parent).pid, 1);
        let idle1 = core.current_ptr(1);
        let idle0 = core.current_ptr(0);
        assert_eq!((*idle1).real_parent, idle0);
        assert_eq!((*idle1).static_prio, 120);
    }
    assert_eq!(core.kf_task_from_pid(1), None);
}
