//! The command line as a user meets it on any machine: listing features,
//! rejecting bad input with one line and a non-zero exit, and refusing to
//! start on a kernel without sched_ext.

use std::process::Command;

/// The binary under test: this build's, or $SCX_ARBOR_TEST_BIN (to run
/// these tests against another build, e.g. in a VM with sched_ext).
fn bin() -> String {
    std::env::var("SCX_ARBOR_TEST_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_scx_arbor").into())
}

fn arbor(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .args(args)
        .output()
        .expect("run scx_arbor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// scx_arbor with `args` exits non-zero with one line on stderr: that line.
fn refused_in_one_line(args: &[&str]) -> String {
    let (rc, _, err) = arbor(args);
    assert_ne!(rc, 0);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    err
}

#[test]
fn list_features_prints_each_with_default_and_meaning() {
    let (rc, out, _) = arbor(&["--list-features"]);
    assert_eq!(rc, 0);
    for name in [
        "WA_IDLE",
        "WA_WEIGHT",
        "WA_BIAS",
        "WAKE_WIDE",
        "SIS_UTIL",
        "NEWIDLE",
    ] {
        let line = out
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} missing:\n{out}"));
        assert!(line.contains(" on ") || line.contains(" off "), "{line}");
        assert!(line.split_whitespace().count() > 3, "no meaning: {line}");
    }
}

#[test]
fn unknown_feature_is_one_line_naming_it_and_the_valid_names() {
    let err = refused_in_one_line(&["-f", "WA_IDLE", "-f", "NO_BOGUS"]);
    assert!(
        err.contains("NO_BOGUS") && err.contains("SIS_UTIL"),
        "{err}"
    );
}

#[test]
fn out_of_range_tunables_are_rejected() {
    for args in [
        &["--imbalance-pct", "99"][..],
        &["--balance-interval-ms", "0"],
        &["--migration-cost-us", "x"],
        // numbers that used to panic in Duration or wrap
        &["--monitor", "NaN"],
        &["--monitor", "inf"],
        &["--stats", "1e300"],
        &["--run-secs", "-1"],
        &["--run-secs", "0"],
        &["--slice-us", "18446744073709551615"],
    ] {
        let (rc, _, err) = arbor(args);
        assert_ne!(rc, 0, "{args:?} accepted");
        assert!(!err.is_empty());
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        // clap's own errors too are one line
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert_eq!(rc, 2, "{args:?}");
    }
}

/// Runs scx_arbor as uid/gid 65534 (nobody) when we are root, else as us.
fn arbor_unprivileged(args: &[&str]) -> (i32, String) {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new(bin());
    c.args(args);
    if unsafe { libc::geteuid() } == 0 {
        c.uid(65534).gid(65534); // std drops the supplementary groups
    }
    let out = c.output().expect("run scx_arbor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Either branch asserts: without sched_ext, the one line says so and
/// points at `arbor vm`; with it (e.g. in the VM), a user who is not root
/// gets one line saying root is needed. Nothing returns early.
#[test]
fn refuses_to_start_without_sched_ext_or_root() {
    if !std::path::Path::new("/sys/kernel/sched_ext").exists() {
        let err = refused_in_one_line(&["--run-secs", "1"]);
        assert!(
            err.contains("no sched_ext") && err.contains("arbor vm"),
            "{err}"
        );
    } else {
        let (rc, err) = arbor_unprivileged(&["--run-secs", "1"]);
        assert_eq!(rc, 1, "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains("must run as root"), "{err}");
    }
}

#[test]
fn live_feature_switch_checks_names_first_and_needs_a_running_instance() {
    // a bad name is refused before anything is asked of a running instance
    let err = refused_in_one_line(&["--set-features", "NO_STEAL,NO_BOGUS"]);
    assert!(err.contains("NO_BOGUS"), "{err}");
    // with no scx_arbor running: one line (without sched_ext: that it has
    // none; with it: what sched_ext runs instead). Only a running scx_arbor
    // on this very machine makes the question moot.
    let ops = std::fs::read_to_string("/sys/kernel/sched_ext/root/ops").unwrap_or_default();
    if ops.starts_with("arbor") {
        scx_arbor::testing::skip_on_this_host(
            "a scx_arbor runs on this machine: --show-features cannot be refused here",
        );
    } else {
        let (rc, out, err) = arbor(&["--show-features"]);
        assert_ne!(rc, 0);
        assert!(out.is_empty(), "{out}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains("no scx_arbor is running") || err.contains("no sched_ext"),
            "{err}"
        );
    }
}

/// A typo in --stats-json's directory is one line at start, not a lost
/// run: it is checked before anything else, sched_ext included.
#[test]
fn stats_json_directory_is_checked_at_start() {
    let err = refused_in_one_line(&["--stats-json", "/nonexistent-dir/c.json"]);
    assert!(
        err.contains("/nonexistent-dir") && err.contains("does not exist"),
        "{err}"
    );
}

/// scx_arbor with `args` exits 0 and prints JSON: that JSON.
fn json_of(args: &[&str]) -> serde_json::Value {
    let (rc, out, err) = arbor(args);
    assert_eq!(rc, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

/// `--list-features --json` is the feature table of
/// features.rs, in bit order, with each profile's setting.
#[test]
fn list_features_json_is_the_rust_table() {
    use scx_arbor::features::{profile_mask, FEATURES, PROFILES};
    let v = json_of(&["--list-features", "--json"]);
    let got = v["features"].as_array().expect("features: an array");
    assert_eq!(got.len(), FEATURES.len());
    let mut want: Vec<_> = FEATURES.iter().collect();
    want.sort_by_key(|f| f.bit);
    for (g, f) in got.iter().zip(want) {
        assert_eq!(g["name"], f.name);
        assert_eq!(g["bit"], f.bit);
        assert_eq!(g["meaning"], f.help);
        assert_eq!(g["seed"].as_str(), f.seed, "{}", f.name);
        for p in PROFILES {
            let on = profile_mask(p).unwrap() & (1 << f.bit) != 0;
            assert_eq!(g["profiles"][*p], on, "{} in {p}", f.name);
        }
    }
    let profiles: Vec<&str> = v["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(profiles, PROFILES);
    assert_eq!(v["not_in_default"][0]["name"], "STEAL");
}

/// `--list-counters --json` is stats.rs's NAMES, in
/// `enum arbor_stat` order, each with its index, kind and description.
#[test]
fn list_counters_json_is_the_rust_table() {
    use scx_arbor::stats::NAMES;
    let v = json_of(&["--list-counters", "--json"]);
    let got = v["counters"].as_array().expect("counters: an array");
    let names: Vec<&str> = got.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, NAMES);
    for (i, c) in got.iter().enumerate() {
        assert_eq!(c["index"], i);
        let kind = c["kind"].as_str().unwrap();
        let want = if NAMES[i].ends_with("_ns") {
            "ns-sum"
        } else if NAMES[i].starts_with("wlat_") {
            "hist-bucket"
        } else {
            "count"
        };
        assert_eq!(kind, want, "{}", NAMES[i]);
        assert!(
            c["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{} has no description",
            NAMES[i]
        );
    }
    // the text form lists the same names, one per line, in order
    let (rc, text, _) = arbor(&["--list-counters"]);
    assert_eq!(rc, 0);
    let listed: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().nth(1).unwrap_or(""))
        .collect();
    assert_eq!(listed, NAMES);
}

#[test]
fn json_alone_is_a_one_line_error() {
    let err = refused_in_one_line(&["--json"]);
    assert!(err.contains("--list-features"), "{err}");
}

/// Every argument is checked before the kernel: on any machine (sched_ext
/// or not) a bad --cpu-capacity list or a --stats-json that is a directory
/// is the one line the user gets, not the kernel's.
#[test]
fn arguments_are_checked_before_the_kernel() {
    let d = std::env::temp_dir().join(format!("scx-arbor-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let dir = d.display().to_string();
    for (args, want) in [
        (
            vec!["--cpu-capacity", "0-1:0"],
            "capacity '0' is not a number in 1..=1024",
        ),
        (
            vec!["--cpu-capacity", "0:1025"],
            "capacity '1025' is not a number in 1..=1024",
        ),
        (
            vec!["--cpu-capacity", "0:512,0:600"],
            "CPU 0 is given twice",
        ),
        (
            vec!["--cpu-capacity", "100000:512"],
            "CPU 100000 does not exist",
        ),
        (vec!["--stats-json", dir.as_str()], "is a directory"),
        (vec!["--run-secs", "-1"], "is not a number of seconds"),
    ] {
        let (rc, _, err) = arbor(&args);
        assert_ne!(rc, 0, "{args:?}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("sched_ext"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
