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
mod tests {
    use super::ffi::*;
    use super::*;
    use crate::bpf_intf::*;

    const LLC_WORDS: usize = arbor_limits_LLC_MASK_WORDS as usize;
    const CPU_WORDS: usize = arbor_limits_CPU_MASK_WORDS as usize;
    const LLCS_WORDS: usize = arbor_limits_LLCS_MASK_WORDS as usize;

    /// A CPU bitmap whose first word is `w`.
    fn cm(w: u64) -> [u64; CPU_WORDS] {
        let mut m = [0u64; CPU_WORDS];
        m[0] = w;
        m
    }

    /// An LLC-set bitmap whose first word is `w`.
    fn lm(w: u64) -> [u64; LLCS_WORDS] {
        let mut m = [0u64; LLCS_WORDS];
        m[0] = w;
        m
    }

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

    // ---- wake_wide ----

    #[test]
    fn wake_wide_thresholds() {
        unsafe {
            // slave below llc_size: not wide
            assert!(!arbor_wake_wide(100, 3, 4));
            // slave == llc_size and master >= slave * llc_size: wide
            assert!(arbor_wake_wide(16, 4, 4));
            // master just below slave * llc_size: not wide
            assert!(!arbor_wake_wide(15, 4, 4));
            // symmetric in its arguments
            assert!(arbor_wake_wide(4, 16, 4));
            // two tasks waking each other (1:1) never go wide
            assert!(!arbor_wake_wide(1, 1, 4));
        }
    }

    #[test]
    fn wakee_flips_count_changes_and_halve_once_a_second() {
        let (mut flips, mut ts, mut last) = (0u32, 0u64, -1i32);
        unsafe {
            arbor_record_wakee(&mut flips, &mut ts, &mut last, 10, 1);
            arbor_record_wakee(&mut flips, &mut ts, &mut last, 10, 2); // same wakee: no flip
            arbor_record_wakee(&mut flips, &mut ts, &mut last, 11, 3);
            assert_eq!(flips, 2);
            flips = 8;
            arbor_record_wakee(&mut flips, &mut ts, &mut last, 11, 2_000_000_000);
            assert_eq!(flips, 4, "halved after a second, same wakee adds nothing");
            assert_eq!(ts, 2_000_000_000);
            arbor_record_wakee(&mut flips, &mut ts, &mut last, 12, 2_500_000_000);
            assert_eq!(flips, 5, "no second halving within the second");
        }
    }

    // ---- WA_IDLE, one case per branch ----

    #[test]
    fn wa_idle_this_idle_sharing_cache_prefers_idle_prev() {
        let mut i = wa();
        i.this_idle = 1;
        i.share_cache = 1;
        i.prev_idle = 1;
        assert_eq!(unsafe { arbor_wa_idle(&i) }, PREV);
        i.prev_idle = 0;
        assert_eq!(unsafe { arbor_wa_idle(&i) }, THIS);
    }

    #[test]
    fn wa_idle_sync_with_lone_waker_pulls() {
        let mut i = wa();
        i.sync = 1;
        i.this_nr_running = 1;
        assert_eq!(unsafe { arbor_wa_idle(&i) }, THIS);
        i.this_nr_running = 2;
        assert_eq!(unsafe { arbor_wa_idle(&i) }, NONE);
    }

    #[test]
    fn wa_idle_idle_prev_wins_across_caches() {
        let mut i = wa();
        i.this_idle = 1; // idle but not sharing cache: first rule does not apply
        i.prev_idle = 1;
        assert_eq!(unsafe { arbor_wa_idle(&i) }, PREV);
    }

    #[test]
    fn wa_idle_no_opinion_when_nothing_idle() {
        let i = wa();
        assert_eq!(unsafe { arbor_wa_idle(&i) }, NONE);
    }

    // ---- WA_WEIGHT / WA_BIAS ----

    #[test]
    fn wa_weight_bias_keeps_task_on_slightly_busier_prev() {
        // this 1000 + task 100 = 1100 (x100); prev 1250 - 100 = 1150 (x108).
        // 110000 < 124200: without the bias 1100 < 1150 too -> both pull.
        let mut i = wa();
        i.this_load = 1000;
        i.prev_load = 1250;
        i.task_load = 100;
        assert_eq!(unsafe { arbor_wa_weight(&i) }, THIS);
        // prev only 5% busier than this would become: the bias keeps it on prev
        // when prev_eff*108 <= this_eff*100 fails only without bias.
        i.prev_load = 1180; // prev_eff 1080: 1100*100=110000 vs 1080*108=116640 -> THIS with bias
        assert_eq!(unsafe { arbor_wa_weight(&i) }, THIS);
        i.features &= !(1 << arbor_feature_FEAT_WA_BIAS);
        // without the bias: 1100 < 1080 is false -> no pull
        assert_eq!(unsafe { arbor_wa_weight(&i) }, NONE);
    }

    #[test]
    fn wa_weight_bias_threshold_is_half_imbalance_pct() {
        // this_eff = 1000*100, prev_eff = x*108: pull iff x > 925.9
        let mut i = wa();
        i.this_load = 1000;
        i.task_load = 0;
        i.prev_load = 926;
        assert_eq!(unsafe { arbor_wa_weight(&i) }, THIS);
        i.prev_load = 925;
        assert_eq!(unsafe { arbor_wa_weight(&i) }, NONE);
        i.imbalance_pct = 125; // bias 112: pull iff x > 892.8
        i.prev_load = 893;
        assert_eq!(unsafe { arbor_wa_weight(&i) }, THIS);
    }

    /// sd_init(): the SMT domain's imbalance_pct is 110, so between siblings
    /// the bias is 105, not 108 (issue 10, deviation 5).
    #[test]
    fn wa_weight_bias_between_smt_siblings_uses_the_smt_domains_110() {
        // this_eff = 1000*100; prev_eff = x*105 between siblings: pull iff x > 952.4
        let mut i = wa();
        i.this_load = 1000;
        i.task_load = 0;
        i.prev_load = 940; // 940*108 = 101520 > 100000: pulls across cores
        assert_eq!(unsafe { arbor_wa_weight(&i) }, THIS);
        i.share_core = 1; // 940*105 = 98700 < 100000: stays between siblings
        assert_eq!(unsafe { arbor_wa_weight(&i) }, NONE);
        i.prev_load = 953;
        assert_eq!(unsafe { arbor_wa_weight(&i) }, THIS);
    }

    #[test]
    fn wa_weight_sync_removes_waker_and_breaks_ties_to_this() {
        let mut i = wa();
        i.features &= !(1 << arbor_feature_FEAT_WA_BIAS);
        i.this_load = 500;
        i.prev_load = 500;
        i.task_load = 0;
        // equal loads: not sync -> no pull (strict <)
        assert_eq!(unsafe { arbor_wa_weight(&i) }, NONE);
        // sync adds 1 to prev's side: tie goes to this
        i.sync = 1;
        assert_eq!(unsafe { arbor_wa_weight(&i) }, THIS);
        // sync: the waker's load leaves this
        i.sync = 1;
        i.this_load = 900;
        i.waker_load = 500; // this_eff = 400 < 500
        assert_eq!(unsafe { arbor_wa_weight(&i) }, THIS);
        // sync and the waker is more than all of this: pull outright
        i.this_load = 100;
        i.waker_load = 200;
        i.prev_load = 0;
        assert_eq!(unsafe { arbor_wa_weight(&i) }, THIS);
    }

    #[test]
    fn wa_weight_respects_capacity() {
        let mut i = wa();
        i.features &= !(1 << arbor_feature_FEAT_WA_BIAS);
        i.this_load = 400;
        i.prev_load = 500;
        // equal capacity: 400 < 500 -> pull
        assert_eq!(unsafe { arbor_wa_weight(&i) }, THIS);
        // this is a little CPU (430): 400*1024 < 500*430 is false
        i.this_cap = 430;
        assert_eq!(unsafe { arbor_wa_weight(&i) }, NONE);
    }

    #[test]
    fn wake_affine_combines_stages_and_features() {
        let mut i = wa();
        i.prev_idle = 1;
        i.this_load = 0;
        i.prev_load = 5000;
        i.share_cache = 1;
        // WA_IDLE says prev (idle) although weights favour this
        let (r, o) = wake_affine(&i);
        assert_eq!((r, o.why), (PREV, wa_why_WHY_IDLE));
        // without WA_IDLE, WA_WEIGHT pulls
        i.features &= !(1 << arbor_feature_FEAT_WA_IDLE);
        let (r, o) = wake_affine(&i);
        assert_eq!((r, o.why), (THIS, wa_why_WHY_WEIGHT));
        // with neither stage: never pull
        i.features = 0;
        assert_eq!(wake_affine(&i).0, PREV);
    }

    // ---- seed 000: WA_IDLER_LLC / WA_WAKER ----

    fn idler(tb: u32, ts: u32, pb: u32, ps: u32) -> wa_input {
        let mut i = wa();
        i.features |= 1 << arbor_feature_FEAT_WA_IDLER_LLC;
        i.this_llc_busy = tb;
        i.this_llc_size = ts;
        i.prev_llc_busy = pb;
        i.prev_llc_size = ps;
        i
    }

    #[test]
    fn idler_llc_both_full_has_no_opinion() {
        assert_eq!(unsafe { arbor_wa_idler_llc(&idler(4, 4, 4, 4)) }, NONE);
        // even with WA_WAKER
        let mut i = idler(4, 4, 4, 4);
        i.features |= 1 << arbor_feature_FEAT_WA_WAKER;
        assert_eq!(unsafe { arbor_wa_idler_llc(&i) }, NONE);
    }

    #[test]
    fn idler_llc_compares_busy_fractions() {
        // diff = 1*4 - 3*4 < 0: this is idler
        assert_eq!(unsafe { arbor_wa_idler_llc(&idler(1, 4, 3, 4)) }, THIS);
        // diff > 0: prev is idler
        assert_eq!(unsafe { arbor_wa_idler_llc(&idler(3, 4, 1, 4)) }, PREV);
        // diff = 0: tie
        assert_eq!(unsafe { arbor_wa_idler_llc(&idler(2, 4, 2, 4)) }, NONE);
        // fractions, not counts: 2/8 busy beats 1/2 busy
        assert_eq!(unsafe { arbor_wa_idler_llc(&idler(2, 8, 1, 2)) }, THIS);
    }

    #[test]
    fn idler_llc_sync_credits_the_waker_one_cpu() {
        let mut i = idler(2, 4, 2, 4);
        i.sync = 1; // diff = 8 - 1 - 8 < 0
        assert_eq!(unsafe { arbor_wa_idler_llc(&i) }, THIS);
    }

    #[test]
    fn wa_waker_takes_any_free_waker_llc() {
        let mut i = idler(3, 4, 0, 4);
        assert_eq!(unsafe { arbor_wa_idler_llc(&i) }, PREV);
        i.features |= 1 << arbor_feature_FEAT_WA_WAKER;
        assert_eq!(unsafe { arbor_wa_idler_llc(&i) }, THIS);
    }

    #[test]
    fn idler_llc_sits_between_wa_idle_and_wa_weight_and_only_across_llcs() {
        // WA_WEIGHT alone would pull (this unloaded), idler says prev
        let mut i = idler(3, 4, 1, 4);
        i.prev_load = 5000;
        let (r, o) = wake_affine(&i);
        assert_eq!(
            (r, o.why, o.idler as i32),
            (PREV, wa_why_WHY_IDLER_LLC, PREV)
        );
        // a tie falls through to WA_WEIGHT
        let mut t = idler(2, 4, 2, 4);
        t.prev_load = 5000;
        let (r, o) = wake_affine(&t);
        assert_eq!((r, o.why, o.idler as i32), (THIS, wa_why_WHY_WEIGHT, NONE));
        // same LLC: the idler stage does not run
        i.share_cache = 1;
        let (r, o) = wake_affine(&i);
        assert_eq!((r, o.idler as i32), (THIS, NONE));
        // WA_IDLE answers first
        let mut j = idler(3, 4, 1, 4);
        j.prev_idle = 1;
        assert_eq!(wake_affine(&j).1.why, wa_why_WHY_IDLE);
    }

    // ---- seed 001: WA_THROTTLE ----

    #[test]
    fn throttle_window_open_closed_disabled() {
        let mut i = wa();
        i.features |= 1 << arbor_feature_FEAT_WA_THROTTLE;
        i.throttle_ns = 1_000_000;
        i.prev_load = 5000; // WA_WEIGHT would pull
        i.now = 10;
        i.next_wake_affine = 20; // inside the window
        let (r, o) = wake_affine(&i);
        assert_eq!(
            (r, o.why, o.next_wake_affine),
            (PREV, wa_why_WHY_THROTTLED, 20)
        );
        // window passed: wake_affine runs and succeeds; deadline unchanged
        i.now = 20;
        let (r, o) = wake_affine(&i);
        assert_eq!((r, o.next_wake_affine), (THIS, 20));
        // a failure opens a new window now + interval
        i.prev_load = 0;
        i.this_load = 5000;
        let (r, o) = wake_affine(&i);
        assert_eq!((r, o.next_wake_affine), (PREV, 1_000_020));
        // interval 0 or feature off: never throttled, no window
        for (ns, feat) in [(0u64, true), (1_000_000, false)] {
            let mut k = i;
            k.throttle_ns = ns;
            if !feat {
                k.features &= !(1 << arbor_feature_FEAT_WA_THROTTLE);
            }
            k.now = 10;
            k.next_wake_affine = 20;
            assert!(!unsafe { arbor_wa_throttled(&k) });
            assert_eq!(wake_affine(&k).1.next_wake_affine, 20);
        }
    }

    // ---- seed 003: STEAL ----

    #[test]
    fn steal_siblings_first_then_wrap_from_this_cpu() {
        // overloaded: 1 (sibling of 0), 2, 6; this = 5 (core 2 with 4)
        let s = snap(&[1, 2, 6]);
        assert_eq!(steal_order(&s, 5), vec![6, 1, 2]);
        // this = 0: its sibling 1 first, then 2, 6
        assert_eq!(steal_order(&s, 0), vec![1, 2, 6]);
        // this = 3 (core 1 with 2): sibling 2 first, then from 4 wrapping
        assert_eq!(steal_order(&s, 3), vec![2, 6, 1]);
        // nothing overloaded: nothing to try
        assert!(steal_order(&snap(&[]), 3).is_empty());
    }

    #[test]
    fn wake_preemption_only_when_enabled_eligible_and_earlier() {
        unsafe {
            // EEVDF (WAKE_PREEMPT): an eligible wakee with the earlier deadline preempts
            assert!(arbor_wake_preempt(true, true, true, 100, 200));
            assert!(!arbor_wake_preempt(true, true, true, 200, 200));
            assert!(!arbor_wake_preempt(true, true, false, 100, 200));
            // nothing running: nothing to preempt (the CPU is only kicked)
            assert!(!arbor_wake_preempt(true, false, true, 100, 200));
            // NO_WAKE_PREEMPT (seed 003's 15 ms wakeup granularity): never
            assert!(!arbor_wake_preempt(false, true, true, 100, 200));
            assert!(!arbor_wake_preempt(false, true, true, 0, u64::MAX));
        }
    }

