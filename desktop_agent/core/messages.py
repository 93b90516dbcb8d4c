"""One message shape for both backends: :class:`Message`, :class:`ToolCall`, :class:`Conversation`.

History is stored in this shape and converted per backend only when it is sent (see
``core/backends/ollama.py`` and ``core/backends/openai.py``), so a chat can move between backends:
Ollama gets tool-call arguments as an object, OpenAI gets them as a JSON string with an id.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from desktop_agent.core.settings import chat_options

Role = Literal["system", "user", "assistant", "tool"]

#: How a message ended. ``complete``: normally; ``stopped``: the user pressed Stop (partial answer);
#: ``interrupted``: the app quit or the stream broke mid-answer (partial answer).
MessageStatus = Literal["complete", "stopped", "interrupted"]

#: What a message is: one of the chat, a summary of earlier messages (see :mod:`desktop_agent.core.compaction`), or a
#: note about the chat itself (role ``system``: "Model: a → b", "System prompt changed") — shown in the chat, kept
#: with it, never sent to the model.
MessageKind = Literal["message", "summary", "note"]

#: How a tool call ended, as shown in the sidebar.
ToolStatus = Literal["ok", "error", "timeout", "cancelled", "denied"]


_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate code point replaced by U+FFFD (a proper high+low pair is
    joined into its character).

    Such code points come from ``"\\ud83d"`` escapes in a server's JSON (half an emoji), from
    ``surrogateescape`` decoding (``os.listdir`` of a non-UTF-8 file name, stdin in the C locale) —
    and cannot be encoded as UTF-8, so a message holding one could not be saved, sent or printed.
    """
    if not isinstance(text, str) or text.isascii() or not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def new_call_id() -> str:
    """A synthetic tool-call id, ``call_`` + 24 hex chars (for Ollama, and servers sending empty ids)."""
    return "call_" + uuid.uuid4().hex[:24]


def new_conversation_id() -> str:
    return uuid.uuid4().hex


class ToolCall(BaseModel):
    """A tool call requested by the model.

    ``arguments`` is always a dict (what the tool gets). When the model sent arguments that were not
    valid JSON, ``arguments`` is ``{}``, ``raw_arguments`` keeps the text and ``arguments_error`` says
    why (a model may send arguments that are not valid JSON): the call is then answered with an error
    instead of being run.
    """

    id: str = Field(default_factory=new_call_id)
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None
    arguments_error: str | None = None

    @field_validator("name", "raw_arguments", "arguments_error")
    @classmethod
    def _valid_text(cls, value: str | None) -> str | None:
        return clean_text(value) if value is not None else None

    def arguments_json(self) -> str:
        """The arguments as a JSON string (always valid JSON, non-ASCII kept literally)."""
        return json.dumps(self.arguments, ensure_ascii=False)


class Message(BaseModel):
    """One chat message.

    Fields per role:

    - ``system`` / ``user``: ``content``.
    - ``assistant``: ``content`` (the visible answer), ``thinking`` (reasoning, never sent back as
      content), ``tool_calls``, ``status``.
    - ``tool``: ``content`` is the tool result sent to the model (capped), ``tool_call_id`` and
      ``tool_name`` pair it with its call, ``tool_status`` and ``duration_ms`` describe the run and
      ``full_content`` keeps the uncapped result when it was truncated.
    """

    role: Role
    content: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    tool_name: str | None = None
    tool_status: ToolStatus | None = None
    duration_ms: float | None = None
    full_content: str | None = None
    status: MessageStatus = "complete"
    model: str | None = None
    backend: str | None = None
    created_at: float = Field(default_factory=time.time)
    #: ``summary``: a summary of earlier messages (role ``system``), sent instead of the first ``covers``
    #: messages of the chat, which stay in the chat (shown, searchable, exported) but are no longer sent; its
    #: ``status`` is ``interrupted`` when it leaves out the oldest of them (see core/compaction.py)
    kind: MessageKind = "message"
    covers: int | None = None
    #: Row id given by the store once the message is saved; None before.
    id: int | None = None

    @field_validator("content", "thinking", "full_content")
    @classmethod
    def _valid_text(cls, value: str | None) -> str | None:
        # every message must be storable and sendable as UTF-8 (see clean_text)
        return clean_text(value) if value is not None else None


class TurnFailure(BaseModel):
    """How the last turn of a chat failed, kept with the chat until a later turn of it starts with a new
    message, answers or is stopped: ``kind`` is the error's class name (e.g. ``"BackendError"``), ``text``
    its sentence (``str(error)``), ``failed_at`` epoch seconds."""

    kind: str
    text: str
    failed_at: float = Field(default_factory=time.time)


class Conversation(BaseModel):
    """A chat: its messages in order (no system prompt; that is added per request).

    ``last_failure``: how its last turn failed, if it did (saved by the store; not part of chat exports —
    it describes this installation's backend at that time, not the chat).

    ``options``: the chat's own setting overrides, dotted keys limited to
    :data:`~desktop_agent.core.settings.CHAT_OPTION_KEYS` (tools on/off, tools not offered, temperature,
    think, JSON format, backend and model, system prompt); empty = the chat uses Settings. Saved with the chat
    and part of its export."""

    id: str = Field(default_factory=new_conversation_id)
    title: str = ""
    backend: str | None = None
    model: str | None = None
    created_at: float = Field(default_factory=time.time)
    updated_at: float = Field(default_factory=time.time)
    messages: list[Message] = Field(default_factory=list)
    last_failure: TurnFailure | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    @field_validator("options", mode="before")
    @classmethod
    def _known_options(cls, value: Any) -> dict[str, Any]:
        return chat_options(value)

    def default_title(self, limit: int = 60) -> str:
        """The first user message, on one line, shortened to ``limit`` characters."""
        for m in self.messages:
            if m.role == "user" and m.content.strip():
                text = " ".join(m.content.split())
                return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
        return "New chat"
