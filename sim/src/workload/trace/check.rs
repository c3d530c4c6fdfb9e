//! Checks a perf.data file's layout against its own size before
//! `linux-perf-data` reads it: the crate allocates what the header says
//! (a feature section's size, an event description's id count, an
//! AUXTRACE record's payload) before reading it, so a flipped bit would
//! abort the process on a failed allocation of exabytes. Everything it
//! will allocate from is checked here first, in one pass over the header
//! and one over the record headers (seeking past the bodies).
//!
//! The layout (tools/perf/util/header.h, `struct perf_file_header`):
//! magic, header size, attr size, the attrs, data and event_types
//! sections (offset, size), then a 256-bit feature bitmap; after the data
//! section, one (offset, size) per feature bit set.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};

use anyhow::{bail, Context, Result};

use crate::limits;

/// `sizeof(struct perf_file_header)`.
const HEADER_SIZE: u64 = 104;
/// The attr sizes taken: from PERF_ATTR_SIZE_VER0
/// (include/uapi/linux/perf_event.h) to 4 KiB, which bounds a future attr
/// many times over (VER8 is 136 bytes).
const ATTR_SIZES: std::ops::RangeInclusive<u64> = 64..=4096;

/// Feature bits (tools/perf/util/header.h, `HEADER_*`) whose sections the
/// reader parses.
const FEAT_HOSTNAME: usize = 3;
const FEAT_OSRELEASE: usize = 4;
const FEAT_ARCH: usize = 6;
const FEAT_CMDLINE: usize = 11;
const FEAT_EVENT_DESC: usize = 12;
const FEAT_COMPRESSED: usize = 27;

/// Record types (PERF_RECORD_*, tools/lib/perf/include/perf/event.h)
/// whose size is not the header's.
const RECORD_AUXTRACE: u32 = 71;
const RECORD_COMPRESSED: u32 = 81;
const RECORD_COMPRESSED2: u32 = 83;
/// PERF_RECORD_FINISHED_ROUND: the end of a round, what linux-perf-data's
/// reader sorts at once.
const RECORD_FINISHED_ROUND: u32 = 68;

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// Reads `len` bytes at `off`, after checking they are in the file.
fn read_at(f: &mut File, off: u64, len: u64, file_len: u64) -> Result<Vec<u8>> {
    if off.checked_add(len).is_none_or(|end| end > file_len) {
        bail!("{len} bytes at offset {off} lie past its end ({file_len} bytes)");
    }
    let mut b = vec![0u8; len as usize];
    f.seek(SeekFrom::Start(off))?;
    f.read_exact(&mut b)?;
    Ok(b)
}

/// A `perf_header_string` (u32 length, then the bytes) at `at` in `b`:
/// where it ends.
fn string_end(b: &[u8], at: usize) -> Option<usize> {
    let n = u32_at(b, at)? as usize;
    let end = (at + 4).checked_add(n)?;
    (end <= b.len()).then_some(end)
}

/// HEADER_EVENT_DESC: `u32 nr, u32 attr_size`, then per event the attr,
/// `u32 nr_ids`, a string and `u64 ids[nr_ids]` (header.c,
/// `write_event_desc`): every count fits in the section.
fn event_desc(b: &[u8]) -> Result<()> {
    let bad = || anyhow::anyhow!("its event descriptions (HEADER_EVENT_DESC) are corrupt");
    let nr = u32_at(b, 0).ok_or_else(bad)?;
    let attr_size = u32_at(b, 4).ok_or_else(bad)? as u64;
    if !ATTR_SIZES.contains(&attr_size) {
        return Err(bad());
    }
    let mut at = 8usize;
    for _ in 0..nr {
        at = at.checked_add(attr_size as usize).ok_or_else(bad)?;
        let ids = u32_at(b, at).ok_or_else(bad)? as usize;
        at = string_end(b, at + 4).ok_or_else(bad)?;
        at = ids
            .checked_mul(8)
            .and_then(|n| at.checked_add(n))
            .filter(|&e| e <= b.len())
            .ok_or_else(bad)?;
    }
    Ok(())
}

/// HEADER_CMDLINE: `u32 nr`, then nr strings.
fn cmdline(b: &[u8]) -> Result<()> {
    let bad = || anyhow::anyhow!("its command line (HEADER_CMDLINE) is corrupt");
    let nr = u32_at(b, 0).ok_or_else(bad)?;
    let mut at = 4;
    for _ in 0..nr {
        at = string_end(b, at).ok_or_else(bad)?;
    }
    Ok(())
}

