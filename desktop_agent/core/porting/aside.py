"""A chat history database to import: one an older version of the app set aside (``conversations.sqlite3.newer-…``,
see :mod:`desktop_agent.core.store.opening`), or another data folder's ``conversations.sqlite3``.

:func:`read_store_file` exports every chat of it in our JSON format (every branch, attached files included), so
it is imported like any of our exports: chats already here (same ids) are not doubled, only what is new is added.
The file is never changed: it is copied to a temporary folder, and the copy is opened (and brought to this
version's schema) there.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_agent.core.errors import ImportFailed, StoreError

#: how every SQLite database file begins
SQLITE_HEADER = b"SQLite format 3\x00"


def is_store_file(p: Path) -> bool:
    """True when ``p`` is an SQLite database (a chat history, if it is ours). Only a regular file is opened (a
    pipe would block)."""
    if not p.is_file():
        return False
    try:
        with p.open("rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def read_store_file(p: Path, open_store: Callable[[Path], Any]) -> dict[str, Any]:
    """Every chat of the chat history database ``p``, as one of our JSON exports (a dict). ``open_store(path)``
    opens a history (the store's own class: this module is below the store). Raises :class:`ImportFailed` when it
    is not a chat history this version can read."""
    with tempfile.TemporaryDirectory(prefix="desktop-agent-import-") as tmp:
        copy = Path(tmp) / "conversations.sqlite3"
        try:
            shutil.copyfile(p, copy)
            for suffix in ("-wal", "-shm"):  # what was not yet written into the file itself
                side = p.with_name(p.name + suffix)
                if side.is_file():
                    shutil.copyfile(side, copy.with_name(copy.name + suffix))
        except OSError as exc:
            raise ImportFailed(p, f"the file can't be read ({exc.strerror or exc})") from None
        files = p.parent / "attachments"
        if files.is_dir():  # attached files live beside the database: the copy reads the same ones
            (Path(tmp) / "attachments").symlink_to(files, target_is_directory=True)
        try:
            store = open_store(copy)
        except StoreError as exc:
            raise ImportFailed(p, f"it is not a chat history this version can read ({exc})") from None
        try:
            if any("newer version" in w or "damaged" in w for w in store.warnings):
                raise ImportFailed(p, "it is a chat history this version can't read (damaged, or from a newer "
                                      "version of desktop-agent)")
            if not store.count():
                raise ImportFailed(p, "it contains no chats")
            return json.loads(store.export_chats(None, "json"))
        finally:
            store.close()
