//! `arbor verifier`: the verifier's instruction count of each of
//! scx_arbor's BPF programs on each guest kernel, as scx's CI records them
//! with veristat. One boot per kernel loads scx_arbor for a second with
//! `--verifier-json -`; the counts are tabled per program and kernel, and
//! compared with a committed table: a program whose count grew by more
//! than 20% is flagged (exit 1), and a kernel whose verifier refuses the
//! BPF is reported with the verifier's own lines, not hidden (exit 1).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use scx_arbor::verifier::{growths, Growth, Report, GROWTH_LIMIT};
use serde::{Deserialize, Serialize};

use crate::vm;

#[derive(Debug, Args)]
pub struct VerifierArgs {
    /// Guest kernels to load on (as `arbor vm --kernel`): default, rt,
    /// next, cloud or a version; repeat for several.
    #[arg(long = "kernel", value_name = "K", default_values_t = ["default".to_string()])]
    kernels: Vec<String>,
    /// The guest's topology (counts depend on it: the topology is data the
    /// verifier sees).
    #[arg(short, long, default_value = "2s2c2t")]
    topology: String,
    /// The committed table to compare with (skipped if absent).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "docs/verifier/results.json"
    )]
    baseline: PathBuf,
    /// Write report.md and results.json here.
    #[arg(long, value_name = "DIR", default_value = "target/verifier")]
    out: PathBuf,
}

/// One kernel's outcome: its counts, or the verifier's refusal.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KernelRun {
    /// `--kernel` as given.
    pub kernel: String,
    pub topology: String,
    pub report: Option<Report>,
    /// Why there is no report: the scheduler's last lines (the verifier's
    /// message when it refused a program).
    pub refused: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Results {
    pub runs: Vec<KernelRun>,
}

/// Marks the guest's lines: the report, and the log of a failed load.
const REPORT: &str = "ARBOR-VERIFIER-REPORT ";
const FAILED: &str = "ARBOR-VERIFIER-FAILED ";

/// The guest's command: load scx_arbor for a second, print its report or
/// its log's last lines, each marked.
fn guest_command(bin: &Path) -> String {
    let bin = vm::shell_quote(&bin.to_string_lossy());
    // on a refusal, load again with -vv: libbpf's reason and the
    // verifier's log end its output (ELF, map and relocation chatter left out)
    format!(
        "log=$(mktemp); out=$({bin} --run-secs 1 --verifier-json - 2>\"$log\"); rc=$?; \
         printf '%s\\n' \"$out\" | grep '^{{' | sed 's/^/{REPORT}/'; \
         if [ $rc -ne 0 ]; then tail -n 5 \"$log\" | sed 's/^/{FAILED}/'; \
         {bin} -vv --run-secs 1 2>&1 | grep -v '^libbpf: \\(elf\\|sec\\|map\\|struct_ops\\|extern (ksym)\\|prog .*: found\\)' \
         | tail -n 30 | sed 's/^/{FAILED}/'; fi; exit 0"
    )
}

/// Reads the guest's marked lines into a run.
pub fn parse_guest(kernel: &str, topology: &str, lines: &[String]) -> Result<KernelRun> {
    let mut report = None;
    let mut failed = Vec::new();
    for l in lines {
        if let Some(j) = l.strip_prefix(REPORT) {
            report = Some(
                serde_json::from_str::<Report>(j)
                    .with_context(|| format!("kernel {kernel}: unreadable report {j:?}"))?,
            );
        } else if let Some(f) = l.strip_prefix(FAILED) {
            failed.push(f.trim_end().to_string());
        }
    }
    let refused = match (&report, failed.is_empty()) {
        (Some(_), true) => None,
        (_, false) => Some(failed.join("\n")),
        (None, true) => Some("scx_arbor printed no report and no error".to_string()),
    };
    Ok(KernelRun {
        kernel: kernel.to_string(),
        topology: topology.to_string(),
        report: if refused.is_some() { None } else { report },
        refused,
    })
}

/// The baseline's run for the same kernel release and topology.
fn same_machine<'a>(base: &'a Results, r: &Report, topology: &str) -> Option<&'a Report> {
    base.runs
        .iter()
        .filter(|b| b.topology == topology)
        .filter_map(|b| b.report.as_ref())
        .find(|b| b.kernel == r.kernel && (b.cpus, b.llcs, b.nodes) == (r.cpus, r.llcs, r.nodes))
}

