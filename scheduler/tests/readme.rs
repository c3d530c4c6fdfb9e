//! The documentation says what the code does. The guide's feature and
//! counter tables (docs/guide/scheduler.md): every feature appears with its
//! setting in each profile, every counter is named, and the tables name
//! nothing the code lacks. Every `scx_arbor …` command in the shell blocks
//! of README.md, the guide and docs/seeds.md (also as `arbor vm`'s guest
//! command) is accepted by scx_arbor's own parser, with feature and profile
//! names the code knows.

use std::collections::BTreeSet;
use std::path::Path;

use scx_arbor::doc_commands::{doc_commands, help_error, read_doc_pages, DocCommand};
use scx_arbor::features::{apply, profile_mask, FEATURES, PROFILES};
use scx_arbor::stats::NAMES;

/// The page that holds the feature and counter tables.
const GUIDE: &str = include_str!("../../docs/guide/scheduler.md");

/// The markdown tables of `text` whose first header cell is `first`: for
/// each, the header cells and the rows' cells.
fn tables(text: &str, first: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let cells = |l: &str| -> Vec<String> {
        // a `\|` inside a cell is a literal bar, not a separator
        l.trim()
            .trim_matches('|')
            .replace("\\|", "\u{1}")
            .split('|')
            .map(|c| c.trim().replace('\u{1}', "|"))
            .collect()
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        let l = lines[i];
        if l.starts_with('|') && lines[i + 1].starts_with("|---") && cells(l)[0] == first {
            let header = cells(l);
            let mut rows = Vec::new();
            i += 2;
            while i < lines.len() && lines[i].starts_with('|') {
                rows.push(cells(lines[i]));
                i += 1;
            }
            out.push((header, rows));
        } else {
            i += 1;
        }
    }
    out
}

/// The names in a table's first cell: `a`, `b`, and ranges written
/// `x_0` … `x_15`.
fn names_in(cell: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in cell.split(',') {
        let ticked: Vec<&str> = part.split('`').skip(1).step_by(2).collect();
        if part.contains('…') {
            assert_eq!(ticked.len(), 2, "a range is `a_0` … `a_N`: {part}");
            let split = |n: &str| {
                let k = n.trim_end_matches(|c: char| c.is_ascii_digit()).len();
                (
                    n[..k].to_string(),
                    n[k..].parse::<u32>().expect("a range ends in a number"),
                )
            };
            let ((p, a), (q, b)) = (split(ticked[0]), split(ticked[1]));
            assert_eq!(p, q, "range {part}");
            out.extend((a..=b).map(|i| format!("{p}{i}")));
        } else {
            out.extend(ticked.iter().map(|s| s.to_string()));
        }
    }
    out
}

/// Each feature table row's name and its stock/seeds/default settings.
fn feature_rows(text: &str) -> Vec<(String, Vec<(String, bool)>)> {
    let mut out = Vec::new();
    for (header, rows) in tables(text, "feature") {
        for p in PROFILES {
            assert!(
                header.iter().any(|h| h == p),
                "a feature table has no `{p}` column: {header:?}"
            );
        }
        for row in rows {
            let names = names_in(&row[0]);
            assert_eq!(names.len(), 1, "one feature per row: {row:?}");
            let settings = PROFILES
                .iter()
                .map(|p| {
                    let col = header.iter().position(|h| h == p).unwrap();
                    let v = row.get(col).map(String::as_str).unwrap_or("");
                    let on = match v {
                        "on" => true,
                        "off" => false,
                        _ => panic!("{}: `{p}` column is '{v}', not on or off", names[0]),
                    };
                    (p.to_string(), on)
                })
                .collect();
            out.push((names[0].clone(), settings));
        }
    }
    out
}

