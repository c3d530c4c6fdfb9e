//! The cgroups a run's tasks are in (TaskSpec::cgroup, a workload's `cg=`):
//! the root (index 0) and every group below it that a task names, with its
//! ancestors, parents before children, as ext.c's scx_cgroup_init walks
//! them (css_for_each_descendant_pre) when the scheduler loads; the
//! scheduler hears of them through ops.cgroup_init / cgroup_exit
//! (sched/native.rs), and each task joins its own before ops.init_task.
//! A run whose tasks are all in the root has the root alone.

use anyhow::{bail, Result};

use super::ops::Ops;
use super::Core;
use crate::task::{CgroupLimits, TaskId, TaskSpec};

/// Deepest group below the root (the scheduler's flattening walks as many
/// levels: policy.h ARBOR_CG_MAX_DEPTH).
pub const MAX_DEPTH: usize = 8;

/// What is wrong with a cgroup path a user gave, for each reader's own
/// message (a workload's cg=, --cgroup-event, rt-app's taskgroup).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathError {
    /// not `/NAME[/NAME...]` of names of letters, digits, `_`, `.`, `-`
    NotAPath,
    /// more than MAX_DEPTH levels below the root
    TooDeep,
}

/// Checks a cgroup path below the root.
pub fn check_path(path: &str) -> std::result::Result<(), PathError> {
    let ok = path.len() > 1
        && path.starts_with('/')
        && path[1..].split('/').all(|c| {
            !c.is_empty()
                && c.chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || "_.-".contains(ch))
        });
    if !ok {
        return Err(PathError::NotAPath);
    }
    if path[1..].split('/').count() > MAX_DEPTH {
        return Err(PathError::TooDeep);
    }
    Ok(())
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// `/a/x`; the root's is `/`
    pub path: String,
    /// index of the parent (the root's is 0, itself)
    pub parent: usize,
    pub level: u32,
    /// cpu.weight
    pub weight: u32,
    /// cpu.max, cpu.max.burst, cpu.idle
    pub limits: CgroupLimits,
    /// the weight was given (not an ancestor's default)
    explicit: bool,
    /// cpu.max's period in microseconds, kept while the quota is "max"
    /// (cpu_max_write keeps the period a write leaves out)
    pub period_us: u64,
    /// removed at run time (an `rmdir` event): its index stays, as its
    /// kernfs id does, and no later event or the unload names it
    pub removed: bool,
}

#[derive(Clone, Debug)]
pub struct Cgroups {
    nodes: Vec<Node>,
    /// each task's group (index into nodes)
    of_task: Vec<usize>,
    /// tasks a move event named before they started: they start where it
    /// put them, not in their parent's group (`fork_into_parents`)
    placed: Vec<bool>,
}

impl Default for Cgroups {
    fn default() -> Self {
        Cgroups {
            nodes: vec![Node {
                path: "/".into(),
                parent: 0,
                level: 0,
                weight: 100,
                limits: CgroupLimits::default(),
                explicit: true,
                period_us: 100_000,
                removed: false,
            }],
            of_task: Vec::new(),
            placed: Vec::new(),
        }
    }
}

impl Cgroups {
    /// The groups of `specs` (task i is specs[i]). A path named twice with
    /// two weights is an error.
    pub fn from_specs(specs: &[TaskSpec]) -> Result<Cgroups> {
        let mut c = Cgroups::default();
        for s in specs {
            let g = match &s.cgroup {
                None => 0,
                Some(cg) => c.add(&cg.path, cg.weight, cg.limits)?,
            };
            c.of_task.push(g);
        }
        Ok(c)
    }

    fn add(&mut self, path: &str, weight: u32, limits: CgroupLimits) -> Result<usize> {
        let parts: Vec<&str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
        if !path.starts_with('/') || parts.iter().any(|p| p.is_empty()) {
            bail!("cgroup '{path}': not a path below the root (/NAME[/NAME...])");
        }
        if parts.len() > MAX_DEPTH {
            bail!("cgroup '{path}': deeper than {MAX_DEPTH} levels");
        }
        if !(1..=10_000).contains(&weight) {
            bail!("cgroup '{path}': weight {weight} is not in 1..10000");
        }
        let mut at = 0;
        for (k, _) in parts.iter().enumerate() {
            let p = format!("/{}", parts[..=k].join("/"));
            let leaf = k + 1 == parts.len();
            at = match self.nodes.iter().position(|n| n.path == p) {
                Some(i) => {
                    let n = &mut self.nodes[i];
                    if leaf && n.explicit && n.weight != weight {
                        bail!(
                            "cgroup '{p}' is given weight {} and weight {weight}",
                            n.weight
                        );
                    }
                    if leaf && n.explicit && n.limits != limits {
                        bail!("cgroup '{p}' is given two different max/burst/idle");
                    }
                    if leaf && !n.explicit {
                        n.weight = weight;
                        n.limits = limits;
                        n.period_us = limits.max.map_or(100_000, |m| m.1);
                        n.explicit = true;
                    }
                    i
                }
                None => {
                    self.nodes.push(Node {
                        path: p,
                        parent: at,
                        level: k as u32 + 1,
                        weight: if leaf { weight } else { 100 },
                        limits: if leaf {
                            limits
                        } else {
                            CgroupLimits::default()
                        },
                        explicit: leaf,
                        period_us: if leaf {
                            limits.max.map_or(100_000, |m| m.1)
                        } else {
                            100_000
                        },
                        removed: false,
                    });
                    self.nodes.len() - 1
                }
            };
        }
        Ok(at)
    }

