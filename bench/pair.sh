# Sourced by run.sh and large.sh: time Genesis and its reference in turn, not one after the
# other, so that a drift in the machine's speed (page cache writeback after a tree is built,
# other load) falls on both alike. Needs R (results directory), E (an empty working directory)
# and log() from the caller.
#
# hf_pair NAME_A NAME_B ROUNDS PREPARE_A PREPARE_B COMMAND_A COMMAND_B [hyperfine options]
#   ROUNDS rounds, each one hyperfine call with both commands: one warm-up run and one timed run
#   of each, A before B in odd rounds and B before A in even ones. PREPARE_X ('' for none) runs
#   before each of X's runs. Writes $R/NAME_A.json and $R/NAME_B.json in hyperfine's shape (the
#   times of every round; user and system their means) and $R/NAME_A.vs.NAME_B.rounds, each
#   round's A/B wall-time ratio, one a line.
hf_pair() {
    local na=$1 nb=$2 rounds=$3 pa=$4 pb=$5 ca=$6 cb=$7 i
    shift 7
    log "timing $na against $nb in turn, $rounds rounds: $ca | $cb"
    for ((i = 1; i <= rounds; i++)); do
        local opts=(--style none --warmup 1 --runs 1 --export-json "$R/$na.round$i.json")
        local cmds=("$ca" "$cb") preps=("${pa:-true}" "${pb:-true}")
        if ((i % 2 == 0)); then cmds=("$cb" "$ca"); preps=("${pb:-true}" "${pa:-true}"); fi
        (cd "$E" && hyperfine "${opts[@]}" --prepare "${preps[0]}" --prepare "${preps[1]}" "$@" \
            -- "${cmds[0]}" "${cmds[1]}") >&2
    done
    python3 - "$R" "$na" "$nb" "$rounds" "$ca" <<'EOF'
import json, statistics, sys
r, na, nb, rounds, ca = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
runs = {na: [], nb: []}
ratios = []
for i in range(1, rounds + 1):
    res = json.load(open("%s/%s.round%d.json" % (r, na, i)))["results"]
    a, b = (res[0], res[1]) if res[0]["command"] == ca else (res[1], res[0])
    runs[na].append(a)
    runs[nb].append(b)
    ratios.append(a["times"][0] / b["times"][0])
for name, rs in runs.items():
    times = [t for x in rs for t in x["times"]]
    out = {"results": [{"command": rs[0]["command"], "times": times,
                        "median": statistics.median(times),
                        "user": statistics.mean(x["user"] for x in rs),
                        "system": statistics.mean(x["system"] for x in rs)}]}
    json.dump(out, open("%s/%s.json" % (r, name), "w"))
open("%s/%s.vs.%s.rounds" % (r, na, nb), "w").write("".join("%.4f\n" % x for x in ratios))
EOF
    log "$na / $nb by round: $(tr '\n' ' ' < "$R/$na.vs.$nb.rounds")"
}

# spread NAME_A NAME_B: "min–max" of the per-round ratios hf_pair wrote for the two, or "" if
# they were not timed in turn.
spread() {
    [[ -f $R/$1.vs.$2.rounds ]] || return 0
    sort -n "$R/$1.vs.$2.rounds" | sed -n '1p;$p' | tr '\n' ' ' | awk '{printf "%.2f–%.2f", $1, $2}'
}
