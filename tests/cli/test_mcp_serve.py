"""``desktop-agent mcp serve`` driven as a real subprocess by the MCP SDK's own client over stdio: our tools listed
with the schemas the model gets and their hints, a call answered, a saved deny rule and an "ask" tool refused
(the tool did not run), elicitation asked when the client offers it, a tool's prints kept off the protocol, a
cancelled call stopped and audited, and the process gone once the client closes stdin."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from desktop_agent.core import paths
from desktop_agent.core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]

TOOLS = '''
import time
from pathlib import Path

from desktop_agent import tool


@tool(read_only=True)
def shout(text: str) -> str:
    """Upper-case the text."""
    print("a line a tool printed on stdout")
    print('{"jsonrpc": "2.0", "id": 1, "result": {}}')
    return text.upper()


@tool
def touch(path: str) -> str:
    """Create the file at path."""
    Path(path).write_text("made", encoding="utf-8")
    return "made"


@tool(requires_approval=True)
def careful(path: str) -> str:
    """Create the file at path, after the user's approval."""
    Path(path).write_text("made", encoding="utf-8")
    return "careful made it"


@tool(destructive=True)
def wipe(name: str) -> str:
    """Pretend to delete something."""
    return "wiped " + name


@tool
def slow(marker: str) -> str:
    """Write marker, then work until stopped."""
    Path(marker).write_text("started", encoding="utf-8")
    while True:
        time.sleep(0.05)
