//! summary.json: the small part of a results.json that a finding keeps and
//! `arbor sim verdict` reads. Per cell (machine, workload, scheduler) the
//! workload's primary metric: its name, which way is better, mean, sd,
//! runs, the mean's 95% interval, and the runs that failed or were
//! ejected; and the command that reproduces the run. No rows, no time, no
//! commit: a deterministic simulator run gives the same file every time.
//! Tools whose results.json has a layout of its own (reproduce, fuzz,
//! calibrate) keep their headline in the same file beside the command.
//!
//! Every tool writes it from the results.json it has just written
//! ([`write_beside`]), as `arbor sim summarize DIR` does for an older one.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{nan_as_null, read_json_text, Results, EJECTED};
use crate::ci::{mean_ci, mean_sd};

pub const FILE: &str = "summary.json";
pub const RESULTS: &str = "results.json";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Higher,
    Lower,
}

impl Better {
    pub fn of(higher_is_better: bool) -> Better {
        if higher_is_better {
            Better::Higher
        } else {
            Better::Lower
        }
    }
    pub fn higher(self) -> bool {
        self == Better::Higher
    }
}

/// One (machine, workload, scheduler) on the workload's primary metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub machine: String,
    pub workload: String,
    pub scheduler: String,
    pub metric: String,
    pub better: Better,
    /// over the runs that gave a value (None in JSON without one)
    #[serde(with = "nan_as_null")]
    pub mean: f64,
    #[serde(with = "nan_as_null")]
    pub sd: f64,
    /// runs that gave a value
    pub n: usize,
    /// the mean's 95% t interval (None below 2 values)
    pub ci95: Option<(f64, f64)>,
    /// runs made, and the runs in which the scheduler was ejected (or
    /// could not be loaded)
    pub runs: usize,
    pub ejected: usize,
}

