//! The invariant checker (run.rs: `sweep`, every `Config::sweep_ns` of
//! simulated time in every run, and once more when a run ends), shown to
//! fire on deliberately broken schedulers. Their callbacks corrupt the
//! core's state the way a buggy core or kfunc model would; each test checks
//! that the run stops with `Stop::Invariant` naming the task, the CPU where
//! there is one, the simulated time, and the last events.

use super::*;

/// "a" runs 30 ms on CPU 0 (its tick calls `at_2ms` once, at 2 ms); "x"
/// (free) wakes at 1 ms and waits in SHARED behind it. The first sweep is at
/// 10 ms.
fn a_and_queued_x(at_2ms: impl FnMut(&mut Core) + 'static) -> (Core, Stop, Log) {
    let mut s = Sched::fifo_kick();
    let mut f = at_2ms;
    s.tick = Some(Box::new(move |c: &mut Core, t| {
        if t == 0 && c.now == 2 * MS {
            f(c);
        }
    }));
    let mut w = Script::new()
        .task_at("a", 0, Some(vec![0]), &[Act::Run(30 * MS)])
        .task_at("x", MS, None, &[Act::Run(MS)]);
    let (core, stop) = run(flat(2), &mut s, &mut w);
    (core, stop, s.log)
}

/// The report's parts: what failed, at which time, and the last events.
fn check_report(msg: &str, what: &[&str], at: Ns) {
    for w in what {
        assert!(msg.contains(w), "{w:?} missing from: {msg}");
    }
    assert!(
        msg.contains(&format!(" at {at} ns; last events:\n")),
        "{msg}"
    );
    let events = msg.split("last events:\n").nth(1).unwrap();
    assert!(events.lines().count() >= 2, "{msg}");
    assert!(
        events
            .lines()
            .all(|l| l.trim_start().split_once(" ns  ").is_some()),
        "{msg}"
    );
}

/// Issue: "every runnable task is running or in exactly one DSQ": a task
/// queued in SHARED pushed also into CPU 1's local DSQ is reported, with
/// both places.
#[test]
fn a_task_in_two_dsqs_stops_the_run() {
    let (_core, stop, _log) = a_and_queued_x(|c| {
        c.cpus[1].local.insert(1, None, false).unwrap();
    });
    let msg = violated(&stop);
    check_report(
        msg,
        &[
            "x (task 1) is in CPU 1's local DSQ",
            "User(0)",
            "insert x (task 1) into DSQ 0x0",
        ],
        10 * MS,
    );
}

/// Issue: "no task is lost": a queued task removed from its DSQ without
/// changing its state is reported lost.
#[test]
fn a_task_dropped_from_its_dsq_stops_the_run() {
    let (_core, stop, _log) = a_and_queued_x(|c| {
        assert!(c.user.remove(SHARED, 1));
    });
    let msg = violated(&stop);
    check_report(msg, &["x (task 1) is lost", "DSQ 0x0"], 10 * MS);
}

/// Issue: "no task ... runs twice": a running task made current on a
/// second CPU is reported with both CPUs.
#[test]
fn a_task_current_on_two_cpus_stops_the_run() {
    let (_core, stop, _log) = a_and_queued_x(|c| {
        c.cpus[1].curr = Some(0);
    });
    let msg = violated(&stop);
    check_report(
        msg,
        &[
            "CPU 1 runs task a (task 0), whose state is Running(0)",
            "CPU 0 runs a (task 0)",
        ],
        10 * MS,
    );
}

/// Issue: "on each CPU busy + idle = elapsed": a CPU's busy time
/// corrupted is reported with the CPU and the task it runs.
#[test]
fn busy_plus_idle_not_elapsed_stops_the_run() {
    let (_core, stop, _log) = a_and_queued_x(|c| {
        c.cpus[0].busy_ns += 1000;
    });
    let msg = violated(&stop);
    check_report(
        msg,
        &["CPU 0 (running a (task 0)): busy", "10000000 ns elapsed"],
        10 * MS,
    );
}

