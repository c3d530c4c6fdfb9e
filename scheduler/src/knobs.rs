//! scx_arbor's tunables, and the BPF read-only data they become. One source
//! for both the loader (`scx_arbor`) and the simulator (`arbor sim`), which
//! take the same flags and must give the BPF code the same values.

use anyhow::Result;
use clap::Args;

use crate::policy;
use crate::topology::Topo;

// Every default below is intf.h's enum arbor_defaults, through bindgen:
// written once, read by the flags here and by the BPF globals' initialisers.
use crate::bpf_intf as c;

/// The tunables, as command-line flags (flattened into each front end),
/// one group per config struct of intf.h.
#[derive(Debug, Clone, Args)]
pub struct Knobs {
    #[command(flatten)]
    pub slice: SliceKnobs,
    #[command(flatten)]
    pub balance: BalanceKnobs,
    #[command(flatten)]
    pub wa: WakeAffineKnobs,
    #[command(flatten)]
    pub steal: StealKnobs,
    #[command(flatten)]
    pub cache: CacheKnobs,
    #[command(flatten)]
    pub capacity: CapacityKnobs,
    #[command(flatten)]
    pub group: GroupKnobs,
}

/// Group scheduling (cgroup.bpf.h, cgroup_bw.bpf.h).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Group scheduling")]
pub struct GroupKnobs {
    /// Ignore cgroups' cpu.weight, cpu.max and cpu.idle: every task weighs
    /// its own weight, as if all were in the root cgroup (the scheduler
    /// before group scheduling; for comparison). By default a task's weight
    /// is flattened through its cgroups' weights, as fair.c's task groups
    /// share the CPU, a group that used its cpu.max quota waits until its
    /// period ends, and a cpu.idle group's tasks weigh as SCHED_IDLE ones.
    /// Takes an optional true/false (a scheduler spec's `no-cgroups=true`).
    #[arg(long, num_args = 0..=1, default_value_t = false, default_missing_value = "true",
          action = clap::ArgAction::Set)]
    pub no_cgroups: bool,
}

/// struct arbor_slice_cfg: the EEVDF slice.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Slice (EEVDF)")]
pub struct SliceKnobs {
    /// Time slice in µs; 0 = the kernel's base slice scaled by CPU count
    /// (base × (1 + log2(min(ncpus, 8))), 3000 µs on 8+ CPUs). At most 10 s.
    #[arg(long, default_value_t = c::arbor_defaults_DEF_SLICE_US as u64,
          value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    pub slice_us: u64,

    /// The kernel's sysctl_sched_base_slice in µs, scaled as above when --slice-us is 0.
    #[arg(long, default_value_t = c::arbor_defaults_DEF_BASE_SLICE_US as u64,
          value_parser = clap::value_parser!(u64).range(50..=100_000))]
    pub base_slice_us: u64,
}

/// struct arbor_balance_cfg: newidle and the periodic balancer.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Balancing")]
pub struct BalanceKnobs {
    /// sd->imbalance_pct: how much busier a CPU must be to lose a task (kernel: 117).
    #[arg(long, default_value_t = c::arbor_defaults_DEF_IMBALANCE_PCT,
          value_parser = clap::value_parser!(u32).range(100..=1000))]
    pub imbalance_pct: u32,

    /// A task that ran within this many µs is cache-hot: not pulled across LLCs (kernel: 500).
    #[arg(long, default_value_t = c::arbor_defaults_DEF_MIGRATION_COST_US as u64,
          value_parser = clap::value_parser!(u64).range(0..=100_000))]
    pub migration_cost_us: u64,

    /// Period of the periodic balancer, in ms.
    #[arg(long, default_value_t = c::arbor_defaults_DEF_BALANCE_INTERVAL_MS as u64,
          value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub balance_interval_ms: u64,
}

/// struct arbor_wa_cfg: seed 001 (WA_THROTTLE).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Seed 001: wake-affine throttle")]
pub struct WakeAffineKnobs {
    /// Seed 001 (WA_THROTTLE): after a failed wake_affine, skip it for this
    /// many ms for that wakee; 0 disables the throttle.
    #[arg(long, default_value_t = c::arbor_defaults_DEF_WAKE_AFFINE_INTERVAL_MS as u64,
          value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pub wake_affine_interval_ms: u64,
}

