//! Counters: read from the BPF program's per-CPU rows, summed, and exposed
//! three ways: an interval table (`--stats`), an scx_stats server that
//! `--monitor` attaches to, and one JSON object of cumulative values at exit
//! (`--stats-json`). Counter names are the contract the benchmarks and the
//! simulator use.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use scx_stats::prelude::*;
use scx_stats_derive::{stat_doc, Stats};
use serde::{Deserialize, Serialize};

/// Names of the BPF counters, in `enum arbor_stat` order (intf.h).
pub const NAMES: &[&str] = &[
    "wakeups",
    "wake_wide",
    "affine_attempts",
    "affine_moves",
    "found_idle_core",
    "found_idle_cpu",
    "nofound_idle",
    "newidle_pulls",
    "newidle_fails",
    "migrations_same_llc",
    "migrations_cross_llc",
    "migrations_cross_node",
    "idle_while_queued_ns",
    "busy_ns",
    "idle_ns",
    "fork_exec_slowpath",
    "periodic_kicks",
    "busy_pulls",
    "idler_llc_this",
    "idler_llc_prev",
    "idler_llc_tie",
    "affine_throttled",
    "steal",
    "steal_fail",
    "capacity_placements",
    "misfit_tasks",
    "misfit_migrations",
    "llc_pref_tasks_in",
    "llc_pref_tasks_out",
    "llc_migrations_refused",
    "newidle_skips",
    "wake_direct",
    "wake_direct_ns",
    "wake_queued",
    "wake_queued_ns",
    "wlat_direct_0",
    "wlat_direct_1",
    "wlat_direct_2",
    "wlat_direct_3",
    "wlat_direct_4",
    "wlat_direct_5",
    "wlat_direct_6",
    "wlat_direct_7",
    "wlat_direct_8",
    "wlat_direct_9",
    "wlat_direct_10",
    "wlat_direct_11",
    "wlat_direct_12",
    "wlat_direct_13",
    "wlat_direct_14",
    "wlat_direct_15",
    "wlat_queued_0",
    "wlat_queued_1",
    "wlat_queued_2",
    "wlat_queued_3",
    "wlat_queued_4",
    "wlat_queued_5",
    "wlat_queued_6",
    "wlat_queued_7",
    "wlat_queued_8",
    "wlat_queued_9",
    "wlat_queued_10",
    "wlat_queued_11",
    "wlat_queued_12",
    "wlat_queued_13",
    "wlat_queued_14",
    "wlat_queued_15",
    "llc_proc_insert_fails",
    "fork_other_node",
    "lb_pulls",
    "lb_active",
    "llc_lb_moves",
    "wake_sync",
    "wake_wide_sync",
    "flips_sync",
    "flips_async",
    "newidle_gated",
    "wake_preempts",
    "wake_node_kept",
    "idle_pulls",
    "llc_proc_insert_retries",
    "starved_dispatch",
    "sync_local",
    "sync_kept",
    "sync_broken",
    "parity_kept",
    "sis_node_found",
    "wake_prev_idle",
    "wake_local",
    "sync_preempt_deferred",
    "next_buddy",
    "sync_pair",
    "slice_kept",
    "sync_local_big_busy",
    "cg_shares",
    "cg_reweights",
    "cg_throttles",
    "cg_idle_preempts",
];

/// The last counters of [`NAMES`], which count only in groups below the
/// root with cpu.max or cpu.idle set: the simulator lists them for runs
/// with such groups only (its outputs of other runs stay as they were).
pub const GROUP_LIMIT_NAMES: usize = 2;

/// What a counter holds: `count` (events), `ns-sum` (nanoseconds summed
/// over the events or CPUs it names), or `hist-bucket` (events that fell in
/// one bucket of a histogram). Read from the name: `_ns` ends every
/// time sum, `wlat_` starts every histogram bucket.
pub fn kind(name: &str) -> &'static str {
    if name.ends_with("_ns") {
        "ns-sum"
    } else if name.starts_with("wlat_") {
        "hist-bucket"
    } else {
        "count"
    }
}

/// Each counter's one-line description (its `Metrics` field's `desc`).
pub fn descriptions() -> BTreeMap<String, String> {
    Metrics::meta()
        .fields
        .into_iter()
        .filter_map(|(name, f)| f.attrs.desc.map(|d| (name, d)))
        .collect()
}

