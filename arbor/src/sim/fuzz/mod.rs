//! `arbor sim fuzz`: a property-based search for stalls and errors over
//! random machines x workloads x schedulers. Each case is one `arbor sim`
//! run in a process of its own (so a crash is a finding, not the end of
//! the search), checked by the simulator itself: its invariants, the
//! sched_ext watchdog (a runnable task waiting past the timeout ejects the
//! scheduler), the scheduler's own errors, and a division fault outside
//! the BPF rules (the process dies). A failure is printed as the one
//! command line that reproduces it and as a minimised one (the machine and
//! the workload shrunk while the same kind of failure remains).
//!
//! Deterministic from `--seed`: case k is drawn from a generator seeded
//! with (seed, k), whatever `--jobs` is.
//!
//! Workloads are the models (hackbench, perf-pipe, schbench, sysbench,
//! wakeprobe, spinners, pgbench) and random rt-app task sets
//! ([`rtapp`]: pinned threads, nice values, forks through the run, exits,
//! bursts of thousands of short-lived threads, mutexes, and affinity and
//! nice changes of running threads, below). scx_arbor runs
//! with random feature switches and knob values inside their documented
//! ranges ([`knobs`]).
//!
//! The watchdog: each case runs with a short timeout (`--watchdog-ms`,
//! 1 s by default) so that a stall shows within a short case. A task may
//! legitimately wait that long on an overloaded machine, so a case ejected
//! by the short watchdog is run again with the kernel's 30 s timeout for
//! 35 simulated seconds: only if that ejects too is it a failure; if not,
//! it is reported as a long wait.
//!
//! Machines may have holes in their CPU numbering (`absent=`), CPUs
//! offline from the start (`offline=`) and CPU hotplug events during the
//! run (`--hotplug off:CPU@TIME,...`; sim/src/core/hotplug.rs). A
//! scheduler without ops.cpu_online/cpu_offline exits at each event asking
//! for a restart and is loaded again, as its loader does: an expected
//! restart, not a failure; a task on an offline CPU is an invariant
//! violation. These draws come after all the others, so a seed's older
//! cases keep their machine, scheduler and workload.
//!
//! The scheduler pool: scx_arbor's profiles (half the cases), the five
//! peers, and the kernel's example schedulers
//! (`kernel:scx_simple`, `kernel:scx_qmap`, `kernel:scx_central`). A
//! kernel scheduler is drawn after everything else, in place of three
//! peer picks in eight, so a seed's cases keep their machine and workload
//! and its scx_arbor cases are unchanged; each of the eight non-arbor
//! schedulers gets about one case in sixteen. Their failures, as the
//! peers', are reported and not fatal.
//!
//! Affinity and nice changes of running threads: three rt-app sets in
//! four, drawn after the hotplug events (so, again, the rest of a case
//! is as it was), give some of their tasks 2-4 phases, each with its own
//! `"cpus"` (none: back to the task's or every CPU; one CPU; a few; or
//! none of the previous phase's CPUs, so that the running thread must be
//! moved) and its own `"priority"` (the nice from that phase on: later
//! rt-app's per-phase priority, sim/src/workload/rtapp/). rt-app makes
//! these calls on the running thread itself at each loop of a phase, so
//! the core's sched_change guard and migration stopper run with it on a
//! CPU (sim/src/core/affinity.rs). A mask of offline CPUs only is refused
//! as the kernel refuses it (EINVAL).
//!
//! Cgroups (`--cgroups`; off by default, so a seed's cases are the same
//! without it): drawn after everything else, each case's model workload
//! runs in a group (`cg=`: a weight, sometimes cpu.max with a burst, or
//! cpu.idle; sometimes a nested one), and 1-6 cgroup events come during
//! the run (`--cgroup-event`: mkdir, moves of tasks between groups,
//! cpu.weight, cpu.max, cpu.max.burst and cpu.idle writes, rmdir of an
//! empty group), so the schedulers' cgroup callbacks are fuzzed. An
//! rt-app set's tasks get a "taskgroup" each (/rt/N, two in three).

mod knobs;
mod rtapp;
mod shard;
use rtapp::TaskSet;
pub use shard::merge;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use serde::{Deserialize, Serialize};

use crate::report::summary;
use crate::simrun::{self_exe, JobOut};

#[derive(Debug, Args)]
pub struct FuzzArgs {
    /// How many cases to run.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    cases: u64,
    /// The search's seed: case k is drawn from (seed, k).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop starting new cases after this many seconds of wall time (0: no
    /// limit).
    #[arg(long, default_value_t = 0)]
    time: u64,
    /// Cases run at once (default: this machine's CPUs).
    #[arg(short, long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    jobs: Option<u32>,
    /// Simulated seconds per case.
    #[arg(long, default_value_t = 2.0)]
    sim_seconds: f64,
    /// The watchdog of each case, in ms (shorter than the kernel's 30 s so
    /// that a stall shows in a short case; an ejection by it is checked
    /// again with the kernel's timeout).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=30_000))]
    watchdog_ms: u64,
    /// Only schedulers whose name starts with this (arbor, bpfland, ...).
    #[arg(long, value_name = "NAME")]
    only: Option<String>,
    /// Write report.md, results.json and summary.json here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Which failures to minimise: all, arbor (scx_arbor's only, all that
    /// `make test` needs), none. A minimisation reruns its case up to 40
    /// times, one after another, after the search.
    #[arg(long, value_enum, default_value_t = ShrinkWhich::All)]
    shrink: ShrinkWhich,
    /// Run part I of N of the cases, for a job array: case k of --cases
    /// (the whole search's) in part k mod N; --time bounds each part. Takes
    /// I/N (I from 0 to N-1), auto (a Slurm array task:
    /// SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT) or auto/N (a Kubernetes
    /// Indexed Job's JOB_COMPLETION_INDEX of N completions). Needs --out;
    /// `arbor sim merge` joins the parts' directories.
    #[arg(long, value_name = "I/N|auto[/N]", value_parser = crate::shard::parse)]
    shard: Option<crate::shard::ShardArg>,
    /// Put each case's workload in cgroups and change them during the run
    /// (a group with a weight, cpu.max, cpu.max.burst or cpu.idle, and 1-6
    /// --cgroup-event writes: mkdir, moves, weight, max, burst, idle,
    /// rmdir), drawn after the rest of the case: without it a seed's cases
    /// are what they were.
    #[arg(long)]
    cgroups: bool,
}

/// `--shrink`: whose failures are minimised.
#[derive(Clone, Copy, Debug, PartialEq, clap::ValueEnum, Serialize, Deserialize)]
pub enum ShrinkWhich {
    All,
    Arbor,
    None,
}

impl ShrinkWhich {
    fn wants(self, sched: &str) -> bool {
        match self {
            ShrinkWhich::All => true,
            ShrinkWhich::Arbor => sched.starts_with("arbor"),
            ShrinkWhich::None => false,
        }
    }
}

