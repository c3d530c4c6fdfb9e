//! Group scheduling in scx_arbor (scheduler/src/bpf/cgroup.bpf.h), run on
//! the simulator: CPU-bound threads in cgroups of given cpu.weight share
//! the CPUs as fair.c's task groups share them (each group's share of the
//! CPU time from the run's trace, after a start-up), and do not with
//! --no-cgroups.

use std::collections::BTreeMap;

use arbor_sim::run::Outcome;

use super::run;

const MS: u64 = 1_000_000;

/// Each part's share of the CPU time after `from` ns: part k's tasks are
/// named `k.NAME` (part 0: no prefix; mix.rs).
fn shares(o: &Outcome, parts: usize, from: u64) -> Vec<f64> {
    let mut t: BTreeMap<usize, f64> = BTreeMap::new();
    for (_, name, start, dur) in &o.trace {
        if *start < from {
            continue;
        }
        let k = name
            .split_once('.')
            .and_then(|(k, _)| k.parse::<usize>().ok())
            .unwrap_or(0);
        *t.entry(k).or_default() += *dur as f64;
    }
    let total: f64 = t.values().sum();
    (0..parts)
        .map(|k| t.get(&k).copied().unwrap_or(0.0) / total)
        .collect()
}

fn check(got: &[f64], want: &[f64], what: &str) {
    eprintln!("{what}: shares {got:.4?}, fair.c {want:.4?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 0.03,
            "{what}: shares {got:.4?}, fair.c's {want:.4?} +-3%"
        );
    }
}

/// Two groups of weight 100 and 300, four spinning threads each, on the
/// same four CPUs: 25% / 75%; without group scheduling about half each.
#[test]
fn weights_100_300_give_25_75() {
    let w = "spinners:procs=1,threads=4,time=2,cg=/a:weight=100 \
             & spinners:procs=1,threads=4,time=2,cg=/b:weight=300";
    let o = run("1s2c2t", "arbor:default", w);
    check(
        &shares(&o, 2, 200 * MS),
        &[0.25, 0.75],
        "arbor:default, 100:300",
    );
    let c: BTreeMap<_, _> = o.counters.iter().cloned().collect();
    assert!(c["cg_shares"] > 0 && c["cg_reweights"] > 0, "{c:?}");
    let o = run("1s2c2t", "arbor:default:no-cgroups=true", w);
    let s = shares(&o, 2, 200 * MS);
    eprintln!("--no-cgroups: {s:.4?}");
    assert!(
        s[0] > 0.4,
        "--no-cgroups still shares by the groups' weights: {s:.4?}"
    );
}

/// A group with more threads gets no more than its weight: 6 threads of
/// weight 100 against 2 of weight 100 on one CPU (on several CPUs:
/// unequal_thread_counts_share_several_cpus_by_group_weight).
#[test]
fn more_threads_get_no_more_share() {
    let w = "spinners:procs=1,threads=6,time=2,cg=/many:weight=100 \
             & spinners:procs=1,threads=2,time=2,cg=/few:weight=100";
    check(
        &shares(&run("shape:c=1,t=1", "arbor:default", w), 2, 200 * MS),
        &[0.5, 0.5],
        "6 threads against 2",
    );
}

/// /a(100)/{x(100), y(300)} beside /b(100), on one CPU: 12.5 / 37.5 / 50%.
#[test]
fn nested_groups_share_within_their_parent() {
    let w = "spinners:procs=1,threads=2,time=2,cg=/a/x:weight=100 \
             & spinners:procs=1,threads=2,time=2,cg=/a/y:weight=300 \
             & spinners:procs=1,threads=2,time=2,cg=/b:weight=100";
    check(
        &shares(&run("shape:c=1,t=1", "arbor:default", w), 3, 200 * MS),
        &[0.125, 0.375, 0.5],
        "nested",
    );
}

