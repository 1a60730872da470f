//! Building a tree's nodes from its sorted flat file list ([`build`], [`build_with`]).
//!
//! A directory is built bottom-up: first its sub-directories (so their identities are known),
//! then its own entries. With a tree cache ([`TreeCache`]) the entries are first hashed
//! straight from the flat list ([`cache::entries_digest_of`], no node allocated); a directory
//! whose digest the cache records keeps the recorded identity and gets no node at all
//! ([`BuiltNode::built`] is `false`). "Unchanged" is thus exact: the digest covers every name,
//! blob, size and executable bit of the directory's files and the identity of each
//! sub-directory's node, so a change anywhere below changes the digest of every directory on
//! the way up, and only those are built, serialised and hashed again. A directory with many
//! files below it ([`PARALLEL_FILES`]) builds its sub-directories on rayon's threads.

use std::collections::{BTreeSet, HashMap};

use super::cache::{self, TreeCache};
use super::{DirEntry, FileEntry, Node, TreeFile};
use crate::hash::Digest;
use crate::path::WorkspacePath;

/// One directory of a [`BuiltTree`]: its node, identity, and whether this build serialised and
/// hashed it (`false` when its identity was reused from the previous build or the tree cache).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltNode {
    /// The node; empty when `built` is `false`.
    pub node: Node,
    /// Its identity.
    pub identity: Digest,
    /// Whether this build computed the identity (the node is new or changed).
    pub fresh: bool,
    /// The digest of its entries ([`cache::entries_digest`]) when the build was given a
    /// [`TreeCache`] (or compared it with a node of `previous` that was not built), else
    /// `None`.
    pub entries: Option<Digest>,
    /// Whether `node` holds the directory's entries. `false` for a directory whose identity
    /// the tree cache gave: its node was not materialised (the store already holds it, or
    /// writing finds it missing and the tree is built again in full).
    pub built: bool,
}

/// Every node of a tree, keyed by directory path (`""` for the root, else `a/b`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltTree {
    /// The root node's identity: the tree's identity.
    pub root: Digest,
    /// The nodes by directory path.
    pub dirs: HashMap<String, BuiltNode>,
    /// `executable_digest` of the executable bits the tree was built with (`None` for a tree
    /// read from the store, whose nodes are all built and carry the bits themselves).
    pub executable: Option<Digest>,
}

/// SHA-256 of the executable paths in order, each as its length (u64 LE) and its bytes: what
/// [`BuiltTree::executable_matches`] compares when some nodes were not materialised.
pub fn executable_digest(executable: &BTreeSet<WorkspacePath>) -> Digest {
    let mut buf = Vec::new();
    for p in executable {
        buf.extend_from_slice(&(p.as_str().len() as u64).to_le_bytes());
        buf.extend_from_slice(p.as_str().as_bytes());
    }
    Digest::of(&buf)
}

impl BuiltTree {
    /// How many nodes the tree has.
    pub fn node_count(&self) -> usize {
        self.dirs.len()
    }

    /// Whether the files marked executable in these nodes are exactly `executable`: for a
    /// built tree, the set it was built with (`executable_digest`); for a tree read from the
    /// store, each path looked up in its directory's node. No node is rebuilt.
    pub fn executable_matches(&self, executable: &BTreeSet<WorkspacePath>) -> bool {
        if let Some(d) = self.executable {
            return d == executable_digest(executable);
        }
        let marked: usize = self
            .dirs
            .values()
            .map(|n| n.node.files.iter().filter(|f| f.executable).count())
            .sum();
        marked == executable.len()
            && executable.iter().all(|p| {
                let (dir, name) = p.as_str().rsplit_once('/').unwrap_or(("", p.as_str()));
                self.dirs.get(dir).is_some_and(|n| {
                    n.node
                        .files
                        .binary_search_by(|f| f.name.as_str().cmp(name))
                        .is_ok_and(|i| n.node.files[i].executable)
                })
            })
    }

    /// How many nodes this build serialised and hashed.
    pub fn fresh_count(&self) -> usize {
        self.dirs.values().filter(|n| n.fresh).count()
    }

    /// Whether writing the tree into a store where `present` tells which nodes are stored
    /// needs a node that was not materialised ([`BuiltNode::built`] `false`). The descent is
    /// the store's: from the root, each node not `present` leads to its sub-directories (a
    /// stored node's sub-nodes are stored too).
    pub fn lacks_needed_node(&self, present: &dyn Fn(&Digest) -> bool) -> bool {
        let mut todo = vec![String::new()];
        while let Some(dir) = todo.pop() {
            let Some(n) = self.dirs.get(&dir) else {
                return true;
            };
            if present(&n.identity) {
                continue;
            }
            if !n.built {
                return true;
            }
            todo.extend(n.node.directories.iter().map(|d| {
                if dir.is_empty() {
                    d.name.clone()
                } else {
                    format!("{dir}/{}", d.name)
                }
            }));
        }
        false
    }
}

