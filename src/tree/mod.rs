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

use std::collections::{BTreeSet, HashMap};

use crate::diff::{Change, ChangeStatus, Side};
use crate::hash::Digest;
use crate::path::WorkspacePath;
use crate::snapshot::SnapshotFile;

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
    #[error("path {path:?} built from tree nodes is not a valid workspace path")]
    Path {
        /// The path.
        path: String,
    },
}

/// Why reading a tree from a [`NodeSource`] failed.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    /// The store failed to give the node (missing, corrupt, unreadable).
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// The node's bytes are not a valid node.
    #[error(transparent)]
    Node(#[from] NodeError),
}

impl NodeError {
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
    /// The node's canonical bytes: RFC 8785 JSON (see the module docs), through
    /// [`crate::hash::canonical_json`].
    pub fn canonical_bytes(&self) -> Vec<u8> {
        crate::hash::canonical_json(&NodeJson {
            directories: std::borrow::Cow::Borrowed(&self.directories),
            files: std::borrow::Cow::Borrowed(&self.files),
            schema: std::borrow::Cow::Borrowed(TREE_SCHEMA),
        })
        .expect("tree nodes hold only strings, integers and booleans")
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

/// One directory of a [`BuiltTree`]: its node, identity, and whether this build serialised and
/// hashed it (`false` when its identity was reused from the previous build).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltNode {
    /// The node.
    pub node: Node,
    /// Its identity.
    pub identity: Digest,
    /// Whether this build computed the identity (the node is new or changed).
    pub fresh: bool,
}

/// Every node of a tree, keyed by directory path (`""` for the root, else `a/b`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltTree {
    /// The root node's identity: the tree's identity.
    pub root: Digest,
    /// The nodes by directory path.
    pub dirs: HashMap<String, BuiltNode>,
}

impl BuiltTree {
    /// How many nodes the tree has.
    pub fn node_count(&self) -> usize {
        self.dirs.len()
    }

    /// How many nodes this build serialised and hashed.
    pub fn fresh_count(&self) -> usize {
        self.dirs.values().filter(|n| n.fresh).count()
    }
}

/// Builds every node of the tree whose sorted flat file list is `files` (sorted by path bytes,
/// each path once, as a [`crate::snapshot::Snapshot`] holds it) and whose executable files are
/// `executable`, bottom-up in one pass over the list. When `previous` is given, a directory
/// whose entries equal those of the same directory in `previous` keeps its identity without
/// being serialised or hashed again.
pub fn build(
    files: &[SnapshotFile],
    executable: &BTreeSet<WorkspacePath>,
    previous: Option<&BuiltTree>,
) -> BuiltTree {
    let mut dirs = HashMap::new();
    let root = build_dir(files, 0, "", executable, previous, &mut dirs);
    BuiltTree { root, dirs }
}

/// Builds the node of the directory `dir` whose members are `files` (all paths start with
/// `dir/`, or anything for the root; `skip` = bytes of that prefix).
fn build_dir(
    files: &[SnapshotFile],
    skip: usize,
    dir: &str,
    executable: &BTreeSet<WorkspacePath>,
    previous: Option<&BuiltTree>,
    out: &mut HashMap<String, BuiltNode>,
) -> Digest {
    let mut node = Node::default();
    let mut i = 0;
    while i < files.len() {
        let rest = &files[i].path.as_str()[skip..];
        match rest.find('/') {
            None => {
                let f = &files[i];
                node.files.push(FileEntry {
                    blob: f.blob,
                    bytes: f.bytes,
                    executable: executable.contains(&f.path),
                    name: rest.to_owned(),
                });
                i += 1;
            }
            Some(slash) => {
                // Paths under one directory are contiguous in full-path byte order.
                let prefix = &rest[..=slash];
                let end = i + files[i..]
                    .iter()
                    .position(|f| !f.path.as_str()[skip..].starts_with(prefix))
                    .unwrap_or(files.len() - i);
                let name = &rest[..slash];
                let sub = if dir.is_empty() {
                    name.to_owned()
                } else {
                    format!("{dir}/{name}")
                };
                let id = build_dir(
                    &files[i..end],
                    skip + slash + 1,
                    &sub,
                    executable,
                    previous,
                    out,
                );
                node.directories.push(DirEntry {
                    name: name.to_owned(),
                    node: id,
                });
                i = end;
            }
        }
    }
    // Full-path order is not per-directory order (`a.b` < `a/b` < `a0`, but the directory `a`
    // sorts before the file `a.b`): sort each list by name bytes.
    node.directories.sort_by(|a, b| a.name.cmp(&b.name));
    node.files.sort_by(|a, b| a.name.cmp(&b.name));
    let reused = previous
        .and_then(|p| p.dirs.get(dir))
        .filter(|p| p.node == node)
        .map(|p| p.identity);
    let (identity, fresh) = match reused {
        Some(id) => (id, false),
        None => (node.identity(), true),
    };
    out.insert(
        dir.to_owned(),
        BuiltNode {
            node,
            identity,
            fresh,
        },
    );
    identity
}

/// Where stored nodes come from: [`crate::store::Store`] in the engine, a counting wrapper in
/// tests.
pub trait NodeSource {
    /// The node named `id`, checked ([`Node::parse`]) and hashing to its name.
    ///
    /// # Errors
    /// [`TreeError::Store`] if the node cannot be read, [`TreeError::Node`] if it is invalid.
    fn node(&self, id: &Digest) -> Result<Node, TreeError>;
}