/// CPU time of part k's tasks between `from` and `to` ns, in CPUs (CPU
/// time over wall time).
fn cpus_used(o: &Outcome, part: usize, from: u64, to: u64) -> f64 {
    let mut t = 0.0;
    for (_, name, start, dur) in &o.trace {
        let k = name
            .split_once('.')
            .and_then(|(k, _)| k.parse::<usize>().ok())
            .unwrap_or(0);
        let (s, e) = (*start.max(&from), (*start + *dur).min(to));
        if k == part && e > s {
            t += (e - s) as f64;
        }
    }
    t / (to - from) as f64
}

/// cpu.max 50000 100000 holds 4 busy threads on 4 CPUs to half a CPU,
/// with the tick's overrun carried (the long-run share is the quota's);
/// the group is throttled once per period; without group scheduling it
/// takes the four CPUs.
#[test]
fn cpu_max_holds_four_threads_to_half_a_cpu() {
    let w = "spinners:procs=1,threads=4,time=2,cg=/a:max=50000/100000";
    let o = run("shape:c=4,t=1", "arbor:default", w);
    let used = cpus_used(&o, 0, 200 * MS, 1800 * MS);
    eprintln!("cpu.max 50000/100000: {used:.4} CPUs");
    assert!((used - 0.5).abs() <= 0.015, "{used:.4} CPUs, not 0.5 +-3%");
    let c: BTreeMap<_, _> = o.counters.iter().cloned().collect();
    eprintln!("throttles {}", c["cg_throttles"]);
    assert!((15..=21).contains(&c["cg_throttles"]), "{c:?}");
    let o = run("shape:c=4,t=1", "arbor:default:no-cgroups=true", w);
    let used = cpus_used(&o, 0, 200 * MS, 1800 * MS);
    eprintln!("--no-cgroups: {used:.4} CPUs");
    assert!(used > 3.5, "--no-cgroups still limits: {used:.4} CPUs");
}

/// A cpu.idle group yields to everything else: against 4 busy threads on
/// 4 CPUs its 4 threads get under 2% of the CPU time (its entity weighs
/// WEIGHT_IDLEPRIO: 2 / (2 + 256) per CPU in fair.c), where with
/// --no-cgroups they get their half; against threads that run 1 ms and
/// sleep 1 ms, those get their demand, waking into a CPU that an idle
/// group's task gives up at once (each such wake-up counted), and the
/// idle group the rest of the CPU time. (Without cgroups those threads
/// may get their demand too: half a CPU each is also their fair share,
/// and default's NEXT_BUDDY runs them at once on a spinner's CPU; so the
/// control is the first case's.)
#[test]
fn cpu_idle_group_yields_to_everything_else() {
    let w = "spinners:procs=1,threads=4,time=2,cg=/i:idle=1 \
             & spinners:procs=1,threads=4,time=2,cg=/n";
    let o = run("shape:c=4,t=1", "arbor:default", w);
    let s = shares(&o, 2, 200 * MS);
    eprintln!("idle against busy: {s:.4?}");
    assert!(s[0] < 0.02, "the idle group got {s:.4?}");
    let o = run("shape:c=4,t=1", "arbor:default:no-cgroups=true", w);
    let s = shares(&o, 2, 200 * MS);
    eprintln!("--no-cgroups, idle against busy: {s:.4?}");
    assert!(
        (s[0] - 0.5).abs() < 0.05,
        "--no-cgroups: the would-be idle group got {s:.4?}, not half"
    );

    let w = "spinners:procs=1,threads=4,time=2,cg=/i:idle=1 \
             & spinners:procs=1,threads=4,time=2,work_us=1000,sleep_us=1000";
    let o = run("shape:c=4,t=1", "arbor:default", w);
    let (idle, busy) = (
        cpus_used(&o, 0, 200 * MS, 1800 * MS),
        cpus_used(&o, 1, 200 * MS, 1800 * MS),
    );
    let c: BTreeMap<_, _> = o.counters.iter().cloned().collect();
    eprintln!(
        "idle against 50% sleepers: idle {idle:.3} CPUs, sleepers {busy:.3} CPUs, {} idle preemptions",
        c["cg_idle_preempts"]
    );
    assert!(busy > 1.9, "sleepers got {busy:.3} CPUs, not their 2");
    assert!(
        idle > 1.8,
        "the idle group got {idle:.3} CPUs, not the 2 left"
    );
    assert!(c["cg_idle_preempts"] > 1000, "{c:?}");
}

