//! The cost model's parameters that `arbor sim reproduce --sensitivity`
//! varies: each with its documented range and the range's source (the
//! table "Ranges" of docs/sim/cost-model.md, which a test holds equal to
//! this one), the counters of `--explain` through which it acts, and how a
//! run is told a value: the software costs by `arbor sim --cost`, the
//! machine's by `arbor sim --machine-param` (set_machine below).

use anyhow::{bail, Context, Result};
use arbor_sim::cost::CostModel;
use arbor_sim::machine::Machine;

/// How a run's process is told the parameter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// `--cost NAME=VALUE` (arbor_sim::cost::CostModel)
    Cost,
    /// `--machine-param NAME=VALUE` (set_machine)
    Machine,
}

pub struct Param {
    pub name: &'static str,
    pub unit: &'static str,
    /// the documented range, lowest and highest
    pub lo: f64,
    pub hi: f64,
    /// where the range's ends come from (docs/sim/cost-model.md, "Ranges")
    pub source: &'static str,
    /// the `--explain` quantities through which it acts: named by the
    /// explanation when one of them differs with the mechanism on
    pub acts_on: &'static [&'static str],
    pub via: Via,
}

const KIB: f64 = 1024.0;
const MIB: f64 = 1024.0 * 1024.0;

/// The refill a move to another LLC costs: lines from the other LLC or
/// DRAM, as many at once as mlp allows (sim/src/core/cache.rs).
const XLLC: &[&str] = &[
    "mig_xllc_per_kwake",
    "c:migrations_cross_llc",
    "charged:refill_ns",
];
/// The refill a move within the LLC costs: the core cache is left behind.
const INLLC: &[&str] = &[
    "mig_llc_per_kwake",
    "mig_smt_per_kwake",
    "c:migrations_same_llc",
    "charged:refill_ns",
];
/// Waiting to run after a wake-up.
const WAIT: &[&str] = &[
    "rq_wait_us_per_wakeup",
    "c:wake_queued_ns",
    "c:wake_direct_ns",
    "wake_p50_us",
    "wake_p99_us",
];

