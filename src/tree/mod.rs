//! Tree snapshot format v0.2: per-directory nodes (DESIGN sections 2 and 3).
//!
//! A tree is a set of [`Node`]s, one per directory that holds at least one member file below
//! it, modelled on REAPI's `Directory` message and git trees. A node is the RFC 8785 (JCS)
//! canonical JSON of
//!
//! ```json
//! {"directories":[{"name":N,"node":HEX}…],
//!  "files":[{"blob":HEX,"bytes":N,"executable":B,"name":N}…],
//!  "schema":"genesis/tree-v0.2"}
//! ```
//!
//! with each list sorted by the UTF-8 bytes of `name` (one path component). The node's
//! identity is the SHA-256 of those bytes ([`Node::identity`]); the root node's identity is the
//! tree's identity. A directory with no member file below it has no node; the empty tree is
//! the root node with two empty lists. Unlike v0.1, the executable bit is part of the identity.
//! The schema is `schemas/tree-node-v0.2.schema.json`; `testdata/tree-v0.2/` holds vectors
//! made by `scripts/tree_vectors.py`.
//!
//! In memory the engine keeps the flat sorted file list ([`crate::snapshot::Snapshot`]);
//! [`build`] turns it into nodes in one pass (reusing the identity of a directory whose entries
//! did not change since a previous build), [`read_flat`] turns stored nodes back into it, and
//! [`diff`] compares two stored trees reading only the nodes whose identities differ.
//!
//! Layering: this module sits below `snapshot` and `store` (they call it) and imports neither;
//! the flat list comes in through [`TreeFile`] and goes out as [`FlatFile`]s.

use std::collections::HashMap;

use crate::hash::Digest;
use crate::path::WorkspacePath;

mod build;
pub mod cache;
#[cfg(test)]
use build::build_parallel_from;
pub use build::{BuiltNode, BuiltTree, build, build_all, build_with};
pub use cache::TreeCache;

/// The `schema` value of every v0.2 tree node.
pub const TREE_SCHEMA: &str = "genesis/tree-v0.2";

/// A sub-directory entry of a [`Node`]: its name (one path component) and its node's identity.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirEntry {
    /// One path component.
    pub name: String,
    /// Identity of the sub-directory's node.
    pub node: Digest,
}

/// A file entry of a [`Node`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// SHA-256 of the file's bytes.
    pub blob: Digest,
    /// The file's size in bytes (no limit in v0.2).
    pub bytes: u64,
    /// The owner's `x` bit, as git reads it.
    pub executable: bool,
    /// One path component.
    pub name: String,
}

/// One directory of a v0.2 tree. Both lists are sorted by the UTF-8 bytes of `name`, each
/// name once per list (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Node {
    /// Sub-directories that hold member files.
    pub directories: Vec<DirEntry>,
    /// Member files directly in this directory.
    pub files: Vec<FileEntry>,
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeJson<'a> {
    directories: std::borrow::Cow<'a, [DirEntry]>,
    files: std::borrow::Cow<'a, [FileEntry]>,
    schema: std::borrow::Cow<'a, str>,
}

