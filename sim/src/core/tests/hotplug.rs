//! Offline CPUs, sparse numbering and CPU hotplug (core/hotplug.rs):
//! ext.c handle_hotplug (3584-3611), rq_offline_scx (3628-3647),
//! task_can_run_on_remote_rq (2411-2415), core.c sched_cpu_activate /
//! sched_cpu_deactivate (8723-8815) and balance_push (8501-8560).

use super::*;
use crate::core::hotplug::{self, Hotplug};
use crate::machine::Presence;

fn with_events(events: &[(Ns, usize, bool)]) -> Config {
    Config {
        hotplug: events
            .iter()
            .map(|&(at, cpu, online)| Hotplug { at, cpu, online })
            .collect(),
        ..cfg()
    }
}

/// No record of a task running on `cpu` from `from` on.
fn none_runs_on(log: &Log, cpu: usize, from: Ns) {
    let bad = calls(log, |r| {
        matches!(r.call, Call::Running(_)) && r.cpu == cpu && r.at >= from
    });
    assert!(bad.is_empty(), "ran on CPU {cpu} after {from}: {bad:?}");
}

/// handle_hotplug (ext.c:3604-3605) + balance_push: the task running on a
/// CPU going offline is switched out still runnable (ops.stopping(true)),
/// moved to an online CPU and enqueued there (ops.enqueue on CPU 1, no
/// ops.runnable: a migration), then runs there; the scheduler gets
/// ops.cpu_offline(0); nothing runs on CPU 0 afterwards.
#[test]
fn a_running_task_leaves_a_cpu_going_offline() {
    let mut s = Sched::fifo_kick();
    s.hotplug = true;
    let mut w = Script::new().task("a", &[Act::Run(30 * MS)]);
    let (_core, stop) = run_with(
        flat(2),
        zero_cost(),
        with_events(&[(10 * MS, 0, false)]),
        &mut s,
        &mut w,
    );
    stopped_ok(&stop);
    assert_eq!(runs_of(&s.log, 0)[0], (0, 0));
    let after: Vec<_> = of_task(&s.log, 0)
        .into_iter()
        .filter(|r| r.at == 10 * MS)
        .map(|r| (r.cpu, r.call))
        .collect();
    assert_eq!(
        after,
        vec![
            (
                0,
                Call::Stopping {
                    t: 0,
                    runnable: true
                }
            ),
            (1, Call::Enqueue { t: 0, flags: 0 }),
            (1, Call::Running(0)),
        ]
    );
    let off = calls(&s.log, |r| matches!(r.call, Call::CpuOffline(_)));
    assert_eq!(off.len(), 1);
    assert_eq!(
        (off[0].at, off[0].call.clone()),
        (10 * MS, Call::CpuOffline(0))
    );
    none_runs_on(&s.log, 0, 10 * MS);
}

/// rq_offline_scx (ext.c:3643-3647) and balance_push: tasks queued on the
/// offline CPU's local DSQ are moved too, each enqueued on an online CPU
/// (its local DSQ there, as this scheduler inserts into SCX_DSQ_LOCAL),
/// and all finish; no invariant fails (none is lost or runs twice).
#[test]
fn tasks_in_the_local_dsq_of_a_cpu_going_offline_move() {
    let mut s = Sched::local();
    s.hotplug = true;
    // all three start on CPU 0 (the first allowed CPU) and queue there
    let mut w = Script::new()
        .task("a", &[Act::Run(20 * MS)])
        .task("b", &[Act::Run(20 * MS)])
        .task("c", &[Act::Run(20 * MS)]);
    let (core, stop) = run_with(
        flat(2),
        zero_cost(),
        with_events(&[(5 * MS, 0, false)]),
        &mut s,
        &mut w,
    );
    stopped_ok(&stop);
    // b and c were queued on CPU 0 (not run) when it went down
    assert!(runs_of(&s.log, 1)
        .iter()
        .all(|&(at, c)| at >= 5 * MS && c == 1));
    assert!(runs_of(&s.log, 2)
        .iter()
        .all(|&(at, c)| at >= 5 * MS && c == 1));
    for t in 0..3 {
        let moved = calls(&s.log, |r| {
            r.call == Call::Enqueue { t, flags: 0 } && r.at == 5 * MS && r.cpu == 1
        });
        assert_eq!(moved.len(), 1, "task {t}: {:?}", of_task(&s.log, t));
    }
    none_runs_on(&s.log, 0, 5 * MS);
    assert_eq!(core.stats.hotplugs, 1);
}

