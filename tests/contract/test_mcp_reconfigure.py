"""Changing one MCP server's settings restarts that server only: the others keep their process, session and tools
(real servers: ``mcp-server-time`` from PyPI and tests/mcp_servers/flaky.py; their processes seen in /proc)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from desktop_agent.core.assembly import Assembly
from desktop_agent.core.mcp.manager import READY
from desktop_agent.core.settings import McpServerSettings, Settings
from tests.helpers.processes import children_running

ROOT = Path(__file__).resolve().parents[2]
TIME_SERVER = shutil.which("mcp-server-time") or str(Path(sys.executable).with_name("mcp-server-time"))


def _settings(*servers: McpServerSettings) -> Settings:
    return Settings().updated({"mcp.servers": [s.model_dump() for s in servers]})


def _ready(assembly: Assembly, settings: Settings) -> dict[str, str]:
    manager = assembly.mcp(settings)
    assert manager is not None
    states = {s.name: s.state for s in manager.wait_ready(60)}
    assert set(states.values()) == {READY}, manager.states()
    return states


def test_changing_one_server_restarts_only_that_one():
    time_server = McpServerSettings(name="time", command=TIME_SERVER, args=["--local-timezone", "UTC"])
    flaky = McpServerSettings(name="flaky", command=sys.executable, args=["-m", "tests.mcp_servers.flaky"],
                              cwd=str(ROOT))
    assembly = Assembly()
    try:
        _ready(assembly, _settings(time_server, flaky))
        manager = assembly.current_mcp()
        time_pids, flaky_pids = children_running("mcp-server-time"), children_running("tests.mcp_servers.flaky")
        assert len(time_pids) == 1 and len(flaky_pids) == 1
        # the user edits flaky (an environment variable) and saves
        changed = flaky.model_copy(update={"env": {"FLAKY_MODE": "edited"}})
        _ready(assembly, _settings(time_server, changed))
        assert assembly.current_mcp() is manager
        assert children_running("mcp-server-time") == time_pids  # untouched
        new_flaky = children_running("tests.mcp_servers.flaky")
        assert len(new_flaky) == 1 and new_flaky != flaky_pids  # started again
        assert {t.server for t in manager.tools()} == {"time", "flaky"}
        # a server added starts; one removed stops; the other still goes on
        extra = McpServerSettings(name="extra", command=TIME_SERVER)
        _ready(assembly, _settings(time_server, extra))
        assert time_pids[0] in children_running("mcp-server-time")
        assert len(children_running("mcp-server-time")) == 2
        assert children_running("tests.mcp_servers.flaky") == []
        assert [s.name for s in manager.states()] == ["time", "extra"]
    finally:
        assembly.close()
    assert children_running("mcp-server-time") == []
