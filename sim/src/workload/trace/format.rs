//! The tracing-data section of a perf.data file (`HEADER_TRACING_DATA`):
//! the kernel's own description of each tracepoint's record, copied by
//! `perf record` from tracefs's `events/SYSTEM/NAME/format` files. Field
//! offsets are read from it, never assumed, so a trace from another kernel
//! version (whose `sched_switch` layout differs) decodes right.
//!
//! Layout (tools/perf/util/trace-event-info.c, `tracing_data_get`, and its
//! reader trace-event-read.c, `trace_report`): the magic `\x17\x08\x44`
//! `tracing`, a NUL-terminated version string, one byte "big endian", one
//! byte sizeof(long), a u32 page size; then `header_page` and
//! `header_event` (a NUL-terminated name, a u64 size, the text); the ftrace
//! formats (a u32 count, each a u64 size and its text); the event formats
//! (a u32 count of systems, each a NUL-terminated system name, a u32 count
//! of events, each a u64 size and its text); then kallsyms, printk formats
//! and saved cmdlines, which are not needed here.

use std::collections::HashMap;

use anyhow::{bail, Context, Result};

/// One field of a tracepoint record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub offset: usize,
    pub size: usize,
    pub signed: bool,
    /// `__data_loc`: the field holds (length << 16 | offset) of a dynamic
    /// array (a string) elsewhere in the record.
    pub data_loc: bool,
}

/// One tracepoint's format: `system:name`, its id and its fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    pub system: String,
    pub name: String,
    pub id: u64,
    pub fields: Vec<Field>,
}

impl Format {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// The formats of a file's tracepoints, by id, and the byte order the
/// section says the recording kernel had.
#[derive(Debug, Default)]
pub struct Formats {
    pub by_id: HashMap<u64, Format>,
    pub big_endian: bool,
    pub long_size: u8,
}

struct Cur<'a> {
    b: &'a [u8],
    at: usize,
    big: bool,
}

impl<'a> Cur<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .context("tracing data is truncated")?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32> {
        let s: [u8; 4] = self.take(4)?.try_into()?;
        Ok(if self.big {
            u32::from_be_bytes(s)
        } else {
            u32::from_le_bytes(s)
        })
    }
    fn u64(&mut self) -> Result<u64> {
        let s: [u8; 8] = self.take(8)?.try_into()?;
        Ok(if self.big {
            u64::from_be_bytes(s)
        } else {
            u64::from_le_bytes(s)
        })
    }
    fn cstr(&mut self) -> Result<&'a str> {
        let rest = &self.b[self.at..];
        let n = rest
            .iter()
            .position(|&c| c == 0)
            .context("tracing data: unterminated string")?;
        self.at += n + 1;
        std::str::from_utf8(&rest[..n]).context("tracing data: a name is not UTF-8")
    }
    /// A u64 size then that many bytes, bounded by what is left.
    fn blob(&mut self) -> Result<&'a [u8]> {
        let n = self.u64()?;
        let n = usize::try_from(n).context("tracing data: a size is too large")?;
        self.take(n)
    }
}

/// Parses the section. Only the event formats are kept.
pub fn parse(b: &[u8]) -> Result<Formats> {
    const MAGIC: &[u8] = b"\x17\x08\x44tracing";
    if !b.starts_with(MAGIC) {
        bail!("its tracing-data section does not start with perf's tracing magic");
    }
    let mut c = Cur {
        b,
        at: MAGIC.len(),
        big: false,
    };
    let _version = c.cstr()?;
    let big = c.take(1)?[0] != 0;
    let long_size = c.take(1)?[0];
    c.big = big;
    let _page_size = c.u32()?;
    for want in ["header_page", "header_event"] {
        let name = c.cstr()?;
        if name != want {
            bail!("tracing data: expected '{want}', found '{name}'");
        }
        c.blob()?;
    }
    let ftrace = c.u32()?;
    for _ in 0..ftrace {
        c.blob()?;
    }
    let systems = c.u32()?;
    let mut by_id = HashMap::new();
    for _ in 0..systems {
        let system = c.cstr()?.to_string();
        let n = c.u32()?;
        for _ in 0..n {
            let text = std::str::from_utf8(c.blob()?)
                .with_context(|| format!("tracing data: a format of '{system}' is not UTF-8"))?;
            let f = parse_format(&system, text)
                .with_context(|| format!("tracing data: a format of '{system}'"))?;
            by_id.insert(f.id, f);
        }
    }
    Ok(Formats {
        by_id,
        big_endian: big,
        long_size,
    })
}

