"""File tools: list, read, search and write files — only inside the folders the user allows.

The user allows folders in Settings → Tools ("Folders tools may use"); none are allowed by default, and until
one is, each tool answers with a message asking the user to add one. Every path the model gives goes through
:func:`desktop_agent.toolkit.allowed_path`, which resolves ``..`` and symbolic links first, so no path and no
link leads out of an allowed folder. A relative path is relative to the first allowed folder.

This module is an example to copy: each tool declares what it does (``read_only=True`` for the three that
change nothing; ``destructive=True`` for the write, so the app asks the user before every write), documents
each parameter with ``Annotated[..., Field(description=...)]``, caps what it reads and returns, and raises
``ToolError`` with a sentence the model can act on.
"""

from __future__ import annotations

import codecs
import datetime as dt
import fnmatch
import os
import stat
import tempfile
import threading
from pathlib import Path
from typing import Annotated

from pydantic import Field

from desktop_agent import ToolError, tool
from desktop_agent.toolkit import allowed_path

#: most entries :func:`list_directory` returns
MAX_ENTRIES = 500
#: most bytes :func:`read_text_file` reads of one file (the default is lower)
MAX_READ_BYTES = 2_000_000
DEFAULT_READ_BYTES = 200_000
#: most results :func:`search_files` returns, files it looks at, and bytes of one file it searches
MAX_RESULTS = 500
MAX_FILES_SCANNED = 20_000
MAX_SEARCH_BYTES = 2_000_000
#: longest line excerpt in a search result
EXCERPT_CHARS = 200
#: most characters :func:`write_text_file` writes
MAX_WRITE_CHARS = 5_000_000

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),  # before UTF-16: same first two bytes
    (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_text(data: bytes) -> tuple[str, str]:
    """``data`` as text and the encoding used: a byte-order mark decides first; then ``charset-normalizer``
    when it is installed; else UTF-8, and Windows-1252 / Latin-1 for older files. Raises ``ToolError`` for
    binary data (NUL bytes without a UTF-16/32 mark)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace"), encoding
    if b"\0" in data[:8192]:
        raise ToolError("this looks like a binary file, not text; it was not read")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 3:  # the size cap cut a character in two
            return data[: exc.start].decode("utf-8"), "utf-8"
    try:
        from charset_normalizer import from_bytes
    except ImportError:
        pass
    else:
        best = from_bytes(data).best()
        if best is not None:
            return str(best), best.encoding
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def _entry(path: Path) -> dict:
    try:
        info = path.lstat()
    except OSError:
        return {"name": path.name, "type": "unreadable"}
    kind = "folder" if stat.S_ISDIR(info.st_mode) else "link" if stat.S_ISLNK(info.st_mode) else "file"
    entry: dict = {"name": path.name, "type": kind}
    if kind == "file":
        entry["size"] = info.st_size
    entry["modified"] = dt.datetime.fromtimestamp(info.st_mtime).isoformat(timespec="seconds")
    return entry


@tool(read_only=True)
def list_directory(
    path: Annotated[str, Field(description="The folder to list, e.g. '.' for the first allowed folder, "
                                           "'notes' or an absolute path inside an allowed folder.")] = ".",
    show_hidden: Annotated[bool, Field(description="Also list names starting with a dot.")] = False,
) -> dict:
    """List the files and folders in a folder the user allows, with their type, size and modification time.

    Use it to see what is in a folder before reading or writing files there.
    """
    folder = allowed_path(path)
    if not folder.is_dir():
        raise ToolError(f"{path!r} is not a folder" if folder.exists() else f"the folder {path!r} does not exist")
    try:
        names = sorted(os.listdir(folder), key=str.lower)
    except OSError as exc:
        raise ToolError(f"cannot list {path!r}: {exc.strerror or exc}") from None
    if not show_hidden:
        names = [n for n in names if not n.startswith(".")]
    entries = [_entry(folder / n) for n in names[:MAX_ENTRIES]]
    out: dict = {"folder": str(folder), "entries": entries}
    if len(names) > MAX_ENTRIES:
        out["note"] = f"only the first {MAX_ENTRIES} of {len(names)} entries are listed"
    return out


@tool(read_only=True)
def read_text_file(
    path: Annotated[str, Field(description="The file to read, relative to the first allowed folder or absolute.")],
    max_bytes: Annotated[int, Field(description=f"Read at most this many bytes (1 to {MAX_READ_BYTES:,}).",
                                    ge=1, le=MAX_READ_BYTES)] = DEFAULT_READ_BYTES,
) -> dict:
    """Read a text file inside a folder the user allows; its encoding is detected (UTF-8, UTF-16, Latin-1…).

    A long file is cut after max_bytes; the answer says so and gives the file's full size.
    """
    target = allowed_path(path)
    if not target.is_file():
        raise ToolError(f"{path!r} is a folder, not a file" if target.is_dir() else f"the file {path!r} does not exist")
    try:
        size = target.stat().st_size
        with target.open("rb") as fh:
            data = fh.read(max_bytes)
    except OSError as exc:
        raise ToolError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    text, encoding = decode_text(data)
    out: dict = {"path": str(target), "encoding": encoding, "size": size, "content": text}
    if size > len(data):
        out["truncated"] = f"only the first {len(data):,} of {size:,} bytes were read"
    return out


def _search_one(path: Path, needle: str, limit: int) -> list[dict]:
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_SEARCH_BYTES)
        text, _encoding = decode_text(data)
    except (OSError, ToolError):  # unreadable or binary: not a match
        return []
    hits: list[dict] = []
    lowered = needle.lower()
    for number, line in enumerate(text.splitlines(), start=1):
        if lowered in line.lower():
            hits.append({"line": number, "text": line.strip()[:EXCERPT_CHARS]})
            if len(hits) >= limit:
                break
    return hits


@tool(read_only=True)
def search_files(
    name: Annotated[str, Field(description="A file name pattern such as '*.md' or 'report*' (case-insensitive); "
                                           "'*' for any file.")] = "*",
    text: Annotated[str, Field(description="Text to look for inside the files (case-insensitive); "
                                           "empty to match on names only.")] = "",
    path: Annotated[str, Field(description="The folder to search in, with its sub-folders; '.' is the first "
                                           "allowed folder.")] = ".",
    max_results: Annotated[int, Field(description=f"Return at most this many matches (1 to {MAX_RESULTS}).",
                                      ge=1, le=MAX_RESULTS)] = 50,
    cancel: threading.Event | None = None,
) -> dict:
    """Find files by name pattern and, optionally, by text they contain, in a folder the user allows.

    Hidden folders (starting with a dot) are skipped and symbolic links are not followed. Each match gives
    the file's path and, for a text search, the matching lines with their numbers.
    """
    root = allowed_path(path)
    if not root.is_dir():
        raise ToolError(f"{path!r} is not a folder")
    pattern = (name or "*").lower()
    matches: list[dict] = []
    scanned = 0
    stopped = ""
    for folder, dirs, files in os.walk(root):  # does not follow symbolic links to folders
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for file_name in sorted(files):
            if cancel is not None and cancel.is_set():
                raise ToolError("the search was cancelled")
            if not fnmatch.fnmatchcase(file_name.lower(), pattern):
                continue
            scanned += 1
            if scanned > MAX_FILES_SCANNED:
                stopped = f"the search stopped after {MAX_FILES_SCANNED:,} files; narrow the name or the folder"
                break
            file_path = Path(folder, file_name)
            if file_path.is_symlink():
                continue
            if text:
                lines = _search_one(file_path, text, limit=5)
                if not lines:
                    continue
                matches.append({"path": str(file_path), "lines": lines})
            else:
                matches.append({"path": str(file_path)})
            if len(matches) >= max_results:
                stopped = f"only the first {max_results} matches are listed"
                break
        if stopped:
            break
    out: dict = {"folder": str(root), "matches": matches}
    if stopped:
        out["note"] = stopped
    return out


@tool(destructive=True, requires_approval=True)  # asks before each write, with or without the permission rules
def write_text_file(
    path: Annotated[str, Field(description="The file to write, relative to the first allowed folder or absolute; "
                                           "missing folders on the way are created.")],
    content: Annotated[str, Field(description="The whole new text of the file (UTF-8).")],
) -> dict:
    """Write text to a file inside a folder the user allows, replacing the file if it exists.

    The file is written atomically: it is either the old or the whole new text, never half written.
    The user is asked before each write.
    """
    target = allowed_path(path)
    if target.is_dir():
        raise ToolError(f"{path!r} is a folder; give a file name")
    if len(content) > MAX_WRITE_CHARS:
        raise ToolError(f"the content is longer than {MAX_WRITE_CHARS:,} characters; it was not written")
    existed = target.exists()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(target.stat().st_mode) if existed else None
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(content)
                fh.flush()
                os.fsync(fh.fileno())
            if mode is not None:
                os.chmod(tmp, mode)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ToolError(f"cannot write {path!r}: {exc.strerror or exc}") from None
    return {"path": str(target), "written_bytes": len(content.encode("utf-8")),
            "created": not existed}
