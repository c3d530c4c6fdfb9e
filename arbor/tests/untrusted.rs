//! Inputs from other machines that once hung, misled or wasted a long run
//! of `arbor sim`: each is now one line on stderr and a non-zero exit,
//! before any work. The fuzz corpus of the results.json reader (fuzz/
//! corpus/results) is replayed through `arbor sim verdict` here too.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn arbor(args: &[&str]) -> (i32, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run arbor");
    // a reader that blocks (a FIFO) fails the test instead of hanging it
    let t = Instant::now();
    loop {
        if let Some(st) = c.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(c.stderr.as_mut().unwrap(), &mut err).unwrap();
            return (st.code().unwrap_or(-1), err);
        }
        if t.elapsed() > Duration::from_secs(60) {
            let _ = c.kill();
            panic!("arbor {args:?} ran past 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("arbor-untrusted-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn one_line_failure(args: &[&str], want: &str) {
    let (rc, err) = arbor(args);
    assert_ne!(rc, 0, "{args:?}: {err}");
    assert_ne!(rc, 101, "{args:?} panicked: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: {err}");
}

fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().unwrap();
    assert!(st.success());
}

#[test]
fn fuzz_checks_its_output_before_running_cases() {
    let d = tmpdir("fuzz-out");
    let f = d.join("a-file");
    std::fs::write(&f, "x").unwrap();
    let t = Instant::now();
    // a million cases would run for hours before the old check
    one_line_failure(
        &[
            "sim",
            "fuzz",
            "--cases",
            "1000000",
            "--out",
            f.to_str().unwrap(),
        ],
        "--out",
    );
    assert!(t.elapsed() < Duration::from_secs(30));
}

#[test]
fn verdict_refuses_fifos_devices_and_a_run_given_twice() {
    let fifo = tmpdir("verdict-fifo");
    mkfifo(&fifo.join("results.json"));
    one_line_failure(
        &["sim", "verdict", fifo.to_str().unwrap()],
        "not a regular file",
    );
    let zero = tmpdir("verdict-zero");
    std::os::unix::fs::symlink("/dev/zero", zero.join("results.json")).unwrap();
    one_line_failure(
        &["sim", "verdict", zero.to_str().unwrap()],
        "not a regular file",
    );
    let run =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/default-vs-peers-3/x86-12");
    let again = format!("{}/../x86-12", run.display());
    one_line_failure(
        &["sim", "verdict", run.to_str().unwrap(), &again],
        "given twice",
    );
}

#[test]
fn trace_info_fails_on_what_it_cannot_read() {
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim/tests/fixtures/trace");
    let d = tmpdir("trace-info");
    let f = d.join("p.data");
    std::fs::copy(trace.join("pipe-sync.data"), &f).unwrap();
    std::fs::write(d.join("p.data.kallsyms"), "garbage\n").unwrap();
    one_line_failure(&["sim", "trace-info", f.to_str().unwrap()], "kallsyms");
    one_line_failure(
        &[
            "sim",
            "trace-info",
            &format!("{},frobnicate=1", f.display()),
        ],
        "unknown key 'frobnicate'",
    );
}

/// Every committed corpus and crash file of the results target: read by
/// `arbor sim verdict` as DIR/results.json, a result or one line, never a
/// panic.
#[test]
fn the_results_corpus_replays_through_verdict() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut files = Vec::new();
    for sub in ["corpus/results", "crashes/results"] {
        if let Ok(rd) = std::fs::read_dir(root.join(sub)) {
            files.extend(rd.map(|e| e.unwrap().path()));
        }
    }
    assert!(!files.is_empty(), "no corpus under {}", root.display());
    let d = tmpdir("results-corpus");
    for f in files {
        std::fs::copy(&f, d.join("results.json")).unwrap();
        // a regular file: no reader can block on it, so no watch is needed
        let o = Command::new(env!("CARGO_BIN_EXE_arbor"))
            .args(["sim", "verdict", d.to_str().unwrap()])
            .output()
            .unwrap();
        let (rc, err) = (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stderr),
        );
        assert_ne!(rc, 101, "{}: {err}", f.display());
        if rc != 0 {
            assert_eq!(err.trim().lines().count(), 1, "{}: {err}", f.display());
        }
    }
}
