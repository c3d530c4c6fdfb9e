//! WF_SYNC from a wake-up's kernel call chain.
//!
//! The sched_waking tracepoint has no flags field, but its call chain
//! (`perf record -g`, or `-e 'sched:sched_waking/call-graph=fp/'`) shows
//! where try_to_wake_up()'s `wake_flags` came from. In the 7.2.13 kernel
//! WF_SYNC is set in exactly two places, both in kernel/sched/wait.c:
//! `__wake_up_sync_key()` (line 193, `__wake_up_common_lock(wq_head, mode,
//! 1, WF_SYNC, key)`) and `__wake_up_locked_sync_key()` (line 216); and
//! `__wake_up_sync()` (line 225) calls the first. Every other path passes 0
//! or WF_CURRENT_CPU: `wake_up_process()`/`wake_up_state()` (core.c 4571,
//! 4577), `__wake_up()` and the other `__wake_up_*` (wait.c 147-167),
//! completions (completion.c, swait.c). The sync callers go through those
//! functions: pipes (fs/pipe.c 491-696, `wake_up_interruptible_sync_poll`),
//! sockets (net/core/sock.c 3668-3711, net/unix/af_unix.c 605, 2608), a
//! child's exit to its waiting parent (kernel/exit.c 1631), epoll passing
//! a sync wake on (fs/eventpoll.c 1562). `default_wake_function()`
//! (core.c 7614) hands the flags to try_to_wake_up() unchanged.
//!
//! So a wake-up is sync when, walking its chain outward from the
//! innermost try_to_wake_up() frame, the first wait-queue entry point met
//! is a sync one; a second try_to_wake_up() frame (a wake-up inside an
//! interrupt that came during another) or a non-sync entry point first
//! means not sync. What this cannot see: a wake function that starts a
//! wake-up of its own (e.g. `wake_up_process()` of a worker) from inside a
//! sync wake-up is counted sync; and a function the compiler inlined
//! everywhere has no symbol (the file is then refused, see [`Ksyms::read`]).
//!
//! The addresses are resolved with a copy of the recording boot's
//! `/proc/kallsyms` (read as root: otherwise its addresses are 0), by
//! default `FILE.kallsyms` next to the trace. A copy cut down to the
//! symbols below and the symbol after each (where each function ends), as
//! `arbor bench --record-traces` writes it, is enough.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The sync wait-queue entry points (kernel/sched/wait.c).
pub const SYNC_ENTRIES: &[&str] = &[
    "__wake_up_sync_key",
    "__wake_up_locked_sync_key",
    "__wake_up_sync",
];
/// The other wait-queue entry points (kernel/sched/wait.c), and the
/// direct wake-ups that pass no flags (kernel/sched/core.c).
pub const OTHER_ENTRIES: &[&str] = &[
    "__wake_up",
    "__wake_up_locked",
    "__wake_up_locked_key",
    "__wake_up_locked_key_bookmark",
    "__wake_up_on_current_cpu",
    "__wake_up_pollfree",
    "wake_up_process",
    "wake_up_state",
    "swake_up_locked",
];
/// Where sched_waking fires (kernel/sched/core.c 4305, 4322).
pub const TTWU: &str = "try_to_wake_up";

/// Every name the classification reads: what a cut-down kallsyms keeps.
pub fn wanted() -> Vec<&'static str> {
    let mut v = vec![TTWU];
    v.extend_from_slice(SYNC_ENTRIES);
    v.extend_from_slice(OTHER_ENTRIES);
    v
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Ttwu,
    Sync,
    Other,
}

/// The address ranges of the functions that decide WF_SYNC.
#[derive(Clone, Debug)]
pub struct Ksyms {
    pub file: String,
    /// (start, end, role), sorted by start.
    ranges: Vec<(u64, u64, Role)>,
}

impl Ksyms {
    /// Reads a kallsyms copy. Refused, with one line: a file that does not
    /// end in a newline (cut short), a line that is not `ADDR TYPE NAME
    /// [MODULE]`, addresses all 0 (read without root), or no
    /// try_to_wake_up() or sync entry point.
    pub fn read(path: &Path) -> Result<Ksyms> {
        let what = path.display().to_string();
        let text = crate::limits::read_text(path, "kallsyms", crate::limits::MAX_KALLSYMS_BYTES)?;
        Self::from_text(&what, &text)
    }

    /// The copy in `text` (read from `what`).
    pub fn from_text(what: &str, text: &str) -> Result<Ksyms> {
        Self::parse(text)
            .map_err(|e| anyhow::anyhow!("kallsyms {what}: {e:#}"))
            .map(|r| Ksyms {
                file: what.to_string(),
                ranges: r,
            })
    }

