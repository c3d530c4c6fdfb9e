//! The seeds' catalogue: for each seed patch, its mechanism, the tables it
//! published (machine, sweep, columns, numbers, source) that `arbor sim
//! reproduce` runs on the simulator, what the simulator cannot run, and the
//! same experiment scaled to a VM that `arbor bench reproduce` runs.
//!
//! The published numbers are copied from the seed emails (docs/seeds.md
//! gives each seed's mechanism, machine and figures); each table names its
//! source. Workloads are run shorter than the seeds ran them (the
//! simulator's cost grows with the simulated time), so absolute times
//! differ by design: compare the changes, which is what the seeds argued
//! from.

/// Which way a change goes, signed so that + is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Better,
    Flat,
    Worse,
}

impl Dir {
    pub fn word(self) -> &'static str {
        match self {
            Dir::Better => "better",
            Dir::Flat => "flat",
            Dir::Worse => "worse",
        }
    }
}

pub struct Column {
    /// the seed's name for it ("base", "new", "100ms interval")
    pub name: &'static str,
    /// the scheduler that plays it in the simulator
    pub sched: &'static str,
}

pub struct Line {
    /// the value of the swept parameter, as the seed printed it
    pub param: &'static str,
    /// the simulated workload for this line
    pub workload: &'static str,
    /// the seed's numbers, one per column (None: not published)
    pub published: &'static [Option<f64>],
}

pub struct Table {
    pub title: &'static str,
    pub preset: &'static str,
    /// the swept parameter's name (the first column's header)
    pub param: &'static str,
    /// the simulator's metric compared, and whether higher is better
    pub metric: &'static str,
    pub higher_is_better: bool,
    /// the published numbers' unit, and how the simulated run differs
    pub unit: &'static str,
    pub source: &'static str,
    pub columns: &'static [Column],
    pub lines: &'static [Line],
    /// the seed's claimed direction where it published no numbers
    pub claim: Option<Dir>,
    /// `--quick`: (line index, shorter workload, the direction of each
    /// non-baseline column as the full run showed it; None = no assertion)
    pub quick: Option<(usize, &'static str, &'static [Option<Dir>])>,
}

pub struct Seed {
    pub name: &'static str,
    pub number: &'static str,
    pub mechanism: &'static str,
    pub tables: &'static [Table],
    /// what the seed measured that the simulator cannot run, and why
    pub not_modelled: &'static str,
    /// the experiment scaled to a VM, for `arbor bench reproduce`
    pub vm: Vm,
}

/// A seed's experiment scaled to a VM topology that resembles the seed's
/// machine, stock against the mechanism (`arbor bench reproduce`).
pub struct Vm {
    /// the feature flags it turns on, as the report's title names them
    pub features: &'static str,
    pub topology: &'static str,
    pub scheds: &'static [&'static str],
    pub workloads: &'static [&'static str],
    /// what the seed measured, on what machine (docs/seeds.md)
    pub published: &'static str,
    /// why this topology and these parameters
    pub scaling: &'static str,
}

use Dir::*;

const fn p(v: f64) -> Option<f64> {
    Some(v)
}

