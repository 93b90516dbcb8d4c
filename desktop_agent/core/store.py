"""ConversationStore: the only code that touches saved conversations.

One SQLite file (stdlib :mod:`sqlite3`, WAL journal, ``synchronous=FULL``) at
:func:`desktop_agent.core.paths.store_file` — ``<user data dir>/conversations.sqlite3``:

- ``conversations``: id, title, title_is_custom, backend, model, created_at, updated_at
  (times are Unix epoch seconds, floats).
- ``messages``: one row per :class:`~desktop_agent.core.messages.Message` — every field of it;
  ``tool_calls`` is a JSON list of :class:`~desktop_agent.core.messages.ToolCall` dicts (NULL when
  there are none). The row id is ``Message.id``.
- ``message_text``: each message's searchable text (its content plus the names and arguments of its
  tool calls), row id = message id; ``message_fts`` is an external-content FTS5 index over it
  (``trigram`` tokenizer, so substrings and Chinese text are found), kept in sync by triggers.
- ``PRAGMA user_version`` is the schema version; :data:`MIGRATIONS` lists the functions that bring a
  database from version *n* to *n + 1*. Before migrating a database that already holds chats, a copy is
  made with the SQLite backup API (``conversations.sqlite3.v<N>-backup-<time>``).

Saving is O(1) in the length of a chat: :meth:`ConversationStore.add_message` inserts one row (and its
index entry) and updates one conversation row in one short transaction, and commits before it returns.

A damaged database (not a SQLite file, truncated, failing ``PRAGMA quick_check``) or one written by a
newer version never stops the app: the file (and its ``-wal``/``-shm``) is moved aside, kept as
``conversations.sqlite3.corrupt-<time>`` / ``.newer-<time>``, a fresh database is created and
:attr:`ConversationStore.warnings` says what happened and where the old file is.

The store is shared by the worker thread and the GUI thread: one connection opened with
``check_same_thread=False``, every call holds a lock, transactions are short.

Import reads our own JSON export (:data:`EXPORT_FORMAT`) and the seed script's
``chat_<model>_<timestamp>.json`` files (a JSON list of ``{"human": ..., "ai": ...}`` objects); a file
that is empty, truncated or invalid raises :class:`ImportFailed` and nothing is imported.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import sqlite3
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Literal

from desktop_agent.core import paths
from desktop_agent.core.errors import AgentError
from desktop_agent.core.messages import Conversation, Message, clean_text, new_conversation_id

#: ``"format"`` value of our JSON export.
EXPORT_FORMAT = "desktop-agent.conversation"
#: Version of the JSON export format (a newer one is refused on import).
EXPORT_VERSION = 1
#: ``PRAGMA quick_check`` runs at start-up when the database file is at most this big (≈ 3 ms per MB:
#: reading a large file would slow start-up); a larger file is checked on the start after damage was
#: seen at run time (a marker file ``conversations.sqlite3.needs-check`` asks for it).
QUICK_CHECK_MAX_BYTES = 4 * 1024 * 1024
#: Highlight marks in :attr:`SearchHit.snippet`.
MARK_START, MARK_END = "«", "»"
#: Characters of context FTS5's snippet() keeps around a match (trigram tokens are characters; 64 is its max).
SNIPPET_CHARS = 64
NEW_CHAT_TITLE = "New chat"
#: A title (renamed or imported) is cut to this many characters.
MAX_TITLE_CHARS = 200

_SQLITE_CORRUPT = 11
_SQLITE_FULL = 13
_SQLITE_NOTADB = 26
_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6
# private marks handed to snippet(); stripped from indexed text so they can't come from the data
_HL_START, _HL_END = "\x02", "\x03"


# ---------------------------------------------------------------------------------------------- errors


class StoreError(AgentError):
    """The chat history could not be read or written. ``str()`` says what to do."""

    retryable = False


class ConversationNotFound(StoreError):
    """No saved chat has this id (or id prefix)."""

    def __init__(self, ref: str):
        self.ref = ref
        super().__init__(f"No saved chat with id '{ref}'. `desktop-agent history list` shows the ids.")


class AmbiguousConversationId(StoreError):
    """An id prefix matches several chats."""

    def __init__(self, ref: str, matches: list[str]):
        self.ref, self.matches = ref, matches
        shown = ", ".join(m[:12] for m in matches[:5]) + (", …" if len(matches) > 5 else "")
        super().__init__(f"The id prefix '{ref}' matches {len(matches)} chats ({shown}); type more of the id.")


class StoreDamaged(StoreError):
    """SQLite reported the database as damaged while the app was running.

    The next start checks the file and, if it is damaged, keeps it aside and starts a fresh history.
    """

    def __init__(self, path: Path, detail: str):
        self.path, self.detail = path, detail
        super().__init__(
            f"The chat history file {path} is damaged ({detail}). Restart desktop-agent: it will keep "
            "the damaged file aside and start a new history."
        )


class ImportFailed(StoreError):
    """A chat file could not be imported. Nothing was imported, and the file was not changed."""

    def __init__(self, path: str | os.PathLike[str], reason: str):
        self.path, self.reason = str(path), reason
        super().__init__(f"Can't import {path}: {reason}. Nothing was imported.")


# ----------------------------------------------------------------------------------------- data shapes


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


@dataclass(frozen=True)
class SearchHit:
    """One message matching a search.

    ``parts`` is the snippet as ``(text, highlighted)`` pieces (for rich rendering); ``snippet`` is the
    same text on one line with each match between ``«`` and ``»``; ``…`` marks cut text.
    """

    conversation_id: str
    message_id: int
    title: str
    role: str
    created_at: float
    model: str | None
    parts: tuple[tuple[str, bool], ...]

    @property
    def snippet(self) -> str:
        return "".join(f"{MARK_START}{t}{MARK_END}" if hl else t for t, hl in self.parts)


# ------------------------------------------------------------------------------------------ migrations


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


#: ``MIGRATIONS[n]`` brings a database from schema version ``n`` to ``n + 1`` (inside one transaction).
#: Append a function to change the schema; never edit a released one.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_migrate_to_1]


def schema_version() -> int:
    """The schema version this code writes (= ``len(MIGRATIONS)``)."""
    return len(MIGRATIONS)


# ------------------------------------------------------------------------------------------- helpers


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` via a temporary file in the same folder and ``os.replace``.

    If anything fails mid-way, ``path`` keeps its previous content (shared case 36).
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _stamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S")


def _fts_text(message: Message) -> str:
    parts = [message.content]
    for call in message.tool_calls:
        parts.append(f"{call.name} {call.arguments_json() if call.arguments else (call.raw_arguments or '')}")
    text = "\n".join(p for p in parts if p)
    # (FTS5 stops reading a text at a NUL: everything after one would be unsearchable)
    return text.replace(_HL_START, " ").replace(_HL_END, " ").replace("\x00", " ")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _parse_query(text: str) -> list[str]:
    """Search terms: ``"quoted phrases"`` and whitespace-separated words, NULs dropped."""
    text = text.replace("\x00", " ")
    terms = []
    for quoted, word in re.findall(r'"([^"]*)"|(\S+)', text):
        term = (quoted if quoted else word).strip()
        if term and term != '"':
            terms.append(term)
    return terms


def _fts_phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _python_snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> tuple[tuple[str, bool], ...]:
    """A snippet around the first match of any term, every match in the window highlighted."""
    text = _one_line(text)
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
    first = pattern.search(text)
    if first is None:
        return ((text[:width] + ("…" if len(text) > width else ""), False),)
    start = max(0, min(first.start() - width // 3, len(text) - width))
    end = min(len(text), start + width)
    window = text[start:end]
    parts: list[tuple[str, bool]] = [("…", False)] if start > 0 else []
    pos = 0
    for m in pattern.finditer(window):
        if m.start() > pos:
            parts.append((window[pos : m.start()], False))
        parts.append((m.group(0), True))
        pos = m.end()
    if pos < len(window):
        parts.append((window[pos:], False))
    if end < len(text):
        parts.append(("…", False))
    return tuple(parts)


def _title_for(conversation: Conversation, message: Message) -> str:
    title = conversation.default_title()
    if title == NEW_CHAT_TITLE:
        title = Conversation(messages=[message]).default_title()
    return title


# ------------------------------------------------------------------------------------------ the store


def _is_damage(exc: sqlite3.Error) -> bool:
    """True for SQLite's "database disk image is malformed" / "file is not a database" errors."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return True
    return "malformed" in str(exc) or "not a database" in str(exc)


