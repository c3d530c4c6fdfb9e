#![no_main]
//! A results.json or summary.json as `arbor sim verdict` and `arbor bench
//! render` read it back (arbor/src/report, compiled here from its source:
//! `arbor` is a binary crate): Ok or a one-line error.
#![allow(dead_code, unused_imports)]

use libfuzzer_sys::fuzz_target;

#[path = "../../arbor/src/ci.rs"]
mod ci;
#[path = "../../arbor/src/report/mod.rs"]
mod report;

/// What report/ takes from arbor's vm module.
mod vm {
    pub fn shell_quote(a: &str) -> String {
        format!("'{a}'")
    }
    pub fn repo_root() -> std::path::PathBuf {
        ".".into()
    }
}

/// The reading behind `read_summary`: results.json through its types, then
/// as a summary; summary.json through its own.
fn results(data: &[u8]) -> anyhow::Result<()> {
    let text = std::str::from_utf8(data)?;
    if let Ok(r) = serde_json::from_str::<report::Results>(text) {
        report::summary::Summary::of_results(&r)?;
    }
    let v: serde_json::Value = serde_json::from_str(text)?;
    report::summary::Summary::of_value(&v)?;
    if let Ok(s) = serde_json::from_str::<report::summary::Summary>(text) {
        s.json()?;
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    arbor_sim::untrusted::assert_contract("results", data, results(data));
});