/// Checks the file's header, feature sections and record headers; every
/// failure is one line (without the file's name, which the caller adds).
pub fn layout(f: &mut File) -> Result<()> {
    let file_len = f.metadata()?.len();
    let mut h = [0u8; HEADER_SIZE as usize];
    f.seek(SeekFrom::Start(0))?;
    if f.read_exact(&mut h).is_err() {
        bail!("not a readable perf.data file ({file_len} bytes, shorter than perf's header)");
    }
    match &h[..8] {
        b"PERFILE2" => {}
        b"2ELIFREP" => {
            bail!("recorded on a big-endian machine, which the reader does not decode")
        }
        _ => bail!("not a readable perf.data file (its magic is not PERFILE2)"),
    }
    let q = |at: usize| u64_at(&h, at).unwrap_or(0);
    let (header_size, attr_size) = (q(8), q(16));
    if header_size < HEADER_SIZE {
        bail!("not a readable perf.data file: a header of {header_size} bytes is perf's pipe format (`perf record -o -`); record to a file");
    }
    if !ATTR_SIZES.contains(&attr_size) {
        bail!("not a readable perf.data file: an event attribute of {attr_size} bytes");
    }
    let (data_off, data_size) = (q(40), q(48));
    if data_size == 0 {
        bail!("its data size is 0: the recording was not terminated properly (perf record killed, or the disk filled?), so perf cannot read it either; record again");
    }
    for (name, at) in [("attrs", 24), ("data", 40), ("event_types", 56)] {
        let (off, size) = (q(at), q(at + 8));
        if off.checked_add(size).is_none_or(|e| e > file_len) {
            bail!("not a readable perf.data file: its {name} section ({size} bytes at {off}) lies past its end ({file_len} bytes): cut short?");
        }
    }
    let bits: Vec<usize> = (0..256)
        .filter(|&i| h[72 + i / 8] & (1 << (i % 8)) != 0)
        .collect();
    if bits.contains(&FEAT_COMPRESSED) {
        bail!("recorded compressed (`perf record -z`), which the reader does not decode; record without -z");
    }
    if !bits.contains(&FEAT_EVENT_DESC) {
        bail!("not a readable perf.data file: no event descriptions (HEADER_EVENT_DESC), which every perf since Linux 3.2 writes");
    }
    let table = read_at(f, data_off + data_size, 16 * bits.len() as u64, file_len)
        .context("not a readable perf.data file: its feature table")?;
    let mut total = 0u64;
    for (k, &bit) in bits.iter().enumerate() {
        let (off, size) = (
            u64_at(&table, 16 * k).unwrap_or(0),
            u64_at(&table, 16 * k + 8).unwrap_or(0),
        );
        if off.checked_add(size).is_none_or(|e| e > file_len) {
            bail!("not a readable perf.data file: feature {bit}'s section ({size} bytes at {off}) lies past its end ({file_len} bytes)");
        }
        total = total.saturating_add(size);
        if total > limits::MAX_PERF_HEADER_BYTES {
            bail!(
                "not a readable perf.data file: its feature sections hold more than the {} MiB accepted",
                limits::MAX_PERF_HEADER_BYTES >> 20
            );
        }
        let check: Option<fn(&[u8]) -> Result<()>> = match bit {
            FEAT_EVENT_DESC => Some(event_desc),
            FEAT_CMDLINE => Some(cmdline),
            FEAT_HOSTNAME | FEAT_OSRELEASE | FEAT_ARCH => Some(|b: &[u8]| {
                string_end(b, 0)
                    .map(|_| ())
                    .context("a header string is longer than its section")
            }),
            _ => None,
        };
        if let Some(c) = check {
            c(&read_at(f, off, size, file_len)?)
                .with_context(|| format!("not a readable perf.data file: feature {bit}"))?;
        }
    }
    records(f, data_off, data_size, limits::MAX_PERF_SORT_BYTES)
}

