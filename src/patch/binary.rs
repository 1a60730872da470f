//! Binary patches (`GIT binary patch`): the forward block, literal or delta, checked against
//! git's blob ids like `git apply`.

use super::PatchError;
use super::parse::{Binary, FilePatch};

/// git's blob id of `data`, as 40 lowercase hex characters.
fn git_blob_id(data: &[u8]) -> String {
    use sha1::Digest as _;
    let mut h = sha1::Sha1::new();
    h.update(format!("blob {}\0", data.len()).as_bytes());
    h.update(data);
    hex::encode(h.finalize())
}

/// Applies a binary patch's forward block. Like `git apply`, a binary patch must carry an
/// `index OLD..NEW` line: OLD must be the blob id (or an abbreviation of at least 7 hex digits)
/// of the current bytes and NEW that of the result, so a delta made against other bytes, or a
/// deletion of a file whose bytes differ, is refused.
pub(super) fn apply_binary(
    path: &str,
    f: &FilePatch<'_>,
    b: &Binary<'_>,
    old: &[u8],
    is_create: bool,
    is_delete: bool,
) -> Result<Vec<u8>, PatchError> {
    let bad = |reason: String| PatchError::BadBinary {
        path: path.to_owned(),
        line: b.line,
        reason,
    };
    let Some((old_id, new_id, _)) = &f.index else {
        return Err(bad(
            "no `index OLD..NEW` line, so the patch cannot be checked against the file (regenerate it with `git diff --binary`)".into(),
        ));
    };
    let matches = |abbrev: &str, data: &[u8]| {
        if abbrev.bytes().all(|c| c == b'0') {
            return false;
        }
        abbrev.len() >= 7 && git_blob_id(data).starts_with(abbrev)
    };
    let zero = |id: &str| id.bytes().all(|c| c == b'0');
    if is_create {
        if !zero(old_id) {
            return Err(bad(format!(
                "creates the file but names a pre-image {old_id}"
            )));
        }
    } else if !matches(old_id, old) {
        if is_delete {
            return Err(PatchError::DeleteMismatch {
                path: path.to_owned(),
                line: f.line,
            });
        }
        return Err(bad(format!(
            "the patch was made against blob {old_id}, but the file is blob {}",
            git_blob_id(old)
        )));
    }
    // Decoded here, not by diffy: its inflater loops forever on a damaged zlib stream
    // (fuzz/regressions/patch_apply/hang-binary-*).
    let data = decode_block(&b.forward).map_err(bad)?;
    let new = match b.forward.kind {
        diffy::binary::BinaryBlockKind::Literal => data,
        diffy::binary::BinaryBlockKind::Delta => apply_delta(old, &data).map_err(bad)?,
    };
    let ok = if is_delete {
        new.is_empty()
    } else {
        matches(new_id, &new)
    };
    if !ok {
        if is_delete {
            return Err(PatchError::DeleteMismatch {
                path: path.to_owned(),
                line: f.line,
            });
        }
        return Err(bad(format!(
            "the result is blob {}, not {new_id} as the `index` line says",
            git_blob_id(&new)
        )));
    }
    Ok(new)
}

/// Decodes a binary block: base85 lines, then zlib, which must end cleanly (Adler-32 checked)
/// at exactly the declared size. At most one byte past the declared size is ever inflated, so a
/// small "zip bomb" block cannot exhaust memory.
fn decode_block(block: &diffy::binary::BinaryBlock<'_>) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let compressed =
        base85_lines(block.data.data).ok_or_else(|| "the base85 data is malformed".to_owned())?;
    let size = block.data.size;
    let limit = size.saturating_add(1);
    let mut out = Vec::with_capacity(usize::try_from(size.min(64 * 1024)).unwrap_or(0));
    let mut reader = flate2::read::ZlibDecoder::new(compressed.as_slice()).take(limit);
    reader
        .read_to_end(&mut out)
        .map_err(|e| format!("the zlib data is damaged: {e}"))?;
    if out.len() as u64 > size {
        return Err(format!(
            "a block inflates to more than its declared {size} bytes"
        ));
    }
    if (out.len() as u64) < size {
        return Err(format!(
            "a block inflates to {} bytes, not its declared {size}",
            out.len()
        ));
    }
    // The stream must be complete: the decoder has consumed its end (and checked Adler-32).
    let mut decoder = reader.into_inner();
    let mut rest = [0u8; 1];
    match decoder.read(&mut rest) {
        Ok(0) => Ok(out),
        Ok(_) => Err(format!(
            "a block inflates to more than its declared {size} bytes"
        )),
        Err(e) => Err(format!("the zlib data is damaged: {e}")),
    }
}

