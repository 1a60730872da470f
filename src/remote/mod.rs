//! A shared store on object storage (DESIGN section 13, "Remote store"): `genesis push`,
//! `genesis pull`, `genesis check --remote URL --accepted SNAPSHOT` and
//! `genesis verify --reuse-acceptance`, on Apache Arrow's `object_store` crate (S3 and
//! S3-compatible services, Google Cloud Storage, Azure Blob Storage, local files, memory).
//! Built only with the cargo feature `remote`.
//!
//! Key layout under the URL's prefix:
//!
//! ```text
//! objects/<hex sha256>                     immutable: the exact raw bytes of a blob, tree node,
//!                                          v0.1 snapshot (its canonical bytes), patch text,
//!                                          acceptance record, log, session document or state,
//!                                          closure list; create-if-absent
//! sessions/<id>/<version, 10 digits>       a session's versions (ref documents, below); the
//!                                          highest is the latest; each created if absent, so
//!                                          creating version N+1 is a compare-and-swap
//! snapshots/<identity>                     ref document of a pushed snapshot; create-if-absent
//! acceptances/<snapshot>/<manifest>/<acceptance>
//!                                          index of acceptance records: body is the pusher's
//!                                          environment (JSON); create-if-absent
//! ```
//!
//! A ref document (`genesis/remote-ref-v1`) names the closure object: the sorted list of every
//! object needed to reproduce what it names, and the executable bits of each v0.1 snapshot
//! (which its identity does not cover). Objects are uploaded before the refs that name them,
//! so a push stopped at any point leaves nothing that names a missing object.
//!
//! Every call runs on a tokio runtime made for that call (the engine's API stays synchronous);
//! transfers run with bounded concurrency ([`PushOptions::concurrency`]); HTTP stores retry
//! transient errors with exponential backoff ([`retry_config`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};

use crate::error_kind::ErrorKind;
use crate::hash::Digest;
use crate::path::WorkspacePath;

mod accept;
mod closure;
mod pull;
mod push;

pub use accept::{AcceptedOutcome, AcceptedRecord, Environment, check_accepted};
pub use pull::{PullOptions, PullOutcome, pull};
pub use push::{PushOptions, PushOutcome, Pushed, push};

/// The environment variable naming the remote when `--remote` is not given.
pub const REMOTE_ENV: &str = "GENESIS_REMOTE";
/// Transfers in flight at once, by default.
pub const DEFAULT_CONCURRENCY: usize = 16;
/// The `schema` of a ref document.
pub const REF_SCHEMA: &str = "genesis/remote-ref-v1";
/// The `schema` of a closure object.
pub const CLOSURE_SCHEMA: &str = "genesis/remote-closure-v1";

