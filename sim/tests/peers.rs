//! The peers (other sched_ext schedulers, from their own BPF C, unmodified:
//! sim/build.rs, sched/peers.rs) run in the simulator: to completion, with
//! no stall, doing what their code says.

use arbor_sim::core::Config;
use arbor_sim::presets;
use arbor_sim::run::{simulate_defaults, Outcome};
use arbor_sim::sched::SchedSpec;

fn run(preset: &str, sched: &str, workload: &str) -> Outcome {
    let m = presets::find(preset).unwrap();
    let sched = SchedSpec::parse(sched).unwrap_or_else(|e| panic!("{e:#}"));
    simulate_defaults(&m, &sched, workload, Config::default(), 1)
        .unwrap_or_else(|e| panic!("{sched:?}: {e:#}"))
}

/// `peer` runs hackbench:g=2,l=200 on 2s2c2t to the end: not stalled, not
/// ejected, every message (g groups x 20 senders x 20 receivers x l)
/// delivered.
fn hackbench_completes(peer: &str) -> Outcome {
    let o = run("2s2c2t", peer, "hackbench:g=2,l=200");
    assert!(o.ok && !o.ejected, "{}", o.stop);
    assert_eq!(o.stop, "finished");
    assert_eq!(metric(&o, "messages"), (2 * 20 * 20 * 200) as f64);
    o
}

/// `peer` runs wakeprobe:m=1,w=2,t=1 (a message thread waking 2 workers)
/// on 2s2c2t: not stalled, not ejected, and no wake-up waits longer than
/// an idle exit (p99 under 10 us).
fn wakeprobe_completes(peer: &str) -> Outcome {
    let o = run("2s2c2t", peer, "wakeprobe:m=1,w=2,t=1");
    assert!(o.ok && !o.ejected, "{}", o.stop);
    let p99 = metric(&o, "wake_p99_us");
    assert!(p99 < 10.0, "wake-up p99 {p99} us");
    o
}

fn metric(o: &Outcome, name: &str) -> f64 {
    o.metric(name).unwrap_or_else(|| panic!("no metric {name}"))
}

fn counter(o: &Outcome, name: &str) -> u64 {
    o.counter(name)
        .unwrap_or_else(|| panic!("no counter {name}: {:?}", o.counters))
}

/// scx_bpfland runs hackbench to completion on a 2-node SMT machine
/// (2s2c2t: NUMA and SMT on, so per-node idle masks and its SMT sibling
/// masks are in use), every message delivered, no stall, not ejected; both
/// its dispatch paths are taken (direct to an idle CPU's DSQ, and the
/// node's shared DSQ).
#[test]
fn bpfland_runs_hackbench_to_completion() {
    let o = hackbench_completes("bpfland");
    let (direct, shared) = (
        counter(&o, "nr_direct_dispatches"),
        counter(&o, "nr_shared_dispatches"),
    );
    assert!(direct > 0 && shared > 0, "direct {direct}, shared {shared}");
}

/// Its idle pick puts a waking task on an idle CPU when one exists: a
/// message thread waking 2 workers (FUTEX_WAKE, no WF_SYNC) on 8 CPUs
/// always has idle CPUs, so bpfland's select_cpu (scx_bpf_select_cpu_and)
/// finds one for every wake-up: all dispatches are direct, none goes to the
/// shared DSQ, and no wake-up waits longer than an idle exit.
#[test]
fn bpfland_idle_pick_places_wakeups_on_idle_cpus() {
    let o = run("2s2c2t", "bpfland", "wakeprobe:m=1,w=2,t=1");
    assert!(o.ok, "{}", o.stop);
    let (direct, shared) = (
        counter(&o, "nr_direct_dispatches"),
        counter(&o, "nr_shared_dispatches"),
    );
    assert!(
        direct > 10000 && shared == 0,
        "direct {direct}, shared {shared}"
    );
    let p99 = metric(&o, "wake_p99_us");
    assert!(p99 < 10.0, "wake-up p99 {p99} us");
}

