//! Unit tests of the stat cache (`statcache.rs`).

use super::*;

fn sample() -> StatCache {
    let mut b = Builder::with_capacity(0, 0);
    for (i, p) in ["a", "dir/b.txt", "é/ü"].iter().enumerate() {
        let stat = StatKey {
            size: 10 + i as u64,
            mtime_ns: -5 + i as i64,
            ctime_ns: 1_700_000_000_123_456_789,
            ino: u64::MAX - i as u64,
            dev: 2049,
        };
        assert!(b.push(p, stat, Digest::of(p.as_bytes()), i == 1));
    }
    b.cache
}

#[test]
fn lookups_find_exact_entries_only() {
    let c = sample();
    let stat = |i: u64| StatKey {
        size: 10 + i,
        mtime_ns: -5 + i as i64,
        ctime_ns: 1_700_000_000_123_456_789,
        ino: u64::MAX - i,
        dev: 2049,
    };
    assert_eq!(
        c.lookup("dir/b.txt", &stat(1)),
        Some(Digest::of(b"dir/b.txt"))
    );
    assert_eq!(c.lookup("dir/b.txt", &stat(2)), None);
    assert_eq!(c.lookup("dir", &stat(1)), None);
    let files: Vec<ScannedFile> = [
        ("a", 0, false),
        ("b", 1, false),
        ("dir/b.txt", 1, true),
        ("é/ü", 0, false),
    ]
    .iter()
    .map(|(p, i, x)| ScannedFile {
        path: WorkspacePath::new(*p).unwrap(),
        executable: *x,
        stat: stat(*i),
    })
    .collect();
    assert_eq!(
        c.lookup_sorted(&files),
        vec![
            Some(Digest::of(b"a")),
            None,
            Some(Digest::of(b"dir/b.txt")),
            None
        ]
    );
    // The executable bit is part of a match (a chmod changes ctime too, but the bit
    // recorded is the one the node holds).
    let mut flipped = files.clone();
    flipped[0].executable = true;
    flipped[2].executable = false;
    assert_eq!(c.lookup_sorted(&flipped), vec![None; 4]);
}

/// A long list is looked up in pieces on several threads; each file gets what a search of its
/// own gives, and the count is of the files whose path has an entry, at every piece boundary.
#[test]
fn pieces_look_up_as_one_pass_does() {
    let stat = |i: u64| StatKey {
        size: i,
        mtime_ns: 1,
        ctime_ns: 1,
        ino: i,
        dev: 1,
    };
    // 40,000 files (three pieces of 16,384); the cache lacks every 7th, has another stat for
    // every 11th, another executable bit for every 13th, and holds paths of its own between
    // them and after them.
    let files: Vec<ScannedFile> = (0..40_000u64)
        .map(|i| ScannedFile {
            path: WorkspacePath::new(format!("d{:02}/f{i:06}", i / 1000)).unwrap(),
            executable: i.is_multiple_of(13),
            stat: stat(i),
        })
        .collect();
    let mut b = Builder::with_capacity(0, 0);
    let mut extra = 0;
    for (i, f) in files.iter().enumerate() {
        let i = i as u64;
        if !i.is_multiple_of(7) {
            let s = if i.is_multiple_of(11) {
                stat(i + 1)
            } else {
                f.stat
            };
            let x = if i.is_multiple_of(13) {
                false
            } else {
                f.executable
            };
            assert!(b.push(f.path.as_str(), s, Digest::of(&i.to_le_bytes()), x));
        }
        if i.is_multiple_of(5000) {
            assert!(b.push(&format!("{}x", f.path), stat(i), Digest::of(b"x"), false));
            extra += 1;
        }
    }
    assert!(b.push("zz", stat(0), Digest::of(b"zz"), false));
    let c = b.cache;
    let (blobs, found) = c.lookup_sorted_counted(&files);
    let expected: Vec<Option<Digest>> = files
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let i = i as u64;
            (!i.is_multiple_of(7) && !i.is_multiple_of(11) && !i.is_multiple_of(13))
                .then(|| Digest::of(&i.to_le_bytes()))
        })
        .collect();
    assert_eq!(blobs, expected);
    assert_eq!(found, 40_000 - 40_000usize.div_ceil(7));
    assert_eq!(c.len(), found + extra + 1);
    // One piece's worth, one pass: the same answer for the same files.
    assert_eq!(
        c.lookup_sorted_counted(&files[..20_000]).0,
        &expected[..20_000]
    );
    // Every file present: the count says the paths are exactly the entries'.
    let all: Vec<ScannedFile> = files
        .iter()
        .filter(|f| c.find(f.path.as_str().as_bytes()).is_some())
        .cloned()
        .collect();
    assert_eq!(c.lookup_sorted_counted(&all).1, all.len());
}

