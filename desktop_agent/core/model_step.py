"""One request to the model and reading its stream into events.

An empty answer is asked again (without streaming, then without tools); reasoning and tool calls written as
text are sorted out of the answer's text."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Generator, Iterator
from typing import Any

from desktop_agent.core import state
from desktop_agent.core.answer import answer_request
from desktop_agent.core.backends.base import ChatBackend
from desktop_agent.core.capabilities import (
    TOOLS_LEFT_OUT,
    Attempt,
    Capabilities,
    first_attempt,
    lesson,
    next_attempt,
    retry_notice,
)
from desktop_agent.core.errors import AgentError, ToolsNotSupported, UnexpectedError
from desktop_agent.core.events import Event, Notice, RequestSent, TextDelta, ThinkingDelta
from desktop_agent.core.messages import Message, ToolCall
from desktop_agent.core.textcalls import JsonToolCallGate
from desktop_agent.core.thinktags import MOVED, TEXT, THINKING, Piece, ThinkSplitter, looks_like_reasoning_model

__all__ = ["ModelStep", "StepOutcome"]

#: what one model call gave: (content, thinking, tool calls, error)
StepOutcome = tuple[str, str, list[ToolCall], AgentError | None]


class ModelStep:
    """The model calls of one Agent's turns with ``backend``, and what the last one did."""

    def __init__(self, backend: ChatBackend) -> None:
        self.backend = backend
        #: what the last request did: prompt tokens the server reported, whether it offered the tools
        self.prompt_tokens: int | None = None
        self.sent_tools = True
        #: while the tools are withdrawn for the rest of a turn, a tool call written as text is still caught
        self.catch_written_calls = False
        try:
            self.no_lone_close = state.NO_LONE_CLOSE.setdefault(backend, set())
        except TypeError:  # backend not weak-referenceable or not hashable: learn per Agent
            self.no_lone_close = set()

    @property
    def model(self) -> str | None:
        return getattr(self.backend, "model", None)

    def hold_think(self) -> bool:
        """Whether text is held back until it is clear it is not reasoning closed by a lone ``</think>``."""
        if getattr(self.backend, "think", None) is True:
            return False  # Ollama separates the reasoning itself
        model = self.model or ""
        return model not in self.no_lone_close and looks_like_reasoning_model(model)

    def call(
        self,
        request: list[Message],
        tools: list[dict[str, Any]] | None,
        choice: str,
        tool_names: set[str],
        cancel: threading.Event,
        told: set[str],
        capabilities: Capabilities,
        tools_anyway: bool,
        tokens: int = 0,
    ) -> Generator[Event, None, StepOutcome]:
        """One model call: a request, and when its answer is empty at most two more (without
        streaming, then without tools; see :mod:`~desktop_agent.core.capabilities`). A request without tools
        after this turn's tools ran carries their results as text (:func:`~desktop_agent.core.answer.answer_request`).
        Yields events (:class:`RequestSent` before each request, ``tokens`` its prompt's size); returns the
        ``(content, thinking, calls, error)`` of the last request. ``capabilities``: what is learned about the
        server and model (and learned here); ``tools_anyway``: the user offers tools whatever was learned."""
        learned = capabilities.learned(self.backend)
        if tools_anyway:  # the user's choice outweighs what was learned
            learned = dataclasses.replace(learned, auto_tools=True, tools=True)
        attempt = first = first_attempt(learned, tools, choice)
        if tools is not None and attempt.tools is None and TOOLS_LEFT_OUT not in told:
            told.add(TOOLS_LEFT_OUT)
            yield Notice(TOOLS_LEFT_OUT)
        for _ in range(3):  # next_attempt ends the chain within two retries; this bounds it anyway
            # JSON-in-content recovery only when tools may be called in this request
            offered = attempt.tools is not None or self.catch_written_calls
            gate_names = tool_names if (offered and choice != "none") else set()
            self.sent_tools = attempt.tools is not None or not tools
            sent = request if attempt.tools is not None else answer_request(request)
            yield RequestSent(tokens, attempt.stream)
            outcome = yield from self.read(sent, attempt, choice, gate_names, cancel)
            content, thinking, calls, error = outcome
            if isinstance(error, ToolsNotSupported) and not tools_anyway:
                capabilities.learn(self.backend, tools=False)  # the next turns go without tools at once
            if cancel.is_set():
                return outcome
            if content.strip() or thinking or calls:  # an answer (or a partial one and its error)
                facts = lesson(first, attempt, choice) if error is None else {}
                if facts:
                    capabilities.learn(self.backend, **facts)
                return outcome
            following = next_attempt(attempt, error)
            if following is None:
                return outcome
            yield Notice(retry_notice(attempt, error))
            attempt = following
        return outcome

    def read(
        self,
        request: list[Message],
        attempt: Attempt,
        choice: str,
        gate_names: set[str],
        cancel: threading.Event,
    ) -> Generator[Event, None, StepOutcome]:
        """One request. Yields streaming events; returns ``(content, thinking, calls, error)``
        where ``error`` is an AgentError (or None; check ``cancel`` for a stop)."""
        splitter = ThinkSplitter(hold=self.hold_think())
        gate = JsonToolCallGate(gate_names)
        text_parts: list[str] = []
        thinking_parts: list[str] = []
        calls: list[ToolCall] = []
        finish_reason: str | None = None
        separate_thinking = False
        error: AgentError | None = None

        def route(pieces: list[Piece]) -> Iterator[Event]:
            for kind, s in pieces:
                if kind == THINKING:
                    thinking_parts.append(s)
                    yield ThinkingDelta(s)
                elif kind == MOVED:
                    # text already shown was reasoning (lone </think>); the final message is corrected
                    text_parts.clear()
                    gate.reset()
                    if thinking_parts:
                        s = "\n" + s
                    thinking_parts.append(s)
                    yield ThinkingDelta(s)
                elif kind == TEXT:
                    visible = gate.feed(s)
                    if visible:
                        text_parts.append(visible)
                        yield TextDelta(visible)

        stream = None
        try:
            stream = self.backend.stream_chat(request, tools=attempt.tools, tool_choice=choice, cancel=cancel,
                                              stream=attempt.stream)
            for chunk in stream:
                # a chunk that arrived as Stop was pressed (or the app began quitting) is kept: it has reached
                # the process, and the partial answer saved is all that arrived (issue 23); nothing more is read
                if chunk.notice:
                    yield Notice(chunk.notice)
                if chunk.thinking:
                    if not separate_thinking:
                        separate_thinking = True
                        yield from route(splitter.release())
                    thinking_parts.append(chunk.thinking)
                    yield ThinkingDelta(chunk.thinking)
                if chunk.text:
                    yield from route(splitter.feed(chunk.text))
                if chunk.tool_calls:
                    calls.extend(chunk.tool_calls)
                if chunk.finish_reason:
                    finish_reason = chunk.finish_reason
                if chunk.prompt_tokens:
                    self.prompt_tokens = chunk.prompt_tokens
                if cancel.is_set():
                    break
        except AgentError as exc:
            if not cancel.is_set():
                error = exc
        except Exception as exc:  # noqa: BLE001
            if not cancel.is_set():
                error = UnexpectedError(exc, "the backend")
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):  # closing a broken stream must not mask the outcome
                    close()

        yield from route(splitter.flush())
        rest, recovered = gate.finish()
        if rest:
            text_parts.append(rest)
            yield TextDelta(rest)
        # recovered calls are used only when the server sent no native ones (some send both: the
        # JSON text is then the same call, and is dropped rather than shown or run twice)
        if recovered and not calls and error is None and not cancel.is_set():
            calls.extend(recovered)

        # learn: this model answered without a lone </think> → stream its text directly from now on
        completed = error is None and not cancel.is_set()
        if completed and self.model and not splitter.lone_close_seen and (
            separate_thinking or "".join(text_parts).strip()
        ):
            self.no_lone_close.add(self.model)

        content = "".join(text_parts)
        thinking = "".join(thinking_parts).strip()
        if error is None and not cancel.is_set() and finish_reason == "length" and not calls:
            yield Notice("The answer reached the model's output length limit and may be incomplete.")
        return content, thinking, calls, error
