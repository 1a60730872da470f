//! The permission bits of the files Genesis writes (DESIGN section 10).
//!
//! Rule: a file that already exists keeps its permission bits; only the executable bit the
//! session records changes (set: an `x` is added wherever the file has an `r`, and always for
//! the owner; cleared: every `x` is removed). A new file gets the default of the process umask
//! (`0666 & !umask`, or `0777 & !umask` when executable), as `git checkout` gives it. Set-id
//! and sticky bits are never carried over. Nothing Genesis writes is readable by more users
//! than the file it replaces.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::OnceLock;

/// The process umask (permission bits, e.g. `0o022`), read from `/proc/self/status` without
/// changing it; `0o022` where that file does not say.
pub fn umask() -> u32 {
    static UMASK: OnceLock<u32> = OnceLock::new();
    *UMASK.get_or_init(|| {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Umask:"))
                    .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
            })
            .unwrap_or(0o022)
    })
}

/// Mode bits for a new file: `0666 & !umask`, or `0777 & !umask` when `executable`.
pub fn for_new_file(executable: bool) -> u32 {
    let base = if executable { 0o777 } else { 0o666 };
    let m = base & !umask();
    if executable { m | 0o100 } else { m }
}

/// Mode bits for a file that had `mode` and now gets the executable bit `executable`.
pub fn for_existing(mode: u32, executable: bool) -> u32 {
    let m = mode & 0o777;
    if executable {
        m | ((m & 0o444) >> 2) | 0o100
    } else {
        m & !0o111
    }
}

/// Mode bits for writing `executable` content at `path`: [`for_existing`] of the regular file
/// there (never followed through a link), else [`for_new_file`].
pub fn for_path(path: &Path, executable: bool) -> u32 {
    match std::fs::symlink_metadata(path) {
        Ok(md) if md.is_file() => for_existing(md.permissions().mode(), executable),
        _ => for_new_file(executable),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn existing_bits_are_kept() {
        assert_eq!(for_existing(0o600, false), 0o600);
        assert_eq!(for_existing(0o600, true), 0o700);
        assert_eq!(for_existing(0o640, true), 0o750);
        assert_eq!(for_existing(0o755, false), 0o644);
        assert_eq!(for_existing(0o4755, true), 0o755);
        assert_eq!(for_existing(0o000, true), 0o100);
        assert_eq!(for_existing(0o700, true), 0o700);
    }
}
