//! Determinism against committed answers: a fixed set of short runs (two
//! machines, arbor's profiles and two peers, message passing, a pipe,
//! schbench, rt-app fuzz cases, a trace replay, a CPU hotplug), each one's
//! full outcome (every metric, the scheduler's counters, the callbacks'
//! calls and charged ns) compared byte for byte with tests/golden/NAME.json.
//! A change to the engine that is meant to be invisible must leave every
//! file as it is; a change that is meant to change results re-blesses them,
//! and the diff of tests/golden/ names the runs that moved:
//!
//!   ARBOR_BLESS=1 cargo test --release --locked -p arbor_sim --test golden
//!
//! A run's host CPU time is left out (it is not deterministic).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use arbor_sim::core::{hotplug, Config};
use arbor_sim::presets;
use arbor_sim::run::{simulate_defaults, Outcome};
use arbor_sim::sched::SchedSpec;
use arbor_sim::snapshot;

const MS: u64 = 1_000_000;

struct Case {
    /// A preset, a `shape:` or `host` (the trace fixtures' snapshot).
    machine: &'static str,
    sched: &'static str,
    /// FUZZ/NAME and TRACE/NAME stand for the fixtures' paths.
    workload: &'static str,
    time_limit_ms: u64,
    hotplug: &'static str,
}

const fn case(machine: &'static str, sched: &'static str, workload: &'static str) -> Case {
    Case {
        machine,
        sched,
        workload,
        time_limit_ms: 2_000,
        hotplug: "",
    }
}

/// The runs: every scheduler on every machine for the model workloads, and
/// the fixtures once each.
fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for machine in ["x86-12", "xeon-88"] {
        for sched in ["arbor:default", "arbor:stock", "bpfland", "cosmos"] {
            for w in [
                "hackbench:g=4,l=100",
                "perf-messaging:g=2,l=50",
                "perf-pipe:l=2000",
                "schbench:r=1,m=2,w=4",
            ] {
                v.push(case(machine, sched, w));
            }
        }
        for sched in ["arbor:default", "arbor:stock"] {
            v.push(Case {
                time_limit_ms: 300,
                ..case(machine, sched, "rt-app:FUZZ/rtapp-5ca5d4c5bf66628c.json")
            });
            v.push(Case {
                time_limit_ms: 300,
                ..case(machine, sched, "rt-app:FUZZ/nice18-vs-810-hogs.json")
            });
        }
    }
    for sched in ["arbor:default", "arbor:stock", "bpfland"] {
        v.push(case("host", sched, "trace:TRACE/hackbench.data"));
        v.push(case("host", sched, "trace:TRACE/pipe.data"));
    }
    // the recorded program on a larger machine than it was recorded on
    v.push(case(
        "xeon-88",
        "arbor:default",
        "trace:TRACE/hackbench.data",
    ));
    v.push(Case {
        hotplug: "off:5@1ms,on:5@3ms",
        ..case("x86-12", "arbor:default", "hackbench:g=2,l=40")
    });
    v
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The file a case's answer is kept in: its fields, made a file name.
fn file_name(c: &Case) -> String {
    let mut s = format!("{}__{}__{}", c.machine, c.sched, c.workload);
    if !c.hotplug.is_empty() {
        s.push_str("__");
        s.push_str(c.hotplug);
    }
    let s: String = s
        .chars()
        .map(|ch| match ch {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' => ch,
            _ => '-',
        })
        .collect();
    format!("{s}.json")
}

fn run(c: &Case) -> Outcome {
    let fx = fixtures();
    let m = if c.machine == "host" {
        snapshot::read(&fx.join("trace/host")).unwrap().machine
    } else {
        presets::find(c.machine).unwrap()
    };
    let w = c
        .workload
        .replace("FUZZ/", &format!("{}/fuzz/", fx.display()))
        .replace("TRACE/", &format!("{}/trace/", fx.display()));
    let sched = SchedSpec::parse(c.sched).unwrap();
    let cfg = Config {
        time_limit: c.time_limit_ms * MS,
        hotplug: hotplug::parse(c.hotplug).unwrap(),
        ..Config::default()
    };
    simulate_defaults(&m, &sched, &w, cfg, 1)
        .unwrap_or_else(|e| panic!("{} {} {}: {e:#}", c.machine, c.sched, c.workload))
}

/// Everything a run tells that does not depend on the host: the outcome as
/// results.json has it, and the fields it leaves out but for its timing.
fn answer(c: &Case, o: &Outcome) -> String {
    let mut v = serde_json::to_value(o).unwrap();
    let extra = serde_json::json!({
        "case": {
            "machine": c.machine,
            "sched": c.sched,
            "workload": c.workload,
            "time_limit_ms": c.time_limit_ms,
            "hotplug": c.hotplug,
        },
        "bpf_ops": o.bpf_ops,
        "wakeups": o.wakeups,
        "reenq_immed": o.reenq_immed,
        "timers_armed": o.timers_armed,
    });
    let obj = v.as_object_mut().unwrap();
    for (k, x) in extra.as_object().unwrap() {
        obj.insert(k.clone(), x.clone());
    }
    let mut s = serde_json::to_string_pretty(&v).unwrap();
    s.push('\n');
    s
}

#[test]
fn fixed_runs_give_the_committed_answers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let bless = std::env::var_os("ARBOR_BLESS").is_some_and(|v| v == "1");
    if bless {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let cases = cases();
    let mut wrong = String::new();
    let mut names = Vec::new();
    for c in &cases {
        let name = file_name(c);
        assert!(!names.contains(&name), "two cases share {name}");
        let got = answer(c, &run(c));
        let path = dir.join(&name);
        if bless {
            std::fs::write(&path, &got).unwrap();
        } else {
            match std::fs::read_to_string(&path) {
                Ok(want) if want == got => {}
                Ok(_) => writeln!(wrong, "  {name}: differs").unwrap(),
                Err(e) => writeln!(wrong, "  {name}: {e}").unwrap(),
            }
        }
        names.push(name);
    }
    // no answer file left from a case that is gone
    for e in std::fs::read_dir(&dir).unwrap() {
        let f = e.unwrap().file_name().to_string_lossy().into_owned();
        if !names.contains(&f) {
            if bless {
                std::fs::remove_file(dir.join(&f)).unwrap();
            } else {
                writeln!(wrong, "  {f}: no case gives it").unwrap();
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "runs whose outcome is not the committed one (re-bless with \
         ARBOR_BLESS=1 cargo test --release --locked -p arbor_sim --test golden \
         if the change is meant, and read git diff sim/tests/golden):\n{wrong}"
    );
}
