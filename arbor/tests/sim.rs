//! `arbor sim` as a user meets it: a smoke run of scx_arbor's BPF code on a
//! simulated machine, determinism of results.json and summary.json, the
//! verdict and summarize subcommands, and one-line errors.

use std::process::Command;

mod common;

fn arbor(args: &[&str]) -> (i32, String, String) {
    common::output(Command::new(env!("CARGO_BIN_EXE_arbor")).args(args))
}

fn tmpdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("arbor-sim-test-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The same inputs and seed give a byte-identical results.json, and the
/// run does real work: every message delivered, counters moved.
#[test]
fn smoke_run_is_deterministic() {
    let (a, b) = (tmpdir("a"), tmpdir("b"));
    let args = |d: &std::path::Path| {
        vec![
            "sim".to_string(),
            "-t".into(),
            "2s2c2t".into(),
            "-s".into(),
            "arbor:stock".into(),
            "-s".into(),
            "arbor:seeds".into(),
            "-w".into(),
            "hackbench:g=1,l=50".into(),
            "--out".into(),
            d.display().to_string(),
        ]
    };
    let run = |d: &std::path::Path| {
        let v = args(d);
        let r: Vec<&str> = v.iter().map(|s| s.as_str()).collect();
        arbor(&r)
    };
    let (rc, out, err) = run(&a);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("| `hackbench:g=1,l=50` | time_s"), "{out}");
    let (rc, _, err) = run(&b);
    assert_eq!(rc, 0, "{err}");
    let ja = std::fs::read(a.join("results.json")).unwrap();
    let jb = std::fs::read(b.join("results.json")).unwrap();
    assert!(
        ja == jb,
        "results.json differs between two runs with the same seed"
    );
    let v: serde_json::Value = serde_json::from_slice(&ja).unwrap();
    let cell = |metric: &str, sched: &str| {
        v["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["metric"] == metric && c["scheduler"] == sched)
            .map(|c| c["mean"].as_f64().unwrap_or(f64::NAN))
    };
    // 20 senders x 20 receivers x 50 loops
    assert_eq!(cell("messages", "arbor:stock"), Some(20000.0));
    assert!(cell("c:wakeups", "arbor:stock").unwrap() > 0.0);
    assert!(cell("time_s", "arbor:seeds").unwrap() > 0.0);
    // the cost charged per call of each BPF op: the callback's entry (25 ns
    // by default) and more for select_cpu, which calls kfuncs
    assert!(cell("bpf:select_cpu", "arbor:stock").unwrap() > 25.0);
    assert!(cell("bpf:running", "arbor:seeds").unwrap() >= 25.0);
    // the command that reproduces the run, without where it wrote
    assert_eq!(
        v["meta"]["command"],
        "arbor sim -t 2s2c2t -s arbor:stock -s arbor:seeds -w hackbench:g=1,l=50"
    );
    let commit = v["meta"]["commit"].as_str().unwrap();
    assert!(commit == "unknown" || commit.len() >= 40, "{commit}");
    // summary.json: as deterministic, small, no commit, no rows
    let sa = std::fs::read_to_string(a.join("summary.json")).unwrap();
    assert_eq!(sa, std::fs::read_to_string(b.join("summary.json")).unwrap());
    assert!(!sa.contains(commit) && !sa.contains("c:wakeups"), "{sa}");
    let s: serde_json::Value = serde_json::from_str(&sa).unwrap();
    assert_eq!(s["command"], v["meta"]["command"]);
    let cells = s["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2, "{sa}");
    assert_eq!(cells[1]["scheduler"], "arbor:seeds");
    assert_eq!(cells[1]["metric"], "time_s");
    assert_eq!(cells[1]["better"], "lower");
    assert_eq!(cells[1]["machine"], "2s2c2t");
    assert_eq!(cells[1]["mean"].as_f64(), cell("time_s", "arbor:seeds"));
    // `arbor sim summarize` writes the same from results.json
    std::fs::remove_file(a.join("summary.json")).unwrap();
    let (rc, _, err) = arbor(&["sim", "summarize", &a.display().to_string()]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(std::fs::read_to_string(a.join("summary.json")).unwrap(), sa);
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

/// `arbor sim summarize` refuses what it cannot read, in one line, and
/// writes nothing when one of its inputs is bad.
#[test]
fn summarize_refuses_bad_input_in_one_line() {
    let d = tmpdir("summarize-bad");
    for (name, text) in [
        ("good", "{\"meta\": {\"command\": \"arbor sim reproduce steal\"}, \"seed\": \"003\", \"compared\": []}"),
        ("broken", "{\"meta\": [1,"),
        ("other", "{\"runs\": []}"),
    ] {
        std::fs::create_dir_all(d.join(name)).unwrap();
        std::fs::write(d.join(name).join("results.json"), text).unwrap();
    }
    std::fs::create_dir_all(d.join("empty")).unwrap();
    let p = |s: &str| d.join(s).display().to_string();
    for (bad, want) in [
        ("broken", "is not an arbor results file"),
        ("other", "not a results file of arbor sim"),
        ("empty", "results.json"),
        ("none", "results.json"),
    ] {
        let (rc, _, err) = arbor(&["sim", "summarize", &p("good"), &p(bad)]);
        assert_eq!(rc, 2, "{bad}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{bad}: {err}");
        assert!(err.contains(want), "{bad}: {err}");
        assert!(
            !d.join("good/summary.json").exists(),
            "{bad}: nothing written"
        );
    }
    let (rc, _, err) = arbor(&["sim", "summarize", &p("good")]);
    assert_eq!(rc, 0, "{err}");
    let s = std::fs::read_to_string(d.join("good/summary.json")).unwrap();
    assert!(
        s.contains("\"command\": \"arbor sim reproduce steal\""),
        "{s}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// An rt-app file runs as a simulated workload: two periodic threads of
/// 1 ms every 10 ms, 20 times, end after 20 periods (with "phases": rt-app
/// 1.0 loops a task without phases for ever).
#[test]
fn rt_app_file_runs() {
    let d = tmpdir("rtapp");
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("periodic.json");
    std::fs::write(
        &f,
        r#"{
        /* rt-app's grammar, comments too */
        "global": {"duration": -1, "default_policy": "SCHED_OTHER", "calibration": "CPU0"},
        "tasks": {"periodic": {"instance": 2, "loop": 20, "phases": {"p": {"run": 1000,
            "timer": {"ref": "unique", "period": 10000}}}}}}"#,
    )
    .unwrap();
    let spec = format!("rt-app:{}", f.display());
    let out_dir = d.join("out");
    let (rc, out, err) = arbor(&[
        "sim",
        "-t",
        "1s2c2t",
        "-s",
        "arbor:stock",
        "-w",
        &spec,
        "--out",
        &out_dir.display().to_string(),
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains(&format!("| `{spec}` | time_s")), "{out}");
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("results.json")).unwrap()).unwrap();
    let cell = |metric: &str| {
        v["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["metric"] == metric)
            .and_then(|c| c["mean"].as_f64())
    };
    let t = cell("time_s").unwrap();
    assert!((0.2..0.201).contains(&t), "time_s {t}");
    assert_eq!(cell("activations"), Some(40.0));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let d = tmpdir("bad-rtapp");
    std::fs::create_dir_all(&d).unwrap();
    let bad = d.join("bad.json");
    // rt-app has no "nice" (a SCHED_OTHER thread's nice is "priority")
    std::fs::write(&bad, r#"{"tasks": {"t1": {"run": 100, "nice": 5}}}"#).unwrap();
    let bad_spec = format!("rt-app:{}", bad.display());
    let want_bad = format!(
        "rt-app {}: task \"t1\": unsupported key \"nice\"",
        bad.display()
    );
    let missing = format!("rt-app:{}", d.join("missing.json").display());
    for (args, want) in [
        (vec!["sim", "-w", bad_spec.as_str()], want_bad.as_str()),
        (vec!["sim", "-w", missing.as_str()], "cannot read it"),
        (vec!["sim", "-t", "nosuch"], "nosuch"),
        (
            vec!["sim", "-s", "lavd:autopower"],
            "lavd runs with its loader's defaults; options ('autopower') are not taken",
        ),
        (vec!["sim", "-s", "nosuch"], "unknown scheduler 'nosuch'"),
        (vec!["sim", "-s", "arbor:stock:NO_NOPE"], "NOPE"),
        (vec!["sim", "-w", "hackbench:x=1"], "unknown option 'x'"),
        (vec!["sim", "--cost", "ipi_ns=abc"], "ipi_ns"),
        (vec!["sim", "--time-limit", "NaN"], "--time-limit"),
        (
            vec!["sim", "--time-limit", "-1"],
            "--time-limit must be a number",
        ),
        (
            vec!["sim", "--topology-from", "/proc/version"],
            "a file, not a directory",
        ),
        (
            vec!["sim", "-t", "2s2c2t", "--topology-from", "/sys"],
            "exclude each other",
        ),
        (
            vec!["sim", "--topology-from", "/nonexistent/snap"],
            "the snapshot /nonexistent/snap: no such directory",
        ),
        (
            vec!["sim", "snapshot", "/proc/version"],
            "not an empty directory",
        ),
        (
            vec!["sim", "--cgroup-event", "1s chmod /a"],
            "'chmod' is not an operation",
        ),
        (
            vec![
                "sim",
                "-w",
                "spinners:procs=1,threads=2,time=1,cg=/a",
                "--cgroup-event",
                "1s rmdir /a",
            ],
            "rmdir /a: task 0 is still in it",
        ),
        (
            vec![
                "sim",
                "-w",
                "spinners:procs=1,threads=2,time=1",
                "--cgroup-event",
                "1s move 0 /b",
            ],
            "no group /b then",
        ),
    ] {
        let (rc, _, err) = arbor(&args);
        assert_eq!(rc, 2, "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `arbor sim snapshot` of this machine, then a run on it; a broken
/// snapshot is one line and exit 2.
#[test]
fn snapshot_then_run_on_it() {
    let d = tmpdir("snap");
    let snap = d.join("box");
    let (rc, _, err) = arbor(&["sim", "snapshot", snap.to_str().unwrap()]);
    if rc != 0 && !std::path::Path::new("/sys/devices/system/cpu/cpu0/topology").is_dir() {
        scx_arbor::testing::skip(&format!("this system's /sys has no CPU topology ({err})"));
        return;
    }
    assert_eq!(rc, 0, "{err}");
    assert!(snap.join("README").is_file());
    assert!(snap.join("devices/system/cpu/online").is_file());
    let s = snap.to_str().unwrap();
    let (rc, out, err) = arbor(&[
        "sim",
        "--topology-from",
        s,
        "-s",
        "arbor:stock",
        "-w",
        "hackbench:g=1,l=20",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("| `hackbench:g=1,l=20` | time_s"), "{out}");
    assert!(err.contains("assumed from the"), "{err}");

    // break it: a CPU list that is not one
    std::fs::write(
        snap.join("devices/system/cpu/cpu0/topology/thread_siblings_list"),
        "zero\n",
    )
    .unwrap();
    let (rc, _, err) = arbor(&["sim", "--topology-from", s, "-w", "hackbench:g=1,l=20"]);
    assert_eq!(rc, 2, "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "the snapshot {s}: cpu0/topology/thread_siblings_list: bad cpu list 'zero'"
        )),
        "{err}"
    );
    // no CPUs at all
    std::fs::write(snap.join("devices/system/cpu/online"), "\n").unwrap();
    let (rc, _, err) = arbor(&["sim", "--topology-from", s]);
    assert_eq!(rc, 2, "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("no CPUs"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

fn trace_fixture(name: &str) -> String {
    format!(
        "{}/../sim/tests/fixtures/trace/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `-w trace:FILE` and `arbor sim trace-info FILE` as a user meets them: a
/// perf.data recorded here replays on the host's snapshot, the report says
/// what was replayed, and trace-info lists the processes and what a replay
/// keeps; bad traces and keys are one line and exit 2.
#[test]
fn trace_replay_and_trace_info() {
    let hb = trace_fixture("hackbench.data");
    let host = trace_fixture("host");
    let spec = format!("trace:{hb}");
    let (rc, out, err) = arbor(&[
        "sim",
        "--topology-from",
        &host,
        "-s",
        "arbor:stock",
        "-s",
        "arbor:default",
        "-w",
        &spec,
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("Replayed, causally"), "{out}");
    assert!(out.contains("replayed 41 threads of 41 processes"), "{out}");
    assert!(out.contains("recorded_time_s"), "{out}");
    let (rc, out, err) = arbor(&["sim", "trace-info", &hb]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("recorded on 'vm' (x86_64"), "{out}");
    assert!(out.contains("| hackbench | user | 1 |"), "{out}");
    assert!(out.contains("what the recorder ran"), "{out}");
    assert!(out.contains("dropped:"), "{out}");
    // WF_SYNC: from the call chains where the file has them, else said
    let ps = trace_fixture("pipe-sync.data");
    let (rc, out, err) = arbor(&["sim", "trace-info", &ps]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.contains("102 dependency wake-ups (102 sync: WF_SYNC from the kernel call chains"),
        "{out}"
    );
    let (rc, out, err) = arbor(&["sim", "trace-info", &hb]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("sync: unknown, replayed as not sync"), "{out}");
    // bad input: one line, exit 2
    let bad_key = format!("trace:{hb},comm=nosuch");
    let bad_ks = format!("trace:{ps},kallsyms=/etc/hostname");
    for (args, want) in [
        (vec!["sim", "-w", "trace:"], "give a perf.data file"),
        (
            vec!["sim", "-w", "trace:/nonexistent.data"],
            "/nonexistent.data",
        ),
        (vec!["sim", "-w", "trace:/dev/null"], "not a regular file"),
        (
            vec!["sim", "-w", bad_key.as_str()],
            "no process of that name",
        ),
        (
            vec!["sim", "-w", bad_ks.as_str()],
            "kallsyms /etc/hostname: line 1",
        ),
        (
            vec!["sim", "trace-info", "/etc/hostname"],
            "not a readable perf.data",
        ),
        (
            vec!["sim", "reproduce", "steal", "--traces", "/nonexistent/dir"],
            "trace(s) missing",
        ),
    ] {
        let (rc, _, err) = arbor(&args);
        assert_eq!(rc, 2, "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// A too-large input is refused before it is read, under a memory limit
/// that reading it would break (`ulimit -v`, 512 MiB), and a device is
/// refused at once (`-w rt-app:/dev/zero` read for ever before).
#[test]
fn too_large_inputs_are_refused_under_a_memory_limit() {
    let d = tmpdir("large");
    std::fs::create_dir_all(&d).unwrap();
    // over 16 MiB of rt-app tasks: 500,000 of them
    let big = d.join("big.json");
    let mut s = String::from(r#"{"tasks": {"#);
    for i in 0..500_000 {
        s.push_str(&format!(r#""t{i}": {{"run": 1000, "sleep": 1000}},"#));
    }
    s.push_str(r#""last": {"run": 1}}}"#);
    assert!(s.len() > 16 << 20);
    std::fs::write(&big, &s).unwrap();
    let bin = env!("CARGO_BIN_EXE_arbor");
    for (w, want) in [
        (
            format!("rt-app:{}", big.display()),
            "larger than the 16 MiB accepted",
        ),
        ("rt-app:/dev/zero".to_string(), "not a regular file"),
        ("trace:/dev/zero".to_string(), "not a regular file"),
    ] {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v 524288; exec '{bin}' sim -w '{w}'"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{w}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{w}: {err}");
        assert!(err.contains(want), "{w}: {err}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `arbor sim verdict` on the summaries of a committed run on three
/// development machines (tests/fixtures/default-vs-peers-3): the README's
/// count; `--require` below the bar exits 1 with one line; bad input is one
/// line and exit 2.
#[test]
fn verdict_of_the_committed_run_and_its_bar() {
    let base = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/default-vs-peers-3"
    );
    let dirs: Vec<String> = ["x86-12", "xeon-88", "power11"]
        .iter()
        .map(|m| format!("{base}/{m}"))
        .collect();
    let with = |extra: &[&str]| {
        let mut a = vec!["sim", "verdict"];
        a.extend_from_slice(extra);
        a.extend(dirs.iter().map(|s| s.as_str()));
        arbor(&a)
    };
    let (rc, out, err) = with(&[]);
    assert_eq!(rc, 0, "{err}");
    // the same rule as a fresh run: the counts of decided cells, and the
    // undecided ones apart (a folder gets no more runs)
    let tail: Vec<&str> = out.trim_end().lines().rev().take(3).collect();
    assert_eq!(tail[2], "Overall, 18 cells on 3 machine(s):", "{out}");
    assert!(tail[1].starts_with("vs best peer: "), "{out}");
    assert!(tail[0].starts_with("vs arbor:stock: "), "{out}");
    assert!(
        tail[0].contains(", 0 worse; "),
        "a deterministic -0.3% is not worse: {out}"
    );
    assert!(
        out.starts_with("Per cell (machine x workload"),
        "the rule first: {out}"
    );
    assert_eq!(
        out.matches("| machine | workload | metric | default |")
            .count(),
        1,
        "one table: {out}"
    );
    for m in ["x86-12", "xeon-88", "power11"] {
        assert!(
            out.contains(&format!("\n{base}/{m}: vs best peer: ")),
            "{out}"
        );
    }
    for req in ["80", "30"] {
        // under a quarter of the decided cells pass, and 61% are undecided
        let (rc, _, err) = with(&["--require", req]);
        assert_eq!(rc, 1, "--require {req}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains("below the bar") && err.contains("undecided"),
            "{err}"
        );
    }
    // the candidate as its own baseline is refused
    let (rc, _, err) = with(&["--baseline", "arbor:default"]);
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("both arbor:default"), "{err}");

    let d = tmpdir("verdict-bad");
    std::fs::create_dir_all(d.join("empty")).unwrap();
    std::fs::create_dir_all(d.join("bad")).unwrap();
    std::fs::write(d.join("bad/results.json"), "{\"meta\": [1,").unwrap();
    let p = |s: &str| d.join(s).display().to_string();
    let (x86, bad, empty, none) = (dirs[0].clone(), p("bad"), p("empty"), p("none"));
    for (args, want) in [
        (vec![none.as_str()], "no such directory"),
        (vec![empty.as_str()], "results.json"),
        (
            vec![x86.as_str(), bad.as_str()],
            "is not an arbor results file",
        ),
        (
            vec!["--candidate", "arbor:seeds", x86.as_str()],
            "the candidate arbor:seeds is not in this run",
        ),
        (
            vec!["--baseline", "eevdf", x86.as_str()],
            "the baseline eevdf is not in this run",
        ),
        (vec!["--require", "120", x86.as_str()], "--require 120"),
    ] {
        let mut a = vec!["sim", "verdict"];
        a.extend(args.iter().copied());
        let (rc, out, err) = arbor(&a);
        assert_eq!(rc, 2, "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(out.is_empty(), "nothing printed before the error: {out}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A run with arbor:default, arbor:stock and a peer ends its report with
/// the verdict, the same as `arbor sim verdict` prints from its
/// results.json; a run without a peer has none.
#[test]
fn report_ends_with_the_verdict_when_a_peer_ran() {
    let d = tmpdir("verdict-report");
    let dir = d.display().to_string();
    let run = |extra: &[&str]| {
        let mut a = vec![
            "sim",
            "-t",
            "2s2c2t",
            "-s",
            "arbor:stock",
            "-s",
            "arbor:default",
        ];
        a.extend_from_slice(extra);
        a.extend(["-w", "hackbench:g=1,l=50", "-r", "2", "--no-charts"]);
        arbor(&a)
    };
    let (rc, out, err) = run(&["-s", "bpfland", "--out", &dir]);
    assert_eq!(rc, 0, "{err}");
    let section = out
        .split("### Verdict: arbor:default against the best peer and arbor:stock")
        .nth(1)
        .unwrap_or_else(|| panic!("no verdict section: {out}"));
    assert!(
        section.contains("| hackbench:g=1,l=50 | time_s |"),
        "{section}"
    );
    assert!(section.contains("| bpfland "), "{section}");
    let md = std::fs::read_to_string(d.join("report.md")).unwrap();
    assert!(
        md.contains(section.trim()),
        "report.md has the same section"
    );
    let (rc, again, err) = arbor(&["sim", "verdict", &dir]);
    assert_eq!(rc, 0, "{err}");
    let table = |s: &str| {
        s.lines()
            .filter(|l| l.starts_with('|'))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(table(section), table(&again));
    // the same from summary.json alone
    std::fs::remove_file(d.join("results.json")).unwrap();
    let (rc, from_summary, err) = arbor(&["sim", "verdict", &dir]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(from_summary, again);
    // --brief: the headline table, the verdict's table and its count,
    // nothing else
    let (rc, brief, err) = run(&["-s", "bpfland", "--brief"]);
    assert_eq!(rc, 0, "{err}");
    let lines: Vec<&str> = brief.trim_end().lines().collect();
    assert_eq!(lines.len(), 10, "{brief}");
    assert!(
        lines[0].starts_with("| workload | metric | arbor:stock | arbor:default | bpfland |"),
        "{brief}"
    );
    assert!(
        lines[2].starts_with("| `hackbench:g=1,l=50` | time_s"),
        "{brief}"
    );
    assert_eq!(lines[4..7], table(section)[..], "{brief}");
    assert!(lines[8].starts_with("vs best peer: "), "{brief}");
    let counts: Vec<&str> = section.trim_end().lines().rev().take(2).collect();
    assert_eq!(lines[8..], [counts[1], counts[0]], "{brief}");
    let (rc, brief, err) = run(&["--brief"]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        brief.trim_end().ends_with(
            "`~` marks the others. A change without an interval had fewer than 2 runs on one side."
        ),
        "{brief}"
    );
    let (rc, out, err) = run(&[]);
    assert_eq!(rc, 0, "{err}");
    assert!(!out.contains("### Verdict"), "no peer, no verdict: {out}");
    let _ = std::fs::remove_dir_all(&d);
}

/// A fresh verdict from nothing: one machine, one short workload, the
/// candidate, the baseline and one peer, a small --max-reps: it prints the
/// rule, the table and the counts, writes results.json with the command
/// and summary.json with the decisions, and `arbor sim verdict DIR` reads
/// the same table back. The machines of random:N@SEED are written out as
/// snapshots that `arbor sim --topology-from` runs.
#[test]
fn a_fresh_verdict_runs_decides_and_writes_its_results() {
    let d = tmpdir("verdict-run");
    let out = d.join("out").display().to_string();
    let args = [
        "sim",
        "verdict",
        "-t",
        "2s2c2t",
        "-w",
        "hackbench:g=1,l=50",
        "-p",
        "bpfland",
        "-r",
        "2",
        "--max-reps",
        "4",
        "--jobs",
        "2",
        "--out",
        &out,
    ];
    let (rc, text, err) = arbor(&args);
    assert_eq!(rc, 0, "{err}");
    assert!(text.contains("Welch's 95% interval"), "the rule: {text}");
    assert!(text.contains("| hackbench:g=1,l=50 | time_s |"), "{text}");
    assert!(text.contains("Overall, 1 cells on 1 machine(s):"), "{text}");
    assert!(
        err.contains("[1/1] 2s2c2t hackbench:g=1,l=50: vs best peer "),
        "one line per cell off a terminal: {err}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/results.json")).unwrap())
            .unwrap();
    let cmd = r["meta"]["command"].as_str().unwrap();
    assert!(
        cmd.starts_with("arbor sim verdict -t 2s2c2t") && !cmd.contains("--out"),
        "{cmd}"
    );
    let runs = r["runs"].as_array().unwrap();
    let cell = &r["decisions"][0];
    let used = cell["candidate"]["runs"].as_u64().unwrap();
    assert!((2..=4).contains(&used), "{cell}");
    let cand_runs = runs
        .iter()
        .filter(|x| x["scheduler"] == "arbor:default")
        .count() as u64;
    assert_eq!(cand_runs, used);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(s["command"].as_str(), Some(cmd));
    assert_eq!(&s["decisions"][0], cell);
    assert!(
        s.get("runs").is_none(),
        "the summary keeps the decisions, not the runs"
    );
    let (rc, again, err) = arbor(&["sim", "verdict", &out]);
    assert_eq!(rc, 0, "{err}");
    let rows = |t: &str| {
        t.lines()
            .filter(|l| l.starts_with("| hackbench"))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(rows(&again), rows(&text));
    // bad input: one line, exit 2, nothing run
    for (extra, want) in [
        (vec!["--machines", "random:2"], "random:N@SEED"),
        (vec!["-p", "arbor:stock"], "not peers"),
        (
            vec!["-r", "5", "--max-reps", "3"],
            "--max-reps 3 is below --reps 5",
        ),
        (vec!["-t", "2s2c2t"], "given twice"),
        (vec!["-w", "nope"], "nope"),
    ] {
        let mut a: Vec<&str> = vec!["sim", "verdict", "-t", "2s2c2t", "--out", &out];
        a.extend(extra.iter().copied());
        let (rc, _, err) = arbor(&a);
        assert_eq!(rc, 2, "{extra:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
    }
    let snap = d.join("snap");
    let (rc, shapes, err) = arbor(&[
        "sim",
        "snapshot",
        "--machines",
        "random:2@3",
        &snap.display().to_string(),
    ]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(shapes.lines().count(), 2, "{shapes}");
    assert!(shapes.starts_with("random-3-0: "), "{shapes}");
    let m1 = snap.join("random-3-1").display().to_string();
    let a = [
        "sim",
        "-w",
        "hackbench:g=1,l=20",
        "-s",
        "arbor:stock",
        "--brief",
    ];
    let (rc, from_snap, err) = arbor(&[&a[..], &["--topology-from", &m1]].concat());
    assert_eq!(rc, 0, "{err}");
    let (rc, from_t, err) = arbor(&[&a[..], &["-t", "random-3-1"]].concat());
    assert_eq!(rc, 0, "{err}");
    assert_eq!(from_snap, from_t, "the snapshot is the same machine");
    let _ = std::fs::remove_dir_all(&d);
}

/// `arbor sim fuzz --cgroups`: every case runs with a cgroup or cgroup
/// events (scx_arbor's cgroup callbacks among them), counted in
/// results.json and the report; a few short cases, in seconds.
#[test]
fn fuzz_with_cgroups_runs_cases_in_groups() {
    let d = tmpdir("fuzz-cgroups");
    let out = d.display().to_string();
    let (rc, _, err) = arbor(&[
        "sim",
        "fuzz",
        "--cases",
        "6",
        "--seed",
        "3",
        "--sim-seconds",
        "0.3",
        "--shrink",
        "none",
        "--only",
        "arbor",
        "--cgroups",
        "--out",
        &out,
    ]);
    assert_eq!(rc, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("results.json")).unwrap()).unwrap();
    assert_eq!(v["cases_run"], 6, "{v}");
    assert_eq!(v["cgroup_cases"], 6, "{v}");
    let md = std::fs::read_to_string(d.join("report.md")).unwrap();
    assert!(md.contains("6 case(s) ran in cgroups"), "{md}");
    let _ = std::fs::remove_dir_all(&d);
}