/// Errors of the remote store. Each names the URL or key involved.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The remote URL cannot be used.
    #[error("remote {url:?}: {reason}")]
    Url {
        /// The URL as given.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// A request to the object store failed (after its retries).
    #[error("remote {url}: {op} {key}: {source}")]
    Request {
        /// The remote URL.
        url: String,
        /// get, put, list or head.
        op: &'static str,
        /// The key.
        key: String,
        /// object_store's error.
        source: Box<object_store::Error>,
    },
    /// An object downloaded does not hash to its name: refused, nothing of it stored.
    #[error(
        "remote {url}: corrupt object {key}: expected {expected}, content hashes to {actual}; nothing was written to the local store"
    )]
    Corrupt {
        /// The remote URL.
        url: String,
        /// The key.
        key: String,
        /// Its name.
        expected: Digest,
        /// What its bytes hash to.
        actual: Digest,
    },
    /// A ref or closure names an object the remote does not hold.
    #[error("remote {url}: {key} is missing (named by {from})")]
    MissingObject {
        /// The remote URL.
        url: String,
        /// The key.
        key: String,
        /// Who names it.
        from: String,
    },
    /// A ref, closure or index document that is not what Genesis writes.
    #[error("remote {url}: {key}: invalid document: {message}")]
    Invalid {
        /// The remote URL.
        url: String,
        /// The key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// Neither a session nor a snapshot of this id is on the remote.
    #[error("remote {url}: no session or snapshot {id}")]
    NotOnRemote {
        /// The remote URL.
        url: String,
        /// The id asked for.
        id: String,
    },
    /// Neither a session nor a snapshot of this id is in the local store.
    #[error("no session or snapshot {0:?} in the local store to push")]
    NotLocal(String),
    /// The remote and the local session went different ways (neither's patches extend the
    /// other's): nothing written.
    #[error("session {id}: {message}; nothing written")]
    Diverged {
        /// The session.
        id: String,
        /// Which side has what.
        message: String,
    },
    /// The local store (reading what to push, writing what was pulled).
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// A local session that cannot be read.
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    /// Something the local store references is missing or corrupt, so the closure to push
    /// is incomplete; nothing pushed.
    #[error("cannot push {id}: {} broken reference{}:\n  {}", .problems.len(), if .problems.len() == 1 { "" } else { "s" }, .problems.join("\n  "))]
    Broken {
        /// The session or snapshot.
        id: String,
        /// One line per problem.
        problems: Vec<String>,
    },
    /// The tokio runtime could not be started.
    #[error("cannot start the transfer runtime: {0}")]
    Runtime(std::io::Error),
}

impl RemoteError {
    /// See [`ErrorKind`]: a bad URL or an unknown id is bad input (exit 2); a diverged session
    /// is a state conflict (exit 3); failed requests, corrupt or missing remote objects and
    /// invalid remote documents are I/O errors (exit 4).
    pub fn kind(&self) -> ErrorKind {
        match self {
            RemoteError::Url { .. }
            | RemoteError::NotOnRemote { .. }
            | RemoteError::NotLocal(_) => ErrorKind::BadInput,
            RemoteError::Diverged { .. } => ErrorKind::State,
            RemoteError::Store(e) => e.kind(),
            RemoteError::Session(e) => e.kind(),
            RemoteError::Request { .. }
            | RemoteError::Corrupt { .. }
            | RemoteError::MissingObject { .. }
            | RemoteError::Invalid { .. }
            | RemoteError::Broken { .. }
            | RemoteError::Runtime(_) => ErrorKind::Io,
        }
    }
}

/// A ref document (`sessions/<id>/<version>`, `snapshots/<identity>`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RefDoc {
    /// Always [`REF_SCHEMA`].
    pub schema: String,
    /// `session` or `snapshot`.
    pub kind: String,
    /// The session id or the snapshot identity.
    pub id: String,
    /// The closure object.
    pub closure: Digest,
    /// The session document object (sessions only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<Digest>,
    /// The session engine state object (sessions only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Digest>,
}

/// A closure object: everything needed to reproduce a session or a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosureDoc {
    /// Always [`CLOSURE_SCHEMA`].
    pub schema: String,
    /// Every object, sorted.
    pub objects: BTreeSet<Digest>,
    /// The v0.1 snapshots (their canonical bytes are among `objects`) with their executable
    /// bits; v0.2 trees need nothing here (their nodes carry the bits).
    pub snapshots_v0_1: BTreeMap<Digest, BTreeSet<WorkspacePath>>,
}

/// A remote store: an object store and the key prefix under it.
#[derive(Debug, Clone)]
pub struct Remote {
    store: Arc<dyn ObjectStore>,
    prefix: Key,
    url: String,
}

/// The environment variable bounding the retries of one request, in seconds (default 60).
pub const RETRY_ENV: &str = "GENESIS_REMOTE_RETRY_S";

/// The retries of HTTP stores: up to 10 with exponential backoff from 100 ms to 5 s, for at
/// most 60 s in all, or `GENESIS_REMOTE_RETRY_S` seconds (object_store's `RetryConfig`; 5xx,
/// 429 and connection errors).
pub fn retry_config() -> object_store::RetryConfig {
    let secs = std::env::var(RETRY_ENV)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(60);
    object_store::RetryConfig {
        backoff: object_store::BackoffConfig {
            init_backoff: std::time::Duration::from_millis(100),
            max_backoff: std::time::Duration::from_secs(5),
            base: 2.0,
        },
        max_retries: 10,
        retry_timeout: std::time::Duration::from_secs(secs),
    }
}

