//! `-vv`: the per-op BPF cost of the loaded scheduler, the kernel's
//! run_time_ns / run_cnt of each struct_ops program as `bpftool prog show`
//! prints them. The kernel counts them only while BPF run-time statistics
//! are enabled: BPF_ENABLE_STATS turns them on for as long as its fd stays
//! open (they cost two clock reads per program run, so only at -vv).

use std::os::fd::{AsFd, FromRawFd, OwnedFd};

use anyhow::{bail, Result};

/// One program's cumulative counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    pub name: String,
    pub cnt: u64,
    pub ns: u64,
}

/// Turns on the kernel's BPF run-time statistics until the fd is closed.
pub fn enable_stats() -> Result<OwnedFd> {
    // union bpf_attr { struct { __u32 type; } enable_stats; }, BPF_STATS_RUN_TIME = 0
    let attr: [u32; 1] = [0];
    const BPF_ENABLE_STATS: libc::c_long = 32;
    // SAFETY: the attribute is a valid, initialised 4-byte enable_stats
    let fd = unsafe {
        libc::syscall(
            libc::SYS_bpf,
            BPF_ENABLE_STATS,
            attr.as_ptr(),
            std::mem::size_of_val(&attr) as u32,
        )
    };
    if fd < 0 {
        bail!(
            "BPF_ENABLE_STATS failed: {}",
            std::io::Error::last_os_error()
        );
    }
    // SAFETY: a new fd the kernel returned, owned by nobody else
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// The programs of a loaded object, to sample.
pub struct OpCost {
    _stats: OwnedFd,
    progs: Vec<(String, u32)>,
}

impl OpCost {
    pub fn new(obj: &libbpf_rs::Object) -> Result<Self> {
        let stats = enable_stats()?;
        let mut progs = Vec::new();
        for p in obj.progs() {
            let name = p.name().to_string_lossy().into_owned();
            if let Ok(id) = libbpf_rs::Program::id_from_fd(p.as_fd()) {
                progs.push((name, id));
            }
        }
        Ok(OpCost {
            _stats: stats,
            progs,
        })
    }

    /// Cumulative counts of our programs, in load order.
    pub fn sample(&self) -> Vec<Sample> {
        let infos: Vec<_> = libbpf_rs::query::ProgInfoIter::default()
            .filter(|i| self.progs.iter().any(|(_, id)| *id == i.id))
            .collect();
        self.progs
            .iter()
            .filter_map(|(name, id)| {
                infos.iter().find(|i| i.id == *id).map(|i| Sample {
                    name: name.clone(),
                    cnt: i.run_cnt,
                    ns: i.run_time_ns,
                })
            })
            .collect()
    }
}

/// The per-op cost between two samples (`prev` empty: since load), one
/// line per op that ran, the costliest first: calls, total ns, ns per call.
pub fn table(prev: &[Sample], cur: &[Sample]) -> String {
    let mut rows: Vec<(&str, u64, u64)> = cur
        .iter()
        .map(|c| {
            let p = prev.iter().find(|p| p.name == c.name);
            let (pc, pn) = p.map_or((0, 0), |p| (p.cnt, p.ns));
            (
                c.name.as_str(),
                c.cnt.saturating_sub(pc),
                c.ns.saturating_sub(pn),
            )
        })
        .filter(|r| r.1 > 0)
        .collect();
    rows.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
    let mut s = format!(
        "{:<20} {:>12} {:>14} {:>9}\n",
        "bpf op", "calls", "total_ns", "ns/call"
    );
    for (name, cnt, ns) in rows {
        s += &format!("{name:<20} {cnt:>12} {ns:>14} {:>9}\n", ns / cnt);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(name: &str, cnt: u64, ns: u64) -> Sample {
        Sample {
            name: name.into(),
            cnt,
            ns,
        }
    }

    #[test]
    fn table_is_per_interval_costliest_first_and_skips_idle_ops() {
        let prev = vec![s("arbor_enqueue", 10, 1000), s("arbor_tick", 5, 500)];
        let cur = vec![
            s("arbor_enqueue", 30, 5000),
            s("arbor_tick", 5, 500),
            s("arbor_select_cpu", 4, 8000),
        ];
        let t = table(&prev, &cur);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3, "{t}");
        assert!(lines[0].starts_with("bpf op"));
        // select_cpu: 4 calls, 8000 ns, 2000 ns/call (no previous sample)
        assert_eq!(
            lines[1].split_whitespace().collect::<Vec<_>>(),
            ["arbor_select_cpu", "4", "8000", "2000"]
        );
        // enqueue: 20 calls, 4000 ns in the interval -> 200 ns/call
        assert_eq!(
            lines[2].split_whitespace().collect::<Vec<_>>(),
            ["arbor_enqueue", "20", "4000", "200"]
        );
    }
}
