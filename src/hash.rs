//! Exactly which bytes are hashed, and the [`Digest`] type that names them.
//!
//! Every name Genesis gives to content is a lowercase hex SHA-256 (FIPS 180-4), 64 characters,
//! the 004 schema's `#/$defs/hash`:
//!
//! | name | bytes hashed |
//! |---|---|
//! | blob | the file's bytes, exactly as on disk |
//! | snapshot identity (v0.1) | the RFC 8785 (JCS) canonical JSON of the snapshot document **without** its `identity` member: `{"files":[{"blob":…,"bytes":…,"path":…},…],"schema":"genesis/workspace-snapshot-v0.1"}` ([`crate::snapshot::snapshot_identity`], which uses [`canonical_digest`]) |
//! | tree node (v0.2) | the RFC 8785 (JCS) canonical JSON of the node, exactly as stored: `{"directories":[{"name":…,"node":…},…],"files":[{"blob":…,"bytes":…,"executable":…,"name":…},…],"schema":"genesis/tree-v0.2"}`, each list sorted by the UTF-8 bytes of `name` ([`crate::tree::Node::canonical_bytes`], which uses [`canonical_json`]) |
//! | snapshot identity (v0.2) | the root node's identity, as the row above; chosen when the tree does not fit v0.1 (more than 4096 files or a file over 268435456 bytes) |
//! | v0.1 snapshot object | the same bytes as the v0.1 identity row, stored under the identity |
//! | patch | the patch text exactly as submitted |
//! | other store objects (acceptance records, logs) | their bytes as stored |
//!
//! Anyone can recompute an identity with a JCS library and `sha256sum`; `testdata/identity/`
//! (v0.1) and `testdata/tree-v0.2/` (v0.2) hold test vectors.

use std::cell::RefCell;
use std::fmt;
use std::io::Read;
use std::str::FromStr;

use sha2::Digest as _;

/// Bytes of the read buffer each thread keeps for hashing files (256 KiB): reads of file
/// content go through it in chunks of this size, and a file smaller than it is read whole.
pub const READ_BUF: usize = 256 * 1024;

thread_local! {
    static READ_BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's read buffer of [`READ_BUF`] bytes, allocated (zeroed) once per
/// thread and reused by every later call, so that hashing many small files allocates and
/// clears nothing per file. Its content on entry is whatever the last user left. A nested
/// call (`f` calling `with_read_buf`) gets a fresh buffer of its own.
pub fn with_read_buf<R>(f: impl FnOnce(&mut [u8]) -> R) -> R {
    READ_BUFFER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            if buf.len() != READ_BUF {
                *buf = vec![0u8; READ_BUF];
            }
            f(&mut buf)
        }
        Err(_) => f(&mut vec![0u8; READ_BUF]),
    })
}

/// A SHA-256 digest: 32 bytes, shown as 64 lowercase hex characters.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Digest([u8; 32]);

/// A digest string that is not 64 lowercase hex characters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid SHA-256 {0:?}: expected 64 lowercase hex characters")]
pub struct ParseDigestError(pub String);

/// Content whose SHA-256 is not the one it was stored or referred to under.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("hash mismatch: expected {expected}, actual {actual}")]
pub struct DigestMismatch {
    /// The digest the content was named by.
    pub expected: Digest,
    /// The digest of the bytes actually found.
    pub actual: Digest,
}

impl Digest {
    /// SHA-256 of the empty input, `e3b0c442…b855`.
    pub const EMPTY: Digest = Digest([
        0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9,
        0x24, 0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52,
        0xb8, 0x55,
    ]);

    /// Wraps 32 raw bytes.
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        Digest(bytes)
    }

    /// The 32 raw bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// SHA-256 of `data`.
    pub fn of(data: &[u8]) -> Self {
        Digest(sha2::Sha256::digest(data).into())
    }

    /// SHA-256 of everything `reader` yields, read in chunks of [`READ_BUF`] bytes into the
    /// thread's read buffer ([`with_read_buf`]); returns the digest and the number of bytes
    /// read.
    ///
    /// # Errors
    /// Any read error of `reader`.
    pub fn of_reader(reader: &mut impl Read) -> std::io::Result<(Self, u64)> {
        with_read_buf(|buf| {
            let mut hasher = Hasher::new();
            loop {
                match reader.read(buf) {
                    Ok(0) => break,
                    Ok(n) => hasher.update(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            }
            let n = hasher.len;
            Ok((hasher.finish(), n))
        })
    }

    /// Checks that `self` (the expected digest) equals `actual`.
    ///
    /// # Errors
    /// [`DigestMismatch`] with both values.
    pub fn verify(&self, actual: Digest) -> Result<(), DigestMismatch> {
        if *self == actual {
            Ok(())
        } else {
            Err(DigestMismatch {
                expected: *self,
                actual,
            })
        }
    }

    /// The 64-character lowercase hex form.
    pub fn to_hex(&self) -> String {
        self.hex_str(&mut [0u8; 64]).to_owned()
    }

    /// The 64 lowercase hex characters as ASCII bytes, without allocating (a table lookup per
    /// half-byte: serialising a digest is on the path of every snapshot document and identity).
    pub fn hex_bytes(&self) -> [u8; 64] {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 64];
        for (pair, b) in out.chunks_exact_mut(2).zip(self.0) {
            pair[0] = HEX[usize::from(b >> 4)];
            pair[1] = HEX[usize::from(b & 0x0f)];
        }
        out
    }

    /// The hex form written into `buf`, borrowed from it.
    fn hex_str<'a>(&self, buf: &'a mut [u8; 64]) -> &'a str {
        *buf = self.hex_bytes();
        // Only ASCII hex digits were written, so this never fails.
        std::str::from_utf8(buf).unwrap_or_default()
    }
}

