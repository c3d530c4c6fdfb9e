//! Reads a perf.data file written by `perf sched record` (or `perf record
//! -e 'sched:*'`) as a stream of scheduler events, in time order, with
//! `linux-perf-data` (the perf.data container: header, attributes, records,
//! per-round sorting) and [`super::format`] (each tracepoint's field
//! layout, from the file's own tracing-data section).
//!
//! With `perf record --all-cgroups`, each sample's cgroup id
//! ([`sample_cgroup`]) and each PERF_RECORD_CGROUP (the id's path) are
//! read too.
//!
//! Memory does not grow with the file: records are read and handed on one
//! at a time (the crate sorts within perf's flush rounds only, and
//! [`super::check`] refuses a file whose rounds would make it hold more
//! than [`crate::limits::MAX_PERF_SORT_BYTES`]).

use std::collections::HashMap;
use std::io::{BufReader, Seek};
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use linux_perf_data::linux_perf_event_reader::{
    EventRecord, PerfEventType, RawData, RecordType, SampleFormat,
};
use linux_perf_data::{Endianness, Feature, PerfFileReader, PerfFileRecord};

use super::format::{self, Format, Formats, Record};
use super::ksyms::Ksyms;

/// trace_flag_type (kernel/trace/trace.h): the record was written in
/// hard-irq, soft-irq or NMI context, i.e. not by the current task's own
/// code, although `common_pid` names it.
const TRACE_FLAG_HARDIRQ: i64 = 0x08;
const TRACE_FLAG_SOFTIRQ: i64 = 0x10;
const TRACE_FLAG_NMI: i64 = 0x40;

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// sched:sched_switch. `prev_state` is the kernel's report of why prev
    /// left (0 preempted; TASK_REPORT bits: 0x1 S, 0x2 D, 0x10 X, 0x20 Z,
    /// 0x80 I; see `task_state_index`, include/linux/sched.h).
    Switch {
        prev: i32,
        prev_prio: i32,
        prev_state: i64,
        next: i32,
        next_prio: i32,
        next_comm: String,
    },
    /// sched:sched_waking (or sched:sched_wakeup in a file without it),
    /// and whether its kernel call chain shows WF_SYNC.
    Waking { pid: i32, sync: Sync },
    /// sched:sched_wakeup_new: a new task's first wake-up.
    WakeupNew { pid: i32 },
    /// sched:sched_process_fork.
    Fork { parent: i32, child: i32 },
    /// sched:sched_process_exit.
    Exit { pid: i32 },
    /// PERF_RECORD_COMM (perf's side band, synthesized for every thread
    /// alive when recording began, and written at each exec): `pid` is the
    /// thread group, `tid` the thread.
    Comm {
        pid: i32,
        tid: i32,
        comm: String,
        exec: bool,
    },
    /// PERF_RECORD_FORK: a thread `tid` of group `pid` created by `ptid`.
    TaskFork { pid: i32, tid: i32, ptid: i32 },
    /// PERF_RECORD_CGROUP (`perf record --all-cgroups`): the cgroup v2
    /// path of cgroup id `id` (written for every cgroup when recording
    /// began, and at each mkdir).
    Cgroup { id: u64, path: String },
}

/// WF_SYNC of a wake-up, as the file shows it (see [`super::ksyms`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sync {
    /// The sample has no kernel call chain (recorded without `-g`).
    NoCallchain,
    /// It has one, but no kallsyms copy was given to resolve it.
    NoSymbols,
    Yes,
    No,
}

/// One event: when, on which CPU, and the task the CPU was running.
#[derive(Clone, Debug)]
pub struct Event {
    pub t: u64,
    pub cpu: u32,
    /// The running task (thread id and thread group), from the sample.
    pub tid: i32,
    pub pid: i32,
    /// Written in interrupt context (hard/soft irq, NMI).
    pub irq: bool,
    /// The running task's cgroup id (PERF_SAMPLE_CGROUP, `perf record
    /// --all-cgroups`), if the sample has it.
    pub cgroup: Option<u64>,
    pub kind: Kind,
}

/// What the file's header says.
#[derive(Clone, Debug, Default)]
pub struct Header {
    pub hostname: Option<String>,
    pub os_release: Option<String>,
    pub arch: Option<String>,
    pub nr_cpus: Option<u32>,
    pub cmdline: Vec<String>,
    pub events: Vec<String>,
    /// Records the kernel dropped (PERF_RECORD_LOST), in all.
    pub lost: u64,
}

