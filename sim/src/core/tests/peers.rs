//! The kfuncs the peers use (core/peers.rs): scx_bpf_select_cpu_and /
//! scx_bpf_select_cpu_dfl (scx_select_cpu_dfl, ext-semantics.md 8b) and
//! SCX_ENQ_CPU_SELECTED (item 1).

use super::*;
use crate::abi::CpuMask;

/// What select_cpu saw and got: (prev, wake flags, idle CPUs, CPUs of
/// whole idle cores, the result).
type Seen = Rc<RefCell<Vec<(usize, u64, Vec<usize>, Vec<usize>, i32)>>>;

/// A FIFO scheduler whose select_cpu is the kernel's default one
/// (scx_bpf_select_cpu_and with the task's own cpumask), direct-dispatching
/// to a CPU it returns, as bpfland and scx_simple do.
fn dfl_sched(flags: u64) -> (Sched, Seen) {
    dfl_sched_with(flags, 0)
}

/// dfl_sched, passing `pick` (SCX_PICK_*) to scx_bpf_select_cpu_and.
fn dfl_sched_with(flags: u64, pick: u64) -> (Sched, Seen) {
    let mut s = Sched::fifo();
    s.flags = flags;
    let seen: Seen = cell();
    let sn = seen.clone();
    s.select = Some(Box::new(move |c: &mut Core, t, prev, wf| {
        let n = c.nr_cpus();
        let idle: Vec<usize> = (0..n).filter(|&x| c.idle_mask.test(x)).collect();
        let smt: Vec<usize> = (0..n).filter(|&x| c.smt_mask.test(x)).collect();
        let r = c.kf_select_cpu_and(t, prev as i32, wf, None, pick);
        sn.borrow_mut().push((prev, wf, idle, smt, r));
        if r >= 0 {
            c.kf_dsq_insert(t, abi::SCX_DSQ_LOCAL, abi::SCX_SLICE_DFL, None, 0);
            r
        } else {
            prev as i32
        }
    }));
    (s, seen)
}

/// Tasks that run and sleep in staggered patterns (timer wake-ups, no
/// WF_SYNC), more of them than CPUs at times.
fn sleepers(n: usize) -> Script {
    let mut w = Script::new();
    for i in 0..n {
        let mut acts = Vec::new();
        for k in 0..20 {
            acts.push(Act::Run((100 + 37 * ((i + k) % 7) as u64) * US));
            acts.push(Act::Sleep((150 + 53 * ((i * 3 + k) % 5) as u64) * US));
        }
        w = w.task(&format!("s{i}"), &acts);
    }
    w
}

/// ext_idle.c scx_select_cpu_dfl, steps 3-8, on a machine where every CPU
/// shares one LLC (1s2c2t: topo_llc off): prev if its whole core is idle;
/// else a CPU of a whole idle core; else prev if idle; else an idle SMT
/// sibling of prev; else any idle CPU; -EBUSY only when none is idle.
#[test]
fn select_cpu_dfl_prefers_prev_core_then_idle_core_then_prev() {
    let (mut s, seen) = dfl_sched(0);
    let mut w = sleepers(7);
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    let seen = seen.borrow();
    let sib = |c: usize| c ^ 1; // 1s2c2t: cores 0-1 and 2-3
    let (mut by_core, mut busy) = (0, 0);
    for (prev, wf, idle, smt, r) in seen.iter() {
        assert_eq!(wf & abi::SCX_WAKE_SYNC, 0);
        let want: Vec<i32> = if smt.contains(prev) {
            vec![*prev as i32]
        } else if !smt.is_empty() {
            by_core += 1;
            smt.iter().map(|&c| c as i32).collect()
        } else if idle.contains(prev) {
            vec![*prev as i32]
        } else if idle.contains(&sib(*prev)) {
            vec![sib(*prev) as i32]
        } else if !idle.is_empty() {
            idle.iter().map(|&c| c as i32).collect()
        } else {
            busy += 1;
            vec![-libc::EBUSY]
        };
        assert!(
            want.contains(r),
            "prev {prev}, idle {idle:?}, whole idle cores {smt:?}: got {r}, want one of {want:?}"
        );
    }
    // the workload reaches the interesting branches
    assert!(seen.len() > 100, "{} selects", seen.len());
    assert!(
        by_core > 0 && busy > 0,
        "whole-core picks {by_core}, all busy {busy}"
    );
}