impl Cell {
    /// (mean, sd, n), as crate::ci takes them.
    pub fn stats(&self) -> (f64, f64, usize) {
        (self.mean, self.sd, self.n)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// the command line that reproduces the run (results.json's
    /// meta.command; empty where it did not record one)
    pub command: String,
    /// the run's schedulers in its order (the first is the baseline of
    /// the report's changes)
    #[serde(default)]
    pub schedulers: Vec<String>,
    /// in the run's workload order, then its scheduler order
    #[serde(default)]
    pub cells: Vec<Cell>,
    /// a tool's own headline (reproduce's compared cells, fuzz's
    /// failures, calibrate's ratios, verdict's decisions)
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// The machine a results.json ran on: the simulator's model, else the
/// VM topology or the host.
fn machine_of(r: &Results) -> String {
    r.meta
        .extra
        .get("machine")
        .and_then(|m| m.get("name"))
        .and_then(|n| n.as_str())
        .map(String::from)
        .unwrap_or_else(|| r.meta.topology.clone())
}

impl Summary {
    /// The summary of an `arbor sim` or `arbor bench` results.json: its
    /// primary metric per (workload, scheduler), from its rows (from its
    /// cells where it kept no rows). Errors when a primary metric has no
    /// declared direction.
    pub fn of_results(r: &Results) -> Result<Summary> {
        let machine = machine_of(r);
        // (scheduler, workload, metric) -> values; (scheduler, workload)
        // -> (runs, runs ejected)
        let mut vals: BTreeMap<(&str, &str, &str), Vec<f64>> = BTreeMap::new();
        let mut ej: BTreeMap<(&str, &str), (usize, usize)> = BTreeMap::new();
        for row in &r.raw {
            if row.metric == EJECTED {
                let e = ej.entry((&row.sched, &row.workload)).or_default();
                e.0 += 1;
                e.1 += (row.value > 0.0) as usize;
            } else if row.value.is_finite() {
                vals.entry((&row.sched, &row.workload, &row.metric))
                    .or_default()
                    .push(row.value);
            }
        }
        let mut cells = Vec::new();
        for wd in &r.workloads {
            let (w, m) = (wd.workload.as_str(), wd.primary.as_str());
            let hib = r
                .metrics
                .get(m)
                .map(|i| i.higher_is_better)
                .or_else(|| {
                    // results.json from before the metrics table: each cell said
                    r.cells
                        .iter()
                        .find(|c| c.metric == m)
                        .and_then(|c| c.higher_is_better)
                })
                .with_context(|| {
                    format!("{w}'s primary metric {m} is not among the run's metrics")
                })?;
            for s in &r.schedulers {
                let cell = if r.raw.is_empty() {
                    let Some(c) = r
                        .cells
                        .iter()
                        .find(|c| c.workload == w && c.metric == m && &c.scheduler == s)
                    else {
                        continue;
                    };
                    (c.mean, c.stdev, c.n, c.n.max(c.ejected), c.ejected)
                } else {
                    let v = vals.get(&(s.as_str(), w, m));
                    let e = ej.get(&(s.as_str(), w)).copied();
                    if v.is_none() && e.is_none() {
                        continue;
                    }
                    let v = v.map_or(&[][..], |v| v.as_slice());
                    let (mean, sd) = mean_sd(v);
                    let (runs, ejected) = e.unwrap_or((0, 0));
                    (mean, sd, v.len(), runs.max(v.len()), ejected)
                };
                let (mean, sd, n, runs, ejected) = cell;
                cells.push(Cell {
                    machine: machine.clone(),
                    workload: w.to_string(),
                    scheduler: s.clone(),
                    metric: m.to_string(),
                    better: Better::of(hib),
                    mean,
                    sd,
                    n,
                    ci95: mean_ci((mean, sd, n)),
                    runs,
                    ejected,
                });
            }
        }
        Ok(Summary {
            command: super::meta::normalized(&r.meta.command),
            schedulers: r.schedulers.clone(),
            cells,
            extra: BTreeMap::new(),
        })
    }

    /// The summary of any results.json the tools write, by its layout.
    pub fn of_value(v: &Value) -> Result<Summary> {
        let has = |k: &str| v.get(k).is_some();
        let command = v
            .pointer("/meta/command")
            .and_then(|c| c.as_str())
            .map(super::meta::normalized)
            .unwrap_or_default();
        // a tool's own layout: the fields of its headline
        let own = |keys: &[&str]| -> Summary {
            let extra = keys
                .iter()
                .filter_map(|k| v.get(*k).map(|x| (k.to_string(), x.clone())))
                .collect();
            Summary {
                command: command.clone(),
                schedulers: Vec::new(),
                cells: Vec::new(),
                extra,
            }
        };
        if has("raw") && has("schedulers") {
            let r: Results = serde_json::from_value(v.clone())
                .context("not an arbor results file (bench or sim)")?;
            Summary::of_results(&r)
        } else if has("compared") {
            // arbor sim reproduce
            Ok(own(&["seed", "name", "reps", "quick", "compared"]))
        } else if has("era") && has("effects") {
            // arbor sim reproduce on any machine: each cell's decision
            Ok(own(&[
                "seed",
                "name",
                "era",
                "mechanism",
                "reps",
                "max_reps",
                "rule",
                "effects",
                "explain",
                "sensitivity",
            ]))
        } else if has("cases_run") && has("failures") {
            // arbor sim fuzz: what it searched and what failed, not how long it took
            let mut s = own(&["seed", "cases_run", "per_scheduler", "failures"]);
            for k in ["long_waits", "refused"] {
                let n = v.get(k).and_then(|x| x.as_array()).map_or(0, |a| a.len());
                s.extra.insert(k.to_string(), n.into());
            }
            Ok(s)
        } else if has("rule") && has("decisions") {
            // arbor sim verdict: the rule, the counts and every cell's decision
            Ok(own(&[
                "candidate",
                "baseline",
                "peers",
                "workloads",
                "machines",
                "rule",
                "counts",
                "per_machine",
                "decisions",
                "why",
            ]))
        } else if has("rows") && has("micro") {
            // arbor sim calibrate: real against simulated, per workload
            let mut s = own(&["cpus", "reps"]);
            let rows: Vec<Value> = v["rows"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|r| {
                            let mut o = serde_json::Map::new();
                            for k in ["workload", "sim_by", "ratio_before", "ratio_after"] {
                                o.insert(k.into(), r.get(k).cloned().unwrap_or(Value::Null));
                            }
                            Value::Object(o)
                        })
                        .collect()
                })
                .unwrap_or_default();
            s.extra.insert("rows".into(), rows.into());
            Ok(s)
        } else {
            bail!("not a results file of arbor sim, bench, reproduce, fuzz or calibrate")
        }
    }

