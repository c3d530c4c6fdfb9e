//! The simulated machine: its CPUs (core, LLC, node, capacity), NUMA
//! distances, caches and SMT sharing. Presets live in `presets.rs`; a
//! snapshot of a real machine is read by `snapshot/read.rs`. Everything the
//! scheduler sees of the machine goes through `scx_arbor::topology::Topo`,
//! the same type scx_arbor builds from sysfs.

use anyhow::{bail, Result};
use serde::Serialize;

/// One CPU. `core` and `llc` are machine-wide ids (not per socket).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CpuSpec {
    pub id: usize,
    pub core: usize,
    pub llc: usize,
    pub node: usize,
    /// 1..=1024, 1024 = the biggest CPU (the kernel's cpu_capacity).
    pub capacity: u32,
}

/// Caches and memory, as a task's working set sees them. Latencies are
/// load-to-use, in ns, for one 64-byte line; `mlp` is how many misses a
/// refill keeps in flight at once (memory-level parallelism), so refilling
/// N lines from a level costs N * latency / mlp.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CacheSpec {
    pub line_bytes: u64,
    /// Private to a core (shared by its SMT threads): L2 on x86 and POWER, the
    /// cluster L2 on small ARM parts is modelled as the LLC instead.
    pub core_bytes: u64,
    /// One LLC (shared by the CPUs of an LLC).
    pub llc_bytes: u64,
    pub core_hit_ns: f64,
    pub llc_hit_ns: f64,
    /// A line held by another LLC of the same node (cache-to-cache transfer).
    pub remote_llc_ns: f64,
    /// Local DRAM.
    pub dram_ns: f64,
    /// DRAM of another node, at the SLIT distance 20 (scaled linearly by
    /// distance / 20 beyond the local latency for other distances).
    pub remote_dram_ns: f64,
    pub mlp: f64,
    /// Where each number comes from.
    pub source: &'static str,
}

/// SMT sharing: `throughput[k-1]` is the speed of each busy thread of a
/// core when k of its threads are busy (1.0 for k = 1).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SmtSpec {
    pub throughput: Vec<f64>,
    pub source: &'static str,
}

/// One idle state (C-state): entered when the CPU expects to stay idle at
/// least `residency_ns`; leaving it costs `exit_ns` before the CPU runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IdleState {
    /// As cpuidle names it (owned: a snapshot's names are read at run time).
    pub name: String,
    pub exit_ns: u64,
    pub residency_ns: u64,
}

/// Whether a CPU id exists and is online when a run starts, as the
/// kernel's masks have it: an `Online` CPU is in cpu_possible_mask and
/// cpu_online_mask; an `Offline` one is possible (a hotplug event may bring
/// it up) but in no idle or online mask and never runs a task; an `Absent`
/// id is a hole in sparse numbering (not in cpu_possible_mask): it appears
/// in no mask ever, but counts towards nr_cpu_ids (highest possible id + 1,
/// what scx_bpf_nr_cpu_ids() returns), so the highest id is never absent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Presence {
    #[default]
    Online,
    Offline,
    Absent,
}

#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    pub name: String,
    /// One line: what the machine is, and where its shape comes from.
    pub about: String,
    pub cpus: Vec<CpuSpec>,
    /// SLIT distances, `node_distance[a][b]`, 10 = local.
    pub node_distance: Vec<Vec<u32>>,
    pub cache: CacheSpec,
    pub smt: SmtSpec,
    /// Shallowest first; the first one has residency 0 (polling / WFI).
    pub idle_states: Vec<IdleState>,
    /// Where the idle states come from.
    pub idle_source: &'static str,
    /// Each CPU id's presence (`Presence`); empty: every CPU is online.
    /// An absent id's `cpus` entry is a placeholder that nothing uses.
    pub presence: Vec<Presence>,
}