    /// PREEMPT_SYNC: a WF_SYNC wake-up waits while the running task was
    /// picked less than the threshold (migration_cost / 4 = 125 us) ago,
    /// and preempts from then on; a plain wake-up, or a CPU that runs
    /// nothing, is never held back.
    #[test]
    fn preempt_sync_lets_a_task_run_its_batch_before_a_sync_wakee_preempts() {
        unsafe {
            let (picked, th) = (1_000_000u64, 125_000u64);
            assert!(arbor_sync_defer(true, picked, picked, th), "just picked");
            assert!(arbor_sync_defer(true, picked + th - 1, picked, th));
            assert!(
                !arbor_sync_defer(true, picked + th, picked, th),
                "ran its 125 us"
            );
            assert!(!arbor_sync_defer(true, picked + 10 * th, picked, th));
            assert!(
                !arbor_sync_defer(false, picked + 1, picked, th),
                "not WF_SYNC"
            );
            assert!(
                !arbor_sync_defer(true, picked + 1, 0, th),
                "nothing running"
            );
            // a clock read on another CPU a little behind the pick: still waits
            assert!(arbor_sync_defer(true, picked - 1, picked, th));
            // threshold 0 (migration cost set to 0): never waits
            assert!(!arbor_sync_defer(true, picked, picked, 0));
        }
    }

    /// SYNC_PAIR: a sync wake-up is a pair's when the wakee's own last
    /// wake-up woke this waker; a wakee that never woke anyone (-1), or
    /// last woke another task, is not; nothing with the feature off.
    #[test]
    fn sync_pair_is_the_wakee_that_last_woke_its_waker() {
        unsafe {
            let (client, server) = (100, 200);
            // the server answered the client, the client sends it the next request
            assert!(arbor_sync_pair(true, client, client), "the pair");
            assert!(
                !arbor_sync_pair(false, client, client),
                "feature off: never"
            );
            assert!(
                !arbor_sync_pair(true, server + 1, client),
                "last woke another task"
            );
            assert!(!arbor_sync_pair(true, -1, client), "never woke a task");
            // an unset record (-1) never matches, whatever the waker's pid
            assert!(!arbor_sync_pair(true, -1, -1));
            assert!(arbor_sync_pair(true, server, server), "the other direction");
        }
    }

    /// NEXT_BUDDY: a wakee may become its CPU's next buddy (and preempt,
    /// if eligible: the caller's read) only when that CPU runs a task, the
    /// wake-up is not WF_SYNC (preempt_sync decides those), and no buddy
    /// waits there already.
    #[test]
    fn next_buddy_takes_non_sync_wakees_onto_a_busy_cpu_once() {
        unsafe {
            assert!(arbor_next_buddy(1_000, false, false));
            assert!(
                !arbor_next_buddy(0, false, false),
                "nothing running: no preemption"
            );
            assert!(
                !arbor_next_buddy(1_000, true, false),
                "WF_SYNC: preempt_sync's"
            );
            assert!(
                !arbor_next_buddy(1_000, false, true),
                "a buddy already waits"
            );
        }
    }

    /// Seed 002 as merged (task_misfits_asym_cpu, and the balancer's rule
    /// against pulling a lone task to a smaller CPU): cache-aware balancing
    /// refuses a move to a smaller CPU the task does not fit; up, sideways,
    /// or for a task that fits, the LLC preference decides; symmetric
    /// machines are never affected. tc2's capacities: 1024 (A15) and 430
    /// (A7); 430 fits utilisation below 344, 1024 below 819.
    #[test]
    fn cache_aware_moves_never_take_a_task_down_to_a_cpu_it_does_not_fit() {
        unsafe {
            // a CPU-bound thread (util 1000: it fits no CPU) on a big CPU:
            // not down to a little one
            assert!(arbor_cache_makes_misfit(true, 1000, 1024, 430));
            // ... nor a task that fits the big one but not the little
            assert!(arbor_cache_makes_misfit(true, 600, 1024, 430));
            // between big CPUs, between little ones, or up: the preference decides
            assert!(!arbor_cache_makes_misfit(true, 1000, 1024, 1024));
            assert!(!arbor_cache_makes_misfit(true, 1000, 430, 430));
            assert!(!arbor_cache_makes_misfit(true, 500, 430, 1024));
            // a light task fits the little CPU: the move is free
            assert!(!arbor_cache_makes_misfit(true, 100, 1024, 430));
            // at the margin: 343 fits 430 (343 * 1280 < 430 * 1024), 344 does not
            assert!(!arbor_cache_makes_misfit(true, 343, 1024, 430));
            assert!(arbor_cache_makes_misfit(true, 344, 1024, 430));
            // a symmetric machine: never
            assert!(!arbor_cache_makes_misfit(false, 1000, 1024, 430));
        }
    }

    /// RUN_TO_PARITY: the running task is protected from wake-up
    /// preemption until it has run, at its weight, the vruntime between
    /// its pick and its deadline then (calc_delta_fair's inverse); with
    /// the feature off, never. A task picked past its deadline (it is
    /// about to get a new one) is not protected at all.
    #[test]
    fn run_to_parity_protects_the_request_the_task_was_picked_with() {
        unsafe {
            let (now, slice) = (1_000_000u64, 3_000_000u64);
            // nice 0 (1024): a full slice of vruntime takes a slice of wall time
            let until = arbor_protect_until(now, 5_000, 5_000 + slice, 1024);
            assert_eq!(until, now + slice);
            assert!(arbor_run_to_parity(true, now + slice - 1, until));
            assert!(!arbor_run_to_parity(true, now + slice, until));
            assert!(!arbor_run_to_parity(false, now, until), "NO_RUN_TO_PARITY");
            // a preempted task picked again with a third of its request left
            let until = arbor_protect_until(now, 2 * slice, 3 * slice, 1024);
            assert_eq!(until, now + slice);
            // nice -5 (3121): its vruntime advances 1024/3121 as fast, so
            // the same vruntime distance lasts 3121/1024 longer in wall time
            let until = arbor_protect_until(now, 0, slice * 1024 / 3121, 3121);
            assert!(until.abs_diff(now + slice) < 1_000, "{}", until - now);
            // nice 19 (15)
            let until = arbor_protect_until(now, 0, slice * 1024 / 15, 15);
            assert!(until.abs_diff(now + slice) < 1_000, "{}", until - now);
            // picked at or past its deadline: nothing left to protect
            assert_eq!(arbor_protect_until(now, 7, 7, 1024), now);
            assert_eq!(arbor_protect_until(now, 9, 7, 1024), now);
            assert!(!arbor_run_to_parity(true, now, now));
            // weight 0 (not yet known) counts as nice 0
            assert_eq!(arbor_protect_until(now, 0, 10, 0), now + 10);
        }
    }

    #[test]
    fn steal_skipped_under_cost_or_above_node_limit() {
        unsafe {
            assert!(arbor_steal_allowed(10_000, 10_000, 2, 2));
            assert!(!arbor_steal_allowed(9_999, 10_000, 2, 2));
            assert!(!arbor_steal_allowed(50_000, 10_000, 3, 2));
        }
    }

    // ---- seed 004: capacity ----

    #[test]
    fn fits_margin_is_80_percent() {
        unsafe {
            // 430 * 1024 / 1280 = 344
            assert!(arbor_fits(343, 430));
            assert!(!arbor_fits(344, 430));
            assert!(arbor_fits(818, 1024));
            assert!(!arbor_fits(820, 1024));
            // wake_cap uses the smaller of prev and this
            assert!(arbor_wake_cap(400, 1024, 430));
            assert!(!arbor_wake_cap(300, 1024, 430));
        }
    }

    /// can_migrate_task(): a pull never takes a migration-disabled task
    /// (issue 10, deviation 10), nor one outside its cpumask, nor a
    /// cache-hot one above the LLC.
    #[test]
    fn can_pull_refuses_pinned_migration_disabled_and_hot_tasks() {
        unsafe {
            assert!(arbor_can_pull(true, false, false, 0, 500_000));
            assert!(!arbor_can_pull(true, true, false, u64::MAX, 500_000));
            assert!(!arbor_can_pull(false, false, false, u64::MAX, 500_000));
            // hot only matters above the LLC
            assert!(!arbor_can_pull(true, false, true, 499_999, 500_000));
            assert!(arbor_can_pull(true, false, true, 500_000, 500_000));
            assert!(arbor_can_pull(true, false, true, u64::MAX, 500_000));
        }
    }

    /// Seed 004's wake_cap: "minimum capacity is close to max" (within 1/8
    /// of it) keeps the fast path whatever the task's size (issue 10,
    /// deviation 6).
    #[test]
    fn wake_cap_exempts_cpus_within_an_eighth_of_the_biggest() {
        unsafe {
            assert!(!arbor_wake_cap(900, 1024, 1024));
            assert!(!arbor_wake_cap(1000, 1024, 897)); // 1024 - 897 = 127 < 128
            assert!(arbor_wake_cap(1000, 1024, 896)); // 128: not within 1/8
        }
    }

    #[test]
    fn capacity_pick_spare_then_load() {
        let cap = [1024u32, 1024, 430, 430];
        let util = [900u64, 100, 0, 0];
        unsafe {
            // idle 1 and 2: spare 924 vs 430 -> 1
            assert_eq!(
                arbor_capacity_pick(4, cap.as_ptr(), util.as_ptr(), cm(0b0110).as_ptr(), 400),
                1
            );
            // only little 2 idle, spare 430 > 600/2 -> 2
            assert_eq!(
                arbor_capacity_pick(4, cap.as_ptr(), util.as_ptr(), cm(0b0100).as_ptr(), 600),
                2
            );
            // spare 430 < 900/2: least util/cap instead -> 3 (0/430)
            let util2 = [900u64, 100, 50, 0];
            assert_eq!(
                arbor_capacity_pick(4, cap.as_ptr(), util2.as_ptr(), cm(0b0100).as_ptr(), 900),
                3
            );
        }
    }

    #[test]
    fn select_idle_capacity_first_fit_else_biggest() {
        let cap = [1024u32, 1024, 430, 430];
        unsafe {
            // util 300 fits 430: first idle from start=2 -> 2
            assert_eq!(
                arbor_select_idle_capacity(4, cap.as_ptr(), cm(0b1101).as_ptr(), 300, 2),
                2
            );
            // util 600 fits only big: scanning from 2 wraps to 0
            assert_eq!(
                arbor_select_idle_capacity(4, cap.as_ptr(), cm(0b1101).as_ptr(), 600, 2),
                0
            );
            // util 1000 fits nothing: biggest idle
            assert_eq!(
                arbor_select_idle_capacity(4, cap.as_ptr(), cm(0b1100).as_ptr(), 1000, 0),
                2
            );
            assert_eq!(
                arbor_select_idle_capacity(4, cap.as_ptr(), cm(0).as_ptr(), 100, 0),
                -1
            );
        }
    }

    #[test]
    fn misfit_target_needs_5_percent_more_and_idle() {
        let cap = [1024u32, 1024, 430, 450, 1000];
        unsafe {
            // from 430: 450 is only 4.7% bigger -> not a target; idle big 1 wins
            assert_eq!(
                arbor_misfit_target(430, 5, cap.as_ptr(), cm(0b01010).as_ptr()),
                1
            );
            // no idle candidate: stay (issue 10, deviation 7: a busy big
            // CPU is never a target, the kernel pulls only from an idle one)
            assert_eq!(
                arbor_misfit_target(430, 5, cap.as_ptr(), cm(0).as_ptr()),
                -1
            );
            assert_eq!(
                arbor_misfit_target(430, 5, cap.as_ptr(), cm(0b00100).as_ptr()),
                -1
            );
            // among idle bigger CPUs, the biggest
            assert_eq!(
                arbor_misfit_target(430, 5, cap.as_ptr(), cm(0b10010).as_ptr()),
                1
            );
            // from the biggest: nothing bigger
            assert_eq!(
                arbor_misfit_target(1024, 5, cap.as_ptr(), cm(0b11111).as_ptr()),
                -1
            );
            // from 1000: 1024 is 2.4% bigger -> none
            assert_eq!(
                arbor_misfit_target(1000, 5, cap.as_ptr(), cm(0b11111).as_ptr()),
                -1
            );
        }
    }

    // ---- seed 002: CACHE_LB ----

    #[test]
    fn hottest_llc_switches_only_past_twice() {
        unsafe {
            let occ = [300u64, 500, 0];
            // no preference yet: the hottest
            assert_eq!(
                arbor_cache_pick_pref(3, occ.as_ptr(), -1, lm(0).as_ptr()),
                1
            );
            // current 0 at 300: 500 is not > 600 -> keep 0
            assert_eq!(arbor_cache_pick_pref(3, occ.as_ptr(), 0, lm(0).as_ptr()), 0);
            let occ = [300u64, 601, 0];
            assert_eq!(arbor_cache_pick_pref(3, occ.as_ptr(), 0, lm(0).as_ptr()), 1);
            // exactly 2x is not enough
            let occ = [300u64, 600, 0];
            assert_eq!(arbor_cache_pick_pref(3, occ.as_ptr(), 0, lm(0).as_ptr()), 0);
            // no occupancy anywhere: keep what we had
            let occ = [0u64; 3];
            assert_eq!(arbor_cache_pick_pref(3, occ.as_ptr(), 2, lm(0).as_ptr()), 2);
        }
    }

    #[test]
    fn hottest_llc_room_rule_for_full_llcs() {
        unsafe {
            // split evenly, LLC 0 full (bit 0), LLC 1 has room: a process
            // without preference, or preferring the full one, takes LLC 1
            let occ = [512u64, 512, 0];
            assert_eq!(
                arbor_cache_pick_pref(3, occ.as_ptr(), -1, lm(0b01).as_ptr()),
                1
            );
            assert_eq!(
                arbor_cache_pick_pref(3, occ.as_ptr(), 0, lm(0b01).as_ptr()),
                1
            );
            // the same split with nothing full: ties keep the first / current
            assert_eq!(
                arbor_cache_pick_pref(3, occ.as_ptr(), -1, lm(0).as_ptr()),
                0
            );
            assert_eq!(arbor_cache_pick_pref(3, occ.as_ptr(), 0, lm(0).as_ptr()), 0);
            // both full: ordinary hysteresis, keep the current
            assert_eq!(
                arbor_cache_pick_pref(3, occ.as_ptr(), 0, lm(0b11).as_ptr()),
                0
            );
            // just aggregated into the full LLC 0; LLC 1 holds decaying run
            // time below half of LLC 0's: stay
            let occ = [1024u64, 511, 0];
            assert_eq!(
                arbor_cache_pick_pref(3, occ.as_ptr(), 0, lm(0b01).as_ptr()),
                0
            );
            assert_eq!(
                arbor_cache_pick_pref(3, occ.as_ptr(), -1, lm(0b01).as_ptr()),
                0
            );
            // exactly half is as hot
            let occ = [1024u64, 512, 0];
            assert_eq!(
                arbor_cache_pick_pref(3, occ.as_ptr(), 0, lm(0b01).as_ptr()),
                1
            );
            // the LLC with room must be one the process runs in (occ > 0)
            let occ = [1024u64, 0, 0];
            assert_eq!(
                arbor_cache_pick_pref(3, occ.as_ptr(), 0, lm(0b001).as_ptr()),
                0
            );
            // of two LLCs with room, the hotter one
            let occ = [800u64, 500, 700];
            assert_eq!(
                arbor_cache_pick_pref(3, occ.as_ptr(), 0, lm(0b001).as_ptr()),
                2
            );
        }
    }

