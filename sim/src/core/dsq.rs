//! Dispatch queues (kernel/sched/ext.c: struct scx_dispatch_q,
//! dispatch_enqueue). A DSQ is FIFO or ordered by vtime, never both: the
//! first insert decides, and mixing is a scheduler error, as in ext.c.

use std::collections::{BTreeMap, VecDeque};

use crate::task::TaskId;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DsqRef {
    Local(usize),
    Global,
    User(u64),
}

#[derive(Default, Debug)]
pub struct Dsq {
    fifo: VecDeque<TaskId>,
    /// (vtime, insertion seq) -> task
    prio: BTreeMap<(u64, u64), TaskId>,
    /// the key of each task in `prio`
    keys: BTreeMap<TaskId, (u64, u64)>,
    pub vtime_ordered: Option<bool>,
    seq: u64,
}

impl Dsq {
    pub fn len(&self) -> usize {
        self.fifo.len() + self.prio.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Inserts; returns Err if FIFO and vtime inserts are mixed.
    pub fn insert(&mut self, t: TaskId, vtime: Option<u64>, head: bool) -> Result<(), String> {
        let want = vtime.is_some();
        match self.vtime_ordered {
            Some(v) if v != want && !self.is_empty() => {
                return Err(format!(
                    "cannot mix {} and {} insertions on one DSQ",
                    if v { "vtime" } else { "FIFO" },
                    if want { "vtime" } else { "FIFO" }
                ))
            }
            _ => self.vtime_ordered = Some(want),
        }
        match vtime {
            Some(v) => {
                self.seq += 1;
                self.prio.insert((v, self.seq), t);
                self.keys.insert(t, (v, self.seq));
            }
            None if head => self.fifo.push_front(t),
            None => self.fifo.push_back(t),
        }
        Ok(())
    }

    pub fn first(&self) -> Option<TaskId> {
        self.fifo
            .front()
            .copied()
            .or_else(|| self.prio.values().next().copied())
    }

    pub fn remove(&mut self, t: TaskId) -> bool {
        if let Some(k) = self.keys.remove(&t) {
            self.prio.remove(&k);
            return true;
        }
        if let Some(i) = self.fifo.iter().position(|&x| x == t) {
            self.fifo.remove(i);
            return true;
        }
        false
    }

    pub fn pop_first(&mut self) -> Option<TaskId> {
        let t = self.first()?;
        self.remove(t);
        Some(t)
    }

    /// Tasks in dispatch order, without collecting them.
    pub fn iter(&self) -> impl Iterator<Item = TaskId> + '_ {
        self.fifo.iter().copied().chain(self.prio.values().copied())
    }

    /// Tasks in dispatch order.
    pub fn order(&self) -> Vec<TaskId> {
        self.iter().collect()
    }

    pub fn contains(&self, t: TaskId) -> bool {
        self.keys.contains_key(&t) || self.fifo.contains(&t)
    }
}

/// The user DSQs (scx_bpf_create_dsq), found by id. Schedulers look them
/// up on hot paths (scx_arbor counts every CPU's DSQ when balancing), so
/// small ids index a table; any other id goes through a map.
#[derive(Default, Debug)]
pub struct UserDsqs {
    /// id -> slot + 1 (0: none), for ids below DENSE
    dense: Vec<u32>,
    sparse: BTreeMap<u64, u32>,
    qs: Vec<Dsq>,
    /// qs[i]'s id
    ids: Vec<u64>,
    /// qs[i].len(), kept in a compact array for scx_bpf_dsq_nr_queued
    lens: Vec<u32>,
}

impl UserDsqs {
    const DENSE: u64 = 1 << 16;

    fn slot(&self, id: u64) -> Option<usize> {
        if id < Self::DENSE {
            match self.dense.get(id as usize) {
                Some(&s) if s > 0 => Some(s as usize - 1),
                _ => None,
            }
        } else {
            self.sparse.get(&id).map(|&s| s as usize)
        }
    }

    pub fn contains(&self, id: u64) -> bool {
        self.slot(id).is_some()
    }

    pub fn get(&self, id: u64) -> Option<&Dsq> {
        self.slot(id).map(|s| &self.qs[s])
    }

    /// Its number of queued tasks, None if it does not exist.
    pub fn len(&self, id: u64) -> Option<usize> {
        self.slot(id).map(|s| self.lens[s] as usize)
    }

    /// Dsq::insert on DSQ `id`.
    pub fn insert(
        &mut self,
        id: u64,
        t: TaskId,
        vtime: Option<u64>,
        head: bool,
    ) -> Result<(), String> {
        let s = self
            .slot(id)
            .ok_or_else(|| format!("non-existent DSQ {id:#x}"))?;
        self.qs[s].insert(t, vtime, head)?;
        self.lens[s] = self.qs[s].len() as u32;
        Ok(())
    }

