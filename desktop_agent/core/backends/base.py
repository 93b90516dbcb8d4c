"""The backend contract: :class:`ChatBackend` turns our :class:`Message` history into a stream of
:class:`Chunk` objects, whatever the wire protocol.

Backends raise only :mod:`desktop_agent.core.errors` types (never a client library's exception).
Tool-call arguments are read with :mod:`desktop_agent.core.arguments`; streams are read with
:mod:`desktop_agent.core.streams`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from desktop_agent.core.messages import Message, ToolCall, clean_text


@dataclass
class Chunk:
    """One stream chunk, already normalised.

    - ``text``: a piece of visible content (may still contain ``<think>`` tags; the agent splits them).
    - ``thinking``: a piece of reasoning from a separate field (Ollama ``thinking``, OpenAI
      ``reasoning_content`` / ``reasoning``).
    - ``tool_calls``: complete tool calls (arguments parsed), usually on the last chunk.
    - ``notice``: a transient status for the user (``rate limited — retrying in 2 s``).
    - ``done`` / ``finish_reason``: the last chunk (``stop``, ``length``, ``tool_calls``).
    - ``prompt_tokens``: the prompt tokens the server counted for this request, when it says (Ollama
      ``prompt_eval_count``, OpenAI ``usage.prompt_tokens``), usually on the last chunk.
    """

    text: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    notice: str | None = None
    done: bool = False
    finish_reason: str | None = None
    prompt_tokens: int | None = None

    def __post_init__(self) -> None:
        # a lone surrogate (a "\ud83d" escape from a server) can be neither printed, saved nor sent
        self.text = clean_text(self.text)
        self.thinking = clean_text(self.thinking)


@dataclass
class ModelInfo:
    """A model the server offers. ``size`` in bytes (Ollama only), ``modified_at`` ISO 8601 text."""

    name: str
    size: int | None = None
    modified_at: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class ChatBackend(Protocol):
    #: "ollama" or "openai"
    name: str
    #: model name used for chats
    model: str

    def stream_chat(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str = "auto",
        cancel: threading.Event | None = None,
        stream: bool = True,
    ) -> Iterator[Chunk]:
        """Stream one chat completion for ``messages`` (system prompt included, as the first message).

        ``tools`` is the OpenAI-style list ``[{"type": "function", "function": {...}}]``;
        ``tool_choice`` is ``auto``, ``required``, ``none`` or a tool name. Stops early (closing the
        HTTP stream) when ``cancel`` is set. ``stream=False`` asks the server for the whole answer in
        one response and yields the same chunks from it (for servers whose streams come back empty,
        see :mod:`desktop_agent.core.capabilities`). Raises
        :class:`~desktop_agent.core.errors.AgentError`; an error the server reports is raised with
        the server's own reason.
        """
        ...

    def list_models(self) -> list[ModelInfo]:
        """Models offered by the server. Raises :class:`~desktop_agent.core.errors.AgentError`."""
        ...

    def describe(self) -> str:
        """Where this backend talks to, for the status bar: ``ollama · llama3.2 @ http://…``."""
        ...

    def close(self) -> None: ...
