//! Named machines for `arbor sim`: the machines the seeds ran on, two
//! reference servers, and the `arbor vm` guest shapes. Every number names
//! its source; numbers with no published figure say "estimate:" and why.
//! The full tables, with URLs, are in docs/sim/cost-model.md. These values
//! were fixed before any seed was reproduced and are never tuned towards a
//! seed's result.

use anyhow::{bail, Context, Result};

use crate::machine::{flat_distance, CacheSpec, CpuSpec, IdleState, Machine, Shape, SmtSpec};

pub mod random;

pub struct Preset {
    pub name: &'static str,
    pub about: &'static str,
    pub build: fn() -> Machine,
}

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

/// The known presets, in a stable order.
pub fn all() -> Vec<Preset> {
    vec![
        Preset {
            name: "power10",
            about: POWER10_ABOUT,
            build: power10,
        },
        Preset {
            name: "x86-12",
            about: X86_12_ABOUT,
            build: x86_12,
        },
        Preset {
            name: "power11",
            about: POWER11_ABOUT,
            build: power11,
        },
        Preset {
            name: "spr-2s",
            about: SPR_ABOUT,
            build: spr_2s,
        },
        Preset {
            name: "e5-2630v4",
            about: E5_2630V4_ABOUT,
            build: e5_2630v4,
        },
        Preset {
            name: "xeon-44",
            about: XEON44_ABOUT,
            build: xeon_44,
        },
        Preset {
            name: "xeon-88",
            about: XEON88_ABOUT,
            build: xeon_88,
        },
        Preset {
            name: "hikey",
            about: HIKEY_ABOUT,
            build: hikey,
        },
        Preset {
            name: "tc2",
            about: TC2_ABOUT,
            build: tc2,
        },
        Preset {
            name: "epyc",
            about: EPYC_ABOUT,
            build: epyc,
        },
        Preset {
            name: "2s2c2t",
            about: VM_2S2C2T_ABOUT,
            build: vm_2s2c2t,
        },
        Preset {
            name: "1s2c2t",
            about: VM_1S2C2T_ABOUT,
            build: vm_1s2c2t,
        },
    ]
}

