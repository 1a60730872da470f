#!/usr/bin/env bash
# Runs each fuzz target in turn on one core and keeps libFuzzer's log in fuzz/logs/<target>.log.
# Usage: fuzz/run_all.sh [SECONDS_PER_TARGET] [TARGET...]   (default 300 s, all four targets)
# Extra cargo-fuzz build flags can be given in CARGO_FUZZ_FLAGS (default: -O).
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-300}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(patch_apply patch_apply_structured path_validate snapshot_document)
mkdir -p logs
for t in "${targets[@]}"; do
    case "$t" in
        patch_apply*) max_len=65536 ;;
        path_validate) max_len=1024 ;;
        *) max_len=16384 ;;
    esac
    mkdir -p "corpus/$t"
    # -jobs=1 -workers=1 runs one child process whose output goes to ./fuzz-0.log.
    RUSTC_BOOTSTRAP=1 cargo fuzz run ${CARGO_FUZZ_FLAGS:--O} "$t" "corpus/$t" "seeds/$t" -- \
        -jobs=1 -workers=1 -rss_limit_mb=2048 -timeout=10 -max_len="$max_len" \
        -max_total_time="$secs" -print_final_stats=1 || true
    mv fuzz-0.log "logs/$t.log"
    echo "== $t"; grep -E "^(Done|stat::|==.*ERROR|SUMMARY|artifact_prefix|Test unit written)" "logs/$t.log" || true
done
