//! The peers: other sched_ext schedulers, from their own BPF C, unmodified
//! (sim/build.rs downloads the pinned crate and compiles its src/bpf/
//! against the shim). Each one's loader is reproduced here: the rodata,
//! ops flags and SEC("syscall") programs its Rust main.rs sets up with its
//! default options, cited by file and line of the pinned crate.
//!
//! | `-s`      | crate            | runs | what the shim needed |
//! |-----------|------------------|------|----------------------|
//! | `bpfland` | scx_bpfland 1.1.4 | yes | bpf_cpumask kfuncs and kptrs, scx_bpf_select_cpu_and (scx_select_cpu_dfl on the modelled idle masks), per-node idle masks, scx_bpf_dsq_peek, scx_bpf_task_running, per-CPU lookups by CPU, sd_llc_id |
//! | `p2dq` | scx_p2dq 1.1.4 | yes | with scx's arena library (its lib/ sources, scx_cargo's headers): the BPF arena (shim.c), arena spin locks, bpf_task_from_pid, bpf_cpumask_any_distribute, bpf_get_prandom_u32 (the run's seed), scx_bpf_cpuperf_cur (1024: no DVFS), scx_bpf_dsq_move_vtime, a ring buffer nobody reads (the URCU doorbell), rodata fields by name (fields_p2dq.h); its loader's ArenaLib set-up is reproduced, its URCU and stream daemons are not (docs/sim/arena.md) |
//! | `rusty` | scx_rusty 1.1.4 | yes, WITHOUT its user-space load balancer and tuner | maps reached through `void *` (sim_untyped_maps), key_size/value_size maps, array-map update/delete, bpf_task_storage_delete, bpf_cpumask_any_and_distribute, bpf_repeat, bpf_core_read, comm / mempolicy (NULL), PF_WQ_WORKER, ops.set_weight; its loader's domains (main.rs:382-450) |
//! | `lavd` | scx_lavd 1.1.4 | yes | with scx's arena library: the root cgroup (the sim's only one: cgroup ops at enable / disable, bpf_cgroup_from_id / _ancestor, css iterators), the PELT clocks (scx_clock_task / scx_clock_pelt), scx_bpf_cpuperf_cap, scx_bpf_cpu_curr, se.sum_exec_runtime, prio / static_prio, real_parent (a launcher), more cpumask kfuncs, CONFIG_NO_HZ_IDLE, fexit / tracepoint programs and ring buffers compiled but never fired or read, scx_bpf_reenqueue_local (an error if reached: no RT / DL class); its loader's compute domains and CPU orders (cpu_order.rs) in sched/lavd.rs (docs/sim/arena.md) |
//! | `cosmos` | scx_cosmos 1.1.7 | yes (its options' defaults: no perf events, no busy threshold, no mm affinity, no GPU) | with scx's lib/pmu.bpf.c: SCX_ENQ_IMMED local inserts and their re-enqueue through ops.enqueue (core/immed.rs, 7.2's dsq_inc_nr / rq_is_open / reenq_local), scx_bpf_cpu_curr (idle tasks with PF_IDLE), scx_bpf_pick_idle_cpu_node, a perf-event array that is present and empty (bpf_perf_event_read_value fails as on an empty slot), the task fields utime / mm (declared, 0 / NULL: read only with options off by default); its loader's cpu_node_map |

use anyhow::{bail, Result};
use scx_arbor::topology::Topo;

use super::abi::{self, SchedExtOps};
use super::load::{arena_lib_setup, core_types, load_peer, run, sibling_cpus};
use super::native::Native;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    Bpfland,
    P2dq,
    Rusty,
    Cosmos,
    Lavd,
}

/// The embedded shared object of scx_bpfland's BPF program (empty if the
/// build could not get its source; BPFLAND_ERR then says why).
static BPFLAND_SO: &[u8] = include_bytes!(env!("SIM_SCHED_BPFLAND_SO"));
const BPFLAND_ERR: &str = env!("SIM_SCHED_BPFLAND_ERR");

/// scx_p2dq's BPF program: main.bpf.c and scx's arena library, linked.
static P2DQ_SO: &[u8] = include_bytes!(env!("SIM_SCHED_P2DQ_SO"));
const P2DQ_ERR: &str = env!("SIM_SCHED_P2DQ_ERR");

/// scx_rusty's BPF program: main.bpf.c with its sdt_task / sdt_alloc.
static RUSTY_SO: &[u8] = include_bytes!(env!("SIM_SCHED_RUSTY_SO"));
const RUSTY_ERR: &str = env!("SIM_SCHED_RUSTY_ERR");

/// scx_cosmos's BPF program: main.bpf.c with scx's lib/pmu.bpf.c.
static COSMOS_SO: &[u8] = include_bytes!(env!("SIM_SCHED_COSMOS_SO"));
const COSMOS_ERR: &str = env!("SIM_SCHED_COSMOS_ERR");

