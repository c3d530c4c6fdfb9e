//! The machine as scx_arbor sees it: CPUs with their core, LLC and NUMA node,
//! and capacities. Built from `scx_utils::Topology` (sysfs), with dense LLC
//! and core indices so the BPF side can use them as array indices.

use std::collections::BTreeMap;
use std::fmt;

use anyhow::{bail, Context, Result};

use crate::bpf_intf;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuInfo {
    pub id: usize,
    pub core: usize,
    pub llc: usize,
    pub node: usize,
    pub capacity: u32,
}

#[derive(Clone, Debug)]
pub struct Topo {
    /// Indexed by CPU id; `None` for ids without a CPU (offline / holes).
    pub cpus: Vec<Option<CpuInfo>>,
    pub nr_llcs: usize,
    pub nr_nodes: usize,
    pub nr_cores: usize,
    pub smt_width: usize,
}

impl Topo {
    /// Reads the host's topology through scx_utils.
    pub fn from_system() -> Result<Self> {
        let t = scx_utils::Topology::new().context("reading the CPU topology from sysfs")?;
        let raw: Vec<(usize, usize, usize, usize, u32)> = t
            .all_cpus
            .values()
            .map(|c| {
                (
                    c.id,
                    c.core_id + (c.package_id << 16),
                    c.llc_id,
                    c.node_id,
                    c.cpu_capacity as u32,
                )
            })
            .collect();
        Self::from_raw(&raw)
    }

    /// Builds from (cpu, core key, llc key, node, capacity) tuples; keys need
    /// not be dense. Used by `from_system` and by tests and the simulator.
    pub fn from_raw(raw: &[(usize, usize, usize, usize, u32)]) -> Result<Self> {
        if raw.is_empty() {
            bail!("topology has no CPUs");
        }
        let max_id = raw.iter().map(|r| r.0).max().unwrap_or(0);
        if max_id >= bpf_intf::arbor_limits_MAX_CPUS as usize {
            bail!(
                "CPU id {max_id} exceeds the supported maximum of {}",
                bpf_intf::arbor_limits_MAX_CPUS - 1
            );
        }
        let dense = |key: fn(&(usize, usize, usize, usize, u32)) -> usize| {
            let mut m = BTreeMap::new();
            for r in raw {
                let n = m.len();
                m.entry(key(r)).or_insert(n);
            }
            m
        };
        let cores = dense(|r| r.1);
        let llcs = dense(|r| r.2);
        let nodes = dense(|r| r.3);
        let mut cpus = vec![None; max_id + 1];
        for r in raw {
            cpus[r.0] = Some(CpuInfo {
                id: r.0,
                core: cores[&r.1],
                llc: llcs[&r.2],
                node: nodes[&r.3],
                capacity: r.4.clamp(1, 1024),
            });
        }
        let topo = Topo {
            cpus,
            nr_llcs: llcs.len(),
            nr_nodes: nodes.len(),
            nr_cores: cores.len(),
            smt_width: 1,
        };
        let smt = topo.cores().values().map(|v| v.len()).max().unwrap_or(1);
        let topo = Topo {
            smt_width: smt,
            ..topo
        };
        topo.validate()?;
        Ok(topo)
    }

    fn validate(&self) -> Result<()> {
        if self.nr_llcs > bpf_intf::arbor_limits_MAX_LLCS as usize {
            bail!(
                "{} LLCs exceed the supported maximum of {}",
                self.nr_llcs,
                bpf_intf::arbor_limits_MAX_LLCS
            );
        }
        if self.nr_nodes > bpf_intf::arbor_limits_MAX_NODES as usize {
            bail!(
                "{} NUMA nodes exceed the supported maximum of {}",
                self.nr_nodes,
                bpf_intf::arbor_limits_MAX_NODES
            );
        }
        for (llc, cpus) in self.llcs().iter().enumerate() {
            if cpus.len() > bpf_intf::arbor_limits_MAX_LLC_CPUS as usize {
                bail!(
                    "LLC {llc} has {} CPUs, more than the supported {}",
                    cpus.len(),
                    bpf_intf::arbor_limits_MAX_LLC_CPUS
                );
            }
        }
        if self.smt_width > bpf_intf::arbor_limits_MAX_SMT as usize {
            bail!(
                "SMT width {} exceeds the supported {}",
                self.smt_width,
                bpf_intf::arbor_limits_MAX_SMT
            );
        }
        Ok(())
    }

    pub fn all(&self) -> impl Iterator<Item = &CpuInfo> {
        self.cpus.iter().flatten()
    }

    pub fn nr_cpu_ids(&self) -> usize {
        self.cpus.len()
    }

