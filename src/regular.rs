//! Reading the store's own files (stat and tree caches, snapshot documents, objects) so that
//! one replaced by a FIFO, socket or device is an error, not a read that waits forever.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Opens `path` for reading (following a symbolic link, as `open` does) without blocking: a
/// FIFO is opened with `O_NONBLOCK` and then refused.
///
/// # Errors
/// The open error; `EISDIR` for a directory (as reading one gives); `InvalidData` ("not a
/// regular file") for a FIFO, socket or device.
pub fn open(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    let md = file.metadata()?;
    if md.is_dir() {
        return Err(std::io::Error::from_raw_os_error(libc::EISDIR));
    }
    if !md.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// The whole content of the regular file at `path` ([`open`], then read to its end).
///
/// # Errors
/// As [`open`], plus read errors.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut file = open(path)?;
    let mut out = Vec::with_capacity(file.metadata().map_or(0, |m| m.len() as usize));
    file.read_to_end(&mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_fifo_or_a_directory_is_refused_at_once() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("f");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = super::read(&fifo).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file");
        let e = super::read(d.path()).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EISDIR));
        std::fs::write(d.path().join("r"), b"abc").unwrap();
        assert_eq!(super::read(&d.path().join("r")).unwrap(), b"abc");
    }
}
