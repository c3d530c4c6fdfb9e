//! The plan one `arbor bench` run hands to its guest side (`arbor bench
//! guest PLAN.json`, in a VM or with `--host` on the machine itself): every
//! scheduler resolved to what to start, every workload typed. Written into
//! the run's own directory, so concurrent runs never share one.

use std::path::PathBuf;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::workload::Workload;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuestPlan {
    pub reps: u32,
    pub scheds: Vec<PlanSched>,
    pub workloads: Vec<Workload>,
    /// guest/wakeprobe.c as the Makefile builds it (target/guest/wakeprobe)
    pub wakeprobe: PathBuf,
    /// Record every workload run under an EEVDF scheduler (no sched_ext)
    /// with `perf record` of the sched tracepoints `arbor sim -w trace:`
    /// replays, into this directory as [`trace_file`] names it. The
    /// sched_ext schedulers' runs are not recorded.
    #[serde(default)]
    pub record: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanSched {
    pub label: String,
    pub run: Run,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Run {
    /// No sched_ext scheduler; tokens go to debugfs for the repetition:
    /// `NO_SIS_UTIL` to sched/features, `key=value` to sched/<key>.
    Eevdf { tokens: Vec<String> },
    /// A sched_ext scheduler: its binary, arguments, and the ops name the
    /// kernel reports once it is enabled (scx_utils' peers append their
    /// version: the name is a prefix).
    Scx {
        bin: PathBuf,
        args: Vec<String>,
        ops: String,
    },
}

impl GuestPlan {
    /// The PostgreSQL database scales the plan's pgbench runs need.
    pub fn pg_scales(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.workloads.iter().filter_map(|w| w.pg_scale()).collect();
        v.sort();
        v.dedup();
        v
    }

    /// The probe a wakeprobe workload runs must have been built.
    pub fn check_wakeprobe(&self) -> Result<()> {
        crate::workload::check_wakeprobe(&self.wakeprobe, &self.workloads)
    }

    pub fn runs(&self) -> usize {
        self.reps as usize * self.scheds.len() * self.workloads.len()
    }
}
