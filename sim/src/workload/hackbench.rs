//! `hackbench` (rt-tests) and `perf bench sched messaging` (its port in
//! perf): groups of senders spraying small messages at receivers.
//!
//! Structure, from the rt-tests hackbench.c and perf's sched-messaging.c
//! sources (same design, "Test groups of 20 processes spraying to 20
//! receivers"):
//! - each group has `num_fds` = 20 receivers and 20 senders;
//! - each receiver owns one pipe or `socketpair(AF_UNIX, SOCK_STREAM)`; all
//!   20 senders of its group write into that one channel;
//! - each sender loops `loops` times, writing one `datasize` = 100-byte
//!   message to each of the 20 receivers in turn, so each receiver reads
//!   20 * loops messages;
//! - process mode forks every sender and receiver (a tgid each); thread
//!   mode (`-T`, perf `-t`) creates them with pthread_create in the one
//!   benchmark process, so all tasks share a single tgid;
//! - the reported time runs from releasing the tasks to the last one
//!   exiting; here all tasks start together at 0 (the start barrier), and
//!   `time_s` is when the last task exits.
//!
//! Defaults follow `arbor bench` (arbor/src/bench/spec.rs): hackbench g=2,
//! l=200, pipes in bench's default order (`ipc=pipe` first); perf-messaging
//! g=2, l=100, sockets (perf's own defaults are 10 groups, 100 loops,
//! sockets; rt-tests': 10 groups, 100 loops, sockets).
//!
//! Costs per message: a write syscall for the sender and a read syscall for
//! the receiver, [`channel::write_ns`] / [`channel::read_ns`] (estimates,
//! see there); the user-space loop around them is a few instructions and
//! is not charged. Channel capacity: [`channel::capacity`] (640 messages for
//! a pipe, 16 pages of 40, ~277 for an AF_UNIX socket). Wake-ups: writer
//! -> blocked reader sync with 100 bytes, reader -> blocked writers sync
//! with 0 bytes: one writer at a time on a pipe (exclusive waits), all of
//! them on a socket (see channel.rs).

use super::channel::{self, Channel, Ipc};
use super::{Effects, Exits, Metric, Ns, Step, TaskId, TaskSpec, Workload};

/// Senders and receivers per group (hackbench's `num_fds`).
pub const FDS: u32 = 20;
/// hackbench's `datasize`, perf's `DATASIZE`.
pub const MSG_BYTES: u64 = 100;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Process,
    Thread,
}

#[derive(Clone, Debug)]
pub struct Params {
    /// "hackbench" or "perf-messaging" (task names only).
    pub name: &'static str,
    pub groups: u32,
    pub loops: u32,
    pub mode: Mode,
    pub ipc: Ipc,
    /// Override of the channel capacity in messages (tests).
    pub capacity: Option<u32>,
}

#[derive(Clone, Copy, Debug)]
enum Role {
    Sender { group: u32 },
    Receiver { chan: usize },
}

/// A task's role and progress, one record (one look-up a step).
#[derive(Clone, Copy, Debug)]
struct Member {
    role: Role,
    /// Messages fully written / read.
    done: u64,
    /// A write or read syscall is under way (its `end_*` is due).
    in_call: bool,
    /// A sender's `done % FDS`, its receiver in turn, kept rather than
    /// computed twice a message.
    slot: u32,
}

pub struct Hackbench {
    p: Params,
    chans: Vec<Channel>,
    members: Vec<Member>,
    /// Messages each sender writes and each receiver reads.
    per_task: u64,
    received: u64,
    exits: Exits,
}

impl Hackbench {
    pub fn new(p: Params) -> Hackbench {
        let nchan = (p.groups * FDS) as usize;
        let chans = (0..nchan)
            .map(|_| match p.capacity {
                Some(c) => Channel::with_capacity(p.ipc, MSG_BYTES, c),
                None => Channel::new(p.ipc, MSG_BYTES),
            })
            .collect();
        // per group: 20 receivers, then 20 senders (hackbench starts the
        // receivers first)
        let mut roles = Vec::with_capacity(nchan * 2);
        for g in 0..p.groups {
            for r in 0..FDS {
                roles.push(Role::Receiver {
                    chan: (g * FDS + r) as usize,
                });
            }
            for _ in 0..FDS {
                roles.push(Role::Sender { group: g });
            }
        }
        let members = roles
            .into_iter()
            .map(|role| Member {
                role,
                done: 0,
                in_call: false,
                slot: 0,
            })
            .collect::<Vec<_>>();
        Hackbench {
            per_task: p.loops as u64 * FDS as u64,
            p,
            chans,
            exits: Exits::new(members.len()),
            members,
            received: 0,
        }
    }

