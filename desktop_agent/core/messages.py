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


#: What an attached file became: ``text`` (a text or code file, sent as text), ``pdf`` (its text), ``image`` (sent as
#: an image to a model that can see), ``unreadable`` (nothing is sent; ``problem`` says why).
AttachmentKind = Literal["text", "pdf", "image", "unreadable"]

#: Why a file could not be used (see :mod:`desktop_agent.core.attachments`): ``binary`` (not text, PDF or a known
#: image), ``too_big``, ``damaged`` (a PDF or image that cannot be read), ``no_text`` (a PDF without text, e.g.
#: scanned pages), ``empty``, ``unsupported_image`` (an image type models do not take), ``missing`` (its file is
#: gone), ``not_found`` (no such file).
AttachmentProblem = Literal["binary", "too_big", "damaged", "no_text", "empty", "unsupported_image", "missing",
                            "not_found"]


class Attachment(BaseModel):
    """A file attached to a user message, stored once by its content (``sha256``; see
    :mod:`desktop_agent.core.store.attachments`).

    ``text``: what the model gets for a text file or PDF (capped; ``truncated`` says so). An image goes to the
    model as itself (:meth:`read_bytes`). ``data`` (a new attachment's bytes) and ``path`` (its stored file) are
    never exported."""

    sha256: str
    name: str
    mime: str = "application/octet-stream"
    size: int = 0
    kind: AttachmentKind = "unreadable"
    text: str = ""
    truncated: bool = False
    problem: AttachmentProblem | None = None
    data: bytes | None = Field(default=None, exclude=True, repr=False)
    path: str | None = Field(default=None, exclude=True, repr=False)

    @field_validator("name", "text")
    @classmethod
    def _valid_text(cls, value: str) -> str:
        return clean_text(value)

    def read_bytes(self) -> bytes:
        """The file's bytes (kept in memory for a new attachment, else read from its stored file). Raises
        ``OSError`` when they are gone."""
        if self.data is not None:
            return self.data
        if self.path is None:
            raise FileNotFoundError(f"{self.name}: its stored copy is not there")
        with open(self.path, "rb") as f:
            return f.read()


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
    #: files the user attached (user messages; see :func:`text_for_model`)
    attachments: list[Attachment] = Field(default_factory=list)
    #: Row id given by the store once the message is saved; None before.
    id: int | None = None
    #: The id of the message this one follows in the chat's tree (None: a first message, or not saved yet); set
    #: by the store. Regenerated answers and edited messages are siblings: children of the same parent.
    parent_id: int | None = None

    @field_validator("content", "thinking", "full_content")
    @classmethod
    def _valid_text(cls, value: str | None) -> str | None:
        # every message must be storable and sendable as UTF-8 (see clean_text)
        return clean_text(value) if value is not None else None


def text_for_model(m: Message) -> str:
    """What the model reads of a message: its content, then the text of each attached text file or PDF, each
    between a line naming the file and a line ending it (images go separately, as images)."""
    parts = [m.content] if m.content else []
    for a in m.attachments:
        if a.kind in ("text", "pdf") and a.text:
            cut = "\n[… the rest of the file was left out: it is too long]" if a.truncated else ""
            parts.append(f"--- file: {a.name} ---\n{a.text.rstrip()}{cut}\n--- end of {a.name} ---")
    return "\n\n".join(parts)


def images_of(m: Message) -> list[Attachment]:
    """The attached images of a message, in order."""
    return [a for a in m.attachments if a.kind == "image"]


class TurnFailure(BaseModel):
    """How the last turn of a chat failed, kept with the chat until a later turn of it starts with a new
    message, answers or is stopped: ``kind`` is the error's class name (e.g. ``"BackendError"``), ``text``
    its sentence (``str(error)``), ``failed_at`` epoch seconds."""

    kind: str
    text: str
    failed_at: float = Field(default_factory=time.time)


class Conversation(BaseModel):
    """A chat: its messages in order (no system prompt; that is added per request) — the branch of the chat's
    tree that is shown and continued (see :attr:`siblings`).

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
    #: For each shown message (by id) that has siblings — other answers to the same message, other versions of
    #: the same question — the ids of all of them, oldest first (its own among them): the view shows
    #: ``‹ 2/3 ›``. Set by :meth:`~desktop_agent.core.store.ConversationStore.load`; empty for a chat without
    #: branches.
    siblings: dict[int, list[int]] = Field(default_factory=dict)

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