/// A stored node that is not a valid v0.2 node.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NodeError {
    /// The bytes do not parse as a node (a field missing, unknown or mistyped).
    #[error("node {node}: not a tree node: {message}")]
    Json {
        /// The node's name in the store.
        node: Digest,
        /// The parser's message.
        message: String,
    },
    /// `schema` is not `genesis/tree-v0.2`.
    #[error("node {node}: field /schema: expected {TREE_SCHEMA:?}, found {found:?}")]
    Schema {
        /// The node's name in the store.
        node: Digest,
        /// The `schema` found.
        found: String,
    },
    /// A name that is not one valid path component.
    #[error("node {node}: field /{list}/{index}/name: {name:?} is not one valid path component")]
    Name {
        /// The node's name in the store.
        node: Digest,
        /// `files` or `directories`.
        list: &'static str,
        /// Index in that list.
        index: usize,
        /// The name.
        name: String,
    },
    /// Two entries out of order or a name twice.
    #[error(
        "node {node}: field /{list}/{index}/name: {name:?} is not after the previous name (sorted by UTF-8 bytes, each once)"
    )]
    Order {
        /// The node's name in the store.
        node: Digest,
        /// `files` or `directories`.
        list: &'static str,
        /// Index in that list.
        index: usize,
        /// The name.
        name: String,
    },
    /// The bytes are a valid node but not its canonical (JCS) form, so they cannot hash to
    /// the node's identity.
    #[error("node {node}: not in canonical (RFC 8785) form")]
    NotCanonical {
        /// The node's name in the store.
        node: Digest,
    },
    /// A directory whose node lists nothing (only the root may be empty).
    #[error("node {node}: empty directory node below the root")]
    EmptyDirectory {
        /// The node's name.
        node: Digest,
    },
    /// A path built from node names that is not a valid workspace path.
    #[error("node {node}: path {path:?} built from tree nodes is not a valid workspace path")]
    Path {
        /// The node holding the path's last name.
        node: Digest,
        /// The path.
        path: String,
    },
}

impl NodeError {
    /// The node the error is about.
    pub fn node(&self) -> Digest {
        match self {
            NodeError::Json { node, .. }
            | NodeError::Schema { node, .. }
            | NodeError::Name { node, .. }
            | NodeError::Order { node, .. }
            | NodeError::NotCanonical { node }
            | NodeError::EmptyDirectory { node }
            | NodeError::Path { node, .. } => *node,
        }
    }

    /// The RFC 6901 JSON pointer of the failing field (empty for the whole node).
    pub fn pointer(&self) -> String {
        match self {
            NodeError::Schema { .. } => "/schema".into(),
            NodeError::Name { list, index, .. } | NodeError::Order { list, index, .. } => {
                format!("/{list}/{index}/name")
            }
            _ => String::new(),
        }
    }
}

fn valid_name(name: &str) -> bool {
    !name.contains('/') && crate::path::validate(name).is_ok()
}

