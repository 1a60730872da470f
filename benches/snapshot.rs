//! Library-level benchmarks (on demand: `cargo bench`; never in CI). The side-by-side
//! comparison with git and openssl is `bench/run.sh`; results in BENCHMARKS.md.

use std::sync::OnceLock;

use genesis::snapshot::{SnapshotOptions, snapshot_dir};

fn main() {
    divan::main();
}

/// A generated tree: 1000 files of 1–64 KiB (about 32 MiB), made once per run.
fn tree() -> &'static std::path::Path {
    static TREE: OnceLock<tempfile::TempDir> = OnceLock::new();
    TREE.get_or_init(|| {
        let d = tempfile::tempdir().expect("tempdir");
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = 1024 + (x % (63 * 1024)) as usize;
            let data: Vec<u8> = (0..len).map(|k| (k as u64).wrapping_mul(x) as u8).collect();
            let p = d.path().join(format!("d{}/f{i}.bin", i % 16));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, data).unwrap();
        }
        d
    })
    .path()
}

#[divan::bench]
fn cold_snapshot_1000_files() -> genesis::Digest {
    snapshot_dir(tree(), &SnapshotOptions::default())
        .unwrap()
        .snapshot
        .identity()
}

#[divan::bench]
fn cached_snapshot_1000_files(bencher: divan::Bencher) {
    let cache = tempfile::tempdir().unwrap();
    let opts = SnapshotOptions {
        stat_cache: Some(cache.path().join("cache.json")),
        ..SnapshotOptions::default()
    };
    std::thread::sleep(std::time::Duration::from_millis(2100));
    snapshot_dir(tree(), &opts).unwrap();
    bencher.bench(|| snapshot_dir(tree(), &opts).unwrap().snapshot.identity());
}

/// The largest v0.1 snapshot document (4096 files, about 770 KB pretty-printed), made once.
fn big_document() -> &'static [u8] {
    static DOC: OnceLock<Vec<u8>> = OnceLock::new();
    DOC.get_or_init(|| {
        let files: Vec<genesis::SnapshotFile> = (0..genesis::snapshot::MAX_FILES)
            .map(|i| genesis::SnapshotFile {
                path: format!("src/module_{:02}/file_{i:05}.rs", i % 64)
                    .parse()
                    .unwrap(),
                blob: genesis::Digest::of(&i.to_le_bytes()),
                bytes: i as u64 * 37,
            })
            .collect();
        genesis::Snapshot::from_files(files)
            .unwrap()
            .to_json_pretty()
            .into_bytes()
    })
}

/// `Snapshot::from_json` of the 4096-file document: strict parse (duplicate check + serde),
/// path checks and the identity hash.
#[divan::bench]
fn snapshot_from_json_4096_files() -> genesis::Digest {
    genesis::Snapshot::from_json(divan::black_box(big_document()))
        .unwrap()
        .identity()
}

/// The duplicate-key pass alone on the same document (the cost `genesis::json` adds).
#[divan::bench]
fn duplicate_key_check_4096_files() {
    genesis::json::check_no_duplicate_keys(divan::black_box(big_document())).unwrap();
}
