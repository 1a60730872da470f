//! The stat cache: path → `lstat` fields and blob, so a snapshot does not read files that have
//! not changed (like git's index and jj's tree state).
//!
//! Kept in the store as `statcache/<sha256 of the root's path>.bin`, one per directory tree,
//! rewritten (temp file, `fsync`, rename) after each snapshot that changed an entry, and read in
//! one go. The file (all integers little-endian):
//!
//! ```text
//! header   magic "GNSTATC\0" (8 bytes), version u32 (= 4), entry count u32,
//!          summary flags u32 (bit 0: the identity below is set; bit 1: no fold collisions;
//!          bit 2: the document fields below are set),
//!          snapshot identity (32 bytes; zero when bit 0 is clear),
//!          document fields: size u64, mtime_ns i64, ctime_ns i64, inode u64, device u64 of
//!          the store's v0.1 document of that snapshot (40 bytes; zero when bit 2 is clear),
//!          document binding u32: the CRC-32 of the entries (every byte from the end of the
//!          header to the trailer) when bit 2 is set, else zero,
//!          generation (16 bytes): a UUIDv7 (RFC 9562: time and random bits) made when these
//!          entries were, so that it names them (kept while only the summary changes); what
//!          the recent snapshots beside the cache are keyed by ([`recent`])
//! entries  path length u32, path (UTF-8 workspace path), size u64, mtime_ns i64, ctime_ns i64,
//!          inode u64, device u64, blob (32 bytes of SHA-256), flags u8 (bit 0: the owner's
//!          executable bit)
//! trailer  CRC-32 (IEEE 802.3, the checksum of zlib and gzip) of every byte before it, u32
//! ```
//!
//! A file that is not exactly this (another version, the JSON cache of Genesis before it,
//! truncated, a checksum that does not match, paths out of order, an unknown flag) is
//! ignored: the cache is then empty and every file is read and hashed again, never an error.
//! A loaded cache is used as the file's bytes, nothing copied out of them; its paths are
//! compared as bytes, so one that is not UTF-8 matches no file.
//! The checksum only has to catch damage (the file is replaced by rename, never written in
//! place), so it is a CRC, which costs a few per cent of what SHA-256 costs over the same bytes.
//!
//! **The summary** is the identity of the snapshot whose files are exactly the entries (paths,
//! blobs, sizes and executable bits), set by a snapshot whose every file was cached, and whether
//! its paths have fold collisions ([`crate::snapshot::Snapshot::fold_collisions`]). When every
//! file of a later scan is a hit and no entry is left over, that snapshot's file list is the
//! same, so its identity is taken from the summary: nothing is sorted into nodes, serialised or
//! hashed (DESIGN §3, "No-change snapshots"). For a v0.1 snapshot the summary may also hold
//! the `lstat` fields of the store's document of it, taken when the store last compared that
//! document with the files; while they are unchanged the document is not read again. They
//! are bound to the entries by the entries' CRC-32: a cache whose entries are not the ones
//! they were taken with (a summary copied from another cache, an entry changed under it) is
//! no cache.
//!
//! **Racy entries** (git's "racy git" problem): a file written in the same timestamp tick as it
//! was hashed could change again without its times changing. So an entry is only cached when
//! both its modification and status-change times lie more than [`RACY_WINDOW_NS`] (2 s, more
//! than any Linux filesystem's timestamp granularity, including the kernel's coarse clock)
//! before the snapshot started; younger files are read again next time. A cached entry is used
//! only when size, mtime, ctime (which no `touch` can set back), inode and device all match.

use std::path::{Path, PathBuf};

use crate::hash::Digest;
use crate::path::WorkspacePath;

pub mod recent;

/// Entries younger than this (nanoseconds) before the snapshot started are not cached.
pub const RACY_WINDOW_NS: i64 = 2_000_000_000;