/// `entries_unchanged` says what comparing `from_scan`'s cache with this one says.
#[test]
fn entries_unchanged_agrees_with_from_scan() {
    let now = 10 * RACY_WINDOW_NS;
    let file = |p: &str, ino: u64, young: bool| ScannedFile {
        path: WorkspacePath::new(p).unwrap(),
        executable: false,
        stat: StatKey {
            size: 2,
            mtime_ns: if young { now } else { 1 },
            ctime_ns: 1,
            ino,
            dev: 1,
        },
    };
    let blob = Digest::of(b"x");
    let base = [
        file("a", 1, false),
        file("b", 2, false),
        file("c", 3, false),
    ];
    let cache = StatCache::from_scan(&base, &[(blob, 2); 3], now);
    let check = |files: &[ScannedFile]| {
        let hits: Vec<bool> = cache
            .lookup_sorted(files)
            .iter()
            .map(Option::is_some)
            .collect();
        let fresh = StatCache::from_scan(files, &vec![(blob, 2); files.len()], now);
        let fast = cache.entries_unchanged(files.iter().zip(hits).map(|(f, h)| (f, h, 2)), now);
        assert_eq!(fast, fresh == cache, "{files:?}");
        fast
    };
    assert!(check(&base));
    // A young file the cache does not hold.
    assert!(check(&[
        base[0].clone(),
        file("ab", 9, true),
        base[1].clone(),
        base[2].clone()
    ]));
    // A young file the cache holds (it was just rewritten), an old one changed, one gone,
    // one new and old enough.
    assert!(!check(&[
        base[0].clone(),
        file("b", 2, true),
        base[2].clone()
    ]));
    assert!(!check(&[
        base[0].clone(),
        file("b", 7, false),
        base[2].clone()
    ]));
    assert!(!check(&[base[0].clone(), base[2].clone()]));
    assert!(!check(&[
        base[0].clone(),
        file("ab", 9, false),
        base[1].clone(),
        base[2].clone()
    ]));
}

