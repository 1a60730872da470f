//! Measures v0.2 tree building on a real directory: `cargo run --release --example tree_measure
//! DIR`. Prints the file and node counts, the nodes' total canonical bytes, and the time of a
//! full build, of a rebuild reusing every unchanged directory (nothing changed, and one file
//! changed), and of `tree::diff` of two in-memory trees differing in one file.

use std::collections::HashMap;
use std::time::Instant;

use genesis::hash::Digest;
use genesis::snapshot::{SnapshotOptions, snapshot_dir};
use genesis::tree::{Node, NodeError, NodeSource, build};

struct Mem(HashMap<Digest, Vec<u8>>, std::cell::Cell<usize>);

impl NodeSource for Mem {
    type Error = NodeError;
    fn node(&self, id: &Digest) -> Result<Node, NodeError> {
        self.1.set(self.1.get() + 1);
        Node::parse(*id, &self.0[id])
    }
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: tree_measure DIR");
    let out = snapshot_dir(std::path::Path::new(&dir), &SnapshotOptions::default()).unwrap();
    let files = out.snapshot.files().to_vec();
    let exec = out.executable;
    let runs = 20;
    let t = Instant::now();
    let mut full = build(&files, &exec, None);
    for _ in 1..runs {
        full = build(&files, &exec, None);
    }
    let cold = t.elapsed() / runs;
    let bytes: usize = full
        .dirs
        .values()
        .map(|n| n.node.canonical_bytes().len())
        .sum();
    let t = Instant::now();
    for _ in 0..runs {
        let again = build(&files, &exec, Some(&full));
        assert_eq!(again.root, full.root);
    }
    let unchanged = t.elapsed() / runs;
    let mut changed = files.clone();
    let i = changed.len() / 2;
    changed[i].blob = Digest::of(b"changed");
    let t = Instant::now();
    let mut one = build(&changed, &exec, Some(&full));
    for _ in 1..runs {
        one = build(&changed, &exec, Some(&full));
    }
    let one_changed = t.elapsed() / runs;
    let mut mem = HashMap::new();
    for n in full.dirs.values().chain(one.dirs.values()) {
        mem.insert(n.identity, n.node.canonical_bytes());
    }
    let mem = Mem(mem, std::cell::Cell::new(0));
    let t = Instant::now();
    let d = genesis::tree::diff(&mem, &full.root, &one.root).unwrap();
    let diff_time = t.elapsed();
    println!(
        "files {} nodes {} node bytes {} format {:?} identity {}",
        files.len(),
        full.node_count(),
        bytes,
        out.snapshot.format(),
        out.snapshot.identity()
    );
    println!(
        "build cold {cold:?}; reuse, nothing changed {unchanged:?} ({} fresh); reuse, one file changed {one_changed:?} ({} fresh)",
        build(&files, &exec, Some(&full)).fresh_count(),
        one.fresh_count()
    );
    println!(
        "diff of the two: {} change(s), {} node reads, {diff_time:?}",
        d.len(),
        mem.1.get()
    );
}
