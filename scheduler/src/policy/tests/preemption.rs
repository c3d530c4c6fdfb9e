//! Wake-up preemption and the buddies: WAKE_PREEMPT, PREEMPT_SYNC,
//! SYNC_PAIR, NEXT_BUDDY and RUN_TO_PARITY.

use super::*;

#[test]
fn wake_preemption_only_when_enabled_eligible_and_earlier() {
    unsafe {
        // EEVDF (WAKE_PREEMPT): an eligible wakee with the earlier deadline preempts
        assert!(arbor_wake_preempt(true, true, true, 100, 200));
        assert!(!arbor_wake_preempt(true, true, true, 200, 200));
        assert!(!arbor_wake_preempt(true, true, false, 100, 200));
        // nothing running: nothing to preempt (the CPU is only kicked)
        assert!(!arbor_wake_preempt(true, false, true, 100, 200));
        // NO_WAKE_PREEMPT (seed 003's 15 ms wakeup granularity): never
        assert!(!arbor_wake_preempt(false, true, true, 100, 200));
        assert!(!arbor_wake_preempt(false, true, true, 0, u64::MAX));
    }
}

/// PREEMPT_SYNC: a WF_SYNC wake-up waits while the running task was
/// picked less than the threshold (migration_cost / 4 = 125 us) ago,
/// and preempts from then on; a plain wake-up, or a CPU that runs
/// nothing, is never held back.
#[test]
fn preempt_sync_lets_a_task_run_its_batch_before_a_sync_wakee_preempts() {
    unsafe {
        let (picked, th) = (1_000_000u64, 125_000u64);
        assert!(arbor_sync_defer(true, picked, picked, th), "just picked");
        assert!(arbor_sync_defer(true, picked + th - 1, picked, th));
        assert!(
            !arbor_sync_defer(true, picked + th, picked, th),
            "ran its 125 us"
        );
        assert!(!arbor_sync_defer(true, picked + 10 * th, picked, th));
        assert!(
            !arbor_sync_defer(false, picked + 1, picked, th),
            "not WF_SYNC"
        );
        assert!(
            !arbor_sync_defer(true, picked + 1, 0, th),
            "nothing running"
        );
        // a clock read on another CPU a little behind the pick: still waits
        assert!(arbor_sync_defer(true, picked - 1, picked, th));
        // threshold 0 (migration cost set to 0): never waits
        assert!(!arbor_sync_defer(true, picked, picked, 0));
    }
}

/// SYNC_PAIR: a sync wake-up is a pair's when the wakee's own last
/// wake-up woke this waker; a wakee that never woke anyone (-1), or
/// last woke another task, is not; nothing with the feature off.
#[test]
fn sync_pair_is_the_wakee_that_last_woke_its_waker() {
    unsafe {
        let (client, server) = (100, 200);
        // the server answered the client, the client sends it the next request
        assert!(arbor_sync_pair(true, client, client), "the pair");
        assert!(
            !arbor_sync_pair(false, client, client),
            "feature off: never"
        );
        assert!(
            !arbor_sync_pair(true, server + 1, client),
            "last woke another task"
        );
        assert!(!arbor_sync_pair(true, -1, client), "never woke a task");
        // an unset record (-1) never matches, whatever the waker's pid
        assert!(!arbor_sync_pair(true, -1, -1));
        assert!(arbor_sync_pair(true, server, server), "the other direction");
    }
}

/// NEXT_BUDDY: a wakee may become its CPU's next buddy (and preempt,
/// if eligible: the caller's read) only when that CPU runs a task, the
/// wake-up is not WF_SYNC (preempt_sync decides those), and no buddy
/// waits there already.
#[test]
fn next_buddy_takes_non_sync_wakees_onto_a_busy_cpu_once() {
    unsafe {
        assert!(arbor_next_buddy(1_000, false, false));
        assert!(
            !arbor_next_buddy(0, false, false),
            "nothing running: no preemption"
        );
        assert!(
            !arbor_next_buddy(1_000, true, false),
            "WF_SYNC: preempt_sync's"
        );
        assert!(
            !arbor_next_buddy(1_000, false, true),
            "a buddy already waits"
        );
    }
}