fn feature_table_errors(text: &str) -> Vec<String> {
    let rows = feature_rows(text);
    let mut errs = Vec::new();
    for f in FEATURES {
        let Some((_, settings)) = rows.iter().find(|(n, _)| n == f.name) else {
            errs.push(format!("feature {} is not in the guide's tables", f.name));
            continue;
        };
        for (p, on) in settings {
            let code = profile_mask(p).unwrap() & (1 << f.bit) != 0;
            if *on != code {
                errs.push(format!(
                    "{} in profile {p}: the guide says {}, the code {}",
                    f.name,
                    if *on { "on" } else { "off" },
                    if code { "on" } else { "off" }
                ));
            }
        }
    }
    let mut seen = BTreeSet::new();
    for (n, _) in &rows {
        if !FEATURES.iter().any(|f| f.name == n) {
            errs.push(format!("the guide names a feature the code lacks: {n}"));
        }
        if !seen.insert(n) {
            errs.push(format!("feature {n} has two rows"));
        }
    }
    errs
}

fn counter_table_errors(text: &str) -> Vec<String> {
    let mut listed = Vec::new();
    for (_, rows) in tables(text, "counter") {
        for row in rows {
            listed.extend(names_in(&row[0]));
        }
    }
    let mut errs = Vec::new();
    for n in NAMES {
        if !listed.iter().any(|l| l == n) {
            errs.push(format!("counter {n} is not in the guide's table"));
        }
    }
    let mut seen = BTreeSet::new();
    for l in &listed {
        if !NAMES.contains(&l.as_str()) {
            errs.push(format!("the guide names a counter the code lacks: {l}"));
        }
        if !seen.insert(l) {
            errs.push(format!("counter {l} is listed twice"));
        }
    }
    errs
}

/// The guide has a `kind` table (feature, counter), and `errors` finds no
/// drift between it and the code.
fn assert_guide_tables_match(kind: &str, errors: fn(&str) -> Vec<String>) {
    assert!(!tables(GUIDE, kind).is_empty(), "no {kind} table");
    let errs = errors(GUIDE);
    assert!(
        errs.is_empty(),
        "docs/guide/scheduler.md is out of date:\n{}",
        errs.join("\n")
    );
}

#[test]
fn guide_feature_tables_match_the_code() {
    assert_guide_tables_match("feature", feature_table_errors);
}

#[test]
fn guide_counter_table_matches_the_code() {
    assert_guide_tables_match("counter", counter_table_errors);
}

/// The checks catch each kind of drift, on crafted tables.
#[test]
fn crafted_drift_is_caught() {
    let good_features: String = {
        let mut t =
            String::from("| feature | stock | seeds | default | rule |\n|---|---|---|---|---|\n");
        for f in FEATURES {
            let on = |p| {
                if profile_mask(p).unwrap() & (1 << f.bit) != 0 {
                    "on"
                } else {
                    "off"
                }
            };
            t += &format!(
                "| `{}` | {} | {} | {} | x |\n",
                f.name,
                on("stock"),
                on("seeds"),
                on("default")
            );
        }
        t
    };
    assert_eq!(feature_table_errors(&good_features), Vec::<String>::new());
    // STEAL said on in default
    let bad = good_features.replace(
        "| `STEAL` | off | on | off |",
        "| `STEAL` | off | on | on |",
    );
    assert_ne!(bad, good_features);
    assert!(feature_table_errors(&bad)[0].contains("STEAL in profile default"));
    // a row missing, and one the code lacks
    let bad = good_features.replace("`WA_WAKER`", "`WA_WAKER_OLD`");
    let e = feature_table_errors(&bad).join("\n");
    assert!(
        e.contains("WA_WAKER is not") && e.contains("lacks: WA_WAKER_OLD"),
        "{e}"
    );

    let mut good_counters = String::from("| counter | meaning |\n|---|---|\n");
    good_counters +=
        "| `wlat_direct_0` … `wlat_direct_15`, `wlat_queued_0` … `wlat_queued_15` | h |\n";
    for n in NAMES.iter().filter(|n| !n.starts_with("wlat_")) {
        good_counters += &format!("| `{n}` | m |\n");
    }
    assert_eq!(counter_table_errors(&good_counters), Vec::<String>::new());
    let bad = good_counters.replace("`wlat_queued_15`", "`wlat_queued_14`");
    assert_eq!(
        counter_table_errors(&bad),
        vec!["counter wlat_queued_15 is not in the guide's table"]
    );
    let bad = good_counters.replace("| `steal` |", "| `steal`, `steals_ok` |");
    assert_eq!(
        counter_table_errors(&bad),
        vec!["the guide names a counter the code lacks: steals_ok"]
    );
}

