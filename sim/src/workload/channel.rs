//! A bounded byte channel between tasks: a pipe or an AF_UNIX stream socket,
//! counted in fixed-size messages, with the wait queues a blocking read or
//! write sleeps on and the per-call CPU costs of the syscalls.
//!
//! Protocol (each call is one `next`; the syscall's CPU time is the `Run`
//! between a `begin_*` and its `end_*`):
//! - writer: `begin_write` reserves a slot (false = full: it is registered
//!   as waiting and must return `Step::Block`), then `Run(write_ns)`, then
//!   `end_write` makes the message readable and wakes blocked readers;
//! - reader: `begin_read` takes a readable message (false = empty: it must
//!   return `Step::Block`), then `Run(read_ns)`, then `end_read` frees the slot
//!   and wakes blocked writers.
//!
//! So data becomes visible at the end of the write syscall and space is freed
//! at the end of the read, as in the kernel, and a slot can never be taken
//! twice. Wake-ups go only to tasks registered as waiting (and are then
//! deregistered), so a task is never woken twice for one wait.
//!
//! Wake-up rules, from the kernel (fs/pipe.c, net/unix/af_unix.c,
//! net/core/sock.c):
//! - readers: `pipe_write()` and `unix_stream_sendmsg()` (through
//!   `sk_data_ready` = `sock_def_readable`) wake the reader with
//!   `wake_up_interruptible_sync_poll`, i.e. a WF_SYNC wake-up, carrying the
//!   message just written;
//! - pipe writers sleep with `wait_event_interruptible_exclusive(
//!   pipe->wr_wait, pipe_writable(pipe))` (exclusive waits, since Linux
//!   5.5's "pipe: use exclusive waits when reading or writing"), so a
//!   wake-up takes the first waiter off the queue; a writer that finds the
//!   pipe still full queues again at the tail. `pipe_read()` wakes one
//!   writer (sync) when the pipe was full as the read began (`was_full`),
//!   whether or not the read released a page; `pipe_write()` wakes the next
//!   writer when it had slept in this call and leaves the pipe not full
//!   (`wake_next_writer`). A pipe is full when all its pages (16,
//!   PIPE_DEF_BUFFERS) are in use; a write merges into the last page if it
//!   fits there (PIPE_BUF_FLAG_CAN_MERGE), and a page is released when all
//!   of it has been read (`buf->len == 0`). Approximation: a woken writer
//!   retries the whole write, merge included, as a new call would;
//! - socket writers sleep non-exclusively (`sock_wait_for_wmem`) and
//!   `sock_wfree()` -> `unix_write_space()` wakes all of them once
//!   `unix_writable()` holds, i.e. when the queued bytes fall to a quarter
//!   of the send buffer: a thundering herd whose losers find the socket
//!   full again and re-block.

use super::{Effects, Ns, TaskId};

/// What kind of kernel object carries the messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ipc {
    Pipe,
    Socket,
}

/// Per-call CPU cost of a small (<= a few hundred bytes) write on `ipc`,
/// excluding the wake-up itself (the simulator charges `wakeup_ns` to the
/// waker) and the context switches (`ctx_switch_ns`).
///
/// Estimates, no single published measurement isolates them: a syscall
/// round trip costs ~0.1 us (lmbench `lat_syscall null` on current x86) to
/// ~0.3 us with speculative-execution mitigations; `pipe_write()` adds the
/// pipe mutex, `copy_page_from_iter` of 100 bytes, `file_update_time()` and
/// fsnotify, so ~0.6 us in all. An AF_UNIX stream send additionally
/// allocates an skb, attaches credentials (`unix_scm_to_skb`) and queues
/// it: ~1.5 us. lmbench reports AF_UNIX round-trip latency well above pipe
/// latency on the same machine (its lat_unix vs lat_pipe), which is the
/// ratio kept here.
pub fn write_ns(ipc: Ipc) -> Ns {
    match ipc {
        Ipc::Pipe => 600,
        Ipc::Socket => 1500,
    }
}

