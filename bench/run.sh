#!/usr/bin/env bash
# Genesis benchmark harness: Genesis against openssl / git on the same generated trees, in one
# run. On demand only (never in CI): it writes several GiB and takes ~10 minutes.
#
#   bench/run.sh                 # build, generate, measure; report on stdout
#
# Environment (all optional):
#   BENCH_DIR      where trees, stores, repositories and results go (default: a new
#                  mktemp -d under /tmp; kept afterwards, its path is printed). Trees already
#                  there with the same parameters are reused.
#   BENCH_SEED     content seed (default 1)
#   BENCH_FILES    files in the tree, genesis.json included (default 4096, the v0.1 maximum)
#   BENCH_BYTES    total bytes of the tree (default 1073741824 = 1 GiB)
#   BENCH_CHANGES  files changed by the change set of rows 4 and 5 (default 1000)
#   BENCH_RUNS     timed runs per command (default 5; git add -A and the apply rows use
#                  max(3, BENCH_RUNS - 2)); the median is reported
#   BENCH_SIZES    tree sizes to measure, e.g. "4096 100000 1000000" (default "4096"): 4096 is
#                  the 1 GiB mixed tree below; any other size N runs bench/large.sh N, a tree
#                  of N small files generated on demand (gen.py small) with the rows of
#                  issue 11 side by side with git (no-change and one-file snapshots vs
#                  `git status --porcelain`, peak RSS, cold snapshot vs openssl, store size vs
#                  .git/objects, diff of two stored trees vs the no-change snapshot). 1,000,000
#                  files need ~6 GiB under BENCH_DIR and ~10 minutes.
#   GENESIS_BIN    use this binary instead of building one
#   CARGO_TARGET_DIR  where to build (default /tmp/bench-target)
#
# Needs: cargo, python3 (>= 3.9), hyperfine, git, openssl, GNU time (/usr/bin/time).
# Progress goes to standard error; the markdown report to standard output and to
# $BENCH_DIR/report.md.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
GEN="python3 $HERE/gen.py"

SEED=${BENCH_SEED:-1}
FILES=${BENCH_FILES:-4096}
BYTES=${BENCH_BYTES:-1073741824}
CHANGES=${BENCH_CHANGES:-1000}
RUNS=${BENCH_RUNS:-5}
SLOW_RUNS=$(( RUNS - 2 > 3 ? RUNS - 2 : 3 ))
(( RUNS >= 3 )) || { echo "run.sh: BENCH_RUNS must be at least 3" >&2; exit 2; }

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'run.sh: %s\n' "$*" >&2; exit 1; }

for tool in python3 hyperfine git openssl /usr/bin/time; do
    command -v "$tool" >/dev/null || die "$tool is missing (apt-get install -y hyperfine time git openssl python3)"
done

# --- binary -----------------------------------------------------------------------------------
if [[ -n ${GENESIS_BIN:-} ]]; then
    G=$GENESIS_BIN
else
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/bench-target}
    log "building the release binary into $CARGO_TARGET_DIR"
    (cd "$ROOT" && cargo build --release --locked --quiet) >&2
    G=$CARGO_TARGET_DIR/release/genesis
fi
[[ -x $G ]] || die "$G is not an executable"
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")

# --- places -----------------------------------------------------------------------------------
B=${BENCH_DIR:-$(mktemp -d /tmp/genesis-bench.XXXXXX)}
mkdir -p "$B"
B=$(cd "$B" && pwd)

# --- sizes other than the 4096-file tree: bench/large.sh ------------------------------------------
SIZES=${BENCH_SIZES:-4096}
for n in $SIZES; do
    [[ $n == 4096 ]] && continue
    log "large tree: $n files (bench/large.sh)"
    GENESIS_BIN=$G BENCH_DIR=$B BENCH_SEED=$SEED "$HERE/large.sh" "$n"