/// Walks the record headers of the data section: each at least its own
/// header, an AUXTRACE payload within the section, no compressed record,
/// and no three consecutive rounds (between FINISHED_ROUND records) that
/// would take linux-perf-data's sorting more than `max_sort` bytes (see
/// [`limits::MAX_PERF_SORT_BYTES`]).
fn records(f: &mut File, off: u64, size: u64, max_sort: u64) -> Result<()> {
    f.seek(SeekFrom::Start(off))?;
    let mut r = BufReader::with_capacity(1 << 20, &mut *f);
    let mut at = 0u64;
    let mut hdr = [0u8; 8];
    // the sorting cost of the current round and the two before it
    let mut rounds = [0u64; 3];
    let mut markers = 0u64;
    while at < size {
        if size - at < 8 {
            bail!(
                "corrupt or truncated record at offset {} (a record header cut short)",
                off + at
            );
        }
        r.read_exact(&mut hdr)
            .with_context(|| format!("corrupt or truncated record at offset {}", off + at))?;
        let ty = u32_at(&hdr, 0).unwrap_or(0);
        let len = u16::from_le_bytes([hdr[6], hdr[7]]) as u64;
        if len < 8 {
            bail!("corrupt record at offset {}: its size is {len}", off + at);
        }
        let mut body = len - 8;
        if ty == RECORD_FINISHED_ROUND {
            markers += 1;
            rounds = [0, rounds[0], rounds[1]];
        }
        match ty {
            RECORD_COMPRESSED | RECORD_COMPRESSED2 => {
                bail!("recorded compressed (`perf record -z`), which the reader does not decode; record without -z")
            }
            RECORD_AUXTRACE => {
                let mut s = [0u8; 8];
                if body < 8 || r.read_exact(&mut s).is_err() {
                    bail!("corrupt AUXTRACE record at offset {}", off + at);
                }
                body = (body - 8).saturating_add(u64::from_le_bytes(s));
                at += 8;
            }
            _ => {}
        }
        at = at.saturating_add(8).saturating_add(body);
        if at > size {
            bail!(
                "corrupt or truncated record at offset {}: it runs past the data section",
                off + at
            );
        }
        if ty != RECORD_FINISHED_ROUND {
            rounds[0] = rounds[0].saturating_add(8 + body + limits::PERF_SORT_RECORD_OVERHEAD);
            if rounds.iter().sum::<u64>() > max_sort {
                bail!(
                    "its records up to offset {} would take the reader more than {} MiB to sort into time order: {}; perf record writes a marker after each pass over its buffers",
                    off + at,
                    max_sort >> 20,
                    if markers == 0 {
                        "it has no round markers (PERF_RECORD_FINISHED_ROUND) so far".to_string()
                    } else {
                        format!("its rounds (between PERF_RECORD_FINISHED_ROUND markers; {markers} so far) are that long")
                    }
                );
            }
        }
        r.seek_relative(body as i64)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A data section of `n` 64-byte COMM records, a round marker after
    /// every `round` of them (none if 0); the cost of sorting `k` of them.
    fn section(n: usize, round: usize) -> (File, u64, impl Fn(u64) -> u64) {
        let mut b = Vec::new();
        for k in 0..n {
            b.extend_from_slice(&3u32.to_le_bytes());
            b.extend_from_slice(&0u16.to_le_bytes());
            b.extend_from_slice(&64u16.to_le_bytes());
            b.extend_from_slice(&[0u8; 56]);
            if round > 0 && (k + 1) % round == 0 {
                b.extend_from_slice(&RECORD_FINISHED_ROUND.to_le_bytes());
                b.extend_from_slice(&[0, 0, 8, 0]);
            }
        }
        let p =
            std::env::temp_dir().join(format!("arbor-check-{}-{n}-{round}", std::process::id()));
        std::fs::write(&p, &b).unwrap();
        let f = File::open(&p).unwrap();
        let _ = std::fs::remove_file(&p);
        (f, b.len() as u64, |k| {
            k * (64 + limits::PERF_SORT_RECORD_OVERHEAD)
        })
    }

    #[test]
    fn what_the_reader_sorts_at_once_is_capped() {
        // 1,000 records without a round marker: held whole
        let (mut f, size, cost) = section(1000, 0);
        let e = format!("{:#}", records(&mut f, 0, size, cost(999)).unwrap_err());
        assert!(e.contains("no round markers"), "{e}");
        assert!(records(&mut f, 0, size, cost(1000)).is_ok());
        // the same with a marker every 100: three rounds at once
        let (mut f, size, cost) = section(1000, 100);
        assert!(records(&mut f, 0, size, cost(300)).is_ok());
        let e = format!("{:#}", records(&mut f, 0, size, cost(299)).unwrap_err());
        assert!(e.contains("2 so far"), "{e}");
        // the fixtures recorded by perf are far below the limit
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/trace/pipe-sync.data");
        assert!(layout(&mut File::open(p).unwrap()).is_ok());
    }
}