/// The fields one tracepoint's decoding reads, looked up once per file.
struct Fields<'a> {
    flags: Option<&'a format::Field>,
    ints: Vec<(&'static str, &'a format::Field)>,
}

impl<'a> Fields<'a> {
    fn of(tp: Tp, fm: &'a Format) -> Result<Fields<'a>> {
        let names: &[&'static str] = match tp {
            Tp::Switch => &[
                "prev_pid",
                "prev_prio",
                "prev_state",
                "next_pid",
                "next_prio",
            ],
            Tp::Waking | Tp::Wakeup | Tp::WakeupNew | Tp::Exit => &["pid"],
            Tp::Fork => &["parent_pid", "child_pid"],
        };
        let ints = names
            .iter()
            .map(|&n| {
                fm.field(n).map(|f| (n, f)).with_context(|| {
                    format!("tracepoint {}:{} has no field '{n}'", fm.system, fm.name)
                })
            })
            .collect::<Result<_>>()?;
        Ok(Fields {
            flags: fm.field("common_flags"),
            ints,
        })
    }
    fn int(&self, r: &Record, k: usize) -> Result<i32> {
        let (n, f) = self.ints[k];
        r.int_of(f, n).map(|v| v as i32)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tp {
    Switch,
    Waking,
    Wakeup,
    WakeupNew,
    Fork,
    Exit,
}

/// Opens `path` as a perf.data file and calls `f` with each scheduler
/// event in time order. Returns the header (with the count of lost
/// records). Every failure is one line naming the file.
pub fn read(
    path: &Path,
    syms: Option<&Ksyms>,
    mut f: impl FnMut(&Event) -> Result<()>,
) -> Result<Header> {
    let what = path.display();
    let mut file = crate::limits::open_regular(path, "trace", crate::limits::MAX_TRACE_BYTES)?;
    super::check::layout(&mut file).map_err(|e| anyhow!("trace {what}: {e:#}"))?;
    file.rewind()
        .with_context(|| format!("trace {what}: cannot read it"))?;
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = PerfFileReader::parse_file(BufReader::with_capacity(1 << 20, file))
        .map_err(|e| anyhow!("trace {what}: not a readable perf.data file ({e})"))?;
    if perf_file.endian() == Endianness::BigEndian {
        bail!("trace {what}: recorded on a big-endian machine, which the reader does not decode");
    }
    let nr_cpus = perf_file.nr_cpus().ok().flatten();
    // a sample's CPU indexes per-CPU state: one past what the recording
    // machine could have is a corrupt record, not a reason to allocate
    let cpu_bound = nr_cpus.map_or(crate::limits::MAX_CPUS, |n| {
        (n.nr_cpus_available.max(n.nr_cpus_online) as usize).min(crate::limits::MAX_CPUS)
    });
    let mut header = Header {
        hostname: perf_file.hostname().ok().flatten().map(String::from),
        os_release: perf_file.os_release().ok().flatten().map(String::from),
        arch: perf_file.arch().ok().flatten().map(String::from),
        nr_cpus: nr_cpus.map(|n| n.nr_cpus_online),
        cmdline: perf_file
            .cmdline()
            .ok()
            .flatten()
            .map(|v| v.into_iter().map(String::from).collect())
            .unwrap_or_default(),
        ..Header::default()
    };
    let formats: Formats = match perf_file.feature_section_data(Feature::TRACING_DATA) {
        Some(b) => format::parse(b).map_err(|e| anyhow!("trace {what}: {e:#}"))?,
        None => bail!(
            "trace {what}: no tracing-data section, so its tracepoint layouts are unknown (record with `perf sched record -a`)"
        ),
    };
    if formats.big_endian {
        bail!("trace {what}: its tracing data is big-endian, which the reader does not decode");
    }
    // each attribute's tracepoint, by attr index
    let mut tps: Vec<Option<(Tp, &Format, Fields)>> = Vec::new();
    let names: HashMap<&str, Tp> = [
        ("sched_switch", Tp::Switch),
        ("sched_waking", Tp::Waking),
        ("sched_wakeup", Tp::Wakeup),
        ("sched_wakeup_new", Tp::WakeupNew),
        ("sched_process_fork", Tp::Fork),
        ("sched_process_exit", Tp::Exit),
    ]
    .into();
    // each attribute's sample layout, for the cgroup id (`sample_cgroup`)
    let layouts: Vec<SampleFormat> = perf_file
        .event_attributes()
        .iter()
        .map(|a| a.attributes().sample_format)
        .collect();
    for a in perf_file.event_attributes() {
        let tp = match a.attributes().type_ {
            PerfEventType::Tracepoint(id) => formats.by_id.get(&id),
            _ => None,
        };
        if let Some(fm) = tp {
            header.events.push(format!("{}:{}", fm.system, fm.name));
        }
        let known = tp.and_then(|fm| {
            (fm.system == "sched")
                .then(|| names.get(fm.name.as_str()).map(|&k| (k, fm)))
                .flatten()
        });
        tps.push(match known {
            Some((k, fm)) => Some((
                k,
                fm,
                Fields::of(k, fm).map_err(|e| anyhow!("trace {what}: {e:#}"))?,
            )),
            None => None,
        });
    }
    let has = |k: Tp| tps.iter().flatten().any(|(t, _, _)| *t == k);
    if !has(Tp::Switch) {
        bail!(
            "trace {what}: no sched:sched_switch events (it has: {}); record with `perf sched record -a -- PROGRAM`",
            if header.events.is_empty() {
                "no tracepoints".to_string()
            } else {
                header.events.join(", ")
            }
        );
    }
    if !has(Tp::Waking) && !has(Tp::Wakeup) {
        bail!("trace {what}: no sched:sched_waking or sched:sched_wakeup events, so wake-ups are unknown; record with `perf sched record -a`");
    }
    // sched_waking is the waker's side (it runs on the waker's CPU, in its
    // context); sched_wakeup fires where the wakee is enqueued, which may
    // be another CPU: use it only when waking is absent
    let use_wakeup = !has(Tp::Waking);
    let mut raw = Vec::new();
    let mut whole = Vec::new();
    loop {
        let rec = match record_iter.next_record(&mut perf_file) {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => bail!("trace {what}: corrupt or truncated record ({e})"),
        };
        let PerfFileRecord::EventRecord { attr_index, record } = rec else {
            continue;
        };
        // samples of tracepoints the replay does not read (sched_stat_*,
        // sched_migrate_task) are skipped before they are parsed
        if record.record_type == RecordType::SAMPLE && !matches!(tps.get(attr_index), Some(Some(_)))
        {
            continue;
        }
        // nor are the records it does not read parsed (linux-perf-event-
        // reader asserts on a corrupt MMAP2 build id, for one)
        if ![
            RecordType::SAMPLE,
            RecordType::COMM,
            RecordType::FORK,
            RecordType::LOST,
            RecordType::CGROUP,
        ]
        .contains(&record.record_type)
        {
            continue;
        }
        let mut cgroup = None;
        // a sample's cgroup id: only an attribute that asked for it
        let with_id = |sf: &SampleFormat| sf.contains(SampleFormat::CGROUP);
        if record.record_type == RecordType::CGROUP
            || record.record_type == RecordType::SAMPLE
                && layouts.get(attr_index).is_some_and(with_id)
        {
            whole.clear();
            match record.data {
                RawData::Single(a) => whole.extend_from_slice(a),
                RawData::Split(a, b) => {
                    whole.extend_from_slice(a);
                    whole.extend_from_slice(b);
                }
            }
            if record.record_type == RecordType::CGROUP {
                // the crate leaves it raw: u64 id, then the NUL-padded path
                let (Some(id), Some(rest)) = (
                    whole
                        .get(..8)
                        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]))),
                    whole.get(8..),
                ) else {
                    bail!("trace {what}: a PERF_RECORD_CGROUP record shorter than its id: the file is corrupt");
                };
                let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
                let path = String::from_utf8_lossy(&rest[..end]).into_owned();
                f(&Event {
                    t: 0,
                    cpu: u32::MAX,
                    tid: -1,
                    pid: -1,
                    irq: false,
                    cgroup: None,
                    kind: Kind::Cgroup { id, path },
                })?;
                continue;
            }
            if let Some(&sf) = layouts.get(attr_index) {
                cgroup = sample_cgroup(&whole, sf);
            }
        }
        let parsed = record
            .parse()
            .map_err(|e| anyhow!("trace {what}: corrupt record ({e})"))?;
        let ev = match parsed {
            EventRecord::Sample(s) => {
                let Some(Some((tp, fm, fields))) = tps.get(attr_index) else {
                    continue;
                };
                if *tp == Tp::Wakeup && !use_wakeup || *tp == Tp::Waking && use_wakeup {
                    continue;
                }
                let (Some(t), Some(cpu), Some(r)) = (s.timestamp, s.cpu, s.raw) else {
                    bail!("trace {what}: a {} sample lacks its time, CPU or raw data (record with `perf sched record`, which asks for them)", fm.name);
                };
                if cpu as usize >= cpu_bound {
                    bail!("trace {what}: a {} sample at {t} ns is on CPU {cpu}, but the recording machine had {cpu_bound} CPUs: the file is corrupt", fm.name);
                }
                raw.clear();
                match r {
                    RawData::Single(a) => raw.extend_from_slice(a),
                    RawData::Split(a, b) => {
                        raw.extend_from_slice(a);
                        raw.extend_from_slice(b);
                    }
                }
                let rec = Record {
                    raw: &raw,
                    fmt: fm,
                    big: false,
                };
                let flags = fields
                    .flags
                    .and_then(|f| rec.int_of(f, "common_flags").ok())
                    .unwrap_or(0);
                let irq = flags & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ | TRACE_FLAG_NMI) != 0;
                let mut kind =
                    decode(*tp, &rec, fields).map_err(|e| anyhow!("trace {what}: {e:#}"))?;
                if let Kind::Waking { sync, .. } = &mut kind {
                    *sync = wake_sync(s.callchain.as_ref(), syms)
                        .map_err(|e| anyhow!("trace {what}: at {t} ns: {e:#}"))?;
                }
                Event {
                    t,
                    cpu,
                    tid: s.tid.unwrap_or(-1),
                    pid: s.pid.unwrap_or(-1),
                    irq,
                    cgroup,
                    kind,
                }
            }
            EventRecord::Comm(c) => Event {
                t: record.timestamp().unwrap_or(0),
                cpu: u32::MAX,
                tid: c.tid,
                pid: c.pid,
                irq: false,
                cgroup: None,
                kind: Kind::Comm {
                    pid: c.pid,
                    tid: c.tid,
                    comm: String::from_utf8_lossy(&c.name.as_slice()).into_owned(),
                    exec: c.is_execve,
                },
            },
            EventRecord::Fork(k) => Event {
                t: k.timestamp,
                cpu: u32::MAX,
                tid: k.ptid,
                pid: k.ppid,
                irq: false,
                cgroup: None,
                kind: Kind::TaskFork {
                    pid: k.pid,
                    tid: k.tid,
                    ptid: k.ptid,
                },
            },
            EventRecord::Lost(l) => {
                header.lost += l.count;
                continue;
            }
            _ => continue,
        };
        f(&ev)?;
    }
    Ok(header)
}