/// `--list-counters`: one line per counter, in `enum arbor_stat` order.
pub fn list() -> String {
    let desc = descriptions();
    let mut out = String::from("INDEX COUNTER                  KIND        DESCRIPTION\n");
    for (i, n) in NAMES.iter().enumerate() {
        out += &format!(
            "{:<5} {:<24} {:<11} {}\n",
            i,
            n,
            kind(n),
            desc.get(*n).map(String::as_str).unwrap_or("")
        );
    }
    out
}

/// `--list-counters --json`: `{"counters": [{name, index, kind,
/// description}, ...]}`, in `enum arbor_stat` order (index = the enum's value).
pub fn list_json() -> serde_json::Value {
    let desc = descriptions();
    let counters: Vec<serde_json::Value> = NAMES
        .iter()
        .enumerate()
        .map(|(i, n)| {
            serde_json::json!({
                "name": n,
                "index": i,
                "kind": kind(n),
                "description": desc.get(*n),
            })
        })
        .collect();
    serde_json::json!({ "counters": counters })
}

#[stat_doc]
#[derive(Clone, Debug, Default, Serialize, Deserialize, Stats, PartialEq)]
#[serde(deny_unknown_fields)]
#[stat(top)]
pub struct Metrics {
    #[stat(desc = "Wake-ups placed (fork/exec excluded)")]
    pub wakeups: u64,
    #[stat(desc = "Wake-ups judged wide (wake_affine skipped)")]
    pub wake_wide: u64,
    #[stat(desc = "wake_affine decisions taken")]
    pub affine_attempts: u64,
    #[stat(desc = "wake_affine decisions that pulled to the waker's CPU")]
    pub affine_moves: u64,
    #[stat(desc = "Idle-CPU scans that found a fully idle core")]
    pub found_idle_core: u64,
    #[stat(desc = "Wake-ups placed on an idle CPU (not a scanned idle core)")]
    pub found_idle_cpu: u64,
    #[stat(desc = "Wake-ups that found no idle CPU")]
    pub nofound_idle: u64,
    #[stat(desc = "Tasks pulled by a CPU going idle (or kicked to balance)")]
    pub newidle_pulls: u64,
    #[stat(desc = "Idle balancing attempts that pulled nothing")]
    pub newidle_fails: u64,
    #[stat(desc = "Task migrations within an LLC")]
    pub migrations_same_llc: u64,
    #[stat(desc = "Task migrations across LLCs within a node")]
    pub migrations_cross_llc: u64,
    #[stat(desc = "Task migrations across NUMA nodes")]
    pub migrations_cross_node: u64,
    #[stat(desc = "CPU-ns spent idle while a runnable task waited in a queue")]
    pub idle_while_queued_ns: u64,
    #[stat(desc = "CPU-ns spent running tasks")]
    pub busy_ns: u64,
    #[stat(desc = "CPU-ns spent idle")]
    pub idle_ns: u64,
    #[stat(desc = "Fork/exec placements through the idlest-group slow path")]
    pub fork_exec_slowpath: u64,
    #[stat(desc = "Idle CPUs kicked by the periodic balancer")]
    pub periodic_kicks: u64,
    #[stat(desc = "Tasks pulled by busy CPUs to fix an imbalance")]
    pub busy_pulls: u64,
    #[stat(desc = "Seed 000: cross-LLC wake-ups sent to the waker's (idler) LLC")]
    pub idler_llc_this: u64,
    #[stat(desc = "Seed 000: cross-LLC wake-ups kept in prev's (idler) LLC")]
    pub idler_llc_prev: u64,
    #[stat(desc = "Seed 000: no opinion (tie or both LLCs full): WA_WEIGHT decided")]
    pub idler_llc_tie: u64,
    #[stat(desc = "Seed 001: wake_affine skipped inside the wakee's throttle window")]
    pub affine_throttled: u64,
    #[stat(desc = "Seed 003: tasks stolen from an overloaded CPU by a CPU going idle")]
    pub steal: u64,
    #[stat(desc = "Seed 003: steal attempts that found nothing")]
    pub steal_fail: u64,
    #[stat(desc = "Seed 004: wake-ups placed by capacity (wake_cap or select_idle_capacity)")]
    pub capacity_placements: u64,
    #[stat(desc = "Seed 004: running tasks found not to fit their CPU")]
    pub misfit_tasks: u64,
    #[stat(desc = "Seed 004: misfit tasks moved to a CPU >= 5% bigger")]
    pub misfit_migrations: u64,
    #[stat(desc = "Seed 002: switch-ins of tasks inside their process's preferred LLC")]
    pub llc_pref_tasks_in: u64,
    #[stat(desc = "Seed 002: switch-ins of tasks outside their process's preferred LLC")]
    pub llc_pref_tasks_out: u64,
    #[stat(desc = "Seed 002: migrations refused to keep or avoid aggregation")]
    pub llc_migrations_refused: u64,
    #[stat(
        desc = "Newidle entries that tried no level (cost gate or NI_RANDOM), counted in newidle_fails too"
    )]
    pub newidle_skips: u64,
    #[stat(desc = "Wake-ups run from an idle CPU's local queue (select_cpu's direct insert)")]
    pub wake_direct: u64,
    #[stat(desc = "wake_direct's runnable -> running delays, summed (ns)")]
    pub wake_direct_ns: u64,
    #[stat(desc = "Wake-ups run after being enqueued on a CPU's queue")]
    pub wake_queued: u64,
    #[stat(desc = "wake_queued's runnable -> running delays, summed (ns)")]
    pub wake_queued_ns: u64,
    #[stat(desc = "Wake-up latency of direct wakees: < 1 us")]
    pub wlat_direct_0: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 1..2 us")]
    pub wlat_direct_1: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 2..4 us")]
    pub wlat_direct_2: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 4..8 us")]
    pub wlat_direct_3: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 8..16 us")]
    pub wlat_direct_4: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 16..32 us")]
    pub wlat_direct_5: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 32..64 us")]
    pub wlat_direct_6: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 64..128 us")]
    pub wlat_direct_7: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 128..256 us")]
    pub wlat_direct_8: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 256..512 us")]
    pub wlat_direct_9: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 512..1024 us")]
    pub wlat_direct_10: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 1024..2048 us")]
    pub wlat_direct_11: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 2048..4096 us")]
    pub wlat_direct_12: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 4096..8192 us")]
    pub wlat_direct_13: u64,
    #[stat(desc = "Wake-up latency of direct wakees: 8192..16384 us")]
    pub wlat_direct_14: u64,
    #[stat(desc = "Wake-up latency of direct wakees: >= 16384 us")]
    pub wlat_direct_15: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: < 1 us")]
    pub wlat_queued_0: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 1..2 us")]
    pub wlat_queued_1: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 2..4 us")]
    pub wlat_queued_2: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 4..8 us")]
    pub wlat_queued_3: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 8..16 us")]
    pub wlat_queued_4: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 16..32 us")]
    pub wlat_queued_5: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 32..64 us")]
    pub wlat_queued_6: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 64..128 us")]
    pub wlat_queued_7: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 128..256 us")]
    pub wlat_queued_8: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 256..512 us")]
    pub wlat_queued_9: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 512..1024 us")]
    pub wlat_queued_10: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 1024..2048 us")]
    pub wlat_queued_11: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 2048..4096 us")]
    pub wlat_queued_12: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 4096..8192 us")]
    pub wlat_queued_13: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: 8192..16384 us")]
    pub wlat_queued_14: u64,
    #[stat(desc = "Wake-up latency of enqueued wakees: >= 16384 us")]
    pub wlat_queued_15: u64,
    #[stat(desc = "Seed 002: processes the process table (proc_ctxs) had no room for")]
    pub llc_proc_insert_fails: u64,
    #[stat(desc = "Forks placed off the parent's node (sched_balance_find_dst_group)")]
    #[serde(default)]
    pub fork_other_node: u64,
    #[stat(desc = "LB_IMBALANCE: tasks pulled by the weighted-imbalance periodic balancer")]
    pub lb_pulls: u64,
    #[stat(desc = "LB_IMBALANCE: lone running tasks pushed to an idle CPU (active balance)")]
    pub lb_active: u64,
    #[stat(desc = "Seed 002: tasks cache-aware balancing moved into their preferred LLC")]
    #[serde(default)]
    pub llc_lb_moves: u64,
    #[stat(desc = "Wake-ups with WF_SYNC (a task waking its peer and going to sleep)")]
    #[serde(default)]
    pub wake_sync: u64,
    #[stat(desc = "wake_wide decisions on WF_SYNC wake-ups")]
    #[serde(default)]
    pub wake_wide_sync: u64,
    #[stat(desc = "Wakee flips charged to a user-task waker on a WF_SYNC wake-up")]
    #[serde(default)]
    pub flips_sync: u64,
    #[stat(
        desc = "Wakee flips charged to a user-task waker on a wake-up without WF_SYNC (also: interrupt context, charged to the task it interrupted)"
    )]
    #[serde(default)]
    pub flips_async: u64,
    #[stat(
        desc = "Newidle entries the cost gate (avg_idle < max_newidle_lb_cost) stopped before any level was scanned"
    )]
    #[serde(default)]
    pub newidle_gated: u64,
    #[stat(desc = "WAKE_PREEMPT: wake-ups that preempted the running task of a busy CPU")]
    #[serde(default)]
    pub wake_preempts: u64,
    #[stat(
        desc = "WAKE_NODE: wake-ups kept in prev's node (wake_affine skipped) because the waker's CPU is on another node and prev's node has an idle CPU"
    )]
    #[serde(default)]
    pub wake_node_kept: u64,
    #[stat(
        desc = "IDLE_PULL: newidle pulls at a level the cost bound or NI_RANDOM's dice would have skipped"
    )]
    #[serde(default)]
    pub idle_pulls: u64,
    #[stat(
        desc = "Seed 002: process-table inserts that failed for a passing reason (allocator cache empty, bucket busy); retried"
    )]
    #[serde(default)]
    pub llc_proc_insert_retries: u64,
    #[stat(
        desc = "Starvation bound (every profile): tasks queued for half the sched_ext watchdog timeout (15 s), run ahead of EEVDF's order"
    )]
    #[serde(default)]
    pub starved_dispatch: u64,
    #[stat(
        desc = "SYNC_LOCAL: sync wakees queued on the waker's CPU, whose waker kept WF_SYNC's promise (slept next) on each of its last 8 sync wake-ups"
    )]
    #[serde(default)]
    pub sync_local: u64,
    #[stat(
        desc = "SYNC_LOCAL: sync wake-ups whose waker slept next, within --migration-cost-us (counted with SYNC_LOCAL on)"
    )]
    #[serde(default)]
    pub sync_kept: u64,
    #[stat(
        desc = "SYNC_LOCAL: sync wake-ups whose waker woke another task first, or slept later than --migration-cost-us (counted with SYNC_LOCAL on)"
    )]
    #[serde(default)]
    pub sync_broken: u64,
    #[stat(
        desc = "RUN_TO_PARITY: wake-ups that would have preempted the running task but waited for the end of the request it was picked with"
    )]
    #[serde(default)]
    pub parity_kept: u64,
    #[stat(
        desc = "SIS_NODE: wake-ups that found no idle CPU in target's LLC and took an idle CPU of another LLC of its node"
    )]
    #[serde(default)]
    pub sis_node_found: u64,
    #[stat(
        desc = "Wake-ups placed on their idle prev CPU by the short path, which claims prev without copying the idle mask (the placement select_idle_sibling would have made)"
    )]
    #[serde(default)]
    pub wake_prev_idle: u64,
    #[stat(
        desc = "WAKE_LOCAL: wakees queued behind their waker on its CPU (their prev), the waker expected to sleep sooner than an idle CPU wakes up"
    )]
    #[serde(default)]
    pub wake_local: u64,
    #[stat(
        desc = "PREEMPT_SYNC: sync wake-ups that would have preempted a task picked less than migration_cost/4 ago, left queued instead"
    )]
    #[serde(default)]
    pub sync_preempt_deferred: u64,
    #[stat(
        desc = "NEXT_BUDDY: wake-ups that preempted the running task as its CPU's next buddy (eligible; with any deadline; a pair's sync wake-up made buddy by SYNC_PAIR counts in sync_pair)"
    )]
    #[serde(default)]
    pub next_buddy: u64,
    #[stat(
        desc = "SYNC_PAIR: sync wake-ups of the task that last woke the waker, made its CPU's next buddy or preempting where PREEMPT_SYNC would have deferred"
    )]
    #[serde(default)]
    pub sync_pair: u64,
    #[stat(
        desc = "Slice ends where a task alone on its CPU kept it with a new request, with no switch (the kernel's pick_next_task_fair picks it again; without it ENQ_LAST sends it through enqueue and the CPU through idle)"
    )]
    #[serde(default)]
    pub slice_kept: u64,
    #[stat(
        desc = "SYNC_LOCAL_BIG_BUSY: of sync_local, wakees too big for the waker's CPU queued there because no CPU of more capacity was idle"
    )]
    #[serde(default)]
    pub sync_local_big_busy: u64,
    #[stat(
        desc = "Group scheduling: flattened weights computed for tasks in a cgroup below the root (at enqueue and at the tick)"
    )]
    #[serde(default)]
    pub cg_shares: u64,
    #[stat(
        desc = "Group scheduling: queued tasks whose weight changed with their groups' shares (reweight_entity)"
    )]
    #[serde(default)]
    pub cg_reweights: u64,
    #[stat(
        desc = "Group scheduling: times a cgroup used its cpu.max quota up and was throttled until its period's end"
    )]
    #[serde(default)]
    pub cg_throttles: u64,
    #[stat(
        desc = "Group scheduling: wake-ups that preempted at once a task of a cpu.idle group (check_preempt_wakeup_fair)"
    )]
    #[serde(default)]
    pub cg_idle_preempts: u64,
    #[stat(desc = "Seed 002: preferred LLC of the busiest processes, pid:llc")]
    #[serde(default)]
    pub llc_prefs: String,
    #[stat(
        desc = "Group scheduling: the busiest cgroups since the load, PATH share-of-CPU-time% thr=cpu.max-throttles idlepre=cpu.idle-preemptions"
    )]
    #[serde(default)]
    pub cgroups: String,
}