/// Runs `workload` on one CPU at `hz` under arbor:default, keeping the
/// timeline.
fn run_hz(workload: &str, hz: u32) -> Outcome {
    let m = arbor_sim::presets::find("shape:c=1,t=1").unwrap();
    let cfg = arbor_sim::core::Config {
        trace: true,
        hz,
        ..arbor_sim::core::Config::default()
    };
    let s = arbor_sim::sched::SchedSpec::parse("arbor:default").unwrap();
    let o = arbor_sim::run::simulate_defaults(&m, &s, workload, cfg, 1).unwrap();
    assert!(o.ok, "{workload} at {hz} Hz: {}", o.stop);
    o
}

/// The VM check's case (tests/vm/cgroup.sh): cpu.max 25000 100000 on a
/// group of 4 busy threads against one thread in another group, all on one
/// CPU: the limited group gets fair.c's 25% to within 2 points, at 1000
/// and 250 Hz, and the other group the rest (a throttled task kept by
/// dispatch left the CPU idle beside it until the refill: 0.41).
#[test]
fn cpu_max_quarter_against_one_thread_on_one_cpu() {
    let w = "spinners:procs=1,threads=4,time=2,cg=/m:max=25000/100000 \
             & spinners:procs=1,threads=1,time=2,cg=/u";
    for hz in [1000, 250] {
        let o = run_hz(w, hz);
        let s = shares(&o, 2, 200 * MS);
        let c: BTreeMap<_, _> = o.counters.iter().cloned().collect();
        eprintln!(
            "{hz} Hz: /m {:.4}, /u {:.4} (fair.c 0.25), {} throttles",
            s[0], s[1], c["cg_throttles"]
        );
        assert!(
            (s[0] - 0.25).abs() <= 0.02,
            "{hz} Hz: /m got {:.4} of the CPU, not 0.25 +-0.02",
            s[0]
        );
    }
}

/// Runs `workload` on one CPU (or `machine`) under arbor:default with the
/// cgroup events `events` (`--cgroup-event`), keeping the timeline.
fn run_events(machine: &str, workload: &str, events: &str) -> Outcome {
    let m = arbor_sim::presets::find(machine).unwrap();
    let cfg = arbor_sim::core::Config {
        trace: true,
        cgroup_events: arbor_sim::core::cgroup_events::parse(&[events.to_string()]).unwrap(),
        ..arbor_sim::core::Config::default()
    };
    let s = arbor_sim::sched::SchedSpec::parse("arbor:default").unwrap();
    let o = arbor_sim::run::simulate_defaults(&m, &s, workload, cfg, 1).unwrap();
    assert!(o.ok, "{workload} with {events}: {}", o.stop);
    o
}

/// Each part's share of the CPU time between `from` and `to` ns (runs cut
/// at the window's edges).
fn window_shares(o: &Outcome, parts: usize, from: u64, to: u64) -> Vec<f64> {
    let used: Vec<f64> = (0..parts).map(|k| cpus_used(o, k, from, to)).collect();
    let total: f64 = used.iter().sum();
    used.iter().map(|u| u / total).collect()
}

/// How many times the run called callback `op`.
fn calls(o: &Outcome, op: &str) -> u64 {
    o.bpf_ops
        .iter()
        .find(|(n, _, _)| n == op)
        .map_or(0, |c| c.1)
}

