//! The VM runner: boots a Debian kernel with sched_ext under QEMU's TCG
//! through virtme-ng, with a chosen CPU topology, runs one command inside
//! with the host's files visible (copy-on-write), streams its output and
//! returns its exit code.
//!
//! Why TCG: the development machines have /dev/kvm, but nested KVM does
//! not work on them; TCG is slow but faithful.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// A guest topology: sockets x dies x cores x threads, NUMA nodes, memory.
/// Each die has its own L3 (LLC) when the guest CPU reports an Intel
/// vendor, which is how QEMU expresses "2 LLCs in one node".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VmTopology {
    pub sockets: u32,
    pub dies: u32,
    pub cores: u32,
    pub threads: u32,
    pub nodes: u32,
    pub mem_mb: u32,
}

/// Named presets: (name, spec, what it models).
pub const PRESETS: &[(&str, &str, &str)] = &[
    (
        "1s2c2t",
        "sockets=1,cores=2,threads=2,nodes=1,mem=2G",
        "4 CPUs, SMT2, one LLC",
    ),
    (
        "2s2c2t",
        "sockets=2,cores=2,threads=2,nodes=2,mem=4G",
        "8 CPUs, 2 sockets = 2 LLCs, 2 NUMA nodes",
    ),
    (
        "1s2d2c2t",
        "sockets=1,dies=2,cores=2,threads=2,nodes=1,mem=4G",
        "8 CPUs, one node, 2 LLCs (one per die)",
    ),
    (
        "1s4c1t",
        "sockets=1,cores=4,threads=1,nodes=1,mem=2G",
        "4 CPUs, no SMT, one LLC",
    ),
    (
        "2s4c1t",
        "sockets=2,cores=4,threads=1,nodes=2,mem=4G",
        "8 CPUs, no SMT, 2 LLCs, 2 nodes",
    ),
];

/// Under TCG (thread=single) every vCPU shares one host thread, so a big
/// guest is slow, but it boots: 128 covers the 96-CPU LLC of a 48-core Xeon
/// socket (`sockets=1,cores=48,threads=2`) with room to spare;
/// QEMU's pc machine stops at 255 without an x2APIC-capable IOMMU.
pub const MAX_VCPUS: u32 = 128;

impl VmTopology {
    pub fn nr_cpus(&self) -> u32 {
        self.sockets * self.dies * self.cores * self.threads
    }

    pub fn nr_llcs(&self) -> u32 {
        self.sockets * self.dies
    }

    /// A preset name or `key=value,...` with keys sockets, dies, cores,
    /// threads, nodes, mem (e.g. 512M, 4G).
    pub fn parse(s: &str) -> Result<Self> {
        let spec = PRESETS.iter().find(|p| p.0 == s).map(|p| p.1).unwrap_or(s);
        if !spec.contains('=') {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
            bail!(
                "unknown topology '{s}': use a preset ({}) or sockets=S,dies=D,cores=C,threads=T,nodes=N,mem=M",
                names.join(", ")
            );
        }
        let mut t = VmTopology {
            sockets: 1,
            dies: 1,
            cores: 1,
            threads: 1,
            nodes: 1,
            mem_mb: 0,
        };
        for kv in spec.split(',').filter(|kv| !kv.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .with_context(|| format!("topology: '{kv}' is not key=value"))?;
            let num = |v: &str| -> Result<u32> {
                v.trim()
                    .parse::<u32>()
                    .with_context(|| format!("topology: {k}={v} is not a whole number"))
            };
            match k.trim() {
                "sockets" => t.sockets = num(v)?,
                "dies" => t.dies = num(v)?,
                "cores" => t.cores = num(v)?,
                "threads" => t.threads = num(v)?,
                "nodes" => t.nodes = num(v)?,
                "mem" => {
                    t.mem_mb = parse_mem(v)?;
                    if t.mem_mb == 0 {
                        bail!("topology: mem=0 is no memory (give e.g. mem=2G)");
                    }
                }
                other => bail!(
                    "topology: unknown key '{other}' (sockets, dies, cores, threads, nodes, mem)"
                ),
            }
        }
        // no mem= given: 1G per node, at least 2G (nodes is checked below;
        // saturating so that a huge nodes= reaches that check)
        if t.mem_mb == 0 {
            t.mem_mb = 1024u32.saturating_mul(t.nodes).max(2048);
        }
        t.validate()?;
        Ok(t)
    }

