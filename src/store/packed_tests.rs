//! Tests of the packed encoding: exact bytes, every node shape, v0.1 snapshots, damaged input.

use super::*;
use proptest::prelude::*;

/// A digest that does not compress (the hash of one byte).
fn d(byte: u8) -> Digest {
    Digest::of(&[byte])
}

fn file(name: &str, bytes: u64, executable: bool, blob: u8) -> FileEntry {
    FileEntry {
        blob: d(blob),
        bytes,
        executable,
        name: name.into(),
    }
}

fn dir(name: &str, node: u8) -> DirEntry {
    DirEntry {
        name: name.into(),
        node: d(node),
    }
}

/// Packs `node`, unpacks it both ways, and checks the canonical bytes come back.
fn round_trip(node: &Node) -> Vec<u8> {
    let packed = pack_node(node).unwrap();
    assert!(is_packed(&packed) && is_packed_node(&packed));
    assert_eq!(&unpack_node(&packed).unwrap(), node);
    assert_eq!(unpack(&packed).unwrap(), node.canonical_bytes());
    packed
}

#[test]
fn the_documented_example_is_byte_exact() {
    let hello = Digest::of(b"hello");
    let node = Node {
        directories: vec![],
        files: vec![FileEntry {
            blob: hello,
            bytes: 5,
            executable: false,
            name: "a".into(),
        }],
    };
    let canonical = node.canonical_bytes();
    assert_eq!(canonical.len(), 173);
    assert!(canonical.starts_with(br#"{"directories":[],"files":[{"blob":"2cf24dba"#));
    let mut expected = vec![0x89, 0x47, 0x4E, 0x50, 1, 1, 0, 0, 1, 0, 5, 1, b'a'];
    expected.extend_from_slice(hello.as_bytes());
    assert_eq!(expected.len(), 45);
    assert_eq!(pack_node(&node).unwrap(), expected);
    assert_eq!(pack(&canonical).unwrap(), expected);
    assert_eq!(unpack(&expected).unwrap(), canonical);
}

#[test]
fn every_node_shape_round_trips() {
    let names_of_every_class = [
        "a",
        "Z9_-.,;:!?@#$%^&*()[]{}<>=+~`'| ",
        "\"quoted\"",
        "...",
        ".hidden",
        "caf\u{e9}",
        "\u{65e5}\u{672c}",
        "\u{1f600}",
        "\u{10ffff}",
        &"x".repeat(255),
    ];
    let mut sorted: Vec<&str> = names_of_every_class.to_vec();
    sorted.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let shapes = vec![
        // The empty tree's root.
        Node::default(),
        Node {
            directories: vec![dir("sub", 1)],
            files: vec![],
        },
        Node {
            directories: vec![],
            files: vec![file("run.sh", 10, true, 2)],
        },
        Node {
            directories: vec![dir("a", 3), dir("b", 4)],
            files: vec![
                file("a", 0, false, 5),
                file("b", 127, true, 6),
                file("c", 128, false, 7),
                file("d", 1 << 53, false, 8),
                file("e", u64::MAX, true, 9),
            ],
        },
        Node {
            directories: sorted.iter().map(|n| dir(n, 10)).collect(),
            files: sorted
                .iter()
                .enumerate()
                .map(|(i, n)| file(n, i as u64 * 1000, i % 2 == 0, i as u8))
                .collect(),
        },
    ];
    for node in &shapes {
        round_trip(node);
        // Valid nodes are also packed from their canonical bytes, to the same file.
        if node.files.iter().all(|f| f.bytes <= 1 << 53) {
            assert_eq!(
                pack(&node.canonical_bytes()),
                Some(pack_node(node).unwrap())
            );
        }
    }
    let empty = round_trip(&Node::default());
    assert_eq!(empty, [0x89, 0x47, 0x4E, 0x50, 1, 1, 0, 0, 0]);
}

#[test]
fn names_with_escapes_round_trip_through_the_jcs_writer() {
    // Not valid names (control characters, backslash), but the encoding keeps any string and
    // the rebuild escapes as JCS does.
    let node = Node {
        directories: vec![],
        files: vec![
            file("\u{1}\u{8}\t\n\u{c}\r\u{1f}", 1, false, 1),
            file("back\\slash\u{7f}", 2, true, 2),
        ],
    };
    let packed = round_trip(&node);
    assert!(
        String::from_utf8(unpack(&packed).unwrap())
            .unwrap()
            .contains(r#""name":"\u0001\b\t\n\f\r\u001f""#)
    );
}

#[test]
fn a_large_node_is_stored_as_a_zstd_body_and_round_trips() {
    let node = Node {
        directories: vec![],
        files: (0..2000)
            .map(|i| file(&format!("file_{i:05}.txt"), i, false, (i % 251) as u8))
            .collect(),
    };
    let packed = round_trip(&node);
    assert_eq!(packed[6], 1, "zstd coding");
    let raw_body = node_body(&node).len();
    assert!(packed.len() < raw_body, "{} >= {raw_body}", packed.len());
    // Against the zstd frame of the canonical JSON (the format-2 object file).
    let json = super::super::codec::compress(&node.canonical_bytes()).unwrap();
    assert!(
        packed.len() < json.len(),
        "{} >= {}",
        packed.len(),
        json.len()
    );
}

#[test]
fn a_v0_1_snapshot_round_trips_to_its_canonical_bytes() {
    let files: Vec<crate::snapshot::SnapshotFile> = ["a.txt", "dir/\"q\" \u{e9}", "dir/z"]
        .iter()
        .enumerate()
        .map(|(i, p)| crate::snapshot::SnapshotFile {
            path: p.parse().unwrap(),
            blob: d(i as u8),
            bytes: i as u64 * 300,
        })
        .collect();
    let snap = crate::snapshot::Snapshot::from_files(files).unwrap();
    let canonical = snap.canonical_v0_1().unwrap();
    let packed = pack(&canonical).unwrap();
    assert_eq!(packed[..7], [0x89, 0x47, 0x4E, 0x50, 1, 2, 0]);
    assert!(!is_packed_node(&packed));
    assert_eq!(unpack(&packed).unwrap(), canonical);
    assert!(packed.len() * 2 < canonical.len());
    // Packed straight from the files: the same object.
    assert_eq!(pack_v0_1(snap.files()).unwrap(), packed);
    let empty = crate::snapshot::Snapshot::from_files(vec![]).unwrap();
    let canonical = empty.canonical_v0_1().unwrap();
    assert_eq!(unpack(&pack(&canonical).unwrap()).unwrap(), canonical);
    assert_eq!(pack_v0_1(empty.files()).unwrap(), pack(&canonical).unwrap());
    // Large enough for a zstd body, with escapes and non-ASCII names.
    let files: Vec<crate::snapshot::SnapshotFile> = (0..3000u32)
        .map(|i| crate::snapshot::SnapshotFile {
            path: format!("d{}/f \"{i}\u{e9} \u{2028}.rs", i % 7)
                .parse()
                .unwrap(),
            blob: Digest::of(&i.to_le_bytes()),
            bytes: u64::from(i) * 89_003,
        })
        .collect();
    let big = crate::snapshot::Snapshot::from_files(files).unwrap();
    let canonical = big.canonical_v0_1().unwrap();
    let packed = pack(&canonical).unwrap();
    assert_eq!(packed[6], 1, "zstd-coded");
    assert_eq!(pack_v0_1(big.files()).unwrap(), packed);
    assert_eq!(unpack(&packed).unwrap(), canonical);
}

#[test]
fn other_bytes_are_not_packed() {
    let node = Node {
        directories: vec![],
        files: vec![file("a", 1, false, 1)],
    };
    let canonical = node.canonical_bytes();
    // Not canonical (a space), not a node, an invalid name, another schema.
    let spaced = String::from_utf8(canonical.clone())
        .unwrap()
        .replacen("[{", "[ {", 1);
    let bad_name = String::from_utf8(canonical.clone()).unwrap().replacen(
        r#""name":"a""#,
        r#""name":"..""#,
        1,
    );
    for data in [
        spaced.as_bytes(),
        bad_name.as_bytes(),
        b"hello\n",
        b"",
        br#"{"directories":[],"files":[],"schema":"genesis/tree-v0.3"}"#,
        br#"{"files":[],"schema":"genesis/other"}"#,
    ] {
        assert_eq!(pack(data), None, "{:?}", String::from_utf8_lossy(data));
    }
    assert!(pack(&canonical).is_some());
}

#[test]
fn damaged_packed_bytes_are_errors_never_panics() {
    let node = Node {
        directories: vec![dir("d", 1)],
        files: vec![file("f", 300, true, 2)],
    };
    let good = pack_node(&node).unwrap();
    assert_eq!(good[6], 0);
    // Every truncation.
    for n in 0..good.len() {
        assert!(unpack(&good[..n]).is_err(), "truncated to {n}");
    }
    let mut trailing = good.clone();
    trailing.push(0);
    assert_eq!(unpack(&trailing), Err(PackedError::Trailing(1)));
    let mut version = good.clone();
    version[4] = 2;
    assert!(matches!(unpack(&version), Err(PackedError::Header(_))));
    let mut kind = good.clone();
    kind[5] = 3;
    assert!(matches!(unpack(&kind), Err(PackedError::Header(_))));
    let mut coding = good.clone();
    coding[6] = 2;
    assert!(matches!(unpack(&coding), Err(PackedError::Header(_))));
    let mut zstd = good.clone();
    zstd[6] = 1;
    assert_eq!(unpack(&zstd), Err(PackedError::Frame));
    // Body: 01 | 01 'd' digest | 01 | flag 01, size AC 02, 01 'f', digest.
    let flag_at = HEADER + 1 + 2 + 32 + 1;
    assert_eq!(good[flag_at..flag_at + 3], [1, 0xAC, 0x02]);
    let mut flag = good.clone();
    flag[flag_at] = 3;
    assert_eq!(
        unpack(&flag),
        Err(PackedError::Flag {
            at: flag_at - HEADER,
            flag: 3
        })
    );
    // A non-minimal size (300 as AC 82 00) is refused.
    let mut long = good[..flag_at + 1].to_vec();
    long.extend_from_slice(&[0xAC, 0x82, 0x00]);
    long.extend_from_slice(&good[flag_at + 3..]);
    assert_eq!(
        unpack(&long),
        Err(PackedError::Varint(flag_at + 1 - HEADER))
    );
    // A count far larger than the bytes left allocates nothing.
    let mut count = good[..HEADER].to_vec();
    count.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0x0F]);
    assert_eq!(unpack(&count), Err(PackedError::Truncated(0)));
    // A name that is not UTF-8.
    let mut utf8 = good.clone();
    utf8[HEADER + 2] = 0xFF;
    assert_eq!(unpack(&utf8), Err(PackedError::Utf8(2)));
}

#[test]
fn varints_round_trip_at_every_width() {
    for n in [
        0,
        1,
        127,
        128,
        16383,
        16384,
        1 << 53,
        (1 << 63) - 1,
        1 << 63,
        u64::MAX,
    ] {
        let mut out = Vec::new();
        put_varint(&mut out, n);
        let mut r = Reader { data: &out, at: 0 };
        assert_eq!(r.varint(), Ok(n));
        assert!(r.end().is_ok());
    }
    // 11 groups, or a tenth group above bit 63.
    let mut r = Reader {
        data: &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02],
        at: 0,
    };
    assert_eq!(r.varint(), Err(PackedError::Varint(0)));
}

