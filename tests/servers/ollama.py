"""A local server speaking Ollama's HTTP API, for contract tests and manual tries.

Wire format source: the Ollama API doc (docs/api.md in ollama/ollama). Endpoints:

- ``POST /api/chat``: NDJSON stream (``application/x-ndjson``, chunked) when ``stream`` is true or
  absent, one JSON object when ``stream`` is false. Lines are ``{"model", "created_at", "message":
  {"role": "assistant", "content", ["thinking"], ["tool_calls"]}, "done": false}`` and a last line with
  ``"done": true, "done_reason"`` and the timing counters (``total_duration``, ``eval_count``…).
- ``GET /api/tags`` (``.models``), ``GET /api/version`` (``.version``), ``POST /api/show``,
  ``POST /api/pull`` (streamed progress; ``pull_delay_s`` between lines; ``pull_error`` to fail),
  ``DELETE /api/delete`` (200, or 404 ``{"error": ...}``).

Use::

    server = OllamaServer().start()
    server.script([{"message": {"role": "assistant", "content": "Hi"}, "done": True}])
    ...                     # point ollama.Client(host=server.url) at it
    server.requests         # [(path, json body), ...]
    server.stop()

A scripted reply is one of: a list of NDJSON lines to stream (dicts — missing ``model`` /
``created_at`` are filled in, nothing else is changed — raw ``bytes`` lines sent as they are, or a
:class:`Pause`: silence, or only keep-alives, for a while),
:class:`HttpError` (status + JSON body), or ``bytes`` (a broken stream: sent as one chunk after a 200, then the
connection is dropped without ending the chunked body). Unscripted chat requests are answered by
``tests/servers/fake_model.plan()``.

Standalone: ``python -m tests.servers.ollama --port 11434`` prints the URL and serves until Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.servers import fake_model

DISCONNECT_ERRORS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, socket.timeout)


@dataclass
class Pause:
    """In a scripted list of lines: ``seconds`` without a line, sending ``keepalive`` bytes (a blank
    line, an empty frame) every ``every_s`` seconds meanwhile (nothing when empty)."""

    seconds: float
    keepalive: bytes = b""
    every_s: float = 0.1


@dataclass
class HttpError:
    """A scripted HTTP error reply: ``status`` and a JSON body (``{"error": "..."}`` for Ollama) or text."""

    status: int
    body: dict[str, Any] | str = field(default_factory=dict)


def now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def model_entry(name: str, size: int = 2_019_393_189, family: str = "llama", params: str = "3.2B") -> dict[str, Any]:
    """One ``/api/tags`` entry, shaped as in the API doc (``name`` and, as newer servers do, ``model``)."""
    return {
        "name": name,
        "model": name,
        "modified_at": "2025-01-01T12:00:00.000000000Z",
        "size": size,
        "digest": hashlib.sha256(name.encode()).hexdigest(),
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": family,
            "families": [family],
            "parameter_size": params,
            "quantization_level": "Q4_K_M",
        },
    }


def done_line(model: str, done_reason: str = "stop", eval_count: int = 10) -> dict[str, Any]:
    """The last line of a chat stream, with the counters the API doc lists."""
    return {
        "model": model,
        "created_at": now_iso(),
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": done_reason,
        "total_duration": 4_883_583_458,
        "load_duration": 1_334_875,
        "prompt_eval_count": 26,
        "prompt_eval_duration": 342_546_000,
        "eval_count": eval_count,
        "eval_duration": 4_535_599_000,
    }


def prompt_tokens(messages: list[Any]) -> int:
    """The prompt tokens of ``messages`` as this server counts them: characters / 4, 4 more per message."""
    return sum(4 + len(str(m.get("content") or "")) // 4 for m in messages if isinstance(m, dict))


def truncate(messages: list[Any], num_ctx: int) -> tuple[list[Any], int]:
    """What Ollama keeps of a prompt longer than ``num_ctx``: the system messages and the newest messages
    that fit (the oldest go, without a word); and their token count."""
    system = [m for m in messages if isinstance(m, dict) and m.get("role") == "system"]
    rest = [m for m in messages if m not in system]
    while len(rest) > 1 and prompt_tokens(system + rest) > num_ctx:
        rest.pop(0)
    kept = system + rest
    return kept, prompt_tokens(kept)


def plan_to_lines(p: fake_model.Plan, model: str) -> list[dict[str, Any]]:
    """A fake-model plan as Ollama NDJSON lines: thinking, text pieces, one line with the tool calls
    (object arguments, no ids, as Ollama sends them), then the done line."""
    lines: list[dict[str, Any]] = []

    def line(**message: Any) -> dict[str, Any]:
        return {"model": model, "created_at": now_iso(), "message": {"role": "assistant", **message}, "done": False}

    if p.thinking:
        lines.append(line(content="", thinking=p.thinking))
    for piece in p.chunks:
        lines.append(line(content=piece))
    if p.tool_calls:
        lines.append(
            line(content="", tool_calls=[{"function": {"name": n, "arguments": a}} for n, a in p.tool_calls])
        )
    lines.append(done_line(model, eval_count=max(1, len(p.chunks))))
    return lines


def merge_lines(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """NDJSON lines → the single object of a ``stream: false`` reply (content and thinking joined,
    tool calls collected, counters from the last line)."""
    if not lines:
        return {}
    out = dict(next((ln for ln in reversed(lines) if isinstance(ln, dict)), {}))
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    thinking = ""
    calls: list[Any] = []
    for ln in lines:
        if not isinstance(ln, dict):
            continue
        m = ln.get("message") or {}
        if not isinstance(m, dict):
            continue
        message["content"] += m.get("content") or ""
        thinking += m.get("thinking") or ""
        if m.get("tool_calls"):
            calls.extend(m["tool_calls"])
    if thinking:
        message["thinking"] = thinking
    if calls:
        message["tool_calls"] = calls
    out["message"] = message
    return out


class OllamaServer:
    """A real HTTP server on 127.0.0.1 (free port, daemon thread) speaking Ollama's API.

    Attributes: ``url`` (``http://127.0.0.1:PORT``), ``requests`` (``(path, json body)`` per request;
    body None for GET), ``raw_requests`` (``(method, path, body bytes)``), ``peers`` (client address
per request), ``models`` (``/api/tags``
    entries), ``version``, ``chunk_delay_s`` (sleep before each streamed chat line),
    ``first_chunk_delay_s`` (sleep before answering a chat at all, headers included: a model loading), ``pull_delay_s``
    (sleep between pull progress lines), ``pull_steps``, ``pull_error`` (text of an ``{"error"}`` line
    sent by the next pulls), ``strict_models`` (unscripted chats with a model not in ``models`` get
    Ollama's 404).
    """

    def __init__(self, port: int = 0, *, models: list[str] | None = None):
        self.models: list[dict[str, Any]] = [
            model_entry(n) for n in (models if models is not None else ["llama3.2:latest", "qwen3:8b"])
        ]
        self.version = "0.12.6"
        self.requests: list[tuple[str, Any]] = []
        self.raw_requests: list[tuple[str, str, bytes]] = []
        #: the client's (host, port) per request, in order: equal ports = a reused connection
        self.peers: list[tuple[str, int]] = []
        self.chunk_delay_s = 0.0
        self.first_chunk_delay_s = 0.0
        self.pull_delay_s = 0.0
        self.pull_steps = 5
        self.pull_error: str | None = None
        self.strict_models = False
        #: ``/api/show`` per model name: (context_length, capabilities); see :meth:`show_info`
        self.model_facts: dict[str, tuple[int, list[str]]] = {}
        #: ``/api/show``'s ``parameters`` text per model name (the Modelfile's, e.g. ``"num_ctx 4096"``)
        self.model_parameters: dict[str, str] = {}
        #: like Ollama, cut a prompt longer than ``options.num_ctx`` (default 2048) silently, and count only
        #: what was kept in ``prompt_eval_count`` (tokens estimated as characters / 4)
        self.truncate_to_num_ctx = False
        #: chat streams that ended because the client went away
        self.disconnects = 0
        #: every image received in a chat request (decoded; a model without ``vision`` gets Ollama's 500 instead)
        self.images: list[bytes] = []
        self._replies: deque[Any] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    # ---------------------------------------------------------------- control

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> OllamaServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="ollama-test-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; streams still running end at their next line."""
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> OllamaServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def script(self, *replies: Any) -> OllamaServer:
        """Queue replies for the next ``/api/chat`` requests, in order (see the module docstring)."""
        with self._lock:
            self._replies.extend(replies)
        return self

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of the ``/api/chat`` requests received, in order."""
        return [body for path, body in self.requests if path == "/api/chat"]

    def show_info(self, name: str) -> tuple[int, list[str]]:
        """(context_length, capabilities) that ``/api/show`` reports for ``name``: :attr:`model_facts`, else
        131072 and completion + tools (+ thinking for qwen3 / deepseek-r1 models), as Ollama reports them."""
        for key in (name, f"{name}:latest", name.removesuffix(":latest")):
            if key in self.model_facts:
                return self.model_facts[key]
        caps = ["completion", "tools"]
        if name.startswith(("qwen3", "deepseek-r1")):
            caps.append("thinking")
        return 131072, caps

    def model_names(self) -> list[str]:
        return [m["name"] for m in self.models]

    def has_model(self, name: str) -> bool:
        names = self.model_names()
        return name in names or (":" not in name and f"{name}:latest" in names)

    # ---------------------------------------------------------------- internals

    def _next_reply(self) -> Any:
        with self._lock:
            return self._replies.popleft() if self._replies else None

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the server stops; False when it is stopping."""
        if seconds > 0:
            return not self._stopping.wait(seconds)
        return not self._stopping.is_set()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: OllamaServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, DISCONNECT_ERRORS) or self.owner._stopping.is_set():
            return  # a client went away: normal for cancelled streams
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    @property
    def owner(self) -> OllamaServer:
        return self.server.owner

    # ---------------------------------------------------------------- plumbing

    def _read_body(self) -> tuple[bytes, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body: Any = None
        if raw:
            try:
                body = json.loads(raw.decode("utf-8"))
            except ValueError:
                body = None
        self.owner.raw_requests.append((self.command, self.path, raw))
        self.owner.peers.append(self.client_address)
        self.owner.requests.append((self.path, body))
        return raw, body

    def _send_json(self, status: int, obj: Any) -> None:
        data = (obj if isinstance(obj, str) else fake_model.dumps(obj)).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_text(self, status: int, text: str) -> None:
        data = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_empty(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        """Drop the connection abruptly (no end of the chunked body)."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _stream_lines(self, lines: list[Any], delay: float) -> None:
        owner = self.owner
        self._start_stream()
        try:
            for line in lines:
                if not owner._sleep(delay):
                    self._drop()
                    return
                if isinstance(line, Pause):
                    end = time.monotonic() + line.seconds
                    while (left := end - time.monotonic()) > 0:
                        if not owner._sleep(min(line.every_s, left)):
                            self._drop()
                            return
                        if line.keepalive:
                            self._write_chunk(line.keepalive)
                    continue
                if isinstance(line, (bytes, bytearray)):  # a raw line, e.g. a proxy's HTML
                    data = bytes(line) if line.endswith(b"\n") else bytes(line) + b"\n"
                else:
                    data = (fake_model.dumps(line) + "\n").encode("utf-8")
                self._write_chunk(data)
            self._end_stream()
        except DISCONNECT_ERRORS:
            owner.disconnects += 1
            self.close_connection = True

    # ---------------------------------------------------------------- routes

    def do_GET(self) -> None:
        self.owner.requests.append((self.path, None))
        self.owner.raw_requests.append(("GET", self.path, b""))
        self.owner.peers.append(self.client_address)
        if self.path == "/api/tags":
            self._send_json(200, {"models": list(self.owner.models)})
        elif self.path == "/api/version":
            self._send_json(200, {"version": self.owner.version})
        elif self.path == "/api/ps":
            self._send_json(200, {"models": []})
        elif self.path in ("/", ""):
            self._send_text(200, "Ollama is running")
        else:
            self._send_text(404, "404 page not found")

    def do_HEAD(self) -> None:
        self._send_empty(200 if self.path in ("/", "") else 404)

    def do_POST(self) -> None:
        _raw, body = self._read_body()
        if not isinstance(body, dict):
            self._send_json(400, {"error": "invalid JSON body"})
            return
        if self.path == "/api/chat":
            self._chat(body)
        elif self.path == "/api/pull":
            self._pull(body)
        elif self.path == "/api/show":
            name = str(body.get("model") or body.get("name") or "")
            if not self.owner.has_model(name):
                self._send_json(404, {"error": f"model '{name}' not found"})
                return
            entry = next((m for m in self.owner.models if m["name"] in (name, f"{name}:latest")), None)
            context_length, capabilities = self.owner.show_info(name)
            self._send_json(
                200,
                {
                    "modelfile": f"FROM {name}",
                    "parameters": self.owner.model_parameters.get(name, ""),
                    "template": "{{ .Prompt }}",
                    "details": (entry or {}).get("details", {}),
                    "model_info": {"general.architecture": "llama", "general.parameter_count": 3212749888,
                                   "llama.context_length": context_length, "llama.embedding_length": 3072},
                    "capabilities": capabilities,
                    "modified_at": (entry or {}).get("modified_at"),
                },
            )
        else:
            self._send_text(404, "404 page not found")

    def do_DELETE(self) -> None:
        _raw, body = self._read_body()
        if self.path != "/api/delete":
            self._send_text(404, "404 page not found")
            return
        name = str((body or {}).get("model") or (body or {}).get("name") or "")
        owner = self.owner
        with owner._lock:
            before = len(owner.models)
            owner.models[:] = [m for m in owner.models if m["name"] not in (name, f"{name}:latest")]
            removed = len(owner.models) != before
        if removed:
            self._send_empty(200)
        else:
            self._send_json(404, {"error": f"model '{name}' not found"})

    # ---------------------------------------------------------------- /api/chat

    def _chat(self, body: dict[str, Any]) -> None:
        owner = self.owner
        model = str(body.get("model") or "")
        stream = body.get("stream", True) is not False
        reply = owner._next_reply()
        messages = body.get("messages") or []
        try:
            images = [i for m in messages if isinstance(m, dict) for i in fake_model.images_of(m)]
        except ValueError as exc:
            self._send_json(400, {"error": f"illegal base64 data at input: {exc}"})
            return
        if images and "vision" not in owner.show_info(model)[1]:
            # what Ollama answers when a model without a vision projector gets images
            self._send_json(500, {"error": "this model is missing data required for image input"})
            return
        owner.images.extend(images)
        if reply is None:
            if not model:
                self._send_json(400, {"error": "model is required"})
                return
            if owner.strict_models and not owner.has_model(model):
                self._send_json(404, {"error": f"model '{model}' not found, try pulling it first"})
                return
            tools_tokens = len(json.dumps(body.get("tools") or [])) // 4
            tokens = prompt_tokens(messages) + tools_tokens
            if owner.truncate_to_num_ctx:
                num_ctx = int((body.get("options") or {}).get("num_ctx") or 2048)
                messages, tokens = truncate(messages, max(1, num_ctx - tools_tokens))
                tokens += tools_tokens
            p = fake_model.plan(messages, fake_model.tool_names_of(body.get("tools")))
            reply = plan_to_lines(p, model)
            reply[-1]["prompt_eval_count"] = tokens
        # Ollama loads the model before it answers anything (headers included)
        if not owner._sleep(owner.first_chunk_delay_s):
            self._drop()
            return
        if isinstance(reply, HttpError):
            if isinstance(reply.body, str):
                self._send_text(reply.status, reply.body)
            else:
                self._send_json(reply.status, reply.body)
            return
        if isinstance(reply, (bytes, bytearray)):
            self._start_stream()
            with contextlib.suppress(DISCONNECT_ERRORS):
                self._write_chunk(bytes(reply))
            self._drop()
            return
        if isinstance(reply, dict):
            reply = [reply]
        lines = []
        for ln in reply:
            if isinstance(ln, dict):
                ln = {"model": model, "created_at": now_iso(), **ln}
            lines.append(ln)
        if not stream:
            self._send_json(200, merge_lines(lines))
            return
        self._stream_lines(lines, owner.chunk_delay_s)

    # ---------------------------------------------------------------- /api/pull

    def _pull(self, body: dict[str, Any]) -> None:
        owner = self.owner
        name = str(body.get("model") or body.get("name") or "")
        stream = body.get("stream", True) is not False
        digest = "sha256:" + hashlib.sha256(name.encode()).hexdigest()
        total = 2_019_377_376
        lines: list[dict[str, Any]] = [{"status": "pulling manifest"}]
        if owner.pull_error:
            lines.append({"error": owner.pull_error})
        else:
            steps = max(1, owner.pull_steps)
            for i in range(steps + 1):
                done = total * i // steps
                entry: dict[str, Any] = {"status": f"pulling {digest[7:19]}", "digest": digest, "total": total}
                if i:
                    entry["completed"] = done
                lines.append(entry)
            lines += [{"status": "verifying sha256 digest"}, {"status": "writing manifest"}, {"status": "success"}]
        if not stream:
            if owner.pull_error:
                self._send_json(500, {"error": owner.pull_error})
                return
            self._add_model(name)
            self._send_json(200, {"status": "success"})
            return
        self._start_stream()
        try:
            for line in lines:
                if not owner._sleep(owner.pull_delay_s):
                    self._drop()
                    return
                if line.get("status") == "success":
                    self._add_model(name)
                self._write_chunk((json.dumps(line) + "\n").encode())
            self._end_stream()
        except DISCONNECT_ERRORS:
            owner.disconnects += 1
            self.close_connection = True

    def _add_model(self, name: str) -> None:
        owner = self.owner
        full = name if ":" in name else f"{name}:latest"
        with owner._lock:
            if not owner.has_model(full):
                owner.models.append(model_entry(full))


@pytest.fixture
def ollama_server():
    """A started :class:`OllamaServer` for one test; always stopped afterwards."""
    server = OllamaServer().start()
    try:
        yield server
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A local server speaking Ollama's API (rule-based fake model).")
    parser.add_argument("--port", type=int, default=11434)
    parser.add_argument("--chunk-delay", type=float, default=0.05, help="seconds between streamed lines")
    parser.add_argument("--pull-delay", type=float, default=0.3, help="seconds between pull progress lines")
    args = parser.parse_args(argv)
    server = OllamaServer(args.port)
    server.chunk_delay_s = args.chunk_delay
    server.pull_delay_s = args.pull_delay
    server.start()
    print(server.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
