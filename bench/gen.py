#!/usr/bin/env python3
"""Deterministic benchmark trees for bench/run.sh.

    gen.py tree DIR [--seed N] [--files N] [--bytes N]
        Writes a tree of exactly --files files (the last one is genesis.json, a manifest with
        no obligations and limits wide enough for the benchmark) totalling exactly --bytes
        bytes. Content and layout are a function of the seed only (Python >= 3.9:
        random.Random(seed), randbytes), so two runs with the same seed give the same tree and
        the same snapshot identity.

        Mix (defaults: 4096 files, 1 GiB):
          ~94% small text files (source-like lines, 200 B .. 64 KiB, log-uniform)
          ~5%  medium binary files (64 KiB .. 4 MiB, random bytes)
          32   large binary files, sized so the total is exact (each <= 48 MiB)

    gen.py small DIR [--seed N] [--files N] [--distinct N]
        Writes a tree of exactly --files small source-like text files (60 B .. 8 KiB,
        log-uniform; the last one is genesis.json), 50 files per directory in two levels
        (dNNN/dNN/fNNNNNNN.txt), fast enough for 1,000,000 files. --distinct N (default: every
        file distinct) draws the contents from a pool of N, so a 1M-file tree stores N blobs
        (git and Genesis alike) and the disk needed stays the trees' own 4 KiB blocks.

    gen.py change DIR [--seed N] [--count N]
        Changes --count text files of DIR in place (one line rewritten in the middle of each;
        sizes may change) and prints the changed paths. DIR is normally a copy of a tree.

    gen.py pick-text DIR [--seed N]
        Prints one text file of DIR (relative path), the file run.sh flips a byte in.

    gen.py poke FILE OFFSET ORIG
        Rewrites the byte at OFFSET in place (same size, new mtime/ctime): it alternates
        between two values that both differ from ORIG (the byte in the base tree), so every
        call changes the content and the file never equals the base.

    gen.py fresh FILE OFFSET
        Rewrites the 8 bytes at OFFSET in place with 8 random lowercase hex digits (same size,
        new mtime/ctime): a content never seen before on every call, so a snapshot after it
        is new to the store (row 3b).

    gen.py setbyte FILE OFFSET VALUE
        Writes byte VALUE (0..255) at OFFSET (restores a flipped file).

    gen.py median FILE.json...
        Prints, for each hyperfine --export-json file's first result: the median wall time,
        the mean user and system CPU times (seconds) and the number of runs.
"""

import json
import math
import os
import random
import statistics
import sys

MANIFEST = (
    '{\n'
    '  "schema": "genesis/manifest-v0.1",\n'
    '  "limits": {"max_changed_files": 4096, "max_patch_bytes": 1073741824},\n'
    '  "obligations": []\n'
    '}\n'
)

WORDS = (
    "let mut self fn impl pub struct enum match return if else for while loop break continue "
    "use mod crate super where type trait const static async await move ref dyn unsafe "
    "alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega value index count "
    "buffer reader writer snapshot session patch apply store object digest hasher path tree "
    "Result Option Vec String HashMap BTreeMap Ok Err Some None u8 u32 u64 usize i64 bool"
).split()

LARGE_FILES = 32
LARGE_MAX = 48 << 20


def arg(argv, name, default):
    if name in argv:
        i = argv.index(name)
        return int(argv[i + 1])
    return default


def text_lines(rng, pool, size):
    """Source-like text of exactly `size` bytes, ending in a newline."""
    out = []
    n = 0
    i = 0
    while n < size:
        line = "%5d %s\n" % (i, pool[rng.randrange(len(pool))])
        out.append(line)
        n += len(line)
        i += 1
    s = "".join(out)[:size]
    if size > 0:
        s = s[:-1] + "\n"
    return s.encode("ascii")


