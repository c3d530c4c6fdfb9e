//! The wake-up and fork slow path (find_idlest_group and friends) and
//! the NUMA wake-up rules (WAKE_NODE, SIS_NODE, SYNC_LOCAL, WAKE_LOCAL).

use super::*;

/// A group of `weight` CPUs of capacity 1024, all allowed, running
/// `nr` tasks with `idle` CPUs idle, utilisation `util` and load `load`.
fn grp(weight: u32, nr: u32, idle: u32, util: u64, load: u64) -> group_stats {
    group_stats {
        load,
        util,
        runnable: load,
        capacity: weight * 1024,
        weight,
        allowed: weight,
        nr_running: nr,
        idle_cpus: idle,
        pad: 0,
    }
}

const SPARE: u32 = arbor_group_type_GROUP_HAS_SPARE;
const BUSY: u32 = arbor_group_type_GROUP_FULLY_BUSY;
const OVER: u32 = arbor_group_type_GROUP_OVERLOADED;

#[test]
fn imb_numa_nr_as_build_sched_domains_sets_it() {
    // one LLC per node (xeon-88: 2 x 44): 1/8 of the node
    assert_eq!(imb_numa_nr(44, 1), 5);
    assert_eq!(imb_numa_nr(28, 1), 3);
    // several LLCs per node: one task per LLC (power11: 112 CPUs, 28 LLCs)
    assert_eq!(imb_numa_nr(112, 28), 28);
    assert_eq!(imb_numa_nr(64, 8), 8);
    // at least 1 (the 2s2c2t guest: 4-CPU nodes)
    assert_eq!(imb_numa_nr(4, 1), 1);
}

#[test]
fn group_classify_spare_fully_busy_overloaded() {
    unsafe {
        assert_eq!(arbor_group_type(&grp(4, 3, 1, 3000, 3000), 117), SPARE);
        // one task per CPU, utilisation above capacity / 1.17: no capacity left
        assert_eq!(arbor_group_type(&grp(4, 4, 0, 3600, 4096), 117), BUSY);
        // one task per CPU but light ones: still spare
        assert_eq!(arbor_group_type(&grp(4, 4, 0, 1000, 1000), 117), SPARE);
        // more tasks than CPUs and utilisation over capacity / 1.17
        assert_eq!(arbor_group_type(&grp(4, 6, 0, 3700, 6000), 117), OVER);
        // more tasks than CPUs, light utilisation but runnable over capacity * 1.17
        assert_eq!(arbor_group_type(&grp(4, 6, 0, 1000, 6000), 117), OVER);
        assert_eq!(arbor_group_type(&grp(4, 6, 0, 1000, 1000), 117), SPARE);
    }
}

/// WAKE_NODE on crafted machines of one-LLC nodes, each CPU's node from
/// a layout: a one-node machine (x86-12-like: 12 CPUs) never keeps; on two
/// nodes of 4 CPUs (2s2c2t-like) and of 112 (xeon-like sockets), a
/// wake-up from the other node keeps the wakee home exactly while its node
/// has an idle CPU, and a wake-up inside the node is left to wake_affine.
#[test]
fn wake_node_keeps_a_wakee_home_while_its_node_has_an_idle_cpu() {
    let keep = |node: &[u32], this: usize, prev: usize, busy: &[bool]| {
        let pn = node[prev];
        let cpus = node.iter().filter(|&&n| n == pn).count() as u32;
        let nbusy = (0..node.len())
            .filter(|&c| node[c] == pn && busy[c])
            .count() as u32;
        unsafe { arbor_wake_node_keep(node[this], pn, nbusy, cpus, 1) }
    };
    // one node: never
    let one = [0u32; 12];
    assert!(!keep(&one, 0, 11, &[false; 12]));
    assert!(!keep(&one, 0, 11, &[true; 12]));
    // two nodes of 4: CPUs 0-3 node 0, 4-7 node 1
    let two: Vec<u32> = (0..8).map(|c| c / 4).collect();
    let mut busy = [true; 8];
    busy[2] = false; // one idle CPU in node 0
    assert!(keep(&two, 5, 1, &busy), "node 0 has an idle CPU: stay");
    assert!(!keep(&two, 3, 1, &busy), "same node: wake_affine decides");
    busy[2] = true; // node 0 full
    assert!(!keep(&two, 5, 1, &busy), "node 0 full: wake_affine decides");
    busy[6] = false; // an idle CPU on the waker's node changes nothing
    assert!(!keep(&two, 5, 1, &busy));
    // 2 nodes x 112
    let two112: Vec<u32> = (0..224).map(|c| c / 112).collect();
    let mut b = vec![true; 224];
    assert!(!keep(&two112, 0, 200, &b));
    b[111 + 50] = false; // CPU 161, node 1
    assert!(keep(&two112, 0, 200, &b));
    assert!(!keep(&two112, 200, 0, &b), "prev's node 0 is full");
}

