// Compiles each simulated scheduler (its BPF C, unmodified, plus the shim)
// into one shared object, which the simulator embeds and loads afresh for
// every run (so each run starts from the program's initial globals).
//
// It also records the scheduler sources the native build used (the
// compiler's dependency list), which a test compares with the BPF object's.
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let shim = manifest.join("shim");
    let bpf = manifest.join("../scheduler/src/bpf");
    // clang-19 is what scripts/install-deps.sh installs for the BPF build;
    // the native build uses the same compiler when it is there.
    let cc = if Command::new("clang-19").arg("--version").output().is_ok() {
        "clang-19".to_string()
    } else {
        cc::Build::new().get_compiler().path().display().to_string()
    };
    let so = out.join("libsched_arbor.so");
    let dep = out.join("sched_arbor.d");
    // Each source is compiled on its own: with several sources and one
    // -MF, clang writes each one's list over the previous one's, and the
    // file would hold shim.c's headers instead of the scheduler's.
    let mut objs = Vec::new();
    for (src, dep) in [("sched_arbor.c", Some(&dep)), ("shim.c", None)] {
        let obj = out.join(src.replace(".c", ".o"));
        let mut cmd = Command::new(&cc);
        cmd.args(["-O2", "-g", "-fPIC", "-Wall"])
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
            .arg(shim.join("include"))
            .arg("-I")
            .arg(&bpf);
        if let Some(d) = dep {
            cmd.arg("-MD").arg("-MF").arg(d);
        }
        let status = cmd
            .arg("-c")
            .arg(shim.join(src))
            .arg("-o")
            .arg(&obj)
            .status()
            .unwrap_or_else(|e| panic!("running {cc}: {e}"));
        if !status.success() {
            panic!("compiling scheduler/src/bpf natively against the sim shim failed ({src})");
        }
        objs.push(obj);
    }
    let status = Command::new(&cc)
        .args(["-shared", "-Wl,-Bsymbolic"])
        .args(&objs)
        .arg("-o")
        .arg(&so)
        .status()
        .unwrap_or_else(|e| panic!("running {cc}: {e}"));
    if !status.success() {
        panic!("linking the native scheduler object failed");
    }
    println!("cargo:rustc-env=SIM_SCHED_ARBOR_SO={}", so.display());
    println!("cargo:rustc-env=SIM_SCHED_ARBOR_DEPS={}", dep.display());
    for d in [&shim, &shim.join("include/scx"), &bpf] {
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
