//! Command-line parsing with one-line errors, for scx_arbor and arbor alike.

use clap::error::ErrorKind;
use clap::Parser;

/// The first line of a clap error, without its "error: " prefix.
pub fn one_line(e: &clap::Error) -> String {
    // the first paragraph: "error: ... were not provided:" continues with
    // the missing names on the lines below it
    let text = e.to_string();
    let para: Vec<&str> = text
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    para.join(" ")
        .trim_start_matches("error: ")
        .trim()
        .to_string()
}

/// Parses the command line; help and version print as clap prints them, and
/// any error is one line, `PROG: error: ... (see --help)`, with exit 2.
pub fn parse_args<T: Parser>(prog: &str) -> T {
    match T::try_parse() {
        Ok(t) => t,
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
            _ => {
                eprintln!("{prog}: error: {} (see --help)", one_line(&e));
                std::process::exit(2);
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Parser, Debug)]
    struct T {
        #[arg(long)]
        n: u32,
    }

    #[test]
    fn clap_errors_become_one_line() {
        for args in [
            &["t", "--n", "x"][..],
            &["t"],
            &["t", "--n", "1", "--bogus"],
        ] {
            let e = T::try_parse_from(args).unwrap_err();
            let l = one_line(&e);
            assert!(
                !l.is_empty() && !l.contains('\n') && !l.starts_with("error:"),
                "{l}"
            );
        }
        let e = T::try_parse_from(["t", "--n", "x"]).unwrap_err();
        assert!(one_line(&e).contains("'x'"), "{}", one_line(&e));
        // a missing argument is named on the same line
        let e = T::try_parse_from(["t"]).unwrap_err();
        assert!(one_line(&e).contains("--n"), "{}", one_line(&e));
    }
}