impl Machine {
    /// nr_cpu_ids: the highest possible CPU id + 1 (absent ids included).
    pub fn nr_cpus(&self) -> usize {
        self.cpus.len()
    }

    pub fn presence(&self, cpu: usize) -> Presence {
        self.presence.get(cpu).copied().unwrap_or_default()
    }

    /// In cpu_possible_mask: not a hole of sparse numbering.
    pub fn possible(&self, cpu: usize) -> bool {
        cpu < self.cpus.len() && self.presence(cpu) != Presence::Absent
    }

    /// Online when the run starts.
    pub fn online_at_start(&self, cpu: usize) -> bool {
        cpu < self.cpus.len() && self.presence(cpu) == Presence::Online
    }

    /// Marks the CPUs of `list` with `p`; one-line errors for an id the
    /// machine does not have.
    pub fn set_presence(&mut self, list: &[usize], p: Presence) -> Result<()> {
        if self.presence.is_empty() {
            self.presence = vec![Presence::Online; self.cpus.len()];
        }
        for &c in list {
            if c >= self.cpus.len() {
                bail!(
                    "machine '{}': CPU {c} is named {} but the machine has CPUs 0-{}",
                    self.name,
                    match p {
                        Presence::Offline => "offline",
                        Presence::Absent => "absent",
                        Presence::Online => "online",
                    },
                    self.cpus.len() - 1
                );
            }
            self.presence[c] = p;
        }
        Ok(())
    }

    /// Checks that the machine is possible; one-line errors.
    pub fn validate(&self) -> Result<()> {
        if self.cpus.is_empty() {
            bail!("machine '{}' has no CPUs", self.name);
        }
        if !self.presence.is_empty() && self.presence.len() != self.cpus.len() {
            bail!(
                "machine '{}': presence given for {} CPU ids, the machine has {}",
                self.name,
                self.presence.len(),
                self.cpus.len()
            );
        }
        if !(0..self.cpus.len()).any(|c| self.online_at_start(c)) {
            bail!("machine '{}': no CPU is online", self.name);
        }
        // nr_cpu_ids is the highest possible id + 1 (kernel/smp.c
        // setup_nr_cpu_ids): the last id is never a hole
        if self.presence(self.cpus.len() - 1) == Presence::Absent {
            bail!(
                "machine '{}': the highest CPU id ({}) is absent; nr_cpu_ids ends at the last possible CPU",
                self.name,
                self.cpus.len() - 1
            );
        }
        for (i, c) in self.cpus.iter().enumerate() {
            if c.id != i {
                bail!(
                    "machine '{}': CPU ids must be 0..n in order (found {} at {i})",
                    self.name,
                    c.id
                );
            }
            if !(1..=1024).contains(&c.capacity) {
                bail!(
                    "machine '{}': CPU {} has capacity {}, outside 1..=1024",
                    self.name,
                    c.id,
                    c.capacity
                );
            }
        }
        let nodes = self.cpus.iter().map(|c| c.node).max().unwrap_or(0) + 1;
        if self.node_distance.len() != nodes || self.node_distance.iter().any(|r| r.len() != nodes)
        {
            bail!(
                "machine '{}': the node distance table must be {nodes}x{nodes}",
                self.name
            );
        }
        for a in 0..nodes {
            if self.node_distance[a][a] != 10 {
                bail!(
                    "machine '{}': node {a}'s distance to itself must be 10",
                    self.name
                );
            }
            for b in 0..nodes {
                if a != b && self.node_distance[a][b] <= 10 {
                    bail!("machine '{}': distance {a}->{b} must exceed 10", self.name);
                }
            }
        }
        // an SMT core and an LLC never straddle a node; a core never straddles an LLC
        // (a core or an LLC that spans two is found in one pass; the pairs
        // are then walked for the first CPU of one only, to name what the
        // all-pairs check names)
        let real = || self.cpus.iter().filter(|c| self.possible(c.id));
        let mut core_llc = std::collections::BTreeMap::new();
        let mut llc_node = std::collections::BTreeMap::new();
        let (mut bad_core, mut bad_llc) = (Vec::new(), Vec::new());
        for c in real() {
            if *core_llc.entry(c.core).or_insert(c.llc) != c.llc {
                bad_core.push(c.core);
            }
            if *llc_node.entry(c.llc).or_insert(c.node) != c.node {
                bad_llc.push(c.llc);
            }
        }
        if let Some(a) = real().find(|a| bad_core.contains(&a.core) || bad_llc.contains(&a.llc)) {
            for b in real() {
                if a.core == b.core && a.llc != b.llc {
                    bail!("machine '{}': core {} spans two LLCs", self.name, a.core);
                }
                if a.llc == b.llc && a.node != b.node {
                    bail!("machine '{}': LLC {} spans two nodes", self.name, a.llc);
                }
            }
        }
        let width = self.smt_width();
        if self.smt.throughput.len() < width {
            bail!(
                "machine '{}': SMT throughput given for {} threads, cores have {width}",
                self.name,
                self.smt.throughput.len()
            );
        }
        Ok(())
    }