/// ext_idle.c scx_select_cpu_dfl step 2 (WF_SYNC): with prev busy, the
/// waker's local DSQ empty and an idle CPU in the system, the wakee goes to
/// the waker's CPU, busy as it is.
#[test]
fn select_cpu_dfl_sync_wakeup_goes_to_the_waker_cpu() {
    let (mut s, seen) = dfl_sched(0);
    // the wakee runs on CPU 2's core first, then blocks; a spinner keeps
    // CPU 2 (its prev) busy; the waker, pinned to CPU 0, wakes it with
    // WF_SYNC at 1 ms while CPUs 1 and 3 are idle
    let mut w = Script::new()
        .task_at(
            "waker",
            0,
            Some(vec![0]),
            &[Act::Run(MS), Act::Wake(1, true), Act::Run(MS)],
        )
        .task_at(
            "wakee",
            0,
            Some(vec![2, 0, 1, 3]),
            &[Act::Run(100 * US), Act::Block, Act::Run(100 * US)],
        )
        .task_at("spin", 200 * US, Some(vec![2]), &[Act::Run(3 * MS)]);
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    let seen = seen.borrow();
    let sync: Vec<_> = seen
        .iter()
        .filter(|x| x.1 & abi::SCX_WAKE_SYNC != 0)
        .collect();
    assert_eq!(sync.len(), 1, "{seen:?}");
    let (prev, _, idle, _, r) = sync[0];
    assert!(!idle.contains(prev), "prev {prev} should be busy: {seen:?}");
    assert!(!idle.is_empty());
    assert_eq!(*r, 0, "the waker's CPU: {seen:?}");
}

/// core.c ttwu_do_activate (item 1): ops.enqueue of a ttwu wake-up whose
/// CPU the class chose carries SCX_ENQ_CPU_SELECTED; a fork's first
/// enqueue and a pinned task's wake-up do not.
#[test]
fn enqueue_after_select_carries_cpu_selected() {
    let mut s = Sched::fifo_queued();
    let mut w = Script::new()
        .task("free", &[Act::Run(MS), Act::Sleep(MS), Act::Run(MS)])
        .task_at(
            "pinned",
            0,
            Some(vec![1]),
            &[Act::Run(MS), Act::Sleep(MS), Act::Run(MS)],
        );
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    let enq = |t: TaskId| -> Vec<u64> {
        calls(
            &s.log,
            |r| matches!(r.call, Call::Enqueue { t: x, .. } if x == t),
        )
        .iter()
        .map(|r| match r.call {
            Call::Enqueue { flags, .. } => flags & abi::SCX_ENQ_CPU_SELECTED,
            _ => unreachable!(),
        })
        .collect()
    };
    assert_eq!(enq(0), vec![0, abi::SCX_ENQ_CPU_SELECTED]);
    assert_eq!(enq(1), vec![0, 0]);
}

/// ext_idle.c pick_idle_cpu_in_node: SCX_PICK_IDLE_CORE only narrows the
/// search when SMT is active; on a machine without SMT (flat(4)) a select
/// with it still gets any idle CPU, and -EBUSY only when none is idle.
#[test]
fn pick_idle_core_without_smt_takes_any_idle_cpu() {
    let (mut s, seen) = dfl_sched_with(0, abi::SCX_PICK_IDLE_CORE);
    let mut w = sleepers(6);
    let (_core, stop) = run(flat(4), &mut s, &mut w);
    stopped_ok(&stop);
    let seen = seen.borrow();
    let mut prev_busy = 0;
    for (prev, _, idle, _, r) in seen.iter() {
        if idle.is_empty() {
            assert_eq!(*r, -libc::EBUSY);
        } else {
            assert!(
                *r >= 0 && idle.contains(&(*r as usize)),
                "prev {prev}, idle {idle:?}: got {r}"
            );
            prev_busy += !idle.contains(prev) as usize;
        }
    }
    assert!(
        prev_busy > 0,
        "no select with prev busy and an idle CPU elsewhere"
    );
}