/// The first 8 bytes of a stat cache file.
pub const MAGIC: [u8; 8] = *b"GNSTATC\0";
/// The version of the layout above; any other is ignored. 2 since 1 December 2026: the same
/// layout, but a version-1 cache may hold entries written by a snapshot that stored nothing
/// (apply's check of an in-place workspace), whose blobs are not in the store, so those caches
/// are dropped once (every file is read again on the next snapshot).
/// 3 since 1 December 2026: a CRC-32 trailer instead of SHA-256, the executable bit per entry,
/// and the summary in the header. 4 since 2 December 2026: the summary's document fields and
/// their binding to the entries. 5 since 2 December 2026: the generation.
pub const VERSION: u32 = 5;
const HEADER: usize = 16 + 4 + 32 + 40 + 4 + 16;
/// Bytes of one entry after its path: size, mtime, ctime, inode, device, blob, flags.
const FIXED: usize = 5 * 8 + 32 + 1;
const TRAILER: usize = 4;
/// Entry flag: the owner's executable bit is set.
const EXECUTABLE: u8 = 1;
/// Summary flag: the identity is set.
const HAS_IDENTITY: u32 = 1;
/// Summary flag: the summary's paths have no fold collisions.
const FOLD_FREE: u32 = 2;
/// Summary flag: the document fields are set.
const HAS_DOCUMENT: u32 = 4;

/// A regular file found by [`crate::snapshot::scan`], not yet hashed (64 bytes and its path;
/// one per member file, so kept small: where it is on disk and its size are derived).
#[derive(Debug, Clone)]
pub struct ScannedFile {
    /// Its workspace path.
    pub path: WorkspacePath,
    /// Whether the owner's executable bit is set.
    pub executable: bool,
    /// The `lstat` fields the stat cache compares (`size` is its size in bytes).
    pub stat: StatKey,
}

impl ScannedFile {
    /// Size from `lstat`, in bytes.
    pub fn bytes(&self) -> u64 {
        self.stat.size
    }

    /// Where it is on disk, `root` being the directory that was scanned.
    pub fn fs_path(&self, root: &Path) -> PathBuf {
        self.path.to_fs_path(root)
    }
}

/// The `lstat` fields that say a file is unchanged since it was last hashed: size,
/// modification and status-change times in nanoseconds, inode and device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StatKey {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Status-change time, nanoseconds since the Unix epoch (changes on every write and chmod,
    /// and cannot be set back by `touch`).
    pub ctime_ns: i64,
    /// Inode number.
    pub ino: u64,
    /// Device number.
    pub dev: u64,
}

impl StatKey {
    /// The fields of `md` (from `lstat`).
    pub fn of(md: &std::fs::Metadata) -> StatKey {
        use std::os::unix::fs::MetadataExt;
        StatKey {
            size: md.len(),
            mtime_ns: md
                .mtime()
                .saturating_mul(1_000_000_000)
                .saturating_add(md.mtime_nsec()),
            ctime_ns: md
                .ctime()
                .saturating_mul(1_000_000_000)
                .saturating_add(md.ctime_nsec()),
            ino: md.ino(),
            dev: md.dev(),
        }
    }
}

/// A hashed file as the cache records it: its size in bytes and its blob. Implemented by
/// [`crate::snapshot::SnapshotFile`].
pub trait Hashed {
    /// Size in bytes.
    fn bytes(&self) -> u64;
    /// SHA-256 of the content.
    fn blob(&self) -> Digest;
}

/// A blob and its size in bytes, as hashing a file gives them.
impl Hashed for (Digest, u64) {
    fn bytes(&self) -> u64 {
        self.1
    }
    fn blob(&self) -> Digest {
        self.0
    }
}

/// A loaded stat cache: the file's bytes as they are on disk (header and entries; the trailer
/// is dropped once checked), and where each entry's path starts in them. Nothing is copied out
/// of the file: an entry's fields are read from its bytes when it is looked up ([`StatCache::
/// lookup_sorted`]: one merge pass for a sorted list of files; [`StatCache::lookup`]: binary
/// search).
#[derive(Debug, Clone)]
pub struct StatCache {
    /// The header (its count, flags and identity only up to date in a loaded cache; written
    /// from the fields below when saved), then every entry, sorted by path bytes.
    bytes: Vec<u8>,
    /// Per entry: the offset in `bytes` of its path (its 4-byte length is just before).
    starts: Vec<usize>,
    /// What the entries make as a snapshot, when a snapshot of exactly these files set it.
    summary: Option<Summary>,
    /// The generation of these entries (module docs); zero for the empty cache that stands
    /// for a missing or invalid file.
    generation: [u8; 16],
}