/// splitmix64: a small, well-mixed generator, seeded per case.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, case: u64) -> Rng {
        let mut r = Rng(seed ^ case.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next();
        r
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize]
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
}

/// One case: a machine, a scheduler, a workload, a simulation seed.
#[derive(Clone, Debug, Serialize)]
pub struct Case {
    /// shape keys: n, l, c, t, x86, little, d
    pub shape: Vec<(&'static str, u64)>,
    pub sched: String,
    /// scx_arbor's knobs (empty for a peer)
    pub knobs: Vec<(String, u64)>,
    pub workload: &'static str,
    pub keys: Vec<(&'static str, String)>,
    pub background: bool,
    pub seed: u64,
    /// an rt-app task set (workload "rt-app"), written to `dir`
    pub rtapp: Option<rtapp::TaskSet>,
    /// CPU ids offline from the start, and holes in the numbering
    pub offline: Vec<u64>,
    pub absent: Vec<u64>,
    /// hotplug events during the run, as `--hotplug` takes them (may be empty)
    pub hotplug: String,
    /// `--cgroups`: the workload's group, as its `cg=` key takes it
    pub cgroup: Option<String>,
    /// `--cgroups`: changes during the run, as `--cgroup-event` takes them
    /// (`;` between; may be empty)
    pub cgroup_events: String,
    #[serde(skip)]
    pub dir: PathBuf,
}

impl Case {
    fn machine(&self) -> String {
        let mut k: Vec<String> = self.shape.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let list = |v: &[u64]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join("+")
        };
        if !self.offline.is_empty() {
            k.push(format!("offline={}", list(&self.offline)));
        }
        if !self.absent.is_empty() {
            k.push(format!("absent={}", list(&self.absent)));
        }
        format!("shape:{}", k.join(","))
    }
    /// The scheduler as `-s` takes it, knobs included.
    fn sched_arg(&self) -> String {
        if self.knobs.is_empty() {
            return self.sched.clone();
        }
        let k: Vec<String> = self.knobs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        // arbor[:PROFILE][:FEAT,...][:KNOB=VALUE,...]
        format!("{}:{}", self.sched, k.join(","))
    }
    /// The rt-app file of the case, written if it is not there yet.
    fn write_files(&self) -> Result<()> {
        if let Some(t) = &self.rtapp {
            t.write(&self.dir)?;
        }
        Ok(())
    }
    fn spec(&self) -> String {
        let mut k: Vec<String> = self.keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if let Some(cg) = &self.cgroup {
            k.push(format!("cg={cg}"));
        }
        let mut s = if let Some(t) = &self.rtapp {
            format!("rt-app:{}", t.path(&self.dir).display())
        } else if k.is_empty() {
            self.workload.to_string()
        } else {
            format!("{}:{}", self.workload, k.join(","))
        };
        if self.background {
            s.push_str("+background:r=2000");
        }
        s
    }
    fn command(&self, w: &Watch) -> String {
        format!(
            "arbor sim -t {} -s {} -w '{}' --seed {} --time-limit {} --watchdog-ms {}{}{}",
            self.machine(),
            self.sched_arg(),
            self.spec(),
            self.seed,
            w.sim_s,
            w.watchdog_ms,
            if self.hotplug.is_empty() {
                String::new()
            } else {
                format!(" --hotplug {}", self.hotplug)
            },
            if self.cgroup_events.is_empty() {
                String::new()
            } else {
                format!(" --cgroup-event '{}'", self.cgroup_events)
            }
        )
    }
    /// How many tasks its workload has (the ids `--cgroup-event move`
    /// takes), None if the simulator would refuse it.
    fn ntasks(&self) -> Option<usize> {
        self.write_files().ok()?;
        let m = arbor_sim::presets::find(&self.machine()).ok()?;
        let w = arbor_sim::workload::spec::parse(&self.spec(), m.nr_cpus(), self.seed).ok()?;
        Some(w.tasks().len())
    }
    fn cpus(&self) -> u64 {
        let g = |k: &str| self.shape.iter().find(|x| x.0 == k).map_or(1, |x| x.1);
        g("n") * g("l") * g("c") * g("t")
    }
    /// The scheduler without its profile, features and knobs
    /// (`kernel:NAME` whole: each is a scheduler of its own).
    fn sched_name(&self) -> &str {
        if self.sched.starts_with("kernel:") {
            return &self.sched;
        }
        self.sched.split(':').next().unwrap_or("?")
    }
}

/// How long a case runs, and its watchdog.
#[derive(Clone, Copy, Debug)]
pub struct Watch {
    pub sim_s: f64,
    pub watchdog_ms: u64,
}

/// The kernel's watchdog, and long enough a run for it to fire: what a
/// short-watchdog ejection is checked against.
const KERNEL_WATCH: Watch = Watch {
    sim_s: 35.0,
    watchdog_ms: 30_000,
};

/// The peers (sim/src/sched/peers.rs).
const PEERS: [&str; 5] = ["bpfland", "cosmos", "lavd", "p2dq", "rusty"];

/// The kernel's example schedulers (tools/sched_ext/ of Linux 7.2.13,
/// built unmodified: sim/src/sched/ksft.rs).
/// Their failures are reported, not fatal, as a peer's.
const KERNEL_SCHEDS: [&str; 3] = ["kernel:scx_simple", "kernel:scx_qmap", "kernel:scx_central"];

/// Draws case `k`; an rt-app case's file goes to `dir`.
#[cfg(test)]
fn draw(seed: u64, k: u64, only: Option<&str>, dir: &Path) -> Case {
    draw_with(seed, k, only, dir, false)
}

/// Draws case `k`, with cgroups if `cgroups` (`--cgroups`: drawn after
/// everything else, so the rest of the case is the same).
fn draw_with(seed: u64, k: u64, only: Option<&str>, dir: &Path, cgroups: bool) -> Case {
    let mut r = Rng::new(seed, k);
    // machines: mostly small (fast), sometimes large
    // SMT 1, 2, 4 (an SMT8 core is two 4-thread groups in the model)
    let t = r.pick(&[1, 1, 2, 2, 2, 4, 4]);
    let n = r.pick(&[1, 1, 1, 2, 2, 3, 4, 8]);
    let l = r.pick(&[1, 1, 2, 3, 4]);
    let mut c = r.pick(&[1, 1, 2, 3, 4, 6, 8, 16]);
    let big = r.below(20) == 0;
    let cap = if big { 1024 } else { 128 };
    while n * l * c * t > cap && c > 1 {
        c /= 2;
    }
    let cores = n * l * c;
    let mut shape = vec![("n", n), ("l", l), ("c", c), ("t", t)];
    if t > 1 && r.below(3) == 0 {
        shape.push(("x86", 1));
    }
    if cores > 1 && r.below(5) == 0 {
        shape.push(("little", r.range(1, cores - 1)));
    }
    if n > 1 {
        shape.push(("d", r.pick(&[12, 20, 21, 32, 40])));
    }
    let ncpu = cores * t;
    // schedulers: arbor's profiles with random feature switches, and every
    // peer; some peer picks become one of the kernel's example schedulers
    // at the end of the draw (KERNEL_SCHEDS)
    let peers = PEERS;
    // `--only kernel...`: a peer pick stands in until the end of the draw
    let for_kernel = |o: &str| KERNEL_SCHEDS.iter().any(|k| k.starts_with(o));
    let mut knobs = Vec::new();
    let mut sched = loop {
        knobs.clear();
        let s = if r.below(2) == 0 {
            let p = r.pick(&["stock", "seeds", "default"]);
            let names: Vec<&str> = scx_arbor::features::FEATURES
                .iter()
                .map(|f| f.name)
                .collect();
            let mut f: Vec<String> = Vec::new();
            for _ in 0..r.below(4) {
                let name = r.pick(&names);
                f.push(if r.below(2) == 0 {
                    name.to_string()
                } else {
                    format!("NO_{name}")
                });
            }
            f.sort();
            f.dedup_by(|a, b| a.trim_start_matches("NO_") == b.trim_start_matches("NO_"));
            knobs = knobs::draw(&mut r);
            if f.is_empty() {
                format!("arbor:{p}")
            } else {
                format!("arbor:{p}:{}", f.join(","))
            }
        } else {
            r.pick(&peers).to_string()
        };
        if only.is_none_or(|o| s.starts_with(o) || (for_kernel(o) && peers.contains(&&*s))) {
            break s;
        }
    };
    let u = |x: u64| x.to_string();
    let mut rtapp = None;
    let (workload, keys): (&'static str, Vec<(&'static str, String)>) = match r.below(8) {
        0 => (
            "hackbench",
            vec![
                ("g", u(r.range(1, 3))),
                ("l", u(r.range(5, 60))),
                ("mode", r.pick(&["process", "thread"]).to_string()),
                ("ipc", r.pick(&["pipe", "socket"]).to_string()),
            ],
        ),
        1 => ("perf-pipe", vec![("l", u(r.range(50, 2000)))]),
        2 => (
            "schbench",
            vec![
                ("m", u(r.range(1, 2))),
                ("w", u(r.range(1, 8))),
                ("r", u(1)),
            ],
        ),
        3 => (
            "sysbench",
            vec![("threads", u(r.range(1, 2 * ncpu.min(64)))), ("time", u(1))],
        ),
        4 => (
            "wakeprobe",
            vec![
                ("m", u(r.range(1, 2))),
                ("w", u(r.range(1, 4))),
                ("t", u(1)),
            ],
        ),
        5 => (
            "spinners",
            vec![
                ("procs", u(r.range(1, 3))),
                ("threads", u(r.range(1, 8))),
                ("sleep_us", u(r.pick(&[0, 0, 50, 500]))),
                ("time", u(1)),
            ],
        ),
        6 => (
            "pgbench",
            vec![("clients", u(r.range(1, 16))), ("time", u(1))],
        ),
        _ => {
            rtapp = Some(rtapp::TaskSet::draw(&mut r, ncpu));
            ("rt-app", vec![])
        }
    };
    let background = r.below(5) == 0;
    let seed = r.range(1, 1_000_000);
    // drawn last (see the module's doc): holes, offline CPUs, hotplug,
    // then an rt-app set's changes of running threads
    let (offline, absent, hotplug) = draw_hotplug(&mut r, ncpu);
    if let Some(t) = &mut rtapp {
        t.draw_changes(&mut r, ncpu);
    }
    // drawn last of all: three peer picks in eight become a
    // kernel example scheduler, so a seed's cases keep their machine and
    // workload, and its arbor cases everything
    if peers.contains(&&*sched) {
        let to_kernel = r.below(8) < 3;
        let mut k = r.pick(&KERNEL_SCHEDS);
        // the peer pick stood in for `--only kernel...`
        let forced = only.filter(|o| !sched.starts_with(o));
        if let Some(o) = forced {
            while !k.starts_with(o) {
                k = r.pick(&KERNEL_SCHEDS);
            }
        }
        if forced.is_some() || (to_kernel && only.is_none_or(|o| k.starts_with(o))) {
            sched = k.to_string();
        }
    }
    let mut c = Case {
        shape,
        sched,
        workload,
        keys,
        background,
        seed,
        knobs,
        rtapp,
        offline,
        absent,
        hotplug,
        cgroup: None,
        cgroup_events: String::new(),
        dir: dir.to_path_buf(),
    };
    if cgroups {
        draw_cgroups(&mut r, &mut c);
    }
    c
}

