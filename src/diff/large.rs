//! Large files in a diff (issue 11): a change with a side over [`LARGE_FILE_BYTES`] is shown
//! as binary (as git does past `core.bigFileThreshold`), with no hunks and `Bin` in `--stat`,
//! and its `literal` blocks are written streaming: each side is read in [`CHUNK`]-byte pieces
//! (a stored blob is first decoded into an unnamed temp file, [`Store::copy_object_to`]),
//! deflated and base85-encoded on the way, so memory stays bounded at any file size. A
//! directory file is checked against its blob on every pass ([`DiffError::Changed`]).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use sha1::Digest as _;

use super::{BASE85, Change, Colors, DiffError, Side, Source, Tree};
use crate::hash::Hasher;
use crate::store::Store;

/// Files over this many bytes (16 MiB) are diffed as binary, streaming: no line diff is
/// computed from them.
pub const LARGE_FILE_BYTES: u64 = 16 << 20;

/// Bytes read at a time from a large file.
const CHUNK: usize = 1 << 20;

/// Whether either side of `ch` is over [`LARGE_FILE_BYTES`].
pub(super) fn is_large(ch: &Change) -> bool {
    [&ch.old, &ch.new]
        .into_iter()
        .flatten()
        .any(|s| s.file.bytes > LARGE_FILE_BYTES)
}

/// One side's bytes, opened for reading twice (git blob id, then the literal).
struct Opened {
    file: File,
    /// The directory file, checked against the blob on each pass; `None` for a store copy
    /// (checked while it was decoded).
    checked: Option<(std::path::PathBuf, crate::hash::Digest)>,
}

impl Opened {
    fn open(tree: &Tree, side: &Side) -> Result<Opened, DiffError> {
        match &tree.source {
            Source::None => Err(DiffError::NoContent(side.file.path.to_string())),
            Source::Store(store) => Ok(Opened {
                file: store_copy(store, &side.file.blob)?,
                checked: None,
            }),
            Source::Dir(root) => {
                let p = side.file.path.to_fs_path(root);
                let file =
                    crate::snapshot::open_regular(&p).map_err(|_| DiffError::Changed(p.clone()))?;
                Ok(Opened {
                    file,
                    checked: Some((p, side.file.blob)),
                })
            }
        }
    }

    /// Reads the whole side from its start, passing each chunk to `each`; checks a directory
    /// file against its blob at the end.
    fn pass(&mut self, each: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> Result<u64, DiffError> {
        self.file.seek(SeekFrom::Start(0))?;
        let mut hasher = Hasher::new();
        let mut buf = vec![0u8; CHUNK];
        loop {
            let n = match self.file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.read_error(e)),
            };
            if self.checked.is_some() {
                hasher.update(&buf[..n]);
            }
            each(&buf[..n])?;
        }
        let len = hasher.len();
        if let Some((p, blob)) = &self.checked
            && hasher.finish() != *blob
        {
            return Err(DiffError::Changed(p.clone()));
        }
        Ok(len)
    }

    fn read_error(&self, e: io::Error) -> DiffError {
        match &self.checked {
            Some((p, _)) => DiffError::Changed(p.clone()),
            None => DiffError::Output(e),
        }
    }
}

/// The stored blob `blob` decoded (and checked) into an unnamed temp file.
fn store_copy(store: &Store, blob: &crate::hash::Digest) -> Result<File, DiffError> {
    let mut f = tempfile::tempfile()?;
    store.copy_object_to(blob, &mut f)?;
    Ok(f)
}

