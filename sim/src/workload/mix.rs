//! Workloads run together (`A & B`): each part's tasks after the previous
//! parts', with their own ids, processes and steps, so that, e.g., two
//! groups of spinners in two cgroups share the machine. The run ends when
//! every part has finished; each part's metrics are its own, those of part
//! k > 0 named `k.NAME`, as are its tasks.

use super::{Effects, Metric, Ns, Step, TaskId, TaskSpec, Workload};

/// A part's process ids are moved by this much per part (tgids stay apart).
const TGID_STRIDE: u32 = 1_000_000;

pub struct Mix {
    parts: Vec<Box<dyn Workload>>,
    /// each part's first task id
    first: Vec<TaskId>,
}

impl Mix {
    pub fn new(parts: Vec<Box<dyn Workload>>) -> Mix {
        let mut first = Vec::with_capacity(parts.len());
        let mut n = 0;
        for p in &parts {
            first.push(n);
            n += p.tasks().len();
        }
        Mix { parts, first }
    }

    /// The part task t belongs to, and its id there.
    fn part_of(&self, t: TaskId) -> (usize, TaskId) {
        let k = self.first.partition_point(|&f| f <= t) - 1;
        (k, t - self.first[k])
    }
}

impl Workload for Mix {
    fn tasks(&self) -> Vec<TaskSpec> {
        let mut v = Vec::new();
        for (k, p) in self.parts.iter().enumerate() {
            let off = self.first[k];
            for mut s in p.tasks() {
                s.tgid += k as u32 * TGID_STRIDE;
                if k > 0 {
                    s.name = format!("{k}.{}", s.name);
                }
                s.parent = s.parent.map(|q| q + off);
                v.push(s);
            }
        }
        v
    }

    fn next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        let (k, i) = self.part_of(t);
        let off = self.first[k];
        let (w, f, pr) = (fx.wakes.len(), fx.forks.len(), fx.props.len());
        let step = self.parts[k].next(i, now, fx);
        // the part's ids are its own: move them to the mix's
        for x in &mut fx.wakes[w..] {
            x.0 += off;
        }
        for x in &mut fx.forks[f..] {
            *x += off;
        }
        for x in &mut fx.props[pr..] {
            x.0 += off;
        }
        step
    }

    fn on_run(&mut self, t: TaskId, woken_at: Ns, now: Ns) {
        let (k, i) = self.part_of(t);
        self.parts[k].on_run(i, woken_at, now);
    }

    fn finished(&self) -> bool {
        self.parts.iter().all(|p| p.finished())
    }

    fn metrics(&self, elapsed: Ns) -> Vec<Metric> {
        let mut v = Vec::new();
        for (k, p) in self.parts.iter().enumerate() {
            for mut m in p.metrics(elapsed) {
                if k > 0 {
                    m.name = format!("{k}.{}", m.name);
                }
                v.push(m);
            }
        }
        v
    }
}

/// A workload whose tasks all run in one cgroup (`cg=PATH[:weight=W]`).
pub struct InCgroup {
    inner: Box<dyn Workload>,
    cg: crate::task::Cgroup,
}

impl InCgroup {
    pub fn new(inner: Box<dyn Workload>, cg: crate::task::Cgroup) -> InCgroup {
        InCgroup { inner, cg }
    }
}

impl Workload for InCgroup {
    fn tasks(&self) -> Vec<TaskSpec> {
        let mut v = self.inner.tasks();
        for s in &mut v {
            s.cgroup = Some(self.cg.clone());
        }
        v
    }

    fn next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        self.inner.next(t, now, fx)
    }

    fn on_run(&mut self, t: TaskId, woken_at: Ns, now: Ns) {
        self.inner.on_run(t, woken_at, now)
    }

    fn finished(&self) -> bool {
        self.inner.finished()
    }

    fn metrics(&self, elapsed: Ns) -> Vec<Metric> {
        self.inner.metrics(elapsed)
    }
}
