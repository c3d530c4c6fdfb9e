//! `arbor sim reproduce SEED --sensitivity`: when does the seed's effect
//! hold? For the headline cell (the first machine's, as --explain picks
//! it), each cost-model parameter that the explanation names (one of the
//! counters it acts through differs with the mechanism on; params.rs) is
//! moved across its documented range, one at a time with the others at
//! their defaults, and the three most strongly named in pairs at the
//! range's ends; every value is a cell decided by the verdict's rule like
//! any other. The report says which parameters flip the effect's
//! direction and between which values. The defaults stay as cited: this
//! reports where the answer changes, it does not pick a value.

use std::fmt::Write as _;

use anyhow::Result;
use arbor_sim::cost::CostModel;
use serde::Serialize;

use super::cell::Decided;
use super::effect::{until_decided, Mach, Runs, Want};
use super::explain::{self, Explained};
use super::params::{self, Param, PARAMS};
use crate::sim::verdict::{compare_text, Call, Compare};

/// Points of each range (the default is added to them).
const POINTS: usize = 5;
/// A parameter is named when one of its counters moves by this share.
const NAMED_REL: f64 = 0.05;
/// How many of the named parameters are also varied in pairs.
const PAIRED: usize = 3;

#[derive(Debug, Serialize)]
pub struct Point {
    pub value: f64,
    pub default: bool,
    pub effect: Compare,
    pub runs: usize,
}

#[derive(Debug, Serialize)]
pub struct Varied {
    pub name: &'static str,
    pub unit: &'static str,
    pub default: f64,
    pub lo: f64,
    pub hi: f64,
    pub source: &'static str,
    /// the largest relative change, off to on, of the counters it acts on
    pub named_by: (String, f64),
    pub points: Vec<Point>,
    /// where the call changes, in words
    pub flips: Vec<String>,
    /// single values whose call differs from both neighbours' (which
    /// agree): the interval crossing the margin, not a change
    pub wobbles: Vec<String>,
    /// every value gave the default's effect to the last digit: the cell's
    /// runs do not depend on it
    pub inert: bool,
}