/// Same on a 12-CPU machine without NUMA (global idle masks, no per-node
/// flag): arbor and bpfland both finish the same hackbench.
#[test]
fn bpfland_and_arbor_side_by_side_on_x86_12() {
    for s in ["arbor:default", "bpfland"] {
        let o = run("x86-12", s, "hackbench:g=2,l=100");
        assert!(o.ok, "{s}: {}", o.stop);
        assert_eq!(metric(&o, "messages"), (2 * 20 * 20 * 100) as f64, "{s}");
    }
}

/// scx_p2dq (its BPF C and scx's arena library, on the shim's arena) runs
/// hackbench to completion on a 2-node SMT machine, no stall, not ejected.
#[test]
fn p2dq_runs_hackbench_to_completion() {
    hackbench_completes("p2dq");
}

/// Its idle pick puts a waking task on an idle CPU when one exists: on 8
/// CPUs a message thread waking 2 workers always leaves idle CPUs, so
/// p2dq's select_cpu counts an idle pick (P2DQ_STAT_IDLE) for every
/// wake-up, and no wake-up waits longer than an idle exit.
#[test]
fn p2dq_idle_pick_places_wakeups_on_idle_cpus() {
    let o = wakeprobe_completes("p2dq");
    let (idle, wakeups) = (counter(&o, "idle"), metric(&o, "wakeups") as u64);
    assert!(
        wakeups > 10000 && idle == wakeups,
        "idle {idle}, wake-ups {wakeups}"
    );
}

/// On a one-LLC machine p2dq's load-balance timer computes
/// `llc_lb_offset % (nr_llcs - 1)`, a modulo by zero, which BPF defines
/// (x % 0 = x) and x86 traps on: the run must finish (sched/divzero.rs).
#[test]
fn p2dq_survives_its_modulo_by_zero_on_one_llc() {
    let o = run("x86-12", "p2dq", "wakeprobe:t=4");
    assert!(o.ok && !o.ejected, "{}", o.stop);
    assert_eq!(o.stop, "finished");
}

/// scx_rusty (its BPF C with its own arena allocator, sdt_alloc / sdt_task,
/// run without its user-space load balancer and tuner) runs hackbench to
/// completion on a 2-node SMT machine (two domains, one per LLC, as its
/// loader sets them up), every message delivered, no stall, not ejected.
#[test]
fn rusty_runs_hackbench_to_completion() {
    let o = hackbench_completes("rusty");
    assert!(counter(&o, "dsq_dispatch") > 0);
}

/// Its select_cpu keeps a waking task on its previous CPU when that CPU is
/// idle (RUSTY_STAT_PREV_IDLE): on 8 CPUs a message thread waking 2 workers
/// always leaves their CPUs idle, so (past the first wake-ups) every
/// wake-up is a prev-idle pick, and none waits longer than an idle exit.
/// It fails if the domains its loader writes (cpu_dom_id_map,
/// dom_cpumasks) do not cover the CPUs: rusty_init then fails.
#[test]
fn rusty_keeps_wakeups_on_their_idle_prev_cpu() {
    let o = wakeprobe_completes("rusty");
    let (prev_idle, wakeups) = (counter(&o, "prev_idle"), metric(&o, "wakeups") as u64);
    assert!(
        // the first wake-ups: the 3 tasks' and their parent's forks, and the first requests
        wakeups > 10000 && prev_idle + 5 >= wakeups,
        "prev_idle {prev_idle}, wake-ups {wakeups}"
    );
}

/// scx_cosmos (its BPF C and scx's lib/pmu.bpf.c, with its loader's
/// defaults) runs hackbench to completion on a 2-node SMT machine: NUMA on
/// (per-node idle masks, scx_bpf_pick_idle_cpu_node, one shared DSQ per
/// node through the cpu_node_map its loader fills) and SMT on (its sibling
/// masks); every message delivered, no stall, not ejected. Without the
/// loader's cpu_node_map its cpu_node() is -ENOENT, used as a DSQ id
/// (0xffff...fffe), which the core refuses (seen: ejected at
/// scx_bpf_dsq_move_to_local).
#[test]
fn cosmos_runs_hackbench_to_completion() {
    let o = hackbench_completes("cosmos");
    // the default options leave its counters (perf events, GPU, primary
    // overload) at 0
    assert_eq!(counter(&o, "nr_overload_events"), 0);
}