impl Node {
    /// The node's canonical bytes: RFC 8785 JSON (see the module docs), written by hand for
    /// the node's fixed shape (keys already in JCS order; strings escaped as JCS section 3.2.2.2
    /// says; integers up to 2^53 in decimal), byte for byte what
    /// [`crate::hash::canonical_json`] gives (checked by a property test).
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(64 + 100 * self.directories.len() + 150 * self.files.len());
        out.extend_from_slice(b"{\"directories\":[");
        for (i, d) in self.directories.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"name\":");
            jcs_string(&mut out, &d.name);
            out.extend_from_slice(b",\"node\":");
            hex_string(&mut out, &d.node);
            out.push(b'}');
        }
        out.extend_from_slice(b"],\"files\":[");
        for (i, f) in self.files.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"blob\":");
            hex_string(&mut out, &f.blob);
            out.extend_from_slice(b",\"bytes\":");
            jcs_u64(&mut out, f.bytes);
            out.extend_from_slice(if f.executable {
                b",\"executable\":true,\"name\":"
            } else {
                b",\"executable\":false,\"name\":"
            });
            jcs_string(&mut out, &f.name);
            out.push(b'}');
        }
        out.extend_from_slice(b"],\"schema\":\"");
        out.extend_from_slice(TREE_SCHEMA.as_bytes());
        out.extend_from_slice(b"\"}");
        out
    }

    /// The node's identity: SHA-256 of [`Node::canonical_bytes`].
    pub fn identity(&self) -> Digest {
        Digest::of(&self.canonical_bytes())
    }

    /// Parses the stored bytes of the node named `node`, checking the schema, each name (one
    /// valid component), the order of both lists and that the bytes are canonical. The caller
    /// checks that the bytes hash to `node` (the store's [`crate::store::Store::read_object`]
    /// does).
    ///
    /// # Errors
    /// A [`NodeError`] naming the node and the field.
    pub fn parse(node: Digest, bytes: &[u8]) -> Result<Node, NodeError> {
        let doc: NodeJson<'static> =
            serde_json::from_slice(bytes).map_err(|e| NodeError::Json {
                node,
                message: e.to_string(),
            })?;
        if doc.schema != TREE_SCHEMA {
            return Err(NodeError::Schema {
                node,
                found: doc.schema.into_owned(),
            });
        }
        let out = Node {
            directories: doc.directories.into_owned(),
            files: doc.files.into_owned(),
        };
        check_list(node, "directories", out.directories.iter().map(|d| &d.name))?;
        check_list(node, "files", out.files.iter().map(|f| &f.name))?;
        if out.canonical_bytes() != bytes {
            return Err(NodeError::NotCanonical { node });
        }
        Ok(out)
    }

    /// Checks a node given as a JSON value (as `genesis validate` reads it): the fields, the
    /// schema, each name and the order of both lists. Canonical form is not checked (a value
    /// has no bytes); errors name the node by the identity of its canonical form.
    ///
    /// # Errors
    /// A [`NodeError`] naming the field.
    pub fn from_value(value: &serde_json::Value) -> Result<Node, NodeError> {
        let doc: NodeJson<'static> =
            serde_json::from_value(value.clone()).map_err(|e| NodeError::Json {
                node: Digest::EMPTY,
                message: e.to_string(),
            })?;
        let out = Node {
            directories: doc.directories.into_owned(),
            files: doc.files.into_owned(),
        };
        let node = out.identity();
        if doc.schema != TREE_SCHEMA {
            return Err(NodeError::Schema {
                node,
                found: doc.schema.into_owned(),
            });
        }
        check_list(node, "directories", out.directories.iter().map(|d| &d.name))?;
        check_list(node, "files", out.files.iter().map(|f| &f.name))?;
        Ok(out)
    }

    /// Whether the node lists nothing.
    pub fn is_empty(&self) -> bool {
        self.directories.is_empty() && self.files.is_empty()
    }
}

/// Appends `s` as a JCS string (RFC 8785 section 3.2.2.2, ECMAScript `JSON.stringify`): `"`
/// and `\` escaped with a backslash; U+0008, U+0009, U+000A, U+000C and U+000D as `\b`,
/// `\t`, `\n`, `\f` and `\r`; the other controls below U+0020 as `\u00xx` (lower-case
/// hex); everything else (U+007F and non-ASCII included) as its UTF-8 bytes.
fn jcs_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut control = *b"\\u0000";
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            0x09 => b"\\t",
            0x0a => b"\\n",
            0x0c => b"\\f",
            0x0d => b"\\r",
            0x00..=0x1f => {
                control[4] = HEX[(b >> 4) as usize];
                control[5] = HEX[(b & 0xf) as usize];
                &control
            }
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        out.extend_from_slice(escape);
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Appends the 64 lower-case hex digits of `d`, quoted.
fn hex_string(out: &mut Vec<u8>, d: &Digest) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    for b in d.as_bytes() {
        out.push(HEX[(b >> 4) as usize]);
        out.push(HEX[(b & 0xf) as usize]);
    }
    out.push(b'"');
}

/// Appends `n` as JCS writes it: an ECMAScript number, so in decimal digits up to 2^53 (every
/// such integer is exact); above, the number `n as f64` in ECMAScript form, left to
/// [`crate::hash::canonical_json`] (a file of 8 PiB or more).
fn jcs_u64(out: &mut Vec<u8>, n: u64) {
    if n <= 1 << 53 {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut v = n;
        loop {
            at -= 1;
            digits[at] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        out.extend_from_slice(&digits[at..]);
    } else {
        out.extend_from_slice(
            &crate::hash::canonical_json(&n).expect("an integer is representable in JSON"),
        );
    }
}

fn check_list<'a>(
    node: Digest,
    list: &'static str,
    names: impl Iterator<Item = &'a String>,
) -> Result<(), NodeError> {
    let mut prev: Option<&String> = None;
    for (index, name) in names.enumerate() {
        if !valid_name(name) {
            return Err(NodeError::Name {
                node,
                list,
                index,
                name: name.clone(),
            });
        }
        if prev.is_some_and(|p| p.as_bytes() >= name.as_bytes()) {
            return Err(NodeError::Order {
                node,
                list,
                index,
                name: name.clone(),
            });
        }
        prev = Some(name);
    }
    Ok(())
}

