"""Attached files as the chat history keeps them: each file's bytes once, content-addressed
(``<data folder>/attachments/<first two hex digits>/<sha256>``), with a row in ``attachments`` (what the model reads
of it) and one ``message_attachments`` row per message using it (see :mod:`~desktop_agent.core.store.schema`).

A file no message uses any more is removed — its row and its bytes — when a chat or message is deleted
(:func:`sweep`), and at start-up (the window runs it off the GUI thread) for files a crash left behind.
The functions here run inside the store's transactions; :class:`~desktop_agent.core.store.ConversationStore`
calls them.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from desktop_agent.core.messages import Attachment
from desktop_agent.core.store.database import StoreDatabase, guarded

_SHA = re.compile(r"^[0-9a-f]{64}$")
#: a stored file without a row is removed only when it is older than this (seconds): it may be one being saved
ORPHAN_GRACE_S = 600.0


class AttachmentFiles:
    """The folder of attached files' bytes, by SHA-256."""

    def __init__(self, folder: str | os.PathLike[str]):
        self.folder = Path(folder)

    def path_of(self, sha256: str) -> Path:
        if not _SHA.match(sha256):
            raise ValueError(f"not a SHA-256: {sha256!r}")
        return self.folder / sha256[:2] / sha256

    def write(self, sha256: str, data: bytes) -> Path:
        """Store ``data`` under its hash (atomically; nothing to do when it is there already)."""
        target = self.path_of(sha256)
        if target.is_file() and target.stat().st_size == len(data):
            return target
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".part-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return target

    def remove(self, sha256: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.path_of(sha256).unlink()

    def stored(self) -> Iterable[tuple[str, Path]]:
        """Every stored file (and a left-over partial write) as ``(name, path)``."""
        if not self.folder.is_dir():
            return
        for sub in self.folder.iterdir():
            if sub.is_dir():
                for f in sub.iterdir():
                    yield f.name, f


def save(conn: sqlite3.Connection, files: AttachmentFiles, message_id: int, attachments: list[Attachment]) -> None:
    """Store the attachments of message ``message_id`` (its bytes first, then the rows, in the caller's
    transaction). An unreadable attachment is not stored. An attachment without bytes (imported from a file that
    had only its text) keeps its row."""
    conn.execute("DELETE FROM message_attachments WHERE message_id = ?", (message_id,))
    position = 0
    for a in attachments:
        if a.kind == "unreadable" or not _SHA.match(a.sha256):
            continue
        if a.data is not None:
            a.path = str(files.write(a.sha256, a.data))
        elif a.path is None:
            a.path = str(files.path_of(a.sha256))
        conn.execute(
            "INSERT OR IGNORE INTO attachments (sha256, mime, size, kind, text, truncated, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (a.sha256, a.mime, a.size, a.kind, a.text, int(a.truncated), time.time()),
        )
        conn.execute(
            "INSERT INTO message_attachments (message_id, position, sha256, name) VALUES (?, ?, ?, ?)",
            (message_id, position, a.sha256, a.name),
        )
        position += 1


def load(conn: sqlite3.Connection, files: AttachmentFiles, conversation_id: str) -> dict[int, list[Attachment]]:
    """The attachments of a chat's messages, by message id, in order. An image whose bytes are gone says
    ``problem="missing"``."""
    rows = conn.execute(
        "SELECT ma.message_id, ma.name, a.sha256, a.mime, a.size, a.kind, a.text, a.truncated "
        "FROM message_attachments ma JOIN attachments a ON a.sha256 = ma.sha256 "
        "JOIN messages m ON m.id = ma.message_id WHERE m.conversation_id = ? ORDER BY ma.message_id, ma.position",
        (conversation_id,),
    ).fetchall()
    out: dict[int, list[Attachment]] = {}
    for mid, name, sha, mime, size, kind, text, truncated in rows:
        path = files.path_of(sha)
        a = Attachment(sha256=sha, name=name, mime=mime, size=size, kind=kind, text=text, truncated=bool(truncated),
                       path=str(path))
        if kind == "image" and not path.is_file():
            a.problem = "missing"
        out.setdefault(mid, []).append(a)
    return out


def unused(conn: sqlite3.Connection) -> list[str]:
    """Delete the rows of files no message uses (in the caller's transaction); returns their hashes, whose
    bytes the caller removes after the commit (:meth:`AttachmentFiles.remove`)."""
    conn.execute("DELETE FROM message_attachments WHERE message_id NOT IN (SELECT id FROM messages)")
    gone = [r[0] for r in conn.execute(
        "SELECT sha256 FROM attachments WHERE sha256 NOT IN (SELECT sha256 FROM message_attachments)")]
    conn.executemany("DELETE FROM attachments WHERE sha256 = ?", [(s,) for s in gone])
    return gone


def orphans(conn: sqlite3.Connection, files: AttachmentFiles, now: float | None = None) -> list[Path]:
    """Stored files without a row (a crash between writing the bytes and saving the message) older than
    :data:`ORPHAN_GRACE_S`, and left-over partial writes."""
    known = {r[0] for r in conn.execute("SELECT sha256 FROM attachments")}
    now = time.time() if now is None else now
    out = []
    for name, path in files.stored():
        if name in known:
            continue
        with contextlib.suppress(OSError):
            if now - path.stat().st_mtime > ORPHAN_GRACE_S:
                out.append(path)
    return out


class AttachedFiles(StoreDatabase):
    """The attached files of :class:`~desktop_agent.core.store.ConversationStore` (a mixin): removing those no
    message uses, reading and adding one."""

    files: AttachmentFiles

    def _remove_files(self, hashes: list[str]) -> None:
        for sha in hashes:
            self.files.remove(sha)

    @guarded
    def sweep_attachments(self) -> int:
        """Remove attached files no message uses (rows and bytes) and bytes a crash left without a row; returns
        how many files were removed. Slow on a big folder: run it off the GUI thread (the window does, at
        start-up)."""
        with self._lock:
            with self.write() as conn:
                gone = unused(conn)
                strays = orphans(conn, self.files)
            self._remove_files(gone)
        for path in strays:
            with contextlib.suppress(OSError):
                path.unlink()
        return len(gone) + len(strays)

    def attachment_bytes(self, sha256: str) -> bytes:
        """The bytes of a stored attached file (for export). Raises ``KeyError`` when no such file is stored."""
        try:
            return self.files.path_of(sha256).read_bytes()
        except (OSError, ValueError) as exc:
            raise KeyError(sha256) from exc

    def add_attachment(self, name: str, data: bytes) -> Attachment:
        """An attachment for ``data`` (what it becomes: see :mod:`desktop_agent.core.attachments`), its bytes
        stored; put it in a message's ``attachments`` before the message is saved (for import). A file stored
        but never used by a saved message is removed by the next :meth:`sweep_attachments`."""
        from desktop_agent.core.attachments import attach_bytes

        a = attach_bytes(name, data)
        if a.kind != "unreadable":
            a.path = str(self.files.write(a.sha256, data))
        return a

