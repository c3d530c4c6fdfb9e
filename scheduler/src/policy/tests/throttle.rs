//! Seed 001: WA_THROTTLE, the window after a failed wake_affine during
//! which it is not tried again.

use super::*;

/// A wake-up inside the 1 ms window that a failed wake_affine at time 0
/// opened (now 10, window until 20), where WA_WEIGHT alone would pull.
fn in_window(features: u32) -> wa_input {
    let mut i = wa();
    i.features |= features;
    i.throttle_ns = 1_000_000;
    i.prev_load = 5000;
    i.now = 10;
    i.next_wake_affine = 20;
    i
}

#[test]
fn throttle_window_open_closed_disabled() {
    let mut i = in_window(1 << arbor_feature_FEAT_WA_THROTTLE);
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

/// WA_THROTTLE_XLLC: the window neither holds nor opens where this and prev
/// share an LLC; across LLCs the seed's window is unchanged.
#[test]
fn throttle_xllc_acts_only_across_llcs() {
    let mut i = in_window(
        (1 << arbor_feature_FEAT_WA_THROTTLE) | (1 << arbor_feature_FEAT_WA_THROTTLE_XLLC),
    );
    i.share_cache = 1;
    assert!(!unsafe { arbor_wa_throttled(&i) });
    let (r, o) = wake_affine(&i);
    assert_eq!((r, o.next_wake_affine), (THIS, 20));
    // a failure within the LLC opens no window
    i.prev_load = 0;
    i.this_load = 5000;
    i.now = 30;
    let (r, o) = wake_affine(&i);
    assert_eq!((r, o.next_wake_affine), (PREV, 20));
    // across LLCs: held inside the window, and a failure opens one
    i.share_cache = 0;
    i.now = 10;
    let (r, o) = wake_affine(&i);
    assert_eq!((r, o.why), (PREV, wa_why_WHY_THROTTLED));
    i.now = 30;
    let (r, o) = wake_affine(&i);
    assert_eq!((r, o.next_wake_affine), (PREV, 1_000_030));
}
