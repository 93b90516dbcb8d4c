"""What of a tool result's images is kept with the chat (:mod:`desktop_agent.core.result_images`): an MCP
result's image — as image content or an embedded image resource — becomes a stored attachment of the tool
message, read back as the sidebar shows it; it is not counted as sent to the model."""

from __future__ import annotations

import base64

from mcp_types import BlobResourceContents, CallToolResult, EmbeddedResource, ImageContent, TextContent

from desktop_agent.core.mcp.tools import attachments
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.result_images import to_saved, to_shown
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.tokens import estimate_message

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def test_images_and_embedded_image_resources_are_kept_and_read_back(tmp_path):
    data = base64.b64encode(PNG).decode()
    result = CallToolResult(content=[
        TextContent(type="text", text="here"),
        ImageContent(type="image", data=data, mime_type="image/png"),
        EmbeddedResource(type="resource", resource=BlobResourceContents(uri="file:///a.png", mime_type="image/png",
                                                                        blob=data)),
        EmbeddedResource(type="resource", resource=BlobResourceContents(uri="file:///a.bin",
                                                                        mime_type="application/zip", blob=data)),
    ])
    shown = attachments(result)
    assert [(a.kind, a.mime_type) for a in shown] == [("image", "image/png"), ("image", "image/png")]
    saved = to_saved(shown, "call_1")
    assert [a.name for a in saved] == ["result-call_1-1.png", "result-call_1-2.png"]
    message = Message(role="tool", content="here", tool_call_id="call_1", tool_name="x", attachments=saved)
    assert estimate_message(message) == estimate_message(Message(role="tool", content="here",
                                                                 tool_call_id="call_1", tool_name="x"))
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        chat = Conversation()
        store.add_message(chat, Message(role="user", content="go"))
        store.add_message(chat, message)
        [back] = [m for m in store.load(chat.id).messages if m.role == "tool"]
    finally:
        store.close()
    assert [(a.kind, a.mime_type, base64.b64decode(a.data)) for a in to_shown(back)] == [
        ("image", "image/png", PNG)] * 2


def test_a_result_image_whose_copy_is_gone_still_has_its_place():
    [saved] = to_saved(attachments(CallToolResult(content=[
        ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png")])))
    saved.data, saved.path = None, "/nonexistent/gone.png"
    [shown] = to_shown(Message(role="tool", content="", tool_call_id="c", attachments=[saved]))
    assert shown.kind == "image" and shown.data == ""  # the strip says it cannot be shown
