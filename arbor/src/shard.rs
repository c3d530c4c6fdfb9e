//! Sharded sweeps: `--shard I/N` runs part I of N of a command's cells, so
//! that a sweep spreads over the tasks of a Slurm job array or of a
//! Kubernetes Indexed Job, and `arbor sim merge` joins the parts into what
//! one unsharded run writes.
//!
//! A cell is the unit that stays whole in one shard: for `arbor sim` a
//! workload with all its schedulers and runs, for the fuzzer a case; a
//! command that sweeps machines makes a cell of each (machine, workload).
//! Cell k of the command's own order goes to shard k mod N: round robin,
//! so that the large machines or heavy workloads that a sweep lists
//! together spread over the shards; the same command gives the same
//! assignment wherever it runs.
//!
//! Each shard writes its own output directory, with `meta.shard`
//! ([`ShardMeta`]) in its results.json: which part it is, the command as an
//! unsharded run records it, and what the merge needs.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Result};

pub use crate::report::meta::ShardMeta;

/// `--shard`'s value as given: `I/N` (I counted from 0), `auto` or `auto/N`.
#[derive(Clone, Debug, PartialEq)]
pub enum ShardArg {
    Fixed(Shard),
    /// from the job array's environment; N for a Kubernetes Indexed Job
    Auto(Option<usize>),
}

/// Part `index` (from 0) of `count`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// What `--shard` takes, for a flag's doc comment to point at.
pub const HELP: &str = "I/N (I from 0 to N-1), auto (a Slurm array task: SLURM_ARRAY_TASK_ID, _MIN, _STEP and _COUNT) or auto/N (a Kubernetes Indexed Job's JOB_COMPLETION_INDEX, of N completions)";

fn count_of(n: &str, what: &str) -> Result<usize, String> {
    match n.trim().parse::<usize>() {
        Ok(0) => Err(format!("{what}: N is 0; a sweep has at least one shard")),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{what}: N is not a whole number")),
    }
}

/// clap's value parser of `--shard`: every error one line.
pub fn parse(s: &str) -> Result<ShardArg, String> {
    let s = s.trim();
    if s == "auto" {
        return Ok(ShardArg::Auto(None));
    }
    if let Some(n) = s.strip_prefix("auto/") {
        return Ok(ShardArg::Auto(Some(count_of(n, s)?)));
    }
    let Some((i, n)) = s.split_once('/') else {
        return Err(format!("{s}: expected {HELP}"));
    };
    let count = count_of(n, s)?;
    let index = i
        .trim()
        .parse::<usize>()
        .map_err(|_| format!("{s}: I is not a whole number (I counts from 0)"))?;
    if index >= count {
        return Err(format!(
            "{s}: I counts from 0, so it must be below N ({count})"
        ));
    }
    Ok(ShardArg::Fixed(Shard { index, count }))
}

impl ShardArg {
    /// This process's shard: the fixed one, or the job array's from `env`.
    pub fn resolve(&self, env: impl Fn(&str) -> Option<String>) -> Result<Shard> {
        match self {
            ShardArg::Fixed(s) => Ok(*s),
            ShardArg::Auto(n) => auto(*n, env),
        }
    }

    /// [`resolve`](Self::resolve) from this process's environment.
    pub fn here(&self) -> Result<Shard> {
        self.resolve(|k| std::env::var(k).ok())
    }
}

