"""The assembly's MCP servers as the window follows them: watchers hear each state change and a replacement,
and once the assembly is closed no background call can start servers again."""

from __future__ import annotations

import threading

from desktop_agent.core.assembly import Assembly
from desktop_agent.core.settings import McpServerSettings, Settings


def settings_with(*names: str) -> Settings:
    servers = [McpServerSettings(name=n, command=f"/nonexistent/{n}").model_dump() for n in names]
    return Settings().updated({"mcp.servers": servers})


def test_watchers_hear_state_changes_and_replacements_until_they_stop():
    assembly = Assembly()
    heard: list[object] = []
    failed = threading.Event()

    def watcher(state):
        heard.append(state)
        if state is not None and state.state == "failed":
            failed.set()

    unwatch = assembly.watch_mcp(watcher)
    try:
        manager = assembly.mcp(settings_with("a"))
        assert manager is not None and assembly.current_mcp() is manager
        assert failed.wait(30)
        assert None in heard  # the servers were (re)placed
        assert [s.state for s in heard if s is not None][-1] == "failed"
        unwatch()
        count = len(heard)
        assembly.mcp(settings_with("b"))
        assert len(heard) == count
    finally:
        assembly.close()


def test_no_servers_start_after_the_assembly_closed():
    assembly = Assembly()
    assembly.close()
    assert assembly.mcp(settings_with("late")) is None
    assert assembly.current_mcp() is None
