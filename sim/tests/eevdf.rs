//! EEVDF ordering of scx_arbor (scheduler/src/bpf/eevdf.bpf.h), run on the
//! simulator: the BPF code itself, natively compiled, on workloads whose
//! fair.c outcome is known. Group scheduling's shares: eevdf/cgroups.rs.

#[path = "eevdf/cgroups.rs"]
mod cgroups;

use std::collections::BTreeMap;

use arbor_sim::core::Config;
use arbor_sim::presets;
use arbor_sim::run::{simulate_defaults, Outcome};
use arbor_sim::sched::SchedSpec;

/// Runs `workload` on `machine` under `sched`, keeping the per-CPU
/// timeline; the run must end well.
fn run(machine: &str, sched: &str, workload: &str) -> Outcome {
    let m = presets::find(machine).unwrap();
    let cfg = Config {
        trace: true,
        ..Config::default()
    };
    let o = simulate_defaults(&m, &SchedSpec::parse(sched).unwrap(), workload, cfg, 1).unwrap();
    assert!(o.ok, "{sched} on {workload}: {}", o.stop);
    o
}

/// Runs an rt-app use case on 2s2c2t (8 CPUs) with scx_arbor, keeping the
/// per-CPU timeline.
fn run_rtapp(name: &str, json: &str) -> Outcome {
    let dir = std::env::temp_dir().join(format!("arbor-eevdf-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(format!("{name}.json"));
    std::fs::write(&f, json).unwrap();
    let o = run("2s2c2t", "arbor:stock", &format!("rt-app:{}", f.display()));
    std::fs::remove_dir_all(&dir).ok();
    o
}

/// CPU time of each task (by name) from the trace, counting only runs that
/// start at or after `from` ns.
fn cpu_time(o: &Outcome, from: u64) -> BTreeMap<String, u64> {
    let mut t = BTreeMap::new();
    for (_, name, start, dur) in &o.trace {
        if *start >= from {
            *t.entry(name.clone()).or_insert(0) += dur;
        }
    }
    t
}

/// An rt-app file of 3 s: CPU-bound tasks n0 (nice 0) and n5 (nice 5)
/// pinned to CPU 1, and the tasks `more` adds.
fn nice_0_and_5(more: &str) -> String {
    format!(
        r#"{{"global": {{"duration": 3}},
            "tasks": {{
              "n0": {{"cpus": [1], "priority": 0, "run": 1000}},
              "n5": {{"cpus": [1], "priority": 5, "run": 1000}}{more}
            }}}}"#
    )
}

/// Tasks n0 (nice 0) and n5 (nice 5) of `o` shared their CPU after the first
/// 100 ms (start-up) as fair.c's weights say, 1024 : 335, to within 5% of
/// n0's share. Returns their CPU times (ns) and n0's fair.c share.
fn assert_nice_0_and_5_share(what: &str, o: &Outcome) -> (f64, f64, f64) {
    let t = cpu_time(o, 100_000_000);
    let (a, b) = (t["n0"] as f64, t["n5"] as f64);
    let share = a / (a + b);
    let want = 1024.0 / (1024.0 + 335.0);
    eprintln!("{what}: nice 0: {a:.0} ns, nice 5: {b:.0} ns, share {share:.4} (fair.c {want:.4})");
    assert!(
        ((share - want) / want).abs() < 0.05,
        "nice-0 share {share:.4}, fair.c {want:.4}"
    );
    (a, b, want)
}

/// Two CPU-bound tasks at nice 0 and nice 5 pinned to one CPU share it as
/// fair.c's weights say, 1024 : 335 (75.4% : 24.6%), to within 5%.
#[test]
fn nice_0_and_5_share_one_cpu_by_the_kernels_weights() {
    let o = run_rtapp("nice", &nice_0_and_5(""));
    let (a, b, want) = assert_nice_0_and_5_share("nice 0 and 5 alone", &o);
    let s5 = b / (a + b);
    assert!(
        ((s5 - (1.0 - want)) / (1.0 - want)).abs() < 0.05,
        "nice-5 share {s5:.4}"
    );
}

