//! The report's markdown: the headline table (each workload's primary
//! metric per scheduler, the change against the first with its 95%
//! interval), what the run can resolve, then every metric per workload and
//! each scheduler family's own counters.

use std::fmt::Write as _;

use super::metric::Kind;
use super::{pct_change, Report};
use crate::ci::detectable_pct;

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

/// A metric for a table: no decimals from 1000, one from 10, three below;
/// `missing` where there is no finite value.
pub fn num_or(x: f64, missing: &str) -> String {
    if !x.is_finite() {
        missing.into()
    } else if x.abs() >= 1000.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.3}")
    }
}

impl Report {
    fn fmt_num(x: f64) -> String {
        num_or(x, "n/a")
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

    /// "**k of n changes in this table are significant** ...": the
    /// headline table's changes against the first scheduler whose 95%
    /// interval excludes zero.
    pub fn significant_line(&self) -> String {
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
        format!(
            "**{sig} of {judged} changes in this table are significant** (their 95% interval excludes zero); `~` marks the others. A change without an interval had fewer than 2 runs on one side."
        )
    }

    /// How many of the headline changes are significant, and the smallest
    /// change each workload's spread lets the run show.
    fn significance(&self) -> String {
        let mut o = self.significant_line();
        o.push_str("\n\n");
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

    /// The headline table alone: one row per workload (its primary
    /// metric), one column per scheduler.
    pub fn headline(&self) -> String {
        let mut o = String::new();
        let all: Vec<&str> = self.scheds.iter().map(|s| s.as_str()).collect();
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
        o.push_str(&self.headline());
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
}
