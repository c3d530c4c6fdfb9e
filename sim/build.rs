// Compiles each simulated scheduler (its BPF C, unmodified, plus the shim)
// into one shared object, which the simulator embeds and loads afresh for
// every run (so each run starts from the program's initial globals).
//
// scx_arbor's BPF C is ours (scheduler/src/bpf). The peers' BPF C is theirs:
// it is not in this tree. It is downloaded at build time from crates.io, at
// the versions scripts/install-peers.sh pins, checked against the registry's
// sha256, and unpacked into OUT_DIR; only src/bpf/ of the crate is used.
// ARBOR_PEERS_SRC=DIR takes the unpacked crates from DIR/<crate>-<version>
// instead (an offline build). A peer whose source cannot be had is not built:
// the build warns, and `-s <peer>` says why (the peers test then fails).
//
// It also records the scheduler sources the native build used (the
// compiler's dependency list), which a test compares with the BPF object's.
use std::path::{Path, PathBuf};
use std::process::Command;

/// A peer's pinned crate (versions: scripts/install-peers.sh; sha256: the
/// crates.io index's cksum).
struct PeerCrate {
    /// its name in `-s`
    name: &'static str,
    krate: &'static str,
    ver: &'static str,
    sha: &'static str,
    /// its struct_ops symbol
    ops: &'static str,
    /// the sources its build.rs links besides src/bpf/main.bpf.c (under
    /// src/bpf/); with any, the program also needs scx's library headers
    /// (scx_cargo's bpf_h/)
    more: &'static [&'static str],
}

const PEERS: &[PeerCrate] = &[
    PeerCrate {
        name: "bpfland",
        krate: "scx_bpfland",
        ver: "1.1.4",
        sha: "938e1fe1d9378c8ff9c44ec6376a5070bff15e1c8bf264707efc4a10afdd45a2",
        ops: "bpfland_ops",
        more: &[],
    },
    // scx_p2dq 1.1.4's build.rs: main.bpf.c and these of src/bpf/lib/
    PeerCrate {
        name: "p2dq",
        krate: "scx_p2dq",
        ver: "1.1.4",
        sha: "5ed311dc9a7911626de9e0a28b365f7c7719de2b458a4d1eea71d9f082366578",
        ops: "p2dq",
        more: &[
            "lib/arena.bpf.c",
            "lib/common.bpf.c",
            "lib/atq.bpf.c",
            "lib/dhq.bpf.c",
            "lib/bitmap.bpf.c",
            "lib/cpumask.bpf.c",
            "lib/minheap.bpf.c",
            "lib/rbtree.bpf.c",
            "lib/sdt_alloc.bpf.c",
            "lib/sdt_task.bpf.c",
            "lib/topology.bpf.c",
        ],
    },
    // scx_rusty 1.1.4's build.rs: main.bpf.c and its own copies of the
    // arena allocator (src/bpf/, not scx's lib/)
    PeerCrate {
        name: "rusty",
        krate: "scx_rusty",
        ver: "1.1.4",
        sha: "264f60ec58eab62d6f01e38c90c5f60429ebe247351995b94d97746723ab6121",
        ops: "rusty",
        more: &["sdt_task.bpf.c", "sdt_alloc.bpf.c"],
    },
    // scx_cosmos 1.1.7's build.rs: main.bpf.c and scx's lib/pmu.bpf.c
    // (perf-event counters, used only with --perf-config / --perf-sticky)
    PeerCrate {
        name: "cosmos",
        krate: "scx_cosmos",
        ver: "1.1.7",
        sha: "876ec23ff4116defac78b3bba9c4bde5d2a435451b4cbbbe1c6f5ecc23478a7b",
        ops: "cosmos_ops",
        more: &["lib/pmu.bpf.c"],
    },
    // scx_lavd 1.1.4's build.rs: main.bpf.c, its own sources and these of
    // scx's src/bpf/lib/
    PeerCrate {
        name: "lavd",
        krate: "scx_lavd",
        ver: "1.1.4",
        sha: "f16015ee20047840a665dfc271c17517155517734336dfb3759e0487a0e94823",
        ops: "lavd_ops",
        more: &[
            "balance.bpf.c",
            "idle.bpf.c",
            "introspec.bpf.c",
            "lat_cri.bpf.c",
            "lock.bpf.c",
            "power.bpf.c",
            "preempt.bpf.c",
            "sys_stat.bpf.c",
            "util.bpf.c",
            "lib/arena.bpf.c",
            "lib/common.bpf.c",
            "lib/atq.bpf.c",
            "lib/bitmap.bpf.c",
            "lib/cgroup_bw.bpf.c",
            "lib/cpumask.bpf.c",
            "lib/rbtree.bpf.c",
            "lib/minheap.bpf.c",
            "lib/sdt_alloc.bpf.c",
            "lib/sdt_task.bpf.c",
            "lib/topology.bpf.c",
            "lib/ravg.bpf.c",
        ],
    },
];

