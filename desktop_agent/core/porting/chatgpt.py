"""ChatGPT's data export: ``conversations.json``, a list of conversations, each a message tree.

A conversation has ``mapping`` (node id → ``{"id", "message", "parent", "children"}``), ``current_node`` (the
end of the branch ChatGPT shows), ``title``, ``create_time``/``update_time`` (epoch seconds) and an id
(``conversation_id`` or ``id``). A message has ``author.role`` (system / user / assistant / tool) and
``author.name`` (a tool's), ``content`` (``content_type`` with ``parts`` for text and multimodal text, ``text``
for code and execution output, ``thoughts`` for reasoning …), ``recipient`` (``all``, or the tool an assistant
message is addressed to: a tool call) and ``metadata`` (``model_slug``; ``is_visually_hidden_from_conversation``
for the system messages and custom instructions ChatGPT does not show).

What becomes ours: user and assistant text; an assistant message addressed to a tool becomes a tool call, the
tool's answer a tool result paired with it; reasoning becomes the next answer's thinking; hidden messages,
the empty root and reasoning recaps are left out and their children hang from the nearest message kept.
Images and other files are named by a placeholder (the export's files are not read).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_agent.core.epoch import plausible_epoch
from desktop_agent.core.messages import Conversation, Message, ToolCall
from desktop_agent.core.porting.model import ImportedChat, ImportedNode, bad_entry, entry_name, order_nodes

Tick = Callable[[int, int], None]


def is_chatgpt(data: Any) -> bool:
    first = data[0] if isinstance(data, list) and data else data
    return isinstance(first, dict) and "mapping" in first and ("current_node" in first or "create_time" in first)


def read_chatgpt(data: Any, path: Path, tick: Tick | None = None) -> list[ImportedChat]:
    items = data if isinstance(data, list) else [data]
    chats = []
    for i, conv in enumerate(items, 1):
        if tick is not None:
            tick(i - 1, len(items))
        if not isinstance(conv, dict):
            raise bad_entry(path, f"conversation {i}", "it is not a JSON object")
        chats.append(_conversation(conv, path, entry_name(i, conv.get("title"))))
    return chats


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        kind = str(part.get("content_type", ""))
        if "image" in kind:
            return "[image]"
        if "audio" in kind:
            return f"[audio: {part['text']}]" if isinstance(part.get("text"), str) else "[audio]"
        if isinstance(part.get("text"), str):
            return part["text"]
        return f"[{kind or 'attachment'}]"
    return ""


def _text(content: dict[str, Any], where: str, key: str, path: Path) -> str:
    kind = content.get("content_type")
    if "parts" in content:
        parts = content["parts"]
        if not isinstance(parts, list):
            raise bad_entry(path, where, f"message {key}: its content parts are not a list")
        return "\n".join(t for t in (_part_text(p) for p in parts) if t)
    if kind == "tether_browsing_display":
        return str(content.get("result") or content.get("summary") or "")
    if kind == "tether_quote":
        bits = [content.get("title"), content.get("url"), content.get("text")]
        return "\n".join(str(b) for b in bits if b)
    if kind == "thoughts":
        thoughts = content.get("thoughts") or []
        return "\n\n".join(str(t.get("content", "")) for t in thoughts if isinstance(t, dict))
    if isinstance(content.get("text"), str):
        return content["text"]
    return ""


def _conversation(conv: dict[str, Any], path: Path, where: str) -> ImportedChat:
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        raise bad_entry(path, where, 'it has no message tree ("mapping")')
    created = plausible_epoch(conv.get("create_time")) or 0.0
    # parents: from each node's "parent", or else from the "children" lists
    parent_of: dict[str, str | None] = {}
    for key, node in mapping.items():
        if not isinstance(node, dict):
            raise bad_entry(path, where, f"node {key} is not a JSON object")
        parent = node.get("parent")
        if parent is not None and not isinstance(parent, str):
            raise bad_entry(path, where, f"node {key} has a parent that is not an id")
        parent_of[key] = parent
        for child in node.get("children") or []:
            if isinstance(child, str) and child in mapping and parent_of.get(child) is None:
                parent_of.setdefault(child, key)
    raw = [ImportedNode(k, parent_of.get(k), Message(role="user")) for k in mapping]
    ordered = order_nodes(raw, path, where)  # parents first; a cycle is an error

    kept_parent: dict[str, str | None] = {}  # node key → key of the nearest kept ancestor (itself if kept)
    carry: dict[str, str] = {}  # reasoning waiting for the next answer below a dropped node
    kept: dict[str, Message] = {}
    nodes: list[ImportedNode] = []
    model = conv.get("default_model_slug") if isinstance(conv.get("default_model_slug"), str) else None
    for n in ordered:
        up = kept_parent.get(n.parent) if n.parent is not None else None
        thinking = carry.get(n.parent, "") if n.parent is not None else ""
        message = _message(mapping[n.key].get("message"), n.key, path, where, created, up, kept)
        if isinstance(message, str):  # reasoning: handed down to the answer below
            kept_parent[n.key] = up
            carry[n.key] = "\n\n".join(t for t in (thinking, message) if t)
            continue
        if message is None:
            kept_parent[n.key] = up
            if thinking:
                carry[n.key] = thinking
            continue
        if thinking and message.role == "assistant" and not message.thinking:
            message.thinking = thinking
        kept[n.key] = message
        kept_parent[n.key] = n.key
        nodes.append(ImportedNode(n.key, up, message))
        model = model or message.model
    if not nodes:
        raise bad_entry(path, where, "it has no message to import")
    current = conv.get("current_node")
    current_key = kept_parent.get(current) if isinstance(current, str) else None
    raw_title = conv.get("title")
    title = raw_title if isinstance(raw_title, str) else ""
    source = conv.get("conversation_id") or conv.get("id")
    c = Conversation(title=title.strip(), model=model, backend=None, created_at=created or nodes[0].message.created_at,
                     updated_at=plausible_epoch(conv.get("update_time")) or max(x.message.created_at for x in nodes))
    chat = ImportedChat(source_id=str(source) if isinstance(source, str) and source else "", conversation=c,
                        nodes=nodes, current=current_key, title_is_custom=bool(title.strip()))
    c.messages = [kept[k] for k in chat.shown_keys()]
    if not c.title:
        c.title = c.default_title()
    return chat


def _message(msg: Any, key: str, path: Path, where: str, created: float, up: str | None,
             kept: dict[str, Message]) -> Message | str | None:
    """Our message for a ChatGPT one; a ``str`` for reasoning (the next answer's thinking); None: left out."""
    if msg is None:
        return None
    if not isinstance(msg, dict):
        raise bad_entry(path, where, f"message {key} is not a JSON object")
    author = msg.get("author")
    if not isinstance(author, dict) or not isinstance(author.get("role"), str):
        raise bad_entry(path, where, f"message {key} has no author")
    content = msg.get("content")
    if not isinstance(content, dict):
        raise bad_entry(path, where, f"message {key} has no content")
    role = author["role"]
    raw_meta = msg.get("metadata")
    meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
    kind = content.get("content_type")
    if meta.get("is_visually_hidden_from_conversation") or kind in ("user_editable_context", "model_editable_context",
                                                                     "reasoning_recap"):
        return None
    text = _text(content, where, key, path)
    when = plausible_epoch(msg.get("create_time")) or created
    slug = meta.get("model_slug") if isinstance(meta.get("model_slug"), str) else None
    status = "complete" if msg.get("status") in (None, "finished_successfully") else "interrupted"
    recipient = msg.get("recipient") or "all"
    if kind == "thoughts" and role == "assistant":
        return text or None
    if role == "system":
        return Message(role="system", content=text, created_at=when) if text.strip() else None
    if role == "user":
        return Message(role="user", content=text, created_at=when) if text.strip() else None
    if role == "assistant":
        if recipient != "all":
            args: dict[str, Any] = {"code": text} if kind == "code" else _arguments(text)
            call = ToolCall(id="call_" + re.sub(r"[^A-Za-z0-9_-]", "", key)[:40], name=str(recipient), arguments=args)
            return Message(role="assistant", tool_calls=[call], model=slug, created_at=when, status=status)
        if kind == "code" and text:
            text = f"```{content.get('language') or ''}\n{text}\n```"
        return Message(role="assistant", content=text, model=slug, created_at=when,
                       status=status) if text.strip() else None
    if role == "tool":
        call_id = None
        call_msg = kept.get(up) if up is not None else None
        if call_msg is not None and call_msg.tool_calls:
            call_id = call_msg.tool_calls[0].id
        name = author.get("name") if isinstance(author.get("name"), str) else None
        result = meta.get("aggregate_result")
        failed = kind == "system_error" or (isinstance(result, dict)
                                            and result.get("status") == "failed_with_in_kernel_exception")
        return Message(role="tool", content=text, tool_call_id=call_id, tool_name=name, created_at=when,
                       tool_status="error" if failed else "ok")
    raise bad_entry(path, where, f"message {key} has an author role ChatGPT does not write ({role!r})")


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {"input": text}
    return value if isinstance(value, dict) else {"input": value}
