"""Our JSON chat format (documented in ``docs/chat-json.md``): writing it, and reading every version of it.

Version 2 (this one) keeps the whole tree of a chat: every message has an ``id`` and the ``parent`` it answers
(branches: regenerated answers, edited messages), the chat's ``leaf`` is the end of the branch shown. A file
holds one chat (``format`` ``desktop-agent.conversation``: the chat's fields at the top level) or several
(``format`` ``desktop-agent.chats``: a ``chats`` list of them). Version 1 files (one chat, a flat ``messages``
list without ids) are read as a single branch. A file of a newer version is refused with a clear message.
"""

from __future__ import annotations

import base64
import hashlib
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_agent.core.errors import ImportFailed
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.porting.model import ImportedChat, ImportedNode, bad_entry, entry_name, order_nodes

#: ``"format"`` of a file holding one chat, and of one holding several.
ONE_CHAT = "desktop-agent.conversation"
MANY_CHATS = "desktop-agent.chats"
#: The version this code writes; it reads every version up to it.
FORMAT_VERSION = 2

#: Conversation fields that are written in a chat object by name (the others go as they are)
_NOT_COPIED = {"id", "title", "messages", "last_failure", "siblings"}
#: Message fields that are not part of the file (the row id is written as ``id``, as text)
_MESSAGE_SKIP = {"id", "parent_id"}
_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")


@dataclass
class ChatTree:
    """A saved chat as it is exported: its fields, every message (``id`` set) with its parent's id, the leaf
    of the branch shown."""

    conversation: Conversation
    messages: list[Message]
    parents: dict[int, int | None]
    leaf: int | None
    title_is_custom: bool = False
    pinned: bool = False
    tags: list[str] = field(default_factory=list)


def chat_object(tree: ChatTree) -> dict[str, Any]:
    """One chat as a JSON-ready dict (the part of the format that describes a chat)."""
    conv = tree.conversation
    data: dict[str, Any] = {"id": conv.id, "title": conv.title, "title_is_custom": tree.title_is_custom}
    data.update(conv.model_dump(mode="json", exclude=_NOT_COPIED))
    data["leaf"] = str(tree.leaf) if tree.leaf is not None else None
    data["pinned"] = tree.pinned
    data["tags"] = list(tree.tags)
    messages = []
    for m in tree.messages:
        item: dict[str, Any] = {"id": str(m.id)}
        parent = tree.parents.get(m.id) if m.id is not None else None
        item["parent"] = str(parent) if parent is not None else None
        item.update(m.model_dump(mode="json", exclude=_MESSAGE_SKIP))
        _embed_files(item, m)
        messages.append(item)
    data["messages"] = messages
    return data


def _embed_files(item: dict[str, Any], m: Message) -> None:
    """Attached files travel inside the file: each attachment's bytes as ``content_base64`` (a file whose stored
    copy is gone goes without; its text, for a text file or PDF, is in the attachment itself)."""
    files = getattr(m, "attachments", None) or []
    dumped = item.get("attachments")
    if not files or not isinstance(dumped, list):
        return
    for entry, attachment in zip(dumped, files, strict=False):
        try:
            entry["content_base64"] = base64.b64encode(attachment.read_bytes()).decode("ascii")
        except (OSError, AttributeError, ValueError):
            continue


def _read_files(fields: dict[str, Any], where: str, label: str, path: Path) -> None:
    """Attachments' ``content_base64`` back to bytes (checked against their SHA-256)."""
    for entry in fields.get("attachments") or []:
        if not isinstance(entry, dict) or "content_base64" not in entry:
            continue
        try:
            data = base64.b64decode(entry.pop("content_base64"), validate=True)
        except (ValueError, TypeError):
            raise bad_entry(path, where, f"{label}: an attached file's content is not base64") from None
        if isinstance(entry.get("sha256"), str) and hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise bad_entry(path, where, f"{label}: the attached file {entry.get('name', '?')} is damaged (its "
                                         "content does not match its SHA-256)")
        entry["data"] = data


def export_document(trees: Iterable[ChatTree], *, one: bool) -> dict[str, Any]:
    """The whole file as a dict: one chat (``one``, the first of ``trees``) or all of them."""
    head: dict[str, Any] = {"format": ONE_CHAT if one else MANY_CHATS, "version": FORMAT_VERSION,
                            "exported_at": time.time()}
    if one:
        first = next(iter(trees))
        return {**head, **chat_object(first)}
    return {**head, "chats": [chat_object(t) for t in trees]}


# -- reading ------------------------------------------------------------------------------------------------


