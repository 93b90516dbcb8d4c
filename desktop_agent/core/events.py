"""What :meth:`desktop_agent.core.agent.Agent.run` yields. The UI, the terminal chat and the tests
all consume these; keep them stable.

All events are frozen dataclasses. :func:`event_to_dict` gives the JSON Lines shape of
``desktop-agent chat --events``: ``{"type": "<class name>", ...fields}``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.errors import AgentError
from desktop_agent.core.messages import Message
from desktop_agent.core.tools.permissions import Decision
from desktop_agent.core.tools.results import Attachment


@dataclass(frozen=True)
class TextDelta:
    """A piece of the visible answer, as streamed."""

    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    """A piece of the model's reasoning (``thinking``, ``reasoning_content``, ``<think>`` tags)."""

    text: str


@dataclass(frozen=True)
class Notice:
    """A transient status for the user, e.g. ``rate limited — retrying in 2 s``."""

    text: str


@dataclass(frozen=True)
class ToolsOffered:
    """Which tools a model call of this turn offers, and why: ``names`` (empty: none), ``reason`` in a few words
    ("matched 'week', 'day'", "no tool fits the message", "named in the message", "every tool"). ``chosen``: the
    tool the model is asked to call (a named ``tool_choice``), if any. Yielded when a turn starts offering a
    set of tools and when that set changes."""

    names: tuple[str, ...]
    reason: str
    chosen: str | None = None


@dataclass(frozen=True)
class RequestSent:
    """A model call was sent with about ``tokens`` prompt tokens; until its first data arrives the server is
    reading the prompt (a local server can take many seconds for a long one). ``streamed``: whether the
    answer streams (otherwise it arrives whole)."""

    tokens: int
    streamed: bool = True

    #: seconds without any data after the request before a surface says the server is reading the prompt
    QUIET_S = 3.0

    def waiting_text(self) -> str:
        """What a surface says when nothing came :attr:`QUIET_S` after the request."""
        return f"The model is reading the prompt ({self.tokens:,} tokens)…"


@dataclass(frozen=True)
class ContextUsage:
    """How much of the model's context window a request used, for the context meter: ``used`` prompt tokens
    (as the server counted them when ``reported``, else our estimate) of ``window`` (None: not known).
    ``left_out``: earlier messages not sent (they did not fit); ``trimmed``: earlier tool results sent
    trimmed. ``assumed``: the window is a guess (the server did not say it; the meter says "assumed").
    Yielded after each model call."""

    used: int
    window: int | None
    reported: bool = False
    left_out: int = 0
    trimmed: int = 0
    assumed: bool = False


@dataclass(frozen=True)
class ChatCompacted:
    """Earlier messages of the chat were summarised: ``summary`` (a ``kind="summary"`` message, saved) is sent
    instead of its first ``summary.covers`` messages from now on. ``automatic``: the chat outgrew its window."""

    summary: Message
    automatic: bool = False


@dataclass(frozen=True)
class CompactionUndone:
    """A summary was removed: the messages it stood for are sent again."""

    summary: Message


@dataclass(frozen=True)
class ToolCallStarted:
    """A tool call is about to run. ``source``: where the tool comes from, as Settings → Tools shows it
    (``shipped``, ``user``, a tools folder, ``MCP server NAME``); empty for a tool that is not offered."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    source: str = ""


@dataclass(frozen=True)
class ToolCallProgress:
    """A running tool call reported how far it is (an MCP server's progress notification): ``progress`` of
    ``total`` (None: not known), with an optional ``message``. Between its ``ToolCallStarted`` and
    ``ToolCallFinished``; reports that come faster than the consumer reads are merged (the newest is kept)."""

    call_id: str
    name: str
    progress: float
    total: float | None = None
    message: str | None = None


@dataclass(frozen=True)
class ToolCallFinished:
    """A tool call ended. ``result`` is the full result (uncapped) for the UI; ``error`` is set when
    ``ok`` is false. ``status`` is one of ok / error / timeout / cancelled / denied; ``duration_ms`` in
    milliseconds. ``decision``: the permission check's (allow/deny, by rule/user/default, rule id); None when
    the call never reached it (unknown tool, invalid arguments, stopped before it ran); ``output`` what the
    tool printed; ``attachments`` images (and the like) of the result for the user, not sent to the model."""

    call_id: str
    name: str
    ok: bool
    result: str
    error: str | None
    duration_ms: float
    status: str = "ok"
    #: what the tool printed (stdout/stderr) while it ran in the tool host; not sent to the model
    output: str = ""
    decision: Decision | None = None
    attachments: tuple[Attachment, ...] = ()


@dataclass(frozen=True)
class MessageAdded:
    """A finished message was appended to the conversation (and saved, when the agent has a store).

    Emitted for the user message, each assistant step with tool calls, and each tool result."""

    message: Message


@dataclass(frozen=True)
class ChatUpdated:
    """What a surface shows about the chat: its id, title and the backend and model answering in it.
    A chat session yields it after the user's message of each turn (first, for a retry)."""

    conversation_id: str
    title: str
    backend: str | None
    model: str | None


@dataclass(frozen=True)
class AnswerFinished:
    """The turn ended with this final assistant message."""

    message: Message


@dataclass(frozen=True)
class TurnFailed:
    """The turn ended with an error. ``partial`` is the partial answer kept, if any."""

    error: AgentError
    partial: Message | None = None


@dataclass(frozen=True)
class TurnCancelled:
    """The user stopped the turn. ``partial`` is the partial answer kept (status ``stopped``), if any."""

    partial: Message | None = None


Event = (
    TextDelta
    | ThinkingDelta
    | Notice
    | ToolsOffered
    | RequestSent
    | ContextUsage
    | ChatCompacted
    | CompactionUndone
    | ToolCallStarted
    | ToolCallProgress
    | ToolCallFinished
    | MessageAdded
    | ChatUpdated
    | AnswerFinished
    | TurnFailed
    | TurnCancelled
)


def event_to_dict(event: Event) -> dict[str, Any]:
    """The JSON-ready form of an event: ``{"type": name, **fields}``; messages become dicts and
    errors become ``{"kind": class name, "message": user text}``."""
    out: dict[str, Any] = {"type": type(event).__name__}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        if isinstance(value, Message):
            value = value.model_dump(mode="json", exclude_none=True)
        elif isinstance(value, AgentError):
            value = {"kind": type(value).__name__, "message": str(value)}
        elif isinstance(value, Decision):
            value = dataclasses.asdict(value)
        elif f.name == "attachments":
            value = [dataclasses.asdict(a) for a in value]
        out[f.name] = value
    return out