/// One group of a drawn cgroup tree (`draw_cgroups`).
struct Group {
    path: String,
    /// made by an mkdir event (one of those may be removed)
    made: bool,
    alive: bool,
    /// cpu.max's quota (None: "max") and cpu.max.burst, in us
    quota: Option<u64>,
    burst: u64,
}

/// `--cgroups`: the workload's group (a model's; an rt-app set's tasks
/// each in a "taskgroup" /rt/N, two in three) and 1-6 events in 10
/// ms..1.5 s, each one the simulator takes
/// (`cgroups_ok`): an mkdir (below the root or a live group), a
/// move of a run of 1-4 tasks into a live group, a cpu.weight, cpu.max,
/// cpu.max.burst (up to the quota) or cpu.idle write, an rmdir of a group
/// an mkdir made that has no task (as the draw tracks them) nor child. If
/// the simulator would refuse them after all (a fork puts a child in its
/// parent's group), the events are dropped.
fn draw_cgroups(r: &mut Rng, c: &mut Case) {
    let mut groups: Vec<Group> = Vec::new();
    if let Some(t) = &mut c.rtapp {
        // each rt-app task in /rt/N (weight 100, as rt-app makes it) or,
        // one in three, in the root
        for (i, task) in t.tasks.iter_mut().enumerate() {
            if r.below(3) > 0 {
                task.taskgroup = Some(format!("/rt/{i}"));
            }
        }
        for (i, task) in t.tasks.iter().enumerate() {
            if task.taskgroup.is_some() {
                if groups.is_empty() {
                    groups.push(Group {
                        path: "/rt".into(),
                        made: false,
                        alive: true,
                        quota: None,
                        burst: 0,
                    });
                }
                groups.push(Group {
                    path: format!("/rt/{i}"),
                    made: false,
                    alive: true,
                    quota: None,
                    burst: 0,
                });
            }
        }
    } else {
        let nested = r.below(3) == 0;
        let path = if nested { "/w/x" } else { "/w" };
        let weight = r.pick(&[1, 10, 50, 100, 100, 300, 1000, 10_000]);
        let mut cg = format!("{path}:weight={weight}");
        let (mut quota, mut burst) = (None, 0);
        if r.below(4) == 0 {
            let q = r.range(1000, 200_000);
            let p = r.pick(&[10_000, 100_000, 250_000]);
            cg.push_str(&format!(":max={q}/{p}"));
            quota = Some(q);
            if r.below(2) == 0 {
                burst = r.range(1, q);
                cg.push_str(&format!(":burst={burst}"));
            }
        } else if r.below(8) == 0 {
            cg.push_str(":idle=1");
        }
        if nested {
            groups.push(Group {
                path: "/w".into(),
                made: false,
                alive: true,
                quota: None,
                burst: 0,
            });
        }
        groups.push(Group {
            path: path.into(),
            made: false,
            alive: true,
            quota,
            burst,
        });
        c.cgroup = Some(cg);
    }
    let Some(ntasks) = c.ntasks().filter(|&n| n > 0) else {
        return;
    };
    // each task's group as the draw knows it (None: the root); an rt-app
    // set's threads are in their tasks' groups, which only rmdir reads,
    // and it removes only groups an mkdir made
    let first = if groups.is_empty() || c.rtapp.is_some() {
        None
    } else {
        Some(groups.len() - 1)
    };
    let mut of_task: Vec<Option<usize>> = vec![first; ntasks];
    let mut times: Vec<u64> = (0..r.range(1, 6)).map(|_| r.range(10, 1500)).collect();
    times.sort_unstable();
    let mut ev: Vec<String> = Vec::new();
    let mut made = 0;
    for at in times {
        let live: Vec<usize> = (0..groups.len()).filter(|&g| groups[g].alive).collect();
        let op = if live.is_empty() { 0 } else { r.below(7) };
        match op {
            0 => {
                // below the root or a live group
                let under = (!live.is_empty() && r.below(2) == 0).then(|| r.pick(&live));
                let path = match under {
                    Some(g) => format!("{}/e{made}", groups[g].path),
                    None => format!("/e{made}"),
                };
                made += 1;
                ev.push(format!("{at}ms mkdir {path}"));
                groups.push(Group {
                    path,
                    made: true,
                    alive: true,
                    quota: None,
                    burst: 0,
                });
            }
            1 => {
                let g = r.pick(&live);
                let a = r.below(ntasks as u64) as usize;
                let b = (a + r.below(4) as usize).min(ntasks - 1);
                let tasks = if a == b {
                    a.to_string()
                } else {
                    format!("{a}-{b}")
                };
                ev.push(format!("{at}ms move {tasks} {}", groups[g].path));
                for t in &mut of_task[a..=b] {
                    *t = Some(g);
                }
            }
            2 => {
                let g = r.pick(&live);
                let w = r.pick(&[1, 10, 50, 100, 200, 1000, 10_000]);
                ev.push(format!("{at}ms weight {} {w}", groups[g].path));
            }
            3 => {
                let g = &mut groups[r.pick(&live)];
                if r.below(3) == 0 {
                    ev.push(format!("{at}ms max {} max", g.path));
                    g.quota = None;
                } else {
                    // the kernel refuses a quota below the burst
                    let q = r.range(1000, 200_000).max(g.burst);
                    let p = if r.below(2) == 0 {
                        format!("/{}", r.pick(&[10_000, 100_000, 250_000]))
                    } else {
                        String::new()
                    };
                    ev.push(format!("{at}ms max {} {q}{p}", g.path));
                    g.quota = Some(q);
                }
            }
            4 => {
                let g = &mut groups[r.pick(&live)];
                if let Some(q) = g.quota {
                    g.burst = r.range(0, q);
                    ev.push(format!("{at}ms burst {} {}", g.path, g.burst));
                }
            }
            5 => {
                let g = r.pick(&live);
                ev.push(format!("{at}ms idle {} {}", groups[g].path, r.below(2)));
            }
            _ => {
                let empty = |g: usize| {
                    groups[g].made
                        && !of_task.contains(&Some(g))
                        && !groups
                            .iter()
                            .any(|h| h.alive && h.path.starts_with(&format!("{}/", groups[g].path)))
                };
                let free: Vec<usize> = live.iter().copied().filter(|&g| empty(g)).collect();
                if !free.is_empty() {
                    let g = r.pick(&free);
                    ev.push(format!("{at}ms rmdir {}", groups[g].path));
                    groups[g].alive = false;
                }
            }
        }
    }
    c.cgroup_events = ev.join("; ");
    if !cgroups_ok(c) {
        c.cgroup_events.clear();
    }
}

