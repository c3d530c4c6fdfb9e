//! `--stats`' per-group figures: the busiest cgroups (cgroup.bpf.h's
//! contexts, struct cg_ctx in intf.h) with their share of the CPU time,
//! cpu.max throttles and cpu.idle preemptions, named by their path below
//! the cgroup v2 mount (a group's id is its directory's inode number,
//! kernfs' id on 64-bit).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Where cgroup v2 is mounted.
pub const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// One group's figures, from its context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CgRow {
    pub id: u64,
    /// CPU time of its own tasks
    pub run_ns: u64,
    pub throttles: u64,
    pub idle_preempts: u64,
}

/// The `n` groups with the most CPU time, busiest first (ties by id); a
/// group that ran nothing is left out.
pub fn top(mut rows: Vec<CgRow>, n: usize) -> Vec<CgRow> {
    rows.retain(|r| r.run_ns > 0);
    rows.sort_unstable_by(|a, b| b.run_ns.cmp(&a.run_ns).then(a.id.cmp(&b.id)));
    rows.truncate(n);
    rows
}

/// `rows` (as [`top`] gave them) as `PATH share% thr=N idlepre=N`, joined
/// by `; `. `total_ns` is the CPU time of all CPUs over the same span
/// (busy + idle); `path_of` names a group, its id (`cg#ID`) where it has
/// no name.
pub fn busiest(rows: &[CgRow], total_ns: u64, path_of: &HashMap<u64, String>) -> String {
    rows.iter()
        .map(|g| {
            let share = if total_ns == 0 {
                0.0
            } else {
                100.0 * g.run_ns as f64 / total_ns as f64
            };
            let name = path_of
                .get(&g.id)
                .cloned()
                .unwrap_or_else(|| format!("cg#{}", g.id));
            format!(
                "{name} {share:.1}% thr={} idlepre={}",
                g.throttles, g.idle_preempts
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The paths (`/a/b`, from `root`) of the directories below `root` whose
/// inode number is one of `ids`; the walk stops once all are found.
pub fn paths_of(root: &Path, ids: &[u64]) -> HashMap<u64, String> {
    let mut found = HashMap::new();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        if found.len() == ids.len() {
            break;
        }
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let Ok(md) = e.metadata() else { continue };
            if !md.is_dir() {
                continue;
            }
            let p = format!("{rel}/{}", e.file_name().to_string_lossy());
            if ids.contains(&md.ino()) {
                found.insert(md.ino(), p.clone());
            }
            stack.push((e.path(), p));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, run_ns: u64, throttles: u64, idle_preempts: u64) -> CgRow {
        CgRow {
            id,
            run_ns,
            throttles,
            idle_preempts,
        }
    }

    #[test]
    fn busiest_first_with_shares_and_counts() {
        let rows = [
            row(7, 250, 3, 0),
            row(9, 0, 0, 0),
            row(4, 500, 0, 12),
            row(5, 100, 0, 0),
        ];
        let names: HashMap<u64, String> = [(4, "/b".to_string())].into();
        let shown = |rows: &[CgRow], n| busiest(&top(rows.to_vec(), n), 1000, &names);
        assert_eq!(
            shown(&rows, 2),
            "/b 50.0% thr=0 idlepre=12; cg#7 25.0% thr=3 idlepre=0"
        );
        // a group that ran nothing is not listed; none at all: empty
        assert_eq!(shown(&rows, 9).matches(';').count(), 2);
        assert_eq!(shown(&[row(1, 0, 5, 5)], 5), "");
    }

    #[test]
    fn paths_by_inode() {
        let d = std::env::temp_dir().join(format!("arbor-cgstats-{}", std::process::id()));
        std::fs::create_dir_all(d.join("a/b")).unwrap();
        std::fs::create_dir_all(d.join("c")).unwrap();
        let ino = |p: &str| std::fs::metadata(d.join(p)).unwrap().ino();
        let (ab, c) = (ino("a/b"), ino("c"));
        let got = paths_of(&d, &[ab, c, 1 << 62]);
        std::fs::remove_dir_all(&d).ok();
        assert_eq!(got.get(&ab).map(String::as_str), Some("/a/b"));
        assert_eq!(got.get(&c).map(String::as_str), Some("/c"));
        assert_eq!(got.len(), 2);
    }
}
