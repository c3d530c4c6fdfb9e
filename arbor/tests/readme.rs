//! Every `arbor …` command in the shell blocks of README.md, the guide and
//! docs/seeds.md is accepted by arbor's own parser, so that a renamed
//! subcommand or flag fails here and not in a reader's terminal. (The
//! `scx_arbor …` commands, also those run in `arbor vm`'s guest, are
//! checked by scheduler/tests/readme.rs.)

use std::path::Path;

use scx_arbor::doc_commands::{doc_commands, help_error, inline_commands, read_doc_pages};

/// Each `arbor` command of `md` that arbor's parser refuses, as
/// `FILE:LINE: COMMAND: WHY` (scx_arbor::doc_commands::command_errors).
fn command_errors(file: &str, md: &str) -> Vec<String> {
    let bin = Path::new(env!("CARGO_BIN_EXE_arbor"));
    scx_arbor::doc_commands::command_errors(file, md, "arbor", |c| help_error(bin, c))
}

fn docs() -> Vec<(String, String)> {
    read_doc_pages(&Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
}

#[test]
fn documented_arbor_commands_parse() {
    let docs = docs();
    let readme = doc_commands(&docs[0].1);
    let n = readme.iter().filter(|c| c.program == "arbor").count();
    assert!(
        n >= 5,
        "only {n} arbor commands found in README.md's code blocks"
    );
    let n = inline_commands(&docs[0].1, &["arbor"]).len();
    assert!(
        n >= 5,
        "only {n} inline arbor commands in README.md (the seeds table has 5)"
    );
    let errs: Vec<String> = docs
        .iter()
        .flat_map(|(f, md)| command_errors(f, md))
        .collect();
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

/// The check fails on an unknown subcommand, an unknown flag, a flag
/// without its value or with a bad one.
#[test]
fn a_bad_documented_command_is_caught() {
    scx_arbor::doc_commands::assert_bad_commands_caught(
        "arbor",
        "./target/release/arbor sim reproduce steal --quick \\\n    -r 5",
        &[
            ("arbor simulate -t power11", "simulate"),
            (
                "./target/release/arbor sim -t power11 --no-such-flag",
                "--no-such-flag",
            ),
            ("arbor sim -t power11 -r", "-r"),
            ("arbor sim -t power11 -r many", "many"),
            (
                "arbor vm --topology 1s2c2t --bogus -- ./target/release/scx_arbor -v",
                "--bogus",
            ),
        ],
        command_errors,
    );
}
