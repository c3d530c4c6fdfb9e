//! The cache model: what a task pays, when it starts running, to bring its
//! working set and the data it was sent back into the caches it now runs
//! under. Every number comes from the machine's `CacheSpec` (presets.rs,
//! sourced in docs/sim/cost-model.md); nothing here is tuned.
//!
//! - Each core cache and each LLC keeps a running count of the bytes filled
//!   into it. A task that left a cache keeps a resident fraction that
//!   decays as exp(-filled since / cache size): random replacement, each new
//!   line evicts a resident one with probability resident / size.
//! - On switch-in, the part of the task's working set (up to the cache's
//!   size) that is no longer resident is refilled: from the LLC if it is
//!   still there, else from the LLC it last ran under (same node), else
//!   from memory (its home node's, remote if the task now runs elsewhere).
//!   A refill of N lines from a level of latency L costs N * L / mlp.
//! - Data a waker wrote for its wakee (a message) is read from the waker's
//!   CPU at the latency of their distance.
//! - Threads of one process that share data pay, per line they touch, the
//!   cross-LLC latency instead of the LLC's for the share of the process's
//!   recent run time spent in other LLCs (seed 002's premise).

use crate::machine::{CacheSpec, Machine};

/// Where a task's cached state is.
#[derive(Clone, Debug, Default)]
pub struct Warmth {
    pub core: Option<usize>,
    pub llc: Option<usize>,
    pub core_frac: f64,
    pub llc_frac: f64,
    pub core_fill_snap: f64,
    pub llc_fill_snap: f64,
    /// NUMA node where its memory lives (first touch), once it has run.
    pub home: Option<usize>,
}

pub struct CacheModel {
    pub spec: CacheSpec,
    pub core_fill: Vec<f64>,
    pub llc_fill: Vec<f64>,
    cpu_core: Vec<usize>,
    cpu_llc: Vec<usize>,
    cpu_node: Vec<usize>,
    node_distance: Vec<Vec<u32>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Distance {
    SameCpu,
    SameCore,
    SameLlc,
    CrossLlc,
    CrossNode,
}

impl CacheModel {
    pub fn new(m: &Machine) -> CacheModel {
        let cores = m.cpus.iter().map(|c| c.core).max().unwrap_or(0) + 1;
        let llcs = m.cpus.iter().map(|c| c.llc).max().unwrap_or(0) + 1;
        CacheModel {
            spec: m.cache.clone(),
            core_fill: vec![0.0; cores],
            llc_fill: vec![0.0; llcs],
            cpu_core: m.cpus.iter().map(|c| c.core).collect(),
            cpu_llc: m.cpus.iter().map(|c| c.llc).collect(),
            cpu_node: m.cpus.iter().map(|c| c.node).collect(),
            node_distance: m.node_distance.clone(),
        }
    }

    pub fn distance(&self, a: usize, b: usize) -> Distance {
        if a == b {
            Distance::SameCpu
        } else if self.cpu_core[a] == self.cpu_core[b] {
            Distance::SameCore
        } else if self.cpu_llc[a] == self.cpu_llc[b] {
            Distance::SameLlc
        } else if self.cpu_node[a] == self.cpu_node[b] {
            Distance::CrossLlc
        } else {
            Distance::CrossNode
        }
    }

    pub fn llc_of(&self, cpu: usize) -> usize {
        self.cpu_llc[cpu]
    }

    pub fn node_of(&self, cpu: usize) -> usize {
        self.cpu_node[cpu]
    }

    /// Latency of one line held at `from`, read at `to`.
    pub fn line_latency(&self, from: usize, to: usize) -> f64 {
        let s = &self.spec;
        match self.distance(from, to) {
            Distance::SameCpu | Distance::SameCore => s.core_hit_ns,
            Distance::SameLlc => s.llc_hit_ns,
            Distance::CrossLlc => s.remote_llc_ns,
            Distance::CrossNode => self.dram_latency(self.cpu_node[from], self.cpu_node[to]),
        }
    }