/// BUDDY_LONG_RUN: the buddy preempts only a task whose runs average at
/// least the bound; switched off, any task.
#[test]
fn buddy_preempts_only_a_long_runner() {
    let (long, min) = (3_000_000, 125_000); // a worker's math: milliseconds a run
    unsafe {
        assert!(arbor_buddy_long_run(true, long, min));
        assert!(arbor_buddy_long_run(true, min, min), "at the bound");
        assert!(
            !arbor_buddy_long_run(true, 10_000, min),
            "a task that runs 10 us at a time is not preempted for a buddy"
        );
        assert!(
            !arbor_buddy_long_run(true, 0, min),
            "nor one with no run measured yet"
        );
        assert!(arbor_buddy_long_run(false, 0, min), "off: any task");
    }
}

/// The average run from pick to stop moves 1/8 of the way to each run,
/// up and down, and settles on a steady run length.
#[test]
fn stint_average_moves_an_eighth_of_the_way() {
    unsafe {
        assert_eq!(arbor_update_avg(0, 800), 100);
        assert_eq!(arbor_update_avg(800, 0), 700);
        assert_eq!(arbor_update_avg(500, 500), 500);
        let mut a = 0;
        for _ in 0..100 {
            a = arbor_update_avg(a, 3_000_000);
        }
        assert!(
            a > 2_990_000 && a <= 3_000_000,
            "settles on the run length: {a}"
        );
        for _ in 0..100 {
            a = arbor_update_avg(a, 10_000);
        }
        assert!(a < 20_000, "and follows it down: {a}");
    }
}

/// RUN_TO_PARITY: the running task is protected from wake-up
/// preemption until it has run, at its weight, the vruntime between
/// its pick and its deadline then (calc_delta_fair's inverse); with
/// the feature off, never. A task picked past its deadline (it is
/// about to get a new one) is not protected at all.
#[test]
fn run_to_parity_protects_the_request_the_task_was_picked_with() {
    unsafe {
        let (now, slice) = (1_000_000u64, 3_000_000u64);
        // nice 0 (1024): a full slice of vruntime takes a slice of wall time
        let until = arbor_protect_until(now, 5_000, 5_000 + slice, 1024);
        assert_eq!(until, now + slice);
        assert!(arbor_run_to_parity(true, now + slice - 1, until));
        assert!(!arbor_run_to_parity(true, now + slice, until));
        assert!(!arbor_run_to_parity(false, now, until), "NO_RUN_TO_PARITY");
        // a preempted task picked again with a third of its request left
        let until = arbor_protect_until(now, 2 * slice, 3 * slice, 1024);
        assert_eq!(until, now + slice);
        // nice -5 (3121): its vruntime advances 1024/3121 as fast, so
        // the same vruntime distance lasts 3121/1024 longer in wall time
        let until = arbor_protect_until(now, 0, slice * 1024 / 3121, 3121);
        assert!(until.abs_diff(now + slice) < 1_000, "{}", until - now);
        // nice 19 (15)
        let until = arbor_protect_until(now, 0, slice * 1024 / 15, 15);
        assert!(until.abs_diff(now + slice) < 1_000, "{}", until - now);
        // picked at or past its deadline: nothing left to protect
        assert_eq!(arbor_protect_until(now, 7, 7, 1024), now);
        assert_eq!(arbor_protect_until(now, 9, 7, 1024), now);
        assert!(!arbor_run_to_parity(true, now, now));
        // weight 0 (not yet known) counts as nice 0
        assert_eq!(arbor_protect_until(now, 0, 10, 0), now + 10);
    }
}
