//! Seed 000: the WA_IDLER_LLC stage of wake_affine (the idler of the two
//! LLCs by busy fraction) and WA_WAKER.

use super::*;

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