impl Metrics {
    /// Builds from counter values in `NAMES` order.
    pub fn from_values(values: &[u64]) -> Result<Self> {
        let map: BTreeMap<&str, u64> = NAMES.iter().copied().zip(values.iter().copied()).collect();
        Ok(serde_json::from_value(serde_json::to_value(map)?)?)
    }

    /// The numeric counters by name (`llc_prefs`, a label, is left out).
    pub fn values(&self) -> Result<BTreeMap<String, u64>> {
        let v = serde_json::to_value(self)?;
        let obj = v.as_object().context("metrics are not an object")?;
        Ok(obj
            .iter()
            .filter_map(|(k, v)| v.as_u64().map(|n| (k.clone(), n)))
            .collect())
    }

    pub fn delta(&self, prev: &Self) -> Result<Self> {
        let (a, b) = (self.values()?, prev.values()?);
        let v: Vec<u64> = NAMES.iter().map(|n| a[*n].saturating_sub(b[*n])).collect();
        let mut d = Self::from_values(&v)?;
        d.llc_prefs = self.llc_prefs.clone();
        d.cgroups = self.cgroups.clone();
        Ok(d)
    }

    /// idle_while_queued_ns as a share of all CPU time (busy + idle), in %.
    pub fn gap_pct(&self) -> f64 {
        self.pct_of_cpu_time(self.idle_while_queued_ns)
    }

