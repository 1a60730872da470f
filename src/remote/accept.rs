//! "Was this exact snapshot accepted?" on the remote: `genesis check --remote URL --accepted
//! SNAPSHOT [--obligations HASH]`, and the records `verify --reuse-acceptance` takes
//! (DESIGN section 13, "Acceptance reuse").
//!
//! Push indexes every passing acceptance record of a session under
//! `acceptances/<snapshot>/<manifest>/<acceptance>`, the body the pusher's [`Environment`].
//! A record is **intact** when the object `objects/<acceptance>` exists, hashes to its name,
//! is the canonical (JCS) form of an acceptance record, names that snapshot and that manifest
//! blob, and says every obligation passed.

use super::{Remote, RemoteError};
use crate::hash::Digest;
use crate::obligation::AcceptanceRecord;

/// Where a record was made: written by the pusher beside the index entry (not covered by the
/// record's hash: the pusher's word).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Environment {
    /// The Genesis version (`CARGO_PKG_VERSION`).
    pub genesis: String,
    /// `std::env::consts::OS`, e.g. `linux`.
    pub os: String,
    /// `std::env::consts::ARCH`, e.g. `x86_64`.
    pub arch: String,
    /// For a record of a v0.1 snapshot: the executable bits of the tree it was made on (the
    /// v0.1 identity does not cover them; reuse requires the same bits). Absent for v0.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executable: Option<std::collections::BTreeSet<crate::path::WorkspacePath>>,
}

/// One indexed acceptance record of the snapshot.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AcceptedRecord {
    /// The record's name (the acceptance hash).
    pub acceptance: Digest,
    /// The manifest blob its obligations were read from (the obligations hash).
    pub manifest: Digest,
    /// The pusher's environment, when its index entry holds one.
    pub environment: Option<Environment>,
    /// Whether the record is intact (see the module docs).
    pub intact: bool,
    /// Why not, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// What [`check_accepted`] found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AcceptedOutcome {
    /// The remote URL.
    pub remote: String,
    /// The snapshot asked about.
    pub snapshot: Digest,
    /// The obligations hash asked for, if any.
    pub obligations: Option<Digest>,
    /// Every indexed record of the snapshot (and manifest), intact or not.
    pub records: Vec<AcceptedRecord>,
}

impl AcceptedOutcome {
    /// Whether an intact record exists (exit 0; else 1).
    pub fn accepted(&self) -> bool {
        self.records.iter().any(|r| r.intact)
    }
}

/// Looks for intact acceptance records of `snapshot` (of the manifest blob `obligations`,
/// when given) on `remote`.
///
/// # Errors
/// [`RemoteError::Request`] when the remote cannot be listed or read. A damaged record is no
/// error: it is listed, not intact, with its problem.
pub fn check_accepted(
    remote: &Remote,
    snapshot: &Digest,
    obligations: Option<&Digest>,
) -> Result<AcceptedOutcome, RemoteError> {
    let found = remote.block_on(find(remote, snapshot, obligations))??;
    Ok(AcceptedOutcome {
        remote: remote.url().to_owned(),
        snapshot: *snapshot,
        obligations: obligations.copied(),
        records: found.into_iter().map(|(r, _)| r).collect(),
    })
}

/// Every indexed record, with its bytes when intact.
async fn find(
    remote: &Remote,
    snapshot: &Digest,
    manifest: Option<&Digest>,
) -> Result<Vec<(AcceptedRecord, Option<Vec<u8>>)>, RemoteError> {
    let base = match manifest {
        Some(m) => format!("acceptances/{snapshot}/{m}"),
        None => format!("acceptances/{snapshot}"),
    };
    let mut out = Vec::new();
    for rel in remote.list(&base).await? {
        let full = match manifest {
            Some(m) => format!("{m}/{rel}"),
            None => rel.clone(),
        };
        let Some((m, a)) = full.split_once('/') else {
            continue;
        };
        let (Ok(m), Ok(a)) = (m.parse::<Digest>(), a.parse::<Digest>()) else {
            continue;
        };
        let environment = remote
            .get_opt(&format!("acceptances/{snapshot}/{m}/{a}"))
            .await?
            .and_then(|b| crate::json::from_slice::<Environment>(&b).ok());
        let (problem, bytes) = match remote.get_object(&a, &base).await {
            Ok(bytes) => (judge(&bytes, snapshot, &m), Some(bytes)),
            Err(e @ (RemoteError::Corrupt { .. } | RemoteError::MissingObject { .. })) => {
                (Some(e.to_string()), None)
            }
            Err(e) => return Err(e),
        };
        let intact = problem.is_none();
        out.push((
            AcceptedRecord {
                acceptance: a,
                manifest: m,
                environment,
                intact,
                problem,
            },
            bytes.filter(|_| intact),
        ));
    }
    Ok(out)
}

/// Why the record `bytes` is not an acceptance of `snapshot` read from `manifest`, if it is
/// not one.
fn judge(bytes: &[u8], snapshot: &Digest, manifest: &Digest) -> Option<String> {
    let record: AcceptanceRecord = match crate::json::from_slice(bytes) {
        Ok(r) => r,
        Err(e) => return Some(format!("not an acceptance record: {e}")),
    };
    if record.canonical_bytes() != bytes {
        return Some("not the canonical form of its record".into());
    }
    if record.snapshot != *snapshot {
        return Some(format!("a record of snapshot {}", record.snapshot));
    }
    if record.manifest != *manifest {
        return Some(format!("a record of manifest {}", record.manifest));
    }
    if !record.obligations_ok {
        return Some(format!("failed: {}", record.failed().join(", ")));
    }
    None
}

impl crate::engine::AcceptanceSource for Remote {
    fn source(&self) -> String {
        self.url().to_owned()
    }

    /// The intact records of `snapshot` and `manifest` made in this environment (same OS and
    /// architecture as this process).
    fn accepted(&self, snapshot: &Digest, manifest: &Digest) -> crate::engine::OfferedRecords {
        let here = super::push::environment();
        let found = self
            .block_on(find(self, snapshot, Some(manifest)))
            .and_then(|r| r)
            .map_err(|e| e.to_string())?;
        Ok(found
            .into_iter()
            .filter(|(r, _)| {
                r.environment
                    .as_ref()
                    .is_some_and(|e| e.os == here.os && e.arch == here.arch)
            })
            .filter_map(|(r, b)| {
                let exec = r.environment.and_then(|e| e.executable);
                b.map(|b| (r.acceptance, b, exec))
            })
            .collect())
    }
}
