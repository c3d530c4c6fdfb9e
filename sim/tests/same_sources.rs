//! The simulator runs the scheduler's own code: its native build
//! (sim/build.rs) must read exactly the scheduler sources the BPF object
//! (scheduler/build.rs, scx_cargo) is compiled from. Both compiles write
//! the compiler's own list of the files they read (clang `-MD`); this test
//! compares the two lists' files under scheduler/src/bpf/.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The target and prerequisites of the first rule of a make-style
/// dependency file as clang's `-MD` writes it: backslash-newline continues
/// a line, a backslash escapes a space (or `#`), `$$` is `$`.
fn rule(text: &str) -> (String, Vec<String>) {
    let mut toks = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek().copied() {
                Some('\n') => {
                    chars.next();
                    if !cur.is_empty() {
                        toks.push(std::mem::take(&mut cur));
                    }
                }
                Some(e @ (' ' | '#')) => {
                    chars.next();
                    cur.push(e);
                }
                _ => cur.push('\\'),
            },
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                cur.push('$');
            }
            c if c.is_whitespace() => {
                if !cur.is_empty() {
                    toks.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        toks.push(cur);
    }
    let mut it = toks.into_iter();
    let mut target = String::new();
    for t in it.by_ref() {
        if let Some(t) = t.strip_suffix(':') {
            target.push_str(t);
            break;
        }
        target.push_str(&t);
        target.push(' ');
    }
    // one rule only (no -MP phony targets), but stop at a next one anyway
    let deps = it.take_while(|t| !t.ends_with(':')).collect();
    (target, deps)
}

fn read_rule(path: &str, what: &str) -> (String, Vec<String>) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{what}: reading its dependency file {path}: {e}"));
    rule(&text)
}

/// `deps`, relative ones taken from `base` (the compiler's working
/// directory), that lie under `dir`, as paths relative to it.
fn under(dir: &Path, base: &Path, deps: &[String]) -> BTreeSet<String> {
    deps.iter()
        .filter_map(|d| {
            let p = base.join(d);
            // files of the BPF build's temporary directories are gone;
            // they are not under `dir` either
            let p = p.canonicalize().unwrap_or(p);
            p.strip_prefix(dir).ok().map(|r| r.display().to_string())
        })
        .collect()
}

fn canonical(p: PathBuf) -> PathBuf {
    p.canonicalize()
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn dependency_files_are_read_as_make_reads_them() {
    let (t, d) = rule("out/a.o: x.c dir/with\\ space.h \\\n  /abs/y$$.h \\#z.h\n\n");
    assert_eq!(t, "out/a.o");
    assert_eq!(d, ["x.c", "dir/with space.h", "/abs/y$.h", "#z.h"]);
    let (t, d) = rule("a.o: b.c\nb.h:\n");
    assert_eq!(
        (t.as_str(), d.as_slice()),
        ("a.o", &["b.c".to_string()][..])
    );
    let dir = Path::new("/s/src/bpf");
    let got = under(
        dir,
        Path::new("/s"),
        &[
            "src/bpf/a.h".into(),
            "/tmp/x/src/bpf/b.h".into(),
            "/s/src/bpf/c.h".into(),
        ],
    );
    assert_eq!(got, BTreeSet::from(["a.h".to_string(), "c.h".to_string()]));
}

#[test]
fn native_build_reads_the_bpf_objects_sources() {
    let sim = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sched = canonical(sim.join("../scheduler"));
    let bpf_dir = canonical(sched.join("src/bpf"));

    let (_, native) = read_rule(env!("SIM_SCHED_ARBOR_DEPS"), "the native build");
    let (_, bpf) = read_rule(scx_arbor::BPF_DEPS_FILE, "the BPF build");
    // each list is the compile of the file it should be (scx_cargo also
    // hands its flags to bindgen for intf.h: that list must not be the one
    // left in the file)
    let first = |deps: &[String], base: &Path| {
        deps.first()
            .map(|d| base.join(d).canonicalize().unwrap_or(base.join(d)))
    };
    assert_eq!(
        first(&native, sim),
        Some(canonical(sim.join("shim/sched_arbor.c"))),
        "the native dependency list is not sched_arbor.c's: {native:?}"
    );
    assert_eq!(
        first(&bpf, &sched),
        Some(bpf_dir.join("main.bpf.c")),
        "the BPF dependency list is not main.bpf.c's: {bpf:?}"
    );

    let native = under(&bpf_dir, sim, &native);
    let bpf = under(&bpf_dir, &sched, &bpf);
    for (what, set) in [("native", &native), ("BPF", &bpf)] {
        for f in ["main.bpf.c", "policy.h"] {
            assert!(
                set.contains(f),
                "the {what} build did not read scheduler/src/bpf/{f}: {set:?}"
            );
        }
    }
    let only_native: Vec<_> = native.difference(&bpf).collect();
    let only_bpf: Vec<_> = bpf.difference(&native).collect();
    assert!(
        only_native.is_empty() && only_bpf.is_empty(),
        "the native build and the BPF object read different scheduler sources \
         (under scheduler/src/bpf/): only the native build: {only_native:?}; \
         only the BPF object: {only_bpf:?}"
    );
}
