"""The SDK test servers of this folder (they speak MCP ``2026-07-28`` to our client, and ``2025-11-25`` to an
older one) as configured servers: over stdio, or over Streamable HTTP on 127.0.0.1 in a process of their own."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from desktop_agent.core.settings import McpServerSettings
from tests.mcp_servers.everything import free_port, wait_listening

ROOT = Path(__file__).resolve().parents[2]


def sdk_stdio(name: str, module: str, *args: str) -> McpServerSettings:
    """``tests.mcp_servers.<module>`` over stdio, configured as server ``name``."""
    return McpServerSettings(name=name, command=sys.executable, args=["-m", f"tests.mcp_servers.{module}", *args],
                             cwd=str(ROOT))


@contextmanager
def sdk_http(name: str, module: str, *args: str) -> Iterator[McpServerSettings]:
    """``tests.mcp_servers.<module>`` over Streamable HTTP (its own process), configured as server ``name``."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", f"tests.mcp_servers.{module}", *args, "--http", str(port)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_listening(proc, port, module, timeout_s=60)
        yield McpServerSettings(name=name, url=f"http://127.0.0.1:{port}/mcp")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
