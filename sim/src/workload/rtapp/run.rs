//! Running the use case: each thread's next step as rt-app 1.0's
//! thread_body runs its phases and events (src/rt-app.c), the timers,
//! mutexes, conditions and barriers the threads share, the stop at
//! `"duration"`, and the metrics.

use super::*;
use crate::task::{Effects, Metric, Step, TaskSpec, Workload};

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
                s.cgroup = g.taskgroup.as_ref().map(|path| crate::task::Cgroup {
                    path: path.clone(),
                    weight: 100,
                    limits: Default::default(),
                });
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
    use super::super::testing::{app, once, steps, MS};
    use super::*;
    use crate::workload::testkit::{drive, drive_on, metric};

    /// The property changes (affinity, nice) a single-task app asks for at
    /// each of its first steps, until it ends.
    fn props_per_step(json: &str) -> Vec<Vec<(crate::task::TaskId, crate::workload::Prop)>> {
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
    }

    /// rt-app 1.0's set_thread_affinity (src/rt-app.c), at each loop of a
    /// phase: the phase's "cpus", else the task's, else the thread's
    /// default (every CPU); a sched_setaffinity only when that differs
    /// from the current affinity.
    #[test]
    fn a_phases_cpus_set_the_affinity_at_each_of_its_loops() {
        use crate::workload::Prop;
        let cpus = |c: &[usize]| vec![(0, Prop::Cpus(c.to_vec()))];
        // tutorial/example8.json's shape: the task on CPU 2, phases on 0, 1
        // and (inherited) 2
        let v = props_per_step(
            r#"{"tasks": {"t": {"cpus": [2], "loop": 1, "phases": {
                "a": {"cpus": [0], "loop": 2, "run": 10},
                "b": {"cpus": [1], "run": 10},
                "c": {"run": 10}}}}}"#,
        );
        assert_eq!(v, [cpus(&[0]), vec![], cpus(&[1]), cpus(&[2]), vec![]]);
        // no task-level "cpus": back to every CPU of the machine (4 here)
        let v = props_per_step(
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
        let nice = |n: i32| vec![(0, Prop::Weight(nice_to_weight(n)))];
        // the task at nice 5: phase a to -3 (twice, one change), b keeps
        // -3, c to 5 again (its task's nice, here as a phase's), then the
        // second loop of the phases: a to -3 again
        let v = props_per_step(
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
        let v = props_per_step(
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
            "lock_order": ["r0", "trig1"],
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

    /// The core, driven by an rt-app use case: a phase's "cpus" and
    /// "priority" reach the scheduler as sched_setaffinity and setpriority
    /// do (core/affinity.rs), with the core's crafted FIFO scheduler.
    mod on_the_core {
        use super::*;
        use crate::core::tests::{
            calls, cfg, flat, runs_of, stopped_ok, zero_cost, Call, Core, Sched, US,
        };

        /// rt-app's tutorial/example8.json (its shape, one pass): a thread whose
        /// task is on CPU 2 runs phase 1 on CPU 0, phase 2 on CPU 1 and phase 3
        /// back on CPU 2, each move made by its own sched_setaffinity at the
        /// phase's first loop (run.rs), through the migration stopper.
        #[test]
        fn rt_app_phases_cpus_move_the_thread() {
            let json = r#"{"tasks": {"thread0": {"cpus": [2], "loop": 1, "phases": {
                "phase1": {"cpus": [0], "loop": 1, "run": 1500},
                "phase2": {"cpus": [1], "loop": 1, "run": 1500},
                "phase3": {"loop": 1, "run": 1500}}}}}"#;
            let mut w = RtApp::parse("example8.json", json, 3).unwrap();
            let mut s = Sched::fifo_kick();
            let mut core = Core::new(flat(3), zero_cost(), cfg()).unwrap();
            let stop = core.run(&mut s, &mut w, |_| {});
            stopped_ok(&stop);
            // where it was running at each ops.running, without repeats
            let mut cpus: Vec<usize> = runs_of(&s.log, 0).into_iter().map(|r| r.1).collect();
            cpus.dedup();
            assert_eq!(cpus, [2, 0, 1, 2]);
            // 4.5 ms of work, and the refills of its working set after each of
            // the three moves (a few µs)
            assert!((4500 * US..4510 * US).contains(&core.now), "{}", core.now);
        }

        /// A phase's own "priority" (later rt-app's; rtapp/mod.rs) reaches the
        /// scheduler as setpriority of the running thread does: ops.set_weight
        /// with the phase's nice's weight at the start of each phase whose nice
        /// differs from the thread's, inside the sched_change guard, and the
        /// task's weight is the last one set.
        #[test]
        fn rt_app_phases_priority_reweights_the_running_thread() {
            use crate::task::nice_to_weight;
            let json = r#"{"tasks": {"t": {"priority": 2, "loop": 2, "phases": {
                "a": {"priority": -4, "run": 1000},
                "b": {"run": 1000},
                "c": {"priority": 10, "run": 1000}}}}}"#;
            let mut w = RtApp::parse("nice.json", json, 2).unwrap();
            let mut s = Sched::fifo_kick();
            s.props = true;
            let mut core = Core::new(flat(2), zero_cost(), cfg()).unwrap();
            let stop = core.run(&mut s, &mut w, |_| {});
            stopped_ok(&stop);
            let got: Vec<(Ns, u32)> = calls(&s.log, |r| matches!(r.call, Call::SetWeight { .. }))
                .into_iter()
                .map(|r| match r.call {
                    Call::SetWeight { weight, .. } => (r.at, weight),
                    _ => unreachable!(),
                })
                .collect();
            let (m4, p10) = (nice_to_weight(-4), nice_to_weight(10));
            // a at 0 and 3 ms, c at 2 and 5 ms (and the few µs of the core's
            // own costs on its clock); b keeps -4
            let at_ms: Vec<(Ns, u32)> = got.iter().map(|&(at, w)| (at / (MS / 10), w)).collect();
            assert_eq!(at_ms, [(0, m4), (20, p10), (30, m4), (50, p10)], "{got:?}");
            assert_eq!(core.tasks[0].ts.scx.weight, p10);
        }
    }
}
