"""Opening the chat history file: connect, check, keep a bad file aside, back up, migrate, write back.

A damaged database (not a SQLite file, truncated, failing ``PRAGMA quick_check``) or one written by a
newer version never stops the app: the file (and its ``-wal``/``-shm``) is moved aside, kept as
``conversations.sqlite3.corrupt-<time>`` / ``.newer-<time>``, a fresh database is created and a line of
the caller's ``warnings`` says what happened and where the old file is.

Before migrating a database that already holds chats, a copy is made with the SQLite backup API
(``conversations.sqlite3.v<N>-backup-<time>``); the migrations are :data:`.schema.MIGRATIONS`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path
from typing import Literal

from desktop_agent.core.errors import StoreError
from desktop_agent.core.store import schema
from desktop_agent.core.store.folding import fold

#: ``PRAGMA quick_check`` runs at start-up when the database file is at most this big (≈ 3 ms per MB:
#: reading a large file would slow start-up); a larger file is checked on the start after damage was
#: seen at run time (a marker file ``conversations.sqlite3.needs-check`` asks for it).
QUICK_CHECK_MAX_BYTES = 4 * 1024 * 1024

_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26


def is_damage(exc: sqlite3.Error) -> bool:
    """True for SQLite's "database disk image is malformed" / "file is not a database" errors."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return True
    return "malformed" in str(exc) or "not a database" in str(exc)


def needs_check_marker(path: Path) -> Path:
    """The marker file whose presence makes the next start run ``PRAGMA quick_check`` whatever the size."""
    return path.with_name(path.name + ".needs-check")


def _stamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S")