    #[test]
    fn cache_eligibility_threads_smt_tolerance() {
        unsafe {
            // single-threaded: never, whatever the limits
            assert!(!arbor_cache_eligible(1, 1, 1, 8, 1000));
            // 3 running x SMT1 = 3 < 0.8*4 = 3.2 (tolerance 1: the LLC as is)
            assert!(arbor_cache_eligible(3, 3, 1, 4, 1));
            // 2 running x SMT2 = 4 >= 3.2: refused, tolerance 2 (x2) allows it
            assert!(!arbor_cache_eligible(2, 2, 2, 4, 1));
            assert!(arbor_cache_eligible(2, 2, 2, 4, 2));
            // 40 threads of which 3 run: the running ones count
            assert!(arbor_cache_eligible(40, 3, 1, 4, 1));
            assert!(!arbor_cache_eligible(40, 4, 1, 4, 1));
            // POWER-like SMT8: 2 running threads need 16 CPUs
            assert!(!arbor_cache_eligible(2, 2, 8, 8, 1));
            // >= 100: limits ignored
            assert!(arbor_cache_eligible(64, 64, 8, 4, 100));
        }
    }

    /// Issue 10, deviation 8: --llc-tolerance is the kernel's
    /// llc_aggr_tolerance, a multiplier (get_sched_cache_scale): 0 turns
    /// aggregation off, N multiplies the LLC by N; it was "+N %" here.
    #[test]
    fn cache_tolerance_is_a_multiplier_as_in_the_kernel() {
        unsafe {
            // 0: no process is eligible (it was "the limit as is")
            assert!(!arbor_cache_eligible(3, 3, 1, 4, 0));
            assert!(!arbor_cache_eligible(2, 0, 1, 64, 0));
            // x2: 4 running x SMT2 = 8 < 0.8 * 2 * 8 = 12.8 (it was +2 %)
            assert!(arbor_cache_eligible(4, 4, 2, 8, 2));
            assert!(!arbor_cache_eligible(4, 4, 2, 8, 1));
            // x3 on SMT8: 2 running = 16 CPUs < 0.8 * 3 * 8 = 19.2
            assert!(arbor_cache_eligible(2, 2, 8, 8, 3));
            // the kernel's strict fits_capacity(): exactly 80 % does not fit
            assert!(!arbor_cache_eligible(4, 4, 1, 5, 1));
            assert!(arbor_cache_eligible(4, 4, 1, 6, 1));
        }
    }

    #[test]
    fn cache_running_threads_from_decayed_run_time() {
        let e = 10_000_000u64;
        unsafe {
            // 2 threads always running, 3 ms into the current epoch:
            // full epochs sum to 2*e, the current one adds 2*3 ms
            assert_eq!(
                arbor_cache_nr_running(2 * e + 2 * 3_000_000, 7 * e + 3_000_000, e),
                2
            );
            // at the epoch boundary
            assert_eq!(arbor_cache_nr_running(3 * e, 5 * e, e), 3);
            // a thread running a quarter of the time rounds to 0, half to 1
            assert_eq!(arbor_cache_nr_running(e / 4, 5 * e, e), 0);
            assert_eq!(arbor_cache_nr_running(e / 2, 5 * e, e), 1);
            // no epoch (misconfigured): no division by zero
            assert_eq!(arbor_cache_nr_running(e, 5, 0), 0);
        }
    }

    #[test]
    fn aggregation_refused_over_aggr_and_imb_in_both_directions() {
        let cap = 4096u64; // 4 CPUs
        unsafe {
            // into: dst 60% (over 50%), src 20%: dst is >20% busier -> refused
            assert!(!arbor_cache_allow_into(2458, cap, 819, cap, 0, 50, 20));
            // into: dst 40% (under threshold) -> allowed even if busier than src
            assert!(arbor_cache_allow_into(1638, cap, 409, cap, 0, 50, 20));
            // into: dst 55%, src 50%: over but only 10% busier -> allowed
            assert!(arbor_cache_allow_into(2253, cap, 2048, cap, 0, 50, 20));
            // into: both over -> ordinary balancing decides (allowed)
            assert!(arbor_cache_allow_into(4000, cap, 2100, cap, 0, 50, 20));
            // out: pref under threshold -> refused (stay aggregated)
            assert!(!arbor_cache_allow_out(1638, cap, 0, cap, 0, 50, 20));
            // out: pref 52% (over), dst 48% (under): not 20% busier -> refused
            assert!(!arbor_cache_allow_out(2130, cap, 1966, cap, 0, 50, 20));
            // out: both over -> ordinary balancing decides (allowed)
            assert!(arbor_cache_allow_out(2458, cap, 2253, cap, 0, 50, 20));
            // out: pref 70%, dst 20% -> allowed
            assert!(arbor_cache_allow_out(2867, cap, 819, cap, 0, 50, 20));
            // out: a lower aggr_pct (Tim Chen's suggestion for SMT) makes pref "over" sooner
            assert!(arbor_cache_allow_out(1638, cap, 0, cap, 0, 30, 20));
        }
    }

    /// Issue 12: seed 002's migrate_llc_task decision, each case: no
    /// preference or same LLC -> no opinion; into the preferred LLC ->
    /// pull (even when balanced) unless the move overloads it (forbid) or
    /// both LLCs are over (ordinary balancing); out of it -> forbidden
    /// unless the preferred LLC is over and busier; a third LLC -> no
    /// opinion.
    #[test]
    fn cache_lb_task_verdicts() {
        use crate::bpf_intf::{
            arbor_llc_lb_LLC_LB_ANY as ANY, arbor_llc_lb_LLC_LB_FORBID as FORBID,
            arbor_llc_lb_LLC_LB_PULL as PULL,
        };
        let cap = 4096u64; // 4 CPUs, threshold 50 % = 2048
        let v = |pref: i32, s: u32, d: u32, su: u64, du: u64, tu: u64| unsafe {
            arbor_cache_lb_task(pref, s, d, su, cap, du, cap, tu, 50, 20)
        };
        // no preference, or within one LLC: no opinion
        assert_eq!(v(-1, 1, 0, 1024, 512, 512), ANY);
        assert_eq!(v(0, 0, 0, 3000, 3000, 512), ANY);
        // into the preferred LLC 0 (dst): both light -> pull although balanced
        assert_eq!(v(0, 1, 0, 512, 512, 512), PULL);
        // ... the move would take dst to 2048 + 512 (over) and it is busier than src -> forbid
        assert_eq!(v(0, 1, 0, 1024, 2048, 512), FORBID);
        // ... both over before the move: ordinary balancing decides, no LLC pull
        assert_eq!(v(0, 1, 0, 2500, 3000, 512), ANY);
        // out of the preferred LLC 1 (src), which is light -> forbid
        assert_eq!(v(1, 1, 0, 1024, 0, 512), FORBID);
        // ... the preferred LLC stays over (3600 - 512) and is far busier -> allowed
        assert_eq!(v(1, 1, 0, 3600, 0, 512), ANY);
        // a third LLC (pref 2): neither end is the preferred LLC -> no opinion
        assert_eq!(v(2, 1, 0, 512, 512, 512), ANY);
    }

    /// Issue 10, deviation 8: can_migrate_llc() judges a move on the
    /// utilisations it would leave (src without the task, dst with it);
    /// these moves passed when the task's own utilisation was left out.
    #[test]
    fn aggregation_counts_the_moving_tasks_own_utilisation() {
        let cap = 4096u64; // 4 CPUs, threshold 50 % = 2048
        unsafe {
            // into: dst 45 % + a 400 task = 54.8 % (over), src 20 % - 400
            // = 10 %: the move itself overloads the preferred LLC -> refused
            assert!(!arbor_cache_allow_into(1843, cap, 819, cap, 400, 50, 20));
            assert!(arbor_cache_allow_into(1843, cap, 819, cap, 0, 50, 20));
            // into: a small task keeps dst under the threshold -> allowed
            assert!(arbor_cache_allow_into(1843, cap, 819, cap, 100, 50, 20));
            // out: pref 55 % (over), dst 20 %; without the 300 task pref is
            // 47.6 %, under the threshold: leaving would under-fill it
            assert!(!arbor_cache_allow_out(2253, cap, 819, cap, 300, 50, 20));
            assert!(arbor_cache_allow_out(2253, cap, 819, cap, 0, 50, 20));
            // out: pref 70 % - 300 = 62.6 % vs dst 20 % + 300 = 27.3 % -> allowed
            assert!(arbor_cache_allow_out(2867, cap, 819, cap, 300, 50, 20));
            // out: pref 65 % - 700 = 48 % (under) -> refused
            assert!(!arbor_cache_allow_out(2662, cap, 0, cap, 700, 50, 20));
            // a task bigger than its source LLC's sum saturates at 0
            assert!(!arbor_cache_allow_into(1900, cap, 100, cap, 400, 50, 20));
            // both over before the move: ordinary balancing decides
            assert!(arbor_cache_allow_into(2100, cap, 2100, cap, 1000, 50, 20));
            assert!(arbor_cache_allow_out(2100, cap, 2100, cap, 1000, 50, 20));
        }
    }

    // ---- SIS_UTIL ----

    #[test]
    fn sis_util_scan_depth() {
        unsafe {
            // idle LLC: scan everything
            assert_eq!(arbor_sis_util_nr_scan(8, 0, 117), 8);
            // 50% per CPU: 1 - (0.5*1.17)^2 = 0.657775 -> 5 of 8
            assert_eq!(arbor_sis_util_nr_scan(8, 8 * 512, 117), 5);
            // 85.5% (x*1.17 ~ 1): nothing
            assert_eq!(arbor_sis_util_nr_scan(8, 8 * 876, 117), 0);
            // fully busy: nothing
            assert_eq!(arbor_sis_util_nr_scan(8, 8 * 1024, 117), 0);
            // empty LLC
            assert_eq!(arbor_sis_util_nr_scan(0, 0, 117), 0);
        }
    }

    // ---- select_idle_cpu and the has_idle_cores hint ----

    /// One LLC of 4 cores x 2 threads, CPUs 0..8, core = cpu / 2.
    fn snap(idle: &[usize]) -> llc_snapshot {
        let mut s: llc_snapshot = unsafe { std::mem::zeroed() };
        s.nr = 8;
        s.smt_width = 2;
        for i in 0..8 {
            s.cpu[i] = i as i32;
            s.core[i] = (i / 2) as u32;
        }
        let ring = sib_ring(&s.core[..8]);
        s.sib[..8].copy_from_slice(&ring);
        s.idle_mask = mask::<{ LLC_WORDS }>(idle);
        s
    }

    #[test]
    fn scan_starts_after_target_and_wraps() {
        let s = snap(&[1, 6]);
        assert_eq!(select_idle_cpu(&s, 2, false, false, 0), (6, false, false));
        assert_eq!(select_idle_cpu(&s, 6, false, false, 0), (1, false, false));
    }

    #[test]
    fn idle_core_preferred_over_idle_thread_when_hinted() {
        // CPU 3 idle alone on core 1 (its sibling 2 busy); core 3 (6,7) fully idle
        let s = snap(&[3, 6, 7]);
        assert_eq!(select_idle_cpu(&s, 2, true, true, 1), (6, false, true));
        // without the hint the first idle CPU wins
        assert_eq!(select_idle_cpu(&s, 2, false, false, 0), (3, false, false));
    }

    #[test]
    fn stale_idle_core_hint_is_cleared_and_idle_thread_used() {
        let s = snap(&[3]);
        assert_eq!(select_idle_cpu(&s, 0, true, true, 1), (3, true, false));
        // nothing idle at all: -1, hint cleared
        let s = snap(&[]);
        assert_eq!(select_idle_cpu(&s, 0, true, true, 1), (-1, true, false));
    }

    #[test]
    fn sis_util_limits_the_scan() {
        let s = snap(&[7]);
        // from target 0, CPU 7 is the 7th scanned
        assert_eq!(select_idle_cpu(&s, 0, false, true, 6).0, -1);
        assert_eq!(select_idle_cpu(&s, 0, false, true, 7).0, 7);
        // depth 0: no scan at all, even with idle CPUs right after target
        let s = snap(&[1]);
        assert_eq!(select_idle_cpu(&s, 0, false, true, 0).0, -1);
        // SIS_UTIL off: unlimited
        assert_eq!(select_idle_cpu(&s, 0, false, false, 0).0, 1);
    }

    /// fair.c select_idle_cpu(): SIS_UTIL's "nr == 1 → return -1" comes
    /// before the loop, so an overloaded LLC is not scanned even when the
    /// idle-core hint is set (issue 10, deviation 1); the hint is kept.
    #[test]
    fn sis_util_depth_0_skips_the_scan_even_with_the_idle_core_hint() {
        let s = snap(&[6, 7]);
        assert_eq!(select_idle_cpu(&s, 0, true, true, 0), (-1, false, false));
        // with some depth the hinted core search runs, unlimited by it
        assert_eq!(select_idle_cpu(&s, 0, true, true, 1), (6, false, true));
    }

    // ---- SIS_IDLE_GROUP: select_idle_sibling of kernels 3.9-4.8 ----

    /// The difference from the 4.9+ scan: with no wholly idle core and
    /// target's sibling busy, an idle thread of another busy core is not
    /// taken (the scan takes CPU 3 here).
    #[test]
    fn idle_group_never_takes_a_lone_idle_thread_of_another_core() {
        let s = snap(&[3, 5]);
        assert_eq!(select_idle_group(&s, 0), (-1, false));
        assert_eq!(select_idle_cpu(&s, 0, false, false, 0).0, 3);
    }

    #[test]
    fn idle_group_prefers_a_whole_idle_core_then_targets_sibling() {
        // core 3 (6, 7) wholly idle: its first CPU, even with 1 and 3 idle
        assert_eq!(select_idle_group(&snap(&[1, 3, 6, 7]), 0), (6, true));
        // no idle core: target's own sibling
        assert_eq!(select_idle_group(&snap(&[1, 3, 5]), 0), (1, false));
        assert_eq!(select_idle_group(&snap(&[0, 3, 5]), 1), (0, false));
    }