#[derive(Debug, Serialize)]
pub struct Corner {
    pub a: (&'static str, f64),
    pub b: (&'static str, f64),
    pub effect: Compare,
    pub runs: usize,
}

#[derive(Debug, Serialize)]
pub struct Sensitivity {
    pub machine: String,
    pub workload: String,
    pub metric: String,
    pub at_defaults: Compare,
    pub varied: Vec<Varied>,
    pub pairs: Vec<Corner>,
    /// parameters no counter of the explanation names, with their largest
    /// relative change
    pub not_named: Vec<(&'static str, f64)>,
    /// parameters that cannot act on this machine, and why
    pub not_applicable: Vec<(&'static str, &'static str)>,
}

/// The direction a call gives: gain, loss, neither, or not known.
fn class(c: Call) -> Option<i8> {
    match c {
        Call::Better => Some(1),
        Call::Worse => Some(-1),
        Call::NotWorse | Call::Tie => Some(0),
        Call::Undecided => None,
    }
}

/// Where the decided calls change along increasing values, in words, and
/// the wobbles: a single value whose call differs from its two
/// neighbours', which agree, is the interval crossing the margin, not a
/// change of direction; it is named apart and left out of the changes.
fn flips(name: &str, p: &Param, points: &[Point]) -> (Vec<String>, Vec<String>) {
    let all: Vec<(&Point, i8)> = points
        .iter()
        .filter_map(|q| class(q.effect.call).map(|k| (q, k)))
        .collect();
    // from the left, so that in an alternation only every other value is one
    let mut lone = vec![false; all.len()];
    for i in 1..all.len().saturating_sub(1) {
        lone[i] = !lone[i - 1] && all[i - 1].1 == all[i + 1].1 && all[i].1 != all[i - 1].1;
    }
    let (mut out, mut wobbles) = (Vec::new(), Vec::new());
    for i in (0..all.len()).filter(|&i| lone[i]) {
        wobbles.push(format!(
            "{} at {} only, {} on both sides: a wobble of the interval, not a change",
            all[i].0.effect.call.text(),
            params::show(p, all[i].0.value),
            all[i - 1].0.effect.call.text()
        ));
    }
    let known: Vec<(&Point, i8)> = (0..all.len())
        .filter(|&i| !lone[i])
        .map(|i| all[i])
        .collect();
    for w in known.windows(2) {
        let ((a, ka), (b, kb)) = (w[0], w[1]);
        let what = match (ka, kb) {
            (x, y) if x == y => continue,
            (-1, 1) => "the loss turns into a gain",
            (1, -1) => "the gain turns into a loss",
            (-1, _) => "the loss disappears",
            (_, 1) => "the gain appears",
            (1, _) => "the gain disappears",
            _ => "the loss appears",
        };
        out.push(format!(
            "{what} when {name} exceeds a value in ({}, {}] ({} at {}, {} at {})",
            params::show(p, a.value),
            params::show(p, b.value),
            a.effect.call.text(),
            params::show(p, a.value),
            b.effect.call.text(),
            params::show(p, b.value),
        ));
    }
    (out, wobbles)
}

/// The largest relative change, off to on, of the quantities in the
/// first headline cell's column, and which quantity it was.
fn strength(p: &Param, e: &Explained) -> (String, f64) {
    let mut best = (String::new(), 0.0);
    for q in p.acts_on {
        if let Some(r) = e.rows.iter().find(|r| r.quantity == *q) {
            let (a, b) = (r.off[0], r.on[0]);
            let (a, b) = (
                if a.is_finite() { a } else { 0.0 },
                if b.is_finite() { b } else { 0.0 },
            );
            let m = a.abs().max(b.abs());
            let rel = if m > 0.0 { (a - b).abs() / m } else { 0.0 };
            if rel > best.1 {
                best = (r.what.clone(), rel);
            }
        }
    }
    best
}

/// effect.rs's --sensitivity pass: the headline cell over the named
/// parameters' ranges, as a report section and as JSON.
pub(super) fn pass(
    machs: &[Mach],
    want: &[Want],
    decided: &[Decided],
    e: &Explained,
    reps: u32,
    max_reps: u32,
    mech: &str,
) -> Result<(String, serde_json::Value)> {
    let s = run(machs, want, decided, e, reps, max_reps)?;
    Ok((markdown(&s, mech), serde_json::to_value(&s)?))
}

fn run(
    machs: &[Mach],
    want: &[Want],
    decided: &[Decided],
    e: &Explained,
    reps: u32,
    max_reps: u32,
) -> Result<Sensitivity> {
    let c = explain::headline(decided)[0];
    let (w, d) = (&want[c], &decided[c]);
    let m = &machs[w.machine];
    let cost = CostModel::default();
    let mut named: Vec<(&'static Param, (String, f64))> = Vec::new();
    let mut not_named = Vec::new();
    let mut not_applicable = Vec::new();
    for p in PARAMS {
        if let Err(why) = params::applies(p, &m.machine) {
            not_applicable.push((p.name, why));
            continue;
        }
        let s = strength(p, e);
        if s.1 >= NAMED_REL {
            named.push((p, s));
        } else {
            not_named.push((p.name, s.1));
        }
    }
    named.sort_by(|a, b| b.1 .1.total_cmp(&a.1 .1));
    // every value of every named parameter, then the pairs' corners: a
    // cell each on the headline cell's machine with the value's argument
    let mut vm: Vec<Mach> = Vec::new();
    let mut vw: Vec<Want> = Vec::new();
    let mut add = |extra: Vec<String>| {
        let mut x = m.clone();
        x.args.extend(extra);
        vm.push(x);
        vw.push(Want {
            machine: vm.len() - 1,
            ..w.clone()
        });
        vw.len() - 1
    };
    let mut grids: Vec<Vec<(f64, Option<usize>)>> = Vec::new();
    for (p, _) in &named {
        let def = params::value(p, &m.machine, &cost);
        grids.push(
            params::grid(p, def, POINTS)
                .into_iter()
                .map(|v| (v, (v != def).then(|| add(params::args(p, v).to_vec()))))
                .collect(),
        );
    }
    let mut corners = Vec::new();
    let top = named.len().min(PAIRED);
    for i in 0..top {
        for j in i + 1..top {
            let (pa, pb) = (named[i].0, named[j].0);
            let ends = |p: &Param| {
                let def = params::value(p, &m.machine, &cost);
                [p.lo.min(def), p.hi.max(def)]
            };
            for va in ends(pa) {
                for vb in ends(pb) {
                    let mut a = params::args(pa, va).to_vec();
                    a.extend(params::args(pb, vb));
                    corners.push(((pa.name, va), (pb.name, vb), add(a)));
                }
            }
        }
    }
    eprintln!(
        "arbor sim reproduce --sensitivity: {} parameter(s) named on {} {}, {} cell(s)",
        named.len(),
        m.name,
        w.workload,
        vw.len()
    );
    let (got, _runs): (Vec<Decided>, Vec<Runs>) = if vw.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        until_decided(&vm, &vw, reps, max_reps)?
    };
    let runs_of = |x: &Decided| x.off.runs.min(x.on.runs);
    let varied = named
        .iter()
        .zip(&grids)
        .map(|((p, s), g)| {
            let def = params::value(p, &m.machine, &cost);
            let points: Vec<Point> = g
                .iter()
                .map(|(v, cell)| {
                    let x = cell.map_or(d, |i| &got[i]);
                    Point {
                        value: *v,
                        default: cell.is_none(),
                        effect: x.effect.clone(),
                        runs: runs_of(x),
                    }
                })
                .collect();
            let f = flips(p.name, p, &points);
            Varied {
                name: p.name,
                unit: p.unit,
                default: def,
                lo: p.lo,
                hi: p.hi,
                source: p.source,
                named_by: s.clone(),
                flips: f.0,
                wobbles: f.1,
                inert: points.iter().all(|q| q.effect.pct == d.effect.pct),
                points,
            }
        })
        .collect();
    let pairs = corners
        .into_iter()
        .map(|(a, b, i)| Corner {
            a,
            b,
            effect: got[i].effect.clone(),
            runs: runs_of(&got[i]),
        })
        .collect();
    Ok(Sensitivity {
        machine: d.machine.clone(),
        workload: d.workload.clone(),
        metric: d.metric.clone(),
        at_defaults: d.effect.clone(),
        varied,
        pairs,
        not_named,
        not_applicable,
    })
}

fn markdown(s: &Sensitivity, mech: &str) -> String {
    let mut md = format!(
        "## When the effect of {mech} holds (--sensitivity)\n\nCell: {} {} ({}); at the cost model's defaults: {} ({}). Each parameter that --explain names (a counter it acts through moves by {:.0}% or more with {mech} on) takes {POINTS} values across its documented range (docs/sim/cost-model.md, \"Ranges\") and its default, one at a time, the others at their defaults; each value is a cell decided by the same rule. The defaults stay as cited.\n\n",
        s.machine,
        s.workload,
        s.metric,
        compare_text(&s.at_defaults),
        s.at_defaults.call.text(),
        NAMED_REL * 100.0,
    );
    if s.varied.is_empty() {
        md.push_str(
            "No parameter is named: no counter that a cost-model parameter acts through moved.\n\n",
        );
    } else {
        md.push_str("| parameter | named by | value | effect [95%] | verdict | runs |\n|---|---|---|---|---|---|\n");
        for v in &s.varied {
            let p = params::find(v.name).expect("a listed parameter");
            if v.inert {
                let (a, b) = (&v.points[0], &v.points[v.points.len() - 1]);
                let _ = writeln!(
                    md,
                    "| `{}` | {} ({:+.0}%) | {} to {} | as at the default at every value | - | {} |",
                    v.name,
                    v.named_by.0,
                    v.named_by.1 * 100.0,
                    params::show(p, a.value),
                    params::show(p, b.value),
                    a.runs
                );
                continue;
            }
            for (i, q) in v.points.iter().enumerate() {
                let _ = writeln!(
                    md,
                    "| {} | {} | {}{} | {} | {} | {} |",
                    if i == 0 {
                        format!("`{}`", v.name)
                    } else {
                        String::new()
                    },
                    if i == 0 {
                        format!("{} ({:+.0}%)", v.named_by.0, v.named_by.1 * 100.0)
                    } else {
                        String::new()
                    },
                    params::show(p, q.value),
                    if q.default { " (default)" } else { "" },
                    compare_text(&q.effect),
                    q.effect.call.text(),
                    q.runs
                );
            }
        }
        let all: Vec<String> = s
            .varied
            .iter()
            .flat_map(|v| v.flips.iter().map(|f| format!("- `{}`: {f}", v.name)))
            .collect();
        if all.is_empty() {
            let _ = writeln!(
                md,
                "\n**No parameter flips the call across its range**: {} stays {} wherever it is decided.\n",
                mech,
                s.at_defaults.call.text()
            );
        } else {
            let _ = writeln!(md, "\n**Where the call changes**:\n\n{}\n", all.join("\n"));
        }
        let wob: Vec<String> = s
            .varied
            .iter()
            .flat_map(|v| v.wobbles.iter().map(|f| format!("- `{}`: {f}", v.name)))
            .collect();
        if !wob.is_empty() {
            let _ = writeln!(
                md,
                "Single values decided otherwise than both neighbours (not counted as changes):\n\n{}\n",
                wob.join("\n")
            );
        }
    }
    if !s.pairs.is_empty() {
        md.push_str("Pairs of the most strongly named parameters, at their range's ends:\n\n| parameters | effect [95%] | verdict | runs |\n|---|---|---|---|\n");
        for c in &s.pairs {
            let (pa, pb) = (
                params::find(c.a.0).expect("listed"),
                params::find(c.b.0).expect("listed"),
            );
            let _ = writeln!(
                md,
                "| {}={}, {}={} | {} | {} | {} |",
                c.a.0,
                params::show(pa, c.a.1),
                c.b.0,
                params::show(pb, c.b.1),
                compare_text(&c.effect),
                c.effect.call.text(),
                c.runs
            );
        }
        md.push('\n');
    }
    let mut not = Vec::new();
    if !s.not_named.is_empty() {
        not.push(format!(
            "not named by --explain (its counters moved less than {:.0}%): {}",
            NAMED_REL * 100.0,
            s.not_named
                .iter()
                .map(|n| n.0)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for (n, why) in &s.not_applicable {
        not.push(format!("{n}: {why}"));
    }
    for (n, why) in params::NOT_VARIED {
        not.push(format!("{n}: {why}"));
    }
    let _ = writeln!(md, "Not varied:\n\n- {}\n", not.join("\n- "));
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(value: f64, call: Call) -> Point {
        Point {
            value,
            default: false,
            effect: Compare {
                pct: 0.0,
                lo: 0.0,
                hi: 0.0,
                call,
                why: None,
            },
            runs: 2,
        }
    }

    #[test]
    fn flips_skip_undecided_values_and_name_the_interval() {
        let p = params::find("remote_llc_ns").unwrap();
        let pts = [
            point(30.0, Call::Worse),
            point(50.0, Call::Undecided),
            point(80.0, Call::Worse),
            point(105.0, Call::NotWorse),
            point(150.0, Call::Better),
        ];
        let (f, w) = flips("remote_llc_ns", p, &pts);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(w.is_empty(), "{w:?}");
        assert!(
            f[0].starts_with("the loss disappears when remote_llc_ns exceeds a value in (80, 105]"),
            "{}",
            f[0]
        );
        assert!(
            f[1].starts_with("the gain appears when remote_llc_ns exceeds a value in (105, 150]"),
            "{}",
            f[1]
        );
        let same = [point(1.0, Call::Worse), point(2.0, Call::Worse)];
        assert_eq!(flips("remote_llc_ns", p, &same), (vec![], vec![]));
        // better, not worse, better: one value's interval reached the
        // margin; not two changes
        let wobble = [
            point(1.0, Call::Better),
            point(2.0, Call::NotWorse),
            point(3.0, Call::Better),
            point(4.0, Call::NotWorse),
            point(5.0, Call::NotWorse),
        ];
        let (f, w) = flips("remote_llc_ns", p, &wobble);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("not worse at 2 only, better on both sides"),
            "{}",
            w[0]
        );
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].starts_with("the gain disappears when remote_llc_ns exceeds a value in (3, 4]"),
            "{}",
            f[0]
        );
    }
}
