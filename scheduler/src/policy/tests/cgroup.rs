//! Group scheduling's share rule (policy.h arbor_cg_weight, arbor_cg_shares,
//! arbor_reweight) on crafted cgroup hierarchies, every task runnable and
//! CPU-bound: each group's CPU share from the flattened weights is compared
//! with fair.c's hierarchical proportional share, computed here top-down as
//! the kernel's task groups give it (a group's entity weighs its cpu.weight
//! among its siblings' and its parent's tasks, calc_group_shares summed over
//! CPUs).

use super::super::ffi;

/// A cgroup: its parent's index (None: a top-level group), cpu.weight, and
/// its tasks' sched_ext weights (100 = nice 0).
struct G {
    parent: Option<usize>,
    weight: u32,
    tasks: Vec<u32>,
}

fn eevdf_w(scx: u32) -> u64 {
    unsafe { ffi::arbor_eevdf_weight(scx) }
}

fn shares(w: u32) -> u64 {
    unsafe { ffi::arbor_cg_shares(w) }
}

/// Each group's share of the CPU from the flattened weights (its own tasks
/// only), as cgroup.bpf.h computes them with every task runnable.
fn flattened(gs: &[G]) -> Vec<f64> {
    // active sums: runnable tasks' weights + active children's shares
    let mut active = vec![0u64; gs.len()];
    for (i, g) in gs.iter().enumerate() {
        active[i] += g.tasks.iter().map(|&w| eevdf_w(w)).sum::<u64>();
    }
    let has_tasks = |i: usize| -> bool {
        fn sub(gs: &[G], i: usize) -> bool {
            !gs[i].tasks.is_empty() || (0..gs.len()).any(|c| gs[c].parent == Some(i) && sub(gs, c))
        }
        sub(gs, i)
    };
    for (i, g) in gs.iter().enumerate() {
        if let Some(p) = g.parent {
            if has_tasks(i) {
                active[p] += shares(g.weight);
            }
        }
    }
    let mut per_group = vec![0f64; gs.len()];
    for (i, g) in gs.iter().enumerate() {
        let (mut gw, mut act) = (vec![], vec![]);
        let mut at = Some(i);
        while let Some(j) = at {
            gw.push(shares(gs[j].weight));
            act.push(active[j]);
            at = gs[j].parent;
        }
        for &w in &g.tasks {
            let eff = unsafe {
                ffi::arbor_cg_weight(eevdf_w(w), gw.len() as u32, gw.as_ptr(), act.as_ptr())
            };
            per_group[i] += eff as f64;
        }
    }
    let total: f64 = per_group.iter().sum();
    per_group.iter().map(|x| x / total).collect()
}

/// fair.c's share of each group (its own tasks), top-down: the root's
/// entities (top-level groups) by weight, each group's time split among its
/// tasks and active child groups by weight.
fn kernel(gs: &[G]) -> Vec<f64> {
    fn active(gs: &[G], i: usize) -> bool {
        !gs[i].tasks.is_empty() || (0..gs.len()).any(|c| gs[c].parent == Some(i) && active(gs, c))
    }
    fn split(gs: &[G], parent: Option<usize>, share: f64, out: &mut [f64]) {
        let own: f64 = parent.map_or(0.0, |p| gs[p].tasks.iter().map(|&w| w as f64).sum());
        let kids: Vec<usize> = (0..gs.len())
            .filter(|&c| gs[c].parent == parent && active(gs, c))
            .collect();
        // a task of weight 100 (nice 0) weighs as a group of cpu.weight 100
        let total = own + kids.iter().map(|&c| gs[c].weight as f64).sum::<f64>();
        if let Some(p) = parent {
            out[p] += share * own / total;
        }
        for c in kids {
            split(gs, Some(c), share * gs[c].weight as f64 / total, out);
        }
    }
    let mut out = vec![0.0; gs.len()];
    split(gs, None, 1.0, &mut out);
    out
}