/// Writes the `index` line and `GIT binary patch` block of the large change `ch` from `a` to
/// `b` (the `diff --git` and mode lines are written already), reading each side twice.
pub(super) fn write_large(
    a: &Tree,
    b: &Tree,
    ch: &Change,
    c: &Colors,
    out: &mut dyn Write,
) -> Result<(), DiffError> {
    let mut old = ch.old.as_ref().map(|s| Opened::open(a, s)).transpose()?;
    let mut new = ch.new.as_ref().map(|s| Opened::open(b, s)).transpose()?;
    let oid = |o: &mut Option<Opened>, bytes: u64| -> Result<String, DiffError> {
        let Some(o) = o else {
            return Ok("0".repeat(40));
        };
        let mut h = sha1::Sha1::new();
        h.update(format!("blob {bytes}\0").as_bytes());
        o.pass(&mut |d| {
            h.update(d);
            Ok(())
        })?;
        Ok(hex::encode(h.finalize()))
    };
    let bytes = |s: &Option<Side>| s.as_ref().map_or(0, |s| s.file.bytes);
    let old_id = oid(&mut old, bytes(&ch.old))?;
    let new_id = oid(&mut new, bytes(&ch.new))?;
    let mode_suffix = match (&ch.old, &ch.new) {
        (Some(o), Some(n)) if o.executable == n.executable => format!(" {}", o.mode()),
        _ => String::new(),
    };
    writeln!(
        out,
        "{}index {old_id}..{new_id}{mode_suffix}{}",
        c.meta, c.reset
    )?;
    writeln!(out, "GIT binary patch")?;
    for (side, len) in [(&mut new, bytes(&ch.new)), (&mut old, bytes(&ch.old))] {
        writeln!(out, "literal {len}")?;
        let mut enc = flate2::write::ZlibEncoder::new(
            Base85Lines::new(&mut *out),
            flate2::Compression::default(),
        );
        if let Some(o) = side {
            o.pass(&mut |d| enc.write_all(d))?;
        }
        enc.finish()?.finish()?;
        writeln!(out)?;
    }
    Ok(())
}

/// Writes a git binary `literal` block of `data`: the zlib-compressed data, base85-encoded in
/// lines of up to 52 input bytes, each prefixed by its length (`A`–`Z` = 1–26, `a`–`z` =
/// 27–52).
pub(super) fn write_literal(out: &mut dyn Write, data: &[u8]) -> io::Result<()> {
    writeln!(out, "literal {}", data.len())?;
    let mut enc =
        flate2::write::ZlibEncoder::new(Base85Lines::new(out), flate2::Compression::default());
    enc.write_all(data)?;
    enc.finish()?.finish()
}

/// A writer that base85-encodes what it is given into `literal` lines of 52 input bytes.
struct Base85Lines<'w> {
    out: &'w mut dyn Write,
    pending: Vec<u8>,
}

impl<'w> Base85Lines<'w> {
    fn new(out: &'w mut dyn Write) -> Self {
        Base85Lines {
            out,
            pending: Vec::with_capacity(52),
        }
    }

    /// Writes the last, shorter line, if any.
    fn finish(mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            let chunk = std::mem::take(&mut self.pending);
            line(self.out, &chunk)?;
        }
        Ok(())
    }
}

impl Write for Base85Lines<'_> {
    fn write(&mut self, mut data: &[u8]) -> io::Result<usize> {
        let n = data.len();
        while !data.is_empty() {
            let take = (52 - self.pending.len()).min(data.len());
            self.pending.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.pending.len() == 52 {
                line(self.out, &self.pending)?;
                self.pending.clear();
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// One `literal` line: the length character, `chunk` (1 to 52 bytes) in base85, a newline.
fn line(out: &mut dyn Write, chunk: &[u8]) -> io::Result<()> {
    let n = chunk.len();
    let len_char = if n <= 26 {
        b'A' + n as u8 - 1
    } else {
        b'a' + n as u8 - 27
    };
    let mut text = Vec::with_capacity(1 + 65 + 1);
    text.push(len_char);
    for group in chunk.chunks(4) {
        let mut acc: u32 = 0;
        for k in 0..4 {
            acc = (acc << 8) | u32::from(*group.get(k).unwrap_or(&0));
        }
        let mut enc5 = [0u8; 5];
        for slot in enc5.iter_mut().rev() {
            *slot = BASE85[(acc % 85) as usize];
            acc /= 85;
        }
        text.extend_from_slice(&enc5);
    }
    text.push(b'\n');
    out.write_all(&text)
}

/// A patch text held in memory up to `limit` bytes: a write that would pass the limit fails
/// (and sets [`BoundedText::over`]), so a patch writer stops there and memory stays bounded
/// by the limit (`patch --from`, issue 11).
#[derive(Debug)]
pub struct BoundedText {
    /// The text written so far (at most `limit` bytes).
    pub text: Vec<u8>,
    limit: usize,
    /// Whether a write was refused for passing the limit.
    pub over: bool,
}

impl BoundedText {
    /// An empty text that may grow to `limit` bytes.
    pub fn new(limit: usize) -> Self {
        BoundedText {
            text: Vec::new(),
            limit,
            over: false,
        }
    }
}

impl Write for BoundedText {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.text.len().saturating_add(data.len()) > self.limit {
            self.over = true;
            return Err(io::Error::other(format!(
                "the text passes {} bytes",
                self.limit
            )));
        }
        self.text.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
