//! The seed patches: one catalogue of each seed's published tables
//! (catalogue.rs), run on the simulator by `arbor sim reproduce` (sim.rs,
//! with the recording and replay of real programs' traces in trace.rs) and
//! scaled to a VM by `arbor bench reproduce` (bench.rs); on any machine
//! and workload, decided by the verdict's rule (effect.rs, with the
//! counters that explain it in explain.rs, and the cost-model
//! parameters that flip it in sensitivity.rs over params.rs's ranges).

pub mod bench;
pub mod catalogue;
pub mod cell;
pub mod effect;
pub mod explain;
pub mod params;
pub mod sensitivity;
pub mod sim;
pub mod trace;