    pub fn busy_pct(&self) -> f64 {
        self.pct_of_cpu_time(self.busy_ns)
    }

    /// `ns` as a share of all CPU time (busy + idle), in %; 0 with none.
    fn pct_of_cpu_time(&self, ns: u64) -> f64 {
        let total = self.busy_ns + self.idle_ns;
        if total == 0 {
            0.0
        } else {
            100.0 * ns as f64 / total as f64
        }
    }

    pub const HEADER: &'static str = "   wakeups   wide  aff_try aff_move idlecore  idlecpu  noidle  nipull  nifail  mig_llc mig_xllc mig_xnode busy% gap% | idler t/p/tie  thrott  steal/fail  cap misfit/mig  llc in/out/refused/full  pid:llc";

    pub fn format<W: Write>(&self, w: &mut W) -> Result<()> {
        writeln!(
            w,
            "{:>10} {:>6} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7} {:>7} {:>8} {:>8} {:>9} {:>5.1} {:>4.1} | {}/{}/{} {} {}/{} {} {}/{} {}/{}/{}/{} {}",
            self.wakeups,
            self.wake_wide,
            self.affine_attempts,
            self.affine_moves,
            self.found_idle_core,
            self.found_idle_cpu,
            self.nofound_idle,
            self.newidle_pulls,
            self.newidle_fails,
            self.migrations_same_llc,
            self.migrations_cross_llc,
            self.migrations_cross_node,
            self.busy_pct(),
            self.gap_pct(),
            self.idler_llc_this,
            self.idler_llc_prev,
            self.idler_llc_tie,
            self.affine_throttled,
            self.steal,
            self.steal_fail,
            self.capacity_placements,
            self.misfit_tasks,
            self.misfit_migrations,
            self.llc_pref_tasks_in,
            self.llc_pref_tasks_out,
            self.llc_migrations_refused,
            self.llc_proc_insert_fails,
            self.llc_prefs
        )?;
        writeln!(w, "{}", self.wake_latency_line())?;
        if !self.cgroups.is_empty() {
            writeln!(w, "cgroups: {}", self.cgroups)?;
        }
        Ok(())
    }

