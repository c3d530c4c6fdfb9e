//! `arbor bench reproduce SEED`: each seed's experiment scaled to a VM
//! topology that resembles the seed's machine, stock vs the mechanism, with
//! the seed's published numbers printed beside ours.

pub struct Repro {
    pub name: &'static str,
    pub seed: &'static str,
    pub topology: &'static str,
    pub scheds: &'static [&'static str],
    pub workloads: &'static [&'static str],
    /// what the seed measured, on what machine (../shared/reference/seeds.md)
    pub published: &'static str,
    /// why this topology and these parameters
    pub scaling: &'static str,
}

pub const REPROS: &[Repro] = &[
    Repro {
        name: "idler-llc",
        seed: "000 (WA_IDLER_LLC / WA_WAKER)",
        topology: "1s2d2c2t",
        scheds: &["arbor:stock", "arbor:stock:WA_IDLER_LLC", "arbor:stock:WA_IDLER_LLC,WA_WAKER"],
        workloads: &["hackbench:g=2,l=100", "wakeprobe:m=3,w=2,t=5"],
        published: "POWER10 SMT8, LLC of 4 threads: Daytrader +4.3% throughput; hackbench and schbench -m 3 also reported",
        scaling: "two small LLCs (2 dies x 2 cores x SMT2 = 4 CPUs each, POWER10's LLC size) in one socket; schbench -m 3 becomes wakeprobe -m 3",
    },
    Repro {
        name: "wake-affine-throttle",
        seed: "001 (WA_THROTTLE)",
        topology: "1s4c1t",
        scheds: &["arbor:stock", "arbor:stock:WA_THROTTLE"],
        workloads: &["pgbench:clients=4,time=8", "pgbench:clients=16,time=8", "pgbench:clients=32,time=8"],
        published: "12-CPU x86, pgbench: up to +41% tps at 24-32 clients (100 ms interval), no change at <= 4 clients",
        scaling: "the 12-CPU box scaled to 4 CPUs; client counts kept (1x, 4x, 8x the CPUs); default 1 ms interval",
    },
    Repro {
        name: "cache-aware",
        seed: "002 (CACHE_LB)",
        topology: "1s2d2c2t",
        scheds: &["arbor:stock", "arbor:stock:CACHE_LB"],
        workloads: &["wakeprobe:m=2,w=2,t=5,k=256", "hackbench:g=2,l=100,mode=thread"],
        published: "Power11 224 CPUs, LLC of 4 threads: schbench/hackbench pipe gains on x86; Power11 SMT8 p50-p99 21-43% worse (fixed by SMT scaling)",
        scaling: "LLCs of 4 CPUs with SMT2 (Power11's LLC size); schbench-style probe with a 256 KB shared buffer per message thread",
    },
    Repro {
        name: "steal",
        seed: "003 (STEAL)",
        topology: "2s2c2t",
        scheds: &["arbor:stock", "arbor:stock:STEAL"],
        workloads: &["hackbench:g=1,l=100", "hackbench:g=2,l=100"],
        published: "20-CPU E5-2630 v4: hackbench 1 group 8.08 s -> 5.94 s (+36%), CPU busy 75% -> 97%; 8-CPU HiKey regressed; 88-CPU 2-socket -18% at 2 groups",
        scaling: "2 sockets of 4 CPUs (SMT2); hackbench process mode, 40 tasks per group as in the seed, loops cut to 100",
    },
    Repro {
        name: "asym-capacity",
        seed: "004 (ASYM_WAKE_CAP, ASYM_IDLE_CAPACITY, ASYM_MISFIT)",
        topology: "1s4c1t",
        scheds: &[
            "arbor:stock:cpu-capacity=2-3:430",
            "arbor:stock:ASYM_WAKE_CAP,ASYM_IDLE_CAPACITY,ASYM_MISFIT:cpu-capacity=2-3:430",
        ],
        workloads: &["sysbench:threads=1,time=5", "perf-messaging:g=2,l=50"],
        published: "ARM TC2 (2xA15 + 3xA7): sysbench cpu 1 thread 146.9 -> 217.9 events (+48%); SMP machines unaffected",
        scaling: "4 CPUs, 2 of them declared little (--cpu-capacity 2-3:430). Under TCG every vCPU is equally fast, so only placement changes, not speed",
    },
];

pub fn find(name: &str) -> Option<&'static Repro> {
    REPROS.iter().find(|r| r.name == name)
}

pub fn names() -> String {
    REPROS.iter().map(|r| r.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::spec::SchedSpec;
    use crate::bench::workload::Workload;

    #[test]
    fn every_preset_is_valid() {
        for r in REPROS {
            crate::vm::VmTopology::parse(r.topology).unwrap();
            for s in r.scheds {
                SchedSpec::parse(s).unwrap();
            }
            for w in r.workloads {
                Workload::parse(w, 4).unwrap();
            }
        }
        assert!(find("steal").is_some());
        assert!(find("stealing").is_none());
    }
}
