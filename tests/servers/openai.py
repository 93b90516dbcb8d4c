"""A real local HTTP server speaking the OpenAI Chat Completions protocol, for tests and manual runs.

Wire format (OpenAI API reference, Chat Completions and Models):

- ``POST /v1/chat/completions``: with ``"stream": true`` a ``text/event-stream`` of
  ``data: {"object": "chat.completion.chunk", ...}\\n\\n`` events ending ``data: [DONE]\\n\\n``
  (HTTP/1.1 chunked, keep-alive); otherwise one ``chat.completion`` JSON document.
- ``GET /v1/models``: ``{"object": "list", "data": [{"id", "object": "model", "created", "owned_by"}]}``.
- errors: ``{"error": {"message", "type", "param", "code"}}`` with the HTTP status.

Use::

    server = OpenAIServer().start()          # or the ``openai_server`` pytest fixture
    server.url                               # "http://127.0.0.1:PORT/v1"
    server.script([chunk, chunk, "[DONE]"], HttpError(429, headers={"Retry-After": "2"}), completion)
    server.requests[-1]["messages"]          # JSON bodies received (…/chat/completions only)
    server.requests[-1].headers["authorization"]
    server.stop()

Scripted replies (one per chat request, in order; when none is left the fake model answers):

- a ``list`` of chunk dicts (and ``"[DONE]"`` strings): streamed exactly as given (``[DONE]`` is
  appended when missing);
- a ``dict``: a ``chat.completion`` (or any JSON) sent with status 200; when the request streams and
  the dict is a ``chat.completion``, it is converted to equivalent chunks keeping its quirks
  (``content: null``, empty or missing ids, object arguments);
- :class:`Json` ``(body)``: sent as JSON even to a streaming request (a server ignoring ``stream``);
- :class:`HttpError` ``(status, body=None, headers=None)``: an error status (with e.g. Retry-After);
- ``bytes`` or :class:`Raw`: a 200 event stream with these bytes, then the connection is dropped
  (a broken stream) unless ``Raw(..., complete=True)``; ``Raw(..., stall_s=60)`` goes silent after
  the bytes (a server stuck mid-answer) until the client leaves;
- :class:`Disconnect` ``()``: the connection is closed without any answer;
- a callable ``fn(request) -> reply | None``: decides per request (None → the fake model).

With ``strict=True`` (default) requests are checked like strict real servers do, and refused with
400 in the shapes of the shared cases: ``content: null`` (case 18, unless ``null_content_ok``),
empty or missing tool-call ids and unpaired tool results (cases 17, 23), arguments that are not a
JSON string (cases 12, 13), ``tool_choice`` without tools or naming an unknown tool. With
``context_limit_chars`` set, longer request bodies get a context-length error (case 25) in the
``context_error`` shape ``"openai"`` or ``"llama.cpp"``, or as ``"llama-cpp-python"`` answers it: a
streamed request gets a 200 with an empty body, a non-streamed one the ``"openai"`` shape.
``empty_auto_tool_streams=True`` imitates llama-cpp-python's server: a streamed request that offers
tools with ``tool_choice`` ``"auto"`` (or none) gets a 200 event stream with an empty body (before any
scripted reply is used); non-streamed requests are answered. ``required_keys``: requests with another
bearer key get 401. ``models`` is served at /v1/models; ``strict_models=True`` answers 404 for
others;
``model_meta[name]`` adds fields to a model's entry (``max_model_len``, ``meta``…). ``props`` (a dict) is served at
``GET /props`` as llama.cpp's server does (``{"default_generation_settings": {"n_ctx": 4096}}``); None: 404.
``chunk_delay_s`` pauses before every streamed event; ``events_per_s`` instead sends streamed event ``i`` at
``i / events_per_s`` seconds after the first, on the clock (no drift from the writes' own time: a model
streaming at that rate).

Standalone: ``python -m tests.servers.openai --port 8080`` (Ctrl-C to stop).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import select
import socket
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.servers.fake_model import Plan, dumps, images_of, plan, tool_names_of

CREATED = 1735689600


# ------------------------------------------------------------------------------------------------
# Reply types
# ------------------------------------------------------------------------------------------------
class _QuietServer(ThreadingHTTPServer):
    """A client closing its connection (a cancelled stream, a dropped keep-alive) is normal here."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class HttpError:
    """An HTTP error reply. ``body``: dict (JSON), str (sent as text/plain) or None (OpenAI's error
    shape for the status); ``headers``: extra headers such as ``{"Retry-After": "2"}``."""

    def __init__(self, status: int, body: Any = None, headers: dict[str, str] | None = None):
        self.status, self.body, self.headers = status, body, dict(headers or {})

    def __repr__(self) -> str:
        return f"HttpError({self.status}, {self.body!r}, {self.headers!r})"


