//! `genesis pull`: refs, closures, then every missing object downloaded into a staging
//! directory of the store (`tmp/pull-<key>/`, each checked against its name on arrival), then
//! moved into the store through its normal write path, then v0.1 snapshot documents, then the
//! session files. A corrupt object stops the pull before anything enters the store; an
//! interrupted pull resumes (objects staged or stored are not fetched again).

use std::collections::BTreeSet;

use super::push::extends;
use super::{
    ClosureDoc, DEFAULT_CONCURRENCY, REF_SCHEMA, RefDoc, Remote, RemoteError, for_each_bounded,
};
use crate::hash::Digest;
use crate::session::{Session, SessionState};
use crate::store::{Store, StoreError};

/// Options of [`pull`].
#[derive(Debug, Clone)]
pub struct PullOptions {
    /// Downloads in flight at once (at least 1). Default [`DEFAULT_CONCURRENCY`].
    pub concurrency: usize,
    /// How long to wait for the store lock before writing sessions.
    pub lock_wait: std::time::Duration,
}

impl Default for PullOptions {
    fn default() -> Self {
        PullOptions {
            concurrency: DEFAULT_CONCURRENCY,
            lock_wait: std::time::Duration::from_secs(10),
        }
    }
}

/// One session or snapshot pulled.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Pulled {
    /// `session` or `snapshot`.
    pub kind: &'static str,
    /// The session id or snapshot identity.
    pub id: String,
    /// The remote version pulled (sessions only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Objects in its closure.
    pub objects: usize,
    /// Whether the local session files were written (false: they were the same already).
    pub written: bool,
}

/// What [`pull`] did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PullOutcome {
    /// The remote URL.
    pub remote: String,
    /// Each id, in the order given.
    pub pulled: Vec<Pulled>,
    /// Objects downloaded by this run.
    pub downloaded: usize,
    /// Objects already in the store, or staged by an interrupted run.
    pub skipped: usize,
    /// Bytes downloaded (raw object bytes).
    pub bytes: u64,
}

struct Wanted {
    kind: &'static str,
    id: String,
    version: Option<u64>,
    doc: RefDoc,
    closure: ClosureDoc,
}

/// Pulls each of `ids` (session ids or snapshot identities) from `remote` into `store`.
///
/// # Errors
/// [`RemoteError::NotOnRemote`] (exit 2); [`RemoteError::Corrupt`] for an object whose bytes
/// are not its name (exit 4; the store is left as it was); [`RemoteError::MissingObject`],
/// [`RemoteError::Invalid`], [`RemoteError::Request`] (exit 4); [`RemoteError::Diverged`] when
/// the local session has patches the remote one lacks (exit 3); store errors.
pub fn pull(
    store: &Store,
    remote: &Remote,
    ids: &[String],
    opts: &PullOptions,
) -> Result<PullOutcome, RemoteError> {
    remote.block_on(pull_all(store, remote, ids, opts))?
}

async fn resolve(remote: &Remote, id: &str) -> Result<Wanted, RemoteError> {
    let (kind, version, rel, doc) = if crate::session::SessionId::new(id).is_ok()
        && let Some((v, doc)) = remote.session_head(id).await?
    {
        ("session", Some(v), super::version_key(id, v), doc)
    } else if id.parse::<Digest>().is_ok()
        && let Some(bytes) = remote.get_opt(&format!("snapshots/{id}")).await?
    {
        let rel = format!("snapshots/{id}");
        let doc: RefDoc = remote.parse_doc(&rel, &bytes)?;
        ("snapshot", None, rel, doc)
    } else {
        return Err(RemoteError::NotOnRemote {
            url: remote.url().to_owned(),
            id: id.to_owned(),
        });
    };
    let invalid = |message: String| RemoteError::Invalid {
        url: remote.url().to_owned(),
        key: remote.key(&rel).to_string(),
        message,
    };
    if doc.schema != REF_SCHEMA || doc.kind != kind || doc.id != id {
        return Err(invalid(format!(
            "expected a {REF_SCHEMA} {kind} ref of {id}, found {} {} of {}",
            doc.schema, doc.kind, doc.id
        )));
    }
    if kind == "session" && (doc.document.is_none() || doc.state.is_none()) {
        return Err(invalid("a session ref without /document or /state".into()));
    }
    let bytes = remote.get_object(&doc.closure, &rel).await?;
    let closure: ClosureDoc = remote.parse_doc(&format!("objects/{}", doc.closure), &bytes)?;
    let named = [Some(doc.closure), doc.document, doc.state];
    if named
        .iter()
        .flatten()
        .skip(1)
        .any(|d| !closure.objects.contains(d))
        || closure
            .snapshots_v0_1
            .keys()
            .any(|d| !closure.objects.contains(d))
    {
        return Err(invalid(
            "the closure does not list what the ref names".into(),
        ));
    }
    Ok(Wanted {
        kind,
        id: id.to_owned(),
        version,
        doc,
        closure,
    })
}

