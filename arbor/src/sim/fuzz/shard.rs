//! `arbor sim fuzz --shard`: what a shard of a search keeps for the merge,
//! and `arbor sim merge` of a search's shards (case k runs in shard k mod
//! N: crate::shard).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::{exit_code, report, Campaign, Failure, FuzzArgs, ShrinkWhich};
use crate::report::summary;

/// A shard's `meta.shard.merge`: the report's inputs beyond the campaign.
#[derive(Serialize, Deserialize)]
struct ShardPart {
    sim_seconds: f64,
    watchdog_ms: u64,
    shrink: ShrinkWhich,
    wall_s: f64,
    /// where its rt-app cases are (their commands name them)
    cases: PathBuf,
}

pub fn meta(
    a: &FuzzArgs,
    s: crate::shard::Shard,
    wall: Duration,
    cases: &Path,
) -> Result<crate::shard::ShardMeta> {
    let mut m = crate::shard::ShardMeta::new("fuzz", s, a.cases as usize);
    m.merge = serde_json::to_value(ShardPart {
        sim_seconds: a.sim_seconds,
        watchdog_ms: a.watchdog_ms,
        shrink: a.shrink,
        wall_s: wall.as_secs_f64(),
        cases: cases.to_path_buf(),
    })?;
    Ok(m)
}

/// `arbor sim merge` of a search's shards: their cases as one campaign,
/// the rt-app files under `out`/cases and the commands naming them there,
/// as the search run whole with `--out out` writes them. The wall time is
/// the longest shard's, the CPU time their sum.
pub fn merge(parts: &[crate::shard::Part], out: &Path) -> Result<i32> {
    let cases = out.join("cases");
    let mut camp = Campaign::default();
    let mut wall = 0f64;
    let mut args = None;
    for p in parts {
        let path = p.dir.join(summary::RESULTS);
        let c: Campaign = serde_json::from_str(&std::fs::read_to_string(&path)?)
            .with_context(|| format!("{}: not the results of arbor sim fuzz", path.display()))?;
        let s: ShardPart = serde_json::from_value(p.shard.merge.clone())
            .with_context(|| format!("{}: not the output of a fuzz shard", p.dir.display()))?;
        // the rt-app files, and the commands that name them, move to OUT
        let from = s.cases.display().to_string();
        let to = cases.display().to_string();
        if s.cases.is_dir() {
            std::fs::create_dir_all(&cases)?;
            for f in std::fs::read_dir(&s.cases)? {
                let f = f?.path();
                if let Some(name) = f.file_name() {
                    std::fs::copy(&f, cases.join(name))
                        .with_context(|| format!("copying {}", f.display()))?;
                }
            }
        }
        let moved = |v: Vec<Failure>| {
            v.into_iter().map(|f| Failure {
                reproducer: f.reproducer.replace(&from, &to),
                minimised: f.minimised.replace(&from, &to),
                ..f
            })
        };
        camp.seed = c.seed;
        camp.cases_run += c.cases_run;
        camp.cpu_seconds += c.cpu_seconds;
        for (k, (n, f)) in c.per_scheduler {
            let e = camp.per_scheduler.entry(k).or_default();
            e.0 += n;
            e.1 += f;
        }
        camp.failures.extend(moved(c.failures));
        camp.long_waits.extend(moved(c.long_waits));
        camp.refused.extend(moved(c.refused));
        camp.affinity_changes += c.affinity_changes;
        camp.nice_changes += c.nice_changes;
        wall = wall.max(s.wall_s);
        args.get_or_insert((s.sim_seconds, s.watchdog_ms, s.shrink));
    }
    for v in [&mut camp.failures, &mut camp.long_waits, &mut camp.refused] {
        v.sort_by_key(|f| f.case);
    }
    let (sim_seconds, watchdog_ms, shrink) = args.context("no shards")?;
    // the report's inputs, as the search's own arguments
    let a = FuzzArgs {
        cases: camp.cases_run,
        seed: camp.seed,
        time: 0,
        jobs: None,
        sim_seconds,
        watchdog_ms,
        only: None,
        out: Some(out.to_path_buf()),
        shrink,
        shard: None,
    };
    let md = report(&camp, &a, Duration::from_secs_f64(wall));
    println!("{md}");
    let meta = crate::report::meta::Provenance {
        command: parts[0].shard.command.clone(),
        commit: parts[0].commit.clone(),
        shard: None,
    };
    summary::write_stamped(out, &md, meta, &camp)?;
    Ok(exit_code(&camp))
}
