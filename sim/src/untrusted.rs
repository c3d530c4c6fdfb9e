//! Each reader of a user's file given raw bytes, as the fuzz targets
//! (fuzz/, `cargo fuzz`) drive them and tests/fuzz_corpus.rs replays their
//! corpora: the contract is a result or a one-line error, never a panic,
//! an abort, or memory or time out of proportion to the input (the limits
//! in [`crate::limits`]).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::workload::rtapp::RtApp;
use crate::workload::trace::{self, census::Census, ksyms::Ksyms, program};

/// Panics (a fuzz failure) unless `r` is Ok or an error of one line. An
/// error may quote the input, so an input that holds a newline may give
/// one back (arbor's main prints every error on one line regardless).
pub fn assert_contract(what: &str, input: &[u8], r: Result<()>) {
    if let Err(e) = r {
        let s = format!("{e:#}");
        assert!(!s.is_empty(), "{what}: an empty error");
        assert!(
            input.contains(&b'\n') || !s.contains('\n'),
            "{what}: an error that is not one line: {s:?}"
        );
    }
}

/// A scratch path of this process and thread (a fuzz target runs one
/// input at a time per thread).
fn scratch(name: &str) -> PathBuf {
    let base = Path::new("/dev/shm");
    let base = if base.is_dir() {
        base.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    base.join(format!(
        "arbor-untrusted-{}-{:?}-{name}",
        std::process::id(),
        std::thread::current().id()
    ))
    .to_string_lossy()
    .replace(['(', ')'], "")
    .into()
}

/// A perf.data file: the census (`arbor sim trace-info`'s first pass),
/// then the programs of every process (`-w trace:FILE,all=1`).
pub fn perf_data(data: &[u8]) -> Result<()> {
    let p = scratch("perf.data");
    std::fs::write(&p, data)?;
    let r = (|| {
        let c = Census::read(&p)?;
        let (_, sel) = trace::parse_spec(&format!("{},all=1", p.display()))?;
        program::compile(&p, &c, &sel)?;
        Ok(())
    })();
    let _ = std::fs::remove_file(&p);
    r
}

/// A kallsyms copy.
pub fn kallsyms(data: &[u8]) -> Result<()> {
    let text = std::str::from_utf8(data).context("kallsyms: not UTF-8")?;
    Ksyms::from_text("fuzz", text).map(|_| ())
}

/// An rt-app JSON file, for an 8-CPU machine.
pub fn rtapp(data: &[u8]) -> Result<()> {
    if data.len() as u64 > crate::limits::MAX_JSON_BYTES {
        bail!("rt-app: larger than the limit");
    }
    let text = std::str::from_utf8(data).context("rt-app: not UTF-8")?;
    RtApp::parse("fuzz", text, 8).map(|_| ())
}

/// A spec as a user types it: the first byte chooses the parser
/// (workload, scheduler, shape, trace keys), the rest is the spec.
/// Workloads that read a file (trace:, rt-app) are the other targets'.
pub fn spec(data: &[u8]) -> Result<()> {
    let Some((&k, rest)) = data.split_first() else {
        return Ok(());
    };
    let s = std::str::from_utf8(rest).context("spec: not UTF-8")?;
    match k % 4 {
        0 => {
            if s.starts_with("trace") || s.starts_with("rtapp") || s.starts_with("rt-app") {
                return Ok(());
            }
            crate::workload::spec::parse(s, 8, 1).map(|_| ())
        }
        1 => crate::sched::SchedSpec::parse(s).map(|_| ()),
        2 => crate::presets::shape(s).map(|_| ()),
        _ => trace::parse_spec(s).map(|_| ()),
    }
}

/// Entries of a directory image: `PATH\0CONTENT\0`, repeated. A CONTENT
/// of `\x01fifo` makes a FIFO, `\x01zero` a link to /dev/zero, `\x01dir`
/// an empty directory; a PATH is relative, without `..`.
pub fn image_entries(data: &[u8]) -> Vec<(String, &[u8])> {
    let mut out = Vec::new();
    let mut it = data.split(|&b| b == 0);
    while let (Some(p), Some(c)) = (it.next(), it.next()) {
        let Ok(p) = std::str::from_utf8(p) else {
            continue;
        };
        let p = p.trim_matches('/');
        if p.is_empty() || p.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
            continue;
        }
        out.push((p.to_string(), c));
        if out.len() >= 4096 {
            break;
        }
    }
    out
}

/// The image of a directory's files (the seed of the snapshot target).
pub fn image_of(dir: &Path) -> Result<Vec<u8>> {
    fn walk(root: &Path, d: &Path, out: &mut Vec<u8>) -> Result<()> {
        let mut es: Vec<_> = std::fs::read_dir(d)?.collect::<std::io::Result<_>>()?;
        es.sort_by_key(|e| e.file_name());
        for e in es {
            let p = e.path();
            let rel = p.strip_prefix(root)?.to_string_lossy().into_owned();
            if p.is_dir() {
                walk(root, &p, out)?;
            } else {
                out.extend_from_slice(rel.as_bytes());
                out.push(0);
                out.extend_from_slice(&std::fs::read(&p)?);
                out.push(0);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out)?;
    Ok(out)
}

/// A `/sys` snapshot directory, written from its image, then read.
pub fn snapshot(data: &[u8]) -> Result<()> {
    let dir = scratch("snapshot");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let r = (|| {
        for (p, c) in image_entries(data) {
            let path = dir.join(&p);
            if let Some(parent) = path.parent() {
                if std::fs::create_dir_all(parent).is_err() {
                    continue;
                }
            }
            let _ = match c {
                b"\x01fifo" => mkfifo(&path),
                b"\x01zero" => std::os::unix::fs::symlink("/dev/zero", &path),
                b"\x01dir" => std::fs::create_dir_all(&path),
                _ => std::fs::write(&path, c),
            };
        }
        crate::snapshot::read(&dir).map(|_| ())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    r
}

fn mkfifo(p: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(p.as_os_str().as_bytes())?;
    // SAFETY: a NUL-terminated path that lives across the call
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
