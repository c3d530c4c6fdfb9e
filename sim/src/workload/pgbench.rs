//! `pgbench` against a local PostgreSQL: client threads driving backends
//! over Unix sockets, one statement round trip at a time.
//!
//! Structure:
//! - pgbench runs `-j` worker threads in one process (one tgid); `arbor
//!   bench` passes `-j min(clients, ncpu)`, and each thread drives its share
//!   of the `clients` connections (pgbench multiplexes them with
//!   `select`/`poll`); connection i belongs to thread i mod j;
//! - PostgreSQL forks one backend process per connection (a tgid each);
//!   backends share the buffer pool through shared memory, which the task
//!   model cannot express across processes, so it is not modelled;
//! - with the default simple query protocol every statement is one round
//!   trip: the client sends the query text, the backend parses, plans and
//!   executes it and replies. `mode=select` (`-S`) is one statement per
//!   transaction (`SELECT abalance FROM pgbench_accounts WHERE aid = ?`);
//!   `mode=tpcb` (the default TPC-B-like script) is seven: BEGIN, UPDATE
//!   pgbench_accounts, SELECT abalance, UPDATE pgbench_tellers, UPDATE
//!   pgbench_branches, INSERT INTO pgbench_history, END;
//! - Unix-socket writes wake the reader with a WF_SYNC wake-up carrying the
//!   message; closing a connection wakes the backend without WF_SYNC;
//! - at the end of `time`, clients finish the transaction they are in and
//!   close their connections; `tps` counts transactions completed by then,
//!   `lat_ms` is their mean latency (pgbench's "latency average");
//! - `think_us` is a pause between a connection's transactions (pgbench's
//!   `\sleep`); a thread with replies outstanding does not wake early for a
//!   connection whose pause ends meanwhile (a simplification of its poll
//!   loop with a timeout).
//!
//! Costs, all estimates (PostgreSQL publishes no per-statement CPU costs;
//! single-client `pgbench -S` over a Unix socket is commonly reported at
//! ~15-25k tps on current x86, i.e. 40-65 us per transaction for both
//! sides plus two context switches, which these figures add up to):
//! - backend, per statement: SELECT by primary key 35 us (parse, plan,
//!   index scan, result); in TPC-B: BEGIN 8, UPDATE accounts 45, SELECT
//!   30, UPDATE tellers 35, UPDATE branches 35, INSERT 30, END 25 (commit
//!   record, WAL write) = 208 us per transaction;
//! - client thread, per statement: 5 us to build and send the query and
//!   4 us to receive and process the result (libpq + pgbench bookkeeping +
//!   the socket syscalls);
//! - WAL flush at commit: `wal_us`, a timer sleep after END's CPU work,
//!   default 0 because `arbor bench` starts PostgreSQL with `fsync=off`
//!   (the WAL write then only reaches the page cache);
//! - backend working set 256 KiB (catalog caches, executor state, code;
//!   estimate); query and reply messages 100 bytes each (estimate).

use super::hist::Hist;
use super::{Effects, Exits, Metric, Ns, Step, TaskId, TaskSpec, Workload};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Select,
    Tpcb,
}

const SELECT_ONLY_US: &[u32] = &[35];
const TPCB_US: &[u32] = &[8, 45, 30, 35, 35, 30, 25];
const SEND_NS: Ns = 5_000;
const RECV_NS: Ns = 4_000;
const QUERY_BYTES: u64 = 100;
const REPLY_BYTES: u64 = 100;
const BACKEND_WS: u64 = 256 << 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ConnSt {
    /// Nothing outstanding; may send once `ready_at` has come.
    Idle,
    /// Query written, not yet picked up by the backend.
    Sent,
    /// The backend is working on it.
    Executing,
    /// Reply written, not yet processed by the client thread.
    Replied,
    Closed,
}