    /// The groups form a ring starting at target's core, in CPU-id order;
    /// target's own core is skipped even when its sibling is idle.
    #[test]
    fn idle_group_walks_the_cores_from_targets_and_wraps() {
        let s = snap(&[2, 3, 6, 7]);
        assert_eq!(select_idle_group(&s, 4), (6, true));
        assert_eq!(select_idle_group(&s, 0), (2, true));
        assert_eq!(select_idle_group(&snap(&[2, 3]), 6), (2, true));
        // 7 is a lone idle thread of core 3: not taken; target's sibling is
        assert_eq!(select_idle_group(&snap(&[1, 7]), 0), (1, false));
    }

    /// x86 numbering (CPU i and i + 4 share core i % 4): a core is taken
    /// at its lowest CPU id, and target's sibling is 4 CPUs away.
    #[test]
    fn idle_group_on_x86_numbering() {
        let mut s = snap(&[]);
        for i in 0..8 {
            s.core[i] = (i % 4) as u32;
        }
        let ring = sib_ring(&s.core[..8]);
        s.sib[..8].copy_from_slice(&ring);
        s.idle_mask = mask::<{ LLC_WORDS }>(&[5, 2, 6]);
        assert_eq!(select_idle_group(&s, 0), (2, true));
        assert_eq!(select_idle_group(&s, 4), (2, true));
        s.idle_mask = mask::<{ LLC_WORDS }>(&[5, 6]);
        assert_eq!(select_idle_group(&s, 1), (5, false));
        assert_eq!(select_idle_group(&s, 0), (-1, false));
    }

    /// Without SMT every CPU is its own group: the first idle CPU after
    /// target, wrapping, as the scan finds it.
    #[test]
    fn idle_group_without_smt_is_the_first_idle_cpu_after_target() {
        let mut s = snap(&[1, 6]);
        s.smt_width = 1;
        for i in 0..8 {
            s.core[i] = i as u32;
            s.sib[i] = i as u16;
        }
        assert_eq!(select_idle_group(&s, 2), (6, true));
        assert_eq!(select_idle_group(&s, 6), (1, true));
        s.idle_mask = mask::<{ LLC_WORDS }>(&[]);
        assert_eq!(select_idle_group(&s, 2), (-1, false));
    }

    // ---- issue 10 (Scale): multi-word masks, LLCs past 64 CPUs ----

    #[test]
    fn mask_helpers_span_words_and_ignore_out_of_range_bits() {
        let mut m = [0u64; LLC_WORDS];
        unsafe {
            for b in [0u32, 63, 64, 127, 200, 255] {
                arbor_mask_set(m.as_mut_ptr(), LLC_WORDS as u32, b);
            }
            // past the end: neither set nor read
            arbor_mask_set(m.as_mut_ptr(), LLC_WORDS as u32, 256);
            assert!(!arbor_mask_test(m.as_ptr(), LLC_WORDS as u32, 256));
            assert!(!arbor_mask_test(m.as_ptr(), LLC_WORDS as u32, 100_000));
            for b in 0..256u32 {
                let want = [0, 63, 64, 127, 200, 255].contains(&b);
                assert_eq!(
                    arbor_mask_test(m.as_ptr(), LLC_WORDS as u32, b),
                    want,
                    "bit {b}"
                );
            }
            assert_eq!(m, [1 | 1 << 63, 1 | 1 << 63, 0, 1 << 8 | 1 << 63]);
            assert_eq!(arbor_mask_weight(m.as_ptr(), LLC_WORDS as u32), 6);
            arbor_mask_clear(m.as_mut_ptr(), LLC_WORDS as u32, 64);
            assert!(!arbor_mask_test(m.as_ptr(), LLC_WORDS as u32, 64));
            assert!(arbor_mask_test(m.as_ptr(), LLC_WORDS as u32, 63));
            assert_eq!(arbor_mask_weight(m.as_ptr(), LLC_WORDS as u32), 5);
            arbor_mask_zero(m.as_mut_ptr(), LLC_WORDS as u32);
            assert_eq!(m, [0; LLC_WORDS]);
            // a 1024-CPU mask: the last CPU
            let mut c = [0u64; CPU_WORDS];
            arbor_mask_set(c.as_mut_ptr(), CPU_WORDS as u32, 1023);
            assert_eq!(c[15], 1 << 63);
            assert_eq!(arbor_mask_weight(c.as_ptr(), CPU_WORDS as u32), 1);
        }
        assert_eq!(mask::<2>(&[1, 65]), [2, 2]);
    }

    #[test]
    fn sibling_ring_links_each_core_and_wraps() {
        // x86 numbering: CPU i and i+4 are siblings (cores 0..4)
        assert_eq!(
            sib_ring(&[0, 1, 2, 3, 0, 1, 2, 3]),
            vec![4, 5, 6, 7, 0, 1, 2, 3]
        );
        // SMT4, contiguous; a lone CPU points at itself
        assert_eq!(sib_ring(&[7, 7, 7, 7, 9]), vec![1, 2, 3, 0, 4]);
    }

    /// A 96-CPU LLC as on a 48-core Xeon with x86 numbering: CPU i and
    /// i + 48 share core i % 48. `idle` lists CPU ids.
    fn snap96(idle: &[usize]) -> llc_snapshot {
        let mut s: llc_snapshot = unsafe { std::mem::zeroed() };
        s.nr = 96;
        s.smt_width = 2;
        for i in 0..96 {
            s.cpu[i] = i as i32;
            s.core[i] = (i % 48) as u32;
        }
        let ring = sib_ring(&s.core[..96]);
        s.sib[..96].copy_from_slice(&ring);
        s.idle_mask = mask::<{ LLC_WORDS }>(idle);
        s
    }

    #[test]
    fn select_idle_cpu_sees_cpus_past_64_in_a_96_cpu_llc() {
        // the only idle CPU is 90: found from target 10 (80 CPUs scanned)
        let s = snap96(&[90]);
        assert_eq!(select_idle_cpu(&s, 10, false, false, 0), (90, false, false));
        // an idle core whose threads are 40 and 88; 70 idle alone (sibling 22 busy)
        let s = snap96(&[70, 40, 88]);
        assert_eq!(select_idle_cpu(&s, 60, true, true, 5), (88, false, true));
        // from target 30 the scan meets 40 first: its sibling 88 is idle too
        assert_eq!(select_idle_cpu(&s, 30, true, true, 5), (40, false, true));
        // without the sibling 88, core 40 is not idle: 70 is the fallback
        let s = snap96(&[70, 40]);
        assert_eq!(select_idle_cpu(&s, 30, true, true, 5), (40, true, false));
        assert_eq!(select_idle_cpu(&s, 60, true, true, 5), (70, true, false));
    }

    #[test]
    fn core_idle_checks_only_the_cores_threads() {
        let s = snap96(&[5, 53, 6]);
        unsafe {
            assert!(arbor_core_idle(&s, 5));
            assert!(arbor_core_idle(&s, 53));
            // 6's sibling 54 is busy
            assert!(!arbor_core_idle(&s, 6));
            // a busy CPU is never an idle core
            assert!(!arbor_core_idle(&s, 54));
            assert!(!arbor_core_idle(&s, 200));
            assert_eq!(arbor_llc_index(&s, 77), 77);
            assert_eq!(arbor_llc_index(&s, 96), -1);
        }
    }

    #[test]
    fn sis_scan_len_is_what_the_kernel_scan_may_visit() {
        unsafe {
            assert_eq!(arbor_sis_scan_len(96, false, true, 0), 0);
            assert_eq!(arbor_sis_scan_len(96, true, true, 0), 0);
            assert_eq!(arbor_sis_scan_len(96, false, true, 7), 7);
            assert_eq!(arbor_sis_scan_len(96, false, true, 500), 96);
            assert_eq!(arbor_sis_scan_len(96, true, true, 7), 96);
            assert_eq!(arbor_sis_scan_len(96, false, false, 7), 96);
        }
        // a snapshot that marks only the first nr_scan CPUs after target
        // gives the same answer as one that marks them all
        let full = snap96(&[20, 40]);
        let mut part = snap96(&[]);
        part.idle_mask = mask::<{ LLC_WORDS }>(&[20]);
        for (s, want) in [(&full, 20), (&part, 20)] {
            // 20 is the 10th CPU after target 10
            assert_eq!(select_idle_cpu(s, 10, false, true, 10).0, want);
        }
        assert_eq!(select_idle_cpu(&full, 10, false, true, 9).0, -1);
    }

    #[test]
    fn steal_order_reaches_overloaded_cpus_past_64() {
        let mut s = snap96(&[]);
        s.idle_mask = mask::<{ LLC_WORDS }>(&[3, 70, 95]);
        // this = 22: sibling 70 first, then from 23 wrapping: 95, 3
        assert_eq!(steal_order(&s, 22), vec![70, 95, 3]);
    }

    #[test]
    fn capacity_scans_cover_cpus_past_64() {
        let n = 1024usize;
        let mut cap = vec![430u32; n];
        cap[700] = 1024;
        cap[900] = 1024;
        let util = vec![0u64; n];
        let idle = mask::<{ CPU_WORDS }>(&[5, 700]);
        unsafe {
            // util 600 fits only a big CPU: the idle big one is 700
            assert_eq!(
                arbor_select_idle_capacity(n as u32, cap.as_ptr(), idle.as_ptr(), 600, 0),
                700
            );
            assert_eq!(
                arbor_misfit_target(430, n as u32, cap.as_ptr(), idle.as_ptr()),
                700
            );
            // most spare capacity among the idle: 700
            assert_eq!(
                arbor_capacity_pick(n as u32, cap.as_ptr(), util.as_ptr(), idle.as_ptr(), 600),
                700
            );
        }
    }

    #[test]
    fn cache_room_rule_sees_llcs_past_64() {
        let mut occ = [0u64; 128];
        occ[100] = 512;
        occ[101] = 512;
        unsafe {
            // LLC 100 full, 101 has room: take 101
            let over = mask::<{ LLCS_WORDS }>(&[100]);
            assert_eq!(
                arbor_cache_pick_pref(128, occ.as_ptr(), 100, over.as_ptr()),
                101
            );
            assert_eq!(
                arbor_cache_pick_pref(128, occ.as_ptr(), -1, over.as_ptr()),
                101
            );
            // nothing over: keep the current
            let none = mask::<{ LLCS_WORDS }>(&[]);
            assert_eq!(
                arbor_cache_pick_pref(128, occ.as_ptr(), 100, none.as_ptr()),
                100
            );
        }
    }

    /// Issue 10: wake_affine's LLC counts and loads are gathered only when
    /// arbor_wa_needs_load says a later stage reads them; whenever it says
    /// no, the decision must not depend on them.
    #[test]
    fn wake_affine_loads_are_needed_only_past_wa_idle_and_the_throttle() {
        let garbage = |mut k: wa_input| {
            k.this_llc_busy = 7;
            k.this_llc_size = 3;
            k.prev_llc_busy = 0;
            k.prev_llc_size = 9;
            k.this_load = 123_456;
            k.prev_load = 1;
            k.task_load = 99_999;
            k.waker_load = 5;
            k.this_cap = 17;
            k.prev_cap = 1024;
            k.imbalance_pct = 3;
            k
        };
        let mut cases = Vec::new();
        for feats in [
            all_feats(),
            all_feats() & !(1 << arbor_feature_FEAT_WA_IDLE),
        ] {
            for (ti, pi, sc, sy, nr) in [
                (1, 1, 1, 0, 2),
                (1, 0, 1, 0, 2),
                (0, 1, 0, 0, 2),
                (0, 0, 0, 1, 1),
                (0, 0, 1, 0, 3),
                (1, 0, 0, 0, 2),
            ] {
                for throttled in [false, true] {
                    let mut k = wa();
                    k.features = feats | (1 << arbor_feature_FEAT_WA_THROTTLE);
                    k.this_idle = ti;
                    k.prev_idle = pi;
                    k.share_cache = sc;
                    k.sync = sy;
                    k.this_nr_running = nr;
                    k.throttle_ns = 1000;
                    k.now = 10;
                    k.next_wake_affine = if throttled { 20 } else { 0 };
                    cases.push(k);
                }
            }
        }
        let mut skipped = 0;
        for k in cases {
            if unsafe { arbor_wa_needs_load(&k) } {
                continue;
            }
            skipped += 1;
            let (r1, o1) = wake_affine(&k);
            let (r2, o2) = wake_affine(&garbage(k));
            assert_eq!(
                (r1, o1.why, o1.next_wake_affine),
                (r2, o2.why, o2.next_wake_affine)
            );
            assert!(o1.why == wa_why_WHY_IDLE || o1.why == wa_why_WHY_THROTTLED);
        }
        // the early stages answered for the throttled and the WA_IDLE cases
        assert!(skipped >= 12, "{skipped}");
        // nothing idle, not sync: the loads decide, so they are needed
        let mut k = wa();
        k.this_idle = 0;
        k.prev_idle = 0;
        k.sync = 0;
        assert!(unsafe { arbor_wa_needs_load(&k) });
    }

    // ---- slow path ----

    /// A group of `weight` CPUs of capacity 1024, all allowed, running
    /// `nr` tasks with `idle` CPUs idle, utilisation `util` and load `load`.
    fn grp(weight: u32, nr: u32, idle: u32, util: u64, load: u64) -> group_stats {
        group_stats {
            load,
            util,
            runnable: load,
            capacity: weight * 1024,
            weight,
            allowed: weight,
            nr_running: nr,
            idle_cpus: idle,
            pad: 0,
        }
    }

    const SPARE: u32 = arbor_group_type_GROUP_HAS_SPARE;
    const BUSY: u32 = arbor_group_type_GROUP_FULLY_BUSY;
    const OVER: u32 = arbor_group_type_GROUP_OVERLOADED;

    #[test]
    fn imb_numa_nr_as_build_sched_domains_sets_it() {
        // one LLC per node (xeon-88: 2 x 44): 1/8 of the node
        assert_eq!(imb_numa_nr(44, 1), 5);
        assert_eq!(imb_numa_nr(28, 1), 3);
        // several LLCs per node: one task per LLC (power11: 112 CPUs, 28 LLCs)
        assert_eq!(imb_numa_nr(112, 28), 28);
        assert_eq!(imb_numa_nr(64, 8), 8);
        // at least 1 (the 2s2c2t guest: 4-CPU nodes)
        assert_eq!(imb_numa_nr(4, 1), 1);
    }

    #[test]
    fn group_classify_spare_fully_busy_overloaded() {
        unsafe {
            assert_eq!(arbor_group_type(&grp(4, 3, 1, 3000, 3000), 117), SPARE);
            // one task per CPU, utilisation above capacity / 1.17: no capacity left
            assert_eq!(arbor_group_type(&grp(4, 4, 0, 3600, 4096), 117), BUSY);
            // one task per CPU but light ones: still spare
            assert_eq!(arbor_group_type(&grp(4, 4, 0, 1000, 1000), 117), SPARE);
            // more tasks than CPUs and utilisation over capacity / 1.17
            assert_eq!(arbor_group_type(&grp(4, 6, 0, 3700, 6000), 117), OVER);
            // more tasks than CPUs, light utilisation but runnable over capacity * 1.17
            assert_eq!(arbor_group_type(&grp(4, 6, 0, 1000, 6000), 117), OVER);
            assert_eq!(arbor_group_type(&grp(4, 6, 0, 1000, 1000), 117), SPARE);
        }
    }

