//! scx_arbor: a topology-aware sched_ext scheduler. The stock kernel's
//! fair-task placement, ported to BPF, with every heuristic switchable
//! (`-f`) and counted (`--stats`).

mod bpf_skel;

use std::fs;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bpf_skel::*;
use clap::Parser;
use libbpf_rs::OpenObject;
use log::{info, warn};
use scx_utils::{scx_ops_attach, scx_ops_load, scx_ops_open, uei_exited, uei_report, UserExitInfo};

use scx_arbor::knobs::{Knobs, Rodata};
use scx_arbor::stats::Metrics;
use scx_arbor::topology::Topo;
use scx_arbor::{bpf_intf, cgstats, features, stats, stats_server};

const SCHEDULER_NAME: &str = "scx_arbor";

/// Topology-aware sched_ext scheduler: the stock kernel's placement, each
/// heuristic switchable like sched_features and observable through counters.
#[derive(Debug, Parser)]
#[command(name = "scx_arbor", version, allow_negative_numbers = true)]
struct Opts {
    /// Start from a profile: stock (baseline only), seeds (each seed's
    /// defaults) or default (ours); -f flags apply on top.
    #[arg(short = 'p', long, default_value = "default")]
    profile: String,

    /// Turn a feature on (NAME) or off (NO_NAME); repeatable, or comma-separated.
    #[arg(short = 'f', long = "feature", value_name = "[NO_]NAME")]
    features: Vec<String>,

    /// Print every feature with its default and meaning, then exit.
    #[arg(long, conflicts_with = "list_counters")]
    list_features: bool,

    /// Print every counter with its index, kind and meaning, then exit.
    #[arg(long)]
    list_counters: bool,

    /// With --list-features or --list-counters: print the table as JSON
    /// (for scripts; the names and order are the BPF side's).
    #[arg(long)]
    json: bool,

    /// Switch features of the running scx_arbor, like writing to the
    /// kernel's sched/features: e.g. NO_STEAL,WA_THROTTLE; prints the result.
    #[arg(long, value_name = "[NO_]NAME,...", conflicts_with_all = ["show_features", "list_features"])]
    set_features: Option<String>,

    /// Print the running scx_arbor's feature switches (NAME on, NO_NAME off).
    #[arg(long)]
    show_features: bool,

    /// Print counters every SECS seconds while running.
    #[arg(long, value_name = "SECS", value_parser = scx_arbor::knobs::parse_secs)]
    stats: Option<f64>,

    /// Attach to a running scx_arbor and print its counters every SECS seconds.
    #[arg(long, value_name = "SECS", value_parser = scx_arbor::knobs::parse_secs)]
    monitor: Option<f64>,

    /// At exit (and on SIGUSR1, as a snapshot), write every cumulative
    /// counter as one JSON object to FILE (its directory must not be
    /// writable by other users unless sticky, like /tmp).
    #[arg(long, value_name = "FILE")]
    stats_json: Option<PathBuf>,

    /// Once loaded, write the verifier's instruction count of each BPF
    /// program, with the kernel and topology, as one JSON object to FILE
    /// (`-`: standard output). `arbor verifier` collects these per kernel.
    #[arg(long, value_name = "FILE")]
    verifier_json: Option<PathBuf>,

    /// Unload after SECS seconds (for scripts; default: run until SIGINT/SIGTERM).
    #[arg(long, value_name = "SECS", value_parser = scx_arbor::knobs::parse_secs)]
    run_secs: Option<f64>,

    /// Also serve the stats socket (--monitor, --set-features) to members of
    /// GROUP (name or gid); by default only root may connect.
    #[arg(long, value_name = "GROUP")]
    stats_group: Option<String>,

    /// Bytes of the kernel's debug dump to print if the scheduler is ejected.
    #[arg(long, default_value_t = 0)]
    exit_dump_len: u32,

    /// Print the topology and settings at start; twice (-vv) also libbpf's
    /// and the verifier's logs, and the per-op BPF cost (calls, ns per
    /// call of each callback, from the kernel's BPF run-time statistics)
    /// every --stats interval (default 10 s) and at exit.
    #[arg(short, long, action = clap::ArgAction::Count)]
    verbose: u8,

