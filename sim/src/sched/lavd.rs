//! scx_lavd 1.1.4's loader, for the simulated machine: what its Rust
//! main.rs computes and writes into the BPF program before attaching it,
//! with its options' defaults (Opts, main.rs:80-340, after Opts::proc,
//! main.rs:380-470). Its compute domains and CPU orders are written here
//! from what cpu_order.rs does (cited by line), not copied.
//!
//! The sim has no kernel energy model (as on a machine without one, or
//! with --no-use-em): main.rs:452-454 sets no_use_em, and cpu_order.rs
//! builds the "fake" performance-vs-CPU-order table (cpu_order.rs:602-635)
//! and uses each CPU's LLC as its performance domain (cpu_order.rs:432-437).

use anyhow::{bail, Result};
use scx_arbor::topology::Topo;

use super::abi::{self, SchedExtOps};
use super::load::{arena_lib_setup, core_types, load_peer, sibling_cpus};
use super::native::Native;

/// scx_lavd's BPF program: main.bpf.c, its sources and scx's library.
static LAVD_SO: &[u8] = include_bytes!(env!("SIM_SCHED_LAVD_SO"));
const LAVD_ERR: &str = env!("SIM_SCHED_LAVD_ERR");

/// intf.h:34-39
const LAVD_CPU_ID_MAX: usize = 8192;
const LAVD_CPDOM_MAX_NR: usize = 128;
const LAVD_CPDOM_MAX_DIST: usize = 3;
const LAVD_PCO_STATE_MAX: usize = 11;
/// intf.h:158-160
const LAVD_PM_BALANCED: i32 = 1;

/// cpu_order.rs:31-56, the fields the sim's topology gives.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuId {
    pub numa_adx: usize,
    pub pd_adx: usize,
    pub llc_adx: usize,
    pub llc_rdx: usize,
    pub llc_kernel_id: usize,
    pub core_rdx: usize,
    pub cpu_rdx: usize,
    pub cpu_adx: usize,
    pub smt_level: usize,
    pub cache_size: usize,
    pub cpu_cap: usize,
    pub big_core: bool,
    pub turbo_core: bool,
    pub cpu_sibling: i32,
}

/// A compute domain (cpu_order.rs:58-73): its key's fields, its CPUs, its
/// alternative domain and its neighbours by distance (ascending), each
/// list in circular order.
#[derive(Clone, Debug, PartialEq)]
pub struct Cpdom {
    pub id: usize,
    pub alt_id: usize,
    pub numa_adx: usize,
    pub llc_adx: usize,
    pub is_big: bool,
    pub cpus: Vec<usize>,
    pub neighbors: Vec<Vec<usize>>,
}

/// A row of the performance-vs-CPU-order table (PerfCpuOrder,
/// cpu_order.rs:76-82): its capacity bound, primary CPUs, then overflow.
#[derive(Clone, Debug, PartialEq)]
pub struct Pco {
    pub perf_cap: usize,
    pub primary: Vec<usize>,
    pub overflow: Vec<usize>,
}

/// What CpuOrder::new (cpu_order.rs:105-135) gives the loader.
#[derive(Clone, Debug)]
pub struct CpuOrder {
    /// the performance order (cpus_pf)
    pub cpuids: Vec<CpuId>,
    pub cpdoms: Vec<Cpdom>,
    /// by perf_cap, ascending (a BTreeMap in cpu_order.rs)
    pub pcos: Vec<Pco>,
    pub nr_llcs: usize,
    pub smt_enabled: bool,
    pub has_biglittle: bool,
}

