//! `arbor bench reproduce SEED`: a seed's experiment scaled to a VM
//! topology that resembles the seed's machine (the catalogue's [`Vm`]),
//! stock against the mechanism, with the seed's published numbers printed
//! beside ours.

use anyhow::{Context, Result};

use super::catalogue::{find, plain_names, Vm};

/// What `arbor bench` runs for a seed, and the report's header lines.
pub struct Experiment {
    pub topology: &'static str,
    pub scheds: &'static [&'static str],
    pub workloads: &'static [&'static str],
    pub title: String,
    pub published: &'static str,
    pub scaling: &'static str,
}

/// The VM experiment of the seed named (or numbered) `name`.
pub fn experiment(name: &str) -> Result<Experiment> {
    let s =
        find(name).with_context(|| format!("unknown seed '{name}' (known: {})", plain_names()))?;
    let Vm {
        features,
        topology,
        scheds,
        workloads,
        published,
        scaling,
    } = s.vm;
    Ok(Experiment {
        topology,
        scheds,
        workloads,
        title: format!("Seed {} ({features}): reproduce {}", s.number, s.name),
        published,
        scaling,
    })
}

/// Every seed's VM experiment, for bench's check that each runs.
#[cfg(test)]
pub fn all() -> impl Iterator<Item = &'static Vm> {
    super::catalogue::SEEDS.iter().map(|s| &s.vm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_by_name_or_number_and_its_title() {
        let e = experiment("steal").unwrap();
        assert_eq!(e.title, "Seed 003 (STEAL): reproduce steal");
        assert_eq!(e.topology, "2s2c2t");
        assert_eq!(experiment("3").unwrap().title, e.title);
        let err = format!("{:#}", experiment("stealing").err().unwrap());
        assert!(
            err.contains("unknown seed 'stealing' (known: idler-llc, wake-affine-throttle"),
            "{err}"
        );
        assert_eq!(all().count(), 5);
    }
}
