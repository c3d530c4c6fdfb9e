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

/// A tree node's key is one u64, time in the high 48 bits and CPU in the
/// low 16, so that one comparison orders by time and then CPU. Times from
/// FAR on (2^48 ns, 78 hours, past any run's time limit) share the time
/// bits FAR; `min` orders those few by their exact times (`far_min`).
const CPU_BITS: u32 = 16;
const FAR: Ns = (1 << (64 - CPU_BITS)) - 1;
/// An unarmed CPU's key: above every armed one (CPUs are < 2^16 - 1).
const EMPTY: u64 = u64::MAX;

fn pack(t: Ns, cpu: usize) -> u64 {
    if t == NONE {
        EMPTY
    } else {
        (t.min(FAR) << CPU_BITS) | cpu as u64
    }
}

/// A CPU's entry beside the tree: its exact time, its sequence number (to
/// order it against the event queue's entries of the same time) and its
/// generation; one record, so that `min` reads one line.
#[derive(Clone, Copy)]
struct Entry {
    time: Ns,
    seq: u64,
    gen: u64,
}

pub struct CpuSlots {
    size: usize,
    entries: Vec<Entry>,
    /// A tree in an array: node 1 is the root, node size + i is CPU i's
    /// entry; each node holds the least key below it. An unarmed CPU's key
    /// is EMPTY.
    keys: Vec<u64>,
    /// The entry `take` removed and the tree still holds: cleared in the
    /// tree before the next `min`, unless re-armed or cleared before.
    taken: Option<usize>,
}

impl CpuSlots {
    pub fn new(n: usize) -> CpuSlots {
        let size = n.max(1).next_power_of_two();
        assert!(
            size < (1 << CPU_BITS) - 1,
            "{n} CPUs: too many for CpuSlots"
        );
        CpuSlots {
            size,
            entries: vec![
                Entry {
                    time: NONE,
                    seq: 0,
                    gen: 0
                };
                size
            ],
            keys: vec![EMPTY; 2 * size],
            taken: None,
        }
    }

    /// Arms CPU `i`'s entry at `key`, replacing any earlier one. (This,
    /// `take` and `flush` inline: each runs once a queue entry, and their
    /// calls' frames were about 26 instructions of one.)
    #[inline]
    pub fn set(&mut self, i: usize, key: Key, gen: u64) {
        assert!(i < self.size, "CPU {i} out of range");
        let rearm = self.taken == Some(i);
        if rearm {
            self.taken = None;
        }
        // SAFETY: i < size = entries.len() (new); the one check above
        // does for this store and put's path (two checks fewer an arm)
        unsafe {
            *self.entries.get_unchecked_mut(i) = Entry {
                time: key.0,
                seq: key.1,
                gen,
            };
            if rearm {
                self.put_through(i, key.0);
            } else {
                self.put_unchecked(i, key.0);
            }
        }
    }

    pub fn clear(&mut self, i: usize) {
        if self.taken == Some(i) {
            self.taken = None;
        }
        self.entries[i].time = NONE;
        self.put(i, NONE);
    }

    /// Removes CPU `i`'s entry, the one `min` gave, as `clear` would; the
    /// tree is updated only if it is not re-armed before the next `min`.
    /// (Always inline: plain `inline` left it a call from the event loop.)
    #[inline(always)]
    pub fn take(&mut self, i: usize) {
        if let Some(j) = self.taken.replace(i) {
            if j != i {
                self.entries[j].time = NONE;
                self.put(j, NONE);
            }
        }
    }

    #[inline]
    fn flush(&mut self) {
        if let Some(j) = self.taken.take() {
            self.entries[j].time = NONE;
            self.put(j, NONE);
        }
    }

    fn put(&mut self, i: usize, t: Ns) {
        assert!(i < self.size, "CPU {i} out of range");
        // SAFETY: just checked
        unsafe { self.put_unchecked(i, t) }
    }

    /// `put` for an `i` below `size` (the caller checked it).
    #[inline(always)]
    unsafe fn put_unchecked(&mut self, i: usize, t: Ns) {
        let keys = &mut self.keys;
        let mut p = self.size + i;
        // SAFETY: every index is below keys.len() = 2 * size (new): p starts at
        // size + i < 2 * size, p ^ 1 stays below the even 2 * size, and p
        // halves. (The three bounds checks a level were a third of this
        // loop, the engine's hottest.)
        unsafe {
            *keys.get_unchecked_mut(p) = pack(t, i);
            while p > 1 {
                let w = (*keys.get_unchecked(p)).min(*keys.get_unchecked(p ^ 1));
                p /= 2;
                let k = keys.get_unchecked_mut(p);
                if *k == w {
                    break; // unchanged here, so above too
                }
                *k = w;
            }
        }
    }

    /// `put_unchecked` for the CPU `take` took, re-armed: every node of
    /// its path held its old key (the root's), so each changes unless
    /// another CPU's arm since took it over, and the path is written to the
    /// root without comparing each node first (the same keys, three
    /// instructions fewer a level on most Run steps' arms).
    #[inline(always)]
    unsafe fn put_through(&mut self, i: usize, t: Ns) {
        let keys = &mut self.keys;
        let mut p = self.size + i;
        let mut w = pack(t, i);
        // SAFETY: as in put_unchecked
        unsafe {
            *keys.get_unchecked_mut(p) = w;
            // size is a power of two: log2(size) levels from a leaf to the
            // root (a count down, one instruction fewer a level than p > 1)
            for _ in 0..self.size.trailing_zeros() {
                w = w.min(*keys.get_unchecked(p ^ 1));
                p /= 2;
                *keys.get_unchecked_mut(p) = w;
            }
        }
    }

    /// CPU `i`'s armed time, if any.
    pub fn armed(&self, i: usize) -> Option<Ns> {
        if self.taken == Some(i) {
            return None;
        }
        let t = self.entries[i].time;
        (t != NONE).then_some(t)
    }

    /// The earliest armed entry: (CPU, key, generation).
    #[inline]
    pub fn min(&mut self) -> Option<(usize, Key, u64)> {
        self.flush();
        let root = self.keys[1];
        if root == EMPTY {
            return None;
        }
        let i = if root >> CPU_BITS == FAR {
            self.far_min()
        } else {
            (root & ((1 << CPU_BITS) - 1)) as usize
        };
        let e = self.entries[i];
        Some((i, (e.time, e.seq), e.gen))
    }

    /// Every armed entry is FAR or later: the earliest by exact time, then
    /// CPU, by a scan.
    #[cold]
    fn far_min(&self) -> usize {
        (0..self.size)
            .filter(|&i| self.entries[i].time != NONE)
            .min_by_key(|&i| (self.entries[i].time, i))
            .expect("the root is armed")
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
                    // now and then a time around FAR, where keys stop
                    // telling times apart
                    let t = if (x >> 30) % 8 == 0 {
                        FAR - 2 + (x >> 40) % 5
                    } else {
                        (x >> 40) % 50
                    };
                    let k = (t, seq);
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
