//! Feature switches, like the kernel's `sched_features`: each has a name (the
//! kernel's where one exists), a default and a one-line meaning. `-f NAME`
//! turns one on, `-f NO_NAME` off. The result is a bitmask the BPF program
//! reads from its `features` variable, so it can change at run time.

use anyhow::{bail, Result};

use crate::bpf_intf;

pub struct Feature {
    pub name: &'static str,
    pub bit: u32,
    /// On in the `default` profile (and in `seeds`, for seed features).
    pub default: bool,
    /// Which seed proposed it (None: the stock kernel's baseline).
    pub seed: Option<&'static str>,
    pub help: &'static str,
}

pub const FEATURES: &[Feature] = &[
    Feature {
        name: "WA_IDLE",
        bit: bpf_intf::arbor_feature_FEAT_WA_IDLE,
        default: true,
        seed: None,
        help: "wake_affine: decide this-vs-prev by idleness first (baseline)",
    },
    Feature {
        name: "WA_WEIGHT",
        bit: bpf_intf::arbor_feature_FEAT_WA_WEIGHT,
        default: true,
        seed: None,
        help: "wake_affine: else pull to this only if its effective load stays lower (baseline)",
    },
    Feature {
        name: "WA_BIAS",
        bit: bpf_intf::arbor_feature_FEAT_WA_BIAS,
        default: true,
        seed: None,
        help: "wake_affine: favour prev by half of imbalance_pct in WA_WEIGHT (baseline)",
    },
    Feature {
        name: "WAKE_WIDE",
        bit: bpf_intf::arbor_feature_FEAT_WAKE_WIDE,
        default: true,
        seed: None,
        help: "skip wake_affine for 1:N wakers detected by wakee flips (baseline)",
    },
    Feature {
        name: "SIS_UTIL",
        bit: bpf_intf::arbor_feature_FEAT_SIS_UTIL,
        default: true,
        seed: None,
        help: "limit the idle-CPU scan depth by LLC utilisation (baseline)",
    },
    Feature {
        name: "NEWIDLE",
        bit: bpf_intf::arbor_feature_FEAT_NEWIDLE,
        default: true,
        seed: None,
        help:
            "a CPU going idle pulls queued work, SMT->LLC->node->machine, cost-bounded (baseline)",
    },
    Feature {
        name: "WA_IDLER_LLC",
        bit: bpf_intf::arbor_feature_FEAT_WA_IDLER_LLC,
        default: true,
        seed: Some("000"),
        help: "wake_affine across LLCs: prefer the LLC with the smaller busy fraction (seed 000)",
    },
    Feature {
        name: "WA_WAKER",
        bit: bpf_intf::arbor_feature_FEAT_WA_WAKER,
        default: false,
        seed: Some("000"),
        help: "with WA_IDLER_LLC: any free CPU in the waker's LLC wins (seed 000, off there too)",
    },
    Feature {
        name: "WA_THROTTLE",
        bit: bpf_intf::arbor_feature_FEAT_WA_THROTTLE,
        default: true,
        seed: Some("001"),
        help: "after a failed wake_affine, none for --wake-affine-interval-ms (seed 001)",
    },
    Feature {
        name: "STEAL",
        bit: bpf_intf::arbor_feature_FEAT_STEAL,
        default: true,
        seed: Some("003"),
        help: "a CPU going idle steals from an overloaded CPU of its LLC, siblings first (seed 003)",
    },
    Feature {
        name: "ASYM_WAKE_CAP",
        bit: bpf_intf::arbor_feature_FEAT_ASYM_WAKE_CAP,
        default: true,
        seed: Some("004"),
        help: "asymmetric CPUs: a wakee too big for prev/this is placed by spare capacity (seed 004)",
    },
    // The kernel's own on every machine of unequal capacities (its
    // SD_ASYM_CPUCAPACITY domains: select_idle_sibling's asymmetric path
    // and misfit balancing), so on in every profile, `stock` included; they
    // act only where capacities differ by >= 1/8 (`asym`). Seed 004's era
    // (before 4.20 and 5.7) had neither: `arbor sim reproduce` turns them
    // off for its tip and patch columns.
    Feature {
        name: "ASYM_IDLE_CAPACITY",
        bit: bpf_intf::arbor_feature_FEAT_ASYM_IDLE_CAPACITY,
        default: true,
        seed: None,
        help: "asymmetric CPUs: idle search takes the first idle CPU the task fits, else the biggest idle CPU (baseline: fair.c select_idle_capacity, 5.7+)",
    },
    Feature {
        name: "ASYM_MISFIT",
        bit: bpf_intf::arbor_feature_FEAT_ASYM_MISFIT,
        default: true,
        seed: None,
        help: "asymmetric CPUs: at tick, move a task that does not fit to an idle CPU >= 5% bigger (baseline: fair.c update_misfit_status and misfit balancing, 4.20+)",
    },
    Feature {
        name: "CACHE_LB",
        bit: bpf_intf::arbor_feature_FEAT_CACHE_LB,
        default: true,
        seed: Some("002"),
        help: "aggregate a process's threads in its hottest LLC; balancing keeps them there and, with LB_IMBALANCE, pulls them in when balanced; acts only on machines of more than one LLC, as 7.2's sched_cache_present (seed 002)",
    },
    Feature {
        name: "CACHE_WAKE",
        bit: bpf_intf::arbor_feature_FEAT_CACHE_WAKE,
        default: false,
        seed: Some("002"),
        help: "with CACHE_LB: wake tasks into their preferred LLC (seed 002 RFC; dropped upstream)",
    },
    Feature {
        name: "NI_RANDOM",
        bit: bpf_intf::arbor_feature_FEAT_NI_RANDOM,
        default: true,
        seed: None,
        help: "newidle tries each level in proportion to its recent success rate (baseline, 6.18)",
    },
    // The kernels of seeds 000, 001, 003 and 004 (before 5.16) skipped
    // newidle balancing while the CPU's average idle time was below
    // sysctl_sched_migration_cost (--migration-cost-us); 5.16 replaced the
    // test with the per-domain max_newidle_lb_cost (NEWIDLE's own gate).
    // Off in every profile (today's kernel); `arbor sim reproduce` turns it
    // on for the seeds measured on older kernels.
    Feature {
        name: "NI_MIGRATION_COST",
        bit: bpf_intf::arbor_feature_FEAT_NI_MIGRATION_COST,
        default: false,
        seed: None,
        help: "newidle skipped while avg_idle < --migration-cost-us (kernels before 5.16; for seed-era baselines)",
    },
    // Ours, not the seed's: with CACHE_LB, when the
    // hottest LLC is over --llc-aggr-pct and the process runs at least half
    // as much in an LLC that is not, prefer that one (policy.h
    // arbor_cache_pick_pref). Without it two processes split evenly over two
    // LLCs both pick the first on the tie, allow_into then refuses the second
    // one's threads and it stays split. The merged series leaves that case to
    // the kernel's active balance (need_active_balance / migrate_llc_task),
    // which scx_arbor did not have when this rule was written (LB_IMBALANCE
    // now has active balance, but not the seed's migrate_llc_task), so the
    // rule stays on by default; NO_CACHE_ROOM gives the seed's pure 2x
    // hysteresis.
    Feature {
        name: "CACHE_ROOM",
        bit: bpf_intf::arbor_feature_FEAT_CACHE_ROOM,
        default: true,
        seed: Some("002"),
        help: "with CACHE_LB: prefer an as-hot LLC with room over a full hottest one (ours, not the seed's)",
    },
    // Periodic balancing as fair.c's sched_balance_rq
    // (find_busiest_group, calculate_imbalance, find_busiest_queue,
    // detach_tasks, need_active_balance), simplified as policy.h says. The
    // kernel's baseline behaviour, so on in every profile, `stock` included.
    // Off: a busy CPU pulls only when another CPU has >= 2 more tasks, and
    // nothing moves a lone running task. Kicked idle CPUs keep the ungated
    // fallback pull either way (the never-stall rule).
    // The baseline's wake-up preemption (check_preempt_wakeup_fair, EEVDF):
    // a wakee queued on a busy CPU preempts its task when it is eligible
    // with the earlier deadline. On in every profile. Off approximates a
    // CFS kernel run with a large sched_wakeup_granularity_ns, as seed 003
    // measured (15 ms: "Otherwise, preemptions increase at higher loads and
    // distort the comparison"); `arbor sim reproduce steal` turns it off
    // for those tables.
    Feature {
        name: "WAKE_PREEMPT",
        bit: bpf_intf::arbor_feature_FEAT_WAKE_PREEMPT,
        default: true,
        seed: None,
        help: "a wakee preempts a busy CPU's task when eligible with the earlier deadline (baseline); NO_ for seed 003's 15 ms wakeup granularity",
    },
    // EEVDF's RUN_TO_PARITY (kernel/sched/features.h, on since 6.6): a
    // wakee that pick_eevdf would pick does not preempt the running task
    // before it has used the request it was picked with (policy.h
    // arbor_protect_until). The kernel's default, but OFF in every profile
    // here: with it (as with NO_WAKE_PREEMPT), fuzz case A
    // (sim/tests/fuzz_regressions.rs, nice jumps on pinned tasks) leaves a
    // nice-0 task waiting over 5 s (over 14 s without wake-up preemption),
    // which the wake-up preemptions had been cutting short; whether that
    // wait is EEVDF's own arithmetic or the port's is not settled
    // (docs/findings/2026-11-27-run-to-parity). On the default-vs-peers
    // suite's cells it changed nothing significant.
    Feature {
        name: "RUN_TO_PARITY",
        bit: bpf_intf::arbor_feature_FEAT_RUN_TO_PARITY,
        default: false,
        seed: None,
        help: "with WAKE_PREEMPT: the running task is not preempted by a wakee before it used the request (slice, at most one) it was picked with (kernel: EEVDF 6.6+, on there; off here until a starvation case is understood). Counter: parity_kept",
    },
    // Seed 001 measured on 3.10, whose select_idle_sibling() (3.9 to 4.8)
    // took a wholly idle core of the LLC, else an idle SMT sibling of
    // target, else target: never an idle thread of another busy core, as
    // the 4.9+ scan does (policy.h: arbor_select_idle_group). Off in every
    // profile (today's kernel); `arbor sim reproduce` turns it on for the
    // seeds measured on kernels before 4.9 (001, 004).
    Feature {
        name: "SIS_IDLE_GROUP",
        bit: bpf_intf::arbor_feature_FEAT_SIS_IDLE_GROUP,
        default: false,
        seed: None,
        help: "select_idle_sibling as 3.9-4.8: an idle core, else target's idle sibling, else target (for seed-era baselines)",
    },
    // Ours, not the kernel's: off in `stock` and `seeds`, on in `default`
    // (DEFAULT_ONLY says why). policy.h arbor_wake_node_keep has the rule
    // and its sources.
    Feature {
        name: "WAKE_NODE",
        bit: bpf_intf::arbor_feature_FEAT_WAKE_NODE,
        default: false,
        seed: None,
        help: "no wake_affine pull out of prev's node while that node has an idle CPU, where the node is one LLC (the kept wakee stays in its cache) (kernel: no SD_WAKE_AFFINE beyond node_reclaim_distance; allow_numa_imbalance; p2dq/cosmos node-first search). Counter: wake_node_kept",
    },
    // Ours, as WAKE_NODE: policy.h arbor_newidle_level has the
    // rule and its sources.
    Feature {
        name: "IDLE_PULL",
        bit: bpf_intf::arbor_feature_FEAT_IDLE_PULL,
        default: false,
        seed: None,
        help: "a CPU going idle while a task waits in its LLC tries its core and its LLC, past newidle's cost bound and NI_RANDOM dice, where its node holds several LLCs (POWER cores, CCXs, clusters) the node too, and where its node is one LLC on a machine of several (sockets, SNC nodes) the other nodes, cache-hot tasks included; beyond a node of several LLCs those still decide (kernel: sched_balance_newidle's two predictions, replaced by the fact; cosmos: an idle CPU always drains its node's queue). Counter: idle_pulls",
    },
    // Ours, as WAKE_NODE: policy.h arbor_sync_local has the
    // rule and its sources.
    Feature {
        name: "SYNC_LOCAL",
        bit: bpf_intf::arbor_feature_FEAT_SYNC_LOCAL,
        default: false,
        seed: None,
        help: "a sync wakee queues on the waker's CPU when that CPU runs only the waker and the waker slept right after (within --migration-cost-us) each of its last 8 sync wake-ups (kernel: WF_SYNC's promise, wake_affine's avg_overlap test of 2.6.24-2.6.35; rusty/bpfland without the learning). Counters: sync_local, sync_kept, sync_broken",
    },
    // Ours, as WAKE_NODE: policy.h arbor_sis_node_pick has the
    // rule and its sources.
    Feature {
        name: "SIS_NODE",
        bit: bpf_intf::arbor_feature_FEAT_SIS_NODE,
        default: false,
        seed: None,
        help: "when select_idle_sibling finds no idle CPU in target's LLC, take an idle CPU of its node, from prev: the nearest one idle for --migration-cost-us already, else the nearest, while under 85% of the node is busy; nothing where a node is one LLC (kernel: SIS_NODE of the 2023 multi-LLC select_idle_sibling, not merged; task_hot from the CPU's side; sched_ext's scx_select_cpu_dfl LLC-then-node order; seed 000's small-LLC premise). On in default only (docs/findings/2026-11-27-spawn-parent; versions: docs/findings/2026-11-27-sis-node). Counter: sis_node_found",
    },
    // Ours: a cost saving, not a placement rule; on in
    // every profile because the placement is the same either way
    // (main.bpf.c wake_prev_idle has the argument; sim/src/run.rs tests it).
    Feature {
        name: "WAKE_SHORTCUT",
        bit: bpf_intf::arbor_feature_FEAT_WAKE_SHORTCUT,
        default: true,
        seed: None,
        help: "select_cpu claims an idle prev at once when wake_affine would keep the wakee there, without copying the idle mask first: the placement select_idle_sibling makes (an idle target first), one call instead of four. Placement-neutral: on in every profile, NO_WAKE_SHORTCUT only to compare. Counter: wake_prev_idle",
    },
    // Ours, as WAKE_NODE: policy.h arbor_wake_local has the rule
    // and its sources.
    Feature {
        name: "WAKE_LOCAL",
        bit: bpf_intf::arbor_feature_FEAT_WAKE_LOCAL,
        default: false,
        seed: None,
        help: "a wakee whose prev is the waker's CPU, which runs only the waker, queues there behind it when the waker sleeps sooner after its wake-ups (measured per waker) than a wakee sent to an idle CPU takes to run (measured per CPU: IPI, idle exit) (cosmos: prev kept when it is the waker's CPU and both share an mm; fair.c wake_affine_idle: WF_SYNC's promise, here measured). Counter: wake_local",
    },
    // Ours, from the kernel's NEXT_BUDDY: policy.h
    // arbor_sync_defer has the rule and its sources.
    Feature {
        name: "PREEMPT_SYNC",
        bit: bpf_intf::arbor_feature_FEAT_PREEMPT_SYNC,
        default: false,
        seed: None,
        help: "a wakee woken with WF_SYNC preempts the task running on its CPU only once that task has run migration_cost/4 (125 us) since it was picked, so that a writer issues its batch of wake-ups before its readers run (fair.c preempt_sync, under NEXT_BUDDY: \"allow some runtime for batch wakeups to be issued\"). Counter: sync_preempt_deferred",
    },
    // The kernel's (off by default in 7.2): policy.h arbor_next_buddy has
    // the rule and its sources.
    Feature {
        name: "NEXT_BUDDY",
        bit: bpf_intf::arbor_feature_FEAT_NEXT_BUDDY,
        default: false,
        seed: None,
        help: "a wakee (not WF_SYNC, not new) that is eligible on its CPU, which runs a task, becomes the CPU's next buddy: it preempts and runs next whatever the deadlines (fair.c wakeup_preempt_fair/set_preempt_buddy/pick_eevdf's PICK_BUDDY under NEXT_BUDDY: \"picking the ->next buddy will affect latency but not fairness\"). Counter: next_buddy",
    },
    // Ours: policy.h arbor_sync_pair has the rule and its
    // sources.
    Feature {
        name: "SYNC_PAIR",
        bit: bpf_intf::arbor_feature_FEAT_SYNC_PAIR,
        default: false,
        seed: None,
        help: "a WF_SYNC wake-up of the task whose last wake-up woke this waker (a server woken with the next request by the client it answered) is an ordinary wake-up: PREEMPT_SYNC does not defer it and NEXT_BUDDY may run it next, since the waker awaits its answer rather than a batch to finish (fair.c preempt_sync: \"the waker requires the wakee to finish\" lowers its threshold; the pair from record_wakee's last_wakee). Counter: sync_pair",
    },
    // Ours: policy.h arbor_wa_throttle_on has the rule and its sources.
    Feature {
        name: "WA_THROTTLE_XLLC",
        bit: bpf_intf::arbor_feature_FEAT_WA_THROTTLE_XLLC,
        default: false,
        seed: None,
        help: "with WA_THROTTLE: seed 001's window acts only on wake-ups whose waker's CPU and prev are in different LLCs; within one LLC the pull costs no cache and select_idle_sibling scans the same LLC either way, so the window would only change the fallback with nothing idle to the wakee's busy prev (fair.c wake_affine_idle: cpus_share_cache)",
    },
    // Ours: policy.h arbor_buddy_long_run has the rule and its sources.
    Feature {
        name: "BUDDY_LONG_RUN",
        bit: bpf_intf::arbor_feature_FEAT_BUDDY_LONG_RUN,
        default: false,
        seed: None,
        help: "with NEXT_BUDDY: the buddy preempts only a task whose runs, from its pick to its stop, average --migration-cost-us / 4 (125 us) or more; a task that runs a few microseconds at a time finishes soon anyway, and preempted it would wait for the next free CPU (preempt_sync's \"some runtime\"; the average as the kernel's update_avg)",
    },
    // Ours: policy.h arbor_sync_local_fits has the rule and its sources.
    Feature {
        name: "SYNC_LOCAL_BIG_BUSY",
        bit: bpf_intf::arbor_feature_FEAT_SYNC_LOCAL_BIG_BUSY,
        default: false,
        seed: None,
        help: "with SYNC_LOCAL on an asymmetric machine: a sync wakee too big for the waker's CPU is queued there anyway while no CPU of more capacity is idle; the idle search would find only a CPU no bigger (select_idle_capacity's fallback: the idle CPU of highest capacity) and pay its idle exit. Counter: sync_local_big_busy",
    },
    Feature {
        name: "LB_IMBALANCE",
        bit: bpf_intf::arbor_feature_FEAT_LB_IMBALANCE,
        default: true,
        seed: None,
        help: "periodic balance by weighted load/util/task imbalance, with active balance of a lone task (baseline)",
    },
];

