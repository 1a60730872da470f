//! `genesis push`: objects first (create-if-absent, bounded concurrency), then the acceptance
//! index, then the refs (a session's next version created if absent: compare-and-swap).

use std::collections::{BTreeMap, BTreeSet};

use super::closure::{Item, item};
use super::{
    DEFAULT_CONCURRENCY, REF_SCHEMA, RefDoc, Remote, RemoteError, for_each_bounded, json_bytes,
    version_key,
};
use crate::hash::Digest;
use crate::obligation::AcceptanceRecord;
use crate::session::{Session, Status};
use crate::store::Store;

/// Options of [`push`].
#[derive(Debug, Clone)]
pub struct PushOptions {
    /// Uploads in flight at once (at least 1). Default [`DEFAULT_CONCURRENCY`].
    pub concurrency: usize,
    /// Download every object the remote lists and check its hash (`--verify-remote`);
    /// without it only the listed size is compared with the local object's. A damaged
    /// object is replaced and named in [`PushOutcome::repaired`].
    pub verify_remote: bool,
}

impl Default for PushOptions {
    fn default() -> Self {
        PushOptions {
            concurrency: DEFAULT_CONCURRENCY,
            verify_remote: false,
        }
    }
}

/// One session or snapshot pushed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Pushed {
    /// `session` or `snapshot`.
    pub kind: &'static str,
    /// The session id or snapshot identity.
    pub id: String,
    /// Objects in its closure.
    pub objects: usize,
    /// The session's version on the remote after the push (sessions only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Whether this push wrote its ref (false: the remote had it already).
    pub ref_written: bool,
}

/// What [`push`] did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PushOutcome {
    /// The remote URL.
    pub remote: String,
    /// Each session or snapshot, in the order given.
    pub pushed: Vec<Pushed>,
    /// Objects uploaded by this push.
    pub uploaded: usize,
    /// Objects the remote had already (listed before, or created meanwhile by another pusher).
    pub skipped: usize,
    /// Bytes uploaded (raw object bytes).
    pub bytes: u64,
    /// Acceptance index entries written.
    pub acceptances: usize,
    /// Keys of remote objects found damaged (listed size not the local object's, or with
    /// [`PushOptions::verify_remote`] content not hashing to the name) and replaced.
    pub repaired: Vec<String>,
}

/// The pusher's environment, written as the body of each acceptance index entry.
pub(super) fn environment() -> super::Environment {
    super::Environment {
        genesis: env!("CARGO_PKG_VERSION").to_owned(),
        os: std::env::consts::OS.to_owned(),
        arch: std::env::consts::ARCH.to_owned(),
        executable: None,
    }
}

/// Pushes each of `ids` (session ids, snapshot identities or unique prefixes; none: every
/// session of the store) to `remote` with everything needed to reproduce it.
///
/// # Errors
/// [`RemoteError::NotLocal`] for an id the store does not hold; [`RemoteError::Broken`] when
/// the store misses something it references; store read errors (a corrupt local object is
/// [`crate::store::StoreError::Corrupt`]); [`RemoteError::Request`] when the remote fails
/// (objects uploaded before stay: they are named by content, and no ref names them yet);
/// [`RemoteError::Diverged`] when the remote session has patches the local one lacks.
pub fn push(
    store: &Store,
    remote: &Remote,
    ids: &[String],
    opts: &PushOptions,
) -> Result<PushOutcome, RemoteError> {
    let ids = if ids.is_empty() {
        crate::session::list(store)?
    } else {
        ids.to_vec()
    };
    let items: Vec<Item> = ids
        .iter()
        .map(|a| item(store, a))
        .collect::<Result<_, _>>()?;
    remote.block_on(push_items(store, remote, &items, opts))?
}

async fn push_items(
    store: &Store,
    remote: &Remote,
    items: &[Item],
    opts: &PushOptions,
) -> Result<PushOutcome, RemoteError> {
    // 1. Objects: every closure's, and the closure objects themselves.
    let (total, uploaded, bytes, repaired) = send_objects(store, remote, items, opts).await?;
    // 2. The acceptance index (its records are uploaded objects now).
    let mut acceptances = 0;
    for it in items {
        for a in &it.acceptances {
            let record: AcceptanceRecord = match crate::json::from_slice(&store.read_object(a)?) {
                Ok(r) => r,
                Err(_) => continue,
            };
            if !record.obligations_ok || record.digest() != *a {
                continue;
            }
            let rel = format!("acceptances/{}/{}/{a}", record.snapshot, record.manifest);
            let env = super::Environment {
                executable: it.closure.snapshots_v0_1.get(&record.snapshot).cloned(),
                ..environment()
            };
            if remote.put_create(&rel, json_bytes(&env)).await? {
                acceptances += 1;
            }
        }
    }
    // 3. Refs, last.
    let mut pushed = Vec::new();
    for it in items {
        let (version, ref_written) = match it.kind {
            "session" => {
                let (v, w) = write_session_ref(store, remote, it).await?;
                (Some(v), w)
            }
            _ => {
                let doc = RefDoc {
                    schema: REF_SCHEMA.into(),
                    kind: "snapshot".into(),
                    id: it.id.clone(),
                    closure: it.closure_digest,
                    document: None,
                    state: None,
                };
                let w = remote
                    .put_create(&format!("snapshots/{}", it.id), json_bytes(&doc))
                    .await?;
                (None, w)
            }
        };
        pushed.push(Pushed {
            kind: it.kind,
            id: it.id.clone(),
            objects: it.closure.objects.len() + 1,
            version,
            ref_written,
        });
    }
    Ok(PushOutcome {
        remote: remote.url().to_owned(),
        pushed,
        uploaded,
        skipped: total - uploaded,
        bytes,
        acceptances,
        repaired,
    })
}

