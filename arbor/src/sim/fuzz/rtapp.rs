//! Random rt-app task sets for `arbor sim fuzz`: what the hand-written
//! workload models never do. Threads pinned to one CPU or a few, nice
//! values from -20 to 19, starts spread through the run (forks while the
//! machine is busy), threads that finish after a few loops (exits), bursts
//! of hundreds to thousands of short-lived threads, and mutexes shared by
//! a task's threads. Each set is written as an rt-app JSON file, the
//! language `arbor sim -w rt-app:FILE` and the real rt-app read.
//!
//! Changes while the threads run ([`TaskSet::draw_changes`]): a task may
//! cycle through 2-4 phases, each with the same body and its own
//! `"cpus"` and `"priority"`. At each loop of a phase rt-app sets the
//! thread's affinity to the phase's cpus, else the task's, else every CPU
//! (a sched_setaffinity of a running thread: a mask that excludes the CPU
//! it runs on makes the kernel move it, by the migration stopper), and its
//! nice to the phase's priority if it has one (later rt-app's per-phase
//! priority; rt-app 1.0 ignores it: sim/src/workload/rtapp/). A phase's
//! cpus are drawn as no cpus (back to the task's or every CPU), one CPU,
//! a few CPUs, or CPUs disjoint from the previous phase's (so that the
//! thread, running on one of those, must move).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use super::Rng;

/// What one iteration of a task's loop does.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub enum Body {
    /// run µs, then sleep µs
    RunSleep(u64, u64),
    /// run µs, then wait for the task's periodic timer (period µs)
    Periodic(u64, u64),
    /// lock a mutex shared by the task's threads, run µs, unlock, sleep µs
    Locked(u64, u64),
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Task {
    pub instance: u64,
    /// µs before the threads start
    pub delay: u64,
    /// loops before the thread exits; -1: for ever
    pub loops: i64,
    /// affinity: CPU numbers, or none (every CPU)
    pub cpus: Option<Vec<u64>>,
    /// nice value
    pub nice: Option<i64>,
    pub body: Body,
    /// Phases that change the running threads' affinity and nice, run in
    /// turn, each with `body`; empty: one phase.
    pub phases: Vec<Change>,
    /// `"taskgroup"`: the cgroup its threads run in (`--cgroups`; none:
    /// the root)
    pub taskgroup: Option<String>,
}

/// One phase of a task that changes its threads while they run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Change {
    /// loops of the phase (1-4)
    pub loops: u64,
    /// its "cpus": none = the task's, or every CPU
    pub cpus: Option<Vec<u64>>,
    /// its "priority": the nice from this phase on
    pub nice: Option<i64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TaskSet {
    pub tasks: Vec<Task>,
}

impl TaskSet {
    /// A random set for a machine of `ncpu` CPUs.
    pub(super) fn draw(r: &mut Rng, ncpu: u64) -> TaskSet {
        let n = r.range(1, 4);
        let tasks = (0..n)
            .map(|_| {
                // one task in ten is a burst of short-lived threads
                let burst = r.below(10) == 0;
                let instance = if burst {
                    r.range(100, 2000)
                } else {
                    r.range(1, 2 * ncpu.min(32))
                };
                let loops = if burst {
                    r.range(1, 3) as i64
                } else if r.below(3) == 0 {
                    r.range(1, 50) as i64
                } else {
                    -1
                };
                let cpus = match r.below(6) {
                    // pinned to one CPU
                    0 => Some(vec![r.below(ncpu)]),
                    // a few CPUs, anywhere on the machine
                    1 => Some(some_cpus(r, ncpu)),
                    _ => None,
                };
                let nice = (r.below(3) == 0).then(|| r.range(0, 39) as i64 - 20);
                let run = r.pick(&[10, 50, 200, 1000, 5000, 20000]);
                let sleep = r.pick(&[0, 10, 100, 1000, 10000, 50000]);
                let body = match r.below(3) {
                    0 => Body::Periodic(run, run + r.pick(&[0, 100, 1000, 16000])),
                    1 => Body::Locked(run, sleep),
                    _ => Body::RunSleep(run, sleep),
                };
                Task {
                    instance,
                    delay: if r.below(2) == 0 {
                        0
                    } else {
                        r.range(0, 1_500_000)
                    },
                    loops,
                    cpus,
                    nice,
                    body,
                    phases: Vec::new(),
                    taskgroup: None,
                }
            })
            .collect();
        TaskSet { tasks }
    }