/// bpf_cpumask_any_distribute (lib/cpumask.c cpumask_any_distribute): the
/// next CPU of the mask after this CPU's previous pick, wrapping; the
/// cursor moves only on a hit; nr_cpu_ids for an empty mask.
#[test]
fn any_distribute_rotates_through_the_mask() {
    let mut c = Core::new(flat(4), zero_cost(), cfg()).unwrap();
    let mut m = CpuMask::empty();
    m.set(1, true);
    m.set(3, true);
    // CPU 0's cursor starts at 0: the first pick is after it
    let picks: Vec<u32> = (0..4).map(|_| c.kf_any_distribute(&m)).collect();
    assert_eq!(picks, [1, 3, 1, 3]);
    assert_eq!(c.kf_any_distribute(&CpuMask::empty()), 4);
    // an empty mask leaves the cursor: the next pick follows 3
    assert_eq!(c.kf_any_distribute(&m), 1);
}

/// bpf_get_prandom_u32: one stream per run from its seed: the same seed
/// draws the same numbers, another seed others.
#[test]
fn prandom_follows_the_seed() {
    let draws = |seed| {
        let mut c = Core::new(flat(2), zero_cost(), Config { seed, ..cfg() }).unwrap();
        (0..8).map(|_| c.kf_prandom()).collect::<Vec<u32>>()
    };
    assert_eq!(draws(1), draws(1));
    assert_ne!(draws(1), draws(2));
    let d = draws(1);
    assert!(d.windows(2).all(|w| w[0] != w[1]), "{d:?}");
}