/// struct arbor_steal_cfg: seed 003 (STEAL).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Seed 003: steal")]
pub struct StealKnobs {
    /// Seed 003 (STEAL): steal only if the CPU's average idle time is at least this (µs).
    #[arg(long, default_value_t = c::arbor_defaults_DEF_STEAL_COST_US as u64,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub steal_cost_us: u64,

    /// Seed 003 (STEAL): disabled on machines with more NUMA nodes than this.
    #[arg(long, default_value_t = c::arbor_defaults_DEF_STEAL_NODE_LIMIT,
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub steal_node_limit: u32,
}

/// struct arbor_cache_cfg: seed 002 (CACHE_LB).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Seed 002: cache-aware aggregation")]
pub struct CacheKnobs {
    /// Seed 002 (CACHE_LB): an LLC is "full" for aggregation above this % utilisation.
    #[arg(long, default_value_t = c::arbor_defaults_DEF_LLC_AGGR_PCT,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub llc_aggr_pct: u32,

    /// Seed 002: a move into/out of the preferred LLC needs this % of imbalance.
    #[arg(long, default_value_t = c::arbor_defaults_DEF_LLC_IMB_PCT,
          value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub llc_imb_pct: u32,

    /// Seed 002: occupancy halves, and the hottest LLC is rescanned, every epoch (ms).
    #[arg(long, default_value_t = c::arbor_defaults_DEF_LLC_EPOCH_MS as u64,
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub llc_epoch_ms: u64,

    /// Seed 002: a preference not refreshed for this many epochs is dropped.
    #[arg(long, default_value_t = c::arbor_defaults_DEF_LLC_TIMEOUT_EPOCHS,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub llc_timeout_epochs: u32,

    /// Seed 002: the kernel's llc_aggr_tolerance, a multiplier. A process is
    /// aggregated only if its running threads x SMT width fit in 80% of
    /// N x the LLC's CPUs: 1 = the LLC as it is, 2 = twice it, ...;
    /// 0 = no process is aggregated; 100 or more = no limit.
    #[arg(long, default_value_t = c::arbor_defaults_DEF_LLC_TOLERANCE,
          value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub llc_tolerance: u32,
}

/// Seed 004: the CPU capacities the scheduler is told (topology, not a
/// config struct: they become cpu_cap[]).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Seed 004: CPU capacity")]
pub struct CapacityKnobs {
    /// Seed 004: override CPU capacities, e.g. 0-1:1024,2-4:430 (1..=1024;
    /// CPUs not named keep their sysfs capacity).
    #[arg(long, value_name = "LIST:CAP,...")]
    pub cpu_capacity: Option<String>,
}

impl SliceKnobs {
    /// The slice in ns: --slice-us, or the kernel's scaled base slice.
    pub fn cfg(&self, topo: &Topo) -> c::arbor_slice_cfg {
        let slice_ns = if self.slice_us > 0 {
            self.slice_us.saturating_mul(1000)
        } else {
            policy::base_slice_ns(topo.all().count() as u32, self.base_slice_us * 1000)
        };
        c::arbor_slice_cfg { slice_ns }
    }
}

impl BalanceKnobs {
    pub fn cfg(&self) -> c::arbor_balance_cfg {
        c::arbor_balance_cfg {
            migration_cost_ns: self.migration_cost_us * 1000,
            interval_ns: self.balance_interval_ms * 1_000_000,
            imbalance_pct: self.imbalance_pct,
            pad: 0,
        }
    }
}

impl WakeAffineKnobs {
    pub fn cfg(&self) -> c::arbor_wa_cfg {
        c::arbor_wa_cfg {
            interval_ns: self.wake_affine_interval_ms * 1_000_000,
        }
    }
}

impl StealKnobs {
    pub fn cfg(&self) -> c::arbor_steal_cfg {
        c::arbor_steal_cfg {
            cost_ns: self.steal_cost_us * 1000,
            node_limit: self.steal_node_limit,
            pad: 0,
        }
    }
}

