//! The stats socket's server side (`/var/run/scx/root/stats`), speaking
//! the scx_stats wire protocol (one JSON request per line, one
//! `{"errno":..,"args":{"resp":..}}` line back), so `scx_arbor --monitor`,
//! `--set-features` and any scx_stats client work unchanged.
//!
//! Why not scx_stats' own `StatsServer` (1.1.4): it binds the socket with
//! the daemon's umask (under `umask 000` any user can connect, and the
//! directory it creates stays open until reboot), checks no credentials
//! (any user who can connect switches features), reads a request with an
//! unbounded `read_line` (memory) and spawns a thread per connection with no
//! limit. It offers no hook for any of these, so this replaces it:
//! - the directory is 0700 (0750 with `--stats-group`) and the socket 0600
//!   (0660), set explicitly after creation whatever the umask, with the
//!   umask also tightened around `bind`;
//! - every connection's peer is checked with `SO_PEERCRED` (root, or a
//!   member of `--stats-group`, its supplementary groups from
//!   `SO_PEERGROUPS`), so even a socket made readable by hand refuses others;
//! - a request line is at most `MAX_LINE` bytes and must arrive within
//!   `REQUEST_TIMEOUT` of its first byte; an idle connection is closed after
//!   `IDLE_TIMEOUT` (the scx_stats client reconnects);
//! - at most `MAX_CONNS` connections at once; more are answered EBUSY.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use crossbeam::channel::{bounded, Receiver, Sender};
use scx_stats::{Meta, StatsRequest, StatsResponse};
use serde_json::Value;

use crate::stats::{Metrics, Req, Res};

pub const MAX_LINE: usize = 64 * 1024;
pub const MAX_CONNS: usize = 16;
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(600);
/// How long a connection waits for the main loop's answer.
const REPLY_TIMEOUT: Duration = Duration::from_secs(10);

/// One request to the main loop, with where to send the answer.
pub struct Call {
    pub req: Req,
    pub reply: Sender<Res>,
}

/// Who may talk to the daemon: root, or a member of the `--stats-group`.
pub fn peer_allowed(uid: u32, gid: u32, groups: &[u32], stats_group: Option<u32>) -> bool {
    uid == 0 || stats_group.is_some_and(|g| gid == g || groups.contains(&g))
}

/// The gid of the group named `name` (for `--stats-group`).
pub fn group_id(name: &str) -> Result<u32> {
    if let Ok(n) = name.parse::<u32>() {
        return Ok(n);
    }
    let c = std::ffi::CString::new(name).context("--stats-group: a NUL in the name")?;
    // SAFETY: getgrnam returns a pointer to static storage or NULL; read at once
    let gr = unsafe { libc::getgrnam(c.as_ptr()) };
    if gr.is_null() {
        bail!("--stats-group {name}: no such group");
    }
    Ok(unsafe { (*gr).gr_gid })
}

/// The peer's uid, gid and supplementary groups, as the kernel recorded
/// them at connect (not racy like /proc/PID).
fn peer_cred(s: &UnixStream) -> std::io::Result<(u32, u32, Vec<u32>)> {
    let fd = s.as_raw_fd();
    let mut cred = libc::ucred {
        pid: 0,
        uid: u32::MAX,
        gid: u32::MAX,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: cred is a ucred of len bytes
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            &mut cred as *mut _ as *mut libc::c_void,
            &mut len,
        )
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    const SO_PEERGROUPS: libc::c_int = 59; // linux/asm-generic/socket.h
    let mut groups = vec![0u32; 256];
    let mut glen = (groups.len() * 4) as libc::socklen_t;
    // SAFETY: groups has glen bytes
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            SO_PEERGROUPS,
            groups.as_mut_ptr() as *mut libc::c_void,
            &mut glen,
        )
    };
    if r == 0 {
        groups.truncate(glen as usize / 4);
    } else {
        groups.clear(); // older kernel or more than 256 groups: primary gid only
    }
    Ok((cred.uid, cred.gid, groups))
}

/// Makes `dir` a directory of root's with exactly `mode` (and group `gid`),
/// refusing a symlink or another owner's directory in its place.
fn private_dir(dir: &Path, mode: u32, gid: Option<u32>) -> Result<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir(dir).with_context(|| format!("creating {}", dir.display()))?
        }
        Err(e) => Err(e).with_context(|| format!("reading {}", dir.display()))?,
    }
    let md = std::fs::symlink_metadata(dir)?;
    if !md.is_dir() {
        bail!("{} is not a directory (a link?); remove it", dir.display());
    }
    if md.uid() != unsafe { libc::geteuid() } {
        bail!(
            "{} belongs to uid {}, not to us; remove it",
            dir.display(),
            md.uid()
        );
    }
    if let Some(g) = gid {
        chown(dir, g)?;
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("chmod {:o} {}", mode, dir.display()))
}

