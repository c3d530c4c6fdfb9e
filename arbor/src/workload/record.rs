//! Recording real programs for the simulator's replay (`-w trace:FILE`):
//! the `perf record` command line every recorder builds (bench's guest,
//! `sim reproduce --record-traces`, `sim calibrate`), where bench puts a
//! run's recording, and the scale that brings a recording made in a TCG
//! guest back to the cost model's machine at full speed.

use std::path::PathBuf;

/// `DIR/hackbench_g_2_l_100-r1.data`: the recording of `workload` (its
/// label) in repetition `rep`.
pub fn trace_file(dir: &std::path::Path, workload: &str, rep: u32) -> PathBuf {
    dir.join(format!("{}-r{rep}.data", file_stem(workload)))
}

/// A workload spec as a file name: `hackbench_g_2_l_100` for
/// `hackbench:g=2,l=100` (every character but a letter or digit is `_`).
pub fn file_stem(spec: &str) -> String {
    spec.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// `perf record` of the tracepoints the replay reads, into `out`, of the
/// command that follows (`perf record ... -- COMMAND`): sched_waking with
/// its kernel call chain (where WF_SYNC shows, see
/// `arbor_sim::workload::trace::ksyms`), the others without. The caller
/// then writes `out.kallsyms` with `ksyms::save_for` on the same boot.
/// The one place the recorders (bench, sim reproduce, sim calibrate)
/// build perf's arguments.
pub fn perf_record_argv(out: &std::path::Path) -> Vec<String> {
    // not -q: a failure's reason lands in the run's output, which the
    // guest's warning quotes
    // --no-buildid: perf's pass over the whole file at the end to find
    // the DSOs hit, which the replay never reads (tracepoints only; the
    // kernel's symbols come from the kallsyms copy) and TCG makes slow
    let mut v: Vec<String> = ["perf", "record", "-a", "--no-buildid", "--synth=task", "-o"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    v.push(out.display().to_string());
    // the call chains' kernel part only: a few frames per wake-up
    v.push("--kernel-callchains".into());
    for e in [
        "sched:sched_switch",
        "sched:sched_waking/call-graph=fp/",
        "sched:sched_process_fork",
        "sched:sched_wakeup_new",
        "sched:sched_process_exit",
    ] {
        v.extend(["-e".to_string(), e.to_string()]);
    }
    v.push("--".into());
    v
}

/// The scale on a recording's bursts for a replay at TCG's pace: 1 / (k x
/// n), n = the vCPUs the replayed threads kept busy on average while they
/// were recorded (their CPU time over their wall time, at least one),
/// which shared TCG's one host thread.
pub fn trace_scale(k: f64, cpu_ns: u64, wall_ns: u64) -> f64 {
    let n = if wall_ns == 0 {
        1.0
    } else {
        (cpu_ns as f64 / wall_ns as f64).max(1.0)
    };
    1.0 / (k * n)
}