/// Its idle pick puts a waking task on an idle CPU by an IMMED insert into
/// that CPU's local DSQ (select_cpu -> direct_dispatch_local): on 8 CPUs a
/// message thread waking 2 workers always finds idle CPUs, so no wake-up
/// waits longer than an idle exit and none of those IMMED inserts is sent
/// back (the CPU is open). If the core took an idle CPU for one that
/// cannot run the task now (rq_is_open false), every such insert would be
/// re-enqueued and this fails (seen: wake_p99 and reenq_immed).
#[test]
fn cosmos_idle_pick_places_wakeups_on_idle_cpus() {
    let o = wakeprobe_completes("cosmos");
    assert!(metric(&o, "wakeups") > 10000.0);
    assert_eq!(o.reenq_immed, 0);
}

/// Under hackbench (more runnable tasks than CPUs) its IMMED inserts do
/// meet CPUs that can no longer run them at once, and the core sends those
/// back through its ops.enqueue (SCX_ENQ_REENQ), as 7.2's ext.c does.
#[test]
fn cosmos_immed_inserts_are_reenqueued_under_load() {
    let o = run("x86-12", "cosmos", "hackbench:g=2,l=200");
    assert!(o.ok && !o.ejected, "{}", o.stop);
    assert!(
        o.reenq_immed > 0,
        "no IMMED re-enqueue in {} wake-ups",
        o.wakeups
    );
}

/// scx_lavd (its BPF C, its own sources and scx's library, on the shim's
/// arena, root cgroup and PELT clocks; its loader's compute domains) runs
/// hackbench to completion on a 2-node SMT machine, no stall, not ejected;
/// its ops.cgroup_init and ops.cgroup_exit ran once each, for the root
/// cgroup (scx_cgroup_init / scx_cgroup_exit), and bpfland, which has
/// neither op, was not charged for them.
#[test]
fn lavd_runs_hackbench_to_completion() {
    let o = hackbench_completes("lavd");
    let calls = |o: &Outcome, op: &str| {
        o.bpf_ops
            .iter()
            .find(|(n, _, _)| n == op)
            .map_or(0, |x| x.1)
    };
    assert_eq!(calls(&o, "cgroup_init"), 1, "{:?}", o.bpf_ops);
    assert_eq!(calls(&o, "cgroup_exit"), 1, "{:?}", o.bpf_ops);
    let b = run("2s2c2t", "bpfland", "hackbench:g=1,l=10");
    assert_eq!(calls(&b, "cgroup_init") + calls(&b, "cgroup_exit"), 0);
}

/// lavd's idle pick puts a waking task on an idle CPU when one exists: a
/// message thread waking 2 workers on 8 CPUs always has idle CPUs, so no
/// wake-up waits longer than an idle exit (a pick that queued wake-ups
/// behind a busy CPU would wait for its slice: ms).
#[test]
fn lavd_idle_pick_places_wakeups_on_idle_cpus() {
    wakeprobe_completes("lavd");
}

/// p2dq with the highest CPU offline at load (docs/peers/README.md, the
/// "offline from the start" case): its loader tells it nr_cpu_ids = 12,
/// the sysfs count (scx_utils NR_CPU_IDS), as every task's
/// nr_cpus_allowed is, so its tasks are not taken for affinitized ones
/// (main.bpf.c:1908-1910) and sysbench runs to the end. With the highest
/// online CPU + 1 (11) it stalled: "runnable task stall".
#[test]
fn p2dq_runs_with_its_highest_cpu_offline() {
    let o = run(
        "shape:n=2,l=3,c=1,t=2,d=20,offline=6+8+11",
        "p2dq",
        "sysbench:threads=3,time=1",
    );
    assert!(o.ok && !o.ejected, "{}", o.stop);
    assert_eq!(o.stop, "finished");
}

