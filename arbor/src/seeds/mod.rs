//! The seed patches: one catalogue of each seed's published tables
//! (catalogue.rs), run on the simulator by `arbor sim reproduce` (sim.rs,
//! with the recording and replay of real programs' traces in trace.rs) and
//! scaled to a VM by `arbor bench reproduce` (bench.rs).

pub mod bench;
pub mod catalogue;
pub mod sim;
pub mod trace;