    /// Dsq::pop_first on DSQ `id`.
    pub fn pop_first(&mut self, id: u64) -> Option<TaskId> {
        let s = self.slot(id)?;
        let t = self.qs[s].pop_first();
        self.lens[s] = self.qs[s].len() as u32;
        t
    }

    /// Dsq::remove on DSQ `id`.
    pub fn remove(&mut self, id: u64, t: TaskId) -> bool {
        let Some(s) = self.slot(id) else { return false };
        let hit = self.qs[s].remove(t);
        self.lens[s] = self.qs[s].len() as u32;
        hit
    }

    /// Creates an empty DSQ; false if the id exists.
    pub fn create(&mut self, id: u64) -> bool {
        if self.contains(id) {
            return false;
        }
        let slot = self.qs.len() as u32;
        self.qs.push(Dsq::default());
        self.ids.push(id);
        self.lens.push(0);
        if id < Self::DENSE {
            let i = id as usize;
            if self.dense.len() <= i {
                self.dense.resize(i + 1, 0);
            }
            self.dense[i] = slot + 1;
        } else {
            self.sparse.insert(id, slot);
        }
        true
    }

    /// destroy_dsq (ext.c:4964-5001): Ok(false) if there is no DSQ `id`,
    /// Err(nr) if it still holds nr tasks (an error), else it is gone
    /// (its slot stays, dead, so no other slot moves) and the id is free.
    pub fn destroy(&mut self, id: u64) -> Result<bool, usize> {
        let Some(s) = self.slot(id) else {
            return Ok(false);
        };
        if self.lens[s] > 0 {
            return Err(self.lens[s] as usize);
        }
        if id < Self::DENSE {
            self.dense[id as usize] = 0;
        } else {
            self.sparse.remove(&id);
        }
        self.ids[s] = crate::abi::SCX_DSQ_INVALID;
        Ok(true)
    }

    /// (id, DSQ) of the live DSQs, in creation order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &Dsq)> {
        self.ids
            .iter()
            .copied()
            .zip(self.qs.iter())
            .filter(|(id, _)| *id != crate::abi::SCX_DSQ_INVALID)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ext.c dispatch_enqueue: a vtime DSQ orders by vtime, ties by insertion.
    #[test]
    fn user_dsqs_found_by_small_and_large_ids() {
        let mut u = UserDsqs::default();
        assert!(u.create(7));
        assert!(u.create(1 << 40));
        assert!(!u.create(7), "an id exists once");
        assert!(u.contains(7) && u.contains(1 << 40));
        assert!(!u.contains(6) && !u.contains(8) && !u.contains(1 << 39));
        u.insert(1 << 40, 3, None, false).unwrap();
        assert!(u.insert(8, 3, None, false).is_err());
        assert_eq!(u.get(1 << 40).unwrap().len(), 1);
        assert_eq!(u.len(1 << 40), Some(1));
        assert_eq!(u.len(7), Some(0));
        assert_eq!(u.len(8), None);
        assert!(u.remove(1 << 40, 3));
        assert!(!u.remove(1 << 40, 3));
        assert_eq!(u.len(1 << 40), Some(0));
        assert_eq!(u.iter().map(|(id, _)| id).collect::<Vec<_>>(), [7, 1 << 40]);
    }

    #[test]
    fn vtime_order_and_ties() {
        let mut d = Dsq::default();
        d.insert(1, Some(30), false).unwrap();
        d.insert(2, Some(10), false).unwrap();
        d.insert(3, Some(10), false).unwrap();
        assert_eq!(d.order(), vec![2, 3, 1]);
        assert_eq!(d.pop_first(), Some(2));
        assert!(d.remove(1));
        assert_eq!(d.order(), vec![3]);
    }

    /// ext.c dispatch_enqueue: "cannot use vtime ordering for" a DSQ
    /// already used as FIFO (and the reverse) is a scheduler error.
    #[test]
    fn mixing_fifo_and_vtime_is_an_error() {
        let mut d = Dsq::default();
        d.insert(1, None, false).unwrap();
        assert!(d.insert(2, Some(5), false).is_err());
        let mut d = Dsq::default();
        d.insert(1, Some(5), false).unwrap();
        assert!(d.insert(2, None, false).is_err());
    }

    /// SCX_ENQ_HEAD puts a task first (put_prev_task_scx re-queues a
    /// preempted task with slice left at the head of the local DSQ).
    #[test]
    fn head_insert() {
        let mut d = Dsq::default();
        d.insert(1, None, false).unwrap();
        d.insert(2, None, true).unwrap();
        assert_eq!(d.order(), vec![2, 1]);
    }
}
