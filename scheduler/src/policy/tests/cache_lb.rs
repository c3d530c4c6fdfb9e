//! Seed 002: CACHE_LB, cache-aware load balancing (the hottest LLC, the
//! room rule, the task verdicts, aggregation limits, and the asymmetric-capacity
//! guard of the merged version).

use super::*;

/// An LLC-set bitmap whose first word is `w`.
fn lm(w: u64) -> [u64; LLCS_WORDS] {
    first_word(w)
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

/// --llc-tolerance is the kernel's
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

/// Seed 002's migrate_llc_task decision, each case: no
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

/// can_migrate_llc() judges a move on the
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
