"""The chat script's saved chats (the project's seed): ``chat_<model>_<YYYYmmddHHMMSS>.json``, a JSON list of
``{"human": ..., "ai": ...}`` turns. Model and time come from the file name (else the file's time)."""

from __future__ import annotations

import contextlib
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.porting.model import ImportedChat, ImportedNode, bad_entry

_NAME = re.compile(r"^chat_(?:(?P<model>.+)_)?(?P<ts>\d{14})\.json$", re.IGNORECASE)


def is_seed(data: Any) -> bool:
    return isinstance(data, list) and bool(data) and all(
        isinstance(x, dict) and bool({"human", "ai"} & x.keys()) for x in data[:50])


def read_seed(data: list, path: Path, mtime: float) -> list[ImportedChat]:
    m = _NAME.match(path.name)
    model = m.group("model") if m and m.group("model") else None
    ts = mtime
    if m:
        with contextlib.suppress(ValueError):
            ts = datetime.strptime(m.group("ts"), "%Y%m%d%H%M%S").timestamp()
    nodes: list[ImportedNode] = []
    parent: str | None = None
    for i, item in enumerate(data, 1):
        if not isinstance(item, dict) or not ({"human", "ai"} & item.keys()):
            raise bad_entry(path, f"turn {i}", 'it is not a {"human": ..., "ai": ...} object')
        human, ai = item.get("human", ""), item.get("ai", "")
        if not isinstance(human, str) or not isinstance(ai, str):
            raise bad_entry(path, f"turn {i}", '"human" and "ai" must be text')
        for key, message in ((f"{i}h", Message(role="user", content=human, created_at=ts) if human else None),
                             (f"{i}a", Message(role="assistant", content=ai, model=model, created_at=ts)
                              if ai else None)):
            if message is not None:
                nodes.append(ImportedNode(key, parent, message))
                parent = key
    if not nodes:
        raise bad_entry(path, "the chat", "it contains no messages")
    conv = Conversation(model=model, created_at=ts, updated_at=ts, messages=[n.message for n in nodes])
    conv.title = conv.default_title()
    return [ImportedChat(source_id=path.stem, conversation=conv, nodes=nodes, title_is_custom=False)]
