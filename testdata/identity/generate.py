#!/usr/bin/env python3
"""Regenerates the identity vectors in this folder, independently of Genesis's Rust code."""
import hashlib
import json

VECTORS = {
    "empty": {},
    "empty-file": {"empty": b""},
    "nested": {"a/b/c/d.txt": b"deep\n", "a/top.txt": b"top\n", "z.txt": b"z"},
    "non-ascii": {"caf\u00e9/na\u00efve.txt": b"accents\n", "\u65e5\u672c/\u8a9e.md": b"# \xe6\x97\xa5\n",
                  "emoji-\U0001f600.txt": b"smile\n", "Zeta.txt": b"upper before lower\n"},
    "spaces-and-quotes": {"dir with space/file name.txt": b"spaces\n", "quote\"d.txt": b"quote\n",
                          "tab-free name.md": b"x\r\ny\r\n"},
    "hidden-and-crlf": {".hidden": b"hidden\n", ".config/settings.json": b"{}\n", "crlf.txt": b"a\r\nb\r\n",
                        "no-newline.txt": b"end"},
}

for name, files in VECTORS.items():
    entries = sorted(({"path": p, "blob": hashlib.sha256(c).hexdigest(), "bytes": len(c)}
                      for p, c in files.items()), key=lambda e: e["path"].encode())
    doc = {"schema": "genesis/workspace-snapshot-v0.1", "files": entries}
    canon = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ident = hashlib.sha256(canon).hexdigest()
    with open(f"{name}.json", "w") as f:
        json.dump({"schema": doc["schema"], "identity": ident, "files": entries}, f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(f"{name}.contents.json", "w") as f:
        json.dump({p: c.hex() for p, c in sorted(files.items())}, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(name, ident)
