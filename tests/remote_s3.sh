#!/usr/bin/env bash
# The shared remote store (issue 14) against a real S3-compatible server: `moto` in server mode,
# installed from PyPI into a venv, started on 127.0.0.1 at a free port and stopped at the end
# (trap). Two workspaces play two machines: push from one (sessions of a small tree and of a
# 4100-file tree, whose snapshots are v0.2 trees), the server killed mid-push (no session ref
# visible at that moment; the push fails after its retries), restarted, the push completed;
# pull into the other's empty store; `check --accepted` passes there; `replay` reproduces every
# snapshot; a byte flipped in a remote object is refused on pull with exit 4.
# Skips (exit 0, saying so) when PyPI cannot be reached; CI can.
# Usage: tests/remote_s3.sh [GENESIS_BINARY]   (default: builds target/debug/genesis with
# --features remote)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-}"
if [ -z "$bin" ]; then
    cargo build --quiet --features remote --bin genesis
    bin="${CARGO_TARGET_DIR:-target}/debug/genesis"
fi
bin="$(realpath "$bin")"
work="$(mktemp -d)"
server_pid=""
stop_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}
trap 'stop_server; rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
if ! "$work/venv/bin/pip" install --quiet --disable-pip-version-check 'moto[server]' boto3 >"$work/pip.log" 2>&1; then
    if grep -qiE "could not find a version|connection|resolve|network|timed out|No matching distribution" "$work/pip.log"; then
        echo "remote_s3: SKIPPED: pip cannot reach PyPI to install moto and boto3:"
        tail -3 "$work/pip.log"
        exit 0
    fi
    cat "$work/pip.log"
    exit 1
fi
py="$work/venv/bin/python"
echo "remote_s3: moto $("$py" -c 'import importlib.metadata as m; print(m.version("moto"))')"
port="$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1
export AWS_ENDPOINT_URL="http://127.0.0.1:$port" AWS_ALLOW_HTTP=true
# A stopped server fails a request after 3 s of retries rather than 60.
export GENESIS_REMOTE_RETRY_S=3
url="s3://genesis-ci/team"
fail() { echo "remote_s3: FAILED: $*"; exit 1; }

start_server() {
    "$work/venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$work/moto.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 100); do
        if "$py" -c "import urllib.request; urllib.request.urlopen('$AWS_ENDPOINT_URL/moto-api/')" 2>/dev/null; then
            "$py" -c "import boto3; boto3.client('s3').create_bucket(Bucket='genesis-ci')"
            return 0
        fi
        sleep 0.1
    done
    cat "$work/moto.log"
    fail "moto_server did not start on port $port"
}
# How many keys the bucket holds under PREFIX.
count() {
    "$py" -c "
import boto3, sys
n = 0
for page in boto3.client('s3').get_paginator('list_objects_v2').paginate(Bucket='genesis-ci', Prefix='team/$1'):
    n += page.get('KeyCount', 0)
print(n)"
}

# The first machine: a small tree (one verified session, one of two patches) and a large one.
ws1="$work/ws1"
mkdir -p "$ws1/bin"
printf 'hello\n' >"$ws1/a.txt"
printf '#!/bin/sh\necho hi\n' >"$ws1/bin/run.sh"
chmod +x "$ws1/bin/run.sh"
printf '{"schema": "genesis/manifest-v0.1", "obligations": [{"id": "ok", "run": ["true"], "timeout_s": 60}]}\n' >"$ws1/genesis.json"
"$bin" -C "$ws1" init >/dev/null 2>&1
"$bin" -C "$ws1" open --session s1 >/dev/null 2>&1
printf -- '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+world\n' | "$bin" -C "$ws1" patch s1 - >/dev/null
"$bin" -C "$ws1" verify s1 >/dev/null 2>&1
"$bin" -C "$ws1" open --session s2 >/dev/null 2>&1
for f in n1 n2; do
    printf -- "--- /dev/null\n+++ b/$f.txt\n@@ -0,0 +1 @@\n+$f\n" | "$bin" -C "$ws1" patch s2 - >/dev/null
done
big="$work/big"
mkdir -p "$big"
"$py" - "$big" <<'EOF'
import os, sys
root = sys.argv[1]
for i in range(4100):
    d = os.path.join(root, f"d{i % 41:02}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:05}.txt"), "w") as f:
        f.write(f"file {i}\n" * (1 + i % 7))
with open(os.path.join(root, "genesis.json"), "w") as f:
    f.write('{"schema": "genesis/manifest-v0.1", "obligations": [{"id": "ok", "run": ["true"], "timeout_s": 60}]}\n')