/// One `format` file's text (see tracefs's events/*/*/format).
pub fn parse_format(system: &str, text: &str) -> Result<Format> {
    let mut name = None;
    let mut id = None;
    let mut fields = Vec::new();
    for line in text.lines() {
        let l = line.trim();
        if let Some(v) = l.strip_prefix("name:") {
            name = Some(v.trim().to_string());
        } else if let Some(v) = l.strip_prefix("ID:") {
            id = Some(v.trim().parse::<u64>().context("its ID is not a number")?);
        } else if let Some(v) = l.strip_prefix("field:") {
            fields.push(parse_field(v).with_context(|| format!("field line '{l}'"))?);
        }
    }
    Ok(Format {
        system: system.to_string(),
        name: name.context("it has no name: line")?,
        id: id.context("it has no ID: line")?,
        fields,
    })
}

/// `unsigned char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;`
fn parse_field(v: &str) -> Result<Field> {
    let mut parts = v.split(';').map(str::trim);
    let decl = parts.next().context("no declaration")?;
    let (mut offset, mut size, mut signed) = (None, None, false);
    for p in parts {
        if let Some(x) = p.strip_prefix("offset:") {
            offset = Some(x.parse::<usize>().context("bad offset")?);
        } else if let Some(x) = p.strip_prefix("size:") {
            size = Some(x.parse::<usize>().context("bad size")?);
        } else if let Some(x) = p.strip_prefix("signed:") {
            signed = x == "1";
        }
    }
    // the field's name: the declaration's last identifier, with every
    // [N] removed (`char prev_comm[16]`, `__data_loc char[] comm`)
    let mut base = String::new();
    let mut depth = 0;
    for ch in decl.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => base.push(ch),
            _ => {}
        }
    }
    let name = base
        .trim()
        .rsplit(|c: char| c.is_whitespace() || c == '*')
        .next()
        .filter(|n| !n.is_empty())
        .context("no field name")?;
    Ok(Field {
        name: name.to_string(),
        offset: offset.context("no offset")?,
        size: size.context("no size")?,
        signed,
        data_loc: decl.starts_with("__data_loc"),
    })
}

/// Reads fields out of one record's raw bytes, by its format.
pub struct Record<'a> {
    pub raw: &'a [u8],
    pub fmt: &'a Format,
    pub big: bool,
}

