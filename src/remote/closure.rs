//! What one push uploads for a session or a snapshot: its closure in the local store (the
//! walk `genesis gc` marks with, [`crate::gc`]), the bytes that are not store objects (a v0.1
//! snapshot's canonical bytes in stores that predate them, the session document and state),
//! and the acceptance records to index.

use std::collections::{BTreeMap, BTreeSet};

use super::{CLOSURE_SCHEMA, ClosureDoc, RemoteError, json_bytes};
use crate::hash::Digest;
use crate::session::{Session, SessionState, Verification};
use crate::store::Store;

/// One session or snapshot to push.
#[derive(Debug)]
pub(super) struct Item {
    /// `session` or `snapshot`.
    pub(super) kind: &'static str,
    /// The session id or the snapshot identity.
    pub(super) id: String,
    /// The closure document.
    pub(super) closure: ClosureDoc,
    /// Its bytes and name.
    pub(super) closure_bytes: Vec<u8>,
    pub(super) closure_digest: Digest,
    /// Objects whose bytes are here rather than read from the store's objects.
    pub(super) extra: BTreeMap<Digest, Vec<u8>>,
    /// The session document and state objects (sessions only).
    pub(super) document: Option<Digest>,
    pub(super) state: Option<Digest>,
    /// The session as pushed (sessions only).
    pub(super) session: Option<Session>,
    /// The acceptance records the session names.
    pub(super) acceptances: BTreeSet<Digest>,
}

/// The item for `arg`: a session id, else a snapshot identity or unique prefix.
pub(super) fn item(store: &Store, arg: &str) -> Result<Item, RemoteError> {
    let is_session =
        crate::session::SessionId::new(arg).is_ok_and(|id| crate::session::exists(store, &id));
    if is_session {
        return session_item(store, arg);
    }
    let id = match store.resolve_snapshot(arg) {
        Ok(d) => d,
        Err(crate::store::StoreError::NoSuchSnapshot { .. }) => {
            return Err(RemoteError::NotLocal(arg.to_owned()));
        }
        Err(e) => return Err(e.into()),
    };
    let reach = crate::gc::reach(store, None, &[id]);
    build(
        store,
        "snapshot",
        id.to_string(),
        reach,
        BTreeMap::new(),
        None,
    )
}

fn session_item(store: &Store, id: &str) -> Result<Item, RemoteError> {
    // Checked as every command reads it (schema, chain, snapshots present) ...
    crate::session::load(store, id)?;
    // ... and pushed as the files are.
    let dir = store.path().join("sessions");
    let read = |name: String| {
        let p = dir.join(name);
        std::fs::read(&p).map_err(|source| crate::store::StoreError::Io { path: p, source })
    };
    let doc_bytes = read(format!("{id}.json"))?;
    let state_bytes = read(format!("{id}.state"))?;
    let session: Session =
        crate::json::from_slice(&doc_bytes).map_err(|e| crate::session::SessionError::Invalid {
            id: id.to_owned(),
            path: dir.join(format!("{id}.json")),
            message: e.to_string(),
        })?;
    let state: SessionState = crate::json::from_slice(&state_bytes).map_err(|e| {
        crate::session::SessionError::Invalid {
            id: id.to_owned(),
            path: dir.join(format!("{id}.state")),
            message: e.to_string(),
        }
    })?;
    let reach = crate::gc::reach(store, Some((id, &session, &state)), &[]);
    let mut extra = BTreeMap::new();
    let document = Digest::of(&doc_bytes);
    let state_d = Digest::of(&state_bytes);
    extra.insert(document, doc_bytes);
    extra.insert(state_d, state_bytes);
    let mut item = build(
        store,
        "session",
        id.to_owned(),
        reach,
        extra,
        Some(session.clone()),
    )?;
    item.document = Some(document);
    item.state = Some(state_d);
    item.acceptances = acceptances_of(&session, &state);
    Ok(item)
}

/// Every acceptance record the session and its rebased history name.
fn acceptances_of(s: &Session, st: &SessionState) -> BTreeSet<Digest> {
    let mut out = BTreeSet::new();
    let mut add = |patches: &[crate::session::PatchEntry], v: Option<&Verification>| {
        out.extend(patches.iter().filter_map(|p| p.acceptance));
        out.extend(v.map(|v| v.acceptance));
    };
    add(&s.patches, s.verification.as_ref());
    for r in &st.rebased {
        add(&r.patches, r.verification.as_ref());
    }
    out
}

fn build(
    store: &Store,
    kind: &'static str,
    id: String,
    reach: crate::gc::Reach,
    mut extra: BTreeMap<Digest, Vec<u8>>,
    session: Option<Session>,
) -> Result<Item, RemoteError> {
    if !reach.problems.is_empty() {
        return Err(RemoteError::Broken {
            id,
            problems: reach.problems.into_iter().collect(),
        });
    }
    let mut closure = ClosureDoc {
        schema: CLOSURE_SCHEMA.to_owned(),
        objects: reach.objects.into_iter().collect(),
        snapshots_v0_1: BTreeMap::new(),
    };
    // v0.1 snapshots travel as their canonical bytes (the object their identity names) with
    // their executable bits beside them in the closure.
    for d in reach.docs {
        let (snap, exec) = store.read_snapshot(&d)?;
        if !store.has_object(&d) {
            let bytes = snap.canonical_v0_1().expect("a v0.1 document");
            extra.insert(d, bytes);
        }
        closure.objects.insert(d);
        closure.snapshots_v0_1.insert(d, exec);
    }
    closure.objects.extend(extra.keys().copied());
    let closure_bytes = json_bytes(&closure);
    let closure_digest = Digest::of(&closure_bytes);
    Ok(Item {
        kind,
        id,
        closure,
        closure_bytes,
        closure_digest,
        extra,
        document: None,
        state: None,
        session,
        acceptances: BTreeSet::new(),
    })
}
