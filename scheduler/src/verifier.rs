//! `--verifier-json FILE|-`: what the kernel's verifier made of each of our
//! BPF programs once they are loaded: the instructions it processed
//! (`bpf_prog_info.verified_insns`, the "Insns" column of the kernel's
//! veristat, which scx's CI tracks per program) beside the instructions the
//! compiler emitted. The verifier gives up at 1,000,000 processed
//! instructions per program (BPF_COMPLEXITY_LIMIT_INSNS), so the count is
//! how close a program is to being refused, and it moves with the kernel.
//!
//! `arbor verifier` collects these reports from each guest kernel and
//! flags a program whose count grew by more than `GROWTH_LIMIT` against
//! the committed table.

use std::collections::BTreeMap;
use std::os::fd::AsFd;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// One program's counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgCount {
    pub name: String,
    /// Instructions the verifier processed (all paths, with pruning).
    pub verified_insns: u32,
    /// Instructions in the program as compiled (before the verifier).
    pub insns: u32,
}

/// What one load of scx_arbor cost the verifier, on one kernel and topology.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// The kernel's release (`uname -r`).
    pub kernel: String,
    /// CPUs, LLCs and nodes the programs were loaded for: the topology is
    /// read-only data the verifier sees, so counts are per topology.
    pub cpus: u32,
    pub llcs: u32,
    pub nodes: u32,
    pub programs: Vec<ProgCount>,
}

/// A count may grow by this fraction against the committed table before it
/// is flagged: a change that raises a count by more than 20% needs a look.
pub const GROWTH_LIMIT: f64 = 0.20;

/// The loaded programs' counts, in load order.
pub fn collect(obj: &libbpf_rs::Object) -> Result<Vec<ProgCount>> {
    let mut ids = Vec::new();
    for p in obj.progs() {
        let name = p.name().to_string_lossy().into_owned();
        let id = libbpf_rs::Program::id_from_fd(p.as_fd())
            .with_context(|| format!("program {name}: no id (not loaded?)"))?;
        ids.push((name, id, p.insn_cnt() as u32));
    }
    let infos: BTreeMap<u32, u32> = libbpf_rs::query::ProgInfoIter::default()
        .filter(|i| ids.iter().any(|(_, id, _)| *id == i.id))
        .map(|i| (i.id, i.verified_insns))
        .collect();
    ids.into_iter()
        .map(|(name, id, insns)| {
            let verified_insns = *infos.get(&id).with_context(|| {
                format!("program {name} (id {id}): the kernel does not list it")
            })?;
            Ok(ProgCount {
                name,
                verified_insns,
                insns,
            })
        })
        .collect()
}

/// A program whose verified count grew past the limit against `base`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Growth {
    pub name: String,
    pub before: u32,
    pub after: u32,
    /// after / before - 1
    pub growth: f64,
}

/// Programs of `cur` whose `verified_insns` exceed `base`'s by more than
/// `limit` (a fraction). A program new in `cur` is not a growth.
pub fn growths(base: &[ProgCount], cur: &[ProgCount], limit: f64) -> Vec<Growth> {
    cur.iter()
        .filter_map(|c| {
            let b = base.iter().find(|b| b.name == c.name)?;
            let growth = c.verified_insns as f64 / (b.verified_insns.max(1)) as f64 - 1.0;
            (growth > limit).then(|| Growth {
                name: c.name.clone(),
                before: b.verified_insns,
                after: c.verified_insns,
                growth,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str, v: u32) -> ProgCount {
        ProgCount {
            name: name.into(),
            verified_insns: v,
            insns: 0,
        }
    }

    #[test]
    fn growth_is_flagged_past_the_limit_only() {
        let base = [p("select_cpu", 1000), p("enqueue", 500)];
        let cur = [
            p("select_cpu", 1200), // +20%: at the limit, not past it
            p("enqueue", 601),     // +20.2%
            p("new_op", 90000),    // not in the base: not a growth
        ];
        let g = growths(&base, &cur, GROWTH_LIMIT);
        let names: Vec<&str> = g.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["enqueue"]);
        assert_eq!((g[0].before, g[0].after), (500, 601));
        // a shrink is never flagged
        assert!(growths(&cur, &base, GROWTH_LIMIT).is_empty());
    }
}
