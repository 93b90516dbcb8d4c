"""What a tool call produced: :class:`ToolResult`, a return value or a failure as text the model reads, and the
cap on what the model gets."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import json
from collections.abc import Callable, Iterator
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from desktop_agent.core.messages import clean_text
from desktop_agent.core.tools.decorator import ToolError

if TYPE_CHECKING:
    from desktop_agent.core.tools.permissions import Decision

#: Default cap, in characters, of a tool result sent to the model.
DEFAULT_OUTPUT_CAP = 16_000

#: what a running tool reports: ``(progress, total or None, message or None)``; any thread may call it
ProgressReport = Callable[[float, float | None, str | None], None]


@dataclasses.dataclass(frozen=True)
class Attachment:
    """Content of a result that is shown to the user, not sent to the model (the model reads a one-line summary):
    ``kind`` image / audio, ``mime_type``, ``data`` base64 as the tool gave it."""

    kind: str
    mime_type: str
    data: str


@dataclasses.dataclass(frozen=True)
class ToolReply:
    """A tool's return value with ``attachments`` besides its ``text`` (the text goes to the model)."""

    text: str
    attachments: tuple[Attachment, ...] = ()


@dataclasses.dataclass
class ToolResult:
    """The outcome of one :meth:`ToolRegistry.dispatch`.

    - ``status``: ``ok`` | ``error`` | ``timeout`` | ``cancelled`` | ``denied``; ``ok`` is
      ``status == "ok"``.
    - ``content``: the text sent to the model as the ``role="tool"`` message, at most ``output_cap``
      characters (longer results end with ``[output truncated: N characters total]``).
    - ``full``: the whole text, uncapped (for the UI).
    - ``error``: the error text (same as ``content`` for failures, ``Error: …``), None on success.
    - ``duration_ms``: wall time of the dispatch in milliseconds.
    - ``arguments``: the decoded arguments (None when they could not be decoded).
    - ``decision``: the permission check's :class:`~desktop_agent.core.tools.permissions.Decision` (None when
      the call never reached it: unknown tool, unreadable or invalid arguments).
    - ``output``: what the tool printed (stdout and stderr) while it ran in the tool host; not sent to the model.
    - ``attachments``: images and the like for the user (not sent to the model), see :class:`ToolReply`.
    """

    name: str
    status: str
    content: str
    full: str
    error: str | None = None
    duration_ms: float = 0.0
    arguments: dict[str, Any] | None = None
    output: str = ""
    decision: Decision | None = None
    attachments: tuple[Attachment, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def truncated(self) -> bool:
        return self.content != self.full

    @classmethod
    def failure(cls, name: str, message: str, *, status: str = "error", arguments: dict[str, Any] | None = None,
                duration_ms: float = 0.0, output_cap: int | None = DEFAULT_OUTPUT_CAP) -> ToolResult:
        """A failed result; ``message`` gets an ``Error: `` prefix if it has none."""
        message = clean_text(message)
        text = message if message.startswith("Error:") else f"Error: {message}"
        return cls(name=name, status=status, content=cap_text(text, output_cap), full=text, error=text,
                   duration_ms=duration_ms, arguments=arguments)


def cap_text(text: str, cap: int | None) -> str:
    """``text`` shortened to at most ``cap`` characters, ending with
    ``\\n[output truncated: 2,000,004 characters total]`` when it was cut (a huge tool output would
    overflow the model's context). None/0: no cap."""
    if not cap or len(text) <= cap:
        return text
    marker = f"\n[output truncated: {len(text):,} characters total]"
    return text[: max(0, cap - len(marker))] + marker


def _json_default(obj: Any) -> Any:
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    if isinstance(obj, (_dt.datetime, _dt.date, _dt.time)):
        return obj.isoformat()
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, (set, frozenset)):
        try:
            return sorted(obj)
        except TypeError:
            return list(obj)
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj).decode("utf-8", errors="replace")
    if isinstance(obj, PurePath):
        return str(obj)
    if isinstance(obj, Iterator):
        return list(obj)
    return str(obj)


def result_to_text(value: Any) -> str:
    """A tool's return value as text: ``str`` as is, anything else as JSON (``ensure_ascii=False``;
    pydantic models, dataclasses, dates, enums, sets handled; other objects via ``str``). Lone surrogates
    (e.g. a non-UTF-8 file name from ``os.listdir``) become U+FFFD so the text can be saved and sent."""
    if isinstance(value, str):
        return clean_text(value)
    return clean_text(json.dumps(value, ensure_ascii=False, default=_json_default))


def describe_exception(exc: BaseException) -> str:
    """An exception as the model reads it: a :class:`ToolError`'s message alone, else ``Type: message``."""
    if isinstance(exc, ToolError):
        return str(exc) or "the tool failed"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_validation_error(name: str, exc: ValidationError, max_errors: int = 5) -> str:
    """One readable line per problem, e.g. ``customer_id: Input should be a valid integer (got
    'forty-two')`` — no pydantic URLs."""
    parts = []
    errors = exc.errors(include_url=False)
    for err in errors[:max_errors]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        msg = err.get("msg", "invalid value")
        if err.get("type") == "missing":
            parts.append(f"{loc}: missing (required)")
        else:
            parts.append(f"{loc}: {msg} (got {_short(err.get('input'))})")
    if len(errors) > max_errors:
        parts.append(f"and {len(errors) - max_errors} more")
    return f"invalid arguments for tool '{name}': " + "; ".join(parts)
