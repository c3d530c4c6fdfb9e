//! scx_arbor's user-space pieces that do not need a kernel: topology, the
//! feature and counter tables, the tunables and the read-only data they
//! become, and the pure placement rules (policy.h, compiled natively).
//! The loader (`main.rs`) and the simulator (`arbor_sim`) both use them.

pub mod bpf_intf;
pub mod cli;
pub mod doc_commands;
pub mod features;
pub mod files;
pub mod knobs;
pub mod opcost;
pub mod policy;
pub mod spec;
pub mod stats;
pub mod stats_server;
pub mod topology;
pub mod verifier;

/// The make-style list of the files the compile of the BPF object read
/// (clang's `-MD`, written by build.rs), relative paths from this crate's
/// directory. The simulator's test that its native build uses the same
/// sources reads it.
pub const BPF_DEPS_FILE: &str = env!("ARBOR_BPF_DEPS");
