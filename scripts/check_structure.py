#!/usr/bin/env python3
"""Structure rules of the crate (issue 10), checked from the source text alone:

1. no import circle between the top-level modules of `src/` (a module is a file `src/x.rs` or
   a folder `src/x/`; an edge is any `crate::x` path outside comments and unit-test modules);
2. no source file over 800 lines;
3. no function over 120 lines (from its `fn` line to the closing brace at the same indent),
   except in files listed in TABLES (render tables of data).

Usage: `python3 scripts/check_structure.py [SRC_DIR]`. Prints the module graph's circles, the
files and functions over the limits, and a line count per module; exits 1 if any rule fails.
"""
import os
import re
import sys

MAX_FILE_LINES = 800
MAX_FN_LINES = 120
# Files whose long functions are tables of data (one match arm per event kind and dialect).
TABLES = {"events/genesis.rs", "events/bpt.rs", "events/orbiplex.rs", "events/aps.rs"}

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
root = os.path.normpath(root)


def module_of(path):
    parts = os.path.relpath(path, root)[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts[0] if parts else "crate"


def code_of(text):
    lines = [l for l in text.split("\n") if not l.lstrip().startswith("//")]
    return "\n".join(lines).split("#[cfg(test)]\nmod tests")[0]


edges, sizes, failures = {}, {}, []
for d, _, files in os.walk(root):
    for f in sorted(files):
        if not f.endswith(".rs"):
            continue
        p = os.path.join(d, f)
        rel = os.path.relpath(p, root)
        text = open(p, encoding="utf-8").read()
        lines = text.split("\n")
        n = len(lines) - (1 if text.endswith("\n") else 0)
        m = module_of(p)
        sizes[m] = sizes.get(m, 0) + n
        if n > MAX_FILE_LINES:
            failures.append(f"{rel}: {n} lines (limit {MAX_FILE_LINES})")
        if rel not in TABLES:
            for i, l in enumerate(lines):
                fm = re.match(r"^(\s*)(pub(\([a-z:]+\))?\s+)?(const\s+)?(async\s+)?fn\s+(\w+)", l)
                if not fm or l.rstrip().endswith(";"):
                    continue
                ind, j = fm.group(1), i
                while j < len(lines) and not (lines[j] == ind + "}" or (j == i and lines[j].rstrip().endswith("}"))):
                    j += 1
                if j - i + 1 > MAX_FN_LINES:
                    failures.append(f"{rel}:{i + 1}: fn {fm.group(6)}: {j - i + 1} lines (limit {MAX_FN_LINES})")
        if f == "tests.rs":
            continue
        code = code_of(text)
        deps = set(re.findall(r"crate::(\w+)", code))
        for group in re.findall(r"use crate::\{([^;]*)\};", code, re.S):
            depth, tok = 0, ""
            for ch in group:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                elif ch == "," and depth == 0:
                    deps.add(tok.strip().split("::")[0])
                    tok = ""
                    continue
                if depth == 0:
                    tok += ch
            if tok.strip():
                deps.add(tok.strip().split("::")[0])
        deps.discard(m)
        deps.discard("")
        edges.setdefault(m, set()).update(deps)

# Strongly connected components (Tarjan): each with more than one module is a circle.
index, low, stack, on, circles, counter = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            circles.append(sorted(comp))


for v in list(edges):
    if v not in index:
        visit(v)
for comp in circles:
    links = "; ".join(f"{a} -> {', '.join(sorted(edges[a] & set(comp)))}" for a in comp)
    failures.append(f"import circle: {' <-> '.join(comp)} ({links})")

for m in sorted(sizes, key=lambda k: -sizes[k]):
    print(f"{sizes[m]:6} {m}")
if not circles:
    print("no import circles")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
