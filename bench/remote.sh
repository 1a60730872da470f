#!/usr/bin/env bash
# Remote store benchmark (issue 14): `genesis push` and `genesis pull` of the 4096-file tree
# against a local S3 server (`moto` in server mode, from PyPI in a venv), side by side with a
# plain parallel client (boto3, a thread pool of the same width) moving the same objects.
# On demand only (never in CI).
#
#   bench/remote.sh              # build, generate, measure; markdown rows on stdout
#
# Environment (all optional):
#   BENCH_DIR      trees, venv and stores (default: a new mktemp -d under /tmp; kept)
#   BENCH_SEED     content seed (default 1)
#   BENCH_FILES    files in the tree, genesis.json included (default 4096)
#   BENCH_BYTES    total bytes (default 1073741824 = 1 GiB, the tree of bench/run.sh; moto
#                  keeps every object in its Python process's memory: ~2 GiB at the peak,
#                  each run's buckets are emptied after it)
#   BENCH_RUNS     timed runs of each side (default 3; the median is reported)
#   BENCH_CONCURRENCY  transfers in flight, both sides (default 16)
#   GENESIS_BIN    use this binary (built with --features remote) instead of building one
#   CARGO_TARGET_DIR  where to build (default /tmp/bench-target-remote)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
SEED=${BENCH_SEED:-1}
FILES=${BENCH_FILES:-4096}
BYTES=${BENCH_BYTES:-1073741824}
RUNS=${BENCH_RUNS:-3}
CONC=${BENCH_CONCURRENCY:-16}
log() { printf '[bench-remote %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [[ -n ${GENESIS_BIN:-} ]]; then
    G=$GENESIS_BIN
else
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/bench-target-remote}
    log "building the release binary (--features remote) into $CARGO_TARGET_DIR"
    (cd "$ROOT" && cargo build --release --locked --features remote --quiet) >&2
    G=$CARGO_TARGET_DIR/release/genesis
fi
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")

B=${BENCH_DIR:-$(mktemp -d /tmp/genesis-bench-remote.XXXXXX)}
mkdir -p "$B"
B=$(cd "$B" && pwd)
log "working in $B"
if [[ ! -x $B/venv/bin/moto_server ]]; then
    python3 -m venv "$B/venv"
    "$B/venv/bin/pip" install --quiet --disable-pip-version-check 'moto[server]' boto3 >&2
fi
T=$B/tree-$SEED-$FILES-$BYTES
if [[ ! -f $T/genesis.json ]]; then
    log "generating $FILES files, $BYTES bytes"
    rm -rf "$T"
    python3 "$HERE/gen.py" tree "$T" --seed "$SEED" --files "$FILES" --bytes "$BYTES" >&2
fi
rm -rf "$T/.genesis"
"$G" -C "$T" init >/dev/null 2>&1 || true
ID=$("$G" -C "$T" snapshot --identity)
log "snapshot $ID"

