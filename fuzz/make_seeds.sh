#!/usr/bin/env bash
# Rebuilds the seed corpora in fuzz/seeds/<target>/ from real diffs:
#  - `git log -p --binary` of this repository's last 20 commits, whole and split per file;
#  - `git diff --binary -M` and `diff -ruN` of small trees with text, CRLF, no final newline,
#    binary, empty, executable-bit, rename, copy, creation and deletion changes, made against the
#    same contents as the fuzz harness's fixed tree (fuzz/harness.rs, MemTree::fixed) so they apply;
#  - structured inputs (PATH\nCONTENT\0PATCH\0PATCH-TEXT) for patch_apply_structured;
#  - path strings and snapshot documents (testdata/identity) for the other targets.
# Needs git, diff and python3. Run from anywhere; writes only under fuzz/seeds/.
set -euo pipefail
fuzz="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$fuzz")"
seeds="$fuzz/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/{patch_apply,patch_apply_structured,path_validate,snapshot_document}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# 1. This repository's history, one file per commit (commits over 64 KiB are kept only as
#    pieces), and per-file pieces of at most 16 KiB.
n=0
for c in $(git -C "$repo" rev-list -n 20 HEAD); do
    n=$((n + 1))
    git -C "$repo" log -p -n 1 --binary "$c" > "$seeds/patch_apply/git-log-$(printf %02d $n).diff"
done
python3 - "$seeds/patch_apply" <<'EOF'
import os, re, sys
d = sys.argv[1]
for name in sorted(os.listdir(d)):
    if not name.startswith("git-log-"):
        continue
    data = open(os.path.join(d, name), "rb").read()
    parts = re.split(rb"(?m)^(?=diff --git )", data)[1:]
    for i, p in enumerate(parts):
        if len(p) <= 16384:
            open(os.path.join(d, f"{name[:-5]}-file{i:03d}.diff"), "wb").write(p)
    if len(data) > 65536:
        os.remove(os.path.join(d, name))
EOF

# 2. Small trees. Pre-image = the harness's fixed tree (keep in sync with MemTree::fixed).
pre="$work/a"
mkdir -p "$pre/src" "$pre/dir/sub" "$pre/io"
printf '# Genesis\n\nA transactional workspace engine.\n' > "$pre/README.md"
printf 'fn main() {\n    println!("hello");\n}\n\nfn helper() -> u32 {\n    1\n}\n' > "$pre/src/main.rs"
printf 'pub mod a;\npub mod b;\n' > "$pre/src/lib.rs"
printf 'a\nb\nc\nd\ne\nf\ng\nh\n' > "$pre/a.txt"
printf 'x\ny\nx\ny\nx\ny\n' > "$pre/dup.txt"
printf 'one\r\ntwo\r\nthree\r\n' > "$pre/crlf.txt"
printf 'first\nlast' > "$pre/noeol.txt"
: > "$pre/empty"
printf '\x00\x01\x02\xff\xfe binary\x00data\n\x80' > "$pre/bin.dat"
printf '#!/bin/sh\necho hi\n' > "$pre/script.sh"
chmod +x "$pre/script.sh"
printf 'nested\n' > "$pre/dir/sub/file.txt"
printf 'never read\n' > "$pre/io/error.txt"

post="$work/b"
cp -a "$pre" "$post"
printf 'fn main() {\n    println!("hello, world");\n}\n\nfn helper() -> u32 {\n    2\n}\n' > "$post/src/main.rs"
printf 'a\nB\nc\nd\ne\nf\nG\nh\ni\n' > "$post/a.txt"
printf 'one\r\nTWO\r\nthree\r\nfour\r\n' > "$post/crlf.txt"
printf 'first\nlast\n' > "$post/noeol.txt"
printf 'now text\nno newline' > "$post/empty"
printf '\x00\x01\x03\xff\xfe BINARY\x00data\n\x80\x81' > "$post/bin.dat"
chmod -x "$post/script.sh"
printf '#!/bin/sh\necho new\n' > "$post/new.sh"
chmod +x "$post/new.sh"
: > "$post/new-empty"
mv "$post/dir/sub/file.txt" "$post/dir/sub/renamed.txt"
rm "$post/README.md"
cp "$post/src/lib.rs" "$post/src/lib2.rs"
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR' > "$post/logo.png"

(cd "$work" && diff -ruN a b > "$seeds/patch_apply/diff-ruN.diff") || true
(cd "$work" && diff -ru a b > "$seeds/patch_apply/diff-ru.diff") || true
(cd "$work" && diff -ruN --text a b > "$seeds/patch_apply/diff-ruN-text.diff") || true

