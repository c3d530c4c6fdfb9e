//! What a wake-up latency probe measures: the interval from the waker's
//! wake-up call to the wakee's own code running again (schbench: the
//! gettimeofday at the start of `xlist_wake_all`, then the worker's
//! gettimeofday after `fwait` returns). Every cost below is one the cost
//! model already has (docs/sim/cost-model.md); these tests check that the
//! interval holds the ones that precede the wakee's code.

use super::*;

/// a (CPU 0) wakes b (blocked, pinned to idle CPU 1) then c (pinned to
/// idle CPU 2) in one step, as schbench's message thread wakes its posted
/// workers. try_to_wake_up runs on the waker (`wakeup_ns` each) before it
/// sends the IPI; the wakee then pays the context switch before its code
/// runs. So b resumes wakeup + ipi + ctx after the batch's start, and c the
/// same after its own wake-up, which comes one `wakeup_ns` after b's (its
/// fpost comes after b's; core/wake_batch.rs): 2 wakeup + ipi + ctx after
/// the batch's start.
#[test]
fn wake_latency_holds_the_wakers_work_the_ipi_and_the_switch() {
    let (wake, ipi, ctx) = (500, 1000, 1000);
    let cost = CostModel {
        wakeup_ns: wake as f64,
        ipi_ns: ipi as f64,
        ctx_switch_ns: ctx as f64,
        ..zero_cost()
    };
    let mut s = Sched::local();
    let mut w = Script::new()
        .task_at(
            "a",
            0,
            Some(vec![0]),
            &[Act::Run(MS), Act::Wake(1, false), Act::Wake(2, false)],
        )
        .task_at("b", 0, Some(vec![1]), &[Act::Block, Act::Run(MS)])
        .task_at("c", 0, Some(vec![2]), &[Act::Block, Act::Run(MS)]);
    let (_c, stop) = run_with(flat(3), cost, cfg(), &mut s, &mut w);
    stopped_ok(&stop);
    // the last sample of each (the first is its start, a fork's wake-up)
    let sample = |t: TaskId| {
        let v: Vec<(Ns, Ns)> = w
            .resumed
            .iter()
            .filter(|r| r.0 == t)
            .map(|r| (r.1, r.2))
            .collect();
        assert_eq!(v.len(), 2, "task {t}: {:?}", w.resumed);
        v[1]
    };
    let ((b_woken, b_ran), (c_woken, c_ran)) = (sample(1), sample(2));
    assert_eq!(b_ran - b_woken, wake + ipi + ctx, "b");
    assert_eq!(c_woken - b_woken, wake, "c's wake-up after b's");
    assert_eq!(c_ran - b_woken, 2 * wake + ipi + ctx, "c");
}