    pub fn read(path: &Path) -> Result<Summary> {
        let text = read_json_text(path)?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not an arbor summary file", path.display()))
    }

    pub fn json(&self) -> Result<String> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    /// The cells of a (workload, scheduler), on any machine.
    #[cfg(test)]
    pub fn cell(&self, workload: &str, scheduler: &str) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|c| c.workload == workload && c.scheduler == scheduler)
    }
}

/// The summary of DIR/results.json.
pub fn of_dir(dir: &Path) -> Result<Summary> {
    of_results(dir, &results_value(dir)?)
}

/// DIR/results.json, parsed.
pub fn results_value(dir: &Path) -> Result<Value> {
    let path = dir.join(RESULTS);
    let text = read_json_text(&path)?;
    serde_json::from_str(&text)
        .with_context(|| format!("{} is not an arbor results file", path.display()))
}

/// The summary of `v`, DIR/results.json as [`results_value`] read it.
pub fn of_results(dir: &Path, v: &Value) -> Result<Summary> {
    Summary::of_value(v).with_context(|| dir.join(RESULTS).display().to_string())
}

/// Writes DIR/summary.json from the DIR/results.json beside it.
pub fn write_beside(dir: &Path) -> Result<()> {
    let s = of_dir(dir)?;
    let path = dir.join(FILE);
    std::fs::write(&path, s.json()?).with_context(|| format!("writing {}", path.display()))
}

/// A tool's outputs in `dir` (created if missing): report.md, results.json
/// (`meta` first: the command that reproduces the run and the build's
/// commit; then `body`'s fields) and the summary.json made from it.
pub fn write_outputs<T: Serialize>(dir: &Path, md: &str, body: &T) -> Result<()> {
    write_stamped(dir, md, super::meta::Provenance::here(), body)
}