    /// Rejects what QEMU cannot build or what would not boot usefully.
    pub fn validate(&self) -> Result<()> {
        for (k, v) in [
            ("sockets", self.sockets),
            ("dies", self.dies),
            ("cores", self.cores),
            ("threads", self.threads),
            ("nodes", self.nodes),
        ] {
            if v == 0 {
                bail!("topology: {k} must be at least 1");
            }
        }
        // the product in 64 bits, checked: sockets=1073741825,cores=4 must
        // not wrap to 4 CPUs
        let n64 = [self.sockets, self.dies, self.cores, self.threads]
            .iter()
            .try_fold(1u64, |a, &v| a.checked_mul(v as u64))
            .unwrap_or(u64::MAX);
        if n64 > MAX_VCPUS as u64 {
            bail!(
                "topology: {n64} CPUs is more than the {MAX_VCPUS} a TCG guest can usefully run here"
            );
        }
        if self.threads > 8 {
            bail!(
                "topology: threads={} per core is more than any real CPU has (max 8)",
                self.threads
            );
        }
        let n = self.nr_cpus();
        if n > MAX_VCPUS {
            bail!(
                "topology: {n} CPUs is more than the {MAX_VCPUS} a TCG guest can usefully run here"
            );
        }
        if self.nodes > self.nr_llcs() || self.nr_llcs() % self.nodes != 0 {
            bail!(
                "topology: {} NUMA nodes cannot each hold whole LLCs of {} sockets x {} dies",
                self.nodes,
                self.sockets,
                self.dies
            );
        }
        if self.mem_mb % self.nodes != 0 || self.mem_mb / self.nodes < 256 {
            bail!(
                "topology: mem={}M must split evenly into {} nodes of at least 256M",
                self.mem_mb,
                self.nodes
            );
        }
        if self.mem_mb > 16 * 1024 {
            bail!(
                "topology: mem={}M leaves too little of the host's memory (max 16G)",
                self.mem_mb
            );
        }
        Ok(())
    }

    /// virtme-ng arguments for this topology.
    pub fn vng_args(&self) -> Vec<String> {
        let n = self.nr_cpus();
        let mut a = vec![
            "--cpus".into(),
            n.to_string(),
            "--memory".into(),
            format!("{}M", self.mem_mb),
            // An Intel vendor makes QEMU report one L3 per die; the default
            // (AMD-like) model reports one L3 per socket and warns about SMT.
            format!(
                "--qemu-opts=-accel tcg,thread=single -cpu qemu64,vendor=GenuineIntel -smp {n},sockets={},dies={},cores={},threads={}",
                self.sockets, self.dies, self.cores, self.threads
            ),
        ];
        if self.nodes > 1 {
            let per = n / self.nodes;
            for node in 0..self.nodes {
                a.push("--numa".into());
                a.push(format!(
                    "{}M,cpus={}-{}",
                    self.mem_mb / self.nodes,
                    node * per,
                    node * per + per - 1
                ));
            }
        }
        a
    }
}

impl fmt::Display for VmTopology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} CPUs ({} socket(s) x {} die(s) x {} core(s) x {} thread(s)), {} LLC(s), {} node(s), {}M",
            self.nr_cpus(),
            self.sockets,
            self.dies,
            self.cores,
            self.threads,
            self.nr_llcs(),
            self.nodes,
            self.mem_mb
        )
    }
}

fn parse_mem(v: &str) -> Result<u32> {
    let v = v.trim();
    let (num, mult) = match v.chars().last() {
        Some('G') | Some('g') => (&v[..v.len() - 1], 1024),
        Some('M') | Some('m') => (&v[..v.len() - 1], 1),
        _ => (v, 1),
    };
    let n: u32 = num
        .parse()
        .with_context(|| format!("topology: mem={v} is not a size like 512M or 4G"))?;
    n.checked_mul(mult)
        .with_context(|| format!("topology: mem={v} is more memory than can be given"))
}

/// Where scripts/install-deps.sh records the guest kernel it unpacked.
const KERNEL_STAMP: &str = "/var/lib/scx-arbor/kernel-version";

