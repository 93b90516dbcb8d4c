"""The npm reference server ``@modelcontextprotocol/server-everything`` (tests/mcp_servers/package.json), over stdio
and over Streamable HTTP on 127.0.0.1: tools with and without arguments, a call through the real Agent loop against
a 127.0.0.1 OpenAI-protocol server, an error result, an image result (shown to the user, summarised for the model),
a long-running tool whose progress reports become events and which is cancelled (the server goes on), and the
server's ``tools/list_changed``."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest

from desktop_agent.core.agent import Agent
from desktop_agent.core.assembly import with_mcp_tools
from desktop_agent.core.events import ToolCallFinished, ToolCallProgress, event_to_dict
from desktop_agent.core.mcp.manager import READY, McpManager, ServerState
from desktop_agent.core.messages import Conversation
from desktop_agent.core.settings import McpServerSettings, Settings
from desktop_agent.core.tools.dispatch import dispatch_call
from desktop_agent.core.tools.permissions import Answer, ChatPermissions
from tests.mcp_servers.everything import everything_command, everything_http
from tests.servers.openai import OpenAIServer

ALLOW = ChatPermissions(None, lambda _request: Answer("once"))


@pytest.fixture(params=["stdio", "http"])
def everything(request) -> Iterator[McpServerSettings]:
    """server-everything as configured settings, over each transport."""
    if request.param == "stdio":
        yield McpServerSettings(name="everything", command=everything_command(), args=["stdio"])
    else:
        with everything_http() as url:
            yield McpServerSettings(name="everything", url=url)


@pytest.fixture
def started(everything):
    """``(manager, states seen by on_change)`` with server-everything ready."""
    seen: list[ServerState] = []
    manager = McpManager([everything], on_change=seen.append, start_timeout_s=30)
    manager.start()
    manager.wait_ready(60)
    assert manager.states()[0].state == READY, manager.states()[0].line()
    yield manager, seen
    manager.close()


def _tools(manager: McpManager) -> dict:
    return {t.name: t for t in manager.tools()}


def test_tools_with_and_without_arguments(started):
    manager, _seen = started
    tools = _tools(manager)
    assert {"everything__echo", "everything__get-sum", "everything__get-tiny-image"} <= set(tools)
    assert tools["everything__echo"].parameters["required"] == ["message"]
    assert dispatch_call(tools, "everything__echo", {"message": "hi there"}, chat=ALLOW).content == "Echo: hi there"
    assert dispatch_call(tools, "everything__get-sum", '{"a": 2, "b": 40}', chat=ALLOW).content.endswith("42.")
    env = dispatch_call(tools, "everything__get-env", {}, chat=ALLOW)  # no arguments at all
    assert env.status == "ok" and "PATH" in env.content


def test_an_error_result_is_a_tool_error(started):
    manager, _seen = started
    result = dispatch_call(_tools(manager), "everything__echo", {}, chat=ALLOW)  # "message" is required
    assert result.status == "error"
    assert "Input validation error" in result.content


def test_an_image_is_for_the_user_and_summarised_for_the_model(started):
    manager, _seen = started
    result = dispatch_call(_tools(manager), "everything__get-tiny-image", {}, chat=ALLOW)
    assert result.status == "ok"
    [image] = result.attachments
    assert image.kind == "image" and image.mime_type == "image/png"
    assert image.data[:20] not in result.content  # the model reads a line about it, not the data
    assert "[image: image/png" in result.content and "shown to the user" in result.content


def test_a_call_through_the_agent_loop(started, openai_server):
    manager, _seen = started
    openai_server.null_content_ok = True
    openai_server.script(_tool_call("everything__get-sum", {"a": 19, "b": 23}))
    agent = _agent(manager, openai_server)
    events = list(agent.run(Conversation(), "What is 19 + 23?"))
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.ok and "42" in finished.result
    offered = [t["function"]["name"] for t in openai_server.requests[0]["tools"]]
    assert "everything__get-sum" in offered and "everything__echo" in offered
    [result] = [m for m in openai_server.requests[-1]["messages"] if m["role"] == "tool"]
    assert "42" in result["content"]


def test_progress_becomes_events_and_the_call_is_cancelled_while_the_server_goes_on(started, openai_server):
    manager, _seen = started
    openai_server.null_content_ok = True
    openai_server.script(_tool_call("everything__trigger-long-running-operation", {"duration": 60, "steps": 120}))
    agent = _agent(manager, openai_server)
    progress: list[ToolCallProgress] = []
    events = []
    for event in agent.run(Conversation(), "Run the long operation"):
        events.append(event)
        if isinstance(event, ToolCallProgress):
            progress.append(event)
            if len(progress) == 3:
                assert agent.cancel_tool_call(event.call_id)
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.status == "cancelled"
    assert len(progress) >= 3 and progress[0].total == 120
    assert progress[-1].progress < 120  # it did not run to its end
    assert [p.progress for p in progress] == sorted(p.progress for p in progress)
    assert json.loads(json.dumps(event_to_dict(progress[0]))) == {
        "type": "ToolCallProgress", "call_id": "call_1", "name": "everything__trigger-long-running-operation",
        "progress": progress[0].progress, "total": 120.0, "message": None}
    # the server is fine for the next call
    tools = _tools(manager)
    assert dispatch_call(tools, "everything__echo", {"message": "still here"}, chat=ALLOW).content == \
        "Echo: still here"
    assert manager.states()[0].state == READY


def test_the_servers_list_change_is_listed_again():
    """server-everything registers more tools once it knows the client's capabilities and says tools/list_changed
    (over stdio: over HTTP it says so during the handshake, before the client's stream for notifications is open,
    so the notification is the server's to lose; a list change over time is tests/contract/test_mcp_servers.py's
    ``grow``)."""
    seen: list[ServerState] = []
    server = McpServerSettings(name="everything", command=everything_command(), args=["stdio"])
    manager = McpManager([server], on_change=seen.append, start_timeout_s=30)
    manager.start()
    try:
        _see_listed_twice(manager, seen)
    finally:
        manager.close()


def _see_listed_twice(manager: McpManager, seen: list[ServerState]) -> None:
    manager.wait_ready(60)
    ready = [s for s in seen if s.state == READY]
    deadline = threading.Event()
    for _ in range(100):
        ready = [s for s in seen if s.state == READY]
        if len(ready) >= 2:
            break
        deadline.wait(0.1)
    assert len(ready) >= 2, [s.line() for s in seen]
    assert "echo" in ready[-1].tools


def _tool_call(name: str, arguments: dict) -> dict:
    return {"id": "c1", "object": "chat.completion", "created": 0, "model": "local-model",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None,
                "tool_calls": [{"id": "call_1", "type": "function",
                                "function": {"name": name, "arguments": json.dumps(arguments)}}]}}]}


def _agent(manager: McpManager, server: OpenAIServer) -> Agent:
    from desktop_agent.core.backends.openai import OpenAIBackend

    registry = with_mcp_tools(None, manager, Settings())
    assert registry is not None
    agent = Agent(OpenAIBackend(server.url, "local-model", ["sk-test"]), registry)
    agent.permissions = ALLOW
    return agent