/// Per-call CPU cost of a small read (estimate, same reasoning as
/// [`write_ns`]): pipe ~0.5 us (mutex, copy out, tail update); AF_UNIX
/// stream ~1.0 us (skb dequeue, copy, `consume_skb` and the `sock_wfree`
/// accounting).
pub fn read_ns(ipc: Ipc) -> Ns {
    match ipc {
        Ipc::Pipe => 500,
        Ipc::Socket => 1000,
    }
}

/// How many `msg_bytes` messages fit before a writer blocks.
///
/// Pipe: 16 pages of 4 KiB (the default 64 KiB pipe); `pipe_write()` only
/// merges a write into the last page if it fits entirely, so a page holds
/// floor(4096 / msg_bytes) messages.
///
/// AF_UNIX stream: the sender blocks when the skbs it has queued exceed
/// `sk_sndbuf` = net.core.wmem_default = 212992 bytes, counted by truesize.
/// A 100-byte send allocates a kmalloc-512 data area (100 bytes + 320 of
/// skb_shared_info, rounded) plus a 256-byte struct sk_buff: ~768 bytes of
/// truesize (estimate from the structure sizes on x86-64), so ~277 messages.
pub fn capacity(ipc: Ipc, msg_bytes: u64) -> u32 {
    let msg = msg_bytes.max(1);
    match ipc {
        Ipc::Pipe => {
            let per_page = (4096 / msg).max(1);
            (16 * per_page).min(u32::MAX as u64) as u32
        }
        Ipc::Socket => {
            // data area: the payload rounded to 64 plus skb_shared_info (320),
            // rounded up to a power-of-two kmalloc size; plus struct sk_buff
            let data = (msg.div_ceil(64) * 64 + 320).next_power_of_two();
            let truesize = data + 256;
            (212_992 / truesize).max(1) as u32
        }
    }
}

/// One page of a pipe's ring (a `struct pipe_buffer`): messages written or
/// being written into it, and how many of them have been read.
#[derive(Clone, Copy, Debug)]
struct Page {
    slots: u32,
    read: u32,
}

#[derive(Clone, Debug)]
pub struct Channel {
    pub ipc: Ipc,
    /// Message size in bytes (what a woken reader reads).
    pub msg_bytes: u64,
    cap: u32,
    /// Socket: slots taken (being written, readable, or being read).
    used: u32,
    /// Pipe: messages one page holds, and the ring's pages (max_usage).
    per_page: u32,
    max_pages: u32,
    /// Pipe: the pages in use, tail (being read) first.
    pages: std::collections::VecDeque<Page>,
    /// Messages written and not yet taken by a reader.
    ready: u32,
    readers: Vec<TaskId>,
    /// Writers asleep on the channel, in the order they went to sleep (a
    /// pipe's wr_wait is FIFO with exclusive waiters).
    writers: std::collections::VecDeque<TaskId>,
    /// Pipe: writers woken from wr_wait whose write call is still going
    /// (pipe_write's `wake_next_writer`).
    waited: Vec<TaskId>,
    /// Pipe: of those, the ones whose write is now under way.
    wake_next: Vec<TaskId>,
}

impl Channel {
    /// A channel of the kernel's default size: a pipe of 16 pages
    /// (PIPE_DEF_BUFFERS), a socket of [`capacity`] messages.
    pub fn new(ipc: Ipc, msg_bytes: u64) -> Channel {
        match ipc {
            Ipc::Pipe => {
                let per_page = (4096 / msg_bytes.max(1)).clamp(1, u32::MAX as u64) as u32;
                Channel::build(ipc, msg_bytes, 0, per_page, 16)
            }
            Ipc::Socket => Channel::with_capacity(ipc, msg_bytes, capacity(ipc, msg_bytes)),
        }
    }

    /// A channel holding `cap` messages (tests): a socket of `cap`
    /// messages, or a pipe of `cap` pages of one message each.
    pub fn with_capacity(ipc: Ipc, msg_bytes: u64, cap: u32) -> Channel {
        Channel::build(ipc, msg_bytes, cap, 1, cap)
    }