/// The case's cgroup events are accepted by the simulator for its
/// workload's groups and tasks (as `arbor sim` checks them).
fn cgroups_ok(c: &Case) -> bool {
    if c.cgroup_events.is_empty() {
        return true;
    }
    let Ok(ev) = arbor_sim::core::cgroup_events::parse(std::slice::from_ref(&c.cgroup_events))
    else {
        return false;
    };
    let Ok(m) = arbor_sim::presets::find(&c.machine()) else {
        return false;
    };
    if c.write_files().is_err() {
        return false;
    }
    let Ok(w) = arbor_sim::workload::spec::parse(&c.spec(), m.nr_cpus(), c.seed) else {
        return false;
    };
    let specs = w.tasks();
    arbor_sim::core::cgroup::Cgroups::from_specs(&specs)
        .and_then(|g| g.check_events(&ev, specs.len()))
        .is_ok()
}

/// Holes in the numbering (a quarter of the cases), CPUs offline from the
/// start (a third), and 1-4 hotplug events in 10 ms..1.5 s (half): each
/// takes a random possible CPU down if it is up and another is, or brings
/// it up if it is down. Never the highest id as a hole, never every CPU
/// offline.
fn draw_hotplug(r: &mut Rng, ncpu: u64) -> (Vec<u64>, Vec<u64>, String) {
    let (mut offline, mut absent) = (Vec::new(), Vec::new());
    if ncpu < 2 {
        return (offline, absent, String::new());
    }
    let some = |r: &mut Rng, from: &[u64], most: u64| -> Vec<u64> {
        let k = r.range(1, most.max(1));
        let mut v: Vec<u64> = (0..k).map(|_| r.pick(from)).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    if r.below(4) == 0 {
        let ids: Vec<u64> = (0..ncpu - 1).collect();
        absent = some(r, &ids, (ncpu / 4).max(1));
    }
    let possible: Vec<u64> = (0..ncpu).filter(|c| !absent.contains(c)).collect();
    if r.below(3) == 0 && possible.len() > 1 {
        let mut o = some(r, &possible, (possible.len() as u64 / 4).max(1));
        if o.len() == possible.len() {
            o.pop();
        }
        offline = o;
    }
    let mut events = Vec::new();
    if r.below(2) == 0 && possible.len() > 1 {
        let mut up: Vec<bool> = (0..ncpu)
            .map(|c| possible.contains(&c) && !offline.contains(&c))
            .collect();
        let mut times: Vec<u64> = (0..r.range(1, 4)).map(|_| r.range(10, 1500)).collect();
        times.sort_unstable();
        times.dedup();
        for at in times {
            let c = r.pick(&possible);
            let n_up = up.iter().filter(|&&u| u).count();
            if up[c as usize] && n_up > 1 {
                up[c as usize] = false;
                events.push(format!("off:{c}@{at}ms"));
            } else if !up[c as usize] {
                up[c as usize] = true;
                events.push(format!("on:{c}@{at}ms"));
            }
        }
    }
    (offline, absent, events.join(","))
}

/// How a case ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    Ok,
    /// The scheduler was ejected: watchdog, its own error, an invalid
    /// return value.
    Ejected(String),
    /// An invariant of the core failed.
    Invariant(String),
    /// The process died (a signal: a division fault, a crash) or failed.
    Crashed(String),
    /// `arbor sim` refused the case as bad input (exit 2). For scx_arbor
    /// a failure (the generator drew what arbor does not take, or arbor
    /// refused a machine it should run on); for a peer, its loader's own
    /// limit (lavd: "The processor topology is too complex to handle in
    /// BPF"), listed apart and not a failure.
    Invalid(String),
    /// A task waited past the short watchdog, but not past the kernel's
    /// 30 s: an overloaded machine, not a stall. Not a failure.
    LongWait(String),
}