class Json:
    """A JSON body sent as is with ``status`` (200), even to a streaming request."""

    def __init__(self, body: Any, status: int = 200, headers: dict[str, str] | None = None):
        self.body, self.status, self.headers = body, status, dict(headers or {})


class Raw:
    """Raw bytes as a 200 ``text/event-stream`` body; ``complete=False`` drops the connection after
    them (a broken stream), ``complete=True`` ends the body properly. ``delay_s``: silence before the
    bytes (after the headers). ``stall_s``: silence after the bytes, the connection held open (a
    server stuck mid-answer); a client closing the connection meanwhile ends the reply at once and
    sets ``stream_aborted``. ``keepalive``: bytes sent every ``keepalive_every_s`` seconds during the
    stall (an SSE comment such as ``b": ping\\n\\n"``, as proxies and some servers send)."""

    def __init__(self, data: bytes, complete: bool = False, delay_s: float = 0.0, stall_s: float = 0.0,
                 keepalive: bytes = b"", keepalive_every_s: float = 0.1):
        self.data, self.complete, self.delay_s, self.stall_s = data, complete, delay_s, stall_s
        self.keepalive, self.keepalive_every_s = keepalive, keepalive_every_s


class Disconnect:
    """Close the connection without answering (the client sees a connection error)."""


