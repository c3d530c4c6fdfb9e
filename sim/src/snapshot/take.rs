//! Taking a snapshot: the files of a sysfs tree that read.rs uses, copied
//! in sysfs's own layout, and a README naming the host.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use scx_arbor::topology::cpulist;

use super::{numbered_dirs, parse_cpus, read_small, CPU_DIR, MANIFEST, NODE_DIR};

/// What `take` copied.
#[derive(Debug)]
pub struct Taken {
    pub files: usize,
    pub cpus: usize,
    pub hostname: String,
}

/// Copies from the sysfs under `root` (normally `/sys`) into `out` the
/// files `read` uses, in the same layout, and writes `out/README`. `out`
/// must not exist or be empty. Optional files (cluster_id, cpu_capacity,
/// cpufreq, cpuidle, a cache's size and line size, NUMA nodes) are skipped
/// when absent; a missing required one is an error.
pub fn take(root: &Path, out: &Path) -> Result<Taken> {
    let created = !out.exists();
    let r = take_into(root, out);
    if r.is_err() && created {
        // leave nothing half-written behind
        let _ = std::fs::remove_dir_all(out);
    }
    r
}

fn take_into(root: &Path, out: &Path) -> Result<Taken> {
    if out.exists() {
        let empty = out.is_dir()
            && std::fs::read_dir(out)
                .with_context(|| format!("reading {}", out.display()))?
                .next()
                .is_none();
        if !empty {
            bail!(
                "{} exists and is not an empty directory: give a new one",
                out.display()
            );
        }
    }
    let mut c = Copier {
        from: root.to_path_buf(),
        to: out.to_path_buf(),
        files: 0,
    };
    let cpu = Path::new(CPU_DIR);
    let online_text = c.copy(&cpu.join("online"), true)?.unwrap_or_default();
    c.copy(&cpu.join("possible"), true)?;
    let online: BTreeSet<usize> = parse_cpus(&online_text)
        .map_err(|e| anyhow!("{}: {e}", root.join(CPU_DIR).join("online").display()))?;
    if online.is_empty() {
        bail!(
            "{}: no CPU is online",
            root.join(CPU_DIR).join("online").display()
        );
    }
    let cpus = numbered_dirs(&root.join(CPU_DIR), "cpu")?;
    for n in &cpus {
        // an offline CPU's topology may be gone: copy what there is
        let need = online.contains(n);
        let d = cpu.join(format!("cpu{n}"));
        c.copy_all(&d, &CPU_FILES, need)?;
        for k in numbered_dirs(&root.join(&d).join("cache"), "index")? {
            c.copy_all(&d.join(format!("cache/index{k}")), &CACHE_FILES, need)?;
        }
        for k in numbered_dirs(&root.join(&d).join("cpuidle"), "state")? {
            let s = d.join(format!("cpuidle/state{k}"));
            for f in ["name", "latency", "residency"] {
                c.copy(&s.join(f), need)?;
            }
        }
    }
    let node = Path::new(NODE_DIR);
    for n in numbered_dirs(&root.join(NODE_DIR), "node")? {
        let d = node.join(format!("node{n}"));
        c.copy(&d.join("cpulist"), true)?;
        c.copy(&d.join("distance"), true)?;
    }
    let host = Host::now();
    let readme = format!(
        "A snapshot of one machine's CPU topology for `arbor sim`, taken by `arbor sim \
         snapshot`:\nthe files of {root}/devices/system/cpu and {root}/devices/system/node that \
         describe the CPUs,\ntheir caches, capacities, idle states and NUMA distances, in \
         sysfs's own layout.\nModel this machine with: arbor sim --topology-from <this \
         directory>\n\nhostname: {}\nkernel: {}\narch: {}\ndate: {}\ncpus online: {}\nfiles: {}\n",
        host.hostname,
        host.kernel,
        host.arch,
        host.date,
        cpulist(&online.iter().copied().collect::<Vec<_>>()),
        c.files,
        root = root.display(),
    );
    std::fs::write(out.join(MANIFEST), readme)
        .with_context(|| format!("writing {}", out.join(MANIFEST).display()))?;
    Ok(Taken {
        files: c.files,
        cpus: online.len(),
        hostname: host.hostname,
    })
}

