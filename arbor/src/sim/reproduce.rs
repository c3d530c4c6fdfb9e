//! `arbor sim reproduce SEED`: a seed's experiment on the seed's own
//! machine (a preset), with the seed's sweep, baseline against mechanism,
//! the seed's published numbers printed beside the simulated ones in the
//! layout of the seed's table, and a verdict: is the direction right, how
//! far off is the magnitude.
//!
//! The published numbers are copied from the seed emails
//! (shared/seeds/*.txt); each table names its source. Workloads are run
//! shorter than the seeds ran them (the simulator's cost grows with the
//! simulated time), so absolute times differ by design: compare the
//! changes, which is what the seeds argued from.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use arbor_sim::core::Config;
use arbor_sim::cost::CostModel;
use arbor_sim::presets;
use clap::Args;
use scx_arbor::knobs::Knobs;

use super::{execute, rows_of, speed_line, Done, Plan};
use crate::ci::change_ci;

#[derive(Debug, Args)]
pub struct ReproArgs {
    /// The seed: idler-llc (000), wake-affine-throttle (001), cache-aware
    /// (002), steal (003), asym-capacity (004), or its number.
    seed: Option<String>,
    /// Runs per cell, each with its own seed.
    #[arg(short, long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(2..=100))]
    reps: u32,
    /// The short version run by `make test`: one line of each table, short
    /// workloads; exits 1 if a direction differs from the one the full run
    /// showed (what the seed's entry records).
    #[arg(long)]
    quick: bool,
    /// Only the table(s) whose title contains this text.
    #[arg(long, value_name = "TEXT")]
    table: Option<String>,
    /// Also write report.md and results.json here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replay traces of the real programs in place of their models: each
    /// hackbench and pgbench line runs `trace:DIR/<its spec>.data`, as
    /// `--record-traces DIR` records them; the other lines keep their
    /// model.
    /// A replay reports its time to do the recorded work: a table whose
    /// metric is a rate (pgbench's tps) compares 1 / that time.
    #[arg(long, value_name = "DIR")]
    traces: Option<PathBuf>,
    /// With --traces recorded in a TCG guest: that boot's measured
    /// slowdown k (as `arbor sim validate` measures it). Each recording's
    /// bursts are scaled by 1 / (k x the vCPUs it kept busy), back to the
    /// cost model's machine at full speed.
    #[arg(long, value_name = "K", requires = "traces", value_parser = parse_k)]
    trace_k: Option<f64>,
    /// Record, on this machine under its own kernel, the traces that
    /// `--traces DIR` replays (`perf record` of each hackbench and pgbench
    /// line of the chosen tables; pgbench's against a PostgreSQL that
    /// `arbor bench --host -s eevdf` starts here, as a fixed number of
    /// transactions; needs root, perf and tracefs), then exit.
    #[arg(long, value_name = "DIR")]
    record_traces: Option<PathBuf>,
    /// List the seeds and their tables, then exit.
    #[arg(long)]
    list: bool,
    /// Internal: run one job (see `arbor sim`).
    #[arg(long, hide = true)]
    job: Option<usize>,
}

/// Which way a change goes, signed so that + is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Better,
    Flat,
    Worse,
}

impl Dir {
    fn word(self) -> &'static str {
        match self {
            Dir::Better => "better",
            Dir::Flat => "flat",
            Dir::Worse => "worse",
        }
    }
}

fn parse_k(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(k) if k.is_finite() && k >= 1.0 => Ok(k),
        _ => Err(format!("'{s}' is not a slowdown (a number >= 1)")),
    }
}