/// The binary under test.
const BIN: &str = env!("CARGO_BIN_EXE_scx_arbor");

/// The values of `flags` (`-f X`, `-fX`, `--feature X`, `--feature=X`) in
/// `args`.
fn values_of(args: &[String], flags: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in args.iter().enumerate() {
        for f in flags {
            if a == f {
                out.extend(args.get(i + 1).cloned());
            } else if let Some(v) = a.strip_prefix(&format!("{f}=")) {
                out.push(v.to_string());
            } else if f.len() == 2 && a.len() > 2 && a.starts_with(f) && !a.starts_with("--") {
                out.push(a[2..].to_string());
            }
        }
    }
    out
}

/// Why scx_arbor would refuse `c`, if it would: its parser is run with
/// `--help` appended (clap checks every argument before it and prints the
/// help instead of running), and the feature and profile names, which are
/// checked after parsing, are checked here with the code's own functions.
fn scx_arbor_error(c: &DocCommand) -> Option<String> {
    if let Some(e) = help_error(Path::new(BIN), c) {
        return Some(e);
    }
    for p in values_of(&c.args, &["-p", "--profile"]) {
        if let Err(e) = profile_mask(&p) {
            return Some(format!("{e:#}"));
        }
    }
    let specs = values_of(&c.args, &["-f", "--feature", "--set-features"]);
    if let Err(e) = apply(0, &specs) {
        return Some(format!("{e:#}"));
    }
    None
}

/// Each `scx_arbor` command of `md` that scx_arbor would refuse, as
/// `FILE:LINE: COMMAND: WHY` (scx_arbor::doc_commands::command_errors).
fn command_errors(file: &str, md: &str) -> Vec<String> {
    scx_arbor::doc_commands::command_errors(file, md, "scx_arbor", scx_arbor_error)
}

#[test]
fn documented_scx_arbor_commands_parse() {
    let mut errs = Vec::new();
    let mut n = 0;
    for (file, md) in &read_doc_pages(&Path::new(env!("CARGO_MANIFEST_DIR")).join("..")) {
        n += doc_commands(md)
            .iter()
            .filter(|c| c.program == "scx_arbor")
            .count();
        errs.extend(command_errors(file, md));
    }
    assert!(n >= 5, "only {n} scx_arbor commands found in the docs");
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

/// The check fails on a bad flag, a flag without its value, an unknown
/// feature or profile, also inside `arbor vm`'s guest command.
#[test]
fn a_bad_documented_command_is_caught() {
    scx_arbor::doc_commands::assert_bad_commands_caught(
        "scx_arbor",
        "sudo ./target/release/scx_arbor -v --stats 1",
        &[
            ("sudo scx_arbor --no-such-flag", "--no-such-flag"),
            ("scx_arbor --stats", "--stats"),
            ("scx_arbor --stats x", "x"),
            ("scx_arbor -f NO_SUCH_FEATURE", "NO_SUCH_FEATURE"),
            ("scx_arbor --set-features WA_IDLE,STEEL", "STEEL"),
            ("scx_arbor -p fastest", "fastest"),
            (
                "arbor vm -t 1s2c2t -- ./target/release/scx_arbor --run-sec 5",
                "--run-sec",
            ),
        ],
        command_errors,
    );
}
