"""The window starts the configured MCP servers in the background after it shows (start-up does not wait for
them) and a turn offers their tools; closing the window stops them."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from desktop_agent.core.settings import McpServerSettings, Settings

TIME_SERVER = shutil.which("mcp-server-time") or str(Path(sys.executable).with_name("mcp-server-time"))


def test_the_window_starts_mcp_servers_and_offers_their_tools(make_window, qtbot, ollama_server):
    settings = Settings(backend="ollama", ollama_host=ollama_server.url).updated(
        {"mcp.servers": [McpServerSettings(name="time", command=TIME_SERVER).model_dump()]})
    w = make_window(settings)
    qtbot.waitUntil(lambda: w.assembly._mcp is not None, timeout=10_000)
    manager = w.assembly._mcp
    qtbot.waitUntil(lambda: manager.states()[0].state == "ready", timeout=60_000)
    names = [t.name for t in w.assembly.available_tools(settings)]
    assert "time__get_current_time" in names
    w.close()
    assert manager._closed


def _slow_server(seconds: float) -> McpServerSettings:
    """The flaky test server, after ``seconds`` of starting up."""
    root = Path(__file__).resolve().parents[2]
    return McpServerSettings(name="slow", command=sys.executable, cwd=str(root), args=[
        "-c", f"import time, runpy; time.sleep({seconds}); "
              "runpy.run_module('tests.mcp_servers.flaky', run_name='__main__')"])


def test_a_message_sent_while_a_server_starts_waits_for_its_tools(make_window, qtbot, ollama_server):
    settings = Settings(backend="ollama", ollama_host=ollama_server.url).updated(
        {"mcp.servers": [_slow_server(2).model_dump()], "tools.max_offered": 0})  # every tool offered
    w = make_window(settings)
    notices = []
    w.runner.turn_event.connect(lambda ev: notices.append(getattr(ev, "text", None)))
    w.send("hello")
    qtbot.waitUntil(lambda: not w.busy and bool(ollama_server.chat_requests), timeout=60_000)
    assert "waiting for MCP server slow…" in notices
    offered = [t["function"]["name"] for t in ollama_server.chat_requests[0].get("tools", [])]
    assert "slow__echo" in offered  # the first turn offered the server's tools


def test_stop_ends_the_wait_for_a_starting_server(make_window, qtbot, ollama_server):
    settings = Settings(backend="ollama", ollama_host=ollama_server.url).updated(
        {"mcp.servers": [_slow_server(30).model_dump()]})
    w = make_window(settings)
    w.send("hello")
    qtbot.waitUntil(lambda: w.busy, timeout=5000)
    qtbot.waitUntil(lambda: "waiting for MCP server slow" in w.statusBar().currentMessage(), timeout=10_000)
    # found by a new-user trial: the user's message must show while the turn waits, not only after it
    from desktop_agent.ui.chat.turn import UserBubble

    assert [b.message.content for b in w.chat.blocks if isinstance(b, UserBubble)] == ["hello"]
    w.stop()
    qtbot.waitUntil(lambda: not w.busy, timeout=10_000)  # well before the server's 30 s
    assert ollama_server.chat_requests == []
    assert [m.content for m in w.conversation.messages if m.role == "user"] == ["hello"]  # the message is kept
    assert [b.message.content for b in w.chat.blocks if isinstance(b, UserBubble)] == ["hello"]  # shown once