/// scx_cosmos's statistics: .bss globals (main.bpf.c:184-187), as its
/// get_metrics reads them (main.rs:1105-1112).
const COSMOS_COUNTERS: &[&str] = &[
    "nr_event_dispatches",
    "nr_ev_sticky_dispatches",
    "nr_gpu_dispatches",
    "nr_overload_events",
];

/// scx_rusty's statistics, enum stat_idx (intf.h:66-94), in order.
const RUSTY_COUNTERS: &[&str] = &[
    "wake_sync",
    "sync_prev_idle",
    "prev_idle",
    "greedy_idle",
    "pinned",
    "direct_dispatch",
    "direct_greedy",
    "direct_greedy_far",
    "dsq_dispatch",
    "greedy_local",
    "greedy_xnuma",
    "repatriate",
    "kick_greedy",
    "load_balance",
    "task_get_err",
    "dl_clamp",
    "dl_preset",
];

/// scx_p2dq's statistics, enum stat_idx (intf.h:66-96), in order.
const P2DQ_COUNTERS: &[&str] = &[
    "atq_enq",
    "atq_reenq",
    "direct",
    "dsq_same",
    "dsq_change",
    "idle",
    "lb_select",
    "lb_dispatch",
    "llc_migration",
    "node_migration",
    "keep",
    "enq_cpu",
    "enq_llc",
    "enq_intr",
    "enq_mig",
    "select_pick2",
    "dispatch_pick2",
    "wake_prev",
    "wake_llc",
    "wake_mig",
    "fork_balance",
    "exec_balance",
    "fork_same_llc",
    "exec_same_llc",
    "thermal_kick",
    "thermal_avoid",
    "eas_little_select",
    "eas_big_select",
    "eas_fallback",
];

/// scx_bpfland's statistics the BPF side counts (.bss globals).
const BPFLAND_COUNTERS: &[&str] = &[
    "nr_kthread_dispatches",
    "nr_direct_dispatches",
    "nr_shared_dispatches",
];

/// struct cpu_arg / struct domain_arg of scx_bpfland's intf.h.
#[repr(C)]
struct CpuArg {
    cpu_id: i32,
}
#[repr(C)]
struct DomainArg {
    cpu_id: i32,
    sibling_cpu_id: i32,
}

impl Peer {
    pub fn names() -> Vec<&'static str> {
        vec!["bpfland", "cosmos", "lavd", "p2dq", "rusty"]
    }

    /// `Some` if `s` names a peer; options after a ':' are refused (each
    /// peer runs with its loader's defaults).
    pub fn parse(s: &str) -> Result<Option<Peer>> {
        let (name, rest) = match s.split_once(':') {
            Some((n, r)) => (n, Some(r)),
            None => (s, None),
        };
        let p = match name {
            "bpfland" => Peer::Bpfland,
            "p2dq" => Peer::P2dq,
            "rusty" => Peer::Rusty,
            "cosmos" => Peer::Cosmos,
            "lavd" => Peer::Lavd,
            _ => return Ok(None),
        };
        if let Some(r) = rest {
            bail!("scheduler '{s}': {name} runs with its loader's defaults; options ('{r}') are not taken");
        }
        Ok(Some(p))
    }

    /// The peer, loaded as its loader loads it on a machine whose CPUs
    /// online at load are `topo`'s and whose nr_cpu_ids is `nr_cpu_ids`.
    ///
    /// Every peer's loader takes its CPUs from scx_utils 1.1.4's Topology,
    /// which skips a CPU that is offline (create_insert_cpu,
    /// topology.rs:836-838), and its CPU count from scx_utils' NR_CPU_IDS:
    /// the highest /sys/devices/system/cpu/cpuN + 1 (read_cpu_ids,
    /// topology.rs:102, 972-996), a directory an offline CPU keeps. It
    /// writes that count as the BPF side's nr_cpu_ids (p2dq lib.rs:425 and
    /// 499, lavd main.rs:779, rusty main.rs:395; bpfland's primary_all
    /// compares with it, main.rs:319). So `topo`'s CPU ids are padded to
    /// nr_cpu_ids: an offline CPU above the highest online one still
    /// counts.
    pub fn build(self, topo: &Topo, nr_cpu_ids: usize) -> Result<Native> {
        let mut topo = topo.clone();
        if topo.cpus.len() < nr_cpu_ids {
            topo.cpus.resize(nr_cpu_ids, None);
        }
        let topo = &topo;
        match self {
            Peer::Bpfland => bpfland(topo),
            Peer::P2dq => p2dq(topo),
            Peer::Rusty => rusty(topo),
            Peer::Cosmos => cosmos(topo),
            Peer::Lavd => super::lavd::lavd(topo),
        }
    }
}

