//! A snapshot with the store's caches (`snapshot_dir_using`): the stat cache answers for files
//! unchanged since they were hashed and its summary for a tree with no change at all
//! ([`crate::statcache`]); the tree cache for unchanged directories' v0.2 nodes
//! ([`crate::tree::cache`]). DESIGN §3.

use super::walk::{
    Hashing, ScanOutcome, ScannedFile, SnapshotError, SnapshotOptions, SnapshotOutcome, scan,
};
use super::*;
use crate::statcache::recent::{self, RecentSnapshots};

/// [`snapshot_dir`] with a chosen way to hash (the store uses it to copy blobs in while it
/// hashes, reading each file once). Uses [`SnapshotOptions::stat_cache`], and rewrites it only
/// when `hashing` stores the blobs ([`Hashing::stores`]).
/// The files the cache does not answer for are read on rayon's threads (`snapshot/read.rs`:
/// large files first, one at a time, then small ones in batches).
///
/// # Errors
/// As [`snapshot_dir`] (converted into `E`), plus whatever `hashing.hash` returns.
pub fn snapshot_dir_using<E: From<SnapshotError> + Send>(
    root: &Path,
    opts: &SnapshotOptions,
    hashing: &Hashing<'_, E>,
) -> Result<SnapshotOutcome, E> {
    let (outcome, pending) = snapshot_dir_pending(root, opts, hashing)?;
    if let Some(p) = pending {
        p.finish(&outcome.snapshot, None);
    }
    Ok(outcome)
}

/// The stat cache a snapshot leaves for its caller to write ([`snapshot_dir_pending`]), so
/// that the store can first add what it learns when it writes the snapshot (the summary's
/// document fields, [`crate::statcache::Summary::document`]), and the fold check the summary
/// records can run beside that write.
pub(crate) struct PendingCache {
    /// Where it is kept ([`SnapshotOptions::stat_cache`]).
    path: PathBuf,
    /// The cache after this snapshot, without the summary [`PendingCache::finish`] sets.
    cache: crate::statcache::StatCache,
    /// Whether it differs from the file at `path`; `false` for a v0.1 snapshot answered by
    /// the summary, whose cache is only given so that its document fields can be updated.
    changed: bool,
    /// Whether its entries are exactly the snapshot's files (none was racy), so that the
    /// snapshot is their summary.
    summarise: bool,
    /// For a v0.1 snapshot of the cache's entries plus a few files read, with the cache
    /// unchanged: the recent snapshots beside it ([`crate::statcache::recent`]).
    recent: Option<PendingRecent>,
}

/// The recent snapshots beside a stat cache, as a snapshot found them.
struct PendingRecent {
    /// Where they are kept (`<key>.recent` beside `<key>.bin`).
    path: PathBuf,
    /// As loaded.
    snapshots: RecentSnapshots,
    /// This snapshot's files, as they are keyed.
    key: recent::Key,
    /// The snapshot remembered for `key`, whose identity this snapshot took.
    hit: Option<recent::Recent>,
}

impl PendingCache {
    /// Whether writing it needs the snapshot's fold check (for the summary it sets).
    pub fn needs_fold_check(&self) -> bool {
        self.summarise || self.recent.as_ref().is_some_and(|r| r.hit.is_none())
    }

    /// The document fields of the cache's summary, when that summary is of the snapshot
    /// `identity` (see [`crate::statcache::Summary::document`]).
    pub fn known_document(&self, identity: &Digest) -> Option<crate::statcache::StatKey> {
        let recent = self.recent.as_ref().and_then(|r| r.hit.as_ref());
        self.cache
            .summary()
            .filter(|s| s.identity == *identity)
            .and_then(|s| s.document)
            .or_else(|| {
                recent
                    .filter(|r| r.identity == *identity)
                    .and_then(|r| r.document)
            })
    }

    /// [`PendingCache::finish`] after the store failed to write `snapshot`: the stat cache of
    /// the files read is kept (their blobs are stored), but no recent snapshot is remembered.
    pub fn finish_failed(mut self, snapshot: &Snapshot) {
        self.recent = None;
        self.finish(snapshot, None);
    }

    /// Sets the summary (the snapshot's identity, fold check and `document`, the `lstat`
    /// fields of its stored v0.1 document, settled) where the entries are the snapshot's
    /// files, and writes the cache if it changed. One that cannot be written only costs
    /// speed next time.
    pub fn finish(self, snapshot: &Snapshot, document: Option<crate::statcache::StatKey>) {
        let PendingCache {
            path,
            mut cache,
            mut changed,
            summarise,
            recent,
        } = self;
        if let Some(r) = recent {
            r.finish(snapshot, document);
        }
        let old = cache
            .summary()
            .filter(|s| s.identity == snapshot.identity());
        if summarise {
            cache.set_summary(Some(crate::statcache::Summary {
                identity: snapshot.identity(),
                fold_free: snapshot.fold_collisions().is_empty(),
                document,
            }));
        } else if let Some(s) = old
            && s.document != document
        {
            cache.set_summary(Some(crate::statcache::Summary { document, ..s }));
            changed = true;
        }
        if changed {
            let _ = cache.save(&path);
        }
    }
}

