//! The one source of "now" and of random ids, pinnable for tests and reproducible runs (as jj's
//! `JJ_TIMESTAMP` and `JJ_RANDOMNESS_SEED`).
//!
//! - `GENESIS_TIMESTAMP` (RFC 3339, for example `2001-02-03T04:05:06Z`): every time the library
//!   reports — event times ([`crate::events::Event::now`]) and the time part of generated ids —
//!   is this instant.
//! - `GENESIS_RANDOMNESS_SEED` (an unsigned 64-bit decimal integer): generated session ids
//!   ([`crate::session::SessionId::generate`]) and event ids (UUIDv7) take their random bits
//!   from this seed and a per-process counter (0, 1, 2, … in the order ids are made), so the
//!   same command with the same seed makes the same ids. Each process starts at 0: two `open`s
//!   with the same seed and clock make the same session id (the second is refused as existing),
//!   so give each process its own seed, or `--session`.
//!
//! Both are read once per process; unset or empty means the real clock and real randomness.
//! An invalid value is ignored by the library (real clock, real randomness) and reported by
//! [`check_env`], which the `genesis` binary calls first (exit 2).
//!
//! Not pinned: durations (measured with the monotonic clock) and the stat cache's racy-entry
//! test (`statcache::now_ns`), which compares file times with the real time and would cache a
//! file changed in the same second if the clock were fixed.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The environment variable that pins the clock.
pub const TIMESTAMP_VAR: &str = "GENESIS_TIMESTAMP";
/// The environment variable that seeds generated ids.
pub const SEED_VAR: &str = "GENESIS_RANDOMNESS_SEED";

/// An invalid pinning variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    /// `GENESIS_TIMESTAMP` is not an RFC 3339 date-time.
    #[error(
        "{TIMESTAMP_VAR}={value:?} is not an RFC 3339 date-time (for example 2001-02-03T04:05:06Z): {reason}"
    )]
    Timestamp {
        /// The value as given (lossy UTF-8).
        value: String,
        /// The parser's reason.
        reason: String,
    },
    /// `GENESIS_RANDOMNESS_SEED` is not an unsigned 64-bit decimal integer.
    #[error("{SEED_VAR}={value:?} is not an unsigned 64-bit decimal integer")]
    Seed {
        /// The value as given (lossy UTF-8).
        value: String,
    },
}

/// The pinned values of this process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Pins {
    time: Option<SystemTime>,
    seed: Option<u64>,
}

/// Reads the two variables from `var` (a name → value lookup).
fn read(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Result<Pins, ClockError> {
    let text = |name: &str| var(name).filter(|v| !v.is_empty());
    let time = match text(TIMESTAMP_VAR) {
        None => None,
        Some(v) => {
            let value = v.to_string_lossy().into_owned();
            let t =
                time::OffsetDateTime::parse(&value, &time::format_description::well_known::Rfc3339)
                    .map_err(|e| ClockError::Timestamp {
                        value: value.clone(),
                        reason: e.to_string(),
                    })?;
            Some(SystemTime::from(t))
        }
    };
    let seed = match text(SEED_VAR) {
        None => None,
        Some(v) => {
            let value = v.to_string_lossy().into_owned();
            Some(
                v.to_str()
                    .and_then(|s| s.parse::<u64>().ok())
                    .ok_or(ClockError::Seed { value })?,
            )
        }
    };
    Ok(Pins { time, seed })
}

fn pins() -> &'static Result<Pins, ClockError> {
    static PINS: OnceLock<Result<Pins, ClockError>> = OnceLock::new();
    PINS.get_or_init(|| read(|name| std::env::var_os(name)))
}

fn pinned() -> Pins {
    pins().clone().unwrap_or_default()
}

/// Checks `GENESIS_TIMESTAMP` and `GENESIS_RANDOMNESS_SEED`.
///
/// # Errors
/// [`ClockError`] naming the variable and its value when one is set but invalid.
pub fn check_env() -> Result<(), ClockError> {
    pins().as_ref().map(|_| ()).map_err(Clone::clone)
}

/// Now: `GENESIS_TIMESTAMP` when set, otherwise the system clock.
pub fn now() -> SystemTime {
    pinned().time.unwrap_or_else(SystemTime::now)
}

/// SplitMix64 (Steele, Lea and Flood 2014): the `n`-th 64-bit output for `seed`.
fn splitmix64(seed: u64, n: u64) -> u64 {
    let mut z = seed.wrapping_add(n.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A fresh UUIDv7 (RFC 9562): its time is [`now`]; its 74 random bits come from
/// `GENESIS_RANDOMNESS_SEED` and the process's id counter when set, otherwise from the
/// system's random source.
pub fn uuid7() -> uuid::Uuid {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let pins = pinned();
    let since = now().duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    match pins.seed {
        Some(seed) => {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let mut bytes = [0u8; 10];
            bytes[..8].copy_from_slice(&splitmix64(seed, 2 * n).to_be_bytes());
            bytes[8..].copy_from_slice(&splitmix64(seed, 2 * n + 1).to_be_bytes()[..2]);
            let millis = u64::try_from(since.as_millis()).unwrap_or(u64::MAX);
            uuid::Builder::from_unix_timestamp_millis(millis, &bytes).into_uuid()
        }
        None if pins.time.is_some() => uuid::Uuid::new_v7(uuid::Timestamp::from_unix(
            uuid::NoContext,
            since.as_secs(),
            since.subsec_nanos(),
        )),
        None => uuid::Uuid::now_v7(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read_map(pairs: &[(&str, &str)]) -> Result<Pins, ClockError> {
        let map: HashMap<String, std::ffi::OsString> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).into()))
            .collect();
        read(|name| map.get(name).cloned())
    }

    #[test]
    fn unset_or_empty_pins_nothing() {
        assert_eq!(read_map(&[]), Ok(Pins::default()));
        assert_eq!(
            read_map(&[(TIMESTAMP_VAR, ""), (SEED_VAR, "")]),
            Ok(Pins::default())
        );
    }

    #[test]
    fn rfc3339_with_offset_is_the_same_instant() {
        let p = read_map(&[
            (TIMESTAMP_VAR, "2001-02-03T05:05:06+01:00"),
            (SEED_VAR, "7"),
        ])
        .unwrap();
        assert_eq!(p.time, Some(UNIX_EPOCH + Duration::from_secs(981_173_106)));
        assert_eq!(p.seed, Some(7));
    }

    #[test]
    fn invalid_values_are_named() {
        assert_eq!(
            read_map(&[(SEED_VAR, "-1")]),
            Err(ClockError::Seed { value: "-1".into() })
        );
        let e = read_map(&[(TIMESTAMP_VAR, "yesterday")]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("GENESIS_TIMESTAMP=\"yesterday\" is not an RFC 3339 date-time"),
            "{e}"
        );
    }

    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        // The first outputs of the reference SplitMix64 seeded with 0.
        assert_eq!(splitmix64(0, 0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(0, 1), 0x6E78_9E6A_A1B9_65F4);
    }
}