    pub fn received(&self) -> u64 {
        self.received
    }
}

impl Workload for Hackbench {
    fn tasks(&self) -> Vec<TaskSpec> {
        let mut v = Vec::with_capacity(self.members.len());
        for (i, m) in self.members.iter().enumerate() {
            let (g, kind) = match m.role {
                Role::Sender { group } => (group, "snd"),
                Role::Receiver { chan } => (chan as u32 / FDS, "rcv"),
            };
            let tgid = match self.p.mode {
                Mode::Process => 1000 + i as u32,
                Mode::Thread => 1000,
            };
            v.push(TaskSpec::new(
                format!("{}-g{g}-{kind}{}", self.p.name, i as u32 % FDS),
                tgid,
            ));
        }
        v
    }

    fn next(&mut self, t: TaskId, now: Ns, fx: &mut Effects) -> Step {
        let total = self.per_task;
        let m = &mut self.members[t];
        match m.role {
            Role::Sender { group } => {
                if m.in_call {
                    // the message written by the last write: done % 20
                    let c = (group * FDS + m.slot) as usize;
                    self.chans[c].end_write(t, fx);
                    m.in_call = false;
                    m.done += 1;
                    m.slot = if m.slot + 1 == FDS { 0 } else { m.slot + 1 };
                }
                if m.done == total {
                    return self.exits.exit(now);
                }
                let c = (group * FDS + m.slot) as usize;
                if self.chans[c].begin_write(t) {
                    m.in_call = true;
                    Step::Run(channel::write_ns(self.p.ipc))
                } else {
                    Step::Block
                }
            }
            Role::Receiver { chan } => {
                if m.in_call {
                    self.chans[chan].end_read(fx);
                    m.in_call = false;
                    m.done += 1;
                    self.received += 1;
                }
                if m.done == total {
                    return self.exits.exit(now);
                }
                if self.chans[chan].begin_read(t) {
                    m.in_call = true;
                    Step::Run(channel::read_ns(self.p.ipc))
                } else {
                    Step::Block
                }
            }
        }
    }

    fn finished(&self) -> bool {
        self.exits.finished()
    }