/// scx's BPF library headers (bpf_h/), shipped in scx_cargo (the version
/// the pinned peers build with; sha256: Cargo.lock's checksum).
const SCX_CARGO: (&str, &str, &str) = (
    "scx_cargo",
    "1.1.4",
    "ab605cfcecba0e27d96f07e16c1d319cb9ba7bd6fcf85520b4db153bda597f59",
);

/// The kernel's sched_ext selftests (tools/testing/selftests/sched_ext/ of
/// Debian's linux-source-7.2 7.2.13-1), fetched and checked by
/// scripts/install-ksrc.sh into $ARBOR_KSRC (default
/// /var/cache/scx-arbor/ksrc)/linux-source-7.2_7.2.13-1, whose stamp must
/// hold this sha256 of the .deb (the script pins the same).
const KSRC_DIR: &str = "linux-source-7.2_7.2.13-1";
const KSRC_SHA256: &str = "30a8c5fc63f9028a62e6d7b3f7f43bee67425dbce2a05fceba83f9b87c92083d";

/// The selftests built into the simulator: (test, its BPF source's stem,
/// its struct_ops); sim/src/sched/ksft.rs lists the same names.
pub const KSFT: &[(&str, &str, &str)] = &[
    ("minimal", "minimal", "minimal_ops"),
    ("maximal", "maximal", "maximal_ops"),
    ("select_cpu_dfl", "select_cpu_dfl", "select_cpu_dfl_ops"),
    (
        "select_cpu_dfl_nodispatch",
        "select_cpu_dfl_nodispatch",
        "select_cpu_dfl_nodispatch_ops",
    ),
    (
        "select_cpu_dispatch",
        "select_cpu_dispatch",
        "select_cpu_dispatch_ops",
    ),
    (
        "select_cpu_dispatch_bad_dsq",
        "select_cpu_dispatch_bad_dsq",
        "select_cpu_dispatch_bad_dsq_ops",
    ),
    (
        "select_cpu_dispatch_dbl_dsp",
        "select_cpu_dispatch_dbl_dsp",
        "select_cpu_dispatch_dbl_dsp_ops",
    ),
    (
        "select_cpu_vtime",
        "select_cpu_vtime",
        "select_cpu_vtime_ops",
    ),
    (
        "ddsp_bogus_dsq_fail",
        "ddsp_bogus_dsq_fail",
        "ddsp_bogus_dsq_fail_ops",
    ),
    (
        "ddsp_vtimelocal_fail",
        "ddsp_vtimelocal_fail",
        "ddsp_vtimelocal_fail_ops",
    ),
    ("enq_select_cpu", "enq_select_cpu", "enq_select_cpu_ops"),
    (
        "enq_last_no_enq_fails",
        "enq_last_no_enq_fails",
        "enq_last_no_enq_fails_ops",
    ),
    ("exit", "exit", "exit_ops"),
    ("create_dsq", "create_dsq", "create_dsq_ops"),
    ("peek_dsq", "peek_dsq", "peek_dsq_ops"),
    ("allowed_cpus", "allowed_cpus", "allowed_cpus_ops"),
    ("numa", "numa", "numa_ops"),
    ("dsp_local_on", "dsp_local_on", "dsp_local_on_ops"),
    ("prog_run", "prog_run", "prog_run_ops"),
    // hotplug.bpf.c holds two schedulers: with and without the callbacks
    ("hotplug_cb", "hotplug", "hotplug_cb_ops"),
    ("hotplug_nocb", "hotplug", "hotplug_nocb_ops"),
    ("dequeue", "dequeue", "dequeue_ops"),
];

