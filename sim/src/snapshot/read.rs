//! Reading a snapshot: a directory as take.rs writes it, one made by hand,
//! or a sysfs root, into a validated `Machine`, with the numbers sysfs
//! does not give taken from a preset family.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Display;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use scx_arbor::topology::cpulist;

use super::{numbered_dirs, parse_cpus, parse_size, read_small, show, CPU_DIR, MANIFEST};
use crate::machine::{CpuSpec, IdleState, Machine};
use crate::presets::Family;

/// A machine read from a snapshot.
#[derive(Debug)]
pub struct Snapshot {
    pub machine: Machine,
    /// One line for stderr: which numbers are assumed, and from where.
    pub assumed: String,
}

/// One cache of one CPU (cache/indexK).
#[derive(Clone, Debug)]
struct Cache {
    index: usize,
    level: u32,
    size: Option<u64>,
    line: Option<u64>,
    shared: BTreeSet<usize>,
    shared_text: String,
}

/// What sysfs says about one online CPU.
struct CpuRaw {
    siblings: BTreeSet<usize>,
    siblings_text: String,
    /// The data/unified caches, by level.
    caches: Vec<Cache>,
    /// Index into `caches` of the LLC.
    llc: usize,
    capacity: Option<u32>,
    max_freq: Option<u64>,
    die_id: bool,
}

/// Reads a snapshot directory (as `take` writes it, or by hand), or a sysfs
/// root such as `/sys`, into a validated machine. Every error is one line
/// that starts with "the snapshot DIR:".
pub fn read(dir: &Path) -> Result<Snapshot> {
    let label = dir.display().to_string();
    let t = Tree::open(dir, &label)?;
    t.machine()
}

struct Tree {
    /// What sysfs calls devices/system/cpu and devices/system/node.
    cpu_dir: PathBuf,
    node_dir: PathBuf,
    label: String,
    /// `key: value` lines of the README, if there is one.
    manifest: BTreeMap<String, String>,
    /// The running system's own sysfs.
    live: bool,
    /// The directory's own name, for a snapshot without a README.
    dir_name: String,
}