impl CacheKnobs {
    pub fn cfg(&self) -> c::arbor_cache_cfg {
        c::arbor_cache_cfg {
            epoch_ns: self.llc_epoch_ms * 1_000_000,
            timeout_epochs: self.llc_timeout_epochs,
            aggr_pct: self.llc_aggr_pct,
            imb_pct: self.llc_imb_pct,
            tolerance: self.llc_tolerance,
        }
    }
}

impl Default for Knobs {
    fn default() -> Self {
        use clap::Parser;
        #[derive(Parser)]
        struct Only {
            #[command(flatten)]
            k: Knobs,
        }
        Only::parse_from(["knobs"]).k
    }
}

impl Knobs {
    /// Every knob at its default (intf.h's, through the flags' defaults).
    pub fn defaults() -> Knobs {
        use clap::{Command, FromArgMatches};
        let cmd = Knobs::augment_args(Command::new("knobs").no_binary_name(true));
        let m = cmd
            .try_get_matches_from(Vec::<String>::new())
            .expect("the knobs' defaults parse");
        Knobs::from_arg_matches(&m).expect("the knobs' defaults parse")
    }

    /// These knobs with `overrides` applied: each (name, value) is the long
    /// option without its dashes, e.g. ("wake-affine-interval-ms", "10"),
    /// checked by the same parser as the command line. What scheduler specs
    /// such as `arbor:stock:WA_THROTTLE:wake-affine-interval-ms=10` carry.
    pub fn with_overrides(&self, overrides: &[(String, String)]) -> Result<Knobs> {
        use clap::{Command, FromArgMatches};
        // Without their defaults, the matches hold only the knobs named
        // here, so update_from_arg_matches leaves every other knob as in
        // `self` (with the defaults, it would reset them all: a knob given
        // on the command line, e.g. `arbor sim --imbalance-pct`, was lost
        // for every `arbor:` scheduler).
        let cmd = Knobs::augment_args(Command::new("knobs").no_binary_name(true))
            .mut_args(|a| a.default_value(clap::builder::Resettable::Reset));
        let mut args = Vec::new();
        for (i, (k, v)) in overrides.iter().enumerate() {
            if overrides[..i].iter().any(|(k2, _)| k2 == k) {
                anyhow::bail!("knob '{k}' given twice");
            }
            if !cmd
                .get_arguments()
                .any(|a| a.get_long() == Some(k.as_str()))
            {
                let known: Vec<&str> = cmd.get_arguments().filter_map(|a| a.get_long()).collect();
                anyhow::bail!("unknown knob '{k}' (knobs: {})", known.join(", "));
            }
            args.push(format!("--{k}={v}"));
        }
        let m = cmd.try_get_matches_from(args).map_err(|e| {
            let text = e.to_string();
            let line = text.lines().next().unwrap_or("invalid knob").trim();
            anyhow::anyhow!("{}", line.trim_start_matches("error: "))
        })?;
        let mut k = self.clone();
        k.update_from_arg_matches(&m).map_err(|e| {
            anyhow::anyhow!("{}", e.to_string().lines().next().unwrap_or("invalid knob"))
        })?;
        Ok(k)
    }

    /// The machine with --cpu-capacity applied.
    pub fn apply_capacity(&self, topo: &mut Topo) -> Result<()> {
        if let Some(spec) = &self.capacity.cpu_capacity {
            topo.override_capacity(spec)?;
        }
        Ok(())
    }
}

