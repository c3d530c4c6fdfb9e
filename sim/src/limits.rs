//! What a user's input may make the simulator read and allocate, stated
//! once and checked before anything is allocated: a file that is not a
//! regular file (`/dev/zero`, a FIFO, a directory) or is larger than its
//! limit is refused in one line, so that bad input never grows memory
//! until the kernel's OOM killer ends the run with nothing printed.
//!
//! docs/guide/checking.md lists these limits ("What the readers accept");
//! keep the two in step.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context, Result};

/// An rt-app JSON file: rt-app's own examples are under 10 KiB and files
/// that LISA generates a few hundred; 16 MiB holds the 65,536 threads of
/// [`MAX_TASKS`] many times over.
pub const MAX_JSON_BYTES: u64 = 16 << 20;

/// A perf.data trace: it is streamed, so memory does not grow with it;
/// 16 GiB bounds a replay's time (the reader does about 1 M records/s).
pub const MAX_TRACE_BYTES: u64 = 16 << 30;

/// What linux-perf-data's reader may hold to sort a perf.data file's
/// records into time order. It sorts between perf's round markers
/// (PERF_RECORD_FINISHED_ROUND, which `perf record` writes after each pass
/// over its ring buffers) and holds up to three rounds at once (two being
/// sorted, the buffers of the one before kept for reuse); a file without
/// markers it would hold whole. Counted as the records' bytes plus
/// [`PERF_SORT_RECORD_OVERHEAD`] each (`trace::check`), over any three
/// consecutive rounds. A round is at most what perf's ring buffers hold
/// (512 KiB a CPU by default): 1 GiB holds three full rounds of a 128-CPU
/// machine.
pub const MAX_PERF_SORT_BYTES: u64 = 1 << 30;

/// linux-perf-data's memory for each record it holds to sort, besides the
/// record's bytes: its queue entry (sort key and record, 80 bytes) in a
/// queue that may be twice as long, and the body's allocation. Generous,
/// as it bounds the reader's memory.
pub const PERF_SORT_RECORD_OVERHEAD: u64 = 192;

/// A perf.data file's feature sections (its header: tracepoint formats,
/// the kernel's symbols, build ids), in all; perf writes a few MiB.
pub const MAX_PERF_HEADER_BYTES: u64 = 256 << 20;

/// CPU numbers a trace's records and a snapshot's `cpuN` may carry: the
/// per-CPU state they index is allocated up to the highest.
pub const MAX_CPUS: usize = 65_536;

/// A kallsyms copy (a full /proc/kallsyms is about 20 MB with modules).
pub const MAX_KALLSYMS_BYTES: u64 = 256 << 20;

/// One file of a `/sys` snapshot: sysfs attributes are at most a page, so
/// a longer file is not one.
pub const MAX_SNAPSHOT_FILE_BYTES: u64 = 1 << 20;

/// A `results.json` (or another tool output) read back by verdict and
/// merge: a run of the full suite writes a few MiB.
pub const MAX_RESULTS_BYTES: u64 = 256 << 20;

/// Tasks one workload may create (rt-app threads, replayed trace threads):
/// each costs the simulator a task_struct and the scheduler's per-task
/// state.
pub const MAX_TASKS: usize = 65_536;

/// Opens `path` for reading if it is a regular file of at most `max`
/// bytes; `what` names it in the one-line error.
pub fn open_regular(path: &Path, what: &str, max: u64) -> Result<File> {
    let md = std::fs::metadata(path)
        .with_context(|| format!("{what} {}: cannot read it", path.display()))?;
    if !md.is_file() {
        bail!(
            "{what} {}: not a regular file (a device, FIFO or directory is refused)",
            path.display()
        );
    }
    if md.len() > max {
        bail!(
            "{what} {}: {} bytes, larger than the {} MiB accepted",
            path.display(),
            md.len(),
            max >> 20
        );
    }
    File::open(path).with_context(|| format!("{what} {}: cannot read it", path.display()))
}

/// The text of a regular file of at most `max` bytes (read through the
/// limit, should it grow meanwhile).
pub fn read_text(path: &Path, what: &str, max: u64) -> Result<String> {
    let f = open_regular(path, what, max)?;
    let mut s = String::new();
    f.take(max + 1)
        .read_to_string(&mut s)
        .with_context(|| format!("{what} {}: cannot read it as text", path.display()))?;
    if s.len() as u64 > max {
        bail!(
            "{what} {}: grew past {} MiB while read",
            path.display(),
            max >> 20
        );
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_directories_and_large_files_are_refused() {
        let e = format!(
            "{:#}",
            read_text(Path::new("/dev/zero"), "x", 10).unwrap_err()
        );
        assert!(e.contains("not a regular file"), "{e}");
        let e = format!("{:#}", read_text(Path::new("/"), "x", 10).unwrap_err());
        assert!(e.contains("not a regular file"), "{e}");
        let p = std::env::temp_dir().join(format!("arbor-limits-{}", std::process::id()));
        std::fs::write(&p, "0123456789ab").unwrap();
        let e = format!("{:#}", read_text(&p, "x", 10).unwrap_err());
        assert!(e.contains("12 bytes, larger than"), "{e}");
        assert_eq!(read_text(&p, "x", 12).unwrap(), "0123456789ab");
        let _ = std::fs::remove_file(&p);
    }
}
