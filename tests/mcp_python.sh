#!/usr/bin/env bash
# The MCP transaction driven from Python's `mcp` client package (a second, independent client
# of `genesis mcp`): makes a venv, installs `mcp` ($MCP_VERSION exactly) from PyPI, runs
# tests/mcp_python/transaction.py against the debug binary. Skips (exit 0, saying so) only when
# pip's log shows a network failure (PyPI unreachable); any other install failure (a version
# that does not exist, "No matching distribution" without a network error) fails.
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
# The one version this test was written against; raise it deliberately.
MCP_VERSION=2.3.0
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_VERSION" >"$venv/pip.log" 2>&1; then
    if grep -qE "NewConnectionError|Max retries exceeded|Temporary failure in name resolution|Name or service not known|Network is unreachable|Connection refused|ConnectTimeoutError|ReadTimeoutError|ProxyError" "$venv/pip.log"; then
        echo "mcp_python: SKIPPED: pip cannot reach PyPI to install the mcp package:"
        tail -3 "$venv/pip.log"
        exit 0
    fi
    cat "$venv/pip.log"
    exit 1
fi
echo "mcp_python: mcp $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')"
"$venv/bin/python" tests/mcp_python/transaction.py "$bin"