    /// CPU ids of each LLC, in id order.
    pub fn llcs(&self) -> Vec<Vec<usize>> {
        let mut v = vec![Vec::new(); self.nr_llcs];
        for c in self.all() {
            v[c.llc].push(c.id);
        }
        v
    }

    pub fn llc_node(&self, llc: usize) -> usize {
        self.all()
            .find(|c| c.llc == llc)
            .map(|c| c.node)
            .unwrap_or(0)
    }

    pub fn cores(&self) -> BTreeMap<usize, Vec<usize>> {
        let mut m: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for c in self.all() {
            m.entry(c.core).or_default().push(c.id);
        }
        m
    }

    /// Applies `--cpu-capacity LIST:CAP,...` (e.g. `0-1:1024,2-4:430`):
    /// every CPU named must exist, each at most once, CAP in 1..=1024, and
    /// the biggest CPU afterwards has 1024.
    pub fn override_capacity(&mut self, spec: &str) -> Result<()> {
        let mut seen = std::collections::BTreeSet::new();
        // "0-1:1024,2-4:430" -> "0-1:1024", "2-4:430"; a list may hold commas
        let mut groups: Vec<String> = Vec::new();
        for part in spec.split(',') {
            match groups.last_mut() {
                Some(last) if !last.contains(':') => {
                    last.push(',');
                    last.push_str(part);
                }
                _ => groups.push(part.to_string()),
            }
        }
        for g in groups {
            let (list, cap) = g.rsplit_once(':').with_context(|| {
                format!("--cpu-capacity: '{g}' is not LIST:CAP (e.g. 0-1:1024,2-4:430)")
            })?;
            let cap: u32 = cap
                .trim()
                .parse()
                .ok()
                .filter(|c| (1..=1024).contains(c))
                .with_context(|| {
                    format!("--cpu-capacity: capacity '{cap}' is not a number in 1..=1024")
                })?;
            for cpu in parse_cpulist(list)? {
                if !seen.insert(cpu) {
                    bail!("--cpu-capacity: CPU {cpu} is given twice");
                }
                match self.cpus.get_mut(cpu).and_then(|c| c.as_mut()) {
                    Some(c) => c.capacity = cap,
                    None => bail!("--cpu-capacity: CPU {cpu} does not exist on this machine"),
                }
            }
        }
        // the kernel's scale (arch_scale_cpu_capacity): the biggest CPU is
        // 1024 and the rules compare the others with it (seed 004's "within
        // 1/8 of the max" assumes it)
        let max = self.all().map(|c| c.capacity).max().unwrap_or(1024);
        if max != 1024 {
            bail!(
                "--cpu-capacity: the biggest CPU must have capacity 1024 (the kernel's scale; the others are relative to it), not {max}"
            );
        }
        Ok(())
    }

    pub fn asymmetric(&self) -> bool {
        let caps: Vec<u32> = self.all().map(|c| c.capacity).collect();
        let (lo, hi) = (
            caps.iter().min().copied().unwrap_or(1024),
            caps.iter().max().copied().unwrap_or(1024),
        );
        // seeds.md §5: capacities within 1/8 of the max count as symmetric
        (hi - lo) * 8 >= hi
    }
}

/// Parses a CPU list like `0-3,8,10-11`.
/// The largest CPU id any kernel configuration allows (NR_CPUS is at most
/// 8192, CONFIG_NR_CPUS_RANGE_END on x86 with MAXSMP).
pub const MAX_CPU_ID: usize = 8191;

pub fn parse_cpulist(s: &str) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim) {
        let num = |x: &str| -> Result<usize> {
            x.trim()
                .parse()
                .with_context(|| format!("'{x}' in CPU list '{s}' is not a CPU number"))
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    bail!("CPU range '{part}' runs backwards");
                }
                // checked before the range is expanded
                if b > MAX_CPU_ID {
                    bail!("CPU range '{part}' goes past {MAX_CPU_ID}, the largest CPU id a kernel can have");
                }
                out.extend(a..=b);
            }
            None => out.push(num(part)?),
        }
    }
    Ok(out)
}

/// Compresses a sorted list of ids into ranges: 0-3,8,10-11.
pub fn cpulist(ids: &[usize]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            ids[i].to_string()
        } else {
            format!("{}-{}", ids[i], ids[j])
        });
        i = j + 1;
    }
    out.join(",")
}