    fn parse(text: &str) -> Result<Vec<(u64, u64, Role)>> {
        if text.is_empty() {
            bail!("empty");
        }
        if !text.ends_with('\n') {
            bail!("its last line has no newline: the copy was cut short");
        }
        let want: HashMap<&str, Role> = std::iter::once((TTWU, Role::Ttwu))
            .chain(SYNC_ENTRIES.iter().map(|&n| (n, Role::Sync)))
            .chain(OTHER_ENTRIES.iter().map(|&n| (n, Role::Other)))
            .collect();
        let mut all: Vec<(u64, Option<Role>)> = Vec::new();
        let mut nonzero = false;
        for (i, line) in text.lines().enumerate() {
            let mut it = line.split_whitespace();
            let (Some(a), Some(ty), Some(name)) = (it.next(), it.next(), it.next()) else {
                bail!("line {}: '{line}' is not 'ADDRESS TYPE NAME'", i + 1);
            };
            let addr = u64::from_str_radix(a, 16)
                .with_context(|| format!("line {}: '{a}' is not a hex address", i + 1))?;
            if ty.len() != 1 {
                bail!("line {}: '{ty}' is not a symbol type letter", i + 1);
            }
            nonzero |= addr != 0;
            // a module's symbol of the same name is not the core kernel's
            let core = it.next().is_none();
            let role = if core && ty.eq_ignore_ascii_case("t") {
                want.get(name).copied()
            } else {
                None
            };
            all.push((addr, role));
        }
        if !nonzero {
            bail!("every address is 0: it was read without root (copy it with `sudo cat /proc/kallsyms`)");
        }
        all.sort_by_key(|&(a, r)| (a, r.is_none()));
        let mut ranges = Vec::new();
        for (k, &(a, r)) in all.iter().enumerate() {
            let Some(r) = r else { continue };
            let end = all[k + 1..].iter().map(|x| x.0).find(|&b| b > a);
            let Some(end) = end else {
                bail!("no symbol follows {}'s at {a:#x}, so where it ends is unknown (keep the next line of the sorted file)", name_of(&want, r));
            };
            ranges.push((a, end, r));
        }
        if !ranges.iter().any(|r| r.2 == Role::Ttwu) {
            bail!("no {TTWU} text symbol: not a kallsyms of a kernel whose wake-ups it can read");
        }
        if !ranges.iter().any(|r| r.2 == Role::Sync) {
            bail!(
                "none of {} is a text symbol: WF_SYNC wake-ups cannot be told apart",
                SYNC_ENTRIES.join(", ")
            );
        }
        Ok(ranges)
    }

    fn role(&self, ip: u64) -> Option<Role> {
        let k = self.ranges.partition_point(|r| r.0 <= ip);
        let r = self.ranges.get(k.checked_sub(1)?)?;
        (ip < r.1).then_some(r.2)
    }

    /// Whether the wake-up whose kernel call chain (innermost first,
    /// PERF_CONTEXT markers already removed) is `chain` was sync. Its
    /// first frame must lie in try_to_wake_up(), where sched_waking
    /// fires: otherwise the symbols are not the recording boot's.
    pub fn is_sync(&self, chain: impl IntoIterator<Item = u64>) -> Result<bool> {
        let mut it = chain.into_iter();
        let Some(first) = it.next() else {
            bail!("an empty kernel call chain");
        };
        if self.role(first) != Some(Role::Ttwu) {
            bail!(
                "a sched_waking call chain starts at {first:#x}, outside {TTWU} in {}: the kallsyms copy is not of the boot that recorded the trace",
                self.file
            );
        }
        for ip in it {
            match self.role(ip) {
                Some(Role::Sync) => return Ok(true),
                Some(Role::Other) | Some(Role::Ttwu) => return Ok(false),
                None => {}
            }
        }
        Ok(false)
    }
}

/// `FILE.kallsyms`: where the kallsyms copy of the trace `FILE` is read
/// from by default, and written by the recorders.
pub fn path_for(trace: &Path) -> PathBuf {
    let mut p = trace.as_os_str().to_owned();
    p.push(".kallsyms");
    PathBuf::from(p)
}

/// The lines of a kallsyms text that [`Ksyms`] reads: each wanted core
/// kernel text symbol and the symbol that follows it by address (where it
/// ends), sorted by address. A few hundred bytes instead of megabytes.
pub fn cut(text: &str) -> String {
    let want: std::collections::HashSet<&str> = wanted().into_iter().collect();
    let mut lines: Vec<(u64, bool, &str)> = text
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let addr = u64::from_str_radix(it.next()?, 16).ok()?;
            let ty = it.next()?;
            let name = it.next()?;
            let core = it.next().is_none();
            let w = core && ty.eq_ignore_ascii_case("t") && want.contains(name);
            Some((addr, w, l))
        })
        .collect();
    lines.sort_by_key(|&(a, w, _)| (a, !w));
    let mut keep = vec![false; lines.len()];
    for (k, &(a, w, _)) in lines.iter().enumerate() {
        if w {
            keep[k] = true;
            if let Some(j) = (k + 1..lines.len()).find(|&j| lines[j].0 > a) {
                keep[j] = true;
            }
        }
    }
    let mut o = String::new();
    for (k, (_, _, l)) in lines.iter().enumerate() {
        if keep[k] {
            o.push_str(l);
            o.push('\n');
        }
    }
    o
}

