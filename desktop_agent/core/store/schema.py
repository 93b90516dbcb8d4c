"""The tables of the chat history database and the migrations that create and change them.

- ``conversations``: id, title, title_is_custom, backend, model, created_at, updated_at
  (times are Unix epoch seconds, floats).
- ``messages``: one row per :class:`~desktop_agent.core.messages.Message` — every field of it;
  ``tool_calls`` is a JSON list of :class:`~desktop_agent.core.messages.ToolCall` dicts (NULL when
  there are none). The row id is ``Message.id``.
- ``message_text``: each message's searchable text (its content plus the names and arguments of its
  tool calls), row id = message id; ``message_fts`` is an external-content FTS5 index over it
  (``trigram`` tokenizer, so substrings and Chinese text are found), kept in sync by triggers.
- ``turn_failures`` (schema 2): the failure of a chat's last turn, one row per chat at most —
  conversation id, ``kind`` (the error's class name), ``text`` (``str(error)``), ``failed_at``.
- ``imports`` (schema 3): where an imported chat came from — conversation id, ``file_sha256`` (of the file's
  bytes), ``source_id`` (the chat id written in our JSON export, NULL for other files), ``imported_at``.
- ``chat_options`` (schema 4): a chat's own setting overrides
  (:attr:`~desktop_agent.core.messages.Conversation.options`) — conversation id, ``options`` (a JSON object);
  no row = none.
- ``messages.kind`` and ``messages.covers`` (schema 5): ``'summary'`` for a summary of the chat's first
  ``covers`` messages (a compaction; see :mod:`desktop_agent.core.compaction`), ``'message'`` otherwise.
- ``tool_rules`` (schema 5): the permission rules the user made (:mod:`~desktop_agent.core.store.rules`) — id,
  ``tool``, ``scope`` (tool / args / path / command / host), ``value`` (NULL for tool), ``policy`` (allow / ask /
  deny), ``source``, ``created_at``, ``last_used_at``; one row per tool and scope.
- ``tool_calls`` (schema 5): the audit of every tool call (:mod:`~desktop_agent.core.store.toolcalls`) — id,
  conversation id, ``call_id``, ``tool``, ``arguments`` (JSON), ``decision`` (allow / deny, NULL when the call
  never reached the check), ``decided_by`` (rule / user / default), ``rule_id``, ``reason``, ``status``,
  ``duration_ms``, ``started_at``.
- ``tool_calls.source`` (schema 6): who made the call — ``chat`` (a chat's turn; ``conversation_id`` set) or
  ``mcp client`` (``desktop-agent mcp serve``: another app's call, ``conversation_id`` NULL).
- ``imports.app`` and ``imported_messages`` (:func:`_migrate_add_import_sources`): which app an imported chat
  came from (``desktop-agent``, ``seed``, ``chatgpt``, ``openwebui``; with ``source_id`` the chat's id there), and
  for each imported message its id in the source (``source_key``, unique per chat) — so importing the same file
  again adds nothing and a later export of the same chat adds only its new messages
  (:mod:`~desktop_agent.core.store.porting`). A message deleted here keeps its row, so importing again does not
  bring back what the user deleted.
- ``attachments`` (schema: :func:`_migrate_add_attachments`): each attached file once, by the SHA-256 of its
  bytes — ``sha256``, ``mime``, ``size``, ``kind`` (text / pdf / image), ``text`` (what the model reads of a text
  file or PDF), ``truncated``, ``created_at``; its bytes are a file under the data folder
  (:mod:`~desktop_agent.core.store.attachments`). ``message_attachments``: which message has which file —
  ``message_id``, ``position``, ``sha256``, ``name`` (the file's name as attached). A file no message uses any more
  is removed (its row and its bytes).
- ``chat_pins`` and ``chat_tags`` (:func:`_migrate_add_pins_tags`): the chats pinned on top of the history
  (conversation id, ``pinned_at``) and each chat's tags (conversation id, ``tag``; one row per tag) — see
  :mod:`desktop_agent.core.store.labels`.
- Rows of ``turn_failures``, ``imports``, ``chat_options``, ``chat_pins``, ``chat_tags`` and ``tool_calls`` go
  with their chat
  (``ON DELETE CASCADE``; the store also deletes them itself).
- ``messages.parent_id`` and ``conversations.leaf_id`` (schema 7, :func:`_migrate_add_tree`): a chat is a tree of
  messages — each message's parent (NULL for a first message), so regenerated answers and edited messages are
  siblings; ``leaf_id`` is the last message of the branch the chat shows (and continues). The migration makes
  each message's parent the previous message of its chat and the leaf its last message.
- ``message_folded`` (schema 7): each message's searchable text case- and accent-folded
  (:func:`~desktop_agent.core.store.folding.fold`), row id = message id; ``message_fts`` indexes it (column
  ``folded``) instead of ``message_text``; deleting a ``message_text`` row deletes its folded copy (trigger).
  ``conversations.folded_title``: the title folded. The store writes both with the text and the title.
- ``PRAGMA user_version`` is the schema version; :data:`MIGRATIONS` lists the functions that bring a
  database from version *n* to *n + 1* (:func:`desktop_agent.core.store.opening.migrate` runs them).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from desktop_agent.core.store.folding import fold

#: The columns of ``messages`` after its id and conversation id, in the order the store reads and writes them.
MESSAGE_COLUMNS = (
    "role, content, thinking, tool_calls, tool_call_id, tool_name, tool_status, duration_ms, "
    "full_content, status, model, backend, created_at, kind, covers"
)


def _migrate_to_1(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            title_is_custom INTEGER NOT NULL DEFAULT 0,
            backend TEXT,
            model TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX conversations_by_update ON conversations (updated_at, id)")
    conn.execute(
        """CREATE TABLE messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            role TEXT NOT NULL,
            content TEXT NOT NULL DEFAULT '',
            thinking TEXT NOT NULL DEFAULT '',
            tool_calls TEXT,
            tool_call_id TEXT,
            tool_name TEXT,
            tool_status TEXT,
            duration_ms REAL,
            full_content TEXT,
            status TEXT NOT NULL DEFAULT 'complete',
            model TEXT,
            backend TEXT,
            created_at REAL NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX messages_by_conversation ON messages (conversation_id, id)")
    conn.execute("CREATE TABLE message_text (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
    conn.execute(
        "CREATE VIRTUAL TABLE message_fts USING fts5 "
        "(text, content = 'message_text', content_rowid = 'id', tokenize = 'trigram')"
    )
    conn.execute(
        "CREATE TRIGGER message_text_ai AFTER INSERT ON message_text BEGIN "
        "INSERT INTO message_fts (rowid, text) VALUES (new.id, new.text); END"
    )
    conn.execute(
        "CREATE TRIGGER message_text_ad AFTER DELETE ON message_text BEGIN "
        "INSERT INTO message_fts (message_fts, rowid, text) VALUES ('delete', old.id, old.text); END"
    )
    conn.execute(
        "CREATE TRIGGER message_text_au AFTER UPDATE ON message_text BEGIN "
        "INSERT INTO message_fts (message_fts, rowid, text) VALUES ('delete', old.id, old.text); "
        "INSERT INTO message_fts (rowid, text) VALUES (new.id, new.text); END"
    )


def _migrate_to_2(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE turn_failures (
            conversation_id TEXT PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            failed_at REAL NOT NULL
        )"""
    )


def _migrate_to_3(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE imports (
            conversation_id TEXT PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
            file_sha256 TEXT NOT NULL,
            source_id TEXT,
            imported_at REAL NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX imports_by_file ON imports (file_sha256)")
    conn.execute("CREATE INDEX imports_by_source ON imports (source_id)")


def _migrate_to_4(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE chat_options (
            conversation_id TEXT PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
            options TEXT NOT NULL
        )"""
    )


def _migrate_to_5(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE messages ADD COLUMN kind TEXT NOT NULL DEFAULT 'message'")
    conn.execute("ALTER TABLE messages ADD COLUMN covers INTEGER")
    conn.execute(
        """CREATE TABLE tool_rules (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            tool TEXT NOT NULL,
            scope TEXT NOT NULL,
            value TEXT,
            policy TEXT NOT NULL,
            source TEXT NOT NULL DEFAULT 'user',
            created_at REAL NOT NULL,
            last_used_at REAL
        )"""
    )
    conn.execute("CREATE UNIQUE INDEX tool_rules_by_scope ON tool_rules (tool, scope, IFNULL(value, ''))")
    conn.execute(
        """CREATE TABLE tool_calls (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            call_id TEXT,
            tool TEXT NOT NULL,
            arguments TEXT NOT NULL,
            decision TEXT,
            decided_by TEXT,
            rule_id INTEGER,
            reason TEXT,
            status TEXT NOT NULL,
            duration_ms REAL,
            started_at REAL NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX tool_calls_by_conversation ON tool_calls (conversation_id, id)")


def _migrate_to_6(conn: sqlite3.Connection) -> None:
    # a call may come from no chat (an MCP client of `desktop-agent mcp serve`): conversation_id may be NULL,
    # which SQLite can only change by rebuilding the table
    conn.execute(
        """CREATE TABLE tool_calls_6 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_id TEXT REFERENCES conversations (id) ON DELETE CASCADE,
            call_id TEXT,
            tool TEXT NOT NULL,
            arguments TEXT NOT NULL,
            decision TEXT,
            decided_by TEXT,
            rule_id INTEGER,
            reason TEXT,
            status TEXT NOT NULL,
            duration_ms REAL,
            started_at REAL NOT NULL,
            source TEXT NOT NULL DEFAULT 'chat'
        )"""
    )
    conn.execute(
        "INSERT INTO tool_calls_6 (id, conversation_id, call_id, tool, arguments, decision, decided_by, rule_id, "
        "reason, status, duration_ms, started_at) SELECT id, conversation_id, call_id, tool, arguments, decision, "
        "decided_by, rule_id, reason, status, duration_ms, started_at FROM tool_calls"
    )
    conn.execute("DROP TABLE tool_calls")
    conn.execute("ALTER TABLE tool_calls_6 RENAME TO tool_calls")
    conn.execute("CREATE INDEX tool_calls_by_conversation ON tool_calls (conversation_id, id)")
    conn.execute("CREATE INDEX tool_calls_by_source ON tool_calls (source, id)")


def _migrate_add_tree(conn: sqlite3.Connection) -> None:
    # the chat becomes a tree: each message's parent is the previous message of its chat, the leaf its last
    conn.execute("ALTER TABLE messages ADD COLUMN parent_id INTEGER")
    conn.execute("ALTER TABLE conversations ADD COLUMN leaf_id INTEGER")
    conn.execute(
        "UPDATE messages SET parent_id = (SELECT max(p.id) FROM messages p "
        "WHERE p.conversation_id = messages.conversation_id AND p.id < messages.id)"
    )
    conn.execute(
        "UPDATE conversations SET leaf_id = (SELECT max(id) FROM messages WHERE conversation_id = conversations.id)"
    )
    conn.execute("CREATE INDEX messages_by_parent ON messages (conversation_id, parent_id, id)")
    # search becomes case- and accent-insensitive: the index is rebuilt over the folded text, kept in a table of
    # its own (a scan for a short term reads it alone, not past the original text), and titles get a folded copy
    conn.create_function("fold", 1, fold, deterministic=True)
    for name in ("message_text_ai", "message_text_ad", "message_text_au"):
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("DROP TABLE message_fts")
    conn.execute("CREATE TABLE message_folded (id INTEGER PRIMARY KEY, folded TEXT NOT NULL)")
    conn.execute("INSERT INTO message_folded (id, folded) SELECT id, fold(text) FROM message_text")
    conn.execute(
        "CREATE TRIGGER message_text_ad AFTER DELETE ON message_text BEGIN "
        "DELETE FROM message_folded WHERE id = old.id; END"
    )
    conn.execute(
        "CREATE VIRTUAL TABLE message_fts USING fts5 "
        "(folded, content = 'message_folded', content_rowid = 'id', tokenize = 'trigram')"
    )
    conn.execute(
        "CREATE TRIGGER message_folded_ai AFTER INSERT ON message_folded BEGIN "
        "INSERT INTO message_fts (rowid, folded) VALUES (new.id, new.folded); END"
    )
    conn.execute(
        "CREATE TRIGGER message_folded_ad AFTER DELETE ON message_folded BEGIN "
        "INSERT INTO message_fts (message_fts, rowid, folded) VALUES ('delete', old.id, old.folded); END"
    )
    conn.execute(
        "CREATE TRIGGER message_folded_au AFTER UPDATE ON message_folded BEGIN "
        "INSERT INTO message_fts (message_fts, rowid, folded) VALUES ('delete', old.id, old.folded); "
        "INSERT INTO message_fts (rowid, folded) VALUES (new.id, new.folded); END"
    )
    conn.execute("INSERT INTO message_fts (message_fts) VALUES ('rebuild')")
    conn.execute("ALTER TABLE conversations ADD COLUMN folded_title TEXT NOT NULL DEFAULT ''")
    conn.execute("UPDATE conversations SET folded_title = fold(title)")


def _migrate_add_import_sources(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE imports ADD COLUMN app TEXT NOT NULL DEFAULT 'desktop-agent'")
    conn.execute("CREATE INDEX imports_by_app_source ON imports (app, source_id)")
    conn.execute(
        """CREATE TABLE imported_messages (
            message_id INTEGER PRIMARY KEY,
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            source_key TEXT NOT NULL
        )"""
    )
    conn.execute("CREATE UNIQUE INDEX imported_messages_by_key ON imported_messages (conversation_id, source_key)")


def _migrate_add_attachments(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE attachments (
            sha256 TEXT PRIMARY KEY,
            mime TEXT NOT NULL,
            size INTEGER NOT NULL,
            kind TEXT NOT NULL,
            text TEXT NOT NULL DEFAULT '',
            truncated INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL
        )"""
    )
    conn.execute(
        """CREATE TABLE message_attachments (
            message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            sha256 TEXT NOT NULL REFERENCES attachments (sha256),
            name TEXT NOT NULL,
            PRIMARY KEY (message_id, position)
        )"""
    )
    conn.execute("CREATE INDEX message_attachments_by_file ON message_attachments (sha256)")


def _migrate_add_pins_tags(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE chat_pins (
            conversation_id TEXT PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
            pinned_at REAL NOT NULL
        )"""
    )
    conn.execute(
        """CREATE TABLE chat_tags (
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (conversation_id, tag)
        )"""
    )
    conn.execute("CREATE INDEX chat_tags_by_tag ON chat_tags (tag, conversation_id)")
    conn.execute("CREATE INDEX conversations_by_model ON conversations (model)")


#: ``MIGRATIONS[n]`` brings a database from schema version ``n`` to ``n + 1`` (inside one transaction).
#: Append a function to change the schema; never edit a released one.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _migrate_to_1, _migrate_to_2, _migrate_to_3, _migrate_to_4, _migrate_to_5, _migrate_to_6, _migrate_add_tree,
    _migrate_add_import_sources, _migrate_add_attachments,
    _migrate_add_pins_tags,
]


def schema_version() -> int:
    """The schema version this code writes (= ``len(MIGRATIONS)``)."""
    return len(MIGRATIONS)
