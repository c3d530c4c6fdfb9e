//! The decision rule: one rule for every cell and metric. The candidate's
//! relative difference against another scheduler, with Welch's 95%
//! interval (crate::ci, df rounded down), signed so that + is better for
//! the candidate, is called
//! - better: the interval's lower bound is above 0;
//! - not worse: the lower bound is above -MARGIN% (non-inferiority);
//! - worse: the upper bound is below -MARGIN%;
//! - tie: both sides gave one and the same value in every run (bucketed
//!   percentiles, deterministic workloads), or run k of both sides (the
//!   same seed) gave the same value for every k: no interval to draw;
//! - undecided: anything else, and fewer than 2 runs on a side. An
//!   undecided cell gets more runs (run.rs) and never counts as a pass.

use serde::{Deserialize, Serialize};

use crate::ci::change_ci_of;
use crate::report::nan_as_null;

/// The non-inferiority margin, in % of the other scheduler's mean, the
/// same for every metric.
pub const MARGIN: f64 = 3.0;

/// The rule in words, for --help's readers, the report and results.json.
pub const RULE: &str = "Per cell (machine x workload, on the workload's primary metric): \
Welch's 95% interval of the candidate's relative difference against the best peer (the \
peer with the best mean; a peer ejected or refused in any run of the cell is not eligible) \
and, separately, against the baseline, + = the candidate better. better: the lower bound \
is above 0; not worse: the lower bound is above -3%; worse: the upper bound is below -3%; \
tie: every run of both sides gave the same value, or run k of both sides (seed + k) gave \
the same value for every k; otherwise undecided (and with fewer \
than 2 runs a side): the cell gets more runs in batches up to --max-reps, and is reported \
undecided if still so. Better, not worse and tie pass; undecided never does. A candidate \
ejected or refused in any run of a cell is worse there.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Call {
    Better,
    NotWorse,
    Tie,
    Worse,
    Undecided,
}

impl Call {
    pub fn decided(self) -> bool {
        self != Call::Undecided
    }
    pub fn text(self) -> &'static str {
        match self {
            Call::Better => "better",
            Call::NotWorse => "not worse",
            Call::Tie => "tie",
            Call::Worse => "WORSE",
            Call::Undecided => "undecided",
        }
    }
}

/// The candidate against one other scheduler: the relative difference of
/// the means in % (+ = the candidate better), its 95% interval, the call,
/// and why when the call is not the interval's (an ejection, too few runs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Compare {
    #[serde(with = "nan_as_null")]
    pub pct: f64,
    #[serde(with = "nan_as_null")]
    pub lo: f64,
    #[serde(with = "nan_as_null")]
    pub hi: f64,
    pub call: Call,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl Compare {
    /// A tie: no difference, no interval to draw.
    pub fn tie() -> Compare {
        Compare {
            pct: 0.0,
            lo: 0.0,
            hi: 0.0,
            call: Call::Tie,
            why: None,
        }
    }

    /// A call without an interval, and why.
    pub fn because(call: Call, why: impl Into<String>) -> Compare {
        Compare {
            pct: f64::NAN,
            lo: f64::NAN,
            hi: f64::NAN,
            call,
            why: Some(why.into()),
        }
    }
}

/// The call of an interval (lo, hi) of the candidate's difference in %.
pub fn call_of(lo: f64, hi: f64) -> Call {
    if lo > 0.0 {
        Call::Better
    } else if lo > -MARGIN {
        Call::NotWorse
    } else if hi < -MARGIN {
        Call::Worse
    } else {
        Call::Undecided
    }
}

/// The candidate's (mean, sample sd, runs) against the other's, on a
/// metric where `higher_is_better` says which way is better.
pub fn compare(
    cand: (f64, f64, usize),
    other: (f64, f64, usize),
    higher_is_better: bool,
) -> Compare {
    if cand.2 < 2 || other.2 < 2 {
        return Compare::because(Call::Undecided, "fewer than 2 runs a side");
    }
    if cand.1 == 0.0 && other.1 == 0.0 && cand.0 == other.0 {
        return Compare::tie();
    }
    let Some((c, lo, hi)) = change_ci_of(other, cand) else {
        return Compare::because(Call::Undecided, "no relative difference (a mean of 0)");
    };
    let (pct, lo, hi) = if higher_is_better {
        (c, lo, hi)
    } else {
        (-c, -hi, -lo)
    };
    Compare {
        pct,
        lo,
        hi,
        call: call_of(lo, hi),
        why: None,
    }
}

