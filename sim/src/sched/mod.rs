//! The schedulers the simulator runs, named as `arbor bench` names them:
//! `arbor[:PROFILE][:FEAT,...]` is scx_arbor's own BPF code, compiled
//! natively (native.rs) with the same knobs as the scx_arbor binary.

pub mod abi;
pub mod native;

use anyhow::{bail, Context, Result};
use scx_arbor::knobs::{Knobs, Rodata};
use scx_arbor::{features, stats, topology::Topo};

use crate::core::Ops;

/// A scheduler to simulate, e.g. `arbor:stock`, `arbor:seeds:NO_STEAL`.
#[derive(Clone, Debug, PartialEq)]
pub struct SchedSpec {
    pub label: String,
    pub features: u32,
}

impl SchedSpec {
    pub fn parse(s: &str) -> Result<SchedSpec> {
        let s = s.trim();
        let mut parts = s.split(':');
        match parts.next() {
            Some("arbor") => {}
            Some("eevdf") => bail!(
                "scheduler 'eevdf': the simulator runs sched_ext schedulers only; arbor:stock is the stand-in for EEVDF's placement"
            ),
            Some(other) => bail!(
                "unknown scheduler '{other}' in '{s}' (the simulator runs arbor[:PROFILE][:FEAT,...]; peers come later)"
            ),
            None => bail!("empty scheduler name"),
        }
        let profile = parts.next().filter(|p| !p.is_empty()).unwrap_or("default");
        let mut mask =
            features::profile_mask(profile).with_context(|| format!("scheduler '{s}'"))?;
        let feats: Vec<String> = parts.map(|p| p.to_string()).collect();
        if !feats.is_empty() {
            mask = features::apply(mask, &feats).with_context(|| format!("scheduler '{s}'"))?;
        }
        Ok(SchedSpec {
            label: s.to_string(),
            features: mask,
        })
    }

    /// Loads a fresh instance, configured for `topo` as scx_arbor would be.
    pub fn build(&self, topo: &Topo, knobs: &Knobs) -> Result<Box<dyn Ops>> {
        let mut n = native::Native::load(native::ARBOR_SO, &self.label, stats::NAMES.to_vec())?;
        let rd = Rodata::new(knobs, topo);
        for (name, bytes) in rd.scalars() {
            n.write_global(name, 0, &bytes)?;
        }
        for (name, off, bytes) in rd.array_elems() {
            n.write_global(name, off, &bytes)?;
        }
        n.write_global("features", 0, &self.features.to_ne_bytes())?;
        // the loader's "sched_ext is up": the periodic balancer may start
        n.write_global("timer_go", 0, &1u32.to_ne_bytes())?;
        Ok(Box::new(n))
    }
}