/// The CpuIds of scx_utils' Topology for `topo`, in its nesting order
/// (cpu_order.rs:176-216): nodes by id; in each, its LLCs by their
/// scx_utils id (numbered in the order CPUs reveal them: node by node, CPU
/// ids ascending, topology.rs:891-906); their cores likewise
/// (topology.rs:916-933); their CPUs by id. The performance domain is the
/// LLC (no energy model). Every CPU of a simulated machine has the same
/// caches, so cache_size (the per-CPU share of each cache level) does not
/// order them: it is 0 for all.
fn topo_cpuids(topo: &Topo) -> Vec<CpuId> {
    use std::collections::BTreeMap;
    let mut cpus: Vec<_> = topo.cpus.iter().flatten().collect();
    cpus.sort_by_key(|c| (c.node, c.id));
    let mut llc_ids: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut core_ids: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for c in &cpus {
        let n = llc_ids.len();
        llc_ids.entry((c.node, c.llc)).or_insert(n);
        let n = core_ids.len();
        core_ids.entry((c.node, c.core)).or_insert(n);
    }
    // node -> llc adx -> core adx -> cpu ids
    let mut tree: BTreeMap<usize, BTreeMap<usize, BTreeMap<usize, Vec<usize>>>> = BTreeMap::new();
    for c in &cpus {
        tree.entry(c.node)
            .or_default()
            .entry(llc_ids[&(c.node, c.llc)])
            .or_default()
            .entry(core_ids[&(c.node, c.core)])
            .or_default()
            .push(c.id);
    }
    let types = core_types(topo);
    let sib = sibling_cpus(topo);
    let mut out = Vec::new();
    for (&numa_adx, llcs) in &tree {
        for (llc_rdx, (&llc_adx, cores)) in llcs.iter().enumerate() {
            for (core_rdx, ids) in cores.values().enumerate() {
                let mut ids = ids.clone();
                ids.sort();
                for (cpu_rdx, &id) in ids.iter().enumerate() {
                    let c = topo.cpus[id].as_ref().unwrap();
                    let (turbo, little) = types[id];
                    out.push(CpuId {
                        numa_adx,
                        pd_adx: llc_adx,
                        llc_adx,
                        llc_rdx,
                        llc_kernel_id: c.llc,
                        core_rdx,
                        cpu_rdx,
                        cpu_adx: id,
                        smt_level: ids.len(),
                        cache_size: 0,
                        cpu_cap: c.capacity as usize,
                        big_core: !little,
                        turbo_core: turbo,
                        cpu_sibling: sib[id],
                    });
                }
            }
        }
    }
    out
}

/// build_topo_order (cpu_order.rs:176-289): the CPUs sorted for
/// performance (prefer_powersave false: cpu_rdx first, so one CPU per core
/// before SMT siblings; then node, LLC, capacity down, cache down, SMT
/// level, domain, core, id) or for power saving (node, LLC, capacity down
/// without big.LITTLE / up with it, cache down, domain, core, SMT level
/// down, cpu_rdx, id).
fn topo_order(ids: &[CpuId], powersave: bool, biglittle: bool) -> Vec<CpuId> {
    let mut v = ids.to_vec();
    if powersave {
        v.sort_by(|a, b| {
            let cap = if biglittle {
                a.cpu_cap.cmp(&b.cpu_cap)
            } else {
                b.cpu_cap.cmp(&a.cpu_cap)
            };
            a.numa_adx
                .cmp(&b.numa_adx)
                .then(a.llc_rdx.cmp(&b.llc_rdx))
                .then(cap)
                .then(b.cache_size.cmp(&a.cache_size))
                .then(a.pd_adx.cmp(&b.pd_adx))
                .then(a.core_rdx.cmp(&b.core_rdx))
                .then(b.smt_level.cmp(&a.smt_level))
                .then(a.cpu_rdx.cmp(&b.cpu_rdx))
                .then(a.cpu_adx.cmp(&b.cpu_adx))
        });
    } else {
        v.sort_by(|a, b| {
            a.cpu_rdx
                .cmp(&b.cpu_rdx)
                .then(a.numa_adx.cmp(&b.numa_adx))
                .then(a.llc_rdx.cmp(&b.llc_rdx))
                .then(b.cpu_cap.cmp(&a.cpu_cap))
                .then(b.cache_size.cmp(&a.cache_size))
                .then(a.smt_level.cmp(&b.smt_level))
                .then(a.pd_adx.cmp(&b.pd_adx))
                .then(a.core_rdx.cmp(&b.core_rdx))
                .then(a.cpu_adx.cmp(&b.cpu_adx))
        });
    }
    v
}

