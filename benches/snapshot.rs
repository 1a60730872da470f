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