#[derive(Clone, Debug)]
struct Conn {
    thread: TaskId,
    backend: TaskId,
    stmt: usize,
    tx_start: Ns,
    ready_at: Ns,
    st: ConnSt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Send(usize),
    Recv(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BPhase {
    Wait,
    Exec,
    Flush,
}

#[derive(Clone, Debug)]
enum Role {
    Thread {
        conns: Vec<usize>,
        op: Option<Op>,
        blocked: bool,
    },
    Backend {
        conn: usize,
        phase: BPhase,
        blocked: bool,
    },
}

pub struct Pgbench {
    mode: Mode,
    end: Ns,
    think_ns: Ns,
    wal_ns: Ns,
    conns: Vec<Conn>,
    roles: Vec<Role>,
    lat: Hist,
    tx: u64,
    exits: Exits,
}

impl Pgbench {
    /// Tasks: the `threads` pgbench threads first, then one backend per
    /// client.
    pub fn new(
        clients: u32,
        threads: u32,
        mode: Mode,
        time_s: u32,
        think_us: u32,
        wal_us: u32,
    ) -> Pgbench {
        let j = threads.clamp(1, clients.max(1)) as usize;
        let c = clients as usize;
        let mut roles: Vec<Role> = (0..j)
            .map(|_| Role::Thread {
                conns: Vec::new(),
                op: None,
                blocked: false,
            })
            .collect();
        let mut conns = Vec::with_capacity(c);
        for i in 0..c {
            let thread = i % j;
            conns.push(Conn {
                thread,
                backend: j + i,
                stmt: 0,
                tx_start: 0,
                ready_at: 0,
                st: ConnSt::Idle,
            });
            if let Role::Thread { conns, .. } = &mut roles[thread] {
                conns.push(i);
            }
            roles.push(Role::Backend {
                conn: i,
                phase: BPhase::Wait,
                blocked: false,
            });
        }
        Pgbench {
            mode,
            end: time_s as Ns * 1_000_000_000,
            think_ns: think_us as Ns * 1000,
            wal_ns: wal_us as Ns * 1000,
            conns,
            exits: Exits::new(roles.len()),
            roles,
            lat: Hist::default(),
            tx: 0,
        }
    }

    fn script(&self) -> &'static [u32] {
        match self.mode {
            Mode::Select => SELECT_ONLY_US,
            Mode::Tpcb => TPCB_US,
        }
    }

    pub fn transactions(&self) -> u64 {
        self.tx
    }

    /// Wakes task `t` if it is blocked in this workload's bookkeeping.
    fn wake_if_blocked(&mut self, t: TaskId, sync: bool, bytes: u64, fx: &mut Effects) {
        let b = match &mut self.roles[t] {
            Role::Thread { blocked, .. } | Role::Backend { blocked, .. } => blocked,
        };
        if *b {
            *b = false;
            fx.wake(t, sync, bytes);
        }
    }

    fn backend_next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        let nstmt = self.script().len();
        let Role::Backend { conn, phase, .. } = self.roles[t] else {
            return Step::Exit;
        };
        let stmt = self.conns[conn].stmt;
        let reply = match phase {
            BPhase::Exec if stmt + 1 == nstmt && self.mode == Mode::Tpcb && self.wal_ns > 0 => {
                self.set_phase(t, BPhase::Flush);
                return Step::Sleep(self.wal_ns);
            }
            BPhase::Exec | BPhase::Flush => true,
            BPhase::Wait => false,
        };
        if reply {
            self.conns[conn].st = ConnSt::Replied;
            self.set_phase(t, BPhase::Wait);
            let th = self.conns[conn].thread;
            self.wake_if_blocked(th, true, REPLY_BYTES, fx);
        }
        match self.conns[conn].st {
            ConnSt::Sent => {
                self.conns[conn].st = ConnSt::Executing;
                self.set_phase(t, BPhase::Exec);
                Step::Run(self.script()[stmt] as Ns * 1000)
            }
            ConnSt::Closed => self.exits.exit(now),
            _ => {
                if let Role::Backend { blocked, .. } = &mut self.roles[t] {
                    *blocked = true;
                }
                Step::Block
            }
        }
    }

    fn set_phase(&mut self, t: TaskId, p: BPhase) {
        if let Role::Backend { phase, .. } = &mut self.roles[t] {
            *phase = p;
        }
    }

    fn set_op(&mut self, t: TaskId, o: Option<Op>) {
        if let Role::Thread { op, .. } = &mut self.roles[t] {
            *op = o;
        }
    }

    fn thread_next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        let nstmt = self.script().len();
        let (conns, op) = match &self.roles[t] {
            Role::Thread { conns, op, .. } => (conns.clone(), *op),
            Role::Backend { .. } => return Step::Exit,
        };
        self.set_op(t, None);
        match op {
            Some(Op::Send(c)) => {
                self.conns[c].st = ConnSt::Sent;
                let b = self.conns[c].backend;
                self.wake_if_blocked(b, true, QUERY_BYTES, fx);
            }
            Some(Op::Recv(c)) => {
                let cn = &mut self.conns[c];
                cn.st = ConnSt::Idle;
                cn.stmt += 1;
                cn.ready_at = now;
                if cn.stmt == nstmt {
                    cn.stmt = 0;
                    cn.ready_at = now + self.think_ns;
                    if now <= self.end {
                        self.tx += 1;
                        self.lat.record(now - cn.tx_start);
                    }
                }
            }
            None => {}
        }
        // replies first, then queries that may go out
        if let Some(&c) = conns.iter().find(|&&c| self.conns[c].st == ConnSt::Replied) {
            self.set_op(t, Some(Op::Recv(c)));
            return Step::Run(RECV_NS);
        }
        let open = now < self.end;
        let can_send =
            |cn: &Conn| cn.st == ConnSt::Idle && cn.ready_at <= now && (cn.stmt > 0 || open);
        if let Some(&c) = conns.iter().find(|&&c| can_send(&self.conns[c])) {
            if self.conns[c].stmt == 0 {
                self.conns[c].tx_start = now;
            }
            self.set_op(t, Some(Op::Send(c)));
            return Step::Run(SEND_NS);
        }
        let in_flight = conns
            .iter()
            .any(|&c| matches!(self.conns[c].st, ConnSt::Sent | ConnSt::Executing));
        if in_flight {
            if let Role::Thread { blocked, .. } = &mut self.roles[t] {
                *blocked = true;
            }
            return Step::Block;
        }
        if open {
            let wake = conns
                .iter()
                .filter(|&&c| self.conns[c].st == ConnSt::Idle)
                .map(|&c| self.conns[c].ready_at)
                .min();
            if let Some(at) = wake.filter(|&at| at > now) {
                return Step::Sleep(at - now);
            }
        }
        // time is up and nothing is outstanding: close the connections
        for &c in &conns {
            self.conns[c].st = ConnSt::Closed;
            let b = self.conns[c].backend;
            self.wake_if_blocked(b, false, 0, fx);
        }
        self.exits.exit(now)
    }
}

