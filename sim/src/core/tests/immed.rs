//! SCX_ENQ_IMMED (immed.rs): a local insert that must run at once, else
//! goes back through ops.enqueue (ext.c dsq_inc_nr, rq_is_open,
//! reenq_local, local_task_should_reenq; Linux 7.2).

use super::*;

/// select_cpu that puts every task on CPU `cpu`'s local DSQ with
/// SCX_ENQ_IMMED (scx_cosmos's direct_dispatch_local, main.bpf.c:1282).
fn immed_on(cpu: usize) -> Option<SelectFn> {
    Some(Box::new(move |c: &mut Core, t, _prev, _f| {
        c.kf_dsq_insert(
            t,
            abi::SCX_DSQ_LOCAL,
            abi::SCX_SLICE_DFL,
            None,
            abi::SCX_ENQ_IMMED,
        );
        cpu as i32
    }))
}

/// ops.enqueue calls for `t` with SCX_ENQ_REENQ at or after `from`.
fn reenqueues(log: &Log, t: TaskId, from: Ns) -> usize {
    calls(log, |r| {
        r.at >= from
            && matches!(r.call, Call::Enqueue { t: x, flags } if x == t && flags & abi::SCX_ENQ_REENQ != 0)
    })
    .len()
}

/// ext.c:1415-1416, 4290-4296: an IMMED insert onto a busy CPU's local DSQ
/// (CPU 0 runs `busy`, not in balance, no SCX_ENQ_PREEMPT: rq_is_open is
/// false) is taken back out and given to ops.enqueue with SCX_ENQ_REENQ;
/// the FIFO scheduler then queues it on SHARED, where the idle CPU 1,
/// kicked, runs it at once instead of it waiting 4 ms behind `busy`.
#[test]
fn immed_insert_onto_a_busy_cpu_is_reenqueued_through_ops_enqueue() {
    let mut s = Sched::fifo_kick();
    s.select = immed_on(0);
    s.enqueue = Some(Box::new(|c: &mut Core, t, f| {
        insert_kick(c, t, SHARED, abi::SCX_SLICE_DFL, None, 0);
        if f & abi::SCX_ENQ_REENQ != 0 {
            c.kf_kick_cpu(1, abi::SCX_KICK_IDLE);
        }
    }));
    let mut w = Script::new()
        .task_at("busy", 0, Some(vec![0]), &[Act::Run(5 * MS)])
        .task_at("x", MS, None, &[Act::Run(MS)]);
    let (core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(reenqueues(&s.log, 1, 0), 1, "{:?}", of_task(&s.log, 1));
    assert_eq!(core.stats.reenq_immed, 1);
    assert_eq!(runs_of(&s.log, 1), [(MS, 1)]);
}

/// ext.c:1415 (rq_is_open: an idle CPU's next class is below ext): an
/// IMMED insert onto an idle CPU's empty local DSQ stays and runs there at
/// once; ops.enqueue is never called for it.
#[test]
fn immed_insert_onto_an_idle_cpu_runs_there() {
    let mut s = Sched::fifo_kick();
    s.select = immed_on(1);
    let mut w = Script::new()
        .task_at("busy", 0, Some(vec![0]), &[Act::Run(5 * MS)])
        .task_at("x", MS, None, &[Act::Run(MS)]);
    let (core, stop) = run(flat(2), &mut s, &mut w);
    stopped_ok(&stop);
    assert_eq!(runs_of(&s.log, 1), [(MS, 1)]);
    assert!(calls(&s.log, |r| matches!(r.call, Call::Enqueue { t: 1, .. })).is_empty());
    assert_eq!(core.stats.reenq_immed, 0);
}

/// ext.c:1415 (dsq->nr > 1) and 4281-4296: two tasks woken one after the
/// other onto one idle CPU with IMMED, the second before the IPI of the
/// first has reached it (a wake-up costs 500 ns, the IPI 1 us): the second
/// insert finds the local DSQ holding another task; at the re-enqueue the
/// CPU is no longer open (the first wake-up raised its next class to ext),
/// so both go back through ops.enqueue, and neither waits in the local DSQ.
#[test]
fn two_immed_inserts_onto_one_cpu_are_both_reenqueued() {
    let mut s = Sched::fifo_kick();
    s.select = immed_on(1);
    s.enqueue = Some(Box::new(|c: &mut Core, t, _f| {
        c.kf_dsq_insert(t, SHARED, abi::SCX_SLICE_DFL, None, 0);
        for cpu in 1..4 {
            c.kf_kick_cpu(cpu, abi::SCX_KICK_IDLE);
        }
    }));
    let mut w = Script::new()
        .task_at(
            "waker",
            0,
            Some(vec![0]),
            &[Act::Run(MS), Act::Wake(1, false), Act::Wake(2, false)],
        )
        .task_at("a", 0, None, &[Act::Block, Act::Run(MS)])
        .task_at("b", 0, None, &[Act::Block, Act::Run(MS)]);
    let cost = CostModel {
        wakeup_ns: 500.0,
        ipi_ns: 1000.0,
        ..zero_cost()
    };
    let (core, stop) = run_with(flat(4), cost, cfg(), &mut s, &mut w);
    stopped_ok(&stop);
    // (their forks at 0 went through the same path; the wake-ups at 1 ms)
    assert_eq!(reenqueues(&s.log, 1, MS), 1, "{:?}", of_task(&s.log, 1));
    assert_eq!(reenqueues(&s.log, 2, MS), 1, "{:?}", of_task(&s.log, 2));
    assert!(core.stats.reenq_immed >= 2);
}

/// scx_vet_enq_flags (ext.c:8835-8843): SCX_ENQ_IMMED on a DSQ that is
/// not local is a scheduler error.
#[test]
fn immed_on_a_non_local_dsq_ejects() {
    let mut s = Sched::fifo_kick();
    s.select = Some(Box::new(|c: &mut Core, t, prev, _f| {
        c.kf_dsq_insert(t, SHARED, abi::SCX_SLICE_DFL, None, abi::SCX_ENQ_IMMED);
        prev as i32
    }));
    let mut w = Script::new().task_at("x", MS, None, &[Act::Run(MS)]);
    let (_core, stop) = run(flat(2), &mut s, &mut w);
    assert!(
        ejected(&stop).contains("SCX_ENQ_IMMED on a non-local DSQ"),
        "{stop:?}"
    );
}
