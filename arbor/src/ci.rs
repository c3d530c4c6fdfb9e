//! Confidence intervals for "how much did B change against A" over a few
//! runs each: Welch's t interval on the difference of means, as a % of A's
//! mean. One place for the reports of `arbor sim reproduce` (and bench's).

/// Mean and sample standard deviation (n - 1); NaN for no values, a
/// zero spread for one.
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

/// The smallest change (in % of the mean) that two samples of `n` runs
/// each, with this coefficient of variation (sd / mean, as a fraction),
/// can tell from noise at 95%: t * sqrt(2 / n) * cv. None below 2 runs.
pub fn detectable_pct(cv: f64, n: usize) -> Option<f64> {
    if n < 2 || !cv.is_finite() {
        return None;
    }
    // Welch's df for two equal samples is 2(n - 1)
    Some(100.0 * t95(2.0 * (n as f64 - 1.0)) * (2.0 / n as f64).sqrt() * cv)
}

/// Two-sided 95% Student t critical value for `df` degrees of freedom
/// (df rounded down; a table to 30, then the normal 1.96 from 120 on).
pub fn t95(df: f64) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    if !(df >= 1.0) {
        return f64::INFINITY;
    }
    let d = df.floor() as usize;
    match d {
        1..=30 => T[d - 1],
        31..=60 => 2.000,
        61..=119 => 1.980,
        _ => 1.960,
    }
}

/// The change of B's mean against A's, in % of A's mean, with its 95%
/// Welch interval: (change, low, high). None when either side has fewer
/// than 2 runs or A's mean is 0. Equal zero spreads give a zero-width
/// interval (deterministic runs).
pub fn change_ci(a: &[f64], b: &[f64]) -> Option<(f64, f64, f64)> {
    let (ma, sa) = mean_sd(a);
    let (mb, sb) = mean_sd(b);
    change_ci_of((ma, sa, a.len()), (mb, sb, b.len()))
}

/// [`change_ci`] from each side's (mean, sample sd, runs), as summary.json
/// keeps them.
pub fn change_ci_of(a: (f64, f64, usize), b: (f64, f64, usize)) -> Option<(f64, f64, f64)> {
    let ((ma, sa, na), (mb, sb, nb)) = (a, b);
    if na < 2 || nb < 2 {
        return None;
    }
    if ma == 0.0 || !ma.is_finite() || !mb.is_finite() {
        return None;
    }
    let (na, nb) = (na as f64, nb as f64);
    let (va, vb) = (sa * sa / na, sb * sb / nb);
    let se = (va + vb).sqrt();
    let d = mb - ma;
    let half = if se == 0.0 {
        0.0
    } else {
        let df = (va + vb).powi(2) / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
        t95(df) * se
    };
    let pct = |x: f64| 100.0 * x / ma.abs();
    Some((pct(d), pct(d - half), pct(d + half)))
}

/// The 95% t interval of a mean of `n` runs with sample sd `sd`; None
/// below 2 runs.
pub fn mean_ci((m, sd, n): (f64, f64, usize)) -> Option<(f64, f64)> {
    if n < 2 || !m.is_finite() || !sd.is_finite() {
        return None;
    }
    let half = t95(n as f64 - 1.0) * sd / (n as f64).sqrt();
    Some((m - half, m + half))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_interval_matches_a_hand_computation() {
        // A = 10, 12, 14 (mean 12, sd 2); B = 15, 15.5, 16.5 (mean 15.667, sd 0.764)
        // se = sqrt(4/3 + 0.5833/3) = 1.2360; df = 1.5278^2 / (0.8889 + 0.0189) = 2.571 -> t = 4.303
        let (c, lo, hi) = change_ci(&[10.0, 12.0, 14.0], &[15.0, 15.5, 16.5]).unwrap();
        assert!((c - 30.556).abs() < 0.01, "{c}");
        let half = 4.303 * 1.2360 / 12.0 * 100.0;
        assert!((hi - c - half).abs() < 0.1, "{hi} {c} {half}");
        assert!((c - lo - half).abs() < 0.1);
        assert!(lo < 0.0, "this interval crosses zero");
    }

    #[test]
    fn too_few_runs_or_zero_base_give_none() {
        assert!(change_ci(&[1.0], &[2.0, 3.0]).is_none());
        assert!(change_ci(&[0.0, 0.0], &[2.0, 3.0]).is_none());
        let (c, lo, hi) = change_ci(&[2.0, 2.0], &[3.0, 3.0]).unwrap();
        assert_eq!((c, lo, hi), (50.0, 50.0, 50.0));
    }

    #[test]
    fn detectable_change_shrinks_with_runs() {
        // cv 15%, 3 runs: t(4) = 2.776 * sqrt(2/3) * 15 = 34.0%
        assert!((detectable_pct(0.15, 3).unwrap() - 34.0).abs() < 0.1);
        // 20 runs: t(38) = 2.0 * sqrt(0.1) * 15 = 9.5%
        assert!((detectable_pct(0.15, 20).unwrap() - 9.49).abs() < 0.1);
        assert!(detectable_pct(0.15, 1).is_none());
        let (m, sd) = mean_sd(&[1.0, 2.0, 3.0]);
        assert_eq!((m, sd), (2.0, 1.0));
    }

    #[test]
    fn t_table_edges() {
        assert_eq!(t95(1.0), 12.706);
        assert_eq!(t95(2.9), 4.303);
        assert_eq!(t95(30.0), 2.042);
        assert_eq!(t95(1000.0), 1.96);
        assert!(t95(0.5).is_infinite());
    }
}
