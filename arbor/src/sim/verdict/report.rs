//! The verdict's tables and counts: one row per cell, grouped by machine,
//! and the counts per machine and overall.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::rule::{self, Call, Compare};
use super::{Cell, Side, Verdict};

/// Python's `{:.4g}`: 4 significant digits, trailing zeros dropped,
/// scientific below 1e-4 and from 1e4.
pub fn g4(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    let sci = format!("{x:.3e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..4).contains(&exp) {
        trim(format!("{x:.*}", (3 - exp) as usize))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mant.to_string()), exp.abs())
    }
}

/// A profile's name without "arbor:".
pub fn short(s: &str) -> &str {
    s.strip_prefix("arbor:").unwrap_or(s)
}

/// "cosmos 12.3 (n=5)" (without the name: "12.3 (n=5)"), with the runs
/// that failed.
fn side_text(s: Option<&Side>, named: bool) -> String {
    match s {
        None => "none".into(),
        Some(s) => {
            let name = if named {
                format!("{} ", short(&s.scheduler))
            } else {
                String::new()
            };
            let mut t = format!("{name}{} (n={})", g4(s.mean), s.n);
            if s.failed > 0 {
                let _ = write!(t, ", failed {} of {}", s.failed, s.runs);
            }
            t
        }
    }
}

fn call_text(c: &Compare) -> String {
    format!("{}: {}", c.call.text(), rule::text(c))
}

/// The five calls' counts.
#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Calls {
    pub better: usize,
    pub not_worse: usize,
    pub tie: usize,
    pub worse: usize,
    pub undecided: usize,
}

impl Calls {
    pub fn add(&mut self, c: Call) {
        *match c {
            Call::Better => &mut self.better,
            Call::NotWorse => &mut self.not_worse,
            Call::Tie => &mut self.tie,
            Call::Worse => &mut self.worse,
            Call::Undecided => &mut self.undecided,
        } += 1;
    }
    pub fn passed(&self) -> usize {
        self.better + self.not_worse + self.tie
    }
    pub fn decided(&self) -> usize {
        self.passed() + self.worse
    }
    pub fn total(&self) -> usize {
        self.decided() + self.undecided
    }
    /// % of the decided cells that pass (0 without any).
    pub fn pass_pct(&self) -> f64 {
        pct(self.passed(), self.decided())
    }
    pub fn undecided_pct(&self) -> f64 {
        pct(self.undecided, self.total())
    }
    fn text(&self) -> String {
        format!(
            "{} of {} decided cells pass ({:.0}%: {} better, {} not worse, {} tie), {} worse; {} of {} undecided ({:.0}%)",
            self.passed(),
            self.decided(),
            self.pass_pct(),
            self.better,
            self.not_worse,
            self.tie,
            self.worse,
            self.undecided,
            self.total(),
            self.undecided_pct()
        )
    }
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

/// The counts against the best peer and against the baseline.
#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    pub vs_peer: Calls,
    pub vs_baseline: Calls,
}

impl Counts {
    pub fn of<'a>(cells: impl IntoIterator<Item = &'a Cell>) -> Counts {
        let mut c = Counts::default();
        for x in cells {
            c.vs_peer.add(x.vs_peer.call);
            c.vs_baseline.add(x.vs_baseline.call);
        }
        c
    }

    /// Two lines: against the best peer, against the baseline.
    pub fn text(&self, baseline: &str) -> String {
        format!(
            "vs best peer: {}\nvs {baseline}: {}",
            self.vs_peer.text(),
            self.vs_baseline.text()
        )
    }
}

impl Verdict {
    /// The cells' table; with `machines`, a column naming each cell's.
    pub fn table_of(&self, cells: &[&Cell], machines: bool) -> String {
        let (c, b) = (short(&self.candidate), short(&self.baseline));
        let m = if machines { "machine | " } else { "" };
        let sep = if machines { "---|" } else { "" };
        let mut o = format!(
            "| {m}workload | metric | {c} | best peer | {c} vs best peer [95%] | {b} | {c} vs {b} [95%] | runs |\n|{sep}---|---|---|---|---|---|---|---|\n"
        );
        for x in cells {
            let runs = x.candidate.runs;
            let _ = writeln!(
                o,
                "| {}{} | {} | {} | {}{} | {} | {} | {} | {} |",
                if machines {
                    format!("{} | ", x.machine)
                } else {
                    String::new()
                },
                x.workload,
                x.metric,
                side_text(Some(&x.candidate), false),
                side_text(x.best_peer.as_ref(), true),
                if x.ineligible.is_empty() {
                    String::new()
                } else {
                    format!(" ({} not eligible)", x.ineligible.join(", "))
                },
                call_text(&x.vs_peer),
                side_text(x.baseline.as_ref(), false),
                call_text(&x.vs_baseline),
                runs
            );
        }
        o
    }

    /// Every cell in one table (with a machine column when there are
    /// several), then the counts per machine and over all.
    pub fn text(&self) -> String {
        let mut machines: Vec<&str> = Vec::new();
        for c in &self.cells {
            if !machines.contains(&c.machine.as_str()) {
                machines.push(&c.machine);
            }
        }
        let all: Vec<&Cell> = self.cells.iter().collect();
        let mut o = format!("\n{}\n", self.table_of(&all, machines.len() > 1));
        for m in &machines {
            let cells = self.cells.iter().filter(|c| c.machine == *m);
            let _ = writeln!(
                o,
                "{m}: {}",
                Counts::of(cells).text(&self.baseline).replace('\n', "; ")
            );
        }
        let _ = writeln!(
            o,
            "\nOverall, {} cells on {} machine(s):\n{}",
            self.cells.len(),
            machines.len(),
            self.counts().text(&self.baseline)
        );
        o
    }

    pub fn counts(&self) -> Counts {
        Counts::of(&self.cells)
    }

    /// The table of every cell (one machine's run: no machine column).
    pub fn table(&self) -> String {
        let cells: Vec<&Cell> = self.cells.iter().collect();
        self.table_of(&cells, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g4_is_pythons_4g() {
        for (x, s) in [
            (0.014781, "0.01478"),
            (108_234.0, "1.082e+05"),
            (0.00254, "0.00254"),
            (120.24, "120.2"),
            (4.2806, "4.281"),
            (9.0, "9"),
            (1234.5, "1234"),
            (12345.0, "1.234e+04"),
            (0.0001234, "0.0001234"),
            (0.00001234, "1.234e-05"),
            (-0.5, "-0.5"),
            (0.0, "0"),
        ] {
            assert_eq!(g4(x), s, "{x}");
        }
    }

    #[test]
    fn calls_count_and_pass_only_when_decided() {
        let mut c = Calls::default();
        for x in [
            Call::Better,
            Call::NotWorse,
            Call::Tie,
            Call::Worse,
            Call::Undecided,
            Call::Undecided,
        ] {
            c.add(x);
        }
        assert_eq!((c.passed(), c.decided(), c.total()), (3, 4, 6));
        assert_eq!(c.pass_pct(), 75.0);
        assert_eq!(
            c.text(),
            "3 of 4 decided cells pass (75%: 1 better, 1 not worse, 1 tie), 1 worse; 2 of 6 undecided (33%)"
        );
    }
}
