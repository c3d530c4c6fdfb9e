//! The guest's PostgreSQL for pgbench: one server per run, in a private
//! directory, a database per scale; stopped when dropped.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

pub struct Postgres {
    bin: PathBuf,
    dir: PathBuf,
    /// removed after the server stops (fields drop after `drop`)
    _keep: tempfile::TempDir,
}

/// postgres' uid and gid from /etc/passwd.
fn postgres_ids() -> Result<(u32, u32)> {
    let pw = fs::read_to_string("/etc/passwd").context("reading /etc/passwd")?;
    pw.lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.len() > 3 && f[0] == "postgres")
                .then(|| Some((f[2].parse().ok()?, f[3].parse().ok()?)))
        })
        .flatten()
        .context("no user 'postgres' (scripts/install-deps.sh installs PostgreSQL)")
}

/// /usr/lib/postgresql/<newest major>/bin.
fn pg_bin() -> Result<PathBuf> {
    let mut best: Option<(u32, PathBuf)> = None;
    for e in fs::read_dir("/usr/lib/postgresql")
        .context("PostgreSQL is not installed (scripts/install-deps.sh installs it)")?
    {
        let e = e?;
        let Some(v) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let bin = e.path().join("bin");
        if bin.join("initdb").exists() && best.as_ref().is_none_or(|b| v > b.0) {
            best = Some((v, bin));
        }
    }
    best.map(|b| b.1).context(
        "no /usr/lib/postgresql/*/bin/initdb (scripts/install-deps.sh installs PostgreSQL)",
    )
}

/// Runs a command as postgres; a failure says which and its last line.
fn as_pg(cmd: &Path, args: &[&str], log: &Path) -> Result<()> {
    let out = fs::File::create(log)?;
    let st = Command::new("runuser")
        .args(["-u", "postgres", "--"])
        .arg(cmd)
        .args(args)
        .stdout(out.try_clone()?)
        .stderr(out)
        .status()
        .with_context(|| format!("running {}", cmd.display()))?;
    if !st.success() {
        bail!(
            "{} failed: {}",
            cmd.file_name().unwrap_or_default().to_string_lossy(),
            super::sched::tail(log, 1)
        );
    }
    Ok(())
}

impl Postgres {
    /// initdb, start, and `pgbench -i` one database per scale (bench<scale>).
    pub fn start(scales: &[u32], say: &dyn Fn(&str)) -> Result<Postgres> {
        let bin = pg_bin()?;
        let (uid, gid) = postgres_ids()?;
        say(&format!("starting PostgreSQL ({})", bin.display()));
        // a private directory postgres owns, not a fixed /tmp name: the
        // guest's /tmp is the host's, where anyone could plant one
        let keep = tempfile::Builder::new()
            .prefix("arbor-pg.")
            .tempdir_in("/tmp")
            .context("creating PostgreSQL's directory")?;
        let dir = keep.path().to_path_buf();
        std::os::unix::fs::chown(&dir, Some(uid), Some(gid))
            .with_context(|| format!("chown postgres {}", dir.display()))?;
        let data = dir.join("data");
        let d = data.to_string_lossy().to_string();
        as_pg(
            &bin.join("initdb"),
            &["-D", &d, "-A", "trust"],
            &dir.join("initdb.log"),
        )?;
        let opts = format!(
            "-k {} -c listen_addresses= -c max_connections=200 -c shared_buffers=256MB -c fsync=off",
            dir.display()
        );
        let log = dir.join("log").to_string_lossy().to_string();
        as_pg(
            &bin.join("pg_ctl"),
            &[
                "-D", &d, "-l", &log, "-w", "-t", "300", "-o", &opts, "start",
            ],
            &dir.join("start.log"),
        )
        .with_context(|| {
            format!(
                "PostgreSQL did not start: {}",
                super::sched::tail(Path::new(&log), 2)
            )
        })?;
        let pg = Postgres {
            bin,
            dir,
            _keep: keep,
        };
        let host = pg.host();
        for s in scales {
            say(&format!("pgbench: initialising bench{s} (scale {s})"));
            let db = format!("bench{s}");
            as_pg(
                &pg.bin.join("createdb"),
                &["-h", &host, &db],
                &pg.dir.join("createdb.log"),
            )?;
            as_pg(
                Path::new("pgbench"),
                &["-h", &host, "-i", "-q", "-s", &s.to_string(), &db],
                &pg.dir.join(format!("init{s}.log")),
            )?;
        }
        Ok(pg)
    }

    /// The socket directory pgbench connects through.
    pub fn host(&self) -> String {
        self.dir.to_string_lossy().to_string()
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let d = self.dir.join("data").to_string_lossy().to_string();
        let _ = as_pg(
            &self.bin.join("pg_ctl"),
            &["-D", &d, "-m", "fast", "stop"],
            &self.dir.join("stop.log"),
        );
    }
}