    /// WAKE_NODE on crafted machines, each CPU's node from a layout:
    /// a one-node machine (x86-12-like: 12 CPUs) never keeps; on two nodes
    /// of 4 CPUs (2s2c2t-like) and of 112 (power11-like), a wake-up from the
    /// other node keeps the wakee home exactly while its node has an idle
    /// CPU, and a wake-up inside the node is left to wake_affine.
    #[test]
    fn wake_node_keeps_a_wakee_home_while_its_node_has_an_idle_cpu() {
        let keep = |node: &[u32], this: usize, prev: usize, busy: &[bool]| {
            let pn = node[prev];
            let cpus = node.iter().filter(|&&n| n == pn).count() as u32;
            let nbusy = (0..node.len())
                .filter(|&c| node[c] == pn && busy[c])
                .count() as u32;
            unsafe { arbor_wake_node_keep(node[this], pn, nbusy, cpus) }
        };
        // one node: never
        let one = [0u32; 12];
        assert!(!keep(&one, 0, 11, &[false; 12]));
        assert!(!keep(&one, 0, 11, &[true; 12]));
        // two nodes of 4: CPUs 0-3 node 0, 4-7 node 1
        let two: Vec<u32> = (0..8).map(|c| c / 4).collect();
        let mut busy = [true; 8];
        busy[2] = false; // one idle CPU in node 0
        assert!(keep(&two, 5, 1, &busy), "node 0 has an idle CPU: stay");
        assert!(!keep(&two, 3, 1, &busy), "same node: wake_affine decides");
        busy[2] = true; // node 0 full
        assert!(!keep(&two, 5, 1, &busy), "node 0 full: wake_affine decides");
        busy[6] = false; // an idle CPU on the waker's node changes nothing
        assert!(!keep(&two, 5, 1, &busy));
        // power11-like: 2 nodes x 112, sibling-numbered
        let p11: Vec<u32> = (0..224).map(|c| c / 112).collect();
        let mut b = vec![true; 224];
        assert!(!keep(&p11, 0, 200, &b));
        b[111 + 50] = false; // CPU 161, node 1
        assert!(keep(&p11, 0, 200, &b));
        assert!(!keep(&p11, 200, 0, &b), "prev's node 0 is full");
    }

    /// SIS_NODE on crafted machines. The bit finder on every bit and on
    /// several set; the pick on a power11-like machine (2 nodes x 112 CPUs,
    /// 4 words): the node's first idle CPU at or after target, wrapping past
    /// the node's end, across words, never a CPU of the other node; the
    /// idle-period test; and the gate: no search where a node is one LLC,
    /// for a task with an affinity mask, or past SIS_UTIL's 85% bound.
    #[test]
    fn sis_node_takes_the_nodes_nearest_lasting_idle_cpu() {
        for b in 0..64 {
            assert_eq!(unsafe { arbor_word_first(1u64 << b) }, b);
            assert_eq!(unsafe { arbor_word_first((1u64 << b) | (1u64 << 63)) }, b);
        }
        const W: usize = 4;
        let node0 = mask::<W>(&(0..112).collect::<Vec<_>>());
        let node1 = mask::<W>(&(112..224).collect::<Vec<_>>());
        let pick = |idle: &[usize], node: &[u64; W], from: u32| {
            let i = mask::<W>(idle);
            unsafe { arbor_sis_node_pick(i.as_ptr(), node.as_ptr(), W as u32, from) }
        };
        // nothing idle in the node (an idle CPU of node 1 does not count)
        assert_eq!(pick(&[150], &node0, 10), -1);
        // the nearest at or after target
        assert_eq!(pick(&[5, 13, 70], &node0, 10), 13);
        assert_eq!(pick(&[5, 13, 70], &node0, 14), 70);
        assert_eq!(pick(&[5, 13, 70], &node0, 13), 13);
        // wrapping past the node's end to its first CPUs
        assert_eq!(pick(&[5, 13], &node0, 100), 5);
        // across word boundaries, in node 1, from its last word wrapping to its first
        assert_eq!(pick(&[130, 200], &node1, 210), 130);
        assert_eq!(pick(&[127, 128], &node1, 125), 127);
        assert_eq!(pick(&[127, 128], &node1, 128), 128);
        assert_eq!(
            pick(&[120], &node1, 121),
            120,
            "wraps to below from in from's word"
        );
        // the gate: a pinned task, a node of one LLC (x86-12, xeon-88), and
        // SIS_UTIL's bound on the node: fewer than 100/117 (85%) busy
        let try_ = |any, llcs, busy| unsafe { arbor_sis_node_try(any, llcs, busy, 112, 117) };
        // the search starts at prev when prev is in target's node, else at target
        assert_eq!(unsafe { arbor_sis_node_from(10, 40, 0, 0) }, 40);
        assert_eq!(unsafe { arbor_sis_node_from(10, 150, 0, 1) }, 10);
        // a candidate idle for less than the migration cost is passed over;
        // one idle since before the load (stamp 0) is taken
        let ok = |stamp, now| unsafe { arbor_sis_node_idle_ok(stamp, now, 500_000) };
        assert!(ok(1_000_000, 1_500_000));
        assert!(!ok(1_000_000, 1_499_999));
        assert!(ok(0, 9_000_000));
        assert!(
            !ok(2_000_000, 1_000_000),
            "a stamp after now (another CPU's clock)"
        );
        assert!(try_(true, 28, 22));
        assert!(!try_(false, 28, 22));
        assert!(!try_(true, 1, 22));
        assert!(try_(true, 28, 95), "95 * 117 = 11115 < 11200");
        assert!(!try_(true, 28, 96), "96 * 117 = 11232");
        assert!(!try_(true, 28, 112));
    }

    /// SYNC_LOCAL, driven as main.bpf.c drives it: each sync wake-up
    /// records a pending stamp (a second one before a sleep breaks the
    /// first), each sleep settles the pending one against the window.
    /// Events: `W(t, nr)` a sync wake-up at t µs with nr tasks on the
    /// waker's CPU, `S(t)` the waker sleeps. Returns which wake-ups went
    /// to the waker's CPU.
    #[test]
    fn sync_local_follows_wakers_that_keep_their_promise() {
        #[derive(Clone, Copy)]
        enum Ev {
            W(u64, u32),
            S(u64),
        }
        use Ev::*;
        const WIN: u64 = 500_000; // --migration-cost-us 500
        let run = |evs: &[Ev]| -> Vec<bool> {
            let (mut hist, mut since, mut out) = (0u32, 0u64, vec![]);
            for &e in evs {
                match e {
                    W(t, nr) => {
                        let t = t * 1000 + 1; // ns, never 0
                        out.push(unsafe { arbor_sync_local(hist, since, nr) });
                        if since != 0 {
                            hist = unsafe { arbor_sync_record(hist, false) };
                        }
                        since = t;
                    }
                    S(t) => {
                        if since != 0 {
                            let kept = unsafe { arbor_sync_kept(since, t * 1000 + 1, WIN) };
                            hist = unsafe { arbor_sync_record(hist, kept) };
                            since = 0;
                        }
                    }
                }
            }
            out
        };
        // perf-pipe: write (sync wake), read (sleep) 2 µs later, 12 times
        let pipe: Vec<Ev> = (0..12)
            .flat_map(|i| [W(10 * i, 1), S(10 * i + 2)])
            .collect();
        let got = run(&pipe);
        assert!(
            got[..8].iter().all(|&l| !l),
            "a new waker has kept nothing yet"
        );
        assert!(got[8..].iter().all(|&l| l), "8 kept promises: local");
        // ... but not while its CPU runs another task as well
        let mut busy = pipe.clone();
        busy[2 * 10] = W(100, 2);
        assert!(!run(&busy)[10]);
        // hackbench's sender: 20 sync wake-ups in a row, then a sleep; forever
        let sender: Vec<Ev> = (0..10)
            .flat_map(|r| {
                (0..20)
                    .map(move |k| W(100 * r + k, 1))
                    .chain([S(100 * r + 21)])
            })
            .collect();
        assert!(
            run(&sender).iter().all(|&l| !l),
            "a 1:N waker never qualifies"
        );
        // a ping-pong waker that once wakes twice loses the rule for 8 wake-ups
        let mut once: Vec<Ev> = (0..10)
            .flat_map(|i| [W(10 * i, 1), S(10 * i + 2)])
            .collect();
        once.push(W(100, 1));
        once.push(W(101, 1));
        once.extend((11..30).flat_map(|i| [W(10 * i, 1), S(10 * i + 2)]));
        let got = run(&once);
        assert!(got[8] && got[9] && got[10], "kept 8 before the slip");
        assert!(!got[11], "the second wake-up before a sleep");
        assert!(
            got[12..19].iter().all(|&l| !l),
            "the slip stays in the last 8"
        );
        assert!(got[20], "8 kept again");
        // a waker that sleeps, but only 600 µs after its wake-ups (> window)
        let slow: Vec<Ev> = (0..12)
            .flat_map(|i| [W(1000 * i, 1), S(1000 * i + 600)])
            .collect();
        assert!(run(&slow).iter().all(|&l| !l));
        // exactly at the window: kept
        assert!(unsafe { arbor_sync_kept(1, 1 + WIN, WIN) });
        assert!(!unsafe { arbor_sync_kept(1, 2 + WIN, WIN) });
        // a clock behind the stamp is not a kept promise
        assert!(!unsafe { arbor_sync_kept(10, 9, WIN) });
        // the history holds 8 wake-ups
        assert_eq!(unsafe { arbor_sync_record(0xff, true) }, 0xff);
        assert_eq!(unsafe { arbor_sync_record(0x80, true) }, 0x01);
    }

    /// WAKE_LOCAL on event sequences: `W(t)` the waker wakes a task whose
    /// prev is its CPU, `S(t)` the waker sleeps (t in units of 0.25 µs);
    /// the alternative (a wake-up onto an idle CPU) takes `lat` µs.
    /// Returns which wake-ups queued behind the waker, with the learning as
    /// main.bpf.c does it (the measure starts at the first wake-up since
    /// the last sleep and ends at the sleep).
    #[test]
    fn wake_local_waits_behind_a_waker_that_sleeps_sooner_than_an_idle_cpu_wakes() {
        #[derive(Clone, Copy)]
        enum Ev {
            W(u64),
            S(u64),
        }
        use Ev::*;
        const Q: u64 = 250; // ns per unit
        let run = |evs: &[Ev], lat_us: u64, nr: u32| -> Vec<bool> {
            let (mut avg, mut pend, mut out) = (0u64, 0u64, vec![]);
            for &e in evs {
                match e {
                    W(t) => {
                        let t = t * Q + 1;
                        let el = if pend != 0 && t > pend { t - pend } else { 0 };
                        out.push(unsafe { arbor_wake_local(avg, el, lat_us * 1000, nr) });
                        if pend == 0 {
                            pend = t;
                        }
                    }
                    S(t) => {
                        if pend != 0 {
                            avg = unsafe { arbor_wake_sleep_update(avg, t * Q + 1 - pend) };
                            pend = 0;
                        }
                    }
                }
            }
            out
        };
        // wakeprobe's message thread: 6 wake-ups 0.25 µs apart, a sleep
        // 0.25 µs after the last; a request every 20 µs (80 units)
        let msg: Vec<Ev> = (0..10u64)
            .flat_map(|r| (0..6u64).map(move |k| W(80 * r + k)).chain([S(80 * r + 6)]))
            .collect();
        let got = run(&msg, 12, 1);
        assert_eq!(got.len(), 60);
        assert!(got[..6].iter().all(|&l| !l), "nothing measured yet: no");
        assert!(got[6..].iter().all(|&l| l), "up 1.5 us against 12: local");
        // the same waker where idle CPUs wake in 1 us: never
        assert!(run(&msg, 1, 1).iter().all(|&l| !l));
        // nothing known of the idle CPUs yet (0): never
        assert!(run(&msg, 0, 1).iter().all(|&l| !l));
        // its CPU runs another task too: never
        assert!(run(&msg, 12, 2).iter().all(|&l| !l));
        // hackbench's sender: 20 wake-ups 10 µs apart, then a sleep
        let sender: Vec<Ev> = (0..10u64)
            .flat_map(|r| {
                (0..20u64)
                    .map(move |k| W(1200 * r + 40 * k))
                    .chain([S(1200 * r + 800)])
            })
            .collect();
        assert!(run(&sender, 12, 1).iter().all(|&l| !l), "up 200 us: never");
        // a waker that used to sleep at once but now keeps waking: once its
        // current run outlasts its average (1.5 us), no more
        let mut turn = msg.clone();
        turn.extend((0..20u64).map(|k| W(4000 + 40 * k)));
        let got = run(&turn, 12, 1);
        assert!(got[60], "the first wake-up of the run: local");
        assert!(!got[61], "10 us into the run: no longer");
        // the average starts at its first sample and is never 0
        assert_eq!(unsafe { arbor_wake_sleep_update(0, 5000) }, 5000);
        assert_eq!(unsafe { arbor_wake_sleep_update(0, 0) }, 1);
        assert_eq!(unsafe { arbor_wake_sleep_update(8000, 0) }, 7000);
    }

    #[test]
    fn adjust_numa_imbalance_allows_two_while_the_node_is_light() {
        unsafe {
            assert_eq!(arbor_adjust_numa_imbalance(2, 5, 5), 0);
            assert_eq!(arbor_adjust_numa_imbalance(3, 5, 5), 3);
            assert_eq!(arbor_adjust_numa_imbalance(2, 6, 5), 2);
        }
    }

    #[test]
    fn dst_group_without_local_is_the_idlest_most_idle_then_least_util() {
        let g = [
            grp(4, 3, 1, 100, 100),
            grp(4, 1, 3, 900, 900),
            grp(4, 1, 3, 400, 400),
        ];
        assert_eq!(find_dst_group(&g, -1, 117, false, 0), 2);
        assert_eq!(find_dst_group(&[], -1, 117, false, 0), -1);
        // lower group type first: a group with spare beats a busy one
        let g = [grp(4, 4, 0, 3600, 4096), grp(4, 3, 0, 3900, 3000)];
        assert_eq!(find_dst_group(&g, -1, 117, false, 0), 1);
    }

