"""One chat in the window with a real MCP server (tests/mcp_servers/flaky.py over stdio): a tool the server adds
(``tools/list_changed``) is offered and runs in the next turn, and the server killed between two turns is started
again by the next call of its tool."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from desktop_agent.core.settings import McpServerSettings, Settings
from tests.helpers.replies import text_lines, tool_call_lines

ROOT = Path(__file__).resolve().parents[2]


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


def _turn(w, qtbot, ollama_server, text: str, tool: str, arguments: dict) -> str:
    """Send ``text``; the model calls ``tool``; what the model was given back (the last request's messages)."""
    before = len(ollama_server.chat_requests)
    ollama_server.script(tool_call_lines(tool, arguments), text_lines(["done"]))
    w.send(text)
    qtbot.waitUntil(lambda: not w.busy and len(ollama_server.chat_requests) >= before + 2, timeout=90_000)
    return json.dumps(ollama_server.chat_requests[-1]["messages"])


def test_one_window_chat_follows_new_tools_and_starts_a_killed_server_again(make_window, qtbot, ollama_server):
    server = McpServerSettings(name="flaky", command=sys.executable, args=["-m", "tests.mcp_servers.flaky"],
                               cwd=str(ROOT))
    settings = Settings(backend="ollama", ollama_host=ollama_server.url).updated(
        {"mcp.servers": [server.model_dump()], "tools.max_offered": 0})  # every tool offered
    w = make_window(settings)
    w.assembly.permissions.allow_for_run(["flaky__grow", "flaky__added", "flaky__echo"])
    assert "grown" in _turn(w, qtbot, ollama_server, "grow", "flaky__grow", {})
    seen = _turn(w, qtbot, ollama_server, "use the new one", "flaky__added", {})
    offered = [t["function"]["name"] for t in ollama_server.chat_requests[-2].get("tools", [])]
    assert "flaky__added" in offered and "added here" in seen
    [pid] = _flaky_pids()
    os.kill(pid, signal.SIGKILL)
    assert "echo: again" in _turn(w, qtbot, ollama_server, "echo", "flaky__echo", {"text": "again"})
    [new_pid] = _flaky_pids()
    assert new_pid != pid
