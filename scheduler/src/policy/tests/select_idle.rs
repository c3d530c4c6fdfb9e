//! The wake-up idle scan: SIS_UTIL's depth, select_idle_cpu with the
//! has_idle_cores hint, and SIS_IDLE_GROUP (select_idle_sibling of kernels
//! 3.9-4.8).

use super::*;

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
/// idle-core hint is set; the hint is kept.
#[test]
fn sis_util_depth_0_skips_the_scan_even_with_the_idle_core_hint() {
    let s = snap(&[6, 7]);
    assert_eq!(select_idle_cpu(&s, 0, true, true, 0), (-1, false, false));
    // with some depth the hinted core search runs, unlimited by it
    assert_eq!(select_idle_cpu(&s, 0, true, true, 1), (6, false, true));
}

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