impl NodeSource for crate::store::Store {
    fn node(&self, id: &Digest) -> Result<Node, TreeError> {
        let bytes = self.read_object(id)?;
        Ok(Node::parse(*id, &bytes)?)
    }
}

/// The flat file list (sorted by path bytes) and executable set of the stored tree `root`.
///
/// # Errors
/// A [`TreeError`] for a node that cannot be read or is invalid, or a path that is not a valid
/// workspace path.
pub fn read_flat(
    src: &impl NodeSource,
    root: &Digest,
) -> Result<(Vec<SnapshotFile>, BTreeSet<WorkspacePath>), TreeError> {
    let mut files = Vec::new();
    let mut exec = BTreeSet::new();
    collect(src, root, "", true, &mut files, &mut exec)?;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((files, exec))
}

fn join(dir: &str, name: &str) -> Result<WorkspacePath, NodeError> {
    let p = if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    };
    WorkspacePath::new(p.clone()).map_err(|_| NodeError::Path { path: p })
}

fn collect(
    src: &impl NodeSource,
    id: &Digest,
    dir: &str,
    is_root: bool,
    files: &mut Vec<SnapshotFile>,
    exec: &mut BTreeSet<WorkspacePath>,
) -> Result<(), TreeError> {
    let node = src.node(id)?;
    if !is_root && node.is_empty() {
        return Err(NodeError::EmptyDirectory { node: *id }.into());
    }
    for f in node.files {
        let path = join(dir, &f.name)?;
        if f.executable {
            exec.insert(path.clone());
        }
        files.push(SnapshotFile {
            path,
            blob: f.blob,
            bytes: f.bytes,
        });
    }
    for d in node.directories {
        let sub = join(dir, &d.name)?;
        collect(src, &d.node, sub.as_str(), false, files, exec)?;
    }
    Ok(())
}

/// The paths that differ between the stored trees `a` and `b`, sorted by path bytes, as
/// [`crate::diff::changes`] gives them for the flat lists: added, deleted, or modified (other
/// blob or other executable bit). Reads only nodes whose identities differ between the two
/// sides (and every node of a directory present on one side only).
///
/// # Errors
/// As [`read_flat`].
pub fn diff(src: &impl NodeSource, a: &Digest, b: &Digest) -> Result<Vec<Change>, TreeError> {
    let mut out = Vec::new();
    diff_dir(src, Some(a), Some(b), "", &mut out)?;
    out.sort_by(|x, y| x.path.cmp(&y.path));
    Ok(out)
}

fn side(dir: &str, f: &FileEntry) -> Result<Side, NodeError> {
    Ok(Side {
        file: SnapshotFile {
            path: join(dir, &f.name)?,
            blob: f.blob,
            bytes: f.bytes,
        },
        executable: f.executable,
    })
}

fn diff_dir(
    src: &impl NodeSource,
    a: Option<&Digest>,
    b: Option<&Digest>,
    dir: &str,
    out: &mut Vec<Change>,
) -> Result<(), TreeError> {
    if a == b {
        return Ok(());
    }
    let empty = Node::default();
    let na = a.map(|id| src.node(id)).transpose()?;
    let nb = b.map(|id| src.node(id)).transpose()?;
    let (na, nb) = (na.as_ref().unwrap_or(&empty), nb.as_ref().unwrap_or(&empty));
    // Files: merge by name.
    let (mut i, mut j) = (0, 0);
    while i < na.files.len() || j < nb.files.len() {
        let ord = match (na.files.get(i), nb.files.get(j)) {
            (Some(x), Some(y)) => x.name.as_bytes().cmp(y.name.as_bytes()),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match ord {
            std::cmp::Ordering::Less => {
                let old = side(dir, &na.files[i])?;
                out.push(Change {
                    path: old.file.path.clone(),
                    status: ChangeStatus::Deleted,
                    old: Some(old),
                    new: None,
                });
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                let new = side(dir, &nb.files[j])?;
                out.push(Change {
                    path: new.file.path.clone(),
                    status: ChangeStatus::Added,
                    old: None,
                    new: Some(new),
                });
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let (x, y) = (&na.files[i], &nb.files[j]);
                if x.blob != y.blob || x.executable != y.executable {
                    let (old, new) = (side(dir, x)?, side(dir, y)?);
                    out.push(Change {
                        path: old.file.path.clone(),
                        status: ChangeStatus::Modified,
                        old: Some(old),
                        new: Some(new),
                    });
                }
                i += 1;
                j += 1;
            }
        }
    }
    // Directories: merge by name, descending only where identities differ.
    let (mut i, mut j) = (0, 0);
    while i < na.directories.len() || j < nb.directories.len() {
        let ord = match (na.directories.get(i), nb.directories.get(j)) {
            (Some(x), Some(y)) => x.name.as_bytes().cmp(y.name.as_bytes()),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        let (x, y) = match ord {
            std::cmp::Ordering::Less => {
                i += 1;
                (Some(&na.directories[i - 1]), None)
            }
            std::cmp::Ordering::Greater => {
                j += 1;
                (None, Some(&nb.directories[j - 1]))
            }
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
                (Some(&na.directories[i - 1]), Some(&nb.directories[j - 1]))
            }
        };
        let name = &x.or(y).expect("one side present").name;
        let sub = join(dir, name)?;
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
