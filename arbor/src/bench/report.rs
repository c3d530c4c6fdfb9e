//! `arbor bench` (and `arbor sim`) results: the typed rows a run produced,
//! aggregated per (workload, metric, scheduler) into mean, stdev and the
//! change against the first scheduler with its 95% confidence interval,
//! written as markdown (the seeds' layout), CSV and results.json, which
//! `render` reads back with the same types.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::metric::{Kind, MetricInfo};
use crate::ci::{change_ci, detectable_pct, mean_sd};

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

mod nan_as_null {
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
}

impl Cell {
    /// The interval excludes zero.
    pub fn significant(&self) -> Option<bool> {
        self.ci_pct.map(|(lo, hi)| lo > 0.0 || hi < 0.0)
    }
}

/// Where a run happened and what it ran: the report's header.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Meta {
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub commit: String,
    /// "QEMU TCG single-threaded guest ..." or the host's model, kernel, CPUs
    #[serde(default)]
    pub platform: String,
    #[serde(default)]
    pub topology: String,
    #[serde(default)]
    pub reps: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaling: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arbor_bin: Option<String>,
    /// the run stopped before its plan was done: these are the cells it finished
    #[serde(default)]
    pub partial: bool,
    /// anything a caller adds (the simulator's machine and cost model)
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
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

