//! Recent snapshots beside a stat cache: the v0.1 identities of the last few snapshots whose
//! files were the cache's entries plus a few files the cache did not answer for (DESIGN §3,
//! "One-file snapshots").
//!
//! A file just edited is racy, so the stat cache does not record it and has no summary; every
//! snapshot until it settles reads it again, and would serialise and hash all of a v0.1
//! snapshot's entries again (about 0.5 ms at 4,096 files) and compare the store's document
//! with them (as much again). When every entry of the cache was a hit, the snapshot's files
//! are exactly those entries plus the files read, so its identity is fixed by the cache's
//! [generation](super::StatCache::generation) and the paths, blobs and sizes of the files read.
//! This file keeps that identity for the last [`KEEP`] such snapshots, with the summary's other
//! fields (fold check, the store document's `lstat` fields once settled).
//!
//! Kept as `statcache/<key>.recent` beside `<key>.bin`, replaced (temp file, rename; not
//! synced, see [`RecentSnapshots::save`]) when it gains a snapshot. The file (integers little-endian):
//!
//! ```text
//! header   magic "GNRECNT\0" (8 bytes), version u32 (= 1), snapshot count u32,
//!          generation of the stat cache (16 bytes)
//! each     identity (32 bytes), flags u8 (bit 0: no fold collisions; bit 1: the document
//!          fields are set), document fields (size u64, mtime_ns i64, ctime_ns i64, inode u64,
//!          device u64; zero when bit 1 is clear), file count u32, files read u32, then each
//!          file read: path length u32, path (UTF-8), blob (32 bytes), size u64
//! trailer  CRC-32 (IEEE, as the stat cache's) of every byte before it, u32
//! ```
//!
//! A file that is not exactly this is no file: nothing is remembered, never an error. An
//! identity taken from here is checked by the store as a summary's is ([`crate::store`]): a
//! missing document is hashed again, a changed one compared; only a document whose `lstat`
//! fields are still the ones recorded is trusted unread.

use std::path::Path;

use super::{StatKey, read_key, write_key};
use crate::hash::Digest;

/// The first 8 bytes of the file.
pub const MAGIC: [u8; 8] = *b"GNRECNT\0";
/// The version of the layout above; any other is ignored.
pub const VERSION: u32 = 1;
/// Snapshots kept, the most recent first.
pub const KEEP: usize = 8;
/// At most this many files read for a snapshot to be kept (past it, reading them costs more
/// than the identity).
pub const MAX_READ: usize = 32;
const HEADER: usize = 8 + 4 + 4 + 16;

/// A file a snapshot read (the stat cache did not answer for it): path, blob and size in bytes.
pub type ReadFile = (String, Digest, u64);

/// What fixes a snapshot's file list given the stat cache: the cache's generation, the number
/// of files, and the files read (sorted by path bytes); every other file is a cache entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// The stat cache's generation.
    pub generation: [u8; 16],
    /// Files in the snapshot.
    pub files: u32,
    /// The files read, sorted by path bytes.
    pub read: Vec<ReadFile>,
}

/// One remembered snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recent {
    /// Its files' counts and the files read (the generation is the file's).
    pub files: u32,
    /// The files read, sorted by path bytes.
    pub read: Vec<ReadFile>,
    /// Its v0.1 identity.
    pub identity: Digest,
    /// Whether its paths have no fold collisions.
    pub fold_free: bool,
    /// The `lstat` fields of the store's document of it, when the store found it to be this
    /// snapshot's outside the racy window (as [`super::Summary::document`]).
    pub document: Option<StatKey>,
}

impl Recent {
    /// As the summary of a stat cache whose entries were its files.
    pub fn summary(&self) -> super::Summary {
        super::Summary {
            identity: self.identity,
            fold_free: self.fold_free,
            document: self.document,
        }
    }
}

/// The snapshots remembered beside one stat cache.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecentSnapshots {
    generation: [u8; 16],
    snapshots: Vec<Recent>,
}

impl RecentSnapshots {
    /// Reads the file at `path`; a missing or invalid one remembers nothing.
    pub fn load(path: &Path) -> RecentSnapshots {
        crate::regular::read(path)
            .ok()
            .and_then(|b| RecentSnapshots::decode(&b))
            .unwrap_or_default()
    }

