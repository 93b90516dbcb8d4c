"""The Ollama backend: our :class:`~desktop_agent.core.messages.Message` history → Ollama's
``/api/chat`` → :class:`~desktop_agent.core.backends.base.Chunk` objects. Model administration (``/api/tags``,
``/api/show``, ``/api/pull``, ``/api/delete``, ``/api/version``) is its part in
:mod:`~desktop_agent.core.backends.ollama_models`.

Wire format source: the Ollama API doc (``docs/api.md`` in ollama/ollama). Streams are NDJSON, one
JSON object per line; the last chat line has ``"done": true`` (with ``done_reason``, ``eval_count``…).
Tool calls carry ``function.arguments`` as an object and, in most versions, no id (we assign one);
a tool result goes back as ``{"role": "tool", "content": ..., "tool_name": ...}``; reasoning may come
in a separate ``message.thinking`` field.

Design: the connections are :mod:`~desktop_agent.core.backends.http`'s (one pool for the backend): an
``httpx.Client`` of ours with the headers ``ollama.Client`` sends, and the official ``ollama.Client`` handed
the same transport for ``/api/show`` and ``/api/delete``. Chat, list and pull streams are read *raw* through
our client instead of through ``Client.chat()``, because the official response models reject or lose
real-world payloads:

- ``ChatResponse`` raises pydantic ``ValidationError`` when a server sends ``function.arguments`` as a
  JSON *string* (some models do) — and the whole stream is lost with it. We parse each line leniently
  and decode string arguments with :func:`~desktop_agent.core.arguments.make_tool_call`.
- ``ChatRequest``'s ``Tool`` model drops nested ``properties``, ``anyOf``, ``default``… from tool
  schemas; we send the schema as given.
- ``ListResponse`` reads only ``model``, which servers following the older doc do not send (``name``).

Every failure is raised as a :mod:`desktop_agent.core.errors` type, never a client-library exception.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
from collections.abc import Generator, Iterator
from typing import Any

from desktop_agent.core import errors
from desktop_agent.core.arguments import make_tool_call
from desktop_agent.core.attachments import wire_parts
from desktop_agent.core.backends.base import Chunk
from desktop_agent.core.backends.deadline import first_data_within
from desktop_agent.core.backends.ollama_models import (
    SHOW_TIMEOUT_S,
    OllamaModels,
    connect_detail,
    error_text,
    json_answer,
    short,
)
from desktop_agent.core.backends.reasons import is_context_reason, looks_like_html
from desktop_agent.core.environment import import_ollama
from desktop_agent.core.messages import Message, ToolCall
from desktop_agent.core.model_info import ModelFacts, Window, window_for
from desktop_agent.core.state import facts_for, learn_from_error, learned_window
from desktop_agent.core.streams import Watch
from desktop_agent.core.urls import parse_ollama_host

DEFAULT_HOST = "http://localhost:11434"

#: Seconds allowed to open a TCP connection. Always bounded, so a dead or firewalled host fails in
#: seconds with a clear "can't reach Ollama" even when ``timeout_s`` is None (a model can take minutes
#: to load).
CONNECT_TIMEOUT_S = 5.0



def _headers(api_key: str | None) -> dict[str, str]:
    """The headers ``ollama.Client`` sends (JSON both ways, its user agent, ``api_key`` — ``OLLAMA_API_KEY``,
    handed down from the services' environment — as a bearer token for a hosted Ollama), for our client that
    reads the streams raw."""
    import platform
    from importlib.metadata import version

    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "User-Agent": f"ollama-python/{version('ollama')} ({platform.machine()} {platform.system().lower()}) "
                      f"Python/{platform.python_version()}",
    }
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


_MODEL_NOT_FOUND = re.compile(r"model\b.*\bnot found", re.I | re.S)


class OllamaBackend(OllamaModels):
    """Chats with an Ollama server through the official ``ollama`` client.

    ``host``: the Ollama base URL (``http://localhost:11434``; forms without scheme are accepted as by
    ``ollama.Client``). ``temperature`` goes in ``options``; ``keep_alive`` is seconds (-1 = keep the
    model loaded) or a duration string (``"5m"``); ``format`` is None or ``"json"``; ``think`` None
    (the model's default), True or False. ``timeout_s``: seconds to wait for the first data of an answer
    (None = no limit; connecting is always limited to :data:`CONNECT_TIMEOUT_S`);
    ``next_data_timeout_s``: seconds to wait for the next data once it streams (None: ``timeout_s``).
    ``api_key``: a hosted Ollama's key (``OLLAMA_API_KEY``, as ``ollama.Client`` sends it).
    ``http_client``: an ``httpx.Client`` (its ``base_url`` the host) to read chats, lists and pulls through
    instead of one of :func:`desktop_agent.core.backends.http.client` (tests); not closed by :meth:`close`.
    """

    name = "ollama"

    def __init__(
        self,
        host: str = DEFAULT_HOST,
        model: str = "llama3.2",
        *,
        temperature: float = 0.0,
        keep_alive: int | float | str | None = -1,
        format: str | None = None,
        think: bool | str | None = None,
        timeout_s: float | None = None,
        next_data_timeout_s: float | None = None,
        http_client: Any = None,
        max_window: int | None = 8192,
        window: int | None = None,
        default_window: int = 8192,
        force_think: bool = False,
        api_key: str | None = None,
    ):
        self.model = model
        #: the context window: ``window`` (a per-model setting), else the model's own (``/api/show``: its
        #: Modelfile's ``num_ctx``, else its context length), else ``default_window`` (assumed); never above
        #: ``max_window`` (memory), nor above a window the server named refusing a request. Sent as
        #: ``options.num_ctx``.
        self.max_window = max_window
        self.window = window
        self.default_window = default_window
        #: send ``think`` even when the server says the model cannot think (the user's choice)
        self.force_think = force_think
        #: at most this many answer tokens (``options.num_predict``); None: the model's own limit
        self.max_answer_tokens: int | None = None
        self.temperature = temperature
        self.keep_alive = keep_alive
        self.format = format
        self.think = think
        self.timeout_s = timeout_s
        self.next_data_timeout_s = next_data_timeout_s
        self.host = (host.rstrip("/") if "://" in host else parse_ollama_host(host)) if host else DEFAULT_HOST
        import httpx
        ollama = import_ollama()  # heavy (~0.6 s): only when a backend is built

        from desktop_agent.core.backends import http as transport

        shared = transport.Transport()  # one pool for the chat and the /api/show client
        own = http_client is None
        timeout = httpx.Timeout(timeout_s, connect=min(CONNECT_TIMEOUT_S, timeout_s or CONNECT_TIMEOUT_S))
        if http_client is None:
            http_client = transport.client(timeout=timeout, base_url=self.host, headers=_headers(api_key),
                                           follow_redirects=True, transport=shared)
        #: the official client, for the requests whose answers it reads well (``/api/delete``)
        self.client = ollama.Client(host=self.host, timeout=timeout, **transport.client_options(shared))
        #: the client chat, list and pull streams are read through (raw: see the module's docstring)
        self._http = http_client
        self._own_http = own
        #: the client that asks ``/api/show`` (a short wait: facts must never hold a turn for minutes)
        show_timeout = httpx.Timeout(SHOW_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
        self._show_client = ollama.Client(host=self.host, timeout=show_timeout, **transport.client_options(shared))
        #: path → its absolute URL on this client (see :meth:`_url`)
        self._urls: dict[str, Any] = {}
        #: the headers a JSON body needs beyond the client's own (ours sends JSON already)
        json_type = str(http_client.headers.get("content-type", "")).lower() == "application/json"
        self._json_headers: dict[str, str] | None = None if json_type else {"Content-Type": "application/json"}

    # ------------------------------------------------------------------ public API

    def describe(self) -> str:
        """``ollama · llama3.2 @ http://localhost:11434``"""
        return f"ollama · {self.model} @ {self.host}"

    def close(self) -> None:
        """Close the HTTP connection pool. The backend cannot be used afterwards."""
        with contextlib.suppress(Exception):  # closing twice, or a half-broken pool: nothing useful to report
            self.client.close()
            self._show_client.close()  # the same pool: closed already, but said for the reader
        if self._own_http:
            with contextlib.suppress(Exception):
                self._http.close()

    def stream_chat(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str = "auto",
        cancel: threading.Event | None = None,
        stream: bool = True,
    ) -> Iterator[Chunk]:
        """Stream one ``POST /api/chat`` (``stream: true``) for ``messages``.

        ``stream=False`` sends ``stream: false`` and yields the same chunks from the one JSON answer
        (the whole answer arrives at once).

        Yields a :class:`Chunk` per NDJSON line with ``text`` (``message.content``) and ``thinking``
        (``message.thinking``), tool calls as ``Chunk(tool_calls=[...])`` with ids assigned and
        arguments decoded (object or JSON string), and a last ``Chunk(done=True, finish_reason=...)``
        (``stop``, ``length``, or ``tool_calls`` when the model called tools). ``<think>`` tags and
        JSON-in-content tool calls are left in ``text``: the agent loop handles them.

        Ollama has no ``tool_choice``: ``none`` sends no tools, a tool name sends only that tool,
        ``auto``/``required`` send all.

        When ``cancel`` is set the HTTP stream is closed and the generator returns (no error) within
        about 50 ms, also while the server is silent (loading the model, or stalled mid-answer).

        Raises :class:`~desktop_agent.core.errors.BackendUnreachable` (no connection),
        :class:`~desktop_agent.core.errors.ServerTimedOut` (no answer within ``timeout_s``),
        :class:`~desktop_agent.core.errors.ModelNotFound` (404; ``available`` from ``/api/tags``),
        :class:`~desktop_agent.core.errors.ToolsNotSupported`,
        :class:`~desktop_agent.core.errors.ContextTooLong`,
        :class:`~desktop_agent.core.errors.MalformedToolCall` (a tool call without a name or not an
        object), :class:`~desktop_agent.core.errors.AnswerCutOff` (the stream broke: connection
        dropped, a line that is not JSON, no ``done`` line) and
        :class:`~desktop_agent.core.errors.BackendError` (anything else, incl. an ``{"error": ...}``
        line mid-stream).
        """
        body = self.build_request(messages, tools, tool_choice)
        body["stream"] = stream
        saw_tool_calls = False
        if cancel is not None and cancel.is_set():
            return
        lines = self._stream_lines("POST", "/api/chat", body, cancel, model=self.model, whole=not stream,
                                   next_s=self.next_data_timeout_s)
        seen = 0
        frames = _RepeatedCalls()
        try:
            for line in lines:
                seen += 1
                data = self._first_line(line) if seen == 1 else self._parse_line(line)
                if data.get("error"):
                    raise self._error_for_message(error_text(data["error"]), None, model=self.model)
                message = data.get("message")
                if message is None:
                    message = {}
                if not isinstance(message, dict):
                    raise errors.AnswerCutOff(f"unexpected message in stream: {short(repr(message))}")
                text = message.get("content") or ""
                thinking = message.get("thinking") or ""
                if not isinstance(text, str):
                    text = str(text)
                if not isinstance(thinking, str):
                    thinking = str(thinking)
                calls = frames.new_in_frame(message.get("tool_calls"), self._tool_calls(message.get("tool_calls")))
                saw_tool_calls = saw_tool_calls or bool(calls)
                if text or thinking or calls or data.get("done"):
                    lines.watch.progress()  # an empty frame is not progress
                if data.get("done"):
                    reason = data.get("done_reason") or "stop"
                    if saw_tool_calls and reason == "stop":
                        reason = "tool_calls"
                    lines.finish()  # read the end of the body: the connection can be reused
                    yield Chunk(text=text, thinking=thinking, tool_calls=calls, done=True, finish_reason=reason,
                                prompt_tokens=_count(data.get("prompt_eval_count")))
                    return
                if text or thinking or calls:
                    yield Chunk(text=text, thinking=thinking, tool_calls=calls)
        finally:
            lines.close()
        if cancel is not None and cancel.is_set():
            return
        if seen == 0:
            return  # HTTP 200 and no data at all: an empty answer (the agent says so, or asks again)
        raise errors.AnswerCutOff("the stream ended before Ollama said it was done")

    def model_facts(self) -> ModelFacts:
        """This backend's model's facts, asked once per process (unknown when the server cannot say)."""
        return facts_for(self)

    def window_info(self) -> Window:
        """The window requests ask for (``options.num_ctx``) and where it comes from, see the constructor."""
        return window_for(self.model_facts(), setting=self.window, default=self.default_window, cap=self.max_window,
                          learned=learned_window(self))

    def context_window(self) -> int:
        """The window requests ask for (``options.num_ctx``), in tokens."""
        return self.window_info().tokens

    def thinks(self) -> bool:
        """Whether requests carry ``think: true``: asked for, and the model can think (or ``force_think``)."""
        return self.think is True and (self.force_think or self.model_facts().can("thinking"))

    # ------------------------------------------------------------------ request building

    def build_request(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str = "auto",
    ) -> dict[str, Any]:
        """The JSON body of ``POST /api/chat`` (public for tests and debugging)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_wire_messages(messages),
            "stream": True,
            # num_ctx always: without it Ollama uses its small default and cuts the prompt without a word
            "options": {"temperature": self.temperature, "num_ctx": self.context_window()},
        }
        if self.max_answer_tokens:
            body["options"]["num_predict"] = self.max_answer_tokens
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        if self.format:
            body["format"] = self.format
        if self.think is not None and (self.think is not True or self.thinks()):
            body["think"] = self.think
        chosen = _choose_tools(tools, tool_choice)
        if chosen:
            body["tools"] = chosen
        return body

    # ------------------------------------------------------------------ response parsing

    def _first_line(self, line: bytes, path: str = "/api/chat") -> dict[str, Any]:
        """The first line of a 200 chat answer, or :class:`~desktop_agent.core.errors.NotAnApi` when it is not
        Ollama's (a web page, text, JSON of another kind: the host is wrong, not the model)."""
        text = line.decode("utf-8", "replace").strip().lstrip("\ufeff")
        url = self.host + path
        if looks_like_html(text):
            raise errors.NotAnApi(url, "ollama", "a web page")
        try:
            data = self._parse_line(line)
        except errors.AnswerCutOff:
            raise errors.NotAnApi(url, "ollama", "text that is not JSON") from None
        if not any(key in data for key in ("message", "done", "error", "model", "created_at")):
            raise errors.NotAnApi(url, "ollama", "JSON of another kind")
        return data

    @staticmethod
    def _parse_line(line: bytes) -> dict[str, Any]:
        try:
            data = json.loads(line.decode("utf-8-sig"))  # -sig: a proxy's byte order mark is not content
        except (UnicodeDecodeError, ValueError):
            raise errors.AnswerCutOff(f"Ollama sent a line that is not JSON: {short(repr(line[:120]))}") from None
        if not isinstance(data, dict):
            raise errors.AnswerCutOff(f"Ollama sent a line that is not a JSON object: {short(repr(data))}")
        return data

    @staticmethod
    def _tool_calls(raw: Any) -> list[ToolCall]:
        """Tool calls of one stream line. Arguments may be an object (the documented form) or a JSON
        string (some models send one); an id is assigned when the server sent none. A call that cannot be
        identified (no function name, not an object) raises MalformedToolCall."""
        if raw is None or raw == []:
            return []
        if not isinstance(raw, list):
            raise errors.MalformedToolCall(f"tool_calls is a {type(raw).__name__}, not a list")
        calls = []
        for item in raw:
            if isinstance(item, str):
                item = _maybe_json(item)
            if not isinstance(item, dict):
                raise errors.MalformedToolCall(f"a tool call is a {type(item).__name__}, not an object")
            fn = item.get("function", item if "name" in item else None)
            if isinstance(fn, str):
                fn = _maybe_json(fn)
            if not isinstance(fn, dict):
                raise errors.MalformedToolCall("a tool call has no function")
            name = fn.get("name")
            if not isinstance(name, str) or not name.strip():
                raise errors.MalformedToolCall("a tool call has no function name")
            args = fn["arguments"] if "arguments" in fn else fn.get("parameters")
            call_id = item.get("id") if isinstance(item.get("id"), str) else None
            calls.append(make_tool_call(name.strip(), args, call_id or None))
        return calls

    # ------------------------------------------------------------------ HTTP

    def _get_json(self, path: str) -> Any:
        try:
            with first_data_within(self.timeout_s):
                r = self._http.get(path)
        except Exception as exc:  # noqa: BLE001 - any transport failure becomes a typed AgentError
            raise self._error_for_transport(exc, started=False) from None
        return json_answer(self.host + path, r.status_code, r.text, r.headers.get("content-type", ""),
                           lambda text, status: self._error_for_message(text, status, model=None))

    def _stream_lines(
        self,
        method: str,
        path: str,
        body: dict[str, Any],
        cancel: threading.Event | None,
        *,
        model: str | None,
        whole: bool = False,
        next_s: float | None = None,
    ) -> LineStream:
        """Send ``body`` and return a :class:`LineStream` over the NDJSON lines of the answer
        (``whole``: the answer is one JSON document, given as one item). The first data is awaited
        for ``timeout_s``, the next for ``next_s`` (None: ``timeout_s``)."""
        return LineStream(self, method, path, body, cancel, model, whole, first_s=self.timeout_s,
                           next_s=next_s or self.timeout_s)

    def _url(self, path: str) -> Any:
        """``path`` as the client's absolute ``httpx.URL``, made once: httpx parses a relative path and joins it
        to the base URL again on every request (≈ 5 % of a request to a local server)."""
        url = self._urls.get(path)
        if url is None:
            url = self._urls[path] = self._http.build_request("GET", path).url
        return url

    def _stalled(self, watch: Watch) -> errors.AgentError:
        """The error for a watch whose wait ran out: no answer at all, or no more of it."""
        if watch.started:
            return errors.ServerStoppedResponding(watch.waited_s, self.host)
        return errors.ServerTimedOut(self.host, watch.waited_s or 0, backend="ollama")

    # ------------------------------------------------------------------ errors

    def _error_for_message(self, message: str, status: int | None, *, model: str | None) -> errors.AgentError:
        """Map an error text from Ollama (HTTP error body or ``{"error": ...}`` line) to a typed error."""
        lowered = message.lower()
        if "does not support tools" in lowered:
            return errors.ToolsNotSupported(model or self.model)
        if model and (status == 404 or status is None) and _MODEL_NOT_FOUND.search(message):
            return errors.ModelNotFound(model, available=self._available_names())
        if is_context_reason(message):
            error = errors.ContextTooLong(message)
            learn_from_error(self, error)  # the window the server named is kept for this model
            return error
        if status == 404 and model:
            # 404 without Ollama's wording: probably not an Ollama server at this URL
            return errors.BackendError(f"{message} — is {self.host} an Ollama server?", status)
        return errors.BackendError(message, status)

    def _error_for_transport(self, exc: BaseException, *, started: bool) -> errors.AgentError:
        """Map a transport exception (httpx, builtin ConnectionError, socket errors) to a typed error.
        ``started``: the server had already sent lines (the stream broke mid-way)."""
        import httpx

        if isinstance(exc, errors.AgentError):
            return exc
        detail = short(str(exc)) or type(exc).__name__
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol)):
            return errors.BackendUnreachable(self.host, detail=connect_detail(exc))
        if isinstance(exc, httpx.TimeoutException):
            waited = f" within {self.timeout_s:g} s" if self.timeout_s else ""
            if started:
                return errors.AnswerCutOff(f"no data from Ollama{waited}")
            if self.timeout_s:
                return errors.ServerTimedOut(self.host, self.timeout_s, backend="ollama")
            return errors.BackendError(f"Ollama did not answer{waited}")
        if isinstance(exc, httpx.TransportError):
            if started:
                return errors.AnswerCutOff(detail)
            return errors.BackendError(f"the connection to {self.host} broke before an answer: {detail}")
        if isinstance(exc, (ConnectionError, socket.gaierror, OSError)) and not started:
            # ollama.Client raises the builtin ConnectionError for httpx.ConnectError
            return errors.BackendUnreachable(self.host, detail=connect_detail(exc))
        if isinstance(exc, OSError):
            return errors.AnswerCutOff(detail)
        return errors.BackendError(f"{type(exc).__name__}: {detail}")