/// circular_sort (cpu_order.rs:402-429): `rest` and `start` sorted, then
/// ordered by circular distance from start's position (ties: the lower
/// position), start dropped.
fn circular_sort(start: usize, rest: &[usize]) -> Vec<usize> {
    let mut list = rest.to_vec();
    list.push(start);
    list.sort();
    let s = list.iter().position(|&x| x == start).unwrap();
    let n = list.len();
    let dist = |x: usize| {
        let d = (x + n - s) % n;
        d.min(n - d)
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&x| (dist(x), x));
    order.iter().skip(1).map(|&i| list[i]).collect()
}

/// The compute-domain key (ComputeDomainId, cpu_order.rs:58-65), ordered
/// as its derived Ord: node, LLC adx, LLC rdx, LLC kernel id, is_big.
type CpdomKey = (usize, usize, usize, usize, bool);

/// dist (cpu_order.rs:440-458): core type 100, node 10, else LLC rdx 1
/// and LLC kernel id 1.
fn cpdom_dist(a: &CpdomKey, b: &CpdomKey) -> usize {
    let mut d = 0;
    if a.4 != b.4 {
        d += 100;
    }
    if a.0 != b.0 {
        d += 10;
    } else {
        if a.2 != b.2 {
            d += 1;
        }
        if a.3 != b.3 {
            d += 1;
        }
    }
    d
}

/// build_cpdom (cpu_order.rs:292-399): a domain per (node, LLC, core
/// type), numbered as the CPU order reaches them; neighbours by distance,
/// each list circularly sorted from the domain; the alternative domain: the
/// other core type's in the same node and LLC, else the nearest neighbour
/// of the other type, else itself.
fn build_cpdoms(order: &[CpuId]) -> Vec<Cpdom> {
    use std::collections::BTreeMap;
    let mut map: BTreeMap<CpdomKey, Cpdom> = BTreeMap::new();
    for c in order {
        let key = (
            c.numa_adx,
            c.llc_adx,
            c.llc_rdx,
            c.llc_kernel_id,
            c.big_core,
        );
        let next = map.len();
        map.entry(key)
            .or_insert_with(|| Cpdom {
                id: next,
                alt_id: next,
                numa_adx: c.numa_adx,
                llc_adx: c.llc_adx,
                is_big: c.big_core,
                cpus: Vec::new(),
                neighbors: Vec::new(),
            })
            .cpus
            .push(c.cpu_adx);
    }
    let keys: Vec<CpdomKey> = map.keys().cloned().collect();
    for from in &keys {
        let mut by_d: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for to in &keys {
            if from == to {
                continue;
            }
            by_d.entry(cpdom_dist(from, to))
                .or_default()
                .push(map[to].id);
        }
        let id = map[from].id;
        map.get_mut(from).unwrap().neighbors =
            by_d.values().map(|v| circular_sort(id, v)).collect();
    }
    let types: BTreeMap<usize, bool> = map.values().map(|d| (d.id, d.is_big)).collect();
    for k in &keys {
        let mut alt = *k;
        alt.4 = !k.4;
        let a = match map.get(&alt) {
            Some(d) => Some(d.id),
            None => map[k]
                .neighbors
                .iter()
                .flatten()
                .find(|n| types[n] == alt.4)
                .copied(),
        };
        if let Some(a) = a {
            map.get_mut(k).unwrap().alt_id = a;
        }
    }
    let mut v: Vec<Cpdom> = map.into_values().collect();
    v.sort_by_key(|d| d.id);
    v
}

