//! Where a run happened and what it ran: results.json's `meta` block, with
//! the command line that reproduces the run and the commit of the build
//! that ran it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The git commit this binary was built from (build.rs: `git rev-parse
/// HEAD`, with "-dirty" when tracked files differed), or "unknown".
pub const COMMIT: &str = env!("ARBOR_COMMIT");

/// Where a run happened and what it ran: the report's header.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Meta {
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub commit: String,
    /// "QEMU TCG single-threaded guest ..." or the host's model, kernel, CPUs
    #[serde(default)]
    pub platform: String,
    #[serde(default)]
    pub topology: String,
    #[serde(default)]
    pub reps: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaling: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arbor_bin: Option<String>,
    /// the run stopped before its plan was done: these are the cells it finished
    #[serde(default)]
    pub partial: bool,
    /// part of a sharded sweep (`--shard`): which, and what the merge needs
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardMeta>,
    /// anything a caller adds (the simulator's machine and cost model)
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// The command line that reproduces this run: `arbor` and this process's
/// arguments, shell-quoted, without where it wrote (`--out DIR`, `-o DIR`,
/// `--out=DIR`, `-oDIR`): the same inputs give the same results wherever
/// they are written.
pub fn command() -> String {
    command_of(std::env::args().skip(1))
}

/// [`command`] of the arguments after the program's name.
pub fn command_of(args: impl IntoIterator<Item = String>) -> String {
    let mut words = vec!["arbor".to_string()];
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        if a == "--out" || a == "-o" {
            args.next();
            continue;
        }
        if a.starts_with("--out=") || (a.starts_with("-o") && !a.starts_with("--")) {
            continue;
        }
        words.push(crate::vm::shell_quote(&a));
    }
    words.join(" ")
}

/// A recorded command as [`command`] writes it: an older results.json kept
/// the program's path and `--out DIR`, its words joined by spaces
/// (`target/release/arbor bench --out docs/x -r 3`): that becomes `arbor
/// bench -r 3`. One already in this form, or empty, stays as it is.
pub fn normalized(recorded: &str) -> String {
    let mut words = recorded.split_whitespace();
    match words.next() {
        Some(prog) if prog != "arbor" && prog.ends_with("/arbor") => {
            command_of(words.map(String::from))
        }
        _ => recorded.to_string(),
    }
}

/// The `meta` block of a tool whose results.json has a layout of its own
/// (reproduce, fuzz, calibrate): the command and the commit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Provenance {
    pub command: String,
    pub commit: String,
    /// part of a sharded sweep (`--shard`): which, and what the merge needs
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardMeta>,
}

impl Provenance {
    /// This process's: [`command`] and [`COMMIT`].
    pub fn here() -> Provenance {
        Provenance {
            command: command(),
            commit: COMMIT.to_string(),
            shard: None,
        }
    }
}

/// A tool's own results, written with `meta` first and its fields after.
#[derive(Serialize)]
pub struct Stamped<'a, T: Serialize> {
    pub meta: Provenance,
    #[serde(flatten)]
    pub body: &'a T,
}

/// `meta.shard` of a shard's results.json (made by crate::shard).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardMeta {
    /// which tool wrote it: "sim", "fuzz" (the merge's reader)
    pub tool: String,
    pub index: usize,
    pub count: usize,
    /// the command without `--shard`: what one unsharded run records
    pub command: String,
    /// how many cells the whole sweep has (this shard's: `crate::shard::Shard::cells`)
    pub cells: usize,
    /// what the tool's merge needs beyond its own output
    #[serde(default)]
    pub merge: serde_json::Value,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(a: &[&str]) -> String {
        command_of(a.iter().map(|s| s.to_string()))
    }

    #[test]
    fn the_command_leaves_out_where_it_wrote_and_quotes_the_rest() {
        assert_eq!(
            cmd(&["sim", "-w", "hackbench:g=2", "--out", "/tmp/x", "-r", "2"]),
            "arbor sim -w hackbench:g=2 -r 2"
        );
        assert_eq!(cmd(&["bench", "-o", "d", "--quick"]), "arbor bench --quick");
        assert_eq!(
            cmd(&["bench", "--out=d", "-od", "--quick"]),
            "arbor bench --quick"
        );
        assert_eq!(
            cmd(&["sim", "-w", "rt-app:a b.json", "--job", "1"]),
            "arbor sim -w 'rt-app:a b.json' --job 1"
        );
        // a value that merely looks like the flag's name stays
        assert_eq!(cmd(&["sim", "-w", "out"]), "arbor sim -w out");
    }

    #[test]
    fn an_older_command_loses_its_path_and_output_directory() {
        assert_eq!(
            normalized("/tmp/b/arbor bench --out docs/results/x -r 3 -s arbor:stock"),
            "arbor bench -r 3 -s arbor:stock"
        );
        assert_eq!(normalized("arbor sim -r 2"), "arbor sim -r 2");
        assert_eq!(normalized(""), "");
        assert_eq!(normalized("python3 run.py"), "python3 run.py");
    }

    #[test]
    fn the_commit_is_a_hash_or_unknown() {
        let c = COMMIT.trim_end_matches("-dirty");
        assert!(
            c == "unknown" || (c.len() == 40 && c.chars().all(|x| x.is_ascii_hexdigit())),
            "{COMMIT}"
        );
    }
}