/// The environment variable bounding one request (connect, send, the whole response), in
/// seconds; default 30, never more than [`RETRY_ENV`]'s bound.
pub const TIMEOUT_ENV: &str = "GENESIS_REMOTE_TIMEOUT_S";

/// The per-request timeout and connect timeout for the values of [`RETRY_ENV`] and
/// [`TIMEOUT_ENV`] (unset or not a number: their defaults, 60 and 30 s): the timeout is
/// `min(TIMEOUT, RETRY)`, at least 1 s; the connect timeout `min(5 s, timeout)`. With the
/// retries stopping after RETRY seconds, a stalled server fails a request after at most
/// RETRY + timeout seconds.
pub fn request_timeouts(
    retry: Option<&str>,
    timeout: Option<&str>,
) -> (std::time::Duration, std::time::Duration) {
    let secs = |v: Option<&str>, d: u64| v.and_then(|v| v.parse::<u64>().ok()).unwrap_or(d);
    let t = secs(timeout, 30).min(secs(retry, 60)).max(1);
    (
        std::time::Duration::from_secs(t),
        std::time::Duration::from_secs(t.min(5)),
    )
}

/// [`request_timeouts`] from the environment as object_store client settings
/// (`ClientConfigKey::Timeout`, `ConnectTimeout`; set key by key so that the client settings
/// read from the environment, `AWS_ALLOW_HTTP` and its peers, stay).
fn client_settings() -> [(object_store::ClientConfigKey, String); 2] {
    let (timeout, connect) = request_timeouts(
        std::env::var(RETRY_ENV).ok().as_deref(),
        std::env::var(TIMEOUT_ENV).ok().as_deref(),
    );
    [
        (
            object_store::ClientConfigKey::Timeout,
            format!("{}s", timeout.as_secs()),
        ),
        (
            object_store::ClientConfigKey::ConnectTimeout,
            format!("{}s", connect.as_secs()),
        ),
    ]
}

impl Remote {
    /// Opens the remote at `url`: `s3://bucket/prefix`, `gs://bucket/prefix`,
    /// `az://container/prefix`, `file:///absolute/path` or `memory://` (a new empty store,
    /// for tests). Credentials and endpoints come from each service's standard environment
    /// variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
    /// `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`, …; `GOOGLE_SERVICE_ACCOUNT`;
    /// `AZURE_STORAGE_ACCOUNT_NAME`, …). Nothing is contacted here.
    ///
    /// # Errors
    /// [`RemoteError::Url`] for a URL that does not parse, a scheme not supported, a `file:`
    /// URL that is not `file:///absolute/path`, or a path with an empty, `.` or `..` segment
    /// (checked on the text as given, before URL normalisation could resolve it).
    pub fn open(url: &str) -> Result<Remote, RemoteError> {
        let bad = |reason: String| RemoteError::Url {
            url: url.to_owned(),
            reason,
        };
        check_url_text(url).map_err(bad)?;
        let parsed = url::Url::parse(url).map_err(|e| bad(e.to_string()))?;
        let (scheme, path) = object_store::ObjectStoreScheme::parse(&parsed).map_err(|e| {
            bad(format!(
                "{e}; expected s3://, gs://, az://, file:// or memory://"
            ))
        })?;
        let prefix = Key::parse(path).map_err(|e| bad(e.to_string()))?;
        use object_store::ObjectStoreScheme as S;
        let store: Arc<dyn ObjectStore> = match scheme {
            S::Memory => Arc::new(object_store::memory::InMemory::new()),
            S::Local => Arc::new(object_store::local::LocalFileSystem::new()),
            S::AmazonS3 => {
                let mut b = object_store::aws::AmazonS3Builder::from_env()
                    .with_url(url)
                    .with_retry(retry_config());
                for (k, v) in client_settings() {
                    b = b.with_config(object_store::aws::AmazonS3ConfigKey::Client(k), v);
                }
                // AWS_ENDPOINT_URL (the AWS CLI's name) as well as object_store's AWS_ENDPOINT.
                let b = match std::env::var("AWS_ENDPOINT_URL") {
                    Ok(e) if std::env::var_os("AWS_ENDPOINT").is_none() => b.with_endpoint(e),
                    _ => b,
                };
                Arc::new(b.build().map_err(|e| bad(e.to_string()))?)
            }
            S::GoogleCloudStorage => {
                let mut b = object_store::gcp::GoogleCloudStorageBuilder::from_env()
                    .with_url(url)
                    .with_retry(retry_config());
                for (k, v) in client_settings() {
                    b = b.with_config(object_store::gcp::GoogleConfigKey::Client(k), v);
                }
                Arc::new(b.build().map_err(|e| bad(e.to_string()))?)
            }
            S::MicrosoftAzure => {
                let mut b = object_store::azure::MicrosoftAzureBuilder::from_env()
                    .with_url(url)
                    .with_retry(retry_config());
                for (k, v) in client_settings() {
                    b = b.with_config(object_store::azure::AzureConfigKey::Client(k), v);
                }
                Arc::new(b.build().map_err(|e| bad(e.to_string()))?)
            }
            other => return Err(bad(format!("{other:?} is not supported"))),
        };
        Ok(Remote::from_object_store(store, prefix, url))
    }

