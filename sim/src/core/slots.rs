//! One pending event per CPU, kept apart from the event queue: a running
//! task's end is re-timed every time a sibling's start or stop changes its
//! speed, and a heap would fill with the superseded times. Here re-arming
//! replaces the CPU's entry, and the earliest entry is found in a
//! tournament tree (O(log CPUs) to update, O(1) to read).

use crate::workload::Ns;

/// (time, sequence number): the event queue's ordering key.
pub type Key = (Ns, u64);

const NONE: Key = (Ns::MAX, u64::MAX);

pub struct CpuSlots {
    size: usize,
    keys: Vec<Key>,
    gens: Vec<u64>,
    /// tree[1] is the root; tree[size + i] is leaf i; each node holds the
    /// leaf with the smallest key below it.
    tree: Vec<u32>,
}

impl CpuSlots {
    pub fn new(n: usize) -> CpuSlots {
        let size = n.max(1).next_power_of_two();
        let mut s = CpuSlots {
            size,
            keys: vec![NONE; size],
            gens: vec![0; size],
            tree: vec![0; 2 * size],
        };
        for i in 0..size {
            s.tree[size + i] = i as u32;
        }
        for p in (1..size).rev() {
            s.tree[p] = s.tree[2 * p];
        }
        s
    }

    /// Arms CPU `i`'s entry at `key`, replacing any earlier one.
    pub fn set(&mut self, i: usize, key: Key, gen: u64) {
        self.keys[i] = key;
        self.gens[i] = gen;
        let mut p = (self.size + i) / 2;
        while p >= 1 {
            let (l, r) = (self.tree[2 * p], self.tree[2 * p + 1]);
            self.tree[p] = if self.keys[l as usize] <= self.keys[r as usize] {
                l
            } else {
                r
            };
            p /= 2;
        }
    }

    pub fn clear(&mut self, i: usize) {
        self.set(i, NONE, 0);
    }

    /// The earliest armed entry: (CPU, key, generation).
    pub fn min(&self) -> Option<(usize, Key, u64)> {
        let i = self.tree[1] as usize;
        (self.keys[i] != NONE).then(|| (i, self.keys[i], self.gens[i]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a plain scan, over a deterministic mix of arms and clears.
    #[test]
    fn min_is_the_earliest_armed_entry() {
        for n in [1, 2, 3, 7, 8, 224] {
            let mut s = CpuSlots::new(n);
            let mut plain: Vec<Option<Key>> = vec![None; n];
            assert_eq!(s.min(), None);
            let mut x: u64 = 12345;
            for seq in 0..2000u64 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let i = (x >> 33) as usize % n;
                if (x >> 20) % 4 == 0 {
                    s.clear(i);
                    plain[i] = None;
                } else {
                    let k = ((x >> 40) % 50, seq);
                    s.set(i, k, seq);
                    plain[i] = Some(k);
                }
                let want = plain
                    .iter()
                    .enumerate()
                    .filter_map(|(i, k)| k.map(|k| (k, i)))
                    .min()
                    .map(|(k, i)| (i, k));
                assert_eq!(s.min().map(|(i, k, _)| (i, k)), want, "n={n} step {seq}");
            }
        }
    }
}