impl PendingRecent {
    /// Remembers `snapshot` (with `document`, the settled `lstat` fields of its stored
    /// document) unless it is already remembered just so. One that cannot be written only
    /// costs speed next time.
    fn finish(self, snapshot: &Snapshot, document: Option<crate::statcache::StatKey>) {
        let PendingRecent {
            path,
            mut snapshots,
            key,
            hit,
        } = self;
        let fold_free = match &hit {
            Some(h) if h.identity == snapshot.identity() => h.fold_free,
            _ => snapshot.fold_collisions().is_empty(),
        };
        let now = recent::Recent {
            files: key.files,
            read: key.read,
            identity: snapshot.identity(),
            fold_free,
            document,
        };
        if hit.as_ref() != Some(&now) {
            snapshots.record(key.generation, now);
            let _ = snapshots.save(&path);
        }
    }
}

/// [`snapshot_dir_using`], leaving the stat cache to the caller: `Some` when `hashing`
/// stores the blobs and the cache changed, or for a v0.1 snapshot the summary answered.
pub(crate) fn snapshot_dir_pending<E: From<SnapshotError> + Send>(
    root: &Path,
    opts: &SnapshotOptions,
    hashing: &Hashing<'_, E>,
) -> Result<(SnapshotOutcome, Option<PendingCache>), E> {
    let started = crate::statcache::now_ns();
    let (mut cache, scanned) = load_and_scan(root, opts);
    let scanned = scanned?;
    let (blobs, paths_found) = trusted_hits(&cache, &scanned.files, hashing.trust_cached);
    let misses: Vec<usize> = (0..blobs.len()).filter(|i| blobs[*i].is_none()).collect();
    let from_cache = scanned.files.len() - misses.len();
    // The files' paths are exactly the cache's entries' paths, whose summary (if any) was
    // taken of a snapshot of those entries: its fold check, which looks at paths only, holds
    // for this snapshot whatever the contents read below.
    let same_paths = paths_found == scanned.files.len() && cache.len() == paths_found;
    let fold_free = same_paths && cache.summary().is_some_and(|s| s.fold_free);
    // Every file found in the cache and no entry left over: the file list is the one the
    // cache's summary (if any) was taken of, so that is the snapshot (see `crate::statcache`).
    let cache_current = from_cache == scanned.files.len() && cache.len() == from_cache;
    if let Some(summary) = cache.summary().filter(|_| cache_current) {
        // Kept for a v0.1 tree only (small): the store may add the document's fields.
        let pending = opts
            .stat_cache
            .as_ref()
            .filter(|_| hashing.stores && scanned.files.len() <= super::MAX_FILES)
            .map(|path| PendingCache {
                path: path.clone(),
                cache: std::mem::take(&mut cache),
                changed: false,
                summarise: false,
                recent: None,
            });
        drop(cache);
        return Ok((summarised(scanned, blobs, summary), pending));
    }
    let mut read = super::read::hash_misses(
        root,
        &scanned.files,
        &misses,
        opts.max_file_bytes,
        hashing.hash,
        hashing.threads,
    )?;
    drop(misses);
    read.sort_unstable_by_key(|r| r.0);
    // When the cache is current, its entries are already what `from_scan` would give (a
    // cached entry was not racy when cached, its fields are the same, and the racy limit only
    // moves forward); it still lacks its summary, which is added below.
    // Otherwise it is rebuilt only when its entries change: not when the only files it lacks
    // are still racy, as a file just edited is (then it keeps its summary, which is that of
    // its entries).
    let fresh = opts
        .stat_cache
        .as_ref()
        .filter(|_| hashing.stores)
        .and_then(|path| {
            if cache_current {
                return Some((path, std::mem::take(&mut cache)));
            }
            let sizes = hashed_in_order(&scanned.files, &blobs, &read).map(|(_, n)| n);
            let hits = scanned.files.iter().zip(&blobs).zip(sizes);
            if cache.entries_unchanged(hits.map(|((f, b), n)| (f, b.is_some(), n)), started) {
                return None;
            }
            // Given back before the new one is built: the two are never held together.
            drop(std::mem::take(&mut cache));
            let hashed: Vec<(Digest, u64)> =
                hashed_in_order(&scanned.files, &blobs, &read).collect();
            Some((
                path,
                crate::statcache::StatCache::from_scan(&scanned.files, &hashed, started),
            ))
        });
    // The cache stays as it is and answered for every entry it has: the files are its
    // entries plus those read, so a recent snapshot of the same may give the identity.
    let recent = (fresh.is_none() && hashing.stores && cache.len() == from_cache)
        .then(|| recent_of(opts, &cache, &scanned.files, &read))
        .flatten();
    drop(cache);
    let executable = executable_of(&scanned.files);
    let n = scanned.files.len();
    let mut read = read.into_iter();
    let hashed: Vec<SnapshotFile> = scanned
        .files
        .into_iter()
        .zip(blobs)
        .map(|(f, b)| {
            let (blob, bytes) = match b {
                Some(d) => (d, f.stat.size),
                None => read.next().expect("a file not in the cache was read").1,
            };
            SnapshotFile {
                path: f.path,
                blob,
                bytes,
            }
        })
        .collect();
    let remembered = recent.as_ref().and_then(|r| r.hit.as_ref());
    let identity_cached = remembered.is_some();
    let (snapshot, nodes_hashed) = match remembered {
        Some(r) => (Snapshot::from_summary(hashed, r.summary()), 0),
        None => snapshot_with_tree_cache(opts, hashed, &executable)?,
    };
    if fold_free {
        snapshot.know_fold_free();
    }
    let pending = pending_of(fresh, recent, &snapshot, n);
    let outcome = SnapshotOutcome {
        snapshot,
        executable,
        skipped: scanned.skipped,
        hashed: n - from_cache,
        from_cache,
        nodes_hashed,
        tracked_only: scanned.tracked_only,
        identity_cached,
    };
    Ok((outcome, pending))
}

