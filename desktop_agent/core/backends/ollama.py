"""The Ollama backend: our :class:`~desktop_agent.core.messages.Message` history → Ollama's
``/api/chat`` → :class:`~desktop_agent.core.backends.base.Chunk` objects; plus model management
(``/api/tags``, ``/api/pull``, ``/api/delete``, ``/api/version``).

Wire format source: the Ollama API doc (``docs/api.md`` in ollama/ollama). Streams are NDJSON, one
JSON object per line; the last chat line has ``"done": true`` (with ``done_reason``, ``eval_count``…).
Tool calls carry ``function.arguments`` as an object and, in most versions, no id (we assign one);
a tool result goes back as ``{"role": "tool", "content": ..., "tool_name": ...}``; reasoning may come
in a separate ``message.thinking`` field.

Design: the connection is the official ``ollama.Client`` (its host parsing, headers, ``OLLAMA_API_KEY``
and the ``httpx.Client`` it owns). Chat, list and pull streams are read *raw* through that client's
``httpx.Client`` instead of through ``Client.chat()``, because the official response models reject or
lose real-world payloads:

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
import os
import re
import socket
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any

from desktop_agent.core import errors
from desktop_agent.core.arguments import make_tool_call
from desktop_agent.core.backends.base import Chunk, ModelInfo
from desktop_agent.core.backends.deadline import first_data_within
from desktop_agent.core.backends.reasons import is_context_reason, looks_like_html, one_line, reason_text
from desktop_agent.core.messages import Message, ToolCall
from desktop_agent.core.model_info import (
    ModelFacts,
    Window,
    facts_for,
    facts_from_show,
    learn_from_error,
    learned_window,
    window_for,
)
from desktop_agent.core.streams import Watch
from desktop_agent.core.urls import parse_ollama_host

DEFAULT_HOST = "http://localhost:11434"

#: Seconds allowed to open a TCP connection. Always bounded, so a dead or firewalled host fails in
#: seconds with a clear "can't reach Ollama" even when ``timeout_s`` is None (a model can take minutes
#: to load).
CONNECT_TIMEOUT_S = 5.0

_MAX_DETAIL = 300
#: seconds ``/api/show`` (the model's window and capabilities) may take
SHOW_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class PullProgress:
    """One progress line of ``POST /api/pull`` (Ollama API doc, "Pull a Model").

    ``status`` e.g. ``pulling manifest``, ``downloading sha256:…`` / ``pulling <digest>``,
    ``verifying sha256 digest``, ``writing manifest``, ``success``. ``completed`` and ``total`` are
    bytes of the current layer (None when the server did not send them).
    """

    status: str
    completed: int | None = None
    total: int | None = None
    digest: str | None = None

    @property
    def fraction(self) -> float | None:
        """``completed / total`` in 0.0–1.0 for the current layer; None when unknown."""
        if self.total is None or self.total <= 0:
            return None
        return max(0.0, min(1.0, (self.completed or 0) / self.total))

    @property
    def done(self) -> bool:
        return self.status == "success"


def _short(text: str) -> str:
    return one_line(text, _MAX_DETAIL)


def _error_text(body: Any, content_type: str = "", status: int | None = None) -> str:
    """The reason in an error body: the ``error`` of ``{"error": "..."}`` (or an OpenAI-style
    ``{"error": {"message": ...}}`` from a proxy), else the text itself, one line; a web page is
    named, not quoted."""
    return reason_text(body, content_type, status) or "no details"


def _headers() -> dict[str, str]:
    """The headers ``ollama.Client`` sends (JSON both ways, its user agent, ``OLLAMA_API_KEY`` as a bearer token
    for a hosted Ollama), for our client that reads the streams raw."""
    import platform
    from importlib.metadata import version

    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "User-Agent": f"ollama-python/{version('ollama')} ({platform.machine()} {platform.system().lower()}) "
                      f"Python/{platform.python_version()}",
    }
    api_key = os.environ.get("OLLAMA_API_KEY")  # read where ollama.Client reads it (and the probe)
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


_MODEL_NOT_FOUND = re.compile(r"model\b.*\bnot found", re.I | re.S)


class OllamaBackend:
    """Chats with an Ollama server through the official ``ollama`` client.

    ``host``: the Ollama base URL (``http://localhost:11434``; forms without scheme are accepted as by
    ``ollama.Client``). ``temperature`` goes in ``options``; ``keep_alive`` is seconds (-1 = keep the
    model loaded) or a duration string (``"5m"``); ``format`` is None or ``"json"``; ``think`` None
    (the model's default), True or False. ``timeout_s``: seconds to wait for the first data of an answer
    (None = no limit; connecting is always limited to :data:`CONNECT_TIMEOUT_S`);
    ``next_data_timeout_s``: seconds to wait for the next data once it streams (None: ``timeout_s``).
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
        import ollama  # heavy (~0.6 s): only when a backend is built

        from desktop_agent.core.backends import http as transport

        shared = transport.Transport()  # one pool for the chat and the /api/show client
        own = http_client is None
        timeout = httpx.Timeout(timeout_s, connect=min(CONNECT_TIMEOUT_S, timeout_s or CONNECT_TIMEOUT_S))
        if http_client is None:
            http_client = transport.client(timeout=timeout, base_url=self.host, headers=_headers(),
                                           follow_redirects=True, transport=shared)
        #: the official client, for the requests whose answers it reads well (``/api/delete``)
        self.client = ollama.Client(host=self.host, transport=shared, timeout=timeout)
        #: the client chat, list and pull streams are read through (raw: see the module's docstring)
        self._http = http_client
        self._own_http = own
        #: the client that asks ``/api/show`` (a short wait: facts must never hold a turn for minutes)
        self._show_client = ollama.Client(host=self.host, transport=shared,
                                          timeout=httpx.Timeout(SHOW_TIMEOUT_S, connect=CONNECT_TIMEOUT_S))
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
                    raise self._error_for_message(_error_text(data["error"]), None, model=self.model)
                message = data.get("message")
                if message is None:
                    message = {}
                if not isinstance(message, dict):
                    raise errors.AnswerCutOff(f"unexpected message in stream: {_short(repr(message))}")
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

    def list_models(self) -> list[ModelInfo]:
        """Installed models from ``GET /api/tags``: name, ``size`` in bytes, ``modified_at`` (ISO 8601
        text as sent), ``details`` (format, family, parameter_size, quantization_level…).
        Raises :class:`~desktop_agent.core.errors.AgentError`."""
        return models_from_tags(self._get_json("/api/tags"), self.host + "/api/tags")

    def fetch_model_facts(self, model: str | None = None) -> ModelFacts:
        """What the server says about ``model`` (default: this backend's) — ``POST /api/show`` through the
        official client's ``show()``: the context length and the capabilities. Raises
        :class:`~desktop_agent.core.errors.AgentError`. Cached callers use :func:`model_facts`."""
        import ollama

        name = model or self.model
        try:
            with first_data_within(SHOW_TIMEOUT_S):  # also from a server that trickles its answer
                shown = self._show_client.show(name)
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise errors.ModelNotFound(name) from None
            raise self._error_for_message(_short(str(exc.error)), exc.status_code, model=name) from None
        except Exception as exc:  # noqa: BLE001 - any transport failure becomes a typed AgentError
            raise self._error_for_transport(exc, started=False) from None
        return facts_from_show({"model_info": getattr(shown, "modelinfo", None) or {},
                                "capabilities": getattr(shown, "capabilities", None),
                                "parameters": getattr(shown, "parameters", None)})

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

    def server_version(self) -> str:
        """The server's version from ``GET /api/version`` (``{"version": "0.5.1"}``).
        Raises :class:`~desktop_agent.core.errors.AgentError`."""
        return version_from(self._get_json("/api/version"), self.host)

    def pull_model(self, name: str, cancel: threading.Event | None = None) -> Iterator[PullProgress]:
        """Download ``name`` with ``POST /api/pull`` (streamed), yielding one :class:`PullProgress`
        per progress line; the last one has ``status == "success"``. When ``cancel`` is set the stream
        is closed and the generator returns (Ollama keeps the partial download and resumes it next
        time). Raises :class:`~desktop_agent.core.errors.BackendUnreachable`,
        :class:`~desktop_agent.core.errors.AnswerCutOff` (the stream broke) or
        :class:`~desktop_agent.core.errors.BackendError` (e.g. no such model in the library)."""
        body = {"model": name, "stream": True}
        if cancel is not None and cancel.is_set():
            return
        stream = self._stream_lines("POST", "/api/pull", body, cancel, model=None)
        try:
            for line in stream:
                stream.watch.progress()
                data = self._parse_line(line)
                if data.get("error"):
                    raise errors.BackendError(f"pulling '{name}' failed: {_short(str(data['error']))}")
                completed, total = data.get("completed"), data.get("total")
                progress = PullProgress(
                    status=str(data.get("status") or ""),
                    completed=int(completed) if isinstance(completed, (int, float)) else None,
                    total=int(total) if isinstance(total, (int, float)) else None,
                    digest=data.get("digest") or None,
                )
                if progress.done:
                    stream.finish()
                    yield progress
                    return
                yield progress
        finally:
            stream.close()
        if cancel is not None and cancel.is_set():
            return
        raise errors.AnswerCutOff(f"the download of '{name}' stopped before it finished")

    def delete_model(self, name: str) -> None:
        """Delete an installed model (``DELETE /api/delete``, through ``ollama.Client.delete``).
        Raises :class:`~desktop_agent.core.errors.ModelNotFound` (404) or another
        :class:`~desktop_agent.core.errors.AgentError`."""
        import ollama

        try:
            self.client.delete(name)
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise errors.ModelNotFound(name, available=self._available_names()) from None
            raise self._error_for_message(_short(str(exc.error)), exc.status_code, model=name) from None
        except Exception as exc:  # noqa: BLE001 - any transport failure becomes a typed AgentError
            raise self._error_for_transport(exc, started=False) from None

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
            raise errors.AnswerCutOff(f"Ollama sent a line that is not JSON: {_short(repr(line[:120]))}") from None
        if not isinstance(data, dict):
            raise errors.AnswerCutOff(f"Ollama sent a line that is not a JSON object: {_short(repr(data))}")
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
    ) -> _LineStream:
        """Send ``body`` and return a :class:`_LineStream` over the NDJSON lines of the answer
        (``whole``: the answer is one JSON document, given as one item). The first data is awaited
        for ``timeout_s``, the next for ``next_s`` (None: ``timeout_s``)."""
        return _LineStream(self, method, path, body, cancel, model, whole, first_s=self.timeout_s,
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

    def _available_names(self) -> list[str]:
        try:
            return [m.name for m in self.list_models()]
        except Exception:  # noqa: BLE001 - the list of names is only a hint in another error
            return []

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
        detail = _short(str(exc)) or type(exc).__name__
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol)):
            return errors.BackendUnreachable(self.host, detail=_connect_detail(exc))
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
            return errors.BackendUnreachable(self.host, detail=_connect_detail(exc))
        if isinstance(exc, OSError):
            return errors.AnswerCutOff(detail)
        return errors.BackendError(f"{type(exc).__name__}: {detail}")