/// Applies a git delta (pack format: two base-128 sizes, then copy and insert instructions) to
/// `base`, checking every offset and both sizes.
fn apply_delta(base: &[u8], delta: &[u8]) -> Result<Vec<u8>, String> {
    fn varint(d: &[u8], i: &mut usize) -> Result<u64, String> {
        let mut v: u64 = 0;
        let mut shift = 0;
        loop {
            let b = *d.get(*i).ok_or("the delta is truncated")?;
            *i += 1;
            if shift > 63 {
                return Err("a delta size is too large".into());
            }
            v |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
    }
    let mut i = 0;
    let src_size = varint(delta, &mut i)?;
    let dst_size = varint(delta, &mut i)?;
    if src_size != base.len() as u64 {
        return Err(format!(
            "the delta is for a {src_size}-byte file, but the file has {} bytes",
            base.len()
        ));
    }
    let mut out = Vec::with_capacity(usize::try_from(dst_size.min(64 * 1024 * 1024)).unwrap_or(0));
    while i < delta.len() {
        let op = delta[i];
        i += 1;
        if op & 0x80 != 0 {
            let mut offset: u64 = 0;
            let mut size: u64 = 0;
            for (k, bit) in [0x01u8, 0x02, 0x04, 0x08].iter().enumerate() {
                if op & bit != 0 {
                    offset |= u64::from(*delta.get(i).ok_or("the delta is truncated")?) << (8 * k);
                    i += 1;
                }
            }
            for (k, bit) in [0x10u8, 0x20, 0x40].iter().enumerate() {
                if op & bit != 0 {
                    size |= u64::from(*delta.get(i).ok_or("the delta is truncated")?) << (8 * k);
                    i += 1;
                }
            }
            if size == 0 {
                size = 0x10000;
            }
            let end = offset
                .checked_add(size)
                .filter(|e| *e <= base.len() as u64)
                .ok_or("a delta copy reaches past the end of the file")?;
            out.extend_from_slice(&base[offset as usize..end as usize]);
        } else if op != 0 {
            let n = usize::from(op);
            let bytes = delta.get(i..i + n).ok_or("the delta is truncated")?;
            out.extend_from_slice(bytes);
            i += n;
        } else {
            return Err("the delta holds a reserved instruction (0)".into());
        }
        if out.len() as u64 > dst_size {
            return Err("the delta produces more bytes than it declares".into());
        }
    }
    if out.len() as u64 != dst_size {
        return Err(format!(
            "the delta produces {} bytes, not its declared {dst_size}",
            out.len()
        ));
    }
    Ok(out)
}

/// Decodes git's base85 data lines (a length character, then 5-character groups).
fn base85_lines(data: &[u8]) -> Option<Vec<u8>> {
    let mut value = [0xffu8; 256];
    for (i, &c) in crate::diff::BASE85.iter().enumerate() {
        value[c as usize] = i as u8;
    }
    let mut out = Vec::with_capacity(data.len() / 5 * 4);
    for line in data.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some((&len_c, rest)) = line.split_first() else {
            continue;
        };
        let len = match len_c {
            b'A'..=b'Z' => usize::from(len_c - b'A') + 1,
            b'a'..=b'z' => usize::from(len_c - b'a') + 27,
            _ => return None,
        };
        if rest.len() % 5 != 0 || rest.len() / 5 * 4 < len {
            return None;
        }
        let start = out.len();
        for group in rest.chunks(5) {
            let mut acc: u64 = 0;
            for &c in group {
                let v = value[c as usize];
                if v == 0xff {
                    return None;
                }
                acc = acc * 85 + u64::from(v);
            }
            let acc = u32::try_from(acc).ok()?;
            out.extend_from_slice(&acc.to_be_bytes());
        }
        out.truncate(start + len);
    }
    Some(out)
}