def connect(path: Path, busy_timeout_s: float) -> sqlite3.Connection:
    """A connection in autocommit mode, WAL journal, ``synchronous=FULL``, foreign keys on; usable from
    any thread (the caller serialises access); SQL can call ``fold(text)`` (:func:`.folding.fold`)."""
    conn = sqlite3.connect(path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode = WAL").fetchone()
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.create_function("fold", 1, fold, deterministic=True)
    except BaseException:
        conn.close()
        raise
    return conn


def probe_file(path: Path) -> str | None:
    """Cheap checks of the file header: None if it looks like a whole SQLite database."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    if size == 0:
        return None  # SQLite treats an empty file as a new database
    with open(path, "rb") as f:
        head = f.read(100)
    if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
        return "it is not a SQLite database"
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    wal = Path(str(path) + "-wal")
    wal_has_frames = wal.exists() and wal.stat().st_size > 32
    # (with frames in the WAL a killed checkpoint can leave the file shorter than its header says;
    # SQLite finishes that checkpoint from the WAL, so only judge the size when there is no WAL)
    if pages and not wal_has_frames and head[24:28] == head[92:96] and size < pages * page_size:
        return f"it is truncated: {size} of {pages * page_size} bytes"
    return None


def open_database(
    path: Path, *, check_max_bytes: int, busy_timeout_s: float, warnings: list[str]
) -> tuple[sqlite3.Connection, Path | None]:
    """Open (creating, checking and migrating as needed) the database at ``path``.

    Returns the connection and where the pre-migration backup was written (None when no migration of
    existing chats ran). A damaged or newer file is moved aside and a line added to ``warnings``.
    Raises ``sqlite3.Error`` (e.g. "database is locked") or :class:`StoreError` (a failed migration).
    """
    target = schema.schema_version()
    problem = probe_file(path)
    if problem:
        set_aside(path, "corrupt", problem, warnings)
    try:
        conn, version = _check(path, target, check_max_bytes, busy_timeout_s, warnings)
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise  # e.g. "database is locked": not a reason to move the user's history aside
        set_aside(path, "corrupt", str(exc), warnings)
        conn, version = connect(path, busy_timeout_s), 0
    with contextlib.suppress(OSError):
        needs_check_marker(path).unlink()
    try:
        backup_path = migrate(conn, path, version, target)
    except BaseException:
        conn.close()
        raise
    warnings.extend(set_aside_histories(path, target))
    return conn, backup_path


def set_aside_histories(path: Path, target: int) -> list[str]:
    """A line for each history an older version of the app set aside as too new for it (``<name>.newer-…``)
    that this version can read: its chats are not lost, and the line says how to bring them back."""
    lines = []
    for aside in sorted(path.parent.glob(f"{path.name}.newer-*")):
        if aside.name.endswith(("-wal", "-shm", "-journal")) or not aside.is_file():
            continue
        try:
            probe = sqlite3.connect(f"{aside.as_uri()}?mode=ro", uri=True)
            try:
                version = probe.execute("PRAGMA user_version").fetchone()[0]
            finally:
                probe.close()
        except sqlite3.Error:
            continue
        if 0 < version <= target:
            lines.append(
                f"An older version of desktop-agent set your chat history aside as {aside}. Its chats are kept "
                f"there: File → Import chats… (or `desktop-agent history import \"{aside}\"`) brings them back "
                "(chats already here are not doubled); after that the file can be deleted."
            )
    return lines


def _check(
    path: Path, target: int, check_max_bytes: int, busy_timeout_s: float, warnings: list[str]
) -> tuple[sqlite3.Connection, int]:
    """Connect and read the schema version; a newer or damaged database is moved aside here."""
    conn = connect(path, busy_timeout_s)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > target:
            conn.close()
            set_aside(path, "newer", f"schema {version}, this version reads up to {target}", warnings)
            return connect(path, busy_timeout_s), 0
        if version > 0 and (needs_check_marker(path).exists() or path.stat().st_size <= check_max_bytes):
            rows = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
            if rows != ["ok"]:
                conn.close()
                set_aside(path, "corrupt", "integrity check failed: " + "; ".join(rows[:3]), warnings)
                return connect(path, busy_timeout_s), 0
        return conn, version
    except BaseException:
        conn.close()
        raise


def set_aside(path: Path, kind: Literal["corrupt", "newer"], reason: str, warnings: list[str]) -> Path:
    """Move the database (and its -wal/-shm/-journal) to ``<name>.<kind>-<time>``; never deletes.

    Adds the line telling the user what happened to ``warnings``; returns where the file went."""
    aside = path.with_name(f"{path.name}.{kind}-{_stamp()}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.{kind}-{_stamp()}-{n}")
    for suffix in ("", "-wal", "-shm", "-journal"):
        src = Path(str(path) + suffix)
        if src.exists():
            os.replace(src, Path(str(aside) + suffix))
    if kind == "newer":
        warnings.append(
            f"Your chat history was written by a newer version of desktop-agent ({reason}). It was moved to "
            f"{aside} and kept unchanged; a new, empty history was started. A newer desktop-agent can open it."
        )
    else:
        warnings.append(
            f"Your chat history file was damaged ({reason}). It was moved to {aside} and kept "
            "(nothing was deleted); a new, empty history was started."
        )
    return aside


def backup(conn: sqlite3.Connection, path: Path, version: int) -> Path:
    """Copy the open database to ``<name>.v<version>-backup-<time>`` (SQLite backup API)."""
    dest_path = path.with_name(f"{path.name}.v{version}-backup-{_stamp()}")
    n = 1
    while dest_path.exists():
        n += 1
        dest_path = path.with_name(f"{path.name}.v{version}-backup-{_stamp()}-{n}")
    dest = sqlite3.connect(dest_path)
    try:
        conn.backup(dest)
    finally:
        dest.close()
    return dest_path


def migrate(conn: sqlite3.Connection, path: Path, version: int, target: int) -> Path | None:
    """Bring the database from schema ``version`` to ``target``, one transaction per step.

    A database that already held chats (``version > 0``) is backed up first; returns the backup's path
    (None when nothing was migrated or the database was new). A failed step is rolled back and raises
    :class:`StoreError` naming the backup.
    """
    if version >= target:
        return None
    backup_path = backup(conn, path, version) if version > 0 else None
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            if current >= target:
                conn.execute("COMMIT")
                return backup_path
            schema.MIGRATIONS[current](conn)
            conn.execute(f"PRAGMA user_version = {current + 1}")
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                where = f" A copy made before the upgrade is at {backup_path}." if backup_path else ""
                raise StoreError(
                    f"Could not upgrade the chat history {path} to schema {current + 1}: {exc}.{where}"
                ) from exc
            raise


def write_back_deleted_file(conn: sqlite3.Connection, path: Path, busy_timeout_s: float) -> sqlite3.Connection:
    """The database file at ``path`` was deleted while ``conn`` had it open (e.g. the data folder was
    removed): write the open copy back to ``path``, close ``conn`` and return a connection to the new file.

    Raises :class:`StoreError` when the folder can't be made again.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"The chat history file {path} was deleted and can't be written again: {exc.strerror or exc}"
        ) from exc
    dest = sqlite3.connect(path)
    try:
        conn.backup(dest)
    finally:
        dest.close()
    with contextlib.suppress(sqlite3.Error):
        conn.close()
    return connect(path, busy_timeout_s)
