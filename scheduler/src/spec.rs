//! The one reader of scx_arbor scheduler specs, as `arbor bench` and `arbor
//! sim` name a configuration: `arbor[:PROFILE][:FEAT,NO_FEAT,...][:KNOB=VALUE,...]`,
//! e.g. `arbor:stock:WA_THROTTLE:wake-affine-interval-ms=10` or
//! `arbor:default:cpu-capacity=4-7:430`. Features are checked against
//! `features::FEATURES`, knobs against the loader's own option parser
//! (`Knobs::with_overrides`), so a typo fails on the host, in one line.

use anyhow::{bail, Context, Result};

use crate::features;
use crate::knobs::Knobs;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArborSpec {
    /// The profile named (None: the loader's default profile).
    pub profile: Option<String>,
    /// FEAT / NO_FEAT tokens, in order.
    pub feats: Vec<String>,
    /// (long option without dashes, value), in order.
    pub knobs: Vec<(String, String)>,
}

impl ArborSpec {
    /// Parses what follows `arbor` (`rest`: "" or ":stock:STEAL:..."); `s`
    /// is the whole spec, for errors.
    pub fn parse(s: &str) -> Result<ArborSpec> {
        let s = s.trim();
        let rest = match s.strip_prefix("arbor") {
            Some("") => "",
            Some(r) if r.starts_with(':') => &r[1..],
            _ => bail!("scheduler '{s}' is not an scx_arbor spec (arbor[:PROFILE][:FEATS][:KNOB=VALUE,...])"),
        };
        let mut spec = ArborSpec {
            profile: None,
            feats: Vec::new(),
            knobs: Vec::new(),
        };
        // the knobs start at the first part holding '=' and run to the end:
        // a value may itself hold ':' and ',' (cpu-capacity=0-1:1024,2-4:430)
        let (head, knobs) = match rest.split(':').position(|p| p.contains('=')) {
            Some(i) => {
                let parts: Vec<&str> = rest.split(':').collect();
                (parts[..i].to_vec(), Some(parts[i..].join(":")))
            }
            None => (rest.split(':').filter(|p| !p.is_empty()).collect(), None),
        };
        for (i, part) in head.iter().enumerate() {
            if part.is_empty() {
                continue;
            }
            if i == 0 && features::PROFILES.contains(part) {
                spec.profile = Some(part.to_string());
                continue;
            }
            let looks_like_features = part.split(',').all(|f| {
                f.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            });
            if i == 0 && !looks_like_features {
                bail!(
                    "scheduler '{s}': unknown profile '{part}' (profiles: {})",
                    features::PROFILES.join(", ")
                );
            }
            if !spec.feats.is_empty() {
                bail!("scheduler '{s}': features go in one ':' part, comma-separated");
            }
            spec.feats = part
                .split(',')
                .filter(|f| !f.is_empty())
                .map(str::to_string)
                .collect();
        }
        if !spec.feats.is_empty() {
            features::apply(0, &spec.feats).with_context(|| format!("scheduler '{s}'"))?;
        }
        if let Some(k) = knobs {
            // "a=1,b=0-1:1024,2-4:430" -> a=1, b=0-1:1024,2-4:430: a token
            // without '=' that starts with a digit continues the previous
            // value (a CPU list)
            for tok in k.split(',') {
                match (tok.split_once('='), spec.knobs.last_mut()) {
                    (Some((name, v)), _) if !name.is_empty() && !v.is_empty() => {
                        spec.knobs.push((name.to_string(), v.to_string()))
                    }
                    (None, Some(last)) if tok.starts_with(|c: char| c.is_ascii_digit()) => {
                        last.1.push(',');
                        last.1.push_str(tok);
                    }
                    _ => bail!("scheduler '{s}': '{tok}' is not KNOB=VALUE (knobs come last: arbor[:PROFILE][:FEATS][:KNOB=VALUE,...])"),
                }
            }
            Knobs::default()
                .with_overrides(&spec.knobs)
                .with_context(|| format!("scheduler '{s}'"))?;
        }
        Ok(spec)
    }

    /// The profile's mask with the features applied (the loader's
    /// `--profile P -f FEATS`).
    pub fn feature_mask(&self) -> Result<u64> {
        let mask = features::profile_mask(self.profile.as_deref().unwrap_or("default"))?;
        if self.feats.is_empty() {
            Ok(mask)
        } else {
            features::apply(mask, &self.feats)
        }
    }

    /// scx_arbor's command-line arguments for this spec.
    pub fn args(&self) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(p) = &self.profile {
            a.extend(["--profile".to_string(), p.clone()]);
        }
        if !self.feats.is_empty() {
            a.extend(["-f".to_string(), self.feats.join(",")]);
        }
        for (k, v) in &self.knobs {
            a.push(format!("--{k}={v}"));
        }
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knobs::tests::kv;

    #[test]
    fn profiles_features_and_knobs_parse() {
        let s = ArborSpec::parse("arbor:stock:WA_THROTTLE:wake-affine-interval-ms=10").unwrap();
        assert_eq!(s.profile.as_deref(), Some("stock"));
        assert_eq!(s.feats, ["WA_THROTTLE"]);
        assert_eq!(s.knobs, [kv("wake-affine-interval-ms", "10")]);
        assert_eq!(
            s.args(),
            [
                "--profile",
                "stock",
                "-f",
                "WA_THROTTLE",
                "--wake-affine-interval-ms=10"
            ]
        );
        let s = ArborSpec::parse("arbor").unwrap();
        assert_eq!(s.args(), Vec::<String>::new());
        assert_eq!(
            s.feature_mask().unwrap(),
            features::profile_mask("default").unwrap()
        );
        let s = ArborSpec::parse("arbor:NO_STEAL,CACHE_WAKE").unwrap();
        assert_eq!((s.profile, s.feats.len()), (None, 2));
    }

    #[test]
    fn knob_values_may_hold_colons_and_commas() {
        let s = ArborSpec::parse(
            "arbor:default:cpu-capacity=0-1:1024,2-4:430,wake-affine-interval-ms=1",
        )
        .unwrap();
        assert_eq!(
            s.knobs,
            [
                kv("cpu-capacity", "0-1:1024,2-4:430"),
                kv("wake-affine-interval-ms", "1")
            ]
        );
        assert!(s.feats.is_empty());
    }

    #[test]
    fn bad_specs_say_what_is_wrong_in_one_line() {
        let e = |s: &str| format!("{:#}", ArborSpec::parse(s).unwrap_err());
        assert!(e("arbor:fast").contains("unknown profile 'fast'"));
        assert!(e("arbor:stock:NOPE").contains("NOPE"));
        assert!(e("arbor:stock:FEATURE").contains("FEATURE"));
        assert!(e("arbor:stock:bogus-knob=1").contains("unknown knob 'bogus-knob'"));
        assert!(e("arbor:stock:wake-affine-interval-ms=x").contains("wake-affine-interval-ms"));
        assert!(e("arbor:stock:STEAL:CACHE_LB").contains("one ':' part"));
        assert!(e("arbor:stock:=1").contains("not KNOB=VALUE"));
        assert!(e("arbor:stock:slice-us=1,STEAL").contains("not KNOB=VALUE"));
        assert!(e("arborx").contains("not an scx_arbor spec"));
        for s in ["arbor:fast", "arbor:stock:bogus-knob=1"] {
            assert!(!e(s).contains('\n'), "{s}");
        }
    }
}
