//! What a number in a bench or sim report means: its unit, which way is
//! better, and whether it is a workload's result, a system figure or a
//! scheduler's own counter. Workloads declare theirs (workload.rs), the
//! guest's system probes theirs ([`SYSTEM`]); the report, results.json,
//! the CSV and the charts read this, never the metric's name.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A workload's own result: changes are signed so that + is better,
    /// as in the seeds' tables, with a confidence interval.
    Performance,
    /// What the guest measured around the run (busy %, migrations):
    /// plain change.
    System,
    /// A scheduler's own counters (`c:NAME`) and BPF op costs (`bpf:OP`):
    /// plain change, one table per scheduler family.
    Counter,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricInfo {
    pub unit: String,
    pub higher_is_better: bool,
    pub kind: Kind,
}

/// A metric a workload or probe declares: (name, unit, higher is better).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Def {
    pub name: &'static str,
    pub unit: &'static str,
    pub higher_is_better: bool,
}

pub const fn def(name: &'static str, unit: &'static str, higher_is_better: bool) -> Def {
    Def {
        name,
        unit,
        higher_is_better,
    }
}

impl Def {
    pub fn info(&self, kind: Kind) -> MetricInfo {
        MetricInfo {
            unit: self.unit.to_string(),
            higher_is_better: self.higher_is_better,
            kind,
        }
    }
}

/// The figures the guest measures around every workload run.
pub const SYSTEM: &[Def] = &[
    def("wall_s", "s", false),
    def("busy_pct", "%", true),
    def("ctxsw_per_s", "/s", false),
    def("migr_per_s", "/s", false),
    def("migr_smt_per_s", "/s", false),
    def("migr_llc_per_s", "/s", false),
    def("migr_xllc_per_s", "/s", false),
    def("migr_xnode_per_s", "/s", false),
];

/// A scheduler's own counter (`c:NAME`) or BPF op cost (`bpf:OP`, ns per call).
pub fn counter(name: &str) -> Option<MetricInfo> {
    let unit = if name.starts_with("bpf:") {
        "ns/call"
    } else if name.starts_with("c:") {
        if name.ends_with("_ns") {
            "ns"
        } else {
            ""
        }
    } else {
        return None;
    };
    Some(MetricInfo {
        unit: unit.into(),
        higher_is_better: false,
        kind: Kind::Counter,
    })
}

/// The system figures' and counters' info by name (None for a workload's
/// own metric: ask the workload).
pub fn common(name: &str) -> Option<MetricInfo> {
    SYSTEM
        .iter()
        .find(|d| d.name == name)
        .map(|d| d.info(Kind::System))
        .or_else(|| counter(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_system_figures_are_known_by_name() {
        assert_eq!(common("busy_pct").unwrap().kind, Kind::System);
        assert!(common("busy_pct").unwrap().higher_is_better);
        assert_eq!(common("c:steal").unwrap().kind, Kind::Counter);
        assert_eq!(common("c:busy_ns").unwrap().unit, "ns");
        assert_eq!(common("bpf:arbor_enqueue").unwrap().unit, "ns/call");
        assert_eq!(common("time_s"), None);
    }
}