/// SIS_NODE on crafted machines. The bit finder on every bit and on
/// several set; the pick on a power11-like machine (2 nodes x 112 CPUs,
/// 4 words): the node's first idle CPU at or after target, wrapping past
/// the node's end, across words, never a CPU of the other node; the
/// idle-period test; and the gate: no search where a node is one LLC,
/// for a task with an affinity mask, or past SIS_UTIL's 85% bound.
#[test]
fn sis_node_takes_the_nodes_nearest_lasting_idle_cpu() {
    for b in 0..64 {
        assert_eq!(unsafe { arbor_word_first(1u64 << b) }, b);
        assert_eq!(unsafe { arbor_word_first((1u64 << b) | (1u64 << 63)) }, b);
    }
    const W: usize = 4;
    let node0 = mask::<W>(&(0..112).collect::<Vec<_>>());
    let node1 = mask::<W>(&(112..224).collect::<Vec<_>>());
    let pick = |idle: &[usize], node: &[u64; W], from: u32| {
        let i = mask::<W>(idle);
        unsafe { arbor_sis_node_pick(i.as_ptr(), node.as_ptr(), W as u32, from) }
    };
    // nothing idle in the node (an idle CPU of node 1 does not count)
    assert_eq!(pick(&[150], &node0, 10), -1);
    // the nearest at or after target
    assert_eq!(pick(&[5, 13, 70], &node0, 10), 13);
    assert_eq!(pick(&[5, 13, 70], &node0, 14), 70);
    assert_eq!(pick(&[5, 13, 70], &node0, 13), 13);
    // wrapping past the node's end to its first CPUs
    assert_eq!(pick(&[5, 13], &node0, 100), 5);
    // across word boundaries, in node 1, from its last word wrapping to its first
    assert_eq!(pick(&[130, 200], &node1, 210), 130);
    assert_eq!(pick(&[127, 128], &node1, 125), 127);
    assert_eq!(pick(&[127, 128], &node1, 128), 128);
    assert_eq!(
        pick(&[120], &node1, 121),
        120,
        "wraps to below from in from's word"
    );
    // the gate: a pinned task, a node of one LLC (x86-12, xeon-88), and
    // SIS_UTIL's bound on the node: fewer than 100/117 (85%) busy
    let try_ = |any, llcs, busy| unsafe { arbor_sis_node_try(any, llcs, busy, 112, 117) };
    // the search starts at prev when prev is in target's node, else at target
    assert_eq!(unsafe { arbor_sis_node_from(10, 40, 0, 0) }, 40);
    assert_eq!(unsafe { arbor_sis_node_from(10, 150, 0, 1) }, 10);
    // a candidate idle for less than the migration cost is passed over;
    // one idle since before the load (stamp 0) is taken
    let ok = |stamp, now| unsafe { arbor_sis_node_idle_ok(stamp, now, 500_000) };
    assert!(ok(1_000_000, 1_500_000));
    assert!(!ok(1_000_000, 1_499_999));
    assert!(ok(0, 9_000_000));
    assert!(
        !ok(2_000_000, 1_000_000),
        "a stamp after now (another CPU's clock)"
    );
    assert!(try_(true, 28, 22));
    assert!(!try_(false, 28, 22));
    assert!(!try_(true, 1, 22));
    assert!(try_(true, 28, 95), "95 * 117 = 11115 < 11200");
    assert!(!try_(true, 28, 96), "96 * 117 = 11232");
    assert!(!try_(true, 28, 112));
}

