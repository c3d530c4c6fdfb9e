//! rt-app's JSON dialect, as json-c 0.16 (rt-app's parser) reads a file
//! with `json_object_from_file`, not strict: C comments and a comma before
//! a closing `}` or `]` are allowed, every object keeps its keys in file
//! order, and a key written twice keeps the place of its first occurrence
//! and the value of its last. parse.rs reads the use case from the result.

use std::fmt;

use anyhow::{anyhow, Result};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A JSON value whose objects keep their keys in file order (serde_json's
/// own `Value` sorts them unless its `preserve_order` feature is on).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum J {
    Null,
    Bool(bool),
    Int(i64),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    pub(super) fn kind(&self) -> &'static str {
        match self {
            J::Null => "null",
            J::Bool(_) => "a boolean",
            J::Int(_) => "an integer",
            J::Num(_) => "a number",
            J::Str(_) => "a string",
            J::Arr(_) => "an array",
            J::Obj(_) => "an object",
        }
    }
}

struct JVisitor;

impl<'de> Visitor<'de> for JVisitor {
    type Value = J;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<J, E> {
        Ok(J::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<J, E> {
        Ok(J::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<J, E> {
        Ok(i64::try_from(v).map(J::Int).unwrap_or(J::Num(v as f64)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<J, E> {
        Ok(J::Num(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<J, E> {
        Ok(J::Str(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<J, E> {
        Ok(J::Str(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<J, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = a.next_element()? {
            v.push(x);
        }
        Ok(J::Arr(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<J, A::Error> {
        let mut v = Vec::new();
        while let Some((k, x)) = a.next_entry::<String, J>()? {
            v.push((k, x));
        }
        Ok(J::Obj(v))
    }
}

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<J, D::Error> {
        d.deserialize_any(JVisitor)
    }
}

/// Blanks out C comments (`/* */` and `//`), outside strings, keeping every
/// newline so that parse errors keep their line numbers.
fn strip_comments(text: &str) -> std::result::Result<String, String> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut in_str = false;
    let mut line = 1;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
        }
        if in_str {
            out.push(c);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 2;
                continue;
            }
            in_str = c != b'"';
            i += 1;
        } else if c == b'"' {
            in_str = true;
            out.push(c);
            i += 1;
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let opened = line;
            out.extend_from_slice(b"  ");
            i += 2;
            loop {
                if i >= b.len() {
                    return Err(format!(
                        "the comment opened on line {opened} is never closed"
                    ));
                }
                if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    out.extend_from_slice(b"  ");
                    i += 2;
                    break;
                }
                if b[i] == b'\n' {
                    line += 1;
                    out.push(b'\n');
                } else {
                    out.push(b' ');
                }
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    drop_trailing_commas(&mut out);
    String::from_utf8(out).map_err(|e| format!("not UTF-8 ({e})"))
}

/// Blanks out each comma (outside strings) that only whitespace separates
/// from a closing `}` or `]`, as json-c's non-strict parser accepts it.
fn drop_trailing_commas(b: &mut [u8]) {
    let mut in_str = false;
    let mut comma = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
        } else if c == b'"' {
            in_str = true;
            comma = None;
        } else if c == b',' {
            comma = Some(i);
        } else if c == b'}' || c == b']' {
            if let Some(j) = comma.take() {
                b[j] = b' ';
            }
        } else if !c.is_ascii_whitespace() {
            comma = None;
        }
        i += 1;
    }
}

/// rt-app's JSON dialect (json-c's: comments and trailing commas allowed),
/// keys kept in file order, duplicate keys merged as json-c merges them.
pub(super) fn read_json(text: &str) -> Result<J> {
    let clean = strip_comments(text).map_err(|e| anyhow!("not valid JSON: {e}"))?;
    serde_json::from_str(&clean)
        .map(json_c_keys)
        .map_err(|e| anyhow!("not valid JSON: {e}"))
}

/// A key written twice in one object keeps the place of its first
/// occurrence and the value of its last: json-c's tokener adds each member
/// with `json_object_object_add`, which replaces the value of a key already
/// in the table without moving it (checked with the libjson-c5 0.16 that
/// rt-app links: `{"a": 1, "b": 2, "a": 3}` reads `{"a": 3, "b": 2}`).
fn json_c_keys(j: J) -> J {
    match j {
        J::Obj(o) => {
            // each key's place in `out`, so that a merge is linear in the
            // object's size
            let mut at: std::collections::HashMap<String, usize> =
                std::collections::HashMap::with_capacity(o.len());
            let mut out: Vec<(String, J)> = Vec::with_capacity(o.len());
            for (k, v) in o {
                let v = json_c_keys(v);
                match at.get(&k) {
                    Some(&i) => out[i].1 = v,
                    None => {
                        at.insert(k.clone(), out.len());
                        out.push((k, v));
                    }
                }
            }
            J::Obj(out)
        }
        J::Arr(a) => J::Arr(a.into_iter().map(json_c_keys).collect()),
        j => j,
    }
}

/// Checks only that `text` is JSON as rt-app reads it: what `arbor bench`
/// asks of a file the real rt-app will run (which knows more keys than
/// this model).
pub fn check_syntax(file: &str, text: &str) -> Result<()> {
    read_json(text)
        .map(|_| ())
        .map_err(|e| anyhow!("rt-app {file}: {e:#}"))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{app, err, once, steps};
    use crate::task::{Step, Workload};

    #[test]
    fn trailing_commas_are_allowed_as_rt_app_allows_them() {
        let w = app("{\"tasks\": {\"t\": {\"cpus\": [0, 1, ], \"run\": 1, /* c */ }, }, }");
        assert_eq!(w.tasks()[0].cpus, Some(vec![0, 1]));
        // not inside strings, and not a comma before a value
        let w = app(r#"{"tasks": {"a,}": {"run": 1}}}"#);
        assert_eq!(w.tasks()[0].name, "a,}");
        assert!(err(r#"{"tasks": {"t": {"cpus": [0, , 1], "run": 1}}}"#).contains("not valid JSON"));
    }

    #[test]
    fn comments_are_allowed_as_rt_app_allows_them() {
        let w = app("/* a use case */ {\n// one task\n\"tasks\": {\"a//b\": {\"run\": 1 /* us */, \"loop\": 1}}}");
        assert_eq!(w.tasks()[0].name, "a//b");
        assert!(err("{\"tasks\": {} /* open").contains("comment opened on line 1 is never closed"));
    }

    #[test]
    fn duplicate_keys_keep_the_first_place_and_the_last_value_as_json_c_does() {
        // browser-long.json's "start" phase: sleep 400000, run 15000,
        // resume, run 7000, sleep 8000; json-c reads sleep 8000, run 7000,
        // resume
        let p = once(
            1,
            r#""sleep": 400, "run": 15, "resume": "x", "run": 7, "sleep": 8"#,
        );
        let mut w = app(&format!(r#"{{"tasks": {{"t": {p}}}}}"#));
        assert_eq!(
            steps(&mut w, 0),
            [Step::Sleep(8_000), Step::Run(7_000), Step::Exit]
        );
        // a phase written twice: the second one, in the first one's place
        let mut w = app(r#"{"tasks": {"t": {"loop": 1, "phases": {
            "p": {"run": 1}, "q": {"run": 2}, "p": {"run": 3}}}}}"#);
        assert_eq!(
            steps(&mut w, 0),
            [Step::Run(3_000), Step::Run(2_000), Step::Exit]
        );
        // a task named twice is one task, the last one written
        let w =
            app(r#"{"tasks": {"t": {"run": 1}, "u": {"run": 1}, "t": {"run": 2, "priority": 5}}}"#);
        let t = w.tasks();
        assert_eq!(t.len(), 2);
        assert_eq!((t[0].name.as_str(), t[0].weight), ("t", 33));
    }
}
