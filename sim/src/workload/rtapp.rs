//! `rt-app:FILE.json`: an rt-app use case (github.com/scheduler-tools/rt-app)
//! run as a model, so that the file `arbor bench` hands to the real rt-app
//! also runs here. The real rt-app is Debian's `rt-app` 1.0 (what
//! scripts/install-deps.sh installs, on the host and in the guests), so the
//! file is read as rt-app 1.0 reads it: its src/rt-app_parse_config.c and
//! src/rt-app.c at tag v1.0, checked against the installed binary. Where
//! later rt-app differs, it is said below.
//!
//! # The file
//!
//! JSON as json-c 0.16, rt-app's parser, reads it (`json_object_from_file`,
//! not strict): C comments (`/* */`, `//`) and a comma before a closing `}`
//! or `]` are allowed. A key written twice in one object keeps the place of
//! its first occurrence and the value of its last (`{"run": 1, "sleep": 2,
//! "run": 3}` is run 3 then sleep 2), as json-c does; rt-app's own
//! examples rely on it (browser-*.json, tutorial/example5.json). Every key
//! of an object is otherwise kept in file order: rt-app runs a phase's events in
//! the order they are written, and an event's type is its key's prefix
//! (`"sleep1"` is a sleep, `"runtime2"` a runtime, `"lock_order"` a lock).
//!
//! Top level: `"tasks"` (required), `"global"`, and `"resources"`. rt-app
//! 1.0 reads global, then resources, then tasks, wherever they are in the
//! file. `"resources"`, when an object, declares resources by name: each
//! must be an object whose `"type"` is one of mutex, signal, wait,
//! broadcast, sync, sleep, run, timer (else rt-app refuses the file); an
//! event uses a declared resource as it would create it, so nothing else
//! changes.
//!
//! `"global"` (each key's type is checked as rt-app's `parse_global` does:
//! a wrong type is refused):
//! - `"duration"`: seconds; every thread is stopped then (rt-app cancels
//!   them). 0 or negative (rt-app's default, -1): until the threads finish.
//! - `"default_policy"`: `"SCHED_OTHER"` (default), `"SCHED_FIFO"` or
//!   `"SCHED_RR"`; `"SCHED_DEADLINE"` is refused (the deadline class is not
//!   modelled), any other name too (as rt-app does);
//! - `"mem_buffer_size"`: bytes of each thread's buffer for `mem` and
//!   `iorun` (4 MiB by default); `"io_device"`: where `iorun` writes
//!   (/dev/null by default);
//! - accepted and ignored, because they cannot change what is scheduled:
//!   `"calibration"` (how rt-app turns a run's µs into loops; here a run is
//!   already work), `"logdir"`, `"log_basename"`, `"log_size"`, `"ftrace"`,
//!   `"gnuplot"` (output only), `"lock_pages"` (mlockall: no page faults
//!   are modelled anyway), `"pi_enabled"` (priority inheritance; the
//!   mutexes here hand over in FIFO order), `"cumulative_slack"` (how
//!   rt-app logs slack), and `"frag"` (a key of rt-app before 1.0, in the
//!   browser and mp3 examples, that 1.0 ignores).
//!
//! A task (`"tasks": {"name": {...}}`):
//! - `"instance"`: how many threads run it (default 1; 0 = none);
//! - `"delay"`: µs before its threads start (their timers start then too;
//!   negative is 0, as in rt-app);
//! - `"loop"`: with `"phases"`, how many times the phases run (default -1,
//!   for ever). Without phases the task is its single phase and `"loop"`
//!   is that phase's count (default 1), and rt-app 1.0 loops the thread
//!   for ever: `"loop": 3` runs the events 3 times, then 3 more, until the
//!   duration (seen with the installed binary; rt-app 1.1 and later stop
//!   after the 3);
//! - `"cpus"`: affinity, a list of CPU numbers of the simulated machine
//!   (rt-app checks them against the machine it runs on);
//! - `"policy"`: `"SCHED_OTHER"`, `"SCHED_FIFO"` or `"SCHED_RR"` (default:
//!   the global one);
//! - `"priority"`: for SCHED_OTHER the nice value (-20..19, default 0, as
//!   rt-app passes it to setpriority), giving the weight sched_ext sees
//!   (`p->scx.weight`: the kernel's sched_prio_to_weight, scaled so nice 0
//!   is 100); for SCHED_FIFO/RR the real-time priority (1..99, default 10:
//!   rt-app's DEFAULT_THREAD_PRIORITY). A value out of range makes rt-app
//!   exit when the thread starts; here the file is refused. Such a thread
//!   is not a sched_ext task: it is RT load that preempts them, with
//!   ops.cpu_release/cpu_acquire as ext.c calls them (core/rt.rs; SCHED_RR
//!   runs as SCHED_FIFO there);
//! - accepted for their type only: `"dl-runtime"`, `"dl-period"`,
//!   `"dl-deadline"`, `"period"`, `"deadline"` (SCHED_DEADLINE parameters,
//!   integers); ignored: `"exec"` and `"resources"`, keys of rt-app before
//!   1.0 (taskset.json, merge/) that 1.0 ignores;
//! - `"phases"`: an object of phases run in file order, each with its
//!   events and its `"loop"` (default 1, -1 = for ever). A phase's own
//!   `"cpus"` (checked as the task's is) is the thread's affinity during
//!   it: at each loop of a phase, rt-app 1.0's set_thread_affinity takes
//!   the phase's cpus, else the task's, else the thread's default (every
//!   CPU of the machine), and calls sched_setaffinity on itself only when
//!   that differs from its current affinity. The core gives the scheduler
//!   ops.set_cpumask and moves the thread off a CPU it may no longer use
//!   (the migration stopper; core/affinity.rs), before its next event.
//!   A phase's own `"priority"` (SCHED_OTHER tasks only: the nice,
//!   -20..19) is **later rt-app's**, not 1.0's: rt-app 1.0 (tag v1.0,
//!   2017-05-22, Debian's 1.0-1) ignores it; upstream rt-app reads it since
//!   commit 395ec42 ("add per phase set priority event", 2017-06-29; its
//!   doc/tutorial.txt: "the scheduling properties can be changed at the
//!   beginning of each phase if it has been defined in the phase object").
//!   As there, at each loop of the phase, after the affinity,
//!   set_thread_param gives the thread that nice (setpriority, or
//!   sched_setattr's sched_nice in today's rt-app); a phase without one
//!   keeps the nice the thread has, it does not go back to the task's.
//!   The core gives the scheduler ops.set_weight inside the same
//!   dequeue/enqueue guard as an affinity change (core/affinity.rs). The
//!   simulator's fuzz draws it; under Debian's rt-app 1.0 such a file runs
//!   with the task's nice throughout.
//!
//! Events (in a phase, or in the task when it has no `"phases"`):
//! - `"run"`: µs of work: ns on a CPU of capacity 1024 running alone with a
//!   warm cache, as all simulated work is; it takes longer on a smaller or
//!   shared CPU, like rt-app's calibrated loop does;
//! - `"runtime"`: rt-app spins for this much wall time whatever the CPU; it
//!   is modelled as `"run"` (an approximation: on a slower or SMT-shared
//!   CPU the model runs longer than rt-app would);
//! - `"sleep"`: µs;
//! - `"mem"`: bytes that rt-app memsets in its thread's buffer (pieces of
//!   `mem_buffer_size`): work at 24 bytes/ns, measured on this project's
//!   host; the part of the buffer it touches is added to the thread's
//!   working set. `"iorun"`: bytes written from that buffer to
//!   `io_device`, one write(2) per piece: 756 ns per write to /dev/null
//!   (measured), plus the bytes' copy at the memset rate for another file;
//! - `"timer"`: `{"ref": NAME, "period": µs, "mode": "relative"|"absolute"}`
//!   (rt-app's defaults: ref "unknown", period 0, relative): rt-app's
//!   timer. A timer is shared by every thread naming it (each use
//!   advances it by the user's period); a ref starting with `"unique"` is one
//!   timer per thread. Its first use starts it at the thread's start (after
//!   `"delay"`); each use then sleeps until the previous expiry + period. If
//!   that moment has already passed, the thread goes on at once; in relative
//!   mode (the default) the timeline restarts from now, in absolute mode it
//!   keeps its place, as in rt-app;
//! - `"suspend": NAME`: waits on the condition NAME, `"resume": NAME`
//!   broadcasts it (rt-app 1.0: the string names the condition, whichever
//!   task the event is in; rt-app 1.1 and later suspend a thread on its own
//!   task's name). Like a condition variable it has no memory: a resume
//!   that nobody waits for is lost (rt-app behaves the same);
//! - `"lock"`/`"unlock"`: a mutex by name;
//! - `"wait"`: `{"ref": COND, "mutex": NAME}`: releases the mutex, waits on
//!   the condition, takes the mutex back when signalled;
//!   `"signal"`: COND wakes the first waiter, `"broad"`: COND wakes all;
//!   `"sync"`: `{"ref", "mutex"}` signals then waits. Signals, like resumes,
//!   are lost when nobody waits. A suspend/resume and a wait/signal on the
//!   same name share the condition, as in rt-app;
//! - `"barrier"`: NAME: each thread waits until every user of the barrier
//!   has reached it, the last to arrive wakes the others (rt-app 1.0
//!   counts one user per barrier event of each thread at parse time);
//! - `"yield"`: nothing (the model has no sched_yield; with nothing else
//!   runnable on the CPU it returns at once, which is what it does here).
//!
//! An event whose value has the wrong type (`"sleep": false`,
//! `"lock_order": [...]`, `"run": 1.5`) is, as rt-app 1.0 makes it ("Unknown
//! or mismatch event type"), a run of 0 µs. A loop whose events took no
//! time (only such runs, or locks and signals) still costs rt-app's own
//! bookkeeping: 9 µs of work per loop (measured: rt-app 1.0 with its
//! default log file ran 158,490 empty loops in 1.4 s on this host), so a
//! thread of them is a CPU hog, as it is under rt-app.
//!
//! Every wake-up is a plain (not WF_SYNC) wake, as glibc's condition
//! variables and mutexes use `FUTEX_WAKE`. A mutex is handed straight to its
//! first waiter on unlock (no lock stealing), and a signalled waiter queues
//! for its mutex; that is a simplification of glibc's futex protocol.
//!
//! Refused, where rt-app 1.0 would run the file (an error that names the
//! key and its task), because the run would not be what the file means:
//! any key rt-app 1.0 does not know (it ignores them silently: a misspelt
//! key is an error here), events of later rt-app (`fork`, `sem_post`,
//! `sem_wait`), events beside `"phases"` (rt-app ignores them), a
//! per-phase `"policy"`, and a per-phase `"priority"` of a SCHED_FIFO/RR
//! task (later rt-app's changes of class and real-time priority), a
//! negative run or
//! sleep, a `"loop"` of 0 or below -1, SCHED_DEADLINE. Refused as rt-app
//! refuses them: invalid JSON, no `"tasks"`, a wrong type for a global or
//! deadline key, an unknown policy or resource type, a CPU the machine
//! lacks.
//!
//! # Stopping
//!
//! At `"duration"`, a run or sleep under way is cut to end there (rt-app
//! cancels the thread; a run is cut to the work that fits in the time left,
//! which is exact on an idle CPU of capacity 1024) and blocked threads are
//! woken to exit. If every live thread is blocked before then (a lost
//! resume, say), nothing can happen any more: with a duration the run ends
//! as rt-app would, at the duration; without one rt-app would hang, and the
//! simulation runs to its time limit.
//!
//! # Metrics
//!
//! - `time_s`: simulated time until every thread exited (at most the
//!   duration), the figure `arbor bench` reports for rt-app (wall time);
//! - with timers: `activations` (timer expiries the threads reached),
//!   `lateness_p50_us`/`p99`/`max`: how late each activation started against
//!   its expiry (for a thread that slept: from the expiry to running again,
//!   rt-app's `wu_lat`; for one that came to the timer after its expiry: how
//!   far after), and `late_pct`: the share of activations reached after
//!   their expiry (rt-app's negative slack);
//! - with suspend/wait/lock: `wakeups`, the wake-ups by another thread
//!   (a resume, signal, broadcast or unlock) that got to run, and
//!   `wakeup_p50_us`/`p99`: from such a wake-up to running;
//! - when two or more tasks have timers (or waits), the same p99 per task,
//!   `TASK.lateness_p99_us` (`TASK.wakeup_p99_us`).
//!
//! Threads are threads of one process (rt-app's), with the default working
//! set of [`TaskSpec::new`]; they start by fork placement.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use anyhow::{anyhow, bail, Context, Result};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::hist::Hist;
use super::{Effects, Metric, Ns, Step, TaskId, TaskSpec, Workload};

