//! The commands in a markdown text's shell code blocks, as argument
//! vectors, so that tests can hand each `scx_arbor …` and `arbor …` line of
//! README.md and docs/guide/ to the real command-line parser: a renamed or
//! dropped flag then fails a test instead of a reader.
//!
//! A small subset of sh is understood, enough for documentation: `\` line
//! continuations, single and double quotes, backslash escapes, `#`
//! comments, the separators `;`, `&&`, `||`, `|` and `&`, redirections
//! (dropped with their target), leading `VAR=value` assignments, `sudo`,
//! `env`, `time`, `exec` and `nohup` in front of a command, and `$VAR` /
//! `${VAR}`, which stand for the placeholder `VAR`. A program run from
//! the build directory (`./target/release/arbor`, `target/release/...`) is
//! named by its file name. For `arbor vm … -- COMMAND`, the guest's command
//! is listed too, after the `arbor vm` line itself (one argument after
//! `--` is a shell line, as `arbor vm` takes it).

/// One simple command found in a code block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocCommand {
    /// 1-based line of the markdown text where the command starts.
    pub line: usize,
    /// The program: `arbor`, `scx_arbor`, `make`, `perf`, ...
    pub program: String,
    /// The arguments after the program, unquoted.
    pub args: Vec<String>,
}

impl DocCommand {
    /// `program arg arg ...`, for messages.
    pub fn display(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The info strings of the fenced blocks that hold shell commands.
const SHELL_BLOCKS: &[&str] = &["sh", "bash", "shell", "console"];

/// Every simple command of every shell code block of `markdown`, in order.
pub fn doc_commands(markdown: &str) -> Vec<DocCommand> {
    let mut out = Vec::new();
    // inside a fence: Some(its info string)
    let mut in_block: Option<String> = None;
    // a logical line being joined across `\` continuations: (start, text)
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in markdown.lines().enumerate() {
        let trimmed = raw.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            in_block = match in_block {
                None => Some(info.trim().to_string()),
                Some(_) => {
                    if let Some((line, text)) = pending.take() {
                        out.extend(commands_of_line(line, &text));
                    }
                    None
                }
            };
            continue;
        }
        let Some(info) = in_block.as_deref().filter(|i| SHELL_BLOCKS.contains(i)) else {
            continue;
        };
        // a console block: commands after a `$ ` prompt, the rest is output
        let body = match (info, trimmed.strip_prefix("$ ")) {
            ("console", Some(cmd)) => cmd,
            ("console", None) if pending.is_none() => continue,
            _ => raw,
        };
        let (line, mut text) = pending.take().unwrap_or((i + 1, String::new()));
        let body_end = body.trim_end();
        match body_end.strip_suffix('\\') {
            Some(head) if !head.ends_with('\\') => {
                text.push_str(head);
                text.push(' ');
                pending = Some((line, text));
            }
            _ => {
                text.push_str(body_end);
                out.extend(commands_of_line(line, &text));
            }
        }
    }
    if let Some((line, text)) = pending {
        out.extend(commands_of_line(line, &text));
    }
    out
}

/// The commands written as inline code outside code blocks (`` `arbor
/// sim reproduce steal --quick` `` in a table cell) whose program is one
/// of `programs`: a span is taken only if it starts with such a program,
/// so that fragments like `` `-w trace:FILE` `` are left alone, and not if
/// a word of its first two ends in `:`, which makes it a message quoted
/// from the output (`` `arbor bench: report in DIR` ``).
pub fn inline_commands(markdown: &str, programs: &[&str]) -> Vec<DocCommand> {
    let mut out = Vec::new();
    let mut in_block = false;
    for (i, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            continue;
        }
        for span in line.split('`').skip(1).step_by(2) {
            let first = span.split_whitespace().next().unwrap_or("");
            let message = span.split_whitespace().take(2).any(|w| w.ends_with(':'));
            if programs.contains(&program_name(first).as_str()) && span.contains(' ') && !message {
                out.extend(commands_of_line(i + 1, span));
            }
        }
    }
    out
}

