//! The schedulers the simulator runs, named as `arbor bench` names them:
//! `arbor[:PROFILE][:FEAT,...][:KNOB=VALUE,...]` is scx_arbor's own BPF
//! code, compiled natively (native.rs) with the same knobs as the scx_arbor
//! binary.

/// The C side's types: crate::abi, under the core, which uses them too;
/// the schedulers' code names them here.
pub use crate::abi;
#[cfg(test)]
mod arena;
pub mod divzero;
pub mod ksft;
mod lavd;
mod load;
pub mod native;
pub mod peers;

use anyhow::{bail, Context, Result};
use scx_arbor::knobs::{Knobs, Rodata};
use scx_arbor::{spec::ArborSpec, stats, topology::Topo};

use crate::core::Ops;

/// A scheduler to simulate, e.g. `arbor:stock`, `arbor:seeds:NO_STEAL`,
/// `arbor:stock:WA_THROTTLE:wake-affine-interval-ms=10`.
#[derive(Clone, Debug, PartialEq)]
pub struct SchedSpec {
    pub label: String,
    pub features: u64,
    /// scx_arbor options this scheduler runs with, over the command line's:
    /// (long option without dashes, value), checked when parsed.
    pub knobs: Vec<(String, String)>,
    /// A peer scheduler (`bpfland`, ...) instead of scx_arbor.
    pub peer: Option<peers::Peer>,
    /// scx_arbor sees a PREEMPT_RT kernel (its CONFIG_PREEMPT_RT __kconfig):
    /// no bpf_timer there, the periodic pass runs from ops.tick.
    pub preempt_rt: bool,
    /// One of the kernel's own BPF schedulers (`kernel:scx_simple`, a
    /// selftest's: ksft.rs) instead of scx_arbor.
    pub kernel: Option<&'static str>,
}

impl SchedSpec {
    pub fn parse(s: &str) -> Result<SchedSpec> {
        let s = s.trim();
        if let Some(p) = peers::Peer::parse(s)? {
            return Ok(SchedSpec {
                label: s.to_string(),
                features: 0,
                knobs: Vec::new(),
                peer: Some(p),
                preempt_rt: false,
                kernel: None,
            });
        }
        if let Some(name) = s.strip_prefix("kernel:") {
            let Some(&k) = ksft::names().iter().find(|&&k| k == name) else {
                bail!(
                    "unknown kernel scheduler '{name}' (built: {})",
                    ksft::names().join(", ")
                );
            };
            return Ok(SchedSpec {
                label: s.to_string(),
                features: 0,
                knobs: Vec::new(),
                peer: None,
                preempt_rt: false,
                kernel: Some(k),
            });
        }
        match s.split(':').next() {
            Some("arbor") => {}
            Some("eevdf") => bail!(
                "scheduler 'eevdf': the simulator runs sched_ext schedulers only; arbor:stock is the stand-in for EEVDF's placement"
            ),
            Some(other) => bail!(
                "unknown scheduler '{other}' in '{s}' (the simulator runs arbor[:PROFILE][:FEAT,...], the peers {} and kernel:NAME)",
                peers::Peer::names().join(", ")
            ),
            None => bail!("empty scheduler name"),
        }
        let spec = ArborSpec::parse(s)?;
        let mask = spec
            .feature_mask()
            .with_context(|| format!("scheduler '{s}'"))?;
        let knobs = spec.knobs;
        Ok(SchedSpec {
            label: s.to_string(),
            features: mask,
            knobs,
            peer: None,
            preempt_rt: false,
            kernel: None,
        })
    }

    /// The command line's knobs with this scheduler's own applied.
    pub fn knobs(&self, base: &Knobs) -> Result<Knobs> {
        base.with_overrides(&self.knobs)
            .with_context(|| format!("scheduler '{}'", self.label))
    }

    /// Loads a fresh instance, configured for `topo` (the CPUs online at
    /// load) as scx_arbor would be; scx_arbor and a peer are also told
    /// `nr_cpu_ids`, the machine's (peers::Peer::build).
    pub fn build(&self, topo: &Topo, nr_cpu_ids: usize, knobs: &Knobs) -> Result<Box<dyn Ops>> {
        if let Some(p) = self.peer {
            return Ok(Box::new(p.build(topo, nr_cpu_ids)?));
        }
        if let Some(k) = self.kernel {
            return Ok(Box::new(ksft::load(k, topo)?));
        }
        Ok(Box::new(self.load_arbor(topo, nr_cpu_ids, knobs)?))
    }

