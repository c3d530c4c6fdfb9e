//! Every committed fuzz corpus and crash reproducer (fuzz/corpus/TARGET,
//! fuzz/crashes/TARGET) through the same contract the fuzz targets assert
//! (arbor_sim::untrusted): a result or a one-line error, never a panic.
//! No fuzzing toolchain needed; the results target is replayed by
//! arbor/tests/untrusted.rs.

use std::path::{Path, PathBuf};

use arbor_sim::untrusted;

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut v = Vec::new();
    for sub in ["corpus", "crashes"] {
        if let Ok(rd) = std::fs::read_dir(root.join(sub).join(target)) {
            v.extend(rd.map(|e| e.unwrap().path()).filter(|p| p.is_file()));
        }
    }
    v.sort();
    assert!(!v.is_empty(), "no corpus for {target}");
    v
}

fn replay(target: &str, f: fn(&[u8]) -> anyhow::Result<()>) {
    for p in inputs(target) {
        let data = std::fs::read(&p).unwrap();
        untrusted::assert_contract(&p.display().to_string(), &data, f(&data));
    }
}

#[test]
fn perf_data() {
    replay("perf_data", untrusted::perf_data);
}

#[test]
fn kallsyms() {
    replay("kallsyms", untrusted::kallsyms);
}

#[test]
fn rtapp() {
    replay("rtapp", untrusted::rtapp);
}

#[test]
fn snapshot() {
    replay("snapshot", untrusted::snapshot);
}

#[test]
fn spec() {
    replay("spec", untrusted::spec);
}

/// The snapshot target's image format holds a real snapshot (its seed is
/// the committed host snapshot's image).
#[test]
fn a_snapshot_image_reads_back() {
    let host = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/trace/host");
    let img = untrusted::image_of(&host).unwrap();
    assert!(untrusted::image_entries(&img).len() > 20);
    untrusted::snapshot(&img).unwrap();
}
