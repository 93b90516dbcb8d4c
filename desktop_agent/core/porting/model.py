"""What an import reads, before anything is saved: chats as trees of messages, keyed by the source's ids.

Every reader (our JSON, the seed's chat files, ChatGPT's ``conversations.json``, Open WebUI's export) turns a
file into an :class:`ImportPlan`: its chats (:class:`ImportedChat`), each a list of :class:`ImportedNode` in
an order where a parent comes before its children. ``key`` is the message's id in the source (stable across
exports of the same chat: what makes a second import add only what is new), ``parent`` the key of the message
it answers (None: the chat's first message). ``current`` is the key of the end of the branch the source shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_agent.core.epoch import plausible_epoch
from desktop_agent.core.errors import ImportFailed
from desktop_agent.core.messages import Conversation, Message

#: The apps whose files we read: (key, name shown in the preview).
APPS = {
    "desktop-agent": "Desktop Agent",
    "seed": "the chat script (chat_*.json)",
    "chatgpt": "ChatGPT",
    "openwebui": "Open WebUI",
}

class ImportCancelled(Exception):
    """The user stopped an import: nothing of it was saved."""


@dataclass
class ImportedNode:
    """One message of an imported chat: ``key`` (its id in the source), ``parent`` (the key of the message
    before it; None for a first message) and the message itself (not saved: no ``id``)."""

    key: str
    parent: str | None
    message: Message


@dataclass
class ImportedChat:
    """One chat read from a file: ``conversation`` holds its fields (title, model, options …; its
    ``messages`` are the shown branch), ``nodes`` every message of every branch, parents first; ``current``:
    the key of the end of the branch shown (None: the last node)."""

    source_id: str
    conversation: Conversation
    nodes: list[ImportedNode]
    current: str | None = None
    title_is_custom: bool = True
    #: the chat was pinned on top of the history, and its tags (our format only)
    pinned: bool = False
    tags: list[str] = field(default_factory=list)
    #: our own fields that a newer app version wrote and this one keeps as they are (lossless round trip)
    extra: dict[str, Any] = field(default_factory=dict)

    def shown_keys(self) -> list[str]:
        """The keys of the branch shown, first message first."""
        by_key = {n.key: n for n in self.nodes}
        key = self.current if self.current in by_key else (self.nodes[-1].key if self.nodes else None)
        path: list[str] = []
        seen: set[str] = set()
        while key is not None and key in by_key and key not in seen:
            seen.add(key)
            path.append(key)
            key = by_key[key].parent
        return path[::-1]

    def branch_count(self) -> int:
        """How many branches (leaves) the chat has."""
        parents = {n.parent for n in self.nodes}
        return sum(1 for n in self.nodes if n.key not in parents)


@dataclass
class ImportPlan:
    """A file read for import: which app wrote it, its chats, the file's SHA-256 (nothing saved yet)."""

    path: Path
    app: str
    chats: list[ImportedChat]
    sha256: str

    @property
    def app_name(self) -> str:
        return APPS.get(self.app, self.app)

    @property
    def message_count(self) -> int:
        return sum(len(c.nodes) for c in self.chats)


def entry_name(index: int, title: Any, noun: str = "conversation") -> str:
    """How an error names an entry of a file: ``conversation 17 ('Trip plan')`` (1-based)."""
    if isinstance(title, str) and title.strip():
        short = " ".join(title.split())
        short = short if len(short) <= 40 else short[:39] + "…"
        return f"{noun} {index} ('{short}')"
    return f"{noun} {index}"


def bad_entry(path: Path, where: str, what: str) -> ImportFailed:
    """The error for one wrong entry: "conversation 17 ('Trip plan'): message abc has no author"."""
    return ImportFailed(path, f"{where}: {what}")


def settle_times(chat: ImportedChat, fallback: float) -> None:
    """Every time of ``chat`` as plausible epoch seconds (see :func:`~desktop_agent.core.epoch.plausible_epoch`:
    milliseconds … nanoseconds converted). A message whose time is not one takes the time of the message it
    answers, a first message the chat's start, else ``fallback`` (the file's time); the chat's start and last
    change, when not plausible, come from its messages."""
    conv = chat.conversation
    start = plausible_epoch(conv.created_at)
    times: dict[str, float] = {}
    for n in chat.nodes:  # parents first
        ts = plausible_epoch(n.message.created_at)
        if ts is None:
            ts = times.get(n.parent, start or fallback) if n.parent is not None else (start or fallback)
        n.message.created_at = times[n.key] = ts
    if times:
        conv.created_at = start or min(times.values())
        conv.updated_at = plausible_epoch(conv.updated_at) or max(times.values())
    else:
        conv.created_at = start or fallback
        conv.updated_at = plausible_epoch(conv.updated_at) or conv.created_at


def order_nodes(nodes: list[ImportedNode], path: Path, where: str) -> list[ImportedNode]:
    """``nodes`` with every parent before its children (siblings in their original order); a parent that is
    not among them (it would make a second chat of the rest) and a cycle are errors."""
    by_key: dict[str, ImportedNode] = {}
    for n in nodes:
        if n.key in by_key:
            raise bad_entry(path, where, f"message {n.key} appears twice")
        by_key[n.key] = n
    children: dict[str | None, list[ImportedNode]] = {}
    for n in nodes:
        if n.parent is not None and n.parent not in by_key:
            raise bad_entry(path, where, f"message {n.key} answers message {n.parent}, which is not in the file")
        children.setdefault(n.parent, []).append(n)
    out: list[ImportedNode] = []
    stack = list(reversed(children.get(None, [])))
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(children.get(n.key, [])))
    if len(out) != len(nodes):
        raise bad_entry(path, where, "its messages' parent links go round in a circle")
    return out