    /// Changes of running threads (see the module's doc), drawn after
    /// everything else of the case so that a seed's other draws stay as
    /// they were: three sets in four get them, on each task with even
    /// odds (on one task at least).
    pub(super) fn draw_changes(&mut self, r: &mut Rng, ncpu: u64) {
        if r.below(4) == 0 {
            return;
        }
        let first = r.below(self.tasks.len() as u64) as usize;
        for i in 0..self.tasks.len() {
            if i != first && r.below(2) == 0 {
                continue;
            }
            let n = r.range(2, 4);
            let mut prev: Option<Vec<u64>> = self.tasks[i].cpus.clone();
            let mut v = Vec::new();
            for _ in 0..n {
                let cpus = match r.below(5) {
                    // back to the task's cpus, or every CPU
                    0 => None,
                    // one CPU
                    1 => Some(vec![r.below(ncpu)]),
                    // a few CPUs anywhere
                    2 => Some(some_cpus(r, ncpu)),
                    // none of the previous phase's CPUs: a thread running
                    // on one of them must move
                    _ => {
                        let from = prev.clone().unwrap_or_default();
                        let rest: Vec<u64> = (0..ncpu).filter(|c| !from.contains(c)).collect();
                        if rest.is_empty() {
                            Some(vec![r.below(ncpu)])
                        } else {
                            let k = r.range(1, (rest.len() as u64).min(4));
                            let mut c: Vec<u64> = (0..k).map(|_| r.pick(&rest)).collect();
                            c.sort_unstable();
                            c.dedup();
                            Some(c)
                        }
                    }
                };
                let nice = (r.below(2) == 0).then(|| r.range(0, 39) as i64 - 20);
                prev = cpus.clone().or_else(|| self.tasks[i].cpus.clone());
                v.push(Change {
                    loops: r.range(1, 4),
                    cpus,
                    nice,
                });
            }
            self.tasks[i].phases = v;
        }
    }

    #[cfg(test)]
    pub fn threads(&self) -> u64 {
        self.tasks.iter().map(|t| t.instance).sum()
    }

    /// The rt-app JSON of the set.
    /// Whether a task has a "taskgroup".
    pub fn has_groups(&self) -> bool {
        self.tasks.iter().any(|t| t.taskgroup.is_some())
    }

    pub fn json(&self) -> String {
        let mut s = String::from("{\n  \"tasks\": {\n");
        for (i, t) in self.tasks.iter().enumerate() {
            // the events in one phase: with "phases", the task's "loop"
            // counts its runs of the phases and the thread then exits (rt-app
            // 1.0 loops a task without phases for ever)
            let _ = write!(
                s,
                "    \"t{i}\": {{\"instance\": {}, \"delay\": {}, \"loop\": {}",
                t.instance, t.delay, t.loops
            );
            if let Some(c) = &t.cpus {
                let c: Vec<String> = c.iter().map(|x| x.to_string()).collect();
                let _ = write!(s, ", \"cpus\": [{}]", c.join(", "));
            }
            if let Some(n) = t.nice {
                let _ = write!(s, ", \"priority\": {n}");
            }
            if let Some(g) = &t.taskgroup {
                let _ = write!(s, ", \"taskgroup\": \"{g}\"");
            }
            let body = match &t.body {
                Body::RunSleep(run, sleep) => format!(", \"run\": {run}, \"sleep\": {sleep}"),
                Body::Periodic(run, period) => format!(
                    ", \"run\": {run}, \"timer\": {{\"ref\": \"unique{i}\", \"period\": {period}}}"
                ),
                Body::Locked(run, sleep) => format!(
                    ", \"lock\": \"m{i}\", \"run\": {run}, \"unlock\": \"m{i}\", \"sleep\": {sleep}"
                ),
            };
            if t.phases.is_empty() {
                let _ = write!(s, ", \"phases\": {{\"p\": {{\"loop\": 1{body}}}}}}}");
            } else {
                // one phase per change, the same body in each
                s.push_str(", \"phases\": {");
                for (j, c) in t.phases.iter().enumerate() {
                    let _ = write!(
                        s,
                        "{}\"p{j}\": {{\"loop\": {}",
                        if j > 0 { ", " } else { "" },
                        c.loops
                    );
                    if let Some(cpus) = &c.cpus {
                        let c: Vec<String> = cpus.iter().map(|x| x.to_string()).collect();
                        let _ = write!(s, ", \"cpus\": [{}]", c.join(", "));
                    }
                    if let Some(n) = c.nice {
                        let _ = write!(s, ", \"priority\": {n}");
                    }
                    let _ = write!(s, "{body}}}");
                }
                s.push_str("}}");
            }
            s.push_str(if i + 1 < self.tasks.len() {
                ",\n"
            } else {
                "\n"
            });
        }
        s.push_str("  }\n}\n");
        s
    }

    /// The file of the set in `dir`, named by its content (so a case and
    /// its reproducer always name the same file).
    pub fn path(&self, dir: &Path) -> PathBuf {
        // FNV-1a: a stable name, the same in every run of the search
        let h = self.json().bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        dir.join(format!("rtapp-{h:016x}.json"))
    }