/// [`write_outputs`] with the given `meta` (a shard's, or merged shards').
pub fn write_stamped<T: Serialize>(
    dir: &Path,
    md: &str,
    meta: super::meta::Provenance,
    body: &T,
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    std::fs::write(dir.join("report.md"), md)?;
    let results = super::meta::Stamped { meta, body };
    std::fs::write(dir.join(RESULTS), serde_json::to_string_pretty(&results)?)?;
    write_beside(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::metric::{Kind, MetricInfo};
    use crate::report::{Meta, Row, WorkloadEntry};

    fn results() -> Results {
        let mut raw = Vec::new();
        for (s, vs, ej) in [
            ("a", vec![10.0, 12.0], vec![0.0, 0.0]),
            ("b", vec![8.0, f64::NAN], vec![0.0, 1.0]),
        ] {
            for (rep, (v, e)) in vs.iter().zip(&ej).enumerate() {
                let row = |metric: &str, value: f64| Row {
                    rep: rep as u32,
                    sched: s.into(),
                    workload: "w".into(),
                    metric: metric.into(),
                    value,
                };
                raw.push(row(EJECTED, *e));
                raw.push(row("t", *v));
                raw.push(row("c:x", 1.0));
            }
        }
        let mut metrics = BTreeMap::new();
        metrics.insert(
            "t".to_string(),
            MetricInfo {
                unit: "s".into(),
                higher_is_better: false,
                kind: Kind::Performance,
            },
        );
        let mut meta = Meta {
            command: "arbor sim -r 2".into(),
            topology: "sim: m".into(),
            ..Meta::default()
        };
        meta.extra
            .insert("machine".into(), serde_json::json!({"name": "x86-12"}));
        Results {
            meta,
            schedulers: vec!["a".into(), "b".into()],
            workloads: vec![WorkloadEntry {
                workload: "w".into(),
                primary: "t".into(),
            }],
            metrics,
            cells: Vec::new(),
            raw,
        }
    }

    #[test]
    fn a_cell_per_workload_and_scheduler_on_the_primary_metric() {
        let s = Summary::of_results(&results()).unwrap();
        assert_eq!(s.command, "arbor sim -r 2");
        assert_eq!(s.cells.len(), 2);
        let a = s.cell("w", "a").unwrap();
        assert_eq!((a.machine.as_str(), a.metric.as_str()), ("x86-12", "t"));
        assert_eq!((a.mean, a.n, a.runs, a.ejected), (11.0, 2, 2, 0));
        assert_eq!(a.better, Better::Lower);
        // sd sqrt(2), t(1) = 12.706: 11 ± 12.706
        let (lo, hi) = a.ci95.unwrap();
        assert!((hi - 11.0 - 12.706).abs() < 1e-9 && (11.0 - lo - 12.706).abs() < 1e-9);
        let b = s.cell("w", "b").unwrap();
        assert_eq!((b.mean, b.n, b.runs, b.ejected), (8.0, 1, 2, 1));
        assert_eq!(b.ci95, None);
        // no rows, no time, no commit; it reads back as written
        let j = s.json().unwrap();
        assert!(!j.contains("c:x") && !j.contains("commit"), "{j}");
        assert!(j.contains("\"better\": \"lower\""), "{j}");
        assert_eq!(serde_json::from_str::<Summary>(&j).unwrap(), s);
        // the same from results.json's JSON
        let v = serde_json::to_value(&results()).unwrap();
        assert_eq!(Summary::of_value(&v).unwrap(), s);
    }

    #[test]
    fn other_layouts_keep_their_headline_and_unknown_ones_are_refused() {
        let v = serde_json::json!({"meta": {"command": "arbor sim reproduce steal", "commit": "x"},
            "seed": "003", "name": "steal", "reps": 3, "quick": true, "compared": [{"sim_pct": 1.0}]});
        let s = Summary::of_value(&v).unwrap();
        assert_eq!(s.command, "arbor sim reproduce steal");
        assert!(s.cells.is_empty());
        assert_eq!(s.extra["compared"][0]["sim_pct"], 1.0);
        assert!(!s.json().unwrap().contains("commit"));
        let v = serde_json::json!({"seed": 1, "cases_run": 4, "cpu_seconds": 9.5,
            "per_scheduler": {}, "failures": [], "long_waits": [1, 2], "refused": []});
        let s = Summary::of_value(&v).unwrap();
        assert_eq!(s.extra["long_waits"], 2);
        assert!(!s.extra.contains_key("cpu_seconds"));
        let v = serde_json::json!({"meta": {"command": "arbor sim calibrate -r 3"},
            "host": "h", "cpus": 2, "reps": 3, "micro": {"x": 1}, "cost_flags": "",
            "rows": [{"workload": "hackbench", "sim_by": "model", "real": {"min": 1.0},
                      "ratio_before": {"ratio": 0.9}, "ratio_after": null, "note": ""}]});
        let s = Summary::of_value(&v).unwrap();
        assert_eq!(s.extra["rows"][0]["ratio_before"]["ratio"], 0.9);
        assert!(s.extra["rows"][0].get("real").is_none() && !s.extra.contains_key("host"));
        let e = Summary::of_value(&serde_json::json!({"runs": []})).unwrap_err();
        assert!(format!("{e:#}").contains("not a results file"), "{e:#}");
        let mut r = serde_json::to_value(&results()).unwrap();
        r["metrics"] = serde_json::json!({});
        let e = Summary::of_value(&r).unwrap_err();
        assert!(format!("{e:#}").contains("primary metric t"), "{e:#}");
    }
}
