//! Where one `arbor bench` run keeps what it measured. The run works in
//! `DIR.partial/`: its plan (plan.json), its header (meta.json), and every
//! result row appended to rows.jsonl the moment the guest prints it. A
//! finished run writes its report there and renames the directory to
//! `DIR`; a run that is killed or fails keeps `DIR.partial/`, with a
//! report of the cells it finished, and `arbor bench render DIR.partial`
//! rebuilds that report at any time.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::plan::GuestPlan;
use crate::report::{Meta, Row};

pub const PLAN: &str = "plan.json";
pub const META: &str = "meta.json";
pub const ROWS: &str = "rows.jsonl";

pub struct RunDir {
    /// where the finished run goes
    pub out: PathBuf,
    /// where it is written meanwhile
    pub partial: PathBuf,
    rows: fs::File,
}

pub fn partial_of(out: &Path) -> PathBuf {
    PathBuf::from(format!("{}.partial", out.display()))
}

impl RunDir {
    /// Claims a directory for a run. `out`: the user's --out (refused if it
    /// or its `.partial` exists, unless `force`); None: `base/<stamp>`, with
    /// `-2`, `-3`... when another run took that name in the same second.
    pub fn create(out: Option<&Path>, base: &Path, stamp: &str, force: bool) -> Result<RunDir> {
        let out = match out {
            Some(o) => {
                let partial = partial_of(o);
                if force {
                    for d in [o, partial.as_path()] {
                        if d.exists() {
                            fs::remove_dir_all(d)
                                .with_context(|| format!("--force: removing {}", d.display()))?;
                        }
                    }
                } else if o.exists() {
                    bail!(
                        "{} exists; give another --out, or --force to replace it",
                        o.display()
                    );
                } else if partial.exists() {
                    bail!(
                        "{} holds an interrupted run: `arbor bench render {}` reports what it measured; --force discards it",
                        partial.display(),
                        partial.display()
                    );
                }
                if let Some(parent) = o.parent().filter(|p| !p.as_os_str().is_empty()) {
                    fs::create_dir_all(parent)
                        .with_context(|| format!("creating {}", parent.display()))?;
                }
                fs::create_dir(&partial)
                    .with_context(|| format!("creating {}", partial.display()))?;
                o.to_path_buf()
            }
            None => {
                fs::create_dir_all(base).with_context(|| format!("creating {}", base.display()))?;
                let mut i = 1;
                loop {
                    let name = if i == 1 {
                        stamp.to_string()
                    } else {
                        format!("{stamp}-{i}")
                    };
                    let o = base.join(&name);
                    // create_dir is the claim: two runs cannot both succeed
                    if !o.exists() {
                        match fs::create_dir(partial_of(&o)) {
                            Ok(()) => break o,
                            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                            Err(e) => {
                                return Err(e).with_context(|| {
                                    format!("creating {}", partial_of(&o).display())
                                })
                            }
                        }
                    }
                    i += 1;
                    if i > 1000 {
                        bail!("no free run directory under {}", base.display());
                    }
                }
            }
        };
        let partial = partial_of(&out);
        let rows = fs::OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(partial.join(ROWS))
            .with_context(|| format!("creating {}", partial.join(ROWS).display()))?;
        Ok(RunDir { out, partial, rows })
    }

    pub fn write_plan(&self, plan: &GuestPlan, meta: &Meta) -> Result<PathBuf> {
        let p = self.partial.join(PLAN);
        fs::write(&p, serde_json::to_string_pretty(plan)?)
            .with_context(|| format!("writing {}", p.display()))?;
        fs::write(self.partial.join(META), serde_json::to_string_pretty(meta)?)?;
        Ok(p)
    }

    /// Keeps one row on disk before the next arrives.
    pub fn append(&mut self, row: &Row) -> Result<()> {
        let line = serde_json::to_string(row)? + "\n";
        self.rows
            .write_all(line.as_bytes())
            .and_then(|_| self.rows.flush())
            .with_context(|| format!("writing {}", self.partial.join(ROWS).display()))
    }

