//! wake_wide, the wakee-flip count, and wake_affine's stages WA_IDLE,
//! WA_WEIGHT and WA_BIAS (fair.c wake_affine_idle / wake_affine_weight), and
//! when wake_affine needs the LLC counts and loads at all.

use super::*;

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
/// the bias is 105, not 108.
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

/// wake_affine's LLC counts and loads are gathered only when
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