/// The kernel's example schedulers (tools/sched_ext/ of the same tree):
/// (name, its struct_ops, whether that is a cid-form struct
/// sched_ext_ops_cid); sim/src/sched/ksft.rs lists the same names.
pub const KSCHED: &[(&str, &str, bool)] = &[
    ("scx_simple", "simple_ops", false),
    ("scx_qmap", "qmap_ops", true),
    ("scx_central", "central_ops", false),
];

/// 7.2's BPF-side cid / cmask helpers (tools/sched_ext/include/scx/
/// cid.bpf.h), which the kernel's <scx/common.bpf.h> includes: copied
/// alone, unmodified, out of the pinned tree into OUT_DIR, so that its own
/// `#include "bpf_arena_common.bpf.h"` finds the shim's stand-in rather
/// than the kernel's neighbouring one. The shim includes it last.
fn kernel_cid_bpf_h(ksrc: &Path, out: &Path) -> Result<PathBuf, String> {
    let src = ksrc.join("tools/sched_ext/include/scx/cid.bpf.h");
    let dir = out.join("kernel-scx");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let dst = dir.join("cid.bpf.h");
    std::fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
    Ok(dst)
}

/// The unpacked kernel tree (the part install-ksrc.sh keeps), or why not.
fn ksrc() -> Result<PathBuf, String> {
    let base = std::env::var("ARBOR_KSRC").unwrap_or_else(|_| "/var/cache/scx-arbor/ksrc".into());
    let dir = Path::new(&base).join(KSRC_DIR);
    let stamp = dir.join(".sha256");
    match std::fs::read_to_string(&stamp) {
        Ok(s) if s.trim() == KSRC_SHA256 => Ok(dir),
        Ok(s) => Err(format!(
            "{} says sha256 {}, expected {KSRC_SHA256}",
            stamp.display(),
            s.trim()
        )),
        Err(_) => Err(format!(
            "{} is missing: run scripts/install-ksrc.sh (make deps does)",
            dir.display()
        )),
    }
}

fn compiler() -> String {
    // clang-19 is what scripts/install-deps.sh installs for the BPF build;
    // the native build uses the same compiler when it is there.
    if Command::new("clang-19").arg("--version").output().is_ok() {
        "clang-19".to_string()
    } else {
        cc::Build::new().get_compiler().path().display().to_string()
    }
}

/// scripts/sim-call-profile's build (ARBOR_SIM_CALL_PROFILE=1): each
/// helper call counted under its call sites (shim.c), which needs frame
/// pointers, no inlining and no sibling calls; the object's own path is
/// compiled in for addr2line.
fn call_profile_flags(so: &Path) -> Vec<String> {
    if std::env::var_os("ARBOR_SIM_CALL_PROFILE").map_or(true, |v| v.is_empty() || v == "0") {
        return Vec::new();
    }
    vec![
        "-DSIM_CALL_PROFILE".into(),
        format!("-DSIM_CALL_PROFILE_SO=\"{}\"", so.display()),
        "-D_GNU_SOURCE".into(),
        "-fno-omit-frame-pointer".into(),
        "-fno-optimize-sibling-calls".into(),
    ]
}

