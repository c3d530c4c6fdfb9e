//! scx_arbor's user-space pieces that do not need a kernel: topology, the
//! feature and counter tables, the tunables and the read-only data they
//! become, and the pure placement rules (policy.h, compiled natively).
//! The loader (`main.rs`) and the simulator (`arbor_sim`) both use them.

pub mod bpf_intf;
pub mod features;
pub mod knobs;
pub mod policy;
pub mod stats;
pub mod topology;
