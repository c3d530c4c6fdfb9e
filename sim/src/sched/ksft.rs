//! The kernel's own sched_ext selftests (tools/testing/selftests/sched_ext/
//! of Linux 7.2.13, Debian's linux-source-7.2 7.2.13-1) and its example
//! schedulers (tools/sched_ext/: scx_simple, scx_qmap): each BPF scheduler, its
//! .bpf.c unmodified, compiled natively against the shim (sim/build.rs;
//! scripts/install-ksrc.sh fetches the pinned tree). The selftests'
//! user-space halves are ported as sim/tests/selftests.rs; `-s kernel:NAME`
//! runs any of them with its loader's defaults (rodata left as compiled).

use anyhow::{bail, Result};
use scx_arbor::topology::Topo;

use super::native::Native;

macro_rules! ksft {
    ($($name:literal => $so:literal, $err:literal;)*) => {
        /// (test, its object, why it is empty)
        static KSFT: &[(&str, &[u8], &str)] = &[
            $(($name, include_bytes!(env!($so)), env!($err)),)*
        ];
    };
}

ksft! {
    "minimal" => "SIM_KSFT_MINIMAL_SO", "SIM_KSFT_MINIMAL_ERR";
    "maximal" => "SIM_KSFT_MAXIMAL_SO", "SIM_KSFT_MAXIMAL_ERR";
    "select_cpu_dfl" => "SIM_KSFT_SELECT_CPU_DFL_SO", "SIM_KSFT_SELECT_CPU_DFL_ERR";
    "select_cpu_dfl_nodispatch" => "SIM_KSFT_SELECT_CPU_DFL_NODISPATCH_SO", "SIM_KSFT_SELECT_CPU_DFL_NODISPATCH_ERR";
    "select_cpu_dispatch" => "SIM_KSFT_SELECT_CPU_DISPATCH_SO", "SIM_KSFT_SELECT_CPU_DISPATCH_ERR";
    "select_cpu_dispatch_bad_dsq" => "SIM_KSFT_SELECT_CPU_DISPATCH_BAD_DSQ_SO", "SIM_KSFT_SELECT_CPU_DISPATCH_BAD_DSQ_ERR";
    "select_cpu_dispatch_dbl_dsp" => "SIM_KSFT_SELECT_CPU_DISPATCH_DBL_DSP_SO", "SIM_KSFT_SELECT_CPU_DISPATCH_DBL_DSP_ERR";
    "select_cpu_vtime" => "SIM_KSFT_SELECT_CPU_VTIME_SO", "SIM_KSFT_SELECT_CPU_VTIME_ERR";
    "ddsp_bogus_dsq_fail" => "SIM_KSFT_DDSP_BOGUS_DSQ_FAIL_SO", "SIM_KSFT_DDSP_BOGUS_DSQ_FAIL_ERR";
    "ddsp_vtimelocal_fail" => "SIM_KSFT_DDSP_VTIMELOCAL_FAIL_SO", "SIM_KSFT_DDSP_VTIMELOCAL_FAIL_ERR";
    "enq_select_cpu" => "SIM_KSFT_ENQ_SELECT_CPU_SO", "SIM_KSFT_ENQ_SELECT_CPU_ERR";
    "enq_last_no_enq_fails" => "SIM_KSFT_ENQ_LAST_NO_ENQ_FAILS_SO", "SIM_KSFT_ENQ_LAST_NO_ENQ_FAILS_ERR";
    "exit" => "SIM_KSFT_EXIT_SO", "SIM_KSFT_EXIT_ERR";
    "create_dsq" => "SIM_KSFT_CREATE_DSQ_SO", "SIM_KSFT_CREATE_DSQ_ERR";
    "peek_dsq" => "SIM_KSFT_PEEK_DSQ_SO", "SIM_KSFT_PEEK_DSQ_ERR";
    "allowed_cpus" => "SIM_KSFT_ALLOWED_CPUS_SO", "SIM_KSFT_ALLOWED_CPUS_ERR";
    "numa" => "SIM_KSFT_NUMA_SO", "SIM_KSFT_NUMA_ERR";
    "dsp_local_on" => "SIM_KSFT_DSP_LOCAL_ON_SO", "SIM_KSFT_DSP_LOCAL_ON_ERR";
    "prog_run" => "SIM_KSFT_PROG_RUN_SO", "SIM_KSFT_PROG_RUN_ERR";
    "hotplug_cb" => "SIM_KSFT_HOTPLUG_CB_SO", "SIM_KSFT_HOTPLUG_CB_ERR";
    "hotplug_nocb" => "SIM_KSFT_HOTPLUG_NOCB_SO", "SIM_KSFT_HOTPLUG_NOCB_ERR";
    "dequeue" => "SIM_KSFT_DEQUEUE_SO", "SIM_KSFT_DEQUEUE_ERR";
    // the example schedulers of tools/sched_ext/
    "scx_simple" => "SIM_KSFT_SCX_SIMPLE_SO", "SIM_KSFT_SCX_SIMPLE_ERR";
    "scx_qmap" => "SIM_KSFT_SCX_QMAP_SO", "SIM_KSFT_SCX_QMAP_ERR";
    "scx_central" => "SIM_KSFT_SCX_CENTRAL_SO", "SIM_KSFT_SCX_CENTRAL_ERR";
}

