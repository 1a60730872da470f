//! Helpers shared by the integration tests, one signature each; every test file uses them
//! through `mod common;`.
//!
//! - [`cli`]: running the binary (`genesis`, `run_in`, `run_stdin`, `run_env`, `patch_stdin`)
//!   and reading its output (`ok`, `ok_json`, `json_out`, `code`, `stdout`, `stderr`,
//!   `json_lines`);
//! - [`workspace`]: trees on disk (`write_tree`, `workspace`, `copy_tree`, `chmod`, `scratch`,
//!   `repo_root`), the store's object files (`store_objects`) and stored documents (`session_doc`, `session_status`, `identity`,
//!   `snapshot_doc`);
//! - [`git`]: reference tools (`git`, `git_bytes`, `have`, `python_identity`);
//! - [`schemas`]: repository JSON files and event validators (`load`, `validator`);
//! - [`faults`]: sampling of fault-injection steps (`exhaustive`, `sample_steps`);
//! - [`pinned`]: the pinned environment of the output snapshots;
//! - [`git_apply`]: differential comparison of patch application with `git apply`;
//! - [`rng`]: a seeded generator for random cases (`Rng`).
#![allow(dead_code, unused_imports)]

pub mod cli;
pub mod faults;
pub mod git;
pub mod git_apply;
pub mod pinned;
pub mod rng;
pub mod schemas;
pub mod workspace;

pub use cli::*;
pub use faults::*;
pub use git::*;
pub use schemas::*;
pub use workspace::*;
