//! Built-in idle tracking (ext-semantics.md item 8a; checklist 32-35).

use super::*;

fn set_of(m: &abi::CpuMask, n: usize) -> Vec<usize> {
    (0..n).filter(|&c| m.test(c)).collect()
}

/// (time, idle CPUs, SMT-idle CPUs) seen from ops.tick of task 0.
type Masks = Rc<RefCell<Vec<(Ns, Vec<usize>, Vec<usize>)>>>;

fn record_masks(s: &mut Sched) -> Masks {
    let seen: Masks = cell();
    let sn = seen.clone();
    s.tick = Some(Box::new(move |c: &mut Core, t| {
        if t == 0 {
            let n = c.nr_cpus();
            sn.borrow_mut()
                .push((c.now, set_of(&c.idle_mask, n), set_of(&c.smt_mask, n)));
        }
    }));
    seen
}

/// idle.c:710-733 (checklist 32, 34): a CPU's idle bit is clear while it
/// runs a task; a core's CPUs are in the SMT mask only while all of its
/// siblings are idle (1s2c2t: CPUs 0-1 and 2-3 are cores): CPU 1 going
/// idle beside a busy CPU 0 leaves the mask alone; CPU 2 going idle beside
/// an idle CPU 3 puts core 2-3 in it.
#[test]
fn idle_and_smt_masks_follow_running_cpus() {
    let mut s = Sched::local();
    let seen = record_masks(&mut s);
    let mut w = Script::new()
        .task_at("a", 0, Some(vec![0]), &[Act::Run(2500 * US)])
        .task_at("b", 0, Some(vec![2]), &[Act::Run(1500 * US)])
        .task_at("c", 0, Some(vec![1]), &[Act::Run(500 * US)]);
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(
        *seen.borrow(),
        [
            (MS, vec![1, 3], vec![]),
            (2 * MS, vec![1, 2, 3], vec![2, 3]),
        ]
    );
}

/// idle.c:79-110, 1295-1312 (checklist 34): scx_bpf_test_and_clear_cpu_idle
/// succeeds once on an idle CPU, clears its idle bit and its whole core
/// from the SMT mask; the bit stays clear (the CPU is not busy) until the
/// CPU next goes through the idle hooks.
#[test]
fn test_and_clear_cpu_idle_claims_once() {
    let mut s = Sched::local();
    let got = cell::<Vec<(bool, bool, Vec<usize>, Vec<usize>)>>();
    let g = got.clone();
    s.tick = Some(Box::new(move |c: &mut Core, _t| {
        let n = c.nr_cpus();
        if c.now == MS {
            let first = c.kf_test_and_clear_idle(2);
            let second = c.kf_test_and_clear_idle(2);
            g.borrow_mut().push((
                first,
                second,
                set_of(&c.idle_mask, n),
                set_of(&c.smt_mask, n),
            ));
        } else if c.now == 2 * MS {
            g.borrow_mut().push((
                false,
                false,
                set_of(&c.idle_mask, n),
                set_of(&c.smt_mask, n),
            ));
        }
    }));
    let mut w = Script::new().task_at("a", 0, Some(vec![0]), &[Act::Run(3 * MS)]);
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(
        *got.borrow(),
        [
            (true, false, vec![1, 3], vec![]),
            (false, false, vec![1, 3], vec![]),
        ]
    );
    // CPU 2 was never busy: no update_idle for it after the start
    assert_eq!(
        calls(&s.log, |r| r.call
            == Call::UpdateIdle {
                cpu: 2,
                idle: false
            }),
        []
    );
}

/// kidle.c:504-508, idle.c:751-791 (checklist 32, 33): a claimed CPU that
/// is kicked and finds nothing to run sets its idle bit again (an
/// idle-to-idle re-pick), without calling ops.update_idle.
#[test]
fn kicked_idle_cpu_finding_nothing_is_idle_again_without_update_idle() {
    let mut s = Sched::local();
    let got = cell::<Vec<(Ns, Vec<usize>)>>();
    let g = got.clone();
    s.tick = Some(Box::new(move |c: &mut Core, _t| {
        let n = c.nr_cpus();
        if c.now == MS {
            c.kf_test_and_clear_idle(2);
            c.kf_kick_cpu(2, 0);
        }
        g.borrow_mut().push((c.now, set_of(&c.idle_mask, n)));
    }));
    let mut w = Script::new().task_at("a", 0, Some(vec![0]), &[Act::Run(2500 * US)]);
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(*got.borrow(), [(MS, vec![1, 3]), (2 * MS, vec![1, 2, 3])]);
    // it went through ops.dispatch, but not through ops.update_idle
    assert!(!calls(&s.log, |r| r.call == Call::Dispatch { cpu: 2, prev: None }).is_empty());
    assert_eq!(
        calls(&s.log, |r| matches!(
            r.call,
            Call::UpdateIdle { cpu: 2, .. }
        ))
        .len(),
        0,
        "no update_idle for CPU 2: idle since the start (never notified) and kicked idle again"
    );
}