/// A side's text: "+1.2% [-0.8, +3.1]", or why there is no interval.
pub fn text(c: &Compare) -> String {
    match (&c.why, c.pct.is_finite()) {
        (_, true) => format!("{:+.1}% [{:+.1}, {:+.1}]", c.pct, c.lo, c.hi),
        (Some(w), false) => w.clone(),
        (None, false) => "n/a".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ci::mean_sd;

    fn st(v: &[f64]) -> (f64, f64, usize) {
        let (m, s) = mean_sd(v);
        (m, s, v.len())
    }

    /// Lower is better here: the candidate's values against the other's.
    fn lower(c: &[f64], o: &[f64]) -> Compare {
        compare(st(c), st(o), false)
    }

    #[test]
    fn constructed_samples_get_each_call() {
        // 10% faster, tight: better
        let b = lower(&[9.0, 9.1, 8.9, 9.0], &[10.0, 10.1, 9.9, 10.0]);
        assert_eq!(b.call, Call::Better, "{b:?}");
        assert!((b.pct - 10.0).abs() < 1e-9 && b.lo > 0.0, "{b:?}");
        // 1% slower, tight: not worse (the interval inside -3%..0)
        let n = lower(&[10.1, 10.11, 10.09, 10.1], &[10.0, 10.01, 9.99, 10.0]);
        assert_eq!(n.call, Call::NotWorse, "{n:?}");
        assert!(n.hi < 0.0 && n.lo > -MARGIN, "{n:?}");
        // 10% slower, tight: worse
        let w = lower(&[11.0, 11.1, 10.9], &[10.0, 10.1, 9.9]);
        assert_eq!(w.call, Call::Worse, "{w:?}");
        assert!(w.hi < -MARGIN, "{w:?}");
        // 1% slower, noisy: the interval straddles -3%
        let u = lower(&[9.0, 11.2, 10.1], &[10.0, 9.0, 11.0]);
        assert_eq!(u.call, Call::Undecided, "{u:?}");
        assert!(u.lo < -MARGIN && u.hi > -MARGIN, "{u:?}");
        // identical values on both sides: a tie, not an interval
        let t = lower(&[42.0, 42.0, 42.0], &[42.0, 42.0]);
        assert_eq!((t.call, t.pct), (Call::Tie, 0.0), "{t:?}");
        // deterministic but different: a zero-width interval decides
        let d = lower(&[10.01, 10.01], &[10.0, 10.0]);
        assert_eq!(d.call, Call::NotWorse, "{d:?}");
        let d = lower(&[11.0, 11.0], &[10.0, 10.0]);
        assert_eq!(d.call, Call::Worse, "{d:?}");
        // one run a side: nothing is decided, however far apart
        for (c, o) in [(&[1.0][..], &[10.0, 10.0][..]), (&[1.0, 1.0], &[10.0])] {
            let x = lower(c, o);
            assert_eq!(x.call, Call::Undecided, "{x:?}");
            assert!(x.why.as_deref().unwrap().contains("fewer than 2"), "{x:?}");
        }
    }

    #[test]
    fn higher_is_better_flips_the_sign_and_the_margin_is_relative() {
        // throughput 5% up: better; 5% down: worse
        let up = compare(st(&[105.0, 105.5, 104.5]), st(&[100.0, 100.5, 99.5]), true);
        assert_eq!(up.call, Call::Better);
        assert!((up.pct - 5.0).abs() < 1e-9);
        let down = compare(st(&[95.0, 95.5, 94.5]), st(&[100.0, 100.5, 99.5]), true);
        assert_eq!(down.call, Call::Worse);
        // the same interval at any scale
        let small = compare(
            st(&[0.0099, 0.00991, 0.00989]),
            st(&[0.01, 0.01001, 0.00999]),
            true,
        );
        assert_eq!(small.call, Call::NotWorse, "{small:?}");
        assert_eq!(call_of(-2.99, 5.0), Call::NotWorse);
        assert_eq!(call_of(-3.0, 5.0), Call::Undecided);
        assert_eq!(call_of(-9.0, -3.01), Call::Worse);
    }
}