/// fake_pco (cpu_order.rs:618-635): the first CPU of the order primary,
/// the rest overflow; the bound is the machine's total capacity for the
/// performance order, the first CPU's capacity for the power-saving one.
fn fake_pco(tot: usize, order: &[CpuId], powersave: bool) -> Pco {
    Pco {
        perf_cap: if powersave { order[0].cpu_cap } else { tot },
        primary: order[..1].iter().map(|c| c.cpu_adx).collect(),
        overflow: order[1..].iter().map(|c| c.cpu_adx).collect(),
    }
}

/// CpuOrder::new (cpu_order.rs:105-135) without an energy model.
pub fn cpu_order(topo: &Topo) -> CpuOrder {
    let ids = topo_cpuids(topo);
    let biglittle = core_types(topo).iter().any(|t| t.1);
    let pf = topo_order(&ids, false, biglittle);
    let ps = topo_order(&ids, true, biglittle);
    let cpdoms = build_cpdoms(&pf);
    // get_fake_perf_cpu_order_table (cpu_order.rs:602-616): a map by
    // perf_cap, the power-saving row inserted last (it wins a tie)
    let tot: usize = pf.iter().map(|c| c.cpu_cap).sum();
    let mut m = std::collections::BTreeMap::new();
    let a = fake_pco(tot, &pf, false);
    m.insert(a.perf_cap, a);
    let b = fake_pco(tot, &ps, true);
    m.insert(b.perf_cap, b);
    CpuOrder {
        cpuids: pf,
        cpdoms,
        pcos: m.into_values().collect(),
        nr_llcs: topo.nr_llcs,
        smt_enabled: topo.smt_width > 1,
        has_biglittle: biglittle,
    }
}

