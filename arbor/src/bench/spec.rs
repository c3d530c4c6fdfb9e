//! What `arbor bench` runs: scheduler specs (`eevdf:NO_SIS_UTIL`,
//! `arbor:stock:STEAL`, `lavd`) and workload specs (`hackbench:g=4,mode=thread`),
//! parsed and checked on the host so a typo fails before a guest boots.

use std::path::Path;

use anyhow::{bail, Result};
use scx_arbor::spec::ArborSpec;

use super::plan::{PlanSched, Run};

/// The peers `arbor bench` knows how to install (scripts/install-peers.sh).
pub const PEERS: &[&str] = &["bpfland", "cosmos", "lavd", "p2dq", "rusty"];

#[derive(Debug, Clone, PartialEq)]
pub enum Sched {
    /// No sched_ext scheduler; tokens are written to debugfs: `NO_SIS_UTIL`
    /// to sched/features, `key=value` to sched/<key>.
    Eevdf { tokens: Vec<String> },
    /// scx_arbor with a profile, `-f` features and knobs (scx_arbor::spec).
    Arbor(ArborSpec),
    /// A peer scheduler from .peers/bin, with its defaults.
    Peer { name: String },
}

#[derive(Debug, Clone, PartialEq)]
pub struct SchedSpec {
    pub label: String,
    pub sched: Sched,
}

fn is_feature_name(t: &str) -> bool {
    !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

impl SchedSpec {
    pub fn parse(s: &str) -> Result<Self> {
        let s = s.trim();
        let mut parts = s.split(':');
        let head = parts.next().unwrap_or_default();
        let rest: Vec<&str> = parts.collect();
        let sched = match head {
            "eevdf" => {
                let mut tokens = Vec::new();
                for part in &rest {
                    for t in part.split(',').filter(|t| !t.is_empty()) {
                        let ok = match t.split_once('=') {
                            Some((k, v)) => {
                                !k.is_empty()
                                    && !v.is_empty()
                                    && k.chars().all(|c| {
                                        c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'
                                    })
                                    && v.chars().all(|c| c.is_ascii_alphanumeric())
                            }
                            None => is_feature_name(t),
                        };
                        if !ok {
                            bail!("scheduler '{s}': '{t}' is neither a sched feature (NAME or NO_NAME) nor a debugfs setting (key=value)");
                        }
                        tokens.push(t.to_string());
                    }
                }
                Sched::Eevdf { tokens }
            }
            "arbor" => Sched::Arbor(ArborSpec::parse(s)?),
            p if PEERS.contains(&p) => {
                if !rest.is_empty() {
                    bail!("scheduler '{s}': peers run with their defaults; options are not supported");
                }
                Sched::Peer { name: p.to_string() }
            }
            _ => bail!(
                "unknown scheduler '{s}' (known: eevdf[:FEAT,key=val], arbor[:PROFILE][:FEATS][:KNOB=VALUE,...], {})",
                PEERS.join(", ")
            ),
        };
        Ok(SchedSpec {
            label: s.to_string(),
            sched,
        })
    }

    /// What the guest starts for it: `arbor_bin` for scx_arbor, the
    /// peer's build under `repo`/.peers/bin.
    pub fn to_plan(&self, repo: &Path, arbor_bin: &Path) -> PlanSched {
        let run = match &self.sched {
            Sched::Eevdf { tokens } => Run::Eevdf {
                tokens: tokens.clone(),
            },
            Sched::Arbor(spec) => Run::Scx {
                bin: arbor_bin.to_path_buf(),
                args: spec.args(),
                ops: "arbor".into(),
            },
            // the peers' ops are named after them: scx_lavd -> "lavd_<version>..."
            Sched::Peer { name } => Run::Scx {
                bin: repo.join(".peers/bin").join(format!("scx_{name}")),
                args: vec![],
                ops: name.clone(),
            },
        };
        PlanSched {
            label: self.label.clone(),
            run,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_specs_parse() {
        assert_eq!(
            SchedSpec::parse("eevdf").unwrap().sched,
            Sched::Eevdf { tokens: vec![] }
        );
        assert_eq!(
            SchedSpec::parse("eevdf:NO_SIS_UTIL,llc_balancing=0")
                .unwrap()
                .sched,
            Sched::Eevdf {
                tokens: vec!["NO_SIS_UTIL".into(), "llc_balancing=0".into()]
            }
        );
        assert_eq!(
            SchedSpec::parse("arbor:stock:STEAL,NO_WA_IDLE")
                .unwrap()
                .sched,
            Sched::Arbor(ArborSpec {
                profile: Some("stock".into()),
                feats: vec!["STEAL".into(), "NO_WA_IDLE".into()],
                knobs: vec![]
            })
        );
        assert_eq!(
            SchedSpec::parse("arbor:CACHE_LB").unwrap().sched,
            Sched::Arbor(ArborSpec {
                profile: None,
                feats: vec!["CACHE_LB".into()],
                knobs: vec![]
            })
        );
        assert_eq!(
            SchedSpec::parse("lavd").unwrap().sched,
            Sched::Peer {
                name: "lavd".into()
            }
        );
        let plan = |s: &str| {
            SchedSpec::parse(s)
                .unwrap()
                .to_plan(Path::new("/r"), Path::new("/b/scx_arbor"))
                .run
        };
        assert_eq!(
            plan("rusty"),
            Run::Scx {
                bin: "/r/.peers/bin/scx_rusty".into(),
                args: vec![],
                ops: "rusty".into()
            }
        );
        let args = |s: &str| match plan(s) {
            Run::Scx { args, .. } => args.join(" "),
            r => panic!("{r:?}"),
        };
        assert_eq!(args("arbor:seeds:STEAL"), "--profile seeds -f STEAL");
        // knobs, checked against scx_arbor's own options
        assert_eq!(
            args("arbor:stock:WA_THROTTLE:wake-affine-interval-ms=10"),
            "--profile stock -f WA_THROTTLE --wake-affine-interval-ms=10"
        );
        assert_eq!(
            args("arbor:stock:cpu-capacity=2-3:430"),
            "--profile stock --cpu-capacity=2-3:430"
        );
    }

    #[test]
    fn bad_scheduler_specs_say_what_is_wrong() {
        let e = |s: &str| format!("{:#}", SchedSpec::parse(s).unwrap_err());
        assert!(e("cfs").contains("unknown scheduler 'cfs'"));
        assert!(e("arbor:fast").contains("unknown profile 'fast'"));
        assert!(e("arbor:stock:STEEL").contains("STEEL"));
        assert!(e("arbor:stock:no-knob=3").contains("unknown knob 'no-knob'"));
        assert!(e("eevdf:sis util").contains("neither a sched feature"));
        assert!(e("lavd:--performance").contains("defaults"));
        assert!(e("arbor:stock:STEAL:X").contains("one ':' part"));
    }
}