/// The blob `cache` gives each of `files` (sorted by path bytes), if `trust` accepts it: one
/// merge pass over the two sorted lists (in pieces, for long ones). A hit's size is the one
/// the scan saw (the cache matched it); only the misses are read. Also how many of `files`
/// have an entry of their path ([`crate::statcache::StatCache::lookup_sorted_counted`]).
fn trusted_hits(
    cache: &crate::statcache::StatCache,
    files: &[ScannedFile],
    trust: &(dyn Fn(&Digest) -> bool + Sync),
) -> (Vec<Option<Digest>>, usize) {
    let (mut blobs, paths_found) = cache.lookup_sorted_counted(files);
    for b in &mut blobs {
        if b.is_some_and(|d| !trust(&d)) {
            *b = None;
        }
    }
    (blobs, paths_found)
}

/// The stat cache of [`SnapshotOptions::stat_cache`] (empty without one) and the scan of
/// `root`: the cache is read on one thread while the walk starts on the other. A loaded cache
/// is the file's bytes (nothing decoded into a copy), so the two are held together once.
fn load_and_scan(
    root: &Path,
    opts: &SnapshotOptions,
) -> (
    crate::statcache::StatCache,
    Result<ScanOutcome, SnapshotError>,
) {
    rayon::join(
        || {
            opts.stat_cache
                .as_deref()
                .map(crate::statcache::StatCache::load)
                .unwrap_or_default()
        },
        || scan(root, opts),
    )
}

/// The paths of `files` whose owner's executable bit is set.
fn executable_of(files: &[ScannedFile]) -> BTreeSet<WorkspacePath> {
    files
        .iter()
        .filter(|f| f.executable)
        .map(|f| f.path.clone())
        .collect()
}

/// The outcome of a scan whose every file the stat cache answered, with no entry left over
/// (`blobs` all `Some`): the snapshot its summary names, nothing built or hashed.
fn summarised(
    scanned: ScanOutcome,
    blobs: Vec<Option<Digest>>,
    summary: crate::statcache::Summary,
) -> SnapshotOutcome {
    let executable = executable_of(&scanned.files);
    let n = scanned.files.len();
    let files = scanned
        .files
        .into_iter()
        .zip(blobs)
        .filter_map(|(f, b)| {
            Some(SnapshotFile {
                blob: b?,
                bytes: f.stat.size,
                path: f.path,
            })
        })
        .collect::<Vec<_>>();
    debug_assert_eq!(files.len(), n);
    SnapshotOutcome {
        snapshot: Snapshot::from_summary(files, summary),
        executable,
        skipped: scanned.skipped,
        hashed: 0,
        from_cache: n,
        nodes_hashed: 0,
        tracked_only: scanned.tracked_only,
        identity_cached: true,
    }
}

