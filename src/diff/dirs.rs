//! Two directories compared file by file ([`Tree::compare_contents`]): the files are paired by
//! path and a pair is decided by its bytes (a different size, or the first differing chunk),
//! so nothing both sides hold alike is hashed. Only the files that differ (and those on one
//! side only) are hashed, for their blobs.
//!
//! Membership is decided exactly as [`Tree::compare`] decides it (each directory scanned with
//! its options, widened by the other side's paths), from the same [`scan`]; a file is read
//! through [`open_regular`] as the snapshot reads it, so the same read errors come out.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;

use rayon::prelude::*;

use super::{DiffError, Source, Tree};
use crate::hash::Digest;
use crate::snapshot::{
    ScanOutcome, ScannedFile, Snapshot, SnapshotError, SnapshotFile, SnapshotOptions, hash_file,
    open_regular, scan, snapshot_identity,
};

/// Bytes compared per read, on each side.
const CHUNK: usize = 256 * 1024;

thread_local! {
    /// The two read buffers of a comparing thread (allocated once per thread, not per file).
    static BUFFERS: RefCell<(Vec<u8>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// One path of either directory, as the merge of the two sorted scans pairs it.
enum Pair<'a> {
    Old(&'a ScannedFile),
    New(&'a ScannedFile),
    Both(&'a ScannedFile, &'a ScannedFile),
}

impl Pair<'_> {
    /// The larger size of the pair, to hand the largest files out first.
    fn bytes(&self) -> u64 {
        match self {
            Pair::Old(f) | Pair::New(f) => f.bytes(),
            Pair::Both(a, b) => a.bytes().max(b.bytes()),
        }
    }
}

/// A side's blob and length (`None`: the path is not listed on that side).
type Found = Option<(Digest, u64)>;

/// The two trees of directories `a` and `b` with their options, each listing only its side of
/// the paths that differ (see the module docs and [`Tree::compare_contents`]).
pub(super) fn compare(
    (pa, oa): (&Path, &SnapshotOptions),
    (pb, ob): (&Path, &SnapshotOptions),
) -> Result<(Tree, Tree), DiffError> {
    let (sa, sb) = (scan(pa, oa)?, scan(pb, ob)?);
    // As `Tree::compare`: `b` widened by `a`'s first scan, then `a` by `b`'s first scan.
    let wb = widen(pb, ob, &sb, &sa)?;
    let wa = widen(pa, oa, &sa, &sb)?;
    let (fa, fb) = (
        &wa.as_ref().unwrap_or(&sa).files,
        &wb.as_ref().unwrap_or(&sb).files,
    );
    let pairs = pair(fa, fb);
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by_key(|i| std::cmp::Reverse(pairs[*i].bytes()));
    // One pair per task, largest first, as the snapshot hashes (see `snapshot_dir_using`).
    let decided: Vec<(usize, Found, Found)> = order
        .par_iter()
        .with_max_len(1)
        .map(|&i| {
            let (old, new) = decide(&pairs[i], (pa, oa), (pb, ob))?;
            Ok((i, old, new))
        })
        .collect::<Result<_, DiffError>>()?;
    let mut sides: Vec<(Found, Found)> = vec![(None, None); pairs.len()];
    for (i, old, new) in decided {
        sides[i] = (old, new);
    }
    let old = listed(&pairs, &sides, true);
    let new = listed(&pairs, &sides, false);
    Ok((partial(pa, old), partial(pb, new)))
}

/// The files of one side (`old`: directory `a`) that `sides` lists, with their executable
/// bits.
fn listed(
    pairs: &[Pair<'_>],
    sides: &[(Found, Found)],
    old: bool,
) -> (Vec<SnapshotFile>, BTreeSet<crate::WorkspacePath>) {
    let mut files = Vec::new();
    let mut executable = BTreeSet::new();
    for (p, s) in pairs.iter().zip(sides) {
        let f = match (p, old) {
            (Pair::Old(f) | Pair::Both(f, _), true) | (Pair::New(f) | Pair::Both(_, f), false) => f,
            _ => continue,
        };
        let Some((blob, bytes)) = (if old { s.0 } else { s.1 }) else {
            continue;
        };
        if f.executable {
            executable.insert(f.path.clone());
        }
        files.push(SnapshotFile {
            path: f.path.clone(),
            blob,
            bytes,
        });
    }
    (files, executable)
}

/// A tree listing only `files` (sorted) of the directory `root`. Its identity is that of the
/// files listed, not of the directory, which is never computed.
fn partial(
    root: &Path,
    (files, executable): (Vec<SnapshotFile>, BTreeSet<crate::WorkspacePath>),
) -> Tree {
    Tree {
        snapshot: Snapshot::partial_v0_2(snapshot_identity(&files), files),
        executable,
        source: Source::Dir(root.to_path_buf()),
        partial: true,
    }
}

/// `Operand::widen` on scans: `own` scanned again with the paths of `other` added to its
/// tracked set, when `other` holds a path `own` lacks; `None` when it holds none.
fn widen(
    root: &Path,
    opts: &SnapshotOptions,
    own: &ScanOutcome,
    other: &ScanOutcome,
) -> Result<Option<ScanOutcome>, DiffError> {
    let has = |q: &crate::WorkspacePath| own.files.binary_search_by(|f| f.path.cmp(q)).is_ok();
    if other.files.iter().all(|f| has(&f.path)) {
        return Ok(None);
    }
    let mut opts = opts.clone();
    opts.tracked = std::sync::Arc::new(
        opts.tracked
            .with_paths(other.files.iter().map(|f| f.path.as_str())),
    );
    Ok(Some(scan(root, &opts)?))
}

/// The two sorted file lists merged by path ([`crate::tree::merge`]).
fn pair<'a>(fa: &'a [ScannedFile], fb: &'a [ScannedFile]) -> Vec<Pair<'a>> {
    crate::tree::merge(fa, fb, |f| f.path.as_str())
        .into_iter()
        .filter_map(|sides| match sides {
            (Some(x), Some(y)) => Some(Pair::Both(x, y)),
            (Some(x), None) => Some(Pair::Old(x)),
            (None, Some(y)) => Some(Pair::New(y)),
            (None, None) => None,
        })
        .collect()
}

/// The blobs of a pair's sides that are listed: none for two files with the same bytes and
/// executable bit; one blob for both when only the bit differs; each side's own otherwise.
/// Each side is given as its directory and options.
fn decide(
    pair: &Pair<'_>,
    a_side: (&Path, &SnapshotOptions),
    b_side: (&Path, &SnapshotOptions),
) -> Result<(Found, Found), DiffError> {
    match pair {
        Pair::Old(f) => Ok((Some(hashed(f, a_side)?), None)),
        Pair::New(f) => Ok((None, Some(hashed(f, b_side)?))),
        Pair::Both(a, b) => match same_bytes((a, a_side), (b, b_side))? {
            true if a.executable == b.executable => Ok((None, None)),
            true => {
                let h = hashed(a, a_side)?;
                Ok((Some(h), Some(h)))
            }
            false => Ok((Some(hashed(a, a_side)?), Some(hashed(b, b_side)?))),
        },
    }
}

/// The blob and length of `f` (found below `root`), as the snapshot hashes it (the size limit
/// checked on the bytes read).
fn hashed(
    f: &ScannedFile,
    (root, opts): (&Path, &SnapshotOptions),
) -> Result<(Digest, u64), SnapshotError> {
    let (blob, bytes) = hash_file(&f.fs_path(root))?;
    too_large(f, bytes, opts)?;
    Ok((blob, bytes))
}

fn too_large(f: &ScannedFile, bytes: u64, opts: &SnapshotOptions) -> Result<(), SnapshotError> {
    if bytes > opts.max_file_bytes {
        return Err(SnapshotError::FileTooLarge {
            path: f.path.clone(),
            bytes,
            limit: opts.max_file_bytes,
        });
    }
    Ok(())
}

/// Whether `a` and `b` hold the same bytes: sizes from the scan first, then both read in
/// chunks up to the first difference. Both are opened as the snapshot opens a file (so a file
/// that cannot be read is the snapshot's error), and two equal files are read to their ends
/// (their lengths checked against the size limits as the snapshot checks them).
fn same_bytes(
    (a, (ra, oa)): (&ScannedFile, (&Path, &SnapshotOptions)),
    (b, (rb, ob)): (&ScannedFile, (&Path, &SnapshotOptions)),
) -> Result<bool, SnapshotError> {
    let (pa, pb) = (a.fs_path(ra), b.fs_path(rb));
    let (mut fa, mut fb) = (open_regular(&pa)?, open_regular(&pb)?);
    if a.bytes() != b.bytes() {
        return Ok(false);
    }
    let read_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SnapshotError::Read { path, source }
    };
    BUFFERS.with(|cell| {
        let mut bufs = cell.borrow_mut();
        let (ba, bb) = &mut *bufs;
        ba.resize(CHUNK, 0);
        bb.resize(CHUNK, 0);
        let mut total = 0u64;
        loop {
            let na = fill(&mut fa, ba).map_err(read_err(&pa))?;
            let nb = fill(&mut fb, bb).map_err(read_err(&pb))?;
            if na != nb || ba[..na] != bb[..nb] {
                return Ok(false);
            }
            total += na as u64;
            if na < CHUNK {
                too_large(a, total, oa)?;
                too_large(b, total, ob)?;
                return Ok(true);
            }
        }
    })
}

/// Reads into `buf` until it is full or the file ends; returns the bytes read.
fn fill(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