#[rustfmt::skip]
pub const PARAMS: &[Param] = &[
    Param { name: "core_bytes", unit: "B", lo: 32.0 * KIB, hi: 2.0 * MIB, via: Via::Machine,
        source: "Cortex-A53 L1D of the HiKey (Hi6220 docs) to the Golden Cove L2 (Intel ARK, 8480+)",
        acts_on: INLLC },
    Param { name: "llc_bytes", unit: "B", lo: 512.0 * KIB, hi: 55.0 * MIB, via: Via::Machine,
        source: "HiKey cluster L2 (hi6220.dtsi) to the E5-2699 v4 L3 (Intel ARK)",
        acts_on: XLLC },
    Param { name: "core_hit_ns", unit: "ns", lo: 2.5, hi: 5.5, via: Via::Machine,
        source: "Cortex-A53 TRM, 3 cycles at 1.2 GHz, to Broadwell L2, 12 cycles at 2.2 GHz (Intel Optimization Reference Manual)",
        acts_on: INLLC },
    Param { name: "llc_hit_ns", unit: "ns", lo: 10.0, hi: 33.0, via: Via::Machine,
        source: "POWER10 estimate to Sapphire Rapids without SNC, measured (Chips and Cheese, 2023)",
        acts_on: XLLC },
    Param { name: "remote_llc_ns", unit: "ns", lo: 30.0, hi: 150.0, via: Via::Machine,
        source: "POWER10 lateral L3 estimate to an ARM cluster snoop estimate; measured between: Milan cross-CCD 100-110 ns (AnandTech, 2021)",
        acts_on: XLLC },
    Param { name: "dram_ns", unit: "ns", lo: 80.0, hi: 200.0, via: Via::Machine,
        source: "estimates of the presets (Sandy Bridge-EP to TC2); measured between: SPR ~107 ns (Chips and Cheese), Rome ~122 ns (AnandTech)",
        acts_on: XLLC },
    Param { name: "remote_dram_ns", unit: "ns", lo: 120.0, hi: 190.0, via: Via::Machine,
        source: "at SLIT 20: the presets' estimates (x86-12's 120 to spr-2s's 190 real at SLIT 21)",
        acts_on: &["mig_xnode_per_kwake", "c:migrations_cross_node"] },
    Param { name: "mlp", unit: "misses", lo: 3.0, hi: 24.0, via: Via::Machine,
        source: "in-order A53 estimate to Family 19h outstanding L1D misses (AMD optimization guide)",
        acts_on: XLLC },
    Param { name: "smt2_throughput", unit: "per thread", lo: 0.5, hi: 0.75, via: Via::Machine,
        source: "no SMT gain (0.5) to POWER's 1.5x per SMT2 group (IBM SG24-8171); Intel's 'up to 30%' (Marr et al. 2002) is 0.65",
        acts_on: &["mig_smt_per_kwake", "busy_pct"] },
    Param { name: "deepest_exit_ns", unit: "ns", lo: 1e3, hi: 1.7e6, via: Via::Machine,
        source: "the idle tables' deepest states: Sapphire Rapids C1 1 us (intel_idle.c) to TC2 cluster-sleep 1700 us (vexpress-v2p-ca15_a7.dts)",
        acts_on: &["idle_while_queued_pct", "c:wake_prev_idle", "busy_pct", "charged:idle_exit_ns"] },
    Param { name: "ctx_switch_ns", unit: "ns", lo: 500.0, hi: 2000.0, via: Via::Cost,
        source: "estimate: half to twice the default; the measured 1.2-1.5 us futex ping-pong (Bendersky 2018) lies inside",
        acts_on: &["rq_wait_us_per_wakeup", "c:wake_preempts", "wake_p50_us"] },
    Param { name: "wakeup_ns", unit: "ns", lo: 250.0, hi: 1000.0, via: Via::Cost,
        source: "estimate: half to twice the default (no published figure for try_to_wake_up() alone)",
        acts_on: WAIT },
    Param { name: "ipi_ns", unit: "ns", lo: 400.0, hi: 5700.0, via: Via::Cost,
        source: "the receiving side alone, ~1200 cycles (Shinjuku, NSDI 2019) at 3 GHz, to a POWER9 LPAR's 5.7 us median CEDE wake-up, idle exit included (linuxppc/issues#370)",
        acts_on: WAIT },
    Param { name: "bpf_callback_ns", unit: "ns", lo: 12.0, hi: 50.0, via: Via::Cost,
        source: "estimate: half to twice the measured 24 ns fentry trampoline (Cloudflare ebpf_exporter benchmark)",
        acts_on: &["wake_p50_us"] },
    Param { name: "bpf_call_ns", unit: "ns", lo: 10.0, hi: 40.0, via: Via::Cost,
        source: "estimate: half to twice the measured ~18 ns map update (same benchmark)",
        acts_on: &["wake_p50_us"] },
    Param { name: "tick_ns", unit: "ns", lo: 500.0, hi: 2000.0, via: Via::Cost,
        source: "function_graph traces of a tick, 0.5-2 us on current x86 (estimate)",
        acts_on: &["c:lb_pulls", "c:periodic_kicks", "c:lb_active"] },
];

/// What `--sensitivity` cannot vary, and why.
pub const NOT_VARIED: &[(&str, &str)] = &[
    ("the machine's shape (CPUs, cores, LLCs, nodes) and SLIT", "a different machine, not a parameter: give it with -t or --topology-from"),
    ("CPU capacities", "the machine's (asymmetric presets); `arbor sim --cpu-capacity` overrides them, a shape question like the above"),
    ("idle states other than the deepest, and residencies", "deepest_exit_ns moves the deepest state's exit only (its residency rises with it when the exit would pass it)"),
    ("the line size", "fixed by the ISA (64 B, 128 B on POWER)"),
];

pub fn find(name: &str) -> Result<&'static Param> {
    PARAMS.iter().find(|p| p.name == name).with_context(|| {
        format!(
            "unknown parameter '{name}' (known: {})",
            PARAMS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
        )
    })
}

/// Whether the parameter can act on this machine at all (SMT without
/// SMT, another LLC of the node on one LLC a node, ...), and if not why.
pub fn applies(p: &Param, m: &Machine) -> std::result::Result<(), &'static str> {
    let count = |f: &dyn Fn(&arbor_sim::machine::CpuSpec) -> usize| {
        let mut v: Vec<usize> = m.cpus.iter().map(f).collect();
        v.sort();
        v.dedup();
        v.len()
    };
    let (cores, llcs, nodes) = (count(&|c| c.core), count(&|c| c.llc), count(&|c| c.node));
    match p.name {
        "smt2_throughput" if cores == m.cpus.len() => Err("no SMT on this machine"),
        "remote_llc_ns" if llcs == nodes => Err("one LLC per node: never another LLC's line"),
        "remote_dram_ns" if nodes == 1 => Err("one node"),
        "deepest_exit_ns" if m.idle_states.len() < 2 => Err("no idle state beyond polling"),
        _ => Ok(()),
    }
}

