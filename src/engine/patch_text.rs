//! The patch texts Genesis writes itself (`patch --from`, `rebase`), bounded by the patch size
//! limit (issue 11), and the room journal staging names need (DESIGN section 2, "Limits").

use super::*;
use crate::patch::PatchError;

/// The path of the last `diff --git a/P b/P` header in `text` (as written, quoted or not):
/// the file whose text passed the limit.
fn last_diff_path(text: &[u8]) -> String {
    let at = text
        .windows(11)
        .rposition(|w| w == b"diff --git ")
        .map_or(text.len(), |i| i + 11);
    let line = text[at..].split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let first = line.get(..line.len() / 2).unwrap_or(&line);
    let first = first.strip_prefix('"').unwrap_or(first);
    let first = first.strip_suffix('"').unwrap_or(first);
    first.strip_prefix("a/").unwrap_or(first).to_string()
}

/// The diff from `a` to `b` of `list`, as Genesis records it (`patch --from`, `rebase`),
/// written into a buffer bounded by the patch size limit under `manifest`: a text that would
/// pass it stops there ([`PatchError::TooLargeAt`], naming the file being written), so memory
/// stays bounded by the limit (issue 11), and it is refused as a submitted one would be. A
/// change to a file over [`crate::patch::MAX_BINARY_BYTES`] is refused first
/// ([`PatchError::FileTooLargeToPatch`]).
pub(super) fn bounded_diff(
    a: &Tree,
    b: &Tree,
    list: &[crate::diff::Change],
    manifest: &Manifest,
) -> Result<Vec<u8>, PatchSessionError> {
    // A side over the largest binary literal could never be applied back: refused before
    // anything is read or written.
    for c in list {
        let bytes = [&c.old, &c.new]
            .into_iter()
            .flatten()
            .map(|s| s.file.bytes)
            .max()
            .unwrap_or(0);
        if bytes > crate::patch::MAX_BINARY_BYTES {
            return Err(PatchError::FileTooLargeToPatch {
                path: c.path.to_string(),
                bytes,
                limit: crate::patch::MAX_BINARY_BYTES,
            }
            .into());
        }
    }
    let limit = patch_rules(manifest).max_patch_bytes;
    let mut bounded = crate::diff::BoundedText::new(limit);
    let written = write_git_diff(a, b, list, &DiffOptions::default(), &mut bounded);
    if bounded.over {
        return Err(PatchError::TooLargeAt {
            path: last_diff_path(&bounded.text),
            limit,
        }
        .into());
    }
    written?;
    Ok(bounded.text)
}

/// The length reserved for a journal staging name `.genesis-tmp-<id>-<n>` when the trees
/// before and after a patch hold at most `files` files. Journal ops are numbered below base
/// plus current files: with no file-count limit, room for the digits of 2 × `files` (at least
/// 2 × 4096, as v0.1), plus one digit of margin for a session base larger than both (5 digits
/// up to 4096 files, as before; 6 from 5000 files, 7 from 50 000).
pub(super) fn staging_name_len(id: &str, files: usize) -> usize {
    let ops = 2 * files.max(crate::snapshot::MAX_FILES);
    ".genesis-tmp-".len() + id.len() + 1 + ops.to_string().len() + 1
}

#[cfg(test)]
mod staging_tests {
    /// The reserved length covers every op number of a journal over two trees of `files`
    /// files (ops `0 .. 2 × files`), past 9999 and 99999 files too, with a digit to spare.
    #[test]
    fn staging_names_are_sized_by_the_file_count() {
        for (files, digits) in [
            (1, 5),
            (4096, 5),
            (9999, 6),
            (10_000, 6),
            (99_999, 7),
            (100_000, 7),
        ] {
            let reserved = super::staging_name_len("s", files);
            assert_eq!(reserved, ".genesis-tmp-s-".len() + digits, "{files} files");
            let longest = format!(".genesis-tmp-s-{}", 2 * files - 1);
            assert!(longest.len() < reserved, "{files} files: {longest}");
        }
    }
}