impl Verdict {
    fn kind(&self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Ejected(_) => "ejected",
            Verdict::Invariant(_) => "invariant",
            Verdict::Crashed(_) => "crashed",
            Verdict::Invalid(_) => "invalid",
            Verdict::LongWait(_) => "long wait",
        }
    }
}

/// Runs a case; an ejection by a watchdog shorter than the kernel's is
/// run again with the kernel's (see the module's doc).
fn run(case: &Case, w: &Watch) -> Result<(Verdict, Watch)> {
    let v = run_once(case, w)?;
    if let Verdict::Ejected(msg) = &v {
        if msg.contains("runnable task stall") && w.watchdog_ms < KERNEL_WATCH.watchdog_ms {
            let k = run_once(case, &KERNEL_WATCH)?;
            return Ok(match k {
                Verdict::Ok => (Verdict::LongWait(msg.clone()), *w),
                k => (k, KERNEL_WATCH),
            });
        }
    }
    Ok((v, *w))
}

fn run_once(case: &Case, w: &Watch) -> Result<Verdict> {
    case.write_files()?;
    let out = Command::new(self_exe()?)
        .args(["sim", "-t", &case.machine(), "-s", &case.sched_arg(), "-w"])
        .arg(case.spec())
        .args(["--seed", &case.seed.to_string()])
        .args(["--time-limit", &w.sim_s.to_string(), "--job", "0"])
        .args(["--watchdog-ms", &w.watchdog_ms.to_string()])
        .args(if case.hotplug.is_empty() {
            vec![]
        } else {
            vec!["--hotplug".to_string(), case.hotplug.clone()]
        })
        .args(if case.cgroup_events.is_empty() {
            vec![]
        } else {
            vec!["--cgroup-event".to_string(), case.cgroup_events.clone()]
        })
        .output()
        .context("running a case")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string();
        if out.status.code() == Some(2) {
            return Ok(Verdict::Invalid(last));
        }
        return Ok(Verdict::Crashed(format!("{}: {last}", out.status)));
    }
    let Some(line) = stdout.lines().rev().find(|l| l.starts_with('{')) else {
        return Ok(Verdict::Crashed("no outcome printed".into()));
    };
    let j: JobOut = serde_json::from_str(line).context("reading a case's outcome")?;
    Ok(if j.ejected {
        Verdict::Ejected(j.stop)
    } else if !j.ok {
        Verdict::Invariant(j.stop)
    } else {
        Verdict::Ok
    })
}

/// Smaller variants of a case: each shape key and each numeric workload
/// key lowered.
fn smaller(c: &Case) -> Vec<Case> {
    let mut v = Vec::new();
    for i in 0..c.shape.len() {
        let (k, x) = c.shape[i];
        let lower: Vec<u64> = match k {
            "x86" | "little" => vec![],
            "d" => vec![],
            _ if x > 1 => vec![1, x / 2],
            _ => vec![],
        };
        for y in lower {
            let mut d = c.clone();
            d.shape[i].1 = y;
            if k == "n" && y == 1 {
                d.shape.retain(|s| s.0 != "d");
            }
            v.push(d);
        }
        if matches!(k, "x86" | "little") {
            let mut d = c.clone();
            d.shape.remove(i);
            v.push(d);
        }
    }
    for i in 0..c.keys.len() {
        if let Ok(x) = c.keys[i].1.parse::<u64>() {
            if x > 1 && c.keys[i].0 != "time" && c.keys[i].0 != "t" {
                let mut d = c.clone();
                d.keys[i].1 = (x / 2).to_string();
                v.push(d);
            }
        }
    }
    if c.background {
        let mut d = c.clone();
        d.background = false;
        v.push(d);
    }
    if !c.hotplug.is_empty() {
        let mut d = c.clone();
        d.hotplug.clear();
        v.push(d);
    }
    if !c.cgroup_events.is_empty() {
        // without the events; with the first half of them
        let mut d = c.clone();
        d.cgroup_events.clear();
        v.push(d);
        let ev: Vec<&str> = c.cgroup_events.split("; ").collect();
        if ev.len() > 1 {
            let mut d = c.clone();
            d.cgroup_events = ev[..ev.len() / 2].join("; ");
            v.push(d);
        }
    }
    if c.cgroup.is_some() {
        let mut d = c.clone();
        d.cgroup = None;
        v.push(d);
    }
    if c.rtapp.as_ref().is_some_and(TaskSet::has_groups) {
        let mut d = c.clone();
        if let Some(t) = &mut d.rtapp {
            for x in &mut t.tasks {
                x.taskgroup = None;
            }
        }
        v.push(d);
    }
    if !c.offline.is_empty() {
        let mut d = c.clone();
        d.offline.clear();
        v.push(d);
    }
    if !c.absent.is_empty() {
        let mut d = c.clone();
        d.absent.clear();
        v.push(d);
    }
    for i in 0..c.knobs.len() {
        let mut d = c.clone();
        d.knobs.remove(i);
        v.push(d);
    }
    if let Some(t) = &c.rtapp {
        for s in t.smaller() {
            let mut d = c.clone();
            d.rtapp = Some(s);
            v.push(d);
        }
    }
    // an rt-app set's affinity on the shrunk machine
    for d in v.iter_mut() {
        let n = d.cpus();
        if let Some(t) = &d.rtapp {
            d.rtapp = Some(t.fit(n));
        }
    }
    // keep only machines that are still valid (little < cores; the
    // offline, absent and hotplug CPUs still there)
    v.retain(|d| {
        let n = d.cpus();
        d.offline.iter().chain(&d.absent).all(|&c| c < n) && hotplug_ok(d) && cgroups_ok(d)
    });
    v.retain(|d| {
        let cores = d.cpus() / d.shape.iter().find(|x| x.0 == "t").map_or(1, |x| x.1);
        d.shape
            .iter()
            .find(|x| x.0 == "little")
            .is_none_or(|x| x.1 < cores)
    });
    v
}

