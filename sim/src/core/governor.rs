//! The idle governor: which of the machine's idle states a CPU enters when
//! it goes idle, from the idle periods it has had.
//!
//! The kernel's menu governor (drivers/cpuidle/governors/menu.c,
//! `menu_select`) predicts the coming idle period as the smaller of two
//! guesses and enters the deepest state whose target residency that period
//! meets:
//! - the time to the next timer event, scaled by a correction it learns from
//!   how long idle periods really were. The model keeps no timers for idle
//!   CPUs; the last idle period stands in for this guess;
//! - `get_typical_interval`: the mean of the last 8 idle periods, when they
//!   are regular (below). One long idle among short ones is an outlier it
//!   drops, so a CPU that usually sleeps briefly is not sent to a deep state
//!   by one long pause, whose exit the next wake-up would pay.

/// menu.c's `INTERVALS`: the idle periods remembered per CPU.
pub const IDLE_HISTORY: usize = 8;

/// menu.c `get_typical_interval`, in its units (µs): over the periods not
/// above a threshold (at first all), the mean is typical when their variance
/// is at most 400 µs² (a standard deviation of 20 µs), or when the mean
/// exceeds 6 standard deviations and at least 3/4 of the periods are
/// counted. Otherwise the largest period counted (with any equal to it) is
/// dropped and the test repeated, while more than 3/4 remain. None: no typical period (the
/// history is all zero, or too spread), the timer guess alone decides.
pub fn typical_interval_us(hist: &[u64; IDLE_HISTORY]) -> Option<u64> {
    let mut thresh = u64::MAX;
    loop {
        let (mut sum, mut n, mut max) = (0u64, 0u64, 0u64);
        for &v in hist.iter().filter(|&&v| v <= thresh) {
            sum += v;
            n += 1;
            max = max.max(v);
        }
        if max == 0 {
            return None;
        }
        let avg = sum / n;
        let var = hist
            .iter()
            .filter(|&&v| v <= thresh)
            .map(|&v| {
                let d = v.abs_diff(avg);
                d.saturating_mul(d)
            })
            .fold(0u64, |a, d| a.saturating_add(d))
            / n;
        if var <= u64::MAX / 36
            && ((avg.saturating_mul(avg) > var * 36 && n * 4 >= IDLE_HISTORY as u64 * 3)
                || var <= 400)
        {
            return Some(avg);
        }
        if n * 4 <= IDLE_HISTORY as u64 * 3 {
            return None;
        }
        thresh = max - 1;
    }
}

/// The idle period (ns) the CPU expects: the smaller of the last one (the
/// timer guess's stand-in) and the typical one of `hist_us`.
pub fn predicted_idle_ns(hist_us: &[u64; IDLE_HISTORY], last_ns: u64) -> u64 {
    match typical_interval_us(hist_us) {
        Some(t) => last_ns.min(t.saturating_mul(1000)),
        None => last_ns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_periods_are_typical() {
        assert_eq!(typical_interval_us(&[60; 8]), Some(60));
        // spread 50..70: variance 50 us^2 <= 400
        assert_eq!(
            typical_interval_us(&[50, 70, 50, 70, 50, 70, 50, 70]),
            Some(60)
        );
    }

    #[test]
    fn one_long_pause_is_dropped_as_an_outlier() {
        let h = [60, 60, 60, 1000, 60, 60, 60, 60];
        assert_eq!(typical_interval_us(&h), Some(60));
        // so a CPU that idled 1 ms once still expects 60 us
        assert_eq!(predicted_idle_ns(&h, 1_000_000), 60_000);
    }

    #[test]
    fn equal_long_pauses_go_at_once_and_a_tight_rest_passes() {
        // the threshold drops every period equal to the largest, and a rest
        // within 20 us is typical however few remain (menu.c: variance <= 400)
        let h = [60, 1000, 60, 1000, 60, 1000, 60, 60];
        assert_eq!(typical_interval_us(&h), Some(60));
    }

    #[test]
    fn a_spread_history_is_not_typical() {
        // two drops leave 6 periods still spread: the last period decides
        let h = [10, 300, 50, 900, 120, 1000, 700, 2000];
        assert_eq!(typical_interval_us(&h), None);
        assert_eq!(predicted_idle_ns(&h, 2_000_000), 2_000_000);
    }

    #[test]
    fn steady_long_periods_are_typical() {
        let us = [1_000u64; 8];
        assert_eq!(predicted_idle_ns(&us, 1_000_000), 1_000_000);
        // a short last period wins over a long typical one (the minimum)
        assert_eq!(predicted_idle_ns(&us, 30_000), 30_000);
    }

    #[test]
    fn no_history_leaves_the_last_period() {
        assert_eq!(typical_interval_us(&[0; 8]), None);
        assert_eq!(predicted_idle_ns(&[0; 8], 5_000), 5_000);
    }
}