class LineStream:
    """The NDJSON lines (bytes) of one streamed answer, read in the calling thread under a
    :class:`~desktop_agent.core.streams.Watch`.

    The watch ends the exchange at once when ``cancel`` is set — also while the server sends nothing
    (loading a model) or stalls mid-answer — and when no progress came within the first-data wait
    (``first_s``) or, once :attr:`watch` has seen progress, the next-data wait (``next_s``): the
    consumer calls ``watch.progress()`` for lines that carry something (an empty frame does not).
    Iteration raises :mod:`~desktop_agent.core.errors` types only, and simply ends after a Stop.
    :meth:`finish` lets a complete answer's body end so its connection goes back to the pool;
    :meth:`close` (always call it) ends the exchange.
    """

    #: seconds :meth:`finish` waits for the end of the body after the last line
    FINISH_WAIT_S = 1.0

    def __init__(self, backend: OllamaBackend, method: str, path: str, body: dict[str, Any],
                 cancel: threading.Event | None, model: str | None, whole: bool = False, *,
                 first_s: float | None = None, next_s: float | None = None):
        self._backend = backend
        self._path = path
        self._whole = whole
        self._model = model
        self.watch = Watch(cancel, first_s, next_s)
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        self._it: Generator[bytes, None, None] = self._read(method, path, content)

    def __iter__(self) -> Iterator[bytes]:
        return self._it

    def finish(self) -> None:
        """Read (briefly, and not past ``cancel``) to the end of the body."""
        if self.watch.cancelled:
            return
        self.watch.progress(within_s=self.FINISH_WAIT_S)
        # the answer is complete: a body that does not end costs only the connection
        with contextlib.suppress(Exception):
            for _ in self._it:
                pass

    def close(self) -> None:
        self._it.close()

    def _read(self, method: str, path: str, content: bytes) -> Generator[bytes, None, None]:
        watch = self.watch
        started = False
        with watch:
            if watch.cancelled:
                return
            try:
                # the headers and the first line (the whole answer, when not streamed) within timeout_s, however
                # slowly a server trickles them or how many blank keep-alive lines come first
                with first_data_within(self._backend.timeout_s) as first, self._backend._http.stream(
                    method, self._backend._url(path), content=content, headers=self._backend._json_headers
                ) as r:
                    watch.attach(r)
                    if r.status_code >= 400:
                        r.read()
                        ctype = r.headers.get("content-type", "")
                        if looks_like_html(r.text, ctype):  # a proxy's 502, a 404 page: named, not pasted
                            raise errors.WebPageAnswer(self._backend.host + self._path, r.status_code, "ollama")
                        reason = error_text(r.text, ctype, r.status_code)
                        raise self._backend._error_for_message(reason, r.status_code, model=self._model)
                    if self._whole:
                        data = r.read()
                        first.arrived()
                        if data.strip():
                            started = True
                            yield data
                        return
                    buf = b""
                    for data in r.iter_bytes():
                        buf += data
                        if b"\n" in buf:
                            *lines, buf = buf.split(b"\n")
                            for line in lines:
                                # blank lines (keep-alives, CRLF's CR) between objects are not data
                                if line.strip():
                                    first.arrived()
                                    started = True
                                    yield line
                        if watch.cancelled:
                            # the lines already read are handed over (a quit saves them, issue 23); no more
                            return
                    if buf.strip():
                        started = True
                        yield buf
            except errors.AgentError:
                if watch.cancelled:
                    return
                raise
            except Exception as exc:  # noqa: BLE001 — transport errors, mapped to typed errors
                if watch.cancelled:
                    return
                if watch.stalled:
                    raise self._backend._stalled(watch) from None
                raise self._backend._error_for_transport(exc, started=started) from None
            if watch.stalled and not watch.cancelled:
                raise self._backend._stalled(watch)


