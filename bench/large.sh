#!/usr/bin/env bash
# Genesis against git on one generated tree of many small files (issue 11: 100,000 and
# 1,000,000 files), side by side in one run. Called by run.sh for each size of BENCH_SIZES
# other than 4096; can be run alone:
#
#   bench/large.sh N            # N files (genesis.json included)
#
# Environment: GENESIS_BIN (required when run alone), BENCH_DIR (default: a new mktemp -d
# under /tmp; the tree is generated there on demand and reused while its stamp matches),
# BENCH_SEED (1), BENCH_RUNS (5; 3 from 1,000,000 files), BENCH_DISTINCT (distinct file
# contents; default every file distinct below 1,000,000 files and 5000 from there, so the
# stores stay small: see gen.py small).
#
# Each row but difftrees times Genesis and its reference in turn (bench/pair.sh: one run of each
# a round, the order swapped every round); the ratio is of the medians, with the spread of the
# rounds' own ratios beside it.
# Rows (Genesis | reference, same tree, same run):
#   cold      `snapshot --no-store --identity`  | serial `openssl dgst -sha256` over the files
#   store     objects after a cold `snapshot` into a new store | .git/objects after `git add -A`
#   nochange  `snapshot --identity` with a warm stat cache | `git status --porcelain`
#   onefile   the same after rewriting one byte of one file before each run | the same
#   difftrees `diff --name-status A B` of two stored trees one file apart | nochange above
#   verify    `verify SID --workdir NEW` (checks the tree out; no obligations) | `git worktree
#             add --detach NEW` (below 1,000,000 files)
#   rss       peak RSS of nochange | peak RSS of git status
# The markdown rows go to standard output and $BENCH_DIR/report-N.md; progress to stderr.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GEN="python3 $HERE/gen.py"
N=${1:?usage: large.sh FILES}
SEED=${BENCH_SEED:-1}
if (( N >= 1000000 )); then RUNS=${BENCH_RUNS:-3}; DISTINCT=${BENCH_DISTINCT:-5000}
else RUNS=${BENCH_RUNS:-5}; DISTINCT=${BENCH_DISTINCT:-0}; fi
G=${GENESIS_BIN:?GENESIS_BIN: the genesis binary to measure}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")

