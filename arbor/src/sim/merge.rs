//! `arbor sim merge OUT DIR...`: the shards of one sweep (each run with
//! `--shard`, crate::shard) joined into what the sweep run whole writes.
//! Each tool joins its own results: `arbor sim`'s cells (sweep.rs), the
//! fuzzer's cases (fuzz), the verdict's cells (verdict/shard.rs).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::report::summary;
use crate::shard::{self, Part, ShardMeta};

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Where to write the joined report.md, results.json, summary.json
    /// (created if missing).
    out: PathBuf,
    /// The shards' output directories (their --out), each shard once, in
    /// any order.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Skip the PNG charts (of an arbor sim sweep).
    #[arg(long)]
    no_charts: bool,
}

/// DIR's results.json as a shard's part, or one line saying why not.
fn part(dir: &PathBuf) -> Result<Part> {
    let path = dir.join(summary::RESULTS);
    let text = crate::report::read_json_text(&path)?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not an arbor results file", path.display()))?;
    let Some(s) = v["meta"].get("shard") else {
        bail!(
            "{}: not a shard's output (its meta has no shard: run with --shard)",
            path.display()
        );
    };
    let shard: ShardMeta = serde_json::from_value(s.clone())
        .with_context(|| format!("{}: meta.shard is not arbor's", path.display()))?;
    Ok(Part {
        dir: dir.clone(),
        commit: v["meta"]["commit"].as_str().unwrap_or_default().to_string(),
        shard,
    })
}

pub fn main(a: &MergeArgs) -> Result<i32> {
    let parts = shard::complete(a.dirs.iter().map(part).collect::<Result<_>>()?)?;
    let out = std::fs::canonicalize(&a.out).unwrap_or_else(|_| a.out.clone());
    if let Some(p) = parts
        .iter()
        .find(|p| std::fs::canonicalize(&p.dir).is_ok_and(|d| d == out))
    {
        bail!(
            "OUT {} is shard {}'s own directory: give a new one",
            a.out.display(),
            p.shard.index
        );
    }
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let code = match parts[0].shard.tool.as_str() {
        "sim" => {
            let s = super::sweep::Sweep::merged(&parts)?;
            s.finish(Some(&a.out), false, !a.no_charts)?;
            s.failures()
        }
        "fuzz" => super::fuzz::merge(&parts, &a.out)?,
        "verdict" => super::verdict::merge(&parts, &a.out)?,
        t => bail!(
            "{}: shards of `{t}`, which this build cannot merge",
            parts[0].dir.display()
        ),
    };
    eprintln!(
        "arbor sim merge: {} shards of `{}` in {}",
        parts.len(),
        parts[0].shard.command,
        a.out.display()
    );
    Ok(code)
}
