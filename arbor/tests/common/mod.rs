//! What arbor's integration tests share.

use std::process::Command;

/// Runs `cmd` to its end: its exit code (-1 when a signal ended it),
/// stdout and stderr.
pub fn output(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("run arbor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
