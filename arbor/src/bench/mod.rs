//! `arbor bench`: real workloads under EEVDF, scx_arbor's profiles and the
//! peer schedulers, in one guest boot, repetitions interleaved across
//! schedulers (A B C A B C ...), reported as seed-style tables.
//!
//! The host parses and checks everything, writes a plan, boots the guest
//! with bench/guest.sh (which runs the plan and prints `@R` result lines),
//! then aggregates: report.md, results.json, results.csv, charts/*.png.

pub mod report;
pub mod seeds;
pub mod spec;

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};

use crate::vm;
use report::{Report, Row};
use spec::{Sched, SchedSpec, Workload};

pub const DEFAULT_SCHEDS: &[&str] = &[
    "eevdf",
    "arbor:stock",
    "arbor:default",
    "bpfland",
    "cosmos",
    "lavd",
    "p2dq",
    "rusty",
];
/// Kept short: under TCG each sched_ext load takes about a minute, and the
/// default run loads 7 of them 3 times.
pub const DEFAULT_WORKLOADS: &[&str] = &[
    "hackbench:g=2,l=100",
    "perf-messaging:g=2,l=50,mode=thread",
    "perf-pipe:l=5000",
    "pgbench:clients=8,time=5",
    "wakeprobe:t=4",
];
const QUICK_SCHEDS: &[&str] = &["eevdf", "arbor:default"];
const QUICK_WORKLOADS: &[&str] = &["hackbench:g=1,l=50", "wakeprobe:m=1,w=2,t=2"];

#[derive(Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: Option<BenchCmd>,
    /// Guest topology (a preset of `arbor vm --list-topologies` or the explicit form).
    #[arg(short, long, global = true)]
    pub topology: Option<String>,
    /// A scheduler; repeat for several, the first is the baseline:
    /// eevdf[:NO_FEAT,key=val], arbor[:PROFILE][:FEAT,NO_FEAT][:KNOB=VALUE,...], bpfland, cosmos, lavd, p2dq, rusty.
    #[arg(short, long = "sched", value_name = "SPEC")]
    pub scheds: Vec<String>,
    /// A workload; repeat for several (see --list).
    #[arg(short, long = "workload", value_name = "SPEC")]
    pub workloads: Vec<String>,
    /// Repetitions per (scheduler, workload), interleaved across schedulers.
    #[arg(short, long, global = true)]
    pub reps: Option<u32>,
    /// Where to write the report (default: target/bench/<date>-<time>).
    #[arg(short, long, global = true, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// A smoke run: EEVDF vs scx_arbor, two short workloads, one repetition, 1s2c2t.
    #[arg(long)]
    pub quick: bool,
    /// Skip the PNG charts.
    #[arg(long, global = true)]
    pub no_charts: bool,
    /// List schedulers, workloads and reproducible seeds, and exit.
    #[arg(long)]
    pub list: bool,
}

#[derive(Subcommand)]
pub enum BenchCmd {
    /// Re-run a seed's experiment scaled to a VM: idler-llc,
    /// wake-affine-throttle, cache-aware, steal, asym-capacity.
    Reproduce { seed: String },
    /// Rebuild a finished run's report.md, CSV and charts from its results.json.
    Render { dir: PathBuf },
}

/// Everything one boot runs.
struct Plan {
    topo: vm::VmTopology,
    scheds: Vec<SchedSpec>,
    workloads: Vec<Workload>,
    reps: u32,
    arbor_flags: String,
    title: String,
    published: Option<(String, String)>,
}

fn repo() -> PathBuf {
    vm::repo_root()
}

/// The scx_arbor binary the guest runs: target/release/scx_arbor, or
/// The shell file guest.sh sources: every value quoted (vm::shell_quote),
/// since SCX_ARBOR_BIN and the flags come from the user's environment and
/// command line, and the guest runs this file as root.
fn settings_text(reps: u32, pg_scales: &str, arbor_extra: &str, arbor_bin: &str) -> String {
    use crate::vm::shell_quote as q;
    format!(
        "REPS={}\nPG_SCALES={}\nARBOR_EXTRA={}\nARBOR_BIN={}\n",
        q(&reps.to_string()),
        q(pg_scales),
        q(arbor_extra),
        q(arbor_bin)
    )
}

