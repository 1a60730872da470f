//! CI reproducibility: does a tree hash to an expected snapshot?

use crate::diff::{Change, DiffError, Operand, Tree, changes};
use crate::hash::Digest;
use crate::snapshot::Snapshot;
use crate::store::Store;

/// What a tree is expected to be.
#[derive(Debug, Clone)]
pub enum Expected {
    /// Only an identity: a mismatch can list paths only if the snapshot is known.
    Identity(Digest),
    /// A whole snapshot document: a mismatch lists the differing paths.
    Snapshot(Snapshot),
}

impl Expected {
    /// The expected identity.
    pub fn identity(&self) -> Digest {
        match self {
            Expected::Identity(d) => *d,
            Expected::Snapshot(s) => s.identity(),
        }
    }
}

/// The result of [`check`].
#[derive(Debug, Clone)]
pub struct CheckOutcome {
    /// The identity the tree hashes to.
    pub actual: Digest,
    /// The identity expected.
    pub expected: Digest,
    /// The paths that differ (`A`: only in the tree, `D`: only in the expected snapshot, `M`:
    /// other content); empty when they match or when the expected snapshot is not known.
    pub differences: Vec<Change>,
}

impl CheckOutcome {
    /// Whether the tree matches.
    pub fn matches(&self) -> bool {
        self.actual == self.expected
    }
}

/// Compares `tree` with `expected` (a full snapshot, when known, gives the differing paths).
pub fn check(tree: &Tree, expected: &Expected, expected_tree: Option<&Tree>) -> CheckOutcome {
    let actual = tree.snapshot.identity();
    let expected_id = expected.identity();
    let differences = if actual == expected_id {
        Vec::new()
    } else if let Some(e) = expected_tree {
        // Executable bits are not part of the v0.1 identity: compare content only, unless
        // both sides are v0.2 trees, whose identity covers them.
        let bits = e.snapshot.format() == crate::snapshot::SnapshotFormat::V0_2
            && tree.snapshot.format() == crate::snapshot::SnapshotFormat::V0_2;
        changes(e, tree)
            .into_iter()
            .filter(|c| match (&c.old, &c.new) {
                (Some(o), Some(n)) => o.file.blob != n.file.blob || bits,
                _ => true,
            })
            .collect()
    } else {
        Vec::new()
    };
    CheckOutcome {
        actual,
        expected: expected_id,
        differences,
    }
}

/// Compares the stored tree `actual` with the stored snapshot `expected`, as [`check`] does
/// with both trees known. Two v0.2 trees are compared by [`crate::tree::diff`], reading only
/// the nodes whose identities differ (see [`Tree::compare`]); other snapshots are read whole.
///
/// # Errors
/// [`DiffError::Store`] if a snapshot or a node it needs is missing or invalid.
pub fn check_stored(
    store: &Store,
    actual: &Digest,
    expected: &Digest,
) -> Result<CheckOutcome, DiffError> {
    let (e, t) = Tree::compare(
        Operand::Stored(store.clone(), *expected),
        Operand::Stored(store.clone(), *actual),
    )?;
    Ok(check(&t, &Expected::Identity(*expected), Some(&e)))
}