    /// Writes the JSON at [`TaskSet::path`] if it is not there yet.
    pub fn write(&self, dir: &Path) -> Result<PathBuf> {
        let path = self.path(dir);
        if !path.exists() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            // write then rename: parallel cases may write the same file
            let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
            std::fs::write(&tmp, self.json())
                .with_context(|| format!("writing {}", tmp.display()))?;
            std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(path)
    }

    /// Smaller variants: a task dropped, a task's threads halved, its
    /// affinity or nice removed, its changing phases dropped (all, or one,
    /// or one's cpus or nice).
    pub fn smaller(&self) -> Vec<TaskSet> {
        let mut v = Vec::new();
        for i in 0..self.tasks.len() {
            if self.tasks.len() > 1 {
                let mut d = self.clone();
                d.tasks.remove(i);
                v.push(d);
            }
            let t = &self.tasks[i];
            if !t.phases.is_empty() {
                let mut d = self.clone();
                d.tasks[i].phases.clear();
                v.push(d);
            }
            for j in 0..t.phases.len() {
                if t.phases.len() > 1 {
                    let mut d = self.clone();
                    d.tasks[i].phases.remove(j);
                    v.push(d);
                }
                if t.phases[j].cpus.is_some() {
                    let mut d = self.clone();
                    d.tasks[i].phases[j].cpus = None;
                    v.push(d);
                }
                if t.phases[j].nice.is_some() {
                    let mut d = self.clone();
                    d.tasks[i].phases[j].nice = None;
                    v.push(d);
                }
            }
            if t.instance > 1 {
                let mut d = self.clone();
                d.tasks[i].instance = t.instance / 2;
                v.push(d);
            }
            if t.cpus.is_some() {
                let mut d = self.clone();
                d.tasks[i].cpus = None;
                v.push(d);
            }
            if t.nice.is_some() {
                let mut d = self.clone();
                d.tasks[i].nice = None;
                v.push(d);
            }
            if t.delay > 0 {
                let mut d = self.clone();
                d.tasks[i].delay = 0;
                v.push(d);
            }
        }
        v
    }

    /// The same set on a machine of `ncpu` CPUs (affinity to CPUs that
    /// no longer exist dropped, the task's and each phase's: one left
    /// with none has none, i.e. the task's or every CPU), for a shrunk
    /// machine.
    pub fn fit(&self, ncpu: u64) -> TaskSet {
        let fit = |cpus: &mut Option<Vec<u64>>| {
            if let Some(c) = cpus {
                c.retain(|&x| x < ncpu);
                if c.is_empty() {
                    *cpus = None;
                }
            }
        };
        let mut d = self.clone();
        for t in &mut d.tasks {
            fit(&mut t.cpus);
            for p in &mut t.phases {
                fit(&mut p.cpus);
            }
        }
        d
    }

    /// Phases whose affinity differs from the one before them (the
    /// first's: from the task's): sched_setaffinity calls of running
    /// threads in their first pass through the phases.
    pub fn affinity_changes(&self) -> usize {
        self.tasks
            .iter()
            .map(|t| {
                let mut prev = t.cpus.clone();
                let mut n = 0;
                for p in &t.phases {
                    let now = p.cpus.clone().or_else(|| t.cpus.clone());
                    n += usize::from(now != prev);
                    prev = now;
                }
                n
            })
            .sum()
    }

    /// Phases that set a nice different from the task's own.
    pub fn nice_changes(&self) -> usize {
        self.tasks
            .iter()
            .map(|t| {
                t.phases
                    .iter()
                    .filter(|p| p.nice.is_some_and(|n| n != t.nice.unwrap_or(0)))
                    .count()
            })
            .sum()
    }
}