impl fmt::Display for Topo {
    /// One summary line, then one line per node and LLC. The summary line's
    /// form is stable: the VM tests compare it with the guest's sysfs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "topology: cpus={} cores={} llcs={} nodes={} smt={}",
            self.all().count(),
            self.nr_cores,
            self.nr_llcs,
            self.nr_nodes,
            self.smt_width
        )?;
        for (llc, cpus) in self.llcs().iter().enumerate() {
            let caps: Vec<String> = cpus
                .iter()
                .filter_map(|&c| self.cpus[c].as_ref())
                .map(|c| c.capacity.to_string())
                .collect();
            let mut caps_u = caps.clone();
            caps_u.dedup();
            writeln!(
                f,
                "  node {} llc {}: cpus {} capacity {}",
                self.llc_node(llc),
                llc,
                cpulist(cpus),
                caps_u.join("/")
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2 sockets x 2 cores x 2 threads, one LLC and node per socket.
    pub fn two_socket() -> Topo {
        let raw: Vec<_> = (0..8).map(|c| (c, c / 2, c / 4, c / 4, 1024)).collect();
        Topo::from_raw(&raw).unwrap()
    }

    #[test]
    fn dense_indices_and_smt_width() {
        let t = two_socket();
        assert_eq!(
            (t.nr_llcs, t.nr_nodes, t.nr_cores, t.smt_width),
            (2, 2, 4, 2)
        );
        assert_eq!(t.llcs(), vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        assert!(!t.asymmetric());
        assert!(t
            .to_string()
            .starts_with("topology: cpus=8 cores=4 llcs=2 nodes=2 smt=2\n"));
    }

    #[test]
    fn sparse_keys_are_compacted() {
        let raw = vec![(0, 10, 7, 3, 1024), (1, 20, 7, 3, 1024), (3, 30, 9, 3, 430)];
        let t = Topo::from_raw(&raw).unwrap();
        assert_eq!(t.nr_cpu_ids(), 4);
        assert!(t.cpus[2].is_none());
        assert_eq!(t.cpus[3].as_ref().unwrap().llc, 1);
        assert!(t.asymmetric());
    }

    #[test]
    fn impossible_topologies_are_rejected() {
        assert!(Topo::from_raw(&[]).is_err());
        assert!(Topo::from_raw(&[(1024, 0, 0, 0, 1024)]).is_err());
        let big_llc: Vec<_> = (0..257).map(|c| (c, c, 0, 0, 1024)).collect();
        assert!(Topo::from_raw(&big_llc)
            .unwrap_err()
            .to_string()
            .contains("LLC 0"));
    }

    /// Any topology the kernel supports loads, e.g. a
    /// 48-core/96-thread Xeon socket as one LLC, 256-CPU LLCs, 1024 CPUs.
    #[test]
    fn big_llcs_and_1024_cpus_load() {
        let xeon: Vec<_> = (0..96).map(|c| (c, c % 48, 0, 0, 1024)).collect();
        let t = Topo::from_raw(&xeon).unwrap();
        assert_eq!((t.nr_llcs, t.smt_width), (1, 2));
        let llc256: Vec<_> = (0..256).map(|c| (c, c / 2, 0, 0, 1024)).collect();
        assert!(Topo::from_raw(&llc256).is_ok());
        // 1024 CPUs: 8 sockets (nodes) of 128 threads, one LLC each
        let big: Vec<_> = (0..1024)
            .map(|c| (c, c / 2, c / 128, c / 128, 1024))
            .collect();
        let t = Topo::from_raw(&big).unwrap();
        assert_eq!((t.nr_cpu_ids(), t.nr_llcs, t.nr_nodes), (1024, 8, 8));
        // the loader's rodata: every CPU's index in its LLC and its sibling
        let rd = crate::knobs::Rodata::new(&crate::knobs::Knobs::default(), &t);
        assert_eq!(rd.cpu_llc_idx.len(), 1024);
        assert!(rd.cpu_llc_idx.contains(&(1023, 127)));
        assert_eq!(&rd.llc_sib[7][..4], &[1, 0, 3, 2]);
    }

    #[test]
    fn capacity_override() {
        let mut t = two_socket();
        t.override_capacity("0-1:1024,2-4:430").unwrap();
        let caps: Vec<u32> = t.all().map(|c| c.capacity).collect();
        assert_eq!(caps, vec![1024, 1024, 430, 430, 430, 1024, 1024, 1024]);
        assert!(t.asymmetric());
        for (bad, want) in [
            ("0-1:2000", "1..=1024"),
            ("0-1:0", "1..=1024"),
            ("0-9:512", "CPU 8 does not exist"),
            ("0-1:512,1:256", "given twice"),
            ("3-1:512", "backwards"),
            ("x:512", "not a CPU number"),
            ("0-1", "not LIST:CAP"),
            ("0-7:512", "biggest CPU must have capacity 1024"),
            ("0-99999999999:5", "goes past 8191"),
        ] {
            let e = two_socket().override_capacity(bad).unwrap_err().to_string();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }

    #[test]
    fn cpulist_ranges() {
        assert_eq!(cpulist(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
    }
}