#[derive(Debug, PartialEq)]
enum Tok {
    Word(String),
    /// `;`, `&&`, `||`, `|`, `&`
    Sep,
    /// `>`, `>>`, `<`, `2>`, `&>`: the next word is a file, not an argument
    Redirect,
}

/// Splits one logical shell line into words and operators.
fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    let flush = |out: &mut Vec<Tok>, word: &mut String, in_word: &mut bool| {
        if *in_word {
            out.push(Tok::Word(std::mem::take(word)));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => flush(&mut out, &mut word, &mut in_word),
            '#' if !in_word => break,
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            word.push(chars.next().unwrap())
                        }
                        '$' => word.push_str(&variable(&mut chars)),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            '$' => {
                in_word = true;
                word.push_str(&variable(&mut chars));
            }
            ';' => {
                flush(&mut out, &mut word, &mut in_word);
                out.push(Tok::Sep);
            }
            '|' | '&' => {
                // `2>&1`: the `&` belongs to the redirection
                if c == '&' && matches!(out.last(), Some(Tok::Redirect)) && !in_word {
                    continue;
                }
                if c == '&' && chars.peek() == Some(&'>') {
                    flush(&mut out, &mut word, &mut in_word);
                    chars.next();
                    out.push(Tok::Redirect);
                    continue;
                }
                flush(&mut out, &mut word, &mut in_word);
                if chars.peek() == Some(&c) {
                    chars.next();
                }
                out.push(Tok::Sep);
            }
            '>' | '<' => {
                // a file descriptor number before it is part of it
                if in_word && word.chars().all(|d| d.is_ascii_digit()) {
                    word.clear();
                    in_word = false;
                }
                flush(&mut out, &mut word, &mut in_word);
                if chars.peek() == Some(&'>') {
                    chars.next();
                }
                out.push(Tok::Redirect);
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    flush(&mut out, &mut word, &mut in_word);
    // `2>&1` left `1` as the redirection's target; drop the target words
    let mut kept = Vec::new();
    let mut skip = false;
    for t in out {
        match t {
            Tok::Redirect => skip = true,
            Tok::Word(_) if skip => skip = false,
            t => {
                skip = false;
                kept.push(t)
            }
        }
    }
    kept
}

/// After a `$`: `NAME` or `{NAME}` read from `chars`, given back as the
/// placeholder `NAME`; a lone `$` stays itself.
fn variable(chars: &mut std::iter::Peekable<std::str::Chars>) -> String {
    let mut name = String::new();
    if chars.peek() == Some(&'{') {
        chars.next();
        for c in chars.by_ref() {
            if c == '}' {
                break;
            }
            name.push(c);
        }
        return name;
    }
    while let Some(&c) = chars.peek() {
        if c.is_ascii_alphanumeric() || c == '_' {
            name.push(c);
            chars.next();
        } else {
            break;
        }
    }
    if name.is_empty() {
        "$".into()
    } else {
        name
    }
}

/// The simple commands of one logical line.
fn commands_of_line(line: usize, text: &str) -> Vec<DocCommand> {
    let mut out = Vec::new();
    let mut words = Vec::new();
    for t in tokens(text).into_iter().chain([Tok::Sep]) {
        match t {
            Tok::Word(w) => words.push(w),
            _ => {
                if !words.is_empty() {
                    out.extend(command_of_words(line, std::mem::take(&mut words)));
                }
            }
        }
    }
    out
}

/// One simple command (and, for `arbor vm … -- CMD`, the guest's).
fn command_of_words(line: usize, words: Vec<String>) -> Vec<DocCommand> {
    let mut rest = words.as_slice();
    loop {
        let Some(first) = rest.first() else {
            return Vec::new();
        };
        let is_assignment = first.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if is_assignment || ["env", "time", "exec", "nohup"].contains(&first.as_str()) {
            rest = &rest[1..];
        } else if first == "sudo" {
            rest = &rest[1..];
            // sudo's own options, and the ones that take a value
            while let Some(o) = rest.first().filter(|o| o.starts_with('-')) {
                let takes_value = ["-u", "-g", "-C", "-D", "-h", "-p", "-U"].contains(&o.as_str());
                rest = &rest[if takes_value { 2 } else { 1 }.min(rest.len())..];
            }
        } else {
            break;
        }
    }
    let program = program_name(&rest[0]);
    let args = rest[1..].to_vec();
    let mut out = vec![DocCommand {
        line,
        program: program.clone(),
        args: args.clone(),
    }];
    if program == "arbor" && args.first().map(String::as_str) == Some("vm") {
        if let Some(dd) = args.iter().position(|a| a == "--") {
            let guest = &args[dd + 1..];
            match guest {
                [] => {}
                [shell_line] => out.extend(commands_of_line(line, shell_line)),
                words => out.extend(command_of_words(line, words.to_vec())),
            }
        }
    }
    out
}

/// `./target/release/arbor` and `target/release/arbor` are `arbor`; any
/// other program keeps its name as written.
fn program_name(word: &str) -> String {
    let w = word.strip_prefix("./").unwrap_or(word);
    if w.starts_with("target/") || w.contains("/target/") {
        w.rsplit('/').next().unwrap_or(w).to_string()
    } else {
        word.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmds(md: &str) -> Vec<(usize, String)> {
        doc_commands(md)
            .into_iter()
            .map(|c| (c.line, c.display()))
            .collect()
    }

    #[test]
    fn shell_blocks_only_with_continuations_and_comments() {
        let md = "text `arbor x`\n```sh\narbor sim -t power11 \\\n    -w hackbench   # a comment\n# only a comment\n```\n```\narbor not-shell\n```\n```json\n{\"arbor\": 1}\n```\n";
        assert_eq!(
            cmds(md),
            vec![(3, "arbor sim -t power11 -w hackbench".into())]
        );
    }

    #[test]
    fn prefixes_separators_and_variables() {
        let md = "```sh\nsudo -E ./target/release/scx_arbor --stats 1 & FOO=1 target/release/arbor sim --out \"$DIR/x\" ${OUT}; wait\nperf sched record -- ./prog 2>&1 | tee log > out.txt && sudo -u nobody scx_arbor --monitor 2\n```\n";
        assert_eq!(
            cmds(md),
            vec![
                (2, "scx_arbor --stats 1".into()),
                (2, "arbor sim --out DIR/x OUT".into()),
                (2, "wait".into()),
                (3, "perf sched record -- ./prog".into()),
                (3, "tee log".into()),
                (3, "scx_arbor --monitor 2".into()),
            ]
        );
    }

    #[test]
    fn the_guest_command_of_arbor_vm_is_listed_too() {
        let md = "```sh\narbor vm -t 1s2c2t -- ./target/release/scx_arbor -v --run-secs 5\narbor vm -- 'cd /tmp && sudo scx_arbor -p stock'\n```\n";
        assert_eq!(
            cmds(md),
            vec![
                (
                    2,
                    "arbor vm -t 1s2c2t -- ./target/release/scx_arbor -v --run-secs 5".into()
                ),
                (2, "scx_arbor -v --run-secs 5".into()),
                (3, "arbor vm -- cd /tmp && sudo scx_arbor -p stock".into()),
                (3, "cd /tmp".into()),
                (3, "scx_arbor -p stock".into()),
            ]
        );
    }

    #[test]
    fn inline_spans_that_start_with_a_program() {
        let md = "| 003 | `STEAL` | `arbor sim reproduce steal --quick` | `-w trace:F` |\n- [`./target/release/arbor sim calibrate`](x): `arbor` alone, `arbor vm: timeout`\n```sh\narbor sim --list\n```\n";
        let c: Vec<(usize, String)> = inline_commands(md, &["arbor"])
            .into_iter()
            .map(|c| (c.line, c.display()))
            .collect();
        assert_eq!(
            c,
            vec![
                (1, "arbor sim reproduce steal --quick".into()),
                (2, "arbor sim calibrate".into())
            ]
        );
    }

    #[test]
    fn console_prompts_and_quotes() {
        let md = "```console\n$ arbor sim -w 'rt-app:a b.json' -s \"arbor:stock\" x\\ y\nsome output\n```\n";
        let c = doc_commands(md);
        assert_eq!(c.len(), 1);
        assert_eq!(
            c[0].args,
            ["sim", "-w", "rt-app:a b.json", "-s", "arbor:stock", "x y"]
        );
    }
}

/// The pages whose shell blocks a reader copies commands from, relative
/// to the repository's root.
pub const DOC_PAGES: &[&str] = &[
    "README.md",
    "docs/seeds.md",
    "docs/guide/scheduler.md",
    "docs/guide/vm.md",
    "docs/guide/bench.md",
    "docs/guide/sim.md",
    "docs/guide/cluster.md",
    "docs/guide/checking.md",
    "docs/guide/testing.md",
];

/// Each of [`DOC_PAGES`] under `root`, as (path, text).
pub fn read_doc_pages(root: &std::path::Path) -> Vec<(String, String)> {
    DOC_PAGES
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(root.join(p))
                .unwrap_or_else(|e| panic!("{}: {e}", root.join(p).display()));
            (p.to_string(), text)
        })
        .collect()
}

