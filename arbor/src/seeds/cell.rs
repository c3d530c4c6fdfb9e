//! One cell of a seed's effect on a machine and workload, decided by the
//! verdict's rule: what `arbor sim reproduce` prints and writes
//! (effect.rs) and what `--explain` reads (explain.rs).

use serde::Serialize;

use crate::sim::verdict::{Compare, Side};

/// One decided (or undecided) cell, as printed and written.
#[derive(Serialize)]
pub struct Decided {
    pub machine: String,
    pub workload: String,
    pub metric: String,
    pub higher_is_better: bool,
    pub off: Side,
    pub on: Side,
    /// the mechanism's effect, + = better with it on
    pub effect: Compare,
    /// every run gave the same metric with the mechanism on as the run of
    /// the same seed off (so where it has nothing to act on, e.g. one LLC)
    pub identical_runs: bool,
}
