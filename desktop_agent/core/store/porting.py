"""Export and import between the store and chat files (the formats are in :mod:`desktop_agent.core.porting`).

:class:`Porting` (a part of :class:`~desktop_agent.core.store.ConversationStore`) exports one chat, several or
all as our JSON (every branch), Markdown or HTML (the branch shown), and saves what
:func:`~desktop_agent.core.porting.reading.read_import_file` read:

- a chat is imported once: the ``imports`` table keeps its app and its id there (``source_id``), the
  ``imported_messages`` table each message's id there. Importing the same file again adds nothing; importing a
  later export of the same chat adds only its new messages (under the messages they answer, so a new branch
  stays a branch). A message the user deleted here is not brought back. Our own export of a chat that is
  saved here (same id) counts as that chat: only messages it does not have are added.
- stopped (``cancel``) or failed, nothing of a file stays saved (see :meth:`Porting.import_plan`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from desktop_agent.core.messages import Conversation, Message, new_conversation_id
from desktop_agent.core.porting.html_doc import export_html, export_html_all
from desktop_agent.core.porting.markdown_doc import export_markdown, export_markdown_all
from desktop_agent.core.porting.model import ImportCancelled, ImportedChat, ImportedNode, ImportPlan
from desktop_agent.core.porting.ours import ChatTree, export_document
from desktop_agent.core.store.database import StoreDatabase, guarded
from desktop_agent.core.store.labels import clean_tag, tag_key
from desktop_agent.core.store.titles import clip_title, one_line

Format = Literal["md", "json", "html"]
FORMATS: tuple[str, ...] = ("md", "json", "html")
#: the file suffix of each format
SUFFIXES = {"md": ".md", "json": ".json", "html": ".html"}


@dataclass
class ImportPreview:
    """What importing a file would do: ``chats``/``messages`` in the file; ``new_chats``, ``new_messages``
    (counted in new chats and in chats imported before), ``updated_chats`` (imported before, with new
    messages)."""

    app_name: str
    chats: int
    messages: int
    new_chats: int = 0
    updated_chats: int = 0
    new_messages: int = 0
    branched_chats: int = 0


@dataclass
class ImportResult:
    """What an import did; ``chat_ids``: the chats added or given new messages, in file order."""

    new_chats: int = 0
    updated_chats: int = 0
    new_messages: int = 0
    chat_ids: list[str] = field(default_factory=list)


#: how long one of an import's transactions may take (seconds): a chat answered meanwhile waits at most this
BATCH_S = 0.25


@dataclass
class _Undo:
    """What an import wrote in transactions already committed (``pending_*``: in the one still open)."""

    chats: list[str] = field(default_factory=list)
    messages: list[int] = field(default_factory=list)  # added to chats that were here before
    leaves: dict[str, tuple[int | None, float]] = field(default_factory=dict)  # their leaf and time before
    pending_chats: list[str] = field(default_factory=list)
    pending_messages: list[int] = field(default_factory=list)
    pending_leaves: dict[str, tuple[int | None, float]] = field(default_factory=dict)

    def commit(self) -> None:
        self.chats += self.pending_chats
        self.messages += self.pending_messages
        for cid, before in self.pending_leaves.items():
            self.leaves.setdefault(cid, before)
        self.pending_chats, self.pending_messages, self.pending_leaves = [], [], {}


@dataclass
class _Target:
    conversation_id: str | None  # None: a new chat
    known: dict[str, int]  # source key → message id here
    present: set[int]  # message ids of the chat here
    matched: dict[str, int] = field(default_factory=dict)  # keys recognised by their message (see _new_nodes)


class Porting(StoreDatabase):
    """Export and import of :class:`~desktop_agent.core.store.ConversationStore` (see the module docstring)."""

    _deleted_chats: set[str]

    if TYPE_CHECKING:  # defined by ConversationStore
        def _insert_conversation(self, conn: sqlite3.Connection, conversation: Conversation,
                                 title_is_custom: bool) -> None: ...
        def _insert_message(self, conn: sqlite3.Connection, conversation_id: str, message: Message,
                            parent_id: int | None) -> int: ...
        @staticmethod
        def _set_leaf(conn: sqlite3.Connection, conversation_id: str, leaf_id: int | None) -> None: ...
        def load(self, conversation_id: str) -> Conversation: ...
        def tree(self, conversation_id: str) -> list[Message]: ...
        def title_is_custom(self, conversation_id: str) -> bool: ...
        def count(self) -> int: ...
        def is_pinned(self, conversation_id: str) -> bool: ...
        def chat_tags(self, conversation_id: str) -> list[str]: ...

    # -- export -------------------------------------------------------------------------------------

    def chat_tree(self, conversation_id: str) -> ChatTree:
        """The chat with every message of every branch, parents and the leaf shown. Raises
        :class:`~desktop_agent.core.errors.ConversationNotFound`."""
        conv = self.load(conversation_id)
        messages = self.tree(conversation_id)
        parents = {m.id: m.parent_id for m in messages if m.id is not None}
        leaf = conv.messages[-1].id if conv.messages else None
        return ChatTree(conv, messages, parents, leaf, title_is_custom=self.title_is_custom(conversation_id),
                        pinned=self.is_pinned(conversation_id), tags=self.chat_tags(conversation_id))

    def export(self, conversation_id: str, fmt: Format = "md") -> str:
        """One chat as text: ``"json"`` (our format: every branch, re-importable; ``docs/chat-json.md``),
        ``"md"`` (Markdown for people) or ``"html"`` (a standalone page). Raises
        :class:`~desktop_agent.core.errors.ConversationNotFound`, ``ValueError`` for another ``fmt``."""
        return self.export_chats([conversation_id], fmt)

    def export_chats(self, conversation_ids: Iterable[str] | None, fmt: Format,
                     progress: Callable[[int, int], None] | None = None, cancel: threading.Event | None = None) -> str:
        """The chats (``None``: all, oldest first) as one document: one chat → that chat's file; several → a
        file of all of them. Raises ``ValueError`` for an unknown ``fmt``, ImportCancelled when cancelled."""
        if fmt not in FORMATS:
            raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
        ids = (list(conversation_ids) if conversation_ids is not None
               else [r[0] for r in self.read("SELECT id FROM conversations ORDER BY created_at, id")])
        trees = []
        for i, cid in enumerate(ids):
            if cancel is not None and cancel.is_set():
                raise ImportCancelled()
            if progress is not None:
                progress(i, len(ids))
            trees.append(self.chat_tree(cid))
        one = conversation_ids is not None and len(ids) == 1
        if fmt == "json":
            import json

            # one chat indented, to be read; all of them compact (several times faster to write)
            return json.dumps(export_document(trees, one=one), ensure_ascii=False, indent=2 if one else None) + "\n"
        shown = [(t.conversation, _other_branches(t)) for t in trees]
        if one:
            conv, other = shown[0]
            return export_markdown(conv, other_branches=other) if fmt == "md" else export_html(conv,
                                                                                               other_branches=other)
        return export_markdown_all(shown) if fmt == "md" else export_html_all(shown)

    # -- import -------------------------------------------------------------------------------------

    def import_file(self, path: str | os.PathLike[str]) -> ImportResult:
        """Import a chat file (ours, the chat script's, ChatGPT's ``conversations.json``, Open WebUI's): the
        whole file is read and checked first (:func:`~desktop_agent.core.porting.reading.read_import_file`),
        then what is new in it is saved in one transaction. Raises
        :class:`~desktop_agent.core.errors.ImportFailed` (nothing imported) naming the wrong entry. The file is
        only read."""
        return self.import_plan(self.read_import_file(path))

    def read_import_file(self, path: str | os.PathLike[str], progress: Callable[[int, int], None] | None = None,
                         cancel: threading.Event | None = None) -> ImportPlan:
        """:func:`~desktop_agent.core.porting.reading.read_import_file`, able to read a chat history database too
        (opened, through a copy, as this store's class opens one). Saves nothing."""
        from desktop_agent.core.porting.reading import read_import_file

        return read_import_file(path, progress, cancel, open_store=type(self))

    def _target(self, conn: sqlite3.Connection, app: str, chat: ImportedChat) -> _Target:
        row = conn.execute(
            "SELECT i.conversation_id FROM imports i JOIN conversations c ON c.id = i.conversation_id "
            "WHERE i.app = ? AND i.source_id = ? ORDER BY i.imported_at DESC LIMIT 1",
            (app, chat.source_id),
        ).fetchone()
        original = False
        if row is None and app == "desktop-agent":
            row = conn.execute("SELECT id FROM conversations WHERE id = ?", (chat.source_id,)).fetchone()
            original = row is not None
        if row is None:
            return _Target(None, {}, set())
        cid = row[0]
        present = {r[0] for r in conn.execute("SELECT id FROM messages WHERE conversation_id = ?", (cid,))}
        known = {r[0]: r[1] for r in conn.execute(
            "SELECT source_key, message_id FROM imported_messages WHERE conversation_id = ?", (cid,))}
        if original:
            known.update({str(mid): mid for mid in present})
        return _Target(cid, known, present)

    @staticmethod
    def _new_nodes(conn: sqlite3.Connection, chat: ImportedChat, target: _Target) -> list[ImportedNode]:
        """The nodes of ``chat`` to save: not here yet, and their parent here (or saved before them). A node
        that is the same message as one here (same parent, role, time and text: our own export of this chat,
        e.g. after a trip through another computer) is matched to it instead (added to ``target.known``)."""
        same: dict[tuple, int] = {}
        if target.conversation_id is not None:
            for mid, parent, role, when, content in conn.execute(
                    "SELECT id, parent_id, role, created_at, content FROM messages WHERE conversation_id = ? "
                    "ORDER BY id", (target.conversation_id,)):
                same.setdefault((parent, role, when, content), mid)
        coming: set[str] = set()
        new: list[ImportedNode] = []
        for node in chat.nodes:
            if node.key in target.known or node.key in coming:
                continue
            if node.parent is not None and node.parent in coming:
                new.append(node)
                coming.add(node.key)
                continue
            if node.parent is not None and (node.parent not in target.known
                                            or target.known[node.parent] not in target.present):
                continue  # its parent was deleted here (or never came): leave the branch out
            parent_id = target.known[node.parent] if node.parent is not None else None
            m = node.message
            match = same.get((parent_id, m.role, m.created_at, m.content))
            if match is not None:
                target.known[node.key] = match
                target.matched[node.key] = match
                continue
            new.append(node)
            coming.add(node.key)
        return new

    @guarded
    def preview_import(self, plan: ImportPlan) -> ImportPreview:
        """What :meth:`import_plan` would do with ``plan`` (nothing is written)."""
        p = ImportPreview(plan.app_name, len(plan.chats), plan.message_count)
        with self._lock:
            conn = self.conn
            for chat in plan.chats:
                target = self._target(conn, plan.app, chat)
                n = len(self._new_nodes(conn, chat, target))
                if chat.branch_count() > 1:
                    p.branched_chats += 1
                if target.conversation_id is None:
                    p.new_chats += 1
                elif n:
                    p.updated_chats += 1
                p.new_messages += n
        return p

    @guarded
    def import_plan(self, plan: ImportPlan, progress: Callable[[int, int], None] | None = None,
                    cancel: threading.Event | None = None) -> ImportResult:
        """Save what is new in ``plan`` (see the module docstring). ``progress(done, total)`` per chat; ``cancel``
        set: :class:`ImportCancelled`. Stopped or failed, nothing of it stays saved.

        It is written in short transactions (about :data:`BATCH_S` each), so a chat being answered meanwhile
        saves between them; what was written is taken out again if the import stops or fails. Killed half-way,
        the chats written so far stay, and importing the file again adds the rest."""
        result = ImportResult()
        undo = _Undo()
        now = time.time()
        done = 0
        try:
            while done < len(plan.chats):
                with self.write() as conn:
                    batch_end = time.monotonic() + BATCH_S
                    while done < len(plan.chats):
                        if cancel is not None and cancel.is_set():
                            raise ImportCancelled()
                        if progress is not None:
                            progress(done, len(plan.chats))
                        self._import_chat(conn, plan, plan.chats[done], now, result, undo)
                        done += 1
                        if time.monotonic() >= batch_end:
                            break
                undo.commit()
        except BaseException:
            if undo.chats or undo.messages:
                self._take_out(undo)
            raise
        if progress is not None:
            progress(len(plan.chats), len(plan.chats))
        return result

    def _import_chat(self, conn: sqlite3.Connection, plan: ImportPlan, chat: ImportedChat, now: float,
                     result: ImportResult, undo: _Undo) -> None:
        target = self._target(conn, plan.app, chat)
        nodes = self._new_nodes(conn, chat, target)
        for key, mid in target.matched.items():  # recognised: found by its key from now on
            conn.execute("INSERT OR IGNORE INTO imported_messages (message_id, conversation_id, source_key) "
                         "VALUES (?, ?, ?)", (mid, target.conversation_id, key))
        if not nodes:
            return
        cid = target.conversation_id
        if cid is None:
            cid = self._new_chat(conn, plan, chat, now)
            undo.pending_chats.append(cid)
            result.new_chats += 1
        else:
            row = conn.execute("SELECT leaf_id, updated_at FROM conversations WHERE id = ?", (cid,)).fetchone()
            undo.pending_leaves.setdefault(cid, (row[0], row[1]))
            result.updated_chats += 1
            conn.execute("UPDATE conversations SET updated_at = max(updated_at, ?) WHERE id = ?",
                         (chat.conversation.updated_at, cid))
        for node in nodes:
            parent_id = target.known.get(node.parent) if node.parent is not None else None
            message = node.message.model_copy()  # the plan's own message stays unsaved
            message.id = None
            mid = self._insert_message(conn, cid, message, parent_id)
            conn.execute("INSERT OR REPLACE INTO imported_messages (message_id, conversation_id, source_key) "
                         "VALUES (?, ?, ?)", (mid, cid, node.key))
            if target.conversation_id is not None:
                undo.pending_messages.append(mid)
            target.known[node.key] = mid
            target.present.add(mid)
            result.new_messages += 1
        shown = chat.shown_keys()
        if shown and shown[-1] in target.known:
            self._set_leaf(conn, cid, target.known[shown[-1]])
        result.chat_ids.append(cid)

    def _take_out(self, undo: _Undo) -> None:
        """Take out what a stopped or failed import wrote in its earlier transactions (one transaction)."""
        with self.write() as conn:
            for start in range(0, len(undo.messages), 500):
                chunk = undo.messages[start:start + 500]
                marks = ",".join("?" * len(chunk))
                conn.execute(f"DELETE FROM message_text WHERE id IN ({marks})", chunk)
                conn.execute(f"DELETE FROM imported_messages WHERE message_id IN ({marks})", chunk)
                conn.execute(f"DELETE FROM messages WHERE id IN ({marks})", chunk)
            for cid, (leaf, updated) in undo.leaves.items():
                conn.execute("UPDATE conversations SET leaf_id = ?, updated_at = ? WHERE id = ?", (leaf, updated, cid))
            for cid in undo.chats:
                conn.execute("DELETE FROM message_text WHERE id IN (SELECT id FROM messages WHERE conversation_id = ?)",
                             (cid,))
                for table in ("imported_messages", "imports", "chat_options"):
                    conn.execute(f"DELETE FROM {table} WHERE conversation_id = ?", (cid,))
                conn.execute("DELETE FROM messages WHERE conversation_id = ?", (cid,))
                conn.execute("DELETE FROM conversations WHERE id = ?", (cid,))

    def _new_chat(self, conn: sqlite3.Connection, plan: ImportPlan, chat: ImportedChat, now: float) -> str:
        conv = chat.conversation
        cid = conv.id if plan.app == "desktop-agent" else new_conversation_id()
        if cid in self._deleted_chats or conn.execute("SELECT 1 FROM conversations WHERE id = ?",
                                                            (cid,)).fetchone():
            cid = new_conversation_id()
        head = Conversation.model_validate({**conv.model_dump(exclude={"messages", "last_failure", "siblings"}),
                                            "id": cid, "messages": []})
        head.title = clip_title(one_line(head.title)) or head.default_title()
        self._insert_conversation(conn, head, chat.title_is_custom)
        conn.execute("INSERT INTO imports (conversation_id, file_sha256, source_id, imported_at, app) "
                     "VALUES (?, ?, ?, ?, ?)", (cid, plan.sha256, chat.source_id, now, plan.app))
        if chat.pinned:
            conn.execute("INSERT INTO chat_pins (conversation_id, pinned_at) VALUES (?, ?)", (cid, now))
        tags: dict[str, str] = {}
        for tag in chat.tags:
            with contextlib.suppress(ValueError):  # a tag of nothing but spaces is no tag
                tags.setdefault(tag_key(tag), clean_tag(tag))
        conn.executemany("INSERT INTO chat_tags (conversation_id, tag) VALUES (?, ?)",
                         [(cid, tag) for tag in tags.values()])
        return cid



def _other_branches(tree: ChatTree) -> int:
    parents = set(tree.parents.values())
    leaves = sum(1 for m in tree.messages if m.id not in parents)
    return max(0, leaves - 1)