/// Why the program `bin` would refuse `c`, if it would: it runs with
/// `--help` inserted after the arguments (before a `--` and a guest's
/// command), so that clap checks every argument, subcommands included,
/// and then prints the help instead of running anything. The message is
/// the first line of its stderr.
pub fn help_error(bin: &std::path::Path, c: &DocCommand) -> Option<String> {
    let mut args = c.args.clone();
    let at = args.iter().position(|a| a == "--").unwrap_or(args.len());
    args.insert(at, "--help".into());
    let out = std::process::Command::new(bin)
        .args(&args)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", bin.display()));
    if out.status.success() {
        return None;
    }
    let err = String::from_utf8_lossy(&out.stderr);
    Some(err.lines().next().unwrap_or("(no message)").to_string())
}

/// Each `program` command of `md` (its shell blocks, and in README.md the
/// inline code that starts with `program`, as the seeds table's commands)
/// that `error` refuses, as `FILE:LINE: COMMAND: WHY`. The guide's inline
/// code quotes synopses and messages, so only README.md's is read.
pub fn command_errors(
    file: &str,
    md: &str,
    program: &str,
    error: impl Fn(&DocCommand) -> Option<String>,
) -> Vec<String> {
    let inline = if file == "README.md" {
        inline_commands(md, &[program])
    } else {
        Vec::new()
    };
    doc_commands(md)
        .into_iter()
        .chain(inline)
        .filter(|c| c.program == program)
        .filter_map(|c| error(&c).map(|e| format!("{file}:{}: `{}`: {e}", c.line, c.display())))
        .collect()
}

/// For the documentation tests: `good`, a command in a shell block, gives
/// no error, and each `(bad, why)` gives exactly one, at the block's line,
/// naming `program`'s command and containing `why` (what the parser
/// refused). `errors` is the test's `command_errors(file, markdown)`.
pub fn assert_bad_commands_caught(
    program: &str,
    good: &str,
    bad: &[(&str, &str)],
    errors: impl Fn(&str, &str) -> Vec<String>,
) {
    let block = |cmd: &str| format!("```sh\n{cmd}\n```\n");
    assert_eq!(errors("t.md", &block(good)), Vec::<String>::new(), "{good}");
    for (cmd, why) in bad {
        let errs = errors("t.md", &block(cmd));
        assert_eq!(errs.len(), 1, "{cmd}: {errs:?}");
        assert!(
            errs[0].starts_with(&format!("t.md:2: `{program}")),
            "{}",
            errs[0]
        );
        assert!(errs[0].contains(why), "{cmd}: {}", errs[0]);
    }
}
