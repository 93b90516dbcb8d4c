"""The backend contract: :class:`ChatBackend` turns our :class:`Message` history into a stream of
:class:`Chunk` objects, whatever the wire protocol.

Backends raise only :mod:`desktop_agent.core.errors` types (never a client library's exception).
"""

from __future__ import annotations

import json
import math
import queue
import socket
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

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
    """

    text: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    notice: str | None = None
    done: bool = False
    finish_reason: str | None = None

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
    ) -> Iterator[Chunk]:
        """Stream one chat completion for ``messages`` (system prompt included, as the first message).

        ``tools`` is the OpenAI-style list ``[{"type": "function", "function": {...}}]``;
        ``tool_choice`` is ``auto``, ``required``, ``none`` or a tool name. Stops early (closing the
        HTTP stream) when ``cancel`` is set. Raises :class:`~desktop_agent.core.errors.AgentError`.
        """
        ...

    def list_models(self) -> list[ModelInfo]:
        """Models offered by the server. Raises :class:`~desktop_agent.core.errors.AgentError`."""
        ...

    def describe(self) -> str:
        """Where this backend talks to, for the status bar: ``ollama · llama3.2 @ http://…``."""
        ...

    def close(self) -> None: ...


def _reject_constant(token: str) -> Any:
    raise ValueError(f"{token} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is too large for JSON")
    return value


# strict=False: models often put raw newlines or tabs inside JSON strings; those are still readable
_STRICT_JSON = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float, strict=False)


