//! One simulation: a machine, a scheduler, a workload, a seed -> numbers.

use anyhow::Result;
use serde::Serialize;

use crate::core::{Config, Core, Stop};
use crate::cost::CostModel;
use crate::machine::Machine;
use crate::sched::SchedSpec;
use crate::workload::{spec as wspec, Metric, Ns, Workload};
use scx_arbor::knobs::Knobs;

/// The callbacks that load and unload the scheduler, once per run: left out
/// of the per-wake-up cost (bpf_ns_per_wakeup).
const LOAD_OPS: &[&str] = &["init", "exit"];

pub struct RunSpec<'a> {
    pub machine: &'a Machine,
    pub cost: &'a CostModel,
    pub cfg: Config,
    pub sched: &'a SchedSpec,
    pub knobs: &'a Knobs,
    pub workload: &'a str,
    pub seed: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// "finished", "time limit", or why the run stopped early.
    pub stop: String,
    pub ok: bool,
    pub ejected: bool,
    pub sim_ns: Ns,
    /// Callbacks + task state changes: the unit for speed figures.
    pub events: u64,
    pub callbacks: u64,
    pub state_changes: u64,
    /// Entries taken from the event queue.
    pub queue_events: u64,
    /// CPU time the run took on its host thread (not deterministic: kept
    /// out of results.json).
    #[serde(skip)]
    pub cpu_s: f64,
    /// The workload's metrics, then the simulator's own measures.
    pub metrics: Vec<Metric>,
    /// The scheduler's own counters (scx_arbor's --stats-json names).
    pub counters: Vec<(String, u64)>,
    /// (cpu, task name, start ns, duration ns) of each run, with --trace.
    #[serde(skip)]
    pub trace: Vec<(usize, String, Ns, Ns)>,
    /// Per callback: (name, calls, BPF ns charged), and the wake-ups.
    #[serde(skip)]
    pub bpf_ops: Vec<(String, u64, f64)>,
    #[serde(skip)]
    pub wakeups: u64,
    /// IMMED tasks the core sent back through ops.enqueue (core/immed.rs).
    #[serde(skip)]
    pub reenq_immed: u64,
    /// bpf_timer_start calls (each arming of a BPF timer).
    #[serde(skip)]
    pub timers_armed: u64,
    /// The scheduler's exits that asked for a restart, each followed by a
    /// reload (CPU hotplug without ops.cpu_online/offline: core/hotplug.rs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub restarts: Vec<Restart>,
    /// CPU hotplug events that happened in the run.
    #[serde(skip_serializing_if = "is_zero")]
    pub hotplugs: u64,
    /// What the simulator charged beyond the scheduler's counters: cache
    /// refills and idle-state exits, counts and ns (core::Stats::charged).
    #[serde(skip)]
    pub charged: Vec<(String, u64)>,
    /// Everything the switch-ins of the run charged their CPUs, in ns:
    /// context switches, the wake-up work a waker's CPU carried over, cache
    /// refills and the reads of messages (core::Stats::stall_ns).
    #[serde(skip)]
    pub switch_in_ns: f64,
}

impl Outcome {
    /// The run's metric `name`, if it has one.
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.metrics
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.value)
    }

    /// The scheduler's counter `name`, if it has one.
    pub fn counter(&self, name: &str) -> Option<u64> {
        self.counters.iter().find(|(n, _)| n == name).map(|c| c.1)
    }
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// A restart of the scheduler during a run: when, and the exit's message.
#[derive(Clone, Debug, Serialize)]
pub struct Restart {
    pub at_ns: Ns,
    pub why: String,
}

/// CPU time of the calling thread, in seconds.
fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we pass
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

/// `wl`, a workload the caller built, on `machine` under scheduler `sched`
/// (a spec, as `-s` takes it) with `knobs` and the default cost model, till
/// `cfg` stops it: the core after the run (its clock, stats and trace), the
/// scheduler's counters, and how the run stopped.
pub fn run_workload(
    machine: &Machine,
    sched: &str,
    knobs: &Knobs,
    wl: &mut dyn Workload,
    cfg: Config,
) -> Result<(Core, Vec<(String, u64)>, Stop)> {
    let topo = machine.topo()?;
    let mut ops = SchedSpec::parse(sched)?.build(&topo, machine.nr_cpus(), knobs)?;
    let mut core = Core::new(machine.clone(), CostModel::default(), cfg)?;
    let stop = core.run(ops.as_mut(), wl, |_| {});
    Ok((core, ops.counters(), stop))
}

/// simulate() with the default cost model and knobs and no progress
/// reports: the run tests and examples make.
pub fn simulate_defaults(
    machine: &Machine,
    sched: &SchedSpec,
    workload: &str,
    cfg: Config,
    seed: u64,
) -> Result<Outcome> {
    let (cost, knobs) = (CostModel::default(), Knobs::default());
    let spec = RunSpec {
        machine,
        cost: &cost,
        cfg,
        sched,
        knobs: &knobs,
        workload,
        seed,
    };
    simulate(&spec, |_| {})
}

