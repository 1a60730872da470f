//! How an object file holds its bytes (DESIGN section 3, "Object files").
//!
//! An object written by this version is one zstd frame (RFC 8878) of the object's raw bytes,
//! compressed at [`LEVEL`]; its name stays the SHA-256 of the **raw** bytes. Stores written by
//! Genesis before store format 2 hold raw objects, and a format-2 store may hold both. A reader
//! tells them apart so:
//!
//! 1. a file that does not start with the zstd magic `28 B5 2F FD` is raw;
//! 2. a file that starts with it is decompressed and the result hashed; if that fails (not a
//!    valid frame, trailing bytes) or the hash is not the name, the file is hashed as raw bytes
//!    (an old raw object that happens to begin with the magic, such as a stored `.zst` file);
//! 3. if neither hash is the name, the object is corrupt.
//!
//! Tree objects (v0.2 nodes, v0.1 canonical snapshots) are written by this version in the
//! packed encoding of [`super::packed`] instead: a file that starts with its magic
//! `89 47 4E 50` is decoded into the canonical bytes it stands for and those are hashed; if it
//! does not decode or the hash is not the name, the file is hashed as raw bytes (an old raw
//! object that starts alike), as in rule 2. Packed objects are read whole (their size is that
//! of a node, built in memory when written).
//!
//! Rule 2 cannot mistake one for the other: a raw object `R` named `SHA-256(R)` that also
//! decompressed to `D != R` with `SHA-256(D) = SHA-256(R)` would be a SHA-256 collision.
//!
//! Memory is bounded: a file up to [`WHOLE_LIMIT`] bytes is read whole and compressed in one
//! call with a per-thread compression context (a context costs about a megabyte to set up, too
//! much to pay per small file); a larger one is streamed through buffers of [`BUF`] bytes, in
//! and out, at any size. Reading back is the same: an object file up to [`WHOLE_LIMIT`] bytes
//! whose frame records a content size up to that is read and decompressed whole with a
//! per-thread decompression context; anything else is streamed.

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

use crate::hash::{Digest, Hasher};

/// The first four bytes of a zstd frame (RFC 8878 section 3.1.1, `0xFD2FB528` little-endian).
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// The zstd level objects are compressed at. Level 1 and 3 were measured on the svelte tree
/// (9,080 files) and the crate sources of the registry: see BENCHMARKS.md, "Store size".
pub const LEVEL: i32 = 3;

/// The zstd level of a packed v0.1 snapshot's body ([`super::packed`]): mostly 32-byte
/// digests, which do not compress, and paths. That of 4,096 files is 250 KB; level 3 makes
/// 168 KB of it in about 2 ms, level 1 172 KB in about 0.4 ms, on the path of every v0.1
/// snapshot new to the store. (Nodes stay at [`LEVEL`]: they are small and built in parallel.)
pub const PACKED_LEVEL: i32 = 1;

/// Files of at most this many bytes are read whole and compressed in one call; larger ones are
/// streamed (bytes).
pub const WHOLE_LIMIT: u64 = 4 << 20;

/// The buffer size of streamed reads, writes and (de)compression steps (bytes).
pub const BUF: usize = 256 * 1024;

/// Packed objects ([`super::packed`]) of at most this many bytes are decoded (read whole); a
/// larger file that starts with the packed magic can only be an old raw object and is
/// streamed as one. No node comes near it (a directory of a million files packs to about
/// 50 MB).
pub const PACKED_LIMIT: u64 = 256 << 20;

/// Buffer sizes of the codec; tests pass small ones to drive the streaming path.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest file compressed in one call (bytes).
    pub whole: u64,
    /// Read and write buffer (bytes).
    pub buf: usize,
}

impl Limits {
    /// The limits Genesis runs with: [`WHOLE_LIMIT`] and [`BUF`].
    pub const DEFAULT: Limits = Limits {
        whole: WHOLE_LIMIT,
        buf: BUF,
    };
}