/// Compiles `main` (the scheduler's translation unit) and `shim`/shim.c
/// into `so`.
fn build_so(
    cc: &str,
    shim: &Path,
    out: &Path,
    tag: &str,
    main: &Path,
    more: &[PathBuf],
    includes: &[&Path],
    defines: &[String],
    dep: Option<&Path>,
    so: &Path,
) -> Result<(), String> {
    // Each source is compiled on its own: with several sources and one
    // -MF, clang writes each one's list over the previous one's, and the
    // file would hold shim.c's headers instead of the scheduler's.
    let mut objs = Vec::new();
    let srcs = [(main.to_path_buf(), dep), (shim.join("shim.c"), None)]
        .into_iter()
        .chain(more.iter().map(|m| (m.clone(), None)));
    for (src, dep) in srcs {
        let obj = out.join(format!(
            "{tag}-{}",
            src.file_name()
                .unwrap()
                .to_string_lossy()
                .replace(".c", ".o")
        ));
        let mut cmd = Command::new(cc);
        cmd.args(["-O2", "-g", "-fPIC", "-Wall"])
            .args(call_profile_flags(so))
            .args([
                "-Werror=implicit-function-declaration",
                "-Werror=int-conversion",
            ])
            .args([
                "-Wno-unused-function",
                "-Wno-unused-variable",
                "-Wno-macro-redefined",
            ])
            .arg("-I")
            .arg(shim.join("include"));
        for i in includes {
            cmd.arg("-I").arg(i);
        }
        for d in defines {
            cmd.arg(format!("-D{d}"));
        }
        if src != main && !src.ends_with("shim.c") {
            // each of a program's sources may declare its license (scx_rusty's
            // do): the BPF linker merges the identical "license" sections,
            // the native linker would see the symbol twice
            let stem = src.file_stem().unwrap().to_string_lossy().replace('.', "_");
            cmd.arg(format!("-D_license=sim_license_{stem}"));
        }
        if let Some(d) = dep {
            cmd.arg("-MD").arg("-MF").arg(d);
        }
        let status = cmd
            .arg("-c")
            .arg(&src)
            .arg("-o")
            .arg(&obj)
            .status()
            .map_err(|e| format!("running {cc}: {e}"))?;
        if !status.success() {
            return Err(format!(
                "compiling {} natively against the sim shim failed",
                src.display()
            ));
        }
        objs.push(obj);
    }
    let status = Command::new(cc)
        .args(["-shared", "-Wl,-Bsymbolic"])
        .args(&objs)
        .arg("-o")
        .arg(so)
        .status()
        .map_err(|e| format!("running {cc}: {e}"))?;
    if !status.success() {
        return Err(format!("linking {} failed", so.display()));
    }
    Ok(())
}