/// The kernel version the selftests come from.
pub const KERNEL: &str = "Linux 7.2.13 (Debian linux-source-7.2 7.2.13-1)";

/// The names of the selftests built in.
pub fn names() -> Vec<&'static str> {
    KSFT.iter().map(|k| k.0).collect()
}

/// A fresh copy of selftest `test`'s BPF scheduler, told the machine's
/// size; its globals (.bss, .data, rodata) are read and written by name
/// (Native::read_global / write_global), as the test's skeleton does.
pub fn load(test: &str, topo: &Topo) -> Result<Native> {
    let Some(&(name, so, err)) = KSFT.iter().find(|k| k.0 == test) else {
        bail!(
            "no kernel selftest '{test}' (built: {})",
            names().join(", ")
        );
    };
    if so.is_empty() {
        bail!("{err}");
    }
    let mut n = Native::load(so, name, Vec::new())?;
    n.set_machine(topo.cpus.len() as u32, topo.nr_nodes as u32);
    if name == "scx_qmap" {
        qmap_defaults(&mut n)?;
    }
    if name == "scx_central" {
        // scx_central.c's main() with no options: central_cpu = 0,
        // nr_cpu_ids = libbpf_num_possible_cpus(), slice_ns =
        // SCX_SLICE_DFL; its RESIZE_ARRAYs to nr_cpu_ids elements are the
        // shim's RESIZABLE_ARRAY (sized for the simulator's maximum)
        n.write_global("central_cpu", 0, &0i32.to_ne_bytes())?;
        n.write_global("nr_cpu_ids", 0, &(topo.cpus.len() as u32).to_ne_bytes())?;
        n.write_global("slice_ns", 0, &super::abi::SCX_SLICE_DFL.to_ne_bytes())?;
    }
    Ok(n)
}

/// scx_qmap.c's main() with no options: the rodata it writes before
/// SCX_OPS_LOAD (slice_ns = SCX_SLICE_DFL, max_tasks = 16384; every other
/// option stays 0 / false, as compiled), and test_error_cnt = 0 in the
/// arena after attach (the compiled value). Its refusal of more possible
/// CPUs than SCX_QMAP_MAX_CPUS (1024) is the simulator's own limit of 1024
/// CPUs (abi::MAX_CPUS).
fn qmap_defaults(n: &mut Native) -> Result<()> {
    n.write_global("slice_ns", 0, &super::abi::SCX_SLICE_DFL.to_ne_bytes())?;
    n.write_global("max_tasks", 0, &16384u32.to_ne_bytes())?;
    Ok(())
}
