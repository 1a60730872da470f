//! The packed encoding of tree objects in the store (DESIGN section 3, "Object files").
//!
//! A v0.2 tree node and the canonical bytes of a v0.1 snapshot are JSON with 64-hex-digit
//! SHA-256 names and repeated keys; their object files hold a binary form instead, from which
//! the exact canonical bytes are rebuilt on every read. The object's name stays the SHA-256 of
//! the canonical bytes, and every reader hashes the rebuilt bytes against it
//! ([`super::codec::decode_bytes`]), so a packed object hashes to its name as a zstd frame of a
//! blob does once decoded.
//!
//! Layout (all integers unsigned LEB128, minimal: no trailing `0x80` groups, at most 10 bytes
//! and 64 bits; names and paths are UTF-8, counted in bytes):
//!
//! ```text
//! magic    89 47 4E 50          "\x89GNP": 0x89 starts no zstd frame (28 B5 2F FD), no JSON
//!                               text (`{`) and no UTF-8 character
//! version  01
//! kind     01 = v0.2 tree node   02 = v0.1 snapshot (its canonical bytes without identity)
//! coding   00 = body follows     01 = body is one zstd frame (RFC 8878) of it
//! body     kind 01: count D, D × (name length, name, node digest 32 bytes),
//!                   count F, F × (flag, size, name length, name, blob digest 32 bytes);
//!                   flag 00 or 01 (bit 0: executable; any other bit set is invalid)
//!          kind 02: count F, F × (size, path length, path, blob digest 32 bytes)
//! ```
//!
//! Nothing may follow the body. The writer takes the smaller of the two codings (the zstd
//! frame when it is strictly smaller), so small nodes are stored uncompressed: their digests
//! do not compress and the frame header would cost more than the names save.
//!
//! Example: the node of a directory holding one file `a` of 5 bytes, not executable, with blob
//! `2cf2…9824` (SHA-256 of `hello`), no sub-directory. Canonical bytes (173):
//!
//! ```text
//! {"directories":[],"files":[{"blob":"2cf24dba…9824","bytes":5,"executable":false,"name":"a"}],"schema":"genesis/tree-v0.2"}
//! ```
//!
//! Packed (45 bytes):
//!
//! ```text
//! 89 47 4E 50  01  01  00       magic, version 1, v0.2 node, not compressed
//! 00                            no directories
//! 01                            one file:
//!   00  05  01 61               flag (not executable), size 5, name length 1, "a"
//!   2C F2 4D BA … 98 24         blob digest, 32 bytes
//! ```
//!
//! Sizes above 2^53 (JCS writes them as ECMAScript numbers, so several sizes can print alike)
//! are kept exactly as the node has them; the rebuilt bytes are what the node's canonical form
//! is, and only those are hashed.

use crate::hash::Digest;
use crate::tree::{DirEntry, FileEntry, Node, TREE_SCHEMA};

/// The first four bytes of a packed object.
pub const MAGIC: [u8; 4] = [0x89, b'G', b'N', b'P'];
/// The version byte this code writes and reads.
pub const VERSION: u8 = 1;
/// Kind byte: a v0.2 tree node.
pub const KIND_NODE: u8 = 1;
/// Kind byte: the canonical bytes of a v0.1 snapshot.
pub const KIND_SNAPSHOT_V0_1: u8 = 2;
const RAW: u8 = 0;
const ZSTD: u8 = 1;
const HEADER: usize = 7;

