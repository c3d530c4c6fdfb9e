//! `arbor bench` results: the raw rows the guest printed, aggregated per
//! (workload, metric, scheduler) into mean, stdev and % change against the
//! first scheduler, written as markdown (the seeds' layout), CSV and JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{bail, Result};
use serde::Serialize;

use super::spec::{higher_is_better, unit};

/// One number from one run: `@R rep sched workload metric value`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub rep: u32,
    pub sched: String,
    pub workload: String,
    pub metric: String,
    pub value: f64,
}

impl Row {
    /// Parses a guest line `@R<TAB>rep<TAB>sched<TAB>workload<TAB>metric<TAB>value`.
    pub fn parse(line: &str) -> Result<Option<Row>> {
        let Some(rest) = line.strip_prefix("@R\t") else {
            return Ok(None);
        };
        let f: Vec<&str> = rest.trim_end_matches(['\r', '\n']).split('\t').collect();
        if f.len() != 5 {
            bail!("malformed result line from the guest: {line:?}");
        }
        let rep = f[0]
            .parse()
            .map_err(|_| anyhow::anyhow!("bad rep in {line:?}"))?;
        let value = match f[4] {
            "nan" | "" => f64::NAN,
            v => v
                .parse()
                .map_err(|_| anyhow::anyhow!("bad value in {line:?}"))?,
        };
        Ok(Some(Row {
            rep,
            sched: f[1].into(),
            workload: f[2].into(),
            metric: f[3].into(),
            value,
        }))
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub n: usize,
    pub mean: f64,
    pub stdev: f64,
    /// % change of the mean against the first scheduler (None for itself)
    pub change_pct: Option<f64>,
    /// runs in which the scheduler was ejected (or failed to run)
    pub ejected: usize,
}

pub fn mean_sd(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let sd = if v.len() > 1 {
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    (m, sd)
}

/// Aggregated results: workload -> metric -> sched -> cell, in run order.
pub struct Report {
    pub scheds: Vec<String>,
    pub workloads: Vec<(String, String)>, // (label, primary metric)
    pub cells: BTreeMap<(String, String, String), Cell>,
    pub metrics: BTreeMap<String, Vec<String>>, // workload -> metrics in first-seen order
}

impl Report {
    pub fn build(rows: &[Row], scheds: &[String], workloads: &[(String, String)]) -> Report {
        let mut metrics: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut vals: BTreeMap<(String, String, String), Vec<f64>> = BTreeMap::new();
        let mut ej: BTreeMap<(String, String), usize> = BTreeMap::new();
        for r in rows {
            if r.metric == "ejected" {
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
        let mut cells = BTreeMap::new();
        for ((w, m, s), v) in &vals {
            let (mean, stdev) = mean_sd(v);
            cells.insert(
                (w.clone(), m.clone(), s.clone()),
                Cell {
                    n: v.len(),
                    mean,
                    stdev,
                    change_pct: None,
                    ejected: ej.get(&(w.clone(), s.clone())).copied().unwrap_or(0),
                },
            );
        }
        if let Some(first) = scheds.first() {
            let keys: Vec<_> = cells.keys().cloned().collect();
            for (w, m, s) in keys {
                if &s == first {
                    continue;
                }
                let base = cells
                    .get(&(w.clone(), m.clone(), first.clone()))
                    .map(|c| c.mean);
                if let (Some(b), Some(c)) = (base, cells.get_mut(&(w, m, s))) {
                    c.change_pct = pct_change(c.mean, b);
                }
            }
        }
        Report {
            scheds: scheds.to_vec(),
            workloads: workloads.to_vec(),
            cells,
            metrics,
        }
    }

    fn fmt_num(x: f64) -> String {
        if !x.is_finite() {
            "n/a".into()
        } else if x.abs() >= 1000.0 {
            format!("{x:.0}")
        } else if x.abs() >= 10.0 {
            format!("{x:.1}")
        } else {
            format!("{x:.3}")
        }
    }

    fn cell_text(&self, w: &str, m: &str, s: &str) -> String {
        self.cell_text_vs(w, m, s, None)
    }

    /// A cell's text; `base` names the scheduler a counter's plain change is
    /// taken against (the first of its family), else the report's first.
    fn cell_text_vs(&self, w: &str, m: &str, s: &str, base: Option<&str>) -> String {
        match self.cells.get(&(w.into(), m.into(), s.into())) {
            None => "–".into(),
            Some(c) => {
                let mut t = if c.n == 0 {
                    "failed".to_string()
                } else {
                    format!("{} ± {}", Self::fmt_num(c.mean), Self::fmt_num(c.stdev))
                };
                let change = match base {
                    Some(b) if b != s => self
                        .cells
                        .get(&(w.into(), m.into(), b.into()))
                        .and_then(|bc| pct_change(c.mean, bc.mean)),
                    Some(_) => None,
                    None => c.change_pct,
                };
                if let Some(p) = change {
                    if is_performance(m) {
                        // the seeds' sign: + means better
                        let better = if higher_is_better(m) { p } else { -p };
                        let _ = write!(t, " ({better:+.1}%)");
                    } else {
                        // counters and system figures: plain change
                        let _ = write!(t, " (Δ{p:+.1}%)");
                    }
                }
                if c.ejected > 0 {
                    let _ = write!(t, " **ejected ×{}**", c.ejected);
                }
                t
            }
        }
    }

    /// A table's header: the leading columns, then one per scheduler.
    fn header(o: &mut String, lead: &[&str], scheds: &[&str]) {
        let cols: Vec<&str> = lead.iter().chain(scheds.iter()).copied().collect();
        let _ = writeln!(o, "| {} |", cols.join(" | "));
        let _ = writeln!(o, "|{}", "---|".repeat(cols.len()));
    }

    /// Schedulers grouped by the set of own metrics (counters, BPF ops) they
    /// reported for workload `w`: one family per scheduler binary, so that
    /// arbor's profiles share a table and each peer gets its own.
    fn families<'a>(&'a self, w: &str, ms: &'a [String]) -> Vec<(Vec<&'a str>, Vec<&'a str>)> {
        let mut fams: Vec<(Vec<&str>, Vec<&str>)> = Vec::new();
        for s in &self.scheds {
            let mine: Vec<&str> = ms
                .iter()
                .filter(|m| {
                    is_own(m)
                        && self
                            .cells
                            .contains_key(&(w.into(), (*m).clone(), s.clone()))
                })
                .map(|m| m.as_str())
                .collect();
            if mine.is_empty() {
                continue;
            }
            match fams.iter_mut().find(|f| f.0 == mine) {
                Some(f) => f.1.push(s),
                None => fams.push((mine, vec![s])),
            }
        }
        fams
    }

    /// The headline table: one row per workload (its primary metric), one
    /// column per scheduler; then the secondary metrics per workload, and
    /// each scheduler family's own counters in a table of its own.
    pub fn markdown(&self) -> String {
        let mut o = String::new();
        let first = self.scheds.first().cloned().unwrap_or_default();
        let all: Vec<&str> = self.scheds.iter().map(|s| s.as_str()).collect();
        let _ = writeln!(
            o,
            "Mean ± stdev over the runs; in brackets the change against `{first}`, signed so that **+ is better** (as in the seeds' tables).\n"
        );
        Self::header(&mut o, &["workload", "metric"], &all);
        for (w, primary) in &self.workloads {
            let dir = if higher_is_better(primary) {
                "higher"
            } else {
                "lower"
            };
            let _ = write!(o, "| `{w}` | {primary} ({}, {dir} better) |", unit(primary));
            for s in &self.scheds {
                let _ = write!(o, " {} |", self.cell_text(w, primary, s));
            }
            o.push('\n');
        }
        o.push_str("\n### Per workload: every metric\n\nWorkload results are signed + = better; system figures and counters show the plain change (Δ).\n");
        o.push_str("busy_pct: CPU busy %; ctxsw_per_s: context switches/s; migr_per_s: task migrations/s, system-wide, and by distance: migr_smt_per_s within a core, migr_llc_per_s within an LLC, migr_xllc_per_s across LLCs of a node, migr_xnode_per_s across nodes (the sched_migrate_task tracepoint). ");
        o.push_str("Below each workload's table, each scheduler's own counters over the run (c:NAME; scx_arbor's from its SIGUSR1 snapshots, a peer's from its scx_stats server, the interval covering the run), with the change against the family's first column; under `(all)`, bpf:OP is ns per call of the scheduler's BPF op over the whole load.\n");
        let mut ws: Vec<&str> = self.workloads.iter().map(|(w, _)| w.as_str()).collect();
        if self.metrics.contains_key("(all)") {
            ws.push("(all)"); // per-load numbers: BPF ns per op call
        }
        for w in ws {
            let ms: &[String] = self.metrics.get(w).map(|v| v.as_slice()).unwrap_or(&[]);
            let _ = write!(o, "\n#### `{w}`\n");
            let common: Vec<&String> = ms.iter().filter(|m| !is_own(m)).collect();
            if !common.is_empty() {
                o.push('\n');
                Self::header(&mut o, &["metric"], &all);
                for m in common {
                    let _ = write!(o, "| {m} |");
                    for s in &self.scheds {
                        let _ = write!(o, " {} |", self.cell_text(w, m, s));
                    }
                    o.push('\n');
                }
            }
            for (mets, ss) in self.families(w, ms) {
                let _ = write!(o, "\nOwn counters: {}\n\n", ss.join(", "));
                Self::header(&mut o, &["counter"], &ss);
                for m in mets {
                    let _ = write!(o, "| {m} |");
                    for s in &ss {
                        let _ = write!(o, " {} |", self.cell_text_vs(w, m, s, Some(ss[0])));
                    }
                    o.push('\n');
                }
            }
        }
        o
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

    pub fn json(&self, rows: &[Row], meta: &serde_json::Value) -> Result<String> {
        let cells: Vec<_> = self
            .cells
            .iter()
            .map(|((w, m, s), c)| {
                serde_json::json!({
                    "workload": w, "metric": m, "scheduler": s,
                    "higher_is_better": higher_is_better(m),
                    "n": c.n, "mean": finite(c.mean), "stdev": finite(c.stdev),
                    "change_pct": c.change_pct, "ejected": c.ejected,
                })
            })
            .collect();
        let raw: Vec<_> = rows
            .iter()
            .map(|r| {
                serde_json::json!({"rep": r.rep, "scheduler": r.sched, "workload": r.workload,
                    "metric": r.metric, "value": finite(r.value)})
            })
            .collect();
        let prim: Vec<_> = self
            .workloads
            .iter()
            .map(|(w, m)| serde_json::json!({"workload": w, "primary": m}))
            .collect();
        Ok(serde_json::to_string_pretty(&serde_json::json!({
            "meta": meta, "schedulers": self.scheds, "workloads": prim,
            "cells": cells, "raw": raw,
        }))?)
    }
}

/// Results of a workload (signed "+ is better"), as opposed to system
/// figures and counters (plain change).
fn is_performance(m: &str) -> bool {
    matches!(
        m,
        "time_s" | "wall_s" | "eps" | "tps" | "rps" | "bogo_ops_s" | "lat_ms"
    ) || m.ends_with("_us")
}

/// % change of `mean` against `base`; none when either is not a number or
/// the base is zero.
fn pct_change(mean: f64, base: f64) -> Option<f64> {
    (base.is_finite() && base != 0.0 && mean.is_finite()).then(|| (mean - base) / base * 100.0)
}

/// A scheduler's own numbers (its counters, its BPF ops), shown per family.
fn is_own(m: &str) -> bool {
    m.starts_with("c:") || m.starts_with("bpf:")
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
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

    fn names(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_guest_lines_and_rejects_malformed_ones() {
        assert_eq!(
            Row::parse("@R\t2\teevdf\thackbench\ttime_s\t1.5").unwrap(),
            Some(row(2, "eevdf", "hackbench", "time_s", 1.5))
        );
        assert!(Row::parse("@R\t2\teevdf\thackbench\ttime_s\tnan")
            .unwrap()
            .unwrap()
            .value
            .is_nan());
        // an empty value (a number the guest could not read) is missing, not an error
        assert!(Row::parse("@R\t2\teevdf\thackbench\tmigr_per_s\t")
            .unwrap()
            .unwrap()
            .value
            .is_nan());
        assert_eq!(Row::parse("PASS: something").unwrap(), None);
        assert!(Row::parse("@R\t2\teevdf\thackbench").is_err());
        assert!(Row::parse("@R\tx\teevdf\thackbench\ttime_s\t1").is_err());
    }

    #[test]
    fn own_counters_get_one_table_per_scheduler_family() {
        let rows = vec![
            row(1, "eevdf", "hb", "time_s", 10.0),
            row(1, "arbor:stock", "hb", "time_s", 9.0),
            row(1, "arbor:stock", "hb", "c:steal", 0.0),
            row(1, "arbor:stock", "hb", "c:wakeups", 100.0),
            row(1, "arbor:default", "hb", "time_s", 8.0),
            row(1, "arbor:default", "hb", "c:steal", 50.0),
            row(1, "arbor:default", "hb", "c:wakeups", 150.0),
            row(1, "lavd", "hb", "time_s", 7.0),
            row(1, "lavd", "hb", "c:nr_sched", 42.0),
        ];
        let s = names(&["eevdf", "arbor:stock", "arbor:default", "lavd"]);
        let r = Report::build(&rows, &s, &[("hb".into(), "time_s".into())]);
        let md = r.markdown();
        // the common table has no counter rows
        assert!(!md.contains("| c:steal | –"), "{md}");
        // arbor's profiles share one table, with the change against the first
        assert!(md.contains("Own counters: arbor:stock, arbor:default\n\n| counter | arbor:stock | arbor:default |"), "{md}");
        assert!(
            md.contains("| c:wakeups | 100.0 ± 0.000 | 150.0 ± 0.000 (Δ+50.0%) |"),
            "{md}"
        );
        // the peer gets its own, without arbor's columns
        assert!(md.contains("Own counters: lavd\n\n| counter | lavd |\n|---|---|\n| c:nr_sched | 42.0 ± 0.000 |"), "{md}");
    }

    #[test]
    fn mean_stdev_and_signed_change() {
        let rows = vec![
            row(1, "eevdf", "hb", "time_s", 10.0),
            row(2, "eevdf", "hb", "time_s", 12.0),
            row(1, "arbor", "hb", "time_s", 8.0),
            row(2, "arbor", "hb", "time_s", 10.0),
            row(1, "eevdf", "sb", "eps", 100.0),
            row(1, "arbor", "sb", "eps", 110.0),
            row(1, "arbor", "sb", "ejected", 1.0),
            row(1, "lavd", "sb", "eps", f64::NAN),
        ];
        let s = names(&["eevdf", "arbor", "lavd"]);
        let w = vec![
            ("hb".to_string(), "time_s".to_string()),
            ("sb".to_string(), "eps".to_string()),
        ];
        let r = Report::build(&rows, &s, &w);
        let c = &r.cells[&("hb".into(), "time_s".into(), "arbor".into())];
        assert_eq!(c.n, 2);
        assert!((c.mean - 9.0).abs() < 1e-9);
        assert!((c.stdev - 2f64.sqrt()).abs() < 1e-9);
        assert!((c.change_pct.unwrap() + 18.1818).abs() < 1e-3);
        let md = r.markdown();
        // lower time is better: -18.2% change is printed as +18.2% (better)
        assert!(md.contains("9.000 ± 1.414 (+18.2%)"), "{md}");
        // higher eps is better: +10% stays +10%, and the ejection is marked
        assert!(md.contains("110.0 ± 0.000 (+10.0%) **ejected ×1**"), "{md}");
        // a scheduler whose runs all failed says so
        assert!(md.contains("| failed |"), "{md}");
        let csv = Report::csv(&rows);
        assert!(csv.lines().nth(1).unwrap() == "1,\"eevdf\",\"hb\",\"time_s\",10");
        let j: serde_json::Value =
            serde_json::from_str(&r.json(&rows, &serde_json::json!({})).unwrap()).unwrap();
        assert_eq!(j["raw"].as_array().unwrap().len(), rows.len());
    }
}