/// Named starting points for `-f`:
/// - `stock`: the kernel's baseline, every seed mechanism off;
/// - `seeds`: each seed mechanism with its seed's own default;
/// - `default`: what we recommend: `seeds` without the mechanisms in
///   `NOT_IN_DEFAULT`, each left out because a measurement said so.
pub const PROFILES: &[&str] = &["default", "stock", "seeds"];

/// Seed mechanisms that `default` leaves off although their seed turns them
/// on, with the measurement behind it.
pub const NOT_IN_DEFAULT: &[(&str, &str)] = &[
    (
        "STEAL",
        "it doubled wake-up tail latency and did not speed up hackbench \
         (wakeprobe p99 5035 -> 2895 us without it, EEVDF 2973; hackbench 6.20 -> 5.67 s; \
         docs/findings/2026-11-22-bench/README.md, section 5)",
    ),
    (
        "CACHE_LB",
        "on machines of several small LLCs it packed pgbench's client threads, and the \
         backends their wake-ups bring along, into one LLC: pgbench -23% to -40% against stock \
         on three 16-32-CPU shapes never developed on, +52% to +84% without it; hikey wakeprobe \
         p99 1,191 us against 9.6 without it. Its one win in the default-vs-peers suite goes with it \
         (xeon-88 wakeprobe p99 44.5 -> 56.6 us, stock's); the suite stays at 30 of 36 cells, \
         worse than stock in none (sim, 5 seeds; docs/findings/2026-11-29-sync-pair section 8)",
    ),
    (
        "CACHE_ROOM",
        "it acts only with CACHE_LB (its choice among LLCs to aggregate in)",
    ),
    (
        "ASYM_WAKE_CAP",
        "mainline removed wake_cap in 5.7 (select_idle_capacity, ASYM_IDLE_CAPACITY, took its \
         place), and with it default lost to stock on asymmetric machines it was never developed \
         on: on a 4+4 hybrid laptop shape pgbench -14.1% tps and schbench wake-up p99 1,668 us \
         against 5.1 without it; on a 4+2+2 phone shape pgbench -5.4% against +0.5%, and \
         wakeprobe p99 1.9x stock's before its pick took an idle CPU first \
         (sim, 5 seeds; docs/findings/2026-12-06-asym-capacity)",
    ),
];