/// scx_lavd 1.1.4 with its default options, as Scheduler::init sets it up
/// (main.rs:537-619): init_cpus, init_cpdoms and init_globals
/// (main.rs:679-853), the cpu.max caps (main.rs:585-590), the arena
/// (ArenaLib::setup, main.rs:602-604), then, once attached, run()'s
/// set_power_profile(LAVD_PM_BALANCED) (main.rs:1115-1121). Not
/// reproduced: the futex and execve tracing programs it attaches (they
/// never fire in the sim: its workloads make no futex or execve calls),
/// resize_cgroup_bw (the cpu.max maps' sizes; bandwidth control is off by
/// default), its stats server, introspection and power-profile polling
/// (--autopower is off).
pub(super) fn lavd(topo: &Topo) -> Result<Native> {
    let mut n = load_peer(LAVD_SO, LAVD_ERR, "lavd", topo)?;
    let nr_cpu_ids = topo.cpus.len();
    if nr_cpu_ids > LAVD_CPU_ID_MAX {
        bail!("Num possible CPU IDs ({nr_cpu_ids}) exceeds maximum of ({LAVD_CPU_ID_MAX})");
    }
    let order = cpu_order(topo);
    // init_cpus (main.rs:679-709)
    for c in &order.cpuids {
        let i = c.cpu_adx;
        n.write_global("cpu_capacity", i * 2, &(c.cpu_cap as u16).to_ne_bytes())?;
        n.write_global("cpu_big", i, &[c.big_core as u8])?;
        n.write_global("cpu_turbo", i, &[c.turbo_core as u8])?;
        // `cpu.cpu_sibling as u32` of a usize made from an i32 (-1: none)
        n.write_global("cpu_sibling", i * 4, &(c.cpu_sibling as u32).to_ne_bytes())?;
    }
    if order.pcos.len() > LAVD_PCO_STATE_MAX {
        bail!("Generated performance vs. CPU order stats are too complex to handle");
    }
    n.write_global("nr_pco_states", 0, &[order.pcos.len() as u8])?;
    let last = order.pcos.last().unwrap().clone();
    for i in 0..LAVD_PCO_STATE_MAX {
        // init_pco_tuple (main.rs:711-727); the states past the table's
        // repeat its last row (main.rs:704-707)
        let p = order.pcos.get(i).unwrap_or(&last);
        n.write_global("pco_bounds", i * 4, &(p.perf_cap as u32).to_ne_bytes())?;
        n.write_global(
            "pco_nr_primary",
            i * 2,
            &(p.primary.len() as u16).to_ne_bytes(),
        )?;
        for (j, &cpu) in p.primary.iter().chain(&p.overflow).enumerate() {
            n.write_global(
                "pco_table",
                (i * LAVD_CPU_ID_MAX + j) * 2,
                &(cpu as u16).to_ne_bytes(),
            )?;
        }
    }
    // init_cpdoms (main.rs:729-764)
    let stride: u64 = n.read_global("sim_cpdom_ctx_size")?;
    let stride = stride as usize;
    if order.cpdoms.len() > LAVD_CPDOM_MAX_NR {
        bail!("The processor topology is too complex to handle in BPF.");
    }
    for d in &order.cpdoms {
        let f = |n: &mut Native, name: &str, off: usize, b: &[u8]| {
            n.write_field_at(&format!("cpdom_ctxs[0].{name}"), d.id, stride, off, b)
        };
        f(&mut n, "id", 0, &(d.id as u64).to_ne_bytes())?;
        f(&mut n, "alt_id", 0, &(d.alt_id as u64).to_ne_bytes())?;
        f(&mut n, "numa_id", 0, &[d.numa_adx as u8])?;
        f(&mut n, "llc_id", 0, &[d.llc_adx as u8])?;
        f(&mut n, "is_big", 0, &[d.is_big as u8])?;
        f(&mut n, "is_valid", 0, &[1])?;
        let mut mask = vec![0u64; LAVD_CPU_ID_MAX / 64];
        for &c in &d.cpus {
            mask[c / 64] |= 1 << (c % 64);
        }
        for (w, x) in mask.iter().enumerate().filter(|(_, x)| **x != 0) {
            f(&mut n, "__cpumask", w * 8, &x.to_ne_bytes())?;
        }
        if d.neighbors.len() > LAVD_CPDOM_MAX_DIST {
            bail!("The processor topology is too complex to handle in BPF.");
        }
        for (k, nb) in d.neighbors.iter().enumerate() {
            if nb.len() > LAVD_CPDOM_MAX_NR {
                bail!("The processor topology is too complex to handle in BPF.");
            }
            f(&mut n, "nr_neighbors", k, &[nb.len() as u8])?;
            for (i, &id) in nb.iter().enumerate() {
                f(
                    &mut n,
                    "neighbor_ids",
                    k * LAVD_CPDOM_MAX_NR + i,
                    &[id as u8],
                )?;
            }
        }
    }
    // init_globals (main.rs:766-853) with the defaults: --slice-max-us
    // 5000, --slice-min-us 500, --pinned-slice-us 5000, --preempt-shift 6,
    // --lat-load-target-pct 100, --mig-delta-pct 0, --warm-cpu-us 0,
    // --lb-low-util-pct 25, --lb-local-dsq-util-pct 10, --xmig-min-gain-us
    // 350 (0 on a machine without little cores, main.rs:431-447), the
    // switches off; autopilot on (Opts::proc: no other power mode given,
    // main.rs:381-383); no_use_em (no energy model, main.rs:452-454)
    let b = |v: bool| [v as u8];
    n.write_global("no_preemption", 0, &b(false))?;
    n.write_global("no_core_compaction", 0, &b(false))?;
    n.write_global("no_freq_scaling", 0, &b(false))?;
    n.write_global("is_powersave_mode", 0, &b(false))?;
    n.write_global("nr_llcs", 0, &(order.nr_llcs as u64).to_ne_bytes())?;
    n.write_global("nr_cpu_ids", 0, &(nr_cpu_ids as u32).to_ne_bytes())?;
    n.write_global("is_smt_active", 0, &b(order.smt_enabled))?;
    n.write_global("is_autopilot_on", 0, &b(true))?;
    n.write_global("verbose", 0, &[0])?;
    n.write_global("slice_max_ns", 0, &(5000u64 * 1000).to_ne_bytes())?;
    n.write_global("slice_min_ns", 0, &(500u64 * 1000).to_ne_bytes())?;
    n.write_global("pinned_slice_ns", 0, &(5000u64 * 1000).to_ne_bytes())?;
    n.write_global("preempt_shift", 0, &[6])?;
    n.write_global("lat_load_target_pct", 0, &100u16.to_ne_bytes())?;
    n.write_global("mig_delta_pct", 0, &[0])?;
    n.write_global("warm_cpu_ns", 0, &0u64.to_ne_bytes())?;
    n.write_global("lb_low_util_wall", 0, &((25u64 << 10) / 100).to_ne_bytes())?;
    n.write_global(
        "lb_local_dsq_util_wall",
        0,
        &((10u64 << 10) / 100).to_ne_bytes(),
    )?;
    let xmig_us: u64 = if order.has_biglittle { 350 } else { 0 };
    n.write_global("xmig_min_gain_ns", 0, &(xmig_us * 1000).to_ne_bytes())?;
    n.write_global("no_use_em", 0, &[1])?;
    n.write_global("no_fast_lb", 0, &[0])?;
    n.write_global("no_ovrflw_extend", 0, &[0])?;
    n.write_global("no_wake_sync", 0, &b(false))?;
    n.write_global("no_slice_boost", 0, &b(false))?;
    n.write_global("per_cpu_dsq", 0, &b(false))?;
    n.write_global("enable_cpu_bw", 0, &b(false))?;
    n.write_global("bw_kick_builtin_idle", 0, &b(true))?;
    // the 7.2 kernel has scx_bpf_reenqueue_local___v2: ops.cpu_release is
    // dropped, the sched_switch hook loaded instead (main.rs:818-834)
    let off = std::mem::offset_of!(SchedExtOps, cpu_release);
    n.write_global("lavd_ops", off, &0usize.to_ne_bytes())?;
    // main.rs:836-845: the ops flags; exit_dump_len = --exit-dump-len
    let flags = abi::SCX_OPS_ENQ_EXITING
        | abi::SCX_OPS_ENQ_LAST
        | abi::SCX_OPS_ENQ_MIGRATION_DISABLED
        | abi::SCX_OPS_KEEP_BUILTIN_IDLE;
    let off = std::mem::offset_of!(SchedExtOps, flags);
    n.write_global("lavd_ops", off, &flags.to_ne_bytes())?;
    let off = std::mem::offset_of!(SchedExtOps, exit_dump_len);
    n.write_global("lavd_ops", off, &262144u32.to_ne_bytes())?;
    // main.rs:585-590: --cpu-bw-max-cgroups 2048, --cpu-bw-max-tree-height 32
    n.write_global("nr_cgrp_max", 0, &2048u32.to_ne_bytes())?;
    n.write_global("tree_height_max", 0, &32u32.to_ne_bytes())?;
    // after load: ArenaLib::setup(task_ctx size) (main.rs:602-604)
    let task_size: u64 = n.read_global("sim_task_ctx_size")?;
    arena_lib_setup(&mut n, topo, task_size)?;
    // run(): balanced power profile (no --performance / --powersave)
    n.run_after_init("set_power_profile", &LAVD_PM_BALANCED.to_ne_bytes());
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topo(raw: &[(usize, usize, usize, usize, u32)]) -> Topo {
        Topo::from_raw(raw).unwrap()
    }

    /// circular_sort's own example (cpu_order.rs:371-384): 0..=7 from 0
    /// is 1, 7, 2, 6, 3, 5, 4; from 1: 0, 2, 3, 7, 4, 6, 5.
    #[test]
    fn circular_sort_matches_cpu_orders_example() {
        assert_eq!(
            circular_sort(0, &[1, 2, 3, 4, 5, 6, 7]),
            vec![1, 7, 2, 6, 3, 5, 4]
        );
        assert_eq!(
            circular_sort(1, &[0, 2, 3, 4, 5, 6, 7]),
            vec![0, 2, 3, 7, 4, 6, 5]
        );
        assert_eq!(
            circular_sort(7, &[0, 1, 2, 3, 4, 5, 6]),
            vec![0, 6, 1, 5, 2, 4, 3]
        );
    }

    /// 2 LLCs x 2 cores x 2 threads (x86 numbering: CPU c and c+4 are
    /// siblings): the performance order takes one thread per core first,
    /// LLC by LLC; two domains, each the other's neighbour at distance 2
    /// (another LLC rdx and kernel id); the fake table has two rows.
    #[test]
    fn two_llc_smt_machine_orders_and_domains() {
        let t = topo(&[
            (0, 0, 0, 0, 1024),
            (1, 1, 0, 0, 1024),
            (2, 2, 1, 0, 1024),
            (3, 3, 1, 0, 1024),
            (4, 0, 0, 0, 1024),
            (5, 1, 0, 0, 1024),
            (6, 2, 1, 0, 1024),
            (7, 3, 1, 0, 1024),
        ]);
        let o = cpu_order(&t);
        let pf: Vec<usize> = o.cpuids.iter().map(|c| c.cpu_adx).collect();
        assert_eq!(pf, vec![0, 1, 2, 3, 4, 5, 6, 7]);
        assert!(o.smt_enabled);
        assert_eq!(o.cpdoms.len(), 2);
        assert_eq!(o.cpdoms[0].cpus, vec![0, 1, 4, 5]);
        assert_eq!(o.cpdoms[1].cpus, vec![2, 3, 6, 7]);
        assert_eq!(o.cpdoms[0].neighbors, vec![vec![1]]);
        assert_eq!(o.cpdoms[1].neighbors, vec![vec![0]]);
        // one core type: no alternative domain, each is its own
        assert_eq!((o.cpdoms[0].alt_id, o.cpdoms[1].alt_id), (0, 1));
        // the power-saving row (bound 1024: CPU 0 first, its sibling 4
        // next, LLC by LLC), then the performance row (bound 8 x 1024)
        assert_eq!(o.pcos.len(), 2);
        assert_eq!(o.pcos[0].perf_cap, 1024);
        assert_eq!(o.pcos[0].primary, vec![0]);
        assert_eq!(o.pcos[0].overflow, vec![4, 1, 5, 2, 6, 3, 7]);
        assert_eq!(o.pcos[1].perf_cap, 8 * 1024);
        assert_eq!(o.pcos[1].overflow, vec![1, 2, 3, 4, 5, 6, 7]);
    }

    /// big.LITTLE in one LLC: two domains (big, little) of one LLC, each
    /// the other's alternative, at distance 100; the little CPUs come last
    /// in the performance order.
    #[test]
    fn big_little_domains_are_each_others_alternative() {
        let t = topo(&[
            (0, 0, 0, 0, 400),
            (1, 1, 0, 0, 400),
            (2, 2, 0, 0, 1024),
            (3, 3, 0, 0, 1024),
        ]);
        let o = cpu_order(&t);
        assert!(o.has_biglittle);
        let pf: Vec<usize> = o.cpuids.iter().map(|c| c.cpu_adx).collect();
        assert_eq!(pf, vec![2, 3, 0, 1]);
        assert_eq!(o.cpdoms.len(), 2);
        // numbered as the order reaches them: the big one first
        assert!(o.cpdoms[0].is_big && !o.cpdoms[1].is_big);
        assert_eq!(o.cpdoms[0].cpus, vec![2, 3]);
        assert_eq!((o.cpdoms[0].alt_id, o.cpdoms[1].alt_id), (1, 0));
        // power saving on big.LITTLE: capacity up, the little CPUs first
        assert_eq!(o.pcos[0].perf_cap, 400);
        assert_eq!(o.pcos[0].primary, vec![0]);
    }
}
