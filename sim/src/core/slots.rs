//! One pending event per CPU, kept apart from the event queue: a running
//! task's end is re-timed every time a sibling's start or stop changes its
//! speed, and a heap would fill with the superseded times. Here re-arming
//! replaces the CPU's entry, and the earliest entry is found in a
//! tournament tree (O(log CPUs) to update, O(1) to read).
//!
//! The entry the event loop takes is cleared lazily: most often the CPU
//! re-arms it at once (its task's next Run step), and one update of its
//! path then does for both.
//!
//! The earliest time wins; two CPUs' ends at the same nanosecond leave in
//! CPU order, and against the event queue an end is ordered by the sequence
//! number it was armed with, as if it were in the queue.

use crate::task::Ns;

/// (time, sequence number): the event queue's ordering key.
pub type Key = (Ns, u64);

const NONE: Ns = Ns::MAX;

fn pack(t: Ns, cpu: usize) -> u128 {
    ((t as u128) << 64) | cpu as u128
}

pub struct CpuSlots {
    size: usize,
    /// Each CPU's entry: its sequence number (to order it against the
    /// event queue's entries of the same time) and generation.
    seqs: Vec<u64>,
    gens: Vec<u64>,
    /// A tree in an array: node 1 is the root, node size + i is CPU i's
    /// entry; each node holds the earliest entry below it as one key, time
    /// in the high 64 bits and CPU in the low ones, so that one comparison
    /// orders by time and then CPU (entries of one time leave in CPU
    /// order). An unarmed CPU's time is NONE.
    keys: Vec<u128>,
    /// The entry `take` removed and the tree still holds: cleared in the
    /// tree before the next `min`, unless re-armed or cleared before.
    taken: Option<usize>,
}

impl CpuSlots {
    pub fn new(n: usize) -> CpuSlots {
        let size = n.max(1).next_power_of_two();
        let mut keys = vec![0u128; 2 * size];
        for i in 0..size {
            keys[size + i] = pack(NONE, i);
        }
        for p in (1..size).rev() {
            keys[p] = keys[2 * p].min(keys[2 * p + 1]);
        }
        CpuSlots {
            size,
            seqs: vec![0; size],
            gens: vec![0; size],
            keys,
            taken: None,
        }
    }

    /// Arms CPU `i`'s entry at `key`, replacing any earlier one.
    pub fn set(&mut self, i: usize, key: Key, gen: u64) {
        if self.taken == Some(i) {
            self.taken = None;
        }
        self.seqs[i] = key.1;
        self.gens[i] = gen;
        self.put(i, key.0);
    }

    pub fn clear(&mut self, i: usize) {
        if self.taken == Some(i) {
            self.taken = None;
        }
        self.put(i, NONE);
    }

    /// Removes CPU `i`'s entry, the one `min` gave, as `clear` would; the
    /// tree is updated only if it is not re-armed before the next `min`.
    pub fn take(&mut self, i: usize) {
        if let Some(j) = self.taken.replace(i) {
            if j != i {
                self.put(j, NONE);
            }
        }
    }

    fn flush(&mut self) {
        if let Some(j) = self.taken.take() {
            self.put(j, NONE);
        }
    }

    fn put(&mut self, i: usize, t: Ns) {
        let mut p = self.size + i;
        self.keys[p] = pack(t, i);
        p /= 2;
        while p >= 1 {
            let w = self.keys[2 * p].min(self.keys[2 * p + 1]);
            if self.keys[p] == w {
                break; // unchanged here, so above too
            }
            self.keys[p] = w;
            p /= 2;
        }
    }

    /// CPU `i`'s armed time, if any.
    pub fn armed(&self, i: usize) -> Option<Ns> {
        if self.taken == Some(i) {
            return None;
        }
        let t = (self.keys[self.size + i] >> 64) as Ns;
        (t != NONE).then_some(t)
    }

    /// The earliest armed entry: (CPU, key, generation).
    pub fn min(&mut self) -> Option<(usize, Key, u64)> {
        self.flush();
        let t = (self.keys[1] >> 64) as Ns;
        let i = self.keys[1] as u64 as usize;
        (t != NONE).then(|| (i, (t, self.seqs[i]), self.gens[i]))
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
                } else if (x >> 20) % 4 == 1 {
                    // the event loop's take of the earliest entry
                    if let Some((j, _, _)) = s.min() {
                        s.take(j);
                        plain[j] = None;
                    }
                } else {
                    let k = ((x >> 40) % 50, seq);
                    s.set(i, k, seq);
                    plain[i] = Some(k);
                }
                // the earliest time; a tie goes to the lower CPU
                let want = plain
                    .iter()
                    .enumerate()
                    .filter_map(|(i, k)| k.map(|k| (k.0, i, k)))
                    .min()
                    .map(|(_, i, k)| (i, k));
                assert_eq!(s.min().map(|(i, k, _)| (i, k)), want, "n={n} step {seq}");
            }
        }
    }
}