    /// The root and the groups below it, parents before children.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Task t's group; the root for a task the specs did not name.
    pub fn of_task(&self, t: TaskId) -> usize {
        self.of_task.get(t).copied().unwrap_or(0)
    }

    /// The group at `path` (the root's is `/`), not removed.
    pub fn find(&self, path: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.path == path && !n.removed)
    }

    /// Task t joins group g (a move: cgroup_events.rs).
    pub(super) fn set_task(&mut self, t: TaskId, g: usize) {
        if self.of_task.len() <= t {
            self.of_task.resize(t + 1, 0);
        }
        self.of_task[t] = g;
    }

    /// Task t, not started yet, was named by a move (cgroup_events.rs).
    pub(super) fn set_placed(&mut self, t: TaskId) {
        if self.placed.len() <= t {
            self.placed.resize(t + 1, false);
        }
        self.placed[t] = true;
    }

    /// A child forked by `parent` starts in the parent's group, as
    /// cgroup_post_fork puts it in the parent's css_set (and
    /// sched_cgroup_fork in its task group; ext.c's ops.init_task gets that
    /// cgroup): its spec's group is where the parent was when the workload
    /// was made, and a move of the parent since changes it. A child a
    /// move event named before its fork keeps that group (the simulator's
    /// way to create a task elsewhere).
    pub(super) fn fork_into_parents(&mut self, child: TaskId, parent: TaskId) {
        if !self.placed.get(child).copied().unwrap_or(false) {
            let g = self.of_task(parent);
            self.set_task(child, g);
        }
    }

    pub(super) fn node_mut(&mut self, g: usize) -> &mut Node {
        &mut self.nodes[g]
    }

    /// A new group at `path` below `parent`, with cgroup v2's defaults
    /// (an mkdir: cgroup_events.rs); its index.
    pub(super) fn push_child(&mut self, parent: usize, path: &str) -> usize {
        self.nodes.push(Node {
            path: path.to_string(),
            parent,
            level: self.nodes[parent].level + 1,
            weight: 100,
            limits: CgroupLimits::default(),
            explicit: true,
            period_us: 100_000,
            removed: false,
        });
        self.nodes.len() - 1
    }

    /// Whether any task is in a group below the root.
    pub fn below_root(&self) -> bool {
        self.nodes.len() > 1
    }

    /// The kernfs id the scheduler sees for group i (the root's is 1).
    pub fn id(i: usize) -> u64 {
        1 + i as u64
    }
}

impl Core {
    /// Which of ops.cgroup_init / cgroup_exit the core calls at load and
    /// unload. A scheduler whose callbacks act on groups below the root
    /// only ([`Ops::cgroup_groups_only`]) is not called for a root that is
    /// alone: nothing would change but the cost of the calls, and runs of
    /// root-only workloads stay what they were before it had them.
    pub(super) fn cgroup_ops_of(&self, ops: &dyn Ops) -> (bool, bool) {
        // (a run with cgroup events gets them all: a group may come later)
        if ops.cgroup_groups_only()
            && !self.cgroups.below_root()
            && self.cfg.cgroup_events.is_empty()
        {
            return (false, false);
        }
        ops.cgroup_ops()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Cgroup;

    fn spec(path: Option<(&str, u32)>) -> TaskSpec {
        let mut s = TaskSpec::new("t", 1);
        s.cgroup = path.map(|(p, w)| Cgroup {
            path: p.into(),
            weight: w,
            limits: Default::default(),
        });
        s
    }

    #[test]
    fn groups_come_parents_first_with_default_ancestors() {
        let c = Cgroups::from_specs(&[
            spec(Some(("/a/x", 300))),
            spec(None),
            spec(Some(("/b", 400))),
            spec(Some(("/a", 50))),
        ])
        .unwrap();
        let n = c.nodes();
        let paths: Vec<&str> = n.iter().map(|n| n.path.as_str()).collect();
        assert_eq!(paths, ["/", "/a", "/a/x", "/b"]);
        assert_eq!((n[1].weight, n[2].weight, n[3].weight), (50, 300, 400));
        assert_eq!((n[2].parent, n[2].level), (1, 2));
        assert_eq!(
            (0..4).map(|t| c.of_task(t)).collect::<Vec<_>>(),
            [2, 0, 3, 1]
        );
        assert!(c.below_root());
        assert!(!Cgroups::from_specs(&[spec(None)]).unwrap().below_root());
    }

    #[test]
    fn bad_groups_are_one_line_errors() {
        for (p, w) in [
            ("a", 100),
            ("/a//b", 100),
            ("/a", 0),
            ("/a", 10_001),
            ("/1/2/3/4/5/6/7/8/9", 100),
        ] {
            let e = Cgroups::from_specs(&[spec(Some((p, w)))]).unwrap_err();
            assert!(e.to_string().contains("cgroup"), "{p}: {e}");
        }
        let e =
            Cgroups::from_specs(&[spec(Some(("/a", 100))), spec(Some(("/a", 200)))]).unwrap_err();
        assert!(e.to_string().contains("weight 100 and weight 200"), "{e}");
    }
}
