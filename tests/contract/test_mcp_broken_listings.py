"""A server's tool list is taken tool by tool, and a server that hangs is given up with a reason the user can act
on — against a hand-written stdio MCP server (tests/mcp_servers/raw.py) that misbehaves where SDK servers cannot,
next to a good SDK server that goes on working."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_agent.core.mcp.manager import FAILED, HEARTBEAT_S, READY, McpManager
from desktop_agent.core.settings import McpServerSettings
from desktop_agent.core.tools.dispatch import dispatch_call
from desktop_agent.core.tools.permissions import Answer, ChatPermissions

ROOT = Path(__file__).resolve().parents[2]
ALLOW = ChatPermissions(None, lambda _request: Answer("once"))


def _raw(mode: str, name: str = "raw") -> McpServerSettings:
    return McpServerSettings(name=name, command=sys.executable, args=["-m", "tests.mcp_servers.raw", mode],
                             cwd=str(ROOT))


@pytest.fixture
def started():
    made: list[McpManager] = []

    def start(*servers: McpServerSettings, timeout: float = 30) -> McpManager:
        manager = McpManager(list(servers), start_timeout_s=timeout)
        made.append(manager)
        manager.start()
        manager.wait_ready(timeout + 30)
        return manager

    yield start
    for manager in made:
        manager.close()


def test_tools_with_bad_schemas_are_repaired_or_left_out_one_by_one(started):
    manager = started(_raw("bad-schemas"))
    [state] = manager.states()
    assert state.state == READY, state.line()
    assert state.tools == ["good", "no_type", "own_ref", "nested_defs"]
    assert state.line() == "raw: ready (4 tools; 3 repaired or left out)"
    assert state.notices == [
        'tool no_type was repaired: its input schema had no type ("object" assumed)',
        "tool not_an_object was left out: its input schema is not a JSON object (str)",
        "entry 6 of its tool list was left out: it has no name",
    ]
    tools = {t.name: t for t in manager.tools()}
    # what the repaired schemas meant survives: the enum of the $ref'd property, the nested object of nested $defs
    own_ref = tools["raw__own_ref"].parameters["properties"]["fallback_unit"]
    assert own_ref == {"type": "string", "enum": ["celsius", "fahrenheit"]}
    point = tools["raw__nested_defs"].parameters["properties"]["where"]["properties"]["point"]
    assert point["required"] == ["lat", "lon"] and point["properties"]["lat"] == {"type": "number"}
    assert "$ref" not in json.dumps(tools["raw__nested_defs"].parameters)
    assert tools["raw__no_type"].parameters["type"] == "object"
    # and they are called
    reply = dispatch_call(tools, "raw__no_type", {"city": "Oslo"}, chat=ALLOW)
    assert reply.content == 'no_type called with {"city": "Oslo"}'


def test_a_server_that_hangs_on_its_tool_list_is_given_up_with_why_and_restarted_on_retry(started):
    flaky = McpServerSettings(name="flaky", command=sys.executable, args=["-m", "tests.mcp_servers.flaky"],
                              cwd=str(ROOT))
    manager = started(_raw("hang-list", "slowlist"), flaky, timeout=8)  # room for a loaded machine's starts
    states = {s.name: s for s in manager.states()}
    hung = states["slowlist"]
    assert hung.state == FAILED
    assert hung.error.startswith("it answered the MCP handshake but not the request for its tools (tools/list) "
                                 "within 8 s")
    assert "Restart it to try again" in hung.error
    assert hung.stderr == ["raw: listing my tools takes a while…"]
    assert states["flaky"].state == READY  # the other server carries on
    manager.restart("slowlist")  # Retry: started again, given up again within the bound
    manager.wait_ready(30)
    assert manager.states()[0].state == FAILED and "tools/list" in manager.states()[0].error


def test_mcp_list_shows_the_notices_and_the_reason(tmp_path):
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    servers = [s.model_dump() for s in (_raw("bad-schemas"), _raw("hang-list", "slowlist"))]
    (home / "config" / "settings.json").write_text(json.dumps({"mcp": {"servers": servers, "start_timeout_s": 6}}))
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    done = subprocess.run([sys.executable, "-m", "desktop_agent", "mcp", "list"], capture_output=True, text=True,
                          timeout=120, env=env, cwd=ROOT, stdin=subprocess.DEVNULL)
    assert done.returncode == 1  # one failed
    assert "raw  [ready (4 tools; 3 repaired or left out)]" in done.stdout
    assert "    ! tool not_an_object was left out: its input schema is not a JSON object (str)" in done.stdout
    assert "slowlist  [failed — it answered the MCP handshake but not the request for its tools" in done.stdout
    assert "ValidationError" not in done.stdout + done.stderr


def test_a_storm_of_list_changes_relists_at_most_once_a_second_and_the_new_tool_is_there(started):
    began = time.monotonic()
    manager = started(_raw("storm"))
    assert manager.states()[0].state == READY
    tools = {t.name: t for t in manager.tools()}
    assert "raw__added" not in tools
    dispatch_call(tools, "raw__storm", {}, chat=ALLOW)  # 50 notifications at once, and a tool added
    deadline = time.monotonic() + 20
    while "added" not in manager.states()[0].tools and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "added" in manager.states()[0].tools
    time.sleep(1.5)  # the paced listing after the storm, if any, is done by now
    tools = {t.name: t for t in manager.tools()}
    listed = int(dispatch_call(tools, "raw__count", {}, chat=ALLOW).content)
    # the first listing, then at most two for the 50 notices (and the idle check's, every HEARTBEAT_S)
    checks = int((time.monotonic() - began) / HEARTBEAT_S)
    assert 2 <= listed <= 3 + checks, (listed, checks)
    assert dispatch_call(tools, "raw__added", {}, chat=ALLOW).content == "added called with {}"
