"""The transaction of tests/mcp_server.rs (open -> patch -> verify -> apply, then check),
driven from Python's `mcp` client package against `genesis mcp`: a second, independent
client. Run by tests/mcp_python.sh, which makes the venv; argv: GENESIS_BINARY.
Exits 0 and prints 'N passed, 0 failed' when every step holds."""

import asyncio
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import warnings

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# A relative path is taken from the current directory, before anything changes it.
GENESIS = os.path.abspath(sys.argv[1])
FIX = (
    "diff --git a/greet.txt b/greet.txt\n--- a/greet.txt\n+++ b/greet.txt\n"
    "@@ -1 +1 @@\n-broken\n+fixed\n"
)
passed = 0


def expect(cond, what):
    global passed
    if not cond:
        print(f"FAILED: {what}", file=sys.stderr)
        print(f"{passed} passed, 1 failed")
        sys.exit(1)
    passed += 1


async def main(root: pathlib.Path):
    logs = []

    async def on_log(params):
        logs.append(params.data)

    server = StdioServerParameters(command=GENESIS, args=["mcp", "--workspace", str(root)])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, logging_callback=on_log) as s:
            init = await s.initialize()
            expect(init.server_info.name == "genesis", f"server name {init.server_info}")
            tools = await s.list_tools()
            names = sorted(t.name for t in tools.tools)
            expect(names == ["abort", "apply", "check", "diff", "log", "open", "patch",
                             "rebase", "snapshot", "status", "verify"], f"tools {names}")
            # Logging notifications come once a level is set (logging/setLevel).
            # (Deprecated from protocol 2026-07-28 on, SEP-2577; what earlier clients use.)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await s.set_logging_level("info")

            async def ok(name, args):
                r = await s.call_tool(name, args)
                expect(not r.is_error, f"{name} {args}: {r}")
                return r.structured_content

            opened = await ok("open", {"session": "py1"})
            expect(opened["session"]["status"] == "open", f"open {opened}")
            patched = await ok("patch", {"session": "py1", "diff": FIX})
            expect(patched["changes"] == [{"status": "M", "path": "greet.txt"}], f"patch {patched}")
            verified = await ok("verify", {"session": "py1"})
            expect(verified["record"]["obligations_ok"] is True, f"verify {verified}")
            expect(any(isinstance(l, dict) and l.get("text") == "checking greet.txt\n" for l in logs),
                   f"obligation output streamed as logging: {logs}")
            log = await ok("log", {"session": "py1"})
            expect(log["obligations"][0]["stdout"] == "checking greet.txt\n", f"log {log}")
            applied = await ok("apply", {"session": "py1"})
            expect(applied["written"] is True, f"apply {applied}")
            expect((root / "greet.txt").read_bytes() == b"fixed\n", "workspace changed")
            checked = await ok("check", {"expect": applied["session"]["current_snapshot"]})
            expect(checked["match"] is True, f"check {checked}")
            # A tool error carries kind and exit code.
            r = await s.call_tool("snapshot", {"dir": "../"})
            expect(r.is_error and r.structured_content["kind"] == "bad-input"
                   and r.structured_content["exit_code"] == 2, f"escape refused: {r}")
            # Same document as the CLI's --json.
            status = await ok("status", {"session": "py1"})
            cli = json.loads(subprocess.run([GENESIS, "--json", "status", "py1"], cwd=root,
                                            check=True, capture_output=True).stdout)
            expect(status == cli, "status equals `genesis status --json`")


with tempfile.TemporaryDirectory() as d:
    root = pathlib.Path(d) / "ws"
    root.mkdir()
    (root / "genesis.json").write_text(json.dumps({
        "schema": "genesis/manifest-v0.1",
        "obligations": [{"id": "greet", "timeout_s": 30, "run": [
            "sh", "-c", "echo checking greet.txt; grep -qx fixed greet.txt"]}],
    }))
    (root / "greet.txt").write_text("broken\n")
    subprocess.run([GENESIS, "init"], cwd=root, check=True, capture_output=True)
    asyncio.run(main(root))
    print(f"{passed} passed, 0 failed")