log() { printf '[large %s %s] %s\n' "$N" "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'large.sh: %s\n' "$*" >&2; exit 1; }

B=${BENCH_DIR:-$(mktemp -d /tmp/genesis-large.XXXXXX)}
mkdir -p "$B"
B=$(cd "$B" && pwd)
T=$B/small-$N; R=$B/results-$N; E=$B/empty
mkdir -p "$R" "$E"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_CEILING_DIRECTORIES=$B NO_COLOR=1
unset GENESIS_STORE GIT_DIR GIT_WORK_TREE
q() { printf '%q' "$1"; }

stamp="small seed=$SEED files=$N distinct=$DISTINCT layout=1"
if [[ -f $T.stamp && $(cat "$T.stamp") == "$stamp" && -d $T ]]; then
    log "reusing $T"
else
    rm -rf "$T" "$T.stamp"
    log "generating $T ($stamp)"
    $GEN small "$T" --seed "$SEED" --files "$N" --distinct "$DISTINCT" >&2
    echo "$stamp" > "$T.stamp"
fi
BYTES=$(du -sb --apparent-size "$T" | cut -f1)

hf() {
    local name=$1 runs=$2 prepare=$3 cmd=$4
    local opts=(--style basic --warmup 1 --runs "$runs" --export-json "$R/$name.json")
    [[ -n $prepare ]] && opts+=(--prepare "$prepare")
    log "timing $name: $cmd"
    (cd "$E" && hyperfine "${opts[@]}" -- "$cmd") >&2
}
stats() { $GEN median "$R/$1.json"; }
# shellcheck source=bench/pair.sh
. "$HERE/pair.sh"
# peak RSS (KiB), median of 3
rss() {
    local name=$1 prepare=$2 cmd=$3 i
    for i in 1 2 3; do
        [[ -n $prepare ]] && bash -c "$prepare"
        (cd "$E" && /usr/bin/time -f '%M' -o "$R/$name.rss.$i" bash -c "$cmd" > /dev/null 2>&1) || true
    done
    cat "$R/$name.rss."{1,2,3} | sort -n | sed -n 2p
}
load() { cut -d' ' -f1-3 /proc/loadavg; }

GS=$(q "$G")
load_before=$(load)

# --- cold snapshot vs serial openssl ---------------------------------------------------------
C_cold="$GS snapshot --no-store --identity $(q "$T")"
C_ssl="find $(q "$T") -type f -print0 | xargs -0 openssl dgst -sha256 > /dev/null"
find "$T" -type f -print0 | xargs -0 cat > /dev/null
ID1=$(eval "$C_cold")
hf_pair cold-genesis cold-openssl "$RUNS" '' '' "$C_cold" "$C_ssl"

# --- store size: cold snapshot into a new store vs git add -A --------------------------------
ST=$B/store-$N; GD=$B/git-$N.git
rm -rf "$ST" "$GD"
GW="$GS --workspace $(q "$T") --store $(q "$ST")"
GITS="GIT_DIR=$(q "$GD") GIT_WORK_TREE=$(q "$T")"
eval "$GW init" > /dev/null 2>&1
log "cold snapshot into a new store"
t0=$(date +%s.%N)
first=$(eval "$GW snapshot --identity")
t1=$(date +%s.%N)
[[ $first == "$ID1" ]] || die "stored snapshot $first differs from the --no-store one $ID1"
log "git init + add -A + commit"
t2=$(date +%s.%N)
eval "$GITS git init -q && $GITS git add -A"
t3=$(date +%s.%N)
eval "$GITS git -c user.name=bench -c user.email=bench@localhost commit -q -m base"
store_g=$(du -sb "$ST/objects" | cut -f1)
store_r=$(du -sb "$GD/objects" | cut -f1)
# The commit leaves ~N new files of dirty pages: write them back before timing anything else.
sync
cold_store_s=$(python3 -c "print('%.1f' % ($t1 - $t0))")
gitadd_s=$(python3 -c "print('%.1f' % ($t3 - $t2))")
sleep 3
eval "$GW snapshot --identity" > /dev/null
eval "$GITS git status --porcelain" > /dev/null

# --- no change ------------------------------------------------------------------------------
C_nochange="$GW snapshot --identity"
C_status="$GITS git status --porcelain"
hf_pair nochange-genesis nochange-git "$RUNS" '' '' "$C_nochange" "$C_status"
[[ -z $(eval "$C_status") ]] || die "git status is not clean"
RSS_g=$(rss nochange-genesis '' "$C_nochange")
RSS_r=$(rss nochange-git '' "$C_status")
hits=$(eval "$GW --json snapshot" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("files_from_cache","?"))')

# --- one file changed -----------------------------------------------------------------------
F=$(cd "$T" && ls d000/d00 | head -1); F=d000/d00/$F
OFF=3
orig=$(python3 -c "import sys; print(open(sys.argv[1],'rb').read()[$OFF])" "$T/$F")
P_flip="$GEN poke $(q "$T/$F") $OFF $orig"
hf_pair onefile-genesis onefile-git "$RUNS" "$P_flip" "$P_flip" "$C_nochange" "$C_status"

# --- diff of two stored trees one file apart --------------------------------------------------
eval "$P_flip"
ID2=$(eval "$GW snapshot --identity")
$GEN setbyte "$T/$F" "$OFF" "$orig"
[[ $(eval "$GW snapshot --identity") == "$ID1" ]] || die "$T/$F was not restored"
C_dt="$GW diff $ID1 $ID2 --name-status"
out=$(eval "$C_dt")
[[ $out == "M	$F" || $out == "M $F" ]] || die "diff of the stored trees printed: $out"
hf difftrees-genesis "$((RUNS + 5))" '' "$C_dt"

# --- verify's checkout vs git worktree add (below 1,000,000 files) ---------------------------
if (( N < 1000000 )); then
    SID=$(eval "$GW open" 2> /dev/null)
    VW=$B/verify-$N; GWT=$B/worktree-$N
    C_verify="$GW verify $SID --workdir $(q "$VW")"
    C_wt="git --git-dir=$(q "$GD") worktree add -q --detach $(q "$GWT")"
    hf_pair verify-genesis verify-git "$RUNS" "rm -rf $(q "$VW")" \
        "rm -rf $(q "$GWT") && git --git-dir=$(q "$GD") worktree prune" "$C_verify" "$C_wt"
    rm -rf "$VW" "$GWT"
    git --git-dir="$GD" worktree prune
fi
load_after=$(load)

# --- report -----------------------------------------------------------------------------------
python3 - "$N" "$BYTES" "$DISTINCT" "$R" "$RSS_g" "$RSS_r" "$store_g" "$store_r" \
    "$cold_store_s" "$gitadd_s" "$load_before" "$load_after" "$hits" "$ID1" "$RUNS" <<'EOF' | tee "$B/report-$N.md"
import json, statistics, sys
(n, nbytes, distinct, r, rss_g, rss_r, store_g, store_r, cold_s, gitadd_s, lb, la, hits, ident,
 runs) = sys.argv[1:]
def st(name):
    res = json.load(open("%s/%s.json" % (r, name)))["results"][0]
    return statistics.median(res["times"]), res["user"] + res["system"]
def t(x):
    return "%.3f s" % x if x >= 0.1 else "%.1f ms" % (x * 1000)
import os
def spread(g, ref):
    p = "%s/%s.vs.%s.rounds" % (r, g, ref)
    if not os.path.exists(p):
        return ""
    x = [float(l) for l in open(p)]
    return " (rounds %.2f–%.2f)" % (min(x), max(x))
def row(title, g, ref, refname, target, ok):
    (gm, gc), (rm, rc) = st(g), st(ref)
    ratio = gm / rm
    print("| %s | %s | %s | %s (%s) | %.2f×%s | %.2f× | %s |" % (
        n, title, t(gm) + " / " + t(gc), t(rm) + " / " + t(rc), refname,
        ratio, spread(g, ref), gc / rc, ("✅" if ok(ratio, gc / rc) else "❌") + " " + target))
print("| files | operation | Genesis wall / CPU | reference wall / CPU | ratio (wall) | ratio (CPU) | target |")
print("|---|---|---|---|---|---|---|")
print("<!-- %s files, %s bytes, distinct contents %s, identity %s, %s runs, load %s -> %s, "
      "no-change stat cache hits %s -->" % (n, nbytes, distinct or "all", ident, runs, lb, la, hits))
row("no-change snapshot", "nochange-genesis", "nochange-git", "`git status --porcelain`",
    "≤ git status", lambda w, c: w <= 1.0)
row("one-file-changed snapshot", "onefile-genesis", "onefile-git", "`git status --porcelain`",
    "≤ git status", lambda w, c: w <= 1.0)
row("cold `snapshot --no-store`", "cold-genesis", "cold-openssl", "serial `openssl dgst -sha256`",
    "≥ 1.6× faster", lambda w, c: w <= 1 / 1.6)
import os
if os.path.exists("%s/verify-genesis.json" % r):
    row("`verify` (its checkout of the tree, no obligations)", "verify-genesis", "verify-git",
        "`git worktree add`", "≤ git worktree add", lambda w, c: w <= 1.0)
row("`diff A B` of two stored trees one file apart", "difftrees-genesis", "nochange-genesis",
    "no-change snapshot", "< 5 %", lambda w, c: w < 0.05)
g, rr = int(rss_g) / 1024, int(rss_r) / 1024
print("| %s | peak RSS, no-change snapshot | %.1f MiB | %.1f MiB (`git status`) | %.2f× | | %s ≤ 1.5× |"
      % (n, g, rr, g / rr, "✅" if g / rr <= 1.5 else "❌"))
sg, sr = int(store_g), int(store_r)
print("| %s | objects after cold snapshot (`du -sb`) | %d B (%s s) | %d B (`git add -A`: %s s) | %.2f× | | %s ≤ git |"
      % (n, sg, cold_s, sr, gitadd_s, sg / sr, "✅" if sg <= sr else "❌"))
EOF
log "done; $B kept (rm -rf it when finished)"
