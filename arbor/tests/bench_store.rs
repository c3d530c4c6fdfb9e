//! `arbor bench` never loses what it measured: each result row is on disk
//! the moment the guest prints it; a run that is killed keeps DIR.partial
//! with a report of what it finished, `render` rebuilds it, and the next
//! run does not delete it. A fake VM runner (ARBOR_VM_RUNNER) stands in for
//! the guest and prints rows as `arbor bench guest` does.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const W: &str = "hackbench:g=1,l=10";

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("arbor-bst-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn row(rep: u32, s: &str, m: &str, v: f64) -> String {
    format!(
        "@R {{\"rep\":{rep},\"scheduler\":\"{s}\",\"workload\":\"{W}\",\"metric\":\"{m}\",\"value\":{v}}}"
    )
}

/// A fake vng printing `lines`, then exiting 0 (`hang`: sleeping instead).
fn fake_runner(dir: &Path, lines: &[String], hang: bool) -> PathBuf {
    let p = dir.join("fake-vng");
    let mut sh = String::from("#!/bin/sh\n");
    for l in lines {
        sh += &format!("printf '%s\\n' '{l}'\n");
    }
    sh += if hang {
        "while :; do sleep 1; done\n"
    } else {
        "exit 0\n"
    };
    std::fs::write(&p, sh).unwrap();
    Command::new("chmod").arg("+x").arg(&p).status().unwrap();
    p
}

fn bench(dir: &Path, runner: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arbor"));
    c.env("ARBOR_VM_RUNNER", runner)
        .env("SCX_ARBOR_BIN", "/bin/true")
        .args(["bench", "-t", "1s2c2t", "-s", "eevdf", "-s", "arbor:stock"])
        .args(["-w", W, "-r", "1", "--no-charts", "-o"])
        .arg(dir.join("run"))
        .args(extra)
        .stdin(Stdio::null());
    c
}

/// `arbor bench guest PLAN`, run to its end.
fn bench_guest(plan: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["bench", "guest"])
        .arg(plan)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_killed_run_keeps_its_rows_and_renders_them() {
    let dir = tempdir("kill");
    let lines = vec![
        "@P guest: fake".to_string(),
        row(1, "eevdf", "ejected", 0.0),
        row(1, "eevdf", "time_s", 1.5),
        "@P done rep 1 eevdf hackbench".to_string(),
    ];
    let runner = fake_runner(&dir, &lines, true);
    let child = bench(&dir, &runner, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let rows = dir.join("run.partial/rows.jsonl");
    let t = Instant::now();
    loop {
        let n = std::fs::read_to_string(&rows)
            .map(|s| s.lines().count())
            .unwrap_or(0);
        if n == 2 {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "rows never reached disk"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: a signal to our own child
    unsafe { libc_kill(child.id() as i32, 15) };
    let out = child.wait_with_output().unwrap();
    let all = text(&out);
    assert_ne!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("2 result rows kept in"), "{all}");
    let report = std::fs::read_to_string(dir.join("run.partial/report.md")).unwrap();
    assert!(report.contains("**PARTIAL"), "{report}");
    assert!(report.contains("1.500"), "{report}");
    // the next run neither deletes nor overwrites it
    let o = bench(&dir, &runner, &[]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("holds an interrupted run"),
        "{}",
        text(&o)
    );
    assert!(rows.exists());
    // render rebuilds its report from the rows
    let o = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["bench", "render"])
        .arg(dir.join("run.partial"))
        .arg("--no-charts")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("PARTIAL"), "{}", text(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_finished_run_is_renamed_and_a_missing_cell_fails_it() {
    let dir = tempdir("done");
    let mut lines = vec![
        row(1, "eevdf", "ejected", 0.0),
        row(1, "eevdf", "time_s", 1.5),
        row(1, "arbor:stock", "ejected", 1.0),
        row(1, "arbor:stock", "time_s", 1.2),
    ];
    lines.push("@P finished".into());
    let runner = fake_runner(&dir, &lines, false);
    let o = bench(&dir, &runner, &[]).output().unwrap();
    // the ejection makes the cell a failure: exit 1, report kept
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("no result (failed or ejected) for"));
    let j = std::fs::read_to_string(dir.join("run/results.json")).unwrap();
    assert!(j.contains("\"higher_is_better\": false"), "{j}");
    assert!(!dir.join("run.partial").exists());
    // the same --out again: refused, then replaced with --force
    let o = bench(&dir, &runner, &[]).output().unwrap();
    assert!(
        text(&o).contains("exists; give another --out"),
        "{}",
        text(&o)
    );
    lines[2] = row(1, "arbor:stock", "ejected", 0.0);
    let runner = fake_runner(&dir, &lines, false);
    let o = bench(&dir, &runner, &["--force"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // a guest that stops without finishing fails the run and keeps it
    let runner = fake_runner(&dir, &lines[..2], false);
    let o = bench(&dir, &runner, &["--force"]).output().unwrap();
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    assert!(dir.join("run.partial/rows.jsonl").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn host_mode_refuses_in_one_line_without_sched_ext_or_root() {
    // -t has no meaning on the host, anywhere
    let o = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["bench", "--host", "-t", "1s2c2t", "--quick"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("drop -t"));
    if Path::new("/sys/kernel/sched_ext").exists() && unsafe { libc_geteuid() } == 0 {
        scx_arbor::testing::skip_on_this_host(
            "this host runs sched_ext as root: --host would run, not refuse (run this test as a user)",
        );
        return;
    }
    let o = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["bench", "--host", "--quick"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("--host"), "{e}");
}

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}

/// The guest side refuses in one line, before touching anything, where it
/// cannot run: not root, or no sched_ext for a plan that loads one.
#[test]
fn the_guest_side_refuses_in_one_line_where_it_cannot_run() {
    if Path::new("/sys/kernel/sched_ext").exists() && unsafe { libc_geteuid() } == 0 {
        scx_arbor::testing::skip_on_this_host(
            "this host runs sched_ext as root: the guest side would run, not refuse (run this test as a user)",
        );
        return;
    }
    let dir = tempdir("guest");
    let plan = dir.join("plan.json");
    std::fs::write(
        &plan,
        r#"{"reps":1,"scheds":[{"label":"arbor","run":{"type":"scx","bin":"/bin/true","args":[],"ops":"arbor"}}],
            "workloads":[{"label":"idle","kind":{"type":"idle","time":1}}],"wakeprobe":"/nonexistent"}"#,
    )
    .unwrap();
    let o = bench_guest(&plan);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("must run as root") || e.contains("has no sched_ext"),
        "{e}"
    );
    // a malformed plan says so
    std::fs::write(&plan, "{\"reps\": 1").unwrap();
    let o = bench_guest(&plan);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("is not a bench plan"), "{}", text(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--host` on a kernel without sched_ext refuses a plan that loads a
/// sched_ext scheduler in one line naming it, and says that eevdf runs
/// (which need none: recording traces on any Linux machine) would go.
#[test]
fn host_without_sched_ext_refuses_only_sched_ext_plans() {
    if Path::new("/sys/kernel/sched_ext").exists() {
        scx_arbor::testing::skip_on_this_host(
            "this host has sched_ext: the refusal cannot be checked here",
        );
        return;
    }
    let o = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["bench", "--host", "-s", "eevdf", "-s", "arbor:stock"])
        .args(["-w", "hackbench:g=1,l=10", "--force", "--no-charts"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("has no sched_ext, which 'arbor:stock' needs"),
        "{e}"
    );
    assert!(e.contains("only eevdf runs need no sched_ext"), "{e}");
}