/// Features of our own that only `default` turns on (`stock` and `seeds`
/// stay the kernel's and the seeds' placement), with the reason.
pub const DEFAULT_ONLY: &[(&str, &str)] = &[
    (
        "WAKE_NODE",
        "wakees left their node on 216 of 1000 wake-ups on xeon-88 hackbench against p2dq's 7 \
         (docs/findings/2026-11-23-sim-peers-all); docs/findings/2026-11-26-default-vs-peers",
    ),
    (
        "IDLE_PULL",
        "CPUs idled 5.1% of the time while tasks waited on x86-12 hackbench (cosmos 0.9%), newidle \
         skipped by its dice; with it 1.7% and hackbench 5.2% faster, xeon-88 schbench p99 29% lower \
         (sim, 5 seeds; docs/findings/2026-11-26-default-vs-peers-2). Forced only within the LLC since \
         power11 schbench p99 was 23.9 us forced everywhere, 16.2 within the LLC \
         (docs/findings/2026-11-28-idle-pull-llc). Forced in the node where it holds several LLCs: \
         power10 hackbench -30.7% -> -11.7% against cosmos, perf-messaging -7.0% -> +0.5%, a POWER SMT4 \
         hackbench -40.6% -> -13.2% (sim, 5-20 seeds; policy.h arbor_idle_pull_level). Forced across \
         nodes where a node is one LLC: an 8-socket SNC2 machine of 4-CPU nodes idled 11% of the time \
         while tasks waited (cosmos 3%); with it hackbench, perf-messaging and wakeprobe went from \
         worse than the best peer to better (sim, up to 40 seeds; policy.h arbor_idle_pull_level)",
    ),
    (
        "SYNC_LOCAL",
        "a sync wakee waited 3.9 us for an idle CPU to wake while its waker's CPU was about to be \
         free; with it perf-pipe 46% faster than stock on x86-12 and xeon-88, 21% on power11, \
         pgbench +23% / +45% / +4% tps, hackbench, perf-messaging, schbench and wakeprobe \
         unchanged to the digit (sim, 3 seeds; docs/findings/2026-11-27-sync-local)",
    ),
    (
        "SIS_NODE",
        "once the simulator forks a workload's tasks from a running parent, power11 hackbench \
         ties cosmos with it (-12.8% +-14.9) and loses without (-41.7% +-37.7), wakeprobe p99 \
         likewise (-0.8% +-2.2 against -4.0% +-1.8); x86-12 and xeon-88, one LLC per node, \
         unchanged to the digit (sim, 5 seeds; docs/findings/2026-11-27-spawn-parent). The nearest idle CPU \
         when none has been idle for the migration cost: power11 perf-messaging -11.8% -> -0.3% against \
         cosmos, a 128-CPU POWER SMT8 hackbench -17.9% -> +3.4% (sim, 5-20 seeds; policy.h \
         arbor_sis_node_idle_ok)",
    ),
    (
        "PREEMPT_SYNC",
        "wake-up preemptions broke hackbench's batches on small busy machines: 2,787 wake-ups for \
         the host's messages against p2dq's 371, 1,392 of them preempting \
         (docs/findings/2026-11-28-idle-pull-llc); with it x86-12 hackbench +5.8% +-5.8, \
         perf-messaging +4.9% +-4.0, e5-2630v4 and hikey +2.0 to +6.5%, the other workloads \
         unchanged; held out: host hackbench -3.5% and perf-messaging -4.7% time, pgbench -0.1% \
         tps, epyc and spr-2s unchanged (sim, 5 seeds; docs/findings/2026-11-28-preempt-sync)",
    ),
    (
        "NEXT_BUDDY",
        "the kernel's own (off by default there): schbench's message threads, woken by a futex \
         onto CPUs running a worker's math, waited for its slice: wake-up p99 1.7-2.1 ms on \
         power11, epyc and spr-2s against lavd's 5-14 us, and the workers posting meanwhile \
         lengthened its batches; with it power11 schbench p99 26.4 -> 6.1 us, xeon-88 8.1 -> 7.3; \
         held out, run once: epyc 13.5 -> 6.2, spr-2s 15.5 -> 7.7, host wakeprobe +2.7%, host \
         schbench -17.0% +-19.2 (tied), the other 25 cells unchanged; hackbench, perf-messaging, \
         perf-pipe and pgbench unchanged to the digit everywhere (their wake-ups are WF_SYNC) \
         (sim, 5 seeds; docs/findings/2026-11-28-one-llc-cost)",
    ),
    (
        "SYNC_PAIR",
        "PREEMPT_SYNC deferred pgbench's backends behind their client, which then ran out of \
         work and slept: on the host's 2 CPUs 0.9% more wake-ups and 0.01% fewer tps than stock; \
         with the pair's wake-up ordinary, wake-ups -18.5% and tps +0.5% against stock; x86-12, \
         xeon-88 and power11 unchanged within their intervals \
         (sim, 5 seeds; docs/findings/2026-11-29-sync-pair)",
    ),
    (
        "WA_THROTTLE_XLLC",
        "on a 72-CPU single-LLC ARM server seed 001's window kept schbench's message thread at \
         its busy prev (run-queue wait per wake-up 2.9 -> 6.5 us under stock:WA_THROTTLE) where, \
         as NEXT_BUDDY, it preempted a worker while more workers posted: wake-up p99 -19.6% \
         +-8.6 against stock, a tie without the window; x86-12, seed 001's own single-LLC \
         machine, the same to the digit on pgbench without it \
         (sim, 5 seeds; docs/findings/2026-12-06-asym-capacity)",
    ),
    (
        "SYNC_LOCAL_BIG_BUSY",
        "on a hybrid of 2 P-cores x SMT2 + 16 E-cores pgbench's backends, too big for an E-core, \
         left their client's E-core at each query for another idle E-core while the 4 P-CPUs were \
         busy; the idle E-cores reached their deepest states (up to 680 us to exit) and 19% of \
         wake-ups waited: 71,895 tps against stock's 77,937, 96,585 with the rule (sim, 5 seeds; \
         docs/findings/2026-12-07-sync-local-big-busy)",
    ),
    (
        "BUDDY_LONG_RUN",
        "on an 8-CPU phone (6 x capacity 440 + 2 x 1024, one LLC) wakeprobe's message thread, \
         woken by its last worker, was NEXT_BUDDY 11,219 times a run against a worker that runs \
         ~10 us at a time; queued again, that worker took the CPU the next request's fourth \
         worker needed (its latency p90 15.6 us against 10.5 after requests without a buddy): \
         wakeprobe p99 15.6 us against stock's 13.8, 13.9 with the rule; schbench's message \
         thread, which preempts a worker's milliseconds of math, keeps NEXT_BUDDY's gain (power11 \
         16.1 us, epyc 7.1, spr-2s 10.7 against stock's 22.1, 14.1, 20.6). On the 18 machines of \
         the second held-out draw, then developed on: worse than stock 1 -> 0 cells, worse than \
         the best peer 24 -> 23; it costs a 6-CPU phone's wakeprobe its gain over stock (+36.8% \
         -> a tie) (sim, 5-20 seeds; policy.h arbor_buddy_long_run)",
    ),
];