/// Why packed bytes do not decode. Readers treat it as a corrupt object (or, for a file that
/// is not packed but starts alike, as raw bytes: see [`super::codec`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackedError {
    /// No magic, another version, kind or coding.
    #[error("not a packed object of version 1 (header {0:02x?})")]
    Header(Vec<u8>),
    /// The body ends inside a field.
    #[error("packed object ends inside a field at byte {0}")]
    Truncated(usize),
    /// A varint that is not minimal or does not fit 64 bits.
    #[error("packed object: invalid integer at byte {0}")]
    Varint(usize),
    /// A flag byte other than 0 or 1.
    #[error("packed object: invalid flag {flag:#04x} at byte {at}")]
    Flag {
        /// Offset of the flag.
        at: usize,
        /// The flag.
        flag: u8,
    },
    /// A name or path that is not UTF-8.
    #[error("packed object: name at byte {0} is not UTF-8")]
    Utf8(usize),
    /// Bytes after the body.
    #[error("packed object: {0} bytes after the body")]
    Trailing(usize),
    /// The zstd-coded body does not decode.
    #[error("packed object: compressed body does not decode")]
    Frame,
}

/// Whether `data` starts with [`MAGIC`].
pub fn is_packed(data: &[u8]) -> bool {
    data.starts_with(&MAGIC)
}

/// Whether the first bytes of an object file say it is a packed v0.2 tree node.
pub fn is_packed_node(head: &[u8]) -> bool {
    head.len() >= 6 && head[..4] == MAGIC && head[4] == VERSION && head[5] == KIND_NODE
}

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn put_name(out: &mut Vec<u8>, name: &str) {
    put_varint(out, name.len() as u64);
    out.extend_from_slice(name.as_bytes());
}

/// The body of `node` (kind 01, before coding).
fn node_body(node: &Node) -> Vec<u8> {
    let names: usize = node.directories.iter().map(|d| d.name.len()).sum::<usize>()
        + node.files.iter().map(|f| f.name.len()).sum::<usize>();
    let mut out =
        Vec::with_capacity(20 + names + 36 * node.directories.len() + 40 * node.files.len());
    put_varint(&mut out, node.directories.len() as u64);
    for d in &node.directories {
        put_name(&mut out, &d.name);
        out.extend_from_slice(d.node.as_bytes());
    }
    put_varint(&mut out, node.files.len() as u64);
    for f in &node.files {
        out.push(u8::from(f.executable));
        put_varint(&mut out, f.bytes);
        put_name(&mut out, &f.name);
        out.extend_from_slice(f.blob.as_bytes());
    }
    out
}

/// Header and body, the body zstd-coded when that is strictly smaller.
fn frame(kind: u8, body: Vec<u8>) -> std::io::Result<Vec<u8>> {
    // A v0.1 snapshot's body, written by every snapshot new to the store, at the fast level
    // ([`super::codec::PACKED_LEVEL`]); nodes as every other object.
    let compressed = if kind == KIND_SNAPSHOT_V0_1 {
        super::codec::compress_packed(&body)?
    } else {
        super::codec::compress(&body)?
    };
    let (coding, body) = if compressed.len() < body.len() {
        (ZSTD, compressed)
    } else {
        (RAW, body)
    };
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&[VERSION, kind, coding]);
    out.extend_from_slice(&body);
    Ok(out)
}

/// The packed object file of `node` (see the module docs). Its canonical bytes are
/// [`Node::canonical_bytes`], which [`unpack`] gives back.
///
/// # Errors
/// zstd's error (out of memory).
pub fn pack_node(node: &Node) -> std::io::Result<Vec<u8>> {
    frame(KIND_NODE, node_body(node))
}

/// A v0.1 file entry as its canonical document spells it (`path` a string: the rebuild does
/// not re-validate paths, which readers of the document do).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct V01File<'a> {
    blob: Digest,
    bytes: u64,
    #[serde(borrow)]
    path: std::borrow::Cow<'a, str>,
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct V01Doc<'a> {
    #[serde(borrow)]
    files: Vec<V01File<'a>>,
    #[serde(borrow)]
    schema: std::borrow::Cow<'a, str>,
}

fn v0_1_canonical(doc: &V01Doc<'_>) -> Option<Vec<u8>> {
    crate::hash::canonical_json(doc).ok()
}