fn check(gs: &[G], want: &[f64]) {
    let (got, k) = (flattened(gs), kernel(gs));
    for i in 0..gs.len() {
        eprintln!(
            "group {i}: flattened {:.4}, fair.c {:.4}, spec {:.4}",
            got[i], k[i], want[i]
        );
        assert!(
            (k[i] - want[i]).abs() < 1e-9,
            "the kernel model of group {i}: {} != {}",
            k[i],
            want[i]
        );
        assert!(
            (got[i] - k[i]).abs() < 0.002,
            "group {i}: {} against fair.c's {}",
            got[i],
            k[i]
        );
    }
}

/// A top-level group of weight `w` with `n` tasks of nice 0.
fn top(w: u32, n: usize) -> G {
    G {
        parent: None,
        weight: w,
        tasks: vec![100; n],
    }
}

#[test]
fn two_groups_100_300_share_25_75() {
    check(&[top(100, 1), top(300, 1)], &[0.25, 0.75]);
}

#[test]
fn more_threads_do_not_get_more_share() {
    check(&[top(100, 8), top(100, 1)], &[0.5, 0.5]);
    check(&[top(100, 16), top(300, 3)], &[0.25, 0.75]);
}

#[test]
fn nested_groups_share_within_their_parent() {
    // /a(100)/{x(100), y(300)} beside /b(100): 12.5 / 37.5 / 50 %
    let gs = [
        G {
            parent: None,
            weight: 100,
            tasks: vec![],
        },
        G {
            parent: Some(0),
            weight: 100,
            tasks: vec![100; 2],
        },
        G {
            parent: Some(0),
            weight: 300,
            tasks: vec![100; 5],
        },
        G {
            parent: None,
            weight: 100,
            tasks: vec![100; 3],
        },
    ];
    check(&gs, &[0.0, 0.125, 0.375, 0.5]);
}

#[test]
fn a_group_with_tasks_and_children_and_nice_levels() {
    // /a(200) with a nice-0 task and /a/x(100) of two, beside /b(100) of a nice -5 task
    let gs = [
        G {
            parent: None,
            weight: 200,
            tasks: vec![100],
        },
        G {
            parent: Some(0),
            weight: 100,
            tasks: vec![100; 2],
        },
        G {
            parent: None,
            weight: 100,
            tasks: vec![305],
        },
    ];
    let two_thirds = 2.0 / 3.0;
    check(&gs, &[two_thirds / 2.0, two_thirds / 2.0, 1.0 / 3.0]);
}

#[test]
fn a_lone_task_keeps_at_least_min_shares() {
    let (gw, act) = ([1u64, 1u64], [1_000_000u64, 1_000_000u64]);
    let w = unsafe { ffi::arbor_cg_weight(1024, 2, gw.as_ptr(), act.as_ptr()) };
    assert_eq!(w, 2);
}

#[test]
fn reweight_keeps_lag_in_real_time() {
    // lag 3000 at weight 1024 -> 1500 at 2048; the deadline likewise
    let (mut v, mut dl) = (10_000u64, 20_000u64);
    unsafe { ffi::arbor_reweight(13_000, &mut v, &mut dl, 1024, 2048) };
    assert_eq!((v, dl), (11_500, 16_500));
    // behind the average: negative lag
    let (mut v, mut dl) = (16_000u64, 19_000u64);
    unsafe { ffi::arbor_reweight(13_000, &mut v, &mut dl, 1024, 512) };
    assert_eq!((v, dl), (19_000, 25_000));
}

#[test]
fn cpu_max_microseconds_become_nanoseconds_and_max_no_limit() {
    unsafe {
        assert_eq!(ffi::arbor_cg_bw_ns(50_000), 50_000_000);
        assert_eq!(ffi::arbor_cg_bw_ns(u64::MAX), 0, "RUNTIME_INF: no limit");
        assert_eq!(ffi::arbor_cg_bw_ns(u64::MAX / 999), 0, "would overflow");
    }
}

