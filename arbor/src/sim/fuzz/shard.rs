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

/// `meta.shard` of part `s` of the search `a`, which ran `wall` and wrote
/// its rt-app cases to `cases`.
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
        let c: Campaign = serde_json::from_str(&crate::report::read_json_text(&path)?)
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
        camp.cgroup_cases += c.cgroup_cases;
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
        cgroups: false,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::meta::Provenance;
    use crate::shard::{Part, Shard, ShardMeta};
    use crate::sim::fuzz::Verdict;

    /// Shard `index` of 2 in `dir`, with one scx_arbor failure of case
    /// `case` on an rt-app file of its own cases/.
    fn shard(dir: &Path, index: usize, case: u64) -> Part {
        let cases = dir.join("cases");
        std::fs::create_dir_all(&cases).unwrap();
        let file = cases.join(format!("rtapp-{case}.json"));
        std::fs::write(&file, "{}").unwrap();
        let f = Failure {
            case,
            scheduler: "arbor:stock".into(),
            verdict: Verdict::Ejected("stall".into()),
            reproducer: format!("arbor sim -w 'rt-app:{}'", file.display()),
            minimised: String::new(),
        };
        let mut camp = Campaign {
            seed: 7,
            cases_run: 2,
            cpu_seconds: 1.0,
            failures: vec![f],
            ..Campaign::default()
        };
        camp.per_scheduler.insert("arbor".into(), (2, 1));
        let mut m = ShardMeta::new("fuzz", Shard { index, count: 2 }, 4);
        m.command = "arbor sim fuzz --cases 4 --seed 7".into();
        m.merge = serde_json::to_value(ShardPart {
            sim_seconds: 2.0,
            watchdog_ms: 1000,
            shrink: ShrinkWhich::None,
            wall_s: 3.0 + index as f64,
            cases,
        })
        .unwrap();
        let meta = Provenance {
            command: format!("{} --shard {index}/2", m.command),
            commit: "c".into(),
            shard: Some(m.clone()),
        };
        summary::write_stamped(dir, "", meta, &camp).unwrap();
        Part {
            dir: dir.to_path_buf(),
            commit: "c".into(),
            shard: m,
        }
    }

    #[test]
    fn merged_cases_are_in_order_with_their_files_under_out() {
        let root = std::env::temp_dir().join(format!("arbor-fuzz-merge-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        // shard 0 failed in case 2, shard 1 in case 1
        let parts = vec![shard(&root.join("a"), 0, 2), shard(&root.join("b"), 1, 1)];
        let out = root.join("all");
        assert_eq!(merge(&parts, &out).unwrap(), 1);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap())
                .unwrap();
        assert_eq!(v["meta"]["command"], "arbor sim fuzz --cases 4 --seed 7");
        assert!(v["meta"].get("shard").is_none());
        assert_eq!(v["cases_run"], 4);
        assert_eq!(v["per_scheduler"]["arbor"], serde_json::json!([4, 2]));
        let f = v["failures"].as_array().unwrap();
        assert_eq!(
            (f[0]["case"].as_u64(), f[1]["case"].as_u64()),
            (Some(1), Some(2))
        );
        let file = out.join("cases").join("rtapp-1.json");
        assert_eq!(
            f[0]["reproducer"],
            format!("arbor sim -w 'rt-app:{}'", file.display())
        );
        assert!(file.exists() && out.join("cases/rtapp-2.json").exists());
        let md = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert!(
            md.contains("seed 7, 4 cases") && md.contains("4 s wall"),
            "{md}"
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