/// scx_bpfland 1.1.4 with its default options, as its src/main.rs sets it
/// up (Scheduler::init, main.rs:238-392).
fn bpfland(topo: &Topo) -> Result<Native> {
    let mut n = load_peer(BPFLAND_SO, BPFLAND_ERR, "bpfland", topo)?;
    n.counters_from_globals(BPFLAND_COUNTERS.to_vec());
    let cpus: Vec<_> = topo.cpus.iter().flatten().collect();
    let nr_cpu_ids = topo.cpus.len();
    // main.rs:245: SMT on if the machine has it (no --disable-smt)
    let smt_enabled = topo.smt_width > 1;
    // main.rs:249-256: NUMA on with more than one non-empty node
    let numa_enabled = topo.nr_nodes > 1;
    let b = |v: bool| [v as u8];
    // main.rs:308-338, defaults of Opts (main.rs:90-190): slice_us 1000,
    // slice_min_us 0, slice_us_lag 40000, throttle_us 0, the flags off
    n.write_global("debug", 0, &b(false))?;
    n.write_global("smt_enabled", 0, &b(smt_enabled))?;
    n.write_global("numa_enabled", 0, &b(numa_enabled))?;
    n.write_global("local_pcpu", 0, &b(false))?;
    n.write_global("no_wake_sync", 0, &b(false))?;
    n.write_global("sticky_tasks", 0, &b(false))?;
    n.write_global("slice_max", 0, &(1000u64 * 1000).to_ne_bytes())?;
    n.write_global("slice_min", 0, &0u64.to_ne_bytes())?;
    n.write_global("slice_lag", 0, &(40000u64 * 1000).to_ne_bytes())?;
    n.write_global("throttle_ns", 0, &0u64.to_ne_bytes())?;
    // primary domain "auto" (main.rs:174, 425-441): with no power profile
    // (or a balanced/performance one) every CPU (Powermode::Any), so
    // primary_all = (weight == nr_cpu_ids) (main.rs:319)
    n.write_global("primary_all", 0, &b(cpus.len() == nr_cpu_ids))?;
    // main.rs:321-327: capacities, and CPUs by capacity, highest first
    // (a stable sort of the CPUs in id order)
    let mut by_cap = cpus.clone();
    by_cap.sort_by_key(|c| std::cmp::Reverse(c.capacity));
    for (i, c) in by_cap.iter().enumerate() {
        n.write_global("cpu_capacity", c.id * 8, &(c.capacity as u64).to_ne_bytes())?;
        n.write_global("preferred_cpus", i * 8, &(c.id as u64).to_ne_bytes())?;
    }
    n.write_global("preferred_idle_scan", 0, &b(false))?;
    // main.rs:338: local_kthreads = --local-kthreads || throttle_us > 0
    n.write_global("local_kthreads", 0, &b(false))?;
    // main.rs:341-351: the ops flags
    write_queued_wakeup_flags(&mut n, "bpfland_ops", numa_enabled)?;
    // after load, before attach: init_energy_domain (main.rs:443-462):
    // clear the primary domain, then add every CPU of it
    // SAFETY: the programs take a struct cpu_arg / domain_arg (intf.h)
    unsafe {
        let r = n.run_syscall("enable_primary_cpu", &mut CpuArg { cpu_id: -1 })?;
        if r != 0 {
            bail!("bpfland: resetting the primary domain failed: error {r}");
        }
        for c in &cpus {
            let r = n.run_syscall(
                "enable_primary_cpu",
                &mut CpuArg {
                    cpu_id: c.id as i32,
                },
            )?;
            if r != 0 {
                bail!(
                    "bpfland: adding CPU {} to the primary domain failed: error {r}",
                    c.id
                );
            }
        }
    }
    // init_cpufreq_perf (main.rs:464-486): primary domain "auto" without
    // --cpufreq: the maximum, 1024
    n.write_global("cpufreq_perf_lvl", 0, &1024i64.to_ne_bytes())?;
    // init_smt_domains (main.rs:548-556), if SMT is on
    if smt_enabled {
        for (cpu, sib) in sibling_cpus(topo).into_iter().enumerate() {
            // SAFETY: as above
            let r = unsafe {
                n.run_syscall(
                    "enable_sibling_cpu",
                    &mut DomainArg {
                        cpu_id: cpu as i32,
                        sibling_cpu_id: sib,
                    },
                )?
            };
            if r != 0 {
                bail!("bpfland: enable_sibling_cpu({cpu}, {sib}) failed: error {r}");
            }
        }
    }
    Ok(n)
}

