use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};

use super::*;

/// An in-memory node store that counts reads.
#[derive(Default)]
struct Mem {
    nodes: RefCell<HashMap<Digest, Vec<u8>>>,
    reads: Cell<usize>,
}

impl Mem {
    fn put(&self, t: &BuiltTree) {
        for n in t.dirs.values() {
            let bytes = n.node.canonical_bytes();
            assert_eq!(Digest::of(&bytes), n.identity);
            self.nodes.borrow_mut().insert(n.identity, bytes);
        }
    }
}

impl NodeSource for Mem {
    type Error = NodeError;
    fn node(&self, id: &Digest) -> Result<Node, NodeError> {
        self.reads.set(self.reads.get() + 1);
        let bytes = self.nodes.borrow().get(id).cloned().expect("node stored");
        Node::parse(*id, &bytes)
    }
}

/// A flat-list entry (the engine's is `SnapshotFile`, a module above this one).
#[derive(Debug, Clone, PartialEq, Eq)]
struct F {
    path: WorkspacePath,
    blob: Digest,
    bytes: u64,
}

impl TreeFile for F {
    fn tree_path(&self) -> &WorkspacePath {
        &self.path
    }
    fn tree_blob(&self) -> Digest {
        self.blob
    }
    fn tree_bytes(&self) -> u64 {
        self.bytes
    }
}

fn file(path: &str, content: &str) -> F {
    F {
        path: WorkspacePath::new(path).unwrap(),
        blob: Digest::of(content.as_bytes()),
        bytes: content.len() as u64,
    }
}

fn sorted(mut v: Vec<F>) -> Vec<F> {
    v.sort_by(|a, b| a.path.cmp(&b.path));
    v
}

fn exec(paths: &[&str]) -> BTreeSet<WorkspacePath> {
    paths
        .iter()
        .map(|p| WorkspacePath::new(*p).unwrap())
        .collect()
}

#[test]
fn empty_tree_is_root_with_two_empty_lists() {
    let t = build::<F>(&[], &BTreeSet::new(), None);
    assert_eq!(t.node_count(), 1);
    let bytes = t.dirs[""].node.canonical_bytes();
    assert_eq!(
        bytes,
        br#"{"directories":[],"files":[],"schema":"genesis/tree-v0.2"}"#
    );
    assert_eq!(t.root, Digest::of(&bytes));
}