/// Incremental SHA-256 that also counts the bytes fed to it.
#[derive(Clone, Default)]
pub struct Hasher {
    inner: sha2::Sha256,
    len: u64,
}

impl Hasher {
    /// A fresh hasher.
    pub fn new() -> Self {
        Self::default()
    }
    /// Feeds `data`.
    pub fn update(&mut self, data: &[u8]) {
        self.inner.update(data);
        self.len += data.len() as u64;
    }
    /// Bytes fed so far.
    pub fn len(&self) -> u64 {
        self.len
    }
    /// Whether nothing has been fed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The digest of everything fed.
    pub fn finish(self) -> Digest {
        Digest(self.inner.finalize().into())
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.hex_str(&mut [0u8; 64]))
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.hex_str(&mut [0u8; 64]))
    }
}

impl FromStr for Digest {
    type Err = ParseDigestError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.len() != 64 || !s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(ParseDigestError(s.to_owned()));
        }
        let mut out = [0u8; 32];
        hex::decode_to_slice(s, &mut out).map_err(|_| ParseDigestError(s.to_owned()))?;
        Ok(Digest(out))
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.hex_str(&mut [0u8; 64]))
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// RFC 8785 (JCS) canonical JSON of `value`.
///
/// # Errors
/// Only if `value` cannot be represented in JSON (a non-finite float); never for Genesis's own
/// documents.
pub fn canonical_json<T: serde::Serialize + ?Sized>(
    value: &T,
) -> Result<Vec<u8>, serde_json::Error> {
    serde_jcs::to_vec(value)
}

/// SHA-256 of the JCS form of `value`.
///
/// # Errors
/// As [`canonical_json`].
pub fn canonical_digest<T: serde::Serialize + ?Sized>(
    value: &T,
) -> Result<Digest, serde_json::Error> {
    Ok(Digest::of(&canonical_json(value)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_digest_constant_matches() {
        assert_eq!(Digest::of(b""), Digest::EMPTY);
        assert_eq!(
            Digest::EMPTY.to_string(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn hex_forms_agree_with_the_hex_crate() {
        for d in [
            Digest::EMPTY,
            Digest::of(b"abc"),
            Digest::from_bytes([0xff; 32]),
        ] {
            let want = hex::encode(d.as_bytes());
            assert_eq!(d.to_hex(), want);
            assert_eq!(d.to_string(), want);
            assert_eq!(&d.hex_bytes()[..], want.as_bytes());
            assert_eq!(format!("{d:?}"), format!("Digest({want})"));
            assert_eq!(serde_json::to_string(&d).unwrap(), format!("\"{want}\""));
        }
        assert_eq!(
            Digest::from_bytes([0x0f; 32]).to_hex(),
            "0f".repeat(32),
            "a leading zero half-byte is written"
        );
    }

    #[test]
    fn hex_round_trip_and_rejects() {
        let d = Digest::of(b"abc");
        assert_eq!(
            d.to_string(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(d.to_string().parse::<Digest>().unwrap(), d);
        assert!(d.to_string().to_uppercase().parse::<Digest>().is_err());
        assert!("abc".parse::<Digest>().is_err());
        assert!("g".repeat(64).parse::<Digest>().is_err());
    }

    #[test]
    fn verify_reports_both() {
        let e = Digest::of(b"a").verify(Digest::of(b"b")).unwrap_err();
        assert_eq!(e.expected, Digest::of(b"a"));
        assert_eq!(e.actual, Digest::of(b"b"));
        assert!(e.to_string().contains(&Digest::of(b"b").to_string()));
    }

    #[test]
    fn reader_hash_counts_bytes() {
        let data = vec![7u8; 600_000];
        let (d, n) = Digest::of_reader(&mut &data[..]).unwrap();
        assert_eq!(n, 600_000);
        assert_eq!(d, Digest::of(&data));
        // Again on the same thread (the buffer is reused, holding the last file's bytes).
        let (d2, n2) = Digest::of_reader(&mut &b"abc"[..]).unwrap();
        assert_eq!(n2, 3);
        assert_eq!(
            d2.to_string(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn nested_read_buf_is_separate() {
        let inner = with_read_buf(|outer| {
            outer[0] = 1;
            let inner_first = with_read_buf(|inner| {
                inner[0] = 2;
                inner.len()
            });
            (outer[0], inner_first)
        });
        assert_eq!(inner, (1, READ_BUF));
    }
}
