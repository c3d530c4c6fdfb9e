//! What an `arbor sim` sweep prints and writes (report.md, results.json,
//! summary.json, results.csv, charts/), from its rows cell by cell: one
//! run's, or its shards' joined in the sweep's order by `arbor sim merge`,
//! which then writes what the sweep run whole writes.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::report::meta::Meta;
use crate::report::metric::MetricInfo;
use crate::report::{summary, Report, Results, Row, WorkloadEntry};
use crate::shard::{self, Part, Shard, ShardMeta};

use super::verdict;

/// One cell of the sweep (a workload with all its schedulers and runs):
/// how many of the sweep's rows and of meta's runs are its, in order, and
/// its lines of the report.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Cell {
    pub rows: usize,
    pub runs: usize,
    /// what its replayed trace kept and dropped, or ""
    pub replayed: String,
    /// its runs that did not finish cleanly
    pub failed: Vec<String>,
}

/// A shard's `meta.shard.merge`: the report's header, its cells, and
/// its rows' values exactly (serde_json reads a decimal back to the
/// nearest double only within an ulp: the means would differ in the last
/// digit from an unsharded run's).
#[derive(Serialize, Deserialize)]
struct ShardPart {
    title: String,
    cells: Vec<Cell>,
    /// each row's value, as f64::to_bits
    values: Vec<u64>,
}

pub struct Sweep {
    pub meta: Meta,
    /// report.md's header
    pub title: String,
    pub scheds: Vec<String>,
    /// per cell: its workload and primary metric
    pub primary: Vec<WorkloadEntry>,
    pub infos: BTreeMap<String, MetricInfo>,
    /// the cells' rows, cell after cell
    pub rows: Vec<Row>,
    pub cells: Vec<Cell>,
}

impl Sweep {
    /// This sweep as shard `s` of a sweep of `cells` cells: its meta says
    /// which, and keeps what the merge needs.
    pub fn as_shard(mut self, s: Shard, cells: usize) -> Result<Sweep> {
        let mut m = ShardMeta::new("sim", s, cells);
        m.merge = serde_json::to_value(ShardPart {
            title: self.title.clone(),
            cells: self.cells.clone(),
            values: self.rows.iter().map(|r| r.value.to_bits()).collect(),
        })?;
        self.meta.shard = Some(m);
        Ok(self)
    }

    /// Prints the report (or with `brief` its headline and outcome) and,
    /// with `out`, writes the outputs there.
    pub fn finish(&self, out: Option<&Path>, brief: bool, charts: bool) -> Result<()> {
        let report = Report::build(&self.rows, &self.scheds, &self.primary, &self.infos);
        let replayed: String = self.cells.iter().map(|c| c.replayed.as_str()).collect();
        // the candidate's verdict, when the run has arbor:default, arbor:stock and a peer
        let verdict = verdict::of_run(&report.results(&self.rows, &Meta::default()));
        let md = format!(
            "{}{replayed}{}{}",
            self.title,
            report.markdown(),
            verdict
                .as_ref()
                .map(verdict::report_section)
                .unwrap_or_default()
        );
        if brief {
            let outcome = match &verdict {
                Some(v) => format!("{}\n{}", v.table(), verdict::count(v)),
                None => report.significant_line(),
            };
            println!("{}\n{outcome}", report.headline());
        } else {
            println!("{md}");
        }
        let Some(dir) = out else {
            return Ok(());
        };
        std::fs::write(dir.join("report.md"), &md)?;
        std::fs::write(
            dir.join(summary::RESULTS),
            report.json(&self.rows, &self.meta)?,
        )?;
        summary::write_beside(dir)?;
        std::fs::write(dir.join("results.csv"), Report::csv(&self.rows))?;
        if charts && !self.rows.is_empty() {
            // bench's charts, from the same results.json
            match crate::report::charts(dir) {
                Ok(n) => eprintln!("arbor sim: {n} charts in {}", dir.join("charts").display()),
                Err(e) => eprintln!("arbor sim: warning: no charts: {e:#}"),
            }
        }
        eprintln!("arbor sim: report in {}", dir.display());
        Ok(())
    }

    /// Prints the runs that did not finish cleanly; the exit code: 1 if any.
    pub fn failures(&self) -> i32 {
        let mut code = 0;
        for f in self.cells.iter().flat_map(|c| &c.failed) {
            eprintln!("arbor sim: {f}");
            code = 1;
        }
        code
    }

    /// The sweep whose shards are `parts` (complete, in shard order: see
    /// [`shard::complete`]): their cells in the sweep's order, meta as the
    /// sweep run whole records it.
    pub fn merged(parts: &[Part]) -> Result<Sweep> {
        let mut results = Vec::new();
        let mut shards = Vec::new();
        for p in parts {
            let mut r = Results::read(&p.dir.join(summary::RESULTS))?;
            let s: ShardPart =
                serde_json::from_value(p.shard.merge.clone()).with_context(|| {
                    format!("{}: not the output of an arbor sim shard", p.dir.display())
                })?;
            let runs = r
                .meta
                .extra
                .get("runs")
                .and_then(|v| v.as_array())
                .map_or(0, |v| v.len());
            if s.cells.len() != Shard::of(&p.shard).cells(p.shard.cells).len()
                || r.workloads.len() != s.cells.len()
                || s.cells.iter().map(|c| c.rows).sum::<usize>() != r.raw.len()
                || s.cells.iter().map(|c| c.runs).sum::<usize>() != runs
                || s.values.len() != r.raw.len()
            {
                bail!(
                    "{}: its results.json does not hold the cells its meta.shard lists",
                    p.dir.display()
                );
            }
            for (row, v) in r.raw.iter_mut().zip(&s.values) {
                row.value = f64::from_bits(*v);
            }
            results.push(r);
            shards.push(s);
        }
        let mut meta = results[0].meta.clone();
        meta.command = parts[0].shard.command.clone();
        meta.shard = None;
        let mut sweep = Sweep {
            meta,
            title: shards[0].title.clone(),
            scheds: results[0].schedulers.clone(),
            primary: Vec::new(),
            infos: BTreeMap::new(),
            rows: Vec::new(),
            cells: Vec::new(),
        };
        // metrics as the whole sweep met them, first-seen
        for r in &results {
            for (k, v) in &r.metrics {
                sweep.infos.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        // where each shard's cells start in its rows and runs
        let starts = |sizes: &mut dyn Iterator<Item = usize>| {
            let mut at = 0;
            sizes
                .map(|n| {
                    at += n;
                    at - n
                })
                .collect::<Vec<_>>()
        };
        let row_at: Vec<Vec<usize>> = shards
            .iter()
            .map(|s| starts(&mut s.cells.iter().map(|c| c.rows)))
            .collect();
        let run_at: Vec<Vec<usize>> = shards
            .iter()
            .map(|s| starts(&mut s.cells.iter().map(|c| c.runs)))
            .collect();
        let mut runs = Vec::new();
        for (p, j) in shard::cell_order(parts) {
            let c = &shards[p].cells[j];
            let r = &results[p];
            sweep
                .rows
                .extend_from_slice(&r.raw[row_at[p][j]..row_at[p][j] + c.rows]);
            if let Some(all) = r.meta.extra.get("runs").and_then(|v| v.as_array()) {
                runs.extend_from_slice(&all[run_at[p][j]..run_at[p][j] + c.runs]);
            }
            sweep.primary.push(r.workloads[j].clone());
            sweep.cells.push(c.clone());
        }
        sweep
            .meta
            .extra
            .insert("runs".into(), serde_json::Value::Array(runs));
        Ok(sweep)
    }
}