/// A file of the flat list [`build`] reads: path, blob and size
/// ([`crate::snapshot::SnapshotFile`] is one).
pub trait TreeFile {
    /// Its workspace path.
    fn tree_path(&self) -> &WorkspacePath;
    /// SHA-256 of its bytes.
    fn tree_blob(&self) -> Digest;
    /// Its size in bytes.
    fn tree_bytes(&self) -> u64;
}

/// A file of a stored tree, as [`read_flat`] and [`diff`] give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatFile {
    /// Workspace path.
    pub path: WorkspacePath,
    /// SHA-256 of the file's bytes.
    pub blob: Digest,
    /// Size in bytes.
    pub bytes: u64,
    /// The executable bit.
    pub executable: bool,
}

/// A path that differs between two stored trees: only in the old (`D`), only in the new
/// (`A`), or in both with another blob or executable bit (`M`); the same shape as
/// [`crate::diff::Change`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeChange {
    /// The path.
    pub path: WorkspacePath,
    /// The old side (absent when added).
    pub old: Option<FlatFile>,
    /// The new side (absent when deleted).
    pub new: Option<FlatFile>,
}

impl TreeChange {
    /// The `--name-status` letter: `A`, `D` or `M`.
    pub fn letter(&self) -> char {
        match (&self.old, &self.new) {
            (None, _) => 'A',
            (_, None) => 'D',
            _ => 'M',
        }
    }
}

/// Where stored nodes come from: [`crate::store::Store`] in the engine, a counting map in
/// tests.
pub trait NodeSource {
    /// The source's error; an invalid node converts into it.
    type Error: From<NodeError>;
    /// The node named `id`, checked ([`Node::parse`]) and hashing to its name.
    ///
    /// # Errors
    /// The source's error if the node cannot be read or is invalid.
    fn node(&self, id: &Digest) -> Result<Node, Self::Error>;
}

/// The files of the stored tree `root`, sorted by path bytes.
///
/// # Errors
/// The source's error for a node that cannot be read or is invalid, a directory node below the
/// root that lists nothing, or a path that is not a valid workspace path.
pub fn read_flat<S: NodeSource>(src: &S, root: &Digest) -> Result<Vec<FlatFile>, S::Error> {
    Ok(read_tree(src, root)?.0)
}

/// As [`read_flat`], and every node read, keyed by directory path as [`build`] gives them
/// (none `fresh`), so a later [`build`] can reuse the unchanged ones.
///
/// # Errors
/// As [`read_flat`].
pub fn read_tree<S: NodeSource>(
    src: &S,
    root: &Digest,
) -> Result<(Vec<FlatFile>, BuiltTree), S::Error> {
    let mut files = Vec::new();
    let mut dirs = HashMap::new();
    collect(src, root, "", true, &mut files, &mut dirs)?;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((
        files,
        BuiltTree {
            root: *root,
            dirs,
            executable: None,
        },
    ))
}

fn join(node: &Digest, dir: &str, name: &str) -> Result<WorkspacePath, NodeError> {
    let p = if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    };
    WorkspacePath::new(p.clone()).map_err(|_| NodeError::Path {
        node: *node,
        path: p,
    })
}

fn flat(node: &Digest, dir: &str, f: &FileEntry) -> Result<FlatFile, NodeError> {
    Ok(FlatFile {
        path: join(node, dir, &f.name)?,
        blob: f.blob,
        bytes: f.bytes,
        executable: f.executable,
    })
}