done
[[ " $SIZES " == *" 4096 "* ]] || exit 0
T=$B/base          # the tree
T2=$B/changed      # the tree with the change set
R=$B/results       # hyperfine JSON, RSS files
E=$B/empty         # an empty working directory (no store, no repository above it)
rm -rf "$R" "$E"
mkdir -p "$R" "$E"

# Git: no user or system configuration, never a repository above the benchmark directory.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_CEILING_DIRECTORIES=$B
export NO_COLOR=1
unset GENESIS_STORE GIT_DIR GIT_WORK_TREE

q() { printf '%q' "$1"; }

# --- trees ------------------------------------------------------------------------------------
# Bump "layout" when gen.py's tree or change output changes.
stamp="seed=$SEED files=$FILES bytes=$BYTES changes=$CHANGES layout=1"
if [[ -f $B/trees.stamp && $(cat "$B/trees.stamp") == "$stamp" && -d $T && -d $T2 ]]; then
    log "reusing the trees in $B ($stamp)"
else
    rm -rf "$T" "$T2" "$B/trees.stamp"
    log "generating $T ($stamp)"
    $GEN tree "$T" --seed "$SEED" --files "$FILES" --bytes "$BYTES" >&2
    log "generating $T2 ($CHANGES files changed)"
    cp -a "$T" "$T2"
    $GEN change "$T2" --seed "$SEED" --count "$CHANGES" > "$B/changed-paths.txt"
    echo "$stamp" > "$B/trees.stamp"
fi
sync

warm() { find "$@" -type f -print0 | xargs -0 cat > /dev/null; }

# --- measuring helpers ------------------------------------------------------------------------
# hf NAME WARMUP RUNS PREPARE COMMAND [extra hyperfine options]
#   Times COMMAND (run from $E); PREPARE ('' for none) runs before every run.
hf() {
    local name=$1 warmup=$2 runs=$3 prepare=$4 cmd=$5
    shift 5
    local opts=(--style basic --warmup "$warmup" --runs "$runs" --export-json "$R/$name.json")
    [[ -n $prepare ]] && opts+=(--prepare "$prepare")
    log "timing $name: $cmd"
    (cd "$E" && hyperfine "${opts[@]}" "$@" -- "$cmd") >&2
}
# median NAME -> "median_s user_s system_s runs"
stats() { $GEN median "$R/$1.json"; }
# hf_pair, spread: Genesis and its reference timed in turn
# shellcheck source=bench/pair.sh
. "$HERE/pair.sh"

# rss NAME PREPARE COMMAND: peak RSS (KiB) of COMMAND, median of 3 runs, each after PREPARE.
rss() {
    local name=$1 prepare=$2 cmd=$3 i
    for i in 1 2 3; do
        [[ -n $prepare ]] && bash -c "$prepare"
        (cd "$E" && /usr/bin/time -f '%M' -o "$R/$name.rss.$i" bash -c "exec $cmd" > /dev/null 2>&1) || true
    done
    cat "$R/$name.rss."{1,2,3} | sort -n | sed -n 2p
}

# --- machine ----------------------------------------------------------------------------------
date_s=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
cpu=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
ncpu=$(nproc)
mem=$(free -g | awk '/^Mem:/ {print $2 " GiB"}')
kernel=$(uname -r)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
gv=$(git --version | cut -d' ' -f3)
ov=$(openssl version | cut -d' ' -f2)
hv=$(hyperfine --version | cut -d' ' -f2)
rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$ROOT" status --porcelain --untracked-files=no -- src Cargo.toml Cargo.lock 2>/dev/null | wc -l)
binsum=$(sha256sum "$G" | cut -c1-12)

GS="$(q "$G")"

