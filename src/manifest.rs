//! The package manifest (`genesis.json` by default), schema `schemas/manifest-v0.1.schema.json`.
//!
//! It declares `exclude` globs (left out of every snapshot), `protected` globs (paths no patch
//! may touch), `limits`, and `obligations` (commands that must exit 0 on the final snapshot).

use std::path::{Path, PathBuf};

use crate::json::{DuplicateKey, JsonError};
use crate::schema::{DocumentKind, Violation, schema_violations};

mod plain;

/// The most bytes a manifest may have: 1 MiB (a manifest is a few hundred bytes; the limit
/// bounds what a path given as a manifest can make Genesis read).
pub const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

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
    /// Largest file in bytes. Default: no limit (a tree with a file over 268435456 bytes gets
    /// the v0.2 format, DESIGN section 2).
    pub max_file_bytes: Option<u64>,
    /// Largest patch text in bytes. Default: 64 MiB.
    pub max_patch_bytes: Option<usize>,
    /// Most files one patch may change (and, as a static check, the session). Default: no
    /// limit (a patch is bounded by `max_patch_bytes` and 100 000 hunks).
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
    /// Not a regular file: a FIFO, a device, a socket, or a symbolic link where none may be
    /// followed ([`Manifest::load_in`]).
    #[error("{}: {what}, not a regular file; a manifest is read only from a regular file", .path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is.
        what: &'static str,
    },
    /// Larger than [`MAX_MANIFEST_BYTES`].
    #[error("{}: larger than {limit} bytes, the most a manifest may have", .path.display())]
    TooLarge {
        /// The manifest file.
        path: PathBuf,
        /// [`MAX_MANIFEST_BYTES`].
        limit: u64,
    },
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
        // The common manifest is checked directly; anything else by the schema validator
        // (`manifest/plain.rs`, DESIGN section 5).
        let violations = if plain::plainly_valid(&value) {
            Vec::new()
        } else {
            schema_violations(DocumentKind::Manifest, &value)
        };
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

    /// Reads and validates the manifest at `path` (symbolic links followed).
    ///
    /// Only a regular file is read, and at most [`MAX_MANIFEST_BYTES`] of it: a FIFO, a device
    /// or a socket is refused before it is opened (and opened non-blocking, so one swapped in
    /// meanwhile cannot hang the read), so `/dev/zero` cannot exhaust memory nor a FIFO hang.
    ///
    /// # Errors
    /// [`ManifestError::Missing`] if absent; [`ManifestError::NotAFile`],
    /// [`ManifestError::TooLarge`]; otherwise as [`Manifest::from_bytes`].
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        read_manifest(path, true)
    }

    /// Reads and validates the manifest at `rel` inside the tree at `root`, as [`Manifest::load`]
    /// but without following a symbolic link anywhere below `root`: the manifest a workspace's
    /// session comes from is a file of the workspace, never one a link points to (a link is
    /// no member of a snapshot either).
    ///
    /// # Errors
    /// As [`Manifest::load`]; [`ManifestError::NotAFile`] for a symbolic link on the way.
    pub fn load_in(
        root: &Path,
        rel: &crate::path::WorkspacePath,
    ) -> Result<Manifest, ManifestError> {
        let mut at = root.to_path_buf();
        let parts: Vec<&str> = rel.as_str().split('/').collect();
        for part in &parts[..parts.len() - 1] {
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(ManifestError::NotAFile {
                        path: at,
                        what: "a symbolic link",
                    });
                }
                Ok(m) if !m.is_dir() => {
                    return Err(ManifestError::Missing(rel.to_fs_path(root)));
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(ManifestError::Missing(rel.to_fs_path(root)));
                }
                Err(source) => return Err(ManifestError::Io { path: at, source }),
            }
        }
        read_manifest(&rel.to_fs_path(root), false)
    }
}

/// What a file type is, for [`ManifestError::NotAFile`].
fn file_kind(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// [`Manifest::load`] (`follow`: symbolic links followed) and [`Manifest::load_in`]'s last step.
fn read_manifest(path: &Path, follow: bool) -> Result<Manifest, ManifestError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let io = |source: std::io::Error| {
        if source.kind() == std::io::ErrorKind::NotFound {
            ManifestError::Missing(path.into())
        } else {
            ManifestError::Io {
                path: path.into(),
                source,
            }
        }
    };
    let meta = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    }
    .map_err(io)?;
    if meta.is_dir() {
        return Err(ManifestError::Json {
            path: path.into(),
            message: "a directory, not a manifest file".into(),
        });
    }
    let not_a_file = |t| ManifestError::NotAFile {
        path: path.into(),
        what: file_kind(t),
    };
    if !meta.is_file() {
        return Err(not_a_file(meta.file_type()));
    }
    let mut flags = libc::O_NONBLOCK | libc::O_NOCTTY;
    if !follow {
        flags |= libc::O_NOFOLLOW;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(not_a_file(meta.file_type()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_MANIFEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(ManifestError::TooLarge {
            path: path.into(),
            limit: MAX_MANIFEST_BYTES,
        });
    }
    Manifest::from_bytes(&bytes, path)
}