/// The BPF program's read-only globals (common.bpf.h, cache.bpf.h), by
/// their C names. The loader copies them into the skeleton; the simulator
/// writes them into the natively compiled program's symbols.
#[derive(Debug, Clone)]
pub struct Rodata {
    pub nr_cpus: u32,
    pub nr_llcs: u32,
    pub nr_nodes: u32,
    pub smt_width: u32,
    /// (cpu id, llc, node, core, capacity) of every CPU
    pub cpus: Vec<(usize, u32, u32, u32, u32)>,
    /// CPU ids of each LLC, and the node of each LLC
    pub llcs: Vec<(Vec<i32>, u32)>,
    /// per LLC, the index of each CPU's next SMT sibling (policy::sib_ring)
    pub llc_sib: Vec<Vec<u16>>,
    /// (cpu id, index in its LLC's CPU list)
    pub cpu_llc_idx: Vec<(usize, u16)>,
    pub slice: c::arbor_slice_cfg,
    pub balance: c::arbor_balance_cfg,
    pub wa: c::arbor_wa_cfg,
    pub steal: c::arbor_steal_cfg,
    pub cache: c::arbor_cache_cfg,
    pub asym: bool,
    /// group scheduling on (not --no-cgroups)
    pub cg_enabled: bool,
    /// sd->imb_numa_nr of each node (policy.h: arbor_imb_numa_nr)
    pub node_imb_numa_nr: Vec<u32>,
    /// SIS_NODE: each node's CPUs (bitmap words, bit = CPU id) and LLC count
    pub node_cpus: Vec<Vec<u64>>,
    pub node_nr_llcs: Vec<u32>,
}

impl Rodata {
    pub fn new(k: &Knobs, topo: &Topo) -> Rodata {
        // each node's LLCs (CPU ids), for the per-node arrays below
        let llcs = topo.llcs();
        let node_llcs: Vec<Vec<&Vec<usize>>> = (0..topo.nr_nodes)
            .map(|n| {
                (0..llcs.len())
                    .filter(|&l| topo.llc_node(l) == n)
                    .map(|l| &llcs[l])
                    .collect()
            })
            .collect();
        const W: usize = c::arbor_limits_CPU_MASK_WORDS as usize;
        Rodata {
            nr_cpus: topo.nr_cpu_ids() as u32,
            nr_llcs: topo.nr_llcs as u32,
            nr_nodes: topo.nr_nodes as u32,
            smt_width: topo.smt_width as u32,
            cpus: topo
                .all()
                .map(|c| (c.id, c.llc as u32, c.node as u32, c.core as u32, c.capacity))
                .collect(),
            llcs: llcs
                .iter()
                .enumerate()
                .map(|(l, cpus)| {
                    (
                        cpus.iter().map(|&c| c as i32).collect(),
                        topo.llc_node(l) as u32,
                    )
                })
                .collect(),
            llc_sib: llcs
                .iter()
                .map(|cpus| {
                    let cores: Vec<u32> = cpus
                        .iter()
                        .map(|&c| topo.cpus[c].as_ref().map_or(0, |ci| ci.core) as u32)
                        .collect();
                    crate::policy::sib_ring(&cores)
                })
                .collect(),
            cpu_llc_idx: llcs
                .iter()
                .flat_map(|cpus| cpus.iter().enumerate().map(|(i, &c)| (c, i as u16)))
                .collect(),
            slice: k.slice.cfg(topo),
            balance: k.balance.cfg(),
            wa: k.wa.cfg(),
            steal: k.steal.cfg(),
            cache: k.cache.cfg(),
            asym: topo.asymmetric(),
            cg_enabled: !k.group.no_cgroups,
            node_imb_numa_nr: node_llcs
                .iter()
                .map(|llcs| {
                    let cpus: usize = llcs.iter().map(|c| c.len()).sum();
                    crate::policy::imb_numa_nr(cpus as u32, llcs.len() as u32)
                })
                .collect(),
            node_cpus: node_llcs
                .iter()
                .map(|llcs| {
                    let ids: Vec<usize> = llcs.iter().flat_map(|c| c.iter().copied()).collect();
                    crate::policy::mask::<W>(&ids).to_vec()
                })
                .collect(),
            node_nr_llcs: node_llcs.iter().map(|llcs| llcs.len() as u32).collect(),
        }
    }