/// struct sim_cosmos_cpu_node of sim/shim/fields_cosmos.h.
#[repr(C)]
struct CosmosCpuNode {
    cpu: u32,
    node: u32,
}

/// The ops flags bpfland and cosmos both set (their main.rs), into their
/// struct_ops map `ops`: exiting, last and migration-disabled tasks
/// enqueued, queued wake-ups allowed, and per-node idle masks when NUMA is
/// on.
fn write_queued_wakeup_flags(n: &mut Native, ops: &str, numa_enabled: bool) -> Result<()> {
    let flags = abi::SCX_OPS_ENQ_EXITING
        | abi::SCX_OPS_ENQ_LAST
        | abi::SCX_OPS_ENQ_MIGRATION_DISABLED
        | abi::SCX_OPS_ALLOW_QUEUED_WAKEUP
        | if numa_enabled {
            abi::SCX_OPS_BUILTIN_IDLE_PER_NODE
        } else {
            0
        };
    n.write_global(
        ops,
        std::mem::offset_of!(SchedExtOps, flags),
        &flags.to_ne_bytes(),
    )?;
    Ok(())
}

/// scx_cosmos 1.1.7 with its default options, as its src/main.rs sets it
/// up (Scheduler::init, main.rs:553-850). The options all at their
/// defaults (Opts, main.rs:60-260): no --primary-domain (every CPU is
/// primary), --perf-config / --perf-sticky 0x0 (no perf event: lib/pmu.bpf.c
/// installs and reads nothing), --cpu-busy-thresh 0 (p->utime never read:
/// always deadline mode), no --mm-affinity (p->mm never read), no --gpu.
/// Its user-space loop (main.rs run: statistics, and the perf thresholds
/// and GPU pid sync, all off by default) is not run.
fn cosmos(topo: &Topo) -> Result<Native> {
    let mut n = load_peer(COSMOS_SO, COSMOS_ERR, "cosmos", topo)?;
    n.counters_from_globals(COSMOS_COUNTERS.to_vec());
    let cpus: Vec<_> = topo.cpus.iter().flatten().collect();
    // main.rs:560: SMT as the machine has it (no --disable-smt)
    let smt_enabled = topo.smt_width > 1;
    // main.rs:563-571: NUMA on with more than one non-empty node
    let numa_enabled = topo.nr_nodes > 1;
    let b = |v: bool| [v as u8];
    let u64b = |v: u64| v.to_ne_bytes();
    // main.rs:598-619 with the defaults: --slice-us 1000, --slice-lag-us
    // 20000, cpufreq on, --cpu-busy-thresh 0, --primary-overload-us 1000,
    // the flags off, perf events 0x0
    n.write_global("slice_ns", 0, &u64b(1000 * 1000))?;
    n.write_global("slice_lag", 0, &u64b(20000 * 1000))?;
    n.write_global("cpufreq_enabled", 0, &b(true))?;
    n.write_global("flat_idle_scan", 0, &b(false))?;
    n.write_global("smt_enabled", 0, &b(smt_enabled))?;
    n.write_global("numa_enabled", 0, &b(numa_enabled))?;
    n.write_global("nr_node_ids", 0, &(topo.nr_nodes as u32).to_ne_bytes())?;
    n.write_global("no_wake_sync", 0, &b(false))?;
    n.write_global("no_early_clear", 0, &b(false))?;
    n.write_global("time_preemption", 0, &b(false))?;
    n.write_global("mm_affinity", 0, &b(false))?;
    n.write_global("perf_config", 0, &u64b(0))?;
    n.write_global("perf_sticky", 0, &u64b(0))?;
    n.write_global("busy_threshold", 0, &u64b(0))?;
    n.write_global("overload_thresh_ns", 0, &u64b(1000 * 1000))?;
    // main.rs:621-631: CPUs by capacity, highest first (a stable sort of
    // the CPUs in id order), capacities normalised to the highest = 1024
    let mut by_cap = cpus.clone();
    by_cap.sort_by_key(|c| std::cmp::Reverse(c.capacity));
    let max_cap = by_cap
        .first()
        .map(|c| c.capacity as u64)
        .unwrap_or(1)
        .max(1);
    for (i, c) in by_cap.iter().enumerate() {
        let norm = (c.capacity as u64 * 1024 / max_cap).clamp(1, 1024);
        n.write_global("cpu_capacity", c.id * 8, &u64b(norm))?;
        n.write_global("preferred_cpus", i * 8, &u64b(c.id as u64))?;
    }
    let same = cpus.iter().all(|c| c.capacity as u64 == max_cap);
    n.write_global("all_cpus_same_capacity", 0, &b(same))?;
    n.write_global("preferred_idle_scan", 0, &b(false))?;
    // main.rs:640-654: no --primary-domain: every CPU, primary_all
    n.write_global("primary_all", 0, &b(true))?;
    // main.rs:676-678: no --gpu
    n.write_global("gpu_enabled", 0, &b(false))?;
    // main.rs:704-711: the ops flags
    write_queued_wakeup_flags(&mut n, "cosmos_ops", numa_enabled)?;
    // after load: main.rs:740-753, cpu_node_map[cpu] = node for every CPU
    for c in &cpus {
        let mut a = CosmosCpuNode {
            cpu: c.id as u32,
            node: c.node as u32,
        };
        run(&mut n, "sim_cosmos_set_cpu_node", &mut a)?;
    }
    // main.rs:832-834, init_smt_domains (main.rs:1094-1102): each CPU's
    // sibling (-1: none, which enable_sibling_cpu's cpumask ignores)
    if smt_enabled {
        for (cpu, sib) in sibling_cpus(topo).into_iter().enumerate() {
            let mut a = DomainArg {
                cpu_id: cpu as i32,
                sibling_cpu_id: sib,
            };
            run(&mut n, "enable_sibling_cpu", &mut a)
                .map_err(|e| anyhow::anyhow!("cosmos: {e}"))?;
        }
    }
    Ok(n)
}