impl Record<'_> {
    /// An integer field (1, 2, 4 or 8 bytes), sign-extended if signed.
    pub fn int(&self, name: &str) -> Result<i64> {
        let f = self.fmt.field(name).with_context(|| {
            format!(
                "tracepoint {}:{} has no field '{name}'",
                self.fmt.system, self.fmt.name
            )
        })?;
        self.int_of(f, name)
    }

    /// An integer field already looked up in the format.
    pub fn int_of(&self, f: &Field, name: &str) -> Result<i64> {
        let b = self
            .raw
            .get(f.offset..f.offset + f.size)
            .with_context(|| format!("a {} record is shorter than its format", self.fmt.name))?;
        let mut buf = [0u8; 8];
        let v = match f.size {
            1 => {
                return Ok(if f.signed {
                    b[0] as i8 as i64
                } else {
                    b[0] as i64
                })
            }
            2 | 4 | 8 => {
                if self.big {
                    buf[8 - f.size..].copy_from_slice(b);
                    u64::from_be_bytes(buf)
                } else {
                    buf[..f.size].copy_from_slice(b);
                    u64::from_le_bytes(buf)
                }
            }
            n => bail!("field '{name}' of {} has size {n}", self.fmt.name),
        };
        let bits = f.size * 8;
        Ok(if f.signed && bits < 64 && v >> (bits - 1) & 1 == 1 {
            (v | (!0u64 << bits)) as i64
        } else {
            v as i64
        })
    }

    /// A string field (a fixed char array or a `__data_loc` string).
    pub fn str(&self, name: &str) -> Result<String> {
        let f = self.fmt.field(name).with_context(|| {
            format!(
                "tracepoint {}:{} has no field '{name}'",
                self.fmt.system, self.fmt.name
            )
        })?;
        let (off, len) = if f.data_loc {
            let loc = self.int(name)? as u64;
            ((loc & 0xffff) as usize, (loc >> 16 & 0xffff) as usize)
        } else {
            (f.offset, f.size)
        };
        let b = self
            .raw
            .get(off..off + len)
            .with_context(|| format!("a {} record is shorter than its format", self.fmt.name))?;
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        Ok(String::from_utf8_lossy(&b[..end]).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SWITCH: &str = "name: sched_switch
ID: 316
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;
\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;
\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;
\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;
\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;
\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;
\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;

print fmt: \"prev_comm=%s\", REC->prev_comm
";

    #[test]
    fn a_format_file_gives_names_offsets_and_signs() {
        let f = parse_format("sched", SWITCH).unwrap();
        assert_eq!((f.name.as_str(), f.id), ("sched_switch", 316));
        assert_eq!(f.fields.len(), 11);
        let p = f.field("prev_comm").unwrap();
        assert_eq!((p.offset, p.size, p.signed), (8, 16, false));
        let s = f.field("prev_state").unwrap();
        assert_eq!((s.offset, s.size, s.signed), (32, 8, true));
        assert!(f.field("next_prio").is_some());
    }

    #[test]
    fn records_decode_at_the_formats_offsets() {
        let f = parse_format("sched", SWITCH).unwrap();
        let mut raw = vec![0u8; 64];
        raw[8..12].copy_from_slice(b"perf");
        raw[24..28].copy_from_slice(&(-7i32).to_le_bytes());
        raw[32..40].copy_from_slice(&1i64.to_le_bytes());
        raw[56..60].copy_from_slice(&4242i32.to_le_bytes());
        let r = Record {
            raw: &raw,
            fmt: &f,
            big: false,
        };
        assert_eq!(r.str("prev_comm").unwrap(), "perf");
        assert_eq!(r.int("prev_pid").unwrap(), -7);
        assert_eq!(r.int("prev_state").unwrap(), 1);
        assert_eq!(r.int("next_pid").unwrap(), 4242);
        assert!(r.int("nope").is_err());
        // a record shorter than its format is an error, not a panic
        let short = Record {
            raw: &raw[..30],
            fmt: &f,
            big: false,
        };
        assert!(short.int("prev_state").is_err());
    }

    #[test]
    fn a_section_without_the_magic_or_cut_short_is_refused() {
        assert!(parse(b"not tracing data").is_err());
        let mut b = b"\x17\x08\x44tracing0.6\0".to_vec();
        b.extend([0, 8]);
        assert!(format!("{:#}", parse(&b).unwrap_err()).contains("truncated"));
    }

    #[test]
    fn data_loc_strings_are_found_where_the_record_says() {
        let text = "name: sched_waking\nID: 7\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n";
        let f = parse_format("sched", text).unwrap();
        assert!(f.field("comm").unwrap().data_loc);
        let mut raw = vec![0u8; 24];
        let loc: u32 = (5 << 16) | 16;
        raw[8..12].copy_from_slice(&loc.to_le_bytes());
        raw[16..21].copy_from_slice(b"abc\0\0");
        let r = Record {
            raw: &raw,
            fmt: &f,
            big: false,
        };
        assert_eq!(r.str("comm").unwrap(), "abc");
    }
}
