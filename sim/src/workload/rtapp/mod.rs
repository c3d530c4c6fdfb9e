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
//! set of [`TaskSpec::new`](crate::task::TaskSpec::new); they start by
//! fork placement.

mod jsonc;
mod parse;
mod run;

use std::collections::VecDeque;

use super::hist::Hist;
use super::{Ns, TaskId};
pub use crate::task::nice_to_weight;
pub use jsonc::check_syntax;

const US: Ns = 1000;
/// rt-app's threads share one process.
const TGID: u32 = 1000;

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

// ---------------------------------------------------------------------
// The use case: what parse.rs builds from the file and run.rs runs
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
    /// `"taskgroup"`: the cgroup its threads run in (None: the root).
    taskgroup: Option<String>,
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

/// A thread's scheduling class, as rt-app's `string_to_policy` reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Other,
    Fifo,
    Rr,
}

/// What the tests of jsonc.rs, parse.rs and run.rs share: a file's text
/// for a bounded task, the use case it parses to (or the error), and a
/// thread's steps when it runs alone.
#[cfg(test)]
mod testing {
    use super::*;
    use crate::task::{Effects, Step, Workload};

    pub(super) const MS: Ns = 1_000_000;

    /// A task that runs its events `n` times and exits: rt-app 1.0 loops
    /// a task without phases for ever, so a bounded task is one phase.
    pub(super) fn once(n: i64, events: &str) -> String {
        format!(r#"{{"loop": 1, "phases": {{"p": {{"loop": {n}, {events}}}}}}}"#)
    }

    pub(super) fn app(json: &str) -> RtApp {
        RtApp::parse("t.json", json, 4).unwrap_or_else(|e| panic!("{e:#}"))
    }

    pub(super) fn err(json: &str) -> String {
        match RtApp::parse("t.json", json, 4) {
            Ok(_) => panic!("parsed: {json}"),
            Err(e) => format!("{e:#}"),
        }
    }

    /// Thread `t`'s steps when it runs alone and nobody wakes it: until it
    /// blocks or exits.
    pub(super) fn steps(w: &mut RtApp, t: TaskId) -> Vec<Step> {
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
}