/// idle.c:115-138, 1376-1396 (checklist 35): scx_bpf_pick_idle_cpu picks a
/// CPU of a fully idle core first, within the mask it is given, and claims
/// it; with SCX_PICK_IDLE_CORE it returns -EBUSY when no whole core is
/// idle; with no idle CPU left, -EBUSY.
#[test]
fn pick_idle_cpu_prefers_whole_idle_cores() {
    let mut s = Sched::local();
    let got = cell::<Vec<i32>>();
    let g = got.clone();
    s.tick = Some(Box::new(move |c: &mut Core, _t| {
        if c.now != MS {
            return;
        }
        let mut all = abi::CpuMask::empty();
        let mut only1 = abi::CpuMask::empty();
        for cpu in 0..4 {
            all.set(cpu, true);
        }
        only1.set(1, true);
        let mut v = g.borrow_mut();
        // CPU 1 is idle, but its sibling 0 is busy: not a whole idle core
        v.push(c.kf_pick_idle(&only1, abi::SCX_PICK_IDLE_CORE));
        v.push(c.kf_pick_idle(&all, 0));
        v.push(c.kf_pick_idle(&all, abi::SCX_PICK_IDLE_CORE));
        v.push(c.kf_pick_idle(&all, 0));
        v.push(c.kf_pick_idle(&all, 0));
        v.push(c.kf_pick_idle(&all, 0));
    }));
    let mut w = Script::new().task_at("a", 0, Some(vec![0]), &[Act::Run(2 * MS)]);
    let (_core, stop) = run(preset("1s2c2t"), &mut s, &mut w);
    stopped_ok(&stop);
    let v = got.borrow().clone();
    let ebusy = -libc::EBUSY;
    assert_eq!(v.len(), 6);
    assert_eq!(v[0], ebusy);
    assert!(v[1] == 2 || v[1] == 3, "{v:?}");
    assert_eq!(v[2], ebusy);
    let mut rest = vec![v[1], v[3], v[4]];
    rest.sort();
    assert_eq!(rest, [1, 2, 3]);
    assert_eq!(v[5], ebusy);
}

/// idle.c:751-791, kidle.c:483-502 (checklist 33): ops.update_idle(cpu,
/// true) when a CPU goes from a task to idle, (cpu, false) when it leaves
/// idle for a task; a switch from one task to another is not a transition.
#[test]
fn update_idle_on_real_transitions_only() {
    let mut s = Sched::local();
    let mut w = Script::new()
        .task("a", &[Act::Run(MS), Act::Sleep(2 * MS), Act::Run(MS)])
        .task("b", &[Act::Run(MS)]);
    let (_core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    let ups: Vec<(Ns, bool)> = calls(&s.log, |r| matches!(r.call, Call::UpdateIdle { .. }))
        .into_iter()
        .map(|r| match r.call {
            Call::UpdateIdle { idle, .. } => (r.at, idle),
            _ => unreachable!(),
        })
        .collect();
    // nothing at the start (every CPU starts idle in the masks, but
    // ext.c notifies only transitions), a runs at 0, b takes over at 1 ms
    // with no transition, idle at 2 ms, a again at 3 ms, idle at 4 ms
    assert_eq!(
        ups,
        [(0, false), (2 * MS, true), (3 * MS, false), (4 * MS, true)]
    );
}

/// idle.c:788-790 (checklist 32, 33): ops.update_idle runs after the
/// built-in masks were updated, so it sees its CPU's idle bit as `idle`.
#[test]
fn update_idle_sees_the_masks_already_updated() {
    let mut s = Sched::local();
    let seen = cell::<Vec<(bool, bool)>>();
    let sn = seen.clone();
    s.update_idle = Some(Box::new(move |c: &mut Core, cpu, idle| {
        sn.borrow_mut().push((idle, c.idle_mask.test(cpu)));
    }));
    let mut w = Script::new().task("a", &[Act::Run(MS), Act::Sleep(MS), Act::Run(MS)]);
    let (_core, stop) = run(flat(1), &mut s, &mut w);
    stopped_ok(&stop);
    let v = seen.borrow();
    assert!(v.len() >= 4, "{v:?}");
    assert!(v.iter().all(|&(idle, bit)| idle == bit), "{v:?}");
}

/// lib/cpumask.c cpumask_any_and_distribute(), as idle.c's pick uses it: a
/// per-CPU cursor, so successive picks from one CPU go round the idle CPUs
/// (the first skips CPU 0), and another CPU has a cursor of its own.
#[test]
fn pick_idle_cpu_distributes_from_each_cpus_last_pick() {
    let mut s = Sched::local();
    let got = cell::<Vec<i32>>();
    let g = got.clone();
    s.tick = Some(Box::new(move |c: &mut Core, _t| {
        if c.now != MS {
            return;
        }
        let mut all = abi::CpuMask::empty();
        for cpu in 0..6 {
            all.set(cpu, true);
        }
        let mut v = g.borrow_mut();
        c.this_cpu = 0;
        v.push(c.kf_pick_idle(&all, 0));
        v.push(c.kf_pick_idle(&all, 0));
        // CPU 4's own cursor starts at 0 too: it skips 0 and the claimed 1, 2
        c.this_cpu = 4;
        v.push(c.kf_pick_idle(&all, 0));
        c.this_cpu = 0;
        v.push(c.kf_pick_idle(&all, 0));
    }));
    let mut w = Script::new().task_at("a", 0, Some(vec![0]), &[Act::Run(2 * MS)]);
    let (_core, stop) = run(flat(6), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(*got.borrow(), [1, 2, 3, 4]);
}
