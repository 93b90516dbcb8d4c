"""The npm reference server ``@modelcontextprotocol/server-everything`` (pinned in tests/mcp_servers/package.json,
installed by scripts/test.sh with ``npm ci --prefix tests/mcp_servers``): where its command is, and running it
over Streamable HTTP on 127.0.0.1. Missing: the test is skipped, or fails when ``DESKTOP_AGENT_EXPECT_TOOLS=1``."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
EVERYTHING = HERE / "node_modules" / ".bin" / "mcp-server-everything"


def everything_command() -> str:
    """The server's command, or skip (fail when DESKTOP_AGENT_EXPECT_TOOLS=1) saying how to install it."""
    why = ""
    if not EVERYTHING.exists():
        why = (f"{EVERYTHING} is missing (install it: npm ci --prefix tests/mcp_servers --no-audit --no-fund, "
               "as scripts/test.sh does)")
    elif shutil.which("node") is None:
        why = "node is not on PATH (the reference MCP server needs Node.js)"
    if why:
        if os.environ.get("DESKTOP_AGENT_EXPECT_TOOLS") == "1":
            pytest.fail(f"DESKTOP_AGENT_EXPECT_TOOLS=1 but {why}", pytrace=False)
        pytest.skip(why)
    return str(EVERYTHING)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(proc: subprocess.Popen, port: int, name: str, timeout_s: float = 30) -> None:
    """Wait until ``proc`` accepts connections on 127.0.0.1:``port``; RuntimeError (with its stderr, when piped)
    if it exits or ``timeout_s`` passes first."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                raise RuntimeError(f"{name} did not listen on {port}: {err[-500:]}") from None
            time.sleep(0.1)


@contextmanager
def everything_http() -> Iterator[str]:
    """The server over Streamable HTTP; yields its URL ``http://127.0.0.1:PORT/mcp``; stopped afterwards."""
    command = everything_command()
    port = free_port()
    proc = subprocess.Popen([command, "streamableHttp"], env={**os.environ, "PORT": str(port)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_listening(proc, port, "server-everything")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