def is_ours(data: Any) -> bool:
    if isinstance(data, dict):
        if data.get("format") in (ONE_CHAT, MANY_CHATS):
            return True
        return "format" not in data and isinstance(data.get("messages"), list) and "chat" not in data
    return isinstance(data, list) and bool(data) and all(isinstance(x, dict) and "role" in x for x in data)


def read_ours(data: Any, path: Path) -> list[ImportedChat]:
    """The chats of one of our files (any version up to :data:`FORMAT_VERSION`); raises :class:`ImportFailed`
    naming the wrong entry."""
    if isinstance(data, list):  # a bare list of messages (an early, unversioned form)
        data = {"messages": data, "version": 1}
    fmt = data.get("format")
    version = data.get("version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ImportFailed(path, f"its format version {version!r} is not a number desktop-agent wrote")
    if version > FORMAT_VERSION:
        raise ImportFailed(path, f"it was exported by a newer desktop-agent (format version {version}); "
                                 "update desktop-agent")
    if fmt == MANY_CHATS:
        items = data.get("chats")
        if not isinstance(items, list):
            raise ImportFailed(path, "its \"chats\" is not a list")
        chats = []
        for i, item in enumerate(items, 1):
            if not isinstance(item, dict):
                raise bad_entry(path, f"chat {i}", "it is not a JSON object")
            chats.append(_read_chat(item, version, path, entry_name(i, item.get("title"), "chat")))
        return chats
    return [_read_chat(data, version, path, "the chat")]


def _read_chat(data: dict[str, Any], version: int, path: Path, where: str) -> ImportedChat:
    items = data.get("messages")
    if not isinstance(items, list):
        raise bad_entry(path, where, "it has no \"messages\" list")
    nodes: list[ImportedNode] = []
    previous: str | None = None
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise bad_entry(path, where, f"message {i} is not a JSON object")
        if version >= 2:
            key = item.get("id")
            if not isinstance(key, str) or not key:
                raise bad_entry(path, where, f"message {i} has no id")
            parent = item.get("parent")
            if parent is not None and not isinstance(parent, str):
                raise bad_entry(path, where, f"message {key} has a parent that is not an id")
        else:
            key, parent = str(i), previous
        fields = {k: v for k, v in item.items() if k not in ("id", "parent", "parent_id")}
        _read_files(fields, where, f"message {key}" if version >= 2 else f"message {i}", path)
        try:
            message = Message.model_validate(fields)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            errs: list[dict[str, Any]] = list(getattr(exc, "errors", list)())
            detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errs[:2]) or str(exc)
            label = f"message {key}" if version >= 2 else f"message {i}"
            raise bad_entry(path, where, f"{label} is not valid ({detail})") from None
        nodes.append(ImportedNode(key, parent, message))
        previous = key
    if not nodes:
        raise bad_entry(path, where, "it contains no messages")
    nodes = order_nodes(nodes, path, where)
    conv_fields = {k: v for k, v in data.items()
                   if k not in ("format", "version", "exported_at", "messages", "leaf", "title_is_custom", "id",
                                "title", "chats", "pinned", "tags")}
    try:
        conv = Conversation.model_validate(conv_fields)
    except ValueError as exc:
        raise bad_entry(path, where, f"its settings are not valid ({exc})") from None
    source = data.get("id")
    if isinstance(source, str) and _ID.fullmatch(source):
        conv.id = source
    leaf = data.get("leaf") if version >= 2 else None
    chat = ImportedChat(source_id=conv.id if isinstance(source, str) else "", conversation=conv, nodes=nodes,
                        current=leaf if isinstance(leaf, str) else None)
    by_key = {n.key: n.message for n in nodes}
    conv.messages = [by_key[k] for k in chat.shown_keys()]
    if "created_at" not in conv_fields:
        conv.created_at = min(n.message.created_at for n in nodes)
    if "updated_at" not in conv_fields:
        conv.updated_at = max(n.message.created_at for n in nodes)
    if conv.model is None:
        conv.model = next((m.model for m in reversed(conv.messages) if m.model), None)
    if conv.backend is None:
        conv.backend = next((m.backend for m in reversed(conv.messages) if m.backend), None)
    title = " ".join(data["title"].split()) if isinstance(data.get("title"), str) else ""
    default = conv.default_title()
    flag = data.get("title_is_custom")
    chat.title_is_custom = (flag if isinstance(flag, bool) else title != default) and bool(title)
    conv.title = title if chat.title_is_custom else default
    chat.pinned = data.get("pinned") is True
    tags = data.get("tags")
    if tags is not None and not (isinstance(tags, list) and all(isinstance(t, str) for t in tags)):
        raise bad_entry(path, where, "its tags are not a list of texts")
    chat.tags = [t for t in tags or [] if t.strip()]
    return chat