impl Tree {
    /// Finds the cpu and node directories in DIR: DIR/devices/system/cpu
    /// (a snapshot, or /sys), DIR/sys/devices/system/cpu (a tar of /sys
    /// paths), DIR/cpu (`cp -r /sys/devices/system/{cpu,node} DIR`), or DIR
    /// itself (a cpu directory, its node directory beside it).
    fn open(dir: &Path, label: &str) -> Result<Tree> {
        let fail = |what: &str| anyhow!("the snapshot {label}: {what}");
        if dir.exists() && !dir.is_dir() {
            return Err(fail(
                "a file, not a directory: give the directory `arbor sim snapshot DIR` wrote, or a sysfs root such as /sys",
            ));
        }
        if !dir.is_dir() {
            return Err(fail("no such directory"));
        }
        let system = [
            dir.join("devices/system"),
            dir.join("sys/devices/system"),
            dir.to_path_buf(),
        ]
        .into_iter()
        .find(|s| s.join("cpu/online").is_file());
        let (cpu_dir, node_dir, named) = match system {
            Some(s) => (s.join("cpu"), s.join("node"), dir.to_path_buf()),
            None if dir.join("online").is_file() => {
                let parent = dir.parent().unwrap_or(dir);
                (dir.to_path_buf(), parent.join("node"), parent.to_path_buf())
            }
            None => {
                return Err(fail(&format!(
                    "no {CPU_DIR}/online in it (expected a directory written by `arbor sim \
                     snapshot`, or a sysfs root such as /sys)"
                )))
            }
        };
        let canon = cpu_dir.canonicalize().unwrap_or_else(|_| cpu_dir.clone());
        let live = canon == Path::new("/sys").join(CPU_DIR);
        let mut manifest = BTreeMap::new();
        let readme = [dir.join(MANIFEST), named.join(MANIFEST)]
            .into_iter()
            .find_map(|p| read_small(&p).ok().flatten());
        if let Some(text) = readme {
            for line in text.lines() {
                if let Some((k, v)) = line.split_once(": ") {
                    manifest
                        .entry(k.trim().to_string())
                        .or_insert_with(|| v.trim().to_string());
                }
            }
        }
        let dir_name = named
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "snapshot".into());
        Ok(Tree {
            cpu_dir,
            node_dir,
            label: label.to_string(),
            manifest,
            live,
            dir_name,
        })
    }

    fn fail(&self, what: impl Display) -> anyhow::Error {
        anyhow!("the snapshot {}: {what}", self.label)
    }

    /// `rel` is relative to devices/system/cpu (`cpu3/...`) or, when it
    /// starts with `node`, to devices/system/node.
    fn path(&self, rel: &str) -> PathBuf {
        if rel.starts_with("node") {
            self.node_dir.join(rel)
        } else {
            self.cpu_dir.join(rel)
        }
    }

    fn get(&self, rel: &str) -> Result<Option<String>> {
        read_small(&self.path(rel)).map_err(|e| self.fail(format!("{rel}: {e}")))
    }

    fn need(&self, rel: &str) -> Result<String> {
        self.get(rel)?
            .ok_or_else(|| self.fail(format!("{rel}: missing")))
    }

    fn cpus(&self, rel: &str, text: &str) -> Result<BTreeSet<usize>> {
        parse_cpus(text).map_err(|e| self.fail(format!("{rel}: {e}")))
    }

    fn num<T: std::str::FromStr>(&self, rel: &str, text: &str) -> Result<T> {
        text.trim()
            .parse()
            .map_err(|_| self.fail(format!("{rel}: bad number '{}'", show(text))))
    }

    fn dirs(&self, rel: &str, prefix: &str) -> Result<Vec<usize>> {
        numbered_dirs(&self.path(rel), prefix).map_err(|e| self.fail(format!("{rel}: {e:#}")))
    }

    fn cpu(&self, c: usize, online: &BTreeSet<usize>) -> Result<CpuRaw> {
        let sib_rel = format!("cpu{c}/topology/thread_siblings_list");
        let siblings_text = self.need(&sib_rel)?;
        let siblings = self.cpus(&sib_rel, &siblings_text)?;
        let cc_rel = format!("cpu{c}/topology/core_cpus_list");
        if let Some(cc) = self.get(&cc_rel)? {
            if self.cpus(&cc_rel, &cc)? != siblings {
                return Err(self.fail(format!(
                    "cpu{c}: topology/core_cpus_list '{}' and thread_siblings_list '{}' disagree",
                    show(&cc),
                    show(&siblings_text)
                )));
            }
        }
        let siblings: BTreeSet<usize> = siblings.intersection(online).copied().collect();
        if !siblings.contains(&c) {
            return Err(self.fail(format!(
                "cpu{c} is in no core: {sib_rel} '{}' does not list it",
                show(&siblings_text)
            )));
        }
        let mut caches = Vec::new();
        for k in self.dirs(&format!("cpu{c}/cache"), "index")? {
            let i = format!("cpu{c}/cache/index{k}");
            let kind = self.need(&format!("{i}/type"))?;
            let level: u32 = self.num(&format!("{i}/level"), &self.need(&format!("{i}/level"))?)?;
            let shared_rel = format!("{i}/shared_cpu_list");
            let shared_text = self.need(&shared_rel)?;
            let shared = self.cpus(&shared_rel, &shared_text)?;
            if !matches!(kind.trim(), "Data" | "Unified") {
                continue;
            }
            let size = match self.get(&format!("{i}/size"))? {
                Some(s) => Some(
                    parse_size(&s)
                        .filter(|&b| b > 0)
                        .ok_or_else(|| self.fail(format!("{i}/size: bad size '{}'", show(&s))))?,
                ),
                None => None,
            };
            let line = match self.get(&format!("{i}/coherency_line_size"))? {
                Some(s) => Some(self.num::<u64>(&format!("{i}/coherency_line_size"), &s)?),
                None => None,
            };
            caches.push(Cache {
                index: k,
                level,
                size,
                line,
                shared: shared.intersection(online).copied().collect(),
                shared_text,
            });
        }
        caches.sort_by_key(|k| (k.level, k.index));
        let Some(llc) = caches.len().checked_sub(1) else {
            return Err(self.fail(format!(
                "cpu{c} is in no LLC: it has no cache/index*/ of type Data or Unified"
            )));
        };
        if !caches[llc].shared.contains(&c) {
            return Err(self.fail(format!(
                "cpu{c} is in no LLC: cpu{c}/cache/index{}/shared_cpu_list '{}' does not list it",
                caches[llc].index,
                show(&caches[llc].shared_text)
            )));
        }
        let cap_rel = format!("cpu{c}/cpu_capacity");
        let capacity = match self.get(&cap_rel)? {
            Some(s) => {
                let v: u32 = self.num(&cap_rel, &s)?;
                if !(1..=1024).contains(&v) {
                    return Err(self.fail(format!(
                        "{cap_rel}: capacity {v} is impossible (outside 1..=1024)"
                    )));
                }
                Some(v)
            }
            None => None,
        };
        let freq_rel = format!("cpu{c}/cpufreq/cpuinfo_max_freq");
        let max_freq = match self.get(&freq_rel)? {
            Some(s) => {
                let v: u64 = self.num(&freq_rel, &s)?;
                if v == 0 || v > 1 << 40 {
                    return Err(self.fail(format!("{freq_rel}: frequency {v} kHz is impossible")));
                }
                Some(v)
            }
            None => None,
        };
        Ok(CpuRaw {
            siblings,
            siblings_text,
            caches,
            llc,
            capacity,
            max_freq,
            die_id: self.path(&format!("cpu{c}/topology/die_id")).is_file(),
        })
    }

    /// CPU -> node (sysfs node ids) and the distance rows of the nodes, in
    /// the order of the node directories, which is the order of a row.
    #[allow(clippy::type_complexity)]
    fn nodes(
        &self,
        online: &BTreeSet<usize>,
    ) -> Result<Option<(BTreeMap<usize, usize>, Vec<usize>, Vec<Vec<u32>>)>> {
        if !self.node_dir.is_dir() {
            return Ok(None);
        }
        let ids = numbered_dirs(&self.node_dir, "node").map_err(|e| self.fail(format!("{e:#}")))?;
        if ids.is_empty() {
            return Ok(None);
        }
        let mut of = BTreeMap::new();
        let mut rows = Vec::new();
        for &n in &ids {
            let rel = format!("node{n}/cpulist");
            for c in self.cpus(&rel, &self.need(&rel)?)? {
                if !online.contains(&c) {
                    continue;
                }
                if let Some(other) = of.insert(c, n) {
                    return Err(self.fail(format!("cpu{c} is in node{other} and in node{n}")));
                }
            }
            let rel = format!("node{n}/distance");
            let text = self.need(&rel)?;
            let row = text
                .split_whitespace()
                .map(|d| {
                    d.parse::<u32>()
                        .ok()
                        .filter(|&d| d <= 255)
                        .ok_or_else(|| self.fail(format!("{rel}: bad distance '{}'", show(d))))
                })
                .collect::<Result<Vec<u32>>>()?;
            if row.len() != ids.len() {
                return Err(self.fail(format!(
                    "{rel} has {} entries for {} nodes: the distance matrix must be {2}x{2}",
                    row.len(),
                    ids.len(),
                    ids.len()
                )));
            }
            rows.push(row);
        }
        Ok(Some((of, ids, rows)))
    }

    fn idle_states(&self, c: usize) -> Result<Vec<IdleState>> {
        let mut out = Vec::new();
        for k in self.dirs(&format!("cpu{c}/cpuidle"), "state")? {
            let s = format!("cpu{c}/cpuidle/state{k}");
            let name = self.need(&format!("{s}/name"))?;
            let exit_us: u64 = self.num(
                &format!("{s}/latency"),
                &self.need(&format!("{s}/latency"))?,
            )?;
            let res_us: u64 = self.num(
                &format!("{s}/residency"),
                &self.need(&format!("{s}/residency"))?,
            )?;
            if exit_us > 1 << 32 || res_us > 1 << 32 {
                return Err(self.fail(format!("{s}: latency or residency is impossibly long")));
            }
            out.push(IdleState {
                name: show(&name),
                exit_ns: exit_us * 1000,
                residency_ns: res_us * 1000,
            });
        }
        // the model's first state is its polling / WFI state (machine.rs)
        if let Some(first) = out.first_mut() {
            first.residency_ns = 0;
        }
        Ok(out)
    }

    /// The preset family, and why.
    fn family(&self, raw: &[CpuRaw], smt: usize, line: Option<u64>) -> (Family, String) {
        if let Some(arch) = self.manifest.get("arch") {
            if let Some(f) = Family::from_arch(arch) {
                return (f, format!("its README says arch {arch}"));
            }
        }
        if self.live {
            if let Some(f) = Family::from_arch(std::env::consts::ARCH) {
                return (f, format!("this machine is {}", std::env::consts::ARCH));
            }
        }
        if raw.iter().any(|c| c.die_id) {
            (Family::X86, "topology/die_id is present".into())
        } else if smt >= 4 || line == Some(128) {
            (
                Family::Power,
                format!(
                    "no topology/die_id, and {}",
                    if smt >= 4 {
                        format!("SMT{smt}")
                    } else {
                        "128-byte cache lines".into()
                    }
                ),
            )
        } else {
            (
                Family::Arm,
                "no topology/die_id, SMT below 4, no 128-byte lines".into(),
            )
        }
    }

    fn name(&self) -> String {
        if let Some(h) = self.manifest.get("hostname").filter(|h| !h.is_empty()) {
            return h.clone();
        }
        if self.live {
            if let Ok(Some(h)) = read_small(Path::new("/proc/sys/kernel/hostname")) {
                if !h.trim().is_empty() {
                    return h.trim().to_string();
                }
            }
        }
        self.dir_name.clone()
    }

    fn machine(&self) -> Result<Snapshot> {
        let online_text = self.need("online")?;
        let online = self.cpus("online", &online_text)?;
        if online.is_empty() {
            return Err(self.fail("no CPUs: 'online' lists none"));
        }
        let ids: Vec<usize> = online.iter().copied().collect();
        let raw: Vec<CpuRaw> = ids
            .iter()
            .map(|&c| self.cpu(c, &online))
            .collect::<Result<_>>()?;
        let at: BTreeMap<usize, usize> = ids.iter().enumerate().map(|(i, &c)| (c, i)).collect();
        let mut notes = Vec::new();

        // every CPU a set names must name the same set
        for (i, &c) in ids.iter().enumerate() {
            for d in &raw[i].siblings {
                let o = &raw[at[d]];
                if o.siblings != raw[i].siblings {
                    return Err(self.fail(format!(
                        "cpu{c} and cpu{d} disagree about their siblings: \
                         thread_siblings_list '{}' vs '{}'",
                        show(&raw[i].siblings_text),
                        show(&o.siblings_text)
                    )));
                }
            }
            let l = &raw[i].caches[raw[i].llc];
            for d in &l.shared {
                let o = &raw[at[d]];
                let ol = &o.caches[o.llc];
                if ol.shared != l.shared {
                    return Err(self.fail(format!(
                        "cpu{c} and cpu{d} disagree about their LLC: \
                         cpu{c}/cache/index{}/shared_cpu_list '{}' vs \
                         cpu{d}/cache/index{}/shared_cpu_list '{}'",
                        l.index,
                        show(&l.shared_text),
                        ol.index,
                        show(&ol.shared_text)
                    )));
                }
            }
        }

        // nodes: only those with online CPUs, renumbered densely
        let (node_of, node_distance) = match self.nodes(&online)? {
            None => (vec![0; ids.len()], vec![vec![10]]),
            Some((of, all, rows)) => {
                let mut node_of = Vec::new();
                for &c in &ids {
                    match of.get(&c) {
                        Some(&n) => node_of.push(n),
                        None => {
                            return Err(self
                                .fail(format!("cpu{c} is in no node (no nodeN/cpulist lists it)")))
                        }
                    }
                }
                let used: Vec<usize> = node_of
                    .iter()
                    .copied()
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect();
                if used.len() < all.len() {
                    let gone: Vec<usize> =
                        all.iter().copied().filter(|n| !used.contains(n)).collect();
                    notes.push(format!("nodes without CPUs left out: {}", cpulist(&gone)));
                }
                let col = |n: usize| all.iter().position(|&x| x == n).unwrap_or(0);
                let dist = used
                    .iter()
                    .map(|&a| used.iter().map(|&b| rows[col(a)][col(b)]).collect())
                    .collect();
                let dense = |n: usize| used.iter().position(|&x| x == n).unwrap_or(0);
                (node_of.iter().map(|&n| dense(n)).collect(), dist)
            }
        };

        // capacities: cpu_capacity, else max frequencies, else 1024
        let caps = raw.iter().filter(|c| c.capacity.is_some()).count();
        let freqs = raw.iter().filter(|c| c.max_freq.is_some()).count();
        let capacity: Vec<u32> = if caps == raw.len() {
            raw.iter().map(|c| c.capacity.unwrap_or(1024)).collect()
        } else if caps > 0 {
            let c = ids[raw.iter().position(|c| c.capacity.is_none()).unwrap_or(0)];
            return Err(self.fail(format!(
                "cpu_capacity is given for some CPUs but not for cpu{c}"
            )));
        } else if freqs == raw.len() {
            let f: Vec<u64> = raw.iter().map(|c| c.max_freq.unwrap_or(1)).collect();
            let fmax = f.iter().copied().max().unwrap_or(1);
            if f.iter().any(|&x| x != fmax) {
                notes.push("capacities scaled from cpuinfo_max_freq".into());
            }
            f.iter()
                .map(|&x| ((x * 1024 + fmax / 2) / fmax).clamp(1, 1024) as u32)
                .collect()
        } else {
            if freqs > 0 {
                notes.push("capacities 1024 (cpuinfo_max_freq is missing on some CPUs)".into());
            }
            vec![1024; raw.len()]
        };

        // dense LLC and core ids, in CPU order; a core never spans two LLCs
        let mut llc_ids = BTreeMap::new();
        let mut core_ids = BTreeMap::new();
        let mut split = false;
        let mut cpus = Vec::new();
        for (i, r) in raw.iter().enumerate() {
            let l = &r.caches[r.llc];
            let llc_key = l.shared.iter().next().copied().unwrap_or(ids[i]);
            let n = llc_ids.len();
            let llc = *llc_ids.entry(llc_key).or_insert(n);
            if !r.siblings.is_subset(&l.shared) {
                split = true;
            }
            let core_key = (r.siblings.iter().next().copied().unwrap_or(ids[i]), llc);
            let n = core_ids.len();
            let core = *core_ids.entry(core_key).or_insert(n);
            cpus.push(CpuSpec {
                id: i,
                core,
                llc,
                node: node_of[i],
                capacity: capacity[i],
            });
        }
        if split {
            notes.push(
                "cores whose threads are in two LLCs split at the LLC (as the power10 preset)"
                    .into(),
            );
        }
        if ids.last().copied() != Some(ids.len() - 1) {
            notes.push(format!(
                "CPUs renumbered 0-{} from the online {}",
                ids.len() - 1,
                show(&online_text)
            ));
        }
        let mut per_core = BTreeMap::new();
        for c in &cpus {
            *per_core.entry(c.core).or_insert(0usize) += 1;
        }
        let smt = per_core.values().copied().max().unwrap_or(1);

        // caches: the first CPU's; the core cache is the level below the LLC
        let first = &raw[0];
        let llc = &first.caches[first.llc];
        let (family, why) = self.family(&raw, smt, llc.line);
        let d = family.defaults();
        let mut cache = d.cache.clone();
        cache.source = d.snapshot_cache_source;
        let mut missing = Vec::new();
        match llc.size {
            Some(s) => cache.llc_bytes = s,
            None => missing.push("LLC size"),
        }
        match llc.line {
            Some(l) if (16..=1024).contains(&l) => cache.line_bytes = l,
            Some(l) => {
                return Err(self.fail(format!(
                    "cpu{}/cache/index{}/coherency_line_size: {l} bytes is impossible",
                    ids[0], llc.index
                )))
            }
            None => missing.push("line size"),
        }
        match first.caches[..first.llc]
            .iter()
            .rev()
            .find(|k| k.level < llc.level)
        {
            Some(k) => match k.size {
                Some(s) => cache.core_bytes = s,
                None => missing.push("core cache size"),
            },
            None => missing.push("core cache (no level below the LLC)"),
        }
        if !missing.is_empty() {
            notes.push(format!("{} from {} too", missing.join(", "), d.preset));
        }

        let mut smt_spec = d.smt.clone();
        if smt_spec.throughput.len() < smt {
            // beyond the table, more threads add nothing to the core's total
            let k = smt_spec.throughput.len();
            let total = smt_spec.throughput[k - 1] * k as f64;
            for n in k + 1..=smt {
                smt_spec.throughput.push(total / n as f64);
            }
            notes.push(format!(
                "SMT throughput extended from {k} to {smt} threads at a constant core total"
            ));
        }

        let mut idle_states = self.idle_states(ids[0])?;
        let idle_source = if idle_states.is_empty() {
            notes.push(format!("idle states from {} too (no cpuidle)", d.preset));
            idle_states = d.idle.0.clone();
            d.idle.1
        } else {
            "the snapshot's cpuidle states (exit latency, target residency) of its first CPU; \
             the first state's residency taken as 0 (the model's polling state)"
        };

        let name = self.name();
        let nr_llcs = llc_ids.len();
        let nr_nodes = node_distance.len();
        let mut about = format!(
            "{name} as sysfs shows it (read from {}): {} CPUs, {} cores, SMT{smt}, {nr_llcs} \
             LLC(s), {nr_nodes} node(s)",
            self.label,
            cpus.len(),
            core_ids.len()
        );
        for k in ["kernel", "date"] {
            if let Some(v) = self.manifest.get(k) {
                about.push_str(&format!(", {k} {v}"));
            }
        }
        about.push_str(&format!(
            "; latencies, mlp and SMT throughput from the {} preset ({} family)",
            d.preset,
            family.name()
        ));
        let machine = Machine {
            name: name.clone(),
            about,
            cpus,
            node_distance,
            cache,
            smt: smt_spec,
            idle_states,
            idle_source,
            presence: Vec::new(),
        };
        machine
            .validate()
            .and_then(|_| machine.topo().map(|_| ()))
            .map_err(|e| self.fail(format!("{e:#}")))?;
        let mut assumed = format!(
            "arbor sim: '{name}' from {}: {} family ({why}): cache and memory latencies, mlp and \
             SMT throughput assumed from the {} preset",
            self.label,
            family.name(),
            d.preset
        );
        for n in notes {
            assumed.push_str("; ");
            assumed.push_str(&n);
        }
        assumed.push_str(" (docs/sim/cost-model.md, \"Your own machine\")");
        Ok(Snapshot { machine, assumed })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{big_little, cache, cpu, put, two_node, Tmp};
    use super::super::NODE_DIR;
    use super::*;

    fn count(m: &Machine, f: impl Fn(&CpuSpec) -> usize) -> usize {
        m.cpus.iter().map(f).collect::<BTreeSet<_>>().len()
    }

    #[test]
    fn two_node_smt2_box() {
        let t = Tmp::new("two-node");
        two_node(&t.0);
        let s = read(&t.0).unwrap();
        let m = &s.machine;
        assert_eq!(m.nr_cpus(), 8);
        assert_eq!(count(m, |c| c.core), 4);
        assert_eq!(count(m, |c| c.llc), 2);
        assert_eq!(count(m, |c| c.node), 2);
        assert_eq!(m.smt_width(), 2);
        // x86 numbering: CPU n and n+4 are siblings, 0,1,4,5 share an LLC
        assert_eq!(m.cpus[0].core, m.cpus[4].core);
        assert_ne!(m.cpus[0].core, m.cpus[1].core);
        assert_eq!(m.cpus[1].llc, m.cpus[5].llc);
        assert_ne!(m.cpus[1].llc, m.cpus[2].llc);
        assert_eq!((m.cpus[5].node, m.cpus[6].node), (0, 1));
        assert_eq!(m.node_distance, vec![vec![10, 21], vec![21, 10]]);
        assert!(m.cpus.iter().all(|c| c.capacity == 1024));
        assert_eq!(m.cache.llc_bytes, 16 << 20);
        assert_eq!(m.cache.core_bytes, 1 << 20);
        assert_eq!(m.cache.line_bytes, 64);
        let idle: Vec<(&str, u64, u64)> = m
            .idle_states
            .iter()
            .map(|s| (s.name.as_str(), s.exit_ns, s.residency_ns))
            .collect();
        assert_eq!(
            idle,
            vec![("POLL", 0, 0), ("C1", 1000, 2000), ("C6", 100_000, 400_000)]
        );
        // no README: the dir's name, the x86 tables because of die_id
        assert_eq!(m.name, t.0.file_name().unwrap().to_string_lossy());
        assert!(
            s.assumed
                .contains("x86 family (topology/die_id is present)"),
            "{}",
            s.assumed
        );
        assert!(s.assumed.contains("2s2c2t"), "{}", s.assumed);
        assert!(!s.assumed.contains('\n'));
        assert_eq!(m.smt.throughput, vec![1.0, 0.6]);
        let topo = m.topo().unwrap();
        assert_eq!((topo.nr_llcs, topo.nr_nodes, topo.smt_width), (2, 2, 2));
    }

    #[test]
    fn big_little_capacities() {
        let t = Tmp::new("big-little");
        big_little(&t.0);
        let s = read(&t.0).unwrap();
        let m = &s.machine;
        let caps: Vec<u32> = m.cpus.iter().map(|c| c.capacity).collect();
        assert_eq!(caps, vec![1024, 1024, 446, 446, 446, 446]);
        assert_eq!(count(m, |c| c.llc), 2);
        assert_eq!(count(m, |c| c.core), 6);
        assert_eq!(m.node_distance, vec![vec![10]]);
        assert!(m.topo().unwrap().asymmetric());
        // the first CPU's caches: 1 MiB L2 = LLC, 32 KiB L1D below it
        assert_eq!((m.cache.llc_bytes, m.cache.core_bytes), (1 << 20, 32 << 10));
        assert!(s.assumed.contains("ARM family"), "{}", s.assumed);
        assert!(
            s.assumed.contains("idle states from hikey"),
            "{}",
            s.assumed
        );
        assert_eq!(m.idle_states[0].name, "WFI");

        // without cpu_capacity: from the maximum frequencies
        for c in 0..6 {
            std::fs::remove_file(t.0.join(format!("{CPU_DIR}/cpu{c}/cpu_capacity"))).unwrap();
            let f = if c < 2 { "2000000" } else { "1000000" };
            cpu(&t.0, c, "cpufreq/cpuinfo_max_freq", f);
        }
        let s = read(&t.0).unwrap();
        let caps: Vec<u32> = s.machine.cpus.iter().map(|c| c.capacity).collect();
        assert_eq!(caps, vec![1024, 1024, 512, 512, 512, 512]);
        assert!(s.assumed.contains("cpuinfo_max_freq"), "{}", s.assumed);

        // equal frequencies, or none: 1024
        for c in 0..6 {
            cpu(&t.0, c, "cpufreq/cpuinfo_max_freq", "1800000");
        }
        let s = read(&t.0).unwrap();
        assert!(s.machine.cpus.iter().all(|c| c.capacity == 1024));
    }

    #[test]
    fn readme_names_the_machine_and_its_arch_picks_the_family() {
        let t = Tmp::new("readme");
        big_little(&t.0);
        put(
            &t.0,
            MANIFEST,
            "A snapshot.\n\nhostname: boxy\nkernel: Linux 6.99\narch: ppc64le\ndate: 2025-01-01T00:00:00Z",
        );
        let s = read(&t.0).unwrap();
        assert_eq!(s.machine.name, "boxy");
        assert!(
            s.assumed
                .contains("POWER family (its README says arch ppc64le)"),
            "{}",
            s.assumed
        );
        assert!(
            s.machine.about.contains("kernel Linux 6.99"),
            "{}",
            s.machine.about
        );
        assert_eq!(
            s.machine.cache.line_bytes, 64,
            "sizes come from the snapshot"
        );
        assert_eq!(s.machine.cache.llc_hit_ns, 10.0, "latencies from power10");
    }

    #[test]
    fn other_paths_to_the_same_tree() {
        let t = Tmp::new("paths");
        two_node(&t.0.join("sys"));
        let via_parent = read(&t.0).unwrap().machine;
        let via_cpu_dir = read(&t.0.join("sys").join(CPU_DIR)).unwrap().machine;
        assert_eq!(via_parent.cpus, via_cpu_dir.cpus);
        assert_eq!(via_parent.nr_cpus(), 8);
        assert_eq!(
            via_cpu_dir.name, "system",
            "named after the parent, not 'cpu'"
        );
        // cp -r /sys/devices/system/{cpu,node} DIR
        let cp = t.0.join("sys/devices/system");
        let via_cp = read(&cp).unwrap().machine;
        assert_eq!(via_cp.cpus, via_parent.cpus);
        assert_eq!(via_cp.node_distance, vec![vec![10, 21], vec![21, 10]]);
        // tar's NUL padding
        let online = cp.join("cpu/online");
        std::fs::write(&online, b"0-7\n\0\0\0\0").unwrap();
        assert_eq!(read(&cp).unwrap().machine.nr_cpus(), 8);
        // a tar of /sys/... with a README beside sys/
        put(&t.0, MANIFEST, "hostname: tarred");
        assert_eq!(read(&t.0).unwrap().machine.name, "tarred");
        let e = read(&t.0.join("nope")).unwrap_err().to_string();
        assert!(e.contains("nope") && e.contains("no such directory"), "{e}");
        let empty = Tmp::new("empty");
        let e = read(&empty.0).unwrap_err().to_string();
        assert!(e.contains("no devices/system/cpu/online in it"), "{e}");
    }

    #[test]
    fn offline_holes_are_renumbered_and_cores_split_at_the_llc() {
        let t = Tmp::new("holes");
        two_node(&t.0);
        // CPUs 4-7 offline: the kernel drops them from every list
        put(&t.0, &format!("{CPU_DIR}/online"), "0-3");
        let m = read(&t.0).unwrap().machine;
        assert_eq!((m.nr_cpus(), m.smt_width()), (4, 1));
        put(&t.0, &format!("{CPU_DIR}/online"), "0,2,4,6");
        let s = read(&t.0).unwrap();
        assert_eq!(s.machine.nr_cpus(), 4);
        assert!(
            s.assumed.contains("renumbered 0-3 from the online 0,2,4,6"),
            "{}",
            s.assumed
        );
        assert_eq!(s.machine.cpus[0].core, s.machine.cpus[2].core); // old 0 and 4

        // POWER10 style: an SMT8 core's even and odd threads have their own LLC
        let p = Tmp::new("power");
        put(&p.0, &format!("{CPU_DIR}/online"), "0-7");
        for c in 0..8 {
            cpu(&p.0, c, "topology/thread_siblings_list", "0-7");
            let g = if c % 2 == 0 { "0,2,4,6" } else { "1,3,5,7" };
            cache(&p.0, c, 0, 2, "Unified", "1024K", g);
            cache(&p.0, c, 1, 3, "Unified", "4096K", g);
        }
        let s = read(&p.0).unwrap();
        let m = &s.machine;
        assert_eq!(
            (count(m, |c| c.core), count(m, |c| c.llc), m.smt_width()),
            (2, 2, 4)
        );
        assert!(s.assumed.contains("split at the LLC"), "{}", s.assumed);
        assert!(
            s.assumed
                .contains("POWER family (no topology/die_id, and SMT4)"),
            "{}",
            s.assumed
        );
    }

    /// Each malformed tree gives one line naming the snapshot and the fault.
    #[test]
    fn malformed_snapshots_are_one_line_errors() {
        type Break = fn(&Path);
        let cases: Vec<(&str, Break, &str)> = vec![
            (
                "zero cpus",
                |r| put(r, &format!("{CPU_DIR}/online"), ""),
                "no CPUs",
            ),
            (
                "no online",
                |r| std::fs::remove_file(r.join(CPU_DIR).join("online")).unwrap(),
                "no devices/system/cpu/online in it",
            ),
            (
                "bad cpulist",
                |r| cpu(r, 3, "topology/core_cpus_list", "x"),
                "cpu3/topology/core_cpus_list: bad cpu list 'x'",
            ),
            (
                "huge range",
                |r| cpu(r, 3, "topology/thread_siblings_list", "0-99999999999"),
                "bad cpu list '0-99999999999' (CPU numbers above 65535)",
            ),
            (
                "backwards range",
                |r| put(r, &format!("{CPU_DIR}/online"), "7-0"),
                "online: bad cpu list '7-0'",
            ),
            (
                "siblings disagree",
                |r| {
                    cpu(r, 4, "topology/thread_siblings_list", "4");
                    cpu(r, 4, "topology/core_cpus_list", "4");
                },
                "cpu0 and cpu4 disagree about their siblings",
            ),
            (
                "core_cpus_list disagrees",
                |r| cpu(r, 4, "topology/core_cpus_list", "4"),
                "cpu4: topology/core_cpus_list '4' and thread_siblings_list '0,4' disagree",
            ),
            (
                "cpu in no core",
                |r| {
                    cpu(r, 2, "topology/thread_siblings_list", "6");
                    cpu(r, 2, "topology/core_cpus_list", "6");
                },
                "cpu2 is in no core",
            ),
            (
                "cpu in no llc",
                |r| std::fs::remove_dir_all(r.join(CPU_DIR).join("cpu5/cache")).unwrap(),
                "cpu5 is in no LLC",
            ),
            (
                "llc not listing the cpu",
                |r| cpu(r, 5, "cache/index3/shared_cpu_list", "0-1,4"),
                "cpu5 is in no LLC: cpu5/cache/index3/shared_cpu_list '0-1,4'",
            ),
            (
                "llcs disagree",
                |r| cpu(r, 4, "cache/index3/shared_cpu_list", "0-1,4-6"),
                "disagree about their LLC",
            ),
            (
                "missing required file",
                |r| {
                    std::fs::remove_file(r.join(CPU_DIR).join("cpu6/topology/thread_siblings_list"))
                        .unwrap()
                },
                "cpu6/topology/thread_siblings_list: missing",
            ),
            (
                "distance row too long",
                |r| put(r, &format!("{NODE_DIR}/node1/distance"), "21 10 30"),
                "node1/distance has 3 entries for 2 nodes: the distance matrix must be 2x2",
            ),
            (
                "distance not a number",
                |r| put(r, &format!("{NODE_DIR}/node0/distance"), "10 far"),
                "node0/distance: bad distance 'far'",
            ),
            (
                "distance to self",
                |r| put(r, &format!("{NODE_DIR}/node0/distance"), "12 21"),
                "node 0's distance to itself must be 10",
            ),
            (
                "cpu in no node",
                |r| put(r, &format!("{NODE_DIR}/node1/cpulist"), "2-3,6"),
                "cpu7 is in no node",
            ),
            (
                "cpu in two nodes",
                |r| put(r, &format!("{NODE_DIR}/node1/cpulist"), "1-3,6-7"),
                "cpu1 is in node0 and in node1",
            ),
            (
                "llc spans nodes",
                |r| {
                    put(r, &format!("{NODE_DIR}/node0/cpulist"), "0,4-5");
                    put(r, &format!("{NODE_DIR}/node1/cpulist"), "1-3,6-7");
                },
                "LLC 0 spans two nodes",
            ),
            (
                "capacity 0",
                |r| {
                    for c in 0..8 {
                        cpu(r, c, "cpu_capacity", if c == 3 { "0" } else { "1024" });
                    }
                },
                "cpu3/cpu_capacity: capacity 0 is impossible (outside 1..=1024)",
            ),
            (
                "capacity above 1024",
                |r| {
                    for c in 0..8 {
                        cpu(r, c, "cpu_capacity", if c == 2 { "2048" } else { "1024" });
                    }
                },
                "cpu2/cpu_capacity: capacity 2048 is impossible",
            ),
            (
                "capacity not a number",
                |r| cpu(r, 1, "cpu_capacity", "big"),
                "cpu1/cpu_capacity: bad number 'big'",
            ),
            (
                "capacity on some cpus only",
                |r| cpu(r, 1, "cpu_capacity", "512"),
                "cpu_capacity is given for some CPUs but not for cpu0",
            ),
            (
                "bad cache size",
                |r| cpu(r, 0, "cache/index3/size", "lots"),
                "cpu0/cache/index3/size: bad size 'lots'",
            ),
            (
                "cache size 0",
                |r| cpu(r, 0, "cache/index2/size", "0K"),
                "cpu0/cache/index2/size: bad size '0K'",
            ),
            (
                "bad idle latency",
                |r| cpu(r, 0, "cpuidle/state1/latency", "-1"),
                "cpu0/cpuidle/state1/latency: bad number '-1'",
            ),
            (
                "frequency 0",
                |r| {
                    for c in 0..8 {
                        cpu(r, c, "cpufreq/cpuinfo_max_freq", "0");
                    }
                },
                "cpu0/cpufreq/cpuinfo_max_freq: frequency 0 kHz is impossible",
            ),
        ];
        for (what, break_it, want) in cases {
            let t = Tmp::new("bad");
            two_node(&t.0);
            break_it(&t.0);
            let e = match read(&t.0) {
                Ok(_) => panic!("{what}: read a broken snapshot"),
                Err(e) => format!("{e:#}"),
            };
            assert!(!e.contains('\n'), "{what}: {e}");
            assert!(
                e.starts_with(&format!("the snapshot {}: ", t.0.display())),
                "{what}: {e}"
            );
            assert!(e.contains(want), "{what}: want '{want}' in: {e}");
        }
    }
}
