//! arbor sim: sched_ext BPF schedulers, compiled natively and unmodified,
//! on simulated machines of any size, in parallel simulated time.
//!
//! - `machine`, `presets`, `cost`: the machine and its costs; `snapshot`:
//!   a real machine's sysfs, copied and read back;
//! - `task`, `abi`: what the core shares with the workloads (a task, its
//!   steps, the `Workload` interface) and with the BPF side (the C types);
//! - `core`: the sched_ext core (ext.c / idle.c) and the event loop;
//! - `sched`: the schedulers (scx_arbor's BPF C via the shim);
//! - `workload`: what the tasks do;
//! - `run`: one simulation, from specs to result rows;
//! - `limits`: what a user's input files may make it read and allocate;
//! - `untrusted`: each reader given raw bytes, for fuzzing.

pub mod abi;
pub mod core;
pub mod cost;
pub mod limits;
pub mod machine;
pub mod presets;
pub mod run;
pub mod sched;
pub mod snapshot;
pub mod task;
pub mod untrusted;
pub mod workload;