def _guarded(fn):
    """Turn every sqlite3 error into a :class:`StoreError` the user can act on."""

    @functools.wraps(fn)
    def wrapper(self: "ConversationStore", *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise self._translate(exc) from exc

    return wrapper


_MESSAGE_COLUMNS = (
    "role, content, thinking, tool_calls, tool_call_id, tool_name, tool_status, duration_ms, "
    "full_content, status, model, backend, created_at"
)


class ConversationStore:
    """Saved conversations in one SQLite file. Thread-safe; see the module docstring.

    ``path`` defaults to :func:`paths.store_file`. After construction ``warnings`` holds one line per
    thing the user should be told (e.g. a damaged database was moved aside; it names the kept file).
    Every method raises :class:`StoreError` (or a subclass) on failure, never ``sqlite3`` errors.
    ``check_max_bytes``: run ``PRAGMA quick_check`` at start-up when the file is at most this big.
    ``busy_timeout_s``: how long to wait for another process holding a write lock.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        check_max_bytes: int = QUICK_CHECK_MAX_BYTES,
        busy_timeout_s: float = 10.0,
    ):
        self.path = Path(path) if path is not None else paths.store_file()
        self.warnings: list[str] = []
        #: Where the pre-migration backup was written (None when no migration of existing chats ran).
        self.backup_path: Path | None = None
        self._check_max_bytes = check_max_bytes
        self._busy_timeout_s = busy_timeout_s
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = self._open()
        except sqlite3.Error as exc:
            raise StoreError(f"Can't open the chat history {self.path}: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"Can't open the chat history {self.path}: {exc.strerror or exc}") from exc

    # -- opening, checking, migrating ---------------------------------------------------------------

    @property
    def _marker(self) -> Path:
        return self.path.with_name(self.path.name + ".needs-check")

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self._busy_timeout_s, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            conn.close()
            raise
        return conn

    def _probe_file(self) -> str | None:
        """Cheap checks of the file header: None if it looks like a whole SQLite database."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return None
        if size == 0:
            return None  # SQLite treats an empty file as a new database
        with open(self.path, "rb") as f:
            head = f.read(100)
        if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
            return "it is not a SQLite database"
        page_size = int.from_bytes(head[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(head[28:32], "big")
        wal = Path(str(self.path) + "-wal")
        wal_has_frames = wal.exists() and wal.stat().st_size > 32
        # (with frames in the WAL a killed checkpoint can leave the file shorter than its header says;
        # SQLite finishes that checkpoint from the WAL, so only judge the size when there is no WAL)
        if pages and not wal_has_frames and head[24:28] == head[92:96] and size < pages * page_size:
            return f"it is truncated: {size} of {pages * page_size} bytes"
        return None

    def _open(self) -> sqlite3.Connection:
        target = schema_version()
        problem = self._probe_file()
        if problem:
            self._set_aside("corrupt", problem)
        try:
            conn, version = self._check(target)
        except sqlite3.DatabaseError as exc:
            if not _is_damage(exc):
                raise  # e.g. "database is locked": not a reason to move the user's history aside
            self._set_aside("corrupt", str(exc))
            conn, version = self._connect(), 0
        with contextlib.suppress(OSError):
            self._marker.unlink()
        try:
            self._migrate(conn, version, target)
        except BaseException:
            conn.close()
            raise
        return conn

    def _check(self, target: int) -> tuple[sqlite3.Connection, int]:
        """Connect and read the schema version; a newer or damaged database is moved aside here."""
        conn = self._connect()
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > target:
                conn.close()
                self._set_aside("newer", f"schema {version}, this version reads up to {target}")
                return self._connect(), 0
            if version > 0 and (self._marker.exists() or self.path.stat().st_size <= self._check_max_bytes):
                rows = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
                if rows != ["ok"]:
                    conn.close()
                    self._set_aside("corrupt", "integrity check failed: " + "; ".join(rows[:3]))
                    return self._connect(), 0
            return conn, version
        except BaseException:
            conn.close()
            raise

    def _set_aside(self, kind: Literal["corrupt", "newer"], reason: str) -> Path:
        """Move the database (and its -wal/-shm/-journal) to ``<name>.<kind>-<time>``; never deletes."""
        aside = self.path.with_name(f"{self.path.name}.{kind}-{_stamp()}")
        n = 1
        while aside.exists():
            n += 1
            aside = self.path.with_name(f"{self.path.name}.{kind}-{_stamp()}-{n}")
        for suffix in ("", "-wal", "-shm", "-journal"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                os.replace(src, Path(str(aside) + suffix))
        if kind == "newer":
            self.warnings.append(
                f"Your chat history was written by a newer version of desktop-agent ({reason}). It was moved to "
                f"{aside} and kept unchanged; a new, empty history was started. A newer desktop-agent can open it."
            )
        else:
            self.warnings.append(
                f"Your chat history file was damaged ({reason}). It was moved to {aside} and kept "
                "(nothing was deleted); a new, empty history was started."
            )
        return aside

    def _backup(self, conn: sqlite3.Connection, version: int) -> Path:
        dest_path = self.path.with_name(f"{self.path.name}.v{version}-backup-{_stamp()}")
        n = 1
        while dest_path.exists():
            n += 1
            dest_path = self.path.with_name(f"{self.path.name}.v{version}-backup-{_stamp()}-{n}")
        dest = sqlite3.connect(dest_path)
        try:
            conn.backup(dest)
        finally:
            dest.close()
        return dest_path

    def _migrate(self, conn: sqlite3.Connection, version: int, target: int) -> None:
        if version >= target:
            return
        if version > 0:
            self.backup_path = self._backup(conn, version)
        while True:
            conn.execute("BEGIN IMMEDIATE")
            try:
                current = conn.execute("PRAGMA user_version").fetchone()[0]
                if current >= target:
                    conn.execute("COMMIT")
                    return
                MIGRATIONS[current](conn)
                conn.execute(f"PRAGMA user_version = {current + 1}")
                conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    where = f" A copy made before the upgrade is at {self.backup_path}." if self.backup_path else ""
                    raise StoreError(
                        f"Could not upgrade the chat history {self.path} to schema {current + 1}: {exc}.{where}"
                    ) from exc
                raise

    # -- plumbing -----------------------------------------------------------------------------------

    def _translate(self, exc: sqlite3.Error) -> StoreError:
        code = getattr(exc, "sqlite_errorcode", None)
        primary = code & 0xFF if isinstance(code, int) else None
        if self._conn is None:
            return StoreError("The chat history is closed.")
        if _is_damage(exc):
            with contextlib.suppress(OSError):
                self._marker.write_text(f"{time.time()} {exc}\n", encoding="utf-8")
            return StoreDamaged(self.path, str(exc))
        if primary == _SQLITE_FULL:
            return StoreError(f"The disk is full: the chat history {self.path} could not be saved. Free some space.")
        if primary in (_SQLITE_BUSY, _SQLITE_LOCKED):
            return StoreError("The chat history is busy (another desktop-agent is writing to it); try again.")
        return StoreError(f"The chat history {self.path} could not be used: {exc}")

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError("The chat history is closed.")
        return self._conn

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction (BEGIN IMMEDIATE … COMMIT) under the lock."""
        with self._lock:
            self._restore_if_deleted()
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # also when COMMIT itself failed (busy, disk full)
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise

    def _restore_if_deleted(self) -> None:
        """If the database file was deleted while open (e.g. the data folder was removed), write the open
        copy back to :attr:`path` and continue there — else every later save would go to an unlinked file
        and vanish at exit. Adds a line to :attr:`warnings`. One ``stat`` per write."""
        if self._conn is None or self.path.exists():
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"The chat history file {self.path} was deleted and can't be written again: {exc.strerror or exc}"
            ) from exc
        dest = sqlite3.connect(self.path)
        try:
            self._conn.backup(dest)
        finally:
            dest.close()
        with contextlib.suppress(sqlite3.Error):
            self._conn.close()
        self._conn = self._connect()
        self.warnings.append(
            f"The chat history file {self.path} was deleted while desktop-agent was running; "
            "it was written again from the open copy."
        )

    def _read(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        with self._lock:
            return self.conn.execute(sql, tuple(params)).fetchall()

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
        )

    def _insert_message(self, conn: sqlite3.Connection, conversation_id: str, message: Message) -> int:
        cur = conn.execute(
            f"INSERT INTO messages (conversation_id, {_MESSAGE_COLUMNS}) VALUES (?{', ?' * 13})",
            (conversation_id, *self._message_row(message)),
        )
        mid = int(cur.lastrowid)
        text = _fts_text(message)
        if text:
            conn.execute("INSERT INTO message_text (id, text) VALUES (?, ?)", (mid, text))
        return mid

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
        for message in conversation.messages:
            message.id = self._insert_message(conn, conversation.id, message)

    # -- saving -------------------------------------------------------------------------------------

    @_guarded
    def add_message(self, conversation: Conversation, message: Message) -> None:
        """Save ``message`` as the next message of ``conversation`` and commit before returning.

        The chat row is created with the first message (title: ``conversation.title`` if the caller set
        one, else :meth:`Conversation.default_title`, filled in from the first user message). Sets
        ``message.id``; bumps the chat's ``updated_at`` (and its model/backend to the message's).
        A message that already has an id saved in this chat is updated instead (see
        :meth:`update_message`). Cost is independent of the chat's length.
        """
        now = time.time()
        with self._write() as conn:
            if message.id is not None:
                row = conn.execute("SELECT conversation_id FROM messages WHERE id = ?", (message.id,)).fetchone()
                if row is not None and row[0] == conversation.id:
                    self._update_message(conn, message, now)
                    return
            row = conn.execute(
                "SELECT title, title_is_custom FROM conversations WHERE id = ?", (conversation.id,)
            ).fetchone()
            if row is None:
                default = _title_for(conversation, message)
                custom = bool(conversation.title.strip()) and conversation.title != default
                title = conversation.title.strip() if custom else default
                conn.execute(
                    "INSERT INTO conversations (id, title, title_is_custom, backend, model, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
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
            else:
                title, custom = row[0], bool(row[1])
                if not custom and title == NEW_CHAT_TITLE and message.role == "user" and message.content.strip():
                    title = _title_for(conversation, message)
                    conn.execute("UPDATE conversations SET title = ? WHERE id = ?", (title, conversation.id))
                conn.execute(
                    "UPDATE conversations SET updated_at = ?, model = coalesce(?, model), "
                    "backend = coalesce(?, backend) WHERE id = ?",
                    (now, message.model, message.backend, conversation.id),
                )
            message.id = self._insert_message(conn, conversation.id, message)
        conversation.updated_at = now
        if not conversation.title:
            conversation.title = title

    def _update_message(self, conn: sqlite3.Connection, message: Message, now: float) -> None:
        cur = conn.execute(
            "UPDATE messages SET role = ?, content = ?, thinking = ?, tool_calls = ?, tool_call_id = ?, "
            "tool_name = ?, tool_status = ?, duration_ms = ?, full_content = ?, status = ?, model = ?, "
            "backend = ?, created_at = ? WHERE id = ?",
            (*self._message_row(message), message.id),
        )
        if cur.rowcount == 0:
            raise StoreError(f"Message {message.id} is not in the chat history; it can't be updated.")
        conn.execute("DELETE FROM message_text WHERE id = ?", (message.id,))
        text = _fts_text(message)
        if text:
            conn.execute("INSERT INTO message_text (id, text) VALUES (?, ?)", (message.id, text))
        conn.execute(
            "UPDATE conversations SET updated_at = ? WHERE id = (SELECT conversation_id FROM messages WHERE id = ?)",
            (now, message.id),
        )

    @_guarded
    def update_message(self, message: Message) -> None:
        """Rewrite a saved message (``message.id`` set) — e.g. a partial answer that went on or was stopped.

        Raises :class:`StoreError` when the message was never saved.
        """
        if message.id is None:
            raise StoreError("This message was never saved, so it can't be updated; use add_message.")
        with self._write() as conn:
            self._update_message(conn, message, time.time())

    @_guarded
    def add_conversations(self, conversations: Iterable[Conversation]) -> list[str]:
        """Insert whole conversations (new ids required) in ONE transaction; returns their ids.

        For imports and bulk loads (the benchmark). Titles: ``conversation.title`` or the default title;
        ``updated_at`` is kept as given. Sets every ``message.id``.
        """
        ids = []
        with self._write() as conn:
            for conv in conversations:
                custom = bool(conv.title) and conv.title != conv.default_title()
                self._insert_conversation(conn, conv, custom)
                ids.append(conv.id)
        return ids

    # -- reading ------------------------------------------------------------------------------------

    @_guarded
    def count(self) -> int:
        """How many chats are saved."""
        return self._read("SELECT count(*) FROM conversations")[0][0]

    @_guarded
    def list(self, limit: int = 50, offset: int = 0) -> list[ConversationSummary]:
        """Chats, most recently updated first; ``limit``/``offset`` page through them."""
        rows = self._read(
            "SELECT c.id, c.title, c.model, c.backend, c.created_at, c.updated_at, "
            "(SELECT count(*) FROM messages m WHERE m.conversation_id = c.id), c.title_is_custom "
            "FROM conversations c ORDER BY c.updated_at DESC, c.id DESC LIMIT ? OFFSET ?",
            (int(limit), int(offset)),
        )
        return [ConversationSummary(*r[:7], title_is_custom=bool(r[7])) for r in rows]

    @_guarded
    def summary(self, conversation_id: str) -> ConversationSummary:
        """The list row of one chat. Raises :class:`ConversationNotFound`."""
        rows = self._read(
            "SELECT c.id, c.title, c.model, c.backend, c.created_at, c.updated_at, "
            "(SELECT count(*) FROM messages m WHERE m.conversation_id = c.id), c.title_is_custom "
            "FROM conversations c WHERE c.id = ?",
            (conversation_id,),
        )
        if not rows:
            raise ConversationNotFound(conversation_id)
        r = rows[0]
        return ConversationSummary(*r[:7], title_is_custom=bool(r[7]))

    @_guarded
    def resolve(self, ref: str) -> str:
        """The full id of the chat whose id is ``ref`` or starts with ``ref``.

        Raises :class:`ConversationNotFound` or :class:`AmbiguousConversationId`.
        """
        ref = ref.strip()
        if not ref:
            raise ConversationNotFound(ref)
        if self._read("SELECT 1 FROM conversations WHERE id = ?", (ref,)):
            return ref
        rows = self._read(
            "SELECT id FROM conversations WHERE substr(id, 1, ?) = ? ORDER BY updated_at DESC LIMIT 20",
            (len(ref), ref),
        )
        if not rows:
            raise ConversationNotFound(ref)
        if len(rows) > 1:
            raise AmbiguousConversationId(ref, [r[0] for r in rows])
        return rows[0][0]

    @_guarded
    def load(self, conversation_id: str) -> Conversation:
        """The chat with all its messages in order (``message.id`` set). Raises :class:`ConversationNotFound`."""
        with self._lock:
            head = self.conn.execute(
                "SELECT id, title, backend, model, created_at, updated_at FROM conversations WHERE id = ?",
                (conversation_id,),
            ).fetchone()
            if head is None:
                raise ConversationNotFound(conversation_id)
            rows = self.conn.execute(
                f"SELECT id, {_MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY id",
                (conversation_id,),
            ).fetchall()
        try:
            messages = [self._message_from_row(r) for r in rows]
        except ValueError as exc:  # pydantic ValidationError: a row this version can't read
            raise StoreError(f"Chat {conversation_id} has a message this version can't read: {exc}") from exc
        return Conversation(
            id=head[0], title=head[1], backend=head[2], model=head[3], created_at=head[4], updated_at=head[5],
            messages=messages,
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
            }
        )

    @_guarded
    def title_is_custom(self, conversation_id: str) -> bool:
        rows = self._read("SELECT title_is_custom FROM conversations WHERE id = ?", (conversation_id,))
        if not rows:
            raise ConversationNotFound(conversation_id)
        return bool(rows[0][0])

    @_guarded
    def search(self, text: str, limit: int = 50) -> list[SearchHit]:
        """Messages containing every term of ``text``: the ``limit`` most recently saved ones, newest first.

        Terms are words separated by spaces or ``"quoted phrases"``; matching is by substring,
        ASCII case-insensitive, so ``C++``, ``AND``, quotes or Chinese text are plain text, never query
        syntax. Terms of 3+ characters use the FTS5 index; shorter ones (e.g. ``天气``) are matched by
        scanning the message text (about 50 ms per 200,000 messages). An empty query returns ``[]``.
        """
        terms = _parse_query(clean_text(text))
        if not terms:
            return []
        long_terms = [t for t in terms if len(t) >= 3]
        short_terms = [t for t in terms if len(t) < 3]
        if long_terms:
            # the index finds the rows; short terms are checked on those rows only. The snippet is cut
            # in Python (_python_snippet, linear in the text): FTS5's snippet() grows with the square of
            # the matches in a message and took 77 s for "xxx" in a 100 kB tool result.
            where = ["message_fts MATCH ?"] + ["instr(lower(text), lower(?)) > 0"] * len(short_terms)
            params = [" AND ".join(_fts_phrase(t) for t in long_terms), *short_terms]
            sql = f"SELECT rowid FROM message_fts WHERE {' AND '.join(where)} ORDER BY rowid DESC LIMIT ?"
        else:
            # terms shorter than a trigram can't use the index: scan the text table, newest first
            # (LIKE is ASCII case-insensitive like the index; % _ and \ in the term are escaped)
            where = ["text LIKE ? ESCAPE '\\'"] * len(short_terms)
            params = ["%" + re.sub(r"([%_\\])", r"\\\1", t) + "%" for t in short_terms]
            sql = f"SELECT id FROM message_text WHERE {' AND '.join(where)} ORDER BY id DESC LIMIT ?"
        with self._lock:
            ids = [r[0] for r in self.conn.execute(sql, (*params, int(limit))).fetchall()]
            if not ids:
                return []
            marks = ",".join("?" * len(ids))
            texts = dict(self.conn.execute(f"SELECT id, text FROM message_text WHERE id IN ({marks})", ids))
            info = {
                r[0]: r[1:]
                for r in self.conn.execute(
                    "SELECT m.id, m.conversation_id, c.title, m.role, m.created_at, m.model "
                    "FROM messages m JOIN conversations c ON c.id = m.conversation_id "
                    f"WHERE m.id IN ({marks})",
                    ids,
                )
            }
        hits = []
        for mid in ids:
            if mid not in info:
                continue
            conv_id, title, role, created_at, model = info[mid]
            parts = _python_snippet(texts.get(mid, ""), terms)
            hits.append(SearchHit(conv_id, mid, title, role, created_at, model, parts))
        hits.sort(key=lambda h: (h.created_at, h.message_id), reverse=True)
        return hits

    # -- changing -----------------------------------------------------------------------------------

    @_guarded
    def rename(self, conversation_id: str, title: str) -> None:
        """Set a chat's title; an empty title goes back to the default (first user message).

        Lone surrogates become U+FFFD and the title is cut to :data:`MAX_TITLE_CHARS` characters.
        Does not change ``updated_at`` (the list order). Raises :class:`ConversationNotFound`.
        """
        title = _one_line(clean_text(title))
        if len(title) > MAX_TITLE_CHARS:
            title = title[: MAX_TITLE_CHARS - 1].rstrip() + "…"
        with self._write() as conn:
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
                default = Conversation(messages=[Message(role="user", content=first[0])]).default_title() if first else NEW_CHAT_TITLE
                cur = conn.execute(
                    "UPDATE conversations SET title = ?, title_is_custom = 0 WHERE id = ?", (default, conversation_id)
                )
            if cur.rowcount == 0:
                raise ConversationNotFound(conversation_id)

    @_guarded
    def delete(self, conversation_id: str) -> None:
        """Delete a chat, its messages and their index entries. Raises :class:`ConversationNotFound`."""
        with self._write() as conn:
            conn.execute(
                "DELETE FROM message_text WHERE id IN (SELECT id FROM messages WHERE conversation_id = ?)",
                (conversation_id,),
            )
            conn.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))
            cur = conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            if cur.rowcount == 0:
                raise ConversationNotFound(conversation_id)

    # -- export / import ----------------------------------------------------------------------------

    def export(self, conversation_id: str, fmt: Literal["md", "json"] = "md") -> str:
        """The chat as text: ``"json"`` (our format, :data:`EXPORT_FORMAT` v:data:`EXPORT_VERSION`,
        re-importable) or ``"md"`` (Markdown for people: messages, thinking, tool calls and results).
        Raises :class:`ConversationNotFound`, ``ValueError`` for another ``fmt``.
        """
        if fmt not in ("md", "json"):
            raise ValueError(f"unknown export format {fmt!r}: use 'md' or 'json'")
        conv = self.load(conversation_id)
        custom = self.title_is_custom(conversation_id)
        if fmt == "json":
            return export_json(conv, title_is_custom=custom)
        return export_markdown(conv)

    def import_file(self, path: str | os.PathLike[str]) -> str:
        """Import a chat file; returns the id of the new chat.

        Accepts our JSON export and the seed's ``chat_<model>_<timestamp>.json`` (a list of
        ``{"human": ..., "ai": ...}``; model and time come from the file name). The whole file is read
        and checked before anything is written, then saved in one transaction: an empty, truncated or
        invalid file raises :class:`ImportFailed` and imports nothing (shared case 36). The file is
        only read. The chat keeps its id unless a saved chat already has it.
        """
        conv, custom = read_chat_file(path)
        self._import(conv, custom)
        return conv.id

    @_guarded
    def _import(self, conv: Conversation, custom: bool) -> None:
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM conversations WHERE id = ?", (conv.id,)).fetchone():
                conv.id = new_conversation_id()
            self._insert_conversation(conn, conv, custom)

    # -- lifetime -----------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the database (idempotent)."""
        with self._lock:
            if self._conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("PRAGMA optimize")
                with contextlib.suppress(sqlite3.Error):
                    self._conn.close()
                self._conn = None

    def __enter__(self) -> "ConversationStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# -------------------------------------------------------------------------------- export formats


def export_json(conv: Conversation, *, title_is_custom: bool = False) -> str:
    """Our JSON export (UTF-8 text, non-ASCII kept literally)."""
    data = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": time.time(),
        "id": conv.id,
        "title": conv.title,
        "title_is_custom": title_is_custom,
        "backend": conv.backend,
        "model": conv.model,
        "created_at": conv.created_at,
        "updated_at": conv.updated_at,
        "messages": [m.model_dump(mode="json", exclude={"id"}) for m in conv.messages],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _fence(text: str, info: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip(chr(10))}\n{ticks}"


def _when(ts: float | None) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else ""


def export_markdown(conv: Conversation) -> str:
    """A readable Markdown transcript: a heading per message, tool calls with their arguments and
    tool results with status and duration, thinking in a collapsible block."""
    out = [f"# {conv.title or conv.default_title()}", ""]
    meta = []
    if conv.model:
        meta.append(f"- Model: {conv.model}" + (f" ({conv.backend})" if conv.backend else ""))
    meta.append(f"- Started: {_when(conv.created_at)}")
    meta.append(f"- Last message: {_when(conv.updated_at)}")
    meta.append(f"- Messages: {len(conv.messages)}")
    out += meta + [""]
    for m in conv.messages:
        if m.role == "user":
            out += [f"## You — {_when(m.created_at)}", "", m.content, ""]
        elif m.role == "system":
            out += ["## System", "", m.content, ""]
        elif m.role == "assistant":
            who = "Assistant" + (f" ({m.model})" if m.model else "")
            out += [f"## {who} — {_when(m.created_at)}", ""]
            if m.thinking:
                out += ["<details><summary>Thinking</summary>", "", m.thinking, "", "</details>", ""]
            if m.content:
                out += [m.content, ""]
            for call in m.tool_calls:
                args = json.dumps(call.arguments, ensure_ascii=False, indent=2) if call.arguments else (call.raw_arguments or "{}")
                out += [f"**Tool call** `{call.name}` (id `{call.id}`)", "", _fence(args, "json"), ""]
            if m.status != "complete":
                out += [f"*(answer {m.status} — partial)*", ""]
        else:  # tool
            bits = [b for b in (m.tool_status, f"{m.duration_ms:.0f} ms" if m.duration_ms is not None else None) if b]
            extra = f" ({', '.join(bits)})" if bits else ""
            out += [f"### Tool result — `{m.tool_name or '?'}`{extra}", "", _fence(m.full_content or m.content), ""]
    return "\n".join(out).rstrip() + "\n"


_SEED_NAME = re.compile(r"^chat_(?:(?P<model>.+)_)?(?P<ts>\d{14})\.json$", re.IGNORECASE)


def read_chat_file(path: str | os.PathLike[str]) -> tuple[Conversation, bool]:
    """Parse a chat file into a Conversation (not saved) and whether its title is custom.

    Raises :class:`ImportFailed` with the reason (empty, truncated, not JSON, not a chat, bad message).
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except IsADirectoryError:
        raise ImportFailed(p, "it is a folder, not a file") from None
    except OSError as exc:
        raise ImportFailed(p, f"the file can't be read ({exc.strerror or exc})") from None
    if not raw.strip():
        raise ImportFailed(p, "the file is empty")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ImportFailed(p, "it is not UTF-8 text") from None
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ImportFailed(p, "its JSON is nested too deeply to be a chat") from None
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):  # NaN / Infinity (see _reject_constant)
            raise ImportFailed(p, str(exc)) from None
        if exc.pos >= len(text.rstrip()):
            raise ImportFailed(p, "the JSON ends too early — the file is truncated (cut off while saving?)") from None
        raise ImportFailed(p, f"it is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    try:
        mtime = p.stat().st_mtime
    except OSError:
        mtime = time.time()
    return _chat_from_data(data, p, mtime)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"it holds {name}, which is not a number JSON allows")


def _check_messages(items: list, p: Path) -> list[Message]:
    messages = []
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise ImportFailed(p, f"message {i} is not a JSON object")
        item = {k: v for k, v in item.items() if k != "id"}
        try:
            messages.append(Message.model_validate(item))
        except ValueError as exc:  # pydantic ValidationError is a ValueError
            errs = getattr(exc, "errors", lambda: [])()
            detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errs[:2]) or str(exc)
            raise ImportFailed(p, f"message {i} is not valid ({detail})") from None
    return messages


def _chat_from_data(data: Any, p: Path, mtime: float) -> tuple[Conversation, bool]:
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        fmt = data.get("format")
        if fmt is not None and fmt != EXPORT_FORMAT:
            raise ImportFailed(p, f"it is a '{fmt}' file, not a desktop-agent chat export")
        version = data.get("version", EXPORT_VERSION)
        if not isinstance(version, int) or version > EXPORT_VERSION:
            raise ImportFailed(
                p, f"it was exported by a newer desktop-agent (format version {version}); update desktop-agent"
            )
        messages = _check_messages(data["messages"], p)
        if not messages:
            raise ImportFailed(p, "it contains no messages")
        fields: dict[str, Any] = {"messages": messages}
        for key in ("backend", "model"):
            if isinstance(data.get(key), str):
                fields[key] = data[key]
        for key in ("created_at", "updated_at"):
            if isinstance(data.get(key), (int, float)) and not isinstance(data.get(key), bool):
                fields[key] = float(data[key])
        fields.setdefault("created_at", messages[0].created_at)
        fields.setdefault("updated_at", max(m.created_at for m in messages))
        if isinstance(data.get("id"), str) and re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", data["id"]):
            fields["id"] = data["id"]
        conv = Conversation(**fields)
        if fields.get("model") is None:
            conv.model = next((m.model for m in reversed(messages) if m.model), None)
        if fields.get("backend") is None:
            conv.backend = next((m.backend for m in reversed(messages) if m.backend), None)
        title = _one_line(data["title"]) if isinstance(data.get("title"), str) else ""
        default = conv.default_title()
        if len(title) > MAX_TITLE_CHARS:
            title = title[: MAX_TITLE_CHARS - 1].rstrip() + "…"
        flag = data.get("title_is_custom")
        custom = (flag if isinstance(flag, bool) else title != default) and bool(title)
        conv.title = title if custom else default
        return conv, custom
    if isinstance(data, list):
        if not data:
            raise ImportFailed(p, "it contains no messages")
        if all(isinstance(x, dict) and "role" in x for x in data):
            return _chat_from_data({"messages": data}, p, mtime)
        m = _SEED_NAME.match(p.name)
        model = m.group("model") if m and m.group("model") else None
        ts = mtime
        if m:
            with contextlib.suppress(ValueError):
                ts = datetime.strptime(m.group("ts"), "%Y%m%d%H%M%S").timestamp()
        messages = []
        for i, item in enumerate(data, 1):
            if not isinstance(item, dict) or not ({"human", "ai"} & item.keys()):
                raise ImportFailed(p, f'item {i} is not a {{"human": ..., "ai": ...}} object')
            human, ai = item.get("human", ""), item.get("ai", "")
            if not isinstance(human, str) or not isinstance(ai, str):
                raise ImportFailed(p, f'item {i}: "human" and "ai" must be text')
            if human:
                messages.append(Message(role="user", content=human, created_at=ts))
            if ai:
                messages.append(Message(role="assistant", content=ai, model=model, created_at=ts))
        if not messages:
            raise ImportFailed(p, "it contains no messages")
        conv = Conversation(model=model, created_at=ts, updated_at=ts, messages=messages)
        conv.title = conv.default_title()
        return conv, False
    raise ImportFailed(
        p, 'it is not a chat file (expected a desktop-agent JSON export or a list of {"human": ..., "ai": ...})'
    )