    /// xeon-88 (2 nodes x 44 CPUs, imb_numa_nr 5). A parent on
    /// node 0 forks: node 1 has one idle CPU more, but the kernel keeps the
    /// child on the parent's node while that node would run at most 5 tasks
    /// and the idle counts differ by at most 2.
    #[test]
    fn fork_stays_on_the_parents_node_below_imb_numa_nr() {
        let imb = imb_numa_nr(44, 1);
        // parent alone on node 0
        let g = [grp(44, 1, 43, 1024, 1024), grp(44, 0, 44, 0, 0)];
        assert_eq!(find_dst_group(&g, 0, 117, true, imb), -1);
        // 2 tasks vs 0: imbalance 2, still local
        let g = [grp(44, 2, 42, 2048, 2048), grp(44, 0, 44, 0, 0)];
        assert_eq!(find_dst_group(&g, 0, 117, true, imb), -1);
        // 3 apart: more than NUMA_IMBALANCE_MIN, spread
        let g = [grp(44, 3, 41, 3072, 3072), grp(44, 0, 44, 0, 0)];
        assert_eq!(find_dst_group(&g, 0, 117, true, imb), 1);
        // 2 apart but node 0 would run 7 > 5 tasks: spread
        let g = [grp(44, 6, 38, 6144, 6144), grp(44, 4, 40, 4096, 4096)];
        assert_eq!(find_dst_group(&g, 0, 117, true, imb), 1);
        // not NUMA (LLCs of one node): one idle CPU more is enough to leave
        let g = [grp(44, 1, 43, 1024, 1024), grp(44, 0, 44, 0, 0)];
        assert_eq!(find_dst_group(&g, 0, 117, false, 0), 1);
        // the allowance is capped by the CPUs the task may use on its node
        let mut l = grp(44, 1, 0, 1024, 1024);
        l.allowed = 1;
        let g = [l, grp(44, 0, 44, 0, 0)];
        assert_eq!(find_dst_group(&g, 0, 117, true, imb), 1);
    }

    /// The fork slow path's node level as idle.bpf.h wires it: children
    /// of one parent forked on node 0 of xeon-88, one at a time, each
    /// running on its own CPU. The parent's node takes the first three
    /// (it runs 0, 1, 2 tasks: within 2 idle CPUs of node 1 and below
    /// imb_numa_nr 5), then keeps a lead of 2 while it would run at most
    /// 5 tasks, then the children go where more CPUs are idle, staying
    /// local on a tie. sim/tests/fork_local.rs checks the same sequence
    /// through the BPF code.
    #[test]
    fn children_of_one_parent_fill_its_node_first_then_alternate() {
        let imb = imb_numa_nr(44, 1);
        let (mut a, mut b) = (0u32, 0u32);
        let mut seq = Vec::new();
        for _ in 0..16 {
            let g = [
                grp(44, a, 44 - a, 1024 * a as u64, 1024 * a as u64),
                grp(44, b, 44 - b, 1024 * b as u64, 1024 * b as u64),
            ];
            if find_dst_group(&g, 0, 117, true, imb) == 1 {
                b += 1;
                seq.push(1);
            } else {
                a += 1;
                seq.push(0);
            }
        }
        assert_eq!(seq, [0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1]);
    }

    #[test]
    fn fork_stays_local_on_equal_idle_counts_and_by_group_type() {
        // equal idle CPUs: stay, even if the other group is less utilised
        let g = [grp(8, 4, 4, 4000, 4000), grp(8, 4, 4, 100, 100)];
        assert_eq!(find_dst_group(&g, 0, 117, false, 0), -1);
        // local with spare, other busy: stay; local busy, other with spare: go
        let g = [grp(4, 3, 1, 3000, 3000), grp(4, 4, 0, 3600, 4096)];
        assert_eq!(find_dst_group(&g, 0, 117, false, 0), -1);
        assert_eq!(find_dst_group(&g, 1, 117, false, 0), 0);
        // a local group the task may not use: the idlest other group
        let mut l = grp(4, 0, 4, 0, 0);
        l.allowed = 0;
        let g = [l, grp(4, 3, 1, 3000, 3000)];
        assert_eq!(find_dst_group(&g, 0, 117, false, 0), 1);
        // groups the task may not use are never chosen
        let mut o = grp(4, 0, 4, 0, 0);
        o.allowed = 0;
        let g = [grp(4, 3, 1, 3000, 3000), o];
        assert_eq!(find_dst_group(&g, 0, 117, false, 0), -1);
    }

    #[test]
    fn fork_between_busy_groups_needs_imbalance_pct_and_a_nice0_share() {
        // both fully busy: avg_load 1100 vs 1024 is within 17%: stay
        let g = [grp(4, 4, 0, 3600, 4400), grp(4, 4, 0, 3600, 4096)];
        assert_eq!(find_dst_group(&g, 0, 117, false, 0), -1);
        // 1600 vs 1024: more than 17% and more than 174 apart: go
        let g = [grp(4, 4, 0, 3600, 6400), grp(4, 4, 0, 3600, 4096)];
        assert_eq!(find_dst_group(&g, 0, 117, false, 0), 1);
        // light busy groups, avg_load 600 vs 500: 20% apart, enough within a
        // node; across nodes the gap must also exceed the NICE_0 share (174)
        let g = [grp(4, 4, 0, 3600, 2400), grp(4, 4, 0, 3600, 2000)];
        assert_eq!(find_dst_group(&g, 0, 117, false, 0), 1);
        assert_eq!(find_dst_group(&g, 0, 117, true, 1), -1);
        let g = [grp(4, 4, 0, 3600, 5200), grp(4, 4, 0, 3600, 4096)];
        assert_eq!(find_dst_group(&g, 0, 117, true, 1), 1);
    }

    #[test]
    fn idlest_cpu_prefers_most_recently_idle_then_least_loaded() {
        unsafe {
            let stamp = [0u64, 50, 90, 0];
            let load = [10u64, 999, 999, 0];
            assert_eq!(arbor_idlest_cpu(4, stamp.as_ptr(), load.as_ptr()), 2);
            let stamp = [0u64; 3];
            let load = [300u64, 100, 200];
            assert_eq!(arbor_idlest_cpu(3, stamp.as_ptr(), load.as_ptr()), 1);
        }
    }

    // ---- newidle, averages, slice ----

    #[test]
    fn newidle_cost_bound() {
        unsafe {
            assert!(arbor_newidle_level_ok(1000, 300, 700));
            assert!(!arbor_newidle_level_ok(1000, 301, 700));
        }
    }

    const SEC: u64 = 1_000_000_000;

    #[test]
    fn newidle_cost_is_the_max_and_decays_1pct_a_second_after_the_last_max() {
        let (mut max, mut ts) = (0u64, 0u64);
        unsafe {
            // each attempt's cost is recorded; the max stays
            arbor_newidle_cost_update(&mut max, &mut ts, 10_000, 5);
            arbor_newidle_cost_update(&mut max, &mut ts, 4_000, 6);
            assert_eq!((max, ts), (10_000, 5));
            // no decay within a second of the last new max
            assert!(!arbor_newidle_cost_update(&mut max, &mut ts, 0, 5 + SEC));
            assert_eq!(max, 10_000);
            // then 253/256 per second, cost 0 (the periodic visit) included
            assert!(arbor_newidle_cost_update(&mut max, &mut ts, 0, 6 + SEC));
            assert_eq!(max, 10_000 * 253 / 256);
            assert!(!arbor_newidle_cost_update(
                &mut max,
                &mut ts,
                100,
                6 + SEC + 10
            ));
            // a new max restarts the decay clock (update_newidle_cost)
            arbor_newidle_cost_update(&mut max, &mut ts, 20_000, 7 + SEC);
            assert!(!arbor_newidle_cost_update(
                &mut max,
                &mut ts,
                0,
                7 + 2 * SEC
            ));
            assert_eq!(max, 20_000);
        }
    }

    #[test]
    fn ni_random_ratio_follows_successes_and_skips_in_proportion() {
        unsafe {
            // sd_init: 50%
            let (mut call, mut succ, mut ratio) = (512u32, 256u32, 512u32);
            // 512 calls all failing: at 1024 calls the ratio is the 256 successes
            for _ in 0..512 {
                arbor_newidle_stats(&mut call, &mut succ, &mut ratio, 0);
            }
            assert_eq!((call, succ, ratio), (512, 128, 256));
            // the dice: tried iff rnd % 1024 <= 1 + ratio, weight 1024 / (1 + ratio)
            assert_eq!(arbor_newidle_dice(256, 257), 4);
            assert_eq!(arbor_newidle_dice(256, 258), 0);
            assert_eq!(arbor_newidle_dice(256, 1024 + 3), 4);
            assert_eq!(arbor_newidle_dice(0, 1), 1024);
            assert_eq!(arbor_newidle_dice(0, 2), 0);
            assert_eq!(arbor_newidle_dice(1023, 1023), 1);
            // weighted successes keep the estimate unbiased: a level that
            // always succeeds converges back to ~1024 even while skipped often
            let (mut c, mut s_, mut r) = (512u32, 8u32, 16u32);
            let mut rng = 12345u32;
            for _ in 0..20_000 {
                let w = arbor_newidle_dice(r, arbor_rng_next(&mut rng));
                arbor_newidle_stats(&mut c, &mut s_, &mut r, w);
            }
            assert!(r > 700, "ratio {r}");
            // and one that never succeeds sinks towards 0
            for _ in 0..20_000 {
                let w = arbor_newidle_dice(r, arbor_rng_next(&mut rng));
                let _ = w;
                arbor_newidle_stats(&mut c, &mut s_, &mut r, 0);
            }
            assert!(r < 4, "ratio {r}");
        }
    }

    /// IDLE_PULL (issue 24): on crafted machines (the levels each has and
    /// their newidle costs), the levels one newidle walk looks at. Without
    /// the feature the walk is the baseline's: it stops at the first level
    /// over the expected idle time and skips the levels the dice refuse; with
    /// it every level within the LLC (SMT, LLC) is looked at, nearest first,
    /// a level the baseline tries is tried the same way (never NI_FORCE), and
    /// above the LLC (node, machine) the baseline decides.
    #[test]
    fn idle_pull_walks_every_level_of_the_llc_the_baseline_would_skip() {
        // (cost of each level the machine has, dice weight of each) -> decisions;
        // the first two levels are SMT and LLC, the others above the LLC
        let walk = |on: bool, avg_idle: u64, costs: &[u64], dice: &[u32]| {
            let mut spent = 0;
            let mut out = vec![];
            for (i, &cost) in costs.iter().enumerate() {
                let ok = unsafe { arbor_newidle_level_ok(avg_idle, spent, cost) };
                let d =
                    unsafe { arbor_newidle_level(on, i <= 1, ok, if ok { dice[i] } else { 0 }) };
                out.push(d);
                if d == arbor_ni_level_NI_STOP {
                    break;
                }
                if d != arbor_ni_level_NI_SKIP {
                    spent += cost;
                }
            }
            out
        };
        use crate::bpf_intf::{
            arbor_ni_level_NI_FORCE, arbor_ni_level_NI_SKIP, arbor_ni_level_NI_STOP,
            arbor_ni_level_NI_TRY,
        };
        let (stop, skip, tr, force) = (
            arbor_ni_level_NI_STOP,
            arbor_ni_level_NI_SKIP,
            arbor_ni_level_NI_TRY,
            arbor_ni_level_NI_FORCE,
        );
        // x86-12-like: SMT, LLC (the whole machine); cheap levels, long idle
        assert_eq!(walk(false, 50_000, &[1_000, 4_000], &[1, 1]), [tr, tr]);
        assert_eq!(walk(true, 50_000, &[1_000, 4_000], &[1, 1]), [tr, tr]);
        // the dice refuse the LLC level: the baseline skips it, IDLE_PULL tries it
        assert_eq!(walk(false, 50_000, &[1_000, 4_000], &[1, 0]), [tr, skip]);
        assert_eq!(walk(true, 50_000, &[1_000, 4_000], &[1, 0]), [tr, force]);
        // 2 nodes x 2 LLCs (SMT, LLC, node, machine): a short expected idle
        // stops the baseline at the node level, and IDLE_PULL too: above the
        // LLC it does not force
        let c4 = [1_000, 3_000, 8_000, 20_000];
        assert_eq!(walk(false, 6_000, &c4, &[1; 4]), [tr, tr, stop]);
        assert_eq!(walk(true, 6_000, &c4, &[1; 4]), [tr, tr, stop]);
        // the dice refuse the node level: both skip it and go on
        assert_eq!(walk(false, 40_000, &c4, &[1, 1, 0, 1]), [tr, tr, skip, tr]);
        assert_eq!(walk(true, 40_000, &c4, &[1, 1, 0, 1]), [tr, tr, skip, tr]);
        // an idle time shorter than the first level: the baseline looks
        // nowhere, IDLE_PULL at the core and the LLC
        assert_eq!(walk(false, 500, &c4, &[1; 4]), [stop]);
        assert_eq!(walk(true, 500, &c4, &[1; 4]), [force, force, stop]);
        // on any walk: within the LLC every level is looked at, tried where
        // the baseline tries; above it never forced
        for avg in [0, 500, 2_000, 6_000, 40_000] {
            for mask in 0..16u32 {
                let dice: Vec<u32> = (0..4).map(|b| (mask >> b) & 1).collect();
                let (a, b) = (walk(false, avg, &c4, &dice), walk(true, avg, &c4, &dice));
                assert!(
                    b.len() >= 2,
                    "{avg} {mask}: IDLE_PULL looks at SMT and LLC: {b:?}"
                );
                for i in 0..2 {
                    assert!(b[i] == tr || b[i] == force, "{avg} {mask}: {b:?}");
                    if let Some(&x) = a.get(i) {
                        assert_eq!(x == tr, b[i] == tr, "{avg} {mask}: {a:?} {b:?}");
                    }
                }
                assert!(b[2..].iter().all(|&d| d != force), "{avg} {mask}: {b:?}");
            }
        }
    }

    #[test]
    fn rng_is_a_nonzero_sequence() {
        let mut st = 0u32;
        let a = unsafe { arbor_rng_next(&mut st) };
        let b = unsafe { arbor_rng_next(&mut st) };
        assert!(a != 0 && b != 0 && a != b);
    }

    #[test]
    fn avg_idle_cap_is_twice_the_summed_level_costs_floored_by_migration_cost() {
        unsafe {
            assert_eq!(arbor_avg_idle_cap(500_000, 0), 1_000_000);
            assert_eq!(arbor_avg_idle_cap(500_000, 300_000 + 400_000), 1_400_000);
        }
    }