/// `--shard auto[/N]`: a Slurm array task's place in its array, else a
/// Kubernetes Indexed Job's completion index (its count is N: the pod is
/// not told it).
fn auto(n: Option<usize>, env: impl Fn(&str) -> Option<String>) -> Result<Shard> {
    let num = |k: &str| -> Result<Option<usize>> {
        match env(k) {
            None => Ok(None),
            Some(v) => match v.trim().parse::<usize>() {
                Ok(x) => Ok(Some(x)),
                Err(_) => bail!("--shard auto: {k}={v} is not a whole number"),
            },
        }
    };
    if let Some(id) = num("SLURM_ARRAY_TASK_ID")? {
        // --array=1-8 numbers its tasks from 1, --array=0-14:2 in steps of 2:
        // the shard is the task's place in the range
        let (Some(count), Some(min)) =
            (num("SLURM_ARRAY_TASK_COUNT")?, num("SLURM_ARRAY_TASK_MIN")?)
        else {
            bail!("--shard auto: SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT and SLURM_ARRAY_TASK_MIN (Slurm sets all three in an array task)");
        };
        let step = num("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
        let max = num("SLURM_ARRAY_TASK_MAX")?.unwrap_or(min + (count.max(1) - 1) * step);
        if count == 0 || id < min || (id - min) % step != 0 || (max - min) / step + 1 != count {
            bail!("--shard auto: the Slurm array is not a range A-B[:STEP] (task {id}, min {min}, max {max}, step {step}, count {count}); submit with sbatch --array=0-{}", count.max(1) - 1);
        }
        let shard = Shard {
            index: (id - min) / step,
            count,
        };
        if let Some(n) = n.filter(|n| *n != count) {
            bail!("--shard auto/{n}: the Slurm array has {count} tasks");
        }
        return Ok(shard);
    }
    if let Some(index) = num("JOB_COMPLETION_INDEX")? {
        let Some(count) = n else {
            bail!("--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but not how many completions: give --shard auto/N with the Job's spec.completions");
        };
        if index >= count {
            bail!("--shard auto/{count}: JOB_COMPLETION_INDEX={index} is not below {count}: N must be the Job's spec.completions");
        }
        return Ok(Shard { index, count });
    }
    bail!("--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm array task: sbatch --array) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; give --shard I/N")
}

impl Shard {
    /// The whole sweep as one part.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Whether cell `k` of the command's order is this shard's.
    pub fn owns(&self, k: usize) -> bool {
        k % self.count == self.index
    }

    /// This shard's cells of `cells`, in the command's order.
    pub fn cells(&self, cells: usize) -> Vec<usize> {
        (0..cells).filter(|k| self.owns(*k)).collect()
    }

    /// Shard `index` of `count` of this [`ShardMeta`].
    pub fn of(m: &ShardMeta) -> Shard {
        Shard {
            index: m.index,
            count: m.count,
        }
    }

    /// The shard's `j`-th cell (from 0), past `cells` when it has no more.
    pub fn nth(&self, j: u64) -> u64 {
        self.index as u64 + j * self.count as u64
    }
}

impl ShardMeta {
    /// Shard `s` of this process's command, with `cells` cells.
    pub fn new(tool: &str, s: Shard, cells: usize) -> ShardMeta {
        ShardMeta {
            tool: tool.to_string(),
            index: s.index,
            count: s.count,
            command: unsharded_command(std::env::args().skip(1)),
            cells,
            merge: serde_json::Value::Null,
        }
    }
}

/// The command as [`crate::report::meta::command`] records it, without
/// `--shard X` (or `--shard=X`): every shard of a sweep records the same.
pub fn unsharded_command(args: impl IntoIterator<Item = String>) -> String {
    let mut kept = Vec::new();
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        if a == "--shard" {
            args.next();
        } else if !a.starts_with("--shard=") {
            kept.push(a);
        }
    }
    crate::report::meta::command_of(kept)
}

/// One shard's output as the merge reads it.
pub struct Part {
    pub dir: PathBuf,
    pub commit: String,
    pub shard: ShardMeta,
}

