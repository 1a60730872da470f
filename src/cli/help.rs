//! The text after each command's `--help` options (clap's `after_help`): examples, then the
//! exit statuses that command can end with (the classes of DESIGN section 7, mapped by
//! [`genesis::ErrorKind`]).

/// After `genesis --help`.
pub const TOP: &str = "\
Examples:
  genesis init                      make .genesis/ and genesis.json here
  genesis open                      start a session; prints its id
  genesis patch 01a2e fix.diff      record a diff in the session starting 01a2e
  genesis verify 01a2e && genesis apply 01a2e
  genesis -C ../other status        run as if started in ../other

Every command but init and snapshot/check DIR finds its workspace by walking up from the
current directory to the nearest directory holding .genesis; session ids and snapshot
identities may be given as any unique prefix of 4 or more characters.

Exit status: 0 success; 1 a definite \"no\" (obligation failed, check or replay mismatch,
invalid document); 2 bad input or usage; 3 state conflict (workspace changed, session not
open or not verified, store locked); 4 I/O error, store corruption, or interrupted.";

/// After `genesis init --help`.
pub const INIT: &str = "\
Examples:
  genesis init                      store and genesis.json in the current directory
  genesis init --manifest ci/genesis.json

Exit status: 0 store made (or there already) and manifest written or kept; 2 an existing
manifest is invalid, or the workspace is not a directory; 4 I/O error.";

/// After `genesis snapshot --help`.
pub const SNAPSHOT: &str = "\
Examples:
  genesis snapshot --identity       the workspace's identity (64 hex digits)
  genesis snapshot --no-store build/ > build.snapshot.json
  genesis snapshot --json > s.json && genesis check --expect s.json && genesis validate s.json

Exit status: 0 printed; 2 not a directory, a path Genesis refuses, or over a size limit;
4 I/O error.";

/// After `genesis diff --help`.
pub const DIFF: &str = "\
Examples:
  genesis diff 01a2e                the session's change, base..current
  genesis diff old/ new/ --stat
  genesis diff adfb 7c41 --name-status   two stored snapshots, by prefix

Exit status: 0 printed (differences or not); 2 an operand is neither a directory nor a
stored snapshot, or no such session; 4 I/O error or a corrupt store.";

/// After `genesis check --help`.
pub const CHECK: &str = "\
Examples:
  genesis check --expect adfb3c     the workspace against a stored snapshot (prefix)
  genesis check dist/ --expect dist.snapshot.json
  genesis check 7c41 --expect adfb  two stored snapshots (only differing directories read)
  genesis snapshot --json | ssh ci genesis check --expect -    another tree against this one
  genesis check --remote s3://ci/genesis --accepted 5f1c…      accepted on the shared store?

Exit status: 0 the tree hashes to the expected identity (with --accepted: an intact
acceptance record of the snapshot, and of --obligations, is on the remote); 1 it does not
(differing paths listed; with --accepted: no such record); 2 a bad --expect, DIR or
SNAPSHOT (a name both a directory and a snapshot prefix is ambiguous) or --remote, or a
binary built without the `remote` feature; 4 I/O error or a corrupt store.";