    /// Deviation 9: CPU A's count goes 2 -> 1 (a task leaves), then CPU B's
    /// 1 -> 2 (one arrives) and B updates the flag before A does. Deciding
    /// from each move alone, A would clear the flag last: 0 with 2 tasks.
    #[test]
    fn overloaded_flag_matches_the_count_when_two_updates_interleave() {
        unsafe {
            let (mut nr, mut flag, mut overloaded) = (2u32, 1u32, 1i32);
            // A: fetch_sub, its flag update delayed
            let prev_a = nr;
            nr -= 1;
            // B: fetch_add and its flag update
            let prev_b = nr;
            nr += 1;
            overloaded += arbor_overload_update(&mut nr, prev_b, 1, &mut flag);
            // A's delayed update
            overloaded += arbor_overload_update(&mut nr, prev_a, -1, &mut flag);
            assert_eq!(flag, 1, "2 tasks but not overloaded");
            assert_eq!(overloaded, 1);

            // the other order: A's update lands before B's move
            let (mut nr, mut flag, mut overloaded) = (2u32, 1u32, 1i32);
            let prev_a = nr;
            nr -= 1;
            overloaded += arbor_overload_update(&mut nr, prev_a, -1, &mut flag);
            assert_eq!((flag, overloaded), (0, 0));
            let prev_b = nr;
            nr += 1;
            overloaded += arbor_overload_update(&mut nr, prev_b, 1, &mut flag);
            assert_eq!((flag, overloaded), (1, 1));

            // 1 -> 2 by A, 2 -> 1 by B, A's update last: must end cleared
            let (mut nr, mut flag, mut overloaded) = (1u32, 0u32, 0i32);
            let prev_a = nr;
            nr += 1;
            let prev_b = nr;
            nr -= 1;
            overloaded += arbor_overload_update(&mut nr, prev_b, -1, &mut flag);
            overloaded += arbor_overload_update(&mut nr, prev_a, 1, &mut flag);
            assert_eq!((flag, overloaded), (0, 0));

            // moves that do not cross 2 leave the flag alone
            let (mut nr, mut flag) = (3u32, 1u32);
            nr += 1;
            assert_eq!(arbor_overload_update(&mut nr, 3, 1, &mut flag), 0);
            assert_eq!(flag, 1);
        }
    }

    #[test]
    fn update_avg_moves_an_eighth() {
        unsafe {
            assert_eq!(arbor_update_avg(800, 0), 700);
            assert_eq!(arbor_update_avg(0, 800), 100);
        }
    }

    #[test]
    fn base_slice_scales_with_log2_cpus_capped_at_8() {
        assert_eq!(base_slice_ns(1, 750_000), 750_000);
        assert_eq!(base_slice_ns(2, 750_000), 1_500_000);
        assert_eq!(base_slice_ns(4, 750_000), 2_250_000);
        assert_eq!(base_slice_ns(8, 750_000), 3_000_000);
        assert_eq!(base_slice_ns(224, 750_000), 3_000_000);
    }

    #[test]
    fn pelt_halves_in_32ms_and_converges() {
        unsafe {
            let half = arbor_pelt_decay(1024, 32 << 20);
            assert!((511..=512).contains(&half), "{half}");
            assert_eq!(arbor_pelt_decay(1024, 0), 1024);
            // a task running 100% converges to ~1024
            let mut a = 0;
            for _ in 0..400 {
                a = arbor_pelt_accum(a, 1 << 20, 1024);
            }
            assert!(a > 1000 && a <= 1024, "{a}");
            // half a period decays by about half a period's worth
            let d = arbor_pelt_decay(1 << 20, 1 << 19);
            assert!(d < 1 << 20 && d > (1 << 20) - 12_000, "{d}");
        }
    }

    // ---------------------------------------------------------------
    // EEVDF (fair.c). The reference values below are fair.c's formulas
    // evaluated exactly (i128, rational), not the C under test.
    // ---------------------------------------------------------------

    use crate::bpf_intf::eevdf_avg;

    fn avg_of(zero: u64, ents: &[(u64, u64)]) -> eevdf_avg {
        let mut a = eevdf_avg {
            zero,
            sum: 0,
            load: 0,
        };
        for &(v, w) in ents {
            unsafe { arbor_avg_add(&mut a, v, w) };
        }
        a
    }

    /// fair.c's avg_vruntime(), exactly: floor(sum(v*w) / sum(w)).
    fn ref_avg(ents: &[(u64, u64)]) -> i128 {
        let s: i128 = ents.iter().map(|&(v, w)| v as i128 * w as i128).sum();
        let l: i128 = ents.iter().map(|&(_, w)| w as i128).sum();
        s.div_euclid(l)
    }

    #[test]
    fn eevdf_weights_are_the_kernels_to_within_the_scx_rounding() {
        unsafe {
            // sched_prio_to_weight: nice 0 = 1024, nice 5 = 335, nice -5 = 3121
            assert_eq!(arbor_eevdf_weight(100), 1024);
            let w5 = arbor_eevdf_weight((335u32 * 100 + 512) / 1024); // 33
            assert!((w5 as i64 - 335).abs() * 100 <= 335 * 2, "{w5}");
            let wm5 = arbor_eevdf_weight((3121u32 * 100 + 512) / 1024); // 305
            assert!((wm5 as i64 - 3121).abs() * 100 <= 3121, "{wm5}");
            assert!(arbor_eevdf_weight(0) >= 1);
        }
    }

    #[test]
    fn eevdf_calc_delta_fair_scales_by_nice0_over_weight() {
        unsafe {
            assert_eq!(arbor_calc_delta_fair(3_000_000, 1024), 3_000_000);
            assert_eq!(arbor_calc_delta_fair(3_000_000, 2048), 1_500_000);
            assert_eq!(
                arbor_calc_delta_fair(3_000_000, 335),
                3_000_000 * 1024 / 335
            );
            assert_eq!(arbor_div_s64(-7, 2), -3); // div_s64 truncates toward 0
            assert_eq!(arbor_div_s64(7, 2), 3);
        }
    }

    #[test]
    fn eevdf_avg_vruntime_is_the_weighted_mean_rounded_down() {
        let cases: &[(u64, &[(u64, u64)])] = &[
            (1_000_000, &[(1_000_000, 1024), (1_003_000, 1024)]),
            (
                1_000_000,
                &[(999_000, 335), (1_006_000, 1024), (1_001_234, 3121)],
            ),
            // negative keys: the kernel rounds toward minus infinity
            (1000, &[(999, 3), (1000, 1)]),
            (5000, &[(4000, 7), (4001, 13)]),
        ];
        for (zero, ents) in cases {
            let a = avg_of(*zero, ents);
            let got = unsafe { arbor_avg_vruntime(&a) } as i128;
            assert_eq!(got, ref_avg(ents), "zero {zero} {ents:?}");
            // whatever the reference point
            let mut b = a;
            unsafe { arbor_avg_rebase(&mut b, zero - 777) };
            assert_eq!(unsafe { arbor_avg_vruntime(&b) } as i128, ref_avg(ents));
        }
        let empty = eevdf_avg {
            zero: 42,
            sum: 0,
            load: 0,
        };
        assert_eq!(unsafe { arbor_avg_vruntime(&empty) }, 42);
    }

    #[test]
    fn eevdf_eligible_iff_vruntime_at_most_the_average() {
        // avg = (999*3 + 1000*1)/4 = 999.25
        let ents = [(999u64, 3u64), (1000, 1)];
        for zero in [990u64, 999, 1000, 1010] {
            let a = avg_of(zero, &ents);
            unsafe {
                assert!(arbor_vruntime_eligible(&a, 998));
                assert!(arbor_vruntime_eligible(&a, 999));
                assert!(!arbor_vruntime_eligible(&a, 1000), "zero {zero}");
            }
        }
        // integer average: v == avg is eligible, avg + 1 is not
        let a = avg_of(0, &[(100, 1024), (300, 1024)]);
        unsafe {
            assert!(arbor_vruntime_eligible(&a, 200));
            assert!(!arbor_vruntime_eligible(&a, 201));
        }
    }

    #[test]
    fn eevdf_shift_and_sub_keep_the_sum_exact() {
        let mut a = avg_of(1000, &[(1000, 1024), (2000, 335)]);
        unsafe {
            // the first runs 500 virtual ns (update_curr)
            arbor_avg_shift(&mut a, 500, 1024);
            assert_eq!(
                arbor_avg_vruntime(&a) as i128,
                ref_avg(&[(1500, 1024), (2000, 335)])
            );
            arbor_avg_sub(&mut a, 1500, 1024);
            assert_eq!(arbor_avg_vruntime(&a), 2000);
            arbor_avg_sub(&mut a, 2000, 335);
            assert_eq!((a.sum, a.load), (0, 0));
        }
    }

    #[test]
    fn eevdf_lag_is_clamped_to_two_slices_of_virtual_time() {
        unsafe {
            // update_entity_lag: limit = calc_delta_fair(max(2*slice, TICK_NSEC))
            assert_eq!(
                arbor_entity_lag(10_000_000, 9_000_000, 3_000_000, 1024),
                1_000_000
            );
            assert_eq!(
                arbor_entity_lag(20_000_000, 1_000_000, 3_000_000, 1024),
                6_000_000
            );
            assert_eq!(
                arbor_entity_lag(1_000_000, 20_000_000, 3_000_000, 1024),
                -6_000_000
            );
            let lim5 = (6_000_000u64 * 1024 / 335) as i64;
            assert_eq!(arbor_entity_lag(100_000_000, 0, 3_000_000, 335), lim5);
            // a tiny slice is floored at one tick
            assert_eq!(arbor_entity_lag(0, 50_000_000, 100_000, 1024), -1_000_000);
        }
    }

    #[test]
    fn eevdf_place_keeps_the_lag_once_the_task_has_joined() {
        // place_entity(): after joining, avg' - v must equal the saved lag
        for &(lag, w, others) in &[
            (3_000i64, 1024u64, &[(1_000_000u64, 1024u64)][..]),
            (-4_000, 335, &[(1_000_000, 1024), (1_002_000, 335)][..]),
            (
                2_500_000,
                3121,
                &[
                    (5_000_000_000, 1024),
                    (5_000_100_000, 1024),
                    (4_999_900_000, 88),
                ][..],
            ),
        ] {
            let a = avg_of(others[0].0, others);
            let avg = unsafe { arbor_avg_vruntime(&a) };
            let v = unsafe { arbor_place_vruntime(avg, lag, a.load, w) };
            let mut all = others.to_vec();
            all.push((v, w));
            let kept = ref_avg(&all) - v as i128;
            assert!((kept - lag as i128).abs() <= 1, "lag {lag} kept {kept}");
        }
        unsafe {
            // an empty queue: no lag to keep
            assert_eq!(arbor_place_vruntime(500, 123, 0, 1024), 500);
            // one nice-0 task there: a nice-0 joiner's lag doubles
            assert_eq!(arbor_place_vruntime(10_000, 1_000, 1024, 1024), 8_000);
        }
    }

    #[test]
    fn eevdf_deadline_moves_only_when_reached() {
        unsafe {
            assert_eq!(arbor_update_deadline(1_000, 5_000, 3_000_000, 1024), 5_000);
            assert_eq!(
                arbor_update_deadline(5_000, 5_000, 3_000_000, 1024),
                3_005_000
            );
            assert_eq!(
                arbor_update_deadline(6_000, 5_000, 3_000_000, 335),
                6_000 + 3_000_000 * 1024 / 335
            );
            // the real time to the deadline inverts calc_delta_fair
            let vs = arbor_calc_delta_fair(3_000_000, 335);
            let left = arbor_slice_left(0, vs, 335, 100_000);
            assert!((2_999_000..=3_000_000).contains(&left), "{left}");
            assert_eq!(arbor_slice_left(10, 10, 1024, 100_000), 100_000);
        }
    }

    #[test]
    fn eevdf_sleepers_debt_is_served_while_asleep_delay_zero() {
        unsafe {
            // owed time is kept
            assert_eq!(arbor_sleep_lag(5_000, 100, 900, false), 5_000);
            // a debt of 5000 with the queue 3000 further on: 2000 left
            assert_eq!(arbor_sleep_lag(-5_000, 100_000, 103_000, false), -2_000);
            // served in full: 0, never positive (DELAY_ZERO)
            assert_eq!(arbor_sleep_lag(-5_000, 100_000, 200_000, false), 0);
            // the queue emptied: the sleeper would have been picked
            assert_eq!(arbor_sleep_lag(-5_000, 100_000, 100_000, true), 0);
        }
    }

    /// The starvation bound (issue 25, case D): half the sched_ext watchdog
    /// timeout (30 s when the scheduler sets none), and a task counts as
    /// starved once it has waited that long; a task not waiting (0) never.
    #[test]
    fn starvation_bound_is_half_the_watchdog_timeout() {
        unsafe {
            assert_eq!(arbor_starve_bound_ns(0), 15_000_000_000);
            assert_eq!(arbor_starve_bound_ns(5_000), 2_500_000_000);
            let b = arbor_starve_bound_ns(0);
            let t0 = 7_000_000;
            assert!(!arbor_starved(t0 + b - 1, t0, b));
            assert!(arbor_starved(t0 + b, t0, b));
            assert!(arbor_starved(t0 + 2 * b, t0, b));
            // not waiting, or a clock behind the stamp: not starved
            assert!(!arbor_starved(t0 + 2 * b, 0, b));
            assert!(!arbor_starved(t0 - 1, t0, b));
        }
    }

    /// One task of weight `w` on the queue `a` runs to its deadline: the run
    /// is charged to its vruntime and the sum (update_curr), it gets a new
    /// request (update_deadline), and the queue's reference moves to the
    /// average then, as 7.2's update_deadline() does (eevdf.bpf.h
    /// eevdf_charge_rq). Returns the run's wall time.
    unsafe fn run_request(a: &mut eevdf_avg, v: &mut u64, dl: &mut u64, w: u64, slice: u64) -> u64 {
        let run = arbor_slice_left(*v, *dl, w, 100_000);
        let dv = arbor_calc_delta_fair(run, w);
        arbor_avg_shift(a, dv, w);
        *v += dv;
        let old = *dl;
        *dl = arbor_update_deadline(*v, *dl, slice, w);
        if *dl != old {
            arbor_avg_rebase(a, arbor_avg_vruntime(a));
        }
        run
    }

    /// Two always-runnable tasks at nice 0 and nice 5 on one queue, scheduled
    /// with these rules alone (pick the eligible task with the earliest
    /// deadline, run it to its deadline, charge it): CPU shares are fair.c's,
    /// 1024 : 335, to within 1%.
    #[test]
    fn eevdf_rules_give_nice_shares() {
        let slice = 3_000_000u64;
        let w = [unsafe { arbor_eevdf_weight(100) }, unsafe {
            arbor_eevdf_weight(33)
        }];
        let mut a = eevdf_avg {
            zero: 0,
            sum: 0,
            load: 0,
        };
        let mut v = [0u64; 2];
        let mut dl = [0u64; 2];
        let mut ran = [0u64; 2];
        unsafe {
            for i in 0..2 {
                let avg = arbor_avg_vruntime(&a);
                v[i] = arbor_place_vruntime(avg, 0, a.load, w[i]);
                arbor_avg_add(&mut a, v[i], w[i]);
                dl[i] = v[i] + arbor_calc_delta_fair(slice, w[i]) / 2;
            }
            for _ in 0..4000 {
                let mut pick = None;
                for i in 0..2 {
                    if arbor_vruntime_eligible(&a, v[i])
                        && pick.map_or(true, |p: usize| dl[i] < dl[p])
                    {
                        pick = Some(i);
                    }
                }
                let i = pick.expect("one task is always eligible");
                ran[i] += run_request(&mut a, &mut v[i], &mut dl[i], w[i], slice);
            }
        }
        let share = ran[0] as f64 / (ran[0] + ran[1]) as f64;
        let want = 1024.0 / (1024.0 + 335.0);
        assert!(
            (share - want).abs() < 0.01,
            "share {share:.4} want {want:.4}"
        );
    }

