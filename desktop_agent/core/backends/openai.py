"""The OpenAI-compatible backend: Chat Completions over the official ``openai`` client.

Wire format: the OpenAI Chat Completions API (``POST {base_url}/chat/completions`` with
``stream: true``, server-sent events ``data: {chat.completion.chunk}`` ending ``data: [DONE]``;
``GET {base_url}/models``), as documented in the OpenAI API reference and openai-python.

What real servers do that the spec does not say, and how it is handled here:

- streamed tool-call deltas are assembled here (never with ``client.chat.completions.stream()``,
  which raises ``TypeError`` on deltas without ``index``, as some servers send them): deltas are keyed
  by ``index``; a delta with no index or with empty id/name continues the open call;
- empty or missing tool-call ids get one synthetic ``call_<hex>`` id, kept in history, so every tool
  result pairs with its call;
- ``function.arguments`` may be an object instead of a JSON string; invalid JSON is kept aside and
  replayed as valid JSON so the server accepts the next request;
- ``content: null`` is read as ``""``; assistant tool-call messages are sent with ``content: ""``
  (``null`` only when ``null_tool_content=True``; some servers refuse one, some the other);
- reasoning arrives as ``reasoning_content`` or ``reasoning`` (servers differ) → ``Chunk.thinking``;
  it is never sent back;
- ``tool_choice`` is always sent when tools are (some servers ignore tools otherwise);
- a 200 stream with nothing in it (llama.cpp, llama-cpp-python) →
  :class:`~desktop_agent.core.errors.EmptyAnswer` (the agent then asks again without streaming,
  see :mod:`desktop_agent.core.capabilities`); ``stream_chat(..., stream=False)`` asks for one whole
  ``chat.completion`` and yields the same chunks;
- a server that ignores ``stream: true`` and answers one JSON chat completion is understood too;
- the event stream is read with :mod:`~desktop_agent.core.backends.sse` (not the client's decoder), so an
  error the server reports after the 200 — ``data: {"error": ...}``, ``event: error``, llama.cpp's
  ``error: {...}`` line — is raised with the server's reason
  (:mod:`~desktop_agent.core.backends.reasons`: context-window reasons are ContextTooLong).

Keys: :class:`~desktop_agent.core.backends.keypool.KeyPool` (several keys, retries, Retry-After).
Errors: only :mod:`desktop_agent.core.errors` types leave this module, and no key is ever in them (the rules:
:mod:`~desktop_agent.core.backends.openai_errors`). The wire conversion (history → ``messages``, tool-call
deltas → calls): :mod:`~desktop_agent.core.backends.openai_wire`. The HTTP client:
:mod:`~desktop_agent.core.backends.http`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from desktop_agent.core import state
from desktop_agent.core.backends.base import Chunk, ModelInfo
from desktop_agent.core.backends.deadline import first_data_within
from desktop_agent.core.backends.keypool import PLACEHOLDER_KEY, KeyPool, PoolCancelled
from desktop_agent.core.backends.openai_errors import OpenAIFailures, http_errors
from desktop_agent.core.backends.openai_wire import (
    ToolCallAssembler,
    field_value,
    maybe_json,
    prompt_tokens,
    read_choice,
    to_wire_messages,
    tool_choice_payload,
)
from desktop_agent.core.backends.reasons import looks_like_html
from desktop_agent.core.backends.sse import sse_events
from desktop_agent.core.errors import (
    AnswerCutOff,
    BackendError,
    EmptyAnswer,
    KeyringLocked,
    OutputLimitReached,
    ServerStoppedResponding,
    ServerTimedOut,
)
from desktop_agent.core.messages import Message
from desktop_agent.core.model_info import (
    ModelFacts,
    Window,
    facts_from_models_entry,
    facts_from_props,
    facts_key,
    window_for,
)
from desktop_agent.core.state import facts_for, learned_window
from desktop_agent.core.streams import WaitCancelled, Watch

log = logging.getLogger(__name__)

__all__ = ["OpenAIBackend", "ToolCallAssembler", "to_wire_messages"]

#: seconds each question about a model's window may take (a turn waits for it, once per process)
FACTS_TIMEOUT_S = 5.0


# ------------------------------------------------------------------------------------------------
# The backend
# ------------------------------------------------------------------------------------------------
class OpenAIBackend(OpenAIFailures):
    """Chat through any OpenAI-compatible server (OpenAI, llama.cpp, vLLM, LM Studio, Ollama /v1…).

    ``base_url``: e.g. ``https://api.openai.com/v1`` or ``http://127.0.0.1:8080/v1``.
    ``api_keys``: one or more keys, tried as a :class:`KeyPool`; with ``needs_key=False`` and no key,
    the placeholder ``"not-needed"`` is sent (the openai client refuses to start without a key); with
    ``needs_key=True`` and no key, the first request raises :class:`NoApiKey` (not an
    :class:`AuthenticationFailed`: no key was rejected) naming the base URL and the fix.
    ``temperature``: sent with every request. ``timeout_s``: the wait for the first data of an answer
    (connecting included; no answer within it is :class:`ServerTimedOut`, which is not retried);
    ``next_data_timeout_s``: the wait for the next data once the answer streams (keep-alive comments and
    empty chunks do not count; then :class:`ServerStoppedResponding`, the partial answer kept; None:
    ``timeout_s``).
    ``retries_per_key``, ``retry_interval_s``, ``max_retry_after_s``: see :class:`KeyPool`.
    ``null_tool_content``: send ``content: null`` instead of ``""`` on assistant tool-call messages
    (some gateways want that). ``keyring_locked``: the keys were looked up while the system keyring was
    locked — a missing key is then :class:`KeyringLocked`, not :class:`NoApiKey`. ``sleep`` / ``clock``: injectable for
    tests. ``http_client``: an ``httpx.Client`` (or ``httpx2.Client``) for the openai client; it is
    not closed by :meth:`close`; the first-data deadline and Stop reach a read blocked before the answer's
    headers only on one from :func:`desktop_agent.core.backends.http.client` (the default).
    """

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_keys: list[str],
        *,
        temperature: float = 0.0,
        timeout_s: float = 60.0,
        next_data_timeout_s: float | None = None,
        retries_per_key: int = 2,
        retry_interval_s: float = 1.0,
        max_retry_after_s: float = 60.0,
        needs_key: bool = True,
        null_tool_content: bool = False,
        keyring_locked: bool = False,
        sleep: Callable[[float], None] = time.sleep,
        http_client: Any = None,
        clock: Callable[[], float] = time.time,
        window: int | None = None,
        default_window: int = 8192,
        stream_usage: bool = True,
    ):
        self.base_url = (base_url or "https://api.openai.com/v1").rstrip("/")
        #: the context window: ``window`` (a per-model setting), else what ``/models`` reports, else
        #: ``default_window``
        self.window = window
        self.default_window = default_window
        #: ask streams for their token usage (``stream_options.include_usage``); turned off for a server
        #: that refuses the option
        self.stream_usage = stream_usage
        #: at most this many answer tokens (``max_tokens``); None: the server's own limit
        self.max_answer_tokens: int | None = None
        self.model = model
        self.temperature = temperature
        self.timeout_s = timeout_s
        self.next_data_timeout_s = next_data_timeout_s
        self.needs_key = needs_key
        self.null_tool_content = null_tool_content
        keys = [k.strip() for k in (api_keys or []) if k and k.strip()]
        if not keys and not needs_key:
            keys = [PLACEHOLDER_KEY]
        self.pool = KeyPool(
            keys,
            base_url=self.base_url,
            retries_per_key=retries_per_key,
            retry_interval_s=retry_interval_s,
            max_retry_after_s=max_retry_after_s,
            sleep=sleep,
            clock=clock,
        )
        self.keyring_locked = keyring_locked
        if keyring_locked:  # the key may be saved, but can't be read: say that, never "no API key is set"
            self.pool.no_key = KeyringLocked
        self._http_client = http_client
        self._clients: dict[int, Any] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        keys = ", ".join(self.pool.masked(i) for i in range(len(self.pool)))
        return f"OpenAIBackend(base_url={self.base_url!r}, model={self.model!r}, keys=[{keys}])"

    def describe(self) -> str:
        """``openai · gpt-4o-mini @ https://api.openai.com/v1``"""
        return f"openai · {self.model} @ {self.base_url}"

    # -- clients -------------------------------------------------------------------------------
    def _client(self, index: int, key: str) -> Any:
        with self._lock:
            client = self._clients.get(index)
            if client is None:
                import openai  # lazy: ~1.3 s

                http = self._http_client
                if http is None:  # ours: the first-data deadline and the watch reach its every read
                    from desktop_agent.core.backends import http as transport

                    http = transport.client(timeout=self.timeout_s, follow_redirects=True)  # as the openai client's
                client = openai.OpenAI(
                    base_url=self.base_url,
                    api_key=key,
                    timeout=self.timeout_s,
                    max_retries=0,
                    http_client=http,
                )
                self._clients[index] = client
            return client

    def close(self) -> None:
        """Close the HTTP connections this backend opened (not a caller-supplied ``http_client``)."""
        with self._lock:
            clients, self._clients = list(self._clients.values()), {}
        if self._http_client is not None:
            return
        for client in clients:
            with contextlib.suppress(Exception):
                client.close()

    # -- errors --------------------------------------------------------------------------------
    def _served_models(self) -> list[str]:
        """The model ids from ``GET {base_url}/models`` (for a "choose one of" hint); ``[]`` when the
        server does not say within a few seconds. Never raises."""
        try:
            index = self.pool.last_good
            client = self._client(index, self.pool.key(index))
            page = client.with_options(timeout=min(5.0, self.timeout_s), max_retries=0).models.list()
            return [str(field_value(m, "id")) for m in page if field_value(m, "id")]
        except Exception:  # noqa: BLE001 — only a hint
            return []

    # -- chat ----------------------------------------------------------------------------------
    def _request(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, tool_choice: str | None,
        stream: bool = True,
    ) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": to_wire_messages(messages, self.null_tool_content),
            "temperature": self.temperature,
            "stream": stream,
        }
        if self.max_answer_tokens:
            params["max_tokens"] = self.max_answer_tokens
        if stream and self.stream_usage:
            params["stream_options"] = {"include_usage": True}  # the prompt tokens, to check nothing was cut
        if tools:
            params["tools"] = tools
            params["tool_choice"] = tool_choice_payload(tool_choice, tools)
        return params

    def stream_chat(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str = "auto",
        cancel: threading.Event | None = None,
        stream: bool = True,
    ) -> Iterator[Chunk]:
        """Stream one chat completion as :class:`Chunk` objects.

        Yields ``Chunk(notice=...)`` before each retry pause (``rate limited — retrying in 2 s``),
        then ``Chunk(text=...)`` / ``Chunk(thinking=...)`` as they arrive, and finally
        ``Chunk(tool_calls=[...], done=True, finish_reason=...)``. Retries (other keys, Retry-After)
        happen only before the first chunk. When ``cancel`` is set the HTTP stream is closed and
        the generator returns without a ``done`` chunk — within about 50 ms, also while the server
        sends nothing (before the first event, or stalled mid-answer): the stream is read in this
        thread under a :class:`~desktop_agent.core.streams.Watch`, which shuts its socket down. A stream
        that ends without ``finish_reason`` or ``[DONE]`` is :class:`AnswerCutOff`; one that goes silent
        past the next-data wait is :class:`ServerStoppedResponding` (keep-alives are not data).

        ``stream=False`` sends ``stream: false`` and yields the same chunks from the one
        ``chat.completion`` the server answers (the whole answer arrives at once; ``timeout_s`` is
        then the wait for all of it). An error the server reports inside a 200 answer — an ``error``
        object in a JSON body or in a stream event, an ``event: error``, llama.cpp's ``error:`` line
        — is raised with the server's reason, never as an empty answer.

        Raises :class:`NoApiKey`, :class:`AuthenticationFailed`, :class:`RateLimited`, :class:`OutOfQuota`,
        :class:`AllKeysFailed`, :class:`BackendUnreachable` (no connection; retried),
        :class:`ServerTimedOut` (connected, but no answer within ``timeout_s``; not retried),
        :class:`ModelNotFound`, :class:`ContextTooLong`, :class:`ToolsNotSupported`, :class:`EmptyAnswer`,
        :class:`OutputLimitReached` / :class:`AnswerCutOff`, :class:`BackendError`.
        """
        self._request(messages, tools, tool_choice, stream)  # a bad tool_choice fails here, before any request
        if cancel is not None and cancel.is_set():
            return
        watch = Watch(cancel, self.timeout_s, self.next_data_timeout_s or self.timeout_s)
        end = _StreamEnd()

        def request(index: int, key: str) -> tuple[Any, Iterator[Any]]:
            client = self._client(index, key)
            params = self._request(messages, tools, tool_choice, stream)
            # the headers and the first event (or the whole answer) within timeout_s, however they trickle in
            with first_data_within(self.timeout_s):
                if not stream:
                    end.done = True
                    return _Answered(), iter(self._answer_events(client.chat.completions.create(**params)))
                response = self._create_stream(client, params)
                watch.attach(getattr(response, "response", None))
                events = self._events(response, end)
                try:
                    first = next(events)
                except StopIteration:
                    return response, iter(())
                except BaseException as exc:
                    response.close()
                    if _broken_off(exc):
                        # the server took the request (200, perhaps keep-alives) and then hung up: asking
                        # again would send a second copy and start the first-data wait over
                        raise self._midstream_error(exc) from None
                    raise
            return response, _prepend(first, events)

        def attempt(index: int, key: str) -> tuple[Any, Iterator[Any]]:
            # read in this thread: the watch shuts the socket down on Stop (a server loading a model
            # sends nothing, not even headers, for a long time) and when the first-data wait runs out
            self._client(index, key)  # made first: importing the client library is not the server's time
            watch.restart()
            if watch.cancelled:
                raise WaitCancelled()
            try:
                return request(index, key)
            except BaseException:
                if watch.cancelled:
                    raise WaitCancelled() from None
                if watch.stalled:
                    raise ServerTimedOut(self.base_url, self.timeout_s, backend="openai") from None
                raise

        with watch:
            runner = self.pool.run(attempt, self.classify, cancel)
            try:
                while True:
                    try:
                        wait = next(runner)
                    except StopIteration as stop:
                        answer, events = stop.value
                        break
                    yield Chunk(notice=wait.notice())
            except (PoolCancelled, WaitCancelled):
                return
            finally:
                runner.close()
            try:
                yield from self._read(answer, events, cancel, watch, end)  # returns as soon as cancel is set
            finally:
                with contextlib.suppress(Exception):
                    answer.close()

    def _create_stream(self, client: Any, params: dict[str, Any]) -> Any:
        """``create(stream=True)``; a server that refuses ``stream_options`` is asked again without it, and
        not asked with it again (the usage it gives is a help, not a need)."""
        import openai

        try:
            return client.chat.completions.create(**params)
        except openai.APIStatusError as exc:
            if "stream_options" not in params or exc.status_code not in (400, 422) \
                    or "stream_options" not in str(exc).lower():
                raise
        self.stream_usage = False
        return client.chat.completions.create(**{k: v for k, v in params.items() if k != "stream_options"})

    def _answer_events(self, answer: Any) -> list[Any]:
        """The events of a non-streamed answer: the ``chat.completion`` itself; a server that streamed
        anyway gives its events; an ``error`` object is raised with the server's reason."""
        if isinstance(answer, (str, bytes)):  # not JSON: the client hands over the body as text
            raw = answer.encode() if isinstance(answer, str) else answer
            if b"data:" in raw or b"error:" in raw:
                return list(self._sse_data(iter([raw])))
            if raw.strip():  # a web page or text at the base URL: the address is wrong, not the model
                raise self._not_an_api(self.base_url + "/chat/completions", raw)
            raise BackendError("the server sent an empty body instead of an answer")
        error = field_value(answer, "error")
        if error:
            raise self._reported_error(error)
        if field_value(answer, "choices") is None:  # JSON, but not a chat completion
            raise self._not_an_api(self.base_url + "/chat/completions", None)
        return [answer]

    def _events(self, stream: Any, end: _StreamEnd) -> Iterator[Any]:
        """The stream's chunks (JSON objects); a server that answered one JSON document instead gives
        that. The event stream is read here (see :mod:`~desktop_agent.core.backends.sse`); ``end.done``
        tells whether the server said the answer is complete (``[DONE]``, or a whole JSON document)."""
        response = getattr(stream, "response", None)
        if response is None:  # pragma: no cover — the openai client always gives the response
            yield from stream
            end.done = True
            return
        ctype = response.headers.get("content-type", "")
        url = self._url_of(response)
        if "json" in ctype and "event-stream" not in ctype:
            body = json.loads(response.read() or b"null")
            if isinstance(body, dict) and body.get("error"):
                raise self._reported_error(body["error"])
            if not isinstance(body, dict) or "choices" not in body:  # JSON, but not a chat completion
                raise self._not_an_api(url, body)
            end.done = True
            yield body
            return
        if "html" in ctype:  # a web page where the API should be (a landing page, a sign-in page)
            raise self._not_an_api(url, "", ctype)
        start = bytearray()  # the first bytes, to tell an empty stream from a body that is no stream at all

        def recorded() -> Iterator[bytes]:
            for data in _response_bytes(response):
                if len(start) < 512:
                    start.extend(data[: 512 - len(start)])
                yield data

        seen = recognised = 0
        for event in self._sse_data(recorded(), end):
            seen += 1
            recognised += isinstance(event, dict) and ("choices" in event or "usage" in event)
            yield event
        head = bytes(start).lstrip()
        no_stream = head and not head.startswith((b"data:", b"event:", b":", b"id:", b"retry:"))
        if not recognised and (seen or no_stream):  # text, a page, or events of another API
            raise self._not_an_api(url, b"" if seen else bytes(start), ctype)

    def _sse_data(self, chunks: Iterator[bytes], end: _StreamEnd | None = None) -> Iterator[Any]:
        """The JSON objects of an event stream, until ``[DONE]``; error events and lines are raised."""
        for event in sse_events(chunks):
            if event.event == "error":
                raise self._reported_error(maybe_json(event.data))
            if event.data.startswith("[DONE]"):
                if end is not None:
                    end.done = True
                return
            if not event.data.strip():
                continue
            data = json.loads(event.data)
            if isinstance(data, dict) and data.get("error"):
                raise self._reported_error(data["error"])
            yield data

    def _read(self, stream: Any, events: Iterator[Any], cancel: threading.Event | None, watch: Watch,
              end: _StreamEnd) -> Iterator[Chunk]:
        calls = ToolCallAssembler()
        finish_reason: str | None = None
        got_text = False
        got_thinking = False
        prompt: int | None = None
        while True:
            if watch.cancelled:
                return  # stopped: the caller closes the stream
            try:
                event = next(events)
            except StopIteration:
                break
            except Exception as exc:  # noqa: BLE001 — mapped to typed errors
                if watch.cancelled:
                    return
                if watch.stalled:
                    if watch.started:
                        raise ServerStoppedResponding(watch.waited_s, self.base_url) from None
                    raise ServerTimedOut(self.base_url, self.timeout_s, backend="openai") from None
                raise self._midstream_error(exc) from None
            prompt = prompt_tokens(field_value(event, "usage")) or prompt
            part = read_choice(event, calls)
            if part is None:
                continue
            finish_reason = part.finish_reason or finish_reason
            if part.meaningful:
                watch.progress()  # a keep-alive or an empty chunk is not
            thinking, text = part.thinking, part.text
            if thinking or text:
                got_thinking = got_thinking or bool(thinking)
                got_text = got_text or bool(text.strip())
                yield Chunk(text=text, thinking=thinking)
        if watch.cancelled:
            return  # stopped: the caller closes the stream
        if watch.stalled:  # the wait ran out just as the stream ended
            raise ServerStoppedResponding(watch.waited_s, self.base_url)
        tool_calls = calls.finish()
        if not tool_calls and not got_text:
            if finish_reason == "length":
                raise OutputLimitReached()
            # llama.cpp's server breaks the connection after such a stream: drop the pooled
            # connections so that Retry opens a new one instead of failing as "can't reach".
            stream.close()
            self.close()
            raise EmptyAnswer()
        if finish_reason is None and not end.done:
            # neither a finish_reason nor [DONE]: the stream broke off, whatever came so far
            raise AnswerCutOff("the stream ended before the server said the answer was complete")
        if finish_reason is None:
            finish_reason = "tool_calls" if tool_calls else "stop"
        yield Chunk(tool_calls=tool_calls, done=True, finish_reason=finish_reason, prompt_tokens=prompt)

    # -- models --------------------------------------------------------------------------------
    def models_from_listing(self, url: str, text: str, ctype: str) -> list[ModelInfo]:
        """The models of a ``GET /models`` answer's body (``text``, from ``url``); a web page, text or JSON of
        another kind raises :class:`NotAnApi`. Shared with the model listing probe."""
        data = maybe_json(text) if not looks_like_html(text, ctype) else text
        models = data.get("data") if isinstance(data, dict) else None
        if not isinstance(models, list):
            raise self._not_an_api(url, data, ctype)
        out = []
        for m in models:
            if not isinstance(m, dict):
                continue
            mid = field_value(m, "id")
            if not mid:
                continue
            details = {k: field_value(m, k) for k in ("owned_by", "created") if field_value(m, k) is not None}
            out.append(ModelInfo(name=str(mid), details=details))
            facts = facts_from_models_entry(m)
            if facts.context_length:  # the window, where the server says it: kept for context_window()
                state.FACTS.put(facts_key(self, str(mid)), facts)
        return out

    def list_models(self) -> list[ModelInfo]:
        """``GET {base_url}/models`` → :class:`ModelInfo` (``name`` = model id; ``details`` has
        ``owned_by`` / ``created`` when given). Same key pool and errors as :meth:`stream_chat`."""

        def attempt(index: int, key: str) -> list[ModelInfo]:
            with first_data_within(self.timeout_s):
                raw = self._client(index, key).models.with_raw_response.list()
                response = raw.http_response
                text = response.text
            # read here, not by the client (which fails with an AttributeError on a web page)
            return self.models_from_listing(self._url_of(response, "/models"), text,
                                            response.headers.get("content-type", ""))

        try:
            return self.pool.call(attempt, self.classify)
        except PoolCancelled:  # pragma: no cover — no cancel given
            return []

    # -- model facts ---------------------------------------------------------------------------
    def fetch_model_facts(self, model: str | None = None) -> ModelFacts:
        """What the server says about ``model`` (default: this backend's) — its window: the ``GET
        {base_url}/models`` entry where it says one (vLLM, OpenRouter-style servers), else llama.cpp's ``GET
        /props`` (the window it serves). No capabilities: those are learned from errors. One try with the key
        that worked last, :data:`FACTS_TIMEOUT_S` at most in all (also from a server that trickles: the question
        is asked on a thread of its own, left to end by itself); raises on failure (the caller asks again later)."""
        name = model or self.model
        order = self.pool.order()
        if not order:
            return ModelFacts()
        limit = min(FACTS_TIMEOUT_S, self.timeout_s)
        found: list[ModelFacts] = []
        failed: list[BaseException] = []

        def ask() -> None:
            try:
                found.append(self._ask_facts(name, order[0], limit))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                failed.append(exc)

        thread = threading.Thread(target=ask, name="model-facts", daemon=True)
        thread.start()
        thread.join(limit + 0.5)
        if found:
            return found[0]
        if failed:
            raise failed[0]
        raise ServerTimedOut(self.base_url, limit, backend="openai")

    def _ask_facts(self, name: str, index: int, limit: float) -> ModelFacts:
        key = self.pool.key(index)
        client = self._client(index, key).with_options(timeout=limit, max_retries=0)
        facts = ModelFacts()
        for m in client.models.list():
            if field_value(m, "id") == name:
                facts = facts_from_models_entry(m.model_dump() if hasattr(m, "model_dump") else dict(m))
                break
        if facts.context_length:
            return facts
        return facts_from_props(self._props(key), facts)

    def _props(self, key: str) -> Any:
        """llama.cpp's ``GET /props`` (beside ``/v1``), or None when the server has none."""
        from desktop_agent.core.backends.probe import get

        root = self.base_url.removesuffix("/v1")
        try:
            answer = get(f"{root}/props", {"Authorization": f"Bearer {key}"}, min(FACTS_TIMEOUT_S, self.timeout_s))
            return answer.json() if answer.status == 200 else None
        except Exception:  # noqa: BLE001 - most servers have no /props: nothing said
            return None

    def model_facts(self) -> ModelFacts:
        """This backend's model's facts: from the last :meth:`list_models` when it said the window, else asked
        once per process (:meth:`fetch_model_facts`; a server that cannot say is asked again a minute later)."""
        return facts_for(self)

    def window_info(self) -> Window:
        """The model's window and where it comes from: the per-model setting, else the server's report, else
        the default (assumed); never above the window the server named when it refused a request."""
        return window_for(self.model_facts(), setting=self.window, default=self.default_window, cap=None,
                          learned=learned_window(self))

    def context_window(self) -> int:
        """The model's window in tokens (see :meth:`window_info`)."""
        return self.window_info().tokens




@dataclass
class _StreamEnd:
    """Whether the server said its answer is complete (``[DONE]``, or a whole JSON document)."""

    done: bool = False


class _Answered:
    """Stands in for the stream of a non-streamed answer, which has nothing left to close."""

    response = None

    def close(self) -> None:
        pass





def _response_bytes(response: Any) -> Iterator[bytes]:
    """The body of a streamed response; transport failures become the openai client's own
    ``APITimeoutError`` / ``APIConnectionError`` (as its stream decoder raises them)."""
    import openai

    timeouts, requests = http_errors()
    try:
        yield from response.iter_bytes()
    except timeouts as exc:
        raise openai.APITimeoutError(request=response.request) from exc
    except requests as exc:
        raise openai.APIConnectionError(request=response.request) from exc


def _broken_off(exc: BaseException) -> bool:
    """Whether ``exc`` is a connection that broke while an answer was read (:func:`_response_bytes` makes
    it the client's ``APIConnectionError``); a timeout is not: that is a wait that ran out."""
    import openai

    return isinstance(exc, openai.APIConnectionError) and not isinstance(exc, openai.APITimeoutError)


def _prepend(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest
