//! A real machine for `arbor sim`. `take` copies the part of sysfs that
//! describes the CPUs (topology, caches, capacities, frequencies, idle
//! states, NUMA nodes and their distances) into a directory, in sysfs's own
//! layout (`devices/system/cpu/...`, `devices/system/node/...`) plus a
//! README naming the host. `read` builds a `Machine` from such a directory,
//! from one made by hand (`cp -r`, tar), or from a sysfs root (`/sys`).
//!
//! Sysfs gives the shape, cache sizes, capacities and idle states; what it
//! does not give (cache and memory latencies, mlp, SMT throughput) comes
//! from the generic tables of a preset family (`presets::Family`), picked by
//! the rule in docs/sim/cost-model.md, "Your own machine".

mod read;
mod take;

use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context, Result};
use scx_arbor::topology::parse_cpulist;

pub use read::{read, Snapshot};
pub use take::{take, Taken};

/// The snapshot's own file: host, kernel, arch and date, one `key: value`
/// per line after a short explanation.
pub const MANIFEST: &str = "README";
const CPU_DIR: &str = "devices/system/cpu";
const NODE_DIR: &str = "devices/system/node";
/// No CPU list names a CPU above this (crate::limits::MAX_CPUS).
const MAX_CPU_ID: u64 = crate::limits::MAX_CPUS as u64 - 1;
const MAX_FILE_BYTES: u64 = crate::limits::MAX_SNAPSHOT_FILE_BYTES;

// What taking and reading share: sysfs files, directories and lists.

/// A file's text; `None` if there is no such file.
fn read_small(path: &Path) -> std::io::Result<Option<String>> {
    // a FIFO would block the open, a device never end: only regular files
    // (sysfs attributes are) are opened
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => {
            return Err(std::io::Error::other(
                "not a regular file (a device, FIFO or directory is refused)",
            ))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    }
    let f = std::fs::File::open(path)?;
    let mut s = String::new();
    f.take(MAX_FILE_BYTES).read_to_string(&mut s)?;
    // tar pads a sysfs file it read short (sysfs says 4096 bytes) with NULs
    let end = s.trim_end_matches('\0').len();
    s.truncate(end);
    Ok(Some(s))
}

/// The numbers N of the entries `PREFIXN` of `dir`, sorted; none if `dir`
/// does not exist.
fn numbered_dirs(dir: &Path, prefix: &str) -> Result<Vec<usize>> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", dir.display())),
    };
    let mut out = Vec::new();
    for e in rd {
        let e = e.with_context(|| format!("reading {}", dir.display()))?;
        let name = e.file_name();
        let Some(n) = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        if e.path().is_dir() {
            out.push(n);
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// A sysfs CPU list (`0-3,8`; empty = none) through scx_arbor's parser.
fn parse_cpus(text: &str) -> Result<BTreeSet<usize>> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(BTreeSet::new());
    }
    let too_big = t
        .split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .any(|n| n.parse::<u64>().map_or(true, |v| v > MAX_CPU_ID));
    if too_big {
        bail!(
            "bad cpu list '{}' (CPU numbers above {MAX_CPU_ID})",
            show(t)
        );
    }
    match parse_cpulist(t) {
        Ok(v) => Ok(v.into_iter().collect()),
        Err(_) => bail!("bad cpu list '{}'", show(t)),
    }
}

/// A cache size as sysfs prints it (`32K`), in bytes.
fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (num, mult) = match t.char_indices().last()? {
        (i, 'K') => (&t[..i], 1u64 << 10),
        (i, 'M') => (&t[..i], 1 << 20),
        (i, 'G') => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    num.parse::<u64>().ok()?.checked_mul(mult)
}

/// A file's text fit for a one-line message: trimmed, control characters
/// replaced, at most 60 characters.
fn show(text: &str) -> String {
    let t: String = text
        .trim()
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if t.chars().count() > 60 {
        format!("{}...", t.chars().take(57).collect::<String>())
    } else {
        t
    }
}

/// The sysfs trees the tests of take.rs and read.rs build by hand.
#[cfg(test)]
mod testing {
    use super::*;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A directory under the system's temp dir, removed on drop.
    pub(super) struct Tmp(pub(super) PathBuf);