/// The host variables `arbor vm` hands to the guest's command: which
/// scx_arbor build the VM tests and scripts load (tests/vm/lib.sh reads
/// ARBOR_BIN; bench reads SCX_ARBOR_BIN). The guest does not inherit the
/// host's environment.
pub const FORWARDED_ENV: &[&str] = &["ARBOR_BIN", "SCX_ARBOR_BIN"];

/// `cmd` with `export NAME=value;` in front for each forwarded variable
/// set on the host (`get` reads one; values quoted for the guest's shell).
pub fn with_forwarded_env(cmd: &str, get: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    for k in FORWARDED_ENV {
        if let Some(v) = get(k) {
            out += &format!("export {k}={}; ", shell_quote(&v));
        }
    }
    out + cmd
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf()
}

/// Where scripts/install-deps.sh records the extra kernels it unpacked when
/// asked (`KERNELS="rt cloud next"`): one file per name, holding its version.
const KERNELS_DIR: &str = "/var/lib/scx-arbor/kernels";

/// The names `install-deps.sh` knows for extra kernels (`KERNELS=...`).
pub const KERNEL_NAMES: &[&str] = &["rt", "cloud", "next"];

/// `--kernel K`: a name install-deps.sh recorded (`default`, `rt`, `cloud`,
/// `next`) or a version under /usr/lib/modules; the version to boot, whose
/// config must enable sched_ext, and 9p unless `virtiofsd` is there. `modules` and `config` are the roots to look
/// in (/usr/lib/modules and /boot; other roots in tests).
pub fn resolve_kernel(
    k: &str,
    names: &Path,
    modules: &Path,
    config: &Path,
    virtiofsd: bool,
) -> Result<String> {
    let installed = || {
        let mut v: Vec<String> = std::fs::read_dir(modules)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter(|e| e.path().join("vmlinuz").exists())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    let ver = if k.contains('/') || k.is_empty() || k.starts_with('.') {
        bail!(
            "--kernel {k:?}: give a name (default, rt, cloud, next) or a version under {}",
            modules.display()
        );
    } else if let Ok(v) = std::fs::read_to_string(names.join(k)) {
        v.trim().to_string()
    } else if modules.join(k).join("vmlinuz").exists() {
        k.to_string()
    } else if KERNEL_NAMES.contains(&k) {
        bail!("--kernel {k}: not installed; `make deps KERNELS={k}` (or `sudo KERNELS={k} scripts/install-deps.sh`) fetches it");
    } else {
        bail!(
            "--kernel {k}: no such kernel; give default, rt, cloud, next or a version under {} (installed: {})",
            modules.display(),
            installed()
        );
    };
    if !modules.join(&ver).join("vmlinuz").exists() {
        bail!(
            "--kernel {k}: {} is recorded but its image is gone; run scripts/install-deps.sh again",
            ver
        );
    }
    let cfg = config.join(format!("config-{ver}"));
    let text = std::fs::read_to_string(&cfg)
        .with_context(|| format!("--kernel {k}: reading {} (libbpf needs it)", cfg.display()))?;
    if !text.lines().any(|l| l == "CONFIG_SCHED_CLASS_EXT=y") {
        bail!("--kernel {k}: {ver} is built without sched_ext (CONFIG_SCHED_CLASS_EXT is not y in {})", cfg.display());
    }
    // virtme-ng mounts the host's root over 9p unless virtiofsd is
    // installed; a kernel without 9p (Debian's cloud flavour) then panics
    // at boot with "Failed to mount real root" (seen here).
    let has_9p = text
        .lines()
        .any(|l| l == "CONFIG_9P_FS=y" || l == "CONFIG_9P_FS=m");
    if !has_9p && !virtiofsd {
        bail!("--kernel {k}: {ver} has no 9p file system (CONFIG_9P_FS) and virtiofsd is not installed, so virtme-ng cannot mount the host's root in it");
    }
    Ok(ver)
}

fn installed_kernel() -> Option<String> {
    let v = std::fs::read_to_string(KERNEL_STAMP)
        .ok()?
        .trim()
        .to_string();
    let ok = Path::new(&format!("/usr/lib/modules/{v}/vmlinuz")).exists();
    ok.then_some(v)
}

fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd} >/dev/null 2>&1")])
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Runs scripts/install-deps.sh if the VM stack or the guest kernel is missing.
pub fn ensure_deps() -> Result<String> {
    if !(have("vng") && have("qemu-system-x86_64") && installed_kernel().is_some()) {
        if unsafe { libc_geteuid() } != 0 {
            bail!("the VM stack is not installed and installing it needs root: run sudo scripts/install-deps.sh");
        }
        let script = repo_root().join("scripts/install-deps.sh");
        eprintln!("arbor: installing the VM stack ({})", script.display());
        let st = Command::new("bash")
            .arg(&script)
            .status()
            .context("running install-deps.sh")?;
        if !st.success() {
            bail!("scripts/install-deps.sh failed ({st})");
        }
    }
    installed_kernel().context("no guest kernel after install-deps.sh; see its output")
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
    fn kill(pid: i32, sig: i32) -> i32;
    fn prctl(option: i32, arg2: u64, arg3: u64, arg4: u64, arg5: u64) -> i32;
    fn signal(sig: i32, handler: usize) -> usize;
}