impl Workload for Pgbench {
    fn tasks(&self) -> Vec<TaskSpec> {
        let mut nb = 0u32;
        self.roles
            .iter()
            .enumerate()
            .map(|(i, r)| match r {
                Role::Thread { .. } => TaskSpec::new(format!("pgbench-{i}"), 1000),
                Role::Backend { conn, .. } => {
                    nb += 1;
                    let mut s = TaskSpec::new(format!("postgres-{conn}"), 2000 + nb);
                    s.working_set = BACKEND_WS;
                    s
                }
            })
            .collect()
    }

    fn next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        match self.roles[t] {
            Role::Thread { .. } => self.thread_next(t, now, fx),
            Role::Backend { .. } => self.backend_next(t, now, fx),
        }
    }

    fn finished(&self) -> bool {
        self.exits.finished()
    }

    fn metrics(&self, elapsed: Ns) -> Vec<Metric> {
        let secs = self.end.min(self.exits.end(elapsed)).max(1) as f64 / 1e9;
        vec![
            Metric::new("tps", self.tx as f64 / secs, "transactions/s", true),
            Metric::new("lat_ms", self.lat.mean() / 1e6, "ms", false),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{drive, drive_on, metric};
    use super::*;

    #[test]
    fn select_only_round_trips_and_closes_cleanly() {
        // 3 clients on 2 threads: thread 0 multiplexes two connections
        let mut w = Pgbench::new(3, 2, Mode::Select, 1, 0, 0);
        let lat = 2_000;
        let out = drive(&mut w, lat, u64::MAX);
        assert_eq!(out.tasks, 5);
        out.assert_all_exited_cleanly();
        // thread 1 alone: send 5 + wake 2 + exec 35 + wake 2 + recv 4 = 48 us
        let tx = w.transactions();
        assert!(tx > 1_000_000 / 48, "{tx}");
        let tps = metric(&w, 0, "tps");
        assert!((tps - tx as f64).abs() < 1e-6);
        let l = metric(&w, 0, "lat_ms");
        // 48 us alone; a multiplexed connection whose reply is ready when
        // its thread gets to it skips a wake-up (47 us), or waits longer
        assert!(l > 0.046 && l < 0.2, "{l}");
        // backends each have their own tgid, pgbench threads share one
        let t = w.tasks();
        assert_eq!(t[0].tgid, t[1].tgid);
        assert!(t[2].tgid != t[3].tgid && t[2].tgid != t[0].tgid);
    }

    #[test]
    fn one_cpu_serialises_clients_and_backends() {
        let mut w = Pgbench::new(4, 1, Mode::Select, 1, 0, 0);
        let out = drive_on(&mut w, 1, 0, u64::MAX);
        assert_eq!(out.exited, 5);
        assert_eq!(out.spurious_wakes, 0);
        assert!(out.stuck.is_empty(), "{:?}", out.stuck);
        // all CPU time is client + backend work: 44 us per transaction
        let tx = w.transactions();
        assert!(tx.abs_diff(1_000_000 / 44) <= 4, "{tx}");
    }

    #[test]
    fn tpcb_runs_seven_statements_per_transaction() {
        let mut w = Pgbench::new(1, 1, Mode::Tpcb, 1, 0, 0);
        let lat = 1_000;
        let out = drive(&mut w, lat, u64::MAX);
        let per_tx: Ns = 7 * (SEND_NS + RECV_NS + 2 * lat) + 208_000;
        let tx = w.transactions();
        assert_eq!(tx, 1_000_000_000 / per_tx, "{tx}");
        let l = metric(&w, 0, "lat_ms");
        assert!((l - per_tx as f64 / 1e6).abs() < 1e-9, "{l}");
        // backend CPU: 208 us per transaction started (the last one overruns)
        assert_eq!(out.run_ns[1] % 208_000, 0);
        // think time and WAL sleeps lengthen the cycle
        let mut w = Pgbench::new(1, 1, Mode::Tpcb, 1, 500, 100);
        drive(&mut w, lat, u64::MAX);
        // the first transaction completes at per_tx + 100 us of WAL, then
        // one every per_tx + 100 + 500 us
        let first = per_tx + 100_000;
        let cycle = first + 500_000;
        assert_eq!(w.transactions(), (1_000_000_000 - first) / cycle + 1);
    }
}