/// Each seed's baseline is the kernel it was measured on, not today's:
/// the baseline features that kernel did not have are off in every column
/// of the seed's table (the mechanism's column adds only the mechanism).
/// wake_wide() came in 3.12 (2013, after seed 001's 3.10-rc1: the seed's
/// throttle was the first answer to the same problem); wake_affine_idle
/// (WA_IDLE) in 4.14 (2017; seed 004 ran on 4.7); SIS_UTIL in 6.0 (2022;
/// seeds 000/001/003/004 had SIS_PROP, which we do not model, so their
/// scan covers the whole LLC); NI_RANDOM in 6.18 (after every seed); and
/// until 5.16 newidle balancing was skipped while the CPU's average idle
/// time was below sysctl_sched_migration_cost (NI_MIGRATION_COST). Before
/// 4.9 (seeds 001 and 004), select_idle_sibling() took only a wholly idle
/// core or target's idle SMT sibling, never an idle thread of another
/// busy core (SIS_IDLE_GROUP; replaced by the 4.9 rewrite). Seed
/// 003's own tables (20, 44 and 88 CPUs) were measured with
/// sched_wakeup_granularity_ns = 15 ms ("Otherwise, preemptions increase at
/// higher loads and distort the comparison"), so wake-ups there did not
/// preempt: NO_WAKE_PREEMPT in both columns; the HiKey table (another
/// tester, no such setting given) keeps wake-up preemption. The
/// "mainline" column of seed 004 is today's kernel. Seed 002's mechanism
/// is its own RFC v3 (June 2025): the aggregation limit by running threads
/// x SMT width (our --llc-tolerance, the merged series' llc_aggr_tolerance)
/// came later (v4 16/22, which says it disables cache-aware scheduling on
/// Power10/11), so its column runs with the limit off (llc-tolerance=100).
pub const SEEDS: &[Seed] = &[
    Seed {
        name: "idler-llc",
        number: "000",
        mechanism: "WA_IDLER_LLC (prefer the idler LLC to cache affinity at wake-up)",
        tables: &[
            Table {
                title: "POWER10 8 cores SMT8, hackbench (process, sockets)",
                preset: "power10",
                param: "groups",
                metric: "time_s",
                higher_is_better: false,
                unit: "s",
                source: "seeds.md: the seed's benchmarks include hackbench on POWER10; the email publishes no hackbench numbers",
                columns: &[
                    Column { name: "5.11-rc6", sched: "arbor:stock:NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST" },
                    Column { name: "+patch", sched: "arbor:stock:NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,WA_IDLER_LLC" },
                ],
                lines: &[
                    Line { param: "2", workload: "hackbench:g=2,l=1000,ipc=socket", published: &[None, None] },
                    Line { param: "4", workload: "hackbench:g=4,l=1000,ipc=socket", published: &[None, None] },
                    Line { param: "8", workload: "hackbench:g=8,l=500,ipc=socket", published: &[None, None] },
                ],
                claim: Some(Better),
                quick: None,
            },
            Table {
                title: "POWER10 8 cores SMT8, schbench -m 3 (2020 schbench, wake-up latency p99)",
                preset: "power10",
                param: "workers per messenger (-t)",
                metric: "wakeup_p99_us",
                higher_is_better: false,
                unit: "us",
                source: "seeds.md: schbench -m 3 -r 30 on POWER10; the email publishes no schbench numbers. The schbench of February 2021 (abe4f96, `v=2020`: workers spin 30 ms, the message thread spins 30 ms and sleeps 30-37.5 ms before it answers); -t 16 is its default, and the seed's claim (60-70% utilisation, Daytrader) is the 28-36 lines: see the busy % column. Runs of 5 s, not 30",
                columns: &[
                    Column { name: "5.11-rc6", sched: "arbor:stock:NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST" },
                    Column { name: "+patch", sched: "arbor:stock:NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,WA_IDLER_LLC" },
                ],
                lines: &[
                    Line { param: "16", workload: "schbench:v=2020,m=3,w=16,r=5", published: &[None, None] },
                    Line { param: "24", workload: "schbench:v=2020,m=3,w=24,r=5", published: &[None, None] },
                    Line { param: "28", workload: "schbench:v=2020,m=3,w=28,r=5", published: &[None, None] },
                    Line { param: "32", workload: "schbench:v=2020,m=3,w=32,r=5", published: &[None, None] },
                    Line { param: "36", workload: "schbench:v=2020,m=3,w=36,r=5", published: &[None, None] },
                    Line { param: "40", workload: "schbench:v=2020,m=3,w=40,r=5", published: &[None, None] },
                ],
                claim: Some(Better),
                // the full run (docs/findings/2026-11-23-sim-reproduce-fourth):
                // worse at 24-40 workers, the 95% interval far from 0
                quick: Some((3, "schbench:v=2020,m=3,w=32,r=2", &[Some(Worse)])),
            },
        ],
        not_modelled: "Daytrader (a JVM behind a web front end, 80 users; published throughput +4.34%, +0.74%, +4.32%, -0.33% for 1, 2, 4, 8 JVMs): the simulator has no JVM model, so hackbench and schbench -m 3 from the seed's benchmark list stand in, and the seed's claim (better throughput at 60-70% utilisation) is the direction checked.",
        vm: Vm {
            features: "WA_IDLER_LLC / WA_WAKER",
            topology: "1s2d2c2t",
            scheds: &["arbor:stock", "arbor:stock:WA_IDLER_LLC", "arbor:stock:WA_IDLER_LLC,WA_WAKER"],
            workloads: &["hackbench:g=2,l=100", "wakeprobe:m=3,w=2,t=5"],
            published: "POWER10 SMT8, LLC of 4 threads: Daytrader +4.3% throughput; hackbench and schbench -m 3 also reported",
            scaling: "two small LLCs (2 dies x 2 cores x SMT2 = 4 CPUs each, POWER10's LLC size) in one socket; schbench -m 3 becomes wakeprobe -m 3",
        },
    },
    Seed {
        name: "wake-affine-throttle",
        number: "001",
        mechanism: "WA_THROTTLE (no wake_affine for wake_affine_interval after a failure)",
        tables: &[Table {
            title: "12-CPU x86, pgbench, 22 MB database (tps)",
            preset: "x86-12",
            param: "clients",
            metric: "tps",
            higher_is_better: true,
            unit: "tps",
            source: "seed 001 email, table 'db_size 22 MB' (tip 3.10.0-rc1); pgbench's own default of one thread (-j 1) driving every client connection, the 1:N waker of Mike Galbraith's analysis that the seed links",
            columns: &[
                Column { name: "base", sched: "arbor:stock:NO_WAKE_WIDE,NO_WA_IDLE,NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,SIS_IDLE_GROUP" },
                Column { name: "1ms interval", sched: "arbor:stock:NO_WAKE_WIDE,NO_WA_IDLE,NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,SIS_IDLE_GROUP,WA_THROTTLE:wake-affine-interval-ms=1" },
                Column { name: "10ms interval", sched: "arbor:stock:NO_WAKE_WIDE,NO_WA_IDLE,NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,SIS_IDLE_GROUP,WA_THROTTLE:wake-affine-interval-ms=10" },
                Column { name: "100ms interval", sched: "arbor:stock:NO_WAKE_WIDE,NO_WA_IDLE,NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,SIS_IDLE_GROUP,WA_THROTTLE:wake-affine-interval-ms=100" },
            ],
            lines: &[
                Line { param: "1", workload: "pgbench:clients=1,jobs=1,time=1", published: &[p(10828.0), p(10850.0), p(10795.0), p(10845.0)] },
                Line { param: "2", workload: "pgbench:clients=2,jobs=1,time=1", published: &[p(21434.0), p(21469.0), p(21463.0), p(21455.0)] },
                Line { param: "4", workload: "pgbench:clients=4,jobs=1,time=1", published: &[p(41563.0), p(41826.0), p(41789.0), p(41779.0)] },
                Line { param: "8", workload: "pgbench:clients=8,jobs=1,time=1", published: &[p(53451.0), p(54917.0), p(59250.0), p(59097.0)] },
                Line { param: "12", workload: "pgbench:clients=12,jobs=1,time=1", published: &[p(48681.0), p(50454.0), p(53248.0), p(54881.0)] },
                Line { param: "16", workload: "pgbench:clients=16,jobs=1,time=1", published: &[p(46352.0), p(49627.0), p(54029.0), p(55935.0)] },
                Line { param: "24", workload: "pgbench:clients=24,jobs=1,time=1", published: &[p(44200.0), p(46745.0), p(52106.0), p(57907.0)] },
                Line { param: "32", workload: "pgbench:clients=32,jobs=1,time=1", published: &[p(43567.0), p(45264.0), p(51463.0), p(57122.0)] },
            ],
            claim: None,
            quick: None,
        }],
        not_modelled: "The 7484 MB and 15 GB databases (the same shape, +41% at 24-32 clients with 100 ms): the simulator's pgbench has no buffer-cache or disk model, so only the in-memory 22 MB table is run.",
        vm: Vm {
            features: "WA_THROTTLE",
            topology: "1s4c1t",
            scheds: &["arbor:stock", "arbor:stock:WA_THROTTLE"],
            workloads: &["pgbench:clients=4,time=8", "pgbench:clients=16,time=8", "pgbench:clients=32,time=8"],
            published: "12-CPU x86, pgbench: up to +41% tps at 24-32 clients (100 ms interval), no change at <= 4 clients",
            scaling: "the 12-CPU box scaled to 4 CPUs; client counts kept (1x, 4x, 8x the CPUs); default 1 ms interval",
        },
    },
    Seed {
        name: "cache-aware",
        number: "002",
        mechanism: "CACHE_LB (aggregate a process's threads in its hottest LLC)",
        tables: &[
            Table {
                title: "Power11 224 CPUs (LLC of 4 threads), schbench p99 wake-up latency",
                preset: "power11",
                param: "workers",
                metric: "wakeup_p99_us",
                higher_is_better: false,
                unit: "us",
                source: "seed 002 thread, Madadi Vineeth Reddy's schbench table, Lat 99.0th (usec), baseline vs baseline+cacheaware",
                columns: &[
                    Column { name: "baseline", sched: "arbor:stock:NO_NI_RANDOM" },
                    Column { name: "baseline+cacheaware", sched: "arbor:stock:NO_NI_RANDOM,CACHE_LB:llc-tolerance=100" },
                ],
                lines: &[
                    Line { param: "1", workload: "schbench:m=1,w=1,r=1", published: &[p(8.67), p(9.33)] },
                    Line { param: "2", workload: "schbench:m=1,w=2,r=1", published: &[p(7.33), p(8.33)] },
                    Line { param: "4", workload: "schbench:m=1,w=4,r=1", published: &[p(8.00), p(11.33)] },
                    Line { param: "8", workload: "schbench:m=1,w=8,r=1", published: &[p(7.67), p(10.33)] },
                    Line { param: "16", workload: "schbench:m=1,w=16,r=1", published: &[p(8.00), p(10.33)] },
                    Line { param: "32", workload: "schbench:m=1,w=32,r=1", published: &[p(10.67), p(12.67)] },
                    Line { param: "64", workload: "schbench:m=1,w=64,r=1", published: &[p(14.00), p(16.67)] },
                    Line { param: "128", workload: "schbench:m=1,w=128,r=1", published: &[p(16.00), p(20.00)] },
                    Line { param: "256", workload: "schbench:m=1,w=256,r=1", published: &[p(9040.00), p(9050.67)] },
                ],
                claim: None,
                quick: None,
            },
            Table {
                title: "Power11 224 CPUs, hackbench pipe (s)",
                preset: "power11",
                param: "pairs",
                metric: "time_s",
                higher_is_better: false,
                unit: "s",
                source: "seed 002 thread, 'Hackbench pipe' table; 'pairs' read as hackbench groups with pipes (an assumption: the thread does not give the command)",
                columns: &[
                    Column { name: "Baseline", sched: "arbor:stock:NO_NI_RANDOM" },
                    Column { name: "Patched", sched: "arbor:stock:NO_NI_RANDOM,CACHE_LB:llc-tolerance=100" },
                ],
                lines: &[
                    Line { param: "2", workload: "hackbench:g=2,l=1000,ipc=pipe", published: &[p(2.987), p(2.414)] },
                    Line { param: "4", workload: "hackbench:g=4,l=1000,ipc=pipe", published: &[p(7.702), p(7.228)] },
                    Line { param: "8", workload: "hackbench:g=8,l=500,ipc=pipe", published: &[p(14.141), p(13.109)] },
                    Line { param: "15", workload: "hackbench:g=15,l=250,ipc=pipe", published: &[p(27.571), p(29.460)] },
                ],
                claim: None,
                quick: None,
            },
        ],
        not_modelled: "Hackbench pipe at 30-75 pairs (65-199 s on the real machine; too long to simulate at this size here), and the p50/p90/p99.9 columns of the schbench table (printed by `arbor sim`, not compared).",
        vm: Vm {
            features: "CACHE_LB",
            topology: "1s2d2c2t",
            scheds: &["arbor:stock", "arbor:stock:CACHE_LB"],
            workloads: &["wakeprobe:m=2,w=2,t=5,k=256", "hackbench:g=2,l=100,mode=thread"],
            published: "Power11 224 CPUs, LLC of 4 threads: schbench/hackbench pipe gains on x86; Power11 SMT8 p50-p99 21-43% worse (fixed by SMT scaling)",
            scaling: "LLCs of 4 CPUs with SMT2 (Power11's LLC size); schbench-style probe with a 256 KB shared buffer per message thread",
        },
    },
    Seed {
        name: "steal",
        number: "003",
        mechanism: "STEAL (steal a queued task from an overloaded CPU of the LLC when going idle)",
        tables: &[
            Table {
                title: "X6-2, 1 socket x 10 cores x 2 threads = 20 CPUs (E5-2630 v4), hackbench <groups> process",
                preset: "e5-2630v4",
                param: "groups",
                metric: "time_s",
                higher_is_better: false,
                unit: "s",
                source: "seed 003, 1-socket results, 'Average of 10 runs of: hackbench <groups> process 100000'",
                columns: &[
                    Column { name: "base", sched: "arbor:stock:NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,NO_WAKE_PREEMPT" },
                    Column { name: "new", sched: "arbor:stock:NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,NO_WAKE_PREEMPT,STEAL" },
                ],
                lines: &[
                    Line { param: "1", workload: "hackbench:g=1,l=2000,ipc=socket", published: &[p(8.008), p(5.905)] },
                    Line { param: "2", workload: "hackbench:g=2,l=2000,ipc=socket", published: &[p(13.814), p(11.438)] },
                    Line { param: "3", workload: "hackbench:g=3,l=1500,ipc=socket", published: &[p(19.488), p(16.919)] },
                    Line { param: "4", workload: "hackbench:g=4,l=1000,ipc=socket", published: &[p(25.059), p(22.409)] },
                    Line { param: "8", workload: "hackbench:g=8,l=500,ipc=socket", published: &[p(47.478), p(44.221)] },
                ],
                claim: None,
                quick: Some((0, "hackbench:g=1,l=800,ipc=socket", &[Some(Better)])),
            },
            Table {
                title: "X6-2, 1 socket x 22 cores x 2 threads = 44 CPUs (E5-2699 v4), hackbench <groups> process",
                preset: "xeon-44",
                param: "groups",
                metric: "time_s",
                higher_is_better: false,
                unit: "s",
                source: "seed 003, 1-socket results, 44 CPUs, average of 10 runs",
                columns: &[
                    Column { name: "base", sched: "arbor:stock:NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,NO_WAKE_PREEMPT" },
                    Column { name: "new", sched: "arbor:stock:NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,NO_WAKE_PREEMPT,STEAL" },
                ],
                lines: &[
                    Line { param: "1", workload: "hackbench:g=1,l=2000,ipc=socket", published: &[p(4.586), p(4.596)] },
                    Line { param: "2", workload: "hackbench:g=2,l=2000,ipc=socket", published: &[p(7.693), p(5.775)] },
                    Line { param: "4", workload: "hackbench:g=4,l=1000,ipc=socket", published: &[p(13.087), p(11.057)] },
                    Line { param: "8", workload: "hackbench:g=8,l=500,ipc=socket", published: &[p(24.145), p(22.076)] },
                ],
                claim: None,
                quick: Some((1, "hackbench:g=2,l=800,ipc=socket", &[Some(Better)])),
            },
            Table {
                title: "X6-2, 2 sockets x 22 cores x 2 threads = 88 CPUs (E5-2699 v4), hackbench <groups> process",
                preset: "xeon-88",
                param: "groups",
                metric: "time_s",
                higher_is_better: false,
                unit: "s",
                source: "seed 003, 2-socket results, 88 CPUs, average of 10 runs",
                columns: &[
                    Column { name: "base", sched: "arbor:stock:NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,NO_WAKE_PREEMPT" },
                    Column { name: "new", sched: "arbor:stock:NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,NO_WAKE_PREEMPT,STEAL" },
                ],
                lines: &[
                    Line { param: "1", workload: "hackbench:g=1,l=2000,ipc=socket", published: &[p(5.826), p(5.840)] },
                    Line { param: "2", workload: "hackbench:g=2,l=2000,ipc=socket", published: &[p(5.041), p(6.171)] },
                    Line { param: "4", workload: "hackbench:g=4,l=1000,ipc=socket", published: &[p(8.177), p(7.318)] },
                    Line { param: "8", workload: "hackbench:g=8,l=500,ipc=socket", published: &[p(14.429), p(13.966)] },
                ],
                claim: None,
                quick: None,
            },
            Table {
                title: "HiKey, 8 x Cortex-A53 in 2 clusters, hackbench -g <groups> -P -l 2000",
                preset: "hikey",
                param: "groups",
                metric: "time_s",
                higher_is_better: false,
                unit: "s",
                source: "seed 003 thread, Vincent Guittot's HiKey runs: STEAL on, then NO_STEAL",
                columns: &[
                    Column { name: "NO_STEAL", sched: "arbor:stock:NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST" },
                    Column { name: "STEAL", sched: "arbor:stock:NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,STEAL" },
                ],
                lines: &[
                    Line { param: "1", workload: "hackbench:g=1,l=2000,ipc=socket", published: &[p(1.217), p(1.396)] },
                    Line { param: "2", workload: "hackbench:g=2,l=2000,ipc=socket", published: &[p(1.973), p(2.699)] },
                    Line { param: "4", workload: "hackbench:g=4,l=1000,ipc=socket", published: &[p(3.932), p(4.498)] },
                    Line { param: "8", workload: "hackbench:g=8,l=500,ipc=socket", published: &[p(7.674), p(7.721)] },
                ],
                claim: None,
                quick: None,
            },
        ],
        not_modelled: "The 40-CPU 2-socket E5-2630 v4 table (no preset of that machine), tbench, sysbench mysql, the Oracle and NAS results (no model of a database, the network stack or OpenMP).",
        vm: Vm {
            features: "STEAL",
            topology: "2s2c2t",
            scheds: &["arbor:stock", "arbor:stock:STEAL"],
            workloads: &["hackbench:g=1,l=100", "hackbench:g=2,l=100"],
            published: "20-CPU E5-2630 v4: hackbench 1 group 8.08 s -> 5.94 s (+36%), CPU busy 75% -> 97%; 8-CPU HiKey regressed; 88-CPU 2-socket -18% at 2 groups",
            scaling: "2 sockets of 4 CPUs (SMT2); hackbench process mode, 40 tasks per group as in the seed, loops cut to 100",
        },
    },
    Seed {
        name: "asym-capacity",
        number: "004",
        mechanism: "ASYM_WAKE_CAP (the seed's wake_cap), with mainline's ASYM_IDLE_CAPACITY and ASYM_MISFIT as a third column",
        tables: &[
            Table {
                title: "ARM TC2 (2 x A15 + 3 x A7), sysbench --test=cpu --num-threads=1 (events)",
                preset: "tc2",
                param: "threads",
                metric: "eps",
                higher_is_better: true,
                unit: "events in 3 s (simulated: events/s)",
                source: "seed 004, Test 0: average events of 10 runs of 3 s",
                columns: &[
                    Column { name: "tip", sched: "arbor:stock:NO_WA_IDLE,NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,SIS_IDLE_GROUP,NO_ASYM_IDLE_CAPACITY,NO_ASYM_MISFIT" },
                    Column { name: "patch", sched: "arbor:stock:NO_WA_IDLE,NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,SIS_IDLE_GROUP,NO_ASYM_IDLE_CAPACITY,NO_ASYM_MISFIT,ASYM_WAKE_CAP" },
                    Column { name: "mainline", sched: "arbor:stock:ASYM_WAKE_CAP,ASYM_IDLE_CAPACITY,ASYM_MISFIT" },
                ],
                lines: &[Line { param: "1", workload: "sysbench:threads=1,time=3", published: &[p(146.9), p(217.9), None] }],
                claim: None,
                quick: Some((0, "sysbench:threads=1,time=1", &[Some(Better), Some(Better)])),
            },
            Table {
                title: "SMP stand-in for Intel IVB-EP (2x10x2): perf bench sched messaging (s)",
                preset: "e5-2630v4",
                param: "groups",
                metric: "time_s",
                higher_is_better: false,
                unit: "s",
                source: "seed 004, Test 1 on IVB-EP: 4.862 s vs 4.886 s ('SMP should be unaffected'); the simulator has no IVB-EP preset, so the 20-CPU Broadwell of seed 003 stands in",
                columns: &[
                    Column { name: "tip", sched: "arbor:stock:NO_WA_IDLE,NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,SIS_IDLE_GROUP,NO_ASYM_IDLE_CAPACITY,NO_ASYM_MISFIT" },
                    Column { name: "patch", sched: "arbor:stock:NO_WA_IDLE,NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,SIS_IDLE_GROUP,NO_ASYM_IDLE_CAPACITY,NO_ASYM_MISFIT,ASYM_WAKE_CAP" },
                    Column { name: "mainline", sched: "arbor:stock:ASYM_WAKE_CAP,ASYM_IDLE_CAPACITY,ASYM_MISFIT" },
                ],
                lines: &[Line { param: "50", workload: "perf-messaging:g=50,l=100", published: &[p(4.862), p(4.886), None] }],
                claim: None,
                quick: None,
            },
        ],
        not_modelled: "TC2 A7-only messaging (3 x A7, 61.49 s vs 62.67 s: a machine with only the little cluster online; no such preset) and the rt-app big/little wake-up statistics (a per-case placement count, not a performance number).",
        vm: Vm {
            features: "ASYM_WAKE_CAP, ASYM_IDLE_CAPACITY, ASYM_MISFIT",
            topology: "1s4c1t",
            scheds: &[
                "arbor:stock:NO_ASYM_IDLE_CAPACITY,NO_ASYM_MISFIT:cpu-capacity=2-3:430",
                "arbor:stock:ASYM_WAKE_CAP,ASYM_IDLE_CAPACITY,ASYM_MISFIT:cpu-capacity=2-3:430",
            ],
            workloads: &["sysbench:threads=1,time=5", "perf-messaging:g=2,l=50"],
            published: "ARM TC2 (2xA15 + 3xA7): sysbench cpu 1 thread 146.9 -> 217.9 events (+48%); SMP machines unaffected",
            scaling: "4 CPUs, 2 of them declared little (--cpu-capacity 2-3:430). Under TCG every vCPU is equally fast, so only placement changes, not speed",
        },
    },
];