/// The files of a CPU (below cpuN/) that read.rs uses, each with whether
/// an online CPU must have it.
const CPU_FILES: [(&str, bool); 8] = [
    ("topology/core_id", true),
    ("topology/physical_package_id", true),
    ("topology/thread_siblings_list", true),
    ("topology/core_cpus_list", false),
    ("topology/die_id", false),
    ("topology/cluster_id", false),
    ("cpu_capacity", false),
    ("cpufreq/cpuinfo_max_freq", false),
];

/// The same for a cache (below cpuN/cache/indexK/): sysfs hides size and
/// line size when the firmware gives none.
const CACHE_FILES: [(&str, bool); 5] = [
    ("level", true),
    ("type", true),
    ("shared_cpu_list", true),
    ("size", false),
    ("coherency_line_size", false),
];

struct Copier {
    from: PathBuf,
    to: PathBuf,
    files: usize,
}

impl Copier {
    /// Copies `files` below `dir`; those marked required must be there
    /// when `online` (an offline CPU's topology may be gone: what there is).
    fn copy_all(&mut self, dir: &Path, files: &[(&str, bool)], online: bool) -> Result<()> {
        for &(f, required) in files {
            self.copy(&dir.join(f), required && online)?;
        }
        Ok(())
    }

    /// Copies `rel`; `None` if it is absent and not `required`.
    fn copy(&mut self, rel: &Path, required: bool) -> Result<Option<String>> {
        let src = self.from.join(rel);
        let text = match read_small(&src) {
            Ok(Some(t)) => t,
            Ok(None) if !required => return Ok(None),
            Ok(None) => bail!("{}: missing (a required file)", src.display()),
            Err(e) => bail!("reading {}: {e}", src.display()),
        };
        let dst = self.to.join(rel);
        if let Some(p) = dst.parent() {
            std::fs::create_dir_all(p).with_context(|| format!("creating {}", p.display()))?;
        }
        std::fs::write(&dst, &text).with_context(|| format!("writing {}", dst.display()))?;
        self.files += 1;
        Ok(Some(text))
    }
}

/// The host, as the README records it.
struct Host {
    hostname: String,
    kernel: String,
    arch: String,
    date: String,
}

impl Host {
    fn now() -> Host {
        // SAFETY: uname fills the struct it is given; zeroed is a valid start
        let mut u: libc::utsname = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::uname(&mut u) } == 0;
        let field = |f: &[libc::c_char]| -> String {
            let bytes: Vec<u8> = f
                .iter()
                .take_while(|&&c| c != 0)
                .map(|&c| c as u8)
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        };
        let (hostname, kernel, arch) = if ok {
            (
                field(&u.nodename),
                format!(
                    "{} {} {}",
                    field(&u.sysname),
                    field(&u.release),
                    field(&u.version)
                ),
                field(&u.machine),
            )
        } else {
            (
                "unknown".into(),
                "unknown".into(),
                std::env::consts::ARCH.into(),
            )
        };
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Host {
            hostname,
            kernel,
            arch,
            date: utc(secs),
        }
    }
}

