"""ConversationStore: save, update, list, load, rename, delete saved chats (and search, export, import).

A chat keeps its own options (:meth:`ConversationStore.set_options`). A chat whose last turn failed keeps that
failure (:meth:`ConversationStore.set_failure`, returned by :meth:`ConversationStore.load` as
``Conversation.last_failure``) until it is cleared; an imported chat keeps where it came from, so importing the
same chat again adds nothing (:mod:`~desktop_agent.core.store.porting`).

Saving is O(1) in the length of a chat: :meth:`ConversationStore.add_message` inserts one row (and its
index entry) and updates one conversation row in one short transaction, and commits before it returns.

A chat being deleted while its turn still streams stays deleted: once :meth:`ConversationStore.delete`
ran, saving into that chat (``add_message`` / ``update_message``) does nothing. That is decided under
the store's lock, so no save can land between the delete and a later one.
"""

from __future__ import annotations

import builtins
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from desktop_agent.core.errors import AmbiguousConversationId, ConversationNotFound, StoreError
from desktop_agent.core.messages import (
    Conversation,
    Message,
    TurnFailure,
    clean_text,
    new_conversation_id,
)
from desktop_agent.core.settings import chat_options
from desktop_agent.core.store import attachments as attached
from desktop_agent.core.store.database import guarded
from desktop_agent.core.store.folding import fold
from desktop_agent.core.store.labels import TAG_SEPARATOR, ChatFilter, ChatLabels
from desktop_agent.core.store.opening import QUICK_CHECK_MAX_BYTES
from desktop_agent.core.store.porting import Porting
from desktop_agent.core.store.schema import MESSAGE_COLUMNS
from desktop_agent.core.store.search import (
    SearchHit,
    find_matches,
    find_title_matches,
    parse_query,
    searchable_text,
    to_hits,
)
from desktop_agent.core.store.titles import NEW_CHAT_TITLE, clip_title, one_line, title_for
from desktop_agent.core.store.tree import Branches, branch, shown_paths, siblings_of


def _rows_of(rows: builtins.list[tuple], ids: builtins.list[int]) -> builtins.list[tuple]:
    by_id = {r[0]: r for r in rows}
    return [by_id[i] for i in ids]



@dataclass(frozen=True)
class ConversationSummary:
    """One row of :meth:`ConversationStore.list` (times in epoch seconds)."""

    id: str
    title: str
    model: str | None
    backend: str | None
    created_at: float
    updated_at: float
    message_count: int
    title_is_custom: bool = False
    #: pinned on top of the list; its tags (see :mod:`~desktop_agent.core.store.labels`)
    pinned: bool = False
    tags: tuple[str, ...] = ()


#: the columns of a list row (see :func:`_summary`), from ``conversations c``
_SUMMARY_COLUMNS = (
    "c.id, c.title, c.model, c.backend, c.created_at, c.updated_at, "
    "(SELECT count(*) FROM messages m WHERE m.conversation_id = c.id), c.title_is_custom, "
    "EXISTS (SELECT 1 FROM chat_pins p WHERE p.conversation_id = c.id), "
    f"(SELECT group_concat(tag, '{TAG_SEPARATOR}') FROM (SELECT tag FROM chat_tags t WHERE t.conversation_id = c.id "
    "ORDER BY fold(tag), tag))"
)
#: how the list finds the pinned chats (join, condition) and leaves them out of the others (a condition before AND)
_PINNED_FIRST = ("JOIN chat_pins pin ON pin.conversation_id = c.id",
                 "NOT EXISTS (SELECT 1 FROM chat_pins p WHERE p.conversation_id = c.id) AND")


def _summary(r: tuple[Any, ...]) -> ConversationSummary:
    """A list row from ``(id, title, model, backend, created_at, updated_at, message count, title_is_custom,
    pinned, tags)``."""
    return ConversationSummary(r[0], r[1], r[2], r[3], r[4], r[5], r[6], title_is_custom=bool(r[7]),
                               pinned=bool(r[8]), tags=tuple(r[9].split(TAG_SEPARATOR)) if r[9] else ())