const US: Ns = 1000;
/// rt-app's threads share one process.
const TGID: u32 = 1000;
/// Bounds that keep a file from asking for absurd simulations.
const MAX_THREADS: u64 = crate::limits::MAX_TASKS as u64;
const MAX_DURATION_S: i64 = 1_000_000;

/// Linux's `sched_prio_to_weight` (kernel/sched/core.c): CFS load weight
/// of nice -20 ..= 19, nice 0 = 1024, each step about 1.25x.
const PRIO_TO_WEIGHT: [u64; 40] = [
    88761, 71755, 56483, 46273, 36291, // -20 .. -16
    29154, 23254, 18705, 14949, 11916, // -15 .. -11
    9548, 7620, 6100, 4904, 3906, // -10 .. -6
    3121, 2501, 1991, 1586, 1277, // -5 .. -1
    1024, 820, 655, 526, 423, // 0 .. 4
    335, 272, 215, 172, 137, // 5 .. 9
    110, 87, 70, 56, 45, // 10 .. 14
    36, 29, 23, 18, 15, // 15 .. 19
];

/// `p->scx.weight` of a SCHED_OTHER task of this nice: sched_ext's
/// `sched_weight_to_cgroup`, i.e. the CFS weight * 100 / 1024 rounded to
/// the closest integer, clamped to 1..=10000. `nice` must be in -20..=19.
pub fn nice_to_weight(nice: i32) -> u32 {
    let i = (nice.clamp(-20, 19) + 20) as usize;
    ((PRIO_TO_WEIGHT[i] * 100 + 512) / 1024).clamp(1, 10_000) as u32
}

// ---------------------------------------------------------------------
// JSON with its keys in file order
// ---------------------------------------------------------------------

/// A JSON value whose objects keep their keys in file order (serde_json's
/// own `Value` sorts them unless its `preserve_order` feature is on).
#[derive(Clone, Debug, PartialEq)]
enum J {
    Null,
    Bool(bool),
    Int(i64),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    fn kind(&self) -> &'static str {
        match self {
            J::Null => "null",
            J::Bool(_) => "a boolean",
            J::Int(_) => "an integer",
            J::Num(_) => "a number",
            J::Str(_) => "a string",
            J::Arr(_) => "an array",
            J::Obj(_) => "an object",
        }
    }
}

struct JVisitor;