/// Features of our own that no profile turns on, with the measurement that
/// keeps them off (a user may still turn them on with `-f`).
pub const OURS_OFF: &[(&str, &str)] = &[
    (
        "WAKE_LOCAL",
        "x86-12 wakeprobe p99 +3.3% (ties cosmos), power11 unchanged within its spread, but xeon-88 wakeprobe p99 -4.0%: the wakee left on the waker's CPU displaces the waker's next wake-up (migrations per 1000 wake-ups 134 -> 480) (sim, 5 seeds; docs/findings/2026-11-27-wake-shortcut)",
    ),
];

/// Features of our own that change no placement (a cost saving), on in every
/// profile.
pub const OURS_NEUTRAL: &[&str] = &["WAKE_SHORTCUT"];

/// Where a feature comes from: its seed, our own, or the kernel's baseline.
pub fn source(f: &Feature) -> String {
    match f.seed {
        Some(s) => format!("seed {s}"),
        None if DEFAULT_ONLY.iter().any(|(n, _)| *n == f.name)
            || OURS_OFF.iter().any(|(n, _)| *n == f.name)
            || OURS_NEUTRAL.contains(&f.name) =>
        {
            "ours".into()
        }
        None => "baseline".into(),
    }
}

pub fn profile_mask(name: &str) -> Result<u64> {
    let mask = |with_seeds: bool, leave_out: &[(&str, &str)]| {
        FEATURES
            .iter()
            .filter(|f| f.default && (f.seed.is_none() || with_seeds))
            .filter(|f| !leave_out.iter().any(|(n, _)| *n == f.name))
            .fold(0u64, |m, f| m | (1 << f.bit))
    };
    match name {
        "stock" => Ok(mask(false, &[])),
        "seeds" => Ok(mask(true, &[])),
        "default" => Ok(mask(true, NOT_IN_DEFAULT)
            | DEFAULT_ONLY
                .iter()
                .filter_map(|(n, _)| FEATURES.iter().find(|f| f.name == *n))
                .fold(0u64, |m, f| m | (1 << f.bit))),
        other => bail!("unknown profile '{other}'; valid: {}", PROFILES.join(", ")),
    }
}