/// Builds every node of the tree whose sorted flat file list is `files` (sorted by path bytes,
/// each path once, as a [`crate::snapshot::Snapshot`] holds it) and whose executable files are
/// `executable`, bottom-up in one pass over the list. When `previous` is given, a directory
/// whose entries equal those of the same (built) directory in `previous` keeps its identity
/// without being serialised or hashed again.
pub fn build<F: TreeFile + Sync>(
    files: &[F],
    executable: &BTreeSet<WorkspacePath>,
    previous: Option<&BuiltTree>,
) -> BuiltTree {
    build_with(files, executable, previous, None)
}

/// [`build`], also taking identities from `known`, the tree cache of an earlier run: a
/// directory whose entries digest ([`cache::entries_digest`], computed from `files` without
/// building the node) is the one `known` records for it keeps the recorded identity, and its
/// node is neither materialised, serialised nor hashed (not `fresh`, not `built`). With `known`
/// given, every [`BuiltNode::entries`] is set, so [`TreeCache::of`] the result is the cache for
/// the next run.
pub fn build_with<F: TreeFile + Sync>(
    files: &[F],
    executable: &BTreeSet<WorkspacePath>,
    previous: Option<&BuiltTree>,
    known: Option<&TreeCache>,
) -> BuiltTree {
    build_in(files, executable, previous, known, false, PARALLEL_FILES)
}

/// [`build_with`] where a directory with at least `parallel_from` files below it builds its
/// sub-directories in parallel (tests compare 1 and `usize::MAX` with the default).
#[cfg(test)]
pub(crate) fn build_parallel_from<F: TreeFile + Sync>(
    files: &[F],
    executable: &BTreeSet<WorkspacePath>,
    known: Option<&TreeCache>,
    parallel_from: usize,
) -> BuiltTree {
    build_in(files, executable, None, known, false, parallel_from)
}

/// [`build_with`] without `previous`, every node materialised: a directory whose entries
/// digest `known` records gets its node built but keeps the recorded identity (not hashed,
/// not `fresh`). For writing into a store the nodes a cache-assisted build left out
/// ([`BuiltNode::built`]).
pub fn build_all(
    files: &[impl TreeFile + Sync],
    executable: &BTreeSet<WorkspacePath>,
    known: &TreeCache,
) -> BuiltTree {
    build_in(files, executable, None, Some(known), true, PARALLEL_FILES)
}

fn build_in<F: TreeFile + Sync>(
    files: &[F],
    executable: &BTreeSet<WorkspacePath>,
    previous: Option<&BuiltTree>,
    known: Option<&TreeCache>,
    materialise: bool,
    parallel_from: usize,
) -> BuiltTree {
    debug_assert!(
        files
            .windows(2)
            .all(|w| w[0].tree_path().as_str() < w[1].tree_path().as_str())
    );
    let mut dirs = HashMap::new();
    let mut ctx = Ctx {
        executable,
        previous,
        known,
        materialise,
        parallel_from,
        buf: Vec::new(),
        out: &mut dirs,
    };
    let root = build_dir(files, 0, "", &mut ctx);
    BuiltTree {
        root,
        dirs,
        executable: Some(executable_digest(executable)),
    }
}

/// What [`build_dir`] reads and writes besides its directory.
struct Ctx<'a> {
    executable: &'a BTreeSet<WorkspacePath>,
    previous: Option<&'a BuiltTree>,
    known: Option<&'a TreeCache>,
    /// Whether a directory the cache knows gets its node all the same.
    materialise: bool,
    /// A directory with at least this many files below it builds its sub-directories in
    /// parallel ([`PARALLEL_FILES`]; tests vary it).
    parallel_from: usize,
    buf: Vec<u8>,
    out: &'a mut HashMap<String, BuiltNode>,
}

/// A directory with at least this many files below it builds its sub-directories on rayon's
/// threads, each into a map of its own, merged after (smaller ones are not worth a task).
const PARALLEL_FILES: usize = 8192;