/// A change smaller than this (%) is "flat", published or simulated.
pub const FLAT_PCT: f64 = 2.0;
/// The magnitude goal of the issue: the simulated change within ±30% of
/// the published one.
pub const MAGNITUDE_TOL: f64 = 0.30;

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
                // the full run (docs/results/2026-11-23-sim-reproduce-fourth):
                // worse at 24-40 workers, the 95% interval far from 0
                quick: Some((3, "schbench:v=2020,m=3,w=32,r=2", &[Some(Worse)])),
            },
        ],
        not_modelled: "Daytrader (a JVM behind a web front end, 80 users; published throughput +4.34%, +0.74%, +4.32%, -0.33% for 1, 2, 4, 8 JVMs): the simulator has no JVM model, so hackbench and schbench -m 3 from the seed's benchmark list stand in, and the seed's claim (better throughput at 60-70% utilisation) is the direction checked.",
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
                    Column { name: "tip", sched: "arbor:stock:NO_WA_IDLE,NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,SIS_IDLE_GROUP" },
                    Column { name: "patch", sched: "arbor:stock:NO_WA_IDLE,NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,SIS_IDLE_GROUP,ASYM_WAKE_CAP" },
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
                    Column { name: "tip", sched: "arbor:stock:NO_WA_IDLE,NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,SIS_IDLE_GROUP" },
                    Column { name: "patch", sched: "arbor:stock:NO_WA_IDLE,NO_SIS_UTIL,NO_NI_RANDOM,NI_MIGRATION_COST,SIS_IDLE_GROUP,ASYM_WAKE_CAP" },
                    Column { name: "mainline", sched: "arbor:stock:ASYM_WAKE_CAP,ASYM_IDLE_CAPACITY,ASYM_MISFIT" },
                ],
                lines: &[Line { param: "50", workload: "perf-messaging:g=50,l=100", published: &[p(4.862), p(4.886), None] }],
                claim: None,
                quick: None,
            },
        ],
        not_modelled: "TC2 A7-only messaging (3 x A7, 61.49 s vs 62.67 s: a machine with only the little cluster online; no such preset) and the rt-app big/little wake-up statistics (a per-case placement count, not a performance number).",
    },
];

pub fn find(name: &str) -> Option<&'static Seed> {
    let n = name.trim();
    SEEDS
        .iter()
        .find(|s| s.name == n || s.number == n || s.number.trim_start_matches('0') == n)
}

fn names() -> String {
    SEEDS
        .iter()
        .map(|s| format!("{} ({})", s.name, s.number))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The signed % change (+ = better) of `v` against `base`.
fn better_pct(base: f64, v: f64, higher_is_better: bool) -> f64 {
    let c = 100.0 * (v - base) / base;
    if higher_is_better {
        c
    } else {
        -c
    }
}

fn dir_of(pct: f64) -> Dir {
    if pct >= FLAT_PCT {
        Better
    } else if pct <= -FLAT_PCT {
        Worse
    } else {
        Flat
    }
}

/// One compared cell: a line and a non-baseline column.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Compared {
    pub table: String,
    pub param: String,
    pub column: String,
    /// published change, + = better (None: not published)
    pub published_pct: Option<f64>,
    /// simulated change, + = better, with its 95% Welch interval
    pub sim_pct: f64,
    pub sim_lo: f64,
    pub sim_hi: f64,
    /// the simulated direction: flat if the interval holds 0 or |change| < FLAT_PCT
    #[serde(skip)]
    pub sim_dir: Dir,
    /// the direction to check against: the published one, else the seed's claim
    #[serde(skip)]
    pub want: Option<Dir>,
}

impl Compared {
    fn direction_right(&self) -> Option<bool> {
        self.want.map(|w| w == self.sim_dir)
    }
    /// |sim - published| <= 30% of |published|, where a change was published.
    fn magnitude_within(&self) -> Option<bool> {
        let p = self.published_pct?;
        if dir_of(p) == Flat {
            return None;
        }
        Some((self.sim_pct - p).abs() <= MAGNITUDE_TOL * p.abs())
    }
}

/// What a replayed table compares in place of a rate: 1 / the replay's
/// time to do the recorded work (a fixed number of transactions: the
/// same change as their rate's).
pub const REPLAY_RATE: &str = "1/time_s";

fn values(done: &[Done], plan: usize, sched: usize, wl: usize, metric: &str) -> Vec<f64> {
    let (name, inverse) = match metric {
        REPLAY_RATE => ("time_s", true),
        m => (m, false),
    };
    done.iter()
        .filter(|d| d.plan == plan && d.sched == sched && d.workload == wl)
        .filter_map(|d| d.out.metrics.iter().find(|m| m.0 == name).map(|m| m.1))
        .map(|v| if inverse { 1.0 / v } else { v })
        .collect()
}