/// The same, with a nice-19 CPU hog on another CPU. Its vruntime runs ~70x
/// faster than wall time; with one global vruntime floor (the scheme this
/// replaced: `vtime_now`, the furthest vruntime reached, clamping every
/// enqueue) it dragged every other task's vruntime up to its own at each
/// enqueue, erasing what they had run: nice 0 and nice 5 then alternated
/// slices, 50% : 50%. Per-CPU averages keep CPUs' vruntimes apart.
#[test]
fn a_nice_19_hog_elsewhere_does_not_change_the_shares() {
    let hog = r#", "n19": {"cpus": [2], "priority": 19, "run": 1000}"#;
    let o = run_rtapp("nice19", &nice_0_and_5(hog));
    assert_nice_0_and_5_share("with a nice-19 hog elsewhere", &o);
}

/// Runs of `task` on `cpu` (count) and its runs in all.
fn runs_on(o: &Outcome, task: &str, cpu: usize) -> (usize, usize) {
    let all: Vec<_> = o.trace.iter().filter(|r| r.1 == task).collect();
    (all.iter().filter(|r| r.0 == cpu).count(), all.len())
}

/// The deviation-11 scenario: a waker on CPU 0 wakes A, pinned to CPU 2,
/// then at once B, allowed on CPUs 2 and 3, every 2 ms for 1 s.
const DEV11: &str = r#"{"global": {"duration": 1},
    "tasks": {
      "w": {"cpus": [0], "run": 20, "resume": "a", "resume1": "b", "sleep": 2000},
      "a": {"cpus": [2], "suspend": "a", "run": 500},
      "b": {"cpus": [2, 3], "suspend": "b", "run": 500}
    }}"#;

/// Deviation 11: a wakee enqueued onto an idle CPU must claim it. Here a
/// waker on CPU 0 wakes A, pinned to CPU 2 (so no select_cpu: enqueue puts
/// it on CPU 2's queue), then at once B, allowed on CPUs 2 and 3, both
/// idle. Left in the idle mask, CPU 2 looked idle to B's select_cpu, which
/// claimed it and put B in its local queue ahead of A: B stacked onto CPU 2
/// on every round (495 of 495 before the fix) while CPU 3 idled.
#[test]
fn a_wakee_enqueued_on_an_idle_cpu_claims_it() {
    let o = run_rtapp("dev11", DEV11);
    let (on2, all) = runs_on(&o, "b", 2);
    eprintln!("B ran on CPU 2 (A's) {on2} times of {all}");
    assert!(all > 400, "{all}");
    assert!(
        on2 * 50 <= all,
        "B stacked onto A's CPU {on2} times of {all}"
    );
}

/// The wake-up latency counters split wakees select_cpu put on an idle CPU
/// (direct) from enqueued ones, and each histogram sums to its count. In
/// the deviation-11 scenario A (pinned: no select_cpu) is always enqueued,
/// B (an idle CPU 3 to go to) direct.
#[test]
fn wake_latency_is_split_direct_and_enqueued() {
    let o = run_rtapp("wlat", DEV11);
    let c: BTreeMap<String, u64> = o.counters.iter().cloned().collect();
    let (d, q) = (c["wake_direct"], c["wake_queued"]);
    eprintln!(
        "direct {d} queued {q}; mean {} / {} ns",
        c["wake_direct_ns"] / d.max(1),
        c["wake_queued_ns"] / q.max(1)
    );
    assert!(d >= 400, "direct {d}");
    assert!(q >= 495, "queued {q}");
    let hd: u64 = (0..16).map(|i| c[&format!("wlat_direct_{i}")]).sum();
    let hq: u64 = (0..16).map(|i| c[&format!("wlat_queued_{i}")]).sum();
    assert_eq!((hd, hq), (d, q));
}
