//! EEVDF (fair.c). The reference values below are fair.c's formulas
//! evaluated exactly (i128, rational), not the C under test.

use super::*;

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

/// The starvation bound (a fuzzer find: case D of
/// docs/findings/2026-11-26-fuzz-changes): half the sched_ext watchdog
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
                if arbor_vruntime_eligible(&a, v[i]) && pick.map_or(true, |p: usize| dl[i] < dl[p])
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