    pub fn smt_width(&self) -> usize {
        let mut per_core = std::collections::BTreeMap::new();
        for c in self.cpus.iter().filter(|c| self.possible(c.id)) {
            *per_core.entry(c.core).or_insert(0usize) += 1;
        }
        per_core.values().copied().max().unwrap_or(1)
    }

    /// The scheduler's view, built by the same code scx_arbor uses on sysfs,
    /// of the CPUs online when the run starts (scx_utils reads the online
    /// CPUs' topology: an offline CPU's topology directory is gone).
    pub fn topo(&self) -> Result<scx_arbor::topology::Topo> {
        self.topo_of(&|c| self.online_at_start(c))
    }

    /// The scheduler's view of the CPUs `online` says are online (a
    /// reload after a hotplug event reads the topology again).
    pub fn topo_of(&self, online: &dyn Fn(usize) -> bool) -> Result<scx_arbor::topology::Topo> {
        let raw: Vec<_> = self
            .cpus
            .iter()
            .filter(|c| online(c.id))
            .map(|c| (c.id, c.core, c.llc, c.node, c.capacity))
            .collect();
        scx_arbor::topology::Topo::from_raw(&raw)
    }
}

/// Builds a regular machine: `nodes` x `llcs_per_node` x `cores_per_llc` x
/// `smt` threads, numbered as Linux numbers x86 (all first threads of every
/// core, then all second threads: CPU n and n + ncores are siblings) when
/// `x86_numbering`, else consecutively (POWER, ARM: siblings are adjacent).
pub struct Shape {
    pub nodes: usize,
    pub llcs_per_node: usize,
    pub cores_per_llc: usize,
    pub smt: usize,
    pub x86_numbering: bool,
}

impl Shape {
    pub fn cpus(&self, capacity: impl Fn(usize) -> u32) -> Vec<CpuSpec> {
        let cores = self.nodes * self.llcs_per_node * self.cores_per_llc;
        let n = cores * self.smt;
        (0..n)
            .map(|id| {
                let (core, _thread) = if self.x86_numbering {
                    (id % cores, id / cores)
                } else {
                    (id / self.smt, id % self.smt)
                };
                let llc = core / self.cores_per_llc;
                let node = llc / self.llcs_per_node;
                CpuSpec {
                    id,
                    core,
                    llc,
                    node,
                    capacity: capacity(core),
                }
            })
            .collect()
    }
}

/// A symmetric distance table: 10 on the diagonal, `remote` elsewhere.
pub fn flat_distance(nodes: usize, remote: u32) -> Vec<Vec<u32>> {
    (0..nodes)
        .map(|a| {
            (0..nodes)
                .map(|b| if a == b { 10 } else { remote })
                .collect()
        })
        .collect()
}