def error_body(message: str, type_: str = "invalid_request_error", code: Any = None, param: Any = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


_STATUS_TEXT = {
    400: ("Bad request.", "invalid_request_error", None),
    401: ("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"),
    403: ("You are not allowed to sample from this model.", "invalid_request_error", None),
    404: ("The requested resource was not found.", "invalid_request_error", None),
    429: ("Rate limit reached for requests.", "requests", "rate_limit_exceeded"),
    500: ("The server had an error while processing your request.", "server_error", None),
    502: ("Bad gateway.", "server_error", None),
    503: ("The server is overloaded or not ready yet.", "server_error", None),
}


def default_error_body(status: int) -> dict:
    message, type_, code = _STATUS_TEXT.get(status, (f"HTTP {status}", "server_error", None))
    return error_body(message, type_, code)


def openai_masked(key: str) -> str:
    """How OpenAI quotes a wrong key in its 401 message: ``sk-wron******0000``."""
    return key[:7] + "*" * 6 + key[-4:] if len(key) > 11 else "*" * len(key)


# ------------------------------------------------------------------------------------------------
# Wire shapes
# ------------------------------------------------------------------------------------------------
def new_completion_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex[:24]


def chunk(cid: str, model: str, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    """One ``chat.completion.chunk`` with a single choice."""
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "system_fingerprint": "fp_local",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
    }


def usage_chunk(cid: str, model: str, prompt: int = 10, completion: int = 10) -> dict[str, Any]:
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "system_fingerprint": "fp_local",
        "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def split_text(text: str, parts: int = 3) -> list[str]:
    """``text`` cut into up to ``parts`` non-empty pieces that join back to it."""
    if len(text) <= 1 or parts <= 1:
        return [text]
    size = max(1, -(-len(text) // parts))
    return [text[i : i + size] for i in range(0, len(text), size)]


def plan_to_chunks(p: Plan, model: str) -> list[dict[str, Any]]:
    """The fake model's plan as a stream: role chunk, reasoning_content, content pieces, tool-call
    deltas (index, id, name, then the JSON-string arguments split over several deltas), finish."""
    cid = new_completion_id()
    out = [chunk(cid, model, {"role": "assistant", "content": "", "refusal": None})]
    if p.thinking:
        for piece in split_text(p.thinking):
            out.append(chunk(cid, model, {"reasoning_content": piece}))
    for piece in p.chunks:
        out.append(chunk(cid, model, {"content": piece}))
    for i, (name, args) in enumerate(p.tool_calls):
        call_id = "call_" + uuid.uuid4().hex[:24]
        out.append(chunk(cid, model, {"tool_calls": [
            {"index": i, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        ]}))
        for piece in split_text(dumps(args)):
            out.append(chunk(cid, model, {"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    out.append(chunk(cid, model, {}, "tool_calls" if p.tool_calls else "stop"))
    return out


def plan_to_completion(p: Plan, model: str) -> dict[str, Any]:
    """The fake model's plan as one ``chat.completion``."""
    message: dict[str, Any] = {"role": "assistant", "content": "".join(p.chunks) or None, "refusal": None}
    if p.thinking:
        message["reasoning_content"] = p.thinking
    if p.tool_calls:
        message["tool_calls"] = [
            {"id": "call_" + uuid.uuid4().hex[:24], "type": "function",
             "function": {"name": name, "arguments": dumps(args)}}
            for name, args in p.tool_calls
        ]
    return {
        "id": new_completion_id(),
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "system_fingerprint": "fp_local",
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": None,
            "finish_reason": "tool_calls" if p.tool_calls else "stop",
        }],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


def completion_to_chunks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A ``chat.completion`` as the equivalent stream, keeping its quirks: ``content`` exactly as
    given in the first chunk (``null`` stays ``null``), reasoning fields, tool calls with their id
    as given (empty, or no ``id`` key at all), object arguments sent whole, string arguments split."""
    cid = body.get("id") or new_completion_id()
    model = body.get("model") or "local-model"
    out: list[dict[str, Any]] = []
    choice = (body.get("choices") or [{}])[0]
    message = dict(choice.get("message") or {})
    first: dict[str, Any] = {"role": message.get("role", "assistant"), "content": message.get("content")}
    for name in ("reasoning_content", "reasoning"):
        if message.get(name):
            first[name] = message[name]
    calls = message.get("tool_calls") or []
    out.append(chunk(cid, model, first))
    for i, tc in enumerate(calls):
        fn = dict(tc.get("function") or {})
        args = fn.get("arguments")
        head: dict[str, Any] = {"index": i}
        if "id" in tc:
            head["id"] = tc["id"]
        if "type" in tc:
            head["type"] = tc["type"]
        head["function"] = {"name": fn.get("name"), "arguments": args if not isinstance(args, str) else ""}
        out.append(chunk(cid, model, {"tool_calls": [head]}))
        if isinstance(args, str) and args:
            for piece in split_text(args):
                out.append(chunk(cid, model, {"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    out.append(chunk(cid, model, {}, choice.get("finish_reason") or ("tool_calls" if calls else "stop")))
    return out


# ------------------------------------------------------------------------------------------------
# Request checks (strict servers)
# ------------------------------------------------------------------------------------------------
def check_request(body: dict[str, Any], null_content_ok: bool = False) -> HttpError | None:
    """The 400 a strict OpenAI-compatible server gives this request, or None when it is accepted."""
    messages = body.get("messages")
    if not body.get("model"):
        return HttpError(400, error_body("you must provide a model parameter", param="model"))
    if not isinstance(messages, list) or not messages:
        return HttpError(400, error_body("'messages' must be a non-empty array", param="messages"))
    pending: list[str] = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant", "tool", "developer"):
            return HttpError(400, error_body(f"Invalid 'messages[{i}]': unknown role", param=f"messages[{i}]"))
        role = m["role"]
        if role == "user" and isinstance(m.get("content"), list):
            for part in m["content"]:
                if not isinstance(part, dict) or part.get("type") not in ("text", "image_url"):
                    return HttpError(400, error_body(f"Invalid 'messages[{i}].content': unknown part type",
                                                     param=f"messages[{i}].content"))
            try:
                images_of(m)
            except ValueError as exc:
                return HttpError(400, error_body(f"Invalid image in 'messages[{i}]': {exc}",
                                                 param=f"messages[{i}].content"))
        if pending and role != "tool":
            return HttpError(400, error_body(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                "'tool_call_id'. The following tool_call_ids did not have response messages: "
                + ", ".join(pending), param="messages"))
        if "content" in m and m["content"] is None and not null_content_ok:
            # shared case 18 (LM Studio's wording)
            return HttpError(
                400, {"error": "Invalid 'content': 'content' field must be a string or an array of objects."}
            )
        if role == "assistant" and m.get("tool_calls"):
            for tc in m["tool_calls"]:
                if not isinstance(tc, dict) or not tc.get("id") or not isinstance(tc.get("id"), str):
                    return HttpError(400, {"error": {"message": "Invalid 'messages' in payload"}})  # case 17
                args = (tc.get("function") or {}).get("arguments")
                if not isinstance(args, str):  # case 12 replayed as an object
                    return HttpError(400, error_body(
                        f"Invalid type for 'messages[{i}].tool_calls[].function.arguments': expected a string",
                        param=f"messages[{i}].tool_calls"))
                try:
                    json.loads(args)
                except ValueError as exc:  # case 13 (vLLM's wording)
                    return HttpError(400, {"error": {"message": str(exc), "type": "BadRequestError", "code": 400}})
            pending = [tc["id"] for tc in m["tool_calls"]]
        elif role == "tool":
            call_id = m.get("tool_call_id")
            if not call_id or call_id not in pending:
                return HttpError(400, error_body(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                    "with 'tool_calls'.", param=f"messages[{i}].role"))
            pending.remove(call_id)
            if not isinstance(m.get("content"), (str, list)):
                return HttpError(400, error_body(f"Invalid 'messages[{i}].content'", param=f"messages[{i}].content"))
    if pending:
        return HttpError(400, error_body(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            "'tool_call_id'. The following tool_call_ids did not have response messages: " + ", ".join(pending),
            param="messages"))
    tools = body.get("tools")
    choice = body.get("tool_choice")
    if choice is not None:
        if not tools:
            return HttpError(400, error_body(
                "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
                param="tool_choice"))
        if isinstance(choice, dict):
            name = (choice.get("function") or {}).get("name")
            if name not in tool_names_of(tools):
                return HttpError(400, error_body(
                    f"Invalid value for 'tool_choice': function '{name}' is not among the tools.", param="tool_choice"))
        elif choice not in ("auto", "none", "required"):
            return HttpError(400, error_body(f"Invalid value for 'tool_choice': {choice!r}", param="tool_choice"))
    return None


def context_error(shape: str, tokens: int, n_ctx: int) -> HttpError:
    """The two context-length error shapes of shared case 25."""
    if shape == "llama.cpp":
        return HttpError(400, {"error": {
            "code": 400,
            "message": f"request ({tokens} tokens) exceeds the available context size ({n_ctx} tokens), "
                       "try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": tokens,
            "n_ctx": n_ctx,
        }})
    return HttpError(400, error_body(
        f"This model's maximum context length is {n_ctx} tokens. However, your messages resulted in {tokens} "
        "tokens. Please reduce the length of the messages.", param="messages", code="context_length_exceeded"))


# ------------------------------------------------------------------------------------------------
# The server
# ------------------------------------------------------------------------------------------------
class RecordedRequest(dict):
    """A received request: the JSON body as a dict, plus ``.method``, ``.path``, ``.headers``
    (lower-case names), ``.key`` (the bearer token, or None), ``.raw`` (the body bytes) and
    ``.time`` (``time.monotonic()`` when it arrived)."""

    def __init__(self, body: dict[str, Any], method: str, path: str, headers: dict[str, str], raw: bytes = b""):
        super().__init__(body)
        self.method, self.path, self.headers, self.raw = method, path, headers, raw
        self.time = time.monotonic()
        auth = headers.get("authorization", "")
        self.key = auth[7:] if auth.lower().startswith("bearer ") else None


Reply = Any  # list | dict | Json | HttpError | Raw | bytes | Disconnect | Callable


class OpenAIServer:
    """See the module docstring. Thread-safe; start with :meth:`start`, stop with :meth:`stop`."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        models: Iterable[str] = ("local-model",),
        required_keys: Iterable[str] | None = None,
        strict: bool = True,
        chunk_delay_s: float = 0.0,
    ):
        self.host, self._port = host, port
        self.models = list(models)
        #: extra fields of a model's ``/v1/models`` entry (vLLM's ``max_model_len``, llama.cpp's ``meta``…)
        self.model_meta: dict[str, dict[str, Any]] = {}
        #: llama.cpp's ``GET /props`` answer (None: the route does not exist)
        self.props: dict[str, Any] | None = None
        self.strict_models = False
        self.required_keys: set[str] | None = set(required_keys) if required_keys is not None else None
        self.strict = strict
        self.null_content_ok = False
        self.context_limit_chars: int | None = None
        self.context_error = "openai"
        self.empty_auto_tool_streams = False
        self.chunk_delay_s = chunk_delay_s
        self.events_per_s = 0.0
        #: every image received in a chat request (decoded from its data URL)
        self.images: list[bytes] = []
        #: bodies of POST …/chat/completions, in order (rejected ones included)
        self.requests: list[RecordedRequest] = []
        #: every request, models listing included
        self.all_requests: list[RecordedRequest] = []
        #: set when a client closed a stream before its end (e.g. the user pressed Stop)
        self.stream_aborted = threading.Event()
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[Any] = set()

    # -- life cycle ----------------------------------------------------------------------------
    def start(self) -> OpenAIServer:
        server = self

        class Handler(_Handler):
            owner = server

        httpd = _QuietServer((self.host, self._port), Handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="openai-test-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        with self._lock:
            connections, self._connections = list(self._connections), set()
        for conn in connections:  # keep-alive connections die with the server, as with a real one
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)

    close = stop

    def __enter__(self) -> OpenAIServer:
        return self if self._httpd is not None else self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT/v1``"""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The chat request bodies (same as :attr:`requests`; named like the Ollama server's)."""
        with self._lock:
            return list(self.requests)

    # -- scripting -----------------------------------------------------------------------------
    def script(self, *replies: Reply) -> OpenAIServer:
        """Queue replies for the next chat requests (see the module docstring)."""
        with self._lock:
            self._replies.extend(replies)
        return self

    def pending(self) -> int:
        """How many scripted replies are still queued."""
        with self._lock:
            return len(self._replies)

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            reply = self._replies.popleft() if self._replies else None
        if callable(reply) and not isinstance(reply, type):
            reply = reply(request)
        return reply

    def _record(self, request: RecordedRequest, chat: bool) -> None:
        with self._lock:
            self.all_requests.append(request)
            if chat:
                self.requests.append(request)

    def default_reply(self, body: dict[str, Any], stream: bool) -> Any:
        """The fake model's answer (``tests/servers/fake_model.plan``), honouring ``tool_choice``."""
        names = tool_names_of(body.get("tools"))
        choice = body.get("tool_choice")
        forced = None
        if choice == "none":
            names = []
        elif isinstance(choice, dict):
            forced = (choice.get("function") or {}).get("name")
        p = plan(body.get("messages") or [], names, forced)
        last_role = (body.get("messages") or [{}])[-1].get("role")
        if choice == "required" and names and not p.tool_calls and last_role != "tool":
            p = plan(body.get("messages") or [], names, names[0])
        model = body.get("model") or "local-model"
        return plan_to_chunks(p, model) if stream else plan_to_completion(p, model)


class _Handler(BaseHTTPRequestHandler):
    owner: OpenAIServer
    protocol_version = "HTTP/1.1"
    server_version = "openai-test-server/1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        with self.owner._lock:
            self.owner._connections.add(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            with self.owner._lock:
                self.owner._connections.discard(self.connection)

    # -- plumbing ------------------------------------------------------------------------------
    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def _read_body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        if isinstance(body, (bytes, str)):
            data = body.encode() if isinstance(body, str) else body
            ctype = "text/plain; charset=utf-8"
        else:
            data = json.dumps(body, ensure_ascii=False).encode()
            ctype = "application/json"
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.wfile.flush()
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _stall(self, raw: Raw) -> bool:
        """Stay silent (but for ``raw.keepalive``) for ``raw.stall_s``; True when the client left."""
        if not raw.keepalive:
            return self._client_left_within(raw.stall_s)
        deadline = time.monotonic() + raw.stall_s
        while time.monotonic() < deadline:
            if self._client_left_within(min(raw.keepalive_every_s, deadline - time.monotonic())):
                return True
            self._write_chunk(raw.keepalive)  # a client gone: BrokenPipeError, handled by the caller
        return False

    def _client_left_within(self, seconds: float) -> bool:
        """Stay silent up to ``seconds``; True as soon as the client closes the connection (EOF)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], min(left, 0.02))
            if not readable:
                continue
            try:
                if not self.connection.recv(1, socket.MSG_PEEK):
                    return True
            except OSError:
                return True
            time.sleep(min(left, 0.02))  # bytes from the client mid-reply: not a close
        return False

    # -- routes --------------------------------------------------------------------------------
    def do_GET(self) -> None:
        srv = self.owner
        path = self.path.split("?", 1)[0].rstrip("/")
        req = RecordedRequest({}, "GET", path, self._headers())
        srv._record(req, chat=False)
        if self._auth_failed(req):
            return
        if path == "/v1/models":
            self._send_json(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": CREATED, "owned_by": "local", **srv.model_meta.get(m, {})}
                for m in srv.models
            ]})
        elif path == "/props" and srv.props is not None:
            self._send_json(200, srv.props)
        elif path.startswith("/v1/models/") and path[len("/v1/models/"):] in srv.models:
            self._send_json(200, {"id": path[len("/v1/models/"):], "object": "model", "created": CREATED,
                                  "owned_by": "local"})
        else:
            self._send_json(404, error_body(f"Invalid URL (GET {path})"))

    def do_POST(self) -> None:
        srv = self.owner
        path = self.path.split("?", 1)[0].rstrip("/")
        raw = self._read_body()
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        req = RecordedRequest(body if isinstance(body, dict) else {}, "POST", path, self._headers(), raw)
        chat = path == "/v1/chat/completions"
        srv._record(req, chat=chat)
        if not chat:
            self._send_json(404, error_body(f"Invalid URL (POST {path})"))
            return
        if not isinstance(body, dict):
            self._send_json(400, error_body("We could not parse the JSON body of your request."))
            return
        if self._auth_failed(req):
            return
        stream = bool(body.get("stream"))
        if srv.strict:
            problem = check_request(body, srv.null_content_ok)
            if problem is not None:
                self._send_reply(problem, body, stream)
                return
        with contextlib.suppress(ValueError, TypeError):
            srv.images.extend(i for m in body.get("messages") or [] if isinstance(m, dict) for i in images_of(m))
        if srv.context_limit_chars is not None and len(raw) > srv.context_limit_chars:
            if srv.context_error == "llama-cpp-python" and stream:  # it fails after the 200, silently
                self._send_reply(Raw(b"", complete=True), body, stream)
                return
            shape = "openai" if srv.context_error == "llama-cpp-python" else srv.context_error
            self._send_reply(context_error(shape, len(raw) // 4, srv.context_limit_chars // 4), body, stream)
            return
        if srv.empty_auto_tool_streams and stream and body.get("tools") and body.get("tool_choice", "auto") == "auto":
            self._send_reply(Raw(b"", complete=True), body, stream)
            return
        if srv.strict_models and body.get("model") not in srv.models:
            self._send_json(404, error_body(
                f"The model `{body.get('model')}` does not exist or you do not have access to it.",
                code="model_not_found"))
            return
        reply = srv._next_reply(req)
        if reply is None:
            reply = srv.default_reply(body, stream)
        self._send_reply(reply, body, stream)

    def _auth_failed(self, req: RecordedRequest) -> bool:
        keys = self.owner.required_keys
        if keys is None or (req.key is not None and req.key in keys):
            return False
        if req.key:
            message = f"Incorrect API key provided: {openai_masked(req.key)}. You can find your API key at " \
                      "https://platform.openai.com/account/api-keys."
        else:
            message = "You didn't provide an API key."
        self._send_json(401, error_body(message, code="invalid_api_key"))
        return True

    def _send_reply(self, reply: Any, body: dict[str, Any], stream: bool) -> None:
        try:
            if isinstance(reply, Disconnect):
                self._drop()
            elif isinstance(reply, HttpError):
                payload = reply.body if reply.body is not None else default_error_body(reply.status)
                self._send_json(reply.status, payload, reply.headers)
            elif isinstance(reply, Json):
                self._send_json(reply.status, reply.body, reply.headers)
            elif isinstance(reply, (bytes, Raw)):
                raw = reply if isinstance(reply, Raw) else Raw(reply)
                self._start_stream()
                if raw.delay_s:
                    time.sleep(raw.delay_s)
                if raw.data:
                    self._write_chunk(raw.data)
                if raw.stall_s and self._stall(raw):
                    self.owner.stream_aborted.set()
                    self.close_connection = True
                    return
                if raw.complete:
                    self._end_stream()
                else:
                    self._drop()
            elif isinstance(reply, list):
                self._stream(reply, body)
            elif isinstance(reply, dict):
                if stream and reply.get("object") == "chat.completion":
                    self._stream(completion_to_chunks(reply), body)
                else:
                    self._send_json(200, reply)
            else:
                raise TypeError(f"unknown scripted reply {reply!r}")
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.owner.stream_aborted.set()
            self.close_connection = True

    def _stream(self, events: list[Any], body: dict[str, Any]) -> None:
        events = list(events)
        if "[DONE]" not in events:
            usage = (body.get("stream_options") or {}).get("include_usage")
            if usage:
                first = next((e for e in events if isinstance(e, dict)), {})
                events.append(usage_chunk(first.get("id", new_completion_id()), first.get("model", "local-model")))
            events.append("[DONE]")
        self._start_stream()
        delay, rate = self.owner.chunk_delay_s, self.owner.events_per_s
        start = time.monotonic()
        for i, event in enumerate(events):
            if rate:
                wait = start + i / rate - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
            elif delay and i:
                time.sleep(delay)
            data = event if isinstance(event, str) else json.dumps(event, ensure_ascii=False)
            self._write_chunk(f"data: {data}\n\n".encode())
        self._end_stream()


# ------------------------------------------------------------------------------------------------
# pytest fixture and standalone run
# ------------------------------------------------------------------------------------------------
try:
    import pytest
except ImportError:  # standalone use without the dev extra
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.fixture
    def openai_server():
        """A started :class:`OpenAIServer` (function scope), always stopped afterwards."""
        server = OpenAIServer().start()
        try:
            yield server
        finally:
            server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Local OpenAI-compatible test server (fake model).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--model", action="append", help="model name served at /v1/models (repeatable)")
    parser.add_argument("--key", action="append", help="accept only these bearer keys (repeatable)")
    parser.add_argument("--chunk-delay", type=float, default=0.0, help="seconds between streamed chunks")
    args = parser.parse_args(argv)
    server = OpenAIServer(args.host, args.port, models=args.model or ["local-model"],
                          required_keys=args.key, chunk_delay_s=args.chunk_delay).start()
    print(f"OpenAI-compatible test server at {server.url} (Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
