//! arbor: scx_arbor's toolkit. `arbor vm` boots a sched_ext-capable guest
//! with a chosen topology and runs a command in it; `arbor bench` runs real
//! workloads under EEVDF, scx_arbor and its peers there and reports tables.
//! `arbor sim` runs scx_arbor's own BPF code on simulated machines.

mod bench;
mod ci;
mod report;
mod seeds;
mod shard;
mod sim;
mod simrun;
mod verifier;
mod vm;
mod workload;

use anyhow::{bail, Result};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "arbor",
    version,
    about = "scx_arbor's toolkit: VM runner, benchmark harness, simulator"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Boot a guest kernel with sched_ext under QEMU/TCG and run a command in it.
    Vm {
        /// A preset (see --list-topologies) or sockets=S,dies=D,cores=C,threads=T,nodes=N,mem=M.
        #[arg(short, long, default_value = "2s2c2t")]
        topology: String,
        /// Guest kernel: default (the one install-deps.sh unpacked), rt, cloud, next
        /// (fetched with `make deps KERNELS=...`), or a version under /usr/lib/modules.
        #[arg(long)]
        kernel: Option<String>,
        /// List the topology presets and exit.
        #[arg(long)]
        list_topologies: bool,
        /// Show the guest's boot log.
        #[arg(short, long)]
        verbose: bool,
        /// Kill the guest (QEMU and all) after SECS seconds and exit 124
        /// [default: 14400, 4 hours; `make test` sets its own bound per guest,
        /// VM_TIMEOUT in the Makefile]. Apart from it, a guest whose command
        /// has not started 5 minutes + 6 s per vCPU after its start
        /// (ARBOR_VM_BOOT_TIMEOUT=SECS sets another bound) hung booting: it is
        /// killed and booted again, up to 3 boots.
        #[arg(long, value_name = "SECS", value_parser = scx_arbor::knobs::parse_secs)]
        timeout: Option<f64>,
        /// The command to run in the guest, in the current directory: one
        /// argument is a shell line, several are quoted one by one.
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Real workloads under EEVDF, scx_arbor profiles and peer schedulers,
    /// side by side, in one guest boot (try --list, --quick).
    Bench(bench::BenchArgs),
    /// scx_arbor's and the peers' own BPF code on a simulated machine of
    /// any size, in parallel simulated time (try --list).
    Sim(sim::SimArgs),
    /// The verifier's instruction count of each scx_arbor BPF program on
    /// each guest kernel, against the committed table (>20% growth flagged).
    Verifier(verifier::VerifierArgs),
}

fn main() {
    match real_main() {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("arbor: error: {}", format!("{e:#}").replace('\n', " "));
            std::process::exit(2);
        }
    }
}

fn real_main() -> Result<i32> {
    let cli: Cli = scx_arbor::cli::parse_args("arbor");
    match cli.cmd {
        Cmd::Bench(a) => bench::main(a),
        Cmd::Sim(a) => sim::main(a),
        Cmd::Verifier(a) => verifier::main(a),
        Cmd::Vm {
            topology,
            kernel,
            list_topologies,
            verbose,
            timeout,
            command,
        } => {
            if list_topologies {
                for (name, spec, what) in vm::PRESETS {
                    println!("{name:<10} {what:<44} {spec}");
                }
                return Ok(0);
            }
            let topo = vm::VmTopology::parse(&topology)?;
            if command.is_empty() {
                bail!("no command given: arbor vm [--topology T] -- COMMAND [ARGS...]");
            }
            // One argument is a shell line (like ssh): `arbor vm -- 'a && b'`.
            // Several are quoted one by one: `arbor vm -- hackbench -g 2`.
            let cmdline = if command.len() == 1 {
                command[0].clone()
            } else {
                command
                    .iter()
                    .map(|a| vm::shell_quote(a))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            // ARBOR_BIN=... arbor vm -- tests/vm/X.sh: the guest sees it too
            let cmdline = vm::with_forwarded_env(&cmdline, |k| {
                std::env::var_os(k).map(|v| v.to_string_lossy().to_string())
            });
            let timeout = std::time::Duration::from_secs_f64(
                timeout.unwrap_or(vm::DEFAULT_TIMEOUT_SECS as f64),
            );
            // a timeout or a signal: the runner printed which; exit 124 / 128+N
            match vm::run(&topo, kernel.as_deref(), &cmdline, verbose, Some(timeout)) {
                Err(e) => match e.downcast_ref::<vm::Stopped>() {
                    Some(s) => Ok(s.exit_code()),
                    None => Err(e),
                },
                ok => ok,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn shell_quote_keeps_plain_words_and_quotes_the_rest() {
        assert_eq!(super::vm::shell_quote("hackbench"), "hackbench");
        assert_eq!(super::vm::shell_quote("a b"), "'a b'");
        assert_eq!(super::vm::shell_quote("it's"), "'it'\\''s'");
        assert_eq!(super::vm::shell_quote(""), "''");
    }
}