/// A CPU-bound group of `cpus` CPUs with cpu.max `quota`/`period` (ns),
/// charged every `tick` while not throttled and refilled at each period's
/// end as cgroup_bw.bpf.h does: its CPU time over `periods` periods.
fn bandwidth_run(quota: u64, period: u64, burst: u64, cpus: u64, tick: u64, periods: u64) -> u64 {
    let (mut runtime, mut used, mut refill_at) = (quota as i64, 0u64, period);
    let mut now = 0;
    let mut throttled = false;
    while now < periods * period {
        let next = (now + tick).min(refill_at);
        if !throttled {
            let d = (next - now) * cpus;
            used += d;
            runtime -= d as i64;
            throttled = runtime <= 0;
        }
        now = next;
        if now >= refill_at {
            runtime = unsafe { ffi::arbor_cg_refill(runtime, quota, burst) };
            refill_at = unsafe { ffi::arbor_cg_next_refill(refill_at, period, now) };
            throttled = runtime <= 0;
        }
    }
    used
}

#[test]
fn quota_bounds_the_long_run_share_with_the_overrun_carried() {
    // 4 CPUs, 50 ms per 100 ms, 4 ms ticks: a period overruns by up to a
    // tick on each CPU, the next one starts that much short
    let used = bandwidth_run(50_000_000, 100_000_000, 0, 4, 4_000_000, 100);
    let share = used as f64 / (100.0 * 100_000_000.0);
    assert!((share - 0.5).abs() < 0.01, "{share}");
    // burst keeps unused runtime, never more than quota + burst
    unsafe {
        assert_eq!(ffi::arbor_cg_refill(30, 50, 20), 70);
        assert_eq!(ffi::arbor_cg_refill(40, 50, 20), 70);
        assert_eq!(ffi::arbor_cg_refill(40, 50, 0), 50);
        assert_eq!(ffi::arbor_cg_refill(-14, 50, 0), 36, "an overrun is owed");
    }
}

#[test]
fn the_period_timer_skips_periods_it_missed() {
    unsafe {
        assert_eq!(ffi::arbor_cg_next_refill(100, 100, 50), 100, "not due");
        assert_eq!(ffi::arbor_cg_next_refill(100, 100, 100), 200);
        assert_eq!(
            ffi::arbor_cg_next_refill(100, 100, 350),
            400,
            "one refill for three periods"
        );
        assert_eq!(ffi::arbor_cg_next_refill(0, 100, 0), 100, "a quota set now");
    }
}

#[test]
fn idle_groups_weigh_idleprio_and_wake_ups_preempt_them() {
    unsafe {
        assert_eq!(ffi::arbor_cg_idle_shares(true), 3);
        assert_eq!(
            ffi::arbor_cg_idle_shares(false),
            1024,
            "NICE_0_LOAD, not cpu.weight"
        );
        // against a nice-0 task in a group of weight 100, an idle group's
        // task gets under 1% of a CPU (fair.c: 2 / (2 + 1024)); the
        // flattened weight is on the fine scale (1024 << 10 for nice 0)
        let (gw, act) = ([ffi::arbor_cg_idle_shares(true)], [1024u64]);
        let w = ffi::arbor_cg_weight(1024, 1, gw.as_ptr(), act.as_ptr());
        let nice0 = ffi::arbor_w_hi(1024) as f64;
        assert!((w as f64) / (w as f64 + nice0) < 0.01, "{w}");
        assert_eq!(ffi::arbor_cg_idle_preempt(true, false), 1);
        assert_eq!(ffi::arbor_cg_idle_preempt(false, true), 0);
        assert_eq!(ffi::arbor_cg_idle_preempt(true, true), -1);
        assert_eq!(ffi::arbor_cg_idle_preempt(false, false), -1);
    }
}

/// A group of weight 1 three levels up from its 100 tasks, beside a group
/// of weight 100 with one task: fair.c gives the 100 tasks 1/101 of the CPU
/// together. Each one's flattened weight is 1024 * 1/100 * 1 * 10/1024 =
/// 0.1 on the 1024 scale: floored at MIN_SHARES = 2 there, the 100 took
/// 200 / (200 + 1024) = 16%; on the fine scale (fair.c's scale_load) it
/// is 102 / 1024 of a unit, and the 100 take their 1%.
#[test]
fn a_deep_crowded_group_keeps_its_share_on_the_fine_scale() {
    let gs = [
        top(100, 1),
        top(1, 0),
        G {
            parent: Some(1),
            weight: 100,
            tasks: vec![],
        },
        G {
            parent: Some(2),
            weight: 100,
            tasks: vec![100; 100],
        },
    ];
    check(&gs, &[100.0 / 101.0, 0.0, 0.0, 1.0 / 101.0]);
    // each task's weight is above the floor: it is the product, not the floor
    let (gw, act) = ([1024u64, 1024, 10], [100 * 1024u64, 1024, 1024]);
    let w = unsafe { ffi::arbor_cg_weight(1024, 3, gw.as_ptr(), act.as_ptr()) };
    assert_eq!(w, 102, "1024 << 10 * 1024/102400 * 1024/1024 * 10/1024");
}