/// scx_rusty 1.1.4 with its default options, as its src/main.rs sets it up
/// (Scheduler::init, main.rs:353-450), run WITHOUT its user-space parts:
/// the load balancer (load_balance.rs, every --interval = 2 s; what
/// --no-load-balance turns off) and the tuner (tuner.rs:164-180, every
/// --tune-interval = 0.1 s: tune_input's slice_ns and the direct-greedy /
/// kick-greedy masks from each domain's utilisation). So slice_ns stays
/// SCX_SLICE_DFL, the greedy masks stay empty and tasks keep the domain
/// their BPF C picks for them.
fn rusty(topo: &Topo) -> Result<Native> {
    // intf.h:25-26
    const MAX_CPUS: usize = 512;
    const MAX_DOMS: usize = 64;
    let mut n = load_peer(RUSTY_SO, RUSTY_ERR, "rusty", topo)?;
    n.counters_from_map(RUSTY_COUNTERS.to_vec());
    let nr_cpu_ids = topo.cpus.len();
    // the domains: DomainGroup::new without --cpumasks (domain.rs:93-111):
    // one per LLC (--cache-level 3), numbered node by node, LLCs in id order
    let cpus: Vec<_> = topo.cpus.iter().flatten().collect();
    let mut doms: Vec<(usize, Vec<usize>)> = Vec::new(); // (node, cpus)
    for node in 0..topo.nr_nodes {
        let llcs: std::collections::BTreeSet<usize> = cpus
            .iter()
            .filter(|c| c.node == node)
            .map(|c| c.llc)
            .collect();
        for l in llcs {
            let span = cpus.iter().filter(|c| c.llc == l).map(|c| c.id).collect();
            doms.push((node, span));
        }
    }
    if nr_cpu_ids > MAX_CPUS {
        bail!("Num possible CPU IDs ({nr_cpu_ids}) exceeds maximum of ({MAX_CPUS})");
    }
    if doms.len() > MAX_DOMS {
        bail!(
            "nr_doms ({}) is greater than MAX_DOMS ({MAX_DOMS})",
            doms.len()
        );
    }
    let u32b = |v: u32| v.to_ne_bytes();
    // main.rs:390: slice_ns = SCX_SLICE_DFL (the tuner would change it)
    n.write_global("slice_ns", 0, &abi::SCX_SLICE_DFL.to_ne_bytes())?;
    // main.rs:393-395
    n.write_global("nr_nodes", 0, &u32b(topo.nr_nodes as u32))?;
    n.write_global("nr_doms", 0, &u32b(doms.len() as u32))?;
    n.write_global("nr_cpu_ids", 0, &u32b(nr_cpu_ids as u32))?;
    // main.rs:401-409: u32::MAX (offline) unless in a domain
    for cpu in 0..nr_cpu_ids {
        n.write_global("cpu_dom_id_map", cpu * 4, &u32b(u32::MAX))?;
    }
    let words = MAX_CPUS / 64;
    let mask_of = |span: &[usize]| {
        let mut m = vec![0u64; words];
        for &c in span {
            m[c / 64] |= 1 << (c % 64);
        }
        m
    };
    for (id, (_, span)) in doms.iter().enumerate() {
        for &c in span {
            n.write_global("cpu_dom_id_map", c * 4, &u32b(id as u32))?;
        }
    }
    // main.rs:411-434: each node's mask (the OR of its domains'), each
    // domain's mask and node
    for node in 0..topo.nr_nodes {
        let mut nm = vec![0u64; words];
        for (id, (dn, span)) in doms.iter().enumerate() {
            if *dn != node {
                continue;
            }
            let m = mask_of(span);
            for (w, x) in m.iter().enumerate() {
                nm[w] |= x;
                n.write_global("dom_cpumasks", (id * words + w) * 8, &x.to_ne_bytes())?;
            }
            n.write_global("dom_numa_id_map", id * 4, &u32b(node as u32))?;
        }
        for (w, x) in nm.iter().enumerate() {
            n.write_global("numa_cpumasks", (node * words + w) * 8, &x.to_ne_bytes())?;
        }
    }
    // main.rs:442-450, the defaults of Opts (main.rs:96-240):
    // --load-half-life 1.0 s, --greedy-threshold 1, the rest off or 0
    n.write_global("load_half_life", 0, &u32b(1_000_000_000))?;
    n.write_global("kthreads_local", 0, &[0])?;
    n.write_global("fifo_sched", 0, &[0])?;
    n.write_global("greedy_threshold", 0, &u32b(1))?;
    n.write_global("greedy_threshold_x_numa", 0, &u32b(0))?;
    n.write_global("direct_greedy_numa", 0, &[0])?;
    n.write_global("mempolicy_affinity", 0, &[0])?;
    n.write_global("debug", 0, &u32b(0))?;
    n.write_global("rusty_perf_mode", 0, &u32b(0))?;
    // its ops flags: none by default (--partial would add SWITCH_PARTIAL)
    Ok(n)
}