    /// The finished run takes its final name.
    pub fn finish(self) -> Result<PathBuf> {
        drop(self.rows);
        fs::rename(&self.partial, &self.out)
            .with_context(|| format!("renaming to {}", self.out.display()))?;
        Ok(self.out)
    }
}

/// A run directory's plan, header and rows (finished or not).
pub fn load(dir: &Path) -> Result<(GuestPlan, Meta, Vec<Row>)> {
    let read = |name: &str| {
        let p = dir.join(name);
        fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))
    };
    let plan: GuestPlan = serde_json::from_str(&read(PLAN)?)
        .with_context(|| format!("{} is not a bench plan", dir.join(PLAN).display()))?;
    let meta: Meta = serde_json::from_str(&read(META)?)
        .with_context(|| format!("{} is malformed", dir.join(META).display()))?;
    let text = read(ROWS)?;
    let lines: Vec<&str> = text.lines().collect();
    let mut rows = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Row>(l) {
            Ok(r) => rows.push(r),
            // a run killed mid-write leaves at most its last line torn
            Err(_) if i + 1 == lines.len() => {}
            Err(e) => bail!("{}: line {}: {e}", dir.join(ROWS).display(), i + 1),
        }
    }
    Ok((plan, meta, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: f64) -> Row {
        Row {
            rep: 1,
            sched: "eevdf".into(),
            workload: "hb".into(),
            metric: "time_s".into(),
            value: v,
        }
    }

    #[test]
    fn runs_never_share_or_lose_a_directory() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().join("bench");
        // two runs in the same second get two directories
        let a = RunDir::create(None, &base, "20261122-000000", false).unwrap();
        let b = RunDir::create(None, &base, "20261122-000000", false).unwrap();
        assert_ne!(a.out, b.out);
        assert!(b.out.ends_with("20261122-000000-2"), "{}", b.out.display());
        // an interrupted run is not silently deleted by the next one
        let out = t.path().join("mine");
        let mut r = RunDir::create(Some(&out), &base, "x", false).unwrap();
        r.append(&row(1.5)).unwrap();
        r.append(&row(f64::NAN)).unwrap();
        drop(r);
        let e = RunDir::create(Some(&out), &base, "x", false).err().unwrap();
        assert!(
            format!("{e:#}").contains("holds an interrupted run"),
            "{e:#}"
        );
        let rows = fs::read_to_string(partial_of(&out).join(ROWS)).unwrap();
        assert_eq!(rows.lines().count(), 2, "{rows}");
        // --force replaces it
        let r = RunDir::create(Some(&out), &base, "x", true).unwrap();
        assert_eq!(
            fs::read_to_string(r.partial.join(ROWS)).unwrap(),
            "",
            "a fresh run"
        );
        let done = r.finish().unwrap();
        assert!(done.is_dir() && !partial_of(&out).exists());
        let e = RunDir::create(Some(&out), &base, "x", false).err().unwrap();
        assert!(
            format!("{e:#}").contains("exists; give another --out"),
            "{e:#}"
        );
    }

    #[test]
    fn a_torn_last_row_is_dropped_and_a_torn_middle_one_is_an_error() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let plan = GuestPlan {
            reps: 1,
            scheds: vec![],
            workloads: vec![],
            wakeprobe: "/x".into(),
            record: None,
        };
        fs::write(d.join(PLAN), serde_json::to_string(&plan).unwrap()).unwrap();
        fs::write(d.join(META), "{}").unwrap();
        let good = serde_json::to_string(&row(2.0)).unwrap();
        fs::write(d.join(ROWS), format!("{good}\n{{\"rep\":1,\"sch")).unwrap();
        let (_, _, rows) = load(d).unwrap();
        assert_eq!(rows, vec![row(2.0)]);
        fs::write(d.join(ROWS), format!("{{\"rep\"\n{good}\n")).unwrap();
        assert!(format!("{:#}", load(d).err().unwrap()).contains("line 1"));
    }
}
