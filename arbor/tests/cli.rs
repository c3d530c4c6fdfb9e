//! `arbor` as a user meets it: bad topologies and missing commands are
//! rejected with one line before anything boots.

use std::process::Command;

mod common;

fn arbor(args: &[&str]) -> (i32, String) {
    let (rc, _, err) = common::output(Command::new(env!("CARGO_BIN_EXE_arbor")).args(args));
    (rc, err)
}

#[test]
fn impossible_topology_is_rejected_before_booting() {
    let (rc, err) = arbor(&[
        "vm",
        "--topology",
        "sockets=1,cores=2,nodes=2",
        "--",
        "true",
    ]);
    assert_eq!(rc, 2);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("NUMA nodes"), "{err}");
}

#[test]
fn unknown_preset_names_the_presets() {
    let (rc, err) = arbor(&["vm", "-t", "3s9c", "--", "true"]);
    assert_eq!(rc, 2);
    assert!(err.contains("2s2c2t") && err.contains("1s2c2t"), "{err}");
}

#[test]
fn missing_command_is_an_error() {
    let (rc, err) = arbor(&["vm", "-t", "1s2c2t"]);
    assert_eq!(rc, 2);
    assert!(err.contains("no command"), "{err}");
}