# === 1. cold snapshot ==========================================================================
log "row 1: cold snapshot"
warm "$T"
ID1=$("$G" snapshot --no-store --identity "$T")
C_snap="$GS snapshot --no-store --identity $(q "$T")"
C_ssl="find $(q "$T") -type f -print0 | xargs -0 openssl dgst -sha256 > /dev/null"
GA=$B/git-add.git
C_gitadd="GIT_DIR=$(q "$GA") GIT_WORK_TREE=$(q "$T") git init -q && GIT_DIR=$(q "$GA") GIT_WORK_TREE=$(q "$T") git add -A"
hf_pair cold-genesis cold-openssl "$RUNS" '' '' "$C_snap" "$C_ssl"
hf cold-gitadd 0 "$SLOW_RUNS" "rm -rf $(q "$GA")" "$C_gitadd"
rm -rf "$GA"
RSS_cold=$(rss cold '' "$C_snap")

# === 2. no-change snapshot with a store =========================================================
log "row 2: no-change snapshot (store at $B/store, git index at $B/git-status.git)"
ST=$B/store
rm -rf "$ST"
GW="$GS --workspace $(q "$T") --store $(q "$ST")"
eval "$GW init" >&2
first=$(eval "$GW snapshot --identity")
[[ $first == "$ID1" ]] || die "stored snapshot $first differs from the --no-store one $ID1"
GSD=$B/git-status.git
rm -rf "$GSD"
GITS="GIT_DIR=$(q "$GSD") GIT_WORK_TREE=$(q "$T")"
eval "$GITS git init -q && $GITS git add -A && $GITS git -c user.name=bench -c user.email=bench@localhost commit -q -m base"
# Both indexes/caches must be older than git's and Genesis's racy windows (2 s); the store's and
# the repository's new files are written back first.
sync
sleep 3
eval "$GW snapshot --identity" > /dev/null
eval "$GITS git status --porcelain" > /dev/null
C_nochange="$GW snapshot --identity"
C_status="$GITS git status --porcelain"
hf_pair nochange-genesis nochange-git "$RUNS" '' '' "$C_nochange" "$C_status"
RSS_nochange=$(rss nochange '' "$C_nochange")
cache2=$(eval "$GW --json snapshot" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%s of %d files from the stat cache" % (d.get("files_from_cache","n/a (no stat cache in this build)"), len(d["snapshot"]["files"])))')
[[ -z $(eval "$C_status") ]] || die "git status is not clean on the base tree"

# === 3. one file changed (same size) ============================================================
F=$($GEN pick-text "$T" --seed "$SEED")
OFF=100
orig=$(python3 -c "import sys; print(open(sys.argv[1],'rb').read()[$OFF])" "$T/$F")
log "row 3: one file changed ($F, byte $OFF rewritten before every run)"
P_flip="$GEN poke $(q "$T/$F") $OFF $orig"
hf_pair onefile-genesis onefile-git "$RUNS" "$P_flip" "$P_flip" "$C_nochange" "$C_status"
RSS_onefile=$(rss onefile "$P_flip" "$C_nochange")
# 3b: the same file given a content never seen before on every run (the snapshot is new to the
# store: its document and canonical object are written), where row 3 flips between two.
cp -p "$T/$F" "$B/onefile.orig"
P_fresh="$GEN fresh $(q "$T/$F") $OFF"
hf_pair onefresh-genesis onefresh-git "$RUNS" "$P_fresh" "$P_fresh" "$C_nochange" "$C_status"
RSS_onefresh=$(rss onefresh "$P_fresh" "$C_nochange")
cp "$B/onefile.orig" "$T/$F"
eval "$P_flip"
cache3=$(eval "$GW --json snapshot" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%s of %d files from the stat cache" % (d.get("files_from_cache","n/a"), len(d["snapshot"]["files"])))')
n_status=$(eval "$C_status" | wc -l)
$GEN setbyte "$T/$F" "$OFF" "$orig"
[[ $n_status == 1 ]] || die "git status shows $n_status changes after one flip, expected 1"
[[ $("$G" snapshot --no-store --identity "$T") == "$ID1" ]] || die "$T/$F was not restored"

# === 4. apply of the change set ================================================================
log "row 4: apply of $CHANGES changed files"
A=$B/apply
rm -rf "$A"
mkdir -p "$A"
W=$A/ws; S=$A/store; GWK=$A/git-ws
cp -a "$T" "$W"
AW="$GS --workspace $(q "$W") --store $(q "$S")"
eval "$AW init" >&2
SID=$(eval "$AW open")
eval "$AW patch $SID --from $(q "$T2")" >&2
eval "$AW verify $SID" >&2
"$G" diff "$T" "$T2" > "$A/change.diff"
ID2=$("$G" snapshot --no-store --identity "$T2")
cp -a "$W" "$A/ws.pristine"
cp -a "$S" "$A/store.pristine"
P_apply="rm -rf $(q "$W") $(q "$S") && cp -a $(q "$A/ws.pristine") $(q "$W") && cp -a $(q "$A/store.pristine") $(q "$S") && sync"
P_gapply="rm -rf $(q "$GWK") && cp -a $(q "$A/ws.pristine") $(q "$GWK") && sync"
C_apply="$AW apply $SID"
C_gapply="cd $(q "$GWK") && git apply $(q "$A/change.diff")"
hf apply-genesis 1 "$SLOW_RUNS" "$P_apply" "$C_apply"
[[ $("$G" snapshot --no-store --identity "$W") == "$ID2" ]] || die "genesis apply did not produce the changed tree"
hf apply-git 1 "$SLOW_RUNS" "$P_gapply" "$C_gapply"
[[ $("$G" snapshot --no-store --identity "$GWK") == "$ID2" ]] || die "git apply did not produce the changed tree"
RSS_apply=$(rss apply "$P_apply" "$C_apply")
patch_bytes=$(wc -c < "$A/change.diff")
rm -rf "$W" "$S" "$GWK"

# === 5. diff --stat ============================================================================
log "row 5: diff --stat"
warm "$T" "$T2"
C_diff="$GS diff $(q "$T") $(q "$T2") --stat > /dev/null"
C_gdiff="git diff --no-index --stat $(q "$T") $(q "$T2") > /dev/null"
hf_pair diff-genesis diff-git "$RUNS" '' '' "$C_diff" "$C_gdiff" --ignore-failure
RSS_diff=$(rss diff '' "$GS diff $(q "$T") $(q "$T2") --stat")
sum_g=$("$G" diff "$T" "$T2" --stat | tail -1 | sed 's/^ *//')
sum_r=$(cd "$E" && git diff --no-index --stat "$T" "$T2" | tail -1 | sed 's/^ *//' || true)

load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# === report ====================================================================================
# row TITLE GEN_JSON REF_JSON REF_NAME RSS_KIB TARGET_RATIO(Genesis/ref, '' = none) TARGET_TEXT
row() {
    local title=$1 gj=$2 rj=$3 rname=$4 rss_k=$5 tmax=$6 ttext=$7
    read -r gm gu gsys gn < <(stats "$gj")
    read -r rm ru rsys rn < <(stats "$rj")
    local sp
    sp=$(spread "$gj" "$rj")
    python3 - "$title" "$gm" "$gu" "$gsys" "$gn" "$rm" "$ru" "$rsys" "$rn" "$rname" "$rss_k" "$tmax" "$ttext" "$sp" <<'EOF'
import sys
(title, gm, gu, gs, gn, rm, ru, rs, rn, rname, rss_k, tmax, ttext, sp) = sys.argv[1:]
gm, gu, gs, rm, ru, rs = map(float, (gm, gu, gs, rm, ru, rs))
rss = int(rss_k) / 1024
ratio = gm / rm
def t(x):
    return "%.3f s" % x if x >= 0.1 else "%.1f ms" % (x * 1000)
verdict = []
if tmax:
    verdict.append(("time ✅" if ratio <= float(tmax) else "time ❌") + " (" + ttext + ")")
verdict.append("mem ✅" if rss < 64 else "mem ❌")
print("| %s | %s | %s (%s) | %.2f× (%s%s) | %.1f | %s | %s / %s |" % (
    title, t(gm), t(rm), rname, ratio, ("rounds " + sp + "; ") if sp else "",
    ("Genesis %.2f× faster" % (1 / ratio)) if ratio < 1 else ("Genesis %.2f× slower" % ratio),
    rss, "; ".join(verdict), t(gu + gs), t(ru + rs)))
EOF
}

{
echo "## Genesis benchmark results"
echo
echo "- Date: $date_s"
echo "- Machine: $cpu, nproc=$ncpu, $mem RAM, Linux $kernel; load average before $load_before, after $load_after"
echo "- Genesis: $G (sha256 $binsum…), source $rev$([[ $dirty -gt 0 ]] && echo " + $dirty uncommitted changes in src/Cargo")"
echo "- Tools: git $gv, OpenSSL $ov, hyperfine $hv"
echo "- Tree: $FILES files ($((FILES - 1)) generated + genesis.json), $BYTES bytes, seed $SEED, identity \`$ID1\`; change set: $CHANGES text files, diff $patch_bytes bytes"
echo "- Each time is the median of $RUNS runs ($SLOW_RUNS for git add -A and the apply rows); page cache warm. Rows 1a, 2, 3, 3b and 5 time Genesis and the reference in turn (one run of each a round, order swapped every round: bench/pair.sh); \"rounds\" is the spread of the rounds' own ratios. Peak RSS: median of 3 runs of /usr/bin/time -v (max resident set)."
echo "- Ratio = Genesis time ÷ reference time (below 1 = Genesis faster)."
echo "- Stat cache: no-change row $cache2; one-file row $cache3."
echo "- diff summaries: Genesis \`$sum_g\`; git \`$sum_r\`"
echo
echo "| # / operation | Genesis | Reference | Ratio | Genesis peak RSS (MiB) | Targets | CPU user+sys Genesis / reference |"
echo "|---|---|---|---|---|---|---|"
row "1a cold snapshot, $(numfmt --to=iec-i --suffix=B "$BYTES") \`snapshot --no-store\`" cold-genesis cold-openssl "serial \`openssl dgst -sha256\`" "$RSS_cold" 0.625 "≥ 1.6× faster"
row "1b cold snapshot vs git" cold-genesis cold-gitadd "\`git init\` + \`git add -A\`" "$RSS_cold" "" ""
row "2 no-change snapshot (store)" nochange-genesis nochange-git "\`git status --porcelain\`" "$RSS_nochange" 1.0 "no slower"
row "3 one-file-changed snapshot (store)" onefile-genesis onefile-git "\`git status --porcelain\`" "$RSS_onefile" 1.0 "no slower"
row "3b one-file-changed, content new every run (store)" onefresh-genesis onefresh-git "\`git status --porcelain\`" "$RSS_onefresh" 1.0 "no slower"
row "4 \`apply\` of $CHANGES changed files" apply-genesis apply-git "\`git apply\`" "$RSS_apply" 1.5 "within 1.5×"
row "5 \`diff A B --stat\`" diff-genesis diff-git "\`git diff --no-index --stat\`" "$RSS_diff" "" ""
echo
echo "Commands (run from an empty directory; \$B = $B):"
echo
echo '```'
for c in "$C_snap" "$C_ssl" "$C_gitadd" "$C_nochange" "$C_status" "prepare (row 3): $P_flip" "prepare (row 3b): $P_fresh" "$C_apply" "prepare: $P_apply" "$C_gapply" "prepare: $P_gapply" "$C_diff" "$C_gdiff"; do
    echo "${c//$B/\$B}"
done
echo '```'
} | tee "$B/report.md"
log "done; data and results kept in $B (rm -rf it when finished)"