class ConversationStore(Porting, Branches, ChatLabels, attached.AttachedFiles):
    """Saved conversations in one SQLite file. Thread-safe; see :mod:`desktop_agent.core.store`.

    ``path`` defaults to :func:`~desktop_agent.core.paths.store_file`. After construction ``warnings``
    holds one line per thing the user should be told (e.g. a damaged database was moved aside; it names
    the kept file). Every method raises :class:`~desktop_agent.core.errors.StoreError` (or a subclass) on
    failure, never ``sqlite3`` errors. ``check_max_bytes``: run ``PRAGMA quick_check`` at start-up when
    the file is at most this big. ``busy_timeout_s``: how long to wait for another process holding a
    write lock.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        check_max_bytes: int = QUICK_CHECK_MAX_BYTES,
        busy_timeout_s: float = 10.0,
    ):
        super().__init__(path, check_max_bytes=check_max_bytes, busy_timeout_s=busy_timeout_s)
        #: chats deleted through this store, and their messages' ids: saving into them does nothing
        self._deleted_chats: set[str] = set()
        self._deleted_message_ids: set[int] = set()
        #: the attached files' bytes, beside the database (``<data folder>/attachments``)
        self.files = attached.AttachmentFiles(self.path.parent / "attachments")

    # -- rows ---------------------------------------------------------------------------------------

    @staticmethod
    def _message_row(message: Message) -> tuple:
        calls = json.dumps([c.model_dump(mode="json") for c in message.tool_calls], ensure_ascii=False)
        return (
            message.role,
            message.content,
            message.thinking,
            calls if message.tool_calls else None,
            message.tool_call_id,
            message.tool_name,
            message.tool_status,
            message.duration_ms,
            message.full_content,
            message.status,
            message.model,
            message.backend,
            message.created_at,
            message.kind,
            message.covers,
        )

    @staticmethod
    def _message_from_row(r: tuple) -> Message:
        return Message.model_validate(
            {
                "id": r[0],
                "role": r[1],
                "content": r[2],
                "thinking": r[3],
                "tool_calls": json.loads(r[4]) if r[4] else [],
                "tool_call_id": r[5],
                "tool_name": r[6],
                "tool_status": r[7],
                "duration_ms": r[8],
                "full_content": r[9],
                "status": r[10],
                "model": r[11],
                "backend": r[12],
                "created_at": r[13],
                "kind": (r[14] if len(r) > 14 else None) or "message",
                "covers": r[15] if len(r) > 15 else None,
            }
        )

    def _insert_message(self, conn: sqlite3.Connection, conversation_id: str, message: Message,
                        parent_id: int | None) -> int:
        """Insert ``message`` under ``parent_id`` (and its search text); sets ``message.parent_id``."""
        row = self._message_row(message)
        cur = conn.execute(
            f"INSERT INTO messages (conversation_id, {MESSAGE_COLUMNS}, parent_id) VALUES (?{', ?' * len(row)}, ?)",
            (conversation_id, *row, parent_id),
        )
        mid = int(cur.lastrowid or 0)
        message.parent_id = parent_id
        if message.attachments:
            attached.save(conn, self.files, mid, message.attachments)
        self._write_text(conn, mid, message)
        return mid

    @staticmethod
    def _write_text(conn: sqlite3.Connection, mid: int, message: Message) -> None:
        text = searchable_text(message)
        if text:
            conn.execute("INSERT INTO message_text (id, text) VALUES (?, ?)", (mid, text))
            conn.execute("INSERT INTO message_folded (id, folded) VALUES (?, ?)", (mid, fold(text)))

    @staticmethod
    def _fold_title(conn: sqlite3.Connection, conversation_id: str) -> None:
        """Keep the chat's folded title (what search matches) in step with its title."""
        row = conn.execute("SELECT title FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
        if row is not None:
            conn.execute("UPDATE conversations SET folded_title = ? WHERE id = ?", (fold(row[0]), conversation_id))

    @staticmethod
    def _touch_chat(conn: sqlite3.Connection, conversation_id: str, message: Message, now: float) -> None:
        """A message was added to a saved chat: its time, model and backend, and the branch it shows (the
        message's)."""
        conn.execute(
            "UPDATE conversations SET updated_at = ?, model = coalesce(?, model), backend = coalesce(?, backend), "
            "leaf_id = ? WHERE id = ?",
            (now, message.model, message.backend, message.id, conversation_id),
        )

    @staticmethod
    def _set_leaf(conn: sqlite3.Connection, conversation_id: str, leaf_id: int | None) -> None:
        """Make the branch ending at ``leaf_id`` the one the chat shows."""
        conn.execute("UPDATE conversations SET leaf_id = ? WHERE id = ?", (leaf_id, conversation_id))

    @staticmethod
    def _write_options(conn: sqlite3.Connection, conversation_id: str, options: dict) -> None:
        """Save a chat's options (its ``chat_options`` row; no row when it has none)."""
        options = chat_options(options)
        if options:
            conn.execute(
                "INSERT OR REPLACE INTO chat_options (conversation_id, options) VALUES (?, ?)",
                (conversation_id, json.dumps(options, ensure_ascii=False)),
            )
        else:
            conn.execute("DELETE FROM chat_options WHERE conversation_id = ?", (conversation_id,))

    @staticmethod
    def _options_from_json(text: str | None) -> dict:
        try:
            return chat_options(json.loads(text)) if text else {}
        except ValueError:  # a damaged value costs only the chat's options
            return {}

    def _insert_conversation(self, conn: sqlite3.Connection, conversation: Conversation, title_is_custom: bool) -> None:
        conn.execute(
            "INSERT INTO conversations (id, title, title_is_custom, backend, model, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                conversation.id,
                conversation.title or conversation.default_title(),
                int(title_is_custom),
                conversation.backend,
                conversation.model,
                conversation.created_at,
                conversation.updated_at,
            ),
        )
        self._fold_title(conn, conversation.id)
        if conversation.options:
            self._write_options(conn, conversation.id, conversation.options)
        parent_id = None
        for message in conversation.messages:
            message.id = parent_id = self._insert_message(conn, conversation.id, message, parent_id)
        self._set_leaf(conn, conversation.id, parent_id)

    # -- saving -------------------------------------------------------------------------------------

    @guarded
    def add_message(self, conversation: Conversation, message: Message, *,
                    parent_id: int | Literal["previous"] | None = "previous") -> None:
        """Save ``message`` as the next message of ``conversation`` and commit before returning.

        Its parent in the chat's tree is ``parent_id`` (None: a first message); by default (``"previous"``) the
        message before it in ``conversation.messages`` (when it is not in the list: the last message of the branch
        the chat shows). The branch it ends becomes the one the chat shows (``leaf_id``).

        The chat row is created with the first message (title: ``conversation.title`` if the caller set
        one, else :meth:`Conversation.default_title`, filled in from the first user message; its options:
        ``conversation.options`` as they are then — later changes go through :meth:`set_options`). Sets
        ``message.id``; bumps the chat's ``updated_at`` (and its model/backend to the message's).
        A message that already has an id saved in this chat is updated instead (see
        :meth:`update_message`). Cost is independent of the chat's length. Does nothing when the chat
        was deleted through this store (a turn still streaming into it does not bring it back).
        """
        now = time.time()
        with self._lock:
            if conversation.id in self._deleted_chats:
                return
            with self.write() as conn:
                if message.id is not None:
                    row = conn.execute("SELECT conversation_id FROM messages WHERE id = ?", (message.id,)).fetchone()
                    if row is not None and row[0] == conversation.id:
                        self._update_message(conn, message, now)
                        return
                row = conn.execute(
                    "SELECT title, title_is_custom FROM conversations WHERE id = ?", (conversation.id,)
                ).fetchone()
                if row is None:
                    default = title_for(conversation, message)
                    custom = bool(conversation.title.strip()) and conversation.title != default
                    title = conversation.title.strip() if custom else default
                    conn.execute(
                        "INSERT INTO conversations (id, title, title_is_custom, backend, model, created_at, "
                        "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (
                            conversation.id,
                            title,
                            int(custom),
                            message.backend or conversation.backend,
                            message.model or conversation.model,
                            conversation.created_at,
                            now,
                        ),
                    )
                    self._fold_title(conn, conversation.id)
                    if conversation.options:
                        self._write_options(conn, conversation.id, conversation.options)
                parent = (self._previous_id(conn, conversation, message, row is not None) if parent_id == "previous"
                          else parent_id)
                message.id = self._insert_message(conn, conversation.id, message, parent)
                if row is None:
                    self._set_leaf(conn, conversation.id, message.id)
                else:
                    title, custom = row[0], bool(row[1])
                    if not custom and title == NEW_CHAT_TITLE and message.role == "user" and message.content.strip():
                        title = title_for(conversation, message)
                        conn.execute("UPDATE conversations SET title = ? WHERE id = ?", (title, conversation.id))
                        self._fold_title(conn, conversation.id)
                    self._touch_chat(conn, conversation.id, message, now)
        conversation.updated_at = now
        if not conversation.title:
            conversation.title = title

    @staticmethod
    def _previous_id(conn: sqlite3.Connection, conversation: Conversation, message: Message, saved: bool) -> int | None:
        """The parent of ``message``: the message before it in ``conversation.messages``; when it is not in the list
        (or the one before it was never saved), the last message of the branch the saved chat shows."""
        messages = conversation.messages
        index = next((i for i in range(len(messages) - 1, -1, -1) if messages[i] is message), None)
        if index == 0:
            return None
        if index is not None and messages[index - 1].id is not None:
            return messages[index - 1].id
        if not saved:
            return None
        row = conn.execute("SELECT leaf_id FROM conversations WHERE id = ?", (conversation.id,)).fetchone()
        return row[0] if row else None

    def _update_message(self, conn: sqlite3.Connection, message: Message, now: float) -> None:
        cur = conn.execute(
            "UPDATE messages SET role = ?, content = ?, thinking = ?, tool_calls = ?, tool_call_id = ?, "
            "tool_name = ?, tool_status = ?, duration_ms = ?, full_content = ?, status = ?, model = ?, "
            "backend = ?, created_at = ?, kind = ?, covers = ? WHERE id = ?",
            (*self._message_row(message), message.id),
        )
        if cur.rowcount == 0:
            raise StoreError(f"Message {message.id} is not in the chat history; it can't be updated.")
        conn.execute("DELETE FROM message_text WHERE id = ?", (message.id,))
        self._write_text(conn, int(message.id or 0), message)
        conn.execute(
            "UPDATE conversations SET updated_at = ? WHERE id = (SELECT conversation_id FROM messages WHERE id = ?)",
            (now, message.id),
        )

    @guarded
    def delete_message(self, message: Message) -> None:
        """Delete one saved message (``message.id`` set) and its index entry — an undone summary; the messages
        that followed it follow its parent instead. Does nothing for a message that was never saved or is gone
        already."""
        if message.id is None:
            return
        with self._lock:
            with self.write() as conn:
                row = conn.execute("SELECT conversation_id, parent_id FROM messages WHERE id = ?",
                                   (message.id,)).fetchone()
                if row is None:
                    return
                conn.execute("UPDATE messages SET parent_id = ? WHERE parent_id = ? AND conversation_id = ?",
                             (row[1], message.id, row[0]))
                conn.execute("UPDATE conversations SET leaf_id = ? WHERE id = ? AND leaf_id = ?",
                             (row[1], row[0], message.id))
                conn.execute("DELETE FROM message_text WHERE id = ?", (message.id,))
                conn.execute("DELETE FROM messages WHERE id = ?", (message.id,))
                gone = attached.unused(conn)
            self._remove_files(gone)

    @guarded
    def update_message(self, message: Message) -> None:
        """Rewrite a saved message (``message.id`` set) — e.g. a partial answer that went on or was stopped.

        Raises :class:`StoreError` when the message was never saved; does nothing when its chat was
        deleted through this store.
        """
        if message.id is None:
            raise StoreError("This message was never saved, so it can't be updated; use add_message.")
        with self._lock:
            if message.id in self._deleted_message_ids:
                return
            with self.write() as conn:
                self._update_message(conn, message, time.time())

    def _fresh_id_if_deleted(self, conversation: Conversation) -> None:
        """A chat inserted again under the id of one deleted through this store gets a new id, so a late
        save into the deleted chat can never land in it (callers hold the lock)."""
        if conversation.id in self._deleted_chats:
            conversation.id = new_conversation_id()

    @guarded
    def add_conversations(self, conversations: Iterable[Conversation]) -> list[str]:
        """Insert whole conversations (new ids required) in ONE transaction; returns their ids.

        For imports and bulk loads (the benchmark). Titles: ``conversation.title`` or the default title;
        ``updated_at`` is kept as given. Sets every ``message.id``.
        """
        ids = []
        with self.write() as conn:
            for conv in conversations:
                self._fresh_id_if_deleted(conv)
                custom = bool(conv.title) and conv.title != conv.default_title()
                self._insert_conversation(conn, conv, custom)
                ids.append(conv.id)
        return ids

    # -- reading ------------------------------------------------------------------------------------

    @guarded
    def count(self, where: ChatFilter | None = None) -> int:
        """How many chats are saved (``where``: that the filter lets through)."""
        if where is None or where.empty:
            return self.read("SELECT count(*) FROM conversations")[0][0]
        sql, params = where.where()
        return self.read(f"SELECT count(*) FROM conversations c WHERE {sql}", params)[0][0]

    @guarded
    def list(self, limit: int = 50, offset: int = 0, where: ChatFilter | None = None) -> list[ConversationSummary]:
        """Chats, pinned ones first (newest pin first), then the most recently updated first; ``limit``/``offset``
        page through them; ``where``: only those the filter lets through."""
        sql, params = (where or ChatFilter()).where()
        limit, offset = max(0, int(limit)), max(0, int(offset))
        with self._lock:  # (one snapshot: no save lands between the queries)
            # the pinned chats (a few), then the others newest first through the updated_at index, stopping at the
            # page's end; the columns (a message count, the tags) only for the rows of the page
            pinned = [r[0] for r in self.conn.execute(
                f"SELECT c.id FROM conversations c {_PINNED_FIRST[0]} WHERE {sql} "
                "ORDER BY pin.pinned_at DESC", params)] if _PINNED_FIRST[0] else []
            ids = pinned[offset:offset + limit]
            if len(ids) < limit:
                rest = self.conn.execute(
                    f"SELECT c.id FROM conversations c WHERE {_PINNED_FIRST[1]} {sql} "
                    "ORDER BY c.updated_at DESC, c.id DESC LIMIT ? OFFSET ?",
                    (*params, limit - len(ids), max(0, offset - len(pinned))))
                ids += [r[0] for r in rest]
            rows = self.conn.execute(
                f"SELECT {_SUMMARY_COLUMNS} FROM conversations c WHERE c.id IN ({', '.join('?' * len(ids))})",
                ids).fetchall() if ids else []
        by_id = {r[0]: r for r in rows}
        return [_summary(by_id[i]) for i in ids if i in by_id]

    @guarded
    def summary(self, conversation_id: str) -> ConversationSummary:
        """The list row of one chat. Raises :class:`ConversationNotFound`."""
        rows = self.read(f"SELECT {_SUMMARY_COLUMNS} FROM conversations c WHERE c.id = ?", (conversation_id,))
        if not rows:
            raise ConversationNotFound(conversation_id)
        r = rows[0]
        return _summary(r)

    @guarded
    def resolve(self, ref: str) -> str:
        """The full id of the chat whose id is ``ref`` or starts with ``ref``.

        Raises :class:`ConversationNotFound` or :class:`AmbiguousConversationId`.
        """
        ref = ref.strip()
        if not ref:
            raise ConversationNotFound(ref)
        if self.read("SELECT 1 FROM conversations WHERE id = ?", (ref,)):
            return ref
        rows = self.read(
            "SELECT id FROM conversations WHERE substr(id, 1, ?) = ? ORDER BY updated_at DESC LIMIT 20",
            (len(ref), ref),
        )
        if not rows:
            raise ConversationNotFound(ref)
        if len(rows) > 1:
            raise AmbiguousConversationId(ref, [r[0] for r in rows])
        return rows[0][0]

    @guarded
    def load(self, conversation_id: str) -> Conversation:
        """The chat with all its messages in order (``message.id`` set), its options (see :meth:`set_options`)
        and how its last turn failed (``last_failure``, see :meth:`set_failure`). Raises
        :class:`ConversationNotFound`."""
        with self._lock:
            head = self.conn.execute(
                "SELECT id, title, backend, model, created_at, updated_at, leaf_id FROM conversations WHERE id = ?",
                (conversation_id,),
            ).fetchone()
            if head is None:
                raise ConversationNotFound(conversation_id)
            rows = self.conn.execute(
                f"SELECT id, {MESSAGE_COLUMNS}, parent_id FROM messages WHERE conversation_id = ? ORDER BY id",
                (conversation_id,),
            ).fetchall()
            failure = self.conn.execute(
                "SELECT kind, text, failed_at FROM turn_failures WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()
            options = self.conn.execute(
                "SELECT options FROM chat_options WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()
            files = attached.load(self.conn, self.files, conversation_id)
        parents = {r[0]: r[-1] for r in rows}
        shown = branch(parents, head[6])
        try:
            messages = [self._message_from_row(rows_by_id) for rows_by_id in _rows_of(rows, shown)]
        except ValueError as exc:  # pydantic ValidationError: a row this version can't read
            raise StoreError(f"Chat {conversation_id} has a message this version can't read: {exc}") from exc
        for m in messages:
            m.parent_id = parents[m.id] if m.id is not None else None
            m.attachments = files.get(m.id or 0, [])
        return Conversation(
            id=head[0], title=head[1], backend=head[2], model=head[3], created_at=head[4], updated_at=head[5],
            messages=messages, options=self._options_from_json(options[0] if options else None),
            siblings=siblings_of(parents, shown),
            last_failure=TurnFailure(kind=failure[0], text=failure[1], failed_at=failure[2]) if failure else None,
        )

    @guarded
    def tree(self, conversation_id: str) -> builtins.list[Message]:
        """Every message of the chat, on every branch, oldest first, each with its ``parent_id`` (the branch
        shown ends at :meth:`leaf_id`). Raises :class:`ConversationNotFound`."""
        with self._lock:
            if not self.conn.execute("SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)).fetchone():
                raise ConversationNotFound(conversation_id)
            rows = self.conn.execute(
                f"SELECT id, {MESSAGE_COLUMNS}, parent_id FROM messages WHERE conversation_id = ? ORDER BY id",
                (conversation_id,),
            ).fetchall()
            files = attached.load(self.conn, self.files, conversation_id)
        messages = [self._message_from_row(r) for r in rows]
        for m, r in zip(messages, rows, strict=True):
            m.parent_id = r[-1]
            m.attachments = files.get(m.id or 0, [])
        return messages

    @guarded
    def title_is_custom(self, conversation_id: str) -> bool:
        rows = self.read("SELECT title_is_custom FROM conversations WHERE id = ?", (conversation_id,))
        if not rows:
            raise ConversationNotFound(conversation_id)
        return bool(rows[0][0])

    @guarded
    def search(self, text: str, limit: int = 50, cancel: threading.Event | None = None) -> builtins.list[SearchHit]:
        """Messages containing every term of ``text``, and chats whose title contains every term: the
        ``limit`` newest, newest first (a title hit is dated by its chat's last message).

        A title hit (:attr:`SearchHit.in_title`) points at the chat's first message and its snippet is the
        title; a chat whose title is its first message (the default title) gets no title hit when that message
        is already a hit. Terms are words separated by spaces or ``"quoted phrases"``; matching is by substring,
        case- and accent-insensitive in every script (:mod:`~desktop_agent.core.store.folding`: Polish ł,
        Greek tonos and final sigma, Turkish ı/İ, NFC and NFD spellings alike), so ``C++``, ``AND``, quotes
        or Chinese text are plain text, never query syntax. Terms of 3+ characters use the FTS5 index; shorter
        ones (e.g. ``天气``) are matched by scanning the message text (about 50 ms per 200,000 messages).
        An empty query returns ``[]``.

        Hits on the branches the chats show come first; a hit on another branch (an earlier version of an
        answer) follows them — opening it shows that branch (:meth:`switch_branch`).

        It runs on the store's search connection (:meth:`reading`): from any thread, never waiting for a save.
        ``cancel`` set while it runs (the user typed on): it stops and returns ``[]``.
        """
        terms = parse_query(clean_text(text))
        if not terms or (cancel is not None and cancel.is_set()):
            return []
        try:
            with self.reading(cancel) as conn:
                matches = find_matches(conn, terms, limit)
                titles = find_title_matches(conn, terms, limit)
                shown = shown_paths(conn, {m[1] for m in matches} | {t[0] for t in titles})
        except sqlite3.OperationalError:
            if cancel is not None and cancel.is_set():
                return []
            raise
        # a title hit opens the chat as it is shown (its first message on the branch shown)
        titles = [(*t[:4], shown[t[0]][0] if shown.get(t[0]) else t[4]) for t in titles]
        on_shown = {mid for path in shown.values() for mid in path}
        return to_hits(matches, terms, titles, on_shown)[: max(0, int(limit))]

    # -- failed turns -------------------------------------------------------------------------------

    @guarded
    def set_failure(self, conversation_id: str, kind: str, text: str) -> None:
        """Remember that the last turn of the chat failed: ``kind`` (the error's class name) and ``text``
        (``str(error)``), now; replaces an earlier failure. Does nothing when the chat is not saved (the turn
        failed before its first message) or was deleted through this store. Does not change ``updated_at``."""
        with self._lock:
            if conversation_id in self._deleted_chats:
                return
            with self.write() as conn:
                conn.execute(
                    "INSERT OR REPLACE INTO turn_failures (conversation_id, kind, text, failed_at) "
                    "SELECT id, ?, ?, ? FROM conversations WHERE id = ?",
                    (clean_text(kind), clean_text(text), time.time(), conversation_id),
                )

    @guarded
    def clear_failure(self, conversation_id: str) -> None:
        """Forget the chat's failed last turn (a later turn started with a new message, answered or was
        stopped). Writes only when there is one to forget."""
        with self._lock:
            if not self.read("SELECT 1 FROM turn_failures WHERE conversation_id = ?", (conversation_id,)):
                return
            with self.write() as conn:
                conn.execute("DELETE FROM turn_failures WHERE conversation_id = ?", (conversation_id,))

    # -- options ------------------------------------------------------------------------------------

    @guarded
    def set_options(self, conversation_id: str, options: dict) -> bool:
        """Save a chat's options (:attr:`Conversation.options`: its own setting overrides; only the keys of
        :data:`~desktop_agent.core.settings.CHAT_OPTION_KEYS` are kept). Returns False and does nothing when
        the chat is not saved (a new chat's options are saved with its first message) or was deleted through
        this store. Does not change ``updated_at``."""
        with self._lock:
            if conversation_id in self._deleted_chats:
                return False
            with self.write() as conn:
                if not conn.execute("SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)).fetchone():
                    return False
                self._write_options(conn, conversation_id, options)
            return True

    # -- changing -----------------------------------------------------------------------------------

    @guarded
    def rename(self, conversation_id: str, title: str) -> None:
        """Set a chat's title; an empty title goes back to the default (first user message).

        Lone surrogates become U+FFFD and the title is cut to
        :data:`~desktop_agent.core.store.titles.MAX_TITLE_CHARS` characters.
        Does not change ``updated_at`` (the list order). Raises :class:`ConversationNotFound`.
        """
        title = clip_title(one_line(clean_text(title)))
        with self.write() as conn:
            if title:
                cur = conn.execute(
                    "UPDATE conversations SET title = ?, title_is_custom = 1 WHERE id = ?", (title, conversation_id)
                )
            else:
                first = conn.execute(
                    "SELECT content FROM messages WHERE conversation_id = ? AND role = 'user' "
                    "AND trim(content) != '' ORDER BY id LIMIT 1",
                    (conversation_id,),
                ).fetchone()
                default = (
                    Conversation(messages=[Message(role="user", content=first[0])]).default_title()
                    if first
                    else NEW_CHAT_TITLE
                )
                cur = conn.execute(
                    "UPDATE conversations SET title = ?, title_is_custom = 0 WHERE id = ?", (default, conversation_id)
                )
            if cur.rowcount == 0:
                raise ConversationNotFound(conversation_id)
            self._fold_title(conn, conversation_id)

    @guarded
    def delete(self, conversation_id: str) -> None:
        """Delete a chat, its messages and their index entries. Raises :class:`ConversationNotFound`.

        From then on saving into that chat through this store does nothing (see the module docstring).
        """
        with self._lock:
            with self.write() as conn:
                message_ids = [
                    r[0] for r in conn.execute("SELECT id FROM messages WHERE conversation_id = ?", (conversation_id,))
                ]
                conn.execute(
                    "DELETE FROM message_text WHERE id IN (SELECT id FROM messages WHERE conversation_id = ?)",
                    (conversation_id,),
                )
                conn.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))
                gone = attached.unused(conn)
                conn.execute("DELETE FROM turn_failures WHERE conversation_id = ?", (conversation_id,))
                conn.execute("DELETE FROM imports WHERE conversation_id = ?", (conversation_id,))
                conn.execute("DELETE FROM imported_messages WHERE conversation_id = ?", (conversation_id,))
                conn.execute("DELETE FROM chat_options WHERE conversation_id = ?", (conversation_id,))
                self._forget_labels(conn, conversation_id)
                conn.execute("DELETE FROM tool_calls WHERE conversation_id = ?", (conversation_id,))
                found = conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,)).rowcount > 0
            self._deleted_chats.add(conversation_id)
            self._deleted_message_ids.update(message_ids)
            self._remove_files(gone)
        if not found:
            raise ConversationNotFound(conversation_id)