/// Which side of a copy failed.
#[derive(Debug)]
pub enum Fault {
    /// Reading the input failed.
    Read(std::io::Error),
    /// Writing the output (or compressing into it) failed.
    Write(std::io::Error),
}

thread_local! {
    static COMPRESSOR: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
    static PACKED_COMPRESSOR: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
    /// The decompression context and output buffer of [`copy_frame`], made once per thread
    /// (a context costs an allocation and its initialisation, per object otherwise).
    static DECODER: RefCell<(Option<zstd::zstd_safe::DCtx<'static>>, Vec<u8>)> =
        const { RefCell::new((None, Vec::new())) };
}

/// Compresses `data` into one zstd frame at [`LEVEL`], with a per-thread context.
///
/// # Errors
/// zstd's error as `std::io::Error` (out of memory).
pub fn compress(data: &[u8]) -> std::io::Result<Vec<u8>> {
    compress_with(&COMPRESSOR, LEVEL, data)
}

/// [`compress`] at [`PACKED_LEVEL`], for the body of a packed object.
///
/// # Errors
/// As [`compress`].
pub fn compress_packed(data: &[u8]) -> std::io::Result<Vec<u8>> {
    compress_with(&PACKED_COMPRESSOR, PACKED_LEVEL, data)
}

fn compress_with(
    key: &'static std::thread::LocalKey<RefCell<Option<zstd::bulk::Compressor<'static>>>>,
    level: i32,
    data: &[u8],
) -> std::io::Result<Vec<u8>> {
    key.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            *c = Some(zstd::bulk::Compressor::new(level)?);
        }
        c.as_mut().expect("set above").compress(data)
    })
}

fn read_retry(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match input.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

/// Reads `input` to its end once, hashing the raw bytes and writing them compressed to `out`
/// (one zstd frame). Returns the raw bytes' digest and length. At most `limits.whole` bytes (or
/// `limits.buf`, whichever is larger) are held in memory, at any input size.
///
/// # Errors
/// [`Fault::Read`] from `input`, [`Fault::Write`] from `out` or the compressor.
pub fn encode(
    input: &mut impl Read,
    out: &mut impl Write,
    limits: Limits,
) -> Result<(Digest, u64), Fault> {
    let mut hasher = Hasher::new();
    // First up to `whole + 1` bytes: a file that ends within them is compressed in one call.
    let mut head = Vec::new();
    (&mut *input)
        .take(limits.whole + 1)
        .read_to_end(&mut head)
        .map_err(Fault::Read)?;
    hasher.update(&head);
    if head.len() as u64 <= limits.whole {
        let frame = compress(&head).map_err(Fault::Write)?;
        out.write_all(&frame).map_err(Fault::Write)?;
        let len = hasher.len();
        return Ok((hasher.finish(), len));
    }
    let mut enc = zstd::stream::write::Encoder::new(out, LEVEL).map_err(Fault::Write)?;
    enc.write_all(&head).map_err(Fault::Write)?;
    drop(head);
    let mut buf = vec![0u8; limits.buf.max(1)];
    loop {
        let n = read_retry(input, &mut buf).map_err(Fault::Read)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        enc.write_all(&buf[..n]).map_err(Fault::Write)?;
    }
    enc.finish().map_err(Fault::Write)?;
    let len = hasher.len();
    Ok((hasher.finish(), len))
}

/// What [`decode_into`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Decoded {
    /// The content hashes to the name: `len` raw bytes were written to `out`.
    Ok(u64),
    /// Neither reading of the file hashes to the name; `actual` is what the file's bytes
    /// decode to (or, when they do not decode, what they hash to raw).
    Corrupt(Digest),
}