const SIGINT: i32 = 2;
const SIGKILL: i32 = 9;
const SIGTERM: i32 = 15;
const PR_SET_PDEATHSIG: i32 = 1;

/// `arbor vm`'s default --timeout: generous (the full VM suite takes about
/// 20 minutes under TCG, a long bench about an hour).
pub const DEFAULT_TIMEOUT_SECS: u64 = 4 * 3600;

/// The last SIGINT/SIGTERM received while a guest runs (0: none).
static GOT_SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: i32) {
    GOT_SIGNAL.store(sig, Ordering::SeqCst);
}

/// How a guest run ended when it did not end by itself.
#[derive(Debug, PartialEq, Eq)]
pub enum Stopped {
    /// After the bound, with the guest's last line of output and how long
    /// after the start it came (the boot marker if its command printed
    /// nothing; none: it never finished booting).
    Timeout(Duration, Option<(Duration, String)>),
    Signal(i32),
    /// The guest's command had not started after the boot bound.
    NotBooted(Duration),
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stopped::Timeout(d, last) => {
                write!(
                    f,
                    "timeout: the guest ran longer than --timeout {}s; it was killed (QEMU and vng); ",
                    d.as_secs()
                )?;
                match last {
                    Some((at, line)) => write!(
                        f,
                        "its last line came {}s after the start: {line}",
                        at.as_secs()
                    ),
                    None => write!(f, "it printed nothing (it hung booting)"),
                }
            }
            Stopped::Signal(s) => write!(
                f,
                "interrupted by {}; the guest was killed (QEMU and vng)",
                if *s == SIGINT { "SIGINT" } else { "SIGTERM" }
            ),
            Stopped::NotBooted(d) => write!(
                f,
                "the guest printed nothing within {} s of its start: it hung booting; it was killed",
                d.as_secs()
            ),
        }
    }
}

impl std::error::Error for Stopped {}

impl Stopped {
    /// The exit code for it: 124 like timeout(1), 128+N for a signal.
    pub fn exit_code(&self) -> i32 {
        match self {
            Stopped::Timeout(..) | Stopped::NotBooted(_) => 124,
            Stopped::Signal(s) => 128 + s,
        }
    }
}

/// Quotes one value for the guest's shell (POSIX single quotes): the value
/// comes back byte for byte, nothing in it is run or expanded.
pub fn shell_quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

/// The command that boots guests: vng, or $ARBOR_VM_RUNNER (a test hook:
/// a fake runner script gets the same arguments; then neither the VM stack
/// nor a guest kernel is needed).
fn runner() -> Option<String> {
    std::env::var("ARBOR_VM_RUNNER")
        .ok()
        .filter(|s| !s.is_empty())
}

/// Boots the guest and runs `cmd` (a shell command line) in it, in the
/// current directory; returns the command's exit code.
pub fn run(
    topo: &VmTopology,
    kernel: Option<&str>,
    cmd: &str,
    verbose: bool,
    timeout: Option<Duration>,
) -> Result<i32> {
    run_with(topo, kernel, cmd, verbose, timeout, None)
}

/// Like `run_with`, with host directories the guest may write to (vng's
/// `--rwdir`, mounted at the same path): the rest of the host's root stays
/// read-only in the guest.
pub fn run_with_rw(
    topo: &VmTopology,
    kernel: Option<&str>,
    cmd: &str,
    timeout: Option<Duration>,
    on_line: Option<&mut dyn FnMut(&str)>,
    rwdirs: &[PathBuf],
) -> Result<i32> {
    boot(topo, kernel, cmd, false, timeout, on_line, rwdirs)
}