/// The parameter's value on this machine and cost model.
pub fn value(p: &Param, m: &Machine, c: &CostModel) -> f64 {
    let k = &m.cache;
    match p.name {
        "core_bytes" => k.core_bytes as f64,
        "llc_bytes" => k.llc_bytes as f64,
        "core_hit_ns" => k.core_hit_ns,
        "llc_hit_ns" => k.llc_hit_ns,
        "remote_llc_ns" => k.remote_llc_ns,
        "dram_ns" => k.dram_ns,
        "remote_dram_ns" => k.remote_dram_ns,
        "mlp" => k.mlp,
        "smt2_throughput" => m.smt.throughput.get(1).copied().unwrap_or(1.0),
        "deepest_exit_ns" => m.idle_states.last().map_or(0.0, |s| s.exit_ns as f64),
        "ctx_switch_ns" => c.ctx_switch_ns,
        "wakeup_ns" => c.wakeup_ns,
        "ipi_ns" => c.ipi_ns,
        "bpf_callback_ns" => c.bpf_callback_ns,
        "bpf_call_ns" => c.bpf_call_ns,
        "tick_ns" => c.tick_ns,
        other => unreachable!("parameter {other} without a value"),
    }
}

/// Applies `NAME=VALUE` (`arbor sim --machine-param`) to the machine.
/// smt2_throughput sets the speed of each thread with two busy and scales
/// a wider table's further entries by the same factor; deepest_exit_ns
/// sets the deepest idle state's exit (and its residency, if below).
pub fn set_machine(m: &mut Machine, spec: &str) -> Result<()> {
    let (name, val) = spec
        .split_once('=')
        .with_context(|| format!("--machine-param '{spec}' is not NAME=VALUE"))?;
    let p = find(name.trim()).context("--machine-param")?;
    if p.via != Via::Machine {
        bail!(
            "--machine-param {}: a software cost, give it as --cost {spec}",
            p.name
        );
    }
    let v: f64 = val
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v > 0.0 && *v <= 1e12)
        .with_context(|| {
            format!(
                "--machine-param {}: '{val}' is not a number in (0, 1e12]",
                p.name
            )
        })?;
    let k = &mut m.cache;
    match p.name {
        "core_bytes" => k.core_bytes = v.round() as u64,
        "llc_bytes" => k.llc_bytes = v.round() as u64,
        "core_hit_ns" => k.core_hit_ns = v,
        "llc_hit_ns" => k.llc_hit_ns = v,
        "remote_llc_ns" => k.remote_llc_ns = v,
        "dram_ns" => k.dram_ns = v,
        "remote_dram_ns" => k.remote_dram_ns = v,
        "mlp" => k.mlp = v,
        "smt2_throughput" => {
            if v > 1.0 {
                bail!("--machine-param smt2_throughput: {v} is above 1 (a thread faster beside a busy sibling)");
            }
            let t = &mut m.smt.throughput;
            if t.len() < 2 {
                bail!(
                    "--machine-param smt2_throughput: machine '{}' has no SMT table",
                    m.name
                );
            }
            let f = v / t[1];
            for x in t.iter_mut().skip(1) {
                *x = (*x * f).min(1.0);
            }
        }
        "deepest_exit_ns" => {
            if m.idle_states.len() < 2 {
                bail!("--machine-param deepest_exit_ns: machine '{}' has no idle state beyond polling", m.name);
            }
            let s = m.idle_states.last_mut().expect("two states");
            s.exit_ns = v.round() as u64;
            s.residency_ns = s.residency_ns.max(s.exit_ns);
        }
        other => unreachable!("machine parameter {other} without a setter"),
    }
    m.validate()
        .with_context(|| format!("--machine-param {spec}"))
}

/// The values a parameter takes: `n` points spaced evenly on a log scale
/// from its range's low end to its high end (each rounded as `show` prints
/// it), its range's ends and the default, in order, each printed value once.
pub fn grid(p: &Param, default: f64, n: usize) -> Vec<f64> {
    let mut v: Vec<f64> = (0..n)
        .map(|i| {
            let t = i as f64 / (n.max(2) - 1) as f64;
            rounded(p, (p.lo.ln() + t * (p.hi.ln() - p.lo.ln())).exp())
        })
        .chain([default, p.lo, p.hi])
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    // the default wins over a rounded point that prints the same
    let mut out: Vec<f64> = Vec::new();
    for x in v {
        match out.last_mut() {
            Some(l) if show(p, *l) == show(p, x) => {
                if x == default {
                    *l = x;
                }
            }
            _ => out.push(x),
        }
    }
    out
}