/// `secs` since the epoch as an ISO 8601 UTC date, e.g. 2025-01-31T12:00:00Z.
fn utc(secs: u64) -> String {
    let (days, rem) = (secs / 86400, secs % 86400);
    // the civil date of a day count, with years that start on 1 March so
    // that the leap day is the last day of the year
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::super::read;
    use super::super::testing::{put, two_node, Tmp};
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn take_copies_what_read_needs_in_the_same_layout() {
        let (src, out) = (Tmp::new("src"), Tmp::new("out"));
        two_node(&src.0);
        put(
            &src.0,
            &format!("{CPU_DIR}/cpu0/topology/cluster_cpus"),
            "ff",
        );
        let out = out.0.join("snap");
        let taken = take(&src.0, &out).unwrap();
        assert_eq!(taken.cpus, 8);
        // per CPU: 5 topology + 4 caches x 5 + 3 states x 3; online,
        // possible; 2 nodes x 2
        assert_eq!(taken.files, 8 * (5 + 20 + 9) + 2 + 4);
        assert!(out
            .join(CPU_DIR)
            .join("cpu7/cache/index3/shared_cpu_list")
            .is_file());
        assert!(out.join(NODE_DIR).join("node1/distance").is_file());
        assert!(!out
            .join(CPU_DIR)
            .join("cpu0/topology/cluster_cpus")
            .exists());
        assert!(!out
            .join(CPU_DIR)
            .join("cpu0/topology/cluster_cpus_list")
            .exists());
        let readme = std::fs::read_to_string(out.join(MANIFEST)).unwrap();
        for k in [
            "hostname: ",
            "kernel: ",
            "arch: ",
            "date: ",
            "cpus online: 0-7",
        ] {
            assert!(readme.contains(k), "{k} in {readme}");
        }
        let a = read(&src.0).unwrap().machine;
        let b = read(&out).unwrap();
        assert_eq!(a.cpus, b.machine.cpus);
        assert_eq!(a.node_distance, b.machine.node_distance);
        assert_eq!(a.idle_states, b.machine.idle_states);
        assert_eq!(b.machine.name, taken.hostname);

        // not over a non-empty directory
        let e = take(&src.0, &out).unwrap_err().to_string();
        assert!(e.contains("not an empty directory"), "{e}");
        // a missing required file is an error; a missing optional one is not
        let out2 = Tmp::new("out2");
        std::fs::remove_file(src.0.join(CPU_DIR).join("cpu0/topology/core_cpus_list")).unwrap();
        take(&src.0, &out2.0.join("a")).unwrap();
        std::fs::remove_file(src.0.join(CPU_DIR).join("cpu2/topology/core_id")).unwrap();
        let e = format!("{:#}", take(&src.0, &out2.0.join("b")).unwrap_err());
        assert!(e.contains("cpu2/topology/core_id: missing"), "{e}");
        assert!(
            !out2.0.join("b").exists(),
            "a failed snapshot leaves nothing"
        );
    }

    #[test]
    fn dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_735_689_599), "2024-12-31T23:59:59Z");
    }

    /// The live machine: snapshot /sys, read it back, and compare with what
    /// scx_arbor itself sees through scx_utils.
    #[test]
    fn live_round_trip_agrees_with_scx_arbor() {
        let sys = Path::new("/sys");
        if !sys.join(CPU_DIR).join("online").is_file()
            || !sys.join(CPU_DIR).join("cpu0/topology").is_dir()
            || !sys.join(CPU_DIR).join("cpu0/cache").is_dir()
        {
            scx_arbor::testing::skip("this system's /sys has no CPU topology or caches");
            return;
        }
        let out = Tmp::new("live");
        let snap = out.0.join("snap");
        take(sys, &snap).unwrap();
        let m = read(&snap).unwrap().machine;
        let direct = read(sys).unwrap().machine;
        assert_eq!(m.cpus, direct.cpus, "the snapshot and /sys read alike");
        assert_eq!(m.node_distance, direct.node_distance);
        let topo = scx_arbor::topology::Topo::from_system().unwrap();
        let theirs: Vec<_> = topo.all().cloned().collect();
        assert_eq!(m.nr_cpus(), theirs.len(), "CPU count");
        // the same partitions into cores, LLCs and nodes, CPUs in id order
        let parts = |key: &dyn Fn(usize) -> usize| {
            let mut p: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
            for i in 0..theirs.len() {
                p.entry(key(i)).or_default().push(i);
            }
            p.into_values().collect::<BTreeSet<_>>()
        };
        assert_eq!(
            parts(&|i| m.cpus[i].core),
            parts(&|i| theirs[i].core),
            "cores"
        );
        assert_eq!(parts(&|i| m.cpus[i].llc), parts(&|i| theirs[i].llc), "LLCs");
        assert_eq!(
            parts(&|i| m.cpus[i].node),
            parts(&|i| theirs[i].node),
            "nodes"
        );
        let t2 = m.topo().unwrap();
        assert_eq!(
            (t2.nr_cores, t2.nr_llcs, t2.nr_nodes, t2.smt_width),
            (topo.nr_cores, topo.nr_llcs, topo.nr_nodes, topo.smt_width)
        );
        if sys.join(CPU_DIR).join("cpu0/cpu_capacity").is_file() {
            let caps: Vec<u32> = theirs.iter().map(|c| c.capacity).collect();
            assert_eq!(m.cpus.iter().map(|c| c.capacity).collect::<Vec<_>>(), caps);
        }
        println!(
            "live: {} CPUs, {} cores, {} LLCs, {} nodes, SMT{} - as scx_arbor sees them",
            m.nr_cpus(),
            t2.nr_cores,
            t2.nr_llcs,
            t2.nr_nodes,
            t2.smt_width
        );
    }
}
