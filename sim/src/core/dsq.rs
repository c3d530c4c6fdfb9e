//! Dispatch queues (kernel/sched/ext.c: struct scx_dispatch_q,
//! dispatch_enqueue). A DSQ is FIFO or ordered by vtime, never both: the
//! first insert decides, and mixing is a scheduler error, as in ext.c.

use std::collections::{BTreeMap, VecDeque};

use crate::workload::TaskId;

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
        self.fifo
            .iter()
            .copied()
            .chain(self.prio.values().copied())
            .collect()
    }

    pub fn contains(&self, t: TaskId) -> bool {
        self.keys.contains_key(&t) || self.fifo.contains(&t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ext.c dispatch_enqueue: a vtime DSQ orders by vtime, ties by insertion.
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
