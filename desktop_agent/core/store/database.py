"""The chat history's SQLite connections: one shared by the worker thread and the GUI thread for every read and
write, and one for searches only (:meth:`StoreDatabase.reading`), so that a search running in the background
never holds up a save or the history list.

:class:`StoreDatabase` opens the first (:func:`.opening.open_database`) with ``check_same_thread=False``;
every use holds :attr:`StoreDatabase._lock`, and transactions are short (:meth:`StoreDatabase.write`). The
search connection is opened on first use, read-only (WAL: it reads what was committed, while the other
writes), and held under its own lock; a search can be cancelled while it runs.
:func:`guarded` turns every ``sqlite3`` error of a public method into a
:class:`~desktop_agent.core.errors.StoreError` the user can act on.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, ParamSpec, Self, TypeVar

from desktop_agent.core import paths
from desktop_agent.core.errors import StoreDamaged, StoreError
from desktop_agent.core.store import opening
from desktop_agent.core.store.folding import fold

_SQLITE_FULL = 13
_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6

P = ParamSpec("P")
R = TypeVar("R")


def guarded(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn every sqlite3 error into a :class:`StoreError` the user can act on (for methods of a
    :class:`StoreDatabase`)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except sqlite3.Error as exc:
            self: StoreDatabase = args[0]  # type: ignore[assignment]
            raise self.translate(exc) from exc

    return wrapper


class StoreDatabase:
    """The open database file: ``path``, ``warnings`` (one line per thing the user should be told, e.g.
    a damaged database was moved aside; it names the kept file), ``backup_path`` and the connection.

    ``path`` defaults to :func:`paths.store_file`. ``check_max_bytes``: run ``PRAGMA quick_check`` at
    start-up when the file is at most this big. ``busy_timeout_s``: how long to wait for another process
    holding a write lock. Raises :class:`StoreError` when the file can't be opened.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        check_max_bytes: int = opening.QUICK_CHECK_MAX_BYTES,
        busy_timeout_s: float = 10.0,
    ):
        self.path = Path(path) if path is not None else paths.store_file()
        self.warnings: list[str] = []
        #: Where the pre-migration backup was written (None when no migration of existing chats ran).
        self.backup_path: Path | None = None
        self._busy_timeout_s = busy_timeout_s
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._read_lock = threading.Lock()
        self._reader: sqlite3.Connection | None = None
        #: the main connection the reader was opened beside (a file written back after deletion is reopened)
        self._reader_beside: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn, self.backup_path = opening.open_database(
                self.path, check_max_bytes=check_max_bytes, busy_timeout_s=busy_timeout_s, warnings=self.warnings
            )
        except sqlite3.Error as exc:
            raise StoreError(f"Can't open the chat history {self.path}: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"Can't open the chat history {self.path}: {exc.strerror or exc}") from exc

    def translate(self, exc: sqlite3.Error) -> StoreError:
        """The :class:`StoreError` the user can act on for ``exc`` (the store's parts raise it ``from exc``)."""
        code = getattr(exc, "sqlite_errorcode", None)
        primary = code & 0xFF if isinstance(code, int) else None
        if self._conn is None:
            return StoreError("The chat history is closed.")
        if opening.is_damage(exc):
            with contextlib.suppress(OSError):
                opening.needs_check_marker(self.path).write_text(f"{time.time()} {exc}\n", encoding="utf-8")
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
    def write(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction (BEGIN IMMEDIATE … COMMIT) under the lock, for the store's parts (the
        conversations, the tool rules, the tool-call audit): ``with db.write() as conn: conn.execute(...)``."""
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
        self._conn = opening.write_back_deleted_file(self._conn, self.path, self._busy_timeout_s)
        self.warnings.append(
            f"The chat history file {self.path} was deleted while desktop-agent was running; "
            "it was written again from the open copy."
        )

    @contextlib.contextmanager
    def reading(self, cancel: threading.Event | None = None) -> Iterator[sqlite3.Connection]:
        """The search connection, for one read: ``with db.reading(cancel) as conn: …``. When ``cancel`` is set
        meanwhile, the statement running stops (it raises ``sqlite3.OperationalError: interrupted``)."""
        with self._read_lock:
            conn = self._reader_connection()
            if cancel is not None:
                conn.set_progress_handler(lambda: 1 if cancel.is_set() else 0, 1000)
            try:
                yield conn
            finally:
                if cancel is not None:
                    conn.set_progress_handler(None, 0)

    def _reader_connection(self) -> sqlite3.Connection:
        main = self.conn  # raises when the store is closed
        if self._reader is None or self._reader_beside is not main:
            if self._reader is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._reader.close()
            uri = Path(self.path).resolve().as_uri() + "?mode=ro"
            self._reader = sqlite3.connect(uri, uri=True, timeout=self._busy_timeout_s, check_same_thread=False,
                                           isolation_level=None)
            self._reader.create_function("fold", 1, fold, deterministic=True)
            self._reader_beside = main
        return self._reader

    def read(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        """The rows of one query, under the lock."""
        with self._lock:
            return self.conn.execute(sql, tuple(params)).fetchall()

    def close(self) -> None:
        """Close the database (idempotent); a search running meanwhile ends first."""
        with self._read_lock:
            if self._reader is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._reader.close()
                self._reader = self._reader_beside = None
        with self._lock:
            if self._conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("PRAGMA optimize")
                with contextlib.suppress(sqlite3.Error):
                    self._conn.close()
                self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