/// scx_p2dq 1.1.4 with its default options, as its src/main.rs sets it up
/// (Scheduler::init, main.rs:130-255; lib.rs init_open_skel! and
/// init_skel!, lib.rs:374-539; then ArenaLib::setup, main.rs:539-543).
fn p2dq(topo: &Topo) -> Result<Native> {
    let mut n = load_peer(P2DQ_SO, P2DQ_ERR, "p2dq", topo)?;
    n.counters_from_map(P2DQ_COUNTERS.to_vec());
    let cpus: Vec<_> = topo.cpus.iter().flatten().collect();
    let nr_cpu_ids = topo.cpus.len();
    // the defaults of SchedulerOpts (lib.rs:145-372) that depend on the
    // machine: lib.rs:23-44
    let nr_llcs = topo.nr_llcs;
    let mut min_llc_runs_pick2 = (nr_llcs as f64).log2() as u64;
    let max_cpus_per_llc = (0..nr_llcs)
        .map(|l| cpus.iter().filter(|c| c.llc == l).count() as u32)
        .max()
        .unwrap_or(1);
    let llc_shards = if max_cpus_per_llc <= 4 {
        0
    } else {
        max_cpus_per_llc / 4
    };
    // hw_auto_optimize (default on): HardwareProfile::optimize_scheduler_opts
    // (lib.rs:116-142); one LLC: no pick2, no wake-up LLC migrations
    // (the Neoverse-V2 branch needs an arm64 host)
    let single_llc = nr_llcs == 1;
    let mut dispatch_pick2_disable = false;
    if single_llc {
        dispatch_pick2_disable = true;
        min_llc_runs_pick2 = 0;
    }
    let b = |v: bool| [v as u8];
    // bss: dsq_time_slices = the default --dsq-time-slices 500,2500,5000 us
    // (lib.rs:403-406)
    for (i, us) in [500u64, 2500, 5000].iter().enumerate() {
        n.write_global("dsq_time_slices", i * 8, &(us * 1000).to_ne_bytes())?;
    }
    let smt = topo.smt_width > 1;
    let types = core_types(topo);
    // topo config (lib.rs:425-430)
    n.write_field("topo_config.nr_cpus", &(nr_cpu_ids as u32).to_ne_bytes())?;
    n.write_field("topo_config.nr_llcs", &(nr_llcs as u32).to_ne_bytes())?;
    n.write_field(
        "topo_config.nr_nodes",
        &(topo.nr_nodes as u32).to_ne_bytes(),
    )?;
    n.write_field("topo_config.smt_enabled", &b(smt))?;
    n.write_field(
        "topo_config.has_little_cores",
        &b(types.iter().any(|t| t.1)),
    )?;
    // timeline config (lib.rs:433-437): min_slice_us 100, max_exec_ns =
    // 2 x the last DSQ's slice, autoslice and deadline off
    n.write_field("timeline_config.min_slice_us", &100u64.to_ne_bytes())?;
    n.write_field(
        "timeline_config.max_exec_ns",
        &(2 * 5000u64 * 1000).to_ne_bytes(),
    )?;
    n.write_field("timeline_config.autoslice", &b(false))?;
    n.write_field("timeline_config.deadline", &b(false))?;
    // load-balance config (lib.rs:440-453)
    n.write_field("lb_config.slack_factor", &5u64.to_ne_bytes())?;
    n.write_field("lb_config.min_nr_queued_pick2", &0u64.to_ne_bytes())?;
    n.write_field(
        "lb_config.min_llc_runs_pick2",
        &min_llc_runs_pick2.to_ne_bytes(),
    )?;
    n.write_field("lb_config.max_dsq_pick2", &b(false))?;
    // eager_load_balance = !--eager-load-balance (a deprecated switch, off)
    n.write_field("lb_config.eager_load_balance", &b(true))?;
    n.write_field(
        "lb_config.dispatch_pick2_disable",
        &b(dispatch_pick2_disable),
    )?;
    n.write_field("lb_config.dispatch_lb_busy", &75u64.to_ne_bytes())?;
    n.write_field("lb_config.dispatch_lb_interactive", &b(true))?;
    n.write_field("lb_config.wakeup_lb_busy", &0u64.to_ne_bytes())?;
    n.write_field("lb_config.wakeup_llc_migrations", &b(false))?;
    n.write_field("lb_config.single_llc_mode", &b(single_llc))?;
    // p2dq config (lib.rs:456-492)
    n.write_field("p2dq_config.interactive_ratio", &10u32.to_ne_bytes())?;
    n.write_field("p2dq_config.dsq_shift", &4u64.to_ne_bytes())?;
    n.write_field("p2dq_config.task_slice", &b(false))?;
    n.write_field("p2dq_config.kthreads_local", &b(true))?;
    n.write_field("p2dq_config.nr_dsqs_per_llc", &3u32.to_ne_bytes())?;
    n.write_field("p2dq_config.init_dsq_index", &0i32.to_ne_bytes())?;
    n.write_field("p2dq_config.saturated_percent", &5u32.to_ne_bytes())?;
    // SchedMode::Default = MODE_DEFAULT (intf.h:100) = 0
    n.write_field("p2dq_config.sched_mode", &0u32.to_ne_bytes())?;
    n.write_field("p2dq_config.llc_shards", &llc_shards.max(1).to_ne_bytes())?;
    // ATQ / DHQ off by default (lib.rs:466-472)
    n.write_field("p2dq_config.atq_enabled", &b(false))?;
    n.write_field("p2dq_config.dhq_enabled", &b(false))?;
    n.write_field("p2dq_config.dhq_max_imbalance", &3u64.to_ne_bytes())?;
    n.write_field("p2dq_config.cpu_priority", &b(false))?;
    n.write_field("p2dq_config.freq_control", &b(false))?;
    n.write_field("p2dq_config.interactive_sticky", &b(false))?;
    n.write_field("p2dq_config.keep_running_enabled", &b(false))?;
    n.write_field("p2dq_config.pelt_enabled", &b(true))?;
    n.write_field("p2dq_config.fork_balance", &b(true))?;
    n.write_field("p2dq_config.exec_balance", &b(true))?;
    n.write_field("p2dq_config.enable_eas", &b(false))?;
    n.write_field("p2dq_config.small_task_threshold", &256u16.to_ne_bytes())?;
    n.write_field("p2dq_config.large_task_threshold", &768u16.to_ne_bytes())?;
    n.write_field("latency_config.latency_priority_enabled", &b(false))?;
    n.write_field("latency_config.wakeup_preemption_enabled", &b(false))?;
    // lib.rs:498-499: debug = the verbosity (0), nr_cpu_ids
    n.write_global("debug", 0, &0u32.to_ne_bytes())?;
    n.write_global("nr_cpu_ids", 0, &(nr_cpu_ids as u32).to_ne_bytes())?;
    // ops flags (main.rs:227-231): KEEP_BUILTIN_IDLE; no --queued-wakeup
    let off = std::mem::offset_of!(SchedExtOps, flags);
    let flags: u64 = n.read_global_at("p2dq", off)?;
    n.write_global(
        "p2dq",
        off,
        &(flags | abi::SCX_OPS_KEEP_BUILTIN_IDLE).to_ne_bytes(),
    )?;
    // after load: init_skel! (lib.rs:507-539): per-CPU ids and the energy
    // model's capacity and cost (energy.rs; the sim has no kernel energy
    // model: its heuristics, with no max_freq, i.e. freq_ratio 1)
    let max_cap = cpus.iter().map(|c| c.capacity).max().unwrap_or(1024);
    for c in &cpus {
        let (turbo, _) = types[c.id];
        n.write_global("big_core_ids", c.id * 8, &(turbo as u64).to_ne_bytes())?;
        n.write_global("cpu_core_ids", c.id * 4, &(c.core as u32).to_ne_bytes())?;
        n.write_global("cpu_llc_ids", c.id * 8, &(c.llc as u64).to_ne_bytes())?;
        n.write_global("cpu_node_ids", c.id * 8, &(c.node as u64).to_ne_bytes())?;
        n.write_global("cpu_capacity", c.id * 2, &(c.capacity as u16).to_ne_bytes())?;
        let cost = energy_cost(c.capacity, max_cap);
        n.write_global("cpu_energy_cost", c.id * 2, &(cost as u16).to_ne_bytes())?;
    }
    for l in 0..nr_llcs {
        n.write_global("llc_ids", l * 8, &(l as u64).to_ne_bytes())?;
    }
    let task_size: u64 = n.read_global("sim_task_ctx_size")?;
    arena_lib_setup(&mut n, topo, task_size)?;
    Ok(n)
}