/// The table: a row per program, a column per kernel; and the flags.
pub fn render(res: &Results, base: Option<&Results>) -> (String, Vec<(String, Growth)>) {
    let mut md = String::from(
        "# Verifier instruction counts\n\n\
         Instructions the kernel's verifier processed per BPF program of scx_arbor \
         (`bpf_prog_info.verified_insns`, veristat's \"Insns\"), with the compiled size in \
         parentheses; the verifier refuses a program past 1,000,000. Written by `arbor verifier`.\n\n",
    );
    let runs: Vec<&KernelRun> = res.runs.iter().collect();
    let mut names: Vec<String> = Vec::new();
    for r in runs.iter().filter_map(|r| r.report.as_ref()) {
        for p in &r.programs {
            if !names.contains(&p.name) {
                names.push(p.name.clone());
            }
        }
    }
    md += "| program |";
    for r in &runs {
        let rel = r.report.as_ref().map_or("refused", |x| x.kernel.as_str());
        md += &format!(" {} (`{}`) |", r.kernel, rel);
    }
    md += "\n|---|";
    md += &"---:|".repeat(runs.len());
    md += "\n";
    let mut total = vec![0u64; runs.len()];
    for n in &names {
        md += &format!("| {n} |");
        for (i, r) in runs.iter().enumerate() {
            match r
                .report
                .as_ref()
                .and_then(|x| x.programs.iter().find(|p| &p.name == n))
            {
                Some(p) => {
                    total[i] += p.verified_insns as u64;
                    md += &format!(" {} ({}) |", p.verified_insns, p.insns);
                }
                None => md += " – |",
            }
        }
        md += "\n";
    }
    md += "| **total** |";
    for t in &total {
        md += &format!(" **{t}** |");
    }
    md += "\n\n";
    for r in &runs {
        if let Some(x) = &r.report {
            md += &format!(
                "- `{}`: kernel {}, topology {} ({} CPUs, {} LLCs, {} nodes)\n",
                r.kernel, x.kernel, r.topology, x.cpus, x.llcs, x.nodes
            );
        }
    }
    let mut flags = Vec::new();
    for r in &runs {
        if let Some(why) = &r.refused {
            md += &format!(
                "\n**{}: the BPF did not load.** Its last lines:\n\n```\n{why}\n```\n",
                r.kernel
            );
        }
        let (Some(x), Some(b)) = (&r.report, base) else {
            continue;
        };
        match same_machine(b, x, &r.topology) {
            None => {
                md += &format!(
                    "\n- `{}`: no baseline for {} on {}\n",
                    r.kernel, x.kernel, r.topology
                )
            }
            Some(bx) => {
                let g = growths(&bx.programs, &x.programs, GROWTH_LIMIT);
                if g.is_empty() {
                    md += &format!(
                        "\n- `{}`: no program grew by more than {:.0}% against the baseline\n",
                        r.kernel,
                        GROWTH_LIMIT * 100.0
                    );
                }
                for g in g {
                    md += &format!(
                        "\n- **FLAG** `{}` {}: {} → {} verified instructions ({:+.0}%, limit {:.0}%)\n",
                        r.kernel,
                        g.name,
                        g.before,
                        g.after,
                        g.growth * 100.0,
                        GROWTH_LIMIT * 100.0
                    );
                    flags.push((r.kernel.clone(), g));
                }
            }
        }
    }
    (md, flags)
}

