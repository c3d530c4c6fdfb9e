//! A process whose threads share data across LLCs runs slower
//! (TaskSpec::shared_lines_per_us, CacheModel::sharing_slowdown): rate_of
//! reads a task's spec only when some task shares lines
//! (Stats::track_occupancy), and this checks that the slowdown still
//! applies when one does.
//!
//! hikey: two LLCs of 4 CPUs (0-3, 4-7). One process, two threads pinned
//! to CPU 0 and CPU 4, each computing 50 steps of 100 us with 50 us sleeps
//! between them.

use arbor_sim::core::{Config, Stop};
use arbor_sim::presets;
use arbor_sim::run::run_workload;
use arbor_sim::workload::{Effects, Exits, Metric, Ns, Step, TaskId, TaskSpec, Workload};
use scx_arbor::knobs::Knobs;

const US: Ns = 1_000;
const STEPS: u32 = 50;

struct Pair {
    lines_per_us: f64,
    exits: Exits,
    step: Vec<u32>,
}

impl Workload for Pair {
    fn tasks(&self) -> Vec<TaskSpec> {
        [0, 4]
            .iter()
            .map(|&cpu| {
                let mut s = TaskSpec::new(format!("t{cpu}"), 100);
                s.cpus = Some(vec![cpu]);
                s.forked = false;
                s.shared_bytes = 1 << 20;
                s.shared_lines_per_us = self.lines_per_us;
                s
            })
            .collect()
    }

    fn next(&mut self, t: TaskId, now: Ns, _fx: &mut Effects) -> Step {
        self.step[t] += 1;
        if self.step[t] > 2 * STEPS {
            return self.exits.exit(now);
        }
        // a sleep between the steps: a process's occupancy of each LLC is
        // counted when its thread stops running (Stats::task_ran)
        if self.step[t] % 2 == 1 {
            Step::Run(100 * US)
        } else {
            Step::Sleep(50 * US)
        }
    }

    fn finished(&self) -> bool {
        self.exits.finished()
    }

    fn metrics(&self, _elapsed: Ns) -> Vec<Metric> {
        Vec::new()
    }
}

/// When the run ends, with the threads sharing `lines_per_us`.
fn end(lines_per_us: f64) -> Ns {
    let m = presets::find("hikey").unwrap();
    let mut wl = Pair {
        lines_per_us,
        exits: Exits::new(2),
        step: vec![0; 2],
    };
    let cfg = Config {
        time_limit: 1_000_000_000,
        ..Config::default()
    };
    let (core, _, stop) = run_workload(&m, "arbor:stock", &Knobs::default(), &mut wl, cfg).unwrap();
    assert!(matches!(stop, Stop::Finished), "{stop:?}");
    core.now
}

#[test]
fn threads_sharing_lines_across_llcs_run_slower() {
    let plain = end(0.0);
    let shared = end(16.0);
    eprintln!("end: no sharing {plain} ns, 16 lines/us shared {shared} ns");
    assert!(plain >= STEPS as Ns * 150 * US, "{plain}");
    // each thread's process runs half in the other LLC: a step's speed
    // drops by sharing_slowdown's factor at that share
    assert!(shared > plain + plain / 100, "{shared} vs {plain}");
}
