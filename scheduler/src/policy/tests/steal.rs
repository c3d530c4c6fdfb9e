//! Seed 003: STEAL, the order in which a CPU about to go idle tries the
//! overloaded CPUs of its LLC, and when stealing is allowed at all.

use super::*;

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
fn steal_skipped_under_cost_or_above_node_limit() {
    unsafe {
        assert!(arbor_steal_allowed(10_000, 10_000, 2, 2));
        assert!(!arbor_steal_allowed(9_999, 10_000, 2, 2));
        assert!(!arbor_steal_allowed(50_000, 10_000, 3, 2));
    }
}