PORT=$("$B/venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$B/venv/bin/moto_server" -H 127.0.0.1 -p "$PORT" >"$B/moto.log" 2>&1 &
MOTO=$!
trap 'kill $MOTO 2>/dev/null || true' EXIT
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_REGION=us-east-1
export AWS_ENDPOINT_URL=http://127.0.0.1:$PORT AWS_ALLOW_HTTP=true

"$B/venv/bin/python" - "$G" "$T" "$ID" "$RUNS" "$CONC" "$B" <<'EOF'
import concurrent.futures as cf, hashlib, json, os, shutil, statistics, subprocess, sys, time
import urllib.request
import boto3, botocore.config

G, T, ID, RUNS, CONC, B = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
for _ in range(100):
    try:
        urllib.request.urlopen(os.environ["AWS_ENDPOINT_URL"] + "/moto-api/")
        break
    except Exception:
        time.sleep(0.1)
cfg = botocore.config.Config(max_pool_connections=CONC)
s3 = boto3.client("s3", config=cfg)

def run(args, cwd):
    t = time.perf_counter()
    p = subprocess.run([G, *args], cwd=cwd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{args}: exit {p.returncode}: {p.stderr}")
    return dt, json.loads(p.stdout)

def keys(bucket):
    out = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for o in page.get("Contents", []):
            out[o["Key"]] = o["Size"]
    return out

def empty(bucket):
    for k in keys(bucket):
        s3.delete_object(Bucket=bucket, Key=k)
    s3.delete_bucket(Bucket=bucket)

# The same objects for boto3: each blob from its file (named by its SHA-256), the rest (the
# snapshot's canonical bytes, the closure list) fetched once from a push, untimed.
by_hash = {}
for d, _, files in os.walk(T):
    if ".genesis" in d.split(os.sep):
        continue
    for f in files:
        p = os.path.join(d, f)
        with open(p, "rb") as fh:
            by_hash[hashlib.sha256(fh.read()).hexdigest()] = p

rows = {"push": [], "pull": [], "boto3 put": [], "boto3 get": []}
counts = None
for i in range(RUNS):
    g, b = f"genesis-{i}", f"boto3-{i}"
    for bucket in (g, b):
        s3.create_bucket(Bucket=bucket)
    url = f"s3://{g}/p"
    dt, out = run(["push", ID, "--remote", url, "--concurrency", str(CONC), "--json"], T)
    rows["push"].append(dt)
    counts = (out["uploaded"], out["bytes"])
    ws = os.path.join(B, f"pull-{i}")
    shutil.rmtree(ws, ignore_errors=True)
    os.makedirs(ws)
    dt, out = run(["pull", ID, "--remote", url, "--concurrency", str(CONC), "--json"], ws)
    rows["pull"].append(dt)
    assert out["downloaded"] == counts[0] - 1, (out, counts)  # the closure object: read, not stored
    objs = {}
    for k in keys(g):
        if not k.startswith("p/objects/"):
            continue
        h = k.rsplit("/", 1)[1]
        objs[h] = by_hash.get(h) or s3.get_object(Bucket=g, Key=k)["Body"].read()
    assert len(objs) == counts[0], (len(objs), counts)

    def put(item):
        h, src = item
        body = src if isinstance(src, bytes) else open(src, "rb").read()
        s3.put_object(Bucket=b, Key=f"p/objects/{h}", Body=body)

    t = time.perf_counter()
    with cf.ThreadPoolExecutor(CONC) as ex:
        list(ex.map(put, objs.items()))
    rows["boto3 put"].append(time.perf_counter() - t)
    dest = os.path.join(B, f"boto3-get-{i}")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)

    def get(h):
        body = s3.get_object(Bucket=b, Key=f"p/objects/{h}")["Body"].read()
        with open(os.path.join(dest, h), "wb") as fh:
            fh.write(body)

    t = time.perf_counter()
    with cf.ThreadPoolExecutor(CONC) as ex:
        list(ex.map(get, objs))
    rows["boto3 get"].append(time.perf_counter() - t)
    for bucket in (g, b):
        empty(bucket)
    shutil.rmtree(ws)
    shutil.rmtree(dest)

med = {k: statistics.median(v) for k, v in rows.items()}
print(f"- Objects: {counts[0]} ({counts[1]} bytes), snapshot `{ID}`; {CONC} transfers in flight on both sides; median of {RUNS} runs (all: " +
      "; ".join(f"{k} " + ", ".join(f"{x:.2f}" for x in v) for k, v in rows.items()) + " s)")
print()
print("| operation | Genesis | boto3 thread pool | Ratio |")
print("|---|---|---|---|")
for op, ref in (("push", "boto3 put"), ("pull", "boto3 get")):
    r = med[op] / med[ref]
    print(f"| `genesis {op}` of the tree | {med[op]:.2f} s | {med[ref]:.2f} s ({ref}) | {r:.2f}× |")
EOF
