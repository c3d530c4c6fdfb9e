//! The peers: other sched_ext schedulers, from their own BPF C, unmodified
//! (sim/build.rs downloads the pinned crate and compiles its src/bpf/
//! against the shim). Each one's loader is reproduced here: the rodata,
//! ops flags and SEC("syscall") programs its Rust main.rs sets up with its
//! default options, cited by file and line of the pinned crate.
//!
//! | `-s`      | crate            | runs | what the shim needed |
//! |-----------|------------------|------|----------------------|
//! | `bpfland` | scx_bpfland 1.1.4 | yes | bpf_cpumask kfuncs and kptrs, scx_bpf_select_cpu_and (scx_select_cpu_dfl on the modelled idle masks), per-node idle masks, scx_bpf_dsq_peek, scx_bpf_task_running, per-CPU lookups by CPU, sd_llc_id |
//!
//! Not yet (`not_yet` says why): cosmos (SCX_ENQ_IMMED, p->utime / p->mm,
//! scx_bpf_cpu_curr, lib/pmu.bpf.c's perf-event maps), lavd and p2dq (the
//! shim has their BPF arena now, sim/shim/shim.c; what else they need:
//! docs/sim/arena.md), rusty (the same arena library; user-space load
//! balancer).

use anyhow::{bail, Result};
use scx_arbor::topology::Topo;

use super::abi::{self, SchedExtOps};
use super::native::Native;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    Bpfland,
}

/// The embedded shared object of scx_bpfland's BPF program (empty if the
/// build could not get its source; BPFLAND_ERR then says why).
static BPFLAND_SO: &[u8] = include_bytes!(env!("SIM_SCHED_BPFLAND_SO"));
const BPFLAND_ERR: &str = env!("SIM_SCHED_BPFLAND_ERR");

/// scx_bpfland's statistics the BPF side counts (.bss globals).
const BPFLAND_COUNTERS: &[&str] = &[
    "nr_kthread_dispatches",
    "nr_direct_dispatches",
    "nr_shared_dispatches",
];

/// Why a peer of `arbor bench` does not run here (yet).
fn not_yet(name: &str) -> &'static str {
    match name {
        "cosmos" => "its BPF C needs what the sim does not model yet: SCX_ENQ_IMMED inserts (7.2's run-now local dispatch), p->utime and p->mm, scx_bpf_cpu_curr, and lib/pmu.bpf.c's perf-event maps",
        "lavd" => "the shim models its BPF arena now, not yet the rest its BPF C needs: cgroup kfuncs and iterators (lib/cgroup_bw.bpf.c), fexit and tracepoint programs on futex and mutex functions (lock.bpf.c), ring buffers, scx_bpf_cpu_curr, scx_bpf_cpuperf_cap/cur, scx_bpf_reenqueue_local, the task fields comm, prio, real_parent, se.sum_exec_runtime and se.avg.util_avg, the PELT clocks, scx's arena library headers; nor its loader's arena and topology set-up (scx_arena's ArenaLib) and user-space RCU daemon (docs/sim/arena.md)",
        "p2dq" => "the shim models its BPF arena now, not yet the rest its BPF C needs: scx's arena library headers (cid.bpf.h's distribute rotor, ...), a ring-buffer map, bpf_task_from_pid, bpf_cpumask_any_distribute, bpf_get_prandom_u32, scx_bpf_cpuperf_cur, scx_bpf_dsq_move_vtime, ops.set_cpumask, sched_core_priority; nor its loader's arena and topology set-up (scx_arena's ArenaLib) and user-space RCU daemon (docs/sim/arena.md)",
        "rusty" => "its BPF C keeps task contexts in scx's arena library (sdt_alloc / sdt_task), which needs more than the arena the shim models now (as p2dq does, docs/sim/arena.md), and its load balancer runs in user space",
        _ => "",
    }
}

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
        vec!["bpfland"]
    }

    /// A peer of `arbor bench` that does not run in the simulator yet, and
    /// why (None for anything else).
    pub fn not_running(s: &str) -> Option<&'static str> {
        let name = s.split(':').next().unwrap_or(s);
        Some(not_yet(name)).filter(|r| !r.is_empty())
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
            "cosmos" | "lavd" | "p2dq" | "rusty" => bail!(
                "scheduler '{name}': this peer does not run in the simulator yet: {} (peers that run: {})",
                not_yet(name),
                Self::names().join(", ")
            ),
            _ => return Ok(None),
        };
        if let Some(r) = rest {
            bail!("scheduler '{s}': {name} runs with its loader's defaults; options ('{r}') are not taken");
        }
        Ok(Some(p))
    }

    pub fn build(self, topo: &Topo) -> Result<Native> {
        match self {
            Peer::Bpfland => bpfland(topo),
        }
    }
}

/// (cpu, sibling) for every possible CPU, as scx_utils 1.1.4's
/// Topology::sibling_cpus (topology.rs:450-465): the first two CPUs of each
/// core are each other's sibling; every other CPU gets -1.
fn sibling_cpus(topo: &Topo) -> Vec<i32> {
    let mut sib = vec![-1i32; topo.cpus.len()];
    let mut cores: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for c in topo.cpus.iter().flatten() {
        cores.entry(c.core).or_default().push(c.id);
    }
    for cpus in cores.values_mut() {
        cpus.sort();
        if cpus.len() >= 2 {
            sib[cpus[0]] = cpus[1] as i32;
            sib[cpus[1]] = cpus[0] as i32;
        }
    }
    sib
}

/// scx_bpfland 1.1.4 with its default options, as its src/main.rs sets it
/// up (Scheduler::init, main.rs:238-392).
fn bpfland(topo: &Topo) -> Result<Native> {
    if BPFLAND_SO.is_empty() {
        bail!("{BPFLAND_ERR}");
    }
    let mut n = Native::load(BPFLAND_SO, "bpfland", Vec::new())?;
    n.counters_from_globals(BPFLAND_COUNTERS.to_vec());
    let cpus: Vec<_> = topo.cpus.iter().flatten().collect();
    let nr_cpu_ids = topo.cpus.len();
    n.set_machine(nr_cpu_ids as u32, topo.nr_nodes as u32);
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
        "bpfland_ops",
        std::mem::offset_of!(SchedExtOps, flags),
        &flags.to_ne_bytes(),
    )?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_parse_by_name_and_refuse_options() {
        assert_eq!(Peer::parse("bpfland").unwrap(), Some(Peer::Bpfland));
        assert_eq!(Peer::parse("arbor:stock").unwrap(), None);
        let e = Peer::parse("bpfland:slice-us=5").unwrap_err().to_string();
        assert!(e.contains("defaults"), "{e}");
        let e = Peer::parse("lavd").unwrap_err().to_string();
        assert!(e.contains("does not run in the simulator yet"), "{e}");
    }

    #[test]
    fn siblings_pair_the_first_two_cpus_of_a_core() {
        // 2 cores x 2 threads, x86 numbering: 0/2 and 1/3 are siblings
        let t = Topo::from_raw(&[
            (0, 0, 0, 0, 1024),
            (1, 1, 0, 0, 1024),
            (2, 0, 0, 0, 1024),
            (3, 1, 0, 0, 1024),
        ])
        .unwrap();
        assert_eq!(sibling_cpus(&t), vec![2, 3, 0, 1]);
    }
}