/// One run of `sched` on `preset` with CPU `cpu` taken offline at `at_ns`
/// (a hotplug restart for a scheduler without ops.cpu_offline).
fn run_with_cpu_offline(
    preset: &str,
    sched: &str,
    workload: &str,
    cfg: Config,
    at_ns: u64,
    cpu: usize,
    seed: u64,
) -> Outcome {
    use arbor_sim::core::hotplug::Hotplug;
    let m = presets::find(preset).unwrap();
    let sched = SchedSpec::parse(sched).unwrap();
    let cfg = Config {
        hotplug: vec![Hotplug {
            at: at_ns,
            cpu,
            online: false,
        }],
        ..cfg
    };
    simulate_defaults(&m, &sched, workload, cfg, seed).unwrap_or_else(|e| panic!("{e:#}"))
}

/// `json` as an rt-app file under `sched` on `preset`, 300 ms, with CPU 1
/// taken offline at 50 ms (seed 1); the file's directory is removed after.
fn rtapp_with_cpu1_offline(tag: &str, preset: &str, sched: &str, json: &str) -> Outcome {
    let dir = std::env::temp_dir().join(format!("arbor-peers-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(format!("{tag}.json"));
    std::fs::write(&f, json).unwrap();
    let cfg = Config {
        time_limit: 300_000_000,
        ..Config::default()
    };
    let spec = format!("rt-app:{}", f.display());
    let o = run_with_cpu_offline(preset, sched, &spec, cfg, 50_000_000, 1, 1);
    std::fs::remove_dir_all(&dir).ok();
    o
}

/// A thread pinned to CPU 1 sleeps while CPU 1 goes offline.
/// scx_rusty has no ops.cpu_offline, so it is restarted; its ops.init_task
/// on the reload sees a mask that meets no domain of the CPUs left and
/// leaves the task without one (main.bpf.c task_set_domain,
/// NO_DOM_FOUND). At the thread's wake-up select_fallback_rq widens its
/// mask (do_set_cpus_allowed), which in the kernel calls ops.set_cpumask
/// (set_cpus_allowed_scx, ext.c:3562-3582), where rusty picks a domain
/// again. The sim used to widen the mask silently: ops.runnable then read
/// the task's NULL domain pointer, and the simulation died of SIGSEGV.
#[test]
fn rusty_gets_set_cpumask_when_a_wakeup_breaks_affinity_after_hotplug() {
    let o = rtapp_with_cpu1_offline(
        "hp",
        "shape:n=1,l=2,c=1,t=1",
        "rusty",
        r#"{"tasks": {
            "pinned": {"loop": -1, "cpus": [1], "run": 200, "sleep": 100000},
            "other": {"loop": -1, "run": 500, "sleep": 2000}
        }}"#,
    );
    assert!(o.ok && !o.ejected, "{}", o.stop);
    assert_eq!(o.restarts.len(), 1, "{:?}", o.restarts);
    let set_cpumask = o
        .bpf_ops
        .iter()
        .find(|(op, _, _)| op == "set_cpumask")
        .map_or(0, |x| x.1);
    assert!(set_cpumask >= 1, "{:?}", o.bpf_ops);
}

/// Found by the fuzzer (seed 5): scx_qmap (SCX_OPS_TID_TO_TASK) is restarted
/// when CPU 1 goes offline, and threads start after the restart. A task keeps
/// its tid (p->scx.tid) across a restart, and the kernel's tid cursor is global
/// (ext.c:95-96, 3971-3984): tids are never reused. The sim's cursor lived in
/// the scheduler's instance, so the fresh instance counted from 1 again; its
/// first fork took the tid of a task that was still live, the tid table refused
/// the duplicate and the run was ejected with "the sim's tid table is full
/// (65536 live tasks)".
#[test]
fn qmap_tids_stay_unique_across_a_hotplug_restart() {
    let o = rtapp_with_cpu1_offline(
        "tid",
        "shape:n=1,l=1,c=2,t=1",
        "kernel:scx_qmap",
        r#"{"tasks": {
            "early": {"instance": 2, "loop": -1, "run": 500, "sleep": 2000},
            "late": {"instance": 2, "delay": 100000, "loop": -1, "run": 500, "sleep": 2000}
        }}"#,
    );
    assert!(o.ok && !o.ejected, "{}", o.stop);
    assert_eq!(o.restarts.len(), 1, "{:?}", o.restarts);
}

