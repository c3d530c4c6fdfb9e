//! Random values of scx_arbor's knobs for `arbor sim fuzz`, inside their
//! documented ranges. The ranges are not written again here: each knob's
//! bounds are found by asking the knob table itself (`Knobs::with_overrides`,
//! the parser `scx_arbor` and `arbor sim -s arbor:...:KNOB=V` use) which
//! values it accepts, so a knob added or a range changed is searched as it
//! is documented.

use std::sync::OnceLock;

use clap::{Args, Command};
use scx_arbor::knobs::Knobs;

use super::Rng;

/// A numeric knob: its flag name, default and accepted range.
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    pub name: String,
    pub default: u64,
    pub lo: u64,
    pub hi: u64,
}

/// Every numeric knob with its range, probed once.
pub fn ranges() -> &'static [Range] {
    static R: OnceLock<Vec<Range>> = OnceLock::new();
    R.get_or_init(|| {
        let base = Knobs::defaults();
        let ok = |name: &str, v: &str| {
            base.with_overrides(&[(name.to_string(), v.to_string())])
                .is_ok()
        };
        let cmd = Knobs::augment_args(Command::new("knobs").no_binary_name(true));
        let mut out = Vec::new();
        for a in cmd.get_arguments() {
            let Some(name) = a.get_long() else { continue };
            // numeric knobs only: a list such as --cpu-capacity takes text
            let Some(default) = a
                .get_default_values()
                .first()
                .and_then(|d| d.to_str()?.parse::<u64>().ok())
            else {
                continue;
            };
            if ok(name, "x") || !ok(name, &default.to_string()) {
                continue;
            }
            // the accepted set is an interval around the default: bisect
            // each end
            let lo = if ok(name, "0") {
                0
            } else {
                let (mut bad, mut good) = (0u64, default);
                while good - bad > 1 {
                    let mid = bad + (good - bad) / 2;
                    if ok(name, &mid.to_string()) {
                        good = mid
                    } else {
                        bad = mid
                    }
                }
                good
            };
            const TOP: u64 = 1 << 40;
            let hi = if ok(name, &TOP.to_string()) {
                TOP
            } else {
                let (mut good, mut bad) = (default, TOP);
                while bad - good > 1 {
                    let mid = good + (bad - good) / 2;
                    if ok(name, &mid.to_string()) {
                        good = mid
                    } else {
                        bad = mid
                    }
                }
                good
            };
            out.push(Range {
                name: name.to_string(),
                default,
                lo,
                hi,
            });
        }
        out
    })
}

/// Up to three knobs with random values: a range's ends, a uniform draw,
/// or a log-uniform one (most ranges span several decades).
pub(super) fn draw(r: &mut Rng) -> Vec<(String, u64)> {
    let all = ranges();
    let mut v: Vec<(String, u64)> = Vec::new();
    for _ in 0..r.below(4) {
        let k = &all[r.below(all.len() as u64) as usize];
        if v.iter().any(|x| x.0 == k.name) {
            continue;
        }
        let x = match r.below(5) {
            0 => k.lo,
            1 => k.hi,
            2 => r.range(k.lo, k.hi),
            _ => {
                let (a, b) = ((k.lo.max(1) as f64).ln(), (k.hi.max(1) as f64).ln());
                let u = r.below(1 << 20) as f64 / (1u64 << 20) as f64;
                ((a + (b - a) * u).exp().round() as u64).clamp(k.lo, k.hi)
            }
        };
        v.push((k.name.clone(), x));
    }
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_the_knob_tables() {
        let r = ranges();
        let get = |n: &str| r.iter().find(|x| x.name == n).cloned();
        // two ranges as knobs.rs documents them
        assert_eq!(
            get("imbalance-pct").map(|x| (x.lo, x.hi, x.default)),
            Some((100, 1000, 117))
        );
        assert_eq!(get("slice-us").map(|x| (x.lo, x.hi)), Some((0, 10_000_000)));
        // a list, not a number
        assert!(get("cpu-capacity").is_none());
        assert!(r.len() >= 10, "{r:?}");
        for k in r {
            assert!(k.lo <= k.default && k.default <= k.hi, "{k:?}");
        }
    }

    #[test]
    fn drawn_values_are_accepted() {
        let base = Knobs::defaults();
        let mut seen = 0;
        for k in 0..500 {
            let mut r = Rng::new(5, k);
            for (n, v) in draw(&mut r) {
                seen += 1;
                base.with_overrides(&[(n.clone(), v.to_string())])
                    .unwrap_or_else(|e| panic!("{n}={v}: {e:#}"));
            }
        }
        assert!(seen > 300);
    }
}