/// handle_hotplug (ext.c:3606-3610): without ops.cpu_offline the
/// scheduler exits with SCX_EXIT_UNREG_KERN and SCX_ECODE_ACT_RESTART |
/// SCX_ECODE_RSN_HOTPLUG; with no loader to restart it, the run ends there.
#[test]
fn without_cpu_offline_the_scheduler_exits_asking_for_a_restart() {
    let mut s = Sched::fifo_kick();
    let mut w = Script::new().task("a", &[Act::Run(30 * MS)]);
    let (core, stop) = run_with(
        flat(2),
        zero_cost(),
        with_events(&[(10 * MS, 1, false)]),
        &mut s,
        &mut w,
    );
    assert_eq!(ejected(&stop), "cpu 1 going offline, exiting scheduler");
    assert_eq!(core.exit_kind, abi::SCX_EXIT_UNREG_KERN);
    assert_eq!(
        core.exit_code,
        abi::SCX_ECODE_ACT_RESTART | abi::SCX_ECODE_RSN_HOTPLUG
    );
    assert_eq!(core.now, 10 * MS);
}

/// The same going online (ext.c:3602-3603 / 3606-3610): a CPU offline at
/// the start comes up; with the callbacks the scheduler gets
/// ops.cpu_online(1) and the CPU then runs tasks; without, it exits.
#[test]
fn a_cpu_coming_online_calls_cpu_online_or_exits() {
    let mut m = flat(2);
    m.set_presence(&[1], Presence::Offline).unwrap();
    let script = || {
        Script::new()
            .task("a", &[Act::Run(30 * MS)])
            .task("b", &[Act::Run(30 * MS)])
    };
    let mut s = Sched::fifo_kick();
    s.hotplug = true;
    let (_, stop) = run_with(
        m.clone(),
        zero_cost(),
        with_events(&[(10 * MS, 1, true)]),
        &mut s,
        &mut script(),
    );
    stopped_ok(&stop);
    let on = calls(&s.log, |r| matches!(r.call, Call::CpuOnline(_)));
    assert_eq!(
        (on[0].at, on[0].call.clone()),
        (10 * MS, Call::CpuOnline(1))
    );
    // nothing ran on CPU 1 before it came up; something did after
    let on1 = calls(&s.log, |r| matches!(r.call, Call::Running(_)) && r.cpu == 1);
    assert!(
        !on1.is_empty() && on1.iter().all(|r| r.at >= 10 * MS),
        "{on1:?}"
    );

    let mut s = Sched::fifo_kick();
    let (core, stop) = run_with(
        m,
        zero_cost(),
        with_events(&[(10 * MS, 1, true)]),
        &mut s,
        &mut script(),
    );
    assert_eq!(ejected(&stop), "cpu 1 going online, exiting scheduler");
    assert_eq!(core.exit_kind, abi::SCX_EXIT_UNREG_KERN);
}