#[test]
fn a_cache_round_trips_through_its_exact_layout() {
    let mut c = sample();
    let bytes = c.encode();
    // Header (112 bytes), three entries (paths "a", "dir/b.txt", "é/ü": 1, 9 and 5 bytes),
    // trailer.
    assert_eq!(bytes.len(), 112 + 3 * (4 + 73) + 1 + 9 + 5 + 4);
    assert_eq!(&bytes[..16], b"GNSTATC\0\x05\0\0\0\x03\0\0\0");
    // No summary: flags 0, identity, document fields and binding zero.
    assert_eq!(&bytes[16..96], &[0u8; 80]);
    // The generation: a UUIDv7 (version nibble 7), the one the cache was built with.
    assert_eq!(bytes[96 + 6] >> 4, 7);
    assert_eq!(
        c.generation().map(|g| g.to_vec()),
        Some(bytes[96..112].to_vec())
    );
    assert_eq!(&bytes[112..117], b"\x01\0\0\0a");
    assert_eq!(&bytes[117..125], &10u64.to_le_bytes());
    assert_eq!(&bytes[125..133], &(-5i64).to_le_bytes());
    assert_eq!(&bytes[157..189], Digest::of(b"a").as_bytes());
    // Flags of "a" (not executable), then "dir/b.txt" (executable).
    assert_eq!(bytes[189], 0);
    assert_eq!(bytes[190 + 4 + 9 + 72], 1);
    let n = bytes.len();
    // zlib's CRC-32 of the body ("123456789" gives the standard check value).
    assert_eq!(crc32fast::hash(b"123456789"), 0xcbf4_3926);
    assert_eq!(
        &bytes[n - 4..],
        &crc32fast::hash(&bytes[..n - 4]).to_le_bytes()
    );
    assert_eq!(StatCache::decode(&bytes), Some(c.clone()));
    let id = Digest::of(b"snapshot");
    c.set_summary(Some(Summary {
        identity: id,
        fold_free: true,
        document: None,
    }));
    let bytes = c.encode();
    assert_eq!(&bytes[16..20], &3u32.to_le_bytes());
    assert_eq!(&bytes[20..52], id.as_bytes());
    assert_eq!(&bytes[52..96], &[0u8; 44]);
    let back = StatCache::decode(&bytes).unwrap();
    assert_eq!(
        back.summary().map(|s| (s.identity, s.fold_free)),
        Some((id, true))
    );
    assert_ne!(back, sample());
    let mut no_summary = back.clone();
    no_summary.set_summary(None);
    assert_eq!(no_summary, sample());
    // With the document's fields: flag bit 2, and the five fields in order.
    let doc = StatKey {
        size: 651_322,
        mtime_ns: 1_764_000_000_000_000_001,
        ctime_ns: 1_764_000_000_000_000_002,
        ino: 77,
        dev: 2049,
    };
    c.set_summary(Some(Summary {
        identity: id,
        fold_free: false,
        document: Some(doc),
    }));
    let bytes = c.encode();
    assert_eq!(&bytes[16..20], &5u32.to_le_bytes());
    assert_eq!(&bytes[52..60], &651_322u64.to_le_bytes());
    assert_eq!(&bytes[60..68], &1_764_000_000_000_000_001i64.to_le_bytes());
    assert_eq!(&bytes[68..76], &1_764_000_000_000_000_002i64.to_le_bytes());
    assert_eq!(&bytes[76..84], &77u64.to_le_bytes());
    assert_eq!(&bytes[84..92], &2049u64.to_le_bytes());
    // Bound to the entries: their CRC-32.
    assert_eq!(
        &bytes[92..96],
        &crc32fast::hash(&bytes[112..n - 4]).to_le_bytes()
    );
    assert_eq!(
        StatCache::decode(&bytes)
            .unwrap()
            .summary()
            .unwrap()
            .document,
        Some(doc)
    );
}

#[test]
fn another_version_or_a_damaged_cache_is_empty() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("c.bin");
    sample().save(&p).unwrap();
    assert_eq!(StatCache::load(&p), sample());
    let good = std::fs::read(&p).unwrap();
    let mut damaged: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("truncated", good[..good.len() - 1].to_vec()),
        ("header only", good[..16].to_vec()),
        (
            "json of v0.1",
            br#"{"schema":"genesis/stat-cache-v0.1","entries":[]}"#.to_vec(),
        ),
    ];
    // With the checksum right: version 3 (no document fields), a count past the entries,
    // an unknown summary flag, the document's flag alone, an identity or document fields
    // without their flag, an unknown entry flag, the first path sorting after the second.
    let body = &good[..good.len() - 4];
    let resum = |what: &'static str, at: usize, byte: u8| {
        let mut b = body.to_vec();
        b[at] = byte;
        let sum = crc32fast::hash(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        (what, b)
    };
    damaged.push(resum("version 3", 8, 3));
    damaged.push(resum("version 4", 8, 4));
    damaged.push(resum("count too large", 12, 4));
    damaged.push(resum("unknown summary flag", 16, 8));
    damaged.push(resum("document flag without the identity's", 16, 4));
    damaged.push(resum("identity without its flag", 30, 1));
    damaged.push(resum("document fields without their flag", 60, 1));
    damaged.push(resum("a binding without the document flag", 93, 1));
    damaged.push(resum("unknown entry flag", 189, 2));
    damaged.push(resum("paths out of order", 116, b'z'));
    let mut flipped = good.clone();
    flipped[116] ^= 1;
    damaged.push(("a path byte flipped", flipped));
    for (what, bytes) in damaged {
        std::fs::write(&p, &bytes).unwrap();
        assert!(StatCache::load(&p).is_empty(), "{what}");
    }
    assert!(StatCache::load(&d.path().join("absent.bin")).is_empty());
}