/// bpf_task_from_pid: a live task by pid; an exited one is gone (NULL).
#[test]
fn task_from_pid_finds_live_tasks_only() {
    let found: Rc<RefCell<Vec<(Option<TaskId>, Option<TaskId>)>>> = cell();
    let f = found.clone();
    let mut s = Sched::fifo();
    s.select = Some(Box::new(move |c: &mut Core, t, prev, _wf| {
        let me = c.tasks[t].ts.pid;
        f.borrow_mut()
            .push((c.kf_task_from_pid(me), c.kf_task_from_pid(-5)));
        prev as i32
    }));
    let mut w = Script::new()
        .task("a", &[Act::Run(MS), Act::Sleep(MS), Act::Run(MS)])
        .task("b", &[Act::Run(MS)]);
    let (core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let f = found.borrow();
    assert!(!f.is_empty());
    assert!(f.iter().all(|&(me, none)| me.is_some() && none.is_none()));
    // after the run both exited: no task answers to their pids
    for t in 0..2 {
        assert_eq!(core.kf_task_from_pid(core.tasks[t].ts.pid), None);
    }
}

// ---- scx_cosmos: scx_bpf_cpu_curr ----

/// scx_bpf_cpu_curr (ext.c:10527-10541): rq->curr. From the enqueue of a
/// task woken while CPU 0 runs `busy` and CPU 1 is idle: CPU 0's curr is
/// `busy` (no PF_IDLE), CPU 1's is its idle task (PF_IDLE | PF_KTHREAD);
/// an invalid CPU is a scheduler error.
#[test]
fn cpu_curr_is_the_running_task_or_the_idle_task() {
    let mut s = Sched::fifo_kick();
    let seen: Rc<RefCell<Vec<(bool, u32, bool, u32)>>> = cell();
    let sn = seen.clone();
    s.enqueue = Some(Box::new(move |c: &mut Core, t, _f| {
        if c.now == MS {
            let busy = c.task_ptr(0);
            let (p0, p1) = (c.kf_cpu_curr(0), c.kf_cpu_curr(1));
            // SAFETY: both point at live task_structs of the core
            let (f0, f1) = unsafe { ((*p0).flags, (*p1).flags) };
            sn.borrow_mut()
                .push((p0 == busy, f0, p1 == c.task_ptr(1), f1));
        }
        insert_kick(c, t, SHARED, abi::SCX_SLICE_DFL, None, 0);
    }));
    let mut w = Script::new()
        .task_at("busy", 0, Some(vec![0]), &[Act::Run(5 * MS)])
        .task_at("x", MS, Some(vec![0, 1]), &[Act::Run(MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    let v = seen.borrow();
    assert_eq!(v.len(), 1, "{v:?}");
    let (is_busy, f0, is_x, f1) = v[0];
    assert!(is_busy && f0 & abi::PF_IDLE == 0, "{v:?}");
    assert!(
        !is_x && f1 & abi::PF_IDLE != 0 && f1 & abi::PF_KTHREAD != 0,
        "{v:?}"
    );

    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        c.kf_cpu_curr(7);
        insert_kick(c, t, SHARED, abi::SCX_SLICE_DFL, None, 0);
    }));
    let mut w = Script::new().task_at("x", MS, None, &[Act::Run(MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    assert!(ejected(&stop).contains("invalid CPU 7"), "{stop:?}");
}

// ---- scx_cosmos: scx_bpf_pick_idle_cpu_node ----

/// scx_bpf_pick_idle_cpu_node (idle.c:1334-1351, validate_node 840-864):
/// with per-node idle tracking, an idle CPU of the node asked for (claimed:
/// a second pick does not return it), -ENOENT for NUMA_NO_NODE; without
/// per-node tracking, a scheduler error.
#[test]
fn pick_idle_cpu_node_picks_in_the_node_and_needs_per_node_tracking() {
    let mut s = Sched::fifo_kick();
    s.flags = abi::SCX_OPS_BUILTIN_IDLE_PER_NODE;
    let seen: Rc<RefCell<Vec<(i32, i32, i32, usize)>>> = cell();
    let sn = seen.clone();
    s.enqueue = Some(Box::new(move |c: &mut Core, t, _f| {
        if sn.borrow().is_empty() {
            let all = *c.all_mask;
            let a = c.kf_pick_idle_cpu_node(&all, 1, 0);
            let b = c.kf_pick_idle_cpu_node(&all, 1, 0);
            let none = c.kf_pick_idle_cpu_node(&all, -1, 0);
            let node_of_a = c.cpu_node[a.max(0) as usize];
            sn.borrow_mut().push((a, b, none, node_of_a));
        }
        insert_kick(c, t, SHARED, abi::SCX_SLICE_DFL, None, 0);
    }));
    let mut w = Script::new().task_at("x", MS, None, &[Act::Run(MS)]);
    let (_core, stop) = run(preset("2s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    let v = seen.borrow();
    let (a, b, none, node) = v[0];
    assert!(a >= 0 && b >= 0 && a != b && node == 1, "{v:?}");
    assert_eq!(none, -libc::ENOENT);

    let mut s = Sched::fifo_kick();
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        let all = *c.all_mask;
        c.kf_pick_idle_cpu_node(&all, 0, 0);
        insert_kick(c, t, SHARED, abi::SCX_SLICE_DFL, None, 0);
    }));
    let mut w = Script::new().task_at("x", MS, None, &[Act::Run(MS)]);
    let (_core, stop) = run(preset("2s2c2t"), &mut s, &mut w);
    assert!(
        ejected(&stop).contains("per-node idle tracking is disabled"),
        "{stop:?}"
    );
}

/// scx_bpf_dsq_peek (ext.c:9911-9933): the first task of a user DSQ (NULL
/// when empty); a built-in DSQ or one that does not exist is an error.
#[test]
fn dsq_peek_refuses_builtin_and_missing_dsqs() {
    let mut c = Core::new(flat(2), zero_cost(), cfg()).unwrap();
    assert_eq!(c.kf_create_dsq(7, -1), 0);
    assert_eq!(c.kf_dsq_peek(7), None);
    assert!(c.stop.is_none(), "{:?}", c.stop);
    for (dsq, want) in [
        (abi::SCX_DSQ_GLOBAL, "peek disallowed on builtin DSQ"),
        (8, "peek on non-existent DSQ 0x8"),
    ] {
        let mut c = Core::new(flat(2), zero_cost(), cfg()).unwrap();
        assert_eq!(c.kf_dsq_peek(dsq), None);
        match &c.stop {
            Some(Stop::Ejected(m)) => assert!(m.contains(want), "{m}"),
            s => panic!("{dsq:#x}: {s:?}"),
        }
        assert_eq!(c.exit_kind, abi::SCX_EXIT_ERROR);
    }
}
