//! `arbor sim trace-info FILE[,KEYS]`: what a trace holds, read before a
//! replay: the recording machine, each process's threads, CPU time,
//! wake-ups and blocks by kind, and what a replay with these keys keeps
//! and drops, and why.

use std::fmt::Write;
use std::path::Path;

use anyhow::Result;

use super::census::{Census, Thread};
use super::{parse_spec, program};

pub fn text(spec: &str) -> Result<String> {
    let (file, sel) = parse_spec(spec)?;
    let path = Path::new(&file);
    let c = Census::read(path)?;
    // what the user gave must be readable: a bad kallsyms copy is an
    // error here, not the last line of a report that exits 0
    program::kallsyms(path, &sel)?;
    program::capacities(&c, &sel).map_err(|e| anyhow::anyhow!("trace {file}: {e:#}"))?;
    let mut o = String::new();
    let h = &c.header;
    let opt = |x: &Option<String>| x.clone().unwrap_or_else(|| "?".into());
    writeln!(
        o,
        "trace {file}: recorded on '{}' ({}, kernel {}), {} CPUs online ({} seen in events), {:.3} s, {} sched events, {} lost records",
        opt(&h.hostname),
        opt(&h.arch),
        opt(&h.os_release),
        h.nr_cpus.map_or("?".into(), |n| n.to_string()),
        c.cpus_seen,
        c.t1.saturating_sub(c.t0) as f64 / 1e9,
        c.events,
        h.lost
    )?;
    writeln!(o, "command: {}", h.cmdline.join(" "))?;
    writeln!(o, "events: {}", h.events.join(", "))?;
    // `perf record --all-cgroups`: the groups its threads ran in
    let in_group = c.threads.values().filter(|t| t.cgroup.is_some()).count();
    if in_group > 0 {
        let mut groups: Vec<&str> = c
            .threads
            .values()
            .filter_map(|t| t.cgroup.and_then(|id| c.cgroups.get(&id)))
            .map(String::as_str)
            .collect();
        groups.sort_unstable();
        groups.dedup();
        let moved = c.threads.values().filter(|t| t.cgroup_changes > 0).count();
        writeln!(
            o,
            "cgroups: {in_group} threads with a cgroup id, in {} named groups ({}); {moved} moved during the trace (cgroups=1 replays each in its first)",
            groups.len(),
            groups.iter().take(8).copied().collect::<Vec<_>>().join(", ")
        )?;
    }
    let recorders = c.recorders();
    let mut procs: Vec<(i32, Vec<i32>)> =
        c.processes().into_iter().filter(|(p, _)| *p > 0).collect();
    let cpu = |ts: &Vec<i32>| {
        ts.iter()
            .map(|t| c.threads[t].cpu_ns)
            .fold(0u64, u64::saturating_add)
    };
    procs.sort_by_key(|(p, ts)| (std::cmp::Reverse(cpu(ts)), *p));
    writeln!(
        o,
        "\n| pid | process | kind | threads | CPU s | wake-ups | blocks: by a task | by irq/timer | open at end | exited |\n|---|---|---|---|---|---|---|---|---|---|"
    )?;
    let shown = 40;
    for (p, ts) in procs.iter().take(shown) {
        let sum = |f: &dyn Fn(&Thread) -> u64| {
            ts.iter()
                .map(|t| f(&c.threads[t]))
                .fold(0u64, u64::saturating_add)
        };
        let kind = if c.is_kernel(*p) {
            "kernel"
        } else if recorders.contains(p) {
            "recorder"
        } else {
            "user"
        };
        writeln!(
            o,
            "| {p} | {} | {kind} | {} | {:.4} | {} | {} | {} | {} | {} |",
            c.name(*p),
            ts.len(),
            cpu(ts) as f64 / 1e9,
            sum(&|t| t.woken),
            sum(&|t| t.blocks.by_task),
            sum(&|t| t.blocks.by_irq),
            sum(&|t| t.blocks.open),
            sum(&|t| t.exited as u64),
        )?;
    }
    if procs.len() > shown {
        writeln!(
            o,
            "| … | {} more processes | | | | | | | | |",
            procs.len() - shown
        )?;
    }
    writeln!(o)?;
    match program::compile(path, &c, &sel) {
        Ok(k) => writeln!(
            o,
            "{}\nreplay it with: arbor sim -w trace:{spec} (on the recording machine: arbor sim snapshot DIR there, then --topology-from DIR)",
            k.summary.text()
        )?,
        Err(e) => writeln!(o, "nothing to replay with these keys: {e:#}")?,
    }
    Ok(o)
}