    /// Memory latency from `home` node seen at `node`: local, or the extra
    /// over local scaled by SLIT distance / 20 (the spec's remote figure is
    /// at 20), as docs/sim/cost-model.md defines it and the presets store it.
    pub fn dram_latency(&self, home: usize, node: usize) -> f64 {
        let s = &self.spec;
        if home == node {
            return s.dram_ns;
        }
        let d = self.node_distance[home][node] as f64;
        s.dram_ns + (s.remote_dram_ns - s.dram_ns) * d / 20.0
    }

    /// Refill cost (ns) of a task with `ws` bytes of working set starting on
    /// `cpu`; updates its warmth and the caches' fill counters.
    pub fn switch_in(&mut self, w: &mut Warmth, ws: u64, cpu: usize) -> f64 {
        let s = &self.spec;
        let (core, llc, node) = (self.cpu_core[cpu], self.cpu_llc[cpu], self.cpu_node[cpu]);
        let home = *w.home.get_or_insert(node);
        let ws = ws as f64;
        let ws_core = ws.min(s.core_bytes as f64);
        let ws_llc = ws.min(s.llc_bytes as f64);
        let resident = |frac: f64, filled: f64, snap: f64, size: u64| {
            frac * (-(filled - snap).max(0.0) / size.max(1) as f64).exp()
        };
        let f_core = if w.core == Some(core) {
            resident(
                w.core_frac,
                self.core_fill[core],
                w.core_fill_snap,
                s.core_bytes,
            )
        } else {
            0.0
        };
        let f_llc = if w.llc == Some(llc) {
            resident(w.llc_frac, self.llc_fill[llc], w.llc_fill_snap, s.llc_bytes)
        } else {
            0.0
        };
        // still under the LLC it left (same node): a cache-to-cache transfer
        let f_old = match w.llc {
            Some(old) if old != llc && self.node_of_llc(old) == Some(node) => {
                resident(w.llc_frac, self.llc_fill[old], w.llc_fill_snap, s.llc_bytes)
            }
            _ => 0.0,
        };
        let far = ws_llc * (1.0 - f_llc);
        let near = (ws_core * (1.0 - f_core) - far * ws_core / ws_llc.max(1.0)).max(0.0);
        let far_lat = f_old * s.remote_llc_ns + (1.0 - f_old) * self.dram_latency(home, node);
        let line = s.line_bytes as f64;
        let cost = (near / line * s.llc_hit_ns + far / line * far_lat) / s.mlp;
        self.core_fill[core] += near + far * ws_core / ws_llc.max(1.0);
        self.llc_fill[llc] += far;
        w.core = Some(core);
        w.llc = Some(llc);
        w.core_frac = 1.0;
        w.llc_frac = 1.0;
        cost
    }

    /// Records where the task leaves its cached state.
    pub fn switch_out(&self, w: &mut Warmth) {
        if let Some(c) = w.core {
            w.core_fill_snap = self.core_fill[c];
        }
        if let Some(l) = w.llc {
            w.llc_fill_snap = self.llc_fill[l];
        }
    }

    /// Cost of reading `bytes` written on `from` while running on `to`:
    /// [all of it, its first line]. The first line is what a woken task
    /// reads before anything else (its futex word, a timestamp); the rest
    /// are its own work's reads that follow.
    pub fn message_cost(&mut self, bytes: u64, from: usize, to: usize) -> [f64; 2] {
        if bytes == 0 {
            return [0.0; 2];
        }
        let lines = (bytes as f64 / self.spec.line_bytes as f64).ceil();
        self.llc_fill[self.cpu_llc[to]] += bytes as f64;
        let lat = self.line_latency(from, to);
        [lines * lat / self.spec.mlp, lat / self.spec.mlp]
    }

    /// Extra ns per ns of work for a thread of a process that touches
    /// `lines_per_us` shared lines, when `away` (0..=1) of the process's
    /// recent running was in other LLCs. Coherence misses are dependent
    /// loads (no overlap), so no mlp here.
    pub fn sharing_slowdown(&self, lines_per_us: f64, away: f64) -> f64 {
        lines_per_us / 1000.0 * away * (self.spec.remote_llc_ns - self.spec.llc_hit_ns).max(0.0)
    }