/// The loader's restart (scheduler/src/main.rs): after the exit a fresh
/// instance is loaded; it gets ops.init_task (not a fork) and ops.enable
/// for every live task, every runnable task is enqueued to it, and the
/// run goes on to its end. The restart is recorded.
#[test]
fn a_restart_reloads_the_scheduler_with_the_existing_tasks() {
    let mut s = Sched::fifo_kick();
    let second: Log = Rc::new(RefCell::new(Vec::new()));
    let log2 = second.clone();
    let mut w = Script::new()
        .task("a", &[Act::Run(30 * MS)])
        .task("b", &[Act::Run(30 * MS)])
        .task("c", &[Act::Run(30 * MS)]);
    let mut core = Core::new(flat(2), zero_cost(), with_events(&[(10 * MS, 1, false)])).unwrap();
    let online_seen = cell::<Vec<bool>>();
    let seen = online_seen.clone();
    core.reloader = Some(Box::new(move |_m, online| {
        *seen.borrow_mut() = online.to_vec();
        let mut n = Sched::fifo_kick();
        n.log = log2.clone();
        Ok(Box::new(n) as Box<dyn Ops>)
    }));
    let stop = core.run(&mut s, &mut w, |_| {});
    stopped_ok(&stop);
    assert_eq!(*online_seen.borrow(), vec![true, false]);
    assert_eq!(
        core.restarts(),
        &[(
            10 * MS,
            "cpu 1 going offline, exiting scheduler".to_string()
        )]
    );
    for t in 0..3 {
        let c: Vec<Call> = of_task(&second, t).into_iter().map(|r| r.call).collect();
        assert_eq!(c[0], Call::InitTask { t, fork: false }, "{c:?}");
        assert!(c.contains(&Call::Enable(t)), "{c:?}");
        assert!(c.contains(&Call::Enqueue { t, flags: 0 }), "{c:?}");
    }
    // the old instance let go of every task (ops.exit_task) before
    for t in 0..3 {
        assert!(
            calls(&s.log, |r| r.call == Call::ExitTask(t) && r.at == 10 * MS).len() == 1,
            "{:?}",
            of_task(&s.log, t)
        );
    }
    // the new instance ran everything since, never on the offline CPU
    none_runs_on(&second, 1, 10 * MS);
    assert!(calls(&s.log, |r| r.at > 10 * MS).is_empty());
    assert!(calls(&second, |r| r.at < 10 * MS).is_empty());
}

/// Possible vs online CPUs: on 4 ids where 1 is a hole (absent) and 2 is
/// offline, nr_cpu_ids is 4, but neither is ever in the online or idle
/// masks, told to ops.update_idle, or given a task; the tasks all run on
/// 0 and 3.
#[test]
fn absent_and_offline_cpus_are_in_no_mask_and_run_nothing() {
    let mut m = flat(4);
    m.set_presence(&[1], Presence::Absent).unwrap();
    m.set_presence(&[2], Presence::Offline).unwrap();
    let mut s = Sched::fifo();
    let mut w = Script::new();
    for i in 0..6 {
        w = w.task(
            &format!("t{i}"),
            &[Act::Run(5 * MS), Act::Sleep(MS), Act::Run(5 * MS)],
        );
    }
    let mut core = Core::new(m, zero_cost(), cfg()).unwrap();
    assert_eq!(core.nr_cpus(), 4);
    // SAFETY: the masks live as long as the core
    let (idle, online) = unsafe { (*core.idle_mask_ptr(), *core.online_mask_ptr()) };
    assert_eq!(
        (0..4).map(|c| idle.test(c)).collect::<Vec<_>>(),
        [true, false, false, true]
    );
    assert_eq!(
        (0..4).map(|c| online.test(c)).collect::<Vec<_>>(),
        [true, false, false, true]
    );
    let stop = core.run(&mut s, &mut w, |_| {});
    stopped_ok(&stop);
    for c in [1, 2] {
        none_runs_on(&s.log, c, 0);
        assert!(calls(&s.log, |r| r.call
            == Call::UpdateIdle { cpu: c, idle: true })
        .is_empty());
        // SAFETY: as above
        assert!(!unsafe { (*core.idle_mask_ptr()).test(c) });
    }
    // an unpinned task's cpumask is the possible CPUs: no hole in it
    assert!(!core.tasks[0].ts.cpus_mask.test(1));
    assert!(core.tasks[0].ts.cpus_mask.test(2));
}

/// task_can_run_on_remote_rq (ext.c:2411-2415): SCX_DSQ_LOCAL_ON of an
/// offline CPU is no error; the task goes to the global DSQ and runs.
#[test]
fn local_on_an_offline_cpu_falls_back_to_the_global_dsq() {
    let mut m = flat(2);
    m.set_presence(&[1], Presence::Offline).unwrap();
    let mut s = Sched::fifo_queued();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        c.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL_ON | 1, abi::SCX_SLICE_DFL, None, 0)
    }));
    let mut w = Script::new()
        .task("a", &[Act::Run(5 * MS)])
        .task("b", &[Act::Run(5 * MS)]);
    let (core, stop) = run(m, &mut s, &mut w);
    stopped_ok(&stop);
    assert!(core.stats.dispatch_offline >= 2);
    none_runs_on(&s.log, 1, 0);
}