/// Like `run`, but hands each line the guest prints on stdout to `on_line`
/// instead of passing it through.
///
/// The guest (vng, its shell, virtme-run and QEMU) runs in a process group
/// of its own, which is killed on timeout, on SIGINT/SIGTERM, and when this
/// process ends in any way: vng gets PR_SET_PDEATHSIG, and a watchdog
/// process (`sh`, in its own group too) that waits on a pipe only we hold
/// kills the whole group when the pipe closes, even if we were SIGKILLed.
pub fn run_with(
    topo: &VmTopology,
    kernel: Option<&str>,
    cmd: &str,
    verbose: bool,
    timeout: Option<Duration>,
    on_line: Option<&mut dyn FnMut(&str)>,
) -> Result<i32> {
    boot(topo, kernel, cmd, verbose, timeout, on_line, &[])
}

/// vng's arguments for directories the guest may write to, each at the
/// same absolute path: the short form `--rwdir=PATH` is checked against
/// vng's working directory as a relative path and refused outside an
/// overlay ("path must be defined inside a valid overlay").
fn rwdir_args(rwdirs: &[PathBuf]) -> Vec<String> {
    rwdirs
        .iter()
        .map(|d| format!("--rwdir={0}={0}", d.display()))
        .collect()
}

fn boot(
    topo: &VmTopology,
    kernel: Option<&str>,
    cmd: &str,
    verbose: bool,
    timeout: Option<Duration>,
    on_line: Option<&mut dyn FnMut(&str)>,
    rwdirs: &[PathBuf],
) -> Result<i32> {
    let fake = runner();
    let kver = match (kernel, &fake) {
        (Some(k), Some(_)) => k.to_string(),
        (Some("default"), None) => ensure_deps()?,
        (Some(k), None) => resolve_kernel(
            k,
            Path::new(KERNELS_DIR),
            Path::new("/usr/lib/modules"),
            Path::new("/boot"),
            have("virtiofsd") || Path::new("/usr/libexec/virtiofsd").exists(),
        )?,
        (None, Some(_)) => "fake".to_string(),
        (None, None) => ensure_deps()?,
    };
    let image = format!("/usr/lib/modules/{kver}/vmlinuz");
    if fake.is_none() && !Path::new(&image).exists() {
        bail!("kernel image {image} not found (scripts/install-deps.sh unpacks one)");
    }
    let limit = boot_limit(topo)?;
    // The guest's command starts by printing BOOTED: a guest that has not
    // printed it after `limit` hung booting (seen under TCG on a loaded
    // host: no output at all, QEMU busy, for as long as it was let run).
    // Nothing of ours has run in it yet, so it is booted again, saying so,
    // up to BOOT_TRIES times; --timeout bounds each boot's whole run.
    let cmd = format!("echo {BOOTED}; {cmd}");
    let mut on_line = on_line;
    for n in 1..=BOOT_TRIES {
        let line = on_line.as_mut().map(|f| &mut **f as &mut dyn FnMut(&str));
        match attempt(
            fake.as_deref(),
            &image,
            &kver,
            topo,
            verbose,
            rwdirs,
            &cmd,
            timeout,
            limit,
            line,
        ) {
            Err(e) if matches!(e.downcast_ref::<Stopped>(), Some(Stopped::NotBooted(_))) => {
                if n == BOOT_TRIES {
                    bail!(
                        "the guest did not finish booting within {} s, {BOOT_TRIES} times (ARBOR_VM_BOOT_TIMEOUT sets the bound)",
                        limit.as_secs()
                    );
                }
                eprintln!("arbor vm: booting it again (try {} of {BOOT_TRIES})", n + 1);
            }
            res => return res,
        }
    }
    unreachable!("the last try returns")
}

/// The first line of every guest command (filtered out of its output): the
/// guest has booted and the command runs.
const BOOTED: &str = "arbor-vm: the guest booted";
/// Boots tried before a guest that hangs booting is given up.
const BOOT_TRIES: u32 = 3;