impl Default for StatCache {
    fn default() -> StatCache {
        StatCache {
            bytes: vec![0; HEADER],
            starts: Vec::new(),
            summary: None,
            generation: [0; 16],
        }
    }
}

/// Two caches are equal when their entries and summaries are (the header bytes of one built in
/// memory are not written until it is saved).
impl PartialEq for StatCache {
    fn eq(&self, other: &StatCache) -> bool {
        self.summary == other.summary && self.bytes[HEADER..] == other.bytes[HEADER..]
    }
}

impl Eq for StatCache {}

/// The snapshot whose files are exactly a stat cache's entries (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Its identity (hex SHA-256 when printed; v0.1 or v0.2 as the files make it).
    pub identity: Digest,
    /// Whether its paths have no fold collisions.
    pub fold_free: bool,
    /// v0.1 only: the `lstat` fields of the store's document of this snapshot
    /// (`snapshots/<identity>.json`) when the store last found it to be exactly this
    /// snapshot's document, if that was outside the racy window (DESIGN §3). While the
    /// document's fields are still these it is not read again.
    pub document: Option<StatKey>,
}

/// Builds a [`StatCache`] from entries given in strictly increasing path order.
struct Builder {
    cache: StatCache,
}

impl Builder {
    fn with_capacity(entries: usize, path_bytes: usize) -> Builder {
        let mut bytes = Vec::with_capacity(HEADER + entries * (4 + FIXED) + path_bytes);
        bytes.resize(HEADER, 0);
        Builder {
            cache: StatCache {
                bytes,
                starts: Vec::with_capacity(entries),
                summary: None,
                // Real randomness, never the pinned `GENESIS_RANDOMNESS_SEED` (crate::clock):
                // two caches with one generation would share recent snapshots.
                generation: *uuid::Uuid::now_v7().as_bytes(),
            },
        }
    }

    /// Adds an entry; `false` (nothing added) if `path` does not sort after the last one.
    fn push(&mut self, path: &str, stat: StatKey, blob: Digest, executable: bool) -> bool {
        let c = &mut self.cache;
        if let Some(last) = c.starts.len().checked_sub(1)
            && c.path(last) >= path.as_bytes()
        {
            return false;
        }
        let Ok(len) = u32::try_from(path.len()) else {
            return false;
        };
        let b = &mut c.bytes;
        b.extend_from_slice(&len.to_le_bytes());
        c.starts.push(b.len());
        b.extend_from_slice(path.as_bytes());
        write_key(b, &stat);
        b.extend_from_slice(blob.as_bytes());
        b.push(if executable { EXECUTABLE } else { 0 });
        true
    }
}

/// Appends the five `lstat` fields of `stat` (40 bytes, little-endian).
fn write_key(b: &mut Vec<u8>, stat: &StatKey) {
    b.extend_from_slice(&stat.size.to_le_bytes());
    b.extend_from_slice(&stat.mtime_ns.to_le_bytes());
    b.extend_from_slice(&stat.ctime_ns.to_le_bytes());
    b.extend_from_slice(&stat.ino.to_le_bytes());
    b.extend_from_slice(&stat.dev.to_le_bytes());
}

/// The five `lstat` fields at the start of `f` (at least 40 bytes).
fn read_key(f: &[u8]) -> StatKey {
    let at = |i: usize| u64::from_le_bytes(f[i..i + 8].try_into().expect("8 bytes"));
    StatKey {
        size: at(0),
        mtime_ns: at(8) as i64,
        ctime_ns: at(16) as i64,
        ino: at(24),
        dev: at(32),
    }
}

/// The CRC-32 of `header` then the entries whose CRC state is `entries` (the trailer): the
/// entries are hashed once, for their own CRC (the document binding) and for the trailer.
fn trailer(header: &[u8], entries: &crc32fast::Hasher) -> u32 {
    let mut whole = crc32fast::Hasher::new();
    whole.update(header);
    whole.combine(entries);
    whole.finalize()
}

/// The CRC state of `entries`.
fn crc_of(entries: &[u8]) -> crc32fast::Hasher {
    let mut e = crc32fast::Hasher::new();
    e.update(entries);
    e
}

