"""Chat files: our JSON export, a Markdown transcript, reading a file to import, writing files safely.

Import reads our own JSON export (:data:`EXPORT_FORMAT`) and the seed script's
``chat_<model>_<timestamp>.json`` files (a JSON list of ``{"human": ..., "ai": ...}`` objects); a file
that is empty, truncated or invalid raises :class:`~desktop_agent.core.errors.ImportFailed`. Nothing here
touches the database: :class:`~desktop_agent.core.store.ConversationStore` saves the :class:`ChatFile`
:func:`read_chat_file` returns (and remembers its :attr:`~ChatFile.sha256` and :attr:`~ChatFile.source_id`,
so a second import of the same chat can be noticed).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop_agent.core.errors import ImportFailed
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.store.titles import clip_title, one_line

#: ``"format"`` value of our JSON export.
EXPORT_FORMAT = "desktop-agent.conversation"
#: Version of the JSON export format (a newer one is refused on import).
EXPORT_VERSION = 1


@dataclass
class ChatFile:
    """A chat file read for import (nothing saved yet).

    ``conversation``: the chat; ``title_is_custom``: whether its title was set by hand; ``sha256``: of the
    file's bytes; ``source_id``: the chat id written in our JSON export (None for other files) — the id the
    chat had where it was exported."""

    path: Path
    conversation: Conversation
    title_is_custom: bool
    sha256: str
    source_id: str | None


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` via a temporary file in the same folder and ``os.replace``.

    If anything fails mid-way, ``path`` keeps its previous content.
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


def export_json(conv: Conversation, *, title_is_custom: bool = False) -> str:
    """Our JSON export (UTF-8 text, non-ASCII kept literally), with the chat's options (its own setting
    overrides; importing restores them)."""
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
        "options": conv.options,
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
    out += [*meta, ""]
    for m in conv.messages:
        if m.role == "user":
            out += [f"## You — {_when(m.created_at)}", "", m.content, ""]
        elif m.role == "system" and m.kind == "note":  # a change of the chat's settings (never sent)
            out += [f"*{m.content}* — {_when(m.created_at)}", ""]
        elif m.role == "system" and m.kind == "summary":
            out += [f"## Summary of the first {m.covers or 0} messages (sent instead of them)", "", m.content, ""]
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
                args = (
                    json.dumps(call.arguments, ensure_ascii=False, indent=2)
                    if call.arguments
                    else (call.raw_arguments or "{}")
                )
                out += [f"**Tool call** `{call.name}` (id `{call.id}`)", "", _fence(args, "json"), ""]
            if m.status != "complete":
                out += [f"*(answer {m.status} — partial)*", ""]
        else:  # tool
            bits = [b for b in (m.tool_status, f"{m.duration_ms:.0f} ms" if m.duration_ms is not None else None) if b]
            extra = f" ({', '.join(bits)})" if bits else ""
            out += [f"### Tool result — `{m.tool_name or '?'}`{extra}", "", _fence(m.full_content or m.content), ""]
    return "\n".join(out).rstrip() + "\n"


_SEED_NAME = re.compile(r"^chat_(?:(?P<model>.+)_)?(?P<ts>\d{14})\.json$", re.IGNORECASE)


def read_chat_file(path: str | os.PathLike[str]) -> ChatFile:
    """Read and check a chat file to import: the chat (not saved), whether its title is custom, the file's
    SHA-256 and the export's chat id.

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
    conv, custom = _chat_from_data(data, p, mtime)
    source = data.get("id") if isinstance(data, dict) else None
    return ChatFile(p, conv, custom, hashlib.sha256(raw).hexdigest(), conv.id if source == conv.id else None)


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
            errs: list[dict[str, Any]] = list(getattr(exc, "errors", list)())
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
        if isinstance(data.get("options"), dict):  # only the keys a chat may override are kept
            fields["options"] = data["options"]
        if isinstance(data.get("id"), str) and re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", data["id"]):
            fields["id"] = data["id"]
        conv = Conversation(**fields)
        if fields.get("model") is None:
            conv.model = next((m.model for m in reversed(messages) if m.model), None)
        if fields.get("backend") is None:
            conv.backend = next((m.backend for m in reversed(messages) if m.backend), None)
        title = clip_title(one_line(data["title"])) if isinstance(data.get("title"), str) else ""
        default = conv.default_title()
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