    /// A remote on an object store made by the caller (an `InMemory` shared by two
    /// workspaces in a test, a store with custom options), keys under `prefix`.
    pub fn from_object_store(store: Arc<dyn ObjectStore>, prefix: Key, url: &str) -> Remote {
        Remote {
            store,
            prefix,
            url: url.to_owned(),
        }
    }

    /// The URL this remote was opened with.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The object store, for callers (tests) that inspect or alter keys directly.
    pub fn object_store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// The full key of `rel` (`objects/…`, `sessions/…`) under the prefix.
    pub fn key(&self, rel: &str) -> Key {
        let mut k = self.prefix.clone();
        for part in rel.split('/') {
            k = k.clone().join(part);
        }
        k
    }

    fn request_err(&self, op: &'static str, key: &Key, e: object_store::Error) -> RemoteError {
        RemoteError::Request {
            url: self.url.clone(),
            op,
            key: key.to_string(),
            source: Box::new(e),
        }
    }

    /// Runs `fut` on a runtime made for this call.
    fn block_on<T>(&self, fut: impl std::future::Future<Output = T>) -> Result<T, RemoteError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(RemoteError::Runtime)?;
        Ok(rt.block_on(fut))
    }

    /// Creates `rel` with `bytes` unless it exists (`PutMode::Create`): true when this call
    /// created it, false when it was there (another pusher's, or an earlier run's).
    async fn put_create(&self, rel: &str, bytes: Vec<u8>) -> Result<bool, RemoteError> {
        let key = self.key(rel);
        crate::fault::point(&format!("remote-put {rel}")).map_err(|e| {
            self.request_err(
                "put",
                &key,
                object_store::Error::Generic {
                    store: "genesis",
                    source: Box::new(e),
                },
            )
        })?;
        let opts = PutOptions {
            mode: PutMode::Create,
            ..PutOptions::default()
        };
        match self
            .store
            .put_opts(&key, PutPayload::from(bytes), opts)
            .await
        {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
            Err(e) => Err(self.request_err("put", &key, e)),
        }
    }

    /// The bytes at `rel`, or `None` when absent.
    async fn get_opt(&self, rel: &str) -> Result<Option<Vec<u8>>, RemoteError> {
        let key = self.key(rel);
        crate::fault::point(&format!("remote-get {rel}")).map_err(|e| {
            self.request_err(
                "get",
                &key,
                object_store::Error::Generic {
                    store: "genesis",
                    source: Box::new(e),
                },
            )
        })?;
        let got = match self.store.get(&key).await {
            Ok(g) => g,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(self.request_err("get", &key, e)),
        };
        let bytes = got
            .bytes()
            .await
            .map_err(|e| self.request_err("get", &key, e))?;
        Ok(Some(bytes.to_vec()))
    }

    /// The object `d`, checked against its name: [`RemoteError::Corrupt`] when its bytes hash
    /// to anything else (truncated, flipped), [`RemoteError::MissingObject`] when absent.
    async fn get_object(&self, d: &Digest, from: &str) -> Result<Vec<u8>, RemoteError> {
        let rel = format!("objects/{d}");
        let Some(bytes) = self.get_opt(&rel).await? else {
            return Err(RemoteError::MissingObject {
                url: self.url.clone(),
                key: self.key(&rel).to_string(),
                from: from.to_owned(),
            });
        };
        let actual = Digest::of(&bytes);
        if actual != *d {
            return Err(RemoteError::Corrupt {
                url: self.url.clone(),
                key: self.key(&rel).to_string(),
                expected: *d,
                actual,
            });
        }
        Ok(bytes)
    }

    /// The keys under `rel/`, relative to it (`objects/` → hex names), sorted.
    async fn list(&self, rel: &str) -> Result<Vec<String>, RemoteError> {
        use futures::TryStreamExt;
        let key = self.key(rel);
        let metas: Vec<object_store::ObjectMeta> = self
            .store
            .list(Some(&key))
            .try_collect()
            .await
            .map_err(|e| self.request_err("list", &key, e))?;
        let mut out: Vec<String> = metas
            .iter()
            .filter_map(|m| {
                m.location.prefix_match(&key).map(|parts| {
                    parts
                        .map(|p| p.as_ref().to_owned())
                        .collect::<Vec<_>>()
                        .join("/")
                })
            })
            .collect();
        out.sort();
        Ok(out)
    }

    /// The objects on the remote: hex name → size in bytes, as listed.
    async fn list_sizes(&self) -> Result<std::collections::HashMap<String, u64>, RemoteError> {
        use futures::TryStreamExt;
        let key = self.key("objects");
        let metas: Vec<object_store::ObjectMeta> = self
            .store
            .list(Some(&key))
            .try_collect()
            .await
            .map_err(|e| self.request_err("list", &key, e))?;
        Ok(metas
            .into_iter()
            .filter_map(|m| {
                let name = m.location.filename()?.to_owned();
                Some((name, m.size))
            })
            .collect())
    }

    /// Writes `rel` with `bytes`, replacing what is there (`PutMode::Overwrite`): only for an
    /// object found damaged, whose key is the hash of `bytes`.
    async fn put_overwrite(&self, rel: &str, bytes: Vec<u8>) -> Result<(), RemoteError> {
        let key = self.key(rel);
        self.store
            .put(&key, PutPayload::from(bytes))
            .await
            .map_err(|e| self.request_err("put", &key, e))?;
        Ok(())
    }

    /// Parses the JSON document at `rel` (strictly: a key twice is refused).
    fn parse_doc<T: serde::de::DeserializeOwned>(
        &self,
        rel: &str,
        bytes: &[u8],
    ) -> Result<T, RemoteError> {
        crate::json::from_slice(bytes).map_err(|e| RemoteError::Invalid {
            url: self.url.clone(),
            key: self.key(rel).to_string(),
            message: e.to_string(),
        })
    }

    /// The latest version of session `id` on the remote: its number and ref document.
    async fn session_head(&self, id: &str) -> Result<Option<(u64, RefDoc)>, RemoteError> {
        let versions = self.list(&format!("sessions/{id}")).await?;
        let mut last = None;
        for v in &versions {
            // Only the keys push writes: decimal digits that fit a u64.
            let n = v
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| v.parse::<u64>().ok())
                .flatten()
                .ok_or_else(|| RemoteError::Invalid {
                    url: self.url.clone(),
                    key: self.key(&format!("sessions/{id}/{v}")).to_string(),
                    message: "not a session version (decimal digits, at most 2^64 - 1)".into(),
                })?;
            last = last.max(Some(n));
        }
        let Some(last) = last else {
            return Ok(None);
        };
        let rel = version_key(id, last);
        let Some(bytes) = self.get_opt(&rel).await? else {
            return Err(RemoteError::Invalid {
                url: self.url.clone(),
                key: self.key(&rel).to_string(),
                message: "listed but absent".into(),
            });
        };
        Ok(Some((last, self.parse_doc(&rel, &bytes)?)))
    }
}

