"""A tool result's image is saved with the chat and shown again when the chat is opened: a real turn (the Agent
loop, a 127.0.0.1 OpenAI-protocol server, the npm reference MCP server's ``get-tiny-image``) in a chat session
kept in a real store; the store closed and opened again; the sidebar of the reopened chat shows the image."""

from __future__ import annotations

import json

from desktop_agent.core.agent import Agent
from desktop_agent.core.assembly import with_mcp_tools
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.mcp.manager import McpManager
from desktop_agent.core.messages import Conversation
from desktop_agent.core.session import ChatSession
from desktop_agent.core.settings import McpServerSettings, Settings
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.tools.permissions import Answer, ChatPermissions
from desktop_agent.ui.tool_sidebar import ToolSidebar
from tests.mcp_servers.everything import everything_command


def _call(call_id: str, name: str, arguments: dict) -> dict:
    return {"id": "c", "object": "chat.completion", "created": 0, "model": "local-model",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None,
                "tool_calls": [{"id": call_id, "type": "function",
                                "function": {"name": name, "arguments": json.dumps(arguments)}}]}}]}


def test_a_results_image_is_saved_and_shown_again_on_reopen(qtbot, openai_server, tmp_path):
    manager = McpManager([McpServerSettings(name="everything", command=everything_command(), args=["stdio"])])
    manager.start()
    db = tmp_path / "data" / "conversations.sqlite3"
    db.parent.mkdir(parents=True)
    try:
        manager.wait_ready(60)
        openai_server.null_content_ok = True
        openai_server.script(_call("call_img", "everything__get-tiny-image", {}))
        registry = with_mcp_tools(None, manager, Settings())
        agent = Agent(OpenAIBackend(openai_server.url, "local-model", ["sk-test"]), registry)
        agent.permissions = ChatPermissions(None, lambda _request: Answer("once"))
        store = ConversationStore(db)
        session = ChatSession(Conversation(), store, agent)
        for _event in session.run_turn("show the tiny image"):
            pass
        chat_id = session.conversation.id
        # the model was not sent the image: it read the one-line summary
        sent = json.dumps(openai_server.requests[-1]["messages"])
        assert "[image: image/png" in sent and "data:image" not in sent
        store.close()
    finally:
        manager.close()

    store = ConversationStore(db)  # the app started again: the chat read back from the store
    try:
        reopened = store.load(chat_id)
    finally:
        store.close()
    [tool_message] = [m for m in reopened.messages if m.role == "tool"]
    assert [a.kind for a in tool_message.attachments] == ["image"]
    sidebar = ToolSidebar()
    sidebar.resize(520, 560)
    sidebar.show()
    qtbot.addWidget(sidebar)
    sidebar.load(reopened)
    sidebar.select_call("call_img")
    strip = sidebar.attachments_view
    qtbot.waitUntil(strip.isVisible, timeout=5000)
    [label] = strip.labels
    assert label.pixmap() is not None and not label.pixmap().isNull()
    sidebar.grab().save(str(tmp_path / "reopened.png"))