/// Nanoseconds since the Unix epoch, now.
pub fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Whether `stat` lies outside the racy window of a snapshot that started at `started_ns`:
/// both its times more than [`RACY_WINDOW_NS`] before it (module docs).
pub fn settled(stat: &StatKey, started_ns: i64) -> bool {
    let limit = started_ns.saturating_sub(RACY_WINDOW_NS);
    stat.mtime_ns < limit && stat.ctime_ns < limit
}

impl StatCache {
    /// Reads the cache at `path` in one go; a missing, unreadable or invalid cache (see the
    /// module documentation) is an empty one.
    pub fn load(path: &Path) -> StatCache {
        let Ok(bytes) = crate::regular::read(path) else {
            return StatCache::default();
        };
        StatCache::from_bytes(bytes).unwrap_or_default()
    }

    /// Parses the bytes of a cache file; `None` if they are not exactly the layout of the
    /// module documentation.
    pub fn decode(bytes: &[u8]) -> Option<StatCache> {
        StatCache::from_bytes(bytes.to_vec())
    }

    /// [`StatCache::decode`], keeping `bytes` as the cache (nothing copied).
    fn from_bytes(mut bytes: Vec<u8>) -> Option<StatCache> {
        if bytes.len() < HEADER + TRAILER || bytes[..8] != MAGIC {
            return None;
        }
        let (body, sum) = bytes.split_at(bytes.len() - TRAILER);
        let (head, entries) = body.split_at(HEADER);
        let entries_state = crc_of(entries);
        let entries_crc = entries_state.clone().finalize();
        let whole = trailer(head, &entries_state);
        if u32::from_le_bytes(body[8..12].try_into().ok()?) != VERSION
            || whole.to_le_bytes()[..] != sum[..]
        {
            return None;
        }
        let binding = u32::from_le_bytes(body[92..96].try_into().ok()?);
        let count = u32::from_le_bytes(body[12..16].try_into().ok()?) as usize;
        let flags = u32::from_le_bytes(body[16..20].try_into().ok()?);
        let identity = Digest::from_bytes(body[20..52].try_into().ok()?);
        let document = read_key(&body[52..92]);
        let generation: [u8; 16] = body[96..112].try_into().ok()?;
        if flags & !(HAS_IDENTITY | FOLD_FREE | HAS_DOCUMENT) != 0
            || (flags & HAS_IDENTITY == 0
                && (flags != 0 || identity != Digest::from_bytes([0; 32])))
            || (flags & HAS_DOCUMENT == 0 && (body[52..92] != [0; 40] || binding != 0))
            // Document fields are only those of these entries: a summary copied from another
            // cache, or entries changed under it, make it no cache.
            || (flags & HAS_DOCUMENT != 0 && binding != entries_crc)
        {
            return None;
        }
        let summary = (flags & HAS_IDENTITY != 0).then_some(Summary {
            identity,
            fold_free: flags & FOLD_FREE != 0,
            document: (flags & HAS_DOCUMENT != 0).then_some(document),
        });
        let mut starts = Vec::with_capacity(count.min(body.len() / (4 + FIXED)));
        let mut at = HEADER;
        let mut last: &[u8] = &[];
        for i in 0..count {
            let len = u32::from_le_bytes(body.get(at..at + 4)?.try_into().ok()?) as usize;
            let start = at + 4;
            let path = body.get(start..start + len)?;
            let f = body.get(start + len..start + len + FIXED)?;
            if f[FIXED - 1] & !EXECUTABLE != 0 {
                return None;
            }
            // Entries are written sorted by path, each once; a file that is not is not a cache.
            if i > 0 && last >= path {
                return None;
            }
            last = path;
            starts.push(start);
            at = start + len + FIXED;
        }
        if at != body.len() {
            return None;
        }
        bytes.truncate(at);
        Some(StatCache {
            bytes,
            starts,
            summary,
            generation,
        })
    }

    /// The header of the cache file (module documentation) for these entries and summary,
    /// `entries_crc` being the CRC-32 of the entries.
    fn header(&self, entries_crc: u32) -> [u8; HEADER] {
        let mut h = [0u8; HEADER];
        h[..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&(self.starts.len() as u32).to_le_bytes());
        if let Some(s) = self.summary {
            let mut flags = HAS_IDENTITY;
            if s.fold_free {
                flags |= FOLD_FREE;
            }
            if let Some(doc) = s.document {
                flags |= HAS_DOCUMENT;
                let mut k = Vec::with_capacity(40);
                write_key(&mut k, &doc);
                h[52..92].copy_from_slice(&k);
                h[92..96].copy_from_slice(&entries_crc.to_le_bytes());
            }
            h[16..20].copy_from_slice(&flags.to_le_bytes());
            h[20..52].copy_from_slice(s.identity.as_bytes());
        }
        h[96..112].copy_from_slice(&self.generation);
        h
    }