/// Found by the fuzzer (seed 5, case 2444, cut to one hotplug event): eight
/// sysbench threads under scx_qmap on 4 CPUs, CPU 3 offline at 56 ms.
/// sysbench-3 sat in qmap's FIFO (in BPF custody) on CPU 3; the offline
/// CPU's rq took it back onto its local DSQ, which ends custody and makes
/// an ops.dequeue due. Then qmap, which has no ops.cpu_offline, was
/// restarted. The due dequeue outlived the old instance: the sim called it
/// on the fresh one, after the restart had enqueued the task afresh, and
/// qmap_dequeue took the task out of its new FIFO. Nothing held it any
/// more, and the watchdog ejected qmap ("sysbench-3 failed to run").
#[test]
fn qmap_keeps_a_task_the_old_instance_owed_a_dequeue_across_a_restart() {
    let cfg = Config {
        time_limit: 2_000_000_000,
        watchdog_ns: 1_000_000_000,
        ..Config::default()
    };
    let o = run_with_cpu_offline(
        "shape:n=1,l=2,c=1,t=2",
        "kernel:scx_qmap",
        "sysbench:threads=8,time=1",
        cfg,
        56_000_000,
        3,
        643176,
    );
    assert!(o.ok && !o.ejected, "{}", o.stop);
    assert_eq!(o.restarts.len(), 1, "{:?}", o.restarts);
}

/// Every peer runs two groups' spinners on 2s2c2t through a move, cpu.weight,
/// cpu.max and cpu.idle writes, an rmdir and an mkdir (`--cgroup-event`)
/// to the end, and is called for each run-time cgroup callback it defines
/// (lavd: its ops.cgroup_move and ops.cgroup_set_bandwidth), as for the
/// load-time ones.
#[test]
fn peers_get_the_run_time_cgroup_callbacks_they_define() {
    let events = "300ms move 0-4 /b; 400ms weight /b 300; 500ms max /b 50000; \
                  550ms idle /b 1; 600ms rmdir /a; 700ms mkdir /c";
    let cfg = Config {
        cgroup_events: arbor_sim::core::cgroup_events::parse(&[events.into()]).unwrap(),
        ..Config::default()
    };
    let m = presets::find("2s2c2t").unwrap();
    let w = "spinners:procs=1,threads=4,time=1,cg=/a & spinners:procs=1,threads=4,time=1,cg=/b";
    for peer in ["bpfland", "cosmos", "lavd", "p2dq", "rusty"] {
        let sched = SchedSpec::parse(peer).unwrap();
        let o = simulate_defaults(&m, &sched, w, cfg.clone(), 1).unwrap();
        assert!(o.ok && !o.ejected, "{peer}: {}", o.stop);
        let n = |op: &str| o.bpf_ops.iter().find(|c| c.0 == op).map_or(0, |c| c.1);
        eprintln!(
            "{peer}: cgroup_init {} exit {} prep_move {} move {} set_weight {} set_bandwidth {} set_idle {}",
            n("cgroup_init"),
            n("cgroup_exit"),
            n("cgroup_prep_move"),
            n("cgroup_move"),
            n("cgroup_set_weight"),
            n("cgroup_set_bandwidth"),
            n("cgroup_set_idle")
        );
        if peer == "lavd" {
            // five tasks moved (four threads and their parent); one
            // cgroup_init / cgroup_exit call at the load / unload, one for
            // /c's mkdir, one for /a's rmdir
            assert_eq!(
                (
                    n("cgroup_move"),
                    n("cgroup_set_bandwidth"),
                    n("cgroup_init"),
                    n("cgroup_exit")
                ),
                (5, 1, 2, 2)
            );
        }
    }
}
