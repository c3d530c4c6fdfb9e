//! Sharded sweeps as a job array runs them: `arbor sim --shard I/N`,
//! `arbor sim verdict --shard I/N` and `arbor sim fuzz --shard I/N` in four parts, `--shard auto` from a Slurm
//! array task's environment, and `arbor sim merge` giving what one
//! unsharded run writes; a missing or repeated shard, or shards of
//! different commands, refused in one line.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn arbor(args: &[String], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arbor"));
    c.args(args);
    for k in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX",
        "SLURM_ARRAY_TASK_STEP",
        "JOB_COMPLETION_INDEX",
    ] {
        c.env_remove(k);
    }
    c.envs(env.iter().copied());
    common::output(&mut c)
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("arbor-shard-test-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs `cmd` with `--out dir` (and `extra`), expecting exit 0.
fn run(cmd: &str, extra: &[&str], dir: &Path, env: &[(&str, &str)]) -> String {
    let mut a = words(cmd);
    a.extend(extra.iter().map(|s| s.to_string()));
    a.extend(["--out".to_string(), dir.display().to_string()]);
    let (rc, out, err) = arbor(&a, env);
    assert_eq!(rc, 0, "{a:?}: {err}");
    out
}

fn merge(out: &Path, dirs: &[PathBuf]) -> (i32, String, String) {
    let mut a = words("sim merge --no-charts");
    a.push(out.display().to_string());
    a.extend(dirs.iter().map(|d| d.display().to_string()));
    arbor(&a, &[])
}

fn read(d: &Path, f: &str) -> String {
    std::fs::read_to_string(d.join(f)).unwrap_or_else(|e| panic!("{}: {e}", d.join(f).display()))
}

/// Five workloads on a small machine, two schedulers, two runs each: as
/// four shards (one with two workloads), merged, byte for byte what the
/// run unsharded writes; its stdout too.
#[test]
fn four_shards_merged_are_the_unsharded_sweep() {
    let cmd = "sim -t 2s2c2t -s arbor:stock -s arbor:default -r 2 --no-charts \
               -w hackbench:g=1,l=30 -w perf-pipe:l=2000 -w wakeprobe:t=1 \
               -w schbench:r=1 -w perf-messaging:g=1,l=20";
    let whole = tmpdir("whole");
    let whole_out = run(cmd, &[], &whole, &[]);
    let shards: Vec<PathBuf> = (0..4).map(|i| tmpdir(&format!("part{i}"))).collect();
    for (i, d) in shards.iter().enumerate() {
        run(cmd, &["--shard", &format!("{i}/4")], d, &[]);
    }
    // a shard's results: its own cells only, and which part it is
    let v: serde_json::Value = serde_json::from_str(&read(&shards[0], "results.json")).unwrap();
    let wl: Vec<&str> = v["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["workload"].as_str().unwrap())
        .collect();
    assert_eq!(wl, ["hackbench:g=1,l=30", "perf-messaging:g=1,l=20"]);
    assert_eq!(v["meta"]["shard"]["index"], 0);
    assert_eq!(v["meta"]["shard"]["count"], 4);
    assert!(v["meta"]["command"]
        .as_str()
        .unwrap()
        .contains("--shard 0/4"));
    assert!(!v["meta"]["shard"]["command"]
        .as_str()
        .unwrap()
        .contains("--shard"));
    // given in any order
    let merged = tmpdir("merged");
    let given = [&shards[2], &shards[0], &shards[3], &shards[1]].map(|d| d.to_path_buf());
    let (rc, out, err) = merge(&merged, &given);
    assert_eq!(rc, 0, "{err}");
    for f in ["results.json", "summary.json", "report.md", "results.csv"] {
        assert!(
            read(&whole, f) == read(&merged, f),
            "{f} differs from the unsharded run's"
        );
    }
    assert_eq!(out, whole_out);
    let m: serde_json::Value = serde_json::from_str(&read(&merged, "results.json")).unwrap();
    assert!(m["meta"].get("shard").is_none());
    assert_eq!(m["meta"]["command"], v["meta"]["shard"]["command"]);
    let rows = |d: &Path| {
        let v: serde_json::Value = serde_json::from_str(&read(d, "results.json")).unwrap();
        v["raw"].as_array().unwrap().len()
    };
    assert_eq!(rows(&merged), shards.iter().map(|d| rows(d)).sum::<usize>());
    assert!(rows(&shards[3]) > 0);

    // one line naming what is wrong, exit 2
    let refused = |dirs: &[PathBuf], says: &str| {
        let (rc, _, err) = merge(&tmpdir("refused"), dirs);
        assert_eq!(rc, 2, "{err}");
        assert!(
            err.contains(says) && err.trim().lines().count() == 1,
            "{says}: {err}"
        );
    };
    refused(&shards[..3], "missing shard(s) 3 of 4 (given: 0, 1, 2)");
    let twice = [shards.clone(), vec![shards[1].clone()]].concat();
    refused(
        &twice,
        &format!("shard 1/4 given twice: {}", shards[1].display()),
    );
    refused(&[whole.clone()], "not a shard's output");
    // a shard of another sweep: other seeds
    let other = tmpdir("other");
    run(cmd, &["--shard", "3/4", "--seed", "2"], &other, &[]);
    let mixed = [shards[..3].to_vec(), vec![other.clone()]].concat();
    refused(&mixed, "shards of different commands");
    for d in shards.iter().chain([&whole, &merged, &other]) {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// `--shard auto` as a Slurm array task sees it (--array=1-3: ids from
/// 1), and a Kubernetes Indexed Job's index with its count; bad values
/// and no array at all are one line and exit 2.
#[test]
fn auto_shards_from_the_array_environment() {
    let cmd = "sim -t 2s2c2t -s arbor:stock --no-charts -w perf-pipe:l=500 \
               -w wakeprobe:t=1 -w hackbench:g=1,l=10";
    let whole = tmpdir("auto-whole");
    run(cmd, &[], &whole, &[]);
    let mut dirs = Vec::new();
    for id in ["1", "2", "3"] {
        let d = tmpdir(&format!("auto{id}"));
        let env = [
            ("SLURM_ARRAY_TASK_ID", id),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        run(cmd, &["--shard", "auto"], &d, &env);
        dirs.push(d);
    }
    let merged = tmpdir("auto-merged");
    let (rc, _, err) = merge(&merged, &dirs);
    assert_eq!(rc, 0, "{err}");
    assert!(read(&whole, "results.json") == read(&merged, "results.json"));
    // a Kubernetes Indexed Job: index 4 of 5 has no workload (an empty part)
    let k = tmpdir("k8s");
    run(
        cmd,
        &["--shard", "auto/5"],
        &k,
        &[("JOB_COMPLETION_INDEX", "4")],
    );
    let v: serde_json::Value = serde_json::from_str(&read(&k, "results.json")).unwrap();
    assert_eq!(v["meta"]["shard"]["index"], 4);
    assert_eq!(v["raw"].as_array().unwrap().len(), 0);
    for (shard, env, says) in [
        ("auto", vec![], "neither SLURM_ARRAY_TASK_ID"),
        (
            "auto",
            vec![("JOB_COMPLETION_INDEX", "1")],
            "--shard auto/N",
        ),
        ("4/4", vec![], "below N (4)"),
        ("1/0", vec![], "N is 0"),
        ("a/b", vec![], "not a whole number"),
    ] {
        let mut a = words(cmd);
        a.extend([
            "--shard".into(),
            shard.into(),
            "--out".into(),
            "/nonexistent/x".into(),
        ]);
        let (rc, _, err) = arbor(&a, &env);
        assert_eq!(rc, 2, "{shard}: {err}");
        assert!(
            err.contains(says) && err.trim().lines().count() == 1,
            "{shard}: {err}"
        );
    }
    let mut a = words(cmd);
    a.extend(["--shard".into(), "0/2".into()]);
    let (rc, _, err) = arbor(&a, &[]);
    assert!(rc == 2 && err.contains("--shard needs --out"), "{err}");
    for d in dirs.iter().chain([&whole, &merged, &k]) {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The fuzzer's cases in four shards, merged: the unsharded search's
/// results and report but for its CPU and wall times.
#[test]
fn fuzz_shards_merged_are_the_unsharded_search() {
    let cmd = "sim fuzz --cases 8 --seed 3 --sim-seconds 0.3 --shrink none";
    let whole = tmpdir("fuzz-whole");
    run(cmd, &[], &whole, &[]);
    let shards: Vec<PathBuf> = (0..4).map(|i| tmpdir(&format!("fuzz{i}"))).collect();
    for (i, d) in shards.iter().enumerate() {
        run(cmd, &["--shard", &format!("{i}/4")], d, &[]);
    }
    let merged = tmpdir("fuzz-merged");
    let (rc, _, err) = merge(&merged, &shards);
    assert_eq!(rc, 0, "{err}");
    let untimed = |d: &Path, f: &str| -> String {
        read(d, f)
            .lines()
            .filter(|l| {
                !l.contains("cpu_seconds") && !l.contains("CPU-hours") && !l.contains("cpu_hours")
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    for f in ["results.json", "summary.json", "report.md"] {
        assert_eq!(untimed(&whole, f), untimed(&merged, f), "{f}");
    }
    let v: serde_json::Value = serde_json::from_str(&read(&merged, "results.json")).unwrap();
    assert_eq!(v["cases_run"], 8);
    for d in shards.iter().chain([&whole, &merged]) {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A verdict of six cells (two machines x three workloads, a peer, batches
/// up to --max-reps) in four shards (two of two cells, two of one, cells
/// of both machines in one shard), merged: what the unsharded verdict
/// prints and writes, byte for byte but for results.json's wall_s and
/// cpu_s (timing), and its --require bar's exit code and line, which the
/// parts leave to the merge.
#[test]
fn verdict_shards_merged_are_the_unsharded_verdict() {
    let cmd = "sim verdict -t 2s2c2t -t 1s2c2t -w hackbench:g=1,l=30 \
               -w wakeprobe:t=1 -w schbench:r=1 -p cosmos -r 2 --max-reps 3 --require 100";
    let whole = tmpdir("verdict-whole");
    let mut a = words(cmd);
    a.extend(["--out".to_string(), whole.display().to_string()]);
    let (whole_rc, whole_out, whole_err) = arbor(&a, &[]);
    let bar = |err: &str| -> Option<String> {
        err.lines()
            .find(|l| l.contains("below the bar"))
            .map(String::from)
    };
    assert!(
        whole_rc == 0 || (whole_rc == 1 && bar(&whole_err).is_some()),
        "{whole_err}"
    );
    let shards: Vec<PathBuf> = (0..4).map(|i| tmpdir(&format!("verdict{i}"))).collect();
    for (i, d) in shards.iter().enumerate() {
        run(cmd, &["--shard", &format!("{i}/4")], d, &[]);
    }
    // shard 1 has cells 1 and 5: machine by machine, then workload
    let v: serde_json::Value = serde_json::from_str(&read(&shards[1], "results.json")).unwrap();
    let cells: Vec<(&str, &str)> = v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["machine"].as_str().unwrap(),
                c["workload"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        cells,
        [("2s2c2t", "wakeprobe:t=1"), ("1s2c2t", "schbench:r=1")]
    );
    assert_eq!(v["meta"]["shard"]["tool"], "verdict");
    assert_eq!(v["meta"]["shard"]["cells"], 6);
    let merged = tmpdir("verdict-merged");
    let given = [&shards[3], &shards[1], &shards[0], &shards[2]].map(|d| d.to_path_buf());
    let (rc, out, err) = merge(&merged, &given);
    assert_eq!((rc, bar(&err)), (whole_rc, bar(&whole_err)), "{err}");
    assert_eq!(out, whole_out);
    for f in ["report.md", "summary.json"] {
        assert!(read(&whole, f) == read(&merged, f), "{f} differs");
    }
    let timed = |l: &&str| l.starts_with("  \"wall_s\": ") || l.starts_with("  \"cpu_s\": ");
    let (w, m) = (read(&whole, "results.json"), read(&merged, "results.json"));
    assert_eq!(w.lines().filter(timed).count(), 2);
    let untimed = |s: &str| {
        s.lines()
            .filter(|l| !timed(l))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(untimed(&w) == untimed(&m), "results.json differs");
    // a batch past the first is in the merge: the cells were adaptive
    let r: serde_json::Value = serde_json::from_str(&m).unwrap();
    assert_eq!(r["decisions"].as_array().unwrap().len(), 6);
    assert!(
        r["runs"].as_array().unwrap().len() > 6 * 3 * 2,
        "no cell got a batch"
    );
    assert!(r["meta"].get("shard").is_none());
    for (extra, says) in [
        (vec!["--shard", "0/2"], "--shard needs --out"),
        (vec!["--shard", "0/2", "--out", "x", "y"], "judging DIRs"),
    ] {
        let mut a = words("sim verdict");
        a.extend(extra.iter().map(|s| s.to_string()));
        let (rc, _, err) = arbor(&a, &[]);
        assert!(
            rc == 2 && err.contains(says) && err.trim().lines().count() == 1,
            "{extra:?}: {err}"
        );
    }
    for d in shards.iter().chain([&whole, &merged]) {
        let _ = std::fs::remove_dir_all(d);
    }
}