pub fn find(name: &str) -> Option<&'static Seed> {
    let n = name.trim();
    SEEDS
        .iter()
        .find(|s| s.name == n || s.number == n || s.number.trim_start_matches('0') == n)
}

pub fn names() -> String {
    SEEDS
        .iter()
        .map(|s| format!("{} ({})", s.name, s.number))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The seeds' names, as `arbor bench --list` prints them.
pub fn plain_names() -> String {
    SEEDS.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

/// A number as the seeds' tables print it (a published figure or a
/// simulated mean): `-` where there is none.
pub fn fmt_num(v: f64) -> String {
    crate::report::markdown::num_or(v, "-")
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_sim::presets;
    use arbor_sim::sched::SchedSpec;

    #[test]
    fn every_table_is_runnable_and_consistent() {
        for s in SEEDS {
            assert!(find(s.name).is_some() && find(s.number).is_some());
            for t in s.tables {
                let m = presets::find(t.preset).unwrap();
                for c in t.columns {
                    SchedSpec::parse(c.sched).unwrap();
                }
                for l in t.lines {
                    assert_eq!(
                        l.published.len(),
                        t.columns.len(),
                        "{}: {}",
                        t.title,
                        l.param
                    );
                    arbor_sim::workload::spec::parse(l.workload, m.nr_cpus(), 1).unwrap();
                }
                if let Some((li, w, dirs)) = t.quick {
                    assert!(li < t.lines.len());
                    assert_eq!(dirs.len(), t.columns.len() - 1);
                    arbor_sim::workload::spec::parse(w, m.nr_cpus(), 1).unwrap();
                }
                // the metric is one the workload reports (its primary, or a known one)
                let w = t.lines[0].workload;
                assert!(
                    arbor_sim::workload::spec::primary_metric(w) == Some(t.metric)
                        || t.metric.starts_with("wakeup_"),
                    "{}: {}",
                    t.title,
                    t.metric
                );
            }
        }
        assert_eq!(find("3").unwrap().name, "steal");
        assert!(find("stealing").is_none());
    }
}
