#!/usr/bin/env bash
# The MCP transaction driven from Python's `mcp` client package (a second, independent client
# of `genesis mcp`): makes a venv, installs `mcp` from PyPI, runs tests/mcp_python/transaction.py
# against the debug binary. Skips (exit 0, saying so) when PyPI cannot be reached; CI can.
# Usage: tests/mcp_python.sh [GENESIS_BINARY]   (default: builds target/debug/genesis)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-}"
if [ -z "$bin" ]; then
    cargo build --quiet --bin genesis
    bin="${CARGO_TARGET_DIR:-target}/debug/genesis"
fi
bin="$(realpath "$bin")"
venv="$(mktemp -d)"
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check mcp >"$venv/pip.log" 2>&1; then
    if grep -qiE "could not find a version|connection|resolve|network|timed out|No matching distribution" "$venv/pip.log"; then
        echo "mcp_python: SKIPPED: pip cannot reach PyPI to install the mcp package:"
        tail -3 "$venv/pip.log"
        exit 0
    fi
    cat "$venv/pip.log"
    exit 1
fi
echo "mcp_python: mcp $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')"
"$venv/bin/python" tests/mcp_python/transaction.py "$bin"
