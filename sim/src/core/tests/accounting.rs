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

/// `Config::slowdown` (a TCG guest): work and software costs stretch by
/// k, the clock does not: a sleep lasts as long, the run takes k times
/// longer, and the callbacks' cost is k times the model's.
#[test]
fn slowdown_stretches_work_and_costs_but_not_sleeps() {
    let script = || {
        Script::new().task_at(
            "a",
            0,
            Some(vec![0]),
            &[Act::Run(MS), Act::Sleep(2 * MS), Act::Run(MS)],
        )
    };
    let k = 10.0;
    let (fast, stop) = run(flat(1), &mut Sched::local(), &mut script());
    stopped_ok(&stop);
    let slow_cfg = Config {
        slowdown: k,
        ..cfg()
    };
    let (slow, stop) = run_with(
        flat(1),
        zero_cost(),
        slow_cfg.clone(),
        &mut Sched::local(),
        &mut script(),
    );
    stopped_ok(&stop);
    assert_eq!(fast.now, 4 * MS);
    // 2 ms of work at 1/10 speed, and the 2 ms sleep as it was
    assert_eq!(slow.now, 22 * MS);
    // the cost model's software costs are stretched too
    let (costly, _) = run_with(
        flat(1),
        CostModel::default(),
        slow_cfg,
        &mut Sched::local(),
        &mut script(),
    );
    assert_eq!(costly.cost, CostModel::default().stretched(k));
    let (plain, _) = run_with(
        flat(1),
        CostModel::default(),
        cfg(),
        &mut Sched::local(),
        &mut script(),
    );
    assert!(costly.stats.bpf_ns > 9.0 * plain.stats.bpf_ns);
}

#[test]
fn a_slowdown_below_one_or_not_finite_is_refused() {
    for bad in [0.5, f64::NAN, f64::INFINITY, 20_000.0] {
        let c = Config {
            slowdown: bad,
            ..cfg()
        };
        let e = Core::new(flat(1), zero_cost(), c).err().expect("accepted");
        assert!(e.to_string().contains("--slowdown"), "{e}");
    }
}

/// `Config::one_host_thread` (single-threaded TCG): busy CPUs share one
/// CPU's speed. Two 1 ms tasks on two CPUs both end at 2 ms; after one
/// ends, the other runs at full speed again.
#[test]
fn one_host_thread_shares_its_speed_among_busy_cpus() {
    let script = || {
        Script::new()
            .task_at("a", 0, Some(vec![0]), &[Act::Run(MS)])
            .task_at("b", 0, Some(vec![1]), &[Act::Run(3 * MS)])
    };
    let (par, stop) = run(flat(2), &mut Sched::local(), &mut script());
    stopped_ok(&stop);
    assert_eq!(par.now, 3 * MS);
    let c = Config {
        one_host_thread: true,
        ..cfg()
    };
    let (one, stop) = run_with(flat(2), zero_cost(), c, &mut Sched::local(), &mut script());
    stopped_ok(&stop);
    // a: 1 ms of work at half speed ends at 2 ms; b has done 1 ms by
    // then and runs its last 2 ms alone: 4 ms in all (= 4 ms of work)
    assert_eq!(one.cpus[0].busy_ns, 2 * MS);
    assert_eq!(one.now, 4 * MS);
}
