//! The git commit arbor is built from, for results.json's `meta.commit`:
//! `git rev-parse HEAD`, "-dirty" when tracked files differ from it,
//! "unknown" without git or outside a checkout.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = match git(&["rev-parse", "HEAD"]) {
        Some(head) if !head.is_empty() => {
            // tracked files only: an untracked results folder is not a change
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            format!("{head}{}", if dirty { "-dirty" } else { "" })
        }
        _ => "unknown".to_string(),
    };
    println!("cargo:rustc-env=ARBOR_COMMIT={commit}");
    // Run again when HEAD moves (a commit, a checkout) or the sources that
    // go into the binary change (dirty or clean again); not on every
    // index refresh, which `git status` alone does.
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    for src in [
        "src",
        "build.rs",
        "Cargo.toml",
        "../sim/src",
        "../scheduler/src",
    ] {
        println!("cargo:rerun-if-changed={}", manifest.join(src).display());
    }
    // only files that exist: cargo takes a missing one as changed, and
    // would build arbor again every time
    let watch = |f: PathBuf| {
        if f.is_file() {
            println!("cargo:rerun-if-changed={}", f.display());
        }
    };
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        let dir = Path::new(&dir);
        watch(dir.join("HEAD"));
        // a worktree's branches live in the common directory
        let common = git(&["rev-parse", "--git-common-dir"])
            .map(PathBuf::from)
            .map(|c| if c.is_absolute() { c } else { manifest.join(c) })
            .unwrap_or_else(|| dir.to_path_buf());
        watch(common.join("packed-refs"));
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watch(common.join(r));
        }
    }
}