    /// A pipe of `pages` pages holding `per_page` messages each.
    pub fn pipe(msg_bytes: u64, per_page: u32, pages: u32) -> Channel {
        Channel::build(Ipc::Pipe, msg_bytes, 0, per_page, pages)
    }

    fn build(ipc: Ipc, msg_bytes: u64, cap: u32, per_page: u32, pages: u32) -> Channel {
        let (per_page, max_pages) = (per_page.max(1), pages.max(1));
        Channel {
            ipc,
            msg_bytes,
            cap: match ipc {
                Ipc::Pipe => per_page.saturating_mul(max_pages),
                Ipc::Socket => cap.max(1),
            },
            used: 0,
            per_page,
            max_pages,
            pages: Default::default(),
            ready: 0,
            readers: Vec::new(),
            writers: Default::default(),
            waited: Vec::new(),
            wake_next: Vec::new(),
        }
    }

    /// Messages that fit when the channel is empty.
    pub fn capacity(&self) -> u32 {
        self.cap
    }

    /// Readable messages right now.
    pub fn ready(&self) -> u32 {
        self.ready
    }

    /// Writers asleep on the channel.
    pub fn waiting_writers(&self) -> usize {
        self.writers.len()
    }

    /// A pipe's pipe_full(): every page of the ring is in use.
    fn pipe_full(&self) -> bool {
        self.pages.len() as u32 >= self.max_pages
    }

    /// Reserve a slot for a write by `t`; when full, register `t` as a
    /// waiting writer and return false (the caller returns `Step::Block`).
    ///
    /// Pipe (pipe_write): a write merges into the last page when it fits
    /// there, else takes a new page unless all are in use (pipe_full).
    ///
    /// (This and the other three calls of a message inline, their rare
    /// paths out of line: each ran once a message, and the frames their
    /// rare paths needed were half their instructions.)
    #[inline]
    pub fn begin_write(&mut self, t: TaskId) -> bool {
        let ok = match self.ipc {
            Ipc::Pipe => {
                let full = self.pipe_full();
                match self.pages.back_mut() {
                    Some(last) if last.slots < self.per_page => {
                        last.slots += 1;
                        true
                    }
                    _ if !full => {
                        self.pages.push_back(Page { slots: 1, read: 0 });
                        true
                    }
                    _ => false,
                }
            }
            Ipc::Socket => {
                if self.used < self.cap {
                    self.used += 1;
                    true
                } else {
                    false
                }
            }
        };
        // (an empty `waited` holds no `t`)
        if !ok || !self.waited.is_empty() {
            self.write_waits(t, ok);
        }
        ok
    }

    /// begin_write's waits: a writer woken from the queue (`waited`) gets
    /// its write and wakes the next one at its end; one that found the
    /// channel full queues.
    #[inline(never)]
    fn write_waits(&mut self, t: TaskId, ok: bool) {
        if ok {
            if let Some(i) = self.waited.iter().position(|&w| w == t) {
                self.waited.swap_remove(i);
                self.wake_next.push(t);
            }
        } else if !self.writers.contains(&t) {
            self.writers.push_back(t);
        }
    }

    /// `t`'s write syscall finished: the message is readable; wake waiting
    /// readers (sync, carrying the message). Pipe: a writer that had slept
    /// in this call wakes the next waiting writer if the pipe is not full
    /// (pipe_write's `wake_next_writer`).
    #[inline]
    pub fn end_write(&mut self, t: TaskId, fx: &mut Effects) {
        self.ready += 1;
        // (no reader asleep and no writer woken from the queue: nothing to wake)
        if !self.readers.is_empty() || !self.wake_next.is_empty() {
            self.end_write_wakes(t, fx);
        }
    }

