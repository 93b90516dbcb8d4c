"""Open WebUI's chat export (Settings → Chats → Export, or a chat's Download → Export chat (.json)).

The file is a list of chat rows (or one row): ``id``, ``title``, ``created_at``/``updated_at`` (epoch
seconds), ``chat`` = ``{"title", "models", "params", "history": {"messages": {id: message}, "currentId"},
"messages", "timestamp"}``. A message has ``id``, ``parentId``, ``childrenIds``, ``role``, ``content`` (text),
``timestamp`` (seconds), ``model``; branches are messages sharing a parent, ``currentId`` is the end of the one
shown. The reasoning Open WebUI writes into an answer as ``<details type="reasoning">`` becomes its thinking.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_agent.core.epoch import plausible_epoch
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.porting.model import ImportedChat, ImportedNode, bad_entry, entry_name, order_nodes

Tick = Callable[[int, int], None]

_REASONING = re.compile(r'<details\s+type="reasoning"[^>]*>(.*?)</details>\s*', re.DOTALL)
_SUMMARY = re.compile(r"<summary>.*?</summary>", re.DOTALL)


def _chat_of(item: Any) -> Any:
    return item.get("chat") if isinstance(item, dict) and isinstance(item.get("chat"), dict) else item


def is_openwebui(data: Any) -> bool:
    first = data[0] if isinstance(data, list) and data else data
    chat = _chat_of(first)
    return isinstance(chat, dict) and isinstance(chat.get("history"), dict) and "messages" in chat["history"]


def read_openwebui(data: Any, path: Path, tick: Tick | None = None) -> list[ImportedChat]:
    items = data if isinstance(data, list) else [data]
    chats = []
    for i, row in enumerate(items, 1):
        if tick is not None:
            tick(i - 1, len(items))
        if not isinstance(row, dict):
            raise bad_entry(path, f"chat {i}", "it is not a JSON object")
        chat = _chat_of(row)
        title = row.get("title") if isinstance(row.get("title"), str) else chat.get("title")
        chats.append(_read(row, chat, path, entry_name(i, title, "chat")))
    return chats


def _split_reasoning(text: str) -> tuple[str, str]:
    thoughts = []
    for block in _REASONING.findall(text):
        inner = html.unescape(_SUMMARY.sub("", block)).strip()
        lines = [line[1:].lstrip() if line.startswith(">") else line for line in inner.splitlines()]
        thoughts.append("\n".join(lines).strip())
    return _REASONING.sub("", text).strip(), "\n\n".join(t for t in thoughts if t)


def _read(row: dict[str, Any], chat: Any, path: Path, where: str) -> ImportedChat:
    if not isinstance(chat, dict):
        raise bad_entry(path, where, 'it has no "chat" object')
    history = chat.get("history")
    if not isinstance(history, dict) or not isinstance(history.get("messages"), dict):
        raise bad_entry(path, where, 'it has no message tree ("history.messages")')
    created = plausible_epoch(row.get("created_at")) or plausible_epoch(chat.get("timestamp")) or 0.0
    nodes: list[ImportedNode] = []
    raw_models = chat.get("models")
    models: list[Any] = raw_models if isinstance(raw_models, list) else []
    for key, m in history["messages"].items():
        if not isinstance(m, dict):
            raise bad_entry(path, where, f"message {key} is not a JSON object")
        role = m.get("role")
        if role not in ("user", "assistant", "system"):
            raise bad_entry(path, where, f"message {key} has no role" if role is None
                            else f"message {key} has a role Open WebUI does not write ({role!r})")
        content = m.get("content") or ""  # None: an answer that never came
        if not isinstance(content, str):
            if isinstance(content, list):  # content parts, as some versions write for images
                content = "\n".join(p.get("text", "[image]") if isinstance(p, dict) else str(p) for p in content)
            else:
                raise bad_entry(path, where, f"message {key} has content that is not text")
        parent = m.get("parentId")
        if parent is not None and not isinstance(parent, str):
            raise bad_entry(path, where, f"message {key} has a parentId that is not an id")
        when = plausible_epoch(m.get("timestamp")) or created
        thinking = ""
        if role == "assistant":
            content, thinking = _split_reasoning(content)
        model = m.get("model") if isinstance(m.get("model"), str) else None
        status = "complete" if m.get("done", True) is not False else "interrupted"
        message = Message(role=role, content=content, thinking=thinking, model=model if role == "assistant" else None,
                          created_at=when, status=status if role == "assistant" else "complete")
        nodes.append(ImportedNode(str(m.get("id") or key), parent, message))
    if not nodes:
        raise bad_entry(path, where, "it contains no messages")
    nodes = order_nodes(nodes, path, where)
    current = history.get("currentId")
    title = row.get("title") if isinstance(row.get("title"), str) else chat.get("title")
    title = title.strip() if isinstance(title, str) else ""
    model = next((str(x) for x in models if isinstance(x, str)), None)
    conv = Conversation(title=title, model=model, backend=None, created_at=created or nodes[0].message.created_at,
                        updated_at=plausible_epoch(row.get("updated_at")) or max(n.message.created_at for n in nodes))
    source = row.get("id") or chat.get("id")
    result = ImportedChat(source_id=str(source) if isinstance(source, str) and source else "", conversation=conv,
                          nodes=nodes, current=current if isinstance(current, str) else None,
                          title_is_custom=bool(title) and title != "New Chat")
    by_key = {n.key: n.message for n in nodes}
    conv.messages = [by_key[k] for k in result.shown_keys()]
    if not result.title_is_custom:
        conv.title = conv.default_title()
    return result
