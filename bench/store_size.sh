#!/usr/bin/env bash
# Store size of one tree: a cold `genesis snapshot` into a new store, per binary, against git's
# `.git/objects` after `git add -A` (blobs only) and after `git write-tree` (blobs and trees),
# with the CPU and wall time of each cold snapshot (median of RUNS).
#
#   bench/store_size.sh TREE BIN [BIN...]
#
# Environment: RUNS (cold snapshots per binary, 3), WORK (scratch directory, default a new
# mktemp -d beside TREE; removed at the end). TREE is snapshotted in place (`--workspace`,
# `--store` outside it); `init` adds its genesis.json. Output, one line per store:
#   <label> du_sb=<du -sb of objects> files=<object files> bytes=<their bytes> nodes=<tree
#   objects> node_bytes=<their bytes> node_bytes_per_file=<that / files> wall_s=<median>
#   cpu_s=<median user+sys>
set -euo pipefail
TREE=$(cd "${1:?usage: store_size.sh TREE BIN [BIN...]}" && pwd)
shift
RUNS=${RUNS:-3}
WORK=${WORK:-$(mktemp -d "$(dirname "$TREE")/store-size.XXXXXX")}
mkdir -p "$WORK"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1
unset GENESIS_STORE GIT_DIR GIT_WORK_TREE
FILES=$(find "$TREE" -type f | wc -l)
echo "tree $TREE: $FILES files, load $(cut -d' ' -f1-3 /proc/loadavg)"

# Node objects: the tree's nodes, walked from the root: packed ones (89 47 4E 50 01 01) are
# parsed here (a packed v0.1 snapshot, another kind, is one object without children); older ones are zstd frames of their JSON (decoded by `zstd -dc`) or the JSON raw.
measure() {
    python3 - "$1" "$2" "$FILES" <<'EOF'
import json, os, subprocess, sys
objs, root, files = sys.argv[1], sys.argv[2], int(sys.argv[3])
n = b = 0
for d, _, fs in os.walk(objs):
    for f in fs:
        n += 1; b += os.path.getsize(os.path.join(d, f))

def varint(data, at):
    v = s = 0
    while True:
        c = data[at]; at += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, at

def children(data):
    if data.startswith(b'\x89GNP\x01\x01'):
        body = data[7:]
        if data[6] == 1:
            body = subprocess.run(['zstd', '-dc'], input=body, capture_output=True, check=True).stdout
        count, at = varint(body, 0)
        out = []
        for _ in range(count):
            ln, at = varint(body, at)
            at += ln
            out.append(body[at:at + 32].hex()); at += 32
        return out
    if data.startswith(b'\x89GNP'):
        return []  # another packed kind: a v0.1 snapshot (a tree of at most 4,096 files)
    if data.startswith(b'\x28\xb5\x2f\xfd'):
        data = subprocess.run(['zstd', '-dc'], input=data, capture_output=True, check=True).stdout
    return [e['node'] for e in json.loads(data)['directories']]

nodes = node_bytes = 0
stack, seen = [root], set()
while stack:
    h = stack.pop()
    if h in seen:
        continue
    seen.add(h)
    data = open(os.path.join(objs, h[:2], h[2:]), 'rb').read()
    nodes += 1; node_bytes += len(data)
    stack.extend(children(data))
print(f"files={n} bytes={b} nodes={nodes} node_bytes={node_bytes} node_bytes_per_file={node_bytes / max(files, 1):.2f}")
EOF
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for bin in "$@"; do
    bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
    walls=() cpus=()
    for i in $(seq "$RUNS"); do
        st=$WORK/store
        rm -rf "$st"
        "$bin" --workspace "$TREE" --store "$st" init > /dev/null 2>&1
        /usr/bin/time -f '%e %U %S' -o "$WORK/time" "$bin" --workspace "$TREE" --store "$st" \
            snapshot --identity > "$WORK/root"
        read -r e u s < "$WORK/time"
        walls+=("$e"); cpus+=("$(python3 -c "print($u + $s)")")
    done
    echo "$bin wall_s=${walls[*]} cpu_s=${cpus[*]}" >&2
    line="$bin du_sb=$(du -sb "$st/objects" | cut -f1) $(measure "$st/objects" "$(cat "$WORK/root")")"
    echo "$line wall_s=$(printf '%s\n' "${walls[@]}" | median) cpu_s=$(printf '%s\n' "${cpus[@]}" | median)"
    rm -rf "$st"
done

GD=$WORK/git
rm -rf "$GD"
/usr/bin/time -f '%e %U %S' -o "$WORK/time" \
    env GIT_DIR="$GD" GIT_WORK_TREE="$TREE" bash -c 'git init -q && git add -A'
read -r e u s < "$WORK/time"
gitfiles() { find "$GD/objects" -type f -printf '%s\n' | awk '{n++; b+=$1} END {printf "files=%d bytes=%d", n, b}'; }
echo "git add -A du_sb=$(du -sb "$GD/objects" | cut -f1) $(gitfiles) wall_s=$e cpu_s=$(python3 -c "print($u + $s)")"
GIT_DIR="$GD" GIT_WORK_TREE="$TREE" git write-tree > /dev/null
echo "git add -A + write-tree du_sb=$(du -sb "$GD/objects" | cut -f1) $(gitfiles)"
rm -rf "$WORK"
