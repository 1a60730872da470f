//! The package manifest (`genesis.json` by default), schema `schemas/manifest-v0.1.schema.json`.
//!
//! It declares `exclude` globs (left out of every snapshot), `protected` globs (paths no patch
//! may touch), `limits`, and `obligations` (commands that must exit 0 on the final snapshot).

use std::path::{Path, PathBuf};

use crate::json::{DuplicateKey, JsonError};
use crate::schema::{DocumentKind, Violation, schema_violations};

/// The default manifest file name, relative to the workspace root.
pub const DEFAULT_MANIFEST: &str = "genesis.json";

/// What `genesis init` writes when there is no manifest.
pub const DEFAULT_MANIFEST_TEXT: &str = r#"{
  "schema": "genesis/manifest-v0.1",
  "exclude": ["target/", "node_modules/"],
  "protected": ["genesis.json", ".github/"],
  "obligations": []
}
"#;

/// One command that must exit 0 on the final snapshot.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Obligation {
    /// A name, `[A-Za-z0-9_.-]{1,64}`.
    pub id: String,
    /// The argv, run without a shell unless it names one.
    pub run: Vec<String>,
    /// Seconds before the command (its whole process group) is killed. Default: 600.
    #[serde(default = "default_timeout")]
    pub timeout_s: u64,
}

fn default_timeout() -> u64 {
    600
}

/// Limits on what a patch or snapshot may hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    /// Most files in a snapshot. Default: no limit (a tree over 4096 files gets the v0.2
    /// format, DESIGN section 2).
    pub max_files: Option<usize>,
    /// Largest file in bytes. Default: 268435456.
    pub max_file_bytes: Option<u64>,
    /// Largest patch text in bytes. Default: 64 MiB.
    pub max_patch_bytes: Option<usize>,
    /// Most files one patch may change. Default: 4096.
    pub max_changed_files: Option<usize>,
}

/// A parsed, schema-valid manifest.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// Globs left out of snapshots. Default: none.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Globs of paths no patch may touch. Default: none.
    #[serde(default)]
    pub protected: Vec<String>,
    /// Limits. Default: the v0.1 schema limits.
    #[serde(default)]
    pub limits: Limits,
    /// Command obligations. Default: none.
    #[serde(default)]
    pub obligations: Vec<Obligation>,
}

/// Why a manifest could not be used. Each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file does not exist.
    #[error("{}: no package manifest; run `genesis init` or pass --manifest PATH", .0.display())]
    Missing(PathBuf),
    /// The file cannot be read.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The manifest file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Not JSON.
    #[error("{}: invalid JSON: {message}", .path.display())]
    Json {
        /// The manifest file.
        path: PathBuf,
        /// The parser's message, with line and column.
        message: String,
    },
    /// A member name twice in one object (RFC 8259 leaves it open; Genesis refuses it, see
    /// [`crate::json`]): `genesis.json: duplicate key "obligations" at /obligations`.
    #[error("{}: {source}", .path.display())]
    DuplicateKey {
        /// The manifest file.
        path: PathBuf,
        /// The name and its JSON pointer.
        source: DuplicateKey,
    },
    /// JSON that breaks the manifest schema.
    #[error("{}: invalid manifest: {}", .path.display(), .violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Invalid {
        /// The manifest file.
        path: PathBuf,
        /// Each failure with its JSON pointer.
        violations: Vec<Violation>,
    },
}

impl Manifest {
    /// Parses and validates manifest bytes; `path` is only used in errors.
    ///
    /// # Errors
    /// [`ManifestError::Json`], [`ManifestError::DuplicateKey`] or [`ManifestError::Invalid`].
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Manifest, ManifestError> {
        let value = crate::json::value_from_slice(bytes).map_err(|e| match e {
            JsonError::Duplicate(source) => ManifestError::DuplicateKey {
                path: path.into(),
                source,
            },
            other => ManifestError::Json {
                path: path.into(),
                message: other.to_string(),
            },
        })?;
        let violations = schema_violations(DocumentKind::Manifest, &value);
        if !violations.is_empty() {
            return Err(ManifestError::Invalid {
                path: path.into(),
                violations,
            });
        }
        let mut obj = value;
        if let Some(o) = obj.as_object_mut() {
            o.remove("schema");
        }
        let manifest: Manifest = serde_json::from_value(obj).map_err(|e| ManifestError::Json {
            path: path.into(),
            message: e.to_string(),
        })?;
        let mut seen = std::collections::BTreeSet::new();
        for (i, o) in manifest.obligations.iter().enumerate() {
            if !seen.insert(o.id.as_str()) {
                return Err(ManifestError::Invalid {
                    path: path.into(),
                    violations: vec![Violation {
                        pointer: format!("/obligations/{i}/id"),
                        message: format!("obligation id {:?} is used twice", o.id),
                    }],
                });
            }
        }
        Ok(manifest)
    }

    /// Reads and validates the manifest at `path`.
    ///
    /// # Errors
    /// [`ManifestError::Missing`] if absent; otherwise as [`Manifest::from_bytes`].
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        if path.is_dir() {
            return Err(ManifestError::Json {
                path: path.into(),
                message: "a directory, not a manifest file".into(),
            });
        }
        match std::fs::read(path) {
            Ok(b) => Manifest::from_bytes(&b, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(ManifestError::Missing(path.into()))
            }
            Err(source) => Err(ManifestError::Io {
                path: path.into(),
                source,
            }),
        }
    }
}
