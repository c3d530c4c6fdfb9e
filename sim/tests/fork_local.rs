//! The fork slow path keeps a forking process's children on the parent's node
//! (sched_balance_find_dst_group's NUMA allowance, adjust_numa_imbalance: the
//! parent's node may be up to 2 idle CPUs behind the other while it would run
//! at most imb_numa_nr tasks), and spreads them once the node is busier than
//! that.
//!
//! xeon-88: 2 nodes of 44 CPUs, one LLC each, so imb_numa_nr = 44 / 8 = 5.
//! Every simulated task starts by fork from CPU 0 (node 0), the parent's
//! CPU; here one every 2 ms, each spinning until the end, so that each
//! fork sees its elder siblings running.

use arbor_sim::core::{Config, Stop};
use arbor_sim::presets;
use arbor_sim::run::run_workload;
use arbor_sim::workload::{Effects, Exits, Metric, Ns, Step, TaskId, TaskSpec, Workload};
use scx_arbor::knobs::Knobs;

const MS: Ns = 1_000_000;

/// `n` children of one process, forked `gap` ns apart, each running
/// `run` ns and exiting.
struct Forker {
    n: usize,
    gap: Ns,
    run: Ns,
    started: Vec<bool>,
    exits: Exits,
}

impl Workload for Forker {
    fn tasks(&self) -> Vec<TaskSpec> {
        (0..self.n)
            .map(|i| {
                let mut s = TaskSpec::new(format!("child{i}"), 4242);
                s.start_at = i as Ns * self.gap;
                s
            })
            .collect()
    }

    fn next(&mut self, t: TaskId, now: Ns, _fx: &mut Effects) -> Step {
        if !self.started[t] {
            self.started[t] = true;
            // all end at the same time: none leaves while others fork
            return Step::Run(self.run - t as Ns * self.gap);
        }
        self.exits.exit(now)
    }

    fn finished(&self) -> bool {
        self.exits.finished()
    }

    fn metrics(&self, _elapsed: Ns) -> Vec<Metric> {
        Vec::new()
    }
}

/// The node each child first ran on, in fork order.
fn first_nodes(n: usize) -> Vec<usize> {
    let m = presets::find("xeon-88").unwrap();
    let gap = 2 * MS;
    let mut wl = Forker {
        n,
        gap,
        run: n as Ns * gap + 20 * MS,
        started: vec![false; n],
        exits: Exits::new(n),
    };
    let cfg = Config {
        trace: true,
        time_limit: 10_000 * MS,
        ..Config::default()
    };
    let (core, _, stop) = run_workload(&m, "arbor:stock", &Knobs::default(), &mut wl, cfg).unwrap();
    assert!(matches!(stop, Stop::Finished), "{stop:?}");
    let mut first = vec![None; n];
    for &(cpu, t, start, _) in &core.stats.trace {
        match first[t] {
            Some((s, _)) if s <= start => {}
            _ => first[t] = Some((start, cpu)),
        }
    }
    first
        .iter()
        .enumerate()
        .map(|(t, f)| m.cpus[f.unwrap_or_else(|| panic!("child{t} never ran")).1].node)
        .collect()
}

#[test]
fn forked_children_stay_on_the_parents_node_until_it_is_busy() {
    let nodes = first_nodes(16);
    // the first three: node 0 runs 0, 1, 2 tasks and is at most 2 idle
    // CPUs behind node 1 (before: the second child went to node 1, the
    // node with more idle CPUs)
    assert_eq!(&nodes[..3], &[0, 0, 0], "{nodes:?}");
    // before each fork, node 0 runs a tasks and node 1 b: the child stays
    // on node 0 while node 0 would run at most imb_numa_nr = 5 and is at
    // most 2 idle CPUs behind; beyond that it goes to node 1 when node 1
    // has more idle CPUs (a tie stays local)
    let (mut a, mut b) = (0i32, 0i32);
    for (i, &nd) in nodes.iter().enumerate() {
        let want = if a < 5 && a - b <= 2 {
            0
        } else if a > b {
            1
        } else {
            0
        };
        assert_eq!(nd, want, "child{i}: node 0 ran {a}, node 1 {b}: {nodes:?}");
        if nd == 0 {
            a += 1;
        } else {
            b += 1;
        }
    }
    // spread in the end: 8 and 8
    assert_eq!((a, b), (8, 8), "{nodes:?}");
    // the kernel's sequence (policy.rs: children_of_one_parent...)
    assert_eq!(
        nodes,
        [0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1],
        "{nodes:?}"
    );
}