def _json_safe(value: Any) -> Any:
    """``value`` with lone surrogates in strings (and keys) replaced; raises ValueError for a
    non-finite float (NaN/Infinity are not JSON: a history holding them is refused by the server)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value} is not a JSON number")
    if isinstance(value, dict):
        return {clean_text(str(k)): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def parse_tool_arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    """Normalise tool-call arguments from any server into ``(arguments, error)``.

    Accepts a dict (Ollama; some OpenAI-compatible servers — case 12), a JSON string (OpenAI; some
    Ollama models — case 01), ``None``, ``""`` or the JSON text ``null`` (no arguments). A JSON object
    followed by trailing text is recovered with ``raw_decode`` (case 13, trailing-text variant).
    Strict JSON only: ``NaN``/``Infinity`` or a number that overflows to infinity is an error (the
    history would otherwise carry them and strict servers refuse every later request). Lone surrogate
    code points in strings become U+FFFD. Anything else gives ``({}, "<why>")`` so the call is
    answered with an error and never run with guessed arguments.
    """
    if raw is None:
        return {}, None
    if isinstance(raw, dict):
        try:
            return _json_safe(dict(raw)), None
        except ValueError as exc:
            return {}, f"arguments are not valid JSON: {exc}"
    if not isinstance(raw, str):
        return {}, f"arguments must be a JSON object, got {type(raw).__name__}"
    text = raw.strip()
    if not text:
        return {}, None
    try:
        value = _STRICT_JSON.decode(text)
    except ValueError as exc:
        try:
            value, _end = _STRICT_JSON.raw_decode(text)
        except ValueError:
            return {}, f"arguments are not valid JSON: {exc}"
    if isinstance(value, str):
        # double-encoded: "{\"city\": \"Paris\"}"
        return parse_tool_arguments(value)
    if value is None:
        return {}, None
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}"
    try:
        return _json_safe(value), None
    except ValueError as exc:  # pragma: no cover - the decoder already refused these
        return {}, f"arguments are not valid JSON: {exc}"


def make_tool_call(name: str, raw_arguments: Any, call_id: str | None = None) -> ToolCall:
    """A :class:`ToolCall` from wire values: parses arguments, assigns an id when empty (case 17)."""
    arguments, error = parse_tool_arguments(raw_arguments)
    kwargs: dict[str, Any] = {"name": clean_text(name or ""), "arguments": arguments}
    if call_id:
        kwargs["id"] = call_id
    if error is not None:
        kwargs["raw_arguments"] = clean_text(raw_arguments if isinstance(raw_arguments, str) else repr(raw_arguments))
        kwargs["arguments_error"] = error
    return ToolCall(**kwargs)


# ------------------------------------------------------------------------------------------------
# Reading a stream so that Stop is immediate
# ------------------------------------------------------------------------------------------------
T = TypeVar("T")


class StreamReader(Generic[T]):
    """Iterates a blocking network stream on a short-lived daemon thread, so that the consuming
    thread can stop at once — also while the server is silent mid-answer.

    ``source``: an iterable whose ``next()`` blocks on the network (NDJSON lines, SSE events).
    Iterating the reader yields the source's items in order, re-raises the source's exception in the
    consuming thread, and returns at the end of the source or — polling every :attr:`POLL_S` seconds —
    as soon as ``cancel`` is set (without ``cancel`` it blocks until the next item).

    Use::

        reader = StreamReader(lines(), cancel, name="ollama-chat")
        reader.watch(response)      # optional: the httpx.Response being read (also from ``source``)
        reader.start()
        try:
            for item in reader: ...
        finally:
            reader.close()          # always

    :meth:`close` stops the reader: it shuts down the socket of the watched response (closing a
    socket from another thread does not wake a blocked ``recv`` on Linux; ``shutdown`` does), so the
    reader thread ends within milliseconds and closes ``source`` itself (a generator's ``finally`` /
    ``with`` blocks run there). The watched response is cleared when the source ends (and the source
    may clear it itself with ``watch(None)`` before giving its connection back to the pool), so a
    pooled connection is never shut down.
    """

    #: seconds between two looks at ``cancel`` while waiting for the next item
    POLL_S = 0.05

    def __init__(self, source: Iterable[T], cancel: threading.Event | None = None, *, name: str = "stream-reader"):
        self._source = source
        self._cancel = cancel
        self._q: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._response: Any = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> StreamReader[T]:
        self._thread.start()
        return self

    def watch(self, response: Any) -> None:
        """The ``httpx.Response`` whose socket :meth:`close` shuts down (None: nothing to shut down)."""
        with self._lock:
            self._response = response

    @property
    def stopped(self) -> bool:
        """:meth:`close` was called (a source may look at this before starting to read)."""
        return self._stop.is_set()

    def _cancelled(self) -> bool:
        return self._cancel is not None and self._cancel.is_set()

    def __iter__(self) -> Iterator[T]:
        while True:
            try:
                kind, value = self._q.get(timeout=self.POLL_S) if self._cancel is not None else self._q.get()
            except queue.Empty:
                if self._cancelled():
                    return
                continue
            if self._cancelled():
                return
            if kind == "item":
                yield value
            elif kind == "error":
                raise value
            else:  # "end"
                return

    def join(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the reader thread to end; True when it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def close(self) -> None:
        """Stop reading (idempotent, never raises): the reader thread drops what it reads from now on."""
        self._stop.set()
        with self._lock:  # held while shutting down: the source cannot hand the connection back meanwhile
            shutdown_socket(self._response)

    def _run(self) -> None:
        it = iter(self._source)
        try:
            for item in it:
                if self._stop.is_set():
                    return
                self._q.put(("item", item))
            self._q.put(("end", None))
        except BaseException as exc:  # noqa: BLE001 — handed to the consuming thread
            if not self._stop.is_set():
                self._q.put(("error", exc))
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                try:
                    close()  # a generator source: its finally/with blocks close the response here
                except Exception:  # noqa: BLE001 — nobody is listening any more
                    pass
            self.watch(None)


def shutdown_socket(response: Any) -> None:
    """Shut down the socket under an ``httpx.Response`` still being read (``SHUT_RDWR``), which wakes a
    thread blocked in ``recv`` on it. Does nothing for None, a closed response, or a transport without
    a socket. Never raises."""
    if response is None or getattr(response, "is_closed", False):
        return
    try:
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
    except Exception:  # noqa: BLE001 — already closed
        pass