/// On one CPU, X (2 threads) and Z (2 threads) in /a of weight 100 beside
/// Y (2 threads) in /b of weight 300; at 1 s X's threads move to /b
/// (ops.cgroup_prep_move, then ops.cgroup_move inside the dequeue /
/// enqueue): X 12.5%, Y 75%, Z 12.5% before, then /a is Z alone at 25%
/// and X and Y split /b's 75%.
#[test]
fn a_move_mid_run_takes_the_new_groups_share() {
    let w = "spinners:procs=1,threads=2,time=2,cg=/a:weight=100 \
             & spinners:procs=1,threads=2,time=2,cg=/b:weight=300 \
             & spinners:procs=1,threads=2,time=2,cg=/a:weight=100";
    let o = run_events("shape:c=1,t=1", w, "1s move 0-1 /b");
    let before = window_shares(&o, 3, 200 * MS, 1000 * MS);
    let after = window_shares(&o, 3, 1200 * MS, 2000 * MS);
    check(&before, &[0.125, 0.75, 0.125], "before the move");
    check(&after, &[0.375, 0.375, 0.25], "after the move");
    assert!(after[0] - before[0] > 0.2, "{before:.4?} -> {after:.4?}");
    assert_eq!(
        (calls(&o, "cgroup_prep_move"), calls(&o, "cgroup_move")),
        (2, 2)
    );
    assert_eq!(calls(&o, "cgroup_cancel_move"), 0);
}

/// /a (100) and /b (300), two threads each on one CPU; at 1 s /a's
/// cpu.weight becomes 300 (ops.cgroup_set_weight): 25 / 75%, then half each.
#[test]
fn a_weight_write_mid_run_takes_effect() {
    let w = "spinners:procs=1,threads=2,time=2,cg=/a:weight=100 \
             & spinners:procs=1,threads=2,time=2,cg=/b:weight=300";
    let o = run_events("shape:c=1,t=1", w, "1s weight /a 300");
    let before = window_shares(&o, 2, 200 * MS, 1000 * MS);
    let after = window_shares(&o, 2, 1200 * MS, 2000 * MS);
    check(&before, &[0.25, 0.75], "weight 100");
    check(&after, &[0.5, 0.5], "weight 300");
    assert_eq!(calls(&o, "cgroup_set_weight"), 1);
    // a write of the weight it has is not passed on (scx_group_set_weight)
    let o = run_events("shape:c=1,t=1", w, "1s weight /a 100");
    assert_eq!(calls(&o, "cgroup_set_weight"), 0);
}

/// /a (100), /b (300) and /c (100), two threads each on one CPU; /a's
/// threads move to /b at 700 ms and /a is removed at 1 s
/// (ops.cgroup_exit for it then, and not again at the unload): the run
/// ends well (no watchdog or error exit) and the rest share as if /a had
/// never been: /b's four threads 75%, /c's two 25%.
#[test]
fn a_group_removed_after_its_tasks_left() {
    let w = "spinners:procs=1,threads=2,time=2,cg=/a:weight=100 \
             & spinners:procs=1,threads=2,time=2,cg=/b:weight=300 \
             & spinners:procs=1,threads=2,time=2,cg=/c:weight=100";
    let o = run_events("shape:c=1,t=1", w, "700ms move 0-2 /b; 1s rmdir /a");
    let after = window_shares(&o, 3, 1200 * MS, 2000 * MS);
    check(&after, &[0.375, 0.375, 0.25], "after the rmdir");
    // one call for /a at its rmdir, one for all the others at the unload
    assert_eq!(calls(&o, "cgroup_exit"), 2);
    let o = run_events("shape:c=1,t=1", w, "700ms move 0-2 /b");
    assert_eq!(calls(&o, "cgroup_exit"), 1);
}

