//! A compact, deterministic latency histogram (log-linear buckets, like
//! HdrHistogram's idea but written here from scratch): exact below 64 ns,
//! then 32 buckets per power of two, so any reported percentile is within
//! ~3% of the true sample. 1920 counters cover the whole `u64` range.

use super::Ns;

/// Mantissa bits per power of two.
const M: u32 = 5;
const SUB: usize = 1 << M; // 32
const EXACT: u64 = 2 * SUB as u64; // values below 64 get their own bucket
const NBUCKETS: usize = (64 - M as usize) * SUB + SUB; // up to msb 63

#[derive(Clone, Debug)]
pub struct Hist {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
    max: Ns,
}

impl Default for Hist {
    fn default() -> Self {
        Hist {
            counts: vec![0; NBUCKETS],
            total: 0,
            sum: 0,
            max: 0,
        }
    }
}

fn index(v: u64) -> usize {
    if v < EXACT {
        return v as usize;
    }
    let msb = 63 - v.leading_zeros();
    let sub = ((v >> (msb - M)) as usize) & (SUB - 1);
    (msb - M) as usize * SUB + SUB + sub
}

/// The smallest value that falls into bucket `i`, and the bucket's width.
fn bucket(i: usize) -> (u64, u64) {
    if (i as u64) < EXACT {
        return (i as u64, 1);
    }
    let msb = ((i - SUB) / SUB) as u32 + M;
    let sub = ((i - SUB) % SUB) as u64;
    let shift = msb - M;
    ((SUB as u64 + sub) << shift, 1u64 << shift)
}

impl Hist {
    pub fn record(&mut self, v: Ns) {
        self.counts[index(v)] += 1;
        self.total += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn mean(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.sum as f64 / self.total as f64
        }
    }

    pub fn max(&self) -> Ns {
        self.max
    }

    /// The `p`-th percentile (0 < p <= 100) in ns: the middle of the bucket
    /// holding the sample of that rank; 0 when empty.
    pub fn percentile(&self, p: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        // rank of the wanted sample, 1-based
        let rank = ((p / 100.0) * self.total as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, w) = bucket(i);
                let mid = lo as f64 + (w as f64 - 1.0) / 2.0;
                return mid.min(self.max as f64);
            }
        }
        self.max as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_cover_their_values() {
        for v in (0..5000u64).chain([1 << 20, (1 << 20) + 12345, u64::MAX / 3, u64::MAX]) {
            let (lo, w) = bucket(index(v));
            assert!(lo <= v && v - lo < w, "v={v} lo={lo} w={w}");
        }
        for i in 1..NBUCKETS {
            let (lo, _) = bucket(i);
            let (plo, pw) = bucket(i - 1);
            assert_eq!(plo + pw, lo, "bucket {i}");
        }
        assert_eq!(index(u64::MAX), NBUCKETS - 1);
    }

    #[test]
    fn percentiles_are_within_three_percent() {
        let mut h = Hist::default();
        for us in 1..=1000u64 {
            h.record(us * 1000);
        }
        assert_eq!(h.count(), 1000);
        for (p, want) in [(50.0, 500e3), (90.0, 900e3), (99.0, 990e3), (99.9, 999e3)] {
            let got = h.percentile(p);
            assert!((got - want).abs() / want < 0.03, "p{p}: {got} vs {want}");
        }
        assert_eq!(h.max(), 1_000_000);
        assert!((h.mean() - 500_500.0).abs() < 1e-6);
        let mut small = Hist::default();
        small.record(7);
        small.record(9);
        assert_eq!(small.percentile(50.0), 7.0);
        assert_eq!(small.percentile(100.0), 9.0);
        assert_eq!(Hist::default().percentile(99.0), 0.0);
    }
}
