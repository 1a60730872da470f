//! The tree cache: the previous snapshot's per-directory node identities, so a snapshot of an
//! unchanged directory takes its identity without serialising or hashing its node.
//!
//! Kept beside the stat cache ([`crate::statcache`]), in the same directory under the same
//! name with the extension `.tree`, rewritten (temp file, `fsync`, rename) only when an entry
//! changed, and read in one go. For each directory it records the SHA-256 of a binary encoding
//! of the directory's entries ([`entries_digest`]) and the identity of its node; a directory
//! whose entries hash the same again has that identity (the node's canonical bytes are a
//! function of its entries). The file (integers little-endian):
//!
//! ```text
//! header   magic "GNTREEC\0" (8 bytes), version u32 (= 1), entry count u32
//! entries  directory path length u32, path (UTF-8, "" for the root), entries digest (32 bytes),
//!          node identity (32 bytes)
//! trailer  SHA-256 of every byte before it (32 bytes)
//! ```
//!
//! A file that is not exactly this (another version, truncated, a checksum that does not
//! match, a path that is not UTF-8) is ignored: every node is then built and hashed again,
//! never an error. The cache says nothing about the store: a snapshot into a store still
//! writes each node the store lacks (see `Store::write_snapshot`).

use std::collections::HashMap;
use std::path::Path;

use super::Node;
use crate::hash::Digest;

/// The first 8 bytes of a tree cache file.
pub const MAGIC: [u8; 8] = *b"GNTREEC\0";
/// The version of the layout above; any other is ignored.
pub const VERSION: u32 = 1;
const HEADER: usize = 16;
const TRAILER: usize = 32;

/// A loaded tree cache: directory path (`""` for the root, else `a/b`) → (entries digest,
/// node identity).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeCache {
    dirs: HashMap<String, (Digest, Digest)>,
}

/// SHA-256 of the binary encoding of `node`'s entries: the count of directories (u32 LE), each
/// as name length (u32 LE), name, node identity (32 bytes); then the count of files, each as
/// name length, name, blob (32 bytes), size (u64 LE) and executable bit (one byte, 0 or 1).
/// Two nodes with the same entries, and only they (short of a SHA-256 collision), have the
/// same digest. `buf` is scratch space, reused across calls.
pub fn entries_digest(node: &Node, buf: &mut Vec<u8>) -> Digest {
    entries_digest_of(
        node.directories.iter().map(|d| (d.name.as_str(), &d.node)),
        node.files
            .iter()
            .map(|f| (f.name.as_str(), f.blob, f.bytes, f.executable)),
        buf,
    )
}

/// [`entries_digest`] of a node given as its entries, without the node: `directories` as
/// (name, node identity) and `files` as (name, blob, size, executable), each in the node's
/// order (sorted by name bytes).
pub fn entries_digest_of<'a>(
    directories: impl ExactSizeIterator<Item = (&'a str, &'a Digest)>,
    files: impl ExactSizeIterator<Item = (&'a str, Digest, u64, bool)>,
    buf: &mut Vec<u8>,
) -> Digest {
    buf.clear();
    buf.extend_from_slice(&(directories.len() as u32).to_le_bytes());
    for (name, node) in directories {
        buf.extend_from_slice(&(name.len() as u32).to_le_bytes());
        buf.extend_from_slice(name.as_bytes());
        buf.extend_from_slice(node.as_bytes());
    }
    buf.extend_from_slice(&(files.len() as u32).to_le_bytes());
    for (name, blob, bytes, executable) in files {
        buf.extend_from_slice(&(name.len() as u32).to_le_bytes());
        buf.extend_from_slice(name.as_bytes());
        buf.extend_from_slice(blob.as_bytes());
        buf.extend_from_slice(&bytes.to_le_bytes());
        buf.push(executable as u8);
    }
    Digest::of(buf)
}

impl TreeCache {
    /// The cache of a built tree: each directory's entries digest and identity. Directories
    /// built without a digest (no cache given to the build) are left out.
    pub fn of(tree: &super::BuiltTree) -> TreeCache {
        TreeCache {
            dirs: tree
                .dirs
                .iter()
                .filter_map(|(d, n)| Some((d.clone(), (n.entries?, n.identity))))
                .collect(),
        }
    }

    /// The node identity recorded for `dir` if its entries digest is `entries`.
    pub fn identity(&self, dir: &str, entries: &Digest) -> Option<Digest> {
        match self.dirs.get(dir) {
            Some((e, id)) if e == entries => Some(*id),
            _ => None,
        }
    }

    /// Number of directories.
    pub fn len(&self) -> usize {
        self.dirs.len()
    }

    /// Whether it has no directories.
    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }

    /// Reads the cache at `path` in one go; a missing, unreadable or invalid cache (see the
    /// module documentation) is an empty one.
    pub fn load(path: &Path) -> TreeCache {
        crate::regular::read(path)
            .ok()
            .and_then(|b| TreeCache::decode(&b))
            .unwrap_or_default()
    }

    /// Parses the bytes of a cache file; `None` if they are not exactly the layout of the
    /// module documentation.
    pub fn decode(bytes: &[u8]) -> Option<TreeCache> {
        if bytes.len() < HEADER + TRAILER || bytes[..8] != MAGIC {
            return None;
        }
        let (body, sum) = bytes.split_at(bytes.len() - TRAILER);
        if u32::from_le_bytes(body[8..12].try_into().ok()?) != VERSION
            || Digest::of(body).as_bytes()[..] != sum[..]
        {
            return None;
        }
        let count = u32::from_le_bytes(body[12..16].try_into().ok()?) as usize;
        let mut dirs = HashMap::with_capacity(count.min(body.len() / (4 + 64)));
        let mut rest = &body[HEADER..];
        for _ in 0..count {
            let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
            let path = std::str::from_utf8(rest.get(4..4 + len)?).ok()?;
            let f = rest.get(4 + len..4 + len + 64)?;
            let entries = Digest::from_bytes(f[..32].try_into().ok()?);
            let identity = Digest::from_bytes(f[32..].try_into().ok()?);
            dirs.insert(path.to_owned(), (entries, identity));
            rest = &rest[4 + len + 64..];
        }
        rest.is_empty().then_some(TreeCache { dirs })
    }

    /// The bytes of the cache file (module documentation), entries sorted by path.
    pub fn encode(&self) -> Vec<u8> {
        let mut dirs: Vec<(&String, &(Digest, Digest))> = self.dirs.iter().collect();
        dirs.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let size: usize = dirs.iter().map(|(p, _)| 4 + p.len() + 64).sum();
        let mut out = Vec::with_capacity(HEADER + size + TRAILER);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(dirs.len() as u32).to_le_bytes());
        for (path, (entries, identity)) in dirs {
            out.extend_from_slice(&(path.len() as u32).to_le_bytes());
            out.extend_from_slice(path.as_bytes());
            out.extend_from_slice(entries.as_bytes());
            out.extend_from_slice(identity.as_bytes());
        }
        let sum = Digest::of(&out);
        out.extend_from_slice(sum.as_bytes());
        out
    }

    /// Writes the cache to `path` atomically: temp file in the same directory, `fsync`,
    /// rename.
    ///
    /// # Errors
    /// File-system errors.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        use std::io::Write;
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
        tmp.write_all(&self.encode())?;
        tmp.as_file().sync_all()?;
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}