/// The metric a table compares and whether higher is better: its own,
/// except where its lines are replayed traces and its metric is not the
/// replay's `time_s` (a rate: compared as [`REPLAY_RATE`]).
fn compared_metric(t: &Table, replayed: bool) -> (&'static str, bool) {
    if replayed && t.metric != "time_s" && t.lines.iter().any(|l| traced(l.workload)) {
        (REPLAY_RATE, true)
    } else {
        (t.metric, t.higher_is_better)
    }
}

fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        "-".into()
    } else if v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

pub fn main(a: &ReproArgs) -> Result<i32> {
    if a.list || a.seed.is_none() {
        for s in SEEDS {
            println!("{:<22} seed {}: {}", s.name, s.number, s.mechanism);
            for t in s.tables {
                println!("    [{}] {}", t.preset, t.title);
            }
        }
        if a.seed.is_none() && !a.list {
            bail!("which seed? one of: {}", names());
        }
        return Ok(0);
    }
    let name = a.seed.as_deref().unwrap_or_default();
    let seed = find(name).with_context(|| format!("unknown seed '{name}' (seeds: {})", names()))?;
    let tables: Vec<&Table> = seed
        .tables
        .iter()
        .filter(|t| {
            a.table
                .as_ref()
                .is_none_or(|f| t.title.contains(f.as_str()))
        })
        .filter(|t| !a.quick || t.quick.is_some())
        .collect();
    if tables.is_empty() {
        bail!(
            "seed '{}': no table {}",
            seed.name,
            if a.quick {
                "has a --quick line"
            } else {
                "matches --table"
            }
        );
    }
    if let Some(dir) = &a.record_traces {
        return record_traces(&tables, dir);
    }
    let cfg = Config {
        time_limit: 120_000_000_000,
        ..Config::default()
    };
    if let Some(dir) = &a.traces {
        let mut missing: Vec<PathBuf> = tables
            .iter()
            .flat_map(|t| t.lines.iter().map(|l| l.workload))
            .filter(|w| traced(w))
            .map(|w| trace_file(dir, w))
            .filter(|f| !f.is_file())
            .collect();
        missing.dedup();
        if let Some(first) = missing.first() {
            bail!(
                "--traces: {} trace(s) missing ({}, ...); record them on a machine like the table's with: arbor sim reproduce {} --record-traces {}",
                missing.len(),
                first.display(),
                seed.name,
                dir.display()
            );
        }
    }
    let mut plans = Vec::new();
    // per table, the replays that stood in for its lines (the report lists them)
    let mut replays: Vec<Vec<String>> = Vec::new();
    for t in &tables {
        let scheds: Vec<String> = t.columns.iter().map(|c| c.sched.to_string()).collect();
        let mut wls: Vec<String> = match (a.quick, t.quick) {
            (true, Some((_, w, _))) => vec![w.to_string()],
            _ => t.lines.iter().map(|l| l.workload.to_string()).collect(),
        };
        let mut replayed = Vec::new();
        if let Some(dir) = &a.traces {
            for w in wls.iter_mut() {
                if traced(w) {
                    *w = replay_spec(dir, w, a.trace_k)?;
                    replayed.push(w.clone());
                }
            }
        }
        replays.push(replayed);
        let machine = presets::find(t.preset)?;
        plans.push(
            Plan::new(
                machine,
                CostModel::default(),
                cfg.clone(),
                Knobs::default(),
                &scheds,
                &wls,
                a.reps,
                1,
            )
            .with_context(|| format!("seed '{}', table '{}'", seed.name, t.title))?,
        );
    }
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let wall = std::time::Instant::now();
    let Some(done) = execute(&plans, a.job)? else {
        return Ok(0);
    };
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Seed {} ({}): simulated beside published\n\nMechanism: {}.\n\nSimulated (not measured): scx_arbor's BPF code on each table's machine preset, {} runs per cell (seeds 1..{}), cost model as fixed in docs/sim/cost-model.md. Published: the seed's own numbers. Workloads run shorter than the seed's, so absolute values differ by design; compare the changes (signed so that + is better, as the seeds' %speedup). A simulated change is **flat** when its 95% Welch interval holds 0 or it is under {FLAT_PCT}%.\n",
        seed.number, seed.name, seed.mechanism, a.reps, a.reps
    );
    let mut all = Vec::new();
    let mut failed = Vec::new();
    let mut quick_bad = Vec::new();
    for (pi, t) in tables.iter().enumerate() {
        let plan = &plans[pi];
        let (metric, higher_is_better) = compared_metric(t, a.traces.is_some());
        let (_, f) = rows_of(plan, pi, &done);
        failed.extend(f);
        let lines: Vec<(usize, &Line)> = match (a.quick, t.quick) {
            (true, Some((li, _, _))) => vec![(0, &t.lines[li])],
            _ => t.lines.iter().enumerate().collect(),
        };
        let _ = writeln!(
            md,
            "## {} [`{}`]\n\nSource: {}. Metric: `{}` ({}, {}).{}\n",
            t.title,
            t.preset,
            t.source,
            metric,
            if metric == REPLAY_RATE {
                "1/s of the replay, published: tps"
            } else {
                t.unit
            },
            if higher_is_better {
                "higher is better"
            } else {
                "lower is better"
            },
            if metric == REPLAY_RATE {
                " Replayed traces of the real program: each run does the recorded work (a fixed set of transactions), so 1 / its time changes as its tps would; the published column is the seed's tps.".to_string()
            } else {
                String::new()
            }
        );
        if !replays[pi].is_empty() {
            let _ = writeln!(md, "Replayed, in line order:\n");
            for r in &replays[pi] {
                let _ = writeln!(md, "- `{r}`");
            }
            let _ = writeln!(md);
        }
        // header: param | published per column | simulated per column
        let mut h = format!("| {} |", t.param);
        let mut sep = String::from("|---|");
        for c in t.columns {
            let _ = write!(h, " {} (published) |", c.name);
            sep.push_str("---|");
        }
        for c in t.columns {
            let _ = write!(h, " {} (sim) |", c.name);
            sep.push_str("---|");
        }
        // how loaded the simulated machine was, per column (the seeds'
        // effects depend on it: seed 000's claim is at 60-70%)
        h.push_str(" busy % (sim) |");
        sep.push_str("---|");
        let _ = writeln!(md, "{h}\n{sep}");
        for (wi, line) in &lines {
            let base_pub = line.published.first().copied().flatten();
            let base_sim = values(&done, pi, 0, *wi, metric);
            let (bm, bsd) = crate::ci::mean_sd(&base_sim);
            let mut r = format!("| {} |", line.param);
            for (ci, _) in t.columns.iter().enumerate() {
                match (line.published.get(ci).copied().flatten(), base_pub) {
                    (Some(v), Some(b)) if ci > 0 => {
                        let _ = write!(
                            r,
                            " {} ({:+.1}%) |",
                            fmt_num(v),
                            better_pct(b, v, higher_is_better)
                        );
                    }
                    (Some(v), _) => {
                        let _ = write!(r, " {} |", fmt_num(v));
                    }
                    (None, _) => r.push_str(" - |"),
                }
            }
            let _ = write!(r, " {} ± {} |", fmt_num(bm), fmt_num(bsd));
            for (ci, c) in t.columns.iter().enumerate().skip(1) {
                let v = values(&done, pi, ci, *wi, metric);
                let (m, sd) = crate::ci::mean_sd(&v);
                let Some((chg, lo, hi)) = change_ci(&base_sim, &v) else {
                    let _ = write!(r, " {} ± {} |", fmt_num(m), fmt_num(sd));
                    continue;
                };
                // signed + = better
                let (s, slo, shi) = if higher_is_better {
                    (chg, lo, hi)
                } else {
                    (-chg, -hi, -lo)
                };
                let sim_dir = if slo <= 0.0 && shi >= 0.0 {
                    Flat
                } else {
                    dir_of(s)
                };
                let _ = write!(
                    r,
                    " {} ± {} ({:+.1}% [{:+.1}, {:+.1}]) |",
                    fmt_num(m),
                    fmt_num(sd),
                    s,
                    slo,
                    shi
                );
                let published_pct = match (line.published.get(ci).copied().flatten(), base_pub) {
                    (Some(v), Some(b)) => Some(better_pct(b, v, higher_is_better)),
                    _ => None,
                };
                let want = published_pct.map(dir_of).or(t.claim);
                let cmp = Compared {
                    table: t.title.to_string(),
                    param: line.param.to_string(),
                    column: c.name.to_string(),
                    published_pct,
                    sim_pct: s,
                    sim_lo: slo,
                    sim_hi: shi,
                    sim_dir,
                    want,
                };
                if a.quick {
                    if let Some((_, _, dirs)) = t.quick {
                        if let Some(Some(expect)) = dirs.get(ci - 1) {
                            if *expect != sim_dir {
                                quick_bad.push(format!(
                                    "{} [{}], {} = {}, {}: {} ({:+.1}%), the full run showed {}",
                                    seed.name,
                                    t.preset,
                                    t.param,
                                    line.param,
                                    c.name,
                                    sim_dir.word(),
                                    s,
                                    expect.word()
                                ));
                            }
                        }
                    }
                }
                all.push(cmp);
            }
            let busy: Vec<String> = (0..t.columns.len())
                .map(|ci| fmt_num(crate::ci::mean_sd(&values(&done, pi, ci, *wi, "busy_pct")).0))
                .collect();
            let _ = write!(r, " {} |", busy.join(" / "));
            let _ = writeln!(md, "{r}");
        }
        // per-table verdict
        let tc: Vec<&Compared> = all.iter().filter(|c| c.table == t.title).collect();
        let _ = writeln!(md, "\n{}\n", verdict(&tc));
    }
    let _ = writeln!(
        md,
        "## Verdict, seed {}\n\n{}\n\nNot modelled: {}\n",
        seed.number,
        verdict(&all.iter().collect::<Vec<_>>()),
        seed.not_modelled
    );
    println!("{md}");
    if let Some(dir) = &a.out {
        std::fs::write(dir.join("report.md"), &md)?;
        let meta = serde_json::json!({
            "seed": seed.number, "name": seed.name, "reps": a.reps, "quick": a.quick,
            "compared": all,
        });
        std::fs::write(
            dir.join("results.json"),
            serde_json::to_string_pretty(&meta)?,
        )?;
        eprintln!("arbor sim reproduce: report in {}", dir.display());
    }
    eprintln!("arbor sim reproduce: {}", speed_line(&done, wall));
    for f in &failed {
        eprintln!("arbor sim reproduce: {f}");
    }
    for q in &quick_bad {
        eprintln!("arbor sim reproduce: direction changed: {q}");
    }
    Ok(if failed.is_empty() && quick_bad.is_empty() {
        0
    } else {
        1
    })
}