/// The parts of one sweep, each once, all of them, in shard order; else
/// one line naming what differs, is missing or came twice.
pub fn complete(mut parts: Vec<Part>) -> Result<Vec<Part>> {
    let Some(first) = parts.first() else {
        bail!("no shard directories given");
    };
    let (command, commit, count) = (
        first.shard.command.clone(),
        first.commit.clone(),
        first.shard.count,
    );
    let d0 = first.dir.display().to_string();
    for p in &parts[1..] {
        let d = p.dir.display();
        if p.shard.command != command || p.shard.tool != first.shard.tool {
            bail!(
                "shards of different commands: {d0} ran `{command}`, {d} ran `{}`",
                p.shard.command
            );
        }
        if p.shard.count != count {
            bail!(
                "shards of different splits: {d0} is part of {count}, {d} of {}",
                p.shard.count
            );
        }
        if p.commit != commit {
            bail!(
                "shards of different builds: {d0} ran commit {commit}, {d} commit {}",
                p.commit
            );
        }
    }
    let mut seen: BTreeMap<usize, String> = BTreeMap::new();
    for p in &parts {
        let d = p.dir.display().to_string();
        if let Some(other) = seen.insert(p.shard.index, d.clone()) {
            bail!(
                "shard {}/{count} given twice: {other} and {d}",
                p.shard.index
            );
        }
        if p.shard.index >= count || p.shard.cells != first.shard.cells {
            bail!(
                "{d}: shard {}/{count} is not a part of {d0}'s sweep",
                p.shard.index
            );
        }
    }
    let missing: Vec<String> = (0..count)
        .filter(|i| !seen.contains_key(i))
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        bail!(
            "missing shard(s) {} of {count} (given: {})",
            missing.join(", "),
            seen.keys()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    parts.sort_by_key(|p| p.shard.index);
    Ok(parts)
}

/// For each cell of the sweep in order, (its shard's position in
/// `parts`, its place among that shard's cells).
pub fn cell_order(parts: &[Part]) -> Vec<(usize, usize)> {
    let cells = parts.first().map_or(0, |p| p.shard.cells);
    let count = parts.len().max(1);
    (0..cells).map(|k| (k % count, k / count)).collect()
}

/// Every float of `v` (a number serde_json writes with a point or an
/// exponent), in order, as f64::to_bits: what [`restore_floats`] needs to
/// make `v` written as text and read back exactly `v` again (serde_json
/// reads a decimal back to the nearest double only within an ulp).
pub fn float_bits(v: &serde_json::Value) -> Vec<u64> {
    fn walk(v: &serde_json::Value, out: &mut Vec<u64>) {
        match v {
            serde_json::Value::Number(n) if n.is_f64() => {
                out.extend(n.as_f64().map(f64::to_bits));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut out);
    out
}

/// `v`, read back from text, with its floats `bits` ([`float_bits`] of the
/// value written); an error when their number differs.
pub fn restore_floats(v: &mut serde_json::Value, bits: &[u64]) -> Result<()> {
    fn walk(v: &mut serde_json::Value, bits: &mut std::slice::Iter<u64>) -> Result<()> {
        match v {
            serde_json::Value::Number(n) if n.is_f64() => {
                let Some(b) = bits.next() else {
                    bail!("more floats than were written");
                };
                match serde_json::Number::from_f64(f64::from_bits(*b)) {
                    Some(x) => *n = x,
                    None => bail!("a float written was not finite"),
                }
            }
            serde_json::Value::Array(a) => {
                for x in a {
                    walk(x, bits)?;
                }
            }
            serde_json::Value::Object(o) => {
                for x in o.values_mut() {
                    walk(x, bits)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
    let mut it = bits.iter();
    walk(v, &mut it)?;
    if it.next().is_some() {
        bail!("fewer floats than were written");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| vars.iter().find(|v| v.0 == k).map(|v| v.1.to_string())
    }

    /// A Slurm array task's environment: its id, the array's task count,
    /// lowest and highest id.
    fn slurm_array<'a>(
        id: &'a str,
        count: &'a str,
        min: &'a str,
        max: &'a str,
    ) -> Vec<(&'a str, &'a str)> {
        vec![
            ("SLURM_ARRAY_TASK_ID", id),
            ("SLURM_ARRAY_TASK_COUNT", count),
            ("SLURM_ARRAY_TASK_MIN", min),
            ("SLURM_ARRAY_TASK_MAX", max),
        ]
    }

    #[test]
    fn fixed_shards_count_from_zero_and_bad_ones_are_one_line() {
        assert_eq!(
            parse("3/4"),
            Ok(ShardArg::Fixed(Shard { index: 3, count: 4 }))
        );
        assert_eq!(parse("auto"), Ok(ShardArg::Auto(None)));
        assert_eq!(parse("auto/8"), Ok(ShardArg::Auto(Some(8))));
        for (bad, says) in [
            ("4/4", "below N (4)"),
            ("5/4", "below N"),
            ("0/0", "N is 0"),
            ("auto/0", "N is 0"),
            ("x/4", "I is not"),
            ("1/y", "N is not"),
            ("-1/4", "I is not"),
            ("3", "expected I/N"),
            ("", "expected"),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(says) && !e.contains('\n'), "{bad}: {e}");
        }
    }

    #[test]
    fn auto_reads_the_slurm_array_or_the_indexed_job() {
        let a = ShardArg::Auto(None);
        let slurm = slurm_array("3", "8", "0", "7");
        assert_eq!(
            a.resolve(env(&slurm)).unwrap(),
            Shard { index: 3, count: 8 }
        );
        // --array=1-8: task 1 is the first shard
        let from1 = slurm_array("1", "8", "1", "8");
        assert_eq!(
            a.resolve(env(&from1)).unwrap(),
            Shard { index: 0, count: 8 }
        );
        // --array=0-6:2: tasks 0, 2, 4, 6
        let mut step = slurm_array("4", "4", "0", "6");
        step.push(("SLURM_ARRAY_TASK_STEP", "2"));
        assert_eq!(a.resolve(env(&step)).unwrap(), Shard { index: 2, count: 4 });
        // --array=1,3,9: not a range
        let list = slurm_array("3", "3", "1", "9");
        let e = a.resolve(env(&list)).unwrap_err().to_string();
        assert!(e.contains("not a range"), "{e}");
        let k8s = [("JOB_COMPLETION_INDEX", "5")];
        assert_eq!(
            ShardArg::Auto(Some(6)).resolve(env(&k8s)).unwrap(),
            Shard { index: 5, count: 6 }
        );
        let e = a.resolve(env(&k8s)).unwrap_err().to_string();
        assert!(e.contains("--shard auto/N"), "{e}");
        let e = ShardArg::Auto(Some(5))
            .resolve(env(&k8s))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not below 5"), "{e}");
        let e = a.resolve(env(&[])).unwrap_err().to_string();
        assert!(e.contains("neither SLURM_ARRAY_TASK_ID"), "{e}");
        let e = a
            .resolve(env(&[("SLURM_ARRAY_TASK_ID", "x")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a whole number"), "{e}");
    }

    #[test]
    fn every_cell_goes_to_exactly_one_shard_round_robin() {
        for count in 1..6 {
            let mut all: Vec<usize> = (0..count)
                .flat_map(|index| Shard { index, count }.cells(11))
                .collect();
            all.sort();
            assert_eq!(all, (0..11).collect::<Vec<_>>());
        }
        let s = Shard { index: 1, count: 4 };
        assert_eq!(s.cells(10), vec![1, 5, 9]);
        assert!(s.owns(5) && !s.owns(4));
        assert_eq!(s.nth(2), 9);
        assert_eq!(Shard::ALL.cells(3), vec![0, 1, 2]);
    }

    #[test]
    fn floats_come_back_exactly() {
        let v = serde_json::json!({"a": [0.1 + 0.2, 1, f64::MAX], "b": {"c": 1e-300 / 3.0, "d": "x"}, "e": -0.0});
        let bits = float_bits(&v);
        assert_eq!(bits.len(), 4);
        let mut back: serde_json::Value =
            serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
        restore_floats(&mut back, &bits).unwrap();
        assert_eq!(float_bits(&back), bits);
        assert_eq!(back, v);
        let e = restore_floats(&mut back, &bits[1..])
            .unwrap_err()
            .to_string();
        assert!(e.contains("more floats"), "{e}");
        let e = restore_floats(&mut back, &[bits.clone(), bits].concat())
            .unwrap_err()
            .to_string();
        assert!(e.contains("fewer floats"), "{e}");
    }

    #[test]
    fn the_command_loses_its_shard() {
        let a = |v: &[&str]| unsharded_command(v.iter().map(|s| s.to_string()));
        assert_eq!(
            a(&["sim", "--shard", "1/4", "-w", "x", "--out", "d"]),
            "arbor sim -w x"
        );
        assert_eq!(
            a(&["sim", "fuzz", "--shard=auto", "--cases", "8"]),
            "arbor sim fuzz --cases 8"
        );
    }

    fn part(dir: &str, index: usize, count: usize, command: &str) -> Part {
        let mut shard = ShardMeta::new("sim", Shard { index, count }, 5);
        shard.command = command.into();
        Part {
            dir: dir.into(),
            commit: "c".into(),
            shard,
        }
    }

    #[test]
    fn a_merge_needs_each_shard_once_of_one_command() {
        let ok = complete(vec![part("b", 1, 2, "x"), part("a", 0, 2, "x")]).unwrap();
        assert_eq!(ok[0].dir, PathBuf::from("a"));
        assert_eq!(
            cell_order(&ok),
            vec![(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]
        );
        let err = |p: Vec<Part>| complete(p).err().map(|e| e.to_string()).unwrap_or_default();
        let e = err(vec![part("a", 0, 3, "x"), part("c", 2, 3, "x")]);
        assert_eq!(e, "missing shard(s) 1 of 3 (given: 0, 2)");
        let e = err(vec![
            part("a", 0, 2, "x"),
            part("b", 0, 2, "x"),
            part("c", 1, 2, "x"),
        ]);
        assert_eq!(e, "shard 0/2 given twice: a and b");
        let e = err(vec![part("a", 0, 2, "x"), part("b", 1, 2, "y")]);
        assert!(
            e.starts_with("shards of different commands: a ran `x`, b ran `y`"),
            "{e}"
        );
        let e = err(vec![part("a", 0, 2, "x"), part("b", 1, 3, "x")]);
        assert!(e.contains("different splits"), "{e}");
        let mut p = part("b", 1, 2, "x");
        p.commit = "d".into();
        let e = err(vec![part("a", 0, 2, "x"), p]);
        assert!(e.contains("different builds"), "{e}");
        assert_eq!(err(vec![]), "no shard directories given");
    }
}