'''


@pytest.fixture
def setup(tmp_path):
    home = tmp_path / "home"
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "served.py").write_text(textwrap.dedent(TOOLS), encoding="utf-8")
    paths.set_home(home)  # the store this process reads is the server's (conftest puts it back)
    return home, tools


@asynccontextmanager
async def serving(home: Path, tools: Path, *extra: str, **client_options) -> AsyncIterator[Client]:
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "desktop_agent", "mcp", "serve", "--tools-dir", str(tools), *extra],
                                   env=env)
    async with Client(stdio_client(params), **client_options) as client:
        yield client


def _text(result: types.CallToolResult) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def _audit() -> list:
    from desktop_agent.core.store import ConversationStore
    from desktop_agent.core.store.toolcalls import MCP_CLIENT, ToolAudit

    store = ConversationStore()
    try:
        return ToolAudit(store).calls_from(MCP_CLIENT)
    finally:
        store.close()


def test_our_tools_are_listed_with_the_schemas_the_model_gets_and_a_call_answers(setup):
    home, tools = setup
    from desktop_agent.core.assembly import build_registry

    registry, _problems = build_registry(Settings().updated({"tools.isolated": False}), [str(tools)])
    expected = {t.name: t.parameters for t in registry}

    async def go():
        async with serving(home, tools) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            result = await client.call_tool("shout", {"text": "hello"})
            return listed, result

    listed, result = anyio.run(go)
    assert set(listed) == set(expected)  # ours (shipped and the folder's), nothing else
    assert {"shout", "touch", "careful", "calculator"} <= set(listed)
    assert all(listed[name].input_schema == schema for name, schema in expected.items())
    assert listed["shout"].annotations.read_only_hint is True
    assert listed["shout"].annotations.destructive_hint is False
    assert listed["wipe"].annotations.destructive_hint is True
    assert listed["touch"].annotations.read_only_hint is False
    # the tool printed a JSON-RPC-looking line on stdout: the client still got its answer
    assert result.is_error is False and _text(result) == "HELLO"
    calls = _audit()
    assert [(c.tool, c.status, c.source, c.decision) for c in calls] == [("shout", "ok", "mcp client", "allow")]


def test_a_call_denied_by_a_saved_rule_is_an_error_result_and_the_tool_does_not_run(setup, tmp_path):
    home, tools = setup
    from desktop_agent.core.store import ConversationStore
    from desktop_agent.core.store.rules import ToolRules
    from desktop_agent.core.tools.permissions import Rule, Scope

    store = ConversationStore()
    rule = ToolRules(store).save(Rule(0, "touch", Scope("tool"), "deny"))
    store.close()
    target = tmp_path / "should-not-exist.txt"

    async def go():
        async with serving(home, tools) as client:
            return await client.call_tool("touch", {"path": str(target)})

    result = anyio.run(go)
    assert result.is_error is True
    assert "a rule denies" in _text(result) and "touch" in _text(result)
    assert not target.exists()
    [call] = _audit()
    assert (call.tool, call.status, call.decision, call.decided_by, call.rule_id) == (
        "touch", "denied", "deny", "rule", rule.id)


def test_an_ask_tool_is_denied_with_how_to_allow_it_and_allow_tool_lets_it_run(setup, tmp_path):
    home, tools = setup
    target = tmp_path / "careful.txt"

    async def go(*extra):
        async with serving(home, tools, *extra) as client:
            return await client.call_tool("careful", {"path": str(target)})

    denied = anyio.run(go)
    assert denied.is_error is True
    text = _text(denied)
    assert "needs the user's approval" in text
    assert "Settings → Tools → Permissions" in text and "--allow-tool careful" in text
    assert not target.exists()
    allowed = anyio.run(go, "--allow-tool", "careful")
    assert allowed.is_error is False and _text(allowed) == "careful made it" and target.exists()
    assert [c.status for c in _audit()] == ["denied", "ok"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])  # 2026-07-28: an input request; before: a request to the client
def test_a_client_with_elicitation_is_asked(setup, tmp_path, mode):
    home, tools = setup
    asked: list[str] = []

    async def answer(context, params):
        asked.append(params.message)
        choice = "deny" if "no.txt" in params.message else "once"
        return types.ElicitResult(action="accept", content={"answer": choice})

    async def go():
        async with serving(home, tools, elicitation_callback=answer, mode=mode) as client:
            yes = await client.call_tool("careful", {"path": str(tmp_path / "yes.txt")})
            no = await client.call_tool("careful", {"path": str(tmp_path / "no.txt")})
            return yes, no

    yes, no = anyio.run(go)
    assert len(asked) == 2 and "careful" in asked[0]
    assert yes.is_error is False and (tmp_path / "yes.txt").exists()
    assert no.is_error is True and not (tmp_path / "no.txt").exists()
    assert [(c.status, c.decided_by) for c in _audit()] == [("ok", "user"), ("denied", "user")]


def test_a_cancelled_call_stops_the_tool_and_is_audited(setup, tmp_path):
    home, tools = setup
    marker = tmp_path / "started"

    async def go():
        async with serving(home, tools) as client:
            async with anyio.create_task_group() as tg:
                async def call():
                    await client.call_tool("slow", {"marker": str(marker)})

                tg.start_soon(call)
                while not marker.exists():  # the tool is running
                    await anyio.sleep(0.05)
                tg.cancel_scope.cancel()  # the SDK sends notifications/cancelled
            return await client.call_tool("shout", {"text": "still here"})

    after = anyio.run(go)
    assert _text(after) == "STILL HERE"
    # the stopped call may be audited after the next one (its tool is given a grace time to stop)
    assert sorted((c.tool, c.status) for c in _audit()) == [("shout", "ok"), ("slow", "cancelled")]


def test_the_server_exits_when_the_client_closes_stdin(setup):
    home, tools = setup
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "desktop_agent", "mcp", "serve", "--tools-dir", str(tools)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    init = ('{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
            '"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}\n')
    out, err = proc.communicate(init.encode(), timeout=60)
    assert proc.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert len(lines) == 1 and '"serverInfo"' in lines[0]  # nothing but the protocol on stdout
    assert b"Traceback" not in err


def test_allow_tool_must_name_a_served_tool(setup):
    home, tools = setup
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "desktop_agent", "mcp", "serve", "--tools-dir", str(tools),
                           "--allow-tool", "nope"], capture_output=True, text=True, timeout=60, env=env,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "--allow-tool names no served tool: 'nope'" in done.stderr
    assert done.stdout == ""
