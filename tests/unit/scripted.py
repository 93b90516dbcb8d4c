"""A scripted :class:`~desktop_agent.core.backends.base.ChatBackend` for unit tests of the loop.

A reply that is an exception instance (not a list) is raised by ``stream_chat`` itself.

Each call of :meth:`ScriptedBackend.stream_chat` replays the next scripted reply (a list of
:class:`Chunk`) and records what it was sent (``messages`` deep-copied, ``tools``, ``tool_choice``, ``stream``)
plus the value of an optional ``probe()`` at the moment of the call (e.g. how many messages were
saved by then).

Items of a reply, besides ``Chunk``:

- an exception instance: raised at that point of the stream (before any chunk: the request failed);
- ``Pause(seconds)``: sleep (or return early when cancel is set) — a slow stream;
- ``WaitForCancel(max_s)``: block until the cancel flag is set — a stream that hangs;
- a callable ``f(cancel)``: called at that point (e.g. to press Stop from inside the stream).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.arguments import make_tool_call
from desktop_agent.core.backends.base import Chunk, ModelInfo
from desktop_agent.core.messages import Message, ToolCall


@dataclass
class Pause:
    seconds: float


@dataclass
class WaitForCancel:
    max_s: float = 5.0


def text(*pieces: str, finish: str = "stop") -> list[Chunk]:
    """A streamed answer: one Chunk per piece, then a done Chunk."""
    return [Chunk(text=p) for p in pieces] + [Chunk(done=True, finish_reason=finish)]


def calls(*tool_calls: ToolCall, content: str = "") -> list[Chunk]:
    """A reply asking for ``tool_calls`` (optionally with some content first)."""
    out = [Chunk(text=content)] if content else []
    return [*out, Chunk(tool_calls=list(tool_calls), done=True, finish_reason="tool_calls")]


def call(name: str, arguments: Any = None, call_id: str | None = None) -> ToolCall:
    """A ToolCall as a backend would build it from wire values (``arguments`` dict or JSON text)."""
    return make_tool_call(name, arguments if arguments is not None else {}, call_id)


@dataclass
class Request:
    messages: list[Message]
    tools: list[dict[str, Any]] | None
    tool_choice: str
    probe: Any = None
    stream: bool = True

    def roles(self) -> list[str]:
        return [m.role for m in self.messages]


class ScriptedBackend:
    """Replays ``replies`` in order, one per ``stream_chat`` call; records every request."""

    name = "scripted"

    def __init__(self, *replies: Any, model: str = "scripted-model",
                 probe: Callable[[], Any] | None = None, honour_cancel: bool = True):
        self.model = model
        #: False: behave like a backend that ignores the cancel flag (the agent must check it itself)
        self.honour_cancel = honour_cancel
        self.replies: list[Any] = [r if isinstance(r, BaseException) else list(r) for r in replies]
        self.requests: list[Request] = []
        self.probe = probe
        self.closed_streams = 0

    def add(self, *replies: Any) -> None:
        self.replies.extend(r if isinstance(r, BaseException) else list(r) for r in replies)

    def stream_chat(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str = "auto",
        cancel: threading.Event | None = None,
        stream: bool = True,
    ) -> Iterator[Chunk]:
        self.requests.append(
            Request(
                messages=[m.model_copy(deep=True) for m in messages],
                tools=tools,
                tool_choice=tool_choice,
                probe=self.probe() if self.probe is not None else None,
                stream=stream,
            )
        )
        if not self.replies:
            raise AssertionError(f"ScriptedBackend: no reply scripted for request {len(self.requests)}")
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply  # the request itself failed (e.g. HTTP 400 before any chunk)
        return self._replay(reply, cancel)

    def _replay(self, reply: list[Any], cancel: threading.Event | None) -> Iterator[Chunk]:
        try:
            for item in reply:
                if self.honour_cancel and cancel is not None and cancel.is_set():
                    return
                if isinstance(item, BaseException):
                    raise item
                if isinstance(item, Pause):
                    if cancel is not None:
                        cancel.wait(item.seconds)
                    else:
                        time.sleep(item.seconds)
                    continue
                if isinstance(item, WaitForCancel):
                    if cancel is None or not cancel.wait(item.max_s):
                        raise AssertionError("WaitForCancel: cancel was never set")
                    return
                if callable(item) and not isinstance(item, Chunk):
                    item(cancel)
                    continue
                yield item
        finally:
            self.closed_streams += 1

    def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(name=self.model)]

    def describe(self) -> str:
        return f"scripted · {self.model}"

    def close(self) -> None:
        pass


class AllowAll:
    """A permission engine that allows every call (for tests about what tools do, not about approval)."""

    def check(self, tool, arguments, chat=None, cancel=None, call_id=None):
        from desktop_agent.core.tools.permissions import Decision

        return Decision("allow", "user", None, "once")