    /// scx_arbor's program, loaded and given its read-only data as the
    /// loader gives it (knobs::Rodata, one source for both).
    fn load_arbor(&self, topo: &Topo, nr_cpu_ids: usize, knobs: &Knobs) -> Result<native::Native> {
        let (names, limits) = stats::NAMES.split_at(stats::NAMES.len() - stats::GROUP_LIMIT_NAMES);
        let mut n = native::Native::load(native::ARBOR_SO, &self.label, names.to_vec())?;
        // cgroup.bpf.h keeps no context for the root
        n.cgroup_groups_only = true;
        n.group_counters = limits.to_vec();
        let knobs = self.knobs(knobs)?;
        // a cpu-capacity knob changes what the scheduler is told, as the
        // loader's --cpu-capacity does; the machine's speeds stay (arbor
        // sim's own --cpu-capacity also changes the machine)
        let mut topo = topo.clone();
        knobs.apply_capacity(&mut topo)?;
        let rd = Rodata::new(&knobs, &topo);
        for (name, off, bytes) in rd.scalars() {
            n.write_global(name, off, &bytes)?;
        }
        for (name, off, bytes) in rd.array_elems() {
            n.write_global(name, off, &bytes)?;
        }
        n.write_global("features", 0, &self.features.to_ne_bytes())?;
        // the machine's nr_cpu_ids, which the loader reads as
        // libbpf_num_possible_cpus() (an offline CPU keeps its id)
        n.write_global("kern_nr_cpu_ids", 0, &(nr_cpu_ids as i32).to_ne_bytes())?;
        if self.preempt_rt {
            n.write_global("CONFIG_PREEMPT_RT", 0, &[1])?;
        }
        // the loader's "sched_ext is up": the periodic balancer may start
        n.write_global("timer_go", 0, &1u32.to_ne_bytes())?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scx_arbor::features;

    #[test]
    fn a_spec_carries_features_and_knobs() {
        let s = SchedSpec::parse("arbor:stock:WA_THROTTLE:wake-affine-interval-ms=10").unwrap();
        let stock = SchedSpec::parse("arbor:stock").unwrap();
        let bit = features::FEATURES
            .iter()
            .position(|f| f.name == "WA_THROTTLE")
            .unwrap();
        assert_eq!(s.features, stock.features | 1 << bit);
        assert_eq!(
            s.knobs,
            vec![("wake-affine-interval-ms".to_string(), "10".to_string())]
        );
        let k = s.knobs(&Knobs::default()).unwrap();
        assert_eq!(k.wa.wake_affine_interval_ms, 10);
        assert_eq!(
            stock
                .knobs(&Knobs::default())
                .unwrap()
                .wa
                .wake_affine_interval_ms,
            1
        );
    }

    /// Every field of intf.h's config structs reaches the natively
    /// compiled program with the value its flag gave (a field
    /// Rodata::scalars forgot would keep intf.h's default).
    #[test]
    fn every_config_field_reaches_the_program() {
        use scx_arbor::bpf_intf as c;
        let spec = SchedSpec::parse(
            "arbor:stock:slice-us=1234,imbalance-pct=131,migration-cost-us=77,\
             balance-interval-ms=9,wake-affine-interval-ms=5,steal-cost-us=33,\
             steal-node-limit=3,llc-aggr-pct=61,llc-imb-pct=7,llc-epoch-ms=13,\
             llc-timeout-epochs=4,llc-tolerance=6",
        )
        .unwrap();
        let topo = Topo::from_raw(&[(0, 0, 0, 0, 1024), (1, 1, 0, 0, 1024)]).unwrap();
        let k = spec.knobs(&Knobs::default()).unwrap();
        let n = spec.load_arbor(&topo, 2, &Knobs::default()).unwrap();
        let s: c::arbor_slice_cfg = n.read_global("slice_cfg").unwrap();
        assert_eq!(s.slice_ns, 1_234_000);
        let b: c::arbor_balance_cfg = n.read_global("balance_cfg").unwrap();
        let want = k.balance.cfg();
        assert_eq!(
            (b.migration_cost_ns, b.interval_ns, b.imbalance_pct),
            (77_000, 9_000_000, 131)
        );
        assert_eq!(
            (want.migration_cost_ns, want.interval_ns, want.imbalance_pct),
            (77_000, 9_000_000, 131)
        );
        let w: c::arbor_wa_cfg = n.read_global("wa_cfg").unwrap();
        assert_eq!(w.interval_ns, 5_000_000);
        let st: c::arbor_steal_cfg = n.read_global("steal_cfg").unwrap();
        assert_eq!((st.cost_ns, st.node_limit), (33_000, 3));
        let ca: c::arbor_cache_cfg = n.read_global("cache_cfg").unwrap();
        assert_eq!(
            (
                ca.epoch_ns,
                ca.timeout_epochs,
                ca.aggr_pct,
                ca.imb_pct,
                ca.tolerance
            ),
            (13_000_000, 4, 61, 7, 6)
        );
    }

    #[test]
    fn a_bad_knob_in_a_spec_is_refused_when_parsed() {
        for (s, want) in [
            ("arbor:stock:no-such=1", "unknown knob 'no-such'"),
            ("arbor:stock:imbalance-pct=2", "imbalance-pct"),
            ("arbor:stock:slice-us=1,slice-us=2", "given twice"),
            ("arbor:stock:slice-us=1,STEAL", "not KNOB=VALUE"),
        ] {
            let e = format!("{:#}", SchedSpec::parse(s).unwrap_err());
            assert!(e.contains(want), "{s}: {e}");
        }
    }

    /// scx_arbor's idle view at load (main.bpf.c arbor_init): ext.c calls
    /// ops.update_idle only on a CPU's transitions between a task and idle,
    /// none at load, so arbor starts every CPU of the kernel's idle mask
    /// idle. On xeon-88 one task runs 1 ms on CPU 0 and exits: at the end
    /// every CPU is idle and no node counts a busy CPU. Before cc849f9 the
    /// 87 CPUs nothing ran on stayed busy in these counts for ever (43 and
    /// 44 here).
    #[test]
    fn cpus_idle_at_load_are_counted_idle() {
        use crate::core::{Config, Core, Stop};
        use crate::cost::CostModel;
        use crate::workload::{Effects, Metric, Ns, Step, TaskId, TaskSpec, Workload};
        struct One(usize);
        impl Workload for One {
            fn tasks(&self) -> Vec<TaskSpec> {
                let mut t = TaskSpec::new("one", 1);
                t.cpus = Some(vec![0]);
                vec![t]
            }
            fn next(&mut self, _t: TaskId, _now: Ns, _fx: &mut Effects) -> Step {
                self.0 += 1;
                if self.0 == 1 {
                    Step::Run(1_000_000)
                } else {
                    Step::Exit
                }
            }
            fn finished(&self) -> bool {
                self.0 >= 2
            }
            fn metrics(&self, _elapsed: Ns) -> Vec<Metric> {
                Vec::new()
            }
        }
        let m = crate::presets::find("xeon-88").unwrap();
        let topo = m.topo().unwrap();
        let spec = SchedSpec::parse("arbor:stock").unwrap();
        let mut n = spec
            .load_arbor(&topo, topo.nr_cpu_ids(), &Knobs::default())
            .unwrap();
        let mut core = Core::new(m, CostModel::default(), Config::default()).unwrap();
        let stop = core.run(&mut n, &mut One(0), |_| {});
        assert_eq!(stop, Stop::Finished);
        // idle.bpf.h node_busy[]: { s32 nr; u32 cpus; u8 pad[56] } per node
        for node in 0..2 {
            let nr: i32 = n.read_global_at("node_busy", node * 64).unwrap();
            let cpus: u32 = n.read_global_at("node_busy", node * 64 + 4).unwrap();
            assert_eq!(cpus, 44, "node {node}");
            assert_eq!(nr, 0, "node {node}: {nr} of its CPUs counted busy");
        }
    }
}
