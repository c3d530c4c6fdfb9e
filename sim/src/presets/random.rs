//! `random:N@SEED`: N realistic machines, drawn from the families below
//! (not the fuzzer's adversarial `shape:` machines: every draw is a shape a
//! vendor ships). Machine K of a seed is `random-SEED-K` (`-t random-7-3`
//! builds it alone); it depends on (SEED, K) only, so `random:4@7` is the
//! first four of `random:12@7`. Every machine has 4 to 512 CPUs and stays
//! inside scx_arbor's limits (16 nodes, 128 LLCs).
//!
//! Families, with their weights:
//! - x86 server, Intel-like (25%): 1, 2, 4 or 8 sockets, SMT2, sub-NUMA
//!   clustering off, SNC2 or SNC4 (the LLC is clipped to the sub-node, as
//!   Linux's x86 match_llc does), 4-60 cores per socket; SLIT 10/12 same
//!   socket, 21 other; 1 or 2 MiB L2, 1.375 or 1.875 MiB of L3 per core;
//!   Broadwell-EP's or Sapphire Rapids' intel_idle table.
//! - x86 server, AMD-like (15%): 1 or 2 sockets of 2-16 CCXs (LLCs) of 4 or
//!   8 cores, SMT2, NPS1/2/4; SLIT 10/12/32; 512 KiB or 1 MiB L2, 16 or
//!   32 MiB L3 per CCX; acpi_idle's EPYC table.
//! - hybrid x86 (20%): one socket, 2-8 performance cores with SMT2 at
//!   capacity 1024 in one LLC, 4-16 efficiency cores (modules of 4) without
//!   SMT at capacity 400-640 in another LLC; intel_idle's Alder Lake table.
//! - ARM phone (15%): 4-12 CPUs in 2 or 3 capacity classes (little
//!   120-480, mid 400-800, big 1024), clusters numbered little first, one
//!   shared L3 (DSU) of 2-8 MiB, no SMT; hikey's idle table (ARM family).
//! - ARM server (10%): 1 or 2 sockets of 32-128 cores of one class, no
//!   SMT, one LLC per socket or 2-8 (a mesh's clusters), SLIT 10/20.
//! - POWER (15%): 1-4 chips (nodes, SLIT 10/40) of SMT8 cores (4-16 per
//!   chip; each SMT8 core is two 4-thread groups with their own L2/L3, as
//!   the power10 preset) or SMT4 cores (4-24 per chip, each its own LLC);
//!   pseries' idle table.
//!
//! Latencies, mlp and SMT throughput are the family's tables
//! (`Family::defaults`, what a snapshot of such a machine would get), so a
//! machine written out with [`write_snapshot`] reads back the same.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};

use super::{
    idle, idle_amd_acpi, idle_hikey, idle_intel_bdx, idle_intel_spr, idle_pseries, power_cpus,
    Family, KIB, MIB,
};
use crate::machine::{CpuSpec, IdleState, Machine, Shape};

/// The smallest and the largest machine drawn.
pub const MIN_CPUS: usize = 4;
pub const MAX_CPUS: usize = 512;

/// splitmix64: a small, fixed generator (the same draws on every host and
/// release, which `rand`'s generators do not promise).
struct Rng(u64);

impl Rng {
    fn new(seed: u64, k: u64) -> Rng {
        let mut r = Rng(seed ^ 0x6a09_e667_f3bc_c908);
        r.0 ^= r.next().wrapping_add(k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        r
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in lo..=hi.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.range(0, v.len() - 1)]
    }
}

/// The machine families, as a snapshot's README names their arch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    IntelServer,
    AmdServer,
    HybridX86,
    ArmPhone,
    ArmServer,
    Power,
}