/// The cgroup id of a sample (PERF_SAMPLE_CGROUP), read from its raw
/// bytes (little-endian), which linux-perf-event-reader 0.10 does not
/// decode. The fields before it come in the order of perf_output_sample
/// (kernel/events/core.c); a sample with one whose size needs more than
/// the sample itself (a read group, branch stack, registers, user stack)
/// gives None, as does one without the field or too short for it.
pub fn sample_cgroup(data: &[u8], sf: SampleFormat) -> Option<u64> {
    if !sf.contains(SampleFormat::CGROUP)
        || sf.intersects(
            SampleFormat::READ
                | SampleFormat::BRANCH_STACK
                | SampleFormat::REGS_USER
                | SampleFormat::STACK_USER
                | SampleFormat::REGS_INTR,
        )
    {
        return None;
    }
    let u64_at = |at: usize| -> Option<u64> {
        data.get(at..at.checked_add(8)?)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
    };
    let mut at = 0usize;
    for f in [
        SampleFormat::IDENTIFIER,
        SampleFormat::IP,
        SampleFormat::TID,
        SampleFormat::TIME,
        SampleFormat::ADDR,
        SampleFormat::ID,
        SampleFormat::STREAM_ID,
        SampleFormat::CPU,
        SampleFormat::PERIOD,
    ] {
        if sf.contains(f) {
            at += 8;
        }
    }
    if sf.contains(SampleFormat::CALLCHAIN) {
        let n = u64_at(at)?;
        at = at
            .checked_add(8)?
            .checked_add(usize::try_from(n).ok()?.checked_mul(8)?)?;
    }
    if sf.contains(SampleFormat::RAW) {
        let size = data.get(at..at.checked_add(4)?)?;
        let size = u32::from_le_bytes(size.try_into().ok()?) as usize;
        at = at.checked_add(4)?.checked_add(size)?;
    }
    // past the end already (a corrupt length): no id
    if at > data.len() {
        return None;
    }
    for f in [
        SampleFormat::WEIGHT | SampleFormat::WEIGHT_STRUCT,
        SampleFormat::DATA_SRC,
        SampleFormat::TRANSACTION,
        SampleFormat::PHYS_ADDR,
    ] {
        if sf.intersects(f) {
            at += 8;
        }
    }
    u64_at(at)
}