/// Streams the object file `file` into `out` (from `out`'s current position), decoding it by
/// the rules of this module and checking its content against `expected`. When a file that
/// starts with the zstd magic turns out to be raw, `out` is truncated back to where it started
/// and the raw bytes are written instead. On [`Decoded::Corrupt`] what was written must be
/// discarded by the caller.
///
/// # Errors
/// [`Fault::Read`] from `file`, [`Fault::Write`] from `out`.
pub fn decode_into(
    file: &mut File,
    expected: &Digest,
    out: &mut File,
    limits: Limits,
) -> Result<Decoded, Fault> {
    if let Some(n) = decode_whole(file, expected, out, limits)? {
        return Ok(Decoded::Ok(n));
    }
    let start = out.stream_position().map_err(Fault::Write)?;
    let head = head(file)?;
    let small = file.metadata().is_ok_and(|m| m.len() <= PACKED_LIMIT);
    if super::packed::is_packed(&head) && small {
        return decode_packed_into(file, expected, out);
    }
    if head != ZSTD_MAGIC {
        let d = copy_raw(file, out, limits)?;
        return Ok(check(d, expected));
    }
    let decoded = {
        let mut w = std::io::BufWriter::with_capacity(limits.buf.max(1), &mut *out);
        let d = copy_frame(file, &mut w, limits)?;
        w.flush().map_err(Fault::Write)?;
        d
    };
    if let Some((d, n)) = decoded
        && d == *expected
    {
        return Ok(Decoded::Ok(n));
    }
    // Not a frame of this content: an old raw object that starts with the magic?
    file.seek(SeekFrom::Start(0)).map_err(Fault::Read)?;
    out.set_len(start).map_err(Fault::Write)?;
    out.seek(SeekFrom::Start(start)).map_err(Fault::Write)?;
    let raw = copy_raw(file, out, limits)?;
    match (check(raw, expected), decoded) {
        (Decoded::Ok(n), _) => Ok(Decoded::Ok(n)),
        (_, Some((d, _))) => Ok(Decoded::Corrupt(d)),
        (corrupt, None) => Ok(corrupt),
    }
}

/// [`decode_into`] of a file that starts with the packed magic but was not decoded whole
/// (larger than the limit, or not hashing to `expected`): read whole and decoded by
/// [`decode_bytes`] (a packed object is as large as a node Genesis built in memory).
fn decode_packed_into(
    file: &mut File,
    expected: &Digest,
    out: &mut File,
) -> Result<Decoded, Fault> {
    let mut data = Vec::new();
    file.read_to_end(&mut data).map_err(Fault::Read)?;
    match decode_bytes(data, expected) {
        Ok(content) => {
            out.write_all(&content).map_err(Fault::Write)?;
            Ok(Decoded::Ok(content.len() as u64))
        }
        Err(actual) => Ok(Decoded::Corrupt(actual)),
    }
}

/// The one-read path of [`decode_into`], for an object file of at most `limits.whole` bytes
/// (nearly all of them): read whole, decompressed in one call with a per-thread context
/// ([`decompress_whole`]), hashed, and written to `out` in one `write` when it hashes to
/// `expected`. `None`, with nothing written and `file` back at offset 0, whenever anything
/// else is the case (larger, unreadable, not one frame that records its size, another hash):
/// the streaming path then decides, by the same rules.
fn decode_whole(
    file: &mut File,
    expected: &Digest,
    out: &mut File,
    limits: Limits,
) -> Result<Option<u64>, Fault> {
    let len = match file.metadata() {
        Ok(md) if md.len() <= limits.whole => usize::try_from(md.len()).unwrap_or(0),
        _ => return Ok(None),
    };
    // The `len` bytes `fstat` gave, in one `read` as a rule (no read of the end, no seek).
    let mut data = vec![0u8; len];
    let mut got = 0;
    let read = loop {
        if got == len {
            break Ok(());
        }
        match read_retry(file, &mut data[got..]) {
            Ok(0) => break Ok(()),
            Ok(n) => got += n,
            Err(e) => break Err(e),
        }
    };
    data.truncate(got);
    let content = match read {
        Ok(()) if data.starts_with(&ZSTD_MAGIC) => decompress_whole(&data, limits.whole),
        Ok(()) if super::packed::is_packed(&data) => super::packed::unpack(&data).ok(),
        Ok(()) => Some(data),
        Err(_) => None,
    };
    match content {
        Some(c) if Digest::of(&c) == *expected => {
            out.write_all(&c).map_err(Fault::Write)?;
            Ok(Some(c.len() as u64))
        }
        _ => {
            file.seek(SeekFrom::Start(0)).map_err(Fault::Read)?;
            Ok(None)
        }
    }
}