/// What a snapshot of `n` files leaves to write: the new stat cache `fresh` (the summary only
/// when the cache holds every file, none racy: then its entries are exactly this snapshot's
/// files; set when it is written, [`PendingCache::finish`]), else the `recent` snapshots of a
/// v0.1 snapshot.
fn pending_of(
    fresh: Option<(&PathBuf, crate::statcache::StatCache)>,
    recent: Option<PendingRecent>,
    snapshot: &Snapshot,
    n: usize,
) -> Option<PendingCache> {
    match fresh {
        Some((path, mut fresh)) => {
            let summarise = fresh.len() == n;
            fresh.set_summary(None);
            Some(PendingCache {
                path: path.clone(),
                cache: fresh,
                changed: true,
                summarise,
                recent: None,
            })
        }
        None => recent
            .filter(|_| snapshot.format() == super::SnapshotFormat::V0_1)
            .map(|r| PendingCache {
                path: r.path.with_extension("bin"),
                cache: crate::statcache::StatCache::default(),
                changed: false,
                summarise: false,
                recent: Some(r),
            }),
    }
}

/// The recent snapshots beside the stat cache `cache` (loaded from
/// [`SnapshotOptions::stat_cache`]) and the key of a snapshot of `files` that read `read`
/// (sorted by index) and took every other file from `cache`: `None` when there is no such
/// cache, or nothing or more than [`recent::MAX_READ`] files were read, or the files are too
/// many for v0.1.
fn recent_of(
    opts: &SnapshotOptions,
    cache: &crate::statcache::StatCache,
    files: &[ScannedFile],
    read: &[super::read::Hashed],
) -> Option<PendingRecent> {
    let generation = cache.generation()?;
    let stat_cache = opts.stat_cache.as_deref()?;
    if read.is_empty() || read.len() > recent::MAX_READ || files.len() > super::MAX_FILES {
        return None;
    }
    let key = recent::Key {
        generation,
        files: u32::try_from(files.len()).ok()?,
        read: read
            .iter()
            .map(|(i, (blob, bytes))| (files[*i].path.as_str().to_owned(), *blob, *bytes))
            .collect(),
    };
    let path = stat_cache.with_extension("recent");
    let snapshots = RecentSnapshots::load(&path);
    let hit = snapshots.find(&key).cloned();
    Some(PendingRecent {
        path,
        snapshots,
        key,
        hit,
    })
}

/// The blob and size of each of `files` in order: its cached blob (`blobs[i]`) with the size
/// the scan saw, else what reading it gave (`read`, sorted by index, holding every index whose
/// blob is `None`).
fn hashed_in_order<'a>(
    files: &'a [ScannedFile],
    blobs: &'a [Option<Digest>],
    read: &'a [super::read::Hashed],
) -> impl Iterator<Item = (Digest, u64)> + 'a {
    let mut read = read.iter().peekable();
    files
        .iter()
        .zip(blobs)
        .enumerate()
        .map(move |(i, (f, b))| match b {
            Some(d) => (*d, f.bytes()),
            None => {
                let r = read.next().expect("a file not in the cache was read");
                debug_assert_eq!(r.0, i);
                r.1
            }
        })
}

/// The snapshot of `hashed` with the executable bits `executable`, its v0.2 nodes taken from
/// and saved to the tree cache beside [`SnapshotOptions::stat_cache`] when there is one; and
/// how many nodes were hashed.
fn snapshot_with_tree_cache(
    opts: &SnapshotOptions,
    hashed: Vec<SnapshotFile>,
    executable: &BTreeSet<WorkspacePath>,
) -> Result<(Snapshot, usize), SnapshotError> {
    // The tree cache sits beside the stat cache: `<key>.tree` beside `<key>.bin`.
    let tree_cache_path = opts.stat_cache.as_deref().map(|p| p.with_extension("tree"));
    let known = tree_cache_path
        .as_deref()
        .map(crate::tree::TreeCache::load)
        .unwrap_or_default();
    let snapshot = Snapshot::with_tree_cache(
        hashed,
        executable,
        None,
        tree_cache_path.is_some().then_some(&known),
    )
    .map_err(SnapshotError::Document)?;
    let nodes_hashed = snapshot.built_tree().map_or(0, |t| t.fresh_count());
    if let (Some(path), Some(tree)) = (&tree_cache_path, snapshot.built_tree())
        // Every directory took its identity from the cache, and the cache has no other: it is
        // already what `TreeCache::of` would give.
        && !(nodes_hashed == 0 && known.len() == tree.node_count())
    {
        let fresh = crate::tree::TreeCache::of(tree);
        // Rewritten only when a directory changed; one that cannot be written only costs
        // speed next time.
        if fresh != known {
            let _ = fresh.save(path);
        }
    }
    Ok((snapshot, nodes_hashed))
}