/// Four busy threads of /a on four CPUs; at 1 s /a's cpu.max becomes
/// 50000/100000 (ops.cgroup_set_bandwidth): four CPUs before, half a CPU
/// after, throttled about once a period.
#[test]
fn cpu_max_written_mid_run_starts_throttling() {
    let w = "spinners:procs=1,threads=4,time=2,cg=/a";
    let o = run_events("shape:c=4,t=1", w, "1s max /a 50000/100000");
    let before = cpus_used(&o, 0, 200 * MS, 1000 * MS);
    let after = cpus_used(&o, 0, 1200 * MS, 2000 * MS);
    let c: BTreeMap<_, _> = o.counters.iter().cloned().collect();
    eprintln!(
        "before {before:.4} CPUs, after {after:.4} CPUs, {} throttles",
        c["cg_throttles"]
    );
    assert!(before > 3.9, "{before:.4} CPUs before the write");
    assert!(
        (after - 0.5).abs() <= 0.015,
        "{after:.4} CPUs, not 0.5 +-3%"
    );
    assert!((7..=11).contains(&c["cg_throttles"]), "{c:?}");
    assert_eq!(calls(&o, "cgroup_set_bandwidth"), 1);
}

/// A group that uses its whole quota before any CPU takes a tick: cpu.max
/// 1000/100000 on wakeprobe's message thread and 4 workers, on two
/// one-CPU LLCs (fuzz seed 740233). They use the 1 ms in 0.93 ms of
/// short wake-ups, all park in the group's DSQ, and the CPUs go idle
/// without a tick; the period timer, started only by a tick, never ran
/// and the group stayed throttled until the watchdog ejected scx_arbor
/// ("wakeprobe-m0-w[1003] failed to run"). The throttle starts the timer
/// (throttle_cfs_rq -> start_cfs_bandwidth): the run ends, throttled
/// about once a period of its 1 s.
#[test]
fn cpu_max_used_before_the_first_tick_comes_back() {
    let m = arbor_sim::presets::find("shape:n=1,l=2,c=1,t=1").unwrap();
    let cfg = arbor_sim::core::Config {
        time_limit: 2000 * MS,
        watchdog_ns: 1000 * MS,
        ..arbor_sim::core::Config::default()
    };
    let s = arbor_sim::sched::SchedSpec::parse("arbor:stock").unwrap();
    let w = "wakeprobe:m=1,w=4,t=1,cg=/w:max=1000/100000";
    let o = arbor_sim::run::simulate_defaults(&m, &s, w, cfg, 740233).unwrap();
    let c: BTreeMap<_, _> = o.counters.iter().cloned().collect();
    eprintln!("{}: {} throttles", o.stop, c["cg_throttles"]);
    assert!(o.ok && !o.ejected, "{w}: {}", o.stop);
    assert!((8..=12).contains(&c["cg_throttles"]), "{c:?}");
}

/// 20 spinning threads in a group of cpu.weight 1 against one thread in a
/// group of weight 100, on one CPU for 10 s: fair.c gives the 20 together
/// the group's 10 / (10 + 1024) of the CPU (sched_weight_from_cgroup: 1 ->
/// 10 on the 1024 scale). Each one's flattened weight is 1024 * 10 / 20480
/// = 0.5 units: on the fine scale (policy.h ARBOR_W_SHIFT) it is kept; on
/// the 1024 scale it was floored at MIN_SHARES = 2 and the 20 took 40 /
/// (40 + 1024), about 4%. Each thread runs a tick about every 2 s, so the
/// share is read from 2 s to 10 s, past the start, where all ran at once.
#[test]
fn a_crowded_group_of_weight_1_keeps_its_small_share() {
    let w = "spinners:procs=1,threads=20,time=10,cg=/low:weight=1 \
             & spinners:procs=1,threads=1,time=10,cg=/x:weight=100";
    let o = run("shape:c=1,t=1", "arbor:default", w);
    let s = window_shares(&o, 2, 2000 * MS, 10_000 * MS);
    let want = 10.0 / 1034.0;
    eprintln!(
        "weight 1 x 20 threads: {:.4} of the CPU, fair.c {want:.4}",
        s[0]
    );
    assert!(
        (s[0] - want).abs() <= 0.004,
        "the weight-1 group got {:.4}, not {want:.4} +-0.004",
        s[0]
    );
}

