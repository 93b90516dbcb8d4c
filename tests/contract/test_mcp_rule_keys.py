"""Permission rules and chat grants of an MCP tool are the server's and the tool's: a server replaced under the same
name (another command) inherits none, the same server started again keeps them, and ``--allow-tool NAME`` still
names the tool as the model sees it. Real servers (tests/mcp_servers/flaky.py, an SDK server), a real store."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from desktop_agent.core.mcp.manager import READY, McpManager
from desktop_agent.core.settings import McpServerSettings
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store.rules import ToolRules
from desktop_agent.core.tools.permissions import Answer, ChatPermissions, PermissionEngine, PermissionRequest, RuleBook

ROOT = Path(__file__).resolve().parents[2]
FLAKY = McpServerSettings(name="files", command=sys.executable, args=["-m", "tests.mcp_servers.flaky"], cwd=str(ROOT))
# the same tools, another program: what a user gets after replacing "files" with another server of that name
OTHER = McpServerSettings(name="files", command=sys.executable, cwd=str(ROOT),
                          args=["-c", "import runpy; runpy.run_module('tests.mcp_servers.flaky', run_name='__main__')"])


@pytest.fixture
def echo_of():
    made: list[McpManager] = []

    def start(server: McpServerSettings):
        manager = McpManager([server])
        made.append(manager)
        manager.start()
        manager.wait_ready(60)
        assert manager.states()[0].state == READY, manager.states()[0].line()
        return {t.name: t for t in manager.tools()}["files__echo"]

    yield start
    for manager in made:
        manager.close()


def test_an_always_rule_is_not_inherited_by_a_replaced_server(tmp_path, echo_of):
    store = ConversationStore(tmp_path / "chats.sqlite3")
    try:
        engine = PermissionEngine(RuleBook(ToolRules(store)))
        echo = echo_of(FLAKY)
        assert engine.preview(echo, {"text": "hi"})[0] == "ask"
        engine.apply(PermissionRequest(echo, {"text": "hi"}), Answer("always"), None)
        assert engine.preview(echo, {"text": "hi"})[0] == "allow"
        [rule] = engine.rules.rules()
        assert rule.tool.startswith("files__echo@") and rule.describe() == "allow any call of files__echo"
        # saved, and read again by a new engine (the app started again): the same server keeps its rule
        again = PermissionEngine(RuleBook(ToolRules(store)))
        assert again.preview(echo_of(FLAKY), {"text": "hi"})[0] == "allow"
        # a server replaced under the same name gets none of it
        replaced = echo_of(OTHER)
        assert replaced.name == echo.name == "files__echo"
        assert again.preview(replaced, {"text": "hi"})[0] == "ask"
    finally:
        store.close()


def test_a_chat_grant_is_not_inherited_either_and_allow_tool_names_the_tool(echo_of):
    engine = PermissionEngine()
    chat = ChatPermissions("chat-1")
    echo, replaced = echo_of(FLAKY), echo_of(OTHER)
    engine.apply(PermissionRequest(echo, {"text": "x"}), Answer("chat"), chat)
    assert engine.preview(echo, {"text": "x"}, chat)[0] == "allow"
    assert engine.preview(replaced, {"text": "x"}, chat)[0] == "ask"
    engine.allow_for_run(["files__echo"])  # --allow-tool files__echo: whichever server it is this run
    assert engine.preview(replaced, {"text": "x"}, chat)[0] == "allow"