class _LineStream:
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
                        reason = _error_text(r.text, ctype, r.status_code)
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
                                if watch.cancelled:
                                    return
                                # blank lines (keep-alives, CRLF's CR) between objects are not data
                                if line.strip():
                                    first.arrived()
                                    started = True
                                    yield line
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


def json_answer(url: str, status: int, text: str, ctype: str,
                error_for: Callable[[str, int], Exception]) -> Any:
    """The JSON of an answer from ``url``: an error status becomes :class:`~desktop_agent.core.errors.WebPageAnswer`
    (a web page, never pasted) or ``error_for(reason, status)``; a 200 that is not JSON is ``NotAnApi``. Shared
    by the backend and the probe."""
    if status >= 400:
        if looks_like_html(text, ctype):
            raise errors.WebPageAnswer(url, status, "ollama")
        raise error_for(_error_text(text, ctype, status), status)
    try:
        return json.loads(text)
    except ValueError:
        seen = "a web page" if looks_like_html(text, ctype) else "text that is not JSON"
        raise errors.NotAnApi(url, "ollama", seen) from None


def models_from_tags(data: Any, url: str) -> list[ModelInfo]:
    """The models in an ``/api/tags`` answer from ``url``: ``name`` (or ``model``, as older servers send),
    ``size`` in bytes, ``modified_at`` as sent, ``details``; entries without a name are skipped. An answer that
    is not a model list raises :class:`~desktop_agent.core.errors.NotAnApi`."""
    if not isinstance(data, dict) or "models" not in data:
        raise errors.NotAnApi(url, "ollama", "JSON of another kind")
    models = data.get("models")
    out: list[ModelInfo] = []
    for m in models or []:
        if not isinstance(m, dict):
            continue
        name = m.get("name") or m.get("model")
        if not name:
            continue
        size = m.get("size")
        details = m.get("details")
        out.append(
            ModelInfo(
                name=str(name),
                size=int(size) if isinstance(size, (int, float)) else None,
                modified_at=str(m["modified_at"]) if m.get("modified_at") else None,
                details=dict(details) if isinstance(details, dict) else {},
            )
        )
    return out


def version_from(data: Any, host: str) -> str:
    """The version in an ``/api/version`` answer (``{"version": "0.5.1"}``); BackendError without one."""
    version = data.get("version") if isinstance(data, dict) else None
    if not version:
        raise errors.BackendError(f"{host} did not report a version — is it an Ollama server?")
    return str(version)


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


def _connect_detail(exc: BaseException) -> str:
    text = str(exc)
    for known in ("Connection refused", "Name or service not known", "nodename nor servname",
                  "timed out", "No route to host", "Network is unreachable", "Temporary failure"):
        if known.lower() in text.lower():
            return known
    if text.startswith("Failed to connect to Ollama"):  # ollama-python's own text: says nothing more
        return ""
    return _short(text)