EOF
"$bin" -C "$big" init >/dev/null 2>&1
"$bin" -C "$big" open --session big >/dev/null 2>&1
printf -- '--- a/d00/f00000.txt\n+++ b/d00/f00000.txt\n@@ -1 +1 @@\n-file 0\n+file zero\n' | "$bin" -C "$big" patch big - >/dev/null
"$bin" -C "$big" verify big >/dev/null 2>&1

start_server
echo "remote_s3: moto on 127.0.0.1:$port"

# Killed mid-push: objects only, no ref, when it goes down; the push fails (exit 4).
set +e
"$bin" -C "$big" push big --remote "$url" --concurrency 4 >"$work/push1.out" 2>&1 &
push_pid=$!
set -e
for _ in $(seq 1 300); do
    n="$(count objects/)"
    [ "$n" -ge 300 ] && break
    sleep 0.05
done
[ "$(count sessions/)" = 0 ] || fail "a session ref was visible before its objects were all up"
echo "remote_s3: killing the server with $n objects up, no ref"
kill -9 "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=""
set +e
wait "$push_pid"
rc=$?
set -e
[ "$rc" = 4 ] || { cat "$work/push1.out"; fail "push against a killed server: exit $rc, expected 4"; }
grep -q "remote s3://genesis-ci/team: put" "$work/push1.out" || { cat "$work/push1.out"; fail "no put error named"; }

# Restarted (moto keeps nothing): the complete push.
start_server
"$bin" -C "$big" push big --remote "$url" --json >"$work/push2.json"
"$bin" -C "$ws1" push --remote "$url" --json >"$work/push3.json"
"$py" - "$work" <<'EOF'
import json, sys
w = sys.argv[1]
big = json.load(open(f"{w}/push2.json"))
small = json.load(open(f"{w}/push3.json"))
assert [p["id"] for p in big["pushed"]] == ["big"], big
assert big["uploaded"] > 4100 and big["skipped"] == 0, big
assert [p["id"] for p in small["pushed"]] == ["s1", "s2"], small
assert small["acceptances"] == 1, small
print(f"remote_s3: pushed big ({big['uploaded']} objects, {big['bytes']} bytes), s1, s2")
EOF

# The second machine: an empty directory.
ws2="$work/ws2"
mkdir -p "$ws2"
"$bin" -C "$ws2" pull s1 s2 big --remote "$url" --json >"$work/pull.json"
for s in s1 s2 big; do
    src="$ws1"; [ "$s" = big ] && src="$big"
    cmp "$src/.genesis/sessions/$s.json" "$ws2/.genesis/sessions/$s.json" || fail "$s: session documents differ"
    "$bin" -C "$ws2" replay "$s" >/dev/null || fail "$s: replay failed after pull"
    snap="$("$py" -c "import json; print(json.load(open('$ws2/.genesis/sessions/$s.json'))['current_snapshot'])")"
    if [ "$s" != s2 ]; then
        "$bin" -C "$ws2" check --remote "$url" --accepted "$snap" >/dev/null || fail "$s: check --accepted $snap: not accepted"
    else
        set +e; "$bin" -C "$ws2" check --remote "$url" --accepted "$snap" >/dev/null; rc=$?; set -e
        [ "$rc" = 1 ] || fail "$s (never verified): check --accepted exit $rc, expected 1"
    fi
done
echo "remote_s3: pulled into an empty store; replay and check --accepted agree"

# A byte flipped in a remote object: refused on pull (exit 4), the store untouched.
blob="$("$py" -c "import hashlib; print(hashlib.sha256(b'world\n').hexdigest())")"
"$py" -c "
import boto3
s3 = boto3.client('s3')
k = 'team/objects/$blob'
b = bytearray(s3.get_object(Bucket='genesis-ci', Key=k)['Body'].read())
b[0] ^= 0x20
s3.put_object(Bucket='genesis-ci', Key=k, Body=bytes(b))"
ws3="$work/ws3"
mkdir -p "$ws3"
"$bin" -C "$ws3" init >/dev/null 2>&1
before="$(cd "$ws3/.genesis" && find . -type f | sort | xargs sha256sum)"
set +e
"$bin" -C "$ws3" pull s1 --remote "$url" >"$work/pull3.out" 2>&1
rc=$?
set -e
[ "$rc" = 4 ] || { cat "$work/pull3.out"; fail "pull of a flipped object: exit $rc, expected 4"; }
grep -q "corrupt object team/objects/$blob" "$work/pull3.out" || { cat "$work/pull3.out"; fail "corrupt object not named"; }
after="$(cd "$ws3/.genesis" && find . -type f | sort | xargs sha256sum)"
[ "$before" = "$after" ] || fail "the local store changed on a refused pull"
echo "remote_s3: a flipped byte is refused on pull (exit 4), the store untouched"
stop_server
echo "remote_s3: ok"
