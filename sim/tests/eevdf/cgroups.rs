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
/// weight 100 against 2 of weight 100 on one CPU. (On several CPUs the
/// split also depends on where the balancer puts the threads, which reads
/// the tasks' own weights, not their groups': fair.c's task_h_load is not
/// ported yet.)
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