    impl Tmp {
        pub(super) fn new(tag: &str) -> Tmp {
            static N: AtomicUsize = AtomicUsize::new(0);
            let d = std::env::temp_dir().join(format!(
                "arbor-snapshot-{}-{}-{tag}",
                std::process::id(),
                N.fetch_add(1, Ordering::SeqCst)
            ));
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).unwrap();
            Tmp(d)
        }
    }

    impl Drop for Tmp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    pub(super) fn put(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, format!("{text}\n")).unwrap();
    }

    pub(super) fn cpu(root: &Path, c: usize, rel: &str, text: &str) {
        put(root, &format!("{CPU_DIR}/cpu{c}/{rel}"), text);
    }

    pub(super) fn cache(
        root: &Path,
        c: usize,
        k: usize,
        level: u32,
        kind: &str,
        size: &str,
        shared: &str,
    ) {
        let i = format!("cache/index{k}");
        cpu(root, c, &format!("{i}/level"), &level.to_string());
        cpu(root, c, &format!("{i}/type"), kind);
        cpu(root, c, &format!("{i}/size"), size);
        cpu(root, c, &format!("{i}/shared_cpu_list"), shared);
        cpu(root, c, &format!("{i}/coherency_line_size"), "64");
    }

    /// 2 nodes x 1 LLC x 2 cores x SMT2, x86 style (die_id; CPU n and n+4
    /// are siblings): node 0 = CPUs 0,1,4,5; L2 1 MiB per core, L3 16 MiB
    /// per node; SLIT 10/21; cpuidle POLL, C1, C6.
    pub(super) fn two_node(root: &Path) {
        put(root, &format!("{CPU_DIR}/online"), "0-7");
        put(root, &format!("{CPU_DIR}/possible"), "0-7");
        for c in 0..8 {
            let (core, node) = (c % 4, (c % 4) / 2);
            let sib = format!("{},{}", core, core + 4);
            let llc = if node == 0 { "0-1,4-5" } else { "2-3,6-7" };
            cpu(root, c, "topology/core_id", &(core % 2).to_string());
            cpu(root, c, "topology/physical_package_id", &node.to_string());
            cpu(root, c, "topology/die_id", "0");
            cpu(root, c, "topology/thread_siblings_list", &sib);
            cpu(root, c, "topology/core_cpus_list", &sib);
            cpu(root, c, "topology/cluster_cpus_list", &sib); // not needed: not copied
            cache(root, c, 0, 1, "Data", "48K", &sib);
            cache(root, c, 1, 1, "Instruction", "32K", &sib);
            cache(root, c, 2, 2, "Unified", "1024K", &sib);
            cache(root, c, 3, 3, "Unified", "16384K", llc);
            for (k, (name, lat, res)) in [("POLL", 0, 0), ("C1", 1, 2), ("C6", 100, 400)]
                .iter()
                .enumerate()
            {
                cpu(root, c, &format!("cpuidle/state{k}/name"), name);
                cpu(
                    root,
                    c,
                    &format!("cpuidle/state{k}/latency"),
                    &lat.to_string(),
                );
                cpu(
                    root,
                    c,
                    &format!("cpuidle/state{k}/residency"),
                    &res.to_string(),
                );
            }
        }
        put(root, &format!("{NODE_DIR}/node0/cpulist"), "0-1,4-5");
        put(root, &format!("{NODE_DIR}/node1/cpulist"), "2-3,6-7");
        put(root, &format!("{NODE_DIR}/node0/distance"), "10 21");
        put(root, &format!("{NODE_DIR}/node1/distance"), "21 10");
    }

    /// big.LITTLE, ARM style: CPUs 0-1 big (1024) with their own L2, CPUs
    /// 2-5 LITTLE (446) sharing another; no die_id, no nodes, no cpuidle.
    pub(super) fn big_little(root: &Path) {
        put(root, &format!("{CPU_DIR}/online"), "0-5");
        put(root, &format!("{CPU_DIR}/possible"), "0-5");
        for c in 0..6 {
            let big = c < 2;
            cpu(root, c, "topology/core_id", &c.to_string());
            cpu(root, c, "topology/physical_package_id", "0");
            cpu(root, c, "topology/cluster_id", if big { "0" } else { "1" });
            cpu(root, c, "topology/thread_siblings_list", &c.to_string());
            cpu(root, c, "cpu_capacity", if big { "1024" } else { "446" });
            cache(root, c, 0, 1, "Data", "32K", &c.to_string());
            cache(root, c, 1, 1, "Instruction", "32K", &c.to_string());
            let l2 = if big { "0-1" } else { "2-5" };
            cache(
                root,
                c,
                2,
                2,
                "Unified",
                if big { "1024K" } else { "512K" },
                l2,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_shown_text() {
        assert_eq!(parse_size("32K"), Some(32 << 10));
        assert_eq!(parse_size("2M\n"), Some(2 << 20));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("K"), None);
        assert_eq!(parse_size("99999999999999999999K"), None);
        assert_eq!(show("a\nb"), "a?b");
    }
}
