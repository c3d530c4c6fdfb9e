//! SCHED_FIFO/RR tasks against sched_ext (core/rt.rs): the RT class
//! outranks ext; `put_prev_task_scx` (ext.c:3134-3200), `switch_class`
//! (ext.c:3095-3132) and `balance_one`'s cpu_acquire (ext.c:2951-2962).

use super::*;

fn is_preempt_call(r: &Rec) -> bool {
    matches!(r.call, Call::CpuRelease { .. } | Call::CpuAcquire(_))
}

/// An RT task waking on a CPU that runs a sched_ext task preempts it:
/// ops.stopping(p, true), p back at the head of the local DSQ with its
/// slice (no ops.enqueue), ops.cpu_release(cpu, next = the RT task) once;
/// when the RT task leaves, ops.cpu_acquire at the next balance_one, and p
/// runs again. The RT task itself gets no callback.
#[test]
fn an_rt_task_preempts_and_the_cpu_is_released_then_acquired() {
    let mut s = Sched::fifo();
    s.cpu_preempt = true;
    let log = s.log.clone();
    let mut w = Script::new()
        .task_at("ext", 0, Some(vec![0]), &[Act::Run(10 * MS)])
        .rt_task("fifo", 50, 2 * MS, Some(vec![0]), &[Act::Run(3 * MS)]);
    let (core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    let ext = of_task(&log, 0);
    let at = |c: &Call| ext.iter().find(|r| r.call == *c).map(|r| r.at);
    assert_eq!(
        at(&Call::Stopping {
            t: 0,
            runnable: true
        }),
        Some(2 * MS)
    );
    assert_eq!(runs_of(&log, 0), vec![(0, 0), (5 * MS, 0)]);
    // enqueued once, at its wake-up: the preemption put it back directly
    let enqueues = ext
        .iter()
        .filter(|r| matches!(r.call, Call::Enqueue { .. }))
        .count();
    assert_eq!(enqueues, 1, "{ext:?}");
    assert_eq!(
        calls(&log, is_preempt_call)
            .iter()
            .map(|r| (r.at, r.call.clone()))
            .collect::<Vec<_>>(),
        [
            (2 * MS, Call::CpuRelease { cpu: 0, next: 1 }),
            (5 * MS, Call::CpuAcquire(0))
        ]
    );
    assert!(of_task(&log, 1).is_empty(), "{:?}", of_task(&log, 1));
    // 10 ms of work and 3 ms preempted
    assert_eq!(core.now, 13 * MS);

    // a scheduler without cpu_acquire/cpu_release is not told, and is
    // preempted all the same (SCX_OPS_HAS_CPU_PREEMPT)
    let mut s = Sched::fifo();
    let log = s.log.clone();
    let mut w = Script::new()
        .task_at("ext", 0, Some(vec![0]), &[Act::Run(10 * MS)])
        .rt_task("fifo", 50, 2 * MS, Some(vec![0]), &[Act::Run(3 * MS)]);
    let (core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    assert!(calls(&log, is_preempt_call).is_empty());
    assert_eq!(runs_of(&log, 0), vec![(0, 0), (5 * MS, 0)]);
    assert_eq!(core.now, 13 * MS);
}

/// An RT task that takes an idle CPU releases nothing (switch_class runs
/// from put_prev_task_scx only), and the CPU leaves the idle mask
/// meanwhile; the same task waking onto a CPU that runs a sched_ext task
/// releases it.
#[test]
fn an_rt_task_on_an_idle_cpu_releases_nothing() {
    let mut s = Sched::fifo();
    s.cpu_preempt = true;
    let log = s.log.clone();
    let mut w = Script::new()
        .rt_task(
            "fifo",
            10,
            MS,
            Some(vec![0]),
            &[Act::Run(MS), Act::Sleep(MS), Act::Run(MS)],
        )
        .task_at("ext", 3 * MS / 2, Some(vec![0]), &[Act::Run(2 * MS)]);
    let (core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let idle = calls(&log, |r| matches!(r.call, Call::UpdateIdle { cpu: 0, .. }));
    let idle: Vec<(Ns, Call)> = idle.into_iter().map(|r| (r.at, r.call)).collect();
    // idle (since the start, not notified) until the RT task takes CPU 0 at 1 ms
    assert_eq!(
        idle[0],
        (
            MS,
            Call::UpdateIdle {
                cpu: 0,
                idle: false
            }
        )
    );
    // ext waits for it, runs from 2 ms, is preempted at 3 ms when it
    // wakes: only that switch releases the CPU
    assert_eq!(runs_of(&log, 1), vec![(2 * MS, 0), (4 * MS, 0)]);
    assert_eq!(
        calls(&log, is_preempt_call)
            .iter()
            .map(|r| (r.at, r.call.clone()))
            .collect::<Vec<_>>(),
        [
            (3 * MS, Call::CpuRelease { cpu: 0, next: 0 }),
            (4 * MS, Call::CpuAcquire(0))
        ]
    );
    assert_eq!(core.now, 5 * MS);
}

/// The RT class places by its own rules: the task's previous CPU even when
/// it runs a sched_ext task and another CPU is idle (select_task_rq_rt
/// moves only off a CPU running RT of higher or equal priority), so the
/// preempted sched_ext task waits on its local DSQ while CPU 1 idles, as
/// in the kernel, unless the scheduler moves it in ops.cpu_release.
#[test]
fn an_rt_task_stays_on_its_cpu_and_the_preempted_task_waits_there() {
    let mut s = Sched::fifo();
    let log = s.log.clone();
    let mut w = Script::new()
        .task_at("ext", 0, None, &[Act::Run(4 * MS)])
        .rt_task("fifo", 50, MS, None, &[Act::Run(2 * MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(runs_of(&log, 0), vec![(0, 0), (3 * MS, 0)]);

    // a second RT task of equal priority does not preempt the first; it
    // finds the lowest CPU: CPU 1, idle
    let mut s = Sched::fifo();
    let log = s.log.clone();
    let mut w = Script::new()
        .rt_task("a", 50, 0, None, &[Act::Run(2 * MS)])
        .rt_task("b", 50, MS, None, &[Act::Run(2 * MS)])
        .task_at("ext", MS / 2, None, &[Act::Run(MS)]);
    let (core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    // ext ran on CPU 1 from 0.5 ms, was preempted there by b at 1 ms and
    // went on when b was done at 3 ms
    assert_eq!(runs_of(&log, 2), vec![(MS / 2, 1), (3 * MS, 1)]);
    assert_eq!(core.now, 3 * MS + MS / 2);
}

/// Between RT tasks on one CPU, the higher priority preempts; the
/// preempted one keeps its place and goes on after it, and sched_ext gets
/// the CPU only when both are done.
#[test]
fn a_higher_rt_priority_preempts_a_lower_one() {
    let mut s = Sched::fifo();
    let mut w = Script::new()
        .rt_task("low", 10, 0, Some(vec![0]), &[Act::Run(4 * MS)])
        .rt_task("high", 90, MS, Some(vec![0]), &[Act::Run(MS)])
        .task_at("ext", 0, Some(vec![0]), &[Act::Run(MS)]);
    let c = Config {
        trace: true,
        ..cfg()
    };
    let (core, stop) = run_with(flat(1), zero_cost(), c, &mut s, &mut w);
    stopped_ok(&stop);
    let runs: Vec<(usize, Ns, Ns)> = core
        .stats
        .trace
        .iter()
        .map(|&(_, t, at, ran)| (t, at, ran))
        .collect();
    // low 0-1, high 1-2, low 2-5, then ext 5-6
    assert_eq!(
        runs,
        [
            (0, 0, MS),
            (1, MS, MS),
            (0, 2 * MS, 3 * MS),
            (2, 5 * MS, MS)
        ]
    );
}
