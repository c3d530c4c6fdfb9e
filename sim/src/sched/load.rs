//! What every peer's loader does the same way, as scx_utils and scx_arena
//! 1.1.4 do it for each of them: the object loaded and told the machine's
//! size, the CPUs' siblings and core types from scx_utils' Topology, and
//! scx_arena's ArenaLib set-up. peers.rs (bpfland, cosmos, p2dq, rusty)
//! and lavd.rs build on these.

use anyhow::{bail, Result};
use scx_arbor::topology::Topo;

use super::native::Native;

/// (cpu, sibling) for every possible CPU, as scx_utils 1.1.4's
/// Topology::sibling_cpus (topology.rs:450-465): the first two CPUs of each
/// core are each other's sibling; every other CPU gets -1.
pub(super) fn sibling_cpus(topo: &Topo) -> Vec<i32> {
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

/// A peer's object, loaded and told the machine's size (the first steps of
/// every peer's set-up); `so` is empty when the build could not get the
/// peer's source, and `err` says why.
pub(super) fn load_peer(so: &[u8], err: &str, name: &str, topo: &Topo) -> Result<Native> {
    if so.is_empty() {
        bail!("{err}");
    }
    let mut n = Native::load(so, name, Vec::new())?;
    n.set_machine(topo.cpus.len() as u32, topo.nr_nodes as u32);
    Ok(n)
}

/// struct arena_init_args / arena_alloc_mask_args /
/// arena_topology_node_init_args / arena_topology_init_args of scx's
/// lib/arena.h.
#[repr(C)]
struct ArenaInitArgs {
    static_pages: u64,
    task_ctx_size: u64,
    task_ctx_align: u64,
}
#[repr(C)]
struct ArenaAllocMaskArgs {
    bitmap: u64,
}
#[repr(C)]
struct ArenaTopoNodeArgs {
    bitmap: u64,
    data_size: u64,
    id: u64,
}
#[repr(C)]
struct ArenaTopoInitArgs {
    max_children: [u32; 5],
}

/// Runs a SEC("syscall") program of the loaded object and fails on a
/// non-zero return, as scx_arena's run_prog_by_name callers do.
pub(super) fn run(n: &mut Native, prog: &str, arg: &mut impl Sized) -> Result<()> {
    // SAFETY: each caller passes the struct the program takes (lib/arena.h)
    let r = unsafe { n.run_syscall(prog, arg)? };
    if r != 0 {
        bail!("{prog} returned {r}");
    }
    Ok(())
}

/// scx_arena 1.1.4's ArenaLib::setup (arenalib.rs:263-283) for `topo`:
/// arena_init (arenalib.rs:74-100), arena_topology_init with the maximum
/// number of children per level (arenalib.rs:173-214), then, for the
/// machine, each node, LLC, core and CPU in id order, a mask allocated by
/// arena_alloc_mask, filled, and given to arena_topology_node_init
/// (arenalib.rs:102-171, 216-261). Its two daemons are not run: the BPF
/// stream watcher (diagnostic output) and the user-space RCU daemon, which
/// frees exited tasks' arena data after a grace period (without it that
/// data is never reused: it costs arena pages, not scheduling).
pub(super) fn arena_lib_setup(n: &mut Native, topo: &Topo, task_size: u64) -> Result<()> {
    if topo.cpus.len() >= 640 {
        bail!("Scheduler specifies too many CPUs");
    }
    run(
        n,
        "arena_init",
        &mut ArenaInitArgs {
            static_pages: 8,
            task_ctx_size: task_size,
            task_ctx_align: 0,
        },
    )?;
    let cpus: Vec<_> = topo.cpus.iter().flatten().collect();
    let count = |key: &dyn Fn(&scx_arbor::topology::CpuInfo) -> usize,
                 of: &dyn Fn(&scx_arbor::topology::CpuInfo) -> usize| {
        let mut m: std::collections::BTreeMap<usize, std::collections::BTreeSet<usize>> =
            Default::default();
        for c in &cpus {
            m.entry(key(c)).or_default().insert(of(c));
        }
        m.values().map(|s| s.len()).max().unwrap_or(0) as u32
    };
    let max_children = [
        topo.nr_nodes as u32,
        count(&|c| c.node, &|c| c.llc),
        count(&|c| c.llc, &|c| c.core),
        count(&|c| c.core, &|c| c.id),
        0,
    ];
    run(
        n,
        "arena_topology_init",
        &mut ArenaTopoInitArgs { max_children },
    )?;
    let words = topo.cpus.len().div_ceil(64);
    let node = |n: &mut Native,
                pick: &dyn Fn(&scx_arbor::topology::CpuInfo) -> bool,
                id: usize|
     -> Result<()> {
        let mut mask = vec![0u64; words];
        for c in cpus.iter().filter(|c| pick(c)) {
            mask[c.id / 64] |= 1 << (c.id % 64);
        }
        if mask.iter().all(|&w| w == 0) {
            return Ok(());
        }
        let mut a = ArenaAllocMaskArgs { bitmap: 0 };
        run(n, "arena_alloc_mask", &mut a)?;
        // SAFETY: arena_alloc_mask returned a struct scx_bitmap in the arena
        // (its bits first), at least `words` words long
        unsafe {
            std::ptr::copy_nonoverlapping(mask.as_ptr(), a.bitmap as *mut u64, words);
        }
        run(
            n,
            "arena_topology_node_init",
            &mut ArenaTopoNodeArgs {
                bitmap: a.bitmap,
                data_size: 0,
                id: id as u64,
            },
        )
    };
    node(n, &|_| true, 0)?;
    for x in 0..topo.nr_nodes {
        node(n, &|c| c.node == x, x)?;
    }
    for x in 0..topo.nr_llcs {
        node(n, &|c| c.llc == x, x)?;
    }
    for x in 0..topo.nr_cores {
        node(n, &|c| c.core == x, x)?;
    }
    for c in &cpus {
        let id = c.id;
        node(n, &|d| d.id == id, id)?;
    }
    Ok(())
}

/// scx_utils 1.1.4's core types (topology.rs:1060-1090, 907-913) from the
/// CPUs' capacities: big.LITTLE iff max >= 1.3 x min; a CPU at the maximum
/// of a machine whose mean is lower is Big {turbo}; Little below the mean
/// on a big.LITTLE machine; else Big. (turbo, little) per CPU id.
pub(super) fn core_types(topo: &Topo) -> Vec<(bool, bool)> {
    let caps: Vec<u64> = topo
        .cpus
        .iter()
        .flatten()
        .map(|c| c.capacity as u64)
        .collect();
    let (max, min) = (*caps.iter().max().unwrap(), *caps.iter().min().unwrap());
    let avg = caps.iter().sum::<u64>() / caps.len() as u64;
    let biglittle = max as f32 >= 1.3 * min as f32;
    let mut out = vec![(false, false); topo.cpus.len()];
    for c in topo.cpus.iter().flatten() {
        let cap = c.capacity as u64;
        out[c.id] = if avg < max && cap == max {
            (true, false)
        } else if !biglittle || cap >= avg {
            (false, false)
        } else {
            (false, true)
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