    /// Every scalar global, and every field of the config structs, as
    /// (C name, byte offset, native-endian bytes). The simulator writes these.
    pub fn scalars(&self) -> Vec<(&'static str, usize, Vec<u8>)> {
        use std::mem::offset_of;
        let u32b = |v: u32| v.to_ne_bytes().to_vec();
        let u64b = |v: u64| v.to_ne_bytes().to_vec();
        let (b, w, st, ca) = (&self.balance, &self.wa, &self.steal, &self.cache);
        vec![
            ("nr_cpus", 0, u32b(self.nr_cpus)),
            ("nr_llcs", 0, u32b(self.nr_llcs)),
            ("nr_nodes", 0, u32b(self.nr_nodes)),
            ("smt_width", 0, u32b(self.smt_width)),
            ("asym", 0, vec![self.asym as u8]),
            ("cg_enabled", 0, vec![self.cg_enabled as u8]),
            (
                "slice_cfg",
                offset_of!(c::arbor_slice_cfg, slice_ns),
                u64b(self.slice.slice_ns),
            ),
            (
                "balance_cfg",
                offset_of!(c::arbor_balance_cfg, migration_cost_ns),
                u64b(b.migration_cost_ns),
            ),
            (
                "balance_cfg",
                offset_of!(c::arbor_balance_cfg, interval_ns),
                u64b(b.interval_ns),
            ),
            (
                "balance_cfg",
                offset_of!(c::arbor_balance_cfg, imbalance_pct),
                u32b(b.imbalance_pct),
            ),
            (
                "wa_cfg",
                offset_of!(c::arbor_wa_cfg, interval_ns),
                u64b(w.interval_ns),
            ),
            (
                "steal_cfg",
                offset_of!(c::arbor_steal_cfg, cost_ns),
                u64b(st.cost_ns),
            ),
            (
                "steal_cfg",
                offset_of!(c::arbor_steal_cfg, node_limit),
                u32b(st.node_limit),
            ),
            (
                "cache_cfg",
                offset_of!(c::arbor_cache_cfg, epoch_ns),
                u64b(ca.epoch_ns),
            ),
            (
                "cache_cfg",
                offset_of!(c::arbor_cache_cfg, timeout_epochs),
                u32b(ca.timeout_epochs),
            ),
            (
                "cache_cfg",
                offset_of!(c::arbor_cache_cfg, aggr_pct),
                u32b(ca.aggr_pct),
            ),
            (
                "cache_cfg",
                offset_of!(c::arbor_cache_cfg, imb_pct),
                u32b(ca.imb_pct),
            ),
            (
                "cache_cfg",
                offset_of!(c::arbor_cache_cfg, tolerance),
                u32b(ca.tolerance),
            ),
        ]
    }

    /// Array elements: (C name, element offset in bytes, bytes).
    pub fn array_elems(&self) -> Vec<(&'static str, usize, Vec<u8>)> {
        let max_llc_cpus = c::arbor_limits_MAX_LLC_CPUS as usize;
        let mut v = Vec::new();
        for &(id, llc, node, core, cap) in &self.cpus {
            v.push(("cpu_llc", id * 4, llc.to_ne_bytes().to_vec()));
            v.push(("cpu_node", id * 4, node.to_ne_bytes().to_vec()));
            v.push(("cpu_core", id * 4, core.to_ne_bytes().to_vec()));
            v.push(("cpu_cap", id * 4, cap.to_ne_bytes().to_vec()));
        }
        for (n, imb) in self.node_imb_numa_nr.iter().enumerate() {
            v.push(("node_imb_numa_nr", n * 4, imb.to_ne_bytes().to_vec()));
        }
        for (n, words) in self.node_cpus.iter().enumerate() {
            for (w, bits) in words.iter().enumerate() {
                v.push((
                    "node_cpus",
                    (n * words.len() + w) * 8,
                    bits.to_ne_bytes().to_vec(),
                ));
            }
        }
        for (n, nr) in self.node_nr_llcs.iter().enumerate() {
            v.push(("node_nr_llcs", n * 4, nr.to_ne_bytes().to_vec()));
        }
        for (l, (cpus, node)) in self.llcs.iter().enumerate() {
            v.push((
                "llc_nr_cpus",
                l * 4,
                (cpus.len() as u32).to_ne_bytes().to_vec(),
            ));
            v.push(("llc_node", l * 4, node.to_ne_bytes().to_vec()));
            for (i, c) in cpus.iter().enumerate() {
                v.push((
                    "llc_cpus",
                    (l * max_llc_cpus + i) * 4,
                    c.to_ne_bytes().to_vec(),
                ));
            }
        }
        for (l, sib) in self.llc_sib.iter().enumerate() {
            for (i, j) in sib.iter().enumerate() {
                v.push((
                    "llc_sib",
                    (l * max_llc_cpus + i) * 2,
                    j.to_ne_bytes().to_vec(),
                ));
            }
        }
        for &(cpu, i) in &self.cpu_llc_idx {
            v.push(("cpu_llc_idx", cpu * 2, i.to_ne_bytes().to_vec()));
        }
        v
    }
}