/// "direction right in a/b compared cells; magnitude within ±30% in c/d".
fn verdict(cells: &[&Compared]) -> String {
    let judged: Vec<bool> = cells.iter().filter_map(|c| c.direction_right()).collect();
    let right = judged.iter().filter(|r| **r).count();
    let mags: Vec<bool> = cells.iter().filter_map(|c| c.magnitude_within()).collect();
    let within = mags.iter().filter(|r| **r).count();
    let wrong: Vec<String> = cells
        .iter()
        .filter(|c| c.direction_right() == Some(false))
        .map(|c| {
            format!(
                "{} {} ({}): want {}, sim {} {:+.1}%",
                c.param,
                c.column,
                c.published_pct
                    .map(|p| format!("published {p:+.1}%"))
                    .unwrap_or_else(|| "claimed".into()),
                c.want.map(|w| w.word()).unwrap_or("-"),
                c.sim_dir.word(),
                c.sim_pct
            )
        })
        .collect();
    let mut s = format!(
        "**Direction right in {right} of {} cells; magnitude within ±{:.0}% of the published change in {within} of {} cells with a published non-flat change.**",
        judged.len(),
        MAGNITUDE_TOL * 100.0,
        mags.len()
    );
    if !wrong.is_empty() {
        let _ = write!(s, " Wrong direction: {}.", wrong.join("; "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn replayed_tables_compare_what_a_replay_reports() {
        let t001 = &find("001").unwrap().tables[0];
        let t003 = &find("003").unwrap().tables[0];
        let t000 = &find("000").unwrap().tables[1];
        // pgbench's tps: the models report it, a replay only its time
        assert_eq!(compared_metric(t001, false), ("tps", true));
        assert_eq!(compared_metric(t001, true), (REPLAY_RATE, true));
        // hackbench's time is the replay's own
        assert_eq!(compared_metric(t003, true), ("time_s", false));
        // schbench keeps its model, and its metric
        assert_eq!(compared_metric(t000, true), ("wakeup_p99_us", false));
        assert!(traced("pgbench:clients=8,jobs=1,time=1") && traced("hackbench:g=1"));
        assert!(!traced("schbench:m=1,w=1,r=1"));
        // a pgbench line is recorded as a fixed number of transactions
        assert_eq!(
            recorded_pgbench_spec("pgbench:clients=8,jobs=1,time=1").unwrap(),
            "pgbench:clients=8,jobs=1,xacts=500"
        );
        assert_eq!(
            recorded_pgbench_spec("pgbench:clients=24,jobs=1,time=1").unwrap(),
            "pgbench:clients=24,jobs=1,xacts=167"
        );
        assert!(recorded_pgbench_spec("pgbench:clients=0,time=1").is_err());
        assert!(parse_k("430.9").is_ok());
        assert!(parse_k("0.5").unwrap_err().contains("not a slowdown"));
        assert!(parse_k("nan").is_err());
        // no k, no scale; pgbench's processes are read from its recording
        let d = Path::new("/t");
        let e = replay_spec(d, "pgbench:clients=8,jobs=1,time=1", None).unwrap_err();
        assert!(
            format!("{e:#}").contains("the trace of pgbench:clients=8,jobs=1,time=1"),
            "{e:#}"
        );
        assert_eq!(
            replay_spec(d, "hackbench:g=1,l=2000,ipc=socket", None).unwrap(),
            "trace:/t/hackbench_g_1_l_2000_ipc_socket.data"
        );
        // with k the trace is read for its scale: a missing one says so
        let e = replay_spec(d, "hackbench:g=1", Some(100.0)).unwrap_err();
        assert!(
            format!("{e:#}").contains("the trace of hackbench:g=1"),
            "{e:#}"
        );
    }

    #[test]
    fn signed_changes_and_verdicts() {
        assert_eq!(better_pct(8.0, 6.0, false), 25.0);
        assert_eq!(better_pct(100.0, 141.0, true), 41.0);
        let c = |p: Option<f64>, s: f64, want: Option<Dir>| Compared {
            table: "t".into(),
            param: "1".into(),
            column: "new".into(),
            published_pct: p,
            sim_pct: s,
            sim_lo: s - 1.0,
            sim_hi: s + 1.0,
            sim_dir: dir_of(s),
            want,
        };
        let a = c(Some(30.0), 25.0, Some(Better)); // right, within 30%
        let b = c(Some(30.0), 5.0, Some(Better)); // right, too small
        let d = c(Some(-18.0), 10.0, Some(Worse)); // wrong
        let e = c(Some(0.5), 0.0, Some(Flat)); // flat published: no magnitude
        assert_eq!(a.magnitude_within(), Some(true));
        assert_eq!(b.magnitude_within(), Some(false));
        assert_eq!(e.magnitude_within(), None);
        let v = verdict(&[&a, &b, &d, &e]);
        assert!(v.contains("Direction right in 3 of 4"), "{v}");
        assert!(v.contains("in 1 of 3 cells"), "{v}");
        assert!(
            v.contains("Wrong direction: 1 new (published -18.0%)"),
            "{v}"
        );
    }
}

/// The lines a recorded trace can stand in for: real programs whose
/// result the replay can give. hackbench's `time_s` is the replay's; a
/// pgbench trace holds a fixed set of transactions (recorded with
/// `xacts=`), so 1 / its replay time changes as its tps would. schbench's
/// latencies are not what a replay measures, and schbench is not packaged
/// for Debian: those keep their models.
fn traced(spec: &str) -> bool {
    spec.starts_with("hackbench:") || spec.starts_with("pgbench:")
}

/// Transactions a pgbench line's recording holds in all, over its clients
/// (`xacts=` = this / clients, rounded up): enough that the replay's window
/// is the clients' steady state, and a recording of a few MB.
const RECORDED_XACTS: u32 = 4000;

/// The spec `--record-traces` runs for a seed's pgbench line: its `time=`
/// (seconds, which a replay cannot hold fixed) becomes a fixed number of
/// transactions, [`RECORDED_XACTS`] over its clients.
fn recorded_pgbench_spec(spec: &str) -> Result<String> {
    let (_, keys) = spec.split_once(':').unwrap_or((spec, ""));
    let mut clients = 1u32;
    let mut kept = Vec::new();
    for kv in keys.split(',').filter(|k| !k.is_empty()) {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        match k {
            "time" | "xacts" => {}
            "clients" => {
                clients = v
                    .parse()
                    .ok()
                    .filter(|c| *c > 0)
                    .with_context(|| format!("{spec}: clients={v} is not a count"))?;
                kept.push(kv.to_string());
            }
            _ => kept.push(kv.to_string()),
        }
    }
    kept.push(format!("xacts={}", RECORDED_XACTS.div_ceil(clients)));
    Ok(format!("pgbench:{}", kept.join(",")))
}

/// pgbench's processes in a recording, as replay keys: pgbench and the
/// PostgreSQL processes that ended during it (its connections' backends,
/// forked by the postmaster, not by perf), from the last backend's fork
/// on. The server's own processes (postmaster, checkpointer, walwriter,
/// ...) outlive the recording, asleep most of it: replayed, they would
/// hold the replay open to the recording's end. Before its first
/// connection pgbench is loading itself and its libraries, IO waits that
/// interrupts end (in a guest, over its 9p root: 594 of the sched_waking
/// events for pgbench in an 8-client recording ran in the idle task,
/// docs/results/2026-11-26-trace-seeds), which a replay keeps as fixed
/// sleeps. Then it opens its connections one after another, each waiting
/// for the postmaster (not replayed) to fork a backend: timing the replay
/// holds fixed, and which pgbench's own tps leaves out ("without initial
/// connection time": pgbench 15's threadRun connects every client before
/// its first transaction). The window starts at the last backend's fork,
/// so it is the transactions (and the last backend's own start).
fn pgbench_keys(file: &Path) -> Result<String> {
    let c = arbor_sim::workload::trace::census::Census::read(file)?;
    let procs = c.processes();
    let exited = |threads: &Vec<i32>| {
        threads
            .iter()
            .all(|t| c.threads.get(t).is_some_and(|th| th.exited))
    };
    let mut pgbench = Vec::new();
    let mut backends = Vec::new();
    for (tgid, threads) in &procs {
        match c.name(*tgid).as_str() {
            "pgbench" => pgbench.push(*tgid),
            "postgres" if exited(threads) => backends.push(*tgid),
            _ => {}
        }
    }
    if pgbench.is_empty() || backends.is_empty() {
        bail!(
            "{}: no pgbench process with backends that ended in the recording",
            file.display()
        );
    }
    let starts = |tgids: &[i32]| -> Vec<u64> {
        tgids
            .iter()
            .flat_map(|p| procs[p].iter())
            .filter_map(|t| c.threads.get(t).map(|th| th.first_t))
            .collect()
    };
    let all: Vec<i32> = pgbench.iter().chain(&backends).copied().collect();
    let last_backend = starts(&backends).into_iter().max().unwrap_or(0);
    let first_all = starts(&all).into_iter().min().unwrap_or(0);
    let from_ns = last_backend.saturating_sub(first_all);
    let pids: Vec<String> = all.iter().map(|p| p.to_string()).collect();
    Ok(format!(
        ",pid={},from={:.6}",
        pids.join("|"),
        from_ns as f64 / 1e9
    ))
}

/// The replay of `spec`'s recording in `dir`: its processes (pgbench's:
/// [`pgbench_keys`]), and with `k` (a TCG guest's slowdown) the scale
/// that brings its bursts back to the cost model's machine at full speed:
/// 1 / (k x the vCPUs it kept busy), `validate::trace_scale`.
fn replay_spec(dir: &Path, spec: &str, k: Option<f64>) -> Result<String> {
    let file = trace_file(dir, spec);
    let keys = if spec.starts_with("pgbench:") {
        pgbench_keys(&file).with_context(|| format!("the trace of {spec}"))?
    } else {
        String::new()
    };
    let base = format!("{}{keys}", file.display());
    let Some(k) = k else {
        return Ok(format!("trace:{base}"));
    };
    let sum = &arbor_sim::workload::trace::load(&base)
        .with_context(|| format!("the trace of {spec}"))?
        .summary;
    let scale = super::validate::trace_scale(k, sum.cpu_ns, sum.wall_ns);
    Ok(format!("trace:{base},scale={scale:.8}"))
}

/// `DIR/hackbench_g_2_l_1000_ipc_socket.data` for `hackbench:g=2,l=1000,ipc=socket`.
pub fn trace_file(dir: &Path, spec: &str) -> PathBuf {
    let name: String = spec
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    dir.join(format!("{name}.data"))
}

/// Records each traced line of `tables` on this machine: `perf record` of
/// the sched tracepoints the replay reads, around the same command
/// `arbor bench` runs for the spec.
fn record_traces(tables: &[&Table], dir: &Path) -> Result<i32> {
    use crate::bench::workload::{Env, Workload};
    if !Path::new("/sys/kernel/tracing/events/sched").is_dir() {
        bail!("--record-traces: tracefs is not mounted (as root: mount -t tracefs nodev /sys/kernel/tracing)");
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let ncpu = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    let mut specs: Vec<&str> = tables
        .iter()
        .flat_map(|t| t.lines.iter().map(|l| l.workload))
        .filter(|w| traced(w))
        .collect();
    specs.sort_unstable();
    specs.dedup();
    let (pgbench, specs): (Vec<&str>, Vec<&str>) =
        specs.into_iter().partition(|w| w.starts_with("pgbench:"));
    for spec in pgbench {
        record_pgbench(spec, dir)?;
    }
    for spec in specs {
        let f = trace_file(dir, spec);
        let argv = Workload::parse(spec, ncpu)?.argv(&Env::SHOWN);
        let rec = crate::bench::plan::perf_record_argv(&f);
        let mut cmd = std::process::Command::new(&rec[0]);
        cmd.args(&rec[1..])
            .args(&argv)
            .stdout(std::process::Stdio::null());
        eprintln!(
            "arbor sim reproduce: recording {} -> {}",
            argv.join(" "),
            f.display()
        );
        let st = cmd
            .status()
            .context("running perf (install it: scripts/install-deps.sh)")?;
        if !st.success() {
            bail!(
                "--record-traces: perf record of '{}' failed ({st})",
                argv.join(" ")
            );
        }
        arbor_sim::workload::trace::ksyms::save_for(&f)
            .with_context(|| format!("--record-traces: the kallsyms copy of {}", f.display()))?;
    }
    Ok(0)
}

/// Records a seed's pgbench line on this machine under its own kernel:
/// `arbor bench --host -s eevdf` starts PostgreSQL (its data in a private
/// directory, fsync off) and runs the line as [`recorded_pgbench_spec`]
/// inside `perf record`; the recording and its kallsyms copy are then
/// moved to the name `--traces` reads for the seed's spec.
fn record_pgbench(spec: &str, dir: &Path) -> Result<()> {
    let run = recorded_pgbench_spec(spec)?;
    let tmp = tempfile::Builder::new()
        .prefix(".arbor-pgrec.")
        .tempdir_in(dir)
        .with_context(|| format!("creating a directory in {}", dir.display()))?;
    let rec = tmp.path().join("rec");
    eprintln!("arbor sim reproduce: recording {run} (for {spec}) with arbor bench --host");
    let st = std::process::Command::new(super::self_exe()?)
        .args(["bench", "--host", "-s", "eevdf", "-w", &run, "-r", "1"])
        .args(["--no-charts", "--force", "--record-traces"])
        .arg(&rec)
        .arg("-o")
        .arg(tmp.path().join("bench"))
        .stdout(std::process::Stdio::null())
        .status()
        .context("running arbor bench")?;
    if !st.success() {
        bail!("--record-traces: arbor bench --host could not record {run} ({st})");
    }
    // the name bench gave the recording of `run`'s only repetition
    let made = crate::bench::plan::trace_file(&rec, &run, 1);
    let f = trace_file(dir, spec);
    for ext in ["", ".kallsyms"] {
        let from = PathBuf::from(format!("{}{ext}", made.display()));
        let to = PathBuf::from(format!("{}{ext}", f.display()));
        std::fs::rename(&from, &to).with_context(|| {
            format!(
                "--record-traces: moving {} to {}",
                from.display(),
                to.display()
            )
        })?;
    }
    eprintln!("arbor sim reproduce: recorded {}", f.display());
    Ok(())
}