impl Kind {
    pub fn arch(self) -> &'static str {
        match self {
            Kind::IntelServer | Kind::AmdServer | Kind::HybridX86 => "x86_64",
            Kind::ArmPhone | Kind::ArmServer => "aarch64",
            Kind::Power => "ppc64le",
        }
    }
    fn family(self) -> Family {
        match self {
            Kind::IntelServer | Kind::AmdServer | Kind::HybridX86 => Family::X86,
            Kind::ArmPhone | Kind::ArmServer => Family::Arm,
            Kind::Power => Family::Power,
        }
    }
}

/// A drawn machine and its family.
pub struct Drawn {
    pub machine: Machine,
    pub kind: Kind,
}

/// The name of machine `k` of `seed`.
pub fn name(seed: u64, k: u64) -> String {
    format!("random-{seed}-{k}")
}

/// `random-SEED-K` -> (SEED, K); None for any other name.
pub fn parse_name(name: &str) -> Option<(u64, u64)> {
    let (s, k) = name.strip_prefix("random-")?.split_once('-')?;
    Some((s.parse().ok()?, k.parse().ok()?))
}

/// `random:N@SEED` -> (N, SEED); None for a name that is not of this form,
/// an error for one that is but is malformed.
pub fn parse_spec(spec: &str) -> Option<Result<(u64, u64)>> {
    let rest = spec.strip_prefix("random:")?;
    Some((|| {
        let (n, s) = rest
            .split_once('@')
            .with_context(|| format!("{spec}: write random:N@SEED, e.g. random:4@7"))?;
        let n: u64 = n
            .parse()
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .with_context(|| format!("{spec}: N must be a number of machines, 1 to 1000"))?;
        let s: u64 = s
            .parse()
            .with_context(|| format!("{spec}: SEED must be a whole number"))?;
        Ok((n, s))
    })())
}

/// The machines of `random:N@SEED`.
pub fn machines(spec: &str) -> Result<Vec<Drawn>> {
    match parse_spec(spec) {
        Some(r) => {
            let (n, seed) = r?;
            Ok((0..n).map(|k| draw(seed, k)).collect())
        }
        None => bail!("'{spec}' is not random:N@SEED"),
    }
}

/// Machine `k` of `seed`.
pub fn draw(seed: u64, k: u64) -> Drawn {
    let mut r = Rng::new(seed, k);
    let kind = match r.range(0, 99) {
        0..=24 => Kind::IntelServer,
        25..=39 => Kind::AmdServer,
        40..=59 => Kind::HybridX86,
        60..=74 => Kind::ArmPhone,
        75..=84 => Kind::ArmServer,
        _ => Kind::Power,
    };
    let d = kind.family().defaults();
    let mut cache = d.cache.clone();
    let (cpus, dist, idle_states, about) = match kind {
        Kind::IntelServer => intel(&mut r, &mut cache),
        Kind::AmdServer => amd(&mut r, &mut cache),
        Kind::HybridX86 => hybrid(&mut r, &mut cache),
        Kind::ArmPhone => phone(&mut r, &mut cache),
        Kind::ArmServer => arm_server(&mut r, &mut cache),
        Kind::Power => power(&mut r, &mut cache),
    };
    cache.source = "sizes drawn for the family (arbor_sim::presets::random); latencies and mlp \
                    the family's table, as a snapshot of such a machine gets";
    let (idle_states, idle_source) = idle_states;
    let machine = Machine {
        name: name(seed, k),
        about: format!(
            "{about}; {} KiB L2, {} KiB LLC",
            cache.core_bytes / KIB,
            cache.llc_bytes / KIB
        ),
        cpus,
        node_distance: dist,
        cache,
        smt: d.smt.clone(),
        idle_states,
        idle_source,
        presence: Vec::new(),
    };
    Drawn { machine, kind }
}

