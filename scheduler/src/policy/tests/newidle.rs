//! Newidle balancing: the per-level cost bound and its decay, NI_RANDOM's
//! dice, IDLE_PULL's walk, and the avg_idle cap.

use super::*;

#[test]
fn newidle_cost_bound() {
    unsafe {
        assert!(arbor_newidle_level_ok(1000, 300, 700));
        assert!(!arbor_newidle_level_ok(1000, 301, 700));
    }
}

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

/// IDLE_PULL (ours): on crafted machines (the levels each has and
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
            let d = unsafe { arbor_newidle_level(on, i <= 1, ok, if ok { dice[i] } else { 0 }) };
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
fn avg_idle_cap_is_twice_the_summed_level_costs_floored_by_migration_cost() {
    unsafe {
        assert_eq!(arbor_avg_idle_cap(500_000, 0), 1_000_000);
        assert_eq!(arbor_avg_idle_cap(500_000, 300_000 + 400_000), 1_400_000);
    }
}

/// IDLE_PULL's reach (arbor_idle_pull_level) and the cache-hot test of each
/// pull (arbor_pull_hot_test), on crafted machines: within the LLC always;
/// the node's level where the node holds several LLCs (power11: 2 nodes of
/// 28 LLCs; power10: one node of 16, whose walk has no node level, so the
/// machine level is the node), and then not the other nodes; the other
/// nodes where a node is one LLC (xeon-88, an SNC machine); and a forced
/// pull above the LLC takes a cache-hot task where the baseline's would not.
#[test]
fn idle_pull_reaches_the_node_or_where_a_node_is_one_llc_the_other_nodes() {
    use crate::bpf_intf::{
        arbor_level_LVL_LLC as LLC, arbor_level_LVL_MACHINE as MACHINE,
        arbor_level_LVL_NODE as NODE, arbor_level_LVL_SMT as SMT,
    };
    let reach = |level, nodes, llcs| unsafe { arbor_idle_pull_level(level, nodes, llcs) };
    // x86-12 (1 node, 1 LLC): the LLC only, which is the machine
    assert!(reach(SMT, 1, 1) && reach(LLC, 1, 1));
    assert!(!reach(NODE, 1, 1) && !reach(MACHINE, 1, 1));
    // xeon-88 (2 nodes, 1 LLC each), 16 SNC nodes of 1 LLC: the node adds
    // nothing to the LLC; the other nodes
    for nodes in [2, 16] {
        assert!(reach(SMT, nodes, 1) && reach(LLC, nodes, 1));
        assert!(!reach(NODE, nodes, 1) && reach(MACHINE, nodes, 1));
    }
    // power11: the node, not the machine
    assert!(reach(LLC, 2, 28) && reach(NODE, 2, 28));
    assert!(!reach(MACHINE, 2, 28));
    // power10, epyc NPS1: one node, so the machine level is the node
    assert!(reach(MACHINE, 1, 16));
    let hot = |level, forced| unsafe { arbor_pull_hot_test(level, forced) };
    // the baseline: task_hot() above the LLC only
    assert!(!hot(SMT, false) && !hot(LLC, false));
    assert!(hot(NODE, false) && hot(MACHINE, false));
    // IDLE_PULL: at its forced LLC level yes, at its forced node level no
    assert!(!hot(SMT, true) && hot(LLC, true));
    assert!(!hot(NODE, true) && !hot(MACHINE, true));
}
