//! SIS_UTIL's scan depth at load (scheduler/src/bpf/main.bpf.c arbor_init):
//! before the periodic balancer first measures the LLC's utilisation, a
//! wake-up must still scan for an idle CPU. Found by `arbor sim validate`
//! (docs/findings/2026-11-22-sim-validate-first): with the depth starting at
//! 0, 13% of a short perf-pipe run's wake-ups found no idle CPU on a
//! machine with 6 of 8 CPUs idle.

use arbor_sim::core::Config;
use arbor_sim::presets;
use arbor_sim::run::simulate_defaults;
use arbor_sim::sched::SchedSpec;

#[test]
fn the_first_wakeups_after_load_find_an_idle_cpu() {
    let m = presets::find("2s2c2t").unwrap();
    let sched = SchedSpec::parse("arbor:stock").unwrap();
    // a few ms of simulated time: most of it before the balancer's first
    // update (--balance-interval-ms 4)
    let o = simulate_defaults(&m, &sched, "perf-pipe:l=2000", Config::default(), 1).unwrap();
    assert!(o.ok, "{}", o.stop);
    let c = |n: &str| o.counter(n).unwrap();
    let (wakeups, nofound) = (c("wakeups"), c("nofound_idle"));
    assert!(wakeups >= 2000, "{wakeups} wake-ups");
    // two tasks on eight CPUs: an idle CPU is always there to be found
    assert_eq!(
        nofound, 0,
        "{nofound} of {wakeups} wake-ups found no idle CPU"
    );
}
