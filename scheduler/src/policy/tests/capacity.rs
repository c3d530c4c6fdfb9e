//! Seed 004: capacity awareness (fits_capacity's margin, can_migrate_task's
//! refusals, the wake-up capacity checks, misfit targets).

use super::*;

/// A CPU bitmap whose first word is `w`.
fn cm(w: u64) -> [u64; CPU_WORDS] {
    first_word(w)
}

#[test]
fn fits_margin_is_80_percent() {
    unsafe {
        // 430 * 1024 / 1280 = 344
        assert!(arbor_fits(343, 430));
        assert!(!arbor_fits(344, 430));
        assert!(arbor_fits(818, 1024));
        assert!(!arbor_fits(820, 1024));
        // wake_cap uses the smaller of prev and this
        assert!(arbor_wake_cap(400, 1024, 430));
        assert!(!arbor_wake_cap(300, 1024, 430));
    }
}

/// can_migrate_task(): a pull never takes a migration-disabled task,
/// nor one outside its cpumask, nor a cache-hot one above the LLC.
#[test]
fn can_pull_refuses_pinned_migration_disabled_and_hot_tasks() {
    unsafe {
        assert!(arbor_can_pull(true, false, false, 0, 500_000));
        assert!(!arbor_can_pull(true, true, false, u64::MAX, 500_000));
        assert!(!arbor_can_pull(false, false, false, u64::MAX, 500_000));
        // hot only matters above the LLC
        assert!(!arbor_can_pull(true, false, true, 499_999, 500_000));
        assert!(arbor_can_pull(true, false, true, 500_000, 500_000));
        assert!(arbor_can_pull(true, false, true, u64::MAX, 500_000));
    }
}

/// Seed 004's wake_cap: "minimum capacity is close to max" (within 1/8
/// of it) keeps the fast path whatever the task's size.
#[test]
fn wake_cap_exempts_cpus_within_an_eighth_of_the_biggest() {
    unsafe {
        assert!(!arbor_wake_cap(900, 1024, 1024));
        assert!(!arbor_wake_cap(1000, 1024, 897)); // 1024 - 897 = 127 < 128
        assert!(arbor_wake_cap(1000, 1024, 896)); // 128: not within 1/8
    }
}

/// The seed's slow path ends at an idle CPU whenever there is one
/// (find_idlest_group_cpu): the idle CPU of most spare capacity, whatever
/// the task's size; the least loaded CPU by util/cap only with none idle.
#[test]
fn capacity_pick_takes_an_idle_cpu_before_a_less_loaded_busy_one() {
    let cap = [1024u32, 1024, 430, 430];
    let util = [900u64, 100, 0, 0];
    unsafe {
        // idle 1 and 2: spare 924 vs 430 -> 1
        assert_eq!(
            arbor_capacity_pick(4, cap.as_ptr(), util.as_ptr(), cm(0b0110).as_ptr()),
            1
        );
        // only little 2 idle -> 2
        assert_eq!(
            arbor_capacity_pick(4, cap.as_ptr(), util.as_ptr(), cm(0b0100).as_ptr()),
            2
        );
        // little 2 idle but still carrying its last task's utilisation
        // (400/430), big 1 busy at 100/1024: the idle one, not the busy
        // big CPU of lower util/cap
        let util2 = [900u64, 100, 400, 300];
        assert_eq!(
            arbor_capacity_pick(4, cap.as_ptr(), util2.as_ptr(), cm(0b0100).as_ptr()),
            2
        );
        // nothing idle: least util/cap -> 1 (100/1024)
        assert_eq!(
            arbor_capacity_pick(4, cap.as_ptr(), util2.as_ptr(), cm(0).as_ptr()),
            1
        );
    }
}

#[test]
fn select_idle_capacity_first_fit_else_biggest() {
    let cap = [1024u32, 1024, 430, 430];
    unsafe {
        // util 300 fits 430: first idle from start=2 -> 2
        assert_eq!(
            arbor_select_idle_capacity(4, cap.as_ptr(), cm(0b1101).as_ptr(), 300, 2),
            2
        );
        // util 600 fits only big: scanning from 2 wraps to 0
        assert_eq!(
            arbor_select_idle_capacity(4, cap.as_ptr(), cm(0b1101).as_ptr(), 600, 2),
            0
        );
        // util 1000 fits nothing: biggest idle
        assert_eq!(
            arbor_select_idle_capacity(4, cap.as_ptr(), cm(0b1100).as_ptr(), 1000, 0),
            2
        );
        assert_eq!(
            arbor_select_idle_capacity(4, cap.as_ptr(), cm(0).as_ptr(), 100, 0),
            -1
        );
    }
}

#[test]
fn misfit_target_needs_5_percent_more_and_idle() {
    let cap = [1024u32, 1024, 430, 450, 1000];
    // the misfit target from a CPU of capacity `from`, CPUs `idle` idle
    let target = |from: u32, idle: u64| unsafe {
        arbor_misfit_target(from, 5, cap.as_ptr(), cm(idle).as_ptr())
    };
    // from 430: 450 is only 4.7% bigger -> not a target; idle big 1 wins
    assert_eq!(target(430, 0b01010), 1);
    // no idle candidate: stay (a busy big CPU is never a target, the
    // kernel pulls only from an idle one)
    assert_eq!(target(430, 0), -1);
    assert_eq!(target(430, 0b00100), -1);
    // among idle bigger CPUs, the biggest
    assert_eq!(target(430, 0b10010), 1);
    // from the biggest: nothing bigger
    assert_eq!(target(1024, 0b11111), -1);
    // from 1000: 1024 is 2.4% bigger -> none
    assert_eq!(target(1000, 0b11111), -1);
}