    // last: its groups set help headings, which would carry over to the
    // options after it
    #[command(flatten)]
    knobs: Knobs,
}

struct Scheduler<'a> {
    skel: BpfSkel<'a>,
    struct_ops: Option<libbpf_rs::Link>,
    stats_server: Option<stats_server::Server>,
    calls: crossbeam::channel::Receiver<stats_server::Call>,
    opcost: Option<scx_arbor::opcost::OpCost>,
}

fn check_environment() -> Result<()> {
    if !std::path::Path::new("/sys/kernel/sched_ext").exists() {
        bail!(
            "this kernel ({}) has no sched_ext (CONFIG_SCHED_CLASS_EXT); run scx_arbor in a VM: arbor vm -- scx_arbor",
            fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim()
        );
    }
    if unsafe { libc::geteuid() } != 0 {
        bail!(
            "scx_arbor must run as root (loading a BPF scheduler needs CAP_SYS_ADMIN and CAP_BPF)"
        );
    }
    let state = fs::read_to_string("/sys/kernel/sched_ext/state").unwrap_or_default();
    if state.trim() != "disabled" {
        let ops = fs::read_to_string("/sys/kernel/sched_ext/root/ops").unwrap_or_default();
        bail!(
            "another sched_ext scheduler is {} ({}); stop it first",
            state.trim(),
            ops.trim()
        );
    }
    Ok(())
}

impl<'a> Scheduler<'a> {
    fn init(
        opts: &Opts,
        feats: u64,
        topo: &Topo,
        stats_group: Option<u32>,
        open_object: &'a mut MaybeUninit<OpenObject>,
    ) -> Result<Self> {
        let mut builder = BpfSkelBuilder::default();
        builder.obj_builder.debug(opts.verbose > 1);
        let mut skel = scx_ops_open!(builder, open_object, arbor_ops, None)?;
        skel.struct_ops.arbor_ops_mut().exit_dump_len = opts.exit_dump_len;

        let rodata = skel
            .maps
            .rodata_data
            .as_mut()
            .context("BPF rodata missing")?;
        let rd = Rodata::new(&opts.knobs, topo);
        rodata.nr_cpus = rd.nr_cpus;
        // the kernel's nr_cpu_ids, past the highest online CPU when the
        // highest are offline (common.bpf.h allowed_everywhere)
        rodata.kern_nr_cpu_ids = libbpf_rs::num_possible_cpus()
            .context("reading the possible CPUs")?
            .try_into()
            .context("nr_cpu_ids")?;
        rodata.nr_llcs = rd.nr_llcs;
        rodata.nr_nodes = rd.nr_nodes;
        rodata.smt_width = rd.smt_width;
        for &(id, llc, node, core, cap) in &rd.cpus {
            rodata.cpu_llc[id] = llc;
            rodata.cpu_node[id] = node;
            rodata.cpu_core[id] = core;
            rodata.cpu_cap[id] = cap;
        }
        for (llc, (cpus, node)) in rd.llcs.iter().enumerate() {
            rodata.llc_nr_cpus[llc] = cpus.len() as u32;
            rodata.llc_node[llc] = *node;
            for (i, &c) in cpus.iter().enumerate() {
                rodata.llc_cpus[llc][i] = c;
            }
        }
        for (llc, sib) in rd.llc_sib.iter().enumerate() {
            rodata.llc_sib[llc][..sib.len()].copy_from_slice(sib);
        }
        for &(cpu, i) in &rd.cpu_llc_idx {
            rodata.cpu_llc_idx[cpu] = i;
        }
        rodata.asym = rd.asym;
        rodata.cg_enabled = rd.cg_enabled;
        for (n, &imb) in rd.node_imb_numa_nr.iter().enumerate() {
            rodata.node_imb_numa_nr[n] = imb;
        }
        for (n, words) in rd.node_cpus.iter().enumerate() {
            rodata.node_cpus[n].copy_from_slice(words);
        }
        for (n, &nr) in rd.node_nr_llcs.iter().enumerate() {
            rodata.node_nr_llcs[n] = nr;
        }
        // The config structs: the skeleton's types are intf.h's, field for
        // field. Each pattern is exhaustive, so a field added to intf.h and
        // not copied here fails to compile.
        macro_rules! set_cfg {
            ($dst:expr, $src:expr, $ty:ident { $($f:ident),+ }) => {{
                let bpf_intf::$ty { $($f),+ } = $src;
                $( $dst.$f = $f; )+
            }};
        }
        set_cfg!(rodata.slice_cfg, rd.slice, arbor_slice_cfg { slice_ns });
        set_cfg!(
            rodata.balance_cfg,
            rd.balance,
            arbor_balance_cfg {
                migration_cost_ns,
                interval_ns,
                imbalance_pct,
                pad
            }
        );
        set_cfg!(rodata.wa_cfg, rd.wa, arbor_wa_cfg { interval_ns });
        set_cfg!(
            rodata.steal_cfg,
            rd.steal,
            arbor_steal_cfg {
                cost_ns,
                node_limit,
                pad
            }
        );
        set_cfg!(
            rodata.cache_cfg,
            rd.cache,
            arbor_cache_cfg {
                epoch_ns,
                timeout_epochs,
                aggr_pct,
                imb_pct,
                tolerance
            }
        );
        skel.maps
            .bss_data
            .as_mut()
            .context("BPF bss missing")?
            .features = feats;

        let mut skel = scx_ops_load!(skel, arbor_ops, uei)?;
        let struct_ops = Some(scx_ops_attach!(skel, arbor_ops)?);
        // The periodic balancer starts only now that sched_ext is fully up.
        skel.maps
            .bss_data
            .as_mut()
            .context("BPF bss missing")?
            .timer_go = 1;
        let (stats_server, calls) =
            stats_server::Server::launch(Path::new(stats::STATS_SOCKET), stats_group)?;
        let opcost = if opts.verbose > 1 {
            use libbpf_rs::skel::Skel;
            match scx_arbor::opcost::OpCost::new(skel.object()) {
                Ok(c) => Some(c),
                Err(e) => {
                    warn!("per-op BPF cost unavailable: {e:#}");
                    None
                }
            }
        } else {
            None
        };
        if let Some(path) = &opts.verifier_json {
            use libbpf_rs::skel::Skel;
            let report = scx_arbor::verifier::Report {
                kernel: fs::read_to_string("/proc/sys/kernel/osrelease")
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
                cpus: rd.nr_cpus,
                llcs: rd.nr_llcs,
                nodes: rd.nr_nodes,
                programs: scx_arbor::verifier::collect(skel.object())?,
            };
            let json = serde_json::to_string(&report)? + "\n";
            if path.as_os_str() == "-" {
                print!("{json}");
            } else {
                fs::write(path, json)
                    .with_context(|| format!("--verifier-json {}", path.display()))?;
            }
        }
        Ok(Self {
            skel,
            struct_ops,
            stats_server: Some(stats_server),
            calls,
            opcost,
        })
    }