/// Builds the directory `dir` whose members are `files` (all paths start with `dir/`, or
/// anything for the root; `skip` = bytes of that prefix) and returns its identity.
fn build_dir<F: TreeFile + Sync>(files: &[F], skip: usize, dir: &str, ctx: &mut Ctx<'_>) -> Digest {
    // Sub-directories first (their identities are entries of this one), by name; the files
    // directly here, in path order, which is their name order (one prefix, no `/` after it).
    let mut below: Vec<(std::ops::Range<usize>, &str)> = Vec::new();
    let mut direct: Vec<&F> = Vec::new();
    let mut i = 0;
    while i < files.len() {
        let rest = &files[i].tree_path().as_str()[skip..];
        match memchr::memchr(b'/', rest.as_bytes()) {
            None => {
                direct.push(&files[i]);
                i += 1;
            }
            Some(slash) => {
                // Paths under one directory are contiguous in full-path byte order.
                let prefix = &rest[..=slash];
                let end = i + files[i..]
                    .partition_point(|f| f.tree_path().as_str()[skip..].starts_with(prefix));
                below.push((i..end, &rest[..slash]));
                i = end;
            }
        }
    }
    let mut subdirs = build_below(files, skip, dir, &below, ctx);
    // Full-path order is not per-directory order (`a.b` < `a/b` < `a0`, but the directory `a`
    // sorts before the file `a.b`): the sub-directories are sorted by name bytes.
    subdirs.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let exec = ctx.executable;
    // A directory `previous` has without its node (its identity came from a tree cache) is
    // compared by its entries digest.
    let prev = ctx.previous.and_then(|p| p.dirs.get(dir));
    let prev_digest = prev
        .filter(|p| !p.built)
        .and_then(|p| p.entries.zip(Some(p.identity)));
    let entries = (ctx.known.is_some() || prev_digest.is_some()).then(|| {
        cache::entries_digest_of(
            subdirs.iter().map(|(n, id)| (*n, id)),
            direct.iter().map(|f| file_entry(*f, skip, exec)),
            &mut ctx.buf,
        )
    });
    let cached = ctx
        .known
        .zip(entries.as_ref())
        .and_then(|(k, e)| k.identity(dir, e));
    if let Some(identity) = cached
        && !ctx.materialise
    {
        ctx.out.insert(
            dir.to_owned(),
            BuiltNode {
                node: Node::default(),
                identity,
                fresh: false,
                entries,
                built: false,
            },
        );
        return identity;
    }
    let node = Node {
        directories: subdirs
            .iter()
            .map(|(name, node)| DirEntry {
                name: (*name).to_owned(),
                node: *node,
            })
            .collect(),
        files: direct
            .iter()
            .map(|f| {
                let (name, blob, bytes, executable) = file_entry(*f, skip, exec);
                FileEntry {
                    blob,
                    bytes,
                    executable,
                    name: name.to_owned(),
                }
            })
            .collect(),
    };
    let reused = cached
        .or_else(|| {
            prev_digest
                .filter(|(e, _)| Some(e) == entries.as_ref())
                .map(|(_, id)| id)
        })
        .or_else(|| {
            prev.filter(|p| p.built && p.node == node)
                .map(|p| p.identity)
        });
    let (identity, fresh) = match reused {
        Some(id) => (id, false),
        None => (node.identity(), true),
    };
    ctx.out.insert(
        dir.to_owned(),
        BuiltNode {
            node,
            identity,
            fresh,
            entries,
            built: true,
        },
    );
    identity
}

/// Builds the sub-directories `below` of `dir` (each a range of `files` and its name, `skip`
/// being the bytes of `dir`'s prefix), in parallel when `files` holds at least
/// `ctx.parallel_from` files, and returns each one's name and identity in the same order.
fn build_below<'f, F: TreeFile + Sync>(
    files: &'f [F],
    skip: usize,
    dir: &str,
    below: &[(std::ops::Range<usize>, &'f str)],
    ctx: &mut Ctx<'_>,
) -> Vec<(&'f str, Digest)> {
    let sub_path = |name: &str| {
        if dir.is_empty() {
            name.to_owned()
        } else {
            format!("{dir}/{name}")
        }
    };
    let mut subdirs: Vec<(&str, Digest)> = Vec::with_capacity(below.len());
    if files.len() >= ctx.parallel_from && below.len() > 1 {
        use rayon::prelude::*;
        let built: Vec<(Digest, HashMap<String, BuiltNode>)> = below
            .par_iter()
            .map(|(range, name)| {
                let mut out = HashMap::new();
                let mut sub_ctx = Ctx {
                    executable: ctx.executable,
                    previous: ctx.previous,
                    known: ctx.known,
                    materialise: ctx.materialise,
                    parallel_from: ctx.parallel_from,
                    buf: Vec::new(),
                    out: &mut out,
                };
                let id = build_dir(
                    &files[range.clone()],
                    skip + name.len() + 1,
                    &sub_path(name),
                    &mut sub_ctx,
                );
                (id, out)
            })
            .collect();
        for ((_, name), (id, out)) in below.iter().zip(built) {
            ctx.out.extend(out);
            subdirs.push((name, id));
        }
    } else {
        for (range, name) in below {
            let id = build_dir(
                &files[range.clone()],
                skip + name.len() + 1,
                &sub_path(name),
                ctx,
            );
            subdirs.push((name, id));
        }
    }
    subdirs
}

/// A file's entry in its directory's node, the directory's path being its first `skip` bytes:
/// (name, blob, size, executable).
fn file_entry<'f, F: TreeFile>(
    f: &'f F,
    skip: usize,
    executable: &BTreeSet<WorkspacePath>,
) -> (&'f str, Digest, u64, bool) {
    (
        &f.tree_path().as_str()[skip..],
        f.tree_blob(),
        f.tree_bytes(),
        !executable.is_empty() && executable.contains(f.tree_path()),
    )
}