# ---------------------------------------------------------------------- helpers


class _RepeatedCalls:
    """Tool calls a server sends again in a later frame (some repeat them in the ``done`` line) run once.

    A call is the same as an earlier frame's when it has the same server id, else the same ``index``,
    name and arguments, else the same name and arguments. Two equal calls in one frame are two calls."""

    def __init__(self) -> None:
        self._seen: set[tuple[Any, ...]] = set()

    def new_in_frame(self, raw: Any, calls: list[ToolCall]) -> list[ToolCall]:
        if not calls:
            return calls
        items = raw if isinstance(raw, list) and len(raw) == len(calls) else [None] * len(calls)
        keys = [_call_identity(item, call) for item, call in zip(items, calls, strict=True)]
        fresh = [call for key, call in zip(keys, calls, strict=True) if key not in self._seen]
        self._seen.update(keys)
        return fresh


def _call_identity(item: Any, call: ToolCall) -> tuple[Any, ...]:
    if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]:
        return ("id", item["id"])
    content = json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str)
    if isinstance(item, dict):
        fn = item.get("function")
        index = fn.get("index") if isinstance(fn, dict) else None
        if isinstance(index, int):
            return ("index", index, call.name, content)
    return ("content", call.name, content)





def to_wire_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Our messages → Ollama ``/api/chat`` ``messages``.

    Assistant tool calls become ``{"function": {"name", "arguments": {...}}}`` (arguments as an
    OBJECT); tool results ``{"role": "tool", "content", "tool_name"}`` (the name is looked up from the
    matching call when the message lacks it); ``thinking`` is never sent.
    """
    names_by_id: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "assistant":
            wire: dict[str, Any] = {"role": "assistant", "content": m.content or ""}
            if m.tool_calls:
                wire["tool_calls"] = [
                    {"function": {"name": c.name, "arguments": dict(c.arguments or {})}} for c in m.tool_calls
                ]
                for c in m.tool_calls:
                    names_by_id[c.id] = c.name
            out.append(wire)
        elif m.role == "tool":
            name = m.tool_name or names_by_id.get(m.tool_call_id or "", "")
            wire = {"role": "tool", "content": m.content or ""}
            if name:
                wire["tool_name"] = name
            out.append(wire)
        elif m.attachments:  # a user message with files: their text in the content, images in ``images``
            text, images = wire_parts(m)
            wire = {"role": m.role, "content": text}
            if images:
                wire["images"] = [data for _mime, data in images]
            out.append(wire)
        else:
            out.append({"role": m.role, "content": m.content or ""})
    return out


def _choose_tools(tools: list[dict[str, Any]] | None, tool_choice: str | None) -> list[dict[str, Any]]:
    if not tools or tool_choice == "none":
        return []
    if tool_choice and tool_choice not in ("auto", "required"):
        named = [t for t in tools if (t.get("function") or {}).get("name") == tool_choice]
        if named:
            return named
    return list(tools)


def _count(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _maybe_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