fn name() -> impl Strategy<Value = String> {
    // Printable ASCII, DEL-free, and multi-byte characters; no '/'.
    "[ -.0-~\u{a0}-\u{3ff}\u{4e00}-\u{4e0f}\u{1f600}-\u{1f60f}]{1,12}"
}

fn node() -> impl Strategy<Value = Node> {
    let dirs = proptest::collection::btree_map(name(), any::<[u8; 32]>(), 0..6);
    let files = proptest::collection::btree_map(
        name(),
        (any::<[u8; 32]>(), any::<u64>(), any::<bool>()),
        0..12,
    );
    (dirs, files).prop_map(|(dirs, files)| {
        let mut directories: Vec<DirEntry> = dirs
            .into_iter()
            .map(|(name, b)| DirEntry {
                name,
                node: Digest::from_bytes(b),
            })
            .collect();
        directories.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        let mut files: Vec<FileEntry> = files
            .into_iter()
            .map(|(name, (b, bytes, executable))| FileEntry {
                blob: Digest::from_bytes(b),
                bytes: bytes >> (bytes % 64),
                executable,
                name,
            })
            .collect();
        files.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        Node { directories, files }
    })
}

proptest! {
    #[test]
    fn packed_nodes_round_trip(node in node()) {
        let packed = pack_node(&node).unwrap();
        prop_assert_eq!(&unpack_node(&packed).unwrap(), &node);
        let canonical = node.canonical_bytes();
        prop_assert_eq!(&unpack(&packed).unwrap(), &canonical);
        let valid = node.files.iter().all(|f| f.bytes <= 1 << 53)
            && Node::parse(Digest::EMPTY, &canonical).is_ok();
        if valid {
            prop_assert_eq!(pack(&canonical), Some(packed));
        }
    }

    #[test]
    fn arbitrary_bytes_after_the_header_never_panic(body in proptest::collection::vec(any::<u8>(), 0..200), kind in 1u8..3, coding in 0u8..2) {
        let mut data = MAGIC.to_vec();
        data.extend_from_slice(&[VERSION, kind, coding]);
        data.extend_from_slice(&body);
        let _ = unpack(&data);
    }
}