#[test]
fn order_trap_sorts_per_directory() {
    let files = sorted(vec![file("a.b", "1"), file("a/b", "2"), file("a0", "3")]);
    assert_eq!(
        files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
        ["a.b", "a/b", "a0"]
    );
    let t = build(&files, &BTreeSet::new(), None);
    let root = &t.dirs[""].node;
    assert_eq!(root.directories.len(), 1);
    assert_eq!(root.directories[0].name, "a");
    assert_eq!(
        root.files
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>(),
        ["a.b", "a0"]
    );
    let text = String::from_utf8(root.canonical_bytes()).unwrap();
    assert!(
        text.starts_with(r#"{"directories":[{"name":"a","node":""#),
        "{text}"
    );
}

#[test]
fn round_trip_through_nodes_gives_the_flat_list_and_exec_bits() {
    let files = sorted(vec![
        file("a.b", "1"),
        file("a/b", "2"),
        file("a/c/d", "3"),
        file("a0", "4"),
        file("z/caf\u{e9}", "5"),
    ]);
    let x = exec(&["a/c/d"]);
    let t = build(&files, &x, None);
    let mem = Mem::default();
    mem.put(&t);
    let back = read_flat(&mem, &t.root).unwrap();
    let want: Vec<FlatFile> = files
        .iter()
        .map(|f| FlatFile {
            path: f.path.clone(),
            blob: f.blob,
            bytes: f.bytes,
            executable: x.contains(&f.path),
        })
        .collect();
    assert_eq!(back, want);
    // The executable bit is part of the identity.
    assert_ne!(build(&files, &BTreeSet::new(), None).root, t.root);
}

#[test]
fn unchanged_directories_are_reused_not_rehashed() {
    let mut files: Vec<F> = (0..50)
        .flat_map(|d| (0..20).map(move |f| file(&format!("d{d}/f{f}"), &format!("{d}-{f}"))))
        .collect();
    files = sorted(files);
    let t1 = build(&files, &BTreeSet::new(), None);
    assert_eq!(t1.node_count(), 51);
    assert_eq!(t1.fresh_count(), 51);
    let i = files
        .iter()
        .position(|f| f.path.as_str() == "d7/f3")
        .unwrap();
    files[i].blob = Digest::of(b"changed");
    let t2 = build(&files, &BTreeSet::new(), Some(&t1));
    // Only d7 and the root are serialised and hashed again.
    assert_eq!(t2.fresh_count(), 2);
    assert_eq!(t2, {
        let mut full = build(&files, &BTreeSet::new(), None);
        for (k, n) in full.dirs.iter_mut() {
            n.fresh = t2.dirs[k].fresh;
        }
        full
    });
}

#[test]
fn diff_reads_only_differing_nodes() {
    let mut files: Vec<F> = (0..30)
        .flat_map(|d| (0..5).map(move |f| file(&format!("d{d}/s/f{f}"), &format!("{d}-{f}"))))
        .collect();
    files = sorted(files);
    let ta = build(&files, &BTreeSet::new(), None);
    let i = files
        .iter()
        .position(|f| f.path.as_str() == "d12/s/f2")
        .unwrap();
    files[i].blob = Digest::of(b"changed");
    files.push(file("new/x", "n"));
    files = sorted(files);
    let tb = build(&files, &exec(&["d3/s/f0"]), None);
    let mem = Mem::default();
    mem.put(&ta);
    mem.put(&tb);
    let changes = diff(&mem, &ta.root, &tb.root).unwrap();
    let got: Vec<(char, &str)> = changes
        .iter()
        .map(|c| (c.letter(), c.path.as_str()))
        .collect();
    assert_eq!(got, [('M', "d12/s/f2"), ('M', "d3/s/f0"), ('A', "new/x")]);
    assert!(changes[1].new.as_ref().unwrap().executable);
    // Roots (2) + d12, d12/s (2 each) + d3, d3/s (2 each) + new (1): 11 of 2 × 61 nodes.
    assert_eq!(mem.reads.get(), 11);
    mem.reads.set(0);
    assert!(diff(&mem, &ta.root, &ta.root).unwrap().is_empty());
    assert_eq!(mem.reads.get(), 0);
}

#[test]
fn parse_rejects_non_canonical_unsorted_and_bad_names() {
    let id = Digest::EMPTY;
    let pretty = br#"{"directories": [], "files": [], "schema": "genesis/tree-v0.2"}"#;
    assert_eq!(
        Node::parse(id, pretty),
        Err(NodeError::NotCanonical { node: id })
    );
    let b = Digest::of(b"x").to_hex();
    let unsorted = format!(
        r#"{{"directories":[],"files":[{{"blob":"{b}","bytes":1,"executable":false,"name":"b"}},{{"blob":"{b}","bytes":1,"executable":false,"name":"a"}}],"schema":"genesis/tree-v0.2"}}"#
    );
    assert!(matches!(
        Node::parse(id, unsorted.as_bytes()),
        Err(NodeError::Order {
            list: "files",
            index: 1,
            ..
        })
    ));
    let slash = format!(
        r#"{{"directories":[],"files":[{{"blob":"{b}","bytes":1,"executable":false,"name":"a/b"}}],"schema":"genesis/tree-v0.2"}}"#
    );
    assert!(matches!(
        Node::parse(id, slash.as_bytes()),
        Err(NodeError::Name {
            list: "files",
            index: 0,
            ..
        })
    ));
    let schema = br#"{"directories":[],"files":[],"schema":"genesis/tree-v0.3"}"#;
    assert!(matches!(
        Node::parse(id, schema),
        Err(NodeError::Schema { .. })
    ));
}

#[test]
fn nodes_read_back_are_reused_by_the_next_build() {
    let mut files = sorted(vec![
        file("a/b/c", "1"),
        file("a/d", "2"),
        file("e/f", "3"),
        file("g", "4"),
    ]);
    let t = build(&files, &BTreeSet::new(), None);
    let mem = Mem::default();
    mem.put(&t);
    let (_, read) = read_tree(&mem, &t.root).unwrap();
    assert_eq!(read.node_count(), 4); // root, a, a/b, e
    assert_eq!(
        build(&files, &BTreeSet::new(), Some(&read)).fresh_count(),
        0
    );
    files[0].blob = Digest::of(b"x");
    // a/b, a and the root; e is reused.
    assert_eq!(
        build(&files, &BTreeSet::new(), Some(&read)).fresh_count(),
        3
    );
}

/// The node's bytes as serde_jcs writes them (the writer `canonical_bytes` replaced).
fn serde_jcs_bytes(n: &Node) -> Vec<u8> {
    crate::hash::canonical_json(&NodeJson {
        directories: std::borrow::Cow::Borrowed(&n.directories),
        files: std::borrow::Cow::Borrowed(&n.files),
        schema: std::borrow::Cow::Borrowed(TREE_SCHEMA),
    })
    .unwrap()
}

#[test]
fn hand_written_jcs_escapes_as_serde_jcs() {
    let names = [
        "",
        "plain",
        "q\"uote",
        "back\\slash",
        "\u{0}\u{1}\u{7}\u{8}\t\n\u{b}\u{c}\r\u{e}\u{1f}",
        "\u{7f}",
        "/",
        "é",
        "\u{2028}\u{2029}",
        "😀\u{10ffff}",
        "\u{feff}",
    ];
    let n = Node {
        directories: names
            .iter()
            .map(|s| DirEntry {
                name: s.to_string(),
                node: Digest::of(s.as_bytes()),
            })
            .collect(),
        files: [
            0,
            9,
            10,
            1 << 53,
            (1 << 53) + 1,
            (1 << 53) + 2,
            1 << 60,
            u64::MAX,
        ]
        .iter()
        .zip(names)
        .map(|(b, s)| FileEntry {
            blob: Digest::of(s.as_bytes()),
            bytes: *b,
            executable: *b % 2 == 1,
            name: s.to_string(),
        })
        .collect(),
    };
    let bytes = n.canonical_bytes();
    assert_eq!(
        String::from_utf8_lossy(&bytes),
        String::from_utf8_lossy(&serde_jcs_bytes(&n))
    );
    assert_eq!(bytes, serde_jcs_bytes(&n));
    assert_eq!(
        Node::default().canonical_bytes(),
        br#"{"directories":[],"files":[],"schema":"genesis/tree-v0.2"}"#
    );
}

proptest::proptest! {
    #[test]
    fn hand_written_jcs_equals_serde_jcs(
        dirs in proptest::collection::vec(
            ("[\\x00-\\x20\"\\\\a-z\u{7f}-\u{ff}\u{2028}\u{fffd}\u{1f600}-\u{1f60f}\u{10ffff}]{0,12}", proptest::prelude::any::<[u8; 32]>()), 0..6),
        files in proptest::collection::vec(
            (proptest::prelude::any::<String>(), proptest::prelude::any::<[u8; 32]>(),
             proptest::prelude::prop_oneof![
                 proptest::prelude::any::<u64>(),
                 0u64..100_000,
                 (1u64 << 53) - 3..(1u64 << 53) + 3
             ],
             proptest::prelude::any::<bool>()), 0..6),
    ) {
        let n = Node {
            directories: dirs
                .into_iter()
                .map(|(name, d)| DirEntry { name, node: Digest::from_bytes(d) })
                .collect(),
            files: files
                .into_iter()
                .map(|(name, b, bytes, executable)| FileEntry {
                    blob: Digest::from_bytes(b),
                    bytes,
                    executable,
                    name,
                })
                .collect(),
        };
        proptest::prop_assert_eq!(n.canonical_bytes(), serde_jcs_bytes(&n));
    }
}

#[test]
fn directories_the_cache_knows_get_no_node_and_identities_stay_exact() {
    let base: Vec<F> = sorted(
        (0..6)
            .flat_map(|d| {
                (0..3).flat_map(move |s| {
                    (0..4).map(move |f| file(&format!("d{d}/s{s}/f{f}"), &format!("{d}{s}{f}")))
                })
            })
            .collect(),
    );
    let x = exec(&["d1/s2/f3"]);
    let cold = build_with(&base, &x, None, Some(&TreeCache::default()));
    assert_eq!((cold.node_count(), cold.fresh_count()), (25, 25));
    assert!(cold.dirs.values().all(|n| n.built));
    let known = TreeCache::of(&cold);
    // Nothing changed: the same identities, and no node materialised or hashed.
    let warm = build_with(&base, &x, None, Some(&known));
    assert_eq!(warm.root, cold.root);
    assert_eq!(warm.fresh_count(), 0);
    assert!(warm.dirs.values().all(|n| !n.built && n.node.is_empty()));
    assert_eq!(TreeCache::of(&warm), known);
    assert!(warm.executable_matches(&x));
    assert!(!warm.executable_matches(&exec(&["d1/s2/f2"])));
    let built = |t: &BuiltTree| -> BTreeSet<String> {
        t.dirs
            .iter()
            .filter(|(_, n)| n.built)
            .map(|(k, _)| k.clone())
            .collect()
    };
    let dirs = |v: &[&str]| -> BTreeSet<String> { v.iter().map(|s| s.to_string()).collect() };
    // One blob changed two levels down: that directory and each ancestor, only they, are
    // built and hashed, and the root is the one a build from nothing gives.
    let mut files = base.clone();
    let i = files
        .iter()
        .position(|f| f.path.as_str() == "d4/s1/f0")
        .unwrap();
    files[i].blob = Digest::of(b"changed");
    let one = build_with(&files, &x, None, Some(&known));
    assert_eq!(one.root, build(&files, &x, None).root);
    assert_ne!(one.root, cold.root);
    assert_eq!(built(&one), dirs(&["", "d4", "d4/s1"]));
    assert_eq!(one.fresh_count(), 3);
    // A size, an executable bit, a name: each is an entry.
    let mut sized = base.clone();
    sized[i].bytes += 1;
    let t = build_with(&sized, &x, None, Some(&known));
    assert_eq!(t.root, build(&sized, &x, None).root);
    assert_eq!(built(&t), dirs(&["", "d4", "d4/s1"]));
    let t = build_with(&base, &BTreeSet::new(), None, Some(&known));
    assert_eq!(t.root, build(&base, &BTreeSet::new(), None).root);
    assert_eq!(built(&t), dirs(&["", "d1", "d1/s2"]));
    let mut renamed = base.clone();
    renamed[i].path = WorkspacePath::new("d4/s1/f0b").unwrap();
    let t = build_with(&renamed, &x, None, Some(&known));
    assert_eq!(t.root, build(&renamed, &x, None).root);
    assert_eq!(built(&t), dirs(&["", "d4", "d4/s1"]));
    // Materialised for a store: every node, equal to a build from nothing, none hashed.
    let all = build_all(&files, &x, &TreeCache::of(&one));
    let full = build(&files, &x, None);
    assert_eq!(all.fresh_count(), 0);
    assert_eq!(all.dirs.len(), full.dirs.len());
    for (k, n) in &all.dirs {
        assert!(n.built, "{k}");
        assert_eq!(
            (&n.node, n.identity),
            (&full.dirs[k].node, full.dirs[k].identity)
        );
    }
    // A later build from the cache-assisted one (as `patch` builds on a session's snapshot)
    // takes the unchanged directories' identities by their entries, and builds every node.
    let next = build(&files, &x, Some(&warm));
    assert_eq!(next.root, full.root);
    assert_eq!(next.fresh_count(), 3, "d4/s1, d4 and the root");
    assert!(next.dirs.values().all(|n| n.built));
    // A node that was not materialised is never taken for an empty one.
    let empty: Vec<F> = Vec::new();
    let t = build(&empty, &BTreeSet::new(), Some(&warm));
    assert_eq!(t.root, Node::default().identity());
}

/// Sub-directories built in parallel (every directory with two or more below it, or none)
/// give exactly the nodes, identities and flags a serial build gives, with and without a tree
/// cache, on a tree of uneven depth whose names fall into the order trap.
#[test]
fn a_parallel_build_is_the_serial_one() {
    let names = ["a", "a.b", "a-b", "a0", "b", "é", "Z"];
    let mut files = Vec::new();
    for (i, x) in names.iter().enumerate() {
        for (j, y) in names.iter().enumerate() {
            if (i + j) % 2 == 0 {
                for (k, z) in names.iter().enumerate().take(4) {
                    files.push(file(&format!("{x}/{y}/{z}/f"), &format!("{i}{j}{k}")));
                }
            } else {
                files.push(file(&format!("{x}/{y}"), &format!("{i}{j}")));
            }
        }
        files.push(file(&format!("{x}.txt"), x));
    }
    let files = sorted(files);
    let x = exec(&["a/a.b", "é/b"]);
    let serial = build_parallel_from(&files, &x, None, usize::MAX);
    let parallel = build_parallel_from(&files, &x, None, 1);
    assert_eq!(parallel, serial);
    assert_eq!(serial.root, build(&files, &x, None).root);
    let known = TreeCache::of(&build_with(&files, &x, None, Some(&TreeCache::default())));
    let mut changed = files.clone();
    changed[17].blob = Digest::of(b"changed");
    let serial = build_parallel_from(&changed, &x, Some(&known), usize::MAX);
    let parallel = build_parallel_from(&changed, &x, Some(&known), 1);
    assert_eq!(parallel, serial);
    assert!(serial.fresh_count() > 0 && serial.fresh_count() < serial.node_count());
}
