//! `arbor sim verdict --shard`: what a part keeps for the merge, and
//! `arbor sim merge` of a verdict's parts (cell k, machine by machine then
//! workload, with its further batches, runs in part k mod N:
//! crate::shard), written by the same Outcome::write as the verdict run
//! whole.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};

use super::run::{Inputs, Outcome, ShardPart};
use super::{below_bar, Cell, Verdict};
use crate::report::meta::Provenance;
use crate::report::summary;
use crate::shard::{self, Part, Shard};

/// A part's outcome, its floats exactly as the part had them.
fn read(p: &Part) -> Result<(Outcome, ShardPart)> {
    let d = p.dir.display();
    let path = p.dir.join(summary::RESULTS);
    let text = crate::report::read_json_text(&path)?;
    let mut v: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not an arbor results file", path.display()))?;
    let s: ShardPart = serde_json::from_value(p.shard.merge.clone())
        .with_context(|| format!("{d}: not the output of a verdict shard"))?;
    if let Some(o) = v.as_object_mut() {
        o.remove("meta");
    }
    shard::restore_floats(&mut v, &s.floats)
        .with_context(|| format!("{}: not as its shard wrote it", path.display()))?;
    let field = |k: &str| v.get(k).cloned().unwrap_or_default();
    let bad = || format!("{}: not a verdict's results", path.display());
    let inputs: Inputs = serde_json::from_value(v.clone()).with_context(bad)?;
    let cells: Vec<Cell> = serde_json::from_value(field("decisions")).with_context(bad)?;
    let runs: Vec<serde_json::Value> = serde_json::from_value(field("runs")).with_context(bad)?;
    let metrics: BTreeMap<String, (String, bool)> =
        serde_json::from_value(field("metrics")).with_context(bad)?;
    let num = |k: &str| field(k).as_f64().unwrap_or(0.0);
    if cells.len() != s.cell_runs.len()
        || cells.len() != Shard::of(&p.shard).cells(p.shard.cells).len()
        || s.cell_runs.iter().sum::<usize>() != runs.len()
    {
        bail!("{d}: its results.json does not hold the cells its meta.shard lists");
    }
    let o = Outcome {
        verdict: Verdict {
            candidate: inputs.candidate.clone(),
            baseline: inputs.baseline.clone(),
            cells,
        },
        inputs,
        head: s.head.clone(),
        cell_runs: s.cell_runs.clone(),
        runs,
        metrics,
        wall_s: num("wall_s"),
        cpu_s: num("cpu_s"),
        why: Default::default(),
    };
    Ok((o, s))
}

/// `arbor sim merge` of a verdict's parts (complete, in shard order): the
/// cells in the verdict's order, as the verdict run whole prints and
/// writes them; the wall time is the longest part's, the CPU time their
/// sum. Exit 1 when the command's --require bar is not met.
pub fn merge(parts: &[Part], out: &Path) -> Result<i32> {
    let read: Vec<(Outcome, ShardPart)> = parts.iter().map(read).collect::<Result<_>>()?;
    let (first, bar) = &read[0];
    let mut o = Outcome {
        inputs: first.inputs.clone(),
        head: first.head.clone(),
        verdict: Verdict {
            candidate: first.verdict.candidate.clone(),
            baseline: first.verdict.baseline.clone(),
            cells: Vec::new(),
        },
        cell_runs: Vec::new(),
        runs: Vec::new(),
        metrics: BTreeMap::new(),
        wall_s: 0.0,
        cpu_s: 0.0,
        why: Default::default(),
    };
    // where each part's cells start in its runs
    let run_at: Vec<Vec<usize>> = read
        .iter()
        .map(|(p, _)| {
            let mut at = 0;
            p.cell_runs
                .iter()
                .map(|n| {
                    at += n;
                    at - n
                })
                .collect()
        })
        .collect();
    for (p, _) in &read {
        for (k, u) in &p.metrics {
            o.metrics.entry(k.clone()).or_insert_with(|| u.clone());
        }
        o.wall_s = o.wall_s.max(p.wall_s);
        o.cpu_s += p.cpu_s;
    }
    for (p, j) in shard::cell_order(parts) {
        let part = &read[p].0;
        let n = part.cell_runs[j];
        o.verdict.cells.push(part.verdict.cells[j].clone());
        o.cell_runs.push(n);
        o.runs
            .extend_from_slice(&part.runs[run_at[p][j]..run_at[p][j] + n]);
    }
    print!("{}{}", o.head, o.text());
    o.write(
        out,
        Provenance {
            command: parts[0].shard.command.clone(),
            commit: parts[0].commit.clone(),
            shard: None,
        },
    )?;
    if let Some(req) = bar.require {
        let c = o.verdict.counts();
        if let Some(why) = below_bar(&c, req, bar.max_undecided, &o.verdict.baseline) {
            eprintln!("arbor sim verdict: {why}");
            return Ok(1);
        }
    }
    Ok(0)
}