/// The packed object file of `data` when `data` is exactly the canonical bytes of a v0.2 tree
/// node or of a v0.1 snapshot (so [`unpack`] gives `data` back); `None` for any other bytes,
/// which are stored as before.
pub fn pack(data: &[u8]) -> Option<Vec<u8>> {
    let node_end = format!(r#","schema":"{TREE_SCHEMA}"}}"#);
    if data.starts_with(br#"{"directories":["#) && data.ends_with(node_end.as_bytes()) {
        // `parse` checks the bytes are the node's canonical form; the name is not used.
        let node = Node::parse(Digest::EMPTY, data).ok()?;
        return pack_node(&node).ok();
    }
    let doc_end = format!(r#","schema":"{}"}}"#, crate::snapshot::SNAPSHOT_SCHEMA);
    if data.starts_with(br#"{"files":["#) && data.ends_with(doc_end.as_bytes()) {
        let doc: V01Doc<'_> = serde_json::from_slice(data).ok()?;
        if v0_1_canonical(&doc)? != data {
            return None;
        }
        let files = doc.files.iter().map(|f| (f.bytes, &*f.path, &f.blob));
        return frame(KIND_SNAPSHOT_V0_1, v0_1_body(files, doc.files.len())).ok();
    }
    None
}

/// The body of a v0.1 snapshot (kind 02, before coding) of `n` files given as (size, path,
/// blob).
fn v0_1_body<'a>(files: impl Iterator<Item = (u64, &'a str, &'a Digest)>, n: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(8 + n * 80);
    put_varint(&mut body, n as u64);
    for (bytes, path, blob) in files {
        put_varint(&mut body, bytes);
        put_name(&mut body, path);
        body.extend_from_slice(blob.as_bytes());
    }
    body
}

/// The packed object file of a v0.1 snapshot of `files` (sorted by path, as a snapshot holds
/// them): what [`pack`] gives for its canonical bytes ([`crate::snapshot::Snapshot::
/// canonical_v0_1`]), built from the files without writing and parsing those bytes.
///
/// # Errors
/// zstd's error (out of memory).
pub fn pack_v0_1(files: &[crate::snapshot::SnapshotFile]) -> std::io::Result<Vec<u8>> {
    let entries = files.iter().map(|f| (f.bytes, f.path.as_str(), &f.blob));
    frame(KIND_SNAPSHOT_V0_1, v0_1_body(entries, files.len()))
}

/// A cursor over a body; offsets in errors count from the start of the body.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], PackedError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or(PackedError::Truncated(self.at))?;
        let s = &self.data[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn byte(&mut self) -> Result<u8, PackedError> {
        Ok(self.take(1)?[0])
    }

    fn varint(&mut self) -> Result<u64, PackedError> {
        let start = self.at;
        let mut n: u64 = 0;
        for i in 0..10 {
            let b = self.byte()?;
            let part = u64::from(b & 0x7f);
            // The tenth byte holds bit 63 only; a zero last group is not minimal.
            if (i == 9 && b > 1) || (i > 0 && b == 0) {
                return Err(PackedError::Varint(start));
            }
            n |= part << (7 * i);
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(PackedError::Varint(start))
    }

    /// A count of entries each at least `min` bytes long: never more than the bytes left allow
    /// (so a damaged count allocates nothing).
    fn count(&mut self, min: usize) -> Result<usize, PackedError> {
        let at = self.at;
        let n = self.varint()?;
        let left = (self.data.len() - self.at) as u64;
        if n > left / min as u64 {
            return Err(PackedError::Truncated(at));
        }
        Ok(n as usize)
    }

    fn name(&mut self) -> Result<String, PackedError> {
        let len = self.varint()?;
        let len = usize::try_from(len).map_err(|_| PackedError::Truncated(self.at))?;
        let at = self.at;
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| PackedError::Utf8(at))
    }

    fn digest(&mut self) -> Result<Digest, PackedError> {
        let b: [u8; 32] = self.take(32)?.try_into().expect("32 bytes taken");
        Ok(Digest::from_bytes(b))
    }

    fn end(&self) -> Result<(), PackedError> {
        match self.data.len() - self.at {
            0 => Ok(()),
            n => Err(PackedError::Trailing(n)),
        }
    }
}

fn node_from_body(body: &[u8]) -> Result<Node, PackedError> {
    let mut r = Reader { data: body, at: 0 };
    let dirs = r.count(34)?;
    let mut directories = Vec::with_capacity(dirs);
    for _ in 0..dirs {
        let name = r.name()?;
        let node = r.digest()?;
        directories.push(DirEntry { name, node });
    }
    let files = r.count(35)?;
    let mut out = Vec::with_capacity(files);
    for _ in 0..files {
        let at = r.at;
        let executable = match r.byte()? {
            0 => false,
            1 => true,
            flag => return Err(PackedError::Flag { at, flag }),
        };
        let bytes = r.varint()?;
        let name = r.name()?;
        let blob = r.digest()?;
        out.push(FileEntry {
            blob,
            bytes,
            executable,
            name,
        });
    }
    r.end()?;
    Ok(Node {
        directories,
        files: out,
    })
}

fn v0_1_from_body(body: &[u8]) -> Result<Vec<u8>, PackedError> {
    let mut r = Reader { data: body, at: 0 };
    let n = r.count(34)?;
    let mut files = Vec::with_capacity(n);
    for _ in 0..n {
        let bytes = r.varint()?;
        let path = r.name()?;
        let blob = r.digest()?;
        files.push(V01File {
            blob,
            bytes,
            path: path.into(),
        });
    }
    r.end()?;
    let doc = V01Doc {
        files,
        schema: crate::snapshot::SNAPSHOT_SCHEMA.into(),
    };
    // Serialising strings and integers cannot fail.
    v0_1_canonical(&doc).ok_or(PackedError::Frame)
}

/// Header checked, body decoded from its coding: (kind, body).
fn open(data: &[u8]) -> Result<(u8, std::borrow::Cow<'_, [u8]>), PackedError> {
    let header = data
        .get(..HEADER)
        .ok_or_else(|| PackedError::Header(data.to_vec()))?;
    let bad = || PackedError::Header(header.to_vec());
    if header[..4] != MAGIC || header[4] != VERSION {
        return Err(bad());
    }
    let kind = header[5];
    if kind != KIND_NODE && kind != KIND_SNAPSHOT_V0_1 {
        return Err(bad());
    }
    let body = &data[HEADER..];
    match header[6] {
        RAW => Ok((kind, body.into())),
        ZSTD => super::codec::decompress(body)
            .map(|b| (kind, b.into()))
            .ok_or(PackedError::Frame),
        _ => Err(bad()),
    }
}

/// The node a packed v0.2 node object holds. Its names are not checked here (the caller
/// checks the node, [`Node::parse`] of its canonical bytes).
///
/// # Errors
/// [`PackedError`] when `data` is not a packed node of this version.
pub fn unpack_node(data: &[u8]) -> Result<Node, PackedError> {
    match open(data)? {
        (KIND_NODE, body) => node_from_body(&body),
        _ => Err(PackedError::Header(data[..HEADER].to_vec())),
    }
}

/// The canonical bytes a packed object stands for (see the module docs): what its name is the
/// SHA-256 of. The caller hashes them against the name.
///
/// # Errors
/// [`PackedError`] when `data` is not a packed object of this version.
pub fn unpack(data: &[u8]) -> Result<Vec<u8>, PackedError> {
    match open(data)? {
        (KIND_NODE, body) => Ok(node_from_body(&body)?.canonical_bytes()),
        (_, body) => v0_1_from_body(&body),
    }
}

#[cfg(test)]
#[path = "packed_tests.rs"]
mod tests;