fn collect<S: NodeSource>(
    src: &S,
    id: &Digest,
    dir: &str,
    is_root: bool,
    files: &mut Vec<FlatFile>,
    dirs: &mut HashMap<String, BuiltNode>,
) -> Result<(), S::Error> {
    let node = src.node(id)?;
    if !is_root && node.is_empty() {
        return Err(NodeError::EmptyDirectory { node: *id }.into());
    }
    for f in &node.files {
        files.push(flat(id, dir, f)?);
    }
    for d in &node.directories {
        let sub = join(id, dir, &d.name)?;
        collect(src, &d.node, sub.as_str(), false, files, dirs)?;
    }
    dirs.insert(
        dir.to_owned(),
        BuiltNode {
            node,
            identity: *id,
            fresh: false,
            entries: None,
            built: true,
        },
    );
    Ok(())
}

/// The paths that differ between the stored trees `a` and `b`, sorted by path bytes, as
/// [`crate::diff::changes`] gives them for the flat lists: added, deleted, or modified (other
/// blob or other executable bit). Reads only nodes whose identities differ between the two
/// sides (and every node of a directory present on one side only).
///
/// # Errors
/// As [`read_flat`].
pub fn diff<S: NodeSource>(src: &S, a: &Digest, b: &Digest) -> Result<Vec<TreeChange>, S::Error> {
    let mut out = Vec::new();
    diff_dir(src, Some(a), Some(b), "", &mut out)?;
    out.sort_by(|x, y| x.path.cmp(&y.path));
    Ok(out)
}

/// Merges two lists sorted by name bytes into pairs of (left, right) entries of one name.
/// Also pairs the files of two directory scans by path ([`crate::diff`]).
pub(crate) fn merge<'a, T>(
    x: &'a [T],
    y: &'a [T],
    name: impl Fn(&T) -> &str,
) -> Vec<(Option<&'a T>, Option<&'a T>)> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < x.len() || j < y.len() {
        let ord = match (x.get(i), y.get(j)) {
            (Some(p), Some(q)) => name(p).as_bytes().cmp(name(q).as_bytes()),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match ord {
            std::cmp::Ordering::Less => {
                out.push((Some(&x[i]), None));
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push((None, Some(&y[j])));
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push((Some(&x[i]), Some(&y[j])));
                i += 1;
                j += 1;
            }
        }
    }
    out
}

fn diff_dir<S: NodeSource>(
    src: &S,
    a: Option<&Digest>,
    b: Option<&Digest>,
    dir: &str,
    out: &mut Vec<TreeChange>,
) -> Result<(), S::Error> {
    if a == b {
        return Ok(());
    }
    let empty = Node::default();
    let na = a.map(|id| src.node(id)).transpose()?;
    let nb = b.map(|id| src.node(id)).transpose()?;
    let (na, nb) = (na.as_ref().unwrap_or(&empty), nb.as_ref().unwrap_or(&empty));
    let (ia, ib) = (
        a.copied().unwrap_or(Digest::EMPTY),
        b.copied().unwrap_or(Digest::EMPTY),
    );
    for (x, y) in merge(&na.files, &nb.files, |f| &f.name) {
        if let (Some(x), Some(y)) = (x, y)
            && x.blob == y.blob
            && x.executable == y.executable
        {
            continue;
        }
        let old = x.map(|f| flat(&ia, dir, f)).transpose()?;
        let new = y.map(|f| flat(&ib, dir, f)).transpose()?;
        let path = old
            .as_ref()
            .or(new.as_ref())
            .expect("one side")
            .path
            .clone();
        out.push(TreeChange { path, old, new });
    }
    for (x, y) in merge(&na.directories, &nb.directories, |d| &d.name) {
        let d = x.or(y).expect("one side present");
        let sub = join(&a.or(b).copied().unwrap_or(Digest::EMPTY), dir, &d.name)?;
        diff_dir(
            src,
            x.map(|d| &d.node),
            y.map(|d| &d.node),
            sub.as_str(),
            out,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
