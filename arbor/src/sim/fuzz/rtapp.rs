//! Random rt-app task sets for `arbor sim fuzz`: what the hand-written
//! workload models never do. Threads pinned to one CPU or a few, nice
//! values from -20 to 19, starts spread through the run (forks while the
//! machine is busy), threads that finish after a few loops (exits), bursts
//! of hundreds to thousands of short-lived threads, and mutexes shared by
//! a task's threads. Each set is written as an rt-app JSON file, the
//! language `arbor sim -w rt-app:FILE` and the real rt-app read.

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
                    1 => {
                        let mut v: Vec<u64> = (0..r.range(1, ncpu.min(8)))
                            .map(|_| r.below(ncpu))
                            .collect();
                        v.sort_unstable();
                        v.dedup();
                        Some(v)
                    }
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
                }
            })
            .collect();
        TaskSet { tasks }
    }

    #[cfg(test)]
    pub fn threads(&self) -> u64 {
        self.tasks.iter().map(|t| t.instance).sum()
    }

    /// The rt-app JSON of the set.
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
            s.push_str(", \"phases\": {\"p\": {\"loop\": 1");
            let _ = match &t.body {
                Body::RunSleep(run, sleep) => {
                    write!(s, ", \"run\": {run}, \"sleep\": {sleep}")
                }
                Body::Periodic(run, period) => write!(
                    s,
                    ", \"run\": {run}, \"timer\": {{\"ref\": \"unique{i}\", \"period\": {period}}}"
                ),
                Body::Locked(run, sleep) => write!(
                    s,
                    ", \"lock\": \"m{i}\", \"run\": {run}, \"unlock\": \"m{i}\", \"sleep\": {sleep}"
                ),
            };
            s.push_str("}}}");
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
    /// affinity or nice removed.
    pub fn smaller(&self) -> Vec<TaskSet> {
        let mut v = Vec::new();
        for i in 0..self.tasks.len() {
            if self.tasks.len() > 1 {
                let mut d = self.clone();
                d.tasks.remove(i);
                v.push(d);
            }
            let t = &self.tasks[i];
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
    /// no longer exist dropped), for a shrunk machine.
    pub fn fit(&self, ncpu: u64) -> TaskSet {
        let mut d = self.clone();
        for t in &mut d.tasks {
            if let Some(c) = &mut t.cpus {
                c.retain(|&x| x < ncpu);
                if c.is_empty() {
                    t.cpus = None;
                }
            }
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every drawn set is a file the simulator's rt-app reader accepts, and
    /// the sets do what the module says: pinned, niced, delayed, finite
    /// and burst tasks all occur.
    #[test]
    fn drawn_sets_are_valid_rt_app_and_varied() {
        let (mut pinned, mut niced, mut delayed, mut exits, mut bursts, mut locks) =
            (0, 0, 0, 0, 0, 0);
        for k in 0..400 {
            let mut r = Rng::new(3, k);
            let ncpu = r.range(1, 64);
            let t = TaskSet::draw(&mut r, ncpu);
            arbor_sim::workload::rtapp::RtApp::parse("drawn", &t.json(), ncpu as usize)
                .unwrap_or_else(|e| panic!("{k}: {e:#}\n{}", t.json()));
            for x in &t.tasks {
                pinned += usize::from(x.cpus.as_ref().is_some_and(|c| c.len() == 1));
                niced += usize::from(x.nice.is_some());
                delayed += usize::from(x.delay > 0);
                exits += usize::from(x.loops > 0);
                bursts += usize::from(x.instance >= 100);
                locks += usize::from(matches!(x.body, Body::Locked(..)));
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
        ] {
            assert!(n >= 20, "only {n} {what} tasks in 400 sets");
        }
    }

    #[test]
    fn the_file_is_named_by_its_content() {
        let dir = std::env::temp_dir().join(format!("arbor-fuzz-test-{}", std::process::id()));
        let a = TaskSet::draw(&mut Rng::new(1, 1), 8);
        let b = TaskSet::draw(&mut Rng::new(1, 2), 8);
        assert_ne!(a.path(&dir), b.path(&dir));
        let p = a.write(&dir).unwrap();
        assert_eq!(p, a.path(&dir));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), a.json());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
