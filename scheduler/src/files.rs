//! Files written by the daemon, which runs as root: `--stats-json`.
//!
//! A plain `fs::write(PATH.tmp)` then `rename` lets any local user who can
//! create names in the destination's directory (e.g. `/tmp`) plant
//! `PATH.tmp` as a symlink and have root overwrite a file of their choice.
//! So the temporary file gets a random name and is created with
//! `O_CREAT | O_EXCL | O_NOFOLLOW` (never an existing file, never through a
//! link), and a directory other users can write is refused unless it is
//! sticky (then they cannot rename or delete our file, and cannot guess
//! its name ahead of us: a planted name only makes `O_EXCL` fail).

use std::fs;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The directory a file `path` is created in.
fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Checks that `path`'s directory exists and that no other user can swap
/// files in it: one that others can write must be sticky (like /tmp).
pub fn check_dest(path: &Path) -> Result<()> {
    if path.is_dir() {
        bail!(
            "{} is a directory: give the name of the JSON file to write",
            path.display()
        );
    }
    let dir = dir_of(path);
    let md = fs::metadata(&dir).map_err(|e| {
        anyhow::anyhow!(
            "{}: the directory {} {}",
            path.display(),
            dir.display(),
            if e.kind() == std::io::ErrorKind::NotFound {
                "does not exist".to_string()
            } else {
                format!("cannot be read ({e})")
            }
        )
    })?;
    if !md.is_dir() {
        bail!("{}: {} is not a directory", path.display(), dir.display());
    }
    let euid = unsafe { libc::geteuid() };
    let mode = md.mode();
    let sticky = mode & 0o1000 != 0;
    let others_write = mode & 0o002 != 0 || (mode & 0o020 != 0 && md.gid() != 0);
    if md.uid() != euid && md.uid() != 0 {
        bail!(
            "{}: the directory {} belongs to another user (uid {}), who could swap the file; choose a directory of root's",
            path.display(),
            dir.display(),
            md.uid()
        );
    }
    if others_write && !sticky {
        bail!(
            "{}: the directory {} is writable by other users and not sticky (mode {:o}); choose a private directory",
            path.display(),
            dir.display(),
            mode & 0o7777
        );
    }
    Ok(())
}

/// 64 random bits for a temporary name.
fn random_u64() -> u64 {
    let mut v = 0u64;
    // SAFETY: writes at most 8 bytes into v
    let n = unsafe { libc::getrandom(&mut v as *mut u64 as *mut libc::c_void, 8, 0) };
    if n != 8 {
        // no entropy source: the name is still unpredictable enough with
        // the time and pid, and O_EXCL makes a guessed one fail, not leak
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        v = t ^ ((std::process::id() as u64) << 32);
    }
    v
}

/// Writes `data` to `path` atomically (a reader never sees half a file) and
/// without following or reusing anything another user planted.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<()> {
    check_dest(path)?;
    let dir = dir_of(path);
    let name = path
        .file_name()
        .with_context(|| format!("{}: not a file name", path.display()))?
        .to_string_lossy()
        .into_owned();
    let mut tries = 0;
    let (tmp, mut f) = loop {
        let tmp = dir.join(format!(".{name}.{:016x}.tmp", random_u64()));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true) // O_CREAT | O_EXCL
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .mode(0o644)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 8 => tries += 1,
            Err(e) => return Err(e).with_context(|| format!("creating {}", tmp.display())),
        }
    };
    let res = f
        .write_all(data)
        .and_then(|_| f.sync_all())
        .with_context(|| format!("writing {}", tmp.display()))
        // rename replaces a link at `path` itself, never its target
        .and_then(|_| {
            fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
        });
    if res.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A fresh private directory under the system's temp dir.
    fn tempdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "arbor-files-{tag}-{}-{:x}",
            std::process::id(),
            random_u64()
        ));
        fs::create_dir(&d).unwrap();
        fs::set_permissions(&d, fs::Permissions::from_mode(0o700)).unwrap();
        d
    }

    #[test]
    fn a_planted_tmp_symlink_is_not_followed() {
        let d = tempdir("link");
        let victim = d.join("victim");
        fs::write(&victim, "precious\n").unwrap();
        // what the old code wrote through: PATH.json.tmp, and any other
        // name an attacker might guess
        std::os::unix::fs::symlink(&victim, d.join("c.json.tmp")).unwrap();
        std::os::unix::fs::symlink(&victim, d.join(".c.json.tmp")).unwrap();
        write_atomic(&d.join("c.json"), b"{}\n").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
        assert_eq!(fs::read_to_string(d.join("c.json")).unwrap(), "{}\n");
        // the destination itself a link: replaced, its target untouched
        std::os::unix::fs::symlink(&victim, d.join("d.json")).unwrap();
        write_atomic(&d.join("d.json"), b"{}\n").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
        assert!(!fs::symlink_metadata(d.join("d.json"))
            .unwrap()
            .file_type()
            .is_symlink());
        // no temporary left behind
        let left: Vec<_> = fs::read_dir(&d)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .filter(|e| {
                !fs::symlink_metadata(e.path())
                    .unwrap()
                    .file_type()
                    .is_symlink()
            })
            .collect();
        assert!(left.is_empty(), "{left:?}");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_directory_others_can_write_is_refused_unless_sticky() {
        let d = tempdir("perm");
        fs::set_permissions(&d, fs::Permissions::from_mode(0o777)).unwrap();
        let e = write_atomic(&d.join("c.json"), b"{}\n").unwrap_err();
        let msg = format!("{e:#}");
        assert!(msg.contains("writable by other users"), "{msg}");
        assert!(!d.join("c.json").exists());
        assert!(check_dest(&d.join("c.json")).is_err());
        // sticky, like /tmp: allowed
        fs::set_permissions(&d, fs::Permissions::from_mode(0o1777)).unwrap();
        write_atomic(&d.join("c.json"), b"{}\n").unwrap();
        assert_eq!(fs::read_to_string(d.join("c.json")).unwrap(), "{}\n");
        // a missing directory: one line naming it
        let e = check_dest(&d.join("nope/c.json")).unwrap_err();
        assert!(format!("{e:#}").contains("does not exist"));
        fs::remove_dir_all(&d).unwrap();
    }
}
