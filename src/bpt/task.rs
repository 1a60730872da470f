//! Task records (`STORE/bpt/tasks/<key>.json`), their locks, and the names Genesis derives
//! from a request: session ids, worktree names, interaction ids, the work root.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::Digest as _;

use super::{BptError, NAME_MAX, TASK_SCHEMA, WORK_ROOT_NAME, io_err};
use crate::store::{Store, write_atomic};
use crate::workspace::Workspace;

/// One execution of a task in the mapping file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionEntry {
    /// The request's `scope.executionId`.
    pub execution_id: String,
    /// The request's `scope.attempt` (at least 1).
    pub attempt: u32,
    /// The last turn a request named.
    pub turn: u32,
    /// The Genesis session id: `bpt-` + 32 hex digits ([`session_id`]).
    pub session: String,
    /// Absolute, links resolved.
    pub worktree: PathBuf,
    /// The `command.id` that created it.
    pub command_id: String,
}

/// The mapping file of one task: `STORE/bpt/tasks/<key>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    /// Always [`TASK_SCHEMA`] (`genesis/bpt-task-v1`).
    pub schema: String,
    /// The task's `scope.localTaskId` (the file is named for its SHA-256).
    pub local_task_id: String,
    /// Oldest first.
    pub executions: Vec<ExecutionEntry>,
}

impl TaskRecord {
    pub(super) fn new(task: &str) -> Self {
        TaskRecord {
            schema: TASK_SCHEMA.into(),
            local_task_id: task.into(),
            executions: Vec::new(),
        }
    }

    /// The latest entry of `execution_id`.
    pub fn execution(&self, execution_id: &str) -> Option<&ExecutionEntry> {
        self.executions
            .iter()
            .rev()
            .find(|e| e.execution_id == execution_id)
    }
}

fn sha256_hex(parts: &[&str]) -> String {
    let mut h = sha2::Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p.as_bytes());
    }
    hex::encode(h.finalize())
}

fn task_key(task: &str) -> String {
    sha256_hex(&[task])[..32].to_owned()
}

fn tasks_dir(store: &Store) -> PathBuf {
    store.path().join("bpt").join("tasks")
}

/// The mapping of `task`, if it has one.
///
/// # Errors
/// I/O errors; an unreadable file.
pub fn load_task(store: &Store, task: &str) -> Result<Option<TaskRecord>, BptError> {
    let path = tasks_dir(store).join(format!("{}.json", task_key(task)));
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(&path)(e)),
    };
    let record: TaskRecord = crate::json::from_slice(&bytes).map_err(|e| match e {
        crate::json::JsonError::Duplicate(source) => crate::store::StoreError::DuplicateKey {
            path: path.clone(),
            source,
        }
        .into(),
        e => io_err(&path)(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not a BPT task mapping: {e}"),
        )),
    })?;
    if record.schema != TASK_SCHEMA || record.local_task_id != task {
        return Err(io_err(&path)(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not the {TASK_SCHEMA} mapping of task {task:?}"),
        )));
    }
    Ok(Some(record))
}

pub(super) fn save_task(store: &Store, record: &TaskRecord) -> Result<(), BptError> {
    let dir = tasks_dir(store);
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let mut bytes = serde_json::to_vec_pretty(record).expect("serialisable");
    bytes.push(b'\n');
    write_atomic(
        &dir,
        &format!("{}.json", task_key(&record.local_task_id)),
        &bytes,
    )?;
    Ok(())
}

/// Held while one request of a task runs; released on drop.
pub(super) struct TaskLock(#[allow(dead_code)] File);

pub(super) fn lock_task(store: &Store, task: &str, wait: Duration) -> Result<TaskLock, BptError> {
    let dir = tasks_dir(store);
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let path = dir.join(format!("{}.lock", task_key(task)));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io_err(&path))?;
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(TaskLock(file)),
            Err(std::fs::TryLockError::WouldBlock) => {
                if start.elapsed() >= wait {
                    return Err(BptError::Conflict(format!(
                        "another request of task {task:?} is running ({} is locked; waited {} s)",
                        path.display(),
                        wait.as_secs()
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_err(&path)(e)),
        }
    }
}

/// The session id of execution number `index` (0-based) of a task: `bpt-` + 32 hex digits.
pub fn session_id(task: &str, execution: &str, attempt: u32, index: usize) -> String {
    let h = sha256_hex(&[task, execution, &attempt.to_string(), &index.to_string()]);
    format!("bpt-{}", &h[..32])
}

/// The worktree directory name (see the module docs).
pub fn worktree_name(prefix: &str, task: &str, execution: &str, attempt: u32) -> String {
    let mut raw = format!("{prefix}{task}-{execution}");
    if attempt > 1 {
        raw.push_str(&format!("-a{attempt}"));
    }
    let mut name: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.starts_with('.') {
        name.replace_range(..1, "_");
    }
    if name != raw || name.len() > NAME_MAX {
        name.truncate(NAME_MAX);
        name.push('-');
        name.push_str(&sha256_hex(&[&raw])[..8]);
    }
    name
}

/// The approval id Genesis asks for after a passing verification of `snapshot` with `patches`
/// patches (the BPT `interaction.requested` `interactionId`).
pub fn interaction_id(patches: usize, snapshot: &str) -> String {
    format!("genesis-apply:{patches}:{snapshot}")
}

/// The work root: `given` (made absolute), else `<parent of the workspace>/.genesis-worktrees`.
///
/// # Errors
/// [`BptError::Io`] when the workspace does not exist; [`BptError::BadRequest`] when it has no
/// parent directory.
pub fn work_root(workspace: &Workspace, given: Option<&Path>) -> Result<PathBuf, BptError> {
    if let Some(g) = given {
        return Ok(crate::path::absolute_lexical(g));
    }
    let root = std::fs::canonicalize(workspace.root()).map_err(io_err(workspace.root()))?;
    let parent = root.parent().ok_or_else(|| {
        BptError::BadRequest(format!(
            "the workspace {} has no parent directory for the worktrees; pass --work-root DIR",
            root.display()
        ))
    })?;
    Ok(parent.join(WORK_ROOT_NAME))
}

/// `resume.worktreePath` with links resolved; it must exist and lie inside `work_root`.
///
/// # Errors
/// [`BptError::BadRequest`] for a missing path, a dangling link, or a path outside.
pub fn resolve_worktree_path(given: &str, work_root: &Path) -> Result<PathBuf, BptError> {
    let p = crate::path::absolute_lexical(Path::new(given));
    let md = std::fs::symlink_metadata(&p)
        .map_err(|e| BptError::BadRequest(format!("resume.worktreePath {given:?}: {e}")))?;
    let real = std::fs::canonicalize(&p).map_err(|e| {
        if md.file_type().is_symlink() {
            BptError::BadRequest(format!(
                "resume.worktreePath {given:?} is a dangling symbolic link (refused)"
            ))
        } else {
            BptError::BadRequest(format!("resume.worktreePath {given:?}: {e}"))
        }
    })?;
    let root = std::fs::canonicalize(work_root).map_err(|e| {
        BptError::BadRequest(format!(
            "resume.worktreePath {given:?}: the work root {} cannot be used: {e}",
            work_root.display()
        ))
    })?;
    if real == root || !real.starts_with(&root) {
        return Err(BptError::BadRequest(format!(
            "resume.worktreePath {given:?} resolves to {}, outside the work root {} (refused)",
            real.display(),
            root.display()
        )));
    }
    if !real.is_dir() {
        return Err(BptError::BadRequest(format!(
            "resume.worktreePath {given:?} is not a directory"
        )));
    }
    Ok(real)
}