/// SYNC_LOCAL, driven as main.bpf.c drives it: each sync wake-up
/// records a pending stamp (a second one before a sleep breaks the
/// first), each sleep settles the pending one against the window.
/// Events: `W(t, nr)` a sync wake-up at t µs with nr tasks on the
/// waker's CPU, `S(t)` the waker sleeps. Returns which wake-ups went
/// to the waker's CPU.
#[test]
fn sync_local_follows_wakers_that_keep_their_promise() {
    #[derive(Clone, Copy)]
    enum Ev {
        W(u64, u32),
        S(u64),
    }
    use Ev::*;
    const WIN: u64 = 500_000; // --migration-cost-us 500
    let run = |evs: &[Ev]| -> Vec<bool> {
        let (mut hist, mut since, mut out) = (0u32, 0u64, vec![]);
        for &e in evs {
            match e {
                W(t, nr) => {
                    let t = t * 1000 + 1; // ns, never 0
                    out.push(unsafe { arbor_sync_local(hist, since, nr) });
                    if since != 0 {
                        hist = unsafe { arbor_sync_record(hist, false) };
                    }
                    since = t;
                }
                S(t) => {
                    if since != 0 {
                        let kept = unsafe { arbor_sync_kept(since, t * 1000 + 1, WIN) };
                        hist = unsafe { arbor_sync_record(hist, kept) };
                        since = 0;
                    }
                }
            }
        }
        out
    };
    // perf-pipe: write (sync wake), read (sleep) 2 µs later, 12 times
    let pipe: Vec<Ev> = (0..12)
        .flat_map(|i| [W(10 * i, 1), S(10 * i + 2)])
        .collect();
    let got = run(&pipe);
    assert!(
        got[..8].iter().all(|&l| !l),
        "a new waker has kept nothing yet"
    );
    assert!(got[8..].iter().all(|&l| l), "8 kept promises: local");
    // ... but not while its CPU runs another task as well
    let mut busy = pipe.clone();
    busy[2 * 10] = W(100, 2);
    assert!(!run(&busy)[10]);
    // hackbench's sender: 20 sync wake-ups in a row, then a sleep; forever
    let sender: Vec<Ev> = (0..10)
        .flat_map(|r| {
            (0..20)
                .map(move |k| W(100 * r + k, 1))
                .chain([S(100 * r + 21)])
        })
        .collect();
    assert!(
        run(&sender).iter().all(|&l| !l),
        "a 1:N waker never qualifies"
    );
    // a ping-pong waker that once wakes twice loses the rule for 8 wake-ups
    let mut once: Vec<Ev> = (0..10)
        .flat_map(|i| [W(10 * i, 1), S(10 * i + 2)])
        .collect();
    once.push(W(100, 1));
    once.push(W(101, 1));
    once.extend((11..30).flat_map(|i| [W(10 * i, 1), S(10 * i + 2)]));
    let got = run(&once);
    assert!(got[8] && got[9] && got[10], "kept 8 before the slip");
    assert!(!got[11], "the second wake-up before a sleep");
    assert!(
        got[12..19].iter().all(|&l| !l),
        "the slip stays in the last 8"
    );
    assert!(got[20], "8 kept again");
    // a waker that sleeps, but only 600 µs after its wake-ups (> window)
    let slow: Vec<Ev> = (0..12)
        .flat_map(|i| [W(1000 * i, 1), S(1000 * i + 600)])
        .collect();
    assert!(run(&slow).iter().all(|&l| !l));
    // exactly at the window: kept
    assert!(unsafe { arbor_sync_kept(1, 1 + WIN, WIN) });
    assert!(!unsafe { arbor_sync_kept(1, 2 + WIN, WIN) });
    // a clock behind the stamp is not a kept promise
    assert!(!unsafe { arbor_sync_kept(10, 9, WIN) });
    // the history holds 8 wake-ups
    assert_eq!(unsafe { arbor_sync_record(0xff, true) }, 0xff);
    assert_eq!(unsafe { arbor_sync_record(0x80, true) }, 0x01);
}

