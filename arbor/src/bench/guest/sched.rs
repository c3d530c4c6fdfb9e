//! Starting, watching and stopping the scheduler under test inside the
//! guest: a sched_ext binary (scx_arbor or a peer), or EEVDF with sched
//! features and settings written to debugfs for one repetition.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

const SCX: &str = "/sys/kernel/sched_ext";
const DEBUG_SCHED: &str = "/sys/kernel/debug/sched";
/// Under TCG, verifying and attaching takes 5-75 s; a real host, under one.
const LOAD_LIMIT: Duration = Duration::from_secs(240);
/// An unload takes seconds; under TCG tens of them.
const UNLOAD_LIMIT: Duration = Duration::from_secs(120);

fn read_trim(p: &str) -> String {
    fs::read_to_string(p)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

pub fn scx_state() -> String {
    read_trim(&format!("{SCX}/state"))
}

fn scx_ops() -> String {
    read_trim(&format!("{SCX}/root/ops"))
}

/// The last `n` lines of a log, on one line.
pub fn tail(path: &Path, n: usize) -> String {
    let t = fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = t.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

/// A running sched_ext scheduler we started.
pub struct Loaded {
    child: Child,
    pub log: PathBuf,
}

impl Loaded {
    /// Starts `bin args` and waits until the kernel reports it enabled with
    /// an ops name starting with `ops`.
    pub fn start(bin: &Path, args: &[String], ops: &str, log: PathBuf) -> Result<Loaded> {
        if !bin.is_file() {
            bail!("{} is not installed", bin.display());
        }
        let out = fs::File::create(&log).with_context(|| format!("creating {}", log.display()))?;
        let err = out.try_clone()?;
        let child = Command::new(bin)
            .args(args)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .with_context(|| format!("starting {}", bin.display()))?;
        let mut l = Loaded { child, log };
        let t0 = Instant::now();
        loop {
            if scx_state() == "enabled" && scx_ops().starts_with(ops) {
                return Ok(l);
            }
            if let Some(st) = l.child.try_wait()? {
                bail!(
                    "it exited ({st}) before it was enabled: {}",
                    tail(&l.log, 3)
                );
            }
            if t0.elapsed() > LOAD_LIMIT {
                l.stop();
                bail!(
                    "not enabled after {} s: {}",
                    LOAD_LIMIT.as_secs(),
                    tail(&l.log, 3)
                );
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// It still runs and sched_ext is still enabled (not ejected).
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None)) && scx_state() == "enabled"
    }

    /// SIGINT, then SIGKILL after the limit; waits for sched_ext to be
    /// disabled. Returns the exit status text.
    pub fn stop(&mut self) -> String {
        let pid = self.child.id() as i32;
        // SAFETY: plain kill(2) on our own child
        unsafe { libc::kill(pid, libc::SIGINT) };
        let t0 = Instant::now();
        let st = loop {
            match self.child.try_wait() {
                Ok(Some(st)) => break st.to_string(),
                Ok(None) if t0.elapsed() < UNLOAD_LIMIT => {
                    std::thread::sleep(Duration::from_millis(250))
                }
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break format!("killed after {} s", UNLOAD_LIMIT.as_secs());
                }
            }
        };
        let t0 = Instant::now();
        while scx_state() != "disabled" && t0.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(250));
        }
        st
    }
}

/// EEVDF's debugfs settings for one repetition, undone on `undo`.
#[derive(Default)]
pub struct EevdfSettings {
    undo: Vec<(PathBuf, String)>,
}

impl EevdfSettings {
    pub fn apply(tokens: &[String]) -> Result<EevdfSettings> {
        let mut s = EevdfSettings::default();
        if tokens.is_empty() {
            return Ok(s);
        }
        if !Path::new(DEBUG_SCHED).exists() {
            let st = Command::new("mount")
                .args(["-t", "debugfs", "none", "/sys/kernel/debug"])
                .status()
                .context("mounting debugfs")?;
            if !st.success() || !Path::new(DEBUG_SCHED).exists() {
                bail!("eevdf: no {DEBUG_SCHED} (debugfs) in this kernel");
            }
        }
        let features = PathBuf::from(format!("{DEBUG_SCHED}/features"));
        for t in tokens {
            if let Some((k, v)) = t.split_once('=') {
                let p = PathBuf::from(format!("{DEBUG_SCHED}/{k}"));
                let old = fs::read_to_string(&p)
                    .with_context(|| format!("eevdf: no {} in this kernel", p.display()))?;
                fs::write(&p, v).with_context(|| format!("eevdf: cannot set {k}={v}"))?;
                s.undo.push((p, old.trim().to_string()));
            } else {
                fs::write(&features, t)
                    .with_context(|| format!("eevdf: this kernel has no sched feature {t}"))?;
                let back = match t.strip_prefix("NO_") {
                    Some(f) => f.to_string(),
                    None => format!("NO_{t}"),
                };
                s.undo.push((features.clone(), back));
            }
        }
        Ok(s)
    }

    pub fn undo(&mut self) {
        for (p, v) in self.undo.drain(..).rev() {
            let _ = fs::write(p, v);
        }
    }
}