thread_local! {
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// Decompresses `frame` in one call with a per-thread context (a context costs over 100 KB
/// to set up, more than decoding a small object) when it starts with a zstd frame header
/// that records a content size of at most `max` bytes and the whole of `frame` decodes into
/// that many bytes. `None` otherwise (no size recorded, larger, invalid): the caller then
/// decodes by streaming, as before.
fn decompress_whole(frame: &[u8], max: u64) -> Option<Vec<u8>> {
    let size = zstd::zstd_safe::get_frame_content_size(frame).ok()??;
    if size > max {
        return None;
    }
    let size = usize::try_from(size).ok()?;
    DECOMPRESSOR.with(|d| {
        let mut d = d.try_borrow_mut().ok()?;
        if d.is_none() {
            *d = Some(zstd::bulk::Decompressor::new().ok()?);
        }
        d.as_mut()?.decompress(frame, size).ok()
    })
}

/// Decodes a whole object file held in memory (`data`) by the rules of this module. Returns
/// the raw content if it hashes to `expected`, else the digest found (as [`Decoded::Corrupt`]).
pub fn decode_bytes(data: Vec<u8>, expected: &Digest) -> Result<Vec<u8>, Digest> {
    let mut decoded_digest = None;
    if super::packed::is_packed(&data)
        && let Ok(content) = super::packed::unpack(&data)
    {
        let d = Digest::of(&content);
        if d == *expected {
            return Ok(content);
        }
        decoded_digest = Some(d);
    }
    if data.starts_with(&ZSTD_MAGIC)
        && let Some(content) = decompress_whole(&data, WHOLE_LIMIT)
            .or_else(|| zstd::stream::decode_all(&data[..]).ok())
    {
        let d = Digest::of(&content);
        if d == *expected {
            return Ok(content);
        }
        decoded_digest = Some(d);
    }
    let raw = Digest::of(&data);
    if raw == *expected {
        return Ok(data);
    }
    Err(decoded_digest.unwrap_or(raw))
}

/// Decompresses one zstd frame held in memory (the body of a packed object): in one call
/// when its header records a size up to [`WHOLE_LIMIT`], else streamed. `None` when it does
/// not decode.
pub(super) fn decompress(frame: &[u8]) -> Option<Vec<u8>> {
    decompress_whole(frame, WHOLE_LIMIT).or_else(|| zstd::stream::decode_all(frame).ok())
}

fn check((digest, len): (Digest, u64), expected: &Digest) -> Decoded {
    if digest == *expected {
        Decoded::Ok(len)
    } else {
        Decoded::Corrupt(digest)
    }
}

/// The first four bytes of `file` (fewer if it is shorter); leaves it at offset 0.
fn head(file: &mut File) -> Result<Vec<u8>, Fault> {
    let mut head = [0u8; 4];
    let mut got = 0;
    while got < head.len() {
        let n = read_retry(file, &mut head[got..]).map_err(Fault::Read)?;
        if n == 0 {
            break;
        }
        got += n;
    }
    file.seek(SeekFrom::Start(0)).map_err(Fault::Read)?;
    Ok(head[..got].to_vec())
}

/// Copies `file` to `out` unchanged, hashing it.
fn copy_raw(file: &mut File, out: &mut File, limits: Limits) -> Result<(Digest, u64), Fault> {
    let mut hasher = Hasher::new();
    let mut w = std::io::BufWriter::with_capacity(limits.buf.max(1), out);
    let mut buf = vec![0u8; limits.buf.max(1)];
    loop {
        let n = read_retry(file, &mut buf).map_err(Fault::Read)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        w.write_all(&buf[..n]).map_err(Fault::Write)?;
    }
    w.flush().map_err(Fault::Write)?;
    let len = hasher.len();
    Ok((hasher.finish(), len))
}

/// Decompresses `file` (zstd frames) into `out`, hashing the output; `None` when the file is
/// not valid zstd data. A read error of the file itself shows up here as invalid data too and
/// is found again when the file is read raw.
fn copy_frame(
    file: &mut File,
    out: &mut impl Write,
    limits: Limits,
) -> Result<Option<(Digest, u64)>, Fault> {
    DECODER.with(|cell| {
        let mut cell = cell.borrow_mut();
        let (ctx, buf) = &mut *cell;
        if ctx.is_none() {
            // As `zstd::stream::read::Decoder::with_buffer` makes one: no dictionary.
            let Some(mut c) = zstd::zstd_safe::DCtx::try_create() else {
                return Ok(None);
            };
            if c.init().is_err() {
                return Ok(None);
            }
            *ctx = Some(c);
        }
        let ctx = ctx.as_mut().expect("set above");
        buf.resize(limits.buf.max(1), 0);
        let reader = std::io::BufReader::with_capacity(limits.buf.max(1), &mut *file);
        // `with_context` resets the session, so a frame an earlier call left unfinished (a
        // corrupt object) leaves nothing behind.
        let mut dec =
            zstd::stream::zio::Reader::new(reader, zstd::stream::raw::Decoder::with_context(ctx));
        let mut hasher = Hasher::new();
        loop {
            let n = match read_retry(&mut dec, buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(_) => return Ok(None),
            };
            hasher.update(&buf[..n]);
            out.write_all(&buf[..n]).map_err(Fault::Write)?;
        }
        let len = hasher.len();
        Ok(Some((hasher.finish(), len)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// Patterned bytes that compress (repeating lines) with a counter so that no two blocks
    /// are equal.
    fn patterned(len: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(len);
        let mut i = 0u64;
        while v.len() < len {
            v.extend_from_slice(format!("line {i:08} of the patterned file\n").as_bytes());
            i += 1;
        }
        v.truncate(len);
        v
    }

    const TINY: Limits = Limits { whole: 16, buf: 7 };

    #[test]
    fn streaming_path_with_small_buffers_stores_and_restores_exact_bytes() {
        let d = tempfile::tempdir().unwrap();
        let store = Store::init(&d.path().join("store")).unwrap();
        let content = patterned(100_000);
        let src = d.path().join("big.txt");
        std::fs::write(&src, &content).unwrap();
        let (digest, len, added) = store.ingest_with(&src, TINY).unwrap();
        assert_eq!(digest, Digest::of(&content));
        assert_eq!(len, 100_000);
        assert!(added.is_some());
        let stored = std::fs::read(store.object_path(&digest)).unwrap();
        assert_eq!(stored[..4], ZSTD_MAGIC);
        assert!(stored.len() < content.len() / 4, "{} bytes", stored.len());
        assert_eq!(zstd::stream::decode_all(&stored[..]).unwrap(), content);
        // Written back out through 7-byte buffers, and read whole.
        let mut out = tempfile::tempfile().unwrap();
        let n = store
            .copy_object_with(&digest, &mut out, None, TINY)
            .unwrap();
        assert_eq!(n, 100_000);
        out.seek(SeekFrom::Start(0)).unwrap();
        let mut back = Vec::new();
        out.read_to_end(&mut back).unwrap();
        assert_eq!(back, content);
        assert_eq!(store.read_object(&digest).unwrap(), content);
    }

    #[test]
    fn whole_path_and_streaming_path_decode_to_the_same_bytes() {
        for len in [0usize, 1, 16, 17, 4096] {
            let content = patterned(len);
            let mut whole = Vec::new();
            let mut streamed = Vec::new();
            let a = encode(&mut &content[..], &mut whole, Limits::DEFAULT).unwrap();
            let b = encode(&mut &content[..], &mut streamed, TINY).unwrap();
            assert_eq!(a, (Digest::of(&content), len as u64));
            assert_eq!(a, b);
            assert_eq!(zstd::stream::decode_all(&whole[..]).unwrap(), content);
            assert_eq!(zstd::stream::decode_all(&streamed[..]).unwrap(), content);
        }
    }

    #[test]
    fn packed_objects_stream_out_as_their_canonical_bytes_and_raw_look_alikes_stay_raw() {
        let d = tempfile::tempdir().unwrap();
        let store = Store::init(&d.path().join("store")).unwrap();
        let node = crate::tree::Node {
            directories: vec![],
            files: vec![crate::tree::FileEntry {
                blob: Digest::of(b"x"),
                bytes: 1,
                executable: true,
                name: "x".into(),
            }],
        };
        let canonical = node.canonical_bytes();
        let name = store.write_object(&canonical).unwrap();
        assert_eq!(name, Digest::of(&canonical));
        let file = std::fs::read(store.object_path(&name)).unwrap();
        assert_eq!(file, super::super::packed::pack_node(&node).unwrap());
        // An old raw object that starts with the packed magic (and one that is the packed
        // file of another node, stored raw under its own name).
        let look_alike = [&super::super::packed::MAGIC[..], b"\x01\x01\x00 raw"].concat();
        let raw_names = [Digest::of(&look_alike), Digest::of(&file)];
        for (n, bytes) in raw_names.iter().zip([&look_alike, &file]) {
            let path = store.object_path(n);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
        }
        let cases = [
            (name, canonical.clone()),
            (raw_names[0], look_alike.clone()),
            (raw_names[1], file.clone()),
        ];
        for (n, want) in cases {
            for limits in [Limits::DEFAULT, TINY] {
                let mut out = tempfile::tempfile().unwrap();
                let len = store.copy_object_with(&n, &mut out, None, limits).unwrap();
                assert_eq!(len, want.len() as u64);
                out.seek(SeekFrom::Start(0)).unwrap();
                let mut back = Vec::new();
                out.read_to_end(&mut back).unwrap();
                assert_eq!(back, want);
            }
            assert_eq!(store.read_object(&n).unwrap(), want);
        }
        // Damaged: one digest bit flipped; both paths report what the rebuilt bytes hash to.
        let mut bad = file.clone();
        *bad.last_mut().unwrap() ^= 1;
        std::fs::write(store.object_path(&name), &bad).unwrap();
        let found = Digest::of(&super::super::packed::unpack(&bad).unwrap());
        for limits in [Limits::DEFAULT, TINY] {
            let mut out = tempfile::tempfile().unwrap();
            match store.copy_object_with(&name, &mut out, None, limits) {
                Err(crate::store::StoreError::Corrupt { actual, .. }) => assert_eq!(actual, found),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(decode_bytes(bad, &name), Err(found));
    }

    #[test]
    fn raw_object_starting_with_the_magic_is_read_raw_even_after_a_partial_decode() {
        // A stored `.zst` file of an old store: a valid frame, named by its own bytes. The
        // frame decodes (to other content), is rejected by its hash, and the output is
        // rewound and rewritten with the raw bytes.
        let d = tempfile::tempdir().unwrap();
        let store = Store::init(&d.path().join("store")).unwrap();
        let frame = zstd::stream::encode_all(&patterned(50_000)[..], 3).unwrap();
        let name = Digest::of(&frame);
        let path = store.object_path(&name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &frame).unwrap();
        let mut out = tempfile::tempfile().unwrap();
        out.write_all(b"kept").unwrap();
        let n = store.copy_object_with(&name, &mut out, None, TINY).unwrap();
        assert_eq!(n, frame.len() as u64);
        out.seek(SeekFrom::Start(0)).unwrap();
        let mut back = Vec::new();
        out.read_to_end(&mut back).unwrap();
        assert_eq!(&back[..4], b"kept");
        assert_eq!(&back[4..], &frame[..]);
        assert_eq!(store.read_object(&name).unwrap(), frame);
    }
}