    /// The snapshot remembered for `key`, if any.
    pub fn find(&self, key: &Key) -> Option<&Recent> {
        if self.generation != key.generation {
            return None;
        }
        self.snapshots
            .iter()
            .find(|r| r.files == key.files && r.read == key.read)
    }

    /// Remembers `recent` for the cache of `generation` as the most recent: any other
    /// generation's snapshots are forgotten, as is one of the same files, and the oldest past
    /// [`KEEP`].
    pub fn record(&mut self, generation: [u8; 16], recent: Recent) {
        if self.generation != generation {
            self.generation = generation;
            self.snapshots.clear();
        }
        self.snapshots
            .retain(|r| !(r.files == recent.files && r.read == recent.read));
        self.snapshots.insert(0, recent);
        self.snapshots.truncate(KEEP);
    }

    /// The bytes of the file (module docs).
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(HEADER + self.snapshots.len() * 128);
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&(self.snapshots.len() as u32).to_le_bytes());
        b.extend_from_slice(&self.generation);
        for r in &self.snapshots {
            b.extend_from_slice(r.identity.as_bytes());
            let flags = u8::from(r.fold_free) | (u8::from(r.document.is_some()) << 1);
            b.push(flags);
            write_key(&mut b, &r.document.unwrap_or_default());
            b.extend_from_slice(&r.files.to_le_bytes());
            b.extend_from_slice(&(r.read.len() as u32).to_le_bytes());
            for (path, blob, size) in &r.read {
                b.extend_from_slice(&(path.len() as u32).to_le_bytes());
                b.extend_from_slice(path.as_bytes());
                b.extend_from_slice(blob.as_bytes());
                b.extend_from_slice(&size.to_le_bytes());
            }
        }
        let sum = crc32fast::hash(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Parses the bytes of the file; `None` unless they are exactly the layout of the module
    /// docs.
    pub fn decode(bytes: &[u8]) -> Option<RecentSnapshots> {
        let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(4)?)?;
        if body.len() < HEADER
            || body[..8] != MAGIC
            || crc32fast::hash(body).to_le_bytes()[..] != sum[..]
        {
            return None;
        }
        let mut r = Reader { b: body, at: 8 };
        if r.u32()? != VERSION {
            return None;
        }
        let count = r.u32()? as usize;
        let generation: [u8; 16] = r.take(16)?.try_into().ok()?;
        let mut snapshots = Vec::with_capacity(count.min(KEEP));
        for _ in 0..count {
            let identity = Digest::from_bytes(r.take(32)?.try_into().ok()?);
            let flags = r.take(1)?[0];
            let document = read_key(r.take(40)?);
            if flags & !3 != 0 || (flags & 2 == 0 && document != StatKey::default()) {
                return None;
            }
            let files = r.u32()?;
            let n = r.u32()? as usize;
            let mut read = Vec::with_capacity(n.min(MAX_READ));
            for _ in 0..n {
                let len = r.u32()? as usize;
                let path = std::str::from_utf8(r.take(len)?).ok()?.to_owned();
                let blob = Digest::from_bytes(r.take(32)?.try_into().ok()?);
                let size = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
                read.push((path, blob, size));
            }
            snapshots.push(Recent {
                files,
                read,
                identity,
                fold_free: flags & 1 != 0,
                document: (flags & 2 != 0).then_some(document),
            });
        }
        (r.at == body.len()).then_some(RecentSnapshots {
            generation,
            snapshots,
        })
    }

    /// Writes the file to `path` atomically (temp file in its directory, rename). Not synced: a
    /// crash may leave it empty or old, which its checksum and generation make harmless (it
    /// is written by every snapshot new to the store, where an `fsync` would cost more than
    /// the file saves).
    ///
    /// # Errors
    /// File-system errors.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        use std::io::Write;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
        tmp.write_all(&self.encode())?;
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Reads the fields of [`RecentSnapshots::decode`] in order.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recent(files: u32, path: &str, byte: u8, document: Option<StatKey>) -> Recent {
        Recent {
            files,
            read: vec![(path.to_owned(), Digest::of(&[byte]), 1)],
            identity: Digest::of(&[byte, 0xff]),
            fold_free: byte.is_multiple_of(2),
            document,
        }
    }

    fn key(g: u8, files: u32, path: &str, byte: u8) -> Key {
        Key {
            generation: [g; 16],
            files,
            read: vec![(path.to_owned(), Digest::of(&[byte]), 1)],
        }
    }

    #[test]
    fn the_layout_is_exact_and_round_trips() {
        let doc = StatKey {
            size: 650_000,
            mtime_ns: 11,
            ctime_ns: 12,
            ino: 13,
            dev: 14,
        };
        let mut m = RecentSnapshots::default();
        m.record([7; 16], recent(4096, "src/a.rs", 1, Some(doc)));
        let b = m.encode();
        // Header 32, identity 32, flags 1, fields 40, counts 8, path 4 + 8, blob 32, size 8,
        // trailer 4.
        assert_eq!(b.len(), 32 + 32 + 1 + 40 + 8 + 4 + 8 + 32 + 8 + 4);
        assert_eq!(&b[..16], b"GNRECNT\0\x01\0\0\0\x01\0\0\0");
        assert_eq!(&b[16..32], &[7; 16]);
        assert_eq!(&b[32..64], Digest::of(&[1, 0xff]).as_bytes());
        assert_eq!(b[64], 2, "document set, fold collisions not ruled out");
        assert_eq!(&b[65..73], &650_000u64.to_le_bytes());
        assert_eq!(&b[105..109], &4096u32.to_le_bytes());
        assert_eq!(&b[109..113], &1u32.to_le_bytes());
        assert_eq!(&b[113..125], b"\x08\0\0\0src/a.rs");
        let n = b.len();
        assert_eq!(&b[n - 4..], &crc32fast::hash(&b[..n - 4]).to_le_bytes());
        assert_eq!(RecentSnapshots::decode(&b), Some(m.clone()));
        // Any damage, a truncation or a byte more is no file.
        for i in 0..n {
            let mut d = b.clone();
            d[i] ^= 0x10;
            assert_eq!(RecentSnapshots::decode(&d), None, "byte {i}");
        }
        assert_eq!(RecentSnapshots::decode(&b[..n - 1]), None);
        let mut longer = b[..n - 4].to_vec();
        longer.push(0);
        let sum = crc32fast::hash(&longer);
        longer.extend_from_slice(&sum.to_le_bytes());
        assert_eq!(RecentSnapshots::decode(&longer), None);
        assert_eq!(RecentSnapshots::decode(b""), None);
    }

    #[test]
    fn a_snapshot_is_found_only_for_its_generation_and_exact_files() {
        let mut m = RecentSnapshots::default();
        m.record([1; 16], recent(10, "a", 1, None));
        m.record([1; 16], recent(10, "a", 2, None));
        assert_eq!(
            m.find(&key(1, 10, "a", 1)).map(|r| r.identity),
            Some(Digest::of(&[1, 0xff]))
        );
        assert_eq!(
            m.find(&key(1, 10, "a", 2)).map(|r| r.identity),
            Some(Digest::of(&[2, 0xff]))
        );
        assert!(m.find(&key(2, 10, "a", 1)).is_none(), "another generation");
        assert!(m.find(&key(1, 11, "a", 1)).is_none(), "another file count");
        assert!(m.find(&key(1, 10, "b", 1)).is_none(), "another path");
        assert!(m.find(&key(1, 10, "a", 3)).is_none(), "another blob");
        let mut sized = key(1, 10, "a", 1);
        sized.read[0].2 = 2;
        assert!(m.find(&sized).is_none(), "another size");
        // A new generation forgets the old one's snapshots.
        m.record([2; 16], recent(10, "a", 3, None));
        assert!(m.find(&key(1, 10, "a", 1)).is_none());
        assert!(m.find(&key(2, 10, "a", 3)).is_some());
    }

    #[test]
    fn the_most_recent_are_kept_and_a_snapshot_is_replaced_not_repeated() {
        let mut m = RecentSnapshots::default();
        for b in 0..(KEEP as u8 + 3) {
            m.record([1; 16], recent(10, "a", b, None));
        }
        assert_eq!(m.snapshots.len(), KEEP);
        assert!(m.find(&key(1, 10, "a", 2)).is_none(), "the oldest went");
        assert!(m.find(&key(1, 10, "a", KEEP as u8 + 2)).is_some());
        let doc = StatKey {
            size: 1,
            ..StatKey::default()
        };
        m.record([1; 16], recent(10, "a", 5, Some(doc)));
        assert_eq!(m.snapshots.len(), KEEP);
        assert_eq!(m.snapshots[0].document, Some(doc));
        assert_eq!(
            m.snapshots
                .iter()
                .filter(|r| r.read[0].1 == Digest::of(&[5]))
                .count(),
            1
        );
    }
}
