//! Every `arbor …` command in the shell blocks of README.md, the guide and
//! docs/seeds.md is accepted by arbor's own parser, so that a renamed
//! subcommand or flag fails here and not in a reader's terminal. (The
//! `scx_arbor …` commands, also those run in `arbor vm`'s guest, are
//! checked by scheduler/tests/readme.rs.)

use std::process::Command;

use scx_arbor::doc_commands::{doc_commands, inline_commands, DocCommand};

/// Every page whose shell blocks a reader copies commands from.
const DOCS: &[(&str, &str)] = &[
    ("README.md", include_str!("../../README.md")),
    ("docs/seeds.md", include_str!("../../docs/seeds.md")),
    (
        "docs/guide/scheduler.md",
        include_str!("../../docs/guide/scheduler.md"),
    ),
    ("docs/guide/vm.md", include_str!("../../docs/guide/vm.md")),
    (
        "docs/guide/bench.md",
        include_str!("../../docs/guide/bench.md"),
    ),
    ("docs/guide/sim.md", include_str!("../../docs/guide/sim.md")),
    (
        "docs/guide/checking.md",
        include_str!("../../docs/guide/checking.md"),
    ),
    (
        "docs/guide/testing.md",
        include_str!("../../docs/guide/testing.md"),
    ),
];

/// Why arbor would refuse `c`, if it would. The parser runs with `--help`
/// inserted after the arguments (before a `--` and the guest's command):
/// clap checks every argument before it, subcommands included, and then
/// prints the help instead of running anything.
fn arbor_error(c: &DocCommand) -> Option<String> {
    let mut args = c.args.clone();
    let at = args.iter().position(|a| a == "--").unwrap_or(args.len());
    args.insert(at, "--help".into());
    let out = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(&args)
        .output()
        .expect("run arbor");
    if out.status.success() {
        return None;
    }
    let err = String::from_utf8_lossy(&out.stderr);
    Some(err.lines().next().unwrap_or("(no message)").to_string())
}

/// Each `arbor` command of `md` (its shell blocks, and in README.md the inline code that
/// starts with `arbor`, as in README.md's seeds table) that arbor would
/// refuse, as `FILE:LINE: COMMAND: WHY`.
fn command_errors(file: &str, md: &str) -> Vec<String> {
    // inline code only in README.md: the guide quotes synopses and messages
    let inline = if file == "README.md" {
        inline_commands(md, &["arbor"])
    } else {
        Vec::new()
    };
    doc_commands(md)
        .into_iter()
        .chain(inline)
        .collect::<Vec<_>>()
        .iter()
        .filter(|c| c.program == "arbor")
        .filter_map(|c| {
            arbor_error(c).map(|e| format!("{file}:{}: `{}`: {e}", c.line, c.display()))
        })
        .collect()
}

#[test]
fn documented_arbor_commands_parse() {
    let readme = doc_commands(DOCS[0].1);
    let n = readme.iter().filter(|c| c.program == "arbor").count();
    assert!(
        n >= 5,
        "only {n} arbor commands found in README.md's code blocks"
    );
    let n = inline_commands(DOCS[0].1, &["arbor"]).len();
    assert!(
        n >= 5,
        "only {n} inline arbor commands in README.md (the seeds table has 5)"
    );
    let errs: Vec<String> = DOCS
        .iter()
        .flat_map(|(f, md)| command_errors(f, md))
        .collect();
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

/// The check fails on an unknown subcommand, an unknown flag, a flag
/// without its value or with a bad one.
#[test]
fn a_bad_documented_command_is_caught() {
    let good = "```sh\n./target/release/arbor sim reproduce steal --quick \\\n    -r 5\n```\n";
    assert_eq!(command_errors("t.md", good), Vec::<String>::new());
    for (bad, why) in [
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
    ] {
        let md = format!("```sh\n{bad}\n```\n");
        let errs = command_errors("t.md", &md);
        assert_eq!(errs.len(), 1, "{bad}: {errs:?}");
        assert!(errs[0].starts_with("t.md:2: `arbor"), "{}", errs[0]);
        assert!(errs[0].contains(why), "{bad}: {}", errs[0]);
    }
}
