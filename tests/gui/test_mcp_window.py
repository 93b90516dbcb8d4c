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