async fn pull_all(
    store: &Store,
    remote: &Remote,
    ids: &[String],
    opts: &PullOptions,
) -> Result<PullOutcome, RemoteError> {
    let mut wanted = Vec::new();
    for id in ids {
        wanted.push(resolve(remote, id).await?);
    }
    // Refuse a diverged session before anything is downloaded or written.
    for w in wanted.iter().filter(|w| w.kind == "session") {
        let Ok(sid) = crate::session::SessionId::new(&w.id) else {
            continue;
        };
        if !crate::session::exists(store, &sid) {
            continue;
        }
        let (local, _) = crate::session::load(store, &w.id)?;
        let d = w.doc.document.expect("checked by resolve");
        let from = super::version_key(&w.id, w.version.unwrap_or(0));
        let bytes = remote.get_object(&d, &from).await?;
        let theirs: Session = remote.parse_doc(&format!("objects/{d}"), &bytes)?;
        if theirs != local {
            extends(&w.id, &theirs, &local, "the local store", "the remote's")?;
        }
    }
    let all: BTreeSet<Digest> = wanted
        .iter()
        .flat_map(|w| w.closure.objects.iter().copied())
        .collect();
    // The staging directory is named by what the pull wants, so a rerun finds it.
    let key = Digest::of(
        wanted
            .iter()
            .map(|w| w.doc.closure.to_hex())
            .collect::<Vec<_>>()
            .join(" ")
            .as_bytes(),
    );
    let stage = store.path().join("tmp").join(format!("pull-{key}"));
    let out = pull_staged(store, remote, &wanted, &all, &stage, opts).await;
    // On success and on every failure (a killed pull leaves it, and a rerun resumes).
    let _ = std::fs::remove_dir_all(&stage);
    out
}

async fn pull_staged(
    store: &Store,
    remote: &Remote,
    wanted: &[Wanted],
    all: &BTreeSet<Digest>,
    stage: &std::path::Path,
    opts: &PullOptions,
) -> Result<PullOutcome, RemoteError> {
    let needed: Vec<Digest> = all
        .iter()
        .filter(|d| !store.has_object(d))
        .copied()
        .collect();
    std::fs::create_dir_all(stage).map_err(|source| StoreError::Io {
        path: stage.to_path_buf(),
        source,
    })?;
    let fetch: Vec<Digest> = needed
        .iter()
        .filter(|d| !stage.join(d.to_hex()).is_file())
        .copied()
        .collect();
    let got = for_each_bounded(fetch, opts.concurrency, |d| async move {
        let bytes = remote.get_object(&d, "a closure").await?;
        stage_object(stage, &d, &bytes)?;
        Ok(bytes.len() as u64)
    })
    .await?;
    commit_objects(store, stage, &needed, remote)?;
    let mut pulled = Vec::new();
    for w in wanted {
        write_snapshots(store, &w.closure)?;
        let written = match w.kind {
            "session" => write_session(store, remote, w, opts)?,
            _ => false,
        };
        pulled.push(Pulled {
            kind: w.kind,
            id: w.id.clone(),
            version: w.version,
            objects: w.closure.objects.len() + 1,
            written,
        });
    }
    Ok(PullOutcome {
        remote: remote.url().to_owned(),
        pulled,
        downloaded: got.len(),
        skipped: all.len() - got.len(),
        bytes: got.iter().sum(),
    })
}

/// Writes a checked object into the staging directory: a temp file renamed into place, not
/// fsynced (staging only spares a resumed pull the download; what enters the store is checked
/// again and written durably by [`Store::write_object`]; a staged file torn by a power loss
/// fails that check and is removed).
fn stage_object(stage: &std::path::Path, d: &Digest, bytes: &[u8]) -> Result<(), StoreError> {
    let target = stage.join(d.to_hex());
    let io = |source| StoreError::Io {
        path: target.clone(),
        source,
    };
    crate::fault::point(&format!("stage {}", target.display())).map_err(io)?;
    let tmp = stage.join(format!(".tmp-{}", d.to_hex()));
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, &target).map_err(io)
}

