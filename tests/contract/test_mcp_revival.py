"""A server that died is started again on its next use, against real servers (tests/mcp_servers/flaky.py): over
stdio its process killed between two calls, over Streamable HTTP the server stopped and started again (a new
session); the attempts are bounded and the reason says when they are spent; Restart counts again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_agent.core.mcp.manager import FAILED, READY, McpCallFailed, McpManager
from desktop_agent.core.mcp.revival import MAX_ATTEMPTS
from tests.mcp_servers.everything import free_port, wait_listening
from tests.mcp_servers.sdk import sdk_stdio

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def managers():
    made: list[McpManager] = []

    def make(*servers, **kwargs) -> McpManager:
        manager = McpManager(list(servers), start_timeout_s=60, call_timeout_s=60, **kwargs)
        made.append(manager)
        manager.start()
        manager.wait_ready(90)
        return manager

    yield make
    for manager in made:
        manager.close()


def _flaky_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state, ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, ValueError):
            continue
        if "tests.mcp_servers.flaky" in cmd and int(ppid) == os.getpid() and state not in ("Z", "X"):
            pids.append(int(entry.name))
    return pids


def _text(result) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


def test_a_killed_stdio_server_is_started_again_by_its_next_call(managers):
    manager = managers(sdk_stdio("flaky", "flaky"))
    assert manager.states()[0].state == READY
    assert _text(manager.call("flaky", "echo", {"text": "one"})) == "echo: one"
    [pid] = _flaky_pids()
    os.kill(pid, signal.SIGKILL)
    # noticed (by the check of an idle server) or not: its tools are still offered, so the model can use them
    deadline = time.monotonic() + 30
    while manager.states()[0].state == READY and time.monotonic() < deadline:
        time.sleep(0.1)
    assert manager.states()[0].state in (FAILED, "stopped")
    assert "flaky__echo" in [t.name for t in manager.tools()]
    assert _text(manager.call("flaky", "echo", {"text": "two"})) == "echo: two"
    [new_pid] = _flaky_pids()
    assert new_pid != pid and manager.states()[0].state == READY


def test_a_server_killed_just_before_a_call_answers_it_after_a_new_start(managers):
    manager = managers(sdk_stdio("flaky", "flaky"))
    [pid] = _flaky_pids()
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)  # the process is gone; the idle check (every 5 s) has not run: the call finds out itself
    assert _text(manager.call("flaky", "echo", {"text": "now"})) == "echo: now"


def test_attempts_are_bounded_and_the_reason_says_so_and_restart_counts_again(managers):
    manager = managers(sdk_stdio("flaky", "flaky"))
    started = time.monotonic()
    for _ in range(MAX_ATTEMPTS + 1):  # the first start and MAX_ATTEMPTS new ones, each killed by its call
        with pytest.raises(McpCallFailed, match="stopped during the call of die; it is started again"):
            manager.call("flaky", "die", {})
    assert time.monotonic() - started >= 2.0 + 5.0 - 0.5  # spaced by the backoff
    with pytest.raises(McpCallFailed, match="not started again automatically"):
        manager.call("flaky", "echo", {"text": "x"})
    [state] = manager.states()
    assert state.state == FAILED and "started again 3 times" in state.error and "Restart" in state.error
    assert "dying now" in state.stderr  # its output is still shown
    assert manager.tools() == []  # given up: its tools are no longer offered
    manager.restart("flaky")
    manager.wait_ready(90)
    assert _text(manager.call("flaky", "echo", {"text": "back"})) == "echo: back"


def test_a_stopped_server_stays_stopped(managers):
    manager = managers(sdk_stdio("flaky", "flaky"))
    manager._stop_one(manager._servers["flaky"], timeout_s=10)  # as Settings does when a server is removed
    with pytest.raises(McpCallFailed, match="not available"):
        manager.call("flaky", "echo", {"text": "x"})
    assert _flaky_pids() == []


def _http_flaky(port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "tests.mcp_servers.flaky", "--http", str(port)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_listening(proc, port, "flaky", timeout_s=60)
    return proc


def _stop(proc: subprocess.Popen) -> None:
    """Stop the server (asked first; uvicorn may wait for our open event stream, then it is killed)."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(30)


def test_a_restarted_remote_server_is_reconnected(managers):
    from desktop_agent.core.settings import McpServerSettings

    port = free_port()
    proc = _http_flaky(port)
    try:
        manager = managers(McpServerSettings(name="remote", url=f"http://127.0.0.1:{port}/mcp"))
        assert _text(manager.call("remote", "echo", {"text": "one"})) == "echo: one"
        _stop(proc)
        with pytest.raises(McpCallFailed):  # gone
            manager.call("remote", "echo", {"text": "down"})
        assert manager.states()[0].state == FAILED
        proc = _http_flaky(port)  # back (a new process, none of the old sessions): the next call reconnects
        assert _text(manager.call("remote", "echo", {"text": "two"})) == "echo: two"
        assert manager.states()[0].state == READY
    finally:
        _stop(proc)
