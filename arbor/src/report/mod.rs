//! The results of `arbor bench` and `arbor sim`: the typed rows a run
//! produced, aggregated per (workload, metric, scheduler) into mean, stdev
//! and the change against the first scheduler with its 95% confidence
//! interval, written as markdown (markdown.rs, the seeds' layout), CSV and
//! results.json, which `bench render` and `sim verdict` read back with the
//! same types, and summary.json (summary.rs), the small part of it a
//! finding keeps.

pub mod markdown;
pub mod meta;
pub mod metric;
pub mod summary;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::ci::{change_ci, mean_sd};
pub use meta::Meta;
use metric::{Kind, MetricInfo};

/// One number from one run. A value the run could not produce is None
/// (JSON null), never a made-up zero.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub rep: u32,
    #[serde(rename = "scheduler")]
    pub sched: String,
    pub workload: String,
    pub metric: String,
    #[serde(with = "nan_as_null")]
    pub value: f64,
}

pub(crate) mod nan_as_null {
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_some(v)
        } else {
            s.serialize_none()
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

/// The metric "ejected": 1 when the scheduler was ejected during the run
/// (or could not be loaded for it).
pub const EJECTED: &str = "ejected";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Cell {
    pub workload: String,
    pub metric: String,
    pub scheduler: String,
    pub n: usize,
    #[serde(with = "nan_as_null")]
    pub mean: f64,
    #[serde(with = "nan_as_null")]
    pub stdev: f64,
    /// % change of the mean against the first scheduler (None for itself)
    pub change_pct: Option<f64>,
    /// its 95% Welch interval, in % of the first scheduler's mean
    pub ci_pct: Option<(f64, f64)>,
    /// runs in which the scheduler was ejected (or failed to run)
    pub ejected: usize,
    /// which way is better, as results.json files written before the
    /// metrics table kept it per cell (None: see the metrics table)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub higher_is_better: Option<bool>,
}

impl Cell {
    /// The interval excludes zero.
    pub fn significant(&self) -> Option<bool> {
        self.ci_pct.map(|(lo, hi)| lo > 0.0 || hi < 0.0)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WorkloadEntry {
    pub workload: String,
    pub primary: String,
}

/// results.json: everything `render` needs, in the types that wrote it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Results {
    pub meta: Meta,
    pub schedulers: Vec<String>,
    pub workloads: Vec<WorkloadEntry>,
    #[serde(default)]
    pub metrics: BTreeMap<String, MetricInfo>,
    pub cells: Vec<Cell>,
    pub raw: Vec<Row>,
}

/// Aggregated results: workload -> metric -> sched -> cell, in run order.
pub struct Report {
    pub scheds: Vec<String>,
    pub workloads: Vec<WorkloadEntry>,
    pub infos: BTreeMap<String, MetricInfo>,
    pub cells: BTreeMap<(String, String, String), Cell>,
    pub metrics: BTreeMap<String, Vec<String>>, // workload -> metrics in first-seen order
}

/// A metric nobody declared: shown as a plain counter.
fn unknown() -> MetricInfo {
    MetricInfo {
        unit: String::new(),
        higher_is_better: false,
        kind: Kind::Counter,
    }
}

impl Report {
    pub fn build(
        rows: &[Row],
        scheds: &[String],
        workloads: &[WorkloadEntry],
        infos: &BTreeMap<String, MetricInfo>,
    ) -> Report {
        let mut metrics: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut vals: BTreeMap<(String, String, String), Vec<f64>> = BTreeMap::new();
        let mut ej: BTreeMap<(String, String), usize> = BTreeMap::new();
        for r in rows {
            if r.metric == EJECTED {
                if r.value > 0.0 {
                    *ej.entry((r.workload.clone(), r.sched.clone())).or_default() += 1;
                }
                continue;
            }
            let ms = metrics.entry(r.workload.clone()).or_default();
            if !ms.contains(&r.metric) {
                ms.push(r.metric.clone());
            }
            let v = vals
                .entry((r.workload.clone(), r.metric.clone(), r.sched.clone()))
                .or_default();
            if r.value.is_finite() {
                v.push(r.value);
            }
        }
        // a scheduler that was ejected in every run of a workload still gets its cell
        for (w, s) in ej.keys() {
            for m in workloads.iter().filter(|e| &e.workload == w) {
                vals.entry((w.clone(), m.primary.clone(), s.clone()))
                    .or_default();
            }
        }
        let first = scheds.first();
        let mut cells = BTreeMap::new();
        for ((w, m, s), v) in &vals {
            let (mean, stdev) = mean_sd(v);
            let base = first
                .filter(|f| *f != s)
                .and_then(|f| vals.get(&(w.clone(), m.clone(), f.clone())));
            let base_mean = base.map(|b| mean_sd(b).0);
            cells.insert(
                (w.clone(), m.clone(), s.clone()),
                Cell {
                    workload: w.clone(),
                    metric: m.clone(),
                    scheduler: s.clone(),
                    n: v.len(),
                    mean,
                    stdev,
                    change_pct: base_mean.and_then(|b| pct_change(mean, b)),
                    ci_pct: base
                        .and_then(|b| change_ci(b, v))
                        .map(|(_, lo, hi)| (lo, hi)),
                    ejected: ej.get(&(w.clone(), s.clone())).copied().unwrap_or(0),
                    higher_is_better: None,
                },
            );
        }
        Report {
            scheds: scheds.to_vec(),
            workloads: workloads.to_vec(),
            infos: infos.clone(),
            cells,
            metrics,
        }
    }

    pub fn info(&self, m: &str) -> MetricInfo {
        self.infos.get(m).cloned().unwrap_or_else(unknown)
    }

    pub fn csv(rows: &[Row]) -> String {
        let mut o = String::from("rep,scheduler,workload,metric,value\n");
        for r in rows {
            let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
            let _ = writeln!(
                o,
                "{},{},{},{},{}",
                r.rep,
                q(&r.sched),
                q(&r.workload),
                q(&r.metric),
                if r.value.is_finite() {
                    r.value.to_string()
                } else {
                    String::new()
                }
            );
        }
        o
    }

    pub fn results(&self, rows: &[Row], meta: &Meta) -> Results {
        Results {
            meta: meta.clone(),
            schedulers: self.scheds.clone(),
            workloads: self.workloads.clone(),
            metrics: self.infos.clone(),
            cells: self.cells.values().cloned().collect(),
            raw: rows.to_vec(),
        }
    }

    pub fn json(&self, rows: &[Row], meta: &Meta) -> Result<String> {
        Ok(serde_json::to_string_pretty(&self.results(rows, meta))?)
    }
}

/// The text of a tool output read back (results.json, summary.json): a
/// regular file within the limit, so that a FIFO or a link to /dev/zero
/// is one line, not a hang or gigabytes read.
pub(crate) fn read_json_text(path: &std::path::Path) -> Result<String> {
    arbor_sim::limits::read_text(path, "results", arbor_sim::limits::MAX_RESULTS_BYTES)
}

impl Results {
    pub fn read(path: &std::path::Path) -> Result<Results> {
        let text = read_json_text(path)?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not an arbor results file", path.display()))
    }
}

/// % change of `mean` against `base`; none when either is not a number or
/// the base is zero.
pub(crate) fn pct_change(mean: f64, base: f64) -> Option<f64> {
    (base.is_finite() && base != 0.0 && mean.is_finite()).then(|| (mean - base) / base * 100.0)
}

/// One PNG per workload (primary metric, schedulers side by side, stdev
/// error bars, its direction from results.json's metric info), drawn by
/// bench/plot.py with matplotlib.
pub fn charts(dir: &std::path::Path) -> Result<usize> {
    let out = std::process::Command::new("/usr/bin/python3")
        .arg(crate::vm::repo_root().join("bench/plot.py"))
        .arg(dir.join("results.json"))
        .arg(dir.join("charts"))
        .output()
        .context("running /usr/bin/python3 bench/plot.py (python3-matplotlib)")?;
    if !out.status.success() {
        anyhow::bail!("{}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(std::fs::read_dir(dir.join("charts"))?.count())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(rep: u32, s: &str, w: &str, m: &str, v: f64) -> Row {
        Row {
            rep,
            sched: s.into(),
            workload: w.into(),
            metric: m.into(),
            value: v,
        }
    }

    /// One run (rep 1) of workload "hb": a row per (scheduler, metric,
    /// value).
    fn hb_once(cells: &[(&str, &str, f64)]) -> Vec<Row> {
        cells
            .iter()
            .map(|&(s, m, v)| row(1, s, "hb", m, v))
            .collect()
    }

    fn names(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    fn wl(w: &[(&str, &str)]) -> Vec<WorkloadEntry> {
        w.iter()
            .map(|(w, p)| WorkloadEntry {
                workload: w.to_string(),
                primary: p.to_string(),
            })
            .collect()
    }

    fn infos() -> BTreeMap<String, MetricInfo> {
        let mut m = BTreeMap::new();
        for (n, hib) in [("time_s", false), ("eps", true)] {
            m.insert(
                n.to_string(),
                MetricInfo {
                    unit: "x".into(),
                    higher_is_better: hib,
                    kind: Kind::Performance,
                },
            );
        }
        for n in ["c:steal", "c:wakeups", "c:nr_sched", "busy_pct"] {
            m.insert(n.to_string(), metric::common(n).unwrap());
        }
        m
    }

    #[test]
    fn rows_travel_as_json_with_missing_values_as_null() {
        let r = row(2, "eevdf", "hackbench", "time_s", f64::NAN);
        let j = serde_json::to_string(&r).unwrap();
        assert!(j.contains("\"value\":null"), "{j}");
        assert!(j.contains("\"scheduler\":\"eevdf\""), "{j}");
        let back: Row = serde_json::from_str(&j).unwrap();
        assert!(back.value.is_nan());
        let r = row(1, "a", "w", "m", 1.5);
        assert_eq!(
            serde_json::from_str::<Row>(&serde_json::to_string(&r).unwrap()).unwrap(),
            r
        );
        assert!(serde_json::from_str::<Row>("{\"rep\":1}").is_err());
    }

    #[test]
    fn own_counters_get_one_table_per_scheduler_family() {
        let rows = hb_once(&[
            ("eevdf", "time_s", 10.0),
            ("arbor:stock", "time_s", 9.0),
            ("arbor:stock", "c:steal", 0.0),
            ("arbor:stock", "c:wakeups", 100.0),
            ("arbor:default", "time_s", 8.0),
            ("arbor:default", "c:steal", 50.0),
            ("arbor:default", "c:wakeups", 150.0),
            ("lavd", "time_s", 7.0),
            ("lavd", "c:nr_sched", 42.0),
        ]);
        let s = names(&["eevdf", "arbor:stock", "arbor:default", "lavd"]);
        let r = Report::build(&rows, &s, &wl(&[("hb", "time_s")]), &infos());
        let md = r.markdown();
        // the common table has no counter rows
        assert!(!md.contains("| c:steal | –"), "{md}");
        // arbor's profiles share one table, with the change against the first
        assert!(md.contains("Own counters: arbor:stock, arbor:default\n\n| counter | arbor:stock | arbor:default |"), "{md}");
        assert!(
            md.contains("| c:wakeups | 100.0 ± 0.000 | 150.0 ± 0.000 (Δ+50.0%) |"),
            "{md}"
        );
        // in scx_arbor's counter order (wakeups is its first), not by name
        assert!(
            md.find("| c:wakeups |").unwrap() < md.find("| c:steal |").unwrap(),
            "{md}"
        );
        // the peer gets its own, without arbor's columns
        assert!(md.contains("Own counters: lavd\n\n| counter | lavd |\n|---|---|\n| c:nr_sched | 42.0 ± 0.000 |"), "{md}");
        // one run each: no interval, said so
        assert!(md.contains("**0 of 0 changes"), "{md}");
    }

    #[test]
    fn mean_stdev_signed_change_and_its_interval() {
        let rows = vec![
            row(1, "eevdf", "hb", "time_s", 10.0),
            row(2, "eevdf", "hb", "time_s", 12.0),
            row(1, "arbor", "hb", "time_s", 8.0),
            row(2, "arbor", "hb", "time_s", 10.0),
            row(1, "eevdf", "sb", "eps", 100.0),
            row(2, "eevdf", "sb", "eps", 101.0),
            row(1, "arbor", "sb", "eps", 110.0),
            row(2, "arbor", "sb", "eps", 111.0),
            row(1, "arbor", "sb", "ejected", 1.0),
            row(1, "lavd", "sb", "eps", f64::NAN),
        ];
        let s = names(&["eevdf", "arbor", "lavd"]);
        let r = Report::build(&rows, &s, &wl(&[("hb", "time_s"), ("sb", "eps")]), &infos());
        let c = &r.cells[&("hb".into(), "time_s".into(), "arbor".into())];
        assert_eq!(c.n, 2);
        assert!((c.mean - 9.0).abs() < 1e-9);
        assert!((c.stdev - 2f64.sqrt()).abs() < 1e-9);
        assert!((c.change_pct.unwrap() + 18.1818).abs() < 1e-3);
        // se = sqrt(1 + 1), df = 2, t = 4.303: ±6.085 s = ±55.3% of 11 s; crosses zero
        assert_eq!(c.significant(), Some(false));
        let md = r.markdown();
        // lower time is better: -18.2% is printed as +18.2% (better), not significant
        assert!(md.contains("9.000 ± 1.414 (+18.2% ±55.3 ~)"), "{md}");
        // higher eps is better: +10% with a tight interval is significant; the ejection is marked
        assert!(
            md.contains("110.5 ± 0.707 (+10.0% ±3.0) **ejected ×1**"),
            "{md}"
        );
        assert!(
            md.contains("**1 of 2 changes in this table are significant**"),
            "{md}"
        );
        // a 10% change cannot show with a 15.7% spread (the median cell) and 2 runs
        assert!(
            md.contains("`hb`: spread 15.7%, 2 runs: **a 10% change cannot be told from noise**"),
            "{md}"
        );
        // a scheduler whose runs all failed says so
        assert!(md.contains("| failed |"), "{md}");
        let csv = Report::csv(&rows);
        assert!(csv.lines().nth(1).unwrap() == "1,\"eevdf\",\"hb\",\"time_s\",10");
        // results.json round-trips through its own types
        let meta = Meta {
            title: "t".into(),
            reps: 2,
            ..Default::default()
        };
        let back: Results = serde_json::from_str(&r.json(&rows, &meta).unwrap()).unwrap();
        assert_eq!(back.raw.len(), rows.len());
        assert_eq!(back.cells.len(), r.cells.len());
        assert!(back.metrics["eps"].higher_is_better);
        assert_eq!(back.meta.reps, 2);
    }

    #[test]
    fn a_scheduler_ejected_in_every_run_gets_a_failed_cell() {
        let rows = vec![
            row(1, "eevdf", "hb", "time_s", 10.0),
            row(1, "lavd", "hb", "ejected", 1.0),
            row(1, "lavd", "hb", "time_s", f64::NAN),
        ];
        let r = Report::build(
            &rows,
            &names(&["eevdf", "lavd"]),
            &wl(&[("hb", "time_s")]),
            &infos(),
        );
        let c = &r.cells[&("hb".into(), "time_s".into(), "lavd".into())];
        assert_eq!((c.n, c.ejected), (0, 1));
        assert!(r.markdown().contains("failed **ejected ×1**"));
    }
}
