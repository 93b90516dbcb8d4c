"""The tool sidebar shows a running MCP call's progress on its row and the image of a result, from the events of
the real Agent loop against the npm reference server (server-everything, stdio) and a 127.0.0.1 OpenAI-protocol
server."""

from __future__ import annotations

import json

from desktop_agent.core.agent import Agent
from desktop_agent.core.assembly import with_mcp_tools
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.events import ToolCallProgress
from desktop_agent.core.mcp.manager import McpManager
from desktop_agent.core.messages import Conversation
from desktop_agent.core.settings import McpServerSettings, Settings
from desktop_agent.core.tools.permissions import Answer, ChatPermissions
from desktop_agent.ui.event_table import feed
from desktop_agent.ui.tool_sidebar import ToolSidebar
from tests.mcp_servers.everything import everything_command


def _call(call_id: str, name: str, arguments: dict) -> dict:
    return {"id": "c", "object": "chat.completion", "created": 0, "model": "local-model",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None,
                "tool_calls": [{"id": call_id, "type": "function",
                                "function": {"name": name, "arguments": json.dumps(arguments)}}]}}]}


def test_the_sidebar_shows_progress_and_the_image(qtbot, openai_server, tmp_path):
    manager = McpManager([McpServerSettings(name="everything", command=everything_command(), args=["stdio"])])
    manager.start()
    try:
        manager.wait_ready(60)
        openai_server.null_content_ok = True
        openai_server.script(_call("call_long", "everything__trigger-long-running-operation",
                                   {"duration": 3, "steps": 5}),
                             _call("call_img", "everything__get-tiny-image", {}))
        registry = with_mcp_tools(None, manager, Settings())
        agent = Agent(OpenAIBackend(openai_server.url, "local-model", ["sk-test"]), registry)
        agent.permissions = ChatPermissions(None, lambda _request: Answer("once"))
        sidebar = ToolSidebar()
        sidebar.resize(520, 560)
        sidebar.show()
        qtbot.addWidget(sidebar)
        shot = None
        for event in agent.run(Conversation(), "Run the long operation, then show the image"):
            feed(sidebar.routes(), event)
            if isinstance(event, ToolCallProgress) and event.progress == 3:
                qtbot.waitUntil(lambda: "3/5" in sidebar._items["call_long"].text(0), timeout=2000)
                shot = sidebar.grab()
        assert shot is not None
        shot.save(str(tmp_path / "progress.png"))
        row = sidebar._items["call_long"]
        assert row.text(0) == "ok"  # finished: the progress is gone from the row
        sidebar.select_call("call_img")
        strip = sidebar.attachments_view
        qtbot.waitUntil(strip.isVisible, timeout=2000)
        [label] = strip.labels
        assert label.pixmap() is not None and not label.pixmap().isNull()
        assert "[image: image/png" in sidebar.result_view.toPlainText()
        sidebar.grab().save(str(tmp_path / "image.png"))
        sidebar.select_call("call_long")
        assert not strip.isVisible()  # that call has no image
    finally:
        manager.close()