    /// The header and trailer of the cache file, the entries hashed once.
    fn header_and_trailer(&self) -> ([u8; HEADER], u32) {
        let entries = crc_of(&self.bytes[HEADER..]);
        let header = self.header(entries.clone().finalize());
        let sum = trailer(&header, &entries);
        (header, sum)
    }

    /// The bytes of the cache file (module documentation), entries sorted by path.
    pub fn encode(&self) -> Vec<u8> {
        let (header, sum) = self.header_and_trailer();
        let mut out = Vec::with_capacity(self.bytes.len() + TRAILER);
        out.extend_from_slice(&header);
        out.extend_from_slice(&self.bytes[HEADER..]);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// The path of entry `i` (UTF-8 when the cache was built here; a loaded path is only
    /// compared as bytes, so one that is not UTF-8 matches no scanned file).
    fn path(&self, i: usize) -> &[u8] {
        let s = self.starts[i];
        let len = u32::from_le_bytes(self.bytes[s - 4..s].try_into().expect("4 bytes")) as usize;
        &self.bytes[s..s + len]
    }

    /// The fields of entry `i` after its path: `lstat` fields, blob, executable bit.
    fn fields(&self, i: usize) -> (StatKey, Digest, bool) {
        let s = self.starts[i];
        let len = u32::from_le_bytes(self.bytes[s - 4..s].try_into().expect("4 bytes")) as usize;
        let f = &self.bytes[s + len..s + len + FIXED];
        let blob = Digest::from_bytes(f[40..72].try_into().expect("32 bytes"));
        (read_key(f), blob, f[72] & EXECUTABLE != 0)
    }

    /// The index of the entry whose path is `path` (binary search).
    fn find(&self, path: &[u8]) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.starts.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.path(mid).cmp(path) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The cached blob of `path`, if its `lstat` fields are exactly `stat` (binary search).
    pub fn lookup(&self, path: &str, stat: &StatKey) -> Option<Digest> {
        let (s, blob, _) = self.fields(self.find(path.as_bytes())?);
        (s == *stat).then_some(blob)
    }

    /// [`StatCache::lookup`] for each of `files`, which are sorted by path bytes (as
    /// [`crate::snapshot::scan`] gives them), an entry also matching only with the file's
    /// executable bit: one pass over both lists, no search.
    pub fn lookup_sorted(&self, files: &[ScannedFile]) -> Vec<Option<Digest>> {
        self.lookup_sorted_counted(files).0
    }

    /// [`StatCache::lookup_sorted`], also counting the files that have an entry of their path
    /// (matching or not): when that count, the number of files and [`StatCache::len`] are
    /// equal, the files' paths are exactly the entries' paths. Long lists are looked up in
    /// pieces on rayon's threads, each piece starting at its first path's place (binary
    /// search).
    pub fn lookup_sorted_counted(&self, files: &[ScannedFile]) -> (Vec<Option<Digest>>, usize) {
        /// Files per piece; below two pieces' worth one pass is cheaper than a task.
        const PIECE: usize = 16 * 1024;
        if files.len() < 2 * PIECE {
            return self.merge_from(files, 0);
        }
        use rayon::prelude::*;
        let pieces: Vec<(Vec<Option<Digest>>, usize)> = files
            .par_chunks(PIECE)
            .map(|piece| self.merge_from(piece, self.first_not_below(piece[0].path.as_str())))
            .collect();
        let mut out = Vec::with_capacity(files.len());
        let mut found = 0;
        for (blobs, n) in pieces {
            out.extend(blobs);
            found += n;
        }
        (out, found)
    }

    /// The lookup of `files` (sorted) in one pass over the entries from index `i`, before
    /// which every entry's path sorts below the first file's; and how many paths were found.
    fn merge_from(&self, files: &[ScannedFile], mut i: usize) -> (Vec<Option<Digest>>, usize) {
        let mut out = Vec::with_capacity(files.len());
        let mut found = 0;
        for f in files {
            let p = f.path.as_str().as_bytes();
            while i < self.starts.len() && self.path(i) < p {
                i += 1;
            }
            out.push(if i < self.starts.len() && self.path(i) == p {
                found += 1;
                let (s, blob, x) = self.fields(i);
                (s == f.stat && x == f.executable).then_some(blob)
            } else {
                None
            });
        }
        (out, found)
    }

    /// The index of the first entry whose path does not sort below `path` (binary search).
    fn first_not_below(&self, path: &str) -> usize {
        let (mut lo, mut hi) = (0, self.starts.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.path(mid) < path.as_bytes() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The cache after a snapshot that started at `started_ns`: every file (`files` and
    /// `hashed` in the same order) except the racy ones.
    pub fn from_scan<H: Hashed>(files: &[ScannedFile], hashed: &[H], started_ns: i64) -> StatCache {
        let bytes = files.iter().map(|f| f.path.as_str().len()).sum();
        let mut b = Builder::with_capacity(files.len(), bytes);
        let mut sorted: Vec<(&ScannedFile, &H)> = files
            .iter()
            .zip(hashed)
            .filter(|(f, h)| settled(&f.stat, started_ns) && f.stat.size == h.bytes())
            .collect();
        if !sorted.is_sorted_by(|a, b| a.0.path < b.0.path) {
            sorted.sort_by(|a, b| a.0.path.cmp(&b.0.path));
        }
        for (f, h) in sorted {
            // A path given twice keeps its first entry.
            b.push(f.path.as_str(), f.stat, h.blob(), f.executable);
        }
        b.cache
    }

    /// The summary (see the module docs), if a snapshot of exactly these entries set it.
    pub fn summary(&self) -> Option<Summary> {
        self.summary
    }

    /// Sets the summary to `summary`, the snapshot taken of exactly these entries' files
    /// (the caller's promise: every file of that snapshot has an entry, none more).
    pub fn set_summary(&mut self, summary: Option<Summary>) {
        self.summary = summary;
    }

    /// Whether [`StatCache::from_scan`] of a scan that started at `started_ns` would give
    /// exactly this cache's entries, found without building it: `files` gives each scanned
    /// file (sorted by path bytes), whether its blob came from this cache (a hit of
    /// [`StatCache::lookup_sorted`]) and its size as hashed. So it is when every file old
    /// enough to cache is a hit (its entry is then the one `from_scan` writes), no other file
    /// has an entry, and no entry is left over.
    pub fn entries_unchanged<'a>(
        &self,
        files: impl Iterator<Item = (&'a ScannedFile, bool, u64)>,
        started_ns: i64,
    ) -> bool {
        let mut kept = 0;
        for (f, hit, bytes) in files {
            let cacheable = settled(&f.stat, started_ns) && f.stat.size == bytes;
            match (cacheable, hit) {
                (true, true) => kept += 1,
                (false, false) if self.find(f.path.as_str().as_bytes()).is_none() => {}
                _ => return false,
            }
        }
        kept == self.starts.len()
    }

    /// The generation of the entries (16 bytes, module docs): `None` for the empty cache that
    /// stands for a missing or invalid file.
    pub fn generation(&self) -> Option<[u8; 16]> {
        (self.generation != [0; 16]).then_some(self.generation)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether it has no entries.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Writes the cache to `path` atomically: temp file in the same directory, `fsync`,
    /// rename. The JSON cache of older Genesis beside it (`.json` instead of `.bin`), if any,
    /// is removed.
    ///
    /// # Errors
    /// File-system errors.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        use std::io::Write;
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
        let (header, sum) = self.header_and_trailer();
        let out = tmp.as_file_mut();
        out.write_all(&header)?;
        out.write_all(&self.bytes[HEADER..])?;
        out.write_all(&sum.to_le_bytes())?;
        tmp.as_file().sync_all()?;
        tmp.persist(path).map_err(|e| e.error)?;
        let _ = std::fs::remove_file(path.with_extension("json"));
        Ok(())
    }
}

#[cfg(test)]
#[path = "statcache_tests.rs"]
mod tests;