#[cfg(test)]
pub fn default_mask() -> u64 {
    profile_mask("default").unwrap()
}

fn valid_names() -> String {
    FEATURES
        .iter()
        .map(|f| f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Applies `-f` specs (each may hold several, comma-separated) on top of `mask`.
pub fn apply(mut mask: u64, specs: &[String]) -> Result<u64> {
    for spec in specs.iter().flat_map(|s| s.split(',')) {
        let spec = spec.trim();
        if spec.is_empty() {
            continue;
        }
        let upper = spec.to_ascii_uppercase();
        let (name, on) = match upper.strip_prefix("NO_") {
            Some(rest) if FEATURES.iter().any(|f| f.name == rest) => (rest.to_string(), false),
            _ => (upper.clone(), true),
        };
        match FEATURES.iter().find(|f| f.name == name) {
            Some(f) if on => mask |= 1 << f.bit,
            Some(f) => mask &= !(1 << f.bit),
            None => bail!(
                "unknown feature '{spec}'; valid: {} (prefix NO_ to disable)",
                valid_names()
            ),
        }
    }
    Ok(mask)
}

/// `NAME` or `NO_NAME` for each feature, as the kernel's sched_features file.
pub fn describe(mask: u64) -> String {
    FEATURES
        .iter()
        .map(|f| {
            if mask & (1 << f.bit) != 0 {
                f.name.to_string()
            } else {
                format!("NO_{}", f.name)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn list() -> String {
    let def = profile_mask("default").unwrap_or(0);
    let mut out = String::from("FEATURE             DEFAULT  SOURCE    MEANING\n");
    for f in FEATURES {
        out += &format!(
            "{:<19} {:<8} {:<9} {}\n",
            f.name,
            if def & (1 << f.bit) != 0 { "on" } else { "off" },
            source(f),
            f.help
        );
    }
    out +=
        "profiles: stock = baseline only; seeds = each seed's default; default = seeds without:\n";
    for (name, why) in NOT_IN_DEFAULT {
        out += &format!("  {name}: {why}\n");
    }
    out += "  and with, of our own (off in stock and seeds):\n";
    for (name, why) in DEFAULT_ONLY {
        out += &format!("  {name}: {why}\n");
    }
    out += "of our own, off in every profile:\n";
    for (name, why) in OURS_OFF {
        out += &format!("  {name}: {why}\n");
    }
    out += &format!(
        "of our own, on in every profile (no placement changes): {}\n",
        OURS_NEUTRAL.join(", ")
    );
    out
}

/// The feature table as one JSON object, for scripts (`--list-features
/// --json`): each feature in bit order with its bit, its setting in every
/// profile, its source and meaning; then the profiles and what `default`
/// leaves out of `seeds`, and why.
pub fn list_json() -> serde_json::Value {
    let masks: Vec<(&str, u64)> = PROFILES
        .iter()
        .map(|p| (*p, profile_mask(p).unwrap_or(0)))
        .collect();
    let mut feats: Vec<&Feature> = FEATURES.iter().collect();
    feats.sort_by_key(|f| f.bit);
    let features: Vec<serde_json::Value> = feats
        .iter()
        .map(|f| {
            let profiles: serde_json::Map<String, serde_json::Value> = masks
                .iter()
                .map(|(p, m)| (p.to_string(), (m & (1 << f.bit) != 0).into()))
                .collect();
            serde_json::json!({
                "name": f.name,
                "bit": f.bit,
                "profiles": profiles,
                "seed": f.seed,
                "meaning": f.help,
            })
        })
        .collect();
    let not_in_default: Vec<serde_json::Value> = NOT_IN_DEFAULT
        .iter()
        .map(|(name, why)| serde_json::json!({ "name": name, "why": why }))
        .collect();
    let default_only: Vec<serde_json::Value> = DEFAULT_ONLY
        .iter()
        .map(|(name, why)| serde_json::json!({ "name": name, "why": why }))
        .collect();
    let ours_off: Vec<serde_json::Value> = OURS_OFF
        .iter()
        .map(|(name, why)| serde_json::json!({ "name": name, "why": why }))
        .collect();
    serde_json::json!({
        "features": features,
        "profiles": PROFILES,
        "not_in_default": not_in_default,
        "default_only": default_only,
        "ours_off": ours_off,
        "ours_neutral": OURS_NEUTRAL,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Our own features outside DEFAULT_ONLY: each name is a feature, those
    /// kept off are off in every profile, the placement-neutral ones on in
    /// every profile, and the listing calls them all ours.
    #[test]
    fn our_other_features_are_named_sourced_and_set_as_said() {
        for (name, _) in OURS_OFF {
            let f = FEATURES.iter().find(|f| f.name == *name).unwrap();
            for p in PROFILES {
                assert_eq!(profile_mask(p).unwrap() & (1 << f.bit), 0, "{name} in {p}");
            }
            assert_eq!(source(f), "ours");
        }
        for name in OURS_NEUTRAL {
            let f = FEATURES.iter().find(|f| f.name == *name).unwrap();
            for p in PROFILES {
                assert_ne!(profile_mask(p).unwrap() & (1 << f.bit), 0, "{name} in {p}");
            }
            assert_eq!(source(f), "ours");
        }
        let wa = FEATURES.iter().find(|f| f.name == "WA_IDLE").unwrap();
        assert_eq!(source(wa), "baseline");
    }

    #[test]
    fn bits_are_distinct_and_cover_the_bpf_enum() {
        let mut seen = 0u64;
        for f in FEATURES {
            assert_eq!(seen & (1 << f.bit), 0, "{} shares a bit", f.name);
            seen |= 1 << f.bit;
        }
        assert_eq!(FEATURES.len() as u32, bpf_intf::arbor_feature_NR_FEATURES);
    }

    /// Each feature's name is its `enum arbor_feature` member in intf.h
    /// without FEAT_, at the member's value, and the header names no
    /// feature this table lacks.
    #[test]
    fn names_are_enum_arbor_feature() {
        let members = crate::stats::c_enum(include_str!("bpf/intf.h"), "arbor_feature");
        let (last, nr) = members.last().unwrap();
        assert_eq!(
            (last.as_str(), *nr as usize),
            ("NR_FEATURES", FEATURES.len())
        );
        assert_eq!(members.len(), FEATURES.len() + 1);
        for (m, val) in &members[..FEATURES.len()] {
            let name = m.strip_prefix("FEAT_").expect("FEAT_ prefix");
            let f = FEATURES
                .iter()
                .find(|f| f.name == name)
                .unwrap_or_else(|| panic!("{m} has no entry in FEATURES"));
            assert_eq!(f.bit as i64, *val, "{name}");
        }
    }

    #[test]
    fn no_prefix_turns_off_and_name_turns_on() {
        let d = default_mask();
        let m = apply(d, &["NO_WA_IDLE".into()]).unwrap();
        assert_eq!(m & (1 << bpf_intf::arbor_feature_FEAT_WA_IDLE), 0);
        let m2 = apply(m, &["wa_idle".into()]).unwrap();
        assert_eq!(m2, d);
        let m3 = apply(d, &["NO_SIS_UTIL,NO_NEWIDLE".into()]).unwrap();
        assert_eq!(
            describe(m3).matches("NO_").count(),
            describe(d).matches("NO_").count() + 2
        );
    }

    #[test]
    fn profiles() {
        let stock = profile_mask("stock").unwrap();
        let seeds = profile_mask("seeds").unwrap();
        assert_eq!(stock & (1 << bpf_intf::arbor_feature_FEAT_STEAL), 0);
        assert_ne!(seeds & (1 << bpf_intf::arbor_feature_FEAT_STEAL), 0);
        assert_eq!(
            seeds & (1 << bpf_intf::arbor_feature_FEAT_WA_WAKER),
            0,
            "seed 000 ships WA_WAKER off"
        );
        assert_eq!(stock & seeds, stock, "seeds builds on stock");
        let def = default_mask();
        // a feature's bit by name (panics on a name that is not one), and
        // the mask of a (name, reason) list
        let bit_of = |name: &str| 1u64 << FEATURES.iter().find(|f| f.name == name).unwrap().bit;
        let mask_of = |list: &[(&str, &str)]| list.iter().fold(0, |m, (n, _)| m | bit_of(n));
        // our own features (DEFAULT_ONLY) are on in default alone
        let only = mask_of(DEFAULT_ONLY);
        assert_ne!(only, 0);
        assert_eq!(stock & only, 0, "DEFAULT_ONLY is off in stock");
        assert_eq!(seeds & only, 0, "DEFAULT_ONLY is off in seeds");
        // the seed mechanisms default leaves out (NOT_IN_DEFAULT): off in
        // default, on in seeds
        let out = mask_of(NOT_IN_DEFAULT);
        for name in ["STEAL", "CACHE_LB", "CACHE_ROOM"] {
            let bit = bit_of(name);
            assert_ne!(out & bit, 0, "{name} is in NOT_IN_DEFAULT");
            assert_eq!(def & bit, 0, "default leaves {name} out");
            assert_ne!(seeds & bit, 0, "seeds has {name}");
        }
        assert_eq!(
            def | out,
            seeds | only,
            "and only NOT_IN_DEFAULT, plus DEFAULT_ONLY"
        );
        assert!(list().contains("STEAL               off"), "{}", list());
        for f in FEATURES.iter().filter(|f| f.seed.is_none()) {
            // today's baseline is in stock; an older kernel's rule is not
            assert_eq!(
                stock & (1 << f.bit) != 0,
                f.default,
                "{} and stock disagree",
                f.name
            );
        }
        assert_eq!(
            stock & (1 << bpf_intf::arbor_feature_FEAT_NI_MIGRATION_COST),
            0
        );
        assert!(profile_mask("fast")
            .unwrap_err()
            .to_string()
            .contains("stock"));
    }

    #[test]
    fn unknown_name_is_an_error_naming_it_and_the_valid_ones() {
        let e = apply(default_mask(), &["NO_SUCH".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("NO_SUCH") && e.contains("WA_WEIGHT"), "{e}");
        assert!(!e.contains('\n'));
        assert!(apply(0, &["NO_".into()]).is_err());
    }

    /// The room rule is its own switch, on where CACHE_LB is (seeds;
    /// default has neither), and NO_CACHE_ROOM turns only it off.
    #[test]
    fn cache_room_is_its_own_feature() {
        let bit = 1 << bpf_intf::arbor_feature_FEAT_CACHE_ROOM;
        let lb = 1 << bpf_intf::arbor_feature_FEAT_CACHE_LB;
        let seeds = profile_mask("seeds").unwrap();
        assert_ne!(seeds & bit, 0);
        assert_ne!(seeds & lb, 0);
        assert_eq!(default_mask() & (bit | lb), 0);
        assert_eq!(profile_mask("stock").unwrap() & bit, 0);
        let m = apply(seeds, &["NO_CACHE_ROOM".into()]).unwrap();
        assert_eq!(m, seeds & !bit);
        assert!(list().contains("CACHE_ROOM"));
    }
}
