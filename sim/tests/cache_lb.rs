//! Seed 002: the cache-aware balancing move (migrate_llc_task).
//!
//! hikey: two LLCs of 4 CPUs (0-3, 4-7) in one node, no SMT. Process P has
//! two threads: A pinned to CPU 7 and B allowed on CPUs 3 and 4; each
//! wakes, runs 200 us and sleeps 1 ms (longer than the 0.5 ms migration cost, so a queued B is not cache-hot). Two CPU hogs of other processes
//! hold CPU 3 and CPU 4 for the whole run. B starts on CPU 3 (LLC 0),
//! sharing it with the hog there; P's preferred LLC is LLC 1 (A runs alone
//! on CPU 7: the higher occupancy), and LLC 1 stays under the aggregation
//! threshold with B in it (A 1/6 + hog 1 + B 1/6 of 4 CPUs < 50%). B is
//! niced (weight 11 of 100, nice 10): its wake-ups do not preempt the hog,
//! so it waits in CPU 3's queue where a balancer can see it (a task that
//! preempts at once is never queued, and the seed's active balance for
//! migrate_llc_task is not modelled; the tick moves a running task only
//! onto an idle CPU of the preferred LLC, cache.bpf.h cache_aggregate).
//!
//! The machine is balanced for ordinary balancing (each LLC has one
//! running hog and spare CPUs B may not use), and the tick's aggregation
//! finds no idle CPU of LLC 1 that B may run on (CPU 4 is the hog's). Only
//! the seed's balancer move pulls B into its preferred LLC: CPU 4, at its
//! periodic balance, takes B from CPU 3's queue although nothing is
//! imbalanced, and B's wake-ups then stay on CPU 4 (its previous CPU; the
//! balancer does not pull it out of its preferred LLC).

use arbor_sim::core::{Config, Stop};
use arbor_sim::presets;
use arbor_sim::run::run_workload;
use arbor_sim::workload::{Effects, Exits, Metric, Ns, Step, TaskId, TaskSpec, Workload};
use scx_arbor::knobs::Knobs;
use std::collections::HashMap;

const MS: Ns = 1_000_000;
const US: Ns = 1_000;
const END: Ns = 400 * MS;
/// tasks: hog on 3, hog on 4, then A (task 2, which the checks do not
/// read) and B
const HOGS: [usize; 2] = [3, 4];
const B: usize = 3;

struct Split {
    exits: Exits,
    step: Vec<u32>,
}

impl Workload for Split {
    fn tasks(&self) -> Vec<TaskSpec> {
        let mut v = Vec::new();
        for (i, cpu) in HOGS.iter().enumerate() {
            let mut s = TaskSpec::new(format!("hog{i}"), 10 + i as u32);
            s.cpus = Some(vec![*cpu]);
            s.forked = false;
            v.push(s);
        }
        let mut a = TaskSpec::new("a", 100);
        a.cpus = Some(vec![7]);
        a.forked = false;
        v.push(a);
        let mut b = TaskSpec::new("b", 100);
        b.cpus = Some(vec![3, 4]);
        // nice 10: its wake-ups do not preempt the hog, so it waits queued
        b.weight = 11;
        b.forked = false;
        b.start_at = MS;
        v.push(b);
        v
    }

    fn next(&mut self, t: TaskId, now: Ns, _fx: &mut Effects) -> Step {
        self.step[t] += 1;
        if t < HOGS.len() {
            return if self.step[t] == 1 {
                Step::Run(END)
            } else {
                self.exits.exit(now)
            };
        }
        if now >= END {
            return self.exits.exit(now);
        }
        if self.step[t] % 2 == 1 {
            Step::Run(200 * US)
        } else {
            Step::Sleep(1000 * US)
        }
    }

    fn finished(&self) -> bool {
        self.exits.finished()
    }

    fn metrics(&self, _elapsed: Ns) -> Vec<Metric> {
        Vec::new()
    }
}

/// B's run time in LLC 1 (preferred) over the last 200 ms, in % of its run time then,
/// and the counters.
fn split_run(sched: &str) -> (u64, HashMap<String, u64>) {
    let m = presets::find("hikey").unwrap();
    let mut wl = Split {
        exits: Exits::new(4),
        step: vec![0; 4],
    };
    let cfg = Config {
        trace: true,
        time_limit: 10_000 * MS,
        ..Config::default()
    };
    let (core, counters, stop) = run_workload(&m, sched, &Knobs::default(), &mut wl, cfg).unwrap();
    assert!(matches!(stop, Stop::Finished), "{stop:?}");
    let from = END - 200 * MS;
    let mut per = [0u64; 2];
    for &(cpu, t, start, ran) in &core.stats.trace {
        let end = start + ran;
        if t != B || end <= from {
            continue;
        }
        per[m.cpus[cpu].llc] += end - start.max(from);
    }
    let tot = per[0] + per[1];
    eprintln!("{sched}: B's run time per LLC over the last 200 ms: {per:?} ns");
    (
        if tot == 0 { 0 } else { 100 * per[1] / tot },
        counters.into_iter().collect(),
    )
}

#[test]
fn cache_lb_pulls_a_thread_into_its_preferred_llc_when_balanced() {
    let (on, c_on) = split_run("arbor:stock:CACHE_LB");
    let (off, c_off) = split_run("arbor:stock");
    eprintln!(
        "B in LLC 1: CACHE_LB {on}% (llc_lb_moves {}, pref in {}, out {}), off {off}% (llc_lb_moves {})",
        c_on["llc_lb_moves"], c_on["llc_pref_tasks_in"], c_on["llc_pref_tasks_out"],
        c_off["llc_lb_moves"]
    );
    assert!(c_on["llc_lb_moves"] >= 1, "{c_on:?}");
    assert_eq!(c_off["llc_lb_moves"], 0);
    assert!(
        on >= 90,
        "CACHE_LB: B in its preferred LLC {on}% of its time"
    );
    assert!(off <= 10, "CACHE_LB off: B in LLC 1 {off}% of its time");
}
