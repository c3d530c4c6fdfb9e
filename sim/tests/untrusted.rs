//! Inputs from other machines that once crashed, hung or misled the
//! readers: each now gets one line (the cases of the issue tracker's
//! untrusted-inputs study, and perf.data files bent at the places a byte
//! flip reached). killed.data: the first 4 KiB of a `perf record -a` that
//! `kill -9` ended on this host (its header's data size is still 0).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use arbor_sim::workload::rtapp::RtApp;
use arbor_sim::workload::trace::{self, info};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/trace")
        .join(name)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("arbor-untrusted-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn write(name: &str, bytes: &[u8]) -> String {
    let p = scratch(name);
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

/// The one-line error of loading `spec` as a `trace:` workload.
fn err(spec: &str) -> String {
    match trace::load(spec) {
        Ok(_) => panic!("'{spec}' was accepted"),
        Err(e) => {
            let s = format!("{e:#}");
            assert!(!s.contains('\n'), "not one line: {s}");
            s
        }
    }
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

#[test]
fn an_unknown_trace_key_is_named() {
    let f = fixture("pipe.data").display().to_string();
    let e = err(&format!("{f},all=1,bogus=2"));
    assert!(e.contains("unknown key 'bogus'"), "{e}");
    // not taken as part of the file's name
    let e = format!(
        "{:#}",
        trace::parse_spec("p.data,frobnicate=1").unwrap_err()
    );
    assert!(e.contains("unknown key 'frobnicate'"), "{e}");
    let e = format!(
        "{:#}",
        info::text(&format!("{f},comm=x,frobnicate=1")).unwrap_err()
    );
    assert!(e.contains("unknown key 'frobnicate'"), "{e}");
}

#[test]
fn a_capacity_for_a_cpu_the_trace_lacks_is_refused() {
    let f = fixture("pipe.data").display().to_string();
    let e = err(&format!("{f},cap=99:5"));
    assert!(e.contains("CPU 99 is not in the trace"), "{e}");
    let e = format!("{:#}", info::text(&format!("{f},cap=99:5")).unwrap_err());
    assert!(e.contains("CPU 99"), "{e}");
    // the recording host's two CPUs are accepted
    assert!(trace::load(&format!("{f},cap=0-1:512")).is_ok());
}

#[test]
fn header_sizes_and_offsets_past_the_file_are_refused_before_allocating() {
    let good = std::fs::read(fixture("pipe.data")).unwrap();
    // a flip in the feature bitmap (byte 78: bits 48-55) adds a feature
    // whose section entry is whatever follows the table: read, or one line
    for bit in 0..8 {
        let mut b = good.clone();
        b[78] ^= 1 << bit;
        if let Err(e) = trace::load(&write(&format!("flip78-{bit}.data"), &b)) {
            assert!(!format!("{e:#}").contains('\n'), "{e:#}");
        }
    }
    // a feature section of 8e9 bytes
    let table = (u64_at(&good, 40) + u64_at(&good, 48)) as usize;
    let mut b = good.clone();
    b[table + 8..table + 16].copy_from_slice(&8_000_000_000u64.to_le_bytes());
    let e = err(&write("feat8e9.data", &b));
    assert!(e.contains("past its end"), "{e}");
    // an attr size of 0 (the reader would divide by it)
    let mut b = good.clone();
    b[16..24].copy_from_slice(&0u64.to_le_bytes());
    let e = err(&write("attr0.data", &b));
    assert!(e.contains("event attribute of 0 bytes"), "{e}");
}

#[test]
fn a_recording_killed_with_9_says_so() {
    let e = err(&fixture("killed.data").display().to_string());
    assert!(e.contains("not terminated properly"), "{e}");
}

/// The byte offset of the CPU field in each SAMPLE record of `b`.
fn sample_cpus(b: &[u8]) -> Vec<usize> {
    // perf_event_attr.sample_type is at byte 24 of each attr; every attr
    // of the fixture has the same
    let (attrs, attr_size) = (u64_at(b, 24) as usize, u64_at(b, 16) as usize);
    let st = u64_at(b, attrs + 24);
    assert!(st & (1 << 7) != 0, "the fixture's samples carry their CPU");
    // PERF_SAMPLE_ IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID come first
    let before = [16, 0, 1, 2, 3, 6, 9]
        .iter()
        .filter(|&&bit| st & (1 << bit) != 0)
        .count();
    let _ = attr_size;
    let (off, size) = (u64_at(b, 40) as usize, u64_at(b, 48) as usize);
    let mut at = off;
    let mut out = Vec::new();
    while at < off + size {
        let ty = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
        let len = u16::from_le_bytes([b[at + 6], b[at + 7]]) as usize;
        if ty == 9 {
            out.push(at + 8 + 8 * before);
        }
        at += len;
    }
    out
}

#[test]
fn a_sample_cpu_past_the_header_s_cpus_is_refused() {
    let good = std::fs::read(fixture("pipe.data")).unwrap();
    let cpus = sample_cpus(&good);
    assert!(cpus.len() > 100, "{}", cpus.len());
    for (k, cpu) in [5000u32, 0xffff_fff0].into_iter().enumerate() {
        let mut b = good.clone();
        let at = cpus[cpus.len() / 2];
        assert!(u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) < 2);
        b[at..at + 4].copy_from_slice(&cpu.to_le_bytes());
        let e = err(&write(&format!("cpu{k}.data"), &b));
        assert!(e.contains(&format!("on CPU {cpu}")), "{e}");
    }
}

#[test]
fn a_bad_kallsyms_fails_trace_info() {
    let data = std::fs::read(fixture("pipe-sync.data")).unwrap();
    let f = write("badks.data", &data);
    std::fs::write(format!("{f}.kallsyms"), "not kallsyms\n").unwrap();
    let e = format!("{:#}", info::text(&f).unwrap_err());
    assert!(e.contains("kallsyms") && !e.contains('\n'), "{e}");
}

fn rtapp_err(text: &str) -> String {
    match RtApp::parse("t.json", text, 8) {
        Ok(_) => panic!("accepted"),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn rt_app_limits_are_checked_before_every_task_is_parsed() {
    // more tasks than threads allowed: refused at the count, before any
    // task is read (the last task is not even valid)
    let mut j = String::from("{\"tasks\": {");
    for i in 0..70_000 {
        j.push_str(&format!("\"t{i}\": {{\"run\": 1}},"));
    }
    j.push_str("\"bad\": {\"run\": \"x\"}}}");
    let e = rtapp_err(&j);
    assert!(e.contains("70001 tasks; at most 65536"), "{e}");
    // instances add up past the limit, at the task that passes it
    let j = r#"{"tasks": {"a": {"instance": 40000, "run": 1}, "b": {"instance": 40000, "run": 1}, "c": {"run": "x"}}}"#;
    let e = rtapp_err(j);
    assert!(e.contains("at task \"b\""), "{e}");
}

#[test]
fn rt_app_duplicate_keys_merge_in_one_pass() {
    // 100k distinct keys in one task: json-c's merge (a key's first place,
    // its last value) over all of them, then the first unsupported key
    let mut j = String::from("{\"tasks\": {\"t\": {\"run\": 1, ");
    for i in 0..100_000 {
        j.push_str(&format!("\"k{i}\": 1, "));
    }
    j.push_str("\"run\": 2}}}");
    let e = rtapp_err(&j);
    assert!(e.contains("\"k0\""), "{e}");
}

#[test]
fn a_fractional_run_is_refused() {
    let e = rtapp_err(r#"{"tasks": {"t": {"run": 1000.5}}}"#);
    assert!(
        e.contains("\"run\" must be an integer") && e.contains("1000.5"),
        "{e}"
    );
    let e = rtapp_err(r#"{"tasks": {"t": {"run": 10, "sleep": 0.5}}}"#);
    assert!(e.contains("\"sleep\""), "{e}");
}

#[test]
fn a_name_with_an_escaped_newline_is_quoted_on_one_line() {
    // JSON's "\n" in a key, a task's or a phase's name is a newline once
    // decoded: the error quotes it escaped
    for j in [
        r#"{"tasks": {"t0": {"insta\nce": 5, "run": 10}}}"#,
        r#"{"tasks": {"t\n0": {"run": 10, "sleep": -1}}}"#,
        r#"{"tasks": {"t0": {"phases": {"p\n0": {"run": 10, "bogus": 1}}}}}"#,
        r#"{"tasks": {"t0": {"run": 10}}, "glo\nbal": {}}"#,
    ] {
        let e = rtapp_err(j);
        assert!(!e.contains('\n') && e.contains("\\n"), "{e}");
    }
}

/// Runs `f` on a thread; a hang past `secs` fails the test rather than
/// the whole run.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .expect("the reader blocked")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

#[test]
fn a_fifo_or_device_in_a_snapshot_is_refused() {
    for (k, what) in ["fifo", "zero"].into_iter().enumerate() {
        let d = scratch(&format!("snap-{k}"));
        let _ = std::fs::remove_dir_all(&d);
        copy_dir(&fixture("host"), &d);
        let p = d.join("devices/system/cpu/cpu1/cache/index0/level");
        std::fs::remove_file(&p).unwrap();
        if what == "fifo" {
            let c = std::ffi::CString::new(p.display().to_string()).unwrap();
            assert_eq!(unsafe { libc_mkfifo(c.as_ptr(), 0o600) }, 0);
        } else {
            std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
        }
        let e = within(20, move || {
            format!("{:#}", arbor_sim::snapshot::read(&d).unwrap_err())
        });
        assert!(e.contains("not a regular file") && !e.contains('\n'), "{e}");
    }
}

extern "C" {
    #[link_name = "mkfifo"]
    fn libc_mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}