/// A duration in seconds from the command line: finite, above 0, at most a
/// week (NaN, inf and 1e300 are errors, not panics in Duration).
pub fn parse_secs(s: &str) -> Result<f64, String> {
    const MAX: f64 = 7.0 * 86_400.0;
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= MAX => Ok(v),
        _ => Err(format!("'{s}' is not a number of seconds in (0, {MAX}]")),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A (knob, value) override, as a spec's `KNOB=VALUE` part gives it.
    pub(crate) fn kv(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    #[test]
    fn overrides_change_only_what_they_name() {
        let base = Knobs::default();
        let k = base
            .with_overrides(&[
                kv("wake-affine-interval-ms", "10"),
                kv("cpu-capacity", "2-4:430"),
            ])
            .unwrap();
        assert_eq!(k.wa.wake_affine_interval_ms, 10);
        assert_eq!(k.capacity.cpu_capacity.as_deref(), Some("2-4:430"));
        assert_eq!(k.balance.imbalance_pct, base.balance.imbalance_pct);
        assert_eq!(base.wa.wake_affine_interval_ms, 1);
    }

    /// A spec's knobs apply on top of the command line's, not of the
    /// defaults: `arbor sim --imbalance-pct 150 -s arbor:stock:...` keeps 150.
    #[test]
    fn overrides_keep_the_base_knobs_they_do_not_name() {
        let mut base = Knobs::default();
        base.balance.imbalance_pct = 150;
        base.slice.base_slice_us = 100;
        base.capacity.cpu_capacity = Some("0:512".into());
        for o in [vec![], vec![kv("wake-affine-interval-ms", "10")]] {
            let k = base.with_overrides(&o).unwrap();
            assert_eq!(k.balance.imbalance_pct, 150, "{o:?}");
            assert_eq!(k.slice.base_slice_us, 100, "{o:?}");
            assert_eq!(k.capacity.cpu_capacity.as_deref(), Some("0:512"), "{o:?}");
        }
        let k = base.with_overrides(&[kv("imbalance-pct", "120")]).unwrap();
        assert_eq!(k.balance.imbalance_pct, 120);
    }

    #[test]
    fn bad_overrides_are_one_line_errors() {
        let base = Knobs::default();
        for (o, want) in [
            (vec![kv("no-such-knob", "1")], "unknown knob 'no-such-knob'"),
            (vec![kv("imbalance-pct", "5")], "imbalance-pct"),
            (vec![kv("slice-us", "x")], "slice-us"),
            (
                vec![kv("llc-epoch-ms", "1"), kv("llc-epoch-ms", "2")],
                "given twice",
            ),
        ] {
            let e = format!("{:#}", base.with_overrides(&o).unwrap_err());
            assert!(e.contains(want), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn seconds_are_finite_positive_and_bounded() {
        assert_eq!(parse_secs("1.5"), Ok(1.5));
        assert_eq!(parse_secs(" 5 "), Ok(5.0));
        for bad in ["0", "-1", "NaN", "inf", "1e300", "x", ""] {
            assert!(parse_secs(bad).is_err(), "{bad}");
        }
    }

    /// --llc-tolerance defaults to the kernel's
    /// llc_aggr_tolerance (1, a multiplier; 0 would turn aggregation off)
    /// and --help says what it means.
    #[test]
    fn llc_tolerance_defaults_to_the_kernels_and_is_documented() {
        use clap::CommandFactory;
        #[derive(clap::Parser)]
        struct Only {
            #[command(flatten)]
            k: Knobs,
        }
        assert_eq!(Knobs::default().cache.llc_tolerance, 1);
        let help = Only::command().render_long_help().to_string();
        let at = help
            .find("--llc-tolerance")
            .expect("--llc-tolerance in --help");
        let text = &help[at..];
        assert!(
            text.contains("multiplier") && text.contains("0 = no process"),
            "{text}"
        );
    }
}