/// SYNC_LOCAL on an asymmetric machine: the waker's CPU takes a wakee that
/// fits it; one too big for it only with SYNC_LOCAL_BIG_BUSY and only while
/// no CPU of more capacity is idle (the idle search could find no bigger).
#[test]
fn sync_local_keeps_a_big_wakee_only_while_nothing_bigger_idles() {
    for bigger_idle in [false, true] {
        for on in [false, true] {
            assert!(
                unsafe { arbor_sync_local_fits(true, bigger_idle, on) },
                "a wakee that fits stays (bigger idle {bigger_idle}, rule {on})"
            );
        }
    }
    assert!(unsafe { arbor_sync_local_fits(false, false, true) });
    assert!(
        !unsafe { arbor_sync_local_fits(false, true, true) },
        "a bigger CPU idle: the idle search takes it there"
    );
    assert!(
        !unsafe { arbor_sync_local_fits(false, false, false) },
        "without the rule a wakee that does not fit always leaves"
    );
}

/// WAKE_LOCAL on event sequences: `W(t)` the waker wakes a task whose
/// prev is its CPU, `S(t)` the waker sleeps (t in units of 0.25 µs);
/// the alternative (a wake-up onto an idle CPU) takes `lat` µs.
/// Returns which wake-ups queued behind the waker, with the learning as
/// main.bpf.c does it (the measure starts at the first wake-up since
/// the last sleep and ends at the sleep).
#[test]
fn wake_local_waits_behind_a_waker_that_sleeps_sooner_than_an_idle_cpu_wakes() {
    #[derive(Clone, Copy)]
    enum Ev {
        W(u64),
        S(u64),
    }
    use Ev::*;
    const Q: u64 = 250; // ns per unit
    let run = |evs: &[Ev], lat_us: u64, nr: u32| -> Vec<bool> {
        let (mut avg, mut pend, mut out) = (0u64, 0u64, vec![]);
        for &e in evs {
            match e {
                W(t) => {
                    let t = t * Q + 1;
                    let el = if pend != 0 && t > pend { t - pend } else { 0 };
                    out.push(unsafe { arbor_wake_local(avg, el, lat_us * 1000, nr) });
                    if pend == 0 {
                        pend = t;
                    }
                }
                S(t) => {
                    if pend != 0 {
                        avg = unsafe { arbor_wake_sleep_update(avg, t * Q + 1 - pend) };
                        pend = 0;
                    }
                }
            }
        }
        out
    };
    // wakeprobe's message thread: 6 wake-ups 0.25 µs apart, a sleep
    // 0.25 µs after the last; a request every 20 µs (80 units)
    let msg: Vec<Ev> = (0..10u64)
        .flat_map(|r| (0..6u64).map(move |k| W(80 * r + k)).chain([S(80 * r + 6)]))
        .collect();
    let got = run(&msg, 12, 1);
    assert_eq!(got.len(), 60);
    assert!(got[..6].iter().all(|&l| !l), "nothing measured yet: no");
    assert!(got[6..].iter().all(|&l| l), "up 1.5 us against 12: local");
    // the same waker where idle CPUs wake in 1 us: never
    assert!(run(&msg, 1, 1).iter().all(|&l| !l));
    // nothing known of the idle CPUs yet (0): never
    assert!(run(&msg, 0, 1).iter().all(|&l| !l));
    // its CPU runs another task too: never
    assert!(run(&msg, 12, 2).iter().all(|&l| !l));
    // hackbench's sender: 20 wake-ups 10 µs apart, then a sleep
    let sender: Vec<Ev> = (0..10u64)
        .flat_map(|r| {
            (0..20u64)
                .map(move |k| W(1200 * r + 40 * k))
                .chain([S(1200 * r + 800)])
        })
        .collect();
    assert!(run(&sender, 12, 1).iter().all(|&l| !l), "up 200 us: never");
    // a waker that used to sleep at once but now keeps waking: once its
    // current run outlasts its average (1.5 us), no more
    let mut turn = msg.clone();
    turn.extend((0..20u64).map(|k| W(4000 + 40 * k)));
    let got = run(&turn, 12, 1);
    assert!(got[60], "the first wake-up of the run: local");
    assert!(!got[61], "10 us into the run: no longer");
    // the average starts at its first sample and is never 0
    assert_eq!(unsafe { arbor_wake_sleep_update(0, 5000) }, 5000);
    assert_eq!(unsafe { arbor_wake_sleep_update(0, 0) }, 1);
    assert_eq!(unsafe { arbor_wake_sleep_update(8000, 0) }, 7000);
}

