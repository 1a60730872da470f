//! v0.2 trees in the store: nodes as objects, packed ([`super::packed`]; see the module docs
//! of [`crate::store`]).

use std::collections::BTreeSet;

use super::{Store, StoreError};
use crate::hash::Digest;
use crate::path::WorkspacePath;
use crate::snapshot::{Snapshot, SnapshotFile};
use crate::tree::{Node, NodeError, NodeSource};

/// The store as a [`NodeSource`]: every node read is checked against its name
/// ([`Store::read_object`]) and parsed strictly ([`Node::parse`]); an invalid node is
/// [`StoreError::BadTree`] naming it.
impl NodeSource for Store {
    type Error = StoreError;
    fn node(&self, id: &Digest) -> Result<Node, StoreError> {
        let bytes = self.read_object(id)?;
        Ok(Node::parse(*id, &bytes)?)
    }
}

impl From<NodeError> for StoreError {
    fn from(source: NodeError) -> Self {
        StoreError::BadTree {
            identity: source.node(),
            source: Box::new(source),
        }
    }
}

impl Store {
    /// Whether the object `id` is present and is a v0.2 tree node (checked by the canonical
    /// form's first and last bytes; [`crate::tree::Node::parse`] checks it fully on read).
    /// Objects over 256 MiB on disk are not read (no node is that large).
    pub(super) fn is_tree_node(&self, id: &Digest) -> bool {
        let small = std::fs::metadata(self.object_path(id))
            .is_ok_and(|m| m.is_file() && m.len() <= crate::snapshot::MAX_FILE_BYTES);
        small
            && self.read_object(id).is_ok_and(|b| {
                b.starts_with(br#"{"directories":["#)
                    && b.ends_with(
                        format!(r#","schema":"{}"}}"#, crate::tree::TREE_SCHEMA).as_bytes(),
                    )
            })
    }

    /// Whether `id` names a stored v0.2 tree (its root node is stored and there is no v0.1
    /// document of that name), so [`crate::tree::diff`] can compare it node by node.
    pub fn is_stored_tree(&self, id: &Digest) -> bool {
        !self.snapshot_path(id).is_file() && self.is_tree_node(id)
    }

    /// Stores every node of a v0.2 snapshot with executable bits `executable` as objects
    /// (present ones are not rewritten) and checks the root is the snapshot's identity.
    pub(super) fn write_tree(
        &self,
        snapshot: &Snapshot,
        executable: &BTreeSet<WorkspacePath>,
    ) -> Result<(), StoreError> {
        let id = snapshot.identity();
        // A snapshot whose identity a stat cache's summary gave has no nodes: when its root is
        // stored, so is every node below it (children are written first), and nothing is
        // built. Otherwise they are built here, and the root checked against the identity.
        if snapshot.built_tree().is_some() || !self.is_tree_node(&id) {
            self.write_tree_nodes(snapshot, executable)?;
        }
        // The root is marked as a snapshot, so prefixes find it and no sub-directory's node.
        let dir = self.root.join("snapshots");
        let marker = format!("{id}.tree");
        if !dir.join(&marker).is_file() {
            std::fs::create_dir_all(&dir).map_err(super::io_err(&dir))?;
            super::write_atomic(&dir, &marker, b"")?;
        }
        Ok(())
    }

    /// Stores the nodes of `snapshot` the store lacks, built with the executable bits
    /// `executable` (or taken from its build), after checking the root is its identity.
    fn write_tree_nodes(
        &self,
        snapshot: &Snapshot,
        executable: &BTreeSet<WorkspacePath>,
    ) -> Result<(), StoreError> {
        let id = snapshot.identity();
        let built = snapshot
            .tree_nodes(executable)
            .expect("write_tree is called for v0.2 snapshots");
        if built.root != id {
            return Err(StoreError::BadTree {
                identity: id,
                source: Box::new(NodeError::NotCanonical { node: built.root }),
            });
        }
        self.write_nodes(&built, "")
    }

    /// Whether `e`, from [`Store::write_snapshot`] of a snapshot just taken of a directory in
    /// format `format`, says its identity is not the one its files give. With the caches
    /// beside the stat cache that can only come from them: a tree-cache entry with a wrong
    /// identity (v0.2 nodes that do not hash to the identity the build gave them), or a stat
    /// cache whose summary names another snapshot ([`crate::statcache::Summary`]). The
    /// snapshot is then taken again without them ([`Store::snapshot_into`]).
    pub(super) fn cache_gave_wrong_identity(
        e: &StoreError,
        format: crate::snapshot::SnapshotFormat,
    ) -> bool {
        use crate::snapshot::{SnapshotDocumentError, SnapshotFormat};
        match e {
            StoreError::BadTree { .. } => format == SnapshotFormat::V0_2,
            StoreError::BadSnapshot {
                source: SnapshotDocumentError::Identity { .. },
                ..
            } => format == SnapshotFormat::V0_1,
            _ => false,
        }
    }

    /// The identities of the stored v0.2 roots (`snapshots/<id>.tree` markers whose root node
    /// is present) that start with `prefix` (lowercase hex).
    pub(super) fn tree_roots(&self, prefix: &str) -> Vec<Digest> {
        let Ok(rd) = std::fs::read_dir(self.root.join("snapshots")) else {
            return Vec::new();
        };
        rd.flatten()
            .filter_map(|e| {
                let name = e.file_name();
                let id = name.to_str()?.strip_suffix(".tree")?.to_owned();
                id.starts_with(prefix).then_some(())?;
                id.parse::<Digest>().ok()
            })
            .filter(|d| self.is_tree_node(d))
            .collect()
    }

    /// Stores the node of directory `dir` of `built` and, first, every node below it that the
    /// store lacks. Children are written before parents, so a stored node's sub-nodes are
    /// always present: a node found stored ends the descent (an unchanged tree costs one
    /// `has_object`, a changed one about one per entry of each changed directory).
    fn write_nodes(&self, built: &crate::tree::BuiltTree, dir: &str) -> Result<(), StoreError> {
        let Some(n) = built.dirs.get(dir) else {
            return Err(StoreError::BadTree {
                identity: built.root,
                source: Box::new(NodeError::NotCanonical { node: built.root }),
            });
        };
        if self.has_object(&n.identity) {
            return Ok(());
        }
        for d in &n.node.directories {
            let sub = if dir.is_empty() {
                d.name.clone()
            } else {
                format!("{dir}/{}", d.name)
            };
            self.write_nodes(built, &sub)?;
        }
        self.write_node(&n.node, &n.identity)
    }

    /// Stores `node` as the object `identity`, packed ([`super::packed`]), after checking that
    /// its canonical bytes hash to `identity` (a tree cache entry with a wrong identity must
    /// not name a node: [`StoreError::BadTree`]).
    fn write_node(&self, node: &Node, identity: &Digest) -> Result<(), StoreError> {
        if Digest::of(&node.canonical_bytes()) != *identity {
            return Err(StoreError::BadTree {
                identity: *identity,
                source: Box::new(NodeError::NotCanonical { node: *identity }),
            });
        }
        self.put_object(identity, || super::packed::pack_node(node))
    }

    pub(super) fn read_tree(
        &self,
        identity: &Digest,
    ) -> Result<(Snapshot, BTreeSet<WorkspacePath>), StoreError> {
        let (flat, nodes) = crate::tree::read_tree(self, identity)?;
        let executable = flat
            .iter()
            .filter(|f| f.executable)
            .map(|f| f.path.clone())
            .collect();
        let files = flat
            .into_iter()
            .map(|f| SnapshotFile {
                path: f.path,
                blob: f.blob,
                bytes: f.bytes,
            })
            .collect();
        let snapshot =
            Snapshot::from_stored_tree(files, nodes).map_err(|e| StoreError::BadSnapshot {
                path: self.object_path(identity),
                source: e,
            })?;
        Ok((snapshot, executable))
    }
}