/// Moves the staged objects into the store (each checked again against its name).
fn commit_objects(
    store: &Store,
    stage: &std::path::Path,
    needed: &[Digest],
    remote: &Remote,
) -> Result<(), RemoteError> {
    for d in needed {
        let path = stage.join(d.to_hex());
        let bytes = std::fs::read(&path).map_err(|source| StoreError::Io {
            path: path.clone(),
            source,
        })?;
        let actual = Digest::of(&bytes);
        if actual != *d {
            let _ = std::fs::remove_file(&path);
            return Err(RemoteError::Corrupt {
                url: remote.url().to_owned(),
                key: format!("{} (staged; removed: pull again)", path.display()),
                expected: *d,
                actual,
            });
        }
        store.write_object(&bytes)?;
    }
    Ok(())
}

/// Writes each v0.1 snapshot document (and its executable bits) from its canonical object.
fn write_snapshots(store: &Store, closure: &ClosureDoc) -> Result<(), RemoteError> {
    for (id, exec) in &closure.snapshots_v0_1 {
        let bytes = store.read_object(id)?;
        let bad = |message: String| StoreError::BadDocument {
            path: store.object_path(id),
            source: crate::json::JsonError::Shape(message),
        };
        let mut value: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
        let Some(obj) = value.as_object_mut() else {
            return Err(bad("not a JSON object".into()).into());
        };
        obj.insert("identity".into(), serde_json::Value::String(id.to_hex()));
        let doc = serde_json::to_vec(&value).expect("serialisable");
        let snap = crate::snapshot::Snapshot::from_json(&doc).map_err(|source| {
            StoreError::BadSnapshot {
                path: store.object_path(id),
                source,
            }
        })?;
        store.write_snapshot(&snap, exec)?;
    }
    Ok(())
}

/// Writes the pulled session (under the store lock) unless the local one is the same; refuses
/// one whose patches the remote's do not extend.
fn write_session(
    store: &Store,
    remote: &Remote,
    w: &Wanted,
    opts: &PullOptions,
) -> Result<bool, RemoteError> {
    let (doc_d, state_d) = (
        w.doc.document.expect("checked"),
        w.doc.state.expect("checked"),
    );
    let parse_err = |d: Digest, e: crate::json::JsonError| RemoteError::Invalid {
        url: remote.url().to_owned(),
        key: remote.key(&format!("objects/{d}")).to_string(),
        message: e.to_string(),
    };
    let session: Session =
        crate::json::from_slice(&store.read_object(&doc_d)?).map_err(|e| parse_err(doc_d, e))?;
    let mut state: SessionState = crate::json::from_slice(&store.read_object(&state_d)?)
        .map_err(|e| parse_err(state_d, e))?;
    if session.session.as_str() != w.id {
        return Err(RemoteError::Invalid {
            url: remote.url().to_owned(),
            key: remote.key(&format!("objects/{doc_d}")).to_string(),
            message: format!("/session is {}, not {}", session.session, w.id),
        });
    }
    // The pusher's checkout directory is not this machine's; a local one is kept (DESIGN
    // section 13), marked behind when the pull brings what it does not hold.
    state.checkout = None;
    state.checkout_from = None;
    state.checkout_pulled_past = None;
    let reach = crate::gc::reach(store, Some((&w.id, &session, &state)), &[]);
    if !reach.problems.is_empty() {
        return Err(RemoteError::Broken {
            id: w.id.clone(),
            problems: reach.problems.into_iter().collect(),
        });
    }
    let _lock = store.lock(opts.lock_wait)?;
    if crate::session::exists(store, &session.session) {
        let (local, local_state) = crate::session::load(store, &w.id)?;
        if local == session {
            return Ok(false);
        }
        extends(&w.id, &session, &local, "the local store", "the remote's")?;
        if local_state.checkout.is_some() && session.current_snapshot != local.current_snapshot {
            state.checkout = local_state.checkout;
            state.checkout_from = local_state.checkout_from;
            state.checkout_pulled_past = local_state
                .checkout_pulled_past
                .or(Some(session.current_snapshot));
        }
    }
    crate::session::save(store, &session, &state)?;
    crate::session::load(store, &w.id)?;
    Ok(true)
}