/// A task pinned to the CPU that goes offline is moved anyway (its
/// affinity widened, select_fallback_rq's last resort), and no invariant
/// fails; the hotplug events' spec reads back as written.
#[test]
fn a_pinned_task_survives_its_cpu_going_offline() {
    let mut s = Sched::fifo_kick();
    s.hotplug = true;
    let mut w = Script::new().task_at("p", 0, Some(vec![1]), &[Act::Run(20 * MS)]);
    let (_, stop) = run_with(
        flat(2),
        zero_cost(),
        with_events(&[(5 * MS, 1, false)]),
        &mut s,
        &mut w,
    );
    stopped_ok(&stop);
    none_runs_on(&s.log, 1, 5 * MS);
    let ev = hotplug::parse("off:3@100ms,on:3@250us,off:1@7ns").unwrap();
    assert_eq!(hotplug::format(&ev), "off:3@100ms,on:3@250us,off:1@7ns");
}

/// Bad events are one-line errors: a CPU the machine does not have, a
/// hole, taking the last online CPU down, an offline CPU taken offline.
#[test]
fn bad_hotplug_events_are_refused() {
    let mut m = flat(3);
    m.set_presence(&[1], Presence::Absent).unwrap();
    for (ev, want) in [
        ("off:5@1ms", "CPU 5 does not exist"),
        ("off:1@1ms", "CPU 1 does not exist"),
        ("off:0@1ms,off:2@2ms", "would leave no CPU online"),
        ("off:0@1ms,off:0@2ms", "CPU 0 is already offline"),
    ] {
        let e = hotplug::check(&m, &hotplug::parse(ev).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains(want) && !e.contains('\n'), "{ev}: {e}");
    }
    assert!(hotplug::parse("off:1").is_err());
    assert!(hotplug::parse("down:1@1ms").is_err());
    assert!(hotplug::parse("off:1@1h").is_err());
}

/// rate_of's speed of a task that shares no lines, kept per CPU by
/// recount_core (smt_rate), is capacity x the SMT share at its core's busy
/// count (/ slowdown) for every CPU, online or not: as tasks start and stop
/// on a core's threads, and after a hotplug changes a core's threads.
#[test]
fn each_cpus_speed_follows_its_cores_busy_count() {
    fn check(core: &Core) {
        for c in 0..core.cpus.len() {
            let busy = core.core_cpus[core.cpu_core[c]]
                .iter()
                .filter(|&&s| core.cpus[s].curr.is_some())
                .count();
            let smt = core.machine.smt.throughput.get(busy.max(1) - 1);
            let r = core.cap_frac[c] * smt.copied().unwrap_or(1.0);
            assert_eq!(core.smt_rate[c], [r, r / core.cfg.slowdown], "CPU {c}");
        }
    }
    let m = preset("xeon-88");
    let slow = Config {
        slowdown: 2.0,
        ..cfg()
    };
    let mut core = Core::new(m.clone(), zero_cost(), slow).unwrap();
    check(&core);
    let k = core.cpu_core[0];
    let siblings = &core.core_all_cpus[core.core_all_at[k]..core.core_all_at[k + 1]];
    assert_eq!(siblings.len(), 2);
    let (a, b) = (0, siblings[1]);
    assert_ne!(
        core.machine.smt.throughput[0],
        core.machine.smt.throughput[1]
    );
    core.set_curr(a, Some(0));
    check(&core);
    core.set_curr(b, Some(1));
    check(&core);
    let both = core.smt_rate[a];
    core.set_curr(a, None);
    check(&core);
    assert_ne!(core.smt_rate[b], both, "a sibling's stop changes the speed");
    // a run with CPU 1 going offline at 1 ms
    let mut s = Sched::fifo();
    s.hotplug = true;
    let mut w = Script::new();
    for i in 0..100 {
        w = w.task(&format!("t{i}"), &[Act::Run(3 * MS)]);
    }
    let mut core = Core::new(m, zero_cost(), with_events(&[(MS, 1, false)])).unwrap();
    let stop = core.run(&mut s, &mut w, |_| {});
    stopped_ok(&stop);
    check(&core);
}