    /// end_write's wake-ups.
    #[inline(never)]
    fn end_write_wakes(&mut self, t: TaskId, fx: &mut Effects) {
        for r in self.readers.drain(..) {
            fx.wake(r, true, self.msg_bytes);
        }
        if let Some(i) = self.wake_next.iter().position(|&w| w == t) {
            self.wake_next.swap_remove(i);
            if !self.pipe_full() {
                self.wake_one_writer(fx);
            }
        }
    }

    /// Take a readable message; when empty, register `t` as a waiting reader
    /// and return false (the caller returns `Step::Block`).
    #[inline]
    pub fn begin_read(&mut self, t: TaskId) -> bool {
        if self.ready > 0 {
            self.ready -= 1;
            true
        } else {
            self.wait_read(t);
            false
        }
    }

    /// begin_read's wait: `t` queues once.
    #[inline(never)]
    fn wait_read(&mut self, t: TaskId) {
        if !self.readers.contains(&t) {
            self.readers.push(t);
        }
    }

    /// The read syscall finished: free the slot and wake writers as the
    /// kernel would (see the module doc).
    #[inline]
    pub fn end_read(&mut self, fx: &mut Effects) {
        match self.ipc {
            Ipc::Pipe => {
                // pipe_read: was_full is taken before the read; the tail
                // page is released once all of it is read
                let was_full = self.pipe_full();
                if let Some(tail) = self.pages.front_mut() {
                    tail.read += 1;
                    if tail.read >= tail.slots {
                        self.pages.pop_front();
                    }
                }
                if was_full {
                    self.wake_one_writer(fx);
                }
            }
            Ipc::Socket => {
                self.used -= 1;
                if self.used * 4 <= self.cap && !self.writers.is_empty() {
                    self.wake_all_writers(fx);
                }
            }
        }
    }

    /// A sync wake-up of wr_wait with exclusive waiters: the first one
    /// (autoremove_wake_function takes it off the queue; if it finds the
    /// pipe still full it queues again at the tail).
    #[inline(never)]
    fn wake_one_writer(&mut self, fx: &mut Effects) {
        if let Some(w) = self.writers.pop_front() {
            fx.wake(w, true, 0);
            if !self.waited.contains(&w) {
                self.waited.push(w);
            }
        }
    }