    /// A nice -20 task alone on its queue for a million requests, the
    /// reference moved only where 7.2 moves it (update_deadline at each new
    /// request; eevdf.bpf.h does no rebase in running()): the weighted sum
    /// stays within one request's key, so it cannot overflow however long
    /// the task runs. Without the renewal's rebase it grows by a request's
    /// key every time (~3e9 here) and leaves the bound at the second one.
    #[test]
    fn eevdf_sum_stays_bounded_with_rebases_at_renewals_only() {
        let slice = 3_000_000u64;
        let w = unsafe { arbor_eevdf_weight(10_000) };
        let vslice = unsafe { arbor_calc_delta_fair(slice, w) };
        let bound = (vslice * w) as i64;
        let mut a = eevdf_avg {
            zero: 0,
            sum: 0,
            load: 0,
        };
        unsafe {
            let mut v = arbor_place_vruntime(arbor_avg_vruntime(&a), 0, a.load, w);
            arbor_avg_add(&mut a, v, w);
            let mut dl = v + vslice;
            for n in 0..1_000_000u32 {
                run_request(&mut a, &mut v, &mut dl, w, slice);
                assert!(
                    a.sum.abs() <= bound,
                    "request {n}: sum {} past {bound}",
                    a.sum
                );
                assert_eq!(
                    arbor_avg_vruntime(&a),
                    v,
                    "a lone task is its queue's average"
                );
            }
        }
    }

    #[test]
    fn wake_latency_buckets_are_log2_microseconds() {
        unsafe {
            assert_eq!(arbor_lat_bucket(0), 0);
            assert_eq!(arbor_lat_bucket(999), 0);
            assert_eq!(arbor_lat_bucket(1_000), 1);
            assert_eq!(arbor_lat_bucket(1_999), 1);
            assert_eq!(arbor_lat_bucket(2_000), 2);
            assert_eq!(arbor_lat_bucket(3_999), 2);
            assert_eq!(arbor_lat_bucket(8_192_000), 14);
            assert_eq!(arbor_lat_bucket(16_384_000), 15);
            assert_eq!(arbor_lat_bucket(u64::MAX), 15);
        }
    }
}

/// LB_IMBALANCE (issue 10, deviation 4): the weighted-imbalance periodic
/// balancer's rules (policy.h, "Periodic load balancing"), on crafted
/// groups and CPUs.
#[cfg(test)]
mod lb_tests {
    use crate::bpf_intf::{
        arbor_group_type_GROUP_FULLY_BUSY as BUSY, arbor_group_type_GROUP_HAS_SPARE as SPARE,
        arbor_group_type_GROUP_OVERLOADED as OVER, arbor_level_LVL_LLC as LVL_LLC,
        arbor_level_LVL_NODE as LVL_NODE, arbor_level_LVL_SMT as LVL_SMT,
        arbor_migration_MIGRATE_LOAD as M_LOAD, arbor_migration_MIGRATE_NONE as M_NONE,
        arbor_migration_MIGRATE_TASK as M_TASK, arbor_migration_MIGRATE_UTIL as M_UTIL,
        group_stats, lb_cpu, lb_result,
    };
    use std::ptr::null;

    // policy.h's declarations, generated by bindgen (build.rs)
    use super::ffi::*;

    /// A group of `cpus` CPUs of capacity 1024 and its type at imbalance_pct 117.
    fn g(cpus: u32, nr: u32, idle: u32, load: u64, util: u64) -> (group_stats, u32) {
        let s = group_stats {
            load,
            util,
            runnable: load,
            capacity: 1024 * cpus,
            weight: cpus,
            allowed: cpus,
            nr_running: nr,
            idle_cpus: idle,
            pad: 0,
        };
        let t = unsafe { arbor_group_type(&s, 117) };
        (s, t)
    }

    /// calculate_imbalance between two groups that make up the level.
    fn imb(l: &(group_stats, u32), b: &(group_stats, u32), llc: bool, idle: bool) -> (u32, u64) {
        imb_numa(l, b, llc, idle, 0)
    }

    fn imb_numa(
        l: &(group_stats, u32),
        b: &(group_stats, u32),
        llc: bool,
        idle: bool,
        numa: u32,
    ) -> (u32, u64) {
        let (tl, tc) = (l.0.load + b.0.load, (l.0.capacity + b.0.capacity) as u64);
        let mut r = lb_result {
            migration: 99,
            pad: 0,
            imbalance: 99,
        };
        unsafe { arbor_lb_imbalance(&l.0, l.1, &b.0, b.1, tl, tc, 117, llc, idle, numa, &mut r) };
        (r.migration, r.imbalance)
    }

    fn busier(a: &(group_stats, u32), b: Option<&(group_stats, u32)>) -> bool {
        unsafe {
            match b {
                Some(b) => arbor_lb_group_busier(&a.0, a.1, &b.0, b.1),
                None => arbor_lb_group_busier(&a.0, a.1, null(), 0),
            }
        }
    }

    #[test]
    fn lb_groups_are_classified_as_group_classify() {
        assert_eq!(g(2, 3, 0, 3072, 2048).1, OVER); // 3 tasks on 2 CPUs, full
        assert_eq!(g(2, 1, 1, 1024, 1024).1, SPARE); // fewer tasks than CPUs
        assert_eq!(g(2, 2, 0, 2048, 2048).1, BUSY); // one busy task per CPU
        assert_eq!(g(2, 2, 0, 512, 512).1, SPARE); // one light task per CPU
        assert_eq!(g(2, 3, 0, 600, 600).1, SPARE); // more tasks, all light
        assert_eq!(g(2, 4, 0, 4096, 1500).1, OVER); // runnable over capacity
    }

    /// update_sd_pick_busiest: type first, then avg_load (busy groups) or
    /// fewer idle CPUs (groups with spare); a group with no task never.
    #[test]
    fn lb_busiest_group_by_type_then_load_then_idle_cpus() {
        let over = g(2, 3, 0, 3072, 2048);
        let busy = g(2, 2, 0, 2048, 2048);
        let spare1 = g(2, 1, 1, 1024, 1024);
        let empty = g(2, 0, 2, 0, 0);
        assert!(busier(&busy, None));
        assert!(!busier(&empty, None));
        assert!(busier(&over, Some(&busy)));
        assert!(!busier(&busy, Some(&over)));
        assert!(busier(&busy, Some(&spare1)));
        assert!(busier(&g(2, 3, 0, 5000, 2048), Some(&over))); // heavier
        assert!(busier(&g(2, 1, 0, 1024, 1024), Some(&spare1))); // fewer idle CPUs
        assert!(!busier(&spare1, Some(&g(2, 1, 0, 1024, 1024))));
    }

    /// Two tasks on the two SMT siblings of one core while another core of
    /// the LLC is idle (LLC level, groups = cores): an idle CPU of the idle
    /// core moves one task ((2 - 0 idle CPUs) / 2 = 1); a busy CPU does not
    /// balance a group that is not overloaded; a lone task is never split
    /// off its group.
    #[test]
    fn lb_spreads_tasks_from_a_busy_core_to_an_idle_one() {
        let idle_core = g(2, 0, 2, 0, 0);
        let stacked = g(2, 2, 0, 2048, 2048);
        assert_eq!(imb(&idle_core, &stacked, true, true), (M_TASK, 1));
        assert_eq!(imb(&idle_core, &stacked, true, false).0, M_NONE);
        // one idle CPU each side: balanced (idle CPUs differ by <= 1)
        let half = g(2, 1, 1, 1024, 1024);
        assert_eq!(imb(&half, &half, true, true).0, M_NONE);
        let lone = g(1, 1, 0, 1024, 1024);
        assert_eq!(imb(&g(1, 0, 1, 0, 0), &lone, true, true).0, M_NONE);
        // SMT level (one-CPU groups): 3 tasks against 1, both overloaded or
        // busy: moved by load
        assert_eq!(
            imb(&g(1, 1, 0, 1024, 1024), &g(1, 3, 0, 3072, 1024), true, true).0,
            M_LOAD
        );
        // the local group busier by type: nothing to pull
        assert_eq!(imb(&stacked, &half, true, true).0, M_NONE);
    }

    /// An overloaded group and one with spare capacity: across caches fill
    /// the spare utilisation (migrate_util), or take one task when an idle
    /// CPU's group shows none; within a cache (SD_SHARE_LLC) count tasks.
    #[test]
    fn lb_fills_spare_capacity_from_an_overloaded_group() {
        let local = g(4, 2, 2, 2048, 2000);
        let busiest = g(4, 6, 0, 6144, 4096);
        assert_eq!(busiest.1, OVER);
        assert_eq!(imb(&local, &busiest, false, false), (M_UTIL, 4096 - 2000));
        let full_util = g(4, 3, 1, 3072, 4096);
        assert_eq!(full_util.1, SPARE);
        assert_eq!(imb(&full_util, &busiest, false, true), (M_TASK, 1));
        // within the LLC: (2 - 0 idle CPUs) / 2
        assert_eq!(imb(&local, &busiest, true, true), (M_TASK, 1));
    }

    /// Across nodes (SD_NUMA) a pair of tasks may stay in one node
    /// (adjust_numa_imbalance: an idle-CPU difference of 2 is allowed while
    /// the local node would run at most imb_numa_nr tasks); 4 is not.
    #[test]
    fn lb_lets_a_pair_of_tasks_stay_in_one_node() {
        let empty_node = g(4, 0, 4, 0, 0);
        let pair = g(4, 2, 2, 2048, 2048);
        assert_eq!(imb_numa(&empty_node, &pair, false, true, 2).0, M_NONE);
        assert_eq!(imb_numa(&empty_node, &pair, false, true, 0), (M_TASK, 1));
        let four = g(8, 4, 4, 4096, 4096);
        assert_eq!(
            imb_numa(&g(8, 0, 8, 0, 0), &four, false, true, 2),
            (M_TASK, 2)
        );
    }

    /// Both groups overloaded: move weighted load until one side reaches
    /// the average, unless the busiest is within imbalance_pct of local.
    /// Equal task counts with different weights are an imbalance.
    #[test]
    fn lb_moves_weighted_load_between_overloaded_groups() {
        let local = g(4, 5, 0, 5000, 4096);
        let busiest = g(4, 9, 0, 9000, 4096);
        // avg 1250 vs 2250, level average 1750: min(500, 500) * 4096 / 1024
        assert_eq!(imb(&local, &busiest, false, false), (M_LOAD, 2000));
        let close = g(4, 6, 0, 5600, 4096);
        assert_eq!(imb(&local, &close, false, false).0, M_NONE); // 1400 <= 1.17 * 1250
                                                                 // one-CPU groups, two tasks each: two nice-0 against nice 0 + nice -5
        let light = g(1, 2, 0, 2048, 1024);
        let heavy = g(1, 2, 0, 1024 + 3121, 1024);
        assert_eq!(
            imb(&light, &heavy, true, false),
            (M_LOAD, (1024 + 3121 - 2048) / 2)
        );
    }

    #[test]
    fn lb_busiest_cpu_and_task_share() {
        let c = |load, util, nr| lb_cpu {
            load,
            util,
            nr_running: nr,
            cap: 1024,
        };
        unsafe {
            // load: a lone task bigger than the imbalance is not a source
            assert!(!arbor_lb_cpu_busier(M_LOAD, 500, &c(1024, 1024, 1), null()));
            assert!(arbor_lb_cpu_busier(M_LOAD, 500, &c(2048, 1024, 2), null()));
            assert!(arbor_lb_cpu_busier(
                M_LOAD,
                500,
                &c(3000, 1024, 2),
                &c(2048, 1024, 2)
            ));
            // util: needs two tasks
            assert!(!arbor_lb_cpu_busier(M_UTIL, 500, &c(1024, 1024, 1), null()));
            // task: the most tasks; an empty CPU never
            assert!(arbor_lb_cpu_busier(M_TASK, 1, &c(0, 0, 3), &c(0, 0, 2)));
            assert!(!arbor_lb_cpu_busier(M_TASK, 1, &c(0, 0, 0), null()));
            // detach_tasks: a task whose load exceeds the imbalance stays,
            // halved per failed attempt
            assert_eq!(arbor_lb_task_share(M_LOAD, 600, 1024, 900, 0), 0);
            assert_eq!(arbor_lb_task_share(M_LOAD, 600, 1024, 900, 1), 1024);
            assert_eq!(arbor_lb_task_share(M_UTIL, 600, 1024, 900, 0), 0);
            assert_eq!(arbor_lb_task_share(M_UTIL, 1000, 1024, 900, 0), 900);
            assert_eq!(arbor_lb_task_share(M_TASK, 1, 1024, 900, 0), 1);
            assert_eq!(arbor_lb_task_share(M_NONE, 1, 1024, 900, 0), 0);
        }
    }

    /// need_active_balance(): more than cache_nice_tries + 2 failures in a
    /// row (1 up to the LLC, 2 above), an idle puller, a lone running task.
    #[test]
    fn lb_active_balance_of_a_lone_task_after_repeated_failures() {
        unsafe {
            assert!(!arbor_need_active_balance(3, LVL_LLC, true, 1, 0));
            assert!(arbor_need_active_balance(4, LVL_LLC, true, 1, 0));
            assert!(arbor_need_active_balance(4, LVL_SMT, true, 1, 0));
            assert!(!arbor_need_active_balance(4, LVL_NODE, true, 1, 0));
            assert!(arbor_need_active_balance(5, LVL_NODE, true, 1, 0));
            // a busy puller, a queued task (pull it instead), two tasks: no
            assert!(!arbor_need_active_balance(9, LVL_LLC, false, 1, 0));
            assert!(!arbor_need_active_balance(9, LVL_LLC, true, 1, 1));
            assert!(!arbor_need_active_balance(9, LVL_LLC, true, 2, 0));
        }
    }

    /// get_sd_balance_interval(): sd_weight ms, x16 when busy, capped at
    /// 100 ms per CPU, never below the timer's interval.
    #[test]
    fn lb_interval_is_the_domain_weight_in_ms() {
        const MS: u64 = 1_000_000;
        unsafe {
            assert_eq!(arbor_lb_interval(4, 4 * MS, false, 8), 4 * MS);
            assert_eq!(arbor_lb_interval(2, 4 * MS, false, 8), 4 * MS);
            assert_eq!(arbor_lb_interval(96, 4 * MS, false, 96), 96 * MS);
            assert_eq!(arbor_lb_interval(4, 4 * MS, true, 8), 64 * MS);
            assert_eq!(arbor_lb_interval(8, 4 * MS, true, 1), 100 * MS);
        }
    }
}
