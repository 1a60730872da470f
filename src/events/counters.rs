//! Per-session counters of every dialect (sequence numbers, chunk indexes), stored with the
//! session so a later process continues them without gaps (DESIGN section 8).

use super::*;

/// Per-session counters of every dialect. Serialisable: the engine stores them beside the session
/// and hands them back to the next process, so sequence numbers continue without gaps.
///
/// Each dialect has its own part, so one stored value serves whichever dialect a later command
/// picks. Unknown or missing fields deserialise to their defaults.
///
/// The unredacted tail of obligation output held back between chunks (see [`Redactor`]) is kept
/// here too but is never serialised: it may hold the beginning of a secret and must not reach
/// disk. Output is only held back while an obligation runs, which is inside one process.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EventCounters {
    /// State of the Genesis dialect.
    pub genesis: GenesisCounters,
    /// State of the BPT dialect (seed 000).
    pub bpt: BptCounters,
    /// State of the Orbiplex dialect (seed 002).
    pub orbiplex: OrbiplexCounters,
    /// State of the APS dialect (seed 003).
    pub aps: ApsCounters,
    #[serde(skip)]
    pub(super) streams: BTreeMap<String, Carry>,
}

/// Unredacted output held back on one stream, and the obligation it belongs to.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Carry {
    pub(super) owner: String,
    pub(super) text: String,
}

/// Genesis-dialect state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GenesisCounters {
    /// The `seq` of the last line emitted (0: none yet).
    pub seq: u64,
    /// The next `chunk_index` per stream (`stdout`, `stderr`).
    pub chunk_index: BTreeMap<String, u64>,
}

/// BPT state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BptCounters {
    /// The `event.sequence` of the last line emitted (0: none yet).
    pub sequence: u64,
    /// The next `chunkIndex` per stream (`stdout`, `stderr`, `system`).
    pub chunk_index: BTreeMap<String, u64>,
    /// The `interactionId` of an `interaction.requested` not yet resolved.
    pub pending_interaction: Option<String>,
}

/// Orbiplex state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OrbiplexCounters {
    /// How many turns have been closed; the current turn is `Scope::turn + turns_closed`.
    pub turns_closed: u64,
    /// The `seq/no` of the last line of the current turn (0: the turn has no line yet).
    pub seq: u32,
    /// `progress` lines dropped because the turn was nearly full.
    pub dropped_progress: u64,
    /// Turns closed with `unknown` / `event-oversized` because they ran out of `seq/no`.
    pub overflowed_turns: u64,
}

/// APS state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ApsCounters {
    /// The envelope `seq` of the last line emitted (0: none yet).
    pub seq: u64,
    /// The `approvalId` of an `approval.requested` not yet resolved.
    pub pending_approval: Option<String>,
    /// `callId` of each obligation whose `tool.call` has no `tool.result` yet, by obligation id.
    pub open_calls: BTreeMap<String, String>,
}