/// The fine scale changes nothing for a weight of the 1024 scale shifted:
/// calc_delta_fair, its inverse and the deadline rules give the 1024
/// scale's results, without overflow for a long delta.
#[test]
fn fine_weights_of_whole_units_give_the_1024_scales_results() {
    unsafe {
        for w in [15u64, 335, 1024, 1991, 88761] {
            let fw = ffi::arbor_w_hi(w);
            assert_eq!(ffi::arbor_w_down(fw), w);
            for d in [0u64, 1, 999, 3_000_000, 123_456_789] {
                assert_eq!(ffi::arbor_calc_delta_fair_hi(d, fw), d * 1024 / w);
                assert_eq!(
                    ffi::arbor_slice_left_hi(0, d, fw, 0),
                    if d == 0 { 0 } else { d * w / 1024 }
                );
            }
        }
        // scale_load_down's floor of 2, and 0 kept
        assert_eq!((ffi::arbor_w_down(102), ffi::arbor_w_down(0)), (2, 0));
        // 10^17 ns at weight 3: delta * NICE_0 would overflow u64
        let d = 100_000_000_000_000_000u64;
        assert_eq!(
            ffi::arbor_calc_delta_fair_hi(d, ffi::arbor_w_hi(3)),
            (d as u128 * 1024 / 3) as u64
        );
    }
}

/// A task of the root counts in its CPU's load and in task_h_load exactly
/// as on the sched_ext scale (100 = nice 0) it had before the h weights:
/// runnable_avg * w / 100 and sum(w) * 1024 / 100, to the unit.
#[test]
fn h_loads_of_root_tasks_are_the_100_scales() {
    unsafe {
        for w in [1u32, 3, 15, 99, 100, 101, 335, 1024, 8672, 10000] {
            let hw = ffi::arbor_h_weight(w, 0);
            for r in [0u64, 1, 47, 512, 1001, 1023, 1024] {
                assert_eq!(ffi::arbor_h_load(r, hw), r * w as u64 / 100, "w {w} r {r}");
            }
        }
        let ws = [100u32, 100, 15, 8672, 1, 335, 99, 10000];
        for n in 0..=ws.len() {
            let (sum, hsum) = ws[..n].iter().fold((0u64, 0u64), |(s, h), &w| {
                (s + w as u64, h + ffi::arbor_h_weight(w, 0))
            });
            assert_eq!(
                ffi::arbor_h_cpu_load(hsum),
                sum * 1024 / 100,
                "{:?}",
                &ws[..n]
            );
        }
    }
}

