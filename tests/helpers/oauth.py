"""Sign-in tests' parts: the protected MCP server with its own authorization server (tests/mcp_servers/
oauth_protected.py) run as a process on 127.0.0.1, what it counts, and a stand-in for the user's browser."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.mcp_servers.everything import free_port, wait_listening

ROOT = Path(__file__).resolve().parents[2]


class Browser:
    """What the user's browser does: open the authorization URL, consent (the test server consents at once) and
    follow the redirects to the app's listener on 127.0.0.1. Runs in its own thread like a real browser."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.landed: list[httpx.Response] = []
        self.threads: list[threading.Thread] = []

    def __call__(self, url: str) -> None:
        self.opened.append(url)
        self.visit(url)

    def visit(self, url: str) -> None:
        def go() -> None:
            self.landed.append(httpx.get(url, follow_redirects=True, timeout=30))

        thread = threading.Thread(target=go, daemon=True)
        thread.start()
        self.threads.append(thread)

    def join(self) -> None:
        for thread in self.threads:
            thread.join(30)


@contextlib.contextmanager
def protected_server(*args: str) -> Iterator[str]:
    """Run the protected server (``args``: e.g. ``--client-id ID``); its base URL (the MCP endpoint is ``/mcp``)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tests.mcp_servers.oauth_protected", str(port), *args],
                            cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_listening(proc, port, "the protected MCP server")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def protected() -> Iterator[str]:
    with protected_server() as base:
        yield base


def server_state(base: str) -> dict:
    """What the authorization server counted: registrations, codes, refreshes, revocations, live tokens."""
    return httpx.get(f"{base}/test/state", timeout=10).json()
