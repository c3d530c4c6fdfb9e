//! scx_arbor's user-space pieces that do not need a kernel: topology, the
//! feature and counter tables, the tunables and the read-only data they
//! become, and the pure placement rules (policy.h, compiled natively).
//! The loader (`main.rs`) and the simulator (`arbor_sim`) both use them.

pub mod bpf_intf;
pub mod cgstats;
pub mod cli;
pub mod doc_commands;
pub mod features;
pub mod files;
pub mod knobs;
pub mod opcost;
pub mod policy;
pub mod spec;
pub mod stats;
pub mod stats_server;
pub mod topology;
pub mod verifier;

/// The make-style list of the files the compile of the BPF object read
/// (clang's `-MD`, written by build.rs), relative paths from this crate's
/// directory. The simulator's test that its native build uses the same
/// sources reads it.
pub const BPF_DEPS_FILE: &str = env!("ARBOR_BPF_DEPS");

/// Tests that cannot run on this machine say so rather than pass.
pub mod testing {
    /// Set to `1` by `make unit-test` (and the Makefile's other test
    /// targets): `make test` installs everything a test needs, so there a
    /// test that cannot run is a failure.
    pub const STRICT_ENV: &str = "ARBOR_STRICT_TESTS";

    fn strict() -> bool {
        std::env::var(STRICT_ENV).is_ok_and(|v| v == "1")
    }

    /// A test needs something this machine lacks but `make test` provides
    /// (the rt-app package, root, /sys's CPU topology): with
    /// `ARBOR_STRICT_TESTS=1` this panics; otherwise it prints
    /// `skipped: REASON` to stderr and returns, and the caller returns.
    pub fn skip(reason: &str) {
        skip_as(strict(), reason)
    }

    fn skip_as(strict: bool, reason: &str) {
        if strict {
            panic!(
                "cannot run here: {reason} ({STRICT_ENV}=1: make test installs everything, so this is a failure)"
            );
        }
        eprintln!("skipped: {reason}");
    }

    /// A test needs a host that no install makes this one: its kernel has
    /// (or lacks) sched_ext, or a scx_arbor runs on it. A skip everywhere,
    /// `make test` included, printed as `skipped on this host: REASON`.
    pub fn skip_on_this_host(reason: &str) {
        eprintln!("skipped on this host: {reason}");
    }

    #[cfg(test)]
    mod tests {
        #[test]
        #[should_panic(
            expected = "cannot run here: no rt-app (ARBOR_STRICT_TESTS=1: make test installs everything, so this is a failure)"
        )]
        fn strict_skip_fails() {
            super::skip_as(true, "no rt-app");
        }

        #[test]
        fn lenient_skip_returns() {
            super::skip_as(false, "no rt-app");
        }
    }
}