impl<'de> Visitor<'de> for JVisitor {
    type Value = J;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<J, E> {
        Ok(J::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<J, E> {
        Ok(J::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<J, E> {
        Ok(i64::try_from(v).map(J::Int).unwrap_or(J::Num(v as f64)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<J, E> {
        Ok(J::Num(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<J, E> {
        Ok(J::Str(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<J, E> {
        Ok(J::Str(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<J, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = a.next_element()? {
            v.push(x);
        }
        Ok(J::Arr(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<J, A::Error> {
        let mut v = Vec::new();
        while let Some((k, x)) = a.next_entry::<String, J>()? {
            v.push((k, x));
        }
        Ok(J::Obj(v))
    }
}

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<J, D::Error> {
        d.deserialize_any(JVisitor)
    }
}

/// Blanks out C comments (`/* */` and `//`), outside strings, keeping every
/// newline so that parse errors keep their line numbers.
fn strip_comments(text: &str) -> std::result::Result<String, String> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut in_str = false;
    let mut line = 1;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
        }
        if in_str {
            out.push(c);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 2;
                continue;
            }
            in_str = c != b'"';
            i += 1;
        } else if c == b'"' {
            in_str = true;
            out.push(c);
            i += 1;
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let opened = line;
            out.extend_from_slice(b"  ");
            i += 2;
            loop {
                if i >= b.len() {
                    return Err(format!(
                        "the comment opened on line {opened} is never closed"
                    ));
                }
                if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    out.extend_from_slice(b"  ");
                    i += 2;
                    break;
                }
                if b[i] == b'\n' {
                    line += 1;
                    out.push(b'\n');
                } else {
                    out.push(b' ');
                }
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    drop_trailing_commas(&mut out);
    String::from_utf8(out).map_err(|e| format!("not UTF-8 ({e})"))
}

/// Blanks out each comma (outside strings) that only whitespace separates
/// from a closing `}` or `]`, as json-c's non-strict parser accepts it.
fn drop_trailing_commas(b: &mut [u8]) {
    let mut in_str = false;
    let mut comma = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
        } else if c == b'"' {
            in_str = true;
            comma = None;
        } else if c == b',' {
            comma = Some(i);
        } else if c == b'}' || c == b']' {
            if let Some(j) = comma.take() {
                b[j] = b' ';
            }
        } else if !c.is_ascii_whitespace() {
            comma = None;
        }
        i += 1;
    }
}

// ---------------------------------------------------------------------
// The use case, parsed
// ---------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimerRef {
    /// Shared by every thread naming it: index into `RtApp::timers`.
    Shared(usize),
    /// One per thread: index into the thread's own timers.
    Unique(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    Run(Ns),
    Sleep(Ns),
    Timer {
        timer: TimerRef,
        period: Ns,
    },
    Lock(usize),
    Unlock(usize),
    /// Wait on a condition, releasing and then retaking the mutex; a
    /// suspend is a wait on its task's condition without a mutex.
    Wait {
        cond: usize,
        mutex: Option<usize>,
    },
    Signal(usize),
    /// Broadcast; a resume is a broadcast on the named task's condition.
    Broad(usize),
    /// Signal, then wait.
    Sync {
        cond: usize,
        mutex: Option<usize>,
    },
    /// Wait until every user of the barrier has reached it.
    Barrier(usize),
}

#[derive(Clone, Debug)]
struct Phase {
    /// Times the phase runs before the next; -1 = for ever.
    loops: i64,
    events: Vec<Event>,
    /// Its own affinity (rt-app 1.0: set at each of its loops).
    cpus: Option<Vec<usize>>,
    /// Its own `"priority"`: the nice a SCHED_OTHER thread takes at each
    /// of its loops (later rt-app's set_thread_param; see the module doc).
    nice: Option<i64>,
}

#[derive(Clone, Debug)]
struct Group {
    name: String,
    instances: u32,
    /// Times the phases run; -1 = for ever.
    loops: i64,
    phases: Vec<Phase>,
    delay: Ns,
    weight: u32,
    policy: Policy,
    /// `"priority"`: the nice value, or the real-time priority.
    priority: Option<i64>,
    cpus: Option<Vec<usize>>,
    /// Its `unique*` timers, by name, and whether each is absolute (each
    /// thread has its own).
    unique: Vec<(String, bool)>,
    has_timer: bool,
    has_wait: bool,
    /// Bytes of its mem/iorun buffer that an event touches (at most
    /// mem_buffer_size): part of each thread's working set.
    mem_bytes: u64,
    /// Its barrier events.
    barriers: Vec<usize>,
    lateness: Hist,
    wakeup: Hist,
}

#[derive(Clone, Copy, Debug, Default)]
struct TimerState {
    init: bool,
    /// The last expiry.
    next: Ns,
    absolute: bool,
}

#[derive(Clone, Debug, Default)]
struct Mutex {
    owner: Option<TaskId>,
    waiters: VecDeque<TaskId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Blocked {
    No,
    /// On a condition (a wait or a suspend).
    Cond(usize),
    /// Queued for a mutex.
    Mutex(usize),
    /// At a barrier.
    Barrier(usize),
}

#[derive(Clone, Debug)]
struct Thread {
    group: usize,
    /// Its instance number within the group.
    inst: u32,
    phase: usize,
    phase_loop: i64,
    thread_loop: i64,
    /// The next event of the phase.
    ev: usize,
    /// It ran, slept or blocked since its loop began.
    busy: bool,
    blocked: Blocked,
    exited: bool,
    /// Sleeping until this timer expiry; `on_run` measures the lateness.
    timer_due: Option<Ns>,
    /// Woken by another thread; `on_run` measures the wake-up latency.
    woken: bool,
    unique: Vec<TimerState>,
    /// Its affinity now: a phase's or its task's "cpus", None = the
    /// default (every CPU) (rt-app 1.0's curr_cpu_data).
    cpus: Option<Vec<usize>>,
    /// Its nice now (SCHED_OTHER): the task's, then the last phase
    /// `"priority"` it ran (later rt-app's curr_sched_data).
    nice: i64,
}

/// An rt-app use case, as a workload.
pub struct RtApp {
    groups: Vec<Group>,
    threads: Vec<Thread>,
    timers: Vec<TimerState>,
    mutexes: Vec<Mutex>,
    /// Each condition's waiters, first come first, with the mutex each
    /// takes back when signalled.
    conds: Vec<VecDeque<(TaskId, Option<usize>)>>,
    /// Each barrier's users and the threads waiting at it.
    barriers: Vec<(u32, Vec<TaskId>)>,
    /// `"duration"`, ns.
    end: Option<Ns>,
    lateness: Hist,
    wakeup: Hist,
    activations: u64,
    late: u64,
    exited: usize,
    blocked: usize,
    /// Every live thread is blocked: nothing can happen any more.
    stalled: bool,
    finish: Option<Ns>,
    /// The simulated machine's CPUs: a thread's default affinity.
    nr_cpus: usize,
}

/// Names → indices, in order of first use.
#[derive(Default)]
struct Names(BTreeMap<String, usize>);

impl Names {
    fn id(&mut self, name: &str) -> usize {
        let n = self.0.len();
        *self.0.entry(name.to_string()).or_insert(n)
    }
}

/// The global section, as rt-app's `parse_global` reads it.
struct Global {
    /// `"duration"`, ns.
    end: Option<Ns>,
    default_policy: Policy,
    /// `"mem_buffer_size"`: bytes of each thread's buffer for mem/iorun.
    mem_buffer: u64,
    /// `"io_device"` is /dev/null (rt-app's default).
    io_null: bool,
}

impl Default for Global {
    fn default() -> Global {
        Global {
            end: None,
            default_policy: Policy::Other,
            mem_buffer: DEFAULT_MEM_BUF_SIZE,
            io_null: true,
        }
    }
}

/// Builds the use case while parsing: the shared resources by name.
#[derive(Default)]
struct Builder {
    glob: Global,
    timers: Names,
    absolute: Vec<bool>,
    mutexes: Names,
    conds: Names,
    barriers: Names,
    /// Each barrier's users: its events, once per thread (rt-app's
    /// parse_thread_event_data counts them in `barrier.waiting`).
    barrier_users: Vec<u32>,
}

impl Builder {
    fn cond(&mut self, name: &str) -> usize {
        self.conds.id(name)
    }
}

const TASK_KEYS: &str = "instance, delay, loop, phases, cpus, priority, policy, and the ignored exec, period, deadline, dl-runtime, dl-period, dl-deadline, resources";
const EVENT_KEYS: &str = "run, runtime, sleep, timer, suspend, resume, lock, unlock, wait, signal, broad, sync, mem, iorun, yield, barrier";

/// rt-app's default `mem_buffer_size` (DEFAULT_MEM_BUF_SIZE, 4 MiB).
const DEFAULT_MEM_BUF_SIZE: u64 = 4 << 20;
/// memset of a buffer of 1 MiB (rt-app's `memload`), bytes per ns on a CPU
/// of capacity 1024: 24.6 measured on the host of 2026-11-26 (AMD EPYC;
/// 30 for 1000 bytes, 23 for 4 MiB). Not a cost-model parameter: it is what
/// a `mem` event asks of the CPU, as µs are for `run`.
const MEMSET_BYTES_PER_NS: u64 = 24;
/// One write(2) to /dev/null (rt-app's `ioload`, a `write_null` that copies
/// nothing): 756 ns measured on the same host.
const WRITE_NULL_NS: Ns = 756;
/// One iteration of rt-app's thread loop that runs no event taking time
/// (thread_body's clock reads and its log line): 8.9 µs measured on the
/// same host with rt-app 1.0 and its default log file (158,490 lines of a
/// thread that only runs `"lock_order"` in 1.4 s).
const EMPTY_LOOP_NS: Ns = 9_000;

/// The event type a key names, or None. rt-app 1.0 matches the key's
/// prefix against its `events` table (`obj_is_event`), and then
/// `parse_thread_event_data` tests the prefixes in this order (so
/// `"runtime"` is a run first, then a runtime; `"memrun"` is a mem).
fn event_type(key: &str) -> Option<&'static str> {
    const TYPES: [&str; 15] = [
        "run", "sleep", "mem", "iorun", "lock", "unlock", "signal", "broad", "wait", "sync",
        "barrier", "timer", "resume", "suspend", "yield",
    ];
    let t = TYPES.iter().copied().find(|t| key.starts_with(t))?;
    Some(if t == "run" && key.starts_with("runtime") {
        "runtime"
    } else {
        t
    })
}

fn int(v: &J, what: &str) -> Result<i64> {
    match v {
        J::Int(i) => Ok(*i),
        _ => bail!("{what} must be an integer, not {}", v.kind()),
    }
}

fn us(v: &J, what: &str) -> Result<Ns> {
    let i = int(v, what)?;
    if !(0..=i32::MAX as i64).contains(&i) {
        bail!("{what} must be a number of µs in 0..{}, not {i}", i32::MAX);
    }
    Ok(i as Ns * US)
}

fn string<'a>(v: &'a J, what: &str) -> Result<&'a str> {
    match v {
        J::Str(s) => Ok(s),
        _ => bail!("{what} must be a string, not {}", v.kind()),
    }
}

fn object<'a>(v: &'a J, what: &str) -> Result<&'a [(String, J)]> {
    let J::Obj(o) = v else {
        bail!("{what} must be an object, not {}", v.kind());
    };
    Ok(o)
}

fn loops(v: &J, what: &str) -> Result<i64> {
    let n = int(v, what)?;
    if n == -1 || (1..=i32::MAX as i64).contains(&n) {
        Ok(n)
    } else {
        bail!("{what} must be a positive number of loops or -1 (for ever), not {n}")
    }
}

/// A thread's scheduling class, as rt-app's `string_to_policy` reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Other,
    Fifo,
    Rr,
}

fn policy(v: &J, what: &str) -> Result<Policy> {
    // rt-app's string_to_policy (src/rt-app_utils.c); any other name is
    // "Invalid policy" and rt-app exits
    Ok(match string(v, what)? {
        "SCHED_OTHER" => Policy::Other,
        "SCHED_FIFO" => Policy::Fifo,
        "SCHED_RR" => Policy::Rr,
        "SCHED_DEADLINE" => bail!("{what} \"SCHED_DEADLINE\" is not supported: the deadline class is not modelled"),
        p => bail!("{what}: invalid policy \"{p}\" (rt-app knows SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_DEADLINE)"),
    })
}

/// rt-app's JSON dialect (json-c's: comments and trailing commas allowed),
/// keys kept in file order, duplicate keys merged as json-c merges them.
fn read_json(text: &str) -> Result<J> {
    let clean = strip_comments(text).map_err(|e| anyhow!("not valid JSON: {e}"))?;
    serde_json::from_str(&clean)
        .map(json_c_keys)
        .map_err(|e| anyhow!("not valid JSON: {e}"))
}

/// A key written twice in one object keeps the place of its first
/// occurrence and the value of its last: json-c's tokener adds each member
/// with `json_object_object_add`, which replaces the value of a key already
/// in the table without moving it (checked with the libjson-c5 0.16 that
/// rt-app links: `{"a": 1, "b": 2, "a": 3}` reads `{"a": 3, "b": 2}`).
fn json_c_keys(j: J) -> J {
    match j {
        J::Obj(o) => {
            let mut out: Vec<(String, J)> = Vec::with_capacity(o.len());
            for (k, v) in o {
                let v = json_c_keys(v);
                match out.iter_mut().find(|(kk, _)| *kk == k) {
                    Some(slot) => slot.1 = v,
                    None => out.push((k, v)),
                }
            }
            J::Obj(out)
        }
        J::Arr(a) => J::Arr(a.into_iter().map(json_c_keys).collect()),
        j => j,
    }
}

/// Checks only that `text` is JSON as rt-app reads it: what `arbor bench`
/// asks of a file the real rt-app will run (which knows more keys than
/// this model).
pub fn check_syntax(file: &str, text: &str) -> Result<()> {
    read_json(text)
        .map(|_| ())
        .map_err(|e| anyhow!("rt-app {file}: {e:#}"))
}

impl RtApp {
    /// Reads and checks `path`. `nr_cpus`: the simulated machine's, for
    /// affinity lists.
    pub fn from_file(path: &str, nr_cpus: usize) -> Result<RtApp> {
        let text = crate::limits::read_text(
            std::path::Path::new(path),
            "rt-app",
            crate::limits::MAX_JSON_BYTES,
        )?;
        RtApp::parse(path, &text, nr_cpus)
    }

    /// Checks the text of `file`; errors are one line naming the file.
    pub fn parse(file: &str, text: &str, nr_cpus: usize) -> Result<RtApp> {
        Self::parse_inner(text, nr_cpus).map_err(|e| anyhow!("rt-app {file}: {e:#}"))
    }

    fn parse_inner(text: &str, nr_cpus: usize) -> Result<RtApp> {
        let root = read_json(text)?;
        let root = object(&root, "the file")?;
        let (mut global, mut tasks, mut resources) = (None, None, None);
        for (k, v) in root {
            match k.as_str() {
                "tasks" => tasks = Some(object(v, "\"tasks\"")?),
                "global" => global = Some(v),
                "resources" => resources = Some(v),
                _ => {
                    bail!("unsupported top-level key \"{k}\" (supported: tasks, global, resources)")
                }
            }
        }
        // rt-app's get_opts_from_json_object: global, then resources, then
        // tasks, whatever their order in the file
        let glob = match global {
            Some(g) => parse_global(g)?,
            None => Global::default(),
        };
        if let Some(r) = resources {
            parse_resources(r)?;
        }
        let tasks = tasks.context("no \"tasks\" object")?;
        if tasks.is_empty() {
            bail!("\"tasks\" is empty");
        }
        let end = glob.end;
        let mut b = Builder {
            glob,
            ..Builder::default()
        };
        let mut groups = Vec::new();
        for (name, v) in tasks {
            let g = parse_task(name, v, nr_cpus, &mut b)
                .map_err(|e| anyhow!("task \"{name}\": {e:#}"))?;
            groups.push(g);
        }
        let total: u64 = groups.iter().map(|g| g.instances as u64).sum();
        if total == 0 {
            bail!("no threads to run (every task has \"instance\": 0)");
        }
        if total > MAX_THREADS {
            bail!("{total} threads; at most {MAX_THREADS}");
        }
        let mut threads = Vec::new();
        for (gi, g) in groups.iter().enumerate() {
            for inst in 0..g.instances {
                threads.push(Thread {
                    group: gi,
                    inst,
                    phase: 0,
                    phase_loop: 0,
                    thread_loop: 0,
                    ev: 0,
                    busy: false,
                    blocked: Blocked::No,
                    exited: false,
                    timer_due: None,
                    woken: false,
                    cpus: g.cpus.clone(),
                    nice: match g.policy {
                        Policy::Other => g.priority.unwrap_or(0),
                        // a phase's priority is refused for these
                        Policy::Fifo | Policy::Rr => 0,
                    },
                    unique: g
                        .unique
                        .iter()
                        .map(|&(_, absolute)| TimerState {
                            absolute,
                            ..TimerState::default()
                        })
                        .collect(),
                });
            }
        }
        let timers = b
            .absolute
            .iter()
            .map(|&absolute| TimerState {
                absolute,
                ..TimerState::default()
            })
            .collect();
        Ok(RtApp {
            groups,
            threads,
            timers,
            mutexes: vec![Mutex::default(); b.mutexes.0.len()],
            conds: vec![VecDeque::new(); b.conds.0.len()],
            barriers: b.barrier_users.iter().map(|&u| (u, Vec::new())).collect(),
            end,
            lateness: Hist::default(),
            wakeup: Hist::default(),
            activations: 0,
            late: 0,
            exited: 0,
            blocked: 0,
            stalled: false,
            finish: None,
            nr_cpus,
        })
    }
}

fn boolean(v: &J, what: &str) -> Result<()> {
    match v {
        J::Bool(_) => Ok(()),
        _ => bail!("{what} must be true or false, not {}", v.kind()),
    }
}

/// The global object, as rt-app 1.0's `parse_global` reads it: each key it
/// knows must have its type (`assure_type_is`: "Invalid type for key" and
/// rt-app exits).
fn parse_global(v: &J) -> Result<Global> {
    let mut g = Global::default();
    for (k, v) in object(v, "\"global\"")? {
        let what = format!("global: \"{k}\"");
        match k.as_str() {
            "duration" => {
                let d = int(v, &what)?;
                if d > MAX_DURATION_S {
                    bail!("{what} {d} s is more than {MAX_DURATION_S} s");
                }
                g.end = (d > 0).then(|| d as Ns * 1_000_000_000);
            }
            "default_policy" => g.default_policy = policy(v, &what)?,
            "gnuplot" | "ftrace" | "lock_pages" | "pi_enabled" | "cumulative_slack" => {
                boolean(v, &what)?
            }
            // a string or null (get_string_value_from)
            "logdir" | "log_basename" if matches!(v, J::Null) => {}
            "logdir" | "log_basename" => {
                string(v, &what)?;
            }
            "io_device" => {
                g.io_null = match v {
                    J::Null => true,
                    _ => string(v, &what)? == "/dev/null",
                }
            }
            // an integer (ns per loop), or "CPUn" (the CPU to calibrate on)
            "calibration" => match v {
                J::Int(_) => {}
                J::Str(c) if c.starts_with("CPU") => {}
                _ => bail!("{what} must be an integer (ns per loop) or \"CPUn\", not {v:?}"),
            },
            // MB per thread, or a mode string
            "log_size" => {
                if !matches!(v, J::Int(_)) {
                    string(v, &what)?;
                }
            }
            "mem_buffer_size" => {
                let n = int(v, &what)?;
                if !(1..=i32::MAX as i64).contains(&n) {
                    bail!("{what} must be a positive number of bytes, not {n}");
                }
                g.mem_buffer = n as u64;
            }
            // the log fragment count of rt-app before 1.0 (the "frag" of
            // the browser and mp3 examples); rt-app 1.0 ignores it
            "frag" => {}
            _ => bail!("global: unsupported key \"{k}\""),
        }
    }
    Ok(g)
}

/// rt-app 1.0's top-level `"resources"` (`parse_resources`): when it is an
/// object, each member is a resource whose `"type"` must be one of
/// `string_to_resource`'s, else "Invalid type of resource" and rt-app exits.
/// A resource declared here is the one events of that name and kind use
/// anyway (`get_resource_index` finds it or adds it), so nothing else
/// changes; anything else than an object is ignored, as rt-app does.
fn parse_resources(v: &J) -> Result<()> {
    const TYPES: [&str; 8] = [
        "mutex",
        "signal",
        "wait",
        "broadcast",
        "sync",
        "sleep",
        "run",
        "timer",
    ];
    let J::Obj(o) = v else { return Ok(()) };
    for (name, r) in o {
        let ty = match r {
            J::Obj(m) => m.iter().rev().find(|(k, _)| k == "type").map(|(_, t)| t),
            _ => None,
        };
        match ty {
            Some(J::Str(t)) if TYPES.contains(&t.as_str()) => {}
            Some(J::Str(t)) => bail!(
                "\"resources\": \"{name}\": invalid type of resource \"{t}\" (rt-app knows {})",
                TYPES.join(", ")
            ),
            _ => bail!(
                "\"resources\": \"{name}\" must be an object with a \"type\" (one of {})",
                TYPES.join(", ")
            ),
        }
    }
    Ok(())
}

/// Keys rt-app 1.0 reads as integers in a task, for SCHED_DEADLINE only
/// (`parse_thread_data`): type-checked, otherwise without effect.
const DL_KEYS: [&str; 5] = [
    "dl-runtime",
    "dl-period",
    "period",
    "dl-deadline",
    "deadline",
];
/// Keys of rt-app before 1.0 (its `taskset.json` and `merge/` examples)
/// that rt-app 1.0 ignores: a task's `"exec"` and its own `"resources"`.
const OLD_KEYS: [&str; 2] = ["exec", "resources"];

fn parse_task(name: &str, v: &J, nr_cpus: usize, b: &mut Builder) -> Result<Group> {
    let obj = object(v, "the task")?;
    let mut g = Group {
        name: name.to_string(),
        instances: 1,
        loops: -1,
        phases: Vec::new(),
        delay: 0,
        weight: 100,
        policy: b.glob.default_policy,
        priority: None,
        cpus: None,
        unique: Vec::new(),
        has_timer: false,
        has_wait: false,
        mem_bytes: 0,
        barriers: Vec::new(),
        lateness: Hist::default(),
        wakeup: Hist::default(),
    };
    let mut loop_key = None;
    let mut phases = None;
    let mut events = Vec::new();
    for (k, v) in obj {
        match k.as_str() {
            "instance" => {
                let n = int(v, "\"instance\"")?;
                if !(0..=MAX_THREADS as i64).contains(&n) {
                    bail!("\"instance\" must be in 0..{MAX_THREADS}, not {n}");
                }
                g.instances = n as u32;
            }
            // rt-app: a negative delay is 0
            "delay" => g.delay = int(v, "\"delay\"")?.clamp(0, i32::MAX as i64) as Ns * US,
            "loop" => loop_key = Some(loops(v, "\"loop\"")?),
            "phases" => phases = Some(object(v, "\"phases\"")?),
            "cpus" => g.cpus = Some(cpus(v, nr_cpus)?),
            "priority" => g.priority = Some(int(v, "\"priority\"")?),
            "policy" => g.policy = policy(v, "\"policy\"")?,
            _ if DL_KEYS.contains(&k.as_str()) => {
                int(v, &format!("\"{k}\""))?;
            }
            _ if OLD_KEYS.contains(&k.as_str()) => {}
            _ if event_type(k).is_some() => events.push((k, v)),
            _ => bail!("unsupported key \"{k}\" (supported: {TASK_KEYS}; events {EVENT_KEYS})"),
        }
    }
    // rt-app's thread_body: pthread_setschedparam for SCHED_FIFO/RR (1..99,
    // default 10: DEFAULT_THREAD_PRIORITY), setpriority (nice) otherwise
    // (default 0); a bad value makes the thread, and rt-app, exit
    match g.policy {
        Policy::Other => {
            let n = g.priority.unwrap_or(0);
            if !(-20..=19).contains(&n) {
                bail!("\"priority\" is a SCHED_OTHER thread's nice value, in -20..19, not {n}");
            }
            g.weight = nice_to_weight(n as i32);
        }
        Policy::Fifo | Policy::Rr => {
            let n = *g.priority.get_or_insert(10);
            if !(1..=99).contains(&n) {
                bail!("\"priority\" is a SCHED_FIFO/SCHED_RR thread's real-time priority, in 1..99, not {n}");
            }
        }
    }
    match phases {
        Some(ps) => {
            if let Some((k, _)) = events.first() {
                bail!("event \"{k}\" beside \"phases\" (rt-app ignores it): move it into a phase");
            }
            if ps.is_empty() {
                bail!("\"phases\" is empty");
            }
            for (pname, pv) in ps {
                let p = parse_phase(name, pv, nr_cpus, &mut g, b)
                    .map_err(|e| anyhow!("phase \"{pname}\": {e:#}"))?;
                g.phases.push(p);
            }
            g.loops = loop_key.unwrap_or(-1);
        }
        None => {
            // the task is its only phase; rt-app 1.0's parse_thread_data
            // reads "loop" as that phase's count and loops the thread for
            // ever (data->loop = -1): "loop": 3 without phases runs three
            // iterations, then three more, until the duration (checked
            // with the installed rt-app 1.0). rt-app 1.1 and later run
            // such a task once instead.
            let evs = events
                .iter()
                .map(|(k, v)| parse_event(name, k, v, &mut g, b))
                .collect::<Result<Vec<_>>>()?;
            if evs.is_empty() {
                bail!("no events (one of {EVENT_KEYS}) and no \"phases\"");
            }
            g.phases.push(Phase {
                loops: loop_key.unwrap_or(1),
                events: evs,
                cpus: None,
                nice: None,
            });
            g.loops = -1;
        }
    }
    // each thread of the task is one more user of its barriers
    for &bar in &g.barriers {
        b.barrier_users[bar] += g.instances;
    }
    Ok(g)
}

/// rt-app's `parse_cpuset_data`: an array of CPU numbers, each at most the
/// last CPU (here of the simulated machine; rt-app: of the machine it runs
/// on, `sysconf(_SC_NPROCESSORS_CONF)`), else "Invalid cpu" and rt-app exits.
fn cpus(v: &J, nr_cpus: usize) -> Result<Vec<usize>> {
    let J::Arr(a) = v else {
        bail!("\"cpus\" must be an array of CPU numbers, not {}", v.kind());
    };
    if a.is_empty() {
        bail!("\"cpus\" is empty");
    }
    let mut out = Vec::new();
    for x in a {
        let c = int(x, "each of \"cpus\"")?;
        if c < 0 || c as u64 >= nr_cpus as u64 {
            bail!(
                "\"cpus\": CPU {c} is not on the simulated machine (CPUs 0..{})",
                nr_cpus.saturating_sub(1)
            );
        }
        if !out.contains(&(c as usize)) {
            out.push(c as usize);
        }
    }
    Ok(out)
}

fn parse_phase(task: &str, v: &J, nr_cpus: usize, g: &mut Group, b: &mut Builder) -> Result<Phase> {
    let mut p = Phase {
        loops: 1,
        events: Vec::new(),
        cpus: None,
        nice: None,
    };
    for (k, v) in object(v, "the phase")? {
        match k.as_str() {
            "loop" => p.loops = loops(v, "\"loop\"")?,
            // rt-app 1.0's parse_thread_phase_data reads a phase's cpus
            "cpus" => p.cpus = Some(cpus(v, nr_cpus)?),
            // later rt-app's parse_thread_phase_data reads a phase's
            // priority too (parse_sched_data(obj, same), rt-app commit
            // 395ec42): for a SCHED_OTHER thread its nice, which
            // __set_thread_sched_other_attrs refuses (and rt-app exits)
            // outside -20..19
            "priority" => {
                let n = int(v, "\"priority\"")?;
                if g.policy != Policy::Other {
                    bail!("\"priority\" per phase is supported for SCHED_OTHER tasks only (their nice), not for real-time ones: set it on the task");
                }
                if !(-20..=19).contains(&n) {
                    bail!("\"priority\" is a SCHED_OTHER thread's nice value, in -20..19, not {n}");
                }
                p.nice = Some(n);
            }
            // a change of class per phase (later rt-app's) is not modelled
            "policy" => bail!(
                "\"policy\" per phase is not supported (rt-app 1.0 ignores it; later rt-app changes the class per phase): set it on the task"
            ),
            _ if DL_KEYS.contains(&k.as_str()) || OLD_KEYS.contains(&k.as_str()) => {}
            _ if event_type(k).is_some() => p.events.push(parse_event(task, k, v, g, b)?),
            _ => bail!("unsupported key \"{k}\" (supported: loop, cpus, priority; events {EVENT_KEYS})"),
        }
    }
    if p.events.is_empty() {
        bail!("no events (one of {EVENT_KEYS})");
    }
    Ok(p)
}

/// `{"ref": .., "mutex": ..}` of a wait or sync; rt-app 1.0 names a missing
/// one "unknown" (`get_string_value_from`'s default).
fn cond_ref(k: &str, v: &J, b: &mut Builder) -> Result<(usize, Option<usize>)> {
    let mut cond = None;
    let mut mutex = None;
    if let J::Obj(o) = v {
        for (kk, vv) in o {
            match kk.as_str() {
                "ref" => cond = Some(b.cond(string(vv, &format!("\"{k}\": \"ref\""))?)),
                "mutex" => mutex = Some(b.mutexes.id(string(vv, &format!("\"{k}\": \"mutex\""))?)),
                _ => bail!("\"{k}\": unsupported key \"{kk}\" (supported: ref, mutex)"),
            }
        }
    }
    let cond = cond.unwrap_or_else(|| b.cond("unknown"));
    Ok((cond, mutex))
}

fn parse_event(task: &str, k: &str, v: &J, g: &mut Group, b: &mut Builder) -> Result<Event> {
    let what = format!("\"{k}\"");
    let ty = event_type(k).unwrap_or_default();
    // rt-app 1.0's parse_thread_event_data: an event whose value has the
    // wrong type ("sleep": false, "lock_order": [...]) is logged as
    // "Unknown or mismatch event type" and becomes a run of 0 µs
    let nothing = Event::Run(0);
    let _ = task;
    Ok(match ty {
        "run" | "runtime" | "sleep" => {
            let J::Int(_) = v else { return Ok(nothing) };
            let ns = us(v, &what)?;
            if ty == "sleep" {
                Event::Sleep(ns)
            } else {
                Event::Run(ns)
            }
        }
        // memload: memset of that many bytes of the thread's buffer, in
        // pieces of mem_buffer_size; ioload: write(2) of that many bytes
        // from it to io_device, in pieces of mem_buffer_size
        "mem" | "iorun" => {
            let J::Int(n) = *v else { return Ok(nothing) };
            if !(0..=i32::MAX as i64).contains(&n) {
                bail!(
                    "{what} must be a number of bytes in 0..{}, not {n}",
                    i32::MAX
                );
            }
            let n = n as u64;
            let piece = b.glob.mem_buffer;
            g.mem_bytes = g.mem_bytes.max(n.min(piece));
            if ty == "mem" {
                Event::Run(n.div_ceil(MEMSET_BYTES_PER_NS))
            } else {
                let writes = n.div_ceil(piece);
                // to a file other than /dev/null, each write also copies
                // its bytes (into the page cache): counted as a memset
                let copy = if b.glob.io_null {
                    0
                } else {
                    n.div_ceil(MEMSET_BYTES_PER_NS)
                };
                Event::Run(writes * WRITE_NULL_NS + copy)
            }
        }
        "timer" => {
            // rt-app 1.0: "ref" defaults to "unknown", "period" to 0, and
            // a mode starting with "absolute" is absolute
            let mut name = "unknown";
            let mut period = 0;
            let mut absolute = false;
            if let J::Obj(o) = v {
                for (kk, vv) in o {
                    match kk.as_str() {
                        "ref" => name = string(vv, &format!("{what}: \"ref\""))?,
                        "period" => period = us(vv, &format!("{what}: \"period\""))?,
                        "mode" => {
                            absolute =
                                string(vv, &format!("{what}: \"mode\""))?.starts_with("absolute")
                        }
                        _ => {
                            bail!("{what}: unsupported key \"{kk}\" (supported: ref, period, mode)")
                        }
                    }
                }
            }
            g.has_timer = true;
            // rt-app: one use in absolute mode makes the timer absolute
            let timer = if name.starts_with("unique") {
                let i = match g.unique.iter().position(|u| u.0 == name) {
                    Some(i) => i,
                    None => {
                        g.unique.push((name.to_string(), false));
                        g.unique.len() - 1
                    }
                };
                g.unique[i].1 |= absolute;
                TimerRef::Unique(i)
            } else {
                let i = b.timers.id(name);
                if b.absolute.len() <= i {
                    b.absolute.resize(i + 1, false);
                }
                b.absolute[i] |= absolute;
                TimerRef::Shared(i)
            };
            Event::Timer { timer, period }
        }
        // rt-app 1.0: "suspend": NAME waits on the condition NAME (with
        // the mutex NAME), whatever task it is in; "resume": NAME
        // broadcasts it. (rt-app 1.1 and later suspend on the task's own
        // name whatever the string says.) A resume that nobody waits for
        // is lost, as a condition variable's broadcast is.
        "suspend" | "resume" | "signal" | "broad" | "lock" | "unlock" | "barrier" => {
            let J::Str(name) = v else { return Ok(nothing) };
            match ty {
                "suspend" => {
                    g.has_wait = true;
                    Event::Wait {
                        cond: b.cond(name),
                        mutex: None,
                    }
                }
                "signal" => Event::Signal(b.cond(name)),
                "resume" | "broad" => Event::Broad(b.cond(name)),
                "lock" => {
                    g.has_wait = true;
                    Event::Lock(b.mutexes.id(name))
                }
                "unlock" => Event::Unlock(b.mutexes.id(name)),
                _ => {
                    let i = b.barriers.id(name);
                    if b.barrier_users.len() <= i {
                        b.barrier_users.resize(i + 1, 0);
                    }
                    g.barriers.push(i);
                    g.has_wait = true;
                    Event::Barrier(i)
                }
            }
        }
        "wait" | "sync" => {
            let (cond, mutex) = cond_ref(k, v, b)?;
            g.has_wait = true;
            if ty == "wait" {
                Event::Wait { cond, mutex }
            } else {
                Event::Sync { cond, mutex }
            }
        }
        // pthread_yield: the model has no yield; with nothing else
        // runnable on the CPU it returns at once, which is what it does
        // here
        "yield" => nothing,
        _ => bail!("unsupported key \"{k}\" (supported events: {EVENT_KEYS})"),
    })
}

/// `ns`, cut to end at `end`; and whether it was cut.
fn clamp(end: Option<Ns>, now: Ns, ns: Ns) -> (Ns, bool) {
    match end {
        Some(e) if now.saturating_add(ns) > e => (e.saturating_sub(now), true),
        _ => (ns, false),
    }
}

impl RtApp {
    /// Timer expiries reached so far.
    pub fn activations(&self) -> u64 {
        self.activations
    }

    fn record_lateness(&mut self, g: usize, v: Ns) {
        self.lateness.record(v);
        self.groups[g].lateness.record(v);
    }

    fn check_stall(&mut self) {
        if self.blocked > 0 && self.blocked + self.exited == self.threads.len() {
            self.stalled = true;
        }
    }

    fn block(&mut self, t: TaskId, on: Blocked) -> Step {
        self.threads[t].blocked = on;
        self.threads[t].busy = true;
        self.blocked += 1;
        self.check_stall();
        Step::Block
    }

    /// Wakes blocked thread `w` (a plain wake-up: futexes are not WF_SYNC).
    fn wake(&mut self, w: TaskId, fx: &mut Effects) {
        let th = &mut self.threads[w];
        if th.blocked == Blocked::No {
            return;
        }
        th.blocked = Blocked::No;
        th.woken = true;
        self.blocked -= 1;
        fx.wake(w, false, 0);
    }

    /// A signalled waiter: it takes its mutex back, or queues for it.
    fn requeue(&mut self, w: TaskId, mutex: Option<usize>, fx: &mut Effects) {
        match mutex {
            Some(m) if self.mutexes[m].owner.is_some() => {
                self.mutexes[m].waiters.push_back(w);
                self.threads[w].blocked = Blocked::Mutex(m);
            }
            Some(m) => {
                self.mutexes[m].owner = Some(w);
                self.wake(w, fx);
            }
            None => self.wake(w, fx),
        }
    }

    /// Unlocks `m` if `t` holds it, handing it to its first waiter.
    fn unlock(&mut self, m: usize, t: TaskId, fx: &mut Effects) {
        if self.mutexes[m].owner != Some(t) {
            return; // undefined for pthreads; nothing here
        }
        match self.mutexes[m].waiters.pop_front() {
            Some(w) => {
                self.mutexes[m].owner = Some(w);
                self.wake(w, fx);
            }
            None => self.mutexes[m].owner = None,
        }
    }

    fn signal(&mut self, c: usize, all: bool, fx: &mut Effects) {
        while let Some((w, m)) = self.conds[c].pop_front() {
            self.requeue(w, m, fx);
            if !all {
                break;
            }
        }
    }

    fn wait(&mut self, t: TaskId, cond: usize, mutex: Option<usize>, fx: &mut Effects) -> Step {
        if let Some(m) = mutex {
            self.unlock(m, t, fx);
        }
        self.conds[cond].push_back((t, mutex));
        self.block(t, Blocked::Cond(cond))
    }

    fn exit(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        self.threads[t].exited = true;
        self.exited += 1;
        if self.end.is_some_and(|e| now >= e) {
            // the duration is over: rt-app cancels every thread, so the
            // blocked ones are woken to exit
            for c in &mut self.conds {
                c.clear();
            }
            for m in &mut self.mutexes {
                m.waiters.clear();
            }
            for b in &mut self.barriers {
                b.1.clear();
            }
            for w in 0..self.threads.len() {
                if self.threads[w].blocked != Blocked::No {
                    self.wake(w, fx);
                    self.threads[w].woken = false;
                }
            }
        }
        if self.exited == self.threads.len() {
            self.finish = Some(now);
        }
        self.check_stall();
        Step::Exit
    }
}

impl Workload for RtApp {
    fn tasks(&self) -> Vec<TaskSpec> {
        self.threads
            .iter()
            .map(|th| {
                let g = &self.groups[th.group];
                let name = if g.instances == 1 {
                    g.name.clone()
                } else {
                    format!("{}-{}", g.name, th.inst)
                };
                let mut s = TaskSpec::new(name, TGID);
                s.weight = g.weight;
                s.cpus = g.cpus.clone();
                s.start_at = g.delay;
                s.working_set += g.mem_bytes;
                // SCHED_FIFO/RR: the RT class's load on sched_ext (core/rt.rs)
                if g.policy != Policy::Other {
                    s.rt_prio = g.priority.map(|p| p as u32);
                }
                s
            })
            .collect()
    }

    fn next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        if self.threads[t].exited {
            return Step::Exit;
        }
        // on_run has read these, if it was called
        self.threads[t].timer_due = None;
        self.threads[t].woken = false;
        let end = self.end;
        loop {
            if end.is_some_and(|e| now >= e) {
                return self.exit(t, now, fx);
            }
            let gi = self.threads[t].group;
            let th = &self.threads[t];
            let g = &self.groups[gi];
            let phase = &g.phases[th.phase];
            if th.ev == phase.events.len() {
                // the phase's events are done: its next loop, the next
                // phase, or the phases' next loop (rt-app's thread_body)
                let (ploops, nphases, gloops) = (phase.loops, g.phases.len(), g.loops);
                let th = &mut self.threads[t];
                // a loop that ran no event taking time still costs rt-app's
                // own bookkeeping: such loops make the thread a CPU hog
                let empty = !std::mem::take(&mut th.busy);
                th.ev = 0;
                th.phase_loop += 1;
                if th.phase_loop == ploops {
                    th.phase_loop = 0;
                    th.phase += 1;
                    if th.phase == nphases {
                        th.phase = 0;
                        th.thread_loop += 1;
                        if th.thread_loop == gloops {
                            return self.exit(t, now, fx);
                        }
                    }
                }
                if empty {
                    return Step::Run(clamp(end, now, EMPTY_LOOP_NS).0);
                }
                continue;
            }
            if th.ev == 0 {
                // rt-app 1.0's set_thread_affinity at each loop of a phase:
                // the phase's cpus, else the task's, else the thread's
                // default; a sched_setaffinity only when it differs from
                // the current one (core/affinity.rs)
                let want = phase.cpus.as_ref().or(g.cpus.as_ref());
                if want != th.cpus.as_ref() {
                    let want = want.cloned();
                    let list = want.clone().unwrap_or_else(|| (0..self.nr_cpus).collect());
                    fx.set_cpus(t, list);
                    self.threads[t].cpus = want;
                }
                // then later rt-app's set_thread_param: the phase's
                // priority, if it has one (a phase without keeps the
                // thread's nice: it does not go back to the task's); the
                // kernel changes nothing when the nice is the same
                // (set_user_nice returns early), so neither does this
                let th = &self.threads[t];
                let phase = &self.groups[gi].phases[th.phase];
                if let Some(n) = phase.nice.filter(|&n| n != th.nice) {
                    fx.set_nice(t, n);
                    self.threads[t].nice = n;
                }
            }
            let th = &self.threads[t];
            let phase = &self.groups[gi].phases[th.phase];
            let ev = phase.events[th.ev];
            self.threads[t].ev += 1;
            match ev {
                Event::Run(0) | Event::Sleep(0) => {}
                Event::Run(ns) => {
                    self.threads[t].busy = true;
                    return Step::Run(clamp(end, now, ns).0);
                }
                Event::Sleep(ns) => {
                    self.threads[t].busy = true;
                    return Step::Sleep(clamp(end, now, ns).0);
                }
                Event::Barrier(b) => {
                    // rt-app's rtapp_barrier: the last user to arrive
                    // broadcasts, the others wait (a barrier of one user
                    // never waits)
                    let (users, waiting) = &mut self.barriers[b];
                    if waiting.len() as u32 + 1 >= *users {
                        for w in std::mem::take(waiting) {
                            self.wake(w, fx);
                        }
                    } else {
                        waiting.push(t);
                        return self.block(t, Blocked::Barrier(b));
                    }
                }
                Event::Timer { timer, period } => {
                    let first = self.groups[gi].delay;
                    let st = match timer {
                        TimerRef::Shared(i) => &mut self.timers[i],
                        TimerRef::Unique(i) => &mut self.threads[t].unique[i],
                    };
                    if !st.init {
                        st.init = true;
                        st.next = first;
                    }
                    st.next += period;
                    let due = st.next;
                    if now < due {
                        let (ns, cut) = clamp(end, now, due - now);
                        if !cut {
                            self.activations += 1;
                            self.threads[t].timer_due = Some(due);
                        }
                        self.threads[t].busy = true;
                        return Step::Sleep(ns);
                    }
                    // already past its expiry: go on at once
                    if !st.absolute {
                        st.next = now;
                    }
                    self.activations += 1;
                    self.late += 1;
                    self.record_lateness(gi, now - due);
                }
                Event::Lock(m) => {
                    if self.mutexes[m].owner.is_some() {
                        self.mutexes[m].waiters.push_back(t);
                        return self.block(t, Blocked::Mutex(m));
                    }
                    self.mutexes[m].owner = Some(t);
                }
                Event::Unlock(m) => self.unlock(m, t, fx),
                Event::Wait { cond, mutex } => return self.wait(t, cond, mutex, fx),
                Event::Signal(c) => self.signal(c, false, fx),
                Event::Broad(c) => self.signal(c, true, fx),
                Event::Sync { cond, mutex } => {
                    self.signal(cond, false, fx);
                    return self.wait(t, cond, mutex, fx);
                }
            }
        }
    }

    fn on_run(&mut self, t: TaskId, woken_at: Ns, now: Ns) {
        let gi = self.threads[t].group;
        if let Some(due) = self.threads[t].timer_due.take() {
            self.record_lateness(gi, now.saturating_sub(due));
        } else if std::mem::take(&mut self.threads[t].woken) {
            let v = now.saturating_sub(woken_at);
            self.wakeup.record(v);
            self.groups[gi].wakeup.record(v);
        }
    }

    fn finished(&self) -> bool {
        self.exited == self.threads.len() || (self.end.is_some() && self.stalled)
    }

    fn metrics(&self, elapsed: Ns) -> Vec<Metric> {
        let done = match (self.finish, self.end) {
            (Some(f), _) => f,
            (None, Some(e)) if self.stalled => e,
            _ => elapsed,
        };
        let time = self.end.map_or(done, |e| done.min(e));
        let m = |name: String, value: f64, unit: &'static str| Metric {
            name,
            value,
            unit,
            higher_is_better: false,
        };
        let us = |h: &Hist, p: f64| h.percentile(p) / 1e3;
        let mut v = vec![m("time_s".into(), time as f64 / 1e9, "s")];
        let timed: Vec<&Group> = self.groups.iter().filter(|g| g.has_timer).collect();
        if !timed.is_empty() {
            let h = &self.lateness;
            v.push(m("activations".into(), self.activations as f64, ""));
            v.push(m("lateness_p50_us".into(), us(h, 50.0), "us"));
            v.push(m("lateness_p99_us".into(), us(h, 99.0), "us"));
            v.push(m("lateness_max_us".into(), h.max() as f64 / 1e3, "us"));
            let pct = 100.0 * self.late as f64 / self.activations.max(1) as f64;
            v.push(m("late_pct".into(), pct, "%"));
        }
        let waiting: Vec<&Group> = self.groups.iter().filter(|g| g.has_wait).collect();
        if !waiting.is_empty() {
            v.push(m("wakeups".into(), self.wakeup.count() as f64, ""));
            v.push(m("wakeup_p50_us".into(), us(&self.wakeup, 50.0), "us"));
            v.push(m("wakeup_p99_us".into(), us(&self.wakeup, 99.0), "us"));
        }
        if timed.len() > 1 {
            for g in &timed {
                let name = format!("{}.lateness_p99_us", g.name);
                v.push(m(name, us(&g.lateness, 99.0), "us"));
            }
        }
        if waiting.len() > 1 {
            for g in &waiting {
                let name = format!("{}.wakeup_p99_us", g.name);
                v.push(m(name, us(&g.wakeup, 99.0), "us"));
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{drive, drive_on, metric};
    use super::*;

    const MS: Ns = 1_000_000;

    /// A task that runs its events `n` times and exits: rt-app 1.0 loops
    /// a task without phases for ever, so a bounded task is one phase.
    fn once(n: i64, events: &str) -> String {
        format!(r#"{{"loop": 1, "phases": {{"p": {{"loop": {n}, {events}}}}}}}"#)
    }

    fn app(json: &str) -> RtApp {
        RtApp::parse("t.json", json, 4).unwrap_or_else(|e| panic!("{e:#}"))
    }

    fn err(json: &str) -> String {
        match RtApp::parse("t.json", json, 4) {
            Ok(_) => panic!("parsed: {json}"),
            Err(e) => format!("{e:#}"),
        }
    }

    /// Thread `t`'s steps when it runs alone and nobody wakes it: until it
    /// blocks or exits.
    fn steps(w: &mut RtApp, t: TaskId) -> Vec<Step> {
        let mut now = w.tasks()[t].start_at;
        let mut v = Vec::new();
        for _ in 0..1000 {
            let mut fx = Effects::default();
            let s = w.next(t, now, &mut fx);
            v.push(s);
            match s {
                Step::Run(ns) | Step::Sleep(ns) => now += ns,
                Step::Block | Step::Exit => break,
            }
        }
        v
    }

    /// rt-app 1.0's set_thread_affinity (src/rt-app.c), at each loop of a
    /// phase: the phase's "cpus", else the task's, else the thread's
    /// default (every CPU); a sched_setaffinity only when that differs
    /// from the current affinity.
    #[test]
    fn a_phases_cpus_set_the_affinity_at_each_of_its_loops() {
        use crate::workload::Prop;
        let props = |json: &str| {
            let mut w = app(json);
            let mut now = 0;
            let mut v = Vec::new();
            for _ in 0..20 {
                let mut fx = Effects::default();
                let s = w.next(0, now, &mut fx);
                v.push(
                    fx.props
                        .into_iter()
                        .map(|(t, p)| (t, p))
                        .collect::<Vec<_>>(),
                );
                match s {
                    Step::Run(ns) | Step::Sleep(ns) => now += ns,
                    _ => break,
                }
            }
            v
        };
        let cpus = |c: &[usize]| vec![(0, Prop::Cpus(c.to_vec()))];
        // tutorial/example8.json's shape: the task on CPU 2, phases on 0, 1
        // and (inherited) 2
        let v = props(
            r#"{"tasks": {"t": {"cpus": [2], "loop": 1, "phases": {
                "a": {"cpus": [0], "loop": 2, "run": 10},
                "b": {"cpus": [1], "run": 10},
                "c": {"run": 10}}}}}"#,
        );
        assert_eq!(v, [cpus(&[0]), vec![], cpus(&[1]), cpus(&[2]), vec![]]);
        // no task-level "cpus": back to every CPU of the machine (4 here)
        let v = props(
            r#"{"tasks": {"t": {"loop": 1, "phases": {
                "a": {"run": 10},
                "b": {"cpus": [3, 1], "run": 10},
                "c": {"run": 10}}}}}"#,
        );
        assert_eq!(v, [vec![], cpus(&[3, 1]), cpus(&[0, 1, 2, 3]), vec![]]);
    }

    /// Later rt-app's set_thread_param (src/rt-app.c, rt-app commit
    /// 395ec42), at each loop of a phase after its affinity: the phase's
    /// "priority" is the thread's nice from then on; a phase without one
    /// keeps it (not back to the task's), and the same nice again is no
    /// change (set_user_nice returns early).
    #[test]
    fn a_phases_priority_sets_the_nice_at_each_of_its_loops() {
        use crate::workload::Prop;
        let props = |json: &str| {
            let mut w = app(json);
            let mut now = 0;
            let mut v = Vec::new();
            for _ in 0..20 {
                let mut fx = Effects::default();
                let s = w.next(0, now, &mut fx);
                v.push(fx.props);
                match s {
                    Step::Run(ns) | Step::Sleep(ns) => now += ns,
                    _ => break,
                }
            }
            v
        };
        let nice = |n: i32| vec![(0, Prop::Weight(nice_to_weight(n)))];
        // the task at nice 5: phase a to -3 (twice, one change), b keeps
        // -3, c to 5 again (its task's nice, here as a phase's), then the
        // second loop of the phases: a to -3 again
        let v = props(
            r#"{"tasks": {"t": {"priority": 5, "loop": 2, "phases": {
                "a": {"priority": -3, "loop": 2, "run": 10},
                "b": {"run": 10},
                "c": {"priority": 5, "run": 10}}}}}"#,
        );
        assert_eq!(
            v,
            [
                nice(-3),
                vec![],
                vec![],
                nice(5),
                nice(-3),
                vec![],
                vec![],
                nice(5),
                vec![]
            ]
        );
        assert_eq!(
            app(r#"{"tasks": {"t": {"priority": 5, "run": 1}}}"#).tasks()[0].weight,
            nice_to_weight(5)
        );
        // a phase's nice equal to the task's is no change; the affinity
        // comes first, as set_thread_affinity runs before set_thread_param
        let v = props(
            r#"{"tasks": {"t": {"loop": 1, "phases": {
                "a": {"priority": 0, "run": 10},
                "b": {"cpus": [1], "priority": 19, "run": 10}}}}}"#,
        );
        let mut both = vec![(0, Prop::Cpus(vec![1]))];
        both.extend(nice(19));
        assert_eq!(v, [vec![], both, vec![]]);
    }

    #[test]
    fn a_periodic_task_does_its_activations_on_the_timer() {
        let p = once(
            100,
            r#""run": 1000, "timer": {"ref": "tick", "period": 10000}"#,
        );
        let json = format!(r#"{{"tasks": {{"p": {p}}}}}"#);
        let mut w = app(&json);
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(out.exited, 1);
        assert_eq!(out.run_ns, vec![100 * MS]);
        assert_eq!(w.activations(), 100);
        // the 100th expiry is at 100 * 10 ms; then the loop is over
        assert_eq!(out.end, 1000 * MS);
        assert_eq!(metric(&w, 0, "time_s"), 1.0);
        assert_eq!(metric(&w, 0, "activations"), 100.0);
        assert_eq!(metric(&w, 0, "lateness_p99_us"), 0.0);
        assert_eq!(metric(&w, 0, "late_pct"), 0.0);
        // a second one, 0.5 ms out of phase, on the same single CPU: each
        // of its activations waits for the first's 1 ms run
        let p = once(
            100,
            r#""run": 1000, "timer": {"ref": "unique", "period": 10000}"#,
        );
        let q = p.replacen('{', r#"{"delay": 500, "#, 1);
        let mut w = app(&format!(r#"{{"tasks": {{"p": {p}, "q": {q}}}}}"#));
        let out = drive_on(&mut w, 1, 0, u64::MAX);
        assert_eq!(w.activations(), 200);
        assert_eq!(metric(&w, 0, "p.lateness_p99_us"), 0.0);
        assert_eq!(metric(&w, 0, "lateness_max_us"), 500.0);
        let q = metric(&w, 0, "q.lateness_p99_us");
        assert!((q - 500.0).abs() < 15.0, "{q}");
        assert_eq!(metric(&w, 0, "late_pct"), 0.0);
        assert_eq!(out.end, 1000 * MS + 500_000);
        assert_eq!(w.metrics(out.end)[0].name, "time_s");
    }

    #[test]
    fn an_overloaded_cpu_makes_activations_late() {
        // two tasks of 6 ms every 10 ms on one CPU: 120% load
        let a = once(
            20,
            r#""run": 6000, "timer": {"ref": "unique", "period": 10000}"#,
        );
        let json = format!(r#"{{"tasks": {{"a": {a}, "b": {a}}}}}"#);
        let json = json.as_str();
        let mut w = app(json);
        let out = drive_on(&mut w, 1, 0, u64::MAX);
        assert_eq!(out.exited, 2);
        assert_eq!(w.activations(), 40);
        assert!(metric(&w, 0, "late_pct") > 40.0, "{:?}", w.metrics(out.end));
        assert!(metric(&w, 0, "lateness_p99_us") > 1000.0);
        assert!(metric(&w, 0, "a.lateness_p99_us") > 0.0);
        assert!(metric(&w, 0, "b.lateness_p99_us") > 0.0);
        // 40 runs of 6 ms back to back
        assert_eq!(out.end, 240 * MS);
        // on two CPUs nothing is late
        let mut w = app(json);
        drive_on(&mut w, 2, 0, u64::MAX);
        assert_eq!(metric(&w, 0, "late_pct"), 0.0);
    }

    #[test]
    fn timers_are_shared_by_name_unless_unique() {
        let json = |r: &str| {
            let a = once(
                2,
                &format!(r#""run": 100, "timer": {{"ref": "{r}", "period": 10000}}"#),
            );
            format!(r#"{{"tasks": {{"a": {a}, "b": {a}}}}}"#)
        };
        // one timeline: each use moves it on by a period (10, 20, 30, 40 ms)
        let mut w = app(&json("T"));
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(out.end, 40 * MS);
        // one timer per thread: both expire at 10 and 20 ms
        let mut w = app(&json("unique"));
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(out.end, 20 * MS);
        assert_eq!(metric(&w, 0, "time_s"), 0.02);
    }

    #[test]
    fn a_late_timer_restarts_in_relative_mode_and_keeps_its_place_in_absolute() {
        // phase 1 overruns its 10 ms period by 15 ms, phase 2 is on time
        let json = |mode: &str| {
            format!(
                r#"{{"tasks": {{"t": {{"loop": 1, "phases": {{
                "long": {{"run": 25000, "timer": {{"ref": "x", "period": 10000, "mode": "{mode}"}}}},
                "short": {{"loop": 3, "run": 1000, "timer": {{"ref": "x", "period": 10000}}}}}}}}}}}}"#
            )
        };
        // relative: the timeline restarts at 25 ms: expiries 35, 45, 55
        let mut w = app(&json("relative"));
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(out.end, 55 * MS);
        assert_eq!(metric(&w, 0, "late_pct"), 25.0);
        assert_eq!(metric(&w, 0, "lateness_max_us"), 15_000.0);
        // absolute: expiries stay at 20 (missed, by 6 ms), 30, 40
        let mut w = app(&json("absolute"));
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(out.end, 40 * MS);
        assert_eq!(w.activations(), 4);
        assert_eq!(metric(&w, 0, "late_pct"), 50.0);
    }

    #[test]
    fn a_delayed_task_starts_its_timer_after_the_delay() {
        let t = once(2, r#""run": 100, "timer": {"ref": "x", "period": 10000}"#);
        let t = t.replacen('{', r#"{"delay": 5000, "#, 1);
        let mut w = app(&format!(r#"{{"tasks": {{"t": {t}}}}}"#));
        assert_eq!(w.tasks()[0].start_at, 5 * MS);
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(out.end, 25 * MS);
    }

    #[test]
    fn resume_wakes_the_suspended_task() {
        let waker = once(10, r#""run": 1000, "resume": "sleeper", "sleep": 1000"#);
        let sleeper = once(10, r#""suspend": "sleeper", "run": 100"#);
        let mut w = app(&format!(
            r#"{{"tasks": {{"waker": {waker}, "sleeper": {sleeper}}}}}"#
        ));
        let out = drive(&mut w, 5000, u64::MAX);
        assert_eq!(out.exited, 2);
        assert!(out.stuck.is_empty(), "{:?}", out.stuck);
        assert_eq!(out.wakes, 10);
        assert_eq!(out.sync_wakes, 0);
        assert_eq!(out.spurious_wakes, 0);
        assert_eq!(out.run_ns, vec![10 * MS, 10 * 100_000]);
        assert_eq!(metric(&w, 0, "wakeup_p99_us"), 5.0);
        assert_eq!(metric(&w, 0, "wakeups"), 10.0);
        // the sleeper ran its 100 us after each resume: the last at 19 ms
        // + the wake-up; the waker then sleeps to 20 ms and ends
        assert_eq!(out.end, 20 * MS);
    }

    #[test]
    fn a_resume_before_the_suspend_is_lost() {
        let json = |dur: i32| {
            let waker = once(1, r#""resume": "sleeper", "run": 10"#);
            let sleeper = once(1, r#""suspend": "sleeper", "run": 10"#);
            format!(
                r#"{{"global": {{"duration": {dur}}}, "tasks": {{
                "waker": {waker}, "sleeper": {sleeper}}}}}"#
            )
        };
        let mut w = app(&json(1));
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(out.wakes, 0);
        assert_eq!(out.stuck, vec![1]);
        // rt-app would wait for the duration
        assert!(w.finished());
        assert_eq!(metric(&w, out.end, "time_s"), 1.0);
        // without a duration rt-app hangs: the run goes to its time limit
        let mut w = app(&json(-1));
        drive(&mut w, 0, u64::MAX);
        assert!(!w.finished());
        assert_eq!(metric(&w, 7_000 * MS, "time_s"), 7.0);
    }

    #[test]
    fn wait_signal_and_broad_hand_the_mutex_over() {
        let json = |wake: &str| {
            let consumer = once(
                5,
                r#""lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m", "run": 100"#,
            )
            .replacen('{', r#"{"instance": 2, "#, 1);
            let producer = once(
                5,
                &format!(r#""sleep": 1000, "lock": "m", "{wake}": "c", "unlock": "m""#),
            );
            format!(r#"{{"tasks": {{"consumer": {consumer}, "producer": {producer}}}}}"#)
        };
        // broad: both consumers leave the condition, queue for the mutex
        // the producer holds, and get it in turn
        let mut w = app(&json("broad"));
        let out = drive(&mut w, 1000, u64::MAX);
        assert_eq!(out.exited, 3, "stuck: {:?}", out.stuck);
        assert_eq!(out.wakes, 10);
        assert_eq!(out.spurious_wakes, 0);
        assert_eq!(out.run_ns[..2], [500_000, 500_000]);
        // signal: one consumer per signal, in turn (first come, first
        // woken): 3 and 2 of the 10 the consumers wait for; they stay
        // blocked when the producer is done
        let mut w = app(&json("signal"));
        let out = drive(&mut w, 1000, u64::MAX);
        assert_eq!(out.wakes, 5);
        assert_eq!(out.spurious_wakes, 0);
        assert_eq!(out.stuck, [0, 1]);
        assert_eq!(out.run_ns[..2], [300_000, 200_000]);
        assert_eq!(metric(&w, 0, "wakeups"), 5.0);
    }

    #[test]
    fn instance_creates_that_many_threads() {
        let t = once(2, r#""run": 100"#).replacen('{', r#"{"instance": 3, "#, 1);
        let u = once(1, r#""run": 5"#);
        let mut w = app(&format!(
            r#"{{"tasks": {{"t": {t}, "u": {u}, "none": {{"instance": 0, "run": 5}}}}}}"#
        ));
        let t = w.tasks();
        let names: Vec<&str> = t.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["t-0", "t-1", "t-2", "u"]);
        assert!(t.iter().all(|s| s.tgid == t[0].tgid));
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(out.exited, 4);
        assert_eq!(out.run_ns, vec![200_000, 200_000, 200_000, 5000]);
    }

    #[test]
    fn phases_run_in_file_order() {
        // "b" before "a": an alphabetical map would swap them
        let mut w = app(r#"{"tasks": {"t": {"loop": 2, "phases": {
            "b": {"loop": 2, "sleep": 300},
            "a": {"run": 100}}}}}"#);
        let s = steps(&mut w, 0);
        let want = [
            Step::Sleep(300_000),
            Step::Sleep(300_000),
            Step::Run(100_000),
        ];
        assert_eq!(s[..3], want);
        assert_eq!(s[3..6], want);
        assert_eq!(s[6..], [Step::Exit]);
    }

    #[test]
    fn events_run_in_key_order_and_keys_may_be_numbered() {
        let task = |ev: &str| format!(r#"{{"tasks": {{"t": {}}}}}"#, once(1, ev));
        let mut a = app(&task(r#""run": 1000, "sleep": 5000"#));
        let mut b = app(&task(r#""sleep": 5000, "run": 1000"#));
        assert_eq!(
            steps(&mut a, 0),
            [Step::Run(MS), Step::Sleep(5 * MS), Step::Exit]
        );
        assert_eq!(
            steps(&mut b, 0),
            [Step::Sleep(5 * MS), Step::Run(MS), Step::Exit]
        );
        let mut c = app(&task(
            r#""run0": 100, "sleep1": 200, "run2": 300, "runtime3": 400"#,
        ));
        assert_eq!(
            steps(&mut c, 0),
            [
                Step::Run(100_000),
                Step::Sleep(200_000),
                Step::Run(300_000),
                Step::Run(400_000),
                Step::Exit
            ]
        );
        // the order decides the outcome: a resume after the run finds the
        // other task suspended; one before it, at time 0, is lost
        let json = |waker: &str| {
            let s = once(1, r#""suspend": "s", "run": 10"#);
            format!(r#"{{"tasks": {{"w": {}, "s": {s}}}}}"#, once(1, waker))
        };
        let mut w = app(&json(r#""run": 1000, "resume": "s""#));
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!((out.wakes, out.exited), (1, 2));
        let mut w = app(&json(r#""resume": "s", "run": 1000"#));
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!((out.wakes, out.exited), (0, 1));
    }

    #[test]
    fn the_duration_stops_every_thread() {
        let mut w = app(r#"{"global": {"duration": 2, "calibration": "CPU0",
            "default_policy": "SCHED_OTHER", "logdir": "./", "gnuplot": false},
            "tasks": {
                "spin": {"run": 30000},
                "idle": {"suspend": "idle", "run": 10}}}"#);
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(out.exited, 2, "stuck {:?}", out.stuck);
        // the spinner's runs are cut at exactly 2 s
        assert_eq!(out.run_ns[0], 2000 * MS);
        assert_eq!(out.end, 2000 * MS);
        assert!(w.finished());
        assert_eq!(metric(&w, out.end, "time_s"), 2.0);
    }

    #[test]
    fn priority_is_nice_and_sets_the_weight() {
        assert_eq!(nice_to_weight(0), 100);
        assert_eq!(nice_to_weight(-20), 8668);
        assert_eq!(nice_to_weight(19), 1);
        assert_eq!(nice_to_weight(1), 80);
        assert_eq!(nice_to_weight(-1), 125);
        for n in -20..19 {
            let r =
                PRIO_TO_WEIGHT[(n + 20) as usize] as f64 / PRIO_TO_WEIGHT[(n + 21) as usize] as f64;
            assert!((r - 1.25).abs() < 0.06, "nice {n}: {r}");
        }
        // SCHED_FIFO/RR: a real-time priority, 10 by default
        let w = app(r#"{"global": {"default_policy": "SCHED_FIFO"},
            "tasks": {"f": {"run": 1}, "r": {"policy": "SCHED_RR", "priority": 70, "run": 1},
                "o": {"policy": "SCHED_OTHER", "run": 1}}}"#);
        let t = w.tasks();
        assert_eq!(
            t.iter().map(|s| s.rt_prio).collect::<Vec<_>>(),
            [Some(10), Some(70), None]
        );
        let w = app(
            r#"{"tasks": {"t": {"priority": 5, "cpus": [1, 3, 1], "run": 10},
            "u": {"policy": "SCHED_OTHER", "run": 10}}}"#,
        );
        let t = w.tasks();
        assert_eq!(t[0].weight, 33);
        assert_eq!(t[0].cpus, Some(vec![1, 3]));
        assert_eq!(t[1].weight, 100);
        assert_eq!(t[1].cpus, None);
    }

    #[test]
    fn trailing_commas_are_allowed_as_rt_app_allows_them() {
        let w = app("{\"tasks\": {\"t\": {\"cpus\": [0, 1, ], \"run\": 1, /* c */ }, }, }");
        assert_eq!(w.tasks()[0].cpus, Some(vec![0, 1]));
        // not inside strings, and not a comma before a value
        let w = app(r#"{"tasks": {"a,}": {"run": 1}}}"#);
        assert_eq!(w.tasks()[0].name, "a,}");
        assert!(err(r#"{"tasks": {"t": {"cpus": [0, , 1], "run": 1}}}"#).contains("not valid JSON"));
    }

    #[test]
    fn comments_are_allowed_as_rt_app_allows_them() {
        let w = app("/* a use case */ {\n// one task\n\"tasks\": {\"a//b\": {\"run\": 1 /* us */, \"loop\": 1}}}");
        assert_eq!(w.tasks()[0].name, "a//b");
        assert!(err("{\"tasks\": {} /* open").contains("comment opened on line 1 is never closed"));
    }

    #[test]
    fn bad_files_say_what_is_wrong_in_one_line() {
        let cases = [
            (
                r#"{"tasks": {"t1": {"run": 10, "fork": "t2"}}}"#,
                r#"rt-app t.json: task "t1": unsupported key "fork""#,
            ),
            (r#"{"tasks": "#, "rt-app t.json: not valid JSON: "),
            (r#"{"global": {}}"#, r#"rt-app t.json: no "tasks" object"#),
            (r#"{"tasks": {}}"#, r#"rt-app t.json: "tasks" is empty"#),
            (
                r#"{"tasks": {"t": {"run": -5}}}"#,
                r#"task "t": "run" must be a number of µs"#,
            ),
            (
                r#"{"tasks": {"t": {"run": 5, "timer": {"ref": "x", "period": 10, "slack": 1}}}}"#,
                r#""timer": unsupported key "slack""#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "cpus": [4]}}}"#,
                "CPU 4 is not on the simulated machine (CPUs 0..3)",
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "priority": 20}}}"#,
                "nice value, in -20..19, not 20",
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "nice": 2}}}"#,
                r#"unsupported key "nice""#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "policy": "SCHED_BATCH"}}}"#,
                r#"task "t": "policy": invalid policy "SCHED_BATCH""#,
            ),
            (
                r#"{"global": {"default_policy": "SCHED_DEADLINE"}, "tasks": {"t": {"run": 1}}}"#,
                "the deadline class is not modelled",
            ),
            (
                r#"{"global": {"gnuplot": 1}, "tasks": {"t": {"run": 1}}}"#,
                r#"global: "gnuplot" must be true or false, not an integer"#,
            ),
            (
                r#"{"global": {"calibration": "fast"}, "tasks": {"t": {"run": 1}}}"#,
                r#"global: "calibration" must be an integer (ns per loop) or "CPUn""#,
            ),
            (
                r#"{"global": {"mem_buffer_size": "1M"}, "tasks": {"t": {"run": 1}}}"#,
                r#"global: "mem_buffer_size" must be an integer, not a string"#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "period": "y"}}}"#,
                r#"task "t": "period" must be an integer, not a string"#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "mem": -3}}}"#,
                r#"task "t": "mem" must be a number of bytes"#,
            ),
            (
                r#"{"global": {"frobnicate": 1}, "tasks": {"t": {"run": 1}}}"#,
                r#"global: unsupported key "frobnicate""#,
            ),
            (
                r#"{"resources": {"m": {"type": "bogus"}}, "tasks": {"t": {"run": 1}}}"#,
                r#"rt-app t.json: "resources": "m": invalid type of resource "bogus""#,
            ),
            (
                r#"{"resources": {"m": 3}, "tasks": {"t": {"run": 1}}}"#,
                r#""resources": "m" must be an object with a "type""#,
            ),
            (
                r#"{"frag": 1, "tasks": {"t": {"run": 1}}}"#,
                r#"unsupported top-level key "frag""#,
            ),
            (
                r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "policy": "SCHED_OTHER"}}}}}"#,
                r#"task "t": phase "p": "policy" per phase is not supported"#,
            ),
            (
                r#"{"tasks": {"t": {"policy": "SCHED_FIFO", "phases": {"p": {"run": 1, "priority": 3}}}}}"#,
                r#"task "t": phase "p": "priority" per phase is supported for SCHED_OTHER tasks only"#,
            ),
            (
                r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "priority": -21}}}}}"#,
                r#"task "t": phase "p": "priority" is a SCHED_OTHER thread's nice value, in -20..19, not -21"#,
            ),
            (
                r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "priority": "high"}}}}}"#,
                r#"task "t": phase "p": "priority""#,
            ),
            (
                r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "sem_wait": "s"}}}}}"#,
                r#"task "t": phase "p": unsupported key "sem_wait""#,
            ),
            (
                r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "cpus": [0, 9]}}}}}"#,
                r#"task "t": phase "p": "cpus": CPU 9 is not on the simulated machine"#,
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "policy": "SCHED_FIFO", "priority": 0}}}"#,
                "real-time priority, in 1..99, not 0",
            ),
            (
                r#"{"tasks": {"t": {"run": 1, "phases": {"p": {"run": 1}}}}}"#,
                r#"event "run" beside "phases""#,
            ),
            (
                r#"{"tasks": {"t": {"loop": 0, "run": 1}}}"#,
                r#""loop" must be a positive number of loops or -1"#,
            ),
            (
                r#"{"tasks": {"t": {"instance": 0, "run": 1}}}"#,
                "no threads to run",
            ),
            (r#"{"tasks": {"t": {"loop": 3}}}"#, r#"task "t": no events"#),
            (r#"[1, 2]"#, "the file must be an object, not an array"),
        ];
        for (json, want) in cases {
            let e = err(json);
            assert!(e.starts_with("rt-app t.json: "), "{e}");
            assert!(e.contains(want), "{json}\n  gave: {e}\n  want: {want}");
            assert!(!e.contains('\n'), "{e}");
        }
        let e = match RtApp::from_file("/nonexistent/x.json", 4) {
            Ok(_) => panic!("read a missing file"),
            Err(e) => format!("{e:#}"),
        };
        assert!(
            e.starts_with("rt-app /nonexistent/x.json: cannot read it"),
            "{e}"
        );
    }

    #[test]
    fn duplicate_keys_keep_the_first_place_and_the_last_value_as_json_c_does() {
        // browser-long.json's "start" phase: sleep 400000, run 15000,
        // resume, run 7000, sleep 8000; json-c reads sleep 8000, run 7000,
        // resume
        let p = once(
            1,
            r#""sleep": 400, "run": 15, "resume": "x", "run": 7, "sleep": 8"#,
        );
        let mut w = app(&format!(r#"{{"tasks": {{"t": {p}}}}}"#));
        assert_eq!(
            steps(&mut w, 0),
            [Step::Sleep(8_000), Step::Run(7_000), Step::Exit]
        );
        // a phase written twice: the second one, in the first one's place
        let mut w = app(r#"{"tasks": {"t": {"loop": 1, "phases": {
            "p": {"run": 1}, "q": {"run": 2}, "p": {"run": 3}}}}}"#);
        assert_eq!(
            steps(&mut w, 0),
            [Step::Run(3_000), Step::Run(2_000), Step::Exit]
        );
        // a task named twice is one task, the last one written
        let w =
            app(r#"{"tasks": {"t": {"run": 1}, "u": {"run": 1}, "t": {"run": 2, "priority": 5}}}"#);
        let t = w.tasks();
        assert_eq!(t.len(), 2);
        assert_eq!((t[0].name.as_str(), t[0].weight), ("t", 33));
    }

    #[test]
    fn a_task_without_phases_loops_for_ever_as_rt_app_1_0_runs_it() {
        // "loop" is its phase's count; the thread loops until the duration
        let mut w = app(r#"{"tasks": {"t": {"loop": 2, "run": 100, "sleep": 900}}}"#);
        let s = steps(&mut w, 0);
        assert_eq!(s.len(), 1000, "{:?}", &s[s.len() - 2..]);
        assert_eq!(s[..2], [Step::Run(100_000), Step::Sleep(900_000)]);
        let mut w = app(r#"{"global": {"duration": 1},
            "tasks": {"t": {"loop": 2, "run": 100, "sleep": 900}}}"#);
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(out.end, 1000 * MS);
        assert_eq!(out.run_ns, vec![100 * MS]);
    }

    #[test]
    fn suspend_waits_on_the_name_it_is_given_as_rt_app_1_0_does() {
        // browser-long.json: BrowserMain suspends on "Browser" and
        // "BrowserNext", which other tasks resume
        let main = once(3, r#""suspend": "Browser", "run": 100, "suspend1": "Next""#);
        let json = format!(
            r#"{{"tasks": {{"main": {main},
            "ev": {{"loop": 1, "phases": {{"p": {{"loop": 3, "sleep": 1000, "resume": "Browser", "sleep1": 1000, "resume1": "Next"}}}}}}}}}}"#
        );
        let mut w = app(&json);
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!((out.exited, out.wakes), (2, 6), "stuck {:?}", out.stuck);
        assert_eq!(out.run_ns[0], 300_000);
    }

    #[test]
    fn events_of_the_wrong_type_run_nothing_and_an_empty_loop_spins() {
        // taskset.json and merge/thread*.json: rt-app 1.0 turns
        // "lock_order": [...] and "sleep": false into runs of 0 us ("Unknown
        // or mismatch event type"), and ignores exec/period/resources
        let json = r#"{"global": {"duration": 1}, "tasks": {"t": {
            "exec": 5000, "period": 24000, "deadline": 24000, "sleep": false,
            "lock_order": ["r0", "trig1"], "run": 1.5,
            "resources": {"r0": {"duration": 1000}}}}}"#;
        let mut w = app(json);
        assert_eq!(steps(&mut w, 0)[..3], [Step::Run(EMPTY_LOOP_NS); 3]);
        // a thread of such loops is a CPU hog until the duration
        let mut w = app(json);
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!(out.run_ns, vec![1000 * MS]);
        // a loop with a time-taking event costs nothing more
        let mut w = app(&format!(
            r#"{{"tasks": {{"t": {}}}}}"#,
            once(3, r#""run": 5, "sleep": false"#)
        ));
        assert_eq!(
            steps(&mut w, 0),
            [
                Step::Run(5_000),
                Step::Run(5_000),
                Step::Run(5_000),
                Step::Exit
            ]
        );
        // yield: nothing (the model has no yield)
        let mut w = app(&format!(
            r#"{{"tasks": {{"t": {}}}}}"#,
            once(1, r#""run": 5, "yield": "", "run1": 6"#)
        ));
        assert_eq!(
            steps(&mut w, 0),
            [Step::Run(5_000), Step::Run(6_000), Step::Exit]
        );
    }

    #[test]
    fn mem_and_iorun_are_memsets_and_writes_of_the_buffer() {
        // example6.json: mem 1000 bytes, iorun 100000 bytes to /dev/null
        // through a buffer of mem_buffer_size 1 MiB
        let t = once(1, r#""mem": 1000, "iorun": 100000, "iorun1": 3000000"#);
        let json = |g: &str| format!(r#"{{"global": {{{g}}}, "tasks": {{"t": {t}}}}}"#);
        let mut w = app(&json(
            r#""mem_buffer_size": 1048576, "io_device": "/dev/null""#,
        ));
        assert_eq!(
            steps(&mut w, 0),
            [
                Step::Run(1000 / MEMSET_BYTES_PER_NS + 1),
                Step::Run(WRITE_NULL_NS),
                Step::Run(3 * WRITE_NULL_NS),
                Step::Exit
            ]
        );
        let base = TaskSpec::new("x", 0).working_set;
        // the buffer's part that a memset or write touches is working set
        assert_eq!(w.tasks()[0].working_set, base + (1 << 20));
        // the default buffer is 4 MiB: one write; a real file also copies
        let mut w = app(&json(r#""io_device": "/tmp/out""#));
        let s = steps(&mut w, 0);
        assert_eq!(
            s[2],
            Step::Run(WRITE_NULL_NS + 3_000_000 / MEMSET_BYTES_PER_NS)
        );
        assert_eq!(w.tasks()[0].working_set, base + 3_000_000);
    }

    #[test]
    fn a_barrier_holds_each_user_until_the_last_one_reaches_it() {
        // example7.json's pattern: two tasks meet at each barrier
        let a = once(2, r#""runtime1": 1000, "barrier1": "B", "sleep1": 100"#);
        let b = once(2, r#""runtime1": 3000, "barrier1": "B", "sleep1": 100"#);
        let mut w = app(&format!(r#"{{"tasks": {{"a": {a}, "b": {b}}}}}"#));
        let out = drive_on(&mut w, 2, 0, u64::MAX);
        assert_eq!(out.exited, 2, "stuck {:?}", out.stuck);
        // a waits 2 ms at each meeting; each loop ends at 3.1 ms
        assert_eq!(out.wakes, 2);
        assert_eq!(out.end, 6_200_000);
        assert!(metric(&w, 0, "wakeups") == 2.0);
        // every thread of a task is a user: with 3 instances, the first
        // two wait for the third
        let t = once(1, r#""run": 1000, "barrier": "B""#).replacen('{', r#"{"instance": 3, "#, 1);
        let mut w = app(&format!(r#"{{"tasks": {{"t": {t}}}}}"#));
        let out = drive_on(&mut w, 1, 0, u64::MAX);
        assert_eq!((out.exited, out.wakes), (3, 2));
        // a barrier of one user never waits
        let mut w = app(&format!(
            r#"{{"tasks": {{"t": {}}}}}"#,
            once(2, r#""run": 1, "barrier": "B""#)
        ));
        let out = drive(&mut w, 0, u64::MAX);
        assert_eq!((out.exited, out.wakes), (1, 0));
    }

    #[test]
    fn the_keys_rt_app_1_0_ignores_are_accepted() {
        // mp3/browser: global "frag"; merge/resources.json: declared
        // resources; taskset.json: exec, period, deadline, resources
        let w = app(r#"{"global": {"frag": 1, "gnuplot": false, "log_size": 2,
                "calibration": 128, "logdir": null, "mem_buffer_size": 4096},
            "resources": {"m0": {"type": "mutex"}, "trig": {"type": "signal", "target": "wait"}},
            "tasks": {"t": {"exec": 5000, "period": 24000, "dl-runtime": 3,
                "resources": {"r0": {"duration": 1000}}, "delay": -5, "run": 1}}}"#);
        assert_eq!(w.tasks()[0].start_at, 0);
        // a top-level "resources" that is not an object is ignored
        app(r#"{"resources": [1], "tasks": {"t": {"run": 1}}}"#);
    }

    #[test]
    fn the_same_file_gives_the_same_run() {
        let json = r#"{"global": {"duration": 1}, "tasks": {
            "a": {"instance": 3, "run": 700, "timer": {"ref": "unique", "period": 2000}},
            "b": {"run": 300, "resume": "c", "sleep": 50},
            "c": {"suspend": "c", "run": 200}}}"#;
        let run = || {
            let mut w = app(json);
            let out = drive_on(&mut w, 2, 1500, u64::MAX);
            let m: Vec<f64> = w.metrics(out.end).iter().map(|m| m.value).collect();
            (out.end, out.wakes, out.run_ns, m)
        };
        let (a, b) = (run(), run());
        assert_eq!(a, b);
        assert!(a.1 > 100, "{:?}", a);
    }
}
