//! `genesis init`: create the store and a default manifest.

use std::path::PathBuf;

use genesis::manifest::{DEFAULT_MANIFEST_TEXT, Manifest};

use super::{CliError, Context};

/// Arguments of `genesis init`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Manifest path, relative to the workspace root. Default: genesis.json.
    #[arg(long, value_name = "PATH")]
    manifest: Option<PathBuf>,
}

/// Creates the store (if missing) and writes the default manifest unless one exists; an
/// existing manifest is validated and left as it is. The workspace is `--workspace`, else the
/// current directory (as `git init`), never one found above it: inside another workspace this
/// makes a nested one, and says so on standard error.
pub fn run(ctx: &Context, args: &Args) -> Result<u8, CliError> {
    let ws = genesis::Workspace::new(
        ctx.workspace_arg
            .clone()
            .unwrap_or_else(|| PathBuf::from(".")),
        ctx.store_arg.clone(),
    );
    if let Some(outer) = ctx
        .discovered
        .as_ref()
        .filter(|d| d.as_os_str() != "." && ctx.chatty())
    {
        eprintln!(
            "genesis: note: the workspace at {} holds this directory; this makes a separate workspace nested inside it",
            std::fs::canonicalize(outer)
                .unwrap_or_else(|_| outer.clone())
                .display()
        );
    }
    if !ws.root().is_dir() {
        return Err(CliError::usage(format!(
            "{}: workspace is not a directory",
            ws.root().display()
        )));
    }
    let manifest_path = match &args.manifest {
        Some(p) => ws.root().join(p),
        None => ws.manifest_path(),
    };
    // An existing manifest is checked before anything is made: a refused init writes nothing.
    let existing = manifest_path.exists();
    if existing {
        Manifest::load(&manifest_path)?;
    }
    // The store first: if it cannot be made, no manifest is left behind.
    // Built aside and renamed into place: of two inits at once, one makes it, and the other
    // finds it made and says so, as a second `genesis init` (git: "Reinitialized existing").
    let (store, store_created) = ws.init_store_created()?;
    let created_manifest = if existing {
        false
    } else {
        let dir = manifest_path.parent().unwrap_or(ws.root());
        let name = manifest_path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| CliError::usage("manifest path has no file name"))?;
        genesis::store::write_atomic(dir, name, DEFAULT_MANIFEST_TEXT.as_bytes())?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&manifest_path, std::fs::Permissions::from_mode(0o644))
            .map_err(|e| CliError::io(format!("{}: {e}", manifest_path.display())))?;
        true
    };
    let obligations = Manifest::load(&manifest_path)?.obligations.len();
    if obligations == 0 && ctx.chatty() {
        eprintln!(
            "genesis: warning: {} has no obligations, so `genesis verify` runs nothing and `apply` is gated on nothing; add the commands that must pass to its \"obligations\" list, e.g.\n  \"obligations\": [{{\"id\": \"test\", \"run\": [\"cargo\", \"test\"], \"timeout_s\": 600}}]",
            manifest_path.display()
        );
    }
    if ctx.json {
        super::print_json(&serde_json::json!({
            "store": store.path(),
            "store_created": store_created,
            "manifest": manifest_path,
            "manifest_created": created_manifest,
            "obligations": obligations,
        }));
    } else {
        if store_created {
            crate::noteln!("store: {}", store.path().display());
        } else {
            crate::noteln!("store: {} (already initialised)", store.path().display());
        }
        if created_manifest {
            crate::noteln!("manifest: {} (created)", manifest_path.display());
        } else {
            crate::noteln!("manifest: {} (kept as it is)", manifest_path.display());
        }
    }
    Ok(0)
}