/// The machine of the preset `name`; an unknown name is a one-line error
/// listing the known ones.
pub fn find(name: &str) -> Result<Machine> {
    if let Some(args) = name.strip_prefix("shape:") {
        return shape(args);
    }
    if let Some((seed, k)) = random::parse_name(name) {
        return Ok(random::draw(seed, k).machine);
    }
    if random::parse_spec(name).is_some() {
        bail!("'{name}' names several machines: give one, random-SEED-K, or use arbor sim verdict --machines {name}");
    }
    let presets = all();
    match presets.iter().find(|p| p.name == name) {
        Some(p) => Ok((p.build)()),
        None => bail!(
            "unknown machine preset '{name}' (known: {}; random-SEED-K, shape:...)",
            presets
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn machine(
    name: &str,
    about: &str,
    cpus: Vec<CpuSpec>,
    node_distance: Vec<Vec<u32>>,
    cache: CacheSpec,
    smt: SmtSpec,
    (idle_states, idle_source): (Vec<IdleState>, &'static str),
) -> Machine {
    Machine {
        name: name.to_string(),
        about: about.to_string(),
        cpus,
        node_distance,
        cache,
        smt,
        idle_states,
        idle_source,
        presence: Vec::new(),
    }
}

/// `CacheSpec::remote_dram_ns` is the latency at SLIT distance 20, scaled
/// linearly with distance beyond the local latency. Given the published (or
/// estimated) latency `remote` at the machine's real distance `d`, this is
/// the value to store so that the model gives `remote` back at `d`.
fn remote_at_slit20(local: f64, remote: f64, d: u32) -> f64 {
    local + (remote - local) * 20.0 / d as f64
}

/// Nanoseconds from microseconds, for the kernel's idle tables (in us).
fn us(v: u64) -> u64 {
    v * 1000
}

fn idle(name: &'static str, exit_us: u64, residency_us: u64) -> IdleState {
    IdleState {
        name: name.to_string(),
        exit_ns: us(exit_us),
        residency_ns: us(residency_us),
    }
}

// ---------------------------------------------------------------- SMT

fn smt_intel2() -> SmtSpec {
    SmtSpec {
        throughput: vec![1.0, 0.6],
        source: "estimate: Intel's Hyper-Threading paper (Marr et al., 'Hyper-Threading \
                 Technology Architecture and Microarchitecture', Intel Technology Journal 6(1), \
                 2002) reports up to 30% more throughput from the second thread; 0.6 per thread \
                 (1.2x per core) is taken as the typical, not the best, case",
    }
}

fn smt_zen3() -> SmtSpec {
    SmtSpec {
        throughput: vec![1.0, 0.61],
        source: "estimate: press SMT on/off comparisons of Zen 3 (e.g. AnandTech's SMT study \
                 of the Ryzen 9 5950X, Dec 2020) report roughly +20-25% on throughput \
                 workloads (not re-checked for this table); 0.61 per thread = 1.22x per core",
    }
}

/// One 4-thread group of a POWER10/Power11 SMT8 core (see `power_cpus`).
fn smt_power_group() -> SmtSpec {
    SmtSpec {
        throughput: vec![1.0, 0.75, 0.58, 0.48],
        source: "estimate: per-thread speed when 1..4 threads of one 4-thread group (half an \
                 SMT8 core, its own execution slices) are busy, chosen so the group's total is \
                 1.0/1.5/1.75/1.9x single-thread, the SMT2/SMT4 scaling range IBM describes for \
                 POWER8/9 in the Redbook 'Performance Optimization and Tuning Techniques for IBM \
                 Power Systems Processors' (SG24-8171, SMT section); no POWER10 per-k table was \
                 found",
    }
}

fn smt_none(what: &'static str) -> SmtSpec {
    SmtSpec {
        throughput: vec![1.0],
        source: what,
    }
}

// ---------------------------------------------------------------- idle states

fn idle_intel_snb() -> (Vec<IdleState>, &'static str) {
    (
        vec![
            idle("POLL", 0, 0),
            idle("C1", 2, 2),
            idle("C1E", 10, 20),
            idle("C3", 80, 211),
            idle("C6", 104, 345),
        ],
        "Linux drivers/idle/intel_idle.c, snb_cstates (used for SANDYBRIDGE_X); POLL from \
         drivers/cpuidle/poll_state.c; C7 omitted (server parts do not advertise it in CPUID \
         leaf 5 - assumption)",
    )
}

fn idle_intel_bdx() -> (Vec<IdleState>, &'static str) {
    (
        vec![
            idle("POLL", 0, 0),
            idle("C1", 2, 2),
            idle("C1E", 10, 20),
            idle("C6", 133, 400),
        ],
        "Linux drivers/idle/intel_idle.c, bdw_cstates via idle_cpu_bdx (BROADWELL_X, \
         use_acpi): C1 2/2, C1E 10/20, C6 133/400 us; C3 (40/100) left out because idle_cpu_bdx \
         keeps only the states the BIOS _CST lists and server BIOSes typically list C1/C1E/C6 \
         (assumption); C7s-C10 are client-only",
    )
}

fn idle_intel_spr() -> (Vec<IdleState>, &'static str) {
    (
        vec![
            idle("POLL", 0, 0),
            idle("C1", 1, 1),
            idle("C1E", 2, 4),
            idle("C6", 290, 800),
        ],
        "Linux drivers/idle/intel_idle.c, spr_cstates (SAPPHIRERAPIDS_X): C1 1/1, C1E 2/4, \
         C6 290/800 us (package-C6 worst case; 190/600 if the BIOS disables PC6)",
    )
}

fn idle_amd_acpi() -> (Vec<IdleState>, &'static str) {
    (
        vec![idle("POLL", 0, 0), idle("C1", 1, 2), idle("C2", 400, 800)],
        "acpi_idle (drivers/acpi/processor_idle.c: target residency = latency x \
         latency_factor 2) with the _CST EPYC firmware commonly reports (C1 FFH MWAIT 1 us, \
         C2 I/O-port 400 us, as shown by `cpupower idle-info` on Rome/Milan); firmware-dependent \
         - estimate",
    )
}

fn idle_pseries() -> (Vec<IdleState>, &'static str) {
    (
        vec![idle("snooze", 0, 0), idle("CEDE", 10, 100)],
        "Linux drivers/cpuidle/cpuidle-pseries.c, dedicated_states: snooze 0/0, CEDE 10/100 us \
         (PowerVM LPAR). On POWER10+ fixup_cede0_latency() may lower CEDE to the firmware's \
         smallest extended-CEDE latency (residency 10x); the firmware value is unknown here, so \
         the default is kept",
    )
}

fn idle_hikey() -> (Vec<IdleState>, &'static str) {
    (
        vec![
            idle("WFI", 1, 0),
            idle("cpu-sleep", 950, 1000),
            idle("cluster-sleep", 1500, 2700),
        ],
        "Linux arch/arm64/boot/dts/hisilicon/hi6220.dtsi idle-states: CPU_SLEEP entry 700 + exit \
         250 us (no wakeup-latency, so drivers/cpuidle/dt_idle_states.c uses entry+exit = 950), \
         min-residency 1000; CLUSTER_SLEEP wakeup-latency 1500, min-residency 2700. WFI is the \
         ARM cpuidle state 0 (exit 1 us; kernel residency 1 us, 0 here as the model's polling \
         state)",
    )
}

fn idle_tc2() -> (Vec<IdleState>, &'static str) {
    (
        vec![idle("WFI", 1, 0), idle("cluster-sleep", 1700, 2000)],
        "Linux arch/arm/boot/dts/arm/vexpress-v2p-ca15_a7.dts: cluster-sleep-big entry 1000 + \
         exit 700 us (entry+exit per dt_idle_states.c), min-residency 2000. The little cluster's \
         state (1000+500 = 1500 us, residency 2500) differs; the model keeps one table per \
         machine and uses the A15 one. WFI exit 1 us (ARM cpuidle state 0)",
    )
}

// ---------------------------------------------------------------- POWER

/// POWER10/Power11 under PowerVM: an SMT8 core appears as two 4-thread
/// groups ("small cores") that each have their own L2; the groups are the
/// even and the odd threads of the core (arch/powerpc/kernel/smp.c,
/// parse_thread_groups: ibm,thread-groups lists {8,10,12,14} and
/// {9,11,13,15} for L1 and L2 sharing). The model's core and LLC are that
/// group, so a core never spans two LLCs. CPUs are numbered consecutively
/// per SMT8 core (8c .. 8c+7).
fn power_cpus(nodes: usize, smt8_cores_per_node: usize) -> Vec<CpuSpec> {
    let big = nodes * smt8_cores_per_node;
    (0..big * 8)
        .map(|id| {
            let b = id / 8;
            let group = 2 * b + (id % 8) % 2;
            CpuSpec {
                id,
                core: group,
                llc: group,
                node: b / smt8_cores_per_node,
                capacity: 1024,
            }
        })
        .collect()
}

fn power_cache(remote_dram_ns: f64) -> CacheSpec {
    CacheSpec {
        line_bytes: 128,
        core_bytes: MIB,
        llc_bytes: 4 * MIB,
        core_hit_ns: 4.0,
        llc_hit_ns: 10.0,
        remote_llc_ns: 30.0,
        dram_ns: 100.0,
        remote_dram_ns,
        mlp: 12.0,
        source: "line 128 B (POWER ISA cache block). Sizes: IBM POWER10 (Hot Chips 32, 2020, \
                 Starke/Thompto) gives 2 MB L2 and an 8 MB L3 region per SMT8 core; Linux reports \
                 both as shared by one 4-thread group, so each group gets half: 1 MB core cache, \
                 4 MB LLC (estimate). Latencies are estimates - no published POWER10 load-to-use \
                 table was found: L2 4 ns (~15 cycles at ~3.9 GHz), local L3 region 10 ns, a line \
                 in another group's L3 on the chip 30 ns, OMI DRAM 100 ns, other chip 180 ns. \
                 mlp 12: estimate (L1 miss queue per group not published here). Power11 is taken \
                 to be the same core and caches",
    }
}

const POWER10_ABOUT: &str = "POWER10 PowerVM LPAR as in seed 000: 8 SMT8 cores = 64 CPUs \
     (the seed's tables are labelled '8CORE'; its JVM spans 6-8 big cores), 1 node; each SMT8 \
     core is two 4-thread groups (even/odd threads) with their own L2 = LLC of 4 CPUs, 16 LLCs";

fn power10() -> Machine {
    machine(
        "power10",
        POWER10_ABOUT,
        power_cpus(1, 8),
        flat_distance(1, 40),
        power_cache(remote_at_slit20(100.0, 180.0, 40)),
        smt_power_group(),
        idle_pseries(),
    )
}

const POWER11_ABOUT: &str = "Power11 LPAR as in seed 002: 28 SMT8 cores = 224 CPUs, LLC of 4 \
     threads (56 LLCs). Nodes: 2 x 14 cores (a Power11 chip has at most 16 cores, so 28 cores \
     span at least two chips; PowerVM shows a chip as a node - assumption, the seed does not \
     say), SLIT 10/40 (PowerVM form-1 associativity doubles the distance per level, \
     arch/powerpc/mm/numa.c)";

fn power11() -> Machine {
    machine(
        "power11",
        POWER11_ABOUT,
        power_cpus(2, 14),
        flat_distance(2, 40),
        power_cache(remote_at_slit20(100.0, 180.0, 40)),
        smt_power_group(),
        idle_pseries(),
    )
}

// ---------------------------------------------------------------- Intel

fn x86(nodes: usize, llcs_per_node: usize, cores_per_llc: usize, smt: usize) -> Vec<CpuSpec> {
    Shape {
        nodes,
        llcs_per_node,
        cores_per_llc,
        smt,
        x86_numbering: true,
    }
    .cpus(|_| 1024)
}

const X86_12_ABOUT: &str = "12-CPU x86 server of seed 001 (2013): modelled as one Sandy \
     Bridge-EP socket, 6 cores x SMT2 (e.g. Xeon E5-2640), one 15 MB LLC, one node - the seed \
     says only '12 cpu X86 server', so the part is an assumption";

fn x86_12() -> Machine {
    machine(
        "x86-12",
        X86_12_ABOUT,
        x86(1, 1, 6, 2),
        flat_distance(1, 21),
        CacheSpec {
            line_bytes: 64,
            core_bytes: 256 * KIB,
            llc_bytes: 15 * MIB,
            core_hit_ns: 4.8,
            llc_hit_ns: 12.0,
            remote_llc_ns: 60.0,
            dram_ns: 80.0,
            remote_dram_ns: 120.0,
            mlp: 10.0,
            source: "Sandy Bridge-E: L2 12 cycles, L3 30 cycles (The Tech Report, Core i7-3960X \
                     review, 'Memory subsystem performance', 2011), at 2.5 GHz = 4.8 / 12 ns; \
                     256 KB L2, 2.5 MB L3 per core (Intel E5-2600 datasheet); 10 L1D fill \
                     buffers (Intel 64 and IA-32 Architectures Optimization Reference Manual, \
                     Sandy Bridge chapter) = mlp. estimate: DRAM 80 ns (no source for this \
                     machine). remote_llc_ns and remote_dram_ns unused (one LLC, one node)",
        },
        smt_intel2(),
        idle_intel_snb(),
    )
}

fn broadwell_ep_cache(llc_bytes: u64, llc_hit_ns: f64) -> CacheSpec {
    CacheSpec {
        line_bytes: 64,
        core_bytes: 256 * KIB,
        llc_bytes,
        core_hit_ns: 5.5,
        llc_hit_ns,
        remote_llc_ns: 60.0,
        dram_ns: 85.0,
        remote_dram_ns: remote_at_slit20(85.0, 135.0, 21),
        mlp: 10.0,
        source: "Broadwell-EP: 256 KB L2 at 12 cycles (Intel Optimization Reference Manual, \
                 Broadwell = Haswell cache latencies) = 5.5 ns at 2.2 GHz; 2.5 MB L3 per core \
                 (Intel ARK: E5-2630 v4 25 MB, E5-2699 v4 55 MB); 10 L1D fill buffers = mlp. \
                 estimate: L3 hit 20 ns on the 10-core die, 25 ns on the 22-core die (longer \
                 ring); DRAM 85 ns local, 135 ns remote socket (typical Intel MLC idle latencies \
                 for 2-socket E5 v4, cf. Fujitsu white paper 'Memory Performance of Xeon E5-2600 \
                 v4 (Broadwell-EP) based Systems', 2016) - remote stored at SLIT 20 per the \
                 model's linear scaling. remote_llc_ns unused (one LLC per node)",
    }
}

const E5_2630V4_ABOUT: &str = "Xeon E5-2630 v4 as seed 003 ran it ('1 socket * 10 cores * 2 \
     hyperthreads = 20 CPUs'): 20 CPUs, one 25 MB LLC, one node; CPU n and n+10 are siblings";

fn e5_2630v4() -> Machine {
    machine(
        "e5-2630v4",
        E5_2630V4_ABOUT,
        x86(1, 1, 10, 2),
        flat_distance(1, 21),
        broadwell_ep_cache(25 * MIB, 20.0),
        smt_intel2(),
        idle_intel_bdx(),
    )
}

const XEON44_ABOUT: &str = "Xeon E5-2699 v4 as seed 003 ran it ('1 socket * 22 cores * 2 \
     hyperthreads = 44 CPUs'): 44 CPUs, one 55 MB LLC (no cluster-on-die), one node";

fn xeon_44() -> Machine {
    machine(
        "xeon-44",
        XEON44_ABOUT,
        x86(1, 1, 22, 2),
        flat_distance(1, 21),
        broadwell_ep_cache(55 * MIB, 25.0),
        smt_intel2(),
        idle_intel_bdx(),
    )
}

const XEON88_ABOUT: &str = "2 x Xeon E5-2699 v4 as seed 003 ran it ('2 sockets * 22 cores * 2 \
     hyperthreads = 88 CPUs'): 88 CPUs, one 55 MB LLC and one node per socket, SLIT 10/21 \
     (typical 2-socket Intel BIOS); CPU n and n+44 are siblings";

fn xeon_88() -> Machine {
    machine(
        "xeon-88",
        XEON88_ABOUT,
        x86(2, 1, 22, 2),
        flat_distance(2, 21),
        broadwell_ep_cache(55 * MIB, 25.0),
        smt_intel2(),
        idle_intel_bdx(),
    )
}

const SPR_ABOUT: &str = "2-socket Sapphire Rapids (Xeon Platinum 8480+ class, 56 cores x SMT2 \
     per socket = 224 CPUs) in SNC4 mode: 8 nodes of 14 cores, each its own LLC of 28 CPUs \
     (a quarter of the 105 MB L3). SNC4 because scx_arbor scans at most 64 CPUs per LLC today \
     (a whole socket is 112) and because with SNC Linux itself clips the LLC domain to the \
     sub-NUMA node (x86 match_llc); SLIT 10 / 12 same socket / 21 other socket";

fn spr_2s() -> Machine {
    let nodes = 8;
    let distance = (0..nodes)
        .map(|a| {
            (0..nodes)
                .map(|b| {
                    if a == b {
                        10
                    } else if a / 4 == b / 4 {
                        12
                    } else {
                        21
                    }
                })
                .collect()
        })
        .collect();
    machine(
        "spr-2s",
        SPR_ABOUT,
        x86(8, 1, 14, 2),
        distance,
        CacheSpec {
            line_bytes: 64,
            core_bytes: 2 * MIB,
            llc_bytes: 105 * MIB / 4,
            core_hit_ns: 5.0,
            llc_hit_ns: 28.0,
            remote_llc_ns: 60.0,
            dram_ns: 100.0,
            remote_dram_ns: remote_at_slit20(100.0, 190.0, 21),
            mlp: 16.0,
            source: "Sapphire Rapids: 2 MB L2, 1.875 MB L3 per core (Intel ARK, 8480+: 105 MB); \
                     L2 16 cycles (Intel Optimization Reference Manual, Golden Cove) = ~5 ns at \
                     ~3 GHz; 16 L1D fill buffers (same manual, Golden Cove) = mlp. L3 and DRAM \
                     from Chips and Cheese, 'Sapphire Rapids: Golden Cove Hits the Server' \
                     (2023): L3 ~33 ns and DRAM ~107 ns without SNC; estimate: 28 ns L3 and \
                     100 ns DRAM inside an SNC4 quarter, 190 ns to the other socket (stored at \
                     SLIT 20 per the model's linear scaling; the model then gives ~154 ns to \
                     another quarter of the same socket at distance 12). remote_llc_ns unused \
                     (one LLC per node)",
        },
        smt_intel2(),
        idle_intel_spr(),
    )
}

// ---------------------------------------------------------------- AMD

const EPYC_ABOUT: &str = "AMD EPYC 7763 (Zen 3 Milan), one socket in NPS1: 64 cores x SMT2 = \
     128 CPUs, 8 CCDs each one 8-core CCX with a 32 MB L3 = 8 LLCs of 16 CPUs, 1 node; CPU n \
     and n+64 are siblings";

fn epyc() -> Machine {
    machine(
        "epyc",
        EPYC_ABOUT,
        x86(1, 8, 8, 2),
        flat_distance(1, 32),
        CacheSpec {
            line_bytes: 64,
            core_bytes: 512 * KIB,
            llc_bytes: 32 * MIB,
            core_hit_ns: 3.4,
            llc_hit_ns: 13.0,
            remote_llc_ns: 105.0,
            dram_ns: 115.0,
            remote_dram_ns: 170.0,
            mlp: 24.0,
            source: "Zen 3: 512 KB L2 at 12 cycles, 32 MB L3 per CCX at ~46 cycles (AMD Software \
                     Optimization Guide for Family 19h; AnandTech Zen 3 and EPYC Milan reviews), \
                     at 3.5 GHz boost = 3.4 / 13 ns; cross-CCD core-to-core ~100-110 ns \
                     (AnandTech, 'AMD EPYC Milan Review', page 'Topology, Memory Subsystem & \
                     Latency', 2021); DRAM: AnandTech measured ~122 ns full-random on Rome NPS1 \
                     ('AMD Rome Second Generation EPYC Review', 2019) - estimate 115 ns for \
                     Milan; mlp 24 outstanding L1D misses (Family 19h optimization guide, \
                     approximate). remote_dram_ns unused (one node)",
        },
        smt_zen3(),
        idle_amd_acpi(),
    )
}

// ---------------------------------------------------------------- ARM

fn hikey_cache() -> CacheSpec {
    CacheSpec {
        line_bytes: 64,
        core_bytes: 32 * KIB,
        llc_bytes: 512 * KIB,
        core_hit_ns: 2.5,
        llc_hit_ns: 12.5,
        remote_llc_ns: 150.0,
        dram_ns: 160.0,
        remote_dram_ns: 160.0,
        mlp: 3.0,
        source: "Hi6220: 32 KB L1D per core, 512 KB L2 per cluster (HiKey / 96Boards \
                 hardware docs; hi6220.dtsi has one next-level-cache per cluster); A53 L1 \
                 hit 3 cycles (Cortex-A53 TRM) = 2.5 ns at 1.2 GHz. estimates: L2 hit ~15 \
                 cycles = 12.5 ns, a line in the other cluster via the CCI snoop 150 ns, \
                 LPDDR3 160 ns, mlp 3 (the in-order A53 keeps only a few line fills in \
                 flight); remote_dram_ns unused (one node)",
    }
}

const HIKEY_ABOUT: &str = "HiKey (HiSilicon Hi6220) as in seed 003: 8 x Cortex-A53 at up to \
     1.2 GHz in 2 clusters of 4 (CPUs 0-3, 4-7), each cluster's 512 KB L2 an LLC, 1 node, \
     capacity 1024 for all (SMP; the sched domains Vincent Guittot quotes are MC 0-3 / 4-7, DIE \
     0-7)";

fn hikey() -> Machine {
    let cpus = Shape {
        nodes: 1,
        llcs_per_node: 2,
        cores_per_llc: 4,
        smt: 1,
        x86_numbering: false,
    }
    .cpus(|_| 1024);
    machine(
        "hikey",
        HIKEY_ABOUT,
        cpus,
        flat_distance(1, 20),
        hikey_cache(),
        smt_none("no SMT on Cortex-A53"),
        idle_hikey(),
    )
}

const TC2_ABOUT: &str = "ARM Versatile Express TC2 (V2P-CA15_A7) as in seed 004: CPUs 0-1 \
     Cortex-A15 (capacity 1024), CPUs 2-4 Cortex-A7 (capacity 430), two clusters each with its \
     own L2 = LLC, 1 node. 430 = 516 (A7 capacity-dmips-mhz in vexpress-v2p-ca15_a7.dts) x \
     1.0 GHz / (1024 x 1.2 GHz), as drivers/base/arch_topology.c normalises it with the A15 and \
     A7 top frequencies of the TC2 SPC tables";

fn tc2() -> Machine {
    let cpus = (0..5)
        .map(|id| {
            let big = id < 2;
            CpuSpec {
                id,
                core: id,
                llc: if big { 0 } else { 1 },
                node: 0,
                capacity: if big { 1024 } else { 430 },
            }
        })
        .collect();
    machine(
        "tc2",
        TC2_ABOUT,
        cpus,
        flat_distance(1, 20),
        CacheSpec {
            line_bytes: 64,
            core_bytes: 32 * KIB,
            llc_bytes: 512 * KIB,
            core_hit_ns: 4.0,
            llc_hit_ns: 20.0,
            remote_llc_ns: 150.0,
            dram_ns: 200.0,
            remote_dram_ns: 200.0,
            mlp: 4.0,
            source: "TC2 (CoreTile Express A15x2 A7x3 TRM): 32 KB L1D per core; L2 1 MB on the \
                     A15 cluster, 512 KB on the A7 cluster - the model holds one LLC size and \
                     uses 512 KB (3 of the 5 CPUs). estimates: L1 ~4 ns, L2 ~20 cycles = 20 ns \
                     at ~1 GHz, other cluster via CCI-400 150 ns, DRAM 200 ns on the test-chip \
                     memory system, mlp 4; remote_dram_ns unused (one node)",
        },
        smt_none("no SMT on Cortex-A15/A7"),
        idle_tc2(),
    )
}

// ---------------------------------------------------------------- arbor vm

/// The `arbor vm` guests (arbor/src/vm.rs PRESETS): QEMU numbers the threads
/// of a core consecutively (CPU 0,1 = core 0), sockets in order, and
/// virtme-ng's --numa puts CPUs node*per .. node*per+per-1 in each node.
fn vm_cpus(sockets: usize, cores: usize, threads: usize) -> Vec<CpuSpec> {
    Shape {
        nodes: sockets,
        llcs_per_node: 1,
        cores_per_llc: cores,
        smt: threads,
        x86_numbering: false,
    }
    .cpus(|_| 1024)
}

fn vm_cache(cores_per_llc: u64) -> CacheSpec {
    CacheSpec {
        line_bytes: 64,
        core_bytes: 2 * MIB,
        llc_bytes: cores_per_llc * 1920 * KIB,
        core_hit_ns: 5.0,
        llc_hit_ns: 20.0,
        remote_llc_ns: 60.0,
        dram_ns: 100.0,
        remote_dram_ns: 180.0,
        mlp: 16.0,
        source: "generic modern x86 = a Sapphire Rapids (Golden Cove) core, as in spr-2s: 2 MB \
                 L2 at 16 cycles, 1.875 MB L3 per core (so a 2-core socket has a 3.75 MB LLC), \
                 16 L1D fill buffers (Intel ARK; Intel Optimization Reference Manual). \
                 estimates: 20 ns L3 hit for so small an LLC, DRAM 100 ns, other socket 180 ns at \
                 SLIT 20; remote_llc_ns unused (one LLC per node)",
    }
}

const VM_2S2C2T_ABOUT: &str = "the `arbor vm` 2s2c2t guest: 2 sockets x 2 cores x 2 threads = \
     8 CPUs, an LLC and a node per socket (CPUs 0-3, 4-7), threads of a core numbered \
     consecutively as QEMU does; SLIT 10/20 (no SLIT from QEMU, Linux's default remote \
     distance); caches of a Sapphire Rapids-class core";

fn vm_2s2c2t() -> Machine {
    machine(
        "2s2c2t",
        VM_2S2C2T_ABOUT,
        vm_cpus(2, 2, 2),
        flat_distance(2, 20),
        vm_cache(2),
        smt_intel2(),
        idle_intel_spr(),
    )
}

const VM_1S2C2T_ABOUT: &str = "the `arbor vm` 1s2c2t guest: 1 socket x 2 cores x 2 threads = \
     4 CPUs, one LLC, one node, threads of a core numbered consecutively as QEMU does; caches \
     of a Sapphire Rapids-class core";

fn vm_1s2c2t() -> Machine {
    machine(
        "1s2c2t",
        VM_1S2C2T_ABOUT,
        vm_cpus(1, 2, 2),
        flat_distance(1, 20),
        vm_cache(2),
        smt_intel2(),
        idle_intel_spr(),
    )
}

// ---------------------------------------------------------------- your own machine

/// The preset family whose generic tables fill in what sysfs does not say
/// about a machine read with `--topology-from` (cache latencies, mlp, SMT
/// throughput, memory latencies; idle states and cache sizes when sysfs has
/// none). docs/sim/cost-model.md, "Your own machine", states the rule that
/// picks the family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    X86,
    Power,
    Arm,
}

/// A family's tables, and where they come from.
pub struct FamilyDefaults {
    /// The preset these tables are taken from.
    pub preset: &'static str,
    pub cache: CacheSpec,
    pub smt: SmtSpec,
    pub idle: (Vec<IdleState>, &'static str),
    /// The `CacheSpec::source` of a machine built on these tables, whose
    /// sizes and line size come from sysfs.
    pub snapshot_cache_source: &'static str,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::X86 => "x86",
            Family::Power => "POWER",
            Family::Arm => "ARM",
        }
    }

    /// The family of `uname -m`'s machine name, if it is one of the three.
    pub fn from_arch(arch: &str) -> Option<Family> {
        match arch {
            "x86_64" | "i386" | "i486" | "i586" | "i686" | "x86" => Some(Family::X86),
            a if a.starts_with("ppc") || a.starts_with("powerpc") => Some(Family::Power),
            a if a.starts_with("aarch64") || a.starts_with("arm") => Some(Family::Arm),
            _ => None,
        }
    }

    pub fn defaults(self) -> FamilyDefaults {
        match self {
            Family::X86 => FamilyDefaults {
                preset: "2s2c2t",
                cache: vm_cache(2),
                smt: smt_intel2(),
                idle: idle_intel_spr(),
                snapshot_cache_source: "sizes and line size from the snapshot's \
                    cache/index*/ (any it lacks: as below); latencies and mlp assumed: the \
                    generic x86 core of the 2s2c2t/1s2c2t presets, a Sapphire Rapids-class \
                    core (L2 5 ns, LLC 20 ns, another LLC 60 ns, DRAM 100 ns, 180 ns at SLIT \
                    20, mlp 16; Intel ARK and Optimization Reference Manual, the rest \
                    estimates, see docs/sim/cost-model.md)",
            },
            Family::Power => FamilyDefaults {
                preset: "power10",
                cache: power_cache(remote_at_slit20(100.0, 180.0, 40)),
                smt: smt_power_group(),
                idle: idle_pseries(),
                snapshot_cache_source: "sizes and line size from the snapshot's \
                    cache/index*/ (any it lacks: as below); latencies and mlp assumed: the \
                    POWER10 estimates of the power10 preset (L2 4 ns, L3 10 ns, another L3 \
                    30 ns, DRAM 100 ns, other chip 180 ns at SLIT 40, mlp 12; see \
                    docs/sim/cost-model.md)",
            },
            Family::Arm => FamilyDefaults {
                preset: "hikey",
                cache: CacheSpec {
                    remote_dram_ns: 160.0 + 80.0,
                    ..hikey_cache()
                },
                smt: smt_none("no SMT assumed (ARM cores have none, except a few server parts)"),
                idle: idle_hikey(),
                snapshot_cache_source: "sizes and line size from the snapshot's \
                    cache/index*/ (any it lacks: as below); latencies and mlp assumed: the \
                    Cortex-A53 figures of the hikey preset (L1 2.5 ns, L2 12.5 ns, other \
                    cluster 150 ns, DRAM 160 ns, mlp 3; Cortex-A53 TRM, the rest estimates); \
                    another node: estimate 240 ns at SLIT 20 (hikey has one node; the +80 ns \
                    of the generic x86 table)",
            },
        }
    }
}

#[cfg(test)]
mod tests {
    /// `-t shape:...`: the machine it names, and one-line errors for one
    /// that cannot be built.
    #[test]
    fn shape_machines_and_their_errors() {
        let m = find("shape:n=2,l=2,c=3,t=2,little=2,d=32").unwrap();
        assert_eq!(m.nr_cpus(), 24);
        assert_eq!(m.node_distance, vec![vec![10, 32], vec![32, 10]]);
        assert_eq!(m.cpus.iter().filter(|c| c.capacity == 430).count(), 4);
        assert_eq!(m.cpus[23].capacity, 430);
        assert_eq!(m.cpus[0].capacity, 1024);
        let x = find("shape:c=2,t=2,x86=1").unwrap();
        assert_eq!(
            x.cpus[0].core, x.cpus[2].core,
            "x86 numbering: siblings n apart"
        );
        assert_eq!(find("shape:c=1,t=4").unwrap().smt.throughput.len(), 4);
        for (spec, want) in [
            ("shape:n=4,l=4,c=32,t=4", "2048 CPUs, more than 1024"),
            ("shape:t=8", "t=8 is not in 1..=4"),
            ("shape:c=2,little=3", "little=3 but only 2 cores"),
            ("shape:c=2,z=1", "unknown key 'z'"),
            ("shape:c=x", "c=x is not a number"),
            ("shape:c=2,c=3", "'c' is given twice"),
            ("shape:n=2,d=10", "d=10 is not in 11..=254"),
        ] {
            let e = format!("{:#}", find(spec).unwrap_err());
            assert!(e.contains(want), "{spec}: {e}");
        }
    }

    use super::*;
    use std::collections::BTreeSet;

    fn count(m: &Machine, f: impl Fn(&CpuSpec) -> usize) -> usize {
        m.cpus.iter().map(f).collect::<BTreeSet<_>>().len()
    }

    #[test]
    fn every_preset_validates_and_builds_a_topo() {
        for p in all() {
            let m = (p.build)();
            assert_eq!(m.name, p.name);
            m.validate().unwrap_or_else(|e| panic!("{}: {e}", p.name));
            m.topo().unwrap_or_else(|e| panic!("{}: {e}", p.name));
            assert_eq!(m.idle_states[0].residency_ns, 0, "{}", p.name);
            assert!(!m.cache.source.is_empty() && !m.smt.source.is_empty());
        }
    }

    /// `offline=` and `absent=` (sparse numbering): nr_cpu_ids stays the
    /// shape's, the scheduler's topology holds the online CPUs only, and
    /// bad lists are one-line errors.
    #[test]
    fn shapes_with_offline_cpus_and_holes() {
        use crate::machine::Presence;
        let m = find("shape:c=4,t=2,offline=1+5,absent=2-3").unwrap();
        assert_eq!(m.nr_cpus(), 8);
        assert_eq!(m.presence(1), Presence::Offline);
        assert_eq!(m.presence(3), Presence::Absent);
        assert!(m.possible(5) && !m.online_at_start(5) && !m.possible(2));
        let topo = m.topo().unwrap();
        assert_eq!(topo.nr_cpu_ids(), 8);
        let ids: Vec<usize> = topo.all().map(|c| c.id).collect();
        assert_eq!(ids, [0, 4, 6, 7]);
        for (spec, want) in [
            (
                "shape:c=2,offline=2",
                "CPU 2 is listed offline but the shape has CPUs 0-1",
            ),
            ("shape:c=2,offline=0-1", "no CPU is online"),
            ("shape:c=2,t=2,absent=3", "the highest CPU id (3) is absent"),
            ("shape:c=2,offline=x", "'x' is not a CPU id"),
            (
                "shape:c=4,offline=1,absent=1",
                "CPU 1 is listed both offline and absent",
            ),
            ("shape:c=4,offline=1,offline=2", "'offline' is given twice"),
        ] {
            let e = format!("{:#}", find(spec).unwrap_err());
            assert!(e.contains(want) && !e.contains('\n'), "{spec}: {e}");
        }
    }

    #[test]
    fn cpu_counts_match_the_seeds() {
        for (name, n) in [
            ("power11", 224),
            ("e5-2630v4", 20),
            ("xeon-44", 44),
            ("xeon-88", 88),
            ("hikey", 8),
            ("tc2", 5),
            ("x86-12", 12),
            ("power10", 64),
            ("spr-2s", 224),
            ("epyc", 128),
            ("2s2c2t", 8),
            ("1s2c2t", 4),
        ] {
            assert_eq!(find(name).unwrap().nr_cpus(), n, "{name}");
        }
    }

    #[test]
    fn shapes() {
        // (name, LLCs, nodes, SMT width)
        for (name, llcs, nodes, smt) in [
            ("power10", 16, 1, 4),
            ("power11", 56, 2, 4),
            ("spr-2s", 8, 8, 2),
            ("epyc", 8, 1, 2),
            ("xeon-88", 2, 2, 2),
            ("hikey", 2, 1, 1),
            ("tc2", 2, 1, 1),
            ("2s2c2t", 2, 2, 2),
        ] {
            let m = find(name).unwrap();
            assert_eq!(count(&m, |c| c.llc), llcs, "{name} LLCs");
            assert_eq!(count(&m, |c| c.node), nodes, "{name} nodes");
            assert_eq!(m.smt_width(), smt, "{name} SMT");
        }
    }

    #[test]
    fn power11_llc_is_four_threads_interleaved() {
        let m = find("power11").unwrap();
        let llc0: Vec<usize> = m.cpus.iter().filter(|c| c.llc == 0).map(|c| c.id).collect();
        assert_eq!(llc0, vec![0, 2, 4, 6]);
        assert_eq!(m.cpus[112].node, 1);
    }

    #[test]
    fn tc2_is_asymmetric() {
        let m = find("tc2").unwrap();
        assert!(m.topo().unwrap().asymmetric());
        assert!(!find("hikey").unwrap().topo().unwrap().asymmetric());
    }

    #[test]
    fn x86_numbering_puts_siblings_ncores_apart() {
        let m = find("xeon-88").unwrap();
        assert_eq!(m.cpus[0].core, m.cpus[44].core);
        assert_ne!(m.cpus[0].core, m.cpus[1].core);
        assert_eq!(m.cpus[22].node, 1);
    }

    #[test]
    fn vm_numbering_matches_qemu() {
        let m = find("2s2c2t").unwrap();
        assert_eq!(m.cpus[0].core, m.cpus[1].core);
        assert_ne!(m.cpus[1].core, m.cpus[2].core);
        assert_eq!(m.cpus[3].node, 0);
        assert_eq!(m.cpus[4].node, 1);
    }

    #[test]
    fn spr_llcs_fit_the_scheduler() {
        let m = find("spr-2s").unwrap();
        assert!((0..8).all(|l| m.cpus.iter().filter(|c| c.llc == l).count() == 28));
        assert_eq!(m.node_distance[0][3], 12);
        assert_eq!(m.node_distance[0][4], 21);
    }

    #[test]
    fn families_by_arch_and_their_tables() {
        assert_eq!(Family::from_arch("x86_64"), Some(Family::X86));
        assert_eq!(Family::from_arch("ppc64le"), Some(Family::Power));
        assert_eq!(Family::from_arch("aarch64"), Some(Family::Arm));
        assert_eq!(Family::from_arch("riscv64"), None);
        for f in [Family::X86, Family::Power, Family::Arm] {
            let d = f.defaults();
            let p = find(d.preset).unwrap();
            assert_eq!(d.smt.throughput, p.smt.throughput, "{}", f.name());
            assert_eq!(d.idle.0, p.idle_states, "{}", f.name());
            assert_eq!(d.cache.llc_hit_ns, p.cache.llc_hit_ns, "{}", f.name());
            assert!(d.cache.remote_dram_ns > d.cache.dram_ns, "{}", f.name());
        }
    }

    #[test]
    fn unknown_name_lists_the_presets() {
        let e = find("cray-1").unwrap_err().to_string();
        assert!(e.contains("power10") && e.contains("1s2c2t") && !e.contains('\n'));
    }
}

/// A machine of any shape, for `arbor sim fuzz` and its reproducers:
/// `shape:n=NODES,l=LLCS_PER_NODE,c=CORES_PER_LLC,t=SMT[,x86=1][,little=K][,d=DIST][,offline=LIST][,absent=LIST]`.
/// Caches, idle states and SMT throughput are 2s2c2t's (the VM's x86
/// family), SMT throughput past 2 threads POWER's 4-thread group (an SMT8
/// core is two such groups in this model, so t is at most 4); `little=K` gives the last K cores' threads capacity 430 (tc2's
/// Cortex-A7); every pair of nodes is `d` apart (default 20). Sizes are
/// bounded: at most 1024 CPUs and 64 nodes.
/// `offline=LIST` names CPUs that exist (cpu_possible_mask) but are offline
/// when the run starts; `absent=LIST` names ids that are holes in the
/// numbering (sparse numbering: in no mask, but below nr_cpu_ids, so the
/// highest id cannot be one). A LIST is ids and ranges joined by `+`
/// (`offline=1+4-5`): a comma would end the key. CPU ids are the shape's
/// (all CPUs of the shape are numbered first; the lists then take some away).
pub fn shape(args: &str) -> Result<Machine> {
    let mut v = std::collections::BTreeMap::new();
    let mut lists: Vec<(crate::machine::Presence, Vec<usize>)> = Vec::new();
    for kv in args.split(',').filter(|a| !a.is_empty()) {
        let (k, x) = kv
            .split_once('=')
            .with_context(|| format!("shape:{args}: '{kv}' is not key=value"))?;
        if k == "offline" || k == "absent" {
            let p = if k == "offline" {
                crate::machine::Presence::Offline
            } else {
                crate::machine::Presence::Absent
            };
            if lists.iter().any(|(q, _)| *q == p) {
                bail!("shape:{args}: '{k}' is given twice");
            }
            let l = parse_plus_list(x).with_context(|| format!("shape:{args}: {k}={x}"))?;
            lists.push((p, l));
            continue;
        }
        let n: usize = x
            .parse()
            .with_context(|| format!("shape:{args}: {k}={x} is not a number"))?;
        if v.insert(k.to_string(), n).is_some() {
            bail!("shape:{args}: '{k}' is given twice");
        }
    }
    let mut take = |k: &str, def: usize, lo: usize, hi: usize| -> Result<usize> {
        let x = v.remove(k).unwrap_or(def);
        if !(lo..=hi).contains(&x) {
            bail!("shape:{args}: {k}={x} is not in {lo}..={hi}");
        }
        Ok(x)
    };
    let sh = Shape {
        nodes: take("n", 1, 1, 64)?,
        llcs_per_node: take("l", 1, 1, 64)?,
        cores_per_llc: take("c", 2, 1, 512)?,
        smt: take("t", 1, 1, 4)?,
        x86_numbering: take("x86", 0, 0, 1)? == 1,
    };
    let little = take("little", 0, 0, 1024)?;
    let d = take("d", 20, 11, 254)? as u32;
    if let Some(k) = v.keys().next() {
        bail!(
            "shape:{args}: unknown key '{k}' (keys: n, l, c, t, x86, little, d, offline, absent)"
        );
    }
    let cores = sh.nodes * sh.llcs_per_node * sh.cores_per_llc;
    if cores * sh.smt > 1024 {
        bail!("shape:{args}: {} CPUs, more than 1024", cores * sh.smt);
    }
    if little > cores {
        bail!("shape:{args}: little={little} but only {cores} cores");
    }
    let mut m = find("2s2c2t")?;
    if sh.smt > 2 {
        // 4-thread cores: POWER's 4-thread group (the model takes an SMT8
        // core as two of them: `power_cpus`)
        m.smt = smt_power_group();
    }
    m.name = format!("shape:{args}");
    m.about = format!(
        "{} node(s) x {} LLC(s) x {} core(s) x SMT{}{}",
        sh.nodes,
        sh.llcs_per_node,
        sh.cores_per_llc,
        sh.smt,
        if little > 0 {
            format!(", {little} little core(s) at 430")
        } else {
            String::new()
        }
    );
    // Shape::cpus hands the closure each CPU's core index
    m.cpus = sh.cpus(|core| if core >= cores - little { 430 } else { 1024 });
    m.node_distance = (0..sh.nodes)
        .map(|a| (0..sh.nodes).map(|b| if a == b { 10 } else { d }).collect())
        .collect();
    m.presence = Vec::new();
    for (p, l) in &lists {
        for &c in l {
            if c >= m.cpus.len() {
                bail!(
                    "shape:{args}: CPU {c} is listed {} but the shape has CPUs 0-{}",
                    if *p == crate::machine::Presence::Offline {
                        "offline"
                    } else {
                        "absent"
                    },
                    m.cpus.len() - 1
                );
            }
        }
    }
    if let [(a, la), (_, lb)] = &lists[..] {
        if let Some(c) = la.iter().find(|c| lb.contains(c)) {
            let _ = a;
            bail!("shape:{args}: CPU {c} is listed both offline and absent");
        }
    }
    for (p, l) in &lists {
        m.set_presence(l, *p)?;
    }
    m.validate()?;
    Ok(m)
}

/// `1+4-5` -> [1, 4, 5]: CPU ids and ranges joined by `+`.
pub fn parse_plus_list(s: &str) -> Result<Vec<usize>> {
    let mut v = Vec::new();
    for part in s.split('+') {
        let num = |x: &str| -> Result<usize> {
            x.trim()
                .parse()
                .with_context(|| format!("'{x}' is not a CPU id"))
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b || b - a > 4096 {
                    bail!("'{part}' is not a range lo-hi");
                }
                v.extend(a..=b);
            }
            None => v.push(num(part)?),
        }
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}