/// The case's machine and hotplug events are accepted by the simulator.
fn hotplug_ok(c: &Case) -> bool {
    let Ok(m) = arbor_sim::presets::find(&c.machine()) else {
        return false;
    };
    arbor_sim::core::hotplug::parse(&c.hotplug)
        .and_then(|e| arbor_sim::core::hotplug::check(&m, &e))
        .is_ok()
}

/// Shrinks a failing case while the same kind of failure remains.
fn shrink(c: &Case, v: &Verdict, w: &Watch) -> Case {
    let mut best = c.clone();
    let mut tries = 0;
    'outer: while tries < 40 {
        for d in smaller(&best) {
            tries += 1;
            if let Ok(x) = run_once(&d, w) {
                if x.kind() == v.kind() {
                    best = d;
                    continue 'outer;
                }
            }
            if tries >= 40 {
                break;
            }
        }
        break;
    }
    best
}

/// Where a case's verdict goes in the report.
#[derive(Debug, PartialEq)]
enum Bucket {
    Ok,
    LongWait,
    /// a peer's loader refused the machine
    Refused,
    Failure,
}

fn bucket(c: &Case, v: &Verdict) -> Bucket {
    match v {
        Verdict::Ok => Bucket::Ok,
        Verdict::LongWait(_) => Bucket::LongWait,
        Verdict::Invalid(_) if !c.sched.starts_with("arbor") => Bucket::Refused,
        _ => Bucket::Failure,
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Failure {
    pub case: u64,
    pub scheduler: String,
    pub verdict: Verdict,
    pub reproducer: String,
    /// the minimised command; empty when it was not tried (`--shrink`)
    pub minimised: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Campaign {
    pub seed: u64,
    pub cases_run: u64,
    pub cpu_seconds: f64,
    pub per_scheduler: std::collections::BTreeMap<String, (u64, u64)>,
    pub failures: Vec<Failure>,
    /// cases past the short watchdog but not the kernel's (not failures)
    pub long_waits: Vec<Failure>,
    /// cases a peer's loader refused (its limits, not failures)
    pub refused: Vec<Failure>,
    /// cases whose rt-app set changes running threads' affinity, and nice
    pub affinity_changes: u64,
    pub nice_changes: u64,
    /// cases with a cgroup or cgroup events (`--cgroups`)
    #[serde(default)]
    pub cgroup_cases: u64,
}

pub fn main(a: &FuzzArgs) -> Result<i32> {
    if !(a.sim_seconds.is_finite() && a.sim_seconds > 0.0 && a.sim_seconds <= 3600.0) {
        bail!("--sim-seconds must be in (0, 3600]");
    }
    if let Some(o) = &a.only {
        // a prefix no scheduler of the pool has would never be drawn
        let pool = ["arbor:stock", "arbor:seeds", "arbor:default"]
            .iter()
            .chain(PEERS.iter())
            .chain(KERNEL_SCHEDS.iter());
        if !pool
            .clone()
            .any(|s| s.starts_with(o.as_str()) || o.starts_with("arbor:"))
        {
            bail!(
                "--only {o}: no scheduler of the pool starts with it (the pool: {})",
                pool.copied().collect::<Vec<_>>().join(", ")
            );
        }
    }
    // the output directory before any case runs, as `arbor sim --out`
    if let Some(o) = &a.out {
        std::fs::create_dir_all(o).with_context(|| format!("--out {}", o.display()))?;
    }
    let watch = Watch {
        sim_s: a.sim_seconds,
        watchdog_ms: a.watchdog_ms,
    };
    let part = match (&a.shard, &a.out) {
        (None, _) => crate::shard::Shard::ALL,
        (Some(_), None) => {
            bail!("--shard needs --out DIR: `arbor sim merge` reads each shard's directory")
        }
        (Some(s), Some(_)) => s.here()?,
    };
    // rt-app cases' files: beside the report, or in the temporary directory
    let dir = match &a.out {
        Some(o) => o.join("cases"),
        None => std::env::temp_dir().join(format!("arbor-fuzz-{}", a.seed)),
    };
    let jobs = a
        .jobs
        .map(|j| j as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let start = Instant::now();
    let deadline = (a.time > 0).then(|| start + Duration::from_secs(a.time));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(u64, Case, Verdict, Watch)>> = Mutex::new(Vec::new());
    let errors: Mutex<Vec<String>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let k = part.nth(next.fetch_add(1, Ordering::Relaxed) as u64);
                if k >= a.cases || deadline.is_some_and(|d| Instant::now() >= d) {
                    return;
                }
                let c = draw_with(a.seed, k, a.only.as_deref(), &dir, a.cgroups);
                match run(&c, &watch) {
                    Ok((v, w)) => results.lock().unwrap().push((k, c, v, w)),
                    Err(e) => errors.lock().unwrap().push(format!("case {k}: {e:#}")),
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|r| r.0);
    if let Some(e) = errors.into_inner().unwrap_or_default().first() {
        bail!("fuzz: {e}");
    }
    let mut camp = Campaign {
        seed: a.seed,
        cases_run: results.len() as u64,
        ..Campaign::default()
    };
    for (k, c, v, w) in &results {
        if let Some(t) = &c.rtapp {
            camp.affinity_changes += u64::from(t.affinity_changes() > 0);
            camp.nice_changes += u64::from(t.nice_changes() > 0);
        }
        camp.cgroup_cases += u64::from(
            c.cgroup.is_some()
                || !c.cgroup_events.is_empty()
                || c.rtapp.as_ref().is_some_and(TaskSet::has_groups),
        );
        let e = camp
            .per_scheduler
            .entry(c.sched_name().to_string())
            .or_default();
        e.0 += 1;
        let entry = |m: &Case| Failure {
            case: *k,
            scheduler: c.sched_arg(),
            verdict: v.clone(),
            reproducer: c.command(w),
            minimised: m.command(w),
        };
        match bucket(c, v) {
            Bucket::Ok => {}
            Bucket::LongWait => camp.long_waits.push(entry(c)),
            Bucket::Refused => camp.refused.push(entry(c)),
            Bucket::Failure => {
                e.1 += 1;
                eprintln!(
                    "arbor sim fuzz: case {k}: {} ({}): {}",
                    v.kind(),
                    c.sched_arg(),
                    c.command(w)
                );
                if a.shrink.wants(&c.sched) {
                    let m = shrink(c, v, w);
                    camp.failures.push(entry(&m));
                } else {
                    // not minimised: said so in the report (an empty command)
                    camp.failures.push(Failure {
                        minimised: String::new(),
                        ..entry(c)
                    });
                }
            }
        }
    }
    // CPU time of the whole search, children included
    camp.cpu_seconds = children_cpu_s();
    let md = report(&camp, a, start.elapsed());
    println!("{md}");
    if let Some(out) = &a.out {
        let mut meta = crate::report::meta::Provenance::here();
        if a.shard.is_some() {
            meta.shard = Some(shard::meta(a, part, start.elapsed(), &dir)?);
        }
        summary::write_stamped(out, &md, meta, &camp)?;
    }
    Ok(exit_code(&camp))
}

/// 1 if scx_arbor failed in a case.
fn exit_code(camp: &Campaign) -> i32 {
    let arbor_fail = camp
        .failures
        .iter()
        .filter(|f| f.scheduler.starts_with("arbor"))
        .count();
    if arbor_fail > 0 {
        1
    } else {
        0
    }
}

fn children_cpu_s() -> f64 {
    // SAFETY: getrusage fills the struct we pass
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(ru.ru_utime) + t(ru.ru_stime)
}

fn report(c: &Campaign, a: &FuzzArgs, wall: Duration) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# arbor sim fuzz: seed {}, {} cases, {:.2} CPU-hours ({:.0} s wall, {:.1} s simulated each)\n",
        c.seed,
        c.cases_run,
        c.cpu_seconds / 3600.0,
        wall.as_secs_f64(),
        a.sim_seconds
    );
    let _ = writeln!(
        md,
        "{} case(s) changed the affinity of running threads, {} their nice (rt-app phases).\n",
        c.affinity_changes, c.nice_changes
    );
    if c.cgroup_cases > 0 {
        let _ = writeln!(
            md,
            "{} case(s) ran in cgroups or changed them (--cgroups).\n",
            c.cgroup_cases
        );
    }
    let _ = writeln!(md, "| scheduler | cases | failures |\n|---|---|---|");
    for (s, (n, f)) in &c.per_scheduler {
        let _ = writeln!(md, "| {s} | {n} | {f} |");
    }
    if !c.long_waits.is_empty() {
        let _ = writeln!(
            md,
            "\n{} case(s) waited past the {} ms watchdog but not past the kernel's 30 s (not failures):",
            c.long_waits.len(),
            a.watchdog_ms
        );
        for f in c.long_waits.iter().take(5) {
            let _ = writeln!(
                md,
                "- case {} ({}): `{}`",
                f.case, f.scheduler, f.reproducer
            );
        }
    }
    if !c.refused.is_empty() {
        let _ = writeln!(
            md,
            "\n{} case(s) refused by a peer's own loader (its limits, not failures):",
            c.refused.len()
        );
        for f in c.refused.iter().take(5) {
            let what = match &f.verdict {
                Verdict::Invalid(s) => s.as_str(),
                _ => "",
            };
            let _ = writeln!(
                md,
                "- case {} ({}): {what}: `{}`",
                f.case, f.scheduler, f.reproducer
            );
        }
    }
    if c.failures.is_empty() {
        let _ = writeln!(md, "\nNo failure.");
    } else {
        let _ = writeln!(md, "\n## Failures\n");
        for f in &c.failures {
            let what = match &f.verdict {
                Verdict::Ejected(s)
                | Verdict::Invariant(s)
                | Verdict::Crashed(s)
                | Verdict::Invalid(s)
                | Verdict::LongWait(s) => s.clone(),
                Verdict::Ok => String::new(),
            };
            let minimised = if f.minimised.is_empty() {
                format!("not tried (--shrink {:?})", a.shrink).to_lowercase()
            } else {
                format!("`{}`", f.minimised)
            };
            let _ = writeln!(
                md,
                "- case {} ({}), {}: {}\n  - reproducer: `{}`\n  - minimised: {}",
                f.case,
                f.scheduler,
                f.verdict.kind(),
                what.lines().next().unwrap_or(""),
                f.reproducer,
                minimised
            );
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: Watch = Watch {
        sim_s: 2.0,
        watchdog_ms: 1000,
    };

    /// `--shrink arbor` (make test's) minimises scx_arbor's failures, every
    /// profile with its features and knobs, and no peer's.
    #[test]
    fn shrink_arbor_minimises_only_scx_arbor() {
        for s in [
            "arbor:stock",
            "arbor:default:NO_STEAL:slice-us=30",
            "arbor:seeds",
        ] {
            assert!(
                ShrinkWhich::Arbor.wants(s) && ShrinkWhich::All.wants(s),
                "{s}"
            );
            assert!(!ShrinkWhich::None.wants(s), "{s}");
        }
        for s in ["p2dq", "lavd", "bpfland", "cosmos", "rusty"] {
            assert!(
                !ShrinkWhich::Arbor.wants(s) && ShrinkWhich::All.wants(s),
                "{s}"
            );
        }
    }

    /// A directory of the test's own (the tests run in parallel).
    fn dir(test: &str) -> PathBuf {
        std::env::temp_dir().join(format!("arbor-fuzz-{test}-{}", std::process::id()))
    }

    /// The simulator accepts every drawn case: the machine, the scheduler
    /// with its features and knobs, and the workload (an rt-app file
    /// written where the command names it).
    fn valid(c: &Case) {
        let k = c.command(&W);
        arbor_sim::presets::find(&c.machine()).unwrap_or_else(|e| panic!("{k}: {e:#}"));
        assert!(hotplug_ok(c), "{k}");
        c.write_files().unwrap();
        arbor_sim::workload::spec::parse(&c.spec(), c.cpus() as usize, 1)
            .unwrap_or_else(|e| panic!("{k}: {e:#}"));
        let s = arbor_sim::sched::SchedSpec::parse(&c.sched_arg())
            .unwrap_or_else(|e| panic!("{k}: {e:#}"));
        if c.sched.starts_with("arbor") {
            let base = knobs::ranges();
            assert!(!base.is_empty());
            s.knobs(&scx_arbor::knobs::Knobs::defaults())
                .unwrap_or_else(|e| panic!("{k}: {e:#}"));
        }
    }

    #[test]
    fn cases_are_deterministic_and_valid_specs() {
        let d = dir("cases");
        let (mut rt, mut kn) = (0, 0);
        let (mut off, mut holes, mut hp) = (0, 0, 0);
        for k in 0..300 {
            let a = draw(7, k, None, &d);
            let b = draw(7, k, None, &d);
            assert_eq!(a.command(&W), b.command(&W));
            valid(&a);
            rt += usize::from(a.rtapp.is_some());
            kn += usize::from(!a.knobs.is_empty());
            off += usize::from(!a.offline.is_empty());
            holes += usize::from(!a.absent.is_empty());
            hp += usize::from(!a.hotplug.is_empty());
        }
        assert!(rt > 10 && kn > 30, "{rt} rt-app cases, {kn} with knobs");
        assert!(
            off > 30 && holes > 30 && hp > 60,
            "{off} with offline CPUs, {holes} with holes, {hp} with hotplug"
        );
        assert_ne!(
            draw(7, 1, None, &d).command(&W),
            draw(8, 1, None, &d).command(&W)
        );
        assert!(draw(3, 5, Some("p2dq"), &d).sched.starts_with("p2dq"));
        let _ = std::fs::remove_dir_all(&d);
    }

    /// The kernel's example schedulers are drawn, each in a fair
    /// share, in place of peer picks only (scx_arbor's cases are as they
    /// were: same scheduler, same draws); `--only kernel...` and `--only
    /// PEER` select as they say.
    #[test]
    fn kernel_example_schedulers_replace_some_peer_picks() {
        let d = dir("kernel");
        let mut n = std::collections::BTreeMap::new();
        for k in 0..400 {
            let c = draw(7, k, None, &d);
            *n.entry(c.sched_name().to_string()).or_insert(0) += 1;
            if c.sched.starts_with("kernel:") {
                valid(&c);
            }
        }
        for k in KERNEL_SCHEDS {
            assert!(n.get(k).copied().unwrap_or(0) > 10, "{k}: {n:?}");
        }
        for (only, want) in [
            ("kernel:", "kernel:"),
            ("kernel:scx_qmap", "kernel:scx_qmap"),
            ("k", "kernel:"),
            ("rusty", "rusty"),
            ("arbor", "arbor:"),
        ] {
            for k in 0..60 {
                let c = draw(7, k, Some(only), &d);
                assert!(c.sched.starts_with(want), "--only {only}: {}", c.sched);
            }
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    /// rt-app's affinity and nice changes of running threads are drawn
    /// in a fair share of all cases (only rt-app cases can have them),
    /// with phases that move a thread off its CPUs, and the shrinking of
    /// a case keeps them valid on the smaller machine.
    #[test]
    fn affinity_and_nice_changes_of_running_threads_are_drawn() {
        let d = dir("changes");
        let (mut aff, mut nice, mut away) = (0, 0, 0);
        let n = 400;
        for k in 0..n {
            let c = draw(7, k, None, &d);
            let Some(t) = &c.rtapp else { continue };
            aff += usize::from(t.affinity_changes() > 0);
            nice += usize::from(t.nice_changes() > 0);
            // a phase on CPUs none of which the phase before had
            away += usize::from(t.tasks.iter().any(|x| {
                x.phases.windows(2).any(|w| {
                    w[0].cpus
                        .as_ref()
                        .zip(w[1].cpus.as_ref())
                        .is_some_and(|(a, b)| b.iter().all(|y| !a.contains(y)))
                })
            }));
            if t.affinity_changes() > 0 && k % 4 == 0 {
                // shrinking keeps the changes valid on the smaller machine
                for s in smaller(&c) {
                    valid(&s);
                }
            }
        }
        // an eighth of the cases are rt-app, three in four of those change
        assert!(
            aff * 100 >= n as usize * 5 && nice * 100 >= n as usize * 4 && away >= 5,
            "{aff} cases with affinity changes, {nice} with nice changes, {away} moving off the CPUs, in {n}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A peer's loader refusing a machine is its limit; scx_arbor refusing
    /// a drawn case is a failure (ours), as is any ejection or crash.
    #[test]
    fn verdicts_go_to_their_buckets() {
        let d = dir("buckets");
        let peer = draw(3, 5, Some("lavd"), &d);
        let arbor = draw(3, 5, Some("arbor"), &d);
        let inv = Verdict::Invalid("The processor topology is too complex".into());
        assert_eq!(bucket(&peer, &inv), Bucket::Refused);
        assert_eq!(bucket(&arbor, &inv), Bucket::Failure);
        for c in [&peer, &arbor] {
            assert_eq!(bucket(c, &Verdict::Ok), Bucket::Ok);
            assert_eq!(bucket(c, &Verdict::LongWait("x".into())), Bucket::LongWait);
            assert_eq!(bucket(c, &Verdict::Ejected("x".into())), Bucket::Failure);
            assert_eq!(bucket(c, &Verdict::Crashed("x".into())), Bucket::Failure);
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    /// `--cgroups`: most cases get a group and events, each accepted by
    /// the simulator (and so are their smaller variants); the rest of each
    /// case is what it is without the option, which draws no cgroup.
    #[test]
    fn cgroups_are_drawn_after_the_rest_and_valid() {
        let d = dir("cgroups");
        let (mut cg, mut ev, mut kinds) = (0, 0, std::collections::BTreeSet::new());
        let mut rt_groups = 0;
        let n = 60;
        for k in 0..n {
            let plain = draw(7, k, None, &d);
            assert!(plain.cgroup.is_none() && plain.cgroup_events.is_empty());
            let c = draw_with(7, k, None, &d, true);
            let mut without = c.clone();
            without.cgroup = None;
            without.cgroup_events.clear();
            if let Some(t) = &mut without.rtapp {
                for x in &mut t.tasks {
                    x.taskgroup = None;
                }
            }
            assert_eq!(without.command(&W), plain.command(&W));
            assert_eq!(c.command(&W), draw_with(7, k, None, &d, true).command(&W));
            valid(&c);
            assert!(cgroups_ok(&c), "{}", c.command(&W));
            cg += usize::from(c.cgroup.is_some());
            rt_groups += usize::from(c.rtapp.as_ref().is_some_and(TaskSet::has_groups));
            ev += usize::from(!c.cgroup_events.is_empty());
            for e in c.cgroup_events.split("; ").filter(|e| !e.is_empty()) {
                kinds.insert(e.split_whitespace().nth(1).unwrap_or("").to_string());
            }
            if k % 6 == 0 {
                for s in smaller(&c) {
                    assert!(cgroups_ok(&s), "{}", s.command(&W));
                }
            }
        }
        assert!(
            cg * 4 >= n as usize * 3 && ev * 4 >= n as usize * 3,
            "{cg} with a group, {ev} with events, in {n}"
        );
        assert!(rt_groups > 0, "no rt-app set with a taskgroup");
        for op in ["mkdir", "move", "weight", "max", "burst", "idle", "rmdir"] {
            assert!(kinds.contains(op), "no '{op}' event drawn: {kinds:?}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn smaller_cases_are_smaller_and_valid() {
        let d = dir("smaller");
        for k in 0..100 {
            let c = draw(11, k, None, &d);
            for s in smaller(&c) {
                assert!(s.cpus() <= c.cpus());
                assert!(s.knobs.len() <= c.knobs.len());
                valid(&s);
            }
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