/// fair.c's CPU load with groups (cfs_rq_load_avg of the root): a
/// top-level group of `tasks` nice-0 tasks, `here` of them on this CPU,
/// has an entity of tg->shares * here / tasks (calc_group_shares, every
/// task always runnable), and each of its tasks has task_h_load = the
/// entity's load / here. The flattened h weights give both, per task and
/// summed over a CPU: 6 tasks of /a and 2 of /b, both of weight 100, on
/// two CPUs holding 3 + 1 each are 1024 each (and a task of /a 1024/6),
/// where the tasks' own weights made 4 * 1024 each.
#[test]
fn h_loads_of_group_tasks_are_calc_group_shares_split() {
    // each group's flattened weight per task, every task runnable
    let fine = |gw: u32, n: u64| -> u64 {
        let (g, act) = (shares(gw), n * eevdf_w(100));
        unsafe { ffi::arbor_cg_weight(eevdf_w(100), 1, [g].as_ptr(), [act].as_ptr()) }
    };
    let r = 1024u64;
    for (gw, n) in [
        (100u32, 1u64),
        (100, 2),
        (100, 3),
        (100, 6),
        (300, 5),
        (100, 100),
        (10000, 7),
    ] {
        let hw = unsafe { ffi::arbor_h_weight(100, fine(gw, n)) };
        let want = shares(gw) * r / (n * 1024);
        let got = unsafe { ffi::arbor_h_load(r, hw) };
        // one unit of the 100 scale's rounding at most
        assert!(
            got.abs_diff(want) <= 1 + want / 100,
            "w {gw} n {n}: {got} against {want}"
        );
        for here in 0..=n {
            let sum = here * hw;
            let kernel = shares(gw) * here / n;
            let got = unsafe { ffi::arbor_h_cpu_load(sum) };
            assert!(
                got.abs_diff(kernel) <= 1 + kernel / 100,
                "w {gw}, {here} of {n}: {got} against fair.c's {kernel}"
            );
        }
    }
    let (a, b) = unsafe {
        (
            ffi::arbor_h_weight(100, fine(100, 6)),
            ffi::arbor_h_weight(100, fine(100, 2)),
        )
    };
    let cpu = unsafe { ffi::arbor_h_cpu_load(3 * a + b) };
    assert!(cpu.abs_diff(1024) <= 2, "3 of /a + 1 of /b: {cpu}");
    let own = unsafe { ffi::arbor_h_cpu_load(4 * ffi::arbor_h_weight(100, 0)) };
    assert_eq!(own, 4096, "the tasks' own weights");
    // a task of a crowded group keeps a load above 0
    let tiny = unsafe { ffi::arbor_h_weight(100, 2) };
    assert!(tiny >= 1);
}

/// migrate_task_rq_fair's move of a task's load, against a CPU load that
/// is a PELT average of the CPU's weight sum: a task of load `l` arriving
/// on a CPU settled at `v0` (or leaving it) shows in full at once: the
/// average plus the decaying move (on the fine scale) follows the average
/// of a CPU that had the new sum all along (fair.c's
/// attach_entity_load_avg) within 3% of a nice-0 task's load while the
/// average catches up (the average's own rounding, a unit a period, makes
/// it lag the exact decay of the move: 31 at most here, against 341 to
/// 1024 at once without the move), with nothing of the move left after a
/// second; the settled part and the rest add up to the move; a CPU's load
/// never goes below 0.
#[test]
fn a_moved_load_shows_at_once_and_hands_over_to_the_average() {
    unsafe {
        for (v0, l) in [
            (1024u64, 341i64),
            (2048, 1024),
            (683, -341),
            (1024, -1024),
            (0, 170),
        ] {
            let v1 = (v0 as i64 + l) as u64;
            let (mut avg, mut all_along) = (v0, v1);
            let (mut settled, mut moved, mut worst) = (0i64, l << 10, 0u64);
            for step in 0..1000u64 {
                let dt = 1_000_000 + step % 7 * 100_000;
                avg = ffi::arbor_pelt_accum(avg, dt, v1);
                all_along = ffi::arbor_pelt_accum(all_along, dt, v1);
                let s = moved - ffi::arbor_h_moved_decay(moved, dt);
                moved -= s;
                settled += s;
                let got = ffi::arbor_h_load_moved(avg, moved);
                worst = worst.max(got.abs_diff(all_along));
            }
            eprintln!(
                "v0 {v0} move {l}: at most {worst} from the load had it been there all along"
            );
            assert!(worst <= 32, "v0 {v0} move {l}: {worst} off");
            assert_eq!(settled + moved, l << 10);
            assert!(
                moved.abs() < 1 << 10,
                "v0 {v0} move {l}: {moved} left after 1 s"
            );
        }
        assert_eq!(ffi::arbor_h_load_moved(100, -341 << 10), 0);
        assert_eq!(ffi::arbor_h_load_moved(100, 341 << 10), 441);
        assert_eq!(ffi::arbor_h_moved_decay(-1000, 0), -1000);
        assert_eq!(ffi::arbor_h_moved_decay(1000, 32 << 20), 500);
    }
}