    fn metrics(&self) -> Result<Metrics> {
        let bss = self
            .skel
            .maps
            .bss_data
            .as_ref()
            .context("BPF bss missing")?;
        let mut sums = vec![0u64; stats::NAMES.len()];
        for row in bss.stats.iter() {
            for (s, v) in sums.iter_mut().zip(row.iter()) {
                *s += *v;
            }
        }
        sums[bpf_intf::arbor_stat_STAT_IDLE_WHILE_QUEUED_NS as usize] = bss.gap_total_ns;
        let mut m = Metrics::from_values(&sums)?;
        m.llc_prefs = self.llc_prefs(5);
        m.cgroups = self.cgroups(5, m.busy_ns + m.idle_ns);
        Ok(m)
    }

    /// Group scheduling: the `n` busiest cgroups (cgstats::busiest), from
    /// the groups' contexts; their CPU time over `total_ns` of all CPUs'.
    fn cgroups(&self, n: usize, total_ns: u64) -> String {
        use libbpf_rs::MapCore;
        let map = &self.skel.maps.cg_ctxs;
        let mut rows = Vec::new();
        for key in map.keys() {
            let Ok(Some(val)) = map.lookup(&key, libbpf_rs::MapFlags::ANY) else {
                continue;
            };
            if key.len() < 8 || val.len() < std::mem::size_of::<bpf_intf::cg_ctx>() {
                continue;
            }
            let id = u64::from_ne_bytes(key[..8].try_into().unwrap_or_default());
            // SAFETY: the value is a struct cg_ctx (intf.h), its size checked above
            let g: bpf_intf::cg_ctx =
                unsafe { std::ptr::read_unaligned(val.as_ptr() as *const bpf_intf::cg_ctx) };
            rows.push(cgstats::CgRow {
                id,
                run_ns: g.run_ns,
                throttles: g.nr_throttled,
                idle_preempts: g.nr_idle_preempts,
            });
        }
        let top = cgstats::top(rows, n);
        let ids: Vec<u64> = top.iter().map(|r| r.id).collect();
        let names = cgstats::paths_of(Path::new(cgstats::CGROUP_ROOT), &ids);
        cgstats::busiest(&top, total_ns, &names)
    }

