"""Reading a file to import: which app wrote it, and its chats (nothing saved yet).

:func:`read_import_file` reads the whole file and checks every entry before anything is written, so a
malformed file imports nothing and the error names the wrong entry ("conversation 17 ('Trip plan'): message abc
has no author"). It reads our JSON (every version), the chat script's ``chat_*.json``, ChatGPT's
``conversations.json``, Open WebUI's export, and a chat history database of ours (:mod:`.aside`).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_agent.core.errors import ImportFailed
from desktop_agent.core.porting.aside import is_store_file, read_store_file
from desktop_agent.core.porting.chatgpt import is_chatgpt, read_chatgpt
from desktop_agent.core.porting.model import ImportCancelled, ImportPlan, settle_times
from desktop_agent.core.porting.openwebui import is_openwebui, read_openwebui
from desktop_agent.core.porting.ours import is_ours, read_ours
from desktop_agent.core.porting.seed import is_seed, read_seed

#: The largest file an import reads (the whole file is read and parsed in memory before anything is saved).
MAX_FILE_BYTES = 512 * 2**20

#: ``progress(done, total)``
Progress = Callable[[int, int], None]


def read_import_file(path: str | os.PathLike[str], progress: Progress | None = None,
                     cancel: threading.Event | None = None,
                     open_store: Callable[[Path], Any] | None = None) -> ImportPlan:
    """The chats of the file at ``path`` (see the module docstring). Raises :class:`ImportFailed` (nothing is
    saved) or :class:`ImportCancelled` when ``cancel`` is set meanwhile. ``progress(done, total)`` is called
    per chat read. ``open_store(path)`` opens a chat history database to import (see :mod:`.aside`;
    :meth:`ConversationStore.read_import_file <desktop_agent.core.store.porting.Porting.read_import_file>` gives it)."""
    p = Path(path)
    try:
        mtime = p.stat().st_mtime
    except OSError:
        mtime = time.time()
    if is_store_file(p):  # a chat history database: set aside by an older version, or another data folder's
        if open_store is None:
            raise ImportFailed(p, "it is a chat history database: import it with desktop-agent")
        data: Any = read_store_file(p, open_store)
        raw = json.dumps(data, sort_keys=True).encode()
    else:
        raw = _read_bytes(p)
        data = _parse(raw, p)
    if cancel is not None and cancel.is_set():
        raise ImportCancelled()

    def tick(done: int, total: int) -> None:
        if cancel is not None and cancel.is_set():
            raise ImportCancelled()
        if progress is not None:
            progress(done, total)

    if is_chatgpt(data):
        app, chats = "chatgpt", read_chatgpt(data, p, tick)
    elif is_openwebui(data):
        app, chats = "openwebui", read_openwebui(data, p, tick)
    elif is_ours(data):
        app, chats = "desktop-agent", read_ours(data, p)
    elif is_seed(data):
        app, chats = "seed", read_seed(data, p, mtime)
    elif isinstance(data, (list, dict)) and not data:
        raise ImportFailed(p, "it contains no chats")
    else:
        raise ImportFailed(p, "it is not a chat file this app knows (a desktop-agent JSON export, a chat_*.json "
                              "of the chat script, ChatGPT's conversations.json or an Open WebUI export)")
    sha = hashlib.sha256(raw).hexdigest()
    for i, chat in enumerate(chats):
        settle_times(chat, mtime)
        if not chat.source_id:  # a file without chat ids: the file's content and the chat's place identify it
            chat.source_id = f"sha256:{sha[:32]}:{i}"
    return ImportPlan(p, app, chats, sha)


def _read_bytes(p: Path) -> bytes:
    """The file's bytes: only a regular file (not a device such as /dev/zero, a pipe or a socket, which never
    end), and at most :data:`MAX_FILE_BYTES`."""
    try:
        info = p.stat()  # before opening: opening a pipe waits for a writer
        if stat.S_ISDIR(info.st_mode):
            raise ImportFailed(p, "it is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise ImportFailed(p, "it is not a regular file (a device, pipe or socket), so it can't be a chat export")
        _check_size(p, info.st_size)
        with open(p, "rb", buffering=0, opener=_open_nonblocking) as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # replaced meanwhile
                raise ImportFailed(p, "it is not a regular file (a device, pipe or socket), so it can't be a chat "
                                      "export")
            raw = f.read(MAX_FILE_BYTES + 1)
    except IsADirectoryError:
        raise ImportFailed(p, "it is a folder, not a file") from None
    except OSError as exc:
        raise ImportFailed(p, f"the file can't be read ({exc.strerror or exc})") from None
    _check_size(p, len(raw))  # it grew while read
    if not raw.strip():
        raise ImportFailed(p, "the file is empty")
    return raw


def _open_nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def _check_size(p: Path, size: int) -> None:
    if size > MAX_FILE_BYTES:
        raise ImportFailed(p, f"it is {size / 2**20:,.0f} MB, larger than the {MAX_FILE_BYTES // 2**20:,} MB a chat "
                              "export can be here")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"it holds {name}, which is not a number JSON allows")


def _parse(raw: bytes, p: Path) -> Any:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ImportFailed(p, "it is not UTF-8 text") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ImportFailed(p, "its JSON is nested too deeply to be a chat") from None
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):  # NaN / Infinity (see _reject_constant)
            raise ImportFailed(p, str(exc)) from None
        if exc.pos >= len(text.rstrip()):
            raise ImportFailed(p, "the JSON ends too early — the file is truncated (cut off while saving?)") from None
        raise ImportFailed(p, f"it is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