type Parts = (
    Vec<CpuSpec>,
    Vec<Vec<u32>>,
    (Vec<IdleState>, &'static str),
    String,
);

/// SLIT: 10 local, `near` between nodes of one socket, `far` across.
fn distances(sockets: usize, per_socket: usize, near: u32, far: u32) -> Vec<Vec<u32>> {
    let n = sockets * per_socket;
    (0..n)
        .map(|a| {
            (0..n)
                .map(|b| match (a == b, a / per_socket == b / per_socket) {
                    (true, _) => 10,
                    (false, true) => near,
                    (false, false) => far,
                })
                .collect()
        })
        .collect()
}

fn intel(r: &mut Rng, cache: &mut crate::machine::CacheSpec) -> Parts {
    let sockets = r.pick(&[1, 1, 2, 2, 2, 4, 8]);
    // SNC4 needs 16+ cores; nodes stay within 16
    let snc = if sockets == 8 {
        r.pick(&[1, 1, 2])
    } else {
        r.pick(&[1, 1, 1, 2, 4])
    };
    // cores per sub-node: 4-60 cores per socket, at most 512 CPUs
    let max_socket = (MAX_CPUS / 2 / sockets).min(60);
    let lo = if snc == 4 { 4 } else { (4 / snc).max(2) };
    let per_node = r.range(lo, (max_socket / snc).max(lo));
    let new_gen = r.range(0, 1) == 1;
    cache.core_bytes = if new_gen { 2 * MIB } else { MIB };
    cache.llc_bytes = per_node as u64 * if new_gen { 1920 * KIB } else { 1408 * KIB };
    let cpus = Shape {
        nodes: sockets * snc,
        llcs_per_node: 1,
        cores_per_llc: per_node,
        smt: 2,
        x86_numbering: true,
    }
    .cpus(|_| 1024);
    let about = format!(
        "x86 server (Intel-like): {sockets} socket(s) x {} cores x SMT2 = {} CPUs, {}",
        snc * per_node,
        cpus.len(),
        if snc == 1 {
            "SNC off (an LLC and a node per socket)".to_string()
        } else {
            format!("SNC{snc} ({snc} nodes and LLCs per socket)")
        }
    );
    let idle = if new_gen {
        idle_intel_spr()
    } else {
        idle_intel_bdx()
    };
    (cpus, distances(sockets, snc, 12, 21), idle, about)
}

fn amd(r: &mut Rng, cache: &mut crate::machine::CacheSpec) -> Parts {
    let sockets = r.pick(&[1, 1, 2]);
    let cores = r.pick(&[4, 8, 8]);
    let max_ccx = (MAX_CPUS / 2 / sockets / cores).min(16);
    let ccxs: Vec<usize> = [2, 4, 8, 12, 16]
        .into_iter()
        .filter(|&c| c <= max_ccx)
        .collect();
    let ccx = r.pick(&ccxs);
    let npss: Vec<usize> = [1, 2, 4].into_iter().filter(|&p| ccx % p == 0).collect();
    let nps = r.pick(&npss);
    cache.core_bytes = if cores == 4 {
        512 * KIB
    } else {
        r.pick(&[512 * KIB, MIB])
    };
    cache.llc_bytes = if cores == 4 { 16 * MIB } else { 32 * MIB };
    let cpus = Shape {
        nodes: sockets * nps,
        llcs_per_node: ccx / nps,
        cores_per_llc: cores,
        smt: 2,
        x86_numbering: true,
    }
    .cpus(|_| 1024);
    let about = format!(
        "x86 server (AMD-like): {sockets} socket(s) x {ccx} CCX x {cores} cores x SMT2 = {} CPUs, NPS{nps}",
        cpus.len()
    );
    (
        cpus,
        distances(sockets, nps, 12, 32),
        idle_amd_acpi(),
        about,
    )
}

/// intel_idle's Alder Lake table.
fn idle_intel_adl() -> (Vec<IdleState>, &'static str) {
    (
        vec![
            idle("POLL", 0, 0),
            idle("C1", 1, 1),
            idle("C1E", 2, 4),
            idle("C6", 220, 600),
            idle("C8", 280, 800),
            idle("C10", 680, 2000),
        ],
        "Linux drivers/idle/intel_idle.c, adl_cstates (ALDERLAKE): C1 1/1, C1E 2/4, C6 220/600, \
         C8 280/800, C10 680/2000 us",
    )
}

fn hybrid(r: &mut Rng, cache: &mut crate::machine::CacheSpec) -> Parts {
    let p = r.range(2, 8);
    let e = 4 * r.range(1, 4);
    let e_cap = 10 * r.range(40, 64) as u32;
    cache.core_bytes = r.pick(&[1280 * KIB, 2 * MIB]);
    cache.llc_bytes = r.pick(&[12, 18, 24, 30]) * MIB;
    // P cores' threads adjacent (CPU 0,1 = core 0), then the E cores
    let mut cpus = Vec::new();
    for core in 0..p + e {
        let big = core < p;
        for _ in 0..if big { 2 } else { 1 } {
            cpus.push(CpuSpec {
                id: cpus.len(),
                core,
                llc: if big { 0 } else { 1 },
                node: 0,
                capacity: if big { 1024 } else { e_cap },
            });
        }
    }
    let about = format!(
        "hybrid x86: {p} P cores x SMT2 (capacity 1024, one LLC) + {e} E cores (capacity {e_cap}, another LLC) = {} CPUs",
        cpus.len()
    );
    (cpus, vec![vec![10]], idle_intel_adl(), about)
}

fn phone(r: &mut Rng, cache: &mut crate::machine::CacheSpec) -> Parts {
    // (count, capacity) per class, little first
    let classes: Vec<(usize, u32)> = if r.range(0, 1) == 0 {
        vec![
            (r.pick(&[4, 4, 6]), 10 * r.range(30, 48) as u32),
            (r.pick(&[2, 4]), 1024),
        ]
    } else {
        vec![
            (r.pick(&[2, 4, 4]), 10 * r.range(12, 26) as u32),
            (r.range(2, 5), 10 * r.range(40, 80) as u32),
            (r.range(1, 2), 1024),
        ]
    };
    cache.core_bytes = r.pick(&[128, 256, 512]) * KIB;
    cache.llc_bytes = r.pick(&[2, 4, 6, 8]) * MIB;
    let mut cpus = Vec::new();
    for &(n, cap) in &classes {
        for _ in 0..n {
            let id = cpus.len();
            cpus.push(CpuSpec {
                id,
                core: id,
                llc: 0,
                node: 0,
                capacity: cap,
            });
        }
    }
    let mut about = String::from("ARM phone:");
    for (i, (n, cap)) in classes.iter().enumerate() {
        let _ = write!(
            about,
            "{} {n} x capacity {cap}",
            if i == 0 { "" } else { " +" }
        );
    }
    let _ = write!(about, " = {} CPUs, one shared L3", cpus.len());
    (cpus, vec![vec![10]], idle_hikey(), about)
}

fn arm_server(r: &mut Rng, cache: &mut crate::machine::CacheSpec) -> Parts {
    let sockets = r.pick(&[1, 1, 2]);
    let llcs = r.pick(&[1, 1, 2, 4, 8]);
    let per_llc = r.range(32 / llcs, 128 / llcs).max(4);
    cache.core_bytes = r.pick(&[MIB, 2 * MIB]);
    cache.llc_bytes = if llcs == 1 {
        r.pick(&[32, 64]) * MIB
    } else {
        r.pick(&[8, 16]) * MIB
    };
    let cpus = Shape {
        nodes: sockets,
        llcs_per_node: llcs,
        cores_per_llc: per_llc,
        smt: 1,
        x86_numbering: false,
    }
    .cpus(|_| 1024);
    let about = format!(
        "ARM server: {sockets} socket(s) x {llcs} LLC(s) x {per_llc} cores = {} CPUs, one capacity class, no SMT",
        cpus.len()
    );
    (cpus, distances(sockets, 1, 20, 20), idle_hikey(), about)
}

fn power(r: &mut Rng, cache: &mut crate::machine::CacheSpec) -> Parts {
    let chips = r.pick(&[1, 1, 2, 2, 4]);
    let smt8 = r.range(0, 1) == 1;
    let (cpus, about) = if smt8 {
        let cores = r.range(4, 16);
        let cpus = power_cpus(chips, cores);
        let n = cpus.len();
        (cpus, format!("POWER SMT8: {chips} chip(s) x {cores} cores x 8 = {n} CPUs (each core two 4-thread LLCs)"))
    } else {
        let cores = r.range(4, 24);
        let cpus = Shape {
            nodes: chips,
            llcs_per_node: cores,
            cores_per_llc: 1,
            smt: 4,
            x86_numbering: false,
        }
        .cpus(|_| 1024);
        let n = cpus.len();
        (
            cpus,
            format!("POWER SMT4: {chips} chip(s) x {cores} cores x 4 = {n} CPUs (an LLC per core)"),
        )
    };
    cache.core_bytes = if smt8 { MIB } else { 512 * KIB };
    cache.llc_bytes = if smt8 { 4 * MIB } else { 5 * MIB };
    (cpus, distances(chips, 1, 40, 40), idle_pseries(), about)
}

/// `name: about`, one line.
pub fn shape_line(m: &Machine) -> String {
    format!("{}: {}", m.name, m.about)
}

/// Writes `d` as a snapshot directory (sysfs's layout, as `arbor sim
/// snapshot` takes one) into `out`, which must not exist or be empty:
/// `--topology-from OUT` reads the same machine back.
pub fn write_snapshot(d: &Drawn, out: &Path) -> Result<usize> {
    use scx_arbor::topology::cpulist;
    if out.exists()
        && std::fs::read_dir(out)
            .with_context(|| format!("reading {}", out.display()))?
            .next()
            .is_some()
    {
        bail!(
            "{} exists and is not empty: give a new directory",
            out.display()
        );
    }
    let m = &d.machine;
    let mut files = 0;
    let mut put = |rel: &str, text: &str| -> Result<()> {
        let p = out.join(rel);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(&p, format!("{text}\n"))
            .with_context(|| format!("writing {}", p.display()))?;
        files += 1;
        Ok(())
    };
    let of = |f: &dyn Fn(&CpuSpec) -> bool| -> String {
        cpulist(
            &m.cpus
                .iter()
                .filter(|c| f(c))
                .map(|c| c.id)
                .collect::<Vec<_>>(),
        )
    };
    let all = of(&|_| true);
    put("devices/system/cpu/online", &all)?;
    put("devices/system/cpu/possible", &all)?;
    let kib = |b: u64| format!("{}K", b / KIB);
    for c in &m.cpus {
        let dir = format!("devices/system/cpu/cpu{}", c.id);
        let sib = of(&|o| o.core == c.core);
        let llc = of(&|o| o.llc == c.llc);
        put(&format!("{dir}/topology/thread_siblings_list"), &sib)?;
        put(&format!("{dir}/topology/core_cpus_list"), &sib)?;
        put(&format!("{dir}/topology/core_id"), &c.core.to_string())?;
        put(
            &format!("{dir}/topology/physical_package_id"),
            &c.node.to_string(),
        )?;
        put(&format!("{dir}/cpu_capacity"), &c.capacity.to_string())?;
        for (k, (level, kind, size, shared)) in [
            (1, "Data", 32 * KIB, &sib),
            (1, "Instruction", 32 * KIB, &sib),
            (2, "Unified", m.cache.core_bytes, &sib),
            (3, "Unified", m.cache.llc_bytes, &llc),
        ]
        .iter()
        .enumerate()
        {
            let i = format!("{dir}/cache/index{k}");
            put(&format!("{i}/level"), &level.to_string())?;
            put(&format!("{i}/type"), kind)?;
            put(&format!("{i}/size"), &kib(*size))?;
            put(&format!("{i}/shared_cpu_list"), shared)?;
            put(
                &format!("{i}/coherency_line_size"),
                &m.cache.line_bytes.to_string(),
            )?;
        }
        for (k, s) in m.idle_states.iter().enumerate() {
            let st = format!("{dir}/cpuidle/state{k}");
            put(&format!("{st}/name"), &s.name)?;
            put(&format!("{st}/latency"), &(s.exit_ns / 1000).to_string())?;
            put(
                &format!("{st}/residency"),
                &(s.residency_ns / 1000).to_string(),
            )?;
        }
    }
    for (n, row) in m.node_distance.iter().enumerate() {
        let dir = format!("devices/system/node/node{n}");
        put(&format!("{dir}/cpulist"), &of(&|c| c.node == n))?;
        let row: Vec<String> = row.iter().map(|x| x.to_string()).collect();
        put(&format!("{dir}/distance"), &row.join(" "))?;
    }
    put(
        crate::snapshot::MANIFEST,
        &format!(
            "A machine drawn by arbor sim's random machine generator (arbor_sim::presets::random), \
             written in sysfs's layout for `arbor sim --topology-from <this directory>`.\n\n\
             hostname: {}\nkernel: none (drawn, not taken)\narch: {}\ncpus online: {}\nabout: {}",
            m.name,
            d.kind.arch(),
            m.cpus.len(),
            m.about
        ),
    )?;
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn distinct(m: &Machine, f: impl Fn(&CpuSpec) -> usize) -> usize {
        m.cpus.iter().map(f).collect::<BTreeSet<_>>().len()
    }

    fn caps(m: &Machine) -> BTreeSet<u32> {
        m.cpus.iter().map(|c| c.capacity).collect()
    }

    /// Every family's constraints, over many draws of a development seed.
    #[test]
    fn draws_are_valid_and_keep_their_family() {
        let mut kinds = BTreeSet::new();
        for k in 0..400 {
            let d = draw(11, k);
            let m = &d.machine;
            let n = m.nr_cpus();
            m.validate().unwrap_or_else(|e| panic!("{}: {e}", m.name));
            let topo = m.topo().unwrap_or_else(|e| panic!("{}: {e}", m.name));
            assert!((MIN_CPUS..=MAX_CPUS).contains(&n), "{}: {n} CPUs", m.name);
            assert!(topo.nr_llcs <= 128 && topo.nr_nodes <= 16, "{}", m.name);
            assert!(!m.about.contains('\n'));
            let (llcs, nodes, smt, classes) = (
                distinct(m, |c| c.llc),
                distinct(m, |c| c.node),
                m.smt_width(),
                caps(m).len(),
            );
            kinds.insert(format!("{:?}", d.kind));
            match d.kind {
                Kind::IntelServer | Kind::AmdServer => {
                    assert_eq!((smt, classes), (2, 1), "{}", m.about);
                    assert!(nodes <= 16 && llcs / nodes.max(1) <= 16, "{}", m.about);
                    // x86 numbering: CPU 0's sibling is n/2 apart
                    assert_eq!(m.cpus[0].core, m.cpus[n / 2].core, "{}", m.about);
                }
                Kind::HybridX86 => {
                    assert_eq!((llcs, nodes, smt, classes), (2, 1, 2, 2), "{}", m.about);
                    // the big cores have SMT2, the little ones none
                    for c in &m.cpus {
                        let threads = m.cpus.iter().filter(|o| o.core == c.core).count();
                        assert_eq!(threads, if c.capacity == 1024 { 2 } else { 1 });
                    }
                    assert!(topo.asymmetric());
                }
                Kind::ArmPhone => {
                    assert_eq!((llcs, nodes, smt), (1, 1, 1), "{}", m.about);
                    assert!((2..=3).contains(&classes) && n <= 12, "{}", m.about);
                    assert!(caps(m).contains(&1024));
                }
                Kind::ArmServer => {
                    assert_eq!((smt, classes), (1, 1), "{}", m.about);
                    assert!(n >= 32, "{}", m.about);
                }
                Kind::Power => {
                    assert_eq!((smt, classes), (4, 1), "{}", m.about);
                    assert_eq!(m.cache.line_bytes, 128);
                }
            }
        }
        assert_eq!(kinds.len(), 6, "every family drawn: {kinds:?}");
    }

    #[test]
    fn a_seed_draws_the_same_machines_and_k_does_not_depend_on_n() {
        let a: Vec<String> = machines("random:6@3")
            .unwrap()
            .iter()
            .map(|d| shape_line(&d.machine))
            .collect();
        let b: Vec<String> = machines("random:3@3")
            .unwrap()
            .iter()
            .map(|d| shape_line(&d.machine))
            .collect();
        assert_eq!(a[..3], b[..]);
        let again: Vec<String> = machines("random:6@3")
            .unwrap()
            .iter()
            .map(|d| shape_line(&d.machine))
            .collect();
        assert_eq!(a, again);
        let other: Vec<String> = machines("random:6@4")
            .unwrap()
            .iter()
            .map(|d| shape_line(&d.machine))
            .collect();
        assert_ne!(a, other);
        assert!(a[0].starts_with("random-3-0: "), "{}", a[0]);
        let m = draw(3, 2).machine;
        let f = super::super::find("random-3-2").unwrap();
        assert_eq!((f.cpus, f.about), (m.cpus, m.about));
    }

    #[test]
    fn specs_and_their_errors() {
        assert_eq!(parse_spec("random:4@7").unwrap().unwrap(), (4, 7));
        assert!(parse_spec("x86-12").is_none());
        for (s, want) in [
            ("random:4", "random:N@SEED"),
            ("random:0@7", "1 to 1000"),
            ("random:x@7", "1 to 1000"),
            ("random:4@-1", "whole number"),
        ] {
            let e = format!("{:#}", parse_spec(s).unwrap().unwrap_err());
            assert!(e.contains(want) && !e.contains('\n'), "{s}: {e}");
        }
        assert_eq!(parse_name("random-7-3"), Some((7, 3)));
        assert_eq!(parse_name("random-7"), None);
    }

    /// A drawn machine written out reads back as the same machine.
    #[test]
    fn snapshots_read_back_the_same_machine() {
        let dir = std::env::temp_dir().join(format!("arbor-random-snap-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut seen = BTreeSet::new();
        for k in 0..80 {
            let d = draw(5, k);
            if !seen.insert(format!("{:?}", d.kind)) || d.machine.nr_cpus() > 64 {
                continue;
            }
            let out = dir.join(&d.machine.name);
            write_snapshot(&d, &out).unwrap();
            let back = crate::snapshot::read(&out).unwrap().machine;
            let m = &d.machine;
            assert_eq!(back.name, m.name);
            assert_eq!(back.cpus, m.cpus, "{}", m.about);
            assert_eq!(back.node_distance, m.node_distance, "{}", m.about);
            assert_eq!(back.idle_states, m.idle_states, "{}", m.about);
            assert_eq!(
                (
                    back.cache.core_bytes,
                    back.cache.llc_bytes,
                    back.cache.line_bytes,
                    back.cache.llc_hit_ns
                ),
                (
                    m.cache.core_bytes,
                    m.cache.llc_bytes,
                    m.cache.line_bytes,
                    m.cache.llc_hit_ns
                ),
                "{}",
                m.about
            );
            assert_eq!(back.smt.throughput, m.smt.throughput);
            let e = write_snapshot(&d, &out).unwrap_err().to_string();
            assert!(e.contains("not empty"), "{e}");
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert!(seen.len() >= 4, "{seen:?}");
    }
}
