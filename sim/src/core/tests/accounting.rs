//! Busy and idle time per CPU.

use super::*;

/// Invariant (issue): on every CPU, busy + idle = the simulated time
/// elapsed, at the end of a run with real costs, idle states and SMT.
#[test]
fn busy_plus_idle_is_elapsed_on_every_cpu() {
    let mut s = Sched::fifo();
    let mut w = Script::new();
    for i in 0..6 {
        let mut acts = Vec::new();
        for k in 0..20 {
            acts.push(Act::Run((100 + 37 * ((i * 7 + k) % 11)) as Ns * US));
            acts.push(Act::Sleep((50 + 91 * ((i + k * 3) % 7)) as Ns * US));
            if k % 5 == 0 {
                acts.push(Act::Wake((i + 1) % 6, true));
            }
        }
        w = w.task(&format!("t{i}"), &acts);
    }
    let (core, stop) = run_with(
        presets::find("1s2c2t").unwrap(),
        CostModel::default(),
        cfg(),
        &mut s,
        &mut w,
    );
    stopped_ok(&stop);
    assert!(core.now > 10 * MS);
    for (x, c) in core.cpus.iter().enumerate() {
        assert!(c.busy_ns > 0 && c.idle_ns > 0, "CPU {x}");
        assert_eq!(c.busy_ns + c.idle_ns, core.now, "CPU {x}");
    }
}

/// With no costs, a CPU is busy exactly for the work it ran and idle
/// otherwise.
#[test]
fn busy_time_is_the_work_run() {
    let mut s = Sched::local();
    let mut w = Script::new()
        .task_at("a", 0, Some(vec![0]), &[Act::Run(3 * MS)])
        .task_at(
            "b",
            0,
            Some(vec![1]),
            &[Act::Run(MS), Act::Sleep(MS), Act::Run(500 * US)],
        );
    let (core, stop) = run(flat(3), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(core.now, 3 * MS);
    let got: Vec<(u64, u64)> = core.cpus.iter().map(|c| (c.busy_ns, c.idle_ns)).collect();
    assert_eq!(got, [(3 * MS, 0), (1500 * US, 1500 * US), (0, 3 * MS)]);
}
