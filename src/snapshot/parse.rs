//! Reading a snapshot back from what Genesis writes: a v0.1 document
//! ([`Snapshot::from_json`]) or what `genesis snapshot` prints ([`Snapshot::from_listing_json`]).

use super::*;

impl Snapshot {
    /// Parses and checks a snapshot document (JSON bytes).
    ///
    /// # Errors
    /// A [`SnapshotDocumentError`] naming the field: bad JSON, a duplicated member name, wrong
    /// schema, unsorted or duplicate paths, invalid paths, limits, or an identity that does not
    /// match the files.
    pub fn from_json(bytes: &[u8]) -> Result<Self, SnapshotDocumentError> {
        let doc: SnapshotJson = crate::json::from_slice(bytes).map_err(|e| match e {
            crate::json::JsonError::Duplicate(d) => SnapshotDocumentError::DuplicateKey(d),
            other => SnapshotDocumentError::Json(other.to_string()),
        })?;
        if doc.schema != SNAPSHOT_SCHEMA {
            return Err(SnapshotDocumentError::Schema(doc.schema));
        }
        check_limits(&doc.files)?;
        check_order(&doc.files)?;
        let computed = snapshot_identity(&doc.files);
        if computed != doc.identity {
            return Err(SnapshotDocumentError::Identity {
                stated: doc.identity,
                computed,
            });
        }
        Ok(Snapshot {
            identity: computed,
            files: doc.files,
            format: SnapshotFormat::V0_1,
            tree: None,
            fold: std::sync::OnceLock::new(),
            identity_given: false,
        })
    }

    /// Parses what [`Snapshot::to_value_with`] gives (what `genesis snapshot` prints): a v0.1
    /// snapshot document ([`Snapshot::from_json`]; no executable bits), or the listing of a
    /// v0.2 tree (`{"schema": "genesis/tree-v0.2", "identity", "files": [{"path", "blob",
    /// "bytes", "executable"}…]}`, `schemas/tree-listing-v0.2.schema.json`), whose files must
    /// build the nodes ([`crate::tree::build`]) whose root is the stated identity. Returns the
    /// snapshot and its executable bits.
    ///
    /// # Errors
    /// As [`Snapshot::from_json`]; for a listing, [`SnapshotDocumentError::Order`] and
    /// [`SnapshotDocumentError::Identity`] (the files build another root).
    pub fn from_listing_json(
        bytes: &[u8],
    ) -> Result<(Self, BTreeSet<WorkspacePath>), SnapshotDocumentError> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Listed {
            path: WorkspacePath,
            blob: Digest,
            bytes: u64,
            executable: bool,
        }
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Listing {
            /// Checked before (`genesis/tree-v0.2`).
            #[serde(rename = "schema")]
            _schema: String,
            identity: Digest,
            files: Vec<Listed>,
        }
        let json_error = |e| match e {
            crate::json::JsonError::Duplicate(d) => SnapshotDocumentError::DuplicateKey(d),
            other => SnapshotDocumentError::Json(other.to_string()),
        };
        let value: serde_json::Value = crate::json::from_slice(bytes).map_err(json_error)?;
        if value.get("schema").and_then(serde_json::Value::as_str) != Some(crate::tree::TREE_SCHEMA)
        {
            return Snapshot::from_json(bytes).map(|s| (s, BTreeSet::new()));
        }
        let doc: Listing = serde_json::from_value(value)
            .map_err(|e| SnapshotDocumentError::Json(e.to_string()))?;
        let executable: BTreeSet<WorkspacePath> = doc
            .files
            .iter()
            .filter(|f| f.executable)
            .map(|f| f.path.clone())
            .collect();
        let files: Vec<SnapshotFile> = doc
            .files
            .into_iter()
            .map(|f| SnapshotFile {
                path: f.path,
                blob: f.blob,
                bytes: f.bytes,
            })
            .collect();
        check_order(&files)?;
        let built = crate::tree::build(&files, &executable, None);
        if built.root != doc.identity {
            return Err(SnapshotDocumentError::Identity {
                stated: doc.identity,
                computed: built.root,
            });
        }
        let snap = Snapshot::from_stored_tree(files, built)?;
        Ok((snap, executable))
    }
}