/// rt-app's `"taskgroup"`: three threads in /many and one in /few, all on
/// CPU 1, groups of the default weight 100 (rt-app writes none): each
/// group half the CPU, so the lone thread of /few gets as much as the
/// three of /many together, where without groups it would get a quarter.
#[test]
fn rtapp_taskgroups_share_by_group() {
    let o = super::run_rtapp(
        "taskgroup",
        r#"{"global": {"duration": 2},
            "tasks": {
              "many": {"instance": 3, "cpus": [1], "taskgroup": "/many", "run": 1000},
              "few": {"cpus": [1], "taskgroup": "/few", "run": 1000}
            }}"#,
    );
    let t = super::cpu_time(&o, 200 * MS);
    let many: u64 = t
        .iter()
        .filter(|(n, _)| n.starts_with("many"))
        .map(|(_, d)| d)
        .sum();
    let few = t["few"];
    let s = few as f64 / (few + many) as f64;
    check(&[s], &[0.5], "rt-app taskgroups, 3 threads against 1");
}

/// fair.c's share of each group for CPU-bound threads in equal-weight
/// groups: the balancer reads task_h_load (a task's share of its group's
/// load at the root), so it evens the CPUs' group loads, and then each
/// group gets its weight's fraction of all CPUs, however many threads it
/// has. Part 0: `a` threads in /a, part 1: `b` threads in /b, on `cpus`
/// CPUs, seeds 1..=n; returns /a's share per seed.
fn h_load_case(a: u32, b: u32, cpus: u32, seeds: u64) -> Vec<f64> {
    let w = format!(
        "spinners:procs=1,threads={a},time=2,cg=/a:weight=100 \
         & spinners:procs=1,threads={b},time=2,cg=/b:weight=100"
    );
    let m = arbor_sim::presets::find(&format!("shape:c={cpus},t=1")).unwrap();
    let s = arbor_sim::sched::SchedSpec::parse("arbor:default").unwrap();
    (1..=seeds)
        .map(|seed| {
            let cfg = arbor_sim::core::Config {
                trace: true,
                ..arbor_sim::core::Config::default()
            };
            let o = arbor_sim::run::simulate_defaults(&m, &s, &w, cfg, seed).unwrap();
            assert!(o.ok, "{w}: {}", o.stop);
            // runs clipped to the window: a task alone on its CPU runs
            // in one piece from before it
            let (a, b) = (
                cpus_used(&o, 0, 200 * MS, 2000 * MS),
                cpus_used(&o, 1, 200 * MS, 2000 * MS),
            );
            a / (a + b)
        })
        .collect()
}

/// Equal-weight groups of unequal thread counts on several CPUs share them
/// 50/50, as fair.c's balancer makes them: it reads task_h_load, so it
/// evens the CPUs' loads of group entities, not their task counts, and
/// then each group gets its weight's half of every CPU it runs on
/// (policy.h arbor_h_weight). With the tasks' own weights the balancer
/// saw 4 against 4 equal tasks on two CPUs, and left /a 43.8% or 62.5%
/// depending on where the threads started (6 against 2), 62.5% for 3
/// against 1, 63-67% for 8 against 2 on four CPUs. Five seeds each;
/// every run within 3 points of 50%: most settle within 0.5 point, but a
/// balanced placement can be left for a while and found again (seed 2 of
/// 6 against 2 on four CPUs: 60-62% from 400 to 800 ms, 50.0% in the
/// other 200 ms windows, 52.5% over the run), while the tasks' own
/// weights left 3 against 1 12.5 points off and 6 against 2 on two CPUs
/// 6.2 points off in three of five runs.
#[test]
fn unequal_thread_counts_share_several_cpus_by_group_weight() {
    for (a, b, cpus) in [(6, 2, 2), (3, 1, 2), (5, 1, 2), (8, 2, 4), (6, 2, 4)] {
        let s = h_load_case(a, b, cpus, 5);
        eprintln!("{a} threads against {b} on {cpus} CPUs: /a {s:.4?}, fair.c 0.5");
        for x in &s {
            assert!(
                (x - 0.5).abs() <= 0.03,
                "{a} threads against {b} on {cpus} CPUs: /a {s:.4?}, fair.c's 0.5 +-0.03"
            );
        }
    }
}
