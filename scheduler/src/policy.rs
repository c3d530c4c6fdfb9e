//! The placement rules of `bpf/policy.h`, compiled natively (build.rs) and
//! called here through FFI: the unit tests below drive the exact code the BPF
//! program runs, on crafted topologies and loads.

use crate::bpf_intf::{group_stats, llc_snapshot, wa_input, wa_output};

/// policy.h's functions, declared by bindgen from the header itself
/// (build.rs), over intf.h's types from bpf_intf.rs.
#[allow(dead_code, non_camel_case_types, non_upper_case_globals, clippy::all)]
mod ffi {
    use crate::bpf_intf::*;
    include!(concat!(env!("OUT_DIR"), "/policy_ffi.rs"));
}

/// sd->imb_numa_nr for a node of `node_cpus` CPUs in `node_llcs` LLCs.
pub fn imb_numa_nr(node_cpus: u32, node_llcs: u32) -> u32 {
    unsafe { ffi::arbor_imb_numa_nr(node_cpus, node_llcs) }
}

#[allow(dead_code)]
pub fn find_dst_group(g: &[group_stats], local: i32, pct: u32, numa: bool, imb: u32) -> i32 {
    unsafe { ffi::arbor_find_dst_group(g.len() as u32, g.as_ptr(), local, pct, numa, imb) }
}

/// The snapshot's sibling ring (llc_snapshot.sib, BPF rodata llc_sib) from
/// the core id of each CPU of an LLC, in LLC order: entry i is the index of
/// the next CPU of the same core after i, wrapping to the core's first; a
/// CPU alone on its core points at itself. arbor_core_idle() walks it.
pub fn sib_ring(core: &[u32]) -> Vec<u16> {
    let mut ring: Vec<u16> = (0..core.len() as u16).collect();
    let mut members: std::collections::BTreeMap<u32, Vec<u16>> = Default::default();
    for (i, &c) in core.iter().enumerate() {
        members.entry(c).or_default().push(i as u16);
    }
    for m in members.values() {
        for (k, &i) in m.iter().enumerate() {
            ring[i as usize] = m[(k + 1) % m.len()];
        }
    }
    ring
}

/// A CPU bitmap of `W` words (policy.h arbor_mask_*) with `bits` set.
pub fn mask<const W: usize>(bits: &[usize]) -> [u64; W] {
    let mut m = [0u64; W];
    for &b in bits {
        unsafe { ffi::arbor_mask_set(m.as_mut_ptr(), W as u32, b as u32) };
    }
    m
}

pub fn base_slice_ns(ncpus: u32, base_ns: u64) -> u64 {
    unsafe { ffi::arbor_base_slice_ns(ncpus, base_ns) }
}

/// wake_affine with its explanation (which stage decided, throttle deadline).
#[allow(dead_code)]
pub fn wake_affine(input: &wa_input) -> (i32, wa_output) {
    let mut out: wa_output = unsafe { std::mem::zeroed() };
    let r = unsafe { ffi::arbor_wake_affine(input, &mut out) };
    (r, out)
}

#[allow(dead_code)]
pub fn steal_order(s: &llc_snapshot, this: i32) -> Vec<i32> {
    let mut order = [0u32; crate::bpf_intf::arbor_limits_MAX_LLC_CPUS as usize];
    let mut cnt = 7u32; // reset by the callee
    let n = unsafe { ffi::arbor_steal_order(s, this, order.as_mut_ptr(), &mut cnt) };
    assert_eq!(n, cnt);
    order[..n as usize]
        .iter()
        .map(|&i| s.cpu[i as usize])
        .collect()
}

#[allow(dead_code)]
pub fn select_idle_cpu(
    s: &llc_snapshot,
    target: i32,
    has_idle_core: bool,
    sis_util: bool,
    nr_scan: u32,
) -> (i32, bool, bool) {
    let (mut clear, mut core) = (0u8, 0u8);
    let cpu = unsafe {
        ffi::arbor_select_idle_cpu(
            s,
            target,
            has_idle_core,
            sis_util,
            nr_scan,
            &mut clear,
            &mut core,
        )
    };
    (cpu, clear != 0, core != 0)
}

/// SIS_IDLE_GROUP's walk (3.9-4.8 select_idle_sibling): (cpu, found_core).
#[allow(dead_code)]
pub fn select_idle_group(s: &llc_snapshot, target: i32) -> (i32, bool) {
    let mut core = 0u8;
    let cpu = unsafe { ffi::arbor_select_idle_group(s, target, &mut core) };
    (cpu, core != 0)
}

#[cfg(test)]
mod tests;