    fn node_of_llc(&self, llc: usize) -> Option<usize> {
        self.cpu_llc
            .iter()
            .position(|&l| l == llc)
            .map(|c| self.cpu_node[c])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::*;

    fn machine() -> Machine {
        // 2 nodes x 1 LLC x 2 cores x 2 threads, x86 numbering off
        let shape = Shape {
            nodes: 2,
            llcs_per_node: 1,
            cores_per_llc: 2,
            smt: 2,
            x86_numbering: false,
        };
        Machine {
            name: "t".into(),
            about: String::new(),
            cpus: shape.cpus(|_| 1024),
            node_distance: flat_distance(2, 20),
            cache: CacheSpec {
                line_bytes: 64,
                core_bytes: 1 << 20,
                llc_bytes: 8 << 20,
                core_hit_ns: 4.0,
                llc_hit_ns: 15.0,
                remote_llc_ns: 40.0,
                dram_ns: 80.0,
                remote_dram_ns: 140.0,
                mlp: 4.0,
                source: "test",
            },
            smt: SmtSpec {
                throughput: vec![1.0, 0.6],
                source: "test",
            },
            idle_states: vec![],
            idle_source: "test",
            presence: Vec::new(),
        }
    }

    /// The presets store remote latency at SLIT 20 as local + (remote -
    /// local) * 20 / d: read back at d it must give the published figure.
    #[test]
    fn remote_memory_scales_as_the_presets_store_it() {
        for name in ["power11", "spr-2s", "xeon-88", "2s2c2t"] {
            let m = crate::presets::find(name).unwrap();
            let c = CacheModel::new(&m);
            let d = m.node_distance[0][1] as f64;
            let want = m.cache.dram_ns + (m.cache.remote_dram_ns - m.cache.dram_ns) * d / 20.0;
            assert!((c.dram_latency(0, 1) - want).abs() < 1e-9, "{name}");
            assert!(c.dram_latency(0, 1) > c.dram_latency(0, 0), "{name}");
        }
        // power11: 10/40, documented remote ~ 180 ns at 40 (cost-model.md)
        let m = crate::presets::find("power11").unwrap();
        let c = CacheModel::new(&m);
        let stored_extra = m.cache.remote_dram_ns - m.cache.dram_ns;
        assert!((c.dram_latency(0, 1) - (m.cache.dram_ns + 2.0 * stored_extra)).abs() < 1e-9);
    }

    #[test]
    fn cold_start_pays_memory_then_warm_pays_nothing() {
        let m = machine();
        let mut c = CacheModel::new(&m);
        let mut w = Warmth::default();
        let cold = c.switch_in(&mut w, 64 << 10, 0);
        // 1024 lines from local DRAM at 80 ns, 4 in flight
        assert!((cold - 1024.0 * 80.0 / 4.0).abs() < 1e-6, "{cold}");
        c.switch_out(&mut w);
        let warm = c.switch_in(&mut w, 64 << 10, 0);
        assert!(warm < 1e-6, "{warm}");
    }

    #[test]
    fn cost_grows_with_distance() {
        let m = machine();
        let mut costs = Vec::new();
        for dst in [1usize, 2, 4] {
            let mut c = CacheModel::new(&m);
            let mut w = Warmth::default();
            c.switch_in(&mut w, 256 << 10, 0);
            c.switch_out(&mut w);
            costs.push(c.switch_in(&mut w, 256 << 10, dst));
        }
        // SMT sibling (shared core cache) < same LLC < other node
        assert!(
            costs[0] < 1e-6 && costs[0] < costs[1] && costs[1] < costs[2],
            "{costs:?}"
        );
    }

    #[test]
    fn others_evict_a_sleeping_task() {
        let m = machine();
        let mut c = CacheModel::new(&m);
        let (mut a, mut b) = (Warmth::default(), Warmth::default());
        c.switch_in(&mut a, 512 << 10, 0);
        c.switch_out(&mut a);
        c.switch_in(&mut b, 1 << 20, 0); // a 1 MiB task fills the core cache
        c.switch_out(&mut b);
        let back = c.switch_in(&mut a, 512 << 10, 0);
        assert!(back > 0.0);
    }
}