/// After `genesis validate --help`.
pub const VALIDATE: &str = "\
Examples:
  genesis validate genesis.json
  genesis validate .genesis/sessions/*.json

Exit status: 0 every document valid; 1 one is not (each failure with its JSON pointer);
2 a file cannot be read, is not JSON, or repeats a key; 4 a store object file that does not
hash to its name (store corruption).";

/// After `genesis open --help`.
pub const OPEN: &str = "\
Examples:
  genesis open                      a session on the workspace; prints its id
  genesis open --in-place           the agent edits the workspace itself
  genesis open --checkout ../work --session fix-123

Exit status: 0 opened; 2 a bad manifest, session id or checkout directory; 3 the session
exists already, or the store is locked; 4 I/O error.";

/// After `genesis patch --help`.
pub const PATCH: &str = "\
Examples:
  git diff | genesis patch 01a2e    a diff on standard input
  genesis patch 01a2e fix.diff --verify
  genesis patch 01a2e --from ../work    the checkout's state (Genesis writes the diff)
  genesis patch 01a2e               an in-place session: record the workspace

Exit status: 0 recorded (or nothing to record); 1 --verify ran and an obligation failed;
2 a bad diff or hunk, a protected path, or no such session; 3 the session is not open, or
the store is locked; 4 I/O error.";

/// After `genesis verify --help`.
pub const VERIFY: &str = "\
Examples:
  genesis verify 01a2e
  genesis verify 01a2e --workdir ~/.cache/genesis-work   keep build caches between runs
  genesis verify 01a2e --reuse-acceptance --remote s3://ci/genesis   take a record made elsewhere

Exit status: 0 every obligation passed (or there are none: it says so); 1 one failed;
2 no such session; 3 the session is not open, moved on while verifying, or the store is
locked; 4 I/O error or interrupted.";

/// After `genesis apply --help`.
pub const APPLY: &str = "\
Examples:
  genesis apply 01a2e --dry-run     what would change
  genesis apply 01a2e

Exit status: 0 applied (or listed with --dry-run); 2 no such session; 3 a conflict (a path
changed since open), the session is not verified or not open, or the store is locked;
4 I/O error (an interrupted apply is finished by the next command).";

/// After `genesis abort --help`.
pub const ABORT: &str = "\
Examples:
  genesis abort 01a2e --dry-run
  genesis abort 01a2e && genesis restore 01a2e   throw away, then take the edits back

Exit status: 0 aborted (or listed with --dry-run); 2 no such session; 3 the session is not
open, or the store is locked; 4 I/O error.";

/// After `genesis restore --help`.
pub const RESTORE: &str = "\
Examples:
  genesis restore 01a2e
  genesis restore 01a2e --to ../rescued

Exit status: 0 written (or listed with --dry-run); 2 no such session; 3 nothing was saved,
or a path changed since the abort (nothing written then); 4 I/O error.";

/// After `genesis status --help`.
pub const STATUS: &str = "\
Examples:
  genesis status                    every session, its shortest unique id prefix marked
  genesis status 01a2e
  genesis status --json | jq -r '.sessions[].short_id'

Exit status: 0 shown; 2 no store, or no such session; 4 a corrupt store.";

/// After `genesis rebase --help`.
pub const REBASE: &str = "\
Examples:
  genesis rebase 01a2e              move the session onto the workspace as it is now
  genesis rebase 01a2e --markers    record overlapping edits with conflict markers
  genesis rebase 01a2e --json | jq '.conflicts[].path'

Exit status: 0 rebased (verify again before apply); 2 no such session; 3 paths conflict
(nothing recorded), the session is in-place or not open, or the store is locked; 4 I/O error.";

/// After `genesis log --help`.
pub const LOG: &str = "\
Examples:
  genesis log 01a2e                 every obligation of the last verification
  genesis log 01a2e test            one obligation's output

Exit status: 0 shown (whatever the verdicts); 2 no such session, or an obligation that did
not run; 3 the session has no verification.";

/// After `genesis replay --help`.
pub const REPLAY: &str = "\
Examples:
  genesis replay 01a2e

Exit status: 0 every patch reproduces its recorded snapshot; 1 one does not; 2 no such
session; 4 I/O error or a corrupt store.";

/// After `genesis recover --help`.
pub const RECOVER: &str = "\
Examples:
  genesis recover

Exit status: 0 nothing left to finish; 3 the store is locked; 4 I/O error.";

/// After `genesis bpt --help`.
pub const BPT: &str = "\
Examples:
  genesis bpt request.json --events -
  agent-runtime | genesis bpt --events events.jsonl

Exit status: 0 done; 1 an obligation or a pre command failed; 2 a bad request; 3 a state
conflict or the store is locked; 4 I/O error.";

/// After `genesis completions --help`.
pub const COMPLETIONS: &str = "\
Examples:
  source <(genesis completions bash)
  genesis completions zsh > ~/.zfunc/_genesis
  genesis completions fish > ~/.config/fish/completions/genesis.fish

Exit status: 0 printed; 2 an unknown shell.";

/// After `genesis man --help`.
pub const MAN: &str = "\
Examples:
  genesis man | man -l -
  genesis man --dir ~/.local/share/man/man1

Exit status: 0 printed or written; 4 a page cannot be written.";

/// After `genesis mcp --help`.
pub const MCP: &str = "\
The tools: snapshot, diff, check, open, patch, verify, apply, abort, status. Every path must lie
inside the workspace; no tool runs a command other than the manifest's obligations (verify).

Examples:
  genesis mcp                          # the workspace found above the current directory
  genesis mcp --workspace ~/project    # in an MCP client's \"mcpServers\" entry

Exit status: 0 the client closed standard input; 2 the workspace does not exist; 4 I/O error.";

/// After `genesis push --help`.
pub const PUSH: &str = "\
Examples:
  genesis push 01a2e --remote s3://ci/genesis        a session and all it needs
  GENESIS_REMOTE=file:///srv/genesis genesis push    every session of the store
  genesis push 5f1c --remote s3://ci/genesis --json  a snapshot; counts as JSON

Objects go first (create-if-absent, named by the SHA-256 of their bytes), refs last: a push
stopped anywhere leaves nothing that names a missing object. Credentials come from each
service's environment variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION,
AWS_ENDPOINT_URL, AWS_ALLOW_HTTP; GOOGLE_SERVICE_ACCOUNT; AZURE_STORAGE_ACCOUNT_NAME, ...).

Exit status: 0 pushed; 2 no such session or snapshot, a bad --remote, or a binary built
without the `remote` feature; 3 the remote session has patches this one lacks; 4 the remote
failed (after retries) or the local store is corrupt.";

/// After `genesis pull --help`.
pub const PULL: &str = "\
Examples:
  genesis pull 01a2e --remote s3://ci/genesis        a session, its snapshots, patches, records
  genesis pull 5f1c…(64 hex) --remote file:///srv/genesis

Every object is hashed before it enters the store; a pull stopped anywhere resumes (what is
stored or staged is not fetched again).

Exit status: 0 pulled; 2 not on the remote, a bad --remote, or a binary built without the
`remote` feature; 3 the local session has patches the remote one lacks, or the store is
locked; 4 a remote object is corrupt or missing (nothing of it stored), or the remote
failed.";

/// After `genesis gc --help`.
pub const GC: &str = "\
Examples:
  genesis gc --dry-run              list what would go (paths and bytes on disk)
  genesis gc                        remove what nothing references, older than 2 weeks
  genesis gc --prune=now            also what was made a moment ago (snapshot --store)

Roots: every session (document and state) and every journal; anything younger than --prune
(seconds, or now; default 1209600 = 2 weeks, by modification time) is kept too, as git's
gc.pruneExpire.

Exit status: 0 done (or nothing to do); 2 a session file with a key twice; 3 the store is
locked; 4 a referenced object or snapshot is missing or corrupt (nothing removed), or an
I/O error.";