/// Uploads every object of `items` the remote lacks and replaces the damaged ones it lists:
/// (objects in all, uploaded, bytes uploaded, keys repaired).
async fn send_objects(
    store: &Store,
    remote: &Remote,
    items: &[Item],
    opts: &PushOptions,
) -> Result<(usize, usize, u64, Vec<String>), RemoteError> {
    let mut extra: BTreeMap<Digest, &[u8]> = BTreeMap::new();
    let mut all: BTreeSet<Digest> = BTreeSet::new();
    for it in items {
        all.extend(it.closure.objects.iter().copied());
        all.insert(it.closure_digest);
        extra.insert(it.closure_digest, &it.closure_bytes);
        for (d, b) in &it.extra {
            extra.insert(*d, b);
        }
    }
    let present = remote.list_sizes().await?;
    let extra = &extra;
    let local = |d: Digest| -> Result<Vec<u8>, RemoteError> {
        Ok(match extra.get(&d) {
            Some(b) => b.to_vec(),
            None => store.read_object(&d)?,
        })
    };
    // Listed objects: damaged ones (wrong size; with --verify-remote, wrong hash) are replaced.
    let listed: Vec<Digest> = all
        .iter()
        .filter(|d| present.contains_key(&d.to_hex()))
        .copied()
        .collect();
    let present = &present;
    let checked = for_each_bounded(listed, opts.concurrency, |d| async move {
        let bytes = local(d)?;
        let rel = format!("objects/{d}");
        let damaged = present.get(&d.to_hex()) != Some(&(bytes.len() as u64))
            || (opts.verify_remote
                && remote
                    .get_opt(&rel)
                    .await?
                    .is_none_or(|b| Digest::of(&b) != d));
        if !damaged {
            return Ok(None);
        }
        remote.put_overwrite(&rel, bytes).await?;
        Ok(Some(remote.key(&rel).to_string()))
    })
    .await?;
    let mut repaired: Vec<String> = checked.into_iter().flatten().collect();
    repaired.sort();
    let todo: Vec<Digest> = all
        .iter()
        .filter(|d| !present.contains_key(&d.to_hex()))
        .copied()
        .collect();
    let sent = for_each_bounded(todo, opts.concurrency, |d| async move {
        let bytes = local(d)?;
        let len = bytes.len() as u64;
        let created = remote.put_create(&format!("objects/{d}"), bytes).await?;
        Ok((created, len))
    })
    .await?;
    let uploaded = sent.iter().filter(|(c, _)| *c).count();
    let bytes = sent.iter().filter(|(c, _)| *c).map(|(_, n)| n).sum();
    Ok((all.len(), uploaded, bytes, repaired))
}

/// Writes the session's next version unless the latest is this one: read the latest, check
/// that the local session extends it, create version N+1 if absent; when another pusher
/// created it first, read again.
async fn write_session_ref(
    _store: &Store,
    remote: &Remote,
    it: &Item,
) -> Result<(u64, bool), RemoteError> {
    let new = RefDoc {
        schema: REF_SCHEMA.into(),
        kind: "session".into(),
        id: it.id.clone(),
        closure: it.closure_digest,
        document: it.document,
        state: it.state,
    };
    let local = it.session.as_ref().expect("a session item has its session");
    loop {
        let next = match remote.session_head(&it.id).await? {
            None => 1,
            Some((v, head)) if head == new => return Ok((v, false)),
            Some((v, head)) => {
                let from = version_key(&it.id, v);
                let d = head.document.ok_or_else(|| RemoteError::Invalid {
                    url: remote.url().to_owned(),
                    key: remote.key(&from).to_string(),
                    message: "a session ref without /document".into(),
                })?;
                let bytes = remote.get_object(&d, &from).await?;
                let theirs: Session = remote.parse_doc(&format!("objects/{d}"), &bytes)?;
                extends(&it.id, local, &theirs, "the remote", "the local store's")?;
                v.checked_add(1).ok_or_else(|| RemoteError::Invalid {
                    url: remote.url().to_owned(),
                    key: remote.key(&from).to_string(),
                    message: "the highest session version; no version can follow it".into(),
                })?
            }
        };
        if remote
            .put_create(&version_key(&it.id, next), json_bytes(&new))
            .await?
        {
            return Ok((next, true));
        }
    }
}

/// Whether `ours` (named `ours_name` in the error, a possessive) may replace `theirs` (named
/// `where_`): the same base, their patches a prefix of ours, and theirs still open or of our
/// status.
///
/// # Errors
/// [`RemoteError::Diverged`] otherwise.
pub(super) fn extends(
    id: &str,
    ours: &Session,
    theirs: &Session,
    where_: &str,
    ours_name: &str,
) -> Result<(), RemoteError> {
    let prefix = theirs.base_snapshot == ours.base_snapshot
        && theirs.patches.len() <= ours.patches.len()
        && theirs.patches[..] == ours.patches[..theirs.patches.len()];
    let status_ok = theirs.status == Status::Open || theirs.status == ours.status;
    if prefix && status_ok {
        return Ok(());
    }
    Err(RemoteError::Diverged {
        id: id.to_owned(),
        message: format!(
            "{where_} has {} patch{} on base {} ({}); {ours_name} {} patch{} on base {} ({}) do not extend them",
            theirs.patches.len(),
            if theirs.patches.len() == 1 { "" } else { "es" },
            theirs.base_snapshot,
            theirs.status,
            ours.patches.len(),
            if ours.patches.len() == 1 { "" } else { "es" },
            ours.base_snapshot,
            ours.status,
        ),
    })
}
