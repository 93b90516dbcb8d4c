"""Writing a chat history as an older version of the app did, for migration tests."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

import pytest

from desktop_agent.core.messages import Message
from desktop_agent.core.store import conversations as store_conversations
from desktop_agent.core.store import schema as store_schema
from desktop_agent.core.store.search import searchable_text

#: the columns of ``messages`` (after id and conversation id) before schema 5 added ``kind`` and ``covers``
COLUMNS_BEFORE_5 = (
    "role, content, thinking, tool_calls, tool_call_id, tool_name, tool_status, duration_ms, "
    "full_content, status, model, backend, created_at"
)


@contextlib.contextmanager
def schema_of_version(monkeypatch: pytest.MonkeyPatch, version: int) -> Iterator[None]:
    """Inside: stores are created at schema ``version`` and write messages with that version's columns."""
    with monkeypatch.context() as m:
        if store_schema._migrate_add_pins_tags not in store_schema.MIGRATIONS[:version]:  # no pins, no tags
            columns = store_conversations._SUMMARY_COLUMNS
            m.setattr(store_conversations, "_SUMMARY_COLUMNS", columns[: columns.index("EXISTS")] + "0, NULL")
            m.setattr(store_conversations, "_PINNED_FIRST", ("", ""))
            m.setattr(store_conversations.ConversationStore, "_forget_labels", lambda *_a: None)
        m.setattr(store_schema, "MIGRATIONS", store_schema.MIGRATIONS[:version])
        if version < 7:  # before the tree: no parent links, no shown branch, no folded search text
            cls = store_conversations.ConversationStore
            m.setattr(cls, "_insert_message", _insert_before_7)
            m.setattr(cls, "_set_leaf", staticmethod(lambda conn, conversation_id, leaf_id: None))
            m.setattr(cls, "_touch_chat", staticmethod(_touch_before_7))
            m.setattr(cls, "_write_text", staticmethod(_write_text_before_7))
            m.setattr(cls, "_fold_title", staticmethod(lambda conn, conversation_id: None))
        if version < 5:
            row = store_conversations.ConversationStore._message_row
            m.setattr(store_conversations, "MESSAGE_COLUMNS", COLUMNS_BEFORE_5)
            m.setattr(store_conversations.ConversationStore, "_message_row",
                      staticmethod(lambda message: row(message)[:13]))
        yield


def _insert_before_7(self, conn: sqlite3.Connection, conversation_id: str, message: Message,
                     parent_id: int | None) -> int:
    row = self._message_row(message)
    cur = conn.execute(
        f"INSERT INTO messages (conversation_id, {store_conversations.MESSAGE_COLUMNS}) "
        f"VALUES (?{', ?' * len(row)})",
        (conversation_id, *row),
    )
    mid = int(cur.lastrowid or 0)
    _write_text_before_7(conn, mid, message)
    return mid


def _write_text_before_7(conn: sqlite3.Connection, mid: int, message: Message) -> None:
    text = searchable_text(message)
    if text:
        conn.execute("INSERT INTO message_text (id, text) VALUES (?, ?)", (mid, text))


def _touch_before_7(conn: sqlite3.Connection, conversation_id: str, message: Message, now: float) -> None:
    conn.execute(
        "UPDATE conversations SET updated_at = ?, model = coalesce(?, model), backend = coalesce(?, backend) "
        "WHERE id = ?",
        (now, message.model, message.backend, conversation_id),
    )


def messages_sql(version_before: int) -> str:
    """A query of the messages' columns that a database of ``version_before`` had, for comparing rows."""
    cols = COLUMNS_BEFORE_5 if version_before < 5 else store_schema.MESSAGE_COLUMNS
    return f"SELECT id, conversation_id, {cols} FROM messages ORDER BY 1"


def tables_before_7() -> dict[str, str]:
    """Queries of ``conversations`` and ``message_text`` with the columns they had before schema 7 (which added
    columns to ``conversations``)."""
    return {
        "conversations": "SELECT id, title, title_is_custom, backend, model, created_at, updated_at "
                         "FROM conversations ORDER BY 1",
        "message_text": "SELECT id, text FROM message_text ORDER BY 1",
    }
