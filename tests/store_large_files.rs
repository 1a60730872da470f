//! A file over 256 MiB goes into the store and back out streaming, with bounded memory
//! (issue 11, item 3; DESIGN section 3, "Object files"). The file is 300 MiB of generated
//! patterned bytes, so the test runs only with `GENESIS_EXHAUSTIVE=1` (about a minute in a
//! debug build); the same streaming code path runs always with small buffers in the unit
//! tests of `src/store/codec.rs`.

mod common;

use std::io::{Seek, SeekFrom, Write};

const MIB: u64 = 1 << 20;

/// Peak resident memory of this process so far (`VmHWM` of /proc/self/status), in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// Block `i` of the file: 1 MiB of lines numbered from `i`, so blocks differ but compress.
fn block(i: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(MIB as usize + 64);
    let mut n = i * 100_000;
    while (v.len() as u64) < MIB {
        v.extend_from_slice(format!("{n:012} patterned line of a large file\n").as_bytes());
        n += 1;
    }
    v.truncate(MIB as usize);
    v
}

#[test]
fn a_300_mib_file_is_stored_and_written_back_with_bounded_memory() {
    if !common::exhaustive() {
        eprintln!("skipped: set GENESIS_EXHAUSTIVE=1");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let store = genesis::Store::init(&d.path().join("store")).unwrap();
    let src = d.path().join("big.log");
    let mut hasher = genesis::hash::Hasher::new();
    {
        let mut f = std::fs::File::create(&src).unwrap();
        for i in 0..300 {
            let b = block(i);
            hasher.update(&b);
            f.write_all(&b).unwrap();
        }
    }
    let expected = hasher.finish();
    let before = peak_rss();
    let (digest, len) = store.ingest_file(&src).unwrap();
    assert_eq!((digest, len), (expected, 300 * MIB));
    let object = store.object_path(&digest);
    let stored = std::fs::metadata(&object).unwrap().len();
    assert!(stored < 300 * MIB / 4, "stored {stored} bytes");
    let mut out = tempfile::tempfile().unwrap();
    assert_eq!(store.copy_object_to(&digest, &mut out).unwrap(), 300 * MIB);
    let grown = peak_rss().saturating_sub(before);
    assert!(
        grown < 64 * MIB,
        "peak memory grew by {grown} bytes for a 300 MiB file"
    );
    // Byte for byte: the written file hashes to the name and has the first and last blocks.
    out.seek(SeekFrom::Start(0)).unwrap();
    let (back, n) = genesis::Digest::of_reader(&mut out).unwrap();
    assert_eq!((back, n), (expected, 300 * MIB));
    let mut first = vec![0u8; MIB as usize];
    out.seek(SeekFrom::Start(0)).unwrap();
    std::io::Read::read_exact(&mut out, &mut first).unwrap();
    assert_eq!(first, block(0));
    std::fs::remove_file(&src).unwrap();
}
