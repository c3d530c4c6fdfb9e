//! `arbor vm` never leaves a guest behind: on --timeout, on SIGINT/SIGTERM
//! and when arbor itself is killed, the runner and everything it started
//! (QEMU) are killed, with a line saying which happened. A fake runner
//! (ARBOR_VM_RUNNER) stands in for vng: it starts a "QEMU" (sleep) that
//! would outlive it, records both pids, prints one line and hangs; the
//! timeout's message names that line, where the guest stopped.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("arbor-vmt-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A fake vng: a child that ignores SIGTERM/SIGINT and sleeps (like a
/// QEMU that would be orphaned), its pid and ours written to `dir/pids`.
fn fake_runner(dir: &Path) -> PathBuf {
    let p = dir.join("fake-vng");
    std::fs::write(
        &p,
        format!(
            "#!/bin/sh\n\
             (trap '' TERM INT; exec sleep 1000) &\n\
             echo \"$$ $!\" > {dir}/pids.tmp && mv {dir}/pids.tmp {dir}/pids\n\
             echo guest-started\n\
             trap '' TERM INT\n\
             while :; do sleep 1; done\n",
            dir = dir.display()
        ),
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&p).status().unwrap();
    p
}

fn alive(pid: i32) -> bool {
    // a zombie counts as gone
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !s
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

fn pids(dir: &Path) -> Vec<i32> {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(20) {
        if let Ok(s) = std::fs::read_to_string(dir.join("pids")) {
            return s.split_whitespace().map(|p| p.parse().unwrap()).collect();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the fake runner never started");
}

fn all_gone(pids: &[i32]) -> bool {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(5) {
        if pids.iter().all(|&p| !alive(p)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

fn arbor(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arbor"));
    c.env("ARBOR_VM_RUNNER", fake_runner(dir))
        .args(["vm", "--topology", "1s2c2t"])
        .args(args)
        .args(["--", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

#[test]
fn timeout_kills_the_guest_and_says_so() {
    let dir = tempdir("timeout");
    let t = Instant::now();
    let out = arbor(&dir, &["--timeout", "2"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let ps = pids(&dir);
    assert_eq!(out.status.code(), Some(124), "{err}");
    assert!(
        err.contains("arbor vm: timeout: the guest ran longer than --timeout 2s"),
        "{err}"
    );
    // where it hung: the fake guest's one line
    assert!(
        err.contains("its last line came ") && err.contains("s after the start: guest-started"),
        "{err}"
    );
    assert!(t.elapsed() < Duration::from_secs(30));
    assert!(all_gone(&ps), "the runner or its QEMU survived: {ps:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn signal_kills_the_guest(sig: &str, code: i32, name: &str) {
    let dir = tempdir(name);
    let child = arbor(&dir, &["--timeout", "600"]).spawn().unwrap();
    let ps = pids(&dir);
    Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert!(
        err.contains(&format!(
            "arbor vm: interrupted by {name}; the guest was killed"
        )),
        "{err}"
    );
    assert!(all_gone(&ps), "the runner or its QEMU survived: {ps:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_kills_the_guest_and_says_so() {
    signal_kills_the_guest("-TERM", 143, "SIGTERM");
}

#[test]
fn sigint_kills_the_guest_and_says_so() {
    signal_kills_the_guest("-INT", 130, "SIGINT");
}

#[test]
fn a_killed_arbor_leaves_no_guest_behind() {
    let dir = tempdir("sigkill");
    let mut child = arbor(&dir, &["--timeout", "600"]).spawn().unwrap();
    let ps = pids(&dir);
    child.kill().unwrap(); // SIGKILL: no handler of ours runs
    let _ = child.wait();
    assert!(
        all_gone(&ps),
        "the runner or its QEMU survived arbor's SIGKILL: {ps:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_default_timeout_is_stated_in_help() {
    let out = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["vm", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains("--timeout") && help.contains("default: 14400"),
        "{help}"
    );
}

/// ARBOR_BIN=... arbor vm -- CMD: the guest's command sees the variable (a
/// fake runner prints the --exec line it was given).
#[test]
fn arbor_bin_reaches_the_guest_command() {
    let dir = tempdir("env");
    let p = dir.join("echo-vng");
    std::fs::write(
        &p,
        "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --exec ] && printf '%s\\n' \"$2\"; shift; done\n",
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&p).status().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .env("ARBOR_VM_RUNNER", &p)
        .env("ARBOR_BIN", "/x y/scx_arbor")
        .env_remove("SCX_ARBOR_BIN")
        .args(["vm", "--topology", "1s2c2t", "--", "tests/vm/suite.sh"])
        .output()
        .unwrap();
    let o = String::from_utf8_lossy(&out.stdout);
    assert!(
        o.contains("export ARBOR_BIN='/x y/scx_arbor'; tests/vm/suite.sh"),
        "{o}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fake vng that runs its --exec line with sh, except on its first
/// `hung` starts: then it prints nothing and sleeps (a guest that hangs
/// booting). Each start's pid goes to `dir/starts`.
fn booting_runner(dir: &Path, hung: u32) -> PathBuf {
    let p = dir.join("boot-vng");
    std::fs::write(
        &p,
        format!(
            "#!/bin/sh\n\
             echo $$ >> {dir}/starts\n\
             n=$(wc -l < {dir}/starts)\n\
             if [ \"$n\" -le {hung} ]; then trap '' TERM INT; while :; do sleep 1; done; fi\n\
             while [ $# -gt 0 ]; do [ \"$1\" = --exec ] && exec sh -c \"$2\"; shift; done\n\
             exit 99\n",
            dir = dir.display()
        ),
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&p).status().unwrap();
    p
}

fn boot_with(dir: &Path, runner: &Path, limit: &str, cmd: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbor"))
        .env("ARBOR_VM_RUNNER", runner)
        .env("ARBOR_VM_BOOT_TIMEOUT", limit)
        .args(["vm", "--topology", "1s2c2t", "--timeout", "600", "--", cmd])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn starts(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("starts"))
        .unwrap_or_default()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect()
}

/// A guest that hangs booting (no output at all) is killed after the boot
/// bound and booted again; the command then runs once, its output without
/// the boot marker, its exit code arbor vm's.
#[test]
fn a_guest_that_hangs_booting_is_booted_again() {
    let dir = tempdir("reboot");
    let out = boot_with(&dir, &booting_runner(&dir, 1), "1", "echo ran; exit 3");
    let err = String::from_utf8_lossy(&out.stderr);
    let o = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("it hung booting"), "{err}");
    assert!(err.contains("booting it again (try 2 of 3)"), "{err}");
    assert_eq!(o, "ran\n", "{err}");
    let ps = starts(&dir);
    assert_eq!(ps.len(), 2, "{ps:?}");
    assert!(all_gone(&ps), "a hung boot survived: {ps:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Three hung boots: one line saying so, exit non-zero, nothing left.
#[test]
fn a_guest_that_never_boots_is_given_up() {
    let dir = tempdir("noboot");
    let t = Instant::now();
    let out = boot_with(&dir, &booting_runner(&dir, 9), "1", "echo ran");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("the guest did not finish booting within 1 s, 3 times"),
        "{err}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("ran"));
    let ps = starts(&dir);
    assert_eq!(ps.len(), 3, "{ps:?}");
    assert!(all_gone(&ps), "a hung boot survived: {ps:?}");
    assert!(t.elapsed() < Duration::from_secs(60));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_boot_bound_is_one_line() {
    let dir = tempdir("badboot");
    let out = boot_with(&dir, &booting_runner(&dir, 0), "soon", "true");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("ARBOR_VM_BOOT_TIMEOUT=\"soon\""), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A guest that booted and then hangs silently: the timeout names the boot
/// marker as its last line (it did not hang booting).
#[test]
fn a_silent_hang_after_boot_is_not_called_a_boot_hang() {
    let dir = tempdir("silent");
    let out = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .env("ARBOR_VM_RUNNER", booting_runner(&dir, 0))
        .args([
            "vm",
            "--topology",
            "1s2c2t",
            "--timeout",
            "2",
            "--",
            "sleep 100",
        ])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(124), "{err}");
    assert!(
        err.contains("s after the start: arbor-vm: the guest booted"),
        "{err}"
    );
    assert!(!err.contains("hung booting"), "{err}");
    assert!(all_gone(&starts(&dir)), "the guest survived");
    let _ = std::fs::remove_dir_all(&dir);
}