pub fn main(a: VerifierArgs) -> Result<i32> {
    let topo = vm::VmTopology::parse(&a.topology)?;
    let base: Option<Results> = if a.baseline.exists() {
        let t = std::fs::read_to_string(&a.baseline)
            .with_context(|| format!("--baseline {}", a.baseline.display()))?;
        Some(serde_json::from_str(&t).with_context(|| {
            format!(
                "--baseline {}: not a results.json of arbor verifier",
                a.baseline.display()
            )
        })?)
    } else {
        eprintln!(
            "arbor verifier: no baseline at {}; nothing to compare",
            a.baseline.display()
        );
        None
    };
    let bin = crate::bench::arbor_bin();
    if !bin.is_file() {
        bail!(
            "{} not found: build it with `make build` (or point SCX_ARBOR_BIN at one)",
            bin.display()
        );
    }
    let mut res = Results::default();
    for k in &a.kernels {
        let mut lines = Vec::new();
        let mut other: Vec<String> = Vec::new();
        let mut keep = |l: &str| {
            if l.starts_with(REPORT) || l.starts_with(FAILED) {
                lines.push(l.to_string());
            } else {
                println!("{l}");
                other.push(l.to_string());
            }
        };
        let rc = vm::run_with(
            &topo,
            Some(k),
            &guest_command(&bin),
            false,
            Some(std::time::Duration::from_secs(1800)),
            Some(&mut keep),
        )
        .with_context(|| format!("booting kernel {k}"))?;
        if rc != 0 {
            // the guest did not run the command to its end: a refusal of
            // this kernel, with what it printed; the other kernels go on
            let tail = other[other.len().saturating_sub(10)..].join("\n");
            eprintln!("arbor verifier: kernel {k}: the guest's command failed (exit {rc})");
            res.runs.push(KernelRun {
                kernel: k.to_string(),
                topology: a.topology.clone(),
                report: None,
                refused: Some(format!("the guest's command failed (exit {rc})\n{tail}")),
            });
            continue;
        }
        res.runs.push(parse_guest(k, &a.topology, &lines)?);
    }
    let (md, flags) = render(&res, base.as_ref());
    std::fs::create_dir_all(&a.out).with_context(|| format!("--out {}", a.out.display()))?;
    std::fs::write(a.out.join("report.md"), &md)?;
    std::fs::write(
        a.out.join("results.json"),
        serde_json::to_string_pretty(&res)? + "\n",
    )?;
    println!("{md}");
    eprintln!(
        "arbor verifier: wrote {}/report.md and results.json",
        a.out.display()
    );
    let refused = res.runs.iter().filter(|r| r.refused.is_some()).count();
    Ok(if flags.is_empty() && refused == 0 {
        0
    } else {
        1
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use scx_arbor::verifier::ProgCount;

    fn report(kernel: &str, sel: u32) -> Report {
        Report {
            kernel: kernel.into(),
            cpus: 8,
            llcs: 2,
            nodes: 2,
            programs: vec![
                ProgCount {
                    name: "arbor_select_cpu".into(),
                    verified_insns: sel,
                    insns: 900,
                },
                ProgCount {
                    name: "arbor_enqueue".into(),
                    verified_insns: 400,
                    insns: 300,
                },
            ],
        }
    }

    #[test]
    fn guest_lines_become_a_report_or_a_refusal() {
        let j = serde_json::to_string(&report("7.2", 1000)).unwrap();
        let ok = parse_guest("default", "2s2c2t", &[format!("{REPORT}{j}")]).unwrap();
        assert_eq!(ok.report.unwrap().programs[0].verified_insns, 1000);
        assert!(ok.refused.is_none());
        let bad = parse_guest(
            "next",
            "2s2c2t",
            &[format!(
                "{FAILED}libbpf: prog 'arbor_select_cpu': BPF program load failed: -EACCES"
            )],
        )
        .unwrap();
        assert!(bad.report.is_none());
        assert!(bad.refused.unwrap().contains("EACCES"));
        let nothing = parse_guest("rt", "2s2c2t", &[]).unwrap();
        assert!(nothing.refused.unwrap().contains("no report"));
        assert!(parse_guest("rt", "2s2c2t", &[format!("{REPORT}{{")]).is_err());
    }

    #[test]
    fn a_growth_past_the_limit_on_the_same_kernel_is_flagged() {
        let run = |k: &str, rel: &str, sel| KernelRun {
            kernel: k.into(),
            topology: "2s2c2t".into(),
            report: Some(report(rel, sel)),
            refused: None,
        };
        let base = Results {
            runs: vec![run("default", "7.2", 1000), run("next", "7.3", 1000)],
        };
        let cur = Results {
            runs: vec![run("default", "7.2", 1300), run("next", "7.3", 1100)],
        };
        let (md, flags) = render(&cur, Some(&base));
        assert_eq!(flags.len(), 1, "{md}");
        assert_eq!(
            (flags[0].0.as_str(), flags[0].1.name.as_str()),
            ("default", "arbor_select_cpu")
        );
        assert!(
            md.contains("**FLAG** `default` arbor_select_cpu: 1000 → 1300"),
            "{md}"
        );
        assert!(
            md.contains("| arbor_select_cpu | 1300 (900) | 1100 (900) |"),
            "{md}"
        );
        // another kernel release is not compared with this one's baseline
        let other = Results {
            runs: vec![run("default", "7.2.14", 5000)],
        };
        let (md, flags) = render(&other, Some(&base));
        assert!(flags.is_empty() && md.contains("no baseline"), "{md}");
    }
}