def plan(seed, files, total):
    """(relative path, kind, size) of every generated file, genesis.json last."""
    rng = random.Random(seed)
    n = files - 1  # genesis.json is the last file
    n_large = min(LARGE_FILES, max(0, n // 64))
    n_medium = max(0, n // 20)
    n_small = n - n_large - n_medium
    entries = []
    for i in range(n_small):
        size = int(math.exp(rng.uniform(math.log(200), math.log(64 * 1024))))
        mod, sub = i % 64, (i // 64) % 4
        entries.append(("src/mod%02d/sub%d/file%04d.rs" % (mod, sub, i), "text", size))
    for i in range(n_medium):
        size = rng.randrange(64 * 1024, 4 * 1024 * 1024)
        entries.append(("assets/m%02d/blob%04d.bin" % (i % 16, i), "bin", size))
    used = sum(e[2] for e in entries) + len(MANIFEST)
    rest = total - used
    if n_large == 0:
        if rest != 0:
            raise SystemExit("gen.py: cannot reach --bytes without large files; raise --files")
    else:
        if rest < 0 or rest > n_large * LARGE_MAX:
            raise SystemExit("gen.py: --bytes %d not reachable with %d files" % (total, files))
        weights = [rng.uniform(0.6, 1.4) for _ in range(n_large)]
        sizes = [int(rest * w / sum(weights)) for w in weights]
        sizes[-1] += rest - sum(sizes)
        for i, size in enumerate(sizes):
            if size > LARGE_MAX:
                raise SystemExit("gen.py: large file over %d bytes; raise --files" % LARGE_MAX)
            entries.append(("data/large%02d.bin" % i, "bin", size))
    entries.append(("genesis.json", "manifest", len(MANIFEST)))
    return entries


def cmd_tree(argv):
    root = argv[0]
    seed = arg(argv, "--seed", 1)
    files = arg(argv, "--files", 4096)
    total = arg(argv, "--bytes", 1 << 30)
    entries = plan(seed, files, total)
    rng = random.Random(seed * 7919 + 1)
    pool = [
        " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 14))) + ";"
        for _ in range(8192)
    ]
    for rel, kind, size in entries:
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            if kind == "manifest":
                f.write(MANIFEST.encode("ascii"))
            elif kind == "text":
                f.write(text_lines(rng, pool, size))
            else:
                left = size
                while left > 0:
                    chunk = min(left, 8 << 20)
                    f.write(rng.randbytes(chunk))
                    left -= chunk
    got = sum(e[2] for e in entries)
    assert got == total, (got, total)
    print("%d files, %d bytes" % (len(entries), got))


def cmd_small(argv):
    root = argv[0]
    seed = arg(argv, "--seed", 1)
    files = arg(argv, "--files", 100000)
    distinct = arg(argv, "--distinct", 0)
    rng = random.Random(seed * 6151 + 11)
    pool = [
        " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 14))) + ";"
        for _ in range(8192)
    ]
    n = files - 1

    def content(i):
        size = int(math.exp(rng.uniform(math.log(60), math.log(8192))))
        return ("// file %d\n" % i).encode("ascii") + text_lines(rng, pool, size)

    shared = [content(i) for i in range(distinct)] if distinct else None
    total = 0
    made = set()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    for i in range(n):
        d = os.path.join(root, "d%03d" % (i // 5000), "d%02d" % ((i // 50) % 100))
        if d not in made:
            os.makedirs(d, exist_ok=True)
            made.add(d)
        data = shared[rng.randrange(distinct)] if shared else content(i)
        fd = os.open(os.path.join(d, "f%07d.txt" % i), flags, 0o644)
        os.write(fd, data)
        os.close(fd)
        total += len(data)
    with open(os.path.join(root, "genesis.json"), "wb") as f:
        f.write(MANIFEST.encode("ascii"))
    total += len(MANIFEST)
    print("%d files, %d bytes" % (files, total))


def text_files(root):
    out = []
    for dirpath, _dirs, names in os.walk(os.path.join(root, "src")):
        for name in names:
            out.append(os.path.relpath(os.path.join(dirpath, name), root))
    out.sort()
    return out


def cmd_change(argv):
    root = argv[0]
    seed = arg(argv, "--seed", 1)
    count = arg(argv, "--count", 1000)
    rng = random.Random(seed * 104729 + 3)
    # Only files with at least 8 lines, so each change has context on both sides.
    candidates = [p for p in text_files(root) if os.path.getsize(os.path.join(root, p)) >= 1024]
    if len(candidates) < count:
        raise SystemExit("gen.py: only %d text files to change" % len(candidates))
    chosen = sorted(rng.sample(candidates, count))
    for rel in chosen:
        p = os.path.join(root, rel)
        with open(p, "rb") as f:
            lines = f.read().split(b"\n")
        i = len(lines) // 2
        lines[i] = b"%5d changed by the benchmark change set (seed %d)" % (i, seed)
        with open(p, "wb") as f:
            f.write(b"\n".join(lines))
        print(rel)


def cmd_pick_text(argv):
    root = argv[0]
    seed = arg(argv, "--seed", 1)
    files = [p for p in text_files(root) if os.path.getsize(os.path.join(root, p)) >= 4096]
    print(random.Random(seed * 31 + 5).choice(files))


def cmd_poke(argv):
    path, off, orig = argv[0], int(argv[1]), int(argv[2])
    x, y = [c for c in b"xyz" if c != orig][:2]
    with open(path, "r+b") as f:
        f.seek(off)
        b = f.read(1)[0]
        f.seek(off)
        f.write(bytes([y if b == x else x]))


def cmd_fresh(argv):
    path, off = argv[0], int(argv[1])
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(os.urandom(4).hex().encode())


def cmd_setbyte(argv):
    path, off, val = argv[0], int(argv[1]), int(argv[2])
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(bytes([val]))


def cmd_median(argv):
    for p in argv:
        with open(p) as f:
            r = json.load(f)["results"][0]
        print("%.6f %.6f %.6f %d" % (statistics.median(r["times"]), r["user"], r["system"],
                                     len(r["times"])))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    cmd, rest = sys.argv[1], sys.argv[2:]
    {
        "tree": cmd_tree,
        "small": cmd_small,
        "change": cmd_change,
        "pick-text": cmd_pick_text,
        "poke": cmd_poke,
        "fresh": cmd_fresh,
        "setbyte": cmd_setbyte,
        "median": cmd_median,
    }[cmd](rest)


if __name__ == "__main__":
    main()