    /// Seed 002: "pid:llc" for the `n` processes with the most recent run
    /// time that have a preferred LLC.
    fn llc_prefs(&self, n: usize) -> String {
        use libbpf_rs::MapCore;
        let map = &self.skel.maps.proc_ctxs;
        let mut procs: Vec<(u64, u32, i32)> = Vec::new();
        for key in map.keys() {
            let Ok(Some(val)) = map.lookup(&key, libbpf_rs::MapFlags::ANY) else {
                continue;
            };
            if key.len() < 4 || val.len() < std::mem::size_of::<bpf_intf::proc_ctx_head>() {
                continue;
            }
            let tgid = u32::from_ne_bytes([key[0], key[1], key[2], key[3]]);
            // SAFETY: the value starts with the fields of proc_ctx_head (intf.h)
            let head: bpf_intf::proc_ctx_head =
                unsafe { std::ptr::read_unaligned(val.as_ptr() as *const bpf_intf::proc_ctx_head) };
            if head.pref_llc >= 0 {
                procs.push((head.total_rt, tgid, head.pref_llc));
            }
        }
        procs.sort_unstable_by(|a, b| b.cmp(a));
        procs
            .iter()
            .take(n)
            .map(|(_, pid, llc)| format!("{pid}:{llc}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Applies `[NO_]NAME,...` to the live mask (the BPF side reads it on
    /// every decision, so the change acts at once); returns the mask in force.
    fn switch_features(&mut self, set: Option<&str>) -> std::result::Result<String, String> {
        let bss = self
            .skel
            .maps
            .bss_data
            .as_mut()
            .ok_or_else(|| "BPF bss missing".to_string())?;
        let cur = bss.features;
        if let Some(spec) = set {
            let new = features::apply(cur, &[spec.to_string()]).map_err(|e| format!("{e:#}"))?;
            if new != cur {
                // a single aligned 32-bit store into the mmapped bss
                unsafe { std::ptr::write_volatile(&mut bss.features, new) };
                info!("features switched ({spec}): {}", features::describe(new));
            }
            return Ok(features::describe(new));
        }
        Ok(features::describe(cur))
    }

    /// Serves until asked to stop (signal, --run-secs), until the kernel
    /// exits the scheduler, or until an error of ours; then always unloads
    /// in order (unload()). Returns how it ended; Err is our own error,
    /// reported as what it is, after the orderly unload.
    fn run(
        &mut self,
        opts: &Opts,
        shutdown: &AtomicBool,
        deadline: Option<Instant>,
    ) -> Result<End> {
        let served = self.serve(opts, shutdown, deadline);
        // the kernel's verdict, read before our own detach overwrites it
        let kernel_exit = uei_exited!(&self.skel, uei);
        let feats = self.skel.maps.bss_data.as_ref().map(|b| b.features);
        let unloaded = self.unload(opts);
        if let Err(e) = served {
            if let Err(u) = unloaded {
                warn!("while unloading after the error: {u:#}");
            }
            // sched_ext's own line: unregistered from user space (by us),
            // or the kernel's reason if it exited us meanwhile
            let _ = uei_report!(&self.skel, uei);
            return Err(e);
        }
        unloaded?;
        if !kernel_exit {
            // our detach: uei says "unregistered from user space"
            let _ = uei_report!(&self.skel, uei);
            return Ok(End::Stopped);
        }
        let uei = scx_utils::uei_read!(&self.skel, uei);
        Ok(End::Kernel(uei, feats.unwrap_or(0)))
    }

    fn serve(
        &mut self,
        opts: &Opts,
        shutdown: &AtomicBool,
        deadline: Option<Instant>,
    ) -> Result<()> {
        let cost_every = Duration::from_secs_f64(opts.stats.unwrap_or(10.0));
        let mut cost_prev = Vec::new();
        let mut cost_at = Instant::now();
        while !shutdown.load(Ordering::Relaxed) && !uei_exited!(&self.skel, uei) {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            if let Some(c) = &self.opcost {
                if cost_at.elapsed() >= cost_every {
                    let cur = c.sample();
                    info!(
                        "per-op BPF cost, last {:.0} s:\n{}",
                        cost_at.elapsed().as_secs_f64(),
                        scx_arbor::opcost::table(&cost_prev, &cur)
                    );
                    cost_prev = cur;
                    cost_at = Instant::now();
                }
            }
            // SIGUSR1: write a snapshot of the counters to --stats-json now
            // (arbor bench takes one before and after each workload).
            if SNAPSHOT.swap(false, Ordering::Relaxed) {
                if let Some(path) = &opts.stats_json {
                    write_json(path, &self.metrics()?)
                        .context("--stats-json snapshot (SIGUSR1)")?;
                }
            }
            // Poll, then sleep: a blocking recv_timeout() here spun in
            // crossbeam's backoff and cost ~0.9 CPU under wake-up-heavy load
            // in the VM (perf: 11% of all samples in Channel::recv, the
            // thread's utime 3.9 s in a 4.5 s run). 50 ms is the latency of
            // a stats or feature request.
            // (a client that went away meanwhile does not matter)
            match self.calls.try_recv() {
                Ok(stats_server::Call {
                    req: stats::Req::Metrics,
                    reply,
                }) => {
                    let _ = reply.send(stats::Res::Metrics(Box::new(self.metrics()?)));
                }
                Ok(stats_server::Call {
                    req: stats::Req::Features(set),
                    reply,
                }) => {
                    let _ = reply.send(stats::Res::Features(self.switch_features(set.as_deref())));
                }
                Err(crossbeam::channel::TryRecvError::Empty) => {
                    std::thread::sleep(Duration::from_millis(50))
                }
                Err(e) => Err(e)?,
            }
        }
        Ok(())
    }

    /// The orderly unload, whatever ended the run: close the stats socket,
    /// stop the periodic balancer's timer (an armed timer at detach crashed
    /// guests), detach, then write the final counters.
    fn unload(&mut self, opts: &Opts) -> Result<()> {
        let final_metrics = self.metrics();
        // no more requests: close the socket (and remove it) first
        drop(self.stats_server.take());
        if let Some(c) = &self.opcost {
            info!(
                "per-op BPF cost since load:\n{}",
                scx_arbor::opcost::table(&[], &c.sample())
            );
        }
        // Stop the periodic balancer before sched_ext starts tearing down,
        // and give an armed timer time to fire once and see the flag.
        if let Some(bss) = self.skel.maps.bss_data.as_mut() {
            bss.timer_stop = 1;
        }
        std::thread::sleep(Duration::from_millis(
            3 * opts.knobs.balance.balance_interval_ms + 10,
        ));
        let _ = self.struct_ops.take();
        let final_metrics = final_metrics.context("reading the final counters")?;
        info!(
            "final: busy {:.1}% idle_while_queued {:.2}% of CPU time, {} wakeups",
            final_metrics.busy_pct(),
            final_metrics.gap_pct(),
            final_metrics.wakeups
        );
        if let Some(path) = &opts.stats_json {
            write_json(path, &final_metrics).context("--stats-json at exit")?;
        }
        Ok(())
    }
}

/// How a run ended.
enum End {
    /// We unloaded (signal, --run-secs).
    Stopped,
    /// The kernel exited the scheduler; the feature mask in force then.
    Kernel(UserExitInfo, u64),
}

/// Set by SIGUSR1: write a counter snapshot to --stats-json.
static SNAPSHOT: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigusr1(_: libc::c_int) {
    SNAPSHOT.store(true, Ordering::Relaxed);
}

/// Writes the counters as JSON, atomically and safely as root (files.rs).
fn write_json(path: &Path, m: &Metrics) -> Result<()> {
    let json = serde_json::to_string_pretty(&m.values()?)? + "\n";
    scx_arbor::files::write_atomic(path, json.as_bytes())
}

fn main() {
    if let Err(e) = real_main() {
        // One line, no backtrace: the error chain joined.
        let msg = format!("{e:#}").replace('\n', " ");
        eprintln!("scx_arbor: error: {msg}");
        std::process::exit(1);
    }
}

fn real_main() -> Result<()> {
    let opts: Opts = scx_arbor::cli::parse_args("scx_arbor");

    if opts.list_features || opts.list_counters {
        let (text, json) = if opts.list_features {
            (features::list(), features::list_json())
        } else {
            (stats::list(), stats::list_json())
        };
        if opts.json {
            println!("{}", serde_json::to_string_pretty(&json)?);
        } else {
            print!("{text}");
        }
        return Ok(());
    }
    if opts.json {
        bail!("--json goes with --list-features or --list-counters");
    }
    if opts.show_features || opts.set_features.is_some() {
        if let Some(spec) = &opts.set_features {
            features::apply(0, &[spec.clone()])?; // names checked before asking
        }
        if !Path::new("/sys/kernel/sched_ext").exists() {
            bail!("this kernel has no sched_ext, so no scx_arbor is running here");
        }
        let ops = fs::read_to_string("/sys/kernel/sched_ext/root/ops").unwrap_or_default();
        if !ops.starts_with("arbor") {
            bail!(
                "no scx_arbor is running (sched_ext runs: {})",
                if ops.trim().is_empty() {
                    "nothing"
                } else {
                    ops.trim()
                }
            );
        }
        println!("{}", stats::live_features(opts.set_features.as_deref())?);
        return Ok(());
    }
    let feats = features::apply(features::profile_mask(&opts.profile)?, &opts.features)?;

    simplelog::TermLogger::init(
        simplelog::LevelFilter::Info,
        simplelog::ConfigBuilder::new()
            .set_time_level(simplelog::LevelFilter::Error)
            .set_location_level(simplelog::LevelFilter::Off)
            .set_target_level(simplelog::LevelFilter::Off)
            .set_thread_level(simplelog::LevelFilter::Off)
            .build(),
        simplelog::TerminalMode::Stderr,
        simplelog::ColorChoice::Never,
    )?;

    let shutdown = Arc::new(AtomicBool::new(false));
    let sd = shutdown.clone();
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGUSR1, on_sigusr1 as *const () as libc::sighandler_t);
    }
    ctrlc::set_handler(move || sd.store(true, Ordering::Relaxed))
        .context("installing the SIGINT/SIGTERM handler")?;

    if let Some(intv) = opts.monitor {
        if intv <= 0.0 {
            bail!("--monitor needs a positive interval");
        }
        // scx_utils retries the connection for ever: say so once, and how to stop
        if !std::path::Path::new(stats::STATS_SOCKET).exists() {
            eprintln!(
                "scx_arbor --monitor: no scx_arbor is running ({} is absent); waiting for one, Ctrl-C to stop",
                stats::STATS_SOCKET
            );
        }
        return stats::monitor(Duration::from_secs_f64(intv), shutdown);
    }

    // a typo in --stats-json's directory, or one other users could swap
    // files in, is found now, not after the run
    if let Some(p) = &opts.stats_json {
        scx_arbor::files::check_dest(p).context("--stats-json")?;
    }
    if let Some(p) = opts.verifier_json.as_ref().filter(|p| p.as_os_str() != "-") {
        scx_arbor::files::check_dest(p).context("--verifier-json")?;
    }

    let stats_group = opts
        .stats_group
        .as_deref()
        .map(stats_server::group_id)
        .transpose()?;
    // every argument is checked before the kernel is: a bad capacity list
    // is the user's first news, not a kernel without sched_ext
    {
        let mut topo = Topo::from_system()?;
        opts.knobs.apply_capacity(&mut topo)?;
    }
    check_environment()?;
    if let Some(intv) = opts.stats {
        if intv <= 0.0 {
            bail!("--stats needs a positive interval");
        }
        let sd = shutdown.clone();
        std::thread::spawn(move || {
            // the server starts with the scheduler; retry until it is up
            std::thread::sleep(Duration::from_millis(500));
            if let Err(e) = stats::monitor(Duration::from_secs_f64(intv), sd) {
                warn!("stats monitor stopped: {e:#}");
            }
        });
    }

    let deadline = opts
        .run_secs
        .map(|s| Instant::now() + Duration::from_secs_f64(s));
    let mut feats = feats;
    let mut restarts: Vec<Instant> = Vec::new();
    loop {
        // (re)read at every start: a restart after CPU hotplug sees the new set
        let mut topo = Topo::from_system()?;
        opts.knobs.apply_capacity(&mut topo)?;
        if opts.verbose > 0 || !restarts.is_empty() {
            eprint!("{topo}");
        }
        if opts.verbose > 0 && restarts.is_empty() {
            eprintln!(
                "asymmetric capacities: {}",
                if topo.asymmetric() { "yes" } else { "no" }
            );
            eprintln!(
                "profile {}, features: {}\nslice {} µs, imbalance_pct {}, migration_cost {} µs, \
                 balance interval {} ms, wake_affine_interval {} ms, steal_cost {} µs, steal_node_limit {}",
                opts.profile,
                features::describe(feats),
                opts.knobs.slice.cfg(&topo).slice_ns / 1000,
                opts.knobs.balance.imbalance_pct,
                opts.knobs.balance.migration_cost_us,
                opts.knobs.balance.balance_interval_ms,
                opts.knobs.wa.wake_affine_interval_ms,
                opts.knobs.steal.steal_cost_us,
                opts.knobs.steal.steal_node_limit
            );
        }
        let mut open_object = MaybeUninit::uninit();
        let mut sched = Scheduler::init(&opts, feats, &topo, stats_group, &mut open_object)?;
        info!(
            "{SCHEDULER_NAME} {}: {}",
            if restarts.is_empty() {
                "loaded"
            } else {
                "reloaded"
            },
            features::describe(feats)
        );
        // Our own errors (a failed snapshot write, ...) come back as Err
        // after the orderly unload and are reported as what they are; only
        // an exit by the kernel is called an ejection.
        match sched.run(&opts, &shutdown, deadline)? {
            End::Stopped => break,
            End::Kernel(uei, live) if uei.should_restart() && !shutdown.load(Ordering::Relaxed) => {
                // sched_ext exits a scheduler without ops.cpu_online/offline
                // when a CPU comes or goes (ext.c, handle_hotplug:
                // SCX_EXIT_UNREG_KERN with SCX_ECODE_RSN_HOTPLUG |
                // SCX_ECODE_ACT_RESTART). Load again on the new topology
                // with the same knobs and the features in force at the exit
                // (including ones switched at run time).
                let _ = uei.report(); // "EXIT: ... cpu N going offline ..."
                drop(sched);
                let now = Instant::now();
                restarts.retain(|t| now.duration_since(*t) < Duration::from_secs(60));
                restarts.push(now);
                if restarts.len() > 30 {
                    bail!("the kernel asked for more than 30 restarts in a minute; giving up");
                }
                feats = live;
                info!(
                    "{SCHEDULER_NAME}: restarting as the kernel asked (CPU hotplug), features {}",
                    features::describe(feats)
                );
                wait_sched_ext_disabled(Duration::from_secs(10));
            }
            End::Kernel(uei, _) => {
                // uei's report prints sched_ext's exit reason (and dump)
                return match uei.report() {
                    Err(e) => Err(e).context("the kernel ejected scx_arbor"),
                    Ok(()) => bail!("the kernel ejected scx_arbor (its reason is printed above)"),
                };
            }
        }
    }
    info!("{SCHEDULER_NAME} unloaded");
    Ok(())
}

/// Waits (bounded) until sched_ext has finished disabling the old instance.
fn wait_sched_ext_disabled(limit: Duration) {
    let t = Instant::now();
    while t.elapsed() < limit {
        let st = fs::read_to_string("/sys/kernel/sched_ext/state").unwrap_or_default();
        if st.trim() == "disabled" {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
