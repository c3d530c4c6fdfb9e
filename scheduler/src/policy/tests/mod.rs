//! The unit tests of policy.h's placement rules: they drive the exact C the
//! BPF program runs (compiled natively, called through `super::ffi`) on
//! crafted topologies and loads. One file per mechanism; the helpers shared
//! by several live here.

mod accounting;
mod cache_lb;
mod capacity;
mod cgroup;
mod eevdf;
mod idler_llc;
mod load_balance;
mod newidle;
mod preemption;
mod select_idle;
mod slow_path;
mod steal;
mod throttle;
mod wake_affine;
mod wide_masks;

use super::ffi::*;
use super::*;
use crate::bpf_intf::*;

const LLC_WORDS: usize = arbor_limits_LLC_MASK_WORDS as usize;
const CPU_WORDS: usize = arbor_limits_CPU_MASK_WORDS as usize;
const LLCS_WORDS: usize = arbor_limits_LLCS_MASK_WORDS as usize;

const THIS: i32 = wa_result_WA_THIS as i32;
const PREV: i32 = wa_result_WA_PREV as i32;
const NONE: i32 = wa_result_WA_NONE as i32;

fn all_feats() -> u32 {
    (1 << arbor_feature_FEAT_WA_IDLE)
        | (1 << arbor_feature_FEAT_WA_WEIGHT)
        | (1 << arbor_feature_FEAT_WA_BIAS)
}

fn wa() -> wa_input {
    wa_input {
        now: 0,
        next_wake_affine: 0,
        throttle_ns: 0,
        this_llc_busy: 0,
        this_llc_size: 4,
        prev_llc_busy: 0,
        prev_llc_size: 4,
        this_load: 0,
        prev_load: 0,
        task_load: 0,
        waker_load: 0,
        this_cap: 1024,
        prev_cap: 1024,
        this_nr_running: 1,
        imbalance_pct: 117,
        features: all_feats(),
        this_idle: 0,
        prev_idle: 0,
        share_cache: 0,
        share_core: 0,
        sync: 0,
    }
}

/// One LLC of 4 cores x 2 threads, CPUs 0..8, core = cpu / 2.
fn snap(idle: &[usize]) -> llc_snapshot {
    smt2_llc(8, |i| i / 2, idle)
}

/// An SMT2 LLC of CPUs 0..`nr`, CPU i on core `core_of(i)`; `idle` lists
/// the idle CPU ids.
fn smt2_llc(nr: usize, core_of: impl Fn(usize) -> usize, idle: &[usize]) -> llc_snapshot {
    let mut s: llc_snapshot = unsafe { std::mem::zeroed() };
    s.nr = nr as _;
    s.smt_width = 2;
    for i in 0..nr {
        s.cpu[i] = i as i32;
        s.core[i] = core_of(i) as u32;
    }
    let ring = sib_ring(&s.core[..nr]);
    s.sib[..nr].copy_from_slice(&ring);
    s.idle_mask = mask::<{ LLC_WORDS }>(idle);
    s
}

/// A bitmap of `N` words whose first word is `w`.
fn first_word<const N: usize>(w: u64) -> [u64; N] {
    let mut m = [0u64; N];
    m[0] = w;
    m
}

const SEC: u64 = 1_000_000_000;