/// A violation after the last sweep is still caught when the run ends
/// (here the sweep interval is longer than the run), and the run returns
/// it rather than "finished".
#[test]
fn a_violation_after_the_last_sweep_is_caught_at_the_end() {
    let mut s = Sched::fifo_kick();
    s.tick = Some(Box::new(|c: &mut Core, _t| {
        if c.now == 2 * MS {
            c.cpus[1].idle_ns += 1000;
        }
    }));
    let mut w = Script::new().task_at("a", 0, Some(vec![0]), &[Act::Run(3 * MS)]);
    let cfg = Config {
        sweep_ns: 1_000_000_000,
        ..cfg()
    };
    let (_core, stop) = run_with(flat(2), zero_cost(), cfg, &mut s, &mut w);
    let msg = violated(&stop);
    check_report(msg, &["CPU 1: busy 0 + idle 1000 ns"], 3 * MS);
}

/// Issue: "affinity is respected": a broken ops.dispatch on CPU 1 that
/// moves a task pinned to CPU 0 onto its own local DSQ by hand (bypassing
/// the kfuncs' checks) is stopped when CPU 1 picks it.
#[test]
fn a_task_run_outside_its_affinity_stops_the_run() {
    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        c.kf_dsq_insert(t, SHARED, abi::SCX_SLICE_DFL, None, 0);
        c.kf_kick_cpu(1, abi::SCX_KICK_IDLE);
    }));
    s.dispatch = Some(Box::new(|c: &mut Core, cpu, _prev| {
        if let Some(t) = c.user.pop_first(SHARED) {
            c.cpus[cpu].local.insert(t, None, false).unwrap();
            c.tasks[t].state = TaskState::Queued(DsqRef::Local(cpu));
        }
    }));
    let mut w = Script::new().task_at("p", MS, Some(vec![0]), &[Act::Run(MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    let msg = violated(&stop);
    check_report(msg, &["p (task 0) runs on CPU 1, outside its affinity"], MS);
}

/// Issue: "affinity is respected": a task put on the local DSQ of a busy
/// CPU outside its affinity is caught by the sweep before that CPU picks
/// it.
#[test]
fn a_task_queued_outside_its_affinity_stops_the_run() {
    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        c.kf_dsq_insert(t, SHARED, abi::SCX_SLICE_DFL, None, 0);
        let cpu = if t == 1 { 2 } else { c.tasks[t].cpu as i32 };
        c.kf_kick_cpu(cpu, abi::SCX_KICK_IDLE);
    }));
    s.dispatch = Some(Box::new(|c: &mut Core, cpu, _prev| {
        if cpu == 2 {
            // p may run on CPU 0 only; CPU 1 runs "a" for 30 ms
            c.user.remove(SHARED, 1);
            c.cpus[1].local.insert(1, None, false).unwrap();
            c.tasks[1].state = TaskState::Queued(DsqRef::Local(1));
        } else {
            c.kf_move_to_local(SHARED);
        }
    }));
    let mut w = Script::new()
        .task_at("a", 0, Some(vec![1]), &[Act::Run(30 * MS)])
        .task_at("p", MS, Some(vec![0]), &[Act::Run(MS)]);
    let (_core, stop) = run(flat(3), &mut s, &mut w);
    let msg = violated(&stop);
    check_report(
        msg,
        &["p (task 1) is queued on CPU 1, outside its affinity"],
        10 * MS,
    );
}

/// "thread_info.cpu is task_cpu(p)" (scx_arbor reads it instead of calling
/// scx_bpf_task_cpu()): a task's CPU changed without its thread_info is
/// reported with both values.
#[test]
fn a_task_cpu_not_in_its_thread_info_stops_the_run() {
    let (_core, stop, _log) = a_and_queued_x(|c| {
        c.tasks[1].cpu = 1;
    });
    let msg = violated(&stop);
    check_report(
        msg,
        &["x (task 1) is on CPU 1, but its thread_info.cpu says 0"],
        10 * MS,
    );
}