/// Where an own metric's row goes: scx_arbor's counters in their intf.h
/// order (stats::NAMES, as `--list-counters` prints them), then a peer's
/// counters by name, then the BPF op costs.
fn own_order(m: &str) -> (u8, usize, &str) {
    match m.strip_prefix("c:") {
        Some(n) => match scx_arbor::stats::NAMES.iter().position(|x| *x == n) {
            Some(i) => (0, i, m),
            None => (1, 0, m),
        },
        None => (2, 0, m),
    }
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
        let Some(c) = self.cells.get(&(w.into(), m.into(), s.into())) else {
            return "–".into();
        };
        let info = self.info(m);
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
            if info.kind == Kind::Performance {
                // the seeds' sign: + means better; the interval signed the same way
                let sign = if info.higher_is_better { 1.0 } else { -1.0 };
                let _ = write!(t, " ({:+.1}%", sign * p);
                if let Some((lo, hi)) = c.ci_pct {
                    let half = (hi - lo) / 2.0;
                    let _ = write!(t, " ±{half:.1}");
                    if c.significant() == Some(false) {
                        t.push_str(" ~");
                    }
                }
                t.push(')');
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

    /// A table's header: the leading columns, then one per scheduler.
    fn header(o: &mut String, lead: &[&str], scheds: &[&str]) {
        let cols: Vec<&str> = lead.iter().chain(scheds.iter()).copied().collect();
        let _ = writeln!(o, "| {} |", cols.join(" | "));
        let _ = writeln!(o, "|{}", "---|".repeat(cols.len()));
    }

    fn is_own(&self, m: &str) -> bool {
        self.info(m).kind == Kind::Counter
    }

    /// Schedulers grouped by the set of own metrics (counters, BPF ops) they
    /// reported for workload `w`: one family per scheduler binary, so that
    /// arbor's profiles share a table and each peer gets its own.
    fn families<'a>(&'a self, w: &str, ms: &'a [String]) -> Vec<(Vec<&'a str>, Vec<&'a str>)> {
        let mut fams: Vec<(Vec<&str>, Vec<&str>)> = Vec::new();
        for s in &self.scheds {
            let mut mine: Vec<&str> = ms
                .iter()
                .filter(|m| {
                    self.is_own(m)
                        && self
                            .cells
                            .contains_key(&(w.into(), (*m).clone(), s.clone()))
                })
                .map(|m| m.as_str())
                .collect();
            if mine.is_empty() {
                continue;
            }
            mine.sort_by_key(|m| own_order(m));
            match fams.iter_mut().find(|f| f.0 == mine) {
                Some(f) => f.1.push(s),
                None => fams.push((mine, vec![s])),
            }
        }
        fams
    }

    /// How many of the headline changes are significant, and the smallest
    /// change each workload's spread lets the run show.
    fn significance(&self) -> String {
        let mut o = String::new();
        let (mut sig, mut judged) = (0, 0);
        for e in &self.workloads {
            for s in self.scheds.iter().skip(1) {
                if let Some(b) = self
                    .cells
                    .get(&(e.workload.clone(), e.primary.clone(), s.clone()))
                    .and_then(|c| c.significant())
                {
                    judged += 1;
                    sig += b as usize;
                }
            }
        }
        let _ = writeln!(
            o,
            "**{sig} of {judged} changes in this table are significant** (their 95% interval excludes zero); `~` marks the others. A change without an interval had fewer than 2 runs on one side.\n"
        );
        let mut lines = Vec::new();
        for e in &self.workloads {
            // the median coefficient of variation of its cells, and their runs
            let mut cvs: Vec<f64> = Vec::new();
            let mut n = usize::MAX;
            for s in &self.scheds {
                if let Some(c) = self
                    .cells
                    .get(&(e.workload.clone(), e.primary.clone(), s.clone()))
                {
                    if c.n > 0 && c.mean != 0.0 && c.mean.is_finite() {
                        cvs.push(c.stdev / c.mean.abs());
                        n = n.min(c.n);
                    }
                }
            }
            if cvs.is_empty() {
                continue;
            }
            cvs.sort_by(f64::total_cmp);
            let cv = cvs[cvs.len() / 2];
            let line = match detectable_pct(cv, n) {
                Some(d) if d <= 10.0 => format!(
                    "`{}`: spread {:.1}%, {n} runs: changes from {d:.1}% can show; a 10% change can.",
                    e.workload,
                    100.0 * cv
                ),
                Some(d) => {
                    // runs per side for 10%: n with t(2(n-1)) sqrt(2/n) cv <= 10%
                    let need = (2..=1000)
                        .find(|&k| detectable_pct(cv, k).is_some_and(|x| x <= 10.0))
                        .map(|k| format!("about {k}"))
                        .unwrap_or_else(|| "more than 1000".into());
                    format!(
                        "`{}`: spread {:.1}%, {n} runs: **a 10% change cannot be told from noise** (only changes from {d:.1}% can); {need} runs would be needed.",
                        e.workload,
                        100.0 * cv
                    )
                }
                None => format!(
                    "`{}`: {n} run: no spread, so no change can be judged.",
                    e.workload
                ),
            };
            lines.push(line);
        }
        if !lines.is_empty() {
            o.push_str("What this run can resolve (two-sided 95%, Welch, the median spread of the workload's cells):\n\n");
            for l in lines {
                let _ = writeln!(o, "- {l}");
            }
        }
        o
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
            "Mean ± stdev over the runs; in brackets the change against `{first}`, signed so that **+ is better** (as in the seeds' tables), ± the half-width of its 95% confidence interval (Welch).\n"
        );
        Self::header(&mut o, &["workload", "metric"], &all);
        for e in &self.workloads {
            let info = self.info(&e.primary);
            let dir = if info.higher_is_better {
                "higher"
            } else {
                "lower"
            };
            let _ = write!(
                o,
                "| `{}` | {} ({}, {dir} better) |",
                e.workload, e.primary, info.unit
            );
            for s in &self.scheds {
                let _ = write!(o, " {} |", self.cell_text(&e.workload, &e.primary, s));
            }
            o.push('\n');
        }
        o.push('\n');
        o.push_str(&self.significance());
        o.push_str("\n### Per workload: every metric\n\nWorkload results are signed + = better; system figures and counters show the plain change (Δ).\n");
        o.push_str("busy_pct: CPU busy %; ctxsw_per_s: context switches/s; migr_per_s: task migrations/s, system-wide, and by distance: migr_smt_per_s within a core, migr_llc_per_s within an LLC, migr_xllc_per_s across LLCs of a node, migr_xnode_per_s across nodes (the sched_migrate_task tracepoint). ");
        o.push_str("Below each workload's table, each scheduler's own counters over the run (c:NAME, from its scx_stats server, the interval covering the run), with the change against the family's first column; under `(all)`, bpf:OP is ns per call of the scheduler's BPF op over the whole load.\n");
        let mut ws: Vec<&str> = self.workloads.iter().map(|e| e.workload.as_str()).collect();
        if self.metrics.contains_key("(all)") {
            ws.push("(all)"); // per-load numbers: BPF ns per op call
        }
        for w in ws {
            let ms: &[String] = self.metrics.get(w).map(|v| v.as_slice()).unwrap_or(&[]);
            let _ = write!(o, "\n#### `{w}`\n");
            let common: Vec<&String> = ms.iter().filter(|m| !self.is_own(m)).collect();
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

impl Results {
    pub fn read(path: &std::path::Path) -> Result<Results> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not an arbor results file", path.display()))
    }
}

/// % change of `mean` against `base`; none when either is not a number or
/// the base is zero.
fn pct_change(mean: f64, base: f64) -> Option<f64> {
    (base.is_finite() && base != 0.0 && mean.is_finite()).then(|| (mean - base) / base * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::metric;

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