/// scx_p2dq's energy.rs heuristics (create_profile_from_heuristics with
/// freq_ratio 1, energy_cost): (base + dynamic power) / capacity x 1024.
fn energy_cost(cap: u32, max_cap: u32) -> u32 {
    let big = cap >= max_cap * 78 / 100;
    let (base, dynamic) = if big {
        let d = 3000u32;
        ((d / 60).max(30), d)
    } else {
        let d = (1200.0 * cap as f64 / 1024.0) as u32;
        ((d / 50).max(15), d)
    };
    ((base + dynamic) as f64 / cap as f64 * 1024.0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every peer of `arbor bench` runs, by its bench name; options are
    /// refused (each runs with its loader's defaults); other names are not
    /// peers.
    #[test]
    fn peers_parse_by_name_and_refuse_options() {
        for (name, p) in [
            ("bpfland", Peer::Bpfland),
            ("cosmos", Peer::Cosmos),
            ("lavd", Peer::Lavd),
            ("p2dq", Peer::P2dq),
            ("rusty", Peer::Rusty),
        ] {
            assert_eq!(Peer::parse(name).unwrap(), Some(p));
        }
        assert_eq!(
            Peer::names(),
            ["bpfland", "cosmos", "lavd", "p2dq", "rusty"]
        );
        assert_eq!(Peer::parse("arbor:stock").unwrap(), None);
        assert_eq!(Peer::parse("nosuch").unwrap(), None);
        for bad in [
            "bpfland:slice-us=5",
            "lavd:autopower",
            "cosmos:perf-config=1",
        ] {
            let e = Peer::parse(bad).unwrap_err().to_string();
            assert!(e.contains("defaults"), "{e}");
        }
    }

    /// ops.set_weight after ops.enable (__scx_enable_task,
    /// ext.c:3849-3853) gives rusty each task's weight: its task_ctx.weight,
    /// which only rusty_set_weight writes (main.bpf.c:1581-1593), is the
    /// task's p->scx.weight for tasks of mixed nice values (nice 0, -5, +5:
    /// weights 100, 300, 33), not the 0 it starts at.
    #[test]
    fn rusty_gets_each_tasks_weight_through_set_weight() {
        use crate::core::{Config, Core, Ops};
        use crate::workload::TaskSpec;
        let m = crate::presets::find("2s2c2t").unwrap();
        let topo = m.topo().unwrap();
        let mut n = rusty(&topo).unwrap();
        let mut core = Core::new(m, crate::cost::CostModel::default(), Config::default()).unwrap();
        let weights = [100u32, 300, 33];
        let specs = weights
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                let mut s = TaskSpec::new(&format!("t{i}"), 1);
                s.weight = w;
                s
            })
            .collect();
        core.spawn(specs).unwrap();
        n.init(&mut core).unwrap();
        for (t, &w) in weights.iter().enumerate() {
            n.init_task(&mut core, t, true).unwrap();
            n.enable(&mut core, t);
            // SAFETY: sim_rusty_task_weight (fields_rusty.h) takes a task_struct
            let got = unsafe { n.run_syscall("sim_rusty_task_weight", &mut *core.tasks[t].ts) };
            assert_eq!(got.unwrap(), w as i32, "task {t}");
        }
    }

    /// The highest CPU offline at load: scx_utils' Topology drops it
    /// (create_insert_cpu, topology.rs:836-838) but its sysfs directory
    /// stays, so NR_CPU_IDS (topology.rs:102) still counts it, and each
    /// peer's loader writes that as nr_cpu_ids: 4, not the highest online
    /// CPU + 1 (3) that `topo` alone would give.
    #[test]
    fn nr_cpu_ids_counts_an_offline_highest_cpu() {
        let m = crate::presets::find("shape:c=4,offline=3").unwrap();
        let topo = m.topo().unwrap();
        assert_eq!(topo.cpus.len(), 3);
        for p in [Peer::P2dq, Peer::Lavd, Peer::Rusty] {
            let n = p.build(&topo, m.nr_cpus()).unwrap();
            let got: u32 = n.read_global("nr_cpu_ids").unwrap();
            assert_eq!(got, 4, "{p:?}");
        }
    }
}