    /// A socket's sk_write_space: every waiting writer.
    #[inline(never)]
    fn wake_all_writers(&mut self, fx: &mut Effects) {
        for w in self.writers.drain(..) {
            fx.wake(w, true, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reader 9 reads one message (there is one): the wake-ups it made.
    fn read_one(c: &mut Channel) -> Vec<(TaskId, bool, u64)> {
        let mut fx = Effects::default();
        assert!(c.begin_read(9));
        c.end_read(&mut fx);
        fx.wakes
    }

    #[test]
    fn capacities_follow_the_kernel_buffers() {
        assert_eq!(capacity(Ipc::Pipe, 100), 16 * 40);
        assert_eq!(capacity(Ipc::Pipe, 4), 16 * 1024);
        // 100 B -> 128 + 320 = 448 -> 512, + 256 = 768 truesize
        assert_eq!(capacity(Ipc::Socket, 100), 212_992 / 768);
    }

    #[test]
    fn writers_block_when_full_and_are_woken_only_once_registered() {
        let mut c = Channel::with_capacity(Ipc::Pipe, 100, 2);
        let mut fx = Effects::default();
        assert!(c.begin_write(1));
        assert!(c.begin_write(2));
        assert!(!c.begin_write(3));
        assert!(!c.begin_write(3)); // re-check does not register twice
                                    // reader 9 finds nothing readable yet (both writes in flight)
        assert!(!c.begin_read(9));
        c.end_write(1, &mut fx);
        assert_eq!(fx.wakes, vec![(9, true, 100)]);
        fx.wakes.clear();
        c.end_write(2, &mut fx);
        assert!(fx.wakes.is_empty(), "reader was already woken");
        assert_eq!(read_one(&mut c), vec![(3, true, 0)]);
        assert!(read_one(&mut c).is_empty());
    }

    #[test]
    fn a_read_from_a_full_pipe_wakes_one_writer_in_fifo_order() {
        // pipe_read(): `if (was_full) wake_up_interruptible_sync_poll(
        // &pipe->wr_wait, ...)`; writers sleep with
        // wait_event_interruptible_exclusive, so one is woken, the first
        let mut c = Channel::with_capacity(Ipc::Pipe, 100, 2);
        let mut fx = Effects::default();
        for w in [1, 2] {
            assert!(c.begin_write(w));
            c.end_write(w, &mut fx);
        }
        for w in [3, 4, 5] {
            assert!(!c.begin_write(w));
        }
        assert_eq!(c.waiting_writers(), 3);
        assert_eq!(read_one(&mut c), vec![(3, true, 0)]);
        // the pipe is no longer full: the next read wakes nobody
        assert!(read_one(&mut c).is_empty());
        // writer 3 had slept: after its write, the pipe (1 page of 2) is
        // not full, so it wakes the next writer (wake_next_writer)
        assert!(c.begin_write(3));
        c.end_write(3, &mut fx);
        assert_eq!(fx.wakes, vec![(4, true, 0)]);
        fx.wakes.clear();
        // writer 4 fills the pipe: it wakes nobody
        assert!(c.begin_write(4));
        c.end_write(4, &mut fx);
        assert!(fx.wakes.is_empty());
        assert_eq!(c.waiting_writers(), 1);
    }

    #[test]
    fn a_pipe_fills_by_pages_and_frees_a_page_when_it_is_read() {
        // 16 pages of 40 100-byte messages: pipe_write merges a write into
        // the last page when it fits, pipe_read releases a page when its
        // last byte is read
        let mut c = Channel::new(Ipc::Pipe, 100);
        assert_eq!(c.capacity(), 640);
        let mut fx = Effects::default();
        for _ in 0..640 {
            assert!(c.begin_write(1));
            c.end_write(1, &mut fx);
        }
        assert!(!c.begin_write(2));
        assert!(!c.begin_write(3));
        // each of the first 40 reads starts with the pipe full and wakes one
        // writer; the first 39 leave it full (the woken writer sleeps again)
        for i in 0..40 {
            assert!(c.begin_read(9));
            c.end_read(&mut fx);
            assert_eq!(fx.wakes.len(), 1, "read {i}");
            let (w, _, _) = fx.wakes.pop().unwrap();
            assert_eq!(c.begin_write(w), i == 39, "read {i}");
        }
        // the 40th read freed a page: the writer woken by it got a slot, the
        // other one is queued again
        assert_eq!(c.waiting_writers(), 1);
        // a writer that did not sleep merges into the new page while it has
        // room (39 more), then finds the pipe full
        for _ in 0..39 {
            assert!(c.begin_write(1));
        }
        assert!(!c.begin_write(1));
    }

    #[test]
    fn a_pipe_read_to_empty_releases_a_partly_written_page() {
        let mut c = Channel::pipe(100, 4, 2);
        let mut fx = Effects::default();
        for _ in 0..2 {
            assert!(c.begin_write(1));
            c.end_write(1, &mut fx);
        }
        for _ in 0..2 {
            assert!(c.begin_read(9));
            c.end_read(&mut fx);
        }
        // empty: the next writes start a new page; 2 pages of 4 = 8 fit
        for _ in 0..8 {
            assert!(c.begin_write(1));
        }
        assert!(!c.begin_write(1));
    }

    #[test]
    fn socket_writers_wait_for_a_quarter_empty_buffer() {
        let mut c = Channel::with_capacity(Ipc::Socket, 100, 8);
        let mut fx = Effects::default();
        for _ in 0..8 {
            assert!(c.begin_write(1));
            c.end_write(1, &mut fx);
        }
        assert!(!c.begin_write(1));
        for i in 0..8 {
            assert!(c.begin_read(2));
            c.end_read(&mut fx);
            // used goes 7,6,..; writers are woken once used <= 2
            let woke = !fx.wakes.is_empty();
            fx.wakes.clear();
            assert_eq!(woke, i == 5, "after read {i}");
        }
    }
}