/// Writes `FILE.kallsyms` for the trace `FILE` just recorded on this boot:
/// [`cut`] of /proc/kallsyms (root: otherwise its addresses are 0), read
/// back as the replay will.
pub fn save_for(trace: &Path) -> Result<PathBuf> {
    let text = std::fs::read_to_string("/proc/kallsyms").context("reading /proc/kallsyms")?;
    let out = path_for(trace);
    std::fs::write(&out, cut(&text)).with_context(|| format!("writing {}", out.display()))?;
    Ksyms::read(&out)?;
    Ok(out)
}

fn name_of(want: &HashMap<&str, Role>, r: Role) -> String {
    let mut v: Vec<&str> = want
        .iter()
        .filter(|(_, &x)| x == r)
        .map(|(n, _)| *n)
        .collect();
    v.sort_unstable();
    v.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: &str = "ffffffff81000000 T _text\n\
ffffffff81100000 T try_to_wake_up\n\
ffffffff81100800 T wake_up_process\n\
ffffffff81100900 t next_fn\n\
ffffffff81200000 T __wake_up\n\
ffffffff81200100 T __wake_up_sync_key\n\
ffffffff81200200 T __wake_up_locked_sync_key\n\
ffffffff81200300 T __wake_up_common\n\
ffffffff81200400 t after\n";

    fn k() -> Ksyms {
        Ksyms {
            file: "k".into(),
            ranges: Ksyms::parse(K).unwrap(),
        }
    }

    #[test]
    fn the_first_entry_point_outward_decides() {
        let k = k();
        // ttwu <- autoremove (unknown) <- __wake_up_common <- __wake_up_sync_key
        assert!(k
            .is_sync([
                0xffffffff81100010,
                0xffffffff81500000,
                0xffffffff81200310,
                0xffffffff81200110
            ])
            .unwrap());
        // ... <- __wake_up: not sync
        assert!(!k
            .is_sync([0xffffffff81100010, 0xffffffff81200310, 0xffffffff81200010])
            .unwrap());
        // a wake-up from wake_up_process in an irq that came during a sync one
        assert!(!k
            .is_sync([0xffffffff81100010, 0xffffffff81100810, 0xffffffff81200110])
            .unwrap());
        // a second try_to_wake_up frame ends the walk
        assert!(!k
            .is_sync([0xffffffff81100010, 0xffffffff811000f0, 0xffffffff81200110])
            .unwrap());
        // nothing known after ttwu: not sync
        assert!(!k.is_sync([0xffffffff81100010, 0xffffffff81700000]).unwrap());
    }

    #[test]
    fn a_chain_outside_try_to_wake_up_is_refused() {
        let e = k()
            .is_sync([0xffffffff81300000, 0xffffffff81200110])
            .unwrap_err();
        assert!(format!("{e}").contains("not of the boot"), "{e}");
        assert!(k().is_sync([]).is_err());
        // the end of a range is exclusive
        assert!(k().is_sync([0xffffffff81100800]).is_err());
    }

    #[test]
    fn the_cut_keeps_each_wanted_symbol_and_where_it_ends() {
        let full = format!(
            "{K}ffffffff81100000 t try_to_wake_up [some_module]\nffffffff81000010 T unrelated\n"
        );
        let c = cut(&full);
        assert_eq!(c.lines().count(), 7, "{c}");
        assert!(c.contains("next_fn") && c.contains("__wake_up_common") && !c.contains("after"));
        assert!(!c.contains("unrelated"));
        assert!(
            !c.contains("some_module"),
            "a module's symbol is not the kernel's"
        );
        assert_eq!(Ksyms::parse(&c).unwrap(), Ksyms::parse(K).unwrap());
    }

    #[test]
    fn bad_files_are_refused_with_a_reason() {
        let cut = &K[..K.len() - 8];
        assert!(format!("{:#}", Ksyms::parse(cut).unwrap_err()).contains("cut short"));
        let zero = "0000000000000000 T try_to_wake_up\n0000000000000000 T __wake_up_sync_key\n";
        assert!(format!("{:#}", Ksyms::parse(zero).unwrap_err()).contains("without root"));
        assert!(
            format!("{:#}", Ksyms::parse("zz T try_to_wake_up\n").unwrap_err()).contains("hex")
        );
        assert!(format!("{:#}", Ksyms::parse("ffff T\n").unwrap_err()).contains("line 1"));
        let nosync = "ffffffff81100000 T try_to_wake_up\nffffffff81100800 T x\n";
        assert!(format!("{:#}", Ksyms::parse(nosync).unwrap_err()).contains("WF_SYNC"));
        let last = "ffffffff81100000 T try_to_wake_up\nffffffff81100800 T __wake_up_sync_key\n";
        assert!(format!("{:#}", Ksyms::parse(last).unwrap_err()).contains("where it ends"));
        assert!(Ksyms::parse("").is_err());
    }
}