#[test]
fn adjust_numa_imbalance_allows_two_while_the_node_is_light() {
    unsafe {
        assert_eq!(arbor_adjust_numa_imbalance(2, 5, 5), 0);
        assert_eq!(arbor_adjust_numa_imbalance(3, 5, 5), 3);
        assert_eq!(arbor_adjust_numa_imbalance(2, 6, 5), 2);
    }
}

#[test]
fn dst_group_without_local_is_the_idlest_most_idle_then_least_util() {
    let g = [
        grp(4, 3, 1, 100, 100),
        grp(4, 1, 3, 900, 900),
        grp(4, 1, 3, 400, 400),
    ];
    assert_eq!(find_dst_group(&g, -1, 117, false, 0), 2);
    assert_eq!(find_dst_group(&[], -1, 117, false, 0), -1);
    // lower group type first: a group with spare beats a busy one
    let g = [grp(4, 4, 0, 3600, 4096), grp(4, 3, 0, 3900, 3000)];
    assert_eq!(find_dst_group(&g, -1, 117, false, 0), 1);
}

/// xeon-88 (2 nodes x 44 CPUs, imb_numa_nr 5). A parent on
/// node 0 forks: node 1 has one idle CPU more, but the kernel keeps the
/// child on the parent's node while that node would run at most 5 tasks
/// and the idle counts differ by at most 2.
#[test]
fn fork_stays_on_the_parents_node_below_imb_numa_nr() {
    let imb = imb_numa_nr(44, 1);
    // parent alone on node 0
    let g = [grp(44, 1, 43, 1024, 1024), grp(44, 0, 44, 0, 0)];
    assert_eq!(find_dst_group(&g, 0, 117, true, imb), -1);
    // 2 tasks vs 0: imbalance 2, still local
    let g = [grp(44, 2, 42, 2048, 2048), grp(44, 0, 44, 0, 0)];
    assert_eq!(find_dst_group(&g, 0, 117, true, imb), -1);
    // 3 apart: more than NUMA_IMBALANCE_MIN, spread
    let g = [grp(44, 3, 41, 3072, 3072), grp(44, 0, 44, 0, 0)];
    assert_eq!(find_dst_group(&g, 0, 117, true, imb), 1);
    // 2 apart but node 0 would run 7 > 5 tasks: spread
    let g = [grp(44, 6, 38, 6144, 6144), grp(44, 4, 40, 4096, 4096)];
    assert_eq!(find_dst_group(&g, 0, 117, true, imb), 1);
    // not NUMA (LLCs of one node): one idle CPU more is enough to leave
    let g = [grp(44, 1, 43, 1024, 1024), grp(44, 0, 44, 0, 0)];
    assert_eq!(find_dst_group(&g, 0, 117, false, 0), 1);
    // the allowance is capped by the CPUs the task may use on its node
    let mut l = grp(44, 1, 0, 1024, 1024);
    l.allowed = 1;
    let g = [l, grp(44, 0, 44, 0, 0)];
    assert_eq!(find_dst_group(&g, 0, 117, true, imb), 1);
}

/// The fork slow path's node level as idle.bpf.h wires it: children
/// of one parent forked on node 0 of xeon-88, one at a time, each
/// running on its own CPU. The parent's node takes the first three
/// (it runs 0, 1, 2 tasks: within 2 idle CPUs of node 1 and below
/// imb_numa_nr 5), then keeps a lead of 2 while it would run at most
/// 5 tasks, then the children go where more CPUs are idle, staying
/// local on a tie. sim/tests/fork_local.rs checks the same sequence
/// through the BPF code.
#[test]
fn children_of_one_parent_fill_its_node_first_then_alternate() {
    let imb = imb_numa_nr(44, 1);
    let (mut a, mut b) = (0u32, 0u32);
    let mut seq = Vec::new();
    for _ in 0..16 {
        let g = [
            grp(44, a, 44 - a, 1024 * a as u64, 1024 * a as u64),
            grp(44, b, 44 - b, 1024 * b as u64, 1024 * b as u64),
        ];
        if find_dst_group(&g, 0, 117, true, imb) == 1 {
            b += 1;
            seq.push(1);
        } else {
            a += 1;
            seq.push(0);
        }
    }
    assert_eq!(seq, [0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1]);
}