fn chown(p: &Path, gid: u32) -> Result<()> {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes())?;
    // SAFETY: a valid C path; uid -1 keeps the owner
    if unsafe { libc::lchown(c.as_ptr(), u32::MAX, gid) } != 0 {
        Err(std::io::Error::last_os_error())
            .with_context(|| format!("chown :{gid} {}", p.display()))?
    }
    Ok(())
}

pub struct Server {
    path: PathBuf,
    exit: Arc<AtomicBool>,
}

impl Server {
    /// Binds `path` (its parent made private, created if missing, its
    /// grandparent created world-readable if missing, as scx_stats does)
    /// and serves it from a thread; requests come out of the receiver.
    pub fn launch(path: &Path, stats_group: Option<u32>) -> Result<(Self, Receiver<Call>)> {
        let dir = path
            .parent()
            .context("stats socket path has no directory")?;
        if let Some(base) = dir.parent() {
            if !base.exists() {
                std::fs::create_dir_all(base)
                    .with_context(|| format!("creating {}", base.display()))?;
                std::fs::set_permissions(base, std::fs::Permissions::from_mode(0o755))?;
            }
        }
        let (dmode, smode) = if stats_group.is_some() {
            (0o750, 0o660)
        } else {
            (0o700, 0o600)
        };
        private_dir(dir, dmode, stats_group)?;
        match std::fs::symlink_metadata(path) {
            Ok(md) if md.is_dir() => bail!("{} is a directory; remove it", path.display()),
            Ok(_) => std::fs::remove_file(path)
                .with_context(|| format!("deleting the old {}", path.display()))?,
            Err(_) => {}
        }
        // the umask is per process: tighten it only around bind (then the
        // socket is never, even briefly, more open than 0600), then set the
        // mode exactly
        let old = unsafe { libc::umask(0o177) };
        let listener = UnixListener::bind(path);
        unsafe { libc::umask(old) };
        let listener =
            listener.with_context(|| format!("creating the UNIX socket {}", path.display()))?;
        if let Some(g) = stats_group {
            chown(path, g)?;
        }
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(smode))?;

        let meta: BTreeMap<String, scx_stats::StatsMeta> = {
            let m = Metrics::meta();
            [(m.name.clone(), m)].into_iter().collect()
        };
        let meta = Arc::new(serde_json::to_value(meta)?);
        let (tx, rx) = bounded::<Call>(MAX_CONNS);
        let exit = Arc::new(AtomicBool::new(false));
        let ex = exit.clone();
        std::thread::Builder::new()
            .name("stats-listen".into())
            .spawn(move || listen(listener, tx, meta, stats_group, ex))?;
        Ok((
            Self {
                path: path.to_path_buf(),
                exit,
            },
            rx,
        ))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.exit.store(true, Ordering::Relaxed);
        let _ = UnixStream::connect(&self.path); // wake accept()
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Decrements the connection count when a connection's thread ends.
struct Slot(Arc<AtomicUsize>);
impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

fn listen(
    listener: UnixListener,
    tx: Sender<Call>,
    meta: Arc<Value>,
    stats_group: Option<u32>,
    exit: Arc<AtomicBool>,
) {
    let conns = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        if exit.load(Ordering::Relaxed) {
            break;
        }
        let Ok(mut s) = stream else { continue };
        let _ = s.set_write_timeout(Some(REQUEST_TIMEOUT));
        let allowed = match peer_cred(&s) {
            Ok((uid, gid, groups)) => peer_allowed(uid, gid, &groups, stats_group),
            Err(_) => false,
        };
        if !allowed {
            refuse(s, libc::EACCES, "permission denied: the scx_arbor stats socket serves root (and --stats-group) only");
            continue;
        }
        if conns.fetch_add(1, Ordering::Relaxed) >= MAX_CONNS {
            conns.fetch_sub(1, Ordering::Relaxed);
            refuse(
                s,
                libc::EBUSY,
                "too many connections to the scx_arbor stats socket",
            );
            continue;
        }
        let slot = Slot(conns.clone());
        let (tx, meta, exit) = (tx.clone(), meta.clone(), exit.clone());
        let spawned = std::thread::Builder::new()
            .name("stats-conn".into())
            .spawn(move || {
                let _slot = slot;
                let _ = serve(&mut s, &tx, &meta, &exit);
            });
        if spawned.is_err() {
            continue; // the slot was dropped with the closure
        }
    }
}