    /// The wake-up latency histograms (direct, enqueued) as counts per log2
    /// bucket of µs, with the mean: `wakelat direct n=.. mean=..us [<1 1-2 ...]`.
    pub fn wake_latency_line(&self) -> String {
        let (d, q) = self.wake_latency_hist();
        let mean = |n: u64, ns: u64| {
            if n == 0 {
                0.0
            } else {
                ns as f64 / n as f64 / 1e3
            }
        };
        let fmt = |h: &[u64; 16]| {
            h.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        format!(
            "  wakelat direct n={} mean={:.1}us [{}] | queued n={} mean={:.1}us [{}]  (buckets: <1us, then 2^i us)",
            self.wake_direct,
            mean(self.wake_direct, self.wake_direct_ns),
            fmt(&d),
            self.wake_queued,
            mean(self.wake_queued, self.wake_queued_ns),
            fmt(&q)
        )
    }

    /// The two histograms, bucket 0 = < 1 µs, bucket i = [2^(i-1), 2^i) µs,
    /// bucket 15 = >= 16.384 ms.
    pub fn wake_latency_hist(&self) -> ([u64; 16], [u64; 16]) {
        let v = self.values().unwrap_or_default();
        let mut d = [0u64; 16];
        let mut q = [0u64; 16];
        for i in 0..16 {
            d[i] = v.get(&format!("wlat_direct_{i}")).copied().unwrap_or(0);
            q[i] = v.get(&format!("wlat_queued_{i}")).copied().unwrap_or(0);
        }
        (d, q)
    }
}

/// What the stats server asks the scheduler's main loop.
pub enum Req {
    /// The cumulative counters.
    Metrics,
    /// The live feature mask, after applying `[NO_]NAME,...` if given.
    Features(Option<String>),
}

/// The main loop's answers.
pub enum Res {
    Metrics(Box<Metrics>),
    /// `describe()` of the mask in force, or why the change was refused.
    Features(std::result::Result<String, String>),
}

/// Asks the running scx_arbor for its feature switches, after applying
/// `set` (`[NO_]NAME,...`) when given; returns them as sched_features lists them.
pub fn live_features(set: Option<&str>) -> Result<String> {
    let mut client = StatsClient::new()
        .connect(Some(5000))
        .context("cannot reach a running scx_arbor (its stats socket, /var/run/scx/root/stats)")?;
    let mut args = vec![("target".to_string(), "features".to_string())];
    if let Some(s) = set {
        args.push(("set".to_string(), s.to_string()));
    }
    client.request::<String>("stats", args)
}

/// Prints an interval table from a running instance (ours or another process's).
/// Where scx_stats serves a running scheduler's counters by default.
pub const STATS_SOCKET: &str = "/var/run/scx/root/stats";

pub fn monitor(intv: Duration, shutdown: Arc<AtomicBool>) -> Result<()> {
    let mut n = 0u64;
    scx_utils::monitor_stats::<Metrics>(
        &[],
        intv,
        || shutdown.load(Ordering::Relaxed),
        |m| {
            let mut out = std::io::stdout();
            if n % 20 == 0 {
                writeln!(out, "{}", Metrics::HEADER)?;
            }
            n += 1;
            m.format(&mut out)
        },
    )
}

/// The members of `enum NAME { ... }` in a C header, with their values (an
/// explicit `= N`, else one more than the previous member), as the compiler
/// numbers them. For the tests that hold the Rust tables to intf.h.
#[cfg(test)]
pub(crate) fn c_enum(header: &str, name: &str) -> Vec<(String, i64)> {
    // drop comments first: they may hold commas and braces
    let mut src = String::new();
    let mut rest = header;
    while let Some(i) = rest.find("/*") {
        src += &rest[..i];
        rest = &rest[i + 2..];
        rest = &rest[rest.find("*/").map_or(rest.len(), |j| j + 2)..];
    }
    src += rest;
    let src: String = src
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let start = src
        .find(&format!("enum {name} {{"))
        .unwrap_or_else(|| panic!("enum {name} not in the header"));
    let body = &src[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find('}').unwrap()];
    let mut next = 0i64;
    body.split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(|m| {
            let (id, val) = match m.split_once('=') {
                Some((id, v)) => (id.trim(), v.trim().parse().expect("a number")),
                None => (m, next),
            };
            next = val + 1;
            (id.to_string(), val)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bpf_intf;

    /// Every name, in order, is the lower-case form of
    /// its `enum arbor_stat` member in intf.h (read from the header itself,
    /// so a counter added to one side only, or out of order, fails here).
    #[test]
    fn names_are_enum_arbor_stat_in_order() {
        let members = c_enum(include_str!("bpf/intf.h"), "arbor_stat");
        let (last, nr) = members.last().unwrap();
        assert_eq!(last, "ARBOR_NR_STATS");
        assert_eq!(*nr as usize, NAMES.len());
        assert_eq!(members.len(), NAMES.len() + 1);
        for (i, (m, val)) in members[..NAMES.len()].iter().enumerate() {
            assert_eq!(*val as usize, i, "{m}");
            let want = m
                .strip_prefix("STAT_")
                .expect("STAT_ prefix")
                .to_lowercase();
            assert_eq!(NAMES[i], want, "NAMES[{i}] against {m}");
        }
    }

    #[test]
    fn c_enum_parses_values_and_skips_comments() {
        let h = "enum x { A = 3, /* B, */ C, // D,\n E = 10, F };\nenum y { G };";
        let got = c_enum(h, "x");
        let want: Vec<(String, i64)> = [("A", 3), ("C", 4), ("E", 10), ("F", 11)]
            .iter()
            .map(|(n, v)| (n.to_string(), *v))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn names_match_the_bpf_enum() {
        assert_eq!(NAMES.len(), bpf_intf::arbor_stat_ARBOR_NR_STATS as usize);
        assert_eq!(NAMES[bpf_intf::arbor_stat_STAT_WAKEUPS as usize], "wakeups");
        assert_eq!(
            NAMES[bpf_intf::arbor_stat_STAT_NEWIDLE_FAILS as usize],
            "newidle_fails"
        );
        assert_eq!(
            NAMES[bpf_intf::arbor_stat_STAT_MIGRATIONS_CROSS_NODE as usize],
            "migrations_cross_node"
        );
        assert_eq!(
            NAMES[bpf_intf::arbor_stat_STAT_IDLE_WHILE_QUEUED_NS as usize],
            "idle_while_queued_ns"
        );
        assert_eq!(NAMES[bpf_intf::arbor_stat_STAT_IDLE_NS as usize], "idle_ns");
        assert_eq!(
            NAMES[bpf_intf::arbor_stat_STAT_BUSY_PULLS as usize],
            "busy_pulls"
        );
    }

    #[test]
    fn every_name_is_a_metrics_field_and_back() {
        let vals: Vec<u64> = (1..=NAMES.len() as u64).collect();
        let m = Metrics::from_values(&vals).unwrap();
        let back = m.values().unwrap();
        assert_eq!(back.len(), NAMES.len());
        for (i, n) in NAMES.iter().enumerate() {
            assert_eq!(back[*n], vals[i], "{n}");
        }
    }

    #[test]
    fn delta_and_shares() {
        let mut a = Metrics::default();
        a.busy_ns = 300;
        a.idle_ns = 100;
        a.idle_while_queued_ns = 40;
        let mut b = a.clone();
        b.busy_ns = 900;
        b.idle_ns = 100;
        b.idle_while_queued_ns = 40;
        let d = b.delta(&a).unwrap();
        assert_eq!((d.busy_ns, d.idle_ns, d.idle_while_queued_ns), (600, 0, 0));
        assert!((a.gap_pct() - 10.0).abs() < 1e-9);
        assert!((a.busy_pct() - 75.0).abs() < 1e-9);
    }
}