#[test]
fn fork_stays_local_on_equal_idle_counts_and_by_group_type() {
    // equal idle CPUs: stay, even if the other group is less utilised
    let g = [grp(8, 4, 4, 4000, 4000), grp(8, 4, 4, 100, 100)];
    assert_eq!(find_dst_group(&g, 0, 117, false, 0), -1);
    // local with spare, other busy: stay; local busy, other with spare: go
    let g = [grp(4, 3, 1, 3000, 3000), grp(4, 4, 0, 3600, 4096)];
    assert_eq!(find_dst_group(&g, 0, 117, false, 0), -1);
    assert_eq!(find_dst_group(&g, 1, 117, false, 0), 0);
    // a local group the task may not use: the idlest other group
    let mut l = grp(4, 0, 4, 0, 0);
    l.allowed = 0;
    let g = [l, grp(4, 3, 1, 3000, 3000)];
    assert_eq!(find_dst_group(&g, 0, 117, false, 0), 1);
    // groups the task may not use are never chosen
    let mut o = grp(4, 0, 4, 0, 0);
    o.allowed = 0;
    let g = [grp(4, 3, 1, 3000, 3000), o];
    assert_eq!(find_dst_group(&g, 0, 117, false, 0), -1);
}

#[test]
fn fork_between_busy_groups_needs_imbalance_pct_and_a_nice0_share() {
    // both fully busy: avg_load 1100 vs 1024 is within 17%: stay
    let g = [grp(4, 4, 0, 3600, 4400), grp(4, 4, 0, 3600, 4096)];
    assert_eq!(find_dst_group(&g, 0, 117, false, 0), -1);
    // 1600 vs 1024: more than 17% and more than 174 apart: go
    let g = [grp(4, 4, 0, 3600, 6400), grp(4, 4, 0, 3600, 4096)];
    assert_eq!(find_dst_group(&g, 0, 117, false, 0), 1);
    // light busy groups, avg_load 600 vs 500: 20% apart, enough within a
    // node; across nodes the gap must also exceed the NICE_0 share (174)
    let g = [grp(4, 4, 0, 3600, 2400), grp(4, 4, 0, 3600, 2000)];
    assert_eq!(find_dst_group(&g, 0, 117, false, 0), 1);
    assert_eq!(find_dst_group(&g, 0, 117, true, 1), -1);
    let g = [grp(4, 4, 0, 3600, 5200), grp(4, 4, 0, 3600, 4096)];
    assert_eq!(find_dst_group(&g, 0, 117, true, 1), 1);
}

#[test]
fn idlest_cpu_prefers_most_recently_idle_then_least_loaded() {
    unsafe {
        let stamp = [0u64, 50, 90, 0];
        let load = [10u64, 999, 999, 0];
        assert_eq!(arbor_idlest_cpu(4, stamp.as_ptr(), load.as_ptr()), 2);
        let stamp = [0u64; 3];
        let load = [300u64, 100, 200];
        assert_eq!(arbor_idlest_cpu(3, stamp.as_ptr(), load.as_ptr()), 1);
    }
}

/// WAKE_NODE leaves a node of several LLCs (EPYC CCXs under NPS, POWER's
/// per-core LLCs) to wake_affine, idle CPUs or not: the wakee kept there
/// would land in a cold LLC of the node anyway.
#[test]
fn wake_node_keeps_nothing_in_a_node_of_several_llcs() {
    for llcs in [2u32, 8, 56] {
        assert!(
            !unsafe { arbor_wake_node_keep(0, 1, 0, 128, llcs) },
            "{llcs} LLCs"
        );
        assert!(
            !unsafe { arbor_wake_node_keep(0, 1, 127, 128, llcs) },
            "{llcs} LLCs"
        );
    }
    assert!(
        unsafe { arbor_wake_node_keep(0, 1, 127, 128, 1) },
        "one LLC, one idle CPU"
    );
    assert!(
        !unsafe { arbor_wake_node_keep(0, 1, 128, 128, 1) },
        "one LLC, none idle"
    );
}
