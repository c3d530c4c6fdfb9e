//! Issue 13, item 5: the README's feature and counter tables say what the
//! code does. Every feature appears with its setting in each profile, every
//! counter is named, and the tables name nothing the code lacks.

use std::collections::BTreeSet;

use scx_arbor::features::{profile_mask, FEATURES, PROFILES};
use scx_arbor::stats::NAMES;

const README: &str = include_str!("../../README.md");

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
            errs.push(format!("feature {} is not in the README's tables", f.name));
            continue;
        };
        for (p, on) in settings {
            let code = profile_mask(p).unwrap() & (1 << f.bit) != 0;
            if *on != code {
                errs.push(format!(
                    "{} in profile {p}: README says {}, the code {}",
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
            errs.push(format!("the README names a feature the code lacks: {n}"));
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
            errs.push(format!("counter {n} is not in the README's table"));
        }
    }
    let mut seen = BTreeSet::new();
    for l in &listed {
        if !NAMES.contains(&l.as_str()) {
            errs.push(format!("the README names a counter the code lacks: {l}"));
        }
        if !seen.insert(l) {
            errs.push(format!("counter {l} is listed twice"));
        }
    }
    errs
}

#[test]
fn readme_feature_tables_match_the_code() {
    assert!(!tables(README, "feature").is_empty(), "no feature table");
    let errs = feature_table_errors(README);
    assert!(
        errs.is_empty(),
        "README.md is out of date:\n{}",
        errs.join("\n")
    );
}

#[test]
fn readme_counter_table_matches_the_code() {
    assert!(!tables(README, "counter").is_empty(), "no counter table");
    let errs = counter_table_errors(README);
    assert!(
        errs.is_empty(),
        "README.md is out of date:\n{}",
        errs.join("\n")
    );
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
        vec!["counter wlat_queued_15 is not in the README's table"]
    );
    let bad = good_counters.replace("| `steal` |", "| `steal`, `steals_ok` |");
    assert_eq!(
        counter_table_errors(&bad),
        vec!["the README names a counter the code lacks: steals_ok"]
    );
}

/// Every tunable with a default (intf.h enum arbor_defaults, through the
/// flags) is in the README's synopsis as `[--flag DEFAULT]`, and has a row
/// in the flag table; a flag the code lacks is not there.
fn knob_errors(text: &str) -> Vec<String> {
    use clap::Args;
    let cmd = scx_arbor::knobs::Knobs::augment_args(clap::Command::new("knobs"));
    // the block that starts with "scx_arbor [" holds the synopsis
    let block = text
        .split("```")
        .skip(1)
        .step_by(2)
        .find(|b| b.trim_start().starts_with("scx_arbor ["))
        .unwrap_or("");
    let rows: Vec<String> = tables(text, "flag")
        .into_iter()
        .flat_map(|(_, rows)| rows.into_iter().map(|r| r[0].clone()))
        .collect();
    let mut errs = Vec::new();
    for a in cmd.get_arguments() {
        let Some(long) = a.get_long() else { continue };
        if let Some(def) = a.get_default_values().first() {
            let want = format!("[--{long} {}]", def.to_string_lossy());
            if !block.contains(&want) {
                errs.push(format!("the README's synopsis lacks {want}"));
            }
        }
        if !rows.iter().any(|r| r.starts_with(&format!("`--{long}"))) {
            errs.push(format!("--{long} has no row in the README's flag table"));
        }
    }
    for tok in block.split('[').skip(1) {
        let Some(flag) = tok.strip_prefix("--") else {
            continue;
        };
        let name = flag.split([' ', ']']).next().unwrap_or("");
        let known = cmd.get_arguments().any(|a| a.get_long() == Some(name));
        let other = [
            "profile",
            "stats",
            "stats-json",
            "run-secs",
            "verifier-json",
            "json",
        ]
        .contains(&name);
        if !known && !other {
            errs.push(format!(
                "the README's synopsis names --{name}, which is no knob"
            ));
        }
    }
    errs
}

#[test]
fn readme_knob_defaults_match_the_code() {
    let errs = knob_errors(README);
    assert!(
        errs.is_empty(),
        "README.md is out of date:\n{}",
        errs.join("\n")
    );
    // and the check can fail: a changed default, a dropped flag
    let drift = README.replace("[--llc-imb-pct 20]", "[--llc-imb-pct 25]");
    assert!(knob_errors(&drift)
        .iter()
        .any(|e| e.contains("[--llc-imb-pct 20]")));
    let gone = README.replace("[--steal-node-limit 2]", "[--steal-node-cap 2]");
    let e = knob_errors(&gone);
    assert!(e.iter().any(|e| e.contains("--steal-node-cap")), "{e:?}");
}