/// 1-8 CPUs of the machine, sorted.
fn some_cpus(r: &mut Rng, ncpu: u64) -> Vec<u64> {
    let mut v: Vec<u64> = (0..r.range(1, ncpu.min(8)))
        .map(|_| r.below(ncpu))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every drawn set is a file the simulator's rt-app reader accepts, and
    /// the sets do what the module says: pinned, niced, delayed, finite
    /// and burst tasks all occur, and tasks whose phases change the
    /// running threads' affinity (back to the task's, to one CPU, away
    /// from every CPU of the phase before) and nice.
    #[test]
    fn drawn_sets_are_valid_rt_app_and_varied() {
        let (mut pinned, mut niced, mut delayed, mut exits, mut bursts, mut locks) =
            (0, 0, 0, 0, 0, 0);
        let (mut phased, mut unset, mut one, mut away, mut renice) = (0, 0, 0, 0, 0);
        for k in 0..400 {
            let mut r = Rng::new(3, k);
            let ncpu = r.range(1, 64);
            let mut t = TaskSet::draw(&mut r, ncpu);
            t.draw_changes(&mut r, ncpu);
            arbor_sim::workload::rtapp::RtApp::parse("drawn", &t.json(), ncpu as usize)
                .unwrap_or_else(|e| panic!("{k}: {e:#}\n{}", t.json()));
            for x in &t.tasks {
                pinned += usize::from(x.cpus.as_ref().is_some_and(|c| c.len() == 1));
                niced += usize::from(x.nice.is_some());
                delayed += usize::from(x.delay > 0);
                exits += usize::from(x.loops > 0);
                bursts += usize::from(x.instance >= 100);
                locks += usize::from(matches!(x.body, Body::Locked(..)));
                phased += usize::from(x.phases.len() >= 2);
                let mut prev = x.cpus.clone();
                for p in &x.phases {
                    unset += usize::from(p.cpus.is_none());
                    one += usize::from(p.cpus.as_ref().is_some_and(|c| c.len() == 1));
                    away += usize::from(
                        p.cpus
                            .as_ref()
                            .zip(prev.as_ref())
                            .is_some_and(|(c, q)| c.iter().all(|x| !q.contains(x))),
                    );
                    renice += usize::from(p.nice.is_some());
                    prev = p.cpus.clone().or_else(|| x.cpus.clone());
                }
            }
            for d in t.smaller() {
                assert!(d.threads() <= t.threads());
                arbor_sim::workload::rtapp::RtApp::parse("smaller", &d.json(), ncpu as usize)
                    .unwrap();
            }
            // fitted to a smaller machine, it is still valid there
            let f = t.fit(1);
            arbor_sim::workload::rtapp::RtApp::parse("fit", &f.json(), 1).unwrap();
        }
        for (what, n) in [
            ("pinned", pinned),
            ("niced", niced),
            ("delayed", delayed),
            ("exiting", exits),
            ("burst", bursts),
            ("locking", locks),
            ("phased", phased),
            ("phases without cpus:", unset),
            ("phases on one CPU:", one),
            ("phases away from the CPUs before:", away),
            ("phases setting the nice:", renice),
        ] {
            assert!(n >= 20, "only {n} {what} tasks in 400 sets");
        }
    }

    /// The JSON of a task with phases: one phase per change, each with
    /// the task's body and its own cpus and priority; the reader reads
    /// them back (the thread's first steps set them), and fitted to two
    /// CPUs a phase whose CPUs are all gone has no "cpus".
    #[test]
    fn changes_are_phases_with_their_own_cpus_and_priority() {
        use arbor_sim::workload::{Effects, Prop, Workload};
        let t = TaskSet {
            tasks: vec![Task {
                instance: 1,
                delay: 0,
                loops: 1,
                cpus: Some(vec![0]),
                nice: Some(3),
                body: Body::RunSleep(10, 0),
                taskgroup: None,
                phases: vec![
                    Change {
                        loops: 1,
                        cpus: Some(vec![2, 3]),
                        nice: Some(-5),
                    },
                    Change {
                        loops: 2,
                        cpus: None,
                        nice: None,
                    },
                ],
            }],
        };
        let j = t.json();
        assert!(
            j.contains(r#""phases": {"p0": {"loop": 1, "cpus": [2, 3], "priority": -5, "run": 10, "sleep": 0}, "p1": {"loop": 2, "run": 10, "sleep": 0}}}"#),
            "{j}"
        );
        assert_eq!((t.affinity_changes(), t.nice_changes()), (2, 1));
        let mut w = arbor_sim::workload::rtapp::RtApp::parse("t", &j, 4).unwrap();
        let mut fx = Effects::default();
        w.next(0, 0, &mut fx);
        assert_eq!(
            fx.props,
            [
                (0, Prop::Cpus(vec![2, 3])),
                (
                    0,
                    Prop::Weight(arbor_sim::workload::rtapp::nice_to_weight(-5))
                )
            ]
        );
        let f = t.fit(2);
        assert_eq!(f.tasks[0].phases[0].cpus, None);
        assert_eq!(f.affinity_changes(), 0);
        arbor_sim::workload::rtapp::RtApp::parse("fit", &f.json(), 2).unwrap();
    }

    #[test]
    fn the_file_is_named_by_its_content() {
        let dir = std::env::temp_dir().join(format!("arbor-fuzz-test-{}", std::process::id()));
        let a = TaskSet::draw(&mut Rng::new(1, 1), 8);
        let b = TaskSet::draw(&mut Rng::new(1, 2), 8);
        // an older set's file is unchanged: no phases, one phase "p"
        assert!(a.tasks.iter().all(|t| t.phases.is_empty()));
        assert!(a.json().contains(r#""phases": {"p": {"loop": 1, "#));
        assert_ne!(a.path(&dir), b.path(&dir));
        let p = a.write(&dir).unwrap();
        assert_eq!(p, a.path(&dir));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), a.json());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