fn respond(s: &mut UnixStream, errno: i32, resp: Value) -> std::io::Result<()> {
    let r = StatsResponse {
        errno,
        args: [("resp".to_string(), resp)].into_iter().collect(),
    };
    let line = serde_json::to_string(&r).unwrap_or_else(|_| "{}".into()) + "\n";
    s.write_all(line.as_bytes())
}

/// Answers the first request with an error and closes (reading that
/// request first, bounded, so the client sees the answer, not EPIPE).
fn refuse(mut s: UnixStream, errno: i32, why: &str) {
    let _ = respond(&mut s, errno, Value::String(why.into()));
    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
    let mut buf = [0u8; 4096];
    let _ = s.read(&mut buf);
}

/// Reads one request line: at most MAX_LINE bytes, complete within
/// REQUEST_TIMEOUT of its first byte, the first byte within IDLE_TIMEOUT.
/// Ok(None): the peer closed. Err: a bound was hit (or an I/O error).
pub fn read_request(
    s: &mut impl ReadTimeout,
    buf: &mut Vec<u8>,
    idle: Duration,
    request: Duration,
) -> std::result::Result<Option<String>, String> {
    let mut started: Option<Instant> = if buf.is_empty() {
        None
    } else {
        Some(Instant::now())
    };
    loop {
        if let Some(pos) = buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buf.drain(..=pos).collect();
            return String::from_utf8(line)
                .map(Some)
                .map_err(|_| "the request is not UTF-8".to_string());
        }
        if buf.len() > MAX_LINE {
            return Err(format!("request longer than {MAX_LINE} bytes"));
        }
        let wait = match started {
            None => idle,
            Some(t) => match request.checked_sub(t.elapsed()) {
                Some(w) if !w.is_zero() => w,
                _ => return Err(format!("request not complete within {request:?}")),
            },
        };
        let mut chunk = [0u8; 4096];
        match s.read_timeout(&mut chunk, wait) {
            Ok(0) => return Ok(None),
            Ok(n) => {
                if started.is_none() {
                    started = Some(Instant::now());
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                return Err(if started.is_some() {
                    format!("request not complete within {request:?}")
                } else {
                    "idle connection closed".into()
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// A stream whose reads can be given a time limit.
pub trait ReadTimeout {
    fn read_timeout(&mut self, buf: &mut [u8], t: Duration) -> std::io::Result<usize>;
}

impl ReadTimeout for UnixStream {
    fn read_timeout(&mut self, buf: &mut [u8], t: Duration) -> std::io::Result<usize> {
        self.set_read_timeout(Some(t))?;
        self.read(buf)
    }
}

fn ask(tx: &Sender<Call>, req: Req) -> Result<Res> {
    let (rtx, rrx) = bounded(1);
    tx.send_timeout(Call { req, reply: rtx }, REPLY_TIMEOUT)
        .map_err(|_| anyhow::anyhow!("the scheduler is not answering"))?;
    rrx.recv_timeout(REPLY_TIMEOUT)
        .map_err(|_| anyhow::anyhow!("the scheduler did not answer in time"))
}

fn metrics(tx: &Sender<Call>) -> Result<Metrics> {
    match ask(tx, Req::Metrics)? {
        Res::Metrics(m) => Ok(*m),
        Res::Features(_) => bail!("a features answer to a metrics request"),
    }
}

fn serve(s: &mut UnixStream, tx: &Sender<Call>, meta: &Value, exit: &AtomicBool) -> Result<()> {
    let mut buf = Vec::new();
    // "top" answers with the deltas since this connection's previous read
    let mut prev: Option<Metrics> = None;
    loop {
        let line = match read_request(s, &mut buf, IDLE_TIMEOUT, REQUEST_TIMEOUT) {
            Ok(Some(l)) => l,
            Ok(None) => return Ok(()),
            Err(why) => {
                let _ = respond(s, libc::EINVAL, Value::String(why));
                return Ok(());
            }
        };
        if exit.load(Ordering::Relaxed) {
            return Ok(());
        }
        let ans: Result<Value> = (|| {
            let req: StatsRequest = serde_json::from_str(&line)?;
            match req.req.as_str() {
                "stats" => match req.args.get("target").map(String::as_str).unwrap_or("top") {
                    "top" => {
                        let p = match prev.take() {
                            Some(p) => p,
                            None => metrics(tx)?,
                        };
                        let cur = metrics(tx)?;
                        let d = cur.delta(&p)?;
                        prev = Some(cur);
                        Ok(serde_json::to_value(d)?)
                    }
                    "features" => match ask(tx, Req::Features(req.args.get("set").cloned()))? {
                        Res::Features(Ok(s)) => Ok(Value::String(s)),
                        Res::Features(Err(e)) => Err(anyhow::anyhow!(e)),
                        Res::Metrics(_) => bail!("a metrics answer to a features request"),
                    },
                    t => bail!("unknown stat target {t:?}"),
                },
                "stats_meta" => Ok(meta.clone()),
                r => bail!("unknown command {r:?}"),
            }
        })();
        match ans {
            Ok(v) => respond(s, 0, v)?,
            Err(e) => respond(s, libc::EINVAL, Value::String(format!("{e:#}")))?,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_or_the_stats_group_only() {
        assert!(peer_allowed(0, 0, &[], None));
        assert!(!peer_allowed(65534, 65534, &[], None));
        assert!(!peer_allowed(1000, 1000, &[27], None));
        assert!(peer_allowed(1000, 1000, &[27], Some(27)));
        assert!(peer_allowed(1000, 27, &[], Some(27)));
        assert!(!peer_allowed(1000, 1000, &[4, 24], Some(27)));
    }

    /// A scripted stream: chunks, then timeouts (None) or EOF.
    struct Script(Vec<Option<Vec<u8>>>, Vec<Duration>);
    impl ReadTimeout for Script {
        fn read_timeout(&mut self, buf: &mut [u8], t: Duration) -> std::io::Result<usize> {
            self.1.push(t);
            if self.0.is_empty() {
                return Ok(0);
            }
            match self.0.remove(0) {
                Some(c) => {
                    buf[..c.len()].copy_from_slice(&c);
                    Ok(c.len())
                }
                None => Err(std::io::Error::from(std::io::ErrorKind::WouldBlock)),
            }
        }
    }

    #[test]
    fn requests_are_bounded_in_size_and_time() {
        let idle = Duration::from_secs(600);
        let req = Duration::from_secs(5);
        // two requests in one chunk, then EOF
        let mut s = Script(
            vec![
                Some(b"{\"req\":\"a\"}\n{\"req\"".to_vec()),
                Some(b":\"b\"}\n".to_vec()),
            ],
            vec![],
        );
        let mut buf = Vec::new();
        assert_eq!(
            read_request(&mut s, &mut buf, idle, req).unwrap().unwrap(),
            "{\"req\":\"a\"}\n"
        );
        assert_eq!(
            read_request(&mut s, &mut buf, idle, req).unwrap().unwrap(),
            "{\"req\":\"b\"}\n"
        );
        assert_eq!(read_request(&mut s, &mut buf, idle, req).unwrap(), None);
        // the first read waits the idle time, the ones inside a request less
        assert_eq!(s.1[0], idle);
        assert!(s.1[1] <= req);
        // an endless line without a newline: refused past MAX_LINE
        let chunks = (0..(MAX_LINE / 4096 + 2))
            .map(|_| Some(vec![b'x'; 4096]))
            .collect();
        let mut s = Script(chunks, vec![]);
        let e = read_request(&mut s, &mut Vec::new(), idle, req).unwrap_err();
        assert!(e.contains("longer than"), "{e}");
        // a request started and never finished: the request limit, not idle
        let mut s = Script(vec![Some(b"{\"req".to_vec()), None], vec![]);
        let e = read_request(&mut s, &mut Vec::new(), idle, req).unwrap_err();
        assert!(e.contains("not complete"), "{e}");
        // nothing at all for the idle time: closed
        let mut s = Script(vec![None], vec![]);
        let e = read_request(&mut s, &mut Vec::new(), idle, req).unwrap_err();
        assert!(e.contains("idle"), "{e}");
    }

    fn tmp_sock(tag: &str) -> PathBuf {
        std::env::temp_dir()
            .join(format!("arbor-sock-{tag}-{}", std::process::id()))
            .join("root")
            .join("stats")
    }

    /// In a forked child as uid/gid 65534: connect, send a request, read
    /// the answer; the child's exit code is 0 if the answer had errno 0,
    /// 13 if EACCES, 2 if it could not connect, 3 otherwise.
    fn try_as_nobody(path: &Path, gid: u32) -> i32 {
        let cpath = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        let req = b"{\"req\":\"stats\",\"args\":{\"target\":\"features\"}}\n";
        // SAFETY: the child makes only raw system calls, then _exit
        unsafe {
            let pid = libc::fork();
            if pid == 0 {
                libc::setgroups(0, std::ptr::null());
                libc::setgid(gid);
                libc::setuid(65534);
                let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
                let mut sa: libc::sockaddr_un = std::mem::zeroed();
                sa.sun_family = libc::AF_UNIX as u16;
                let b = cpath.as_bytes();
                for (i, &c) in b.iter().enumerate() {
                    sa.sun_path[i] = c as libc::c_char;
                }
                if libc::connect(
                    fd,
                    &sa as *const _ as *const libc::sockaddr,
                    std::mem::size_of::<libc::sockaddr_un>() as u32,
                ) != 0
                {
                    libc::_exit(2);
                }
                libc::write(fd, req.as_ptr() as *const libc::c_void, req.len());
                let mut out = [0u8; 512];
                let n = libc::read(fd, out.as_mut_ptr() as *mut libc::c_void, out.len());
                let ans = if n > 0 { &out[..n as usize] } else { &out[..0] };
                let has = |pat: &[u8]| ans.windows(pat.len()).any(|w| w == pat);
                libc::_exit(if has(b"\"errno\":0") {
                    0
                } else if has(b"\"errno\":13") {
                    13
                } else {
                    3
                });
            }
            let mut st = 0;
            libc::waitpid(pid, &mut st, 0);
            libc::WEXITSTATUS(st)
        }
    }

    /// Answers the server's calls like the main loop does.
    /// A scx_stats client connected to the server at `path`.
    fn client(path: &Path) -> scx_stats::StatsClient {
        scx_stats::StatsClient::new()
            .set_path(path)
            .connect(Some(2000))
            .unwrap()
    }

    /// The features answer to a `stats` request for them.
    fn features(c: &mut scx_stats::StatsClient) -> anyhow::Result<String> {
        c.request("stats", vec![("target".into(), "features".into())])
    }

    fn answer(rx: Receiver<Call>) {
        std::thread::spawn(move || {
            while let Ok(c) = rx.recv() {
                let _ = c.reply.send(match c.req {
                    Req::Metrics => Res::Metrics(Box::default()),
                    Req::Features(_) => Res::Features(Ok("STEAL".into())),
                });
            }
        });
    }

    #[test]
    fn modes_and_peer_credentials_whatever_the_umask() {
        if unsafe { libc::geteuid() } != 0 {
            crate::testing::skip("needs root to serve other users");
            return;
        }
        let path = tmp_sock("perm");
        let base = path.parent().unwrap().parent().unwrap().to_path_buf();
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
        let old = unsafe { libc::umask(0) };
        let r = Server::launch(&path, None);
        unsafe { libc::umask(old) };
        let (srv, rx) = r.unwrap();
        answer(rx);
        let mode = |p: &Path| std::fs::symlink_metadata(p).unwrap().mode() & 0o7777;
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        assert_eq!(mode(&path), 0o600);
        // root is served
        assert_eq!(features(&mut client(&path)).unwrap(), "STEAL");
        // another user cannot even reach it
        assert_eq!(try_as_nobody(&path, 65534), 2);
        // made reachable by hand: SO_PEERCRED still refuses
        std::fs::set_permissions(
            path.parent().unwrap(),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert_eq!(try_as_nobody(&path, 65534), 13);
        drop(srv);
        // --stats-group: its members are served
        let (srv, rx) = Server::launch(&path, Some(65534)).unwrap();
        answer(rx);
        assert_eq!(mode(path.parent().unwrap()), 0o750);
        assert_eq!(mode(&path), 0o660);
        assert_eq!(try_as_nobody(&path, 65534), 0);
        assert_eq!(try_as_nobody(&path, 65533), 2); // not in the group: no access to the dir
        drop(srv);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn connections_are_bounded_in_number() {
        let path = tmp_sock("conns");
        let base = path.parent().unwrap().parent().unwrap().to_path_buf();
        let _ = std::fs::remove_dir_all(&base);
        let (srv, rx) = Server::launch(&path, None).unwrap();
        answer(rx);
        let mut held = Vec::new();
        for _ in 0..MAX_CONNS {
            let mut c = client(&path);
            features(&mut c).unwrap();
            held.push(c);
        }
        let e = features(&mut client(&path)).unwrap_err();
        assert!(format!("{e:#}").contains("too many connections"), "{e:#}");
        held.pop();
        std::thread::sleep(Duration::from_millis(200));
        features(&mut client(&path)).unwrap();
        drop(srv);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