/// The unpacked crate `krate-ver` (its root directory), downloading it if
/// it is not there yet.
fn peer_source(
    out: &Path,
    krate: &str,
    ver: &str,
    sha: &str,
    proof: &str,
) -> Result<PathBuf, String> {
    let name = format!("{krate}-{ver}");
    if let Ok(dir) = std::env::var("ARBOR_PEERS_SRC") {
        let d = Path::new(&dir).join(&name);
        return if d.join(proof).is_file() {
            Ok(d)
        } else {
            Err(format!("ARBOR_PEERS_SRC: {} has no {proof}", d.display()))
        };
    }
    let root = out.join("peers");
    let dir = root.join(&name);
    let stamp = root.join(format!("{name}.ok"));
    if stamp.is_file() && dir.join(proof).is_file() {
        return Ok(dir);
    }
    std::fs::create_dir_all(&root).map_err(|e| e.to_string())?;
    let file = root.join(format!("{name}.crate"));
    // the crates.io download endpoint redirects here
    let url = format!("https://static.crates.io/crates/{krate}/{name}.crate");
    let st = Command::new("curl")
        .args(["-sSfL", "--retry", "3", "-m", "120", "-o"])
        .arg(&file)
        .arg(&url)
        .status()
        .map_err(|e| format!("running curl: {e}"))?;
    if !st.success() {
        return Err(format!("downloading {url} failed"));
    }
    let sum = Command::new("sha256sum")
        .arg(&file)
        .output()
        .map_err(|e| format!("running sha256sum: {e}"))?;
    let got = String::from_utf8_lossy(&sum.stdout);
    let got = got.split_whitespace().next().unwrap_or("");
    if got != sha {
        return Err(format!("{url}: sha256 {got}, expected {sha}"));
    }
    let st = Command::new("tar")
        .arg("xzf")
        .arg(&file)
        .arg("-C")
        .arg(&root)
        .status()
        .map_err(|e| format!("running tar: {e}"))?;
    if !st.success() {
        return Err(format!("unpacking {} failed", file.display()));
    }
    std::fs::write(&stamp, sha).map_err(|e| e.to_string())?;
    Ok(dir)
}

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let shim = manifest.join("shim");
    let bpf = manifest.join("../scheduler/src/bpf");
    let cc = compiler();
    let so = out.join("libsched_arbor.so");
    let dep = out.join("sched_arbor.d");
    if let Err(e) = build_so(
        &cc,
        &shim,
        &out,
        "arbor",
        &shim.join("sched_arbor.c"),
        &[],
        &[&bpf],
        &[],
        Some(&dep),
        &so,
    ) {
        panic!("scheduler/src/bpf: {e}");
    }
    println!("cargo:rustc-env=SIM_SCHED_ARBOR_SO={}", so.display());
    println!("cargo:rustc-env=SIM_SCHED_ARBOR_DEPS={}", dep.display());

    // the shim's arena test program (sim/src/sched/arena.rs)
    let so = out.join("libsched_arenatest.so");
    if let Err(e) = build_so(
        &cc,
        &shim,
        &out,
        "arenatest",
        &shim.join("tests/arena_prog.c"),
        &[],
        &[],
        &[],
        None,
        &so,
    ) {
        panic!("sim/shim/tests/arena_prog.c: {e}");
    }
    println!("cargo:rustc-env=SIM_SCHED_ARENATEST_SO={}", so.display());

    // a test scheduler with only ops.cpu_release / cpu_acquire (core/tests/rt.rs)
    let so = out.join("libsched_preempttest.so");
    if let Err(e) = build_so(
        &cc,
        &shim,
        &out,
        "preempttest",
        &shim.join("tests/preempt_prog.c"),
        &[],
        &[],
        &[],
        None,
        &so,
    ) {
        panic!("sim/shim/tests/preempt_prog.c: {e}");
    }
    println!("cargo:rustc-env=SIM_SCHED_PREEMPTTEST_SO={}", so.display());

    // a test scheduler with only cgroup callbacks and ops.running, which
    // record what bpf_cgroup_from_id finds (sched/native.rs)
    let so = out.join("libsched_cgrouptest.so");
    if let Err(e) = build_so(
        &cc,
        &shim,
        &out,
        "cgrouptest",
        &shim.join("tests/cgroup_prog.c"),
        &[],
        &[],
        &[],
        None,
        &so,
    ) {
        panic!("sim/shim/tests/cgroup_prog.c: {e}");
    }
    println!("cargo:rustc-env=SIM_SCHED_CGROUPTEST_SO={}", so.display());

    for pc in PEERS {
        let (name, krate, ver) = (pc.name, pc.krate, pc.ver);
        let upper = name.to_uppercase();
        let so = out.join(format!("libsched_{name}.so"));
        let built = peer_source(&out, krate, ver, pc.sha, "src/bpf/main.bpf.c").and_then(|src| {
            let bpf_dir = src.join("src/bpf");
            let more: Vec<PathBuf> = pc.more.iter().map(|m| bpf_dir.join(m)).collect();
            let mut defines = vec![format!("SIM_PEER_OPS={}", pc.ops)];
            let mut incs = vec![bpf_dir.clone()];
            if !pc.more.is_empty() {
                // scx's library: its headers, compiled as for BPF
                // (__BPF__), whose address-space casts the shim's
                // <bpf_arena_common.bpf.h> makes no-ops
                let (k, v, sha) = SCX_CARGO;
                let lib = peer_source(&out, k, v, sha, "bpf_h/lib/sdt_task.h")?;
                incs.push(bpf_dir.join("lib"));
                incs.push(lib.join("bpf_h"));
                defines.push("__BPF__".into());
                defines.push("__BPF_FEATURE_ADDR_SPACE_CAST".into());
                defines.push(format!("SIM_PEER_FIELDS=\"fields_{name}.h\""));
            }
            let incs: Vec<&Path> = incs.iter().map(|p| p.as_path()).collect();
            build_so(
                &cc,
                &shim,
                &out,
                name,
                &shim.join("sched_peer.c"),
                &more,
                &incs,
                &defines,
                None,
                &so,
            )
        });
        match built {
            Ok(()) => {
                println!("cargo:rustc-env=SIM_SCHED_{upper}_SO={}", so.display());
                println!("cargo:rustc-env=SIM_SCHED_{upper}_ERR=");
            }
            Err(e) => {
                println!("cargo:warning={krate} {ver} not built: {e}");
                // an empty object: the simulator refuses the peer with `e`
                let empty = out.join(format!("libsched_{name}.empty"));
                std::fs::write(&empty, b"").unwrap();
                println!("cargo:rustc-env=SIM_SCHED_{upper}_SO={}", empty.display());
                println!("cargo:rustc-env=SIM_SCHED_{upper}_ERR={krate} {ver} was not built: {e}");
            }
        }
    }
    // the kernel's selftests, each its .bpf.c unmodified, as a peer is
    let ksrc = ksrc();
    if let Ok(d) = &ksrc {
        println!("cargo:rerun-if-changed={}", d.join(".sha256").display());
    }
    let progs = KSFT
        .iter()
        .map(|&(t, stem, ops)| (t, "tools/testing/selftests/sched_ext", stem, ops, false))
        .chain(
            KSCHED
                .iter()
                .map(|&(name, ops, cid)| (name, "tools/sched_ext", name, ops, cid)),
        );
    for (test, sub, stem, ops, cid) in progs {
        let upper = test.to_uppercase();
        let so = out.join(format!("libsched_ksft_{test}.so"));
        let built = ksrc.clone().and_then(|k| {
            let dir = k.join(sub);
            let main = dir.join(format!("{stem}.bpf.c"));
            let mut defines = vec![
                format!("SIM_KSFT_MAIN=\"{}\"", main.display()),
                format!("SIM_PEER_OPS={ops}"),
            ];
            if cid {
                // a cid-form scheduler: sched_ksft.c's adapter, the
                // kernel's cmask helpers, and its shared header's BPF
                // side (scx_qmap.h includes <scx/bpf_arena_common.bpf.h>
                // under __BPF__)
                let h = kernel_cid_bpf_h(&k, &out)?;
                defines.push("SIM_OPS_CID".into());
                defines.push(format!("SIM_KERNEL_CID_BPF_H=\"{}\"", h.display()));
                defines.push("__BPF__".into());
            }
            build_so(
                &cc,
                &shim,
                &out,
                &format!("ksft_{test}"),
                &shim.join("sched_ksft.c"),
                &[],
                &[&dir],
                &defines,
                None,
                &so,
            )
        });
        match built {
            Ok(()) => {
                println!("cargo:rustc-env=SIM_KSFT_{upper}_SO={}", so.display());
                println!("cargo:rustc-env=SIM_KSFT_{upper}_ERR=");
            }
            Err(e) => {
                println!("cargo:warning=kernel selftest {test} not built: {e}");
                let empty = out.join(format!("libsched_ksft_{test}.empty"));
                std::fs::write(&empty, b"").unwrap();
                println!("cargo:rustc-env=SIM_KSFT_{upper}_SO={}", empty.display());
                println!("cargo:rustc-env=SIM_KSFT_{upper}_ERR=the kernel's selftest {test} was not built: {e}");
            }
        }
    }
    println!("cargo:rerun-if-env-changed=ARBOR_KSRC");
    println!("cargo:rerun-if-env-changed=ARBOR_SIM_CALL_PROFILE");
    println!("cargo:rerun-if-env-changed=ARBOR_PEERS_SRC");
    for d in [
        &shim,
        &shim.join("include"),
        &shim.join("include/scx"),
        &shim.join("tests"),
        &bpf,
        &bpf.join("policy"),
    ] {
        rerun_dir(d);
    }
}

fn rerun_dir(d: &Path) {
    for e in std::fs::read_dir(d).unwrap().flatten() {
        if e.path().is_file() {
            println!("cargo:rerun-if-changed={}", e.path().display());
        }
    }
}