    fn metrics(&self, elapsed: Ns) -> Vec<Metric> {
        let end = self.exits.end(elapsed);
        vec![
            Metric::new("time_s", end as f64 / 1e9, "s", false),
            Metric::new("messages", self.received as f64, "", true),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{drive, drive_on, metric};
    use super::*;

    fn hb(groups: u32, loops: u32, mode: Mode, ipc: Ipc, cap: Option<u32>) -> Hackbench {
        Hackbench::new(Params {
            name: "hackbench",
            groups,
            loops,
            mode,
            ipc,
            capacity: cap,
        })
    }

    #[test]
    fn one_group_delivers_every_message_and_everyone_exits() {
        let mut w = hb(1, 10, Mode::Process, Ipc::Pipe, None);
        let out = drive(&mut w, 1000, u64::MAX);
        assert_eq!(w.received(), 20 * 20 * 10);
        assert_eq!(out.tasks, 40);
        out.assert_all_exited_cleanly();
        assert!(w.finished());
        assert_eq!(metric(&w, 0, "messages"), 4000.0);
        let t = metric(&w, 0, "time_s");
        assert!(t > 0.0 && (t * 1e9) as Ns <= out.end, "{t}");
        // every sender ran exactly 200 writes, every receiver 200 reads
        for (i, m) in w.members.iter().enumerate() {
            let want = match m.role {
                Role::Sender { .. } => 200 * channel::write_ns(Ipc::Pipe),
                Role::Receiver { .. } => 200 * channel::read_ns(Ipc::Pipe),
            };
            assert_eq!(out.run_ns[i], want, "task {i}");
        }
    }

    #[test]
    fn tiny_buffers_make_writers_block_and_still_deliver_everything() {
        for ipc in [Ipc::Pipe, Ipc::Socket] {
            let mut w = hb(2, 7, Mode::Thread, ipc, Some(3));
            let out = drive(&mut w, 5000, u64::MAX);
            assert_eq!(w.received(), 2 * 20 * 20 * 7, "{ipc:?}");
            assert_eq!(out.exited, 80);
            assert_eq!(out.spurious_wakes, 0, "{ipc:?}");
            assert!(out.stuck.is_empty());
            // writers were blocked and woken (sync, by readers)
            assert!(out.wakes > 0 && out.wakes == out.sync_wakes);
        }
    }

    #[test]
    fn few_cpus_change_the_interleaving_not_the_counts() {
        for cpus in [1, 3] {
            for ipc in [Ipc::Pipe, Ipc::Socket] {
                let mut w = hb(1, 5, Mode::Process, ipc, Some(4));
                let out = drive_on(&mut w, cpus, 500, u64::MAX);
                assert_eq!(w.received(), 20 * 20 * 5, "{cpus} {ipc:?}");
                assert_eq!(out.exited, 40);
                assert_eq!(out.spurious_wakes, 0);
                assert!(out.stuck.is_empty());
            }
        }
        // on one CPU the run takes at least the sum of all syscalls
        let mut w = hb(1, 5, Mode::Process, Ipc::Pipe, None);
        let out = drive_on(&mut w, 1, 0, u64::MAX);
        let work = 2000 * (channel::write_ns(Ipc::Pipe) + channel::read_ns(Ipc::Pipe));
        assert_eq!(out.end, work);
        assert_eq!((metric(&w, 0, "time_s") * 1e9).round() as Ns, work);
    }

    #[test]
    fn pipe_writers_are_woken_one_at_a_time() {
        // fs/pipe.c (exclusive pipe waits since Linux 5.5): pipe_read()
        // wakes one exclusive waiter of wr_wait, and only if the pipe was
        // full as the read began; pipe_write() wakes the next writer only
        // if it had slept in that call. So senders blocked on one slow
        // receiver's pipe are woken one at a time: a read wakes at most one
        // sender, a write at most the reader and one sender; not a herd of
        // every waiting sender per read (which made a lagging receiver pay
        // up to 19 wake-ups per message and become the bottleneck of the
        // whole run)
        for (cpus, pages) in [
            (40, Some(1)),
            (40, Some(4)),
            (10, Some(2)),
            (3, Some(1)),
            (40, None),
        ] {
            let mut w = hb(1, 20, Mode::Process, Ipc::Pipe, pages);
            let out = drive_on(&mut w, cpus, 500, u64::MAX);
            assert_eq!(w.received(), 20 * 20 * 20);
            assert_eq!(out.spurious_wakes, 0);
            assert!(out.stuck.is_empty());
            assert!(
                out.max_fanout <= 2,
                "{cpus} CPUs, {pages:?} pages: one syscall woke {} tasks",
                out.max_fanout
            );
        }
        // AF_UNIX writers wait non-exclusively and unix_write_space() wakes
        // them all: there the herd is the kernel's
        let mut w = hb(1, 20, Mode::Process, Ipc::Socket, Some(1));
        let out = drive_on(&mut w, 40, 500, u64::MAX);
        assert_eq!(w.received(), 20 * 20 * 20);
        assert!(out.max_fanout > 2, "{}", out.max_fanout);
    }

    #[test]
    fn modes_set_tgids_like_hackbench() {
        let p = hb(2, 1, Mode::Process, Ipc::Pipe, None).tasks();
        let mut tg: Vec<u32> = p.iter().map(|s| s.tgid).collect();
        tg.dedup();
        assert_eq!(tg.len(), 80);
        let t = hb(2, 1, Mode::Thread, Ipc::Pipe, None).tasks();
        assert!(t.iter().all(|s| s.tgid == t[0].tgid));
        assert_eq!(t.len(), 80);
    }
}
