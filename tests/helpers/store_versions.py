"""Writing a chat history as an older version of the app did, for migration tests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from desktop_agent.core.store import conversations as store_conversations
from desktop_agent.core.store import schema as store_schema

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
        if version < 5:
            row = store_conversations.ConversationStore._message_row
            m.setattr(store_conversations, "MESSAGE_COLUMNS", COLUMNS_BEFORE_5)
            m.setattr(store_conversations.ConversationStore, "_message_row",
                      staticmethod(lambda message: row(message)[:13]))
        yield


def messages_sql(version_before: int) -> str:
    """A query of the messages' columns that a database of ``version_before`` had, for comparing rows."""
    cols = COLUMNS_BEFORE_5 if version_before < 5 else store_schema.MESSAGE_COLUMNS
    return f"SELECT id, conversation_id, {cols} FROM messages ORDER BY 1"