/// Refuses what URL normalisation would silently rewrite: `file:` other than
/// `file:///absolute` (`file:relative` would become `/relative`), and empty, `.` or `..`
/// path segments (`s3://b/../../x` would become the prefix `x`), spelled plainly or
/// percent-encoded. One trailing `/` is allowed.
fn check_url_text(url: &str) -> Result<(), String> {
    let (scheme, rest) = url.split_once(':').unwrap_or((url, ""));
    if scheme.eq_ignore_ascii_case("memory") {
        return Ok(());
    }
    let file = scheme.eq_ignore_ascii_case("file");
    let Some(after) = rest.strip_prefix("//") else {
        return Err(if file {
            "expected file:///absolute/path".into()
        } else {
            format!("expected {scheme}://…")
        });
    };
    if file && !after.starts_with('/') {
        return Err("expected file:///absolute/path (no host, an absolute path)".into());
    }
    let path = match after.find('/') {
        Some(i) => &after[i + 1..],
        None => "",
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let path = path.strip_suffix('/').unwrap_or(path);
    if path.is_empty() {
        return Ok(());
    }
    for seg in path.split('/') {
        let plain = seg.to_ascii_lowercase().replace("%2e", ".");
        if plain.is_empty() || plain == "." || plain == ".." {
            return Err(format!(
                "the path has an empty, `.` or `..` segment ({seg:?}); give the prefix plainly"
            ));
        }
    }
    Ok(())
}

/// The key of version `n` of session `id`: `sessions/<id>/<n, 10 digits>`.
fn version_key(id: &str, n: u64) -> String {
    format!("sessions/{id}/{n:010}")
}

/// JSON with a final newline, as Genesis writes its documents.
fn json_bytes<T: serde::Serialize>(v: &T) -> Vec<u8> {
    let mut b = serde_json::to_vec(v).expect("serialisable");
    b.push(b'\n');
    b
}

/// Runs `f` over `items` with at most `n` in flight; the first error stops the rest.
async fn for_each_bounded<I, F, Fut, T>(items: I, n: usize, f: F) -> Result<Vec<T>, RemoteError>
where
    I: IntoIterator,
    F: Fn(I::Item) -> Fut,
    Fut: std::future::Future<Output = Result<T, RemoteError>>,
{
    use futures::StreamExt;
    let mut s = futures::stream::iter(items.into_iter().map(f)).buffer_unordered(n.max(1));
    let mut out = Vec::new();
    while let Some(r) = s.next().await {
        out.push(r?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::request_timeouts;
    use std::time::Duration;

    #[test]
    fn request_timeouts_follow_the_retry_bound() {
        let s = Duration::from_secs;
        assert_eq!(request_timeouts(None, None), (s(30), s(5)));
        assert_eq!(request_timeouts(Some("10"), None), (s(10), s(5)));
        assert_eq!(request_timeouts(Some("2"), None), (s(2), s(2)));
        assert_eq!(request_timeouts(Some("0"), None), (s(1), s(1)));
        assert_eq!(request_timeouts(None, Some("7")), (s(7), s(5)));
        assert_eq!(request_timeouts(Some("60"), Some("120")), (s(60), s(5)));
        assert_eq!(request_timeouts(Some("x"), Some("y")), (s(30), s(5)));
    }
}