/// $SCX_ARBOR_BIN (e.g. a build in another target directory).
fn arbor_bin() -> PathBuf {
    std::env::var_os("SCX_ARBOR_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/release/scx_arbor"))
}

pub fn main(a: BenchArgs) -> Result<i32> {
    if a.list {
        println!("schedulers: eevdf[:NO_FEAT,FEAT,key=value]  arbor[:stock|seeds|default][:FEAT,NO_FEAT,...][:KNOB=VALUE,...]  {}", spec::PEERS.join("  "));
        println!("workloads:  {}", spec::WORKLOADS);
        println!("reproduce:  {}", seeds::names());
        // "-s a -s b ...": a list as the repeated flag that gives it
        let flags = |flag: &str, items: &[&str]| {
            items
                .iter()
                .map(|s| format!("{flag} {s}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!("default:    -t 2s2c2t -r 3 {}", flags("-s", DEFAULT_SCHEDS));
        println!("            {}", flags("-w", DEFAULT_WORKLOADS));
        return Ok(0);
    }
    if let Some(BenchCmd::Render { dir }) = &a.what {
        return render(dir, a.no_charts);
    }
    let bin = arbor_bin();
    if !bin.is_file() {
        bail!(
            "{} not found: build it with `make build` (or point SCX_ARBOR_BIN at one)",
            bin.display()
        );
    }
    let reps = a.reps.unwrap_or(if a.quick { 1 } else { 3 });
    if reps == 0 || reps > 100 {
        bail!("--reps must be in 1..100, got {reps}");
    }
    let (topo_s, scheds, workloads, arbor_flags, title, published) = match &a.what {
        Some(BenchCmd::Reproduce { seed }) => {
            if !a.scheds.is_empty() || !a.workloads.is_empty() || a.quick {
                bail!("reproduce runs the seed's own schedulers and workloads; drop -s/-w/--quick");
            }
            let r = seeds::find(seed)
                .with_context(|| format!("unknown seed '{seed}' (known: {})", seeds::names()))?;
            (
                a.topology.clone().unwrap_or(r.topology.to_string()),
                r.scheds.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                r.workloads
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>(),
                r.arbor_flags.to_string(),
                format!("Seed {}: reproduce {}", r.seed, r.name),
                Some((r.published.to_string(), r.scaling.to_string())),
            )
        }
        // (render has returned above)
        None | Some(BenchCmd::Render { .. }) => {
            let pick = |given: &Vec<String>, quick: &[&str], def: &[&str]| -> Vec<String> {
                if !given.is_empty() {
                    given.clone()
                } else if a.quick {
                    quick.iter().map(|s| s.to_string()).collect()
                } else {
                    def.iter().map(|s| s.to_string()).collect()
                }
            };
            (
                a.topology
                    .clone()
                    .unwrap_or(if a.quick { "1s2c2t" } else { "2s2c2t" }.into()),
                pick(&a.scheds, QUICK_SCHEDS, DEFAULT_SCHEDS),
                pick(&a.workloads, QUICK_WORKLOADS, DEFAULT_WORKLOADS),
                String::new(),
                if a.quick {
                    "Quick smoke run".into()
                } else {
                    "arbor bench".into()
                },
                None,
            )
        }
    };
    let topo = vm::VmTopology::parse(&topo_s)?;
    let ncpu = topo.nr_cpus();
    let scheds = scheds
        .iter()
        .map(|s| SchedSpec::parse(s))
        .collect::<Result<Vec<_>>>()?;
    let workloads = workloads
        .iter()
        .map(|w| Workload::parse(w, ncpu))
        .collect::<Result<Vec<_>>>()?;
    for (i, s) in scheds.iter().enumerate() {
        if scheds[..i].iter().any(|t| t.label == s.label) {
            bail!("scheduler '{}' is given twice", s.label);
        }
    }
    for (i, w) in workloads.iter().enumerate() {
        if workloads[..i].iter().any(|t| t.label == w.label) {
            bail!("workload '{}' is given twice", w.label);
        }
    }
    let plan = Plan {
        topo,
        scheds,
        workloads,
        reps,
        arbor_flags,
        title,
        published,
    };
    run(&plan, &a)
}

fn install_peers(plan: &Plan) -> Result<()> {
    let peers: Vec<&str> = plan
        .scheds
        .iter()
        .filter_map(|s| match &s.sched {
            Sched::Peer { name } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    if peers.is_empty() {
        return Ok(());
    }
    let st = Command::new("bash")
        .arg(repo().join("scripts/install-peers.sh"))
        .args(&peers)
        .status()
        .context("running scripts/install-peers.sh")?;
    if !st.success() {
        bail!("a peer scheduler failed to build (see the lines above); nothing was run");
    }
    Ok(())
}

fn stamp() -> String {
    Command::new("date")
        .arg("+%Y%m%d-%H%M%S")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| std::process::id().to_string())
}

/// The commit the run measures, read when the run starts (a commit made
/// while a long run goes on must not be credited with its numbers), with
/// "-dirty" when tracked files differ from it.
fn git_commit() -> String {
    Command::new("git")
        .args([
            "-C",
            &repo().display().to_string(),
            "describe",
            "--always",
            "--dirty",
            "--abbrev=7",
        ])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn run(plan: &Plan, a: &BenchArgs) -> Result<i32> {
    let commit = git_commit();
    install_peers(plan)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| repo().join("target/bench").join(stamp()));
    if out.exists() {
        bail!("{} exists; give another --out", out.display());
    }
    // Results go to DIR.partial and are renamed to DIR only when complete,
    // so a crashed run never looks like a result.
    let partial = PathBuf::from(format!("{}.partial", out.display()));
    let _ = fs::remove_dir_all(&partial);
    fs::create_dir_all(&partial).with_context(|| format!("creating {}", partial.display()))?;

    // the plan, read by bench/guest.sh (the repo is visible in the guest)
    let plan_dir = repo().join("target/bench/.plan");
    let _ = fs::remove_dir_all(&plan_dir);
    fs::create_dir_all(&plan_dir)?;
    let mut f = fs::File::create(plan_dir.join("scheds"))?;
    for s in &plan.scheds {
        writeln!(f, "{}", s.plan_line(&repo()))?;
    }
    let mut f = fs::File::create(plan_dir.join("workloads"))?;
    for w in &plan.workloads {
        writeln!(f, "{}", w.plan_line())?;
    }
    let pg_scales: Vec<String> = {
        let mut v: Vec<u32> = plan.workloads.iter().filter_map(|w| w.needs_pg).collect();
        v.sort();
        v.dedup();
        v.iter().map(|x| x.to_string()).collect()
    };
    fs::write(
        plan_dir.join("settings"),
        settings_text(
            plan.reps,
            &pg_scales.join(" "),
            &plan.arbor_flags,
            &arbor_bin().to_string_lossy(),
        ),
    )?;

    let total = plan.reps as usize * plan.scheds.len() * plan.workloads.len();
    eprintln!(
        "arbor bench: {} on {}: {} schedulers x {} workloads x {} reps = {} runs",
        plan.title,
        plan.topo,
        plan.scheds.len(),
        plan.workloads.len(),
        plan.reps,
        total
    );
    let mut rows: Vec<Row> = Vec::new();
    let mut log = fs::File::create(partial.join("guest.log"))?;
    let mut err: Option<anyhow::Error> = None;
    let mut done = 0usize;
    let mut on_line = |line: &str| {
        let _ = writeln!(log, "{line}");
        if let Some(p) = line.strip_prefix("@P ") {
            if p.starts_with("done ") {
                done += 1;
            }
            eprintln!("[{done}/{total}] {p}");
        } else {
            match Row::parse(line) {
                Ok(Some(r)) => rows.push(r),
                Ok(None) => {}
                Err(e) => err = Some(e),
            }
        }
    };
    let guest = repo().join("bench/guest.sh");
    let cmd = format!("bash {} {}", guest.display(), plan_dir.display());
    let code = vm::run_with(&plan.topo, None, &cmd, false, None, Some(&mut on_line))?;
    if let Some(e) = err {
        return Err(e);
    }
    if code != 0 {
        bail!(
            "the guest run failed (exit {code}); its log is in {}/guest.log, no report written",
            partial.display()
        );
    }
    if rows.is_empty() {
        bail!(
            "the guest printed no results; see {}/guest.log",
            partial.display()
        );
    }

    let scheds: Vec<String> = plan.scheds.iter().map(|s| s.label.clone()).collect();
    let wl: Vec<(String, String)> = plan
        .workloads
        .iter()
        .map(|w| (w.label.clone(), w.primary.to_string()))
        .collect();
    let cmdline = std::env::args().collect::<Vec<_>>().join(" ");
    let meta = serde_json::json!({
        "title": plan.title, "command": cmdline, "commit": commit,
        "topology": plan.topo.to_string(), "reps": plan.reps,
        "published": plan.published.as_ref().map(|p| &p.0),
        "scaling": plan.published.as_ref().map(|p| &p.1),
        "arbor_bin": std::env::var_os("SCX_ARBOR_BIN").map(|b| b.to_string_lossy().to_string()),
    });
    let (rep, md) = write_report(&partial, &rows, &scheds, &wl, &meta, a.no_charts)?;
    fs::rename(&partial, &out).with_context(|| format!("renaming to {}", out.display()))?;
    println!("{md}");
    eprintln!("arbor bench: report in {}", out.display());
    // Every cell must hold a result; for --quick (make test) a missing one,
    // or an ejection, fails the run.
    let missing: Vec<String> = wl
        .iter()
        .flat_map(|(w, m)| scheds.iter().map(move |s| (w, m, s)))
        .filter(|(w, m, s)| {
            rep.cells
                .get(&((*w).clone(), (*m).clone(), (*s).clone()))
                .is_none_or(|c| c.n == 0 || c.ejected > 0)
        })
        .map(|(w, _, s)| format!("{w} under {s}"))
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "arbor bench: no result (failed or ejected) for: {}; the report holds the rest",
            missing.join("; ")
        );
        // a failed cell or an ejection is a failed run, --quick or not
        return Ok(1);
    }
    Ok(0)
}

/// Writes report.md, results.json, results.csv and the charts of one run
/// into `dir`; returns the aggregate and the markdown.
fn write_report(
    dir: &Path,
    rows: &[Row],
    scheds: &[String],
    wl: &[(String, String)],
    meta: &serde_json::Value,
    no_charts: bool,
) -> Result<(Report, String)> {
    let rep = Report::build(rows, scheds, wl);
    let text = |k: &str| {
        meta.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or("?")
            .to_string()
    };
    let mut md = format!(
        "# {}\n\n- command: `{}`\n- commit: `{}`\n- topology: {} (QEMU TCG, one boot), {} repetitions interleaved across schedulers\n",
        text("title"),
        text("command"),
        text("commit"),
        text("topology"),
        meta.get("reps").and_then(|v| v.as_u64()).unwrap_or(0)
    );
    if let Some(bin) = meta.get("arbor_bin").and_then(|v| v.as_str()) {
        md += &format!("- scx_arbor binary: `{bin}` (SCX_ARBOR_BIN)\n");
    }
    if let Some(p) = meta.get("published").and_then(|v| v.as_str()) {
        md += &format!("- **the seed's published result:** {p}\n");
        if let Some(s) = meta.get("scaling").and_then(|v| v.as_str()) {
            md += &format!("- scaled to the VM: {s}\n");
        }
    }
    md += "\n";
    md += &rep.markdown();
    fs::write(dir.join("results.json"), rep.json(rows, meta)?)?;
    fs::write(dir.join("results.csv"), Report::csv(rows))?;
    if !no_charts {
        match charts(dir) {
            Ok(n) => md += &format!("\nCharts: {n} PNG files in `charts/`.\n"),
            Err(e) => eprintln!("arbor bench: warning: no charts: {e:#}"),
        }
    }
    fs::write(dir.join("report.md"), &md)?;
    Ok((rep, md))
}

/// `arbor bench render DIR`: rebuild a finished run's report from its
/// results.json (the raw rows), e.g. after the report's layout changed.
fn render(dir: &Path, no_charts: bool) -> Result<i32> {
    let path = dir.join("results.json");
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let j: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    let strs = |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_str()).map(String::from);
    let scheds: Vec<String> = j["schedulers"]
        .as_array()
        .with_context(|| format!("{}: no \"schedulers\" list", path.display()))?
        .iter()
        .filter_map(|s| s.as_str().map(String::from))
        .collect();
    let wl: Vec<(String, String)> = j["workloads"]
        .as_array()
        .with_context(|| format!("{}: no \"workloads\" list", path.display()))?
        .iter()
        .filter_map(|w| Some((strs(w, "workload")?, strs(w, "primary")?)))
        .collect();
    let rows: Vec<Row> = j["raw"]
        .as_array()
        .with_context(|| format!("{}: no \"raw\" rows", path.display()))?
        .iter()
        .map(|r| {
            Some(Row {
                rep: r.get("rep")?.as_u64()? as u32,
                sched: strs(r, "scheduler")?,
                workload: strs(r, "workload")?,
                metric: strs(r, "metric")?,
                value: r.get("value")?.as_f64().unwrap_or(f64::NAN),
            })
        })
        .collect::<Option<_>>()
        .with_context(|| format!("{}: a malformed raw row", path.display()))?;
    if scheds.is_empty() || wl.is_empty() || rows.is_empty() {
        bail!("{}: no results to render", path.display());
    }
    let (_, md) = write_report(dir, &rows, &scheds, &wl, &j["meta"], no_charts)?;
    println!("{md}");
    Ok(0)
}

/// One PNG per workload (primary metric, schedulers side by side, stdev
/// error bars), drawn by bench/plot.py with matplotlib.
pub(crate) fn charts(dir: &Path) -> Result<usize> {
    let out = Command::new("/usr/bin/python3")
        .arg(repo().join("bench/plot.py"))
        .arg(dir.join("results.json"))
        .arg(dir.join("charts"))
        .output()
        .context("running /usr/bin/python3 bench/plot.py (python3-matplotlib)")?;
    if !out.status.success() {
        bail!("{}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(fs::read_dir(dir.join("charts"))?.count())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The settings file is sourced by the guest as root: a value with
    /// quotes and a command substitution must come back as the same bytes
    /// and run nothing.
    #[test]
    fn settings_values_are_quoted_for_the_shell() {
        let dir = std::env::temp_dir().join(format!("arbor-settings-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let marker = dir.join("x");
        let evil_bin = format!("/opt/a b/'$(touch {})'/scx_arbor", marker.display());
        let evil_extra = format!("-f STEAL `touch {}` $HOME \\ \"", marker.display());
        let text = settings_text(3, "2 4", &evil_extra, &evil_bin);
        fs::write(dir.join("settings"), &text).unwrap();
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(r#". "$1/settings" && printf '%s\0' "$REPS" "$PG_SCALES" "$ARBOR_EXTRA" "$ARBOR_BIN""#)
            .arg("bash")
            .arg(&dir)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !marker.exists(),
            "sourcing the settings ran a command:\n{text}"
        );
        let vals: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .split('\0')
            .map(str::to_string)
            .collect();
        assert_eq!(
            &vals[..4],
            &["3", "2 4", evil_extra.as_str(), evil_bin.as_str()]
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    /// The names bench checks `arbor:...:FEAT` against are the scheduler's
    /// own, so `arbor:stock:FEATURE` (the header word of --list-features)
    /// is refused on the host, not in the guest.
    #[test]
    fn feature_names_are_the_schedulers_own() {
        assert!(spec::SchedSpec::parse("arbor:stock:WA_IDLE,STEAL").is_ok());
        let e = spec::SchedSpec::parse("arbor:stock:FEATURE");
        assert!(e.is_err());
    }
}
