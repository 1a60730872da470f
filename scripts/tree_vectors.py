#!/usr/bin/env python3
"""Writes the v0.2 tree test vectors to testdata/tree-v0.2/, independently of Genesis's Rust code.

Python standard library only: hashlib, and a JCS (RFC 8785) writer of its own for the values a
tree node holds (objects with ASCII keys, arrays, strings, integers, booleans).

A tree is a list of files (path, contents, executable). Each directory that holds a member file
below it gets a node {"directories":[{"name","node"}], "files":[{"blob","bytes","executable",
"name"}], "schema":"genesis/tree-v0.2"}, both lists sorted by the UTF-8 bytes of name; a node's
identity is SHA-256 of its JCS bytes; the root's identity is the tree's.

Usage: python3 scripts/tree_vectors.py   (from the repository root)
"""
import hashlib
import json
import os

SCHEMA = "genesis/tree-v0.2"


def jcs(value):
    """RFC 8785 canonical JSON for str, int, bool, list and dict (no floats)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        out = ['"']
        for ch in value:
            c = ord(ch)
            if ch == '"':
                out.append('\\"')
            elif ch == "\\":
                out.append("\\\\")
            elif ch == "\b":
                out.append("\\b")
            elif ch == "\f":
                out.append("\\f")
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\r":
                out.append("\\r")
            elif ch == "\t":
                out.append("\\t")
            elif c < 0x20:
                out.append("\\u%04x" % c)
            else:
                out.append(ch)
        out.append('"')
        return "".join(out)
    if isinstance(value, list):
        return "[" + ",".join(jcs(v) for v in value) + "]"
    if isinstance(value, dict):
        # RFC 8785 3.2.3: members sorted by the UTF-16 code units of their names.
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(jcs(k) + ":" + jcs(value[k]) for k in keys) + "}"
    raise TypeError(type(value))


def build(files):
    """files: {path: (bytes, executable)} -> (root identity, {dir path: (identity, canonical)})."""
    tree = {}  # nested dicts: name -> dict (directory) or (contents, executable)
    for path, entry in files.items():
        parts = path.split("/")
        d = tree
        for p in parts[:-1]:
            d = d.setdefault(p, {})
        d[parts[-1]] = entry
    nodes = {}

    def node(d, dirpath):
        dirs, fs = [], []
        for name, v in d.items():
            if isinstance(v, dict):
                sub = name if not dirpath else dirpath + "/" + name
                dirs.append({"name": name, "node": node(v, sub)})
            else:
                data, exe = v
                fs.append({"blob": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                           "executable": exe, "name": name})
        dirs.sort(key=lambda e: e["name"].encode("utf-8"))
        fs.sort(key=lambda e: e["name"].encode("utf-8"))
        canon = jcs({"directories": dirs, "files": fs, "schema": SCHEMA})
        ident = hashlib.sha256(canon.encode("utf-8")).hexdigest()
        nodes[dirpath] = (ident, canon)
        return ident

    root = node(tree, "")
    return root, nodes


VECTORS = {
    "empty": {},
    # Full-path order a.b < a/b < a0, but per-directory order a < a.b < a0.
    "order-trap": {"a.b": (b"dot\n", False), "a/b": (b"slash\n", False), "a0": (b"zero\n", False)},
    "non-ascii": {"caf\u00e9/na\u00efve.txt": (b"accents\n", False),
                  "\u65e5\u672c/\u8a9e.md": (b"# \xe6\x97\xa5\n", False),
                  "emoji-\U0001f600.txt": (b"smile\n", False), "Zeta.txt": (b"upper\n", False),
                  "quote\"d.txt": (b"quote\n", False)},
    "executable": {"bin/run.sh": (b"#!/bin/sh\necho hi\n", True), "bin/lib.txt": (b"lib\n", False),
                   "README": (b"", False)},
    "not-executable": {"bin/run.sh": (b"#!/bin/sh\necho hi\n", False), "bin/lib.txt": (b"lib\n", False),
                       "README": (b"", False)},
    "deep": {"a/b/c/d/e.txt": (b"deep\n", False), "a/b/x.txt": (b"x\n", True), "a/top.txt": (b"top\n", False),
             "z.txt": (b"z", False)},
}


def main():
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "tree-v0.2")
    os.makedirs(out_dir, exist_ok=True)
    for name, files in VECTORS.items():
        root, nodes = build(files)
        doc = {
            "files": [{"path": p, "contents": d.hex(), "executable": e}
                      for p, (d, e) in sorted(files.items(), key=lambda kv: kv[0].encode("utf-8"))],
            "root": root,
            "nodes": [{"dir": k, "identity": i, "canonical": c}
                      for k, (i, c) in sorted(nodes.items(), key=lambda kv: kv[0].encode("utf-8"))],
        }
        with open(os.path.join(out_dir, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2, ensure_ascii=False)
            f.write("\n")
        print(name, root)


if __name__ == "__main__":
    main()
