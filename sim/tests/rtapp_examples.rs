//! Every example file that Debian's rt-app package ships and that the installed
//! rt-app (1.0) accepts runs in the simulator, under scx_arbor, for 2 simulated
//! seconds, without an ejection or a broken invariant; each file rt-app refuses
//! is refused in one line. docs/findings/2026-11-26-rtapp/ tables which is
//! which, and why. Skipped, with a message, where the rt-app package is not
//! installed (scripts/install-deps.sh installs it).

use arbor_sim::core::Config;
use arbor_sim::presets;
use arbor_sim::run::simulate_defaults;
use arbor_sim::sched::SchedSpec;
use arbor_sim::workload::rtapp::RtApp;

const DOC: &str = "/usr/share/doc/rt-app";

/// Accepted by `rt-app FILE` on the project's host (it ran until stopped;
/// the four tutorial files with "ftrace": true fail there only for want of
/// /sys/kernel/debug/tracing, after their JSON was read).
const ACCEPTED: [&str; 21] = [
    "examples/browser-long.json",
    "examples/browser-short.json",
    "examples/cpufreq_governor_efficiency/calibration.json",
    "examples/cpufreq_governor_efficiency/dvfs.json",
    "examples/merge/thread0.json",
    "examples/merge/thread1.json",
    "examples/merge/thread2.json",
    "examples/merge/thread3.json",
    "examples/mp3-long.json",
    "examples/mp3-short.json",
    "examples/spreading-tasks.json",
    "examples/template.json",
    "examples/tutorial/example1.json",
    "examples/tutorial/example2.json",
    "examples/tutorial/example3.json",
    "examples/tutorial/example4.json",
    "examples/tutorial/example5.json",
    "examples/tutorial/example6.json",
    "examples/tutorial/example7.json",
    // needs 3 CPUs or more (below); its phases' "cpus" move the thread
    // between CPUs 0, 1 and 2 (core/affinity.rs)
    "examples/tutorial/example8.json",
    "taskset.json",
];

/// Refused by rt-app (exit 2), with what the simulator says.
const REFUSED: [(&str, &str); 4] = [
    ("examples/merge/global.json", "no \"tasks\" object"),
    ("examples/merge/resources.json", "no \"tasks\" object"),
    ("examples/video-long.json", "not valid JSON"),
    ("examples/video-short.json", "not valid JSON"),
];

fn installed() -> bool {
    if std::path::Path::new(DOC)
        .join("examples/template.json")
        .exists()
    {
        return true;
    }
    scx_arbor::testing::skip(&format!(
        "the rt-app package is not installed ({DOC}/examples is missing; scripts/install-deps.sh installs it)"
    ));
    false
}

#[test]
fn every_example_rt_app_accepts_runs_under_scx_arbor() {
    if !installed() {
        return;
    }
    let m = presets::find("x86-12").unwrap();
    let sched = SchedSpec::parse("arbor:stock").unwrap();
    for f in ACCEPTED {
        let workload = format!("rt-app:{DOC}/{f}");
        // what each `arbor sim` job runs, metrics included
        let cfg = Config {
            time_limit: 2_000_000_000,
            ..Config::default()
        };
        let out = simulate_defaults(&m, &sched, &workload, cfg, 1)
            .unwrap_or_else(|e| panic!("{f}: {e:#}"));
        assert!(out.ok, "{f}: {}", out.stop);
        // a NaN would not cross the job's JSON (an rt-app file of
        // SCHED_FIFO threads only has no sched_ext wake-up)
        for x in &out.metrics {
            assert!(x.value.is_finite(), "{f}: {} = {}", x.name, x.value);
        }
        assert!(
            out.metrics[0].name == "time_s" && out.metrics[0].value > 0.0,
            "{f}"
        );
    }
}

#[test]
fn every_example_rt_app_refuses_is_refused_in_one_line() {
    if !installed() {
        return;
    }
    for (f, why) in REFUSED {
        let e = match RtApp::from_file(&format!("{DOC}/{f}"), 12) {
            Ok(_) => panic!("{f} parsed"),
            Err(e) => format!("{e:#}"),
        };
        assert!(e.contains(why) && !e.contains('\n'), "{f}: {e}");
    }
    // tutorial/example8.json: rt-app refuses it on a machine of 2 CPUs
    // ("Invalid cpu 2"), runs it on 3 or more (ACCEPTED, on 12); the
    // simulator refuses it on 2 for the same reason
    let f = format!("{DOC}/examples/tutorial/example8.json");
    let e = match RtApp::from_file(&f, 2) {
        Ok(_) => panic!("example8 parsed on 2 CPUs"),
        Err(e) => format!("{e:#}"),
    };
    assert!(
        e.contains("CPU 2 is not on the simulated machine") && !e.contains('\n'),
        "{e}"
    );
    assert!(RtApp::from_file(&f, 3).is_ok());
}