pub fn simulate(spec: &RunSpec, progress: impl FnMut(Ns)) -> Result<Outcome> {
    let cpu0 = thread_cpu_s();
    let topo = spec.machine.topo()?;
    let mut wl = wspec::parse(spec.workload, spec.machine.nr_cpus(), spec.seed)?;
    let mut ops = spec
        .sched
        .build(&topo, spec.machine.nr_cpus(), spec.knobs)?;
    let cfg = Config {
        seed: spec.seed,
        ..spec.cfg.clone()
    };
    let mut core = Core::new(spec.machine.clone(), spec.cost.clone(), cfg)?;
    // a restart the kernel asks for (CPU hotplug) loads the scheduler again
    // on the CPUs online then, as its loader would (core/hotplug.rs)
    let (sched, knobs) = (spec.sched.clone(), spec.knobs.clone());
    core.reloader = Some(Box::new(move |m, online| {
        let topo = m.topo_of(&|c| online.get(c).copied().unwrap_or(false))?;
        sched.build(&topo, m.nr_cpus(), &knobs)
    }));
    let stop = core.run(ops.as_mut(), wl.as_mut(), progress);
    let restarts: Vec<Restart> = core
        .restarts()
        .iter()
        .map(|(at, why)| Restart {
            at_ns: *at,
            why: why.clone(),
        })
        .collect();
    let elapsed = core.now.max(1);
    let mut metrics = wl.metrics(elapsed);
    let st = &core.stats;
    let ncpu = core.nr_cpus() as f64;
    let busy: u64 = core.cpus.iter().map(|c| c.busy_ns).sum();
    let wakeups = st.wakeups.max(1) as f64;
    metrics.extend([
        Metric::new("wake_p50_us", st.wake_lat.quantile(0.5) / 1e3, "us", false),
        Metric::new("wake_p99_us", st.wake_lat.quantile(0.99) / 1e3, "us", false),
        Metric::new(
            "rq_wait_us_per_wakeup",
            st.wait_ns as f64 / 1e3 / wakeups,
            "us",
            false,
        ),
        Metric::new(
            "busy_pct",
            100.0 * busy as f64 / (ncpu * elapsed as f64),
            "%",
            true,
        ),
        Metric::new(
            "idle_while_queued_pct",
            100.0 * st.gap_ns as f64 / (ncpu * elapsed as f64),
            "%",
            false,
        ),
        Metric::new(
            "mig_smt_per_kwake",
            1e3 * st.mig_core as f64 / wakeups,
            "",
            false,
        ),
        Metric::new(
            "mig_llc_per_kwake",
            1e3 * st.mig_llc as f64 / wakeups,
            "",
            false,
        ),
        Metric::new(
            "mig_xllc_per_kwake",
            1e3 * st.mig_cross_llc as f64 / wakeups,
            "",
            false,
        ),
        Metric::new(
            "mig_xnode_per_kwake",
            1e3 * st.mig_cross_node as f64 / wakeups,
            "",
            false,
        ),
        // the wake-ups of the run: with the per-wake-up rates above, the
        // run's migrations (for comparing with a VM's per-run counts)
        Metric::new("wakeups", st.wakeups as f64, "", false),
        Metric::new(
            "bpf_ns_per_callback",
            st.bpf_ns / st.callbacks.max(1) as f64,
            "ns",
            false,
        ),
        // every callback's cost (ticks, dispatches and timers too) per
        // wake-up: the bpf:OP rows weighted by how often each op runs. Not
        // the scheduler's load and unload (init, exit): once per run, they
        // would weigh on a short run's figure and not on a long one's.
        Metric::new(
            "bpf_ns_per_wakeup",
            st.ops()
                .iter()
                .filter(|(op, _)| !LOAD_OPS.contains(op))
                .map(|(_, (_, ns))| ns)
                .sum::<f64>()
                / wakeups,
            "ns",
            false,
        ),
    ]);
    // a run without a sched_ext wake-up (an rt-app file of SCHED_FIFO
    // threads only: core/rt.rs) has no wake latency; a NaN would not cross
    // the job's JSON
    metrics.retain(|m| !m.value.is_nan());
    let (stop_s, ok, ejected) = match &stop {
        Stop::Finished => ("finished".to_string(), true, false),
        Stop::TimeLimit => ("time limit".to_string(), true, false),
        Stop::Ejected(r) => (format!("ejected: {r}"), false, true),
        Stop::Invariant(r) => (format!("invariant violated: {r}"), false, false),
    };
    let trace = core
        .stats
        .trace
        .iter()
        .map(|&(c, t, s, d)| (c, core.tasks[t].spec.name.clone(), s, d))
        .collect();
    Ok(Outcome {
        stop: stop_s,
        ok,
        ejected,
        sim_ns: core.now,
        events: core.stats.callbacks + core.stats.state_changes,
        callbacks: core.stats.callbacks,
        state_changes: core.stats.state_changes,
        queue_events: core.stats.events,
        cpu_s: thread_cpu_s() - cpu0,
        metrics,
        counters: match &core.reloaded {
            Some(r) => r.counters(),
            None => ops.counters(),
        },
        restarts,
        hotplugs: core.stats.hotplugs,
        trace,
        bpf_ops: core
            .stats
            .ops()
            .iter()
            .map(|(k, v)| (k.to_string(), v.0, v.1))
            .collect(),
        wakeups: core.stats.wakeups,
        reenq_immed: core.stats.reenq_immed,
        charged: core.stats.charged(),
        switch_in_ns: core.stats.stall_ns,
        timers_armed: core.timers.iter().map(|t| t.0).sum(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scheduler counter `n` of a run (it must exist).
    fn counter(o: &Outcome, n: &str) -> u64 {
        o.counter(n).unwrap()
    }

    /// The metric `n` of a run (it must exist).
    fn metric(o: &Outcome, n: &str) -> f64 {
        o.metric(n).unwrap()
    }

    /// hackbench:g=2,l=50 on 2s2c2t under `sched` with `seed`; it must finish.
    fn hackbench(sched: &str, seed: u64) -> Outcome {
        hackbench_on(&SchedSpec::parse(sched).unwrap(), seed)
    }

    fn hackbench_on(sched: &SchedSpec, seed: u64) -> Outcome {
        run_2s2c2t(sched, "hackbench:g=2,l=50", seed)
    }

    /// `workload` on 2s2c2t under `sched` with `seed`; it must finish.
    fn run_2s2c2t(sched: &SchedSpec, workload: &str, seed: u64) -> Outcome {
        run_on("2s2c2t", sched, workload, seed)
    }

    /// `workload` on machine `machine` (a preset or shape) under `sched`
    /// with `seed`; it must finish.
    fn run_on(machine: &str, sched: &SchedSpec, workload: &str, seed: u64) -> Outcome {
        run_on_cost(machine, sched, workload, seed, &CostModel::default())
    }

    /// run_on() with the cost model given.
    fn run_on_cost(
        machine: &str,
        sched: &SchedSpec,
        workload: &str,
        seed: u64,
        cost: &CostModel,
    ) -> Outcome {
        let m = crate::presets::find(machine).unwrap();
        let o = simulate(
            &RunSpec {
                machine: &m,
                cost,
                cfg: Config::default(),
                sched,
                knobs: &Knobs::default(),
                workload,
                seed,
            },
            |_| {},
        )
        .unwrap();
        assert!(o.ok, "{}", o.stop);
        o
    }

    fn time_s(seed: u64) -> f64 {
        let o = hackbench("arbor:stock", seed);
        o.metrics.iter().find(|m| m.name == "time_s").unwrap().value
    }

    /// The seed is a run's only source of chance: the same seed gives the
    /// same result, and other seeds other trajectories (hackbench has no
    /// randomness of its own, so this is the start jitter at work).
    #[test]
    fn same_seed_same_result_other_seeds_other_trajectories() {
        assert_eq!(time_s(1), time_s(1));
        let others: Vec<f64> = (2..6).map(time_s).collect();
        assert!(others.iter().any(|&t| t != time_s(1)), "{others:?}");
    }

    /// WAKE_NODE: on 2s2c2t (two nodes), hackbench's wake-ups from the other
    /// node are kept home while the wakee's node has an idle CPU: the counter
    /// moves with the feature on and stays 0 with it off (stock). The rule
    /// itself is unit-tested on crafted nodes (scheduler/src/policy.rs,
    /// wake_node_keeps_a_wakee_home_while_its_node_has_an_idle_cpu).
    ///
    /// Not asserted: that fewer wakees cross nodes. It held on seed 1 only
    /// by chance: over seeds 1-10 at df35ea0, cross-node migrations were
    /// 110.6 ± 43.9 with WAKE_NODE against 92.9 ± 25.7 without (more, not
    /// fewer; within the spread), and once the EEVDF queue's reference moved
    /// where kernel 7.2 moves it (place_entity, update_entity_lag) seed 1
    /// gave 118 against 117. Whether WAKE_NODE keeps wakees home on the
    /// whole is an open question, not a property to test here.
    #[test]
    fn wake_node_keeps_wakees_in_their_node() {
        let on = hackbench("arbor:stock:WAKE_NODE", 1);
        let off = hackbench("arbor:stock", 1);
        assert!(counter(&on, "wake_node_kept") > 0, "{:?}", on.counters);
        assert_eq!(counter(&off, "wake_node_kept"), 0, "{:?}", off.counters);
    }

    /// IDLE_PULL: on 2s2c2t hackbench, over five seeds, CPUs going idle while
    /// tasks wait elsewhere pull at levels the cost bound or the dice would
    /// have skipped: the counter moves with the feature on and stays 0 off
    /// (stock), newidle fails less often, and CPU time idle while tasks wait
    /// falls.
    #[test]
    fn idle_pull_leaves_fewer_cpus_idle_while_tasks_wait() {
        let (mut pulls, mut fails, mut gap) = ([0.0; 2], [0.0; 2], [0.0; 2]);
        for seed in 1..=5 {
            for (i, s) in ["arbor:stock", "arbor:stock:IDLE_PULL"].iter().enumerate() {
                let o = hackbench(s, seed);
                pulls[i] += counter(&o, "idle_pulls") as f64;
                fails[i] += counter(&o, "newidle_fails") as f64;
                gap[i] += metric(&o, "idle_while_queued_pct");
            }
        }
        assert_eq!(pulls[0], 0.0);
        assert!(pulls[1] > 0.0, "{pulls:?}");
        assert!(fails[1] < fails[0], "newidle_fails {fails:?}");
        assert!(gap[1] < gap[0], "idle_while_queued_pct {gap:?}");
    }

    /// IDLE_PULL's reach on a node of small LLCs (policy.h
    /// arbor_idle_pull_level): on power10 (one node of 16 4-CPU LLCs),
    /// hackbench over three seeds, CPU time idle while tasks wait falls
    /// below half of stock's with the feature, by pulls from other LLCs of
    /// the node (within the idle CPU's own LLC alone it fell by a sixth:
    /// 36.8% -> 30.5%, 3 seeds), and wake-ups move across LLCs more.
    #[test]
    fn idle_pull_reaches_the_other_llcs_of_a_node_of_small_llcs() {
        let (mut gap, mut xllc) = ([0.0; 2], [0.0; 2]);
        for seed in 1..=3 {
            for (i, s) in ["arbor:stock", "arbor:stock:IDLE_PULL"].iter().enumerate() {
                let o = run_on(
                    "power10",
                    &SchedSpec::parse(s).unwrap(),
                    "hackbench:g=2,l=100",
                    seed,
                );
                gap[i] += metric(&o, "idle_while_queued_pct");
                xllc[i] += metric(&o, "mig_xllc_per_kwake");
            }
        }
        assert!(gap[1] < gap[0] / 2.0, "idle_while_queued_pct {gap:?}");
        assert!(xllc[1] > xllc[0], "mig_xllc_per_kwake {xllc:?}");
    }

    /// IDLE_PULL takes no cache-hot task at an LLC level the baseline would
    /// not have tried (fair.c can_migrate_task/task_hot): on x86-12
    /// wakeprobe, where a wakee waits a few microseconds behind another
    /// task on the CPU it has just run on, IDLE_PULL pulls fewer than 2
    /// tasks per 1000 wake-ups (it used to pull those wakees: 154 against
    /// stock's 38 migrations per 1000 wake-ups over 5 seeds, and a p99 2.8%
    /// worse). The pulls are counted, not the LLC's migrations: with a
    /// batch's wake-ups made in turn, seed 3 settles (with IDLE_PULL, not
    /// under stock) in a placement whose wake-ups move 108 tasks per 1000
    /// within the LLC against 74 pulls in all, so those moves are the
    /// wake-up path's.
    #[test]
    fn idle_pull_leaves_cache_hot_wakees_where_they_ran() {
        for seed in 1..=3 {
            let run = |s: &str| {
                run_on(
                    "x86-12",
                    &SchedSpec::parse(s).unwrap(),
                    "wakeprobe:t=1",
                    seed,
                )
            };
            let (stock, pull) = (run("arbor:stock"), run("arbor:stock:IDLE_PULL"));
            assert_eq!(counter(&stock, "idle_pulls"), 0);
            let (pulls, wakeups) = (counter(&pull, "idle_pulls"), counter(&pull, "wakeups"));
            assert!(pulls > 0, "seed {seed}: the rule never acted");
            assert!(
                pulls * 1000 < 2 * wakeups,
                "seed {seed}: {pulls} pulls in {wakeups} wake-ups"
            );
        }
    }

    /// SYNC_LOCAL: perf-pipe's two tasks each sleep right after waking the
    /// other, so after 8 kept promises each wakee is queued on its waker's CPU:
    /// the counter moves with the feature on and stays 0 off (stock), and the
    /// wakee no longer waits for an idle CPU to wake (run-queue wait per
    /// wake-up falls, and the run is faster). hackbench's senders wake receiver
    /// after receiver without sleeping: with the feature on they break more
    /// promises than they keep. The rule is unit-tested on crafted event
    /// sequences (scheduler/src/policy.rs,
    /// sync_local_follows_wakers_that_keep_their_promise).
    #[test]
    fn sync_local_keeps_ping_pong_on_one_cpu_and_not_fan_out() {
        let pipe = |s: &str| run_2s2c2t(&SchedSpec::parse(s).unwrap(), "perf-pipe:l=2000", 1);
        let (on, off) = (pipe("arbor:stock:SYNC_LOCAL"), pipe("arbor:stock"));
        assert!(counter(&on, "sync_local") > 3000, "{:?}", on.counters);
        assert_eq!(counter(&off, "sync_local"), 0);
        assert_eq!(counter(&off, "sync_kept") + counter(&off, "sync_broken"), 0);
        let (w_on, w_off) = (
            metric(&on, "rq_wait_us_per_wakeup"),
            metric(&off, "rq_wait_us_per_wakeup"),
        );
        assert!(w_on < w_off / 4.0, "rq_wait {w_on} vs {w_off}");
        assert!(metric(&on, "time_s") < metric(&off, "time_s"));
        let hb = hackbench("arbor:stock:SYNC_LOCAL", 1);
        assert!(
            counter(&hb, "sync_broken") > counter(&hb, "sync_kept"),
            "{:?}",
            hb.counters
        );
    }

    /// SYNC_LOCAL_BIG_BUSY: on a hybrid of 2 P-cores x SMT2 + 16 E-cores
    /// (random-20261208-11) pgbench's 8 backends do not fit an E-core and
    /// the 4 P-CPUs are busy. Without the rule each query sent its backend
    /// from the client's E-core to another idle E-core, which had idled
    /// long enough to reach a deep state: default fell below stock (71,895
    /// tps against 77,937 over seeds 1-5). With it the backend stays on
    /// its client's CPU while nothing bigger idles: the counter moves, and
    /// default is above stock by more than 10% on each seed. The rule is
    /// unit-tested (scheduler/src/policy/tests/slow_path.rs,
    /// sync_local_keeps_a_big_wakee_only_while_nothing_bigger_idles).
    #[test]
    fn a_big_wakee_stays_on_its_wakers_little_cpu_when_no_big_one_idles() {
        let m = "random-20261208-11";
        for seed in [1, 2] {
            let run = |s: &str| {
                run_on(
                    m,
                    &SchedSpec::parse(s).unwrap(),
                    "pgbench:clients=8,time=1",
                    seed,
                )
            };
            let (with, without, stock) = (
                run("arbor:default"),
                run("arbor:default:NO_SYNC_LOCAL_BIG_BUSY"),
                run("arbor:stock"),
            );
            assert!(
                counter(&with, "sync_local_big_busy") > 1000,
                "{:?}",
                with.counters
            );
            assert_eq!(counter(&without, "sync_local_big_busy"), 0);
            let tps = |o: &Outcome| metric(o, "tps");
            assert!(
                tps(&with) > tps(&stock) * 1.10,
                "seed {seed}: tps {} vs stock {}",
                tps(&with),
                tps(&stock)
            );
            assert!(
                tps(&without) < tps(&with) * 0.95,
                "seed {seed}: without the rule tps {} vs {}",
                tps(&without),
                tps(&with)
            );
        }
    }

    /// PREEMPT_SYNC: on x86-12 hackbench (12 CPUs, 40 tasks, busy), writers
    /// wake their readers with WF_SYNC. With the feature a wake-up that would
    /// preempt a writer picked less than 125 us ago waits: the counter moves
    /// with it and stays 0 without (default with NO_PREEMPT_SYNC), wake-up
    /// preemptions fall to under a quarter, and the same 80,000 messages take
    /// fewer wake-ups (readers find several messages per wake-up). Over seeds
    /// 1-5 on 2026-11-28: preemptions 2,011 -> 13, wake-ups 5,350 -> 3,071 per
    /// run. The wake-ups are summed over seeds 1-10: one seed's run may take
    /// more, and a run's count spreads by a third (with BUDDY_LONG_RUN,
    /// seeds 1-10: 3,166 +-1,042 a run against 4,822 +-1,278 without
    /// PREEMPT_SYNC; seeds 1-3 alone summed 10,830 against 10,227). The rule is unit-tested
    /// (scheduler/src/policy.rs,
    /// preempt_sync_lets_a_task_run_its_batch_before_a_sync_wakee_preempts).
    #[test]
    fn preempt_sync_lets_writers_batch_their_wake_ups() {
        let run_seed = |s: &str, seed: u64| {
            run_on(
                "x86-12",
                &SchedSpec::parse(s).unwrap(),
                "hackbench:g=2,l=100",
                seed,
            )
        };
        let run = |s: &str| run_seed(s, 1);
        let wakeups =
            |s: &str| -> u64 { (1..=10).map(|k| counter(&run_seed(s, k), "wakeups")).sum() };
        let (on, off) = (run("arbor:default"), run("arbor:default:NO_PREEMPT_SYNC"));
        assert!(
            counter(&on, "sync_preempt_deferred") > 0,
            "{:?}",
            on.counters
        );
        assert_eq!(counter(&off, "sync_preempt_deferred"), 0);
        let (p_on, p_off) = (
            counter(&on, "wake_preempts"),
            counter(&off, "wake_preempts"),
        );
        assert!(p_on * 4 < p_off, "wake_preempts {p_on} vs {p_off}");
        let (w_on, w_off) = (
            wakeups("arbor:default"),
            wakeups("arbor:default:NO_PREEMPT_SYNC"),
        );
        assert!(w_on < w_off, "wake-ups over seeds 1-10: {w_on} vs {w_off}");
    }

    /// SYNC_PAIR: on 2 CPUs (one core each, one LLC) pgbench's 8 backends and
    /// their client share both CPUs. The client sends a backend its next query
    /// with WF_SYNC, and that backend's last wake-up was the client's (its
    /// reply): a pair. With the feature the counter moves and PREEMPT_SYNC's
    /// deferrals all but vanish; without it (default with NO_SYNC_PAIR) the
    /// counter stays 0, the client runs on past its queries, runs out of work
    /// and sleeps, and its replies wake it: more wake-ups. Seed 1, 1 s, on
    /// 2026-11-29: sync_pair 26,463 against 0, deferrals 14 against 23,675,
    /// wake-ups 43,192 against 53,439. The rule is unit-tested
    /// (scheduler/src/policy.rs,
    /// sync_pair_is_the_wakee_that_last_woke_its_waker).
    #[test]
    fn sync_pair_runs_a_clients_query_at_once() {
        let run = |s: &str| {
            run_on(
                "shape:n=1,l=1,c=2,t=1",
                &SchedSpec::parse(s).unwrap(),
                "pgbench:clients=8,time=1",
                1,
            )
        };
        let (on, off) = (run("arbor:default"), run("arbor:default:NO_SYNC_PAIR"));
        assert!(counter(&on, "sync_pair") > 0, "{:?}", on.counters);
        assert_eq!(counter(&off, "sync_pair"), 0);
        let (d_on, d_off) = (
            counter(&on, "sync_preempt_deferred"),
            counter(&off, "sync_preempt_deferred"),
        );
        assert!(d_on * 10 < d_off, "deferrals {d_on} vs {d_off}");
        let (w_on, w_off) = (counter(&on, "wakeups"), counter(&off, "wakeups"));
        assert!(w_on < w_off, "wake-ups {w_on} vs {w_off}");
    }

    /// NEXT_BUDDY (the kernel's, policy.h arbor_next_buddy): on xeon-88
    /// schbench a worker's post wakes its message thread with a futex (not
    /// WF_SYNC), under default often onto a CPU busy with another worker's
    /// math. With the feature the message thread, eligible, preempts as the
    /// CPU's next buddy: the counter moves, and its wake-up p99 falls below
    /// a quarter of that without (seed 1, 2026-11-29: 1,327 -> 12.9 us),
    /// where it waited for the worker's slice to end. (This test ran on
    /// x86-12 until keep_prev, seed 1: 290.8 -> 4.9 us. Since workers alone
    /// on their CPUs keep them at slice ends instead of passing through
    /// idle, the message threads there get 12.9 us either way.) hackbench's
    /// wake-ups are all WF_SYNC: the feature never acts there.
    #[test]
    fn next_buddy_lets_a_woken_message_thread_run_at_once() {
        let run = |s: &str, w: &str| run_on("xeon-88", &SchedSpec::parse(s).unwrap(), w, 1);
        let (on, off) = (
            run("arbor:default:NEXT_BUDDY", "schbench"),
            run("arbor:default:NO_NEXT_BUDDY", "schbench"),
        );
        assert!(counter(&on, "next_buddy") > 0, "{:?}", on.counters);
        assert_eq!(counter(&off, "next_buddy"), 0);
        let (a, b) = (
            metric(&on, "msg_wakeup_p99_us"),
            metric(&off, "msg_wakeup_p99_us"),
        );
        assert!(a * 4.0 < b, "msg_wakeup_p99_us {a} vs {b}");
        let hb = run("arbor:default:NEXT_BUDDY", "hackbench:g=2,l=100");
        assert_eq!(counter(&hb, "next_buddy"), 0);
    }

    /// BUDDY_LONG_RUN (policy.h arbor_buddy_long_run): on an 8-CPU phone
    /// (6 x capacity 440 + 2 x 1024, one LLC; random-20261207-10)
    /// wakeprobe's message thread, woken by its last worker, preempted as
    /// the next buddy a worker of the other request that runs ~10 us at a
    /// time, which then took the CPU its own request's fourth worker
    /// needed: wakeprobe p99 15.6 us under default against stock's 13.8
    /// (seeds 1-5). With the rule no buddy preempts such a worker, and
    /// p99 is stock's within 3% on each seed; without it, requests/s fall
    /// more than 1% below stock's (with a batch's wake-ups made in turn,
    /// seeds 1-5: 46,423-47,649 against 48,317-48,364; p99 15.7 against
    /// 15.2 us on seeds 2-5, 13.7 against 15.2 on seed 1). schbench's
    /// message thread still preempts a worker's math (the test above runs
    /// default, which has the rule).
    #[test]
    fn a_buddy_does_not_preempt_a_short_runner() {
        let m = "random-20261207-10";
        for seed in [1, 2] {
            let run = |s: &str| run_on(m, &SchedSpec::parse(s).unwrap(), "wakeprobe:t=1", seed);
            let (with, without, stock) = (
                run("arbor:default"),
                run("arbor:default:NO_BUDDY_LONG_RUN"),
                run("arbor:stock"),
            );
            let p99 = |o: &Outcome| metric(o, "p99_us");
            assert!(
                counter(&with, "next_buddy") * 10 < counter(&without, "next_buddy"),
                "buddies {} vs {}",
                counter(&with, "next_buddy"),
                counter(&without, "next_buddy")
            );
            assert!(
                p99(&with) <= p99(&stock) * 1.03,
                "seed {seed}: p99 {} vs stock {}",
                p99(&with),
                p99(&stock)
            );
            let rps = |o: &Outcome| metric(o, "rps");
            assert!(
                rps(&without) < rps(&stock) * 0.99,
                "seed {seed}: without the rule {} requests/s vs stock {}",
                rps(&without),
                rps(&stock)
            );
        }
    }

    /// A CPU-bound task alone on its CPU keeps it at its slice ends, as
    /// the kernel's EEVDF does (main.bpf.c keep_prev): one sysbench thread
    /// on x86-12 for 1 s ends ~333 slices of 3 ms, all kept, with one
    /// running() (its start) and no pass through idle on its CPU. Before,
    /// SCX_OPS_ENQ_LAST switched it out through idle at each: ~500
    /// running() calls in 1 s (docs/findings/2026-11-29-cost-per-wakeup §4).
    /// A tick-requested move still goes through enqueue: ASYM_MISFIT's
    /// tests on tc2 (cache_lb_does_not_take_a_cpu_bound_thread_down...).
    #[test]
    fn a_lone_cpu_bound_task_keeps_its_cpu_at_its_slice_ends() {
        let calls = |o: &Outcome, n: &str| {
            o.bpf_ops
                .iter()
                .find(|(k, _, _)| k == n)
                .map_or(0, |(_, c, _)| *c)
        };
        for s in ["arbor:stock", "arbor:default"] {
            let o = run_on(
                "x86-12",
                &SchedSpec::parse(s).unwrap(),
                "sysbench:threads=1,time=1",
                1,
            );
            assert!(counter(&o, "slice_kept") > 300, "{s}: {:?}", o.counters);
            assert!(calls(&o, "running") <= 2, "{s}: {:?}", o.bpf_ops);
            assert!(calls(&o, "enqueue") <= 2, "{s}: {:?}", o.bpf_ops);
        }
    }

    /// bpf_ns_per_wakeup is every op's charge but the load's and unload's
    /// over the run's wake-ups: the bpf:OP rows (ns per call) weighted by
    /// each op's calls. A wake-up takes several callbacks (select_cpu,
    /// enqueue, running, stopping...), so it is more than the average
    /// callback's cost.
    #[test]
    fn bpf_ns_per_wakeup_weighs_each_op_by_its_calls() {
        let o = hackbench("arbor:default", 1);
        let total: f64 = o
            .bpf_ops
            .iter()
            .filter(|(op, _, _)| op != "init" && op != "exit")
            .map(|(_, _, ns)| ns)
            .sum();
        assert!(o
            .bpf_ops
            .iter()
            .any(|(op, _, ns)| op == "init" && *ns > 0.0));
        let per = metric(&o, "bpf_ns_per_wakeup");
        assert!(o.wakeups > 0);
        assert!(
            (per - total / o.wakeups as f64).abs() < 1e-9 * total,
            "{per} vs {total} / {}",
            o.wakeups
        );
        assert!(per > 2.0 * metric(&o, "bpf_ns_per_callback"), "{per}");
    }

    /// Seed 002 as merged is active only on machines of more than one LLC
    /// (7.2's topology.c sched_cache_set(has_multi_llcs); cache.bpf.h
    /// cache_lb_on): on x86-12 (one LLC) CACHE_LB changes nothing at all,
    /// neither a placement nor a BPF op's cost: every metric, counter and
    /// per-op charge equals stock's. On hikey (two LLCs) the same run
    /// accounts each switch (stopping costs more). Before the gate, CACHE_LB
    /// looked up the process's entry on every switch of a one-LLC machine:
    /// stopping 125 -> 145 ns per call on the host snapshot's wakeprobe
    /// (2026-11-28).
    #[test]
    fn cache_lb_does_nothing_on_a_machine_of_one_llc() {
        let op = |o: &Outcome, n: &str| {
            let (_, calls, ns) = o.bpf_ops.iter().find(|(k, _, _)| k == n).unwrap();
            ns / *calls as f64
        };
        let w = "perf-messaging:g=1,l=50,mode=thread";
        let run = |m: &str, s: &str| run_on(m, &SchedSpec::parse(s).unwrap(), w, 1);
        let (on, off) = (
            run("x86-12", "arbor:stock:CACHE_LB"),
            run("x86-12", "arbor:stock"),
        );
        assert_eq!(on.counters, off.counters);
        let vals = |o: &Outcome| o.metrics.iter().map(|m| m.value).collect::<Vec<_>>();
        assert_eq!(vals(&on), vals(&off));
        assert_eq!(on.bpf_ops, off.bpf_ops);
        let (on, off) = (
            run("hikey", "arbor:stock:CACHE_LB"),
            run("hikey", "arbor:stock"),
        );
        assert!(
            op(&on, "stopping") > op(&off, "stopping"),
            "stopping {} vs {}",
            op(&on, "stopping"),
            op(&off, "stopping")
        );
    }

    /// Seed 002 as merged, on an asymmetric machine (policy.h
    /// arbor_cache_makes_misfit): on tc2 a CPU-bound thread forked onto a
    /// little CPU (ASYM_WAKE_CAP off, so no capacity placement at fork) is
    /// moved up once by ASYM_MISFIT and is not taken back down to its
    /// process's preferred (little) cluster by CACHE_LB's aggregation. It
    /// then runs at a big CPU's speed: sysbench's events/s more than twice
    /// those of stock without the asymmetric mechanisms, which leaves it on
    /// the little CPU. Before the rule, 2026-11-28:
    /// 547 misfit moves up in 3 s (as many down), 559 events/s against
    /// stock's 736.
    #[test]
    fn cache_lb_does_not_take_a_cpu_bound_thread_down_to_the_little_cluster() {
        let run = |s: &str| {
            run_on(
                "tc2",
                &SchedSpec::parse(s).unwrap(),
                "sysbench:threads=1,time=1",
                1,
            )
        };
        let (seeds, stock) = (
            run("arbor:seeds:NO_ASYM_WAKE_CAP"),
            run("arbor:stock:NO_ASYM_MISFIT,NO_ASYM_IDLE_CAPACITY"),
        );
        assert!(
            counter(&seeds, "misfit_migrations") <= 2,
            "{:?}",
            seeds.counters
        );
        let (e, e0) = (metric(&seeds, "eps"), metric(&stock, "eps"));
        assert!(e > 2.0 * e0, "eps {e} vs stock {e0}");
    }

    /// ASYM_MISFIT claims the idle bigger CPU it sends a misfit task to
    /// (capacity.bpf.h check_misfit), as an idle CPU pulling the task
    /// itself has it to itself: on a 4 big + 4 little machine running
    /// schbench (workers too busy for a little CPU), nearly every move
    /// reaches the CPU it was sent to. Unclaimed, wake-ups and other
    /// misfits took the same CPU and 159 of 778 moves ended elsewhere
    /// (seed 1, 2026-11-28), the CPUs idled 18% of the time while tasks
    /// waited, and schbench's p99 wake-up was 5,046 us (3,244 claimed;
    /// stock 3.0).
    #[test]
    fn misfit_moves_reach_the_bigger_cpu_they_claimed() {
        let o = run_on(
            "shape:n=1,l=2,c=4,t=1,little=4",
            &SchedSpec::parse("arbor:stock:ASYM_MISFIT").unwrap(),
            "schbench",
            1,
        );
        let (tasks, moved) = (
            counter(&o, "misfit_tasks"),
            counter(&o, "misfit_migrations"),
        );
        assert!(tasks > 100, "{:?}", o.counters);
        assert!(moved * 100 >= tasks * 98, "misfit moves {moved} of {tasks}");
    }

    /// SIS_NODE: on power11 (4-CPU LLCs, 28 per node), hackbench's wake-ups
    /// that find their LLC busy while the node is 20% busy take a CPU of
    /// another LLC of the node that has been idle for the migration cost: the
    /// counter moves with the feature on and stays 0 off, and the run-queue
    /// wait per wake-up falls (on top of `default`, which has it on since
    /// docs/findings/2026-11-27-spawn-parent, against default with NO_SIS_NODE:
    /// 3.69 -> 2.70 us on seed 1 before default left CACHE_LB out, 3.80 -> 2.84
    /// since; 5.69 -> 3.63 before the simulator forked tasks from a running
    /// parent, lower on each of seeds 1-5 in docs/findings/2026-11-27-sis-node;
    /// on top of `stock` seed 1 does not fall). On 2s2c2t, where a node is one
    /// LLC, it never acts. The rule, its bounds and the pick are unit-tested on
    /// crafted masks (scheduler/src/policy.rs,
    /// sis_node_takes_the_nodes_nearest_lasting_idle_cpu).
    #[test]
    fn sis_node_widens_the_idle_search_beyond_a_small_llc() {
        let run = |s: &str, seed: u64| {
            run_on(
                "power11",
                &SchedSpec::parse(s).unwrap(),
                "hackbench:g=2,l=100",
                seed,
            )
        };
        // the counter on each of five seeds, the wait summed over them (it was
        // the direction on each of seeds 1-3 until default left CACHE_LB out:
        // seeds 1-5 then wait 2.84, 2.96, 2.66, 2.78, 2.63 us with it against
        // 3.80, 2.95, 5.42, 3.58, 3.54 without, seed 2 a tie; before, with
        // running() and stopping() one call cheaper, seeds 1-5 fell by 10-58%)
        let (mut w_on, mut w_off) = (0.0, 0.0);
        for seed in 1..=5 {
            let (on, off) = (
                run("arbor:default", seed),
                run("arbor:default:NO_SIS_NODE", seed),
            );
            assert!(counter(&on, "sis_node_found") > 0, "{:?}", on.counters);
            assert_eq!(counter(&off, "sis_node_found"), 0, "{:?}", off.counters);
            w_on += metric(&on, "rq_wait_us_per_wakeup");
            w_off += metric(&off, "rq_wait_us_per_wakeup");
        }
        assert!(w_on < w_off, "rq_wait over seeds 1-5: {w_on} vs {w_off}");
        let one_llc_nodes = hackbench("arbor:stock:SIS_NODE", 1);
        assert_eq!(counter(&one_llc_nodes, "sis_node_found"), 0);
    }

    /// WAKE_SHORTCUT is a cost saving that must not change a placement: at zero
    /// BPF cost (so that only decisions can differ) default with and without it
    /// give the same value for every metric and counter but its own, on x86-12
    /// wakeprobe (most wake-ups find prev idle) and 2s2c2t hackbench (many do
    /// not: the full path runs after a failed claim), while it takes many
    /// wake-ups; with the model's costs select_cpu costs less per call with it
    /// (by about the one call it skips).
    #[test]
    fn wake_shortcut_places_as_the_full_path() {
        let zero = CostModel {
            bpf_call_ns: 0.0,
            bpf_callback_ns: 0.0,
            ..CostModel::default()
        };
        let run = |machine: &str, s: &str, w: &str, cost: &CostModel| {
            run_on_cost(machine, &SchedSpec::parse(s).unwrap(), w, 1, cost)
        };
        // (machine, workload, the least share of wake-ups it must take, in %)
        for (machine, w, pct) in [
            ("x86-12", "wakeprobe:t=1", 50),
            ("2s2c2t", "hackbench:g=2,l=50", 1),
        ] {
            let on = run(machine, "arbor:default", w, &zero);
            let off = run(machine, "arbor:default:NO_WAKE_SHORTCUT", w, &zero);
            assert!(
                counter(&on, "wake_prev_idle") * 100 > counter(&on, "wakeups") * pct,
                "{machine} {w}: {:?}",
                on.counters
            );
            assert_eq!(counter(&off, "wake_prev_idle"), 0);
            for x in &on.metrics {
                if !x.name.starts_with("bpf:") {
                    assert_eq!(x.value, metric(&off, &x.name), "{machine} {w}: {}", x.name);
                }
            }
            for (k, v) in &on.counters {
                if k != "wake_prev_idle" {
                    assert_eq!(*v, counter(&off, k), "{machine} {w}: {k}");
                }
            }
        }
        let cost = CostModel::default();
        let (on, off) = (
            run("x86-12", "arbor:default", "wakeprobe:t=1", &cost),
            run(
                "x86-12",
                "arbor:default:NO_WAKE_SHORTCUT",
                "wakeprobe:t=1",
                &cost,
            ),
        );
        let per_call = |o: &Outcome| {
            let (_, n, ns) = o
                .bpf_ops
                .iter()
                .find(|(k, _, _)| k == "select_cpu")
                .unwrap();
            ns / *n as f64
        };
        // the shortcut skips the copy of the idle mask, one bpf_probe_read_kernel
        // (the model's 20 ns), on most of these wake-ups (before the mask was
        // read from its address, the get/put pair too: 60 ns)
        assert!(
            per_call(&on) < per_call(&off) - 15.0,
            "{} vs {}",
            per_call(&on),
            per_call(&off)
        );
    }

    /// RUN_TO_PARITY (the kernel's EEVDF 6.6+; off in every profile here):
    /// on 2s2c2t hackbench, wake-ups that would preempt a task still inside
    /// the request it was picked with wait instead: the counter moves with
    /// it, stays 0 without (stock), and far fewer wake-ups preempt with it
    /// than without.
    #[test]
    fn run_to_parity_holds_back_wakeup_preemption_within_the_request() {
        let on = hackbench("arbor:stock:RUN_TO_PARITY", 1);
        let off = hackbench("arbor:stock", 1);
        assert!(counter(&on, "parity_kept") > 0, "{:?}", on.counters);
        assert_eq!(counter(&off, "parity_kept"), 0, "{:?}", off.counters);
        assert!(
            counter(&on, "wake_preempts") * 2 < counter(&off, "wake_preempts"),
            "{} vs {}",
            counter(&on, "wake_preempts"),
            counter(&off, "wake_preempts")
        );
    }

    /// Seed 003 ran CFS with sched_wakeup_granularity_ns = 15 ms, so its
    /// wake-ups did not preempt; NO_WAKE_PREEMPT stands for that. With it
    /// no wake-up preempts (the counter stays 0) and, as the woken tasks
    /// wait for the running ones to block, hackbench batches more messages
    /// per wake-up: fewer wake-ups in the simulator's own count.
    #[test]
    fn no_wake_preempt_stops_wakeup_preemption() {
        // fewer wake-ups without preemption (receivers drain more per run)
        // over 5 seeds: one seed alone can go either way (seed 1 does)
        let (mut won, mut woff) = (0, 0);
        for seed in 1..=5 {
            let on = hackbench("arbor:stock", seed);
            let off = hackbench("arbor:stock:NO_WAKE_PREEMPT", seed);
            assert!(counter(&on, "wake_preempts") > 0, "{:?}", on.counters);
            assert_eq!(counter(&off, "wake_preempts"), 0, "{:?}", off.counters);
            won += on.wakeups;
            woff += off.wakeups;
        }
        assert!(woff < won, "{woff} vs {won}");
    }

    /// On a PREEMPT_RT kernel the verifier refuses bpf_timer, so scx_arbor
    /// runs its periodic pass from ops.tick: the pass still kicks idle CPUs
    /// towards queued work (periodic_kicks), and no timer is armed (the
    /// simulator's timer count stays 0, where the timer path arms one).
    #[test]
    fn on_preempt_rt_the_periodic_pass_runs_from_the_tick() {
        // without newidle pulls, idle CPUs wait for the periodic kick
        let mut rt = SchedSpec::parse("arbor:stock:NO_NEWIDLE").unwrap();
        rt.preempt_rt = true;
        let on_rt = hackbench_on(&rt, 1);
        let usual = hackbench("arbor:stock:NO_NEWIDLE", 1);
        assert!(
            counter(&usual, "periodic_kicks") > 0,
            "{:?}",
            usual.counters
        );
        assert!(
            counter(&on_rt, "periodic_kicks") > 0,
            "{:?}",
            on_rt.counters
        );
        assert!(usual.timers_armed > 0);
        assert_eq!(on_rt.timers_armed, 0);
    }

    /// SIS_IDLE_GROUP (select_idle_sibling of 3.9-4.8, seeds 001 and
    /// 004's baselines) takes only a wholly idle core or target's idle
    /// sibling. In a loaded hackbench it changes which wake-ups find an
    /// idle CPU. Same seeds, same workload; off is today's scan.
    #[test]
    fn sis_idle_group_changes_the_idle_search() {
        // SIS_IDLE_GROUP never takes a lone idle thread of a busy core
        // (policy.h arbor_select_idle_group). Summed over three seeds: on
        // one seed the counts move with timing (a cheaper wake-up path once
        // flipped a second assertion, "nofound_idle grows", that does not
        // hold across seeds: dropped).
        let sum = |s: &str| -> u64 {
            let sched = SchedSpec::parse(s).unwrap();
            (1..=3)
                .map(|seed| {
                    let o = run_2s2c2t(&sched, "hackbench:g=2,l=100", seed);
                    counter(&o, "found_idle_cpu")
                })
                .sum()
        };
        // Measured: on 1023, off 3543 while the simulator's clock could read a
        // few ns earlier than a previous reading at the same instant
        // (kf_ktime); with the clock monotonic, as the kernel's is, on 1964 and
        // off 2030. Most of the old gap came from scx_arbor's `now - last_ran`
        // wrapping under the old clock, not from this feature; what the feature
        // does on its own is much smaller. Over seeds 1-10 at df35ea0 the sum's
        // direction did not hold: found_idle_cpu 785.9 ± 301.2 with
        // SIS_IDLE_GROUP against 615.7 ± 355.0 without (spreads overlap), and
        // once the EEVDF queue's reference moved where kernel 7.2 moves it
        // (place_entity, update_entity_lag) seeds 1-3 gave 4,492 against 3,222.
        // A whole hackbench run is too chaotic for the direction: the rule's
        // own claim (a lone idle thread of a busy core is never taken) is
        // unit-tested on crafted LLCs (scheduler/src/policy.rs,
        // select_idle_group). What this run checks is that the feature acts on
        // the scheduler's decisions.
        let off = sum("arbor:stock:NO_WA_IDLE");
        let on = sum("arbor:stock:NO_WA_IDLE,SIS_IDLE_GROUP");
        assert_ne!(on, off, "SIS_IDLE_GROUP changed no decision");
    }

    /// A fuzz case with every new draw at once (arbor sim fuzz's): holes in
    /// the numbering, an offline CPU, and four hotplug events. scx_arbor
    /// (no ops.cpu_online/offline) and p2dq restart at each event and the
    /// run finishes with no invariant violation (a task on an offline CPU
    /// is one); lavd handles the offlining itself (its ops.cpu_offline) and
    /// asks for a restart when a CPU comes online. Before the old instance
    /// released its tasks' storage at the restart (ops.exit_task), p2dq's
    /// new instance failed ("task_ctx allocation failure").
    #[test]
    fn hotplug_restarts_and_the_runs_finish() {
        let m = crate::presets::find("shape:n=2,c=2,t=2,offline=1,absent=2").unwrap();
        let cfg = Config {
            hotplug: crate::core::hotplug::parse("off:3@20ms,on:1@40ms,on:3@60ms,off:0@80ms")
                .unwrap(),
            time_limit: 2_000_000_000,
            ..Config::default()
        };
        for (sched, restarts) in [("arbor:stock", 4), ("p2dq", 4), ("lavd", 2)] {
            let sched_spec = SchedSpec::parse(sched).unwrap();
            let o =
                simulate_defaults(&m, &sched_spec, "hackbench:g=2,l=400", cfg.clone(), 1).unwrap();
            assert!(o.ok, "{sched}: {}", o.stop);
            assert_eq!(o.hotplugs, 4, "{sched}");
            assert_eq!(o.restarts.len(), restarts, "{sched}: {:?}", o.restarts);
        }
    }

    use crate::workload::{Effects, Exits, Step, TaskId, TaskSpec, Workload};

    /// Seed 002's process table under churn: `procs` two-thread processes,
    /// started `gap` ns apart, each thread running 50 us then sleeping `live`
    /// ns (the process stays alive) and exiting; then one two-thread process
    /// spinning for 300 ms.
    struct Churn {
        procs: usize,
        gap: Ns,
        live: Ns,
        step: Vec<u8>,
        exits: Exits,
    }

    impl Churn {
        fn new(procs: usize, gap: Ns, live: Ns) -> Churn {
            let n = 2 * procs + 2;
            Churn {
                procs,
                gap,
                live,
                step: vec![0; n],
                exits: Exits::new(n),
            }
        }
    }

    impl Workload for Churn {
        fn tasks(&self) -> Vec<TaskSpec> {
            let mut v = Vec::new();
            for p in 0..=self.procs {
                for th in 0..2 {
                    let mut s = TaskSpec::new(format!("p{p}-{th}"), 100_000 + p as u32);
                    s.forked = false;
                    s.start_at = p as Ns * self.gap;
                    v.push(s);
                }
            }
            v
        }

        fn next(&mut self, t: TaskId, now: Ns, _fx: &mut Effects) -> Step {
            let last = t >= 2 * self.procs;
            self.step[t] += 1;
            match (self.step[t], last) {
                (1, false) => Step::Run(50_000),
                (2, false) if self.live > 0 => Step::Sleep(self.live),
                (1, true) => Step::Run(300_000_000),
                _ => self.exits.exit(now),
            }
        }

        fn finished(&self) -> bool {
            self.exits.finished()
        }

        fn metrics(&self, _elapsed: Ns) -> Vec<Metric> {
            Vec::new()
        }
    }

    /// Counters of scx_arbor (CACHE_LB on, tolerance x2 so that 2 threads
    /// on SMT2 are eligible in a 4-CPU LLC) after a Churn run on 2s2c2t.
    fn churn_counters(procs: usize, gap: Ns, live: Ns) -> std::collections::HashMap<String, u64> {
        let m = crate::presets::find("2s2c2t").unwrap();
        let mut knobs = Knobs::default();
        knobs.cache.llc_tolerance = 2;
        let mut wl = Churn::new(procs, gap, live);
        let cfg = Config {
            time_limit: 60_000_000_000,
            ..Config::default()
        };
        let (_, counters, stop) =
            run_workload(&m, "arbor:stock:CACHE_LB", &knobs, &mut wl, cfg).unwrap();
        assert!(matches!(stop, Stop::Finished), "{stop:?}");
        counters.into_iter().collect()
    }

    /// Seed 002's process table (llc_proc, 4,096 entries) under churn: 5,000
    /// short two-thread processes, one after another, do not fill the table
    /// (entries go at exit), and a new two-thread process is still aggregated.
    /// Before the fix no entry was ever deleted: the table filled at the
    /// 4,097th process and the last one never got a preferred LLC
    /// (llc_pref_tasks_in stayed 0).
    #[test]
    fn process_table_survives_churn_and_aggregation_still_acts() {
        let c = churn_counters(5000, 200_000, 0);
        assert_eq!(c["llc_proc_insert_fails"], 0, "{c:?}");
        assert!(c["llc_pref_tasks_in"] > 0, "{c:?}");
    }

    /// The map-full case: 4,200 two-thread processes alive at once (each
    /// sleeps 2 s after its first run) cannot all have an entry; the
    /// inserts that found the table full are counted.
    #[test]
    fn a_full_process_table_is_counted() {
        let c = churn_counters(4200, 100_000, 2_000_000_000);
        let fails = c["llc_proc_insert_fails"];
        assert!(fails >= 104, "{c:?}");
    }

    /// Active balance (fair.c need_active_balance): two CPU-bound tasks X and Y
    /// start while core 1 of 1s2c2t (CPUs 2, 3) is held by two pinned tasks, so
    /// they land on the two siblings of core 0. At 50 ms the pinned tasks exit:
    /// X and Y stay stacked on one core (nothing is queued, so nothing pulls)
    /// unless the balancer moves a lone running task (active balance). Returns
    /// the simulated end time and the counters.
    fn stacked_run(sched: &str) -> (Ns, std::collections::HashMap<String, u64>) {
        struct Stacked {
            step: Vec<u8>,
            exits: Exits,
        }
        impl Workload for Stacked {
            fn tasks(&self) -> Vec<TaskSpec> {
                let mut v = Vec::new();
                for (i, cpu) in [2usize, 3].iter().enumerate() {
                    let mut s = TaskSpec::new(format!("pin{i}"), 10 + i as u32);
                    s.cpus = Some(vec![*cpu]);
                    s.forked = false;
                    v.push(s);
                }
                for i in 0..2u32 {
                    let mut s = TaskSpec::new(format!("x{i}"), 20 + i);
                    s.forked = false;
                    s.start_at = 1_000_000;
                    v.push(s);
                }
                v
            }
            fn next(&mut self, t: TaskId, now: Ns, _fx: &mut Effects) -> Step {
                self.step[t] += 1;
                match (self.step[t], t < 2) {
                    (1, true) => Step::Run(50_000_000),
                    (1, false) => Step::Run(400_000_000),
                    _ => self.exits.exit(now),
                }
            }
            fn finished(&self) -> bool {
                self.exits.finished()
            }
            fn metrics(&self, _elapsed: Ns) -> Vec<Metric> {
                Vec::new()
            }
        }
        let m = crate::presets::find("1s2c2t").unwrap();
        let mut wl = Stacked {
            step: vec![0; 4],
            exits: Exits::new(4),
        };
        let cfg = Config {
            time_limit: 5_000_000_000,
            ..Config::default()
        };
        let (core, counters, stop) =
            run_workload(&m, sched, &Knobs::default(), &mut wl, cfg).unwrap();
        assert!(matches!(stop, Stop::Finished), "{stop:?}");
        (core.now, counters.into_iter().collect())
    }

    /// With LB_IMBALANCE (on in `stock`) an idle CPU of the freed core
    /// takes one of the two stacked tasks (active balance), and the two
    /// finish sooner than when they keep sharing one core's SMT siblings.
    /// Before the balancer was wired (and with NO_LB_IMBALANCE) nothing
    /// moved a lone running task: lb_active 0 and the longer time.
    #[test]
    fn active_balance_unstacks_two_tasks_from_one_core() {
        let (t_on, on) = stacked_run("arbor:stock");
        let (t_off, off) = stacked_run("arbor:stock:NO_LB_IMBALANCE");
        eprintln!(
            "stacked: LB_IMBALANCE {} ms (lb_active {}, lb_pulls {}), NO_LB_IMBALANCE {} ms",
            t_on / 1_000_000,
            on["lb_active"],
            on["lb_pulls"],
            t_off / 1_000_000
        );
        assert!(on["lb_active"] >= 1, "{on:?}");
        assert_eq!(off["lb_active"], 0);
        assert_eq!(off["lb_pulls"], 0);
        assert!(
            t_on * 10 < t_off * 9,
            "unstacked {} ms vs stacked {} ms",
            t_on / 1_000_000,
            t_off / 1_000_000
        );
    }
}