/// The document fields hold only for the entries they were taken with: an entry changed
/// under them, or the summary of another cache copied in, with the trailer made right
/// again, makes the file no cache (reviewer, session 9).
#[test]
fn document_fields_are_bound_to_their_entries() {
    let mut c = sample();
    let doc = StatKey {
        size: 1,
        mtime_ns: 2,
        ctime_ns: 3,
        ino: 4,
        dev: 5,
    };
    c.set_summary(Some(Summary {
        identity: Digest::of(b"s"),
        fold_free: true,
        document: Some(doc),
    }));
    let good = c.encode();
    assert_eq!(StatCache::decode(&good), Some(c.clone()));
    let resum = |mut b: Vec<u8>| {
        let n = b.len() - 4;
        let sum = crc32fast::hash(&b[..n]);
        b[n..].copy_from_slice(&sum.to_le_bytes());
        b
    };
    // An entry's blob changed (the first entry's, after its path "a" and 40 bytes).
    let mut blob = good.clone();
    blob[112 + 4 + 1 + 40] ^= 1;
    assert_eq!(StatCache::decode(&resum(blob)), None);
    // The summary of this cache over the entries of another.
    let mut other = Builder::with_capacity(0, 0);
    other.push("x", doc, Digest::of(b"x"), false);
    let mut moved = other.cache.encode();
    moved[16..96].copy_from_slice(&good[16..96]);
    assert_eq!(StatCache::decode(&resum(moved)), None);
    // Without document fields the same change is taken as it is.
    let mut plain = c.clone();
    plain.set_summary(Some(Summary {
        document: None,
        ..c.summary().unwrap()
    }));
    let mut b = plain.encode();
    b[112 + 4 + 1 + 40] ^= 1;
    assert!(StatCache::decode(&resum(b)).is_some());
}

#[test]
fn saving_removes_the_json_cache_beside_it() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("k.json"), b"{}").unwrap();
    sample().save(&d.path().join("k.bin")).unwrap();
    assert!(!d.path().join("k.json").exists());
    assert_eq!(StatCache::load(&d.path().join("k.bin")), sample());
}

#[test]
fn the_generation_names_the_entries() {
    let (a, b) = (sample(), sample());
    assert!(a.generation().is_some());
    assert_ne!(a.generation(), b.generation(), "each build its own");
    assert_eq!(a, b, "equal entries are equal caches");
    // Kept through the file and through a change of the summary only.
    let back = StatCache::decode(&a.encode()).unwrap();
    assert_eq!(back.generation(), a.generation());
    let mut summed = back.clone();
    summed.set_summary(Some(Summary {
        identity: Digest::of(b"s"),
        fold_free: true,
        document: None,
    }));
    let again = StatCache::decode(&summed.encode()).unwrap();
    assert_eq!(again.generation(), a.generation());
    // The empty cache that stands for no file has none.
    assert_eq!(StatCache::default().generation(), None);
    let d = tempfile::tempdir().unwrap();
    assert_eq!(
        StatCache::load(&d.path().join("absent.bin")).generation(),
        None
    );
}
