//! Large machines: the multi-word CPU and LLC masks, and every scan over
//! them on LLCs of more than 64 CPUs.

use super::*;

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
    smt2_llc(96, |i| i % 48, idle)
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
            arbor_capacity_pick(n as u32, cap.as_ptr(), util.as_ptr(), idle.as_ptr()),
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
