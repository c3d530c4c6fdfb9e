//! `arbor sim reproduce SEED` on another machine and workload: -t and -w
//! take the place of the seed's own, --era picks the baseline the
//! mechanism is added to, each cell's verdict under the rule is printed
//! and written, --explain prints the counters; bad input is one line.
//! Tiny workloads on small presets: seconds.

use std::process::Command;

use serde_json::Value;

/// (exit code, stdout, stderr) of `arbor ARGS`.
fn reproduce(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .arg("sim")
        .arg("reproduce")
        .args(args)
        .output()
        .expect("run arbor");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// The tiny workload every test runs.
const W: &str = "hackbench:g=1,l=50";

/// `arbor sim reproduce ARGS -w W --out DIR` must succeed: its stdout,
/// results.json and summary.json (DIR is removed after).
fn run_ok(tag: &str, args: &str) -> (String, Value, Value) {
    let d = std::env::temp_dir().join(format!("arbor-reproduce-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let mut a: Vec<&str> = args.split_whitespace().collect();
    let ds = d.display().to_string();
    a.extend(["-w", W, "--out", &ds]);
    let (rc, out, err) = reproduce(&a);
    assert_eq!(rc, 0, "{args}: {err}");
    let json = |file: &str| -> Value {
        let t = std::fs::read_to_string(d.join(file)).expect(file);
        serde_json::from_str(&t).expect(file)
    };
    let (r, s) = (json("results.json"), json("summary.json"));
    let _ = std::fs::remove_dir_all(&d);
    (out, r, s)
}

/// The verdict's words for a call, as the table prints them.
fn word(call: &str) -> &'static str {
    match call {
        "better" => "better",
        "not_worse" => "not worse",
        "tie" => "tie",
        "worse" => "WORSE",
        "undecided" => "undecided",
        c => panic!("unknown call {c}"),
    }
}

/// Every cell of `r` (results.json) is printed in `out` with its verdict
/// and interval, was run until decided or --max-reps, and used the
/// machines and workload asked for; returns the cells.
fn check_cells(r: &Value, out: &str, machines: &[&str], w: &str, max_reps: u64) -> Vec<Value> {
    let cells = r["effects"].as_array().expect("effects").clone();
    assert_eq!(cells.len(), machines.len(), "{r}");
    for (c, m) in cells.iter().zip(machines) {
        assert_eq!(c["machine"], *m, "{c}");
        assert_eq!(c["workload"], w, "{c}");
        let e = &c["effect"];
        let call = e["call"].as_str().unwrap();
        let row = out
            .lines()
            .find(|l| l.starts_with(&format!("| {m} | {w} |")))
            .unwrap_or_else(|| panic!("no row of {m} in\n{out}"));
        assert!(row.contains(&format!("| {} |", word(call))), "{row}");
        if let (Some(p), Some(lo), Some(hi)) =
            (e["pct"].as_f64(), e["lo"].as_f64(), e["hi"].as_f64())
        {
            assert!(
                row.contains(&format!("{p:+.1}% [{lo:+.1}, {hi:+.1}]")),
                "{row}"
            );
        }
        let runs = c["on"]["runs"].as_u64().unwrap();
        assert!(runs >= 2 && runs <= max_reps, "{c}");
        // an undecided cell got every run it could
        assert!(call != "undecided" || runs == max_reps, "{c}");
    }
    cells
}

/// `reproduce SEED -t x86-12 -r 2 --max-reps 2 MORE`: its output, its
/// results.json and its one checked cell.
fn on_x86_12(tag: &str, seed: &str, more: &str) -> (String, Value, Value) {
    let (out, r, _) = run_ok(tag, &format!("{seed} -t x86-12 -r 2 --max-reps 2 {more}"));
    let c = check_cells(&r, &out, &["x86-12"], W, 2).remove(0);
    (out, r, c)
}

#[test]
fn any_machine_and_workload_on_todays_kernel() {
    let (out, r, s) = run_ok(
        "current",
        "steal -t x86-12 -t 2s2c2t -r 2 --max-reps 4 --era current",
    );
    // the machines and the workload given, not the seed's e5-2630v4 sweep
    let cells = check_cells(&r, &out, &["x86-12", "2s2c2t"], W, 4);
    for c in &cells {
        assert_eq!(c["off"]["scheduler"], "arbor:stock", "{c}");
        assert_eq!(c["on"]["scheduler"], "arbor:stock:STEAL", "{c}");
    }
    assert_eq!(r["era"], "current");
    // STEAL acts on both machines: no run is the same with it
    assert!(cells.iter().all(|c| c["identical_runs"] == false), "{r}");
    let cmd = s["command"].as_str().unwrap();
    assert!(
        cmd.starts_with("arbor sim reproduce steal -t x86-12"),
        "{s}"
    );
    assert_eq!(s["effects"], r["effects"]);
}

#[test]
fn the_seeds_era_adds_the_mechanism_to_its_tables_baseline() {
    let (out, r, c) = on_x86_12("seed", "steal", "--era seed --explain");
    let off = c["off"]["scheduler"].as_str().unwrap();
    // the seed's 2018 kernel: features it did not have are off
    assert!(
        off.starts_with("arbor:stock:") && off.contains("NO_SIS_UTIL"),
        "{off}"
    );
    assert_eq!(c["on"]["scheduler"], format!("{off},STEAL"));
    // --explain: the counters of the cell, and STEAL's own among them
    assert!(out.contains("## What STEAL changed (--explain)"), "{out}");
    let steal = out
        .lines()
        .find(|l| l.starts_with("| steal | /1000 wake-ups |"))
        .unwrap_or_else(|| panic!("no steal row in\n{out}"));
    assert!(
        steal.contains("| 0.000 |"),
        "STEAL off steals nothing: {steal}"
    );
    let rows = r["explain"]["rows"].as_array().unwrap();
    assert!(
        rows.iter()
            .any(|x| x["quantity"] == "rq_wait_us_per_wakeup"),
        "{rows:?}"
    );
}

/// On one LLC, preferring the idler LLC has nothing to choose from: every
/// run is the same with it, and the output says so.
#[test]
fn a_mechanism_that_never_acts_is_named() {
    let (out, _, c) = on_x86_12("noop", "idler-llc", "--era current");
    assert_eq!(c["identical_runs"], true, "{c}");
    assert!(
        out.contains(
            "WA_IDLER_LLC left the metric the same in every run, seed for seed, in 1 cell(s)"
        ) && out.contains(&format!("x86-12 {W}.")),
        "{out}"
    );
}

#[test]
fn bad_input_is_one_line() {
    for (args, want) in [
        (&["steal", "-t", "no-such-preset"][..], "no-such-preset"),
        (
            &["steal", "-t", "x86-12", "-r", "5", "--max-reps", "3"],
            "--max-reps 3",
        ),
        (&["steal", "-t", "x86-12", "-w", "nosuchload"], "nosuchload"),
        (&["steal", "--era", "later"], "later"),
        (
            &["steal", "-t", "x86-12", "--traces", "/nonexistent"],
            "-w trace:",
        ),
    ] {
        let (rc, _, err) = reproduce(args);
        assert_ne!(rc, 0, "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// The call a verdict word stands for, as a direction: gain, loss,
/// neither; None for undecided.
fn class(call: &str) -> Option<i8> {
    match call {
        "better" => Some(1),
        "worse" => Some(-1),
        "undecided" => None,
        _ => Some(0),
    }
}

/// --sensitivity: each parameter the explanation names across its range,
/// the default among the values with the cell's own effect, and a flip
/// reported wherever the decided calls change.
#[test]
fn sensitivity_varies_the_named_parameters_across_their_ranges() {
    let (out, r, _) = run_ok(
        "sens",
        "steal -t 2s2c2t -r 2 --max-reps 2 --era current --sensitivity",
    );
    assert!(
        out.contains("## When the effect of STEAL holds (--sensitivity)"),
        "{out}"
    );
    let s = &r["sensitivity"];
    assert_eq!(
        (s["machine"].as_str(), s["workload"].as_str()),
        (Some("2s2c2t"), Some(W)),
        "{s}"
    );
    assert_eq!(s["at_defaults"], r["effects"][0]["effect"], "{s}");
    let varied = s["varied"].as_array().expect("varied");
    assert!(
        !varied.is_empty(),
        "STEAL moves tasks: something is named: {s}"
    );
    let mut moved = false;
    for v in varied {
        let name = v["name"].as_str().unwrap();
        assert!(v["named_by"][1].as_f64().unwrap() >= 0.05, "{v}");
        let def = v["default"].as_f64().unwrap();
        let (lo, hi) = (
            v["lo"].as_f64().unwrap().min(def),
            v["hi"].as_f64().unwrap().max(def),
        );
        let pts = v["points"].as_array().unwrap();
        let vals: Vec<f64> = pts.iter().map(|p| p["value"].as_f64().unwrap()).collect();
        assert!(vals.windows(2).all(|w| w[0] < w[1]), "{name}: {vals:?}");
        assert!(
            vals.iter().all(|x| *x >= lo && *x <= hi),
            "{name}: {vals:?}"
        );
        assert_eq!(vals.first().copied(), Some(lo), "{name}");
        assert_eq!(vals.last().copied(), Some(hi), "{name}");
        let defaults: Vec<&Value> = pts.iter().filter(|p| p["default"] == true).collect();
        assert_eq!(defaults.len(), 1, "{name}: {pts:?}");
        assert_eq!(defaults[0]["value"].as_f64(), Some(def), "{name}");
        assert_eq!(defaults[0]["effect"], s["at_defaults"], "{name}");
        let inert = pts
            .iter()
            .all(|p| p["effect"]["pct"] == s["at_defaults"]["pct"]);
        assert_eq!(v["inert"].as_bool(), Some(inert), "{name}");
        moved |= !inert;
        let known: Vec<i8> = pts
            .iter()
            .filter_map(|p| class(p["effect"]["call"].as_str().unwrap()))
            .collect();
        // a value unlike both its neighbours, which agree, is a wobble
        // (from the left: in an alternation, every other value)
        let mut lone = vec![false; known.len()];
        for i in 1..known.len().saturating_sub(1) {
            lone[i] = !lone[i - 1] && known[i - 1] == known[i + 1] && known[i] != known[i - 1];
        }
        let kept: Vec<i8> = (0..known.len())
            .filter(|&i| !lone[i])
            .map(|i| known[i])
            .collect();
        let changes = kept.windows(2).filter(|w| w[0] != w[1]).count();
        let wobbles = lone.iter().filter(|&&l| l).count();
        assert_eq!(v["flips"].as_array().unwrap().len(), changes, "{name}: {v}");
        assert_eq!(
            v["wobbles"].as_array().unwrap().len(),
            wobbles,
            "{name}: {v}"
        );
        assert!(out.contains(&format!("| `{name}` |")), "{name} not printed");
    }
    assert!(
        moved,
        "no parameter changed any run: are the values passed on? {s}"
    );
}

#[test]
fn a_machine_parameter_is_checked() {
    for (args, want) in [
        (
            &["-t", "tc2", "--machine-param", "smt2_throughput=0.6"][..],
            "no SMT",
        ),
        (
            &["-t", "x86-12", "--machine-param", "ipi_ns=3"],
            "--cost ipi_ns=3",
        ),
        (
            &["-t", "x86-12", "--machine-param", "mlp=-1"],
            "not a number",
        ),
        (
            &["-t", "x86-12", "--machine-param", "cache=3"],
            "unknown parameter 'cache'",
        ),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_arbor"))
            .arg("sim")
            .args(args)
            .args(["-w", W, "--brief"])
            .output()
            .expect("run arbor");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?}");
        assert!(
            err.contains(want) && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

/// `reproduce idler-llc --topology-from SNAP -w trace:DATA --explain`: one
/// cell, that machine and that trace, decided, the replay's time on both
/// sides, and the explain table under it.
fn reproduce_on_trace(snap: &std::path::Path, data: &std::path::Path, out: &std::path::Path) {
    let w = format!("trace:{}", data.display());
    let (s, o) = (snap.display().to_string(), out.display().to_string());
    let (rc, text, err) = reproduce(&[
        "idler-llc",
        "--topology-from",
        &s,
        "-w",
        &w,
        "-r",
        "2",
        "--max-reps",
        "4",
        "--explain",
        "--out",
        &o,
    ]);
    assert_eq!(rc, 0, "{w}: {err}");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let machine = r["effects"][0]["machine"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(!machine.is_empty(), "{r}");
    check_cells(&r, &text, &[machine.as_str()], &w, 4);
    // the replay did the recorded work: a time, on both sides
    for side in ["off", "on"] {
        let mean = r["effects"][0][side]["mean"].as_f64().unwrap();
        assert!(mean > 0.0 && mean.is_finite(), "{side}: {r}");
    }
    assert!(
        text.contains("## What WA_IDLER_LLC changed (--explain)")
            && text.contains(&format!("| quantity | unit | {machine}: {w} (")),
        "{text}"
    );
}

/// Journey 3 of the README from end to end, on this machine: a snapshot
/// of it (`arbor sim snapshot`) with the committed trace of hackbench
/// (sim/tests/fixtures/trace, recorded on a 2-CPU host), then with a
/// perf.data of `perf bench sched messaging` (hackbench) recorded here now.
#[test]
fn this_machine_and_a_trace_recorded_here() {
    let d = std::env::temp_dir().join(format!("arbor-reproduce-{}-here", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let (snap, data) = (d.join("snap"), d.join("hb.data"));
    let snapped = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["sim", "snapshot"])
        .arg(&snap)
        .output()
        .expect("run arbor");
    if !snapped.status.success() {
        let _ = std::fs::remove_dir_all(&d);
        return scx_arbor::testing::skip(&format!(
            "arbor sim snapshot of this machine: {}",
            String::from_utf8_lossy(&snapped.stderr).trim()
        ));
    }
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../sim/tests/fixtures/trace/hackbench.data");
    reproduce_on_trace(&snap, &fixture, &d.join("fixture"));
    // the tracepoints the replay reads (docs/guide/sim.md, "trace:")
    let recorded = Command::new("perf")
        .args(["record", "-a", "--no-buildid", "--synth=task", "-o"])
        .arg(&data)
        .args(["-e", "sched:sched_switch", "-e", "sched:sched_waking"])
        .args([
            "-e",
            "sched:sched_process_fork",
            "-e",
            "sched:sched_wakeup_new",
        ])
        .args(["-e", "sched:sched_process_exit", "--"])
        .args(["perf", "bench", "sched", "messaging", "-g", "1", "-l", "50"])
        .output();
    match recorded {
        Ok(o) if o.status.success() && data.exists() => {}
        r => {
            let _ = std::fs::remove_dir_all(&d);
            let why = match r {
                Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
                Err(e) => e.to_string(),
            };
            return scx_arbor::testing::skip(&format!(
                "perf record of sched tracepoints (root and tracefs: mount -t tracefs nodev /sys/kernel/tracing): {why}"
            ));
        }
    }
    reproduce_on_trace(&snap, &data, &d.join("out"));
    let _ = std::fs::remove_dir_all(&d);
}