g="$work/g"
cp -a "$pre" "$g"
git -C "$g" init -q
git -C "$g" -c core.autocrlf=false add -A
git -C "$g" -c user.name=f -c user.email=f@f -c commit.gpgsign=false commit -qm pre
rm -rf "${g:?}"/*
cp -a "$post"/. "$g"/
git -C "$g" -c core.autocrlf=false add -A
git -C "$g" diff --cached --binary -M > "$seeds/patch_apply/git-diff-binary-M.diff"
git -C "$g" diff --cached --binary -M -C --find-copies-harder > "$seeds/patch_apply/git-diff-binary-C.diff"
git -C "$g" diff --cached -M > "$seeds/patch_apply/git-diff-nobinary.diff"
git -C "$g" diff --cached --binary --no-renames > "$seeds/patch_apply/git-diff-norenames.diff"
git -C "$g" diff --cached --binary -U0 > "$seeds/patch_apply/git-diff-U0.diff"
git -C "$g" diff --cached --binary -U1 --no-prefix > "$seeds/patch_apply/git-diff-noprefix.diff"
git -C "$g" diff --cached --binary -R > "$seeds/patch_apply/git-diff-reverse.diff"
# One file per entry, too.
for p in $(git -C "$g" diff --cached --name-only --no-renames); do
    safe="$(echo "$p" | tr / _)"
    git -C "$g" diff --cached --binary --no-renames -- "$p" > "$seeds/patch_apply/git-one-$safe.diff"
done

# 3. Structured inputs: PATH\nCONTENT\0PATCH\0PATCH-TEXT (PATH* = executable).
structured() { # name path content-file patch-file [exec]
    {
        printf '%s%s\n' "$2" "${5:-}"
        cat "$3"
        printf '\0PATCH\0'
        cat "$4"
    } > "$seeds/patch_apply_structured/$1"
}
for p in src/main.rs a.txt crlf.txt noeol.txt empty bin.dat; do
    safe="$(echo "$p" | tr / _)"
    git -C "$g" diff --cached --binary -- "$p" > "$work/one.diff"
    structured "git-$safe" "$p" "$pre/$p" "$work/one.diff"
    (cd "$work" && diff -uN "a/$p" "b/$p" > "$work/one-u.diff") || true
    structured "diffu-$safe" "$p" "$pre/$p" "$work/one-u.diff"
done
git -C "$g" diff --cached --binary -- script.sh > "$work/one.diff"
structured git-mode script.sh "$pre/script.sh" "$work/one.diff" '*'
# A larger file with repeated lines, so placement and ambiguity are exercised.
python3 - "$work" <<'EOF'
import sys
w = sys.argv[1]
old = "".join(f"line {i % 7}\n" if i % 3 else f"unique {i}\n" for i in range(60))
new_lines = old.splitlines(keepends=True)
new_lines[10] = "changed\n"; new_lines.insert(30, "inserted\n"); del new_lines[50]
open(f"{w}/big-old", "w").write(old); open(f"{w}/big-new", "w").write("".join(new_lines))
EOF
(cd "$work" && diff -u --label a/big.txt --label b/big.txt big-old big-new > "$work/big.diff") || true
structured diffu-big big.txt "$work/big-old" "$work/big.diff"
# Agent-style: plain names, no a/ b/ prefixes, no final newline at the end of the patch.
printf -- '--- f.txt\n+++ f.txt\n@@ -1,2 +1,2 @@\n-hello\n+goodbye\n world' > "$work/agent.diff"
printf 'hello\nworld\n' > "$work/agent-old"
structured agent f.txt "$work/agent-old" "$work/agent.diff"
cp "$work/agent.diff" "$seeds/patch_apply/agent-no-final-newline.diff"
# Creation by a plain diff with -0,0.
printf -- '--- new.txt\n+++ new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n' > "$seeds/patch_apply/plain-create.diff"
# Quoted names.
printf 'diff --git "a/sp\\303\\251cial \\"q\\".txt" "b/sp\\303\\251cial \\"q\\".txt"\nnew file mode 100644\nindex 0000000..e69de29\n' > "$seeds/patch_apply/quoted-name.diff"

# 4. Paths.
i=0
while IFS= read -r line; do
    i=$((i + 1))
    printf '%b' "$line" > "$seeds/path_validate/p$(printf %02d $i)"
done <<'EOF'
a
src/main.rs
.gitignore
dir with space/\xc3\xbc.txt
a..b
...
x/.y
../x
a/./b
a//b
a/
/etc/passwd
a\\b
a\nb
a\x7f
a\xe2\x80\xa8/../b
\xe2\x80\xa9..
.git/config
.genesis/store
EOF

# 5. Snapshot documents.
for f in "$repo"/testdata/identity/*.json; do
    case "$f" in *.contents.json) continue ;; esac
    cp "$f" "$seeds/snapshot_document/$(basename "$f")"
done
printf '{"schema":"genesis/workspace-snapshot-v0.1","identity":"%064d","files":[{"path":"a","blob":"%064d","bytes":1}]}' 0 0 \
    > "$seeds/snapshot_document/wrong-identity.json"

for t in "$seeds"/*; do echo "$(basename "$t"): $(ls "$t" | wc -l) seeds"; done