/// How long a guest may take to boot before it counts as hung: 5 minutes
/// plus 6 s per vCPU (under TCG on a loaded 2-core host an 8-CPU guest
/// boots in 1-2.5 minutes, a 96-CPU one in 7-8.5), or
/// ARBOR_VM_BOOT_TIMEOUT seconds.
fn boot_limit(topo: &VmTopology) -> Result<Duration> {
    match std::env::var("ARBOR_VM_BOOT_TIMEOUT") {
        Ok(v) if !v.is_empty() => match v.parse::<f64>() {
            Ok(s) if s > 0.0 && s.is_finite() => Ok(Duration::from_secs_f64(s)),
            _ => bail!("ARBOR_VM_BOOT_TIMEOUT={v:?}: not a positive number of seconds"),
        },
        _ => Ok(Duration::from_secs(300 + 6 * u64::from(topo.nr_cpus()))),
    }
}

/// One boot of the guest, supervised (see `run_with`).
#[allow(clippy::too_many_arguments)]
fn attempt(
    fake: Option<&str>,
    image: &str,
    kver: &str,
    topo: &VmTopology,
    verbose: bool,
    rwdirs: &[PathBuf],
    cmd: &str,
    timeout: Option<Duration>,
    limit: Duration,
    on_line: Option<&mut dyn FnMut(&str)>,
) -> Result<i32> {
    let mut c = Command::new(fake.unwrap_or("vng"));
    c.arg("--run").arg(image).arg("--disable-kvm");
    c.args(topo.vng_args());
    if verbose {
        c.arg("--verbose");
    }
    c.args(rwdir_args(rwdirs));
    c.arg("--exec").arg(cmd);
    // vng's QEMU writes to /proc/self/fd/1 and /proc/self/fd/2 through
    // "file" chardevs, which open with O_TRUNC: a log file the user
    // redirected us into (`make test > log`, even `>>`) was emptied at
    // every boot. So the guest always talks to pipes, and we copy.
    c.stdin(Stdio::null());
    c.stdout(Stdio::piped());
    c.stderr(Stdio::piped());
    // its own process group: the terminal's Ctrl-C reaches only us, and we
    // kill the whole guest at once
    c.process_group(0);
    // SAFETY: prctl is async-signal-safe
    unsafe {
        c.pre_exec(|| {
            prctl(PR_SET_PDEATHSIG, SIGKILL as u64, 0, 0, 0);
            Ok(())
        });
    }
    GOT_SIGNAL.store(0, Ordering::SeqCst);
    // SAFETY: the handler only stores to an atomic
    let (old_int, old_term) = unsafe {
        (
            signal(SIGINT, on_signal as *const () as usize),
            signal(SIGTERM, on_signal as *const () as usize),
        )
    };
    let restore = || unsafe {
        signal(SIGINT, old_int);
        signal(SIGTERM, old_term);
    };
    let how = if fake.is_some() {
        "a fake runner"
    } else {
        "TCG"
    };
    eprintln!("arbor vm: booting {kver} with {topo} under {how}");
    let mut child = match c.spawn() {
        Ok(ch) => ch,
        Err(e) => {
            restore();
            return Err(e).context("starting vng (virtme-ng)");
        }
    };
    let pgid = child.id() as i32;
    // the watchdog: reads its stdin (our pipe) to EOF, then kills the group
    let watchdog = Command::new("sh")
        .arg("-c")
        .arg("cat >/dev/null; kill -KILL -\"$0\" 2>/dev/null")
        .arg(pgid.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
    let res = supervise(&mut child, pgid, timeout, limit, on_line);
    // whatever happened, nothing of the guest stays behind
    unsafe { kill(-pgid, SIGKILL) };
    let _ = child.wait();
    if let Ok(mut w) = watchdog {
        drop(w.stdin.take());
        let _ = w.wait();
    }
    restore();
    res
}

fn supervise(
    child: &mut std::process::Child,
    pgid: i32,
    timeout: Option<Duration>,
    boot_limit: Duration,
    on_line: Option<&mut dyn FnMut(&str)>,
) -> Result<i32> {
    let start = Instant::now();
    let mut err = child.stderr.take().context("vng's stderr")?;
    let copy_err = std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::stderr()));
    let out = child.stdout.take().context("vng's stdout")?;
    let (tx, rx) = std::sync::mpsc::channel::<std::io::Result<Vec<u8>>>();
    std::thread::spawn(move || {
        for line in BufReader::new(out).split(b'\n') {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut on_line = on_line;
    let mut stdout = std::io::stdout();
    // where a hung guest stopped: its last non-empty line, and when
    let mut last: Option<(Duration, String)> = None;
    let mut booted = false;
    let stopped = loop {
        let sig = GOT_SIGNAL.load(Ordering::SeqCst);
        if sig != 0 {
            break Some(Stopped::Signal(sig));
        }
        if let Some(t) = timeout {
            if start.elapsed() >= t {
                break Some(Stopped::Timeout(t, last.take()));
            }
        }
        if !booted && start.elapsed() >= boot_limit {
            break Some(Stopped::NotBooted(boot_limit));
        }
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => {
                let line = line.context("reading the guest's output")?;
                let text = String::from_utf8_lossy(&line);
                let text = text.trim_end_matches('\r');
                if !booted && text == BOOTED {
                    // (kept as the last line: a guest that hangs before its
                    // command prints anything stopped here, not booting)
                    booted = true;
                    last = Some((start.elapsed(), BOOTED.to_string()));
                    continue;
                }
                if !text.trim().is_empty() {
                    last = Some((start.elapsed(), text.chars().take(200).collect()));
                }
                match on_line.as_mut() {
                    Some(f) => f(text),
                    None => {
                        let _ = writeln!(stdout, "{text}");
                    }
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break None,
        }
    };
    if let Some(why) = stopped {
        unsafe { kill(-pgid, SIGKILL) };
        let _ = child.wait();
        eprintln!("arbor vm: {why}");
        return Err(why.into());
    }
    let st = child.wait().context("waiting for vng")?;
    let _ = copy_err.join();
    match st.code() {
        Some(code) => Ok(code),
        None => bail!("vng was killed by a signal"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake /usr/lib/modules + /boot + kernels dir: `ok` with sched_ext,
    /// `nosx` without, the name `rt` recorded as `ok`.
    fn kernel_roots() -> tempdir::Roots {
        let r = tempdir::Roots::new();
        for (v, cfg) in [
            ("ok", "CONFIG_SCHED_CLASS_EXT=y\nCONFIG_9P_FS=m\n"),
            ("nosx", "# CONFIG_SCHED_CLASS_EXT is not set\n"),
            ("no9p", "CONFIG_SCHED_CLASS_EXT=y\n"),
        ] {
            std::fs::create_dir_all(r.modules.join(v)).unwrap();
            std::fs::write(r.modules.join(v).join("vmlinuz"), "").unwrap();
            std::fs::write(r.boot.join(format!("config-{v}")), cfg).unwrap();
        }
        std::fs::write(r.names.join("rt"), "ok\n").unwrap();
        std::fs::write(r.names.join("cloud"), "gone\n").unwrap();
        r
    }

    mod tempdir {
        use std::path::PathBuf;
        pub struct Roots {
            pub base: PathBuf,
            pub modules: PathBuf,
            pub boot: PathBuf,
            pub names: PathBuf,
        }
        impl Roots {
            pub fn new() -> Roots {
                use std::sync::atomic::{AtomicU32, Ordering};
                static N: AtomicU32 = AtomicU32::new(0);
                let base = std::env::temp_dir().join(format!(
                    "arbor-kernels-{}-{}",
                    std::process::id(),
                    N.fetch_add(1, Ordering::Relaxed)
                ));
                let r = Roots {
                    modules: base.join("modules"),
                    boot: base.join("boot"),
                    names: base.join("names"),
                    base,
                };
                for d in [&r.modules, &r.boot, &r.names] {
                    std::fs::create_dir_all(d).unwrap();
                }
                r
            }
        }
        impl Drop for Roots {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.base);
            }
        }
    }

    #[test]
    fn kernel_names_and_versions_resolve_and_bad_ones_say_why() {
        let r = kernel_roots();
        let res = |k: &str| resolve_kernel(k, &r.names, &r.modules, &r.boot, false);
        assert_eq!(res("rt").unwrap(), "ok");
        assert_eq!(res("ok").unwrap(), "ok");
        let e = |k: &str| format!("{:#}", res(k).unwrap_err());
        assert!(
            e("next").contains("make deps KERNELS=next"),
            "{}",
            e("next")
        );
        assert!(e("cloud").contains("image is gone"), "{}", e("cloud"));
        assert!(e("nosx").contains("without sched_ext"), "{}", e("nosx"));
        let unknown = e("7.9");
        assert!(
            unknown.contains("no such kernel") && unknown.contains("installed: no9p, nosx, ok"),
            "{unknown}"
        );
        assert!(e("no9p").contains("no 9p"), "{}", e("no9p"));
        let with_virtiofsd = resolve_kernel("no9p", &r.names, &r.modules, &r.boot, true);
        assert_eq!(with_virtiofsd.unwrap(), "no9p");
        assert!(e("../ok").contains("give a name"), "{}", e("../ok"));
        for k in ["rt", "next", "cloud", "nosx", "no9p", "7.9", "../ok"] {
            if let Err(err) = res(k) {
                assert!(!format!("{err:#}").contains('\n'), "one line: {err:#}");
            }
        }
    }

    #[test]
    fn a_writable_directory_is_shared_at_its_own_absolute_path() {
        // vng checks the short form's guest path relative to its working
        // directory and refuses it outside an overlay
        assert_eq!(
            rwdir_args(&[PathBuf::from("/work/t/traces")]),
            ["--rwdir=/work/t/traces=/work/t/traces"]
        );
        assert!(rwdir_args(&[]).is_empty());
    }

    #[test]
    fn forwarded_variables_are_exported_quoted() {
        let get = |k: &str| (k == "ARBOR_BIN").then(|| "/a b/scx_arbor".to_string());
        assert_eq!(
            with_forwarded_env("tests/vm/suite.sh", get),
            "export ARBOR_BIN='/a b/scx_arbor'; tests/vm/suite.sh"
        );
        assert_eq!(with_forwarded_env("true", |_| None), "true");
    }

    #[test]
    fn presets_parse_and_validate() {
        for (name, _, _) in PRESETS {
            let t = VmTopology::parse(name).unwrap();
            t.validate().unwrap();
        }
        let t = VmTopology::parse("2s2c2t").unwrap();
        assert_eq!((t.nr_cpus(), t.nr_llcs(), t.nodes), (8, 2, 2));
        let t = VmTopology::parse("1s2d2c2t").unwrap();
        assert_eq!((t.nr_cpus(), t.nr_llcs(), t.nodes), (8, 2, 1));
    }

    #[test]
    fn explicit_form() {
        let t = VmTopology::parse("sockets=2,cores=3,threads=1,nodes=2,mem=3G").unwrap();
        assert_eq!((t.nr_cpus(), t.mem_mb), (6, 3072));
        let args = t.vng_args().join(" ");
        assert!(
            args.contains("-smp 6,sockets=2,dies=1,cores=3,threads=1"),
            "{args}"
        );
        assert!(
            args.contains("--numa 1536M,cpus=0-2 --numa 1536M,cpus=3-5"),
            "{args}"
        );
    }

    #[test]
    fn impossible_topologies_are_rejected_with_a_reason() {
        let cases = [
            ("nosuch", "unknown topology"),
            ("sockets=0,cores=2", "sockets must be at least 1"),
            ("sockets=1073741825,cores=4", "4294967300 CPUs"),
            ("sockets=65536,cores=65536,threads=2", "more than the"),
            ("mem=0", "mem=0 is no memory"),
            ("mem=4194304G", "more memory than can be given"),
            ("sockets=1,cores=2,nodes=2", "NUMA nodes"),
            ("sockets=3,cores=2,nodes=2", "NUMA nodes"),
            ("sockets=2,cores=33,threads=2", "TCG"),
            ("cores=2,threads=16", "threads=16"),
            ("cores=2,mem=100M", "256M"),
            ("cores=2,mem=lots", "not a size"),
            ("cores=two", "not a whole number"),
            ("cores=2,llcs=2", "unknown key"),
        ];
        for (spec, want) in cases {
            let e = VmTopology::parse(spec).unwrap_err().to_string();
            assert!(e.contains(want), "{spec}: {e}");
            assert!(!e.contains('\n'), "{spec}: multi-line error");
        }
    }

    /// A 48-core, 2-thread socket (one 96-CPU LLC) boots; 128 is the cap.
    #[test]
    fn a_96_cpu_llc_and_128_vcpus_are_accepted() {
        let t = VmTopology::parse("sockets=1,cores=48,threads=2").unwrap();
        assert_eq!((t.nr_cpus(), t.nr_llcs()), (96, 1));
        assert!(VmTopology::parse("sockets=2,cores=32,threads=2").is_ok());
    }
}
