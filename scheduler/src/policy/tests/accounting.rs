//! Bookkeeping the rules read: the random sequence, the overloaded flag,
//! running averages, the base slice, PELT decay and the wake-latency buckets.

use super::*;

#[test]
fn rng_is_a_nonzero_sequence() {
    let mut st = 0u32;
    let a = unsafe { arbor_rng_next(&mut st) };
    let b = unsafe { arbor_rng_next(&mut st) };
    assert!(a != 0 && b != 0 && a != b);
}

/// The overloaded flag follows the count, not each move: CPU A's count
/// goes 2 -> 1 (a task leaves), then CPU B's 1 -> 2 (one arrives) and B
/// updates the flag before A does. Deciding from each move alone, A would
/// clear the flag last: 0 with 2 tasks.
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