/// `v` rounded to three significant digits in the unit `show` prints it
/// in (KiB or MiB for sizes), back in the parameter's own unit.
fn rounded(p: &Param, v: f64) -> f64 {
    let scale = match p.unit {
        "B" if v >= MIB => MIB,
        "B" => KIB,
        _ => 1.0,
    };
    let x = v / scale;
    let e = 10f64.powi(x.log10().floor() as i32 - 2);
    (x / e).round() * e * scale
}

/// A value as the reports and docs/sim/cost-model.md print it: sizes in
/// KiB or MiB, the rest to three significant digits (whole numbers whole).
pub fn show(p: &Param, v: f64) -> String {
    let (x, unit) = match p.unit {
        "B" if v >= MIB => (v / MIB, " MiB"),
        "B" => (v / KIB, " KiB"),
        _ => (v, ""),
    };
    let decimals = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    let mut s = format!("{x:.decimals$}");
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    format!("{s}{unit}")
}

/// The argument that tells a run the value: `--cost NAME=V` or
/// `--machine-param NAME=V`.
pub fn args(p: &Param, v: f64) -> [String; 2] {
    let flag = match p.via {
        Via::Cost => "--cost",
        Via::Machine => "--machine-param",
    };
    [flag.to_string(), format!("{}={}", p.name, v)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_sim::presets;

    #[test]
    fn every_parameter_has_a_range_a_value_and_a_setter() {
        let cost = CostModel::default();
        for name in ["power10", "epyc", "tc2", "xeon-88"] {
            let m = presets::find(name).unwrap();
            for p in PARAMS {
                assert!(
                    p.lo > 0.0 && p.lo < p.hi && !p.source.is_empty(),
                    "{}",
                    p.name
                );
                let v = value(p, &m, &cost);
                let g = grid(p, v, 5);
                assert!(g.contains(&v) && g.len() >= 5, "{} {g:?}", p.name);
                if p.via == Via::Machine && applies(p, &m).is_ok() {
                    let mut m2 = m.clone();
                    set_machine(&mut m2, &format!("{}={}", p.name, g[0])).unwrap();
                    assert!((value(p, &m2, &cost) - g[0]).abs() <= 0.5, "{}", p.name);
                }
            }
        }
        // every software cost is one the simulator's --cost knows
        for p in PARAMS.iter().filter(|p| p.via == Via::Cost) {
            let mut c = CostModel::default();
            c.set(&format!("{}=7", p.name)).unwrap();
            assert_eq!(value(p, &presets::find("tc2").unwrap(), &c), 7.0);
        }
    }

    #[test]
    fn bad_values_are_refused() {
        let mut m = presets::find("tc2").unwrap();
        for bad in [
            "mlp",
            "mlp=x",
            "mlp=-1",
            "nope=3",
            "ipi_ns=3",
            "smt2_throughput=0.6",
        ] {
            assert!(set_machine(&mut m, bad).is_err(), "{bad}");
        }
        let mut p10 = presets::find("power10").unwrap();
        set_machine(&mut p10, "smt2_throughput=0.5").unwrap();
        assert_eq!(p10.smt.throughput[1], 0.5);
        assert!((p10.smt.throughput[2] - 0.58 * 0.5 / 0.75).abs() < 1e-9);
        set_machine(&mut p10, "deepest_exit_ns=400000").unwrap();
        let s = p10.idle_states.last().unwrap();
        assert_eq!((s.exit_ns, s.residency_ns), (400_000, 400_000));
    }

    /// docs/sim/cost-model.md's "Ranges" table lists every parameter
    /// with this range.
    #[test]
    fn the_cost_model_page_gives_every_range() {
        let doc = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../docs/sim/cost-model.md"
        ))
        .unwrap();
        let ranges = doc.split("## Ranges").nth(1).expect("a Ranges section");
        for p in PARAMS {
            let row = ranges
                .lines()
                .find(|l| l.starts_with(&format!("| `{}` |", p.name)))
                .unwrap_or_else(|| panic!("no row for {}", p.name));
            let want = format!("| {} – {} |", show(p, p.lo), show(p, p.hi));
            assert!(row.contains(&want), "{row} lacks {want}");
        }
    }

    #[test]
    fn values_print_short() {
        let llc = find("llc_bytes").unwrap();
        assert_eq!(show(llc, 512.0 * KIB), "512 KiB");
        assert_eq!(show(llc, 55.0 * MIB), "55 MiB");
        assert_eq!(show(find("ipi_ns").unwrap(), 1234.5678), "1235");
        assert_eq!(show(find("mlp").unwrap(), 41.19999999), "41.2");
        assert_eq!(show(find("smt2_throughput").unwrap(), 0.6123), "0.612");
    }
}