fn decode(tp: Tp, r: &Record, f: &Fields) -> Result<Kind> {
    let i = |k: usize| f.int(r, k);
    Ok(match tp {
        Tp::Switch => Kind::Switch {
            prev: i(0)?,
            prev_prio: i(1)?,
            prev_state: r.int_of(f.ints[2].1, "prev_state")?,
            next: i(3)?,
            next_prio: i(4)?,
            next_comm: r.str("next_comm")?,
        },
        Tp::Waking | Tp::Wakeup => Kind::Waking {
            pid: i(0)?,
            sync: Sync::NoCallchain,
        },
        Tp::WakeupNew => Kind::WakeupNew { pid: i(0)? },
        Tp::Fork => Kind::Fork {
            parent: i(0)?,
            child: i(1)?,
        },
        Tp::Exit => Kind::Exit { pid: i(0)? },
    })
}

/// WF_SYNC of a sched_waking sample from its call chain's kernel part
/// (the frames after PERF_CONTEXT_KERNEL, up to the next context marker).
fn wake_sync(
    chain: Option<&linux_perf_data::linux_perf_event_reader::RawDataU64>,
    syms: Option<&Ksyms>,
) -> Result<Sync> {
    use linux_perf_data::linux_perf_event_reader::constants::{
        PERF_CONTEXT_KERNEL, PERF_CONTEXT_MAX,
    };
    let Some(chain) = chain else {
        return Ok(Sync::NoCallchain);
    };
    let n = chain.len();
    let frames = (0..n).filter_map(|k| chain.get(k));
    let mut kernel = frames
        .skip_while(|&ip| ip != PERF_CONTEXT_KERNEL)
        .skip(1)
        .take_while(|&ip| ip < PERF_CONTEXT_MAX)
        .peekable();
    if kernel.peek().is_none() {
        return Ok(Sync::NoCallchain);
    }
    let Some(k) = syms else {
        return Ok(Sync::NoSymbols);
    };
    Ok(if k.is_sync(kernel)? {
        Sync::Yes
    } else {
        Sync::No
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample as perf_output_sample lays it out: ip, pid/tid, time,
    /// cpu, period, [callchain], raw (u32 size, bytes), cgroup.
    fn sample(chain: &[u64], raw: &[u8], cgroup: u64) -> Vec<u8> {
        let mut v = Vec::new();
        for x in [0xffff_ffff_8100_0000u64, 7 << 32 | 7, 123, 1, 1] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        if !chain.is_empty() {
            v.extend_from_slice(&(chain.len() as u64).to_le_bytes());
            for x in chain {
                v.extend_from_slice(&x.to_le_bytes());
            }
        }
        v.extend_from_slice(&(raw.len() as u32).to_le_bytes());
        v.extend_from_slice(raw);
        v.extend_from_slice(&cgroup.to_le_bytes());
        v
    }

    #[test]
    fn a_samples_cgroup_id_is_read_after_its_raw_data() {
        let base = SampleFormat::IP
            | SampleFormat::TID
            | SampleFormat::TIME
            | SampleFormat::CPU
            | SampleFormat::PERIOD
            | SampleFormat::RAW;
        let cg = base | SampleFormat::CGROUP;
        assert_eq!(
            sample_cgroup(
                &sample(&[], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 42),
                cg
            ),
            Some(42)
        );
        let chained = cg | SampleFormat::CALLCHAIN;
        assert_eq!(
            sample_cgroup(&sample(&[9, 8, 7], &[0; 4], 7), chained),
            Some(7)
        );
        // without the field, or with one before it whose size it does not
        // compute, or cut short: none
        assert_eq!(sample_cgroup(&sample(&[], &[0; 4], 42), base), None);
        assert_eq!(
            sample_cgroup(&sample(&[], &[0; 4], 42), cg | SampleFormat::REGS_USER),
            None
        );
        let s = sample(&[], &[0; 4], 42);
        assert_eq!(sample_cgroup(&s[..s.len() - 1], cg), None);
        // a raw size past the end
        let mut bad = sample(&[], &[0; 4], 42);
        bad[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(sample_cgroup(&bad, cg), None);
    }
}
