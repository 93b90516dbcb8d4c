"""A small Ollama-API server that translates to an OpenAI-compatible server (test tree only).

No real Ollama can be installed on the CI machines, so the Ollama path of the app is exercised end to
end by putting this translator in front of the real llama.cpp server (``llama_cpp.server``). It speaks
the Ollama wire format as documented in ollama/ollama ``docs/api.md``, which is what the official
``ollama`` Python client expects:

- ``GET /`` and ``HEAD /``: ``Ollama is running``.
- ``GET /api/version``: ``{"version": "..."}``.
- ``GET /api/tags``: the upstream ``/v1/models`` as ``{"models": [{"name", "model", "modified_at",
  "size", "digest", "details"}]}``.
- ``POST /api/show``: minimal model details with ``capabilities``.
- ``POST /api/chat``: ``stream`` (default true) gives NDJSON lines ``{"model", "created_at", "message":
  {"role": "assistant", "content": <piece>}, "done": false}`` and a last line with ``"done": true``,
  ``done_reason`` and durations in nanoseconds; ``stream: false`` gives one JSON object.
  Tool calls come back as ``{"function": {"name", "arguments": <object>}}`` without ids.

Request translation (Ollama → OpenAI Chat Completions):

- assistant ``tool_calls`` (object arguments, no ids) get ids ``call_<message>_<n>`` and JSON-string
  arguments; their ``content`` is sent as ``""``, never null (the llama.cpp server answers HTTP 500 to
  null content);
- ``role: "tool"`` results (``tool_name``) become ``{"role": "tool", "tool_call_id", "content"}``,
  paired with the open call of that name (else the oldest open call);
- ``tools`` are passed through with an explicit ``tool_choice`` (this server ignores tools without
  one). The default is ``"auto"``; :meth:`OllamaTranslator.forcing_tool` forces a named tool on
  requests whose last message is from the user, so the tool path is deterministic with a tiny model;
- with tools, the upstream request is not streamed (this server fails after a 200 when streaming with
  ``tool_choice="auto"``); the reply is then sent as one NDJSON message line plus the done line, which
  is how Ollama streams tool calls too;
- ``options.temperature / top_p / top_k / seed / stop / num_predict`` (capped by ``max_tokens``) and
  ``format`` ("json" or a schema) are mapped; ``keep_alive`` and ``think`` are accepted and ignored;
  ``model`` may carry a ``:latest`` tag. An unknown model gets Ollama's 404
  ``{"error": "model \\"x\\" not found, ..."}``.

Errors from upstream come back as ``{"error": text}`` with the upstream HTTP status (before the stream
starts) or as an ``{"error": text}`` NDJSON line (mid-stream), as Ollama does.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

FAKE_VERSION = "0.12.6"


def _now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def strip_tag(model: str) -> str:
    """``smollm2:latest`` → ``smollm2`` (Ollama names carry a tag; the upstream alias has none)."""
    return model[: -len(":latest")] if model.endswith(":latest") else model


def _args_to_json(arguments: Any) -> str:
    if arguments is None:
        return "{}"
    if isinstance(arguments, str):  # a non-conforming client; pass it through untouched
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def _args_to_object(arguments: Any) -> Any:
    """OpenAI's JSON-string arguments → an object, as Ollama sends them. Unparseable text is kept as
    the string (the client then reports it; Ollama itself never sends that)."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return arguments
    return arguments if arguments is not None else {}


def messages_to_openai(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ollama chat messages → OpenAI chat messages (see the module docstring)."""
    out: list[dict[str, Any]] = []
    open_calls: list[tuple[str, str]] = []  # (id, name) of calls not yet answered
    for i, m in enumerate(messages):
        role = m.get("role", "user")
        content = m.get("content") or ""
        if role == "assistant" and m.get("tool_calls"):
            calls = []
            open_calls = []
            for n, tc in enumerate(m["tool_calls"]):
                fn = tc.get("function") or {}
                call_id = f"call_{i}_{n}"
                calls.append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": fn.get("name", ""), "arguments": _args_to_json(fn.get("arguments"))},
                    }
                )
                open_calls.append((call_id, fn.get("name", "")))
            out.append({"role": "assistant", "content": content, "tool_calls": calls})
        elif role == "tool":
            name = m.get("tool_name") or m.get("name") or ""
            match = next((c for c in open_calls if c[1] == name), open_calls[0] if open_calls else None)
            if match is not None:
                open_calls.remove(match)
                call_id = match[0]
            else:
                call_id = f"call_{i}_orphan"
            out.append({"role": "tool", "tool_call_id": call_id, "content": content})
        else:
            out.append({"role": role, "content": content})
    return out


def chat_request_to_openai(
    body: dict[str, Any], force_tool: str | None = None, max_tokens: int | None = None
) -> dict[str, Any]:
    """An Ollama ``/api/chat`` body → an OpenAI ``/chat/completions`` body (``stream`` decided by the
    caller). ``max_tokens`` caps ``num_predict`` (a server-side limit, like a Modelfile's)."""
    messages = body.get("messages") or []
    req: dict[str, Any] = {"model": strip_tag(body.get("model", "")), "messages": messages_to_openai(messages)}
    options = body.get("options") or {}
    for ollama_key, openai_key in (
        ("temperature", "temperature"),
        ("top_p", "top_p"),
        ("top_k", "top_k"),
        ("seed", "seed"),
        ("stop", "stop"),
        ("num_predict", "max_tokens"),
        ("repeat_penalty", "repeat_penalty"),
    ):
        if options.get(ollama_key) is not None:
            req[openai_key] = options[ollama_key]
    if max_tokens is not None:
        req["max_tokens"] = min(req.get("max_tokens") or max_tokens, max_tokens)
    fmt = body.get("format")
    if fmt == "json":
        req["response_format"] = {"type": "json_object"}
    elif isinstance(fmt, dict):
        req["response_format"] = {"type": "json_object", "schema": fmt}
    tools = body.get("tools")
    if tools:
        req["tools"] = tools
        last_role = messages[-1].get("role") if messages else None
        if force_tool and last_role == "user":
            req["tool_choice"] = {"type": "function", "function": {"name": force_tool}}
        else:
            req["tool_choice"] = "auto"
    return req


def message_to_ollama(message: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI assistant message → an Ollama one (object arguments, no ids)."""
    out: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
    calls = message.get("tool_calls") or []
    if calls:
        out["tool_calls"] = [
            {
                "function": {
                    "name": (c.get("function") or {}).get("name", ""),
                    "arguments": _args_to_object((c.get("function") or {}).get("arguments")),
                }
            }
            for c in calls
        ]
    return out


class _QuietServer(ThreadingHTTPServer):
    """A client closing its connection early is normal here (cancelled streams)."""

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class OllamaTranslator:
    """The translator as a real HTTP server on ``host`` (a free port by default), in a background thread.

    ``upstream``: the OpenAI base URL, e.g. ``http://127.0.0.1:8080/v1``. ``.url`` is the Ollama host
    (``http://127.0.0.1:PORT``). ``.requests`` keeps every Ollama JSON body received and
    ``.upstream_requests`` every OpenAI body sent. ``timeout_s``: per upstream request, in seconds.
    ``max_tokens``: a cap on generated tokens per request (None: the client's ``num_predict`` or none) —
    a tiny model can otherwise write until its context window is full.
    """

    def __init__(
        self,
        upstream: str,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        timeout_s: float = 120.0,
        max_tokens: int | None = None,
    ):
        self.upstream = upstream.rstrip("/")
        self.timeout_s = timeout_s
        self.max_tokens = max_tokens
        self.requests: list[dict[str, Any]] = []
        self.upstream_requests: list[dict[str, Any]] = []
        self.force_tool: str | None = None
        self._lock = threading.Lock()
        self._httpd = _QuietServer((host, port), self._make_handler())
        self._httpd.daemon_threads = True
        self.url = f"http://{host}:{self._httpd.server_address[1]}"
        self._thread: threading.Thread | None = None

    # -- life cycle ------------------------------------------------------------------------------
    def start(self) -> OllamaTranslator:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="ollama-translator", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> OllamaTranslator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @contextlib.contextmanager
    def forcing_tool(self, name: str) -> Iterator[None]:
        """Within the block, requests with tools whose last message is from the user force ``name``."""
        self.force_tool = name
        try:
            yield
        finally:
            self.force_tool = None

    # -- upstream ----------------------------------------------------------------------------------
    def _client(self) -> httpx.Client:
        # A fresh connection per request: after a failed stream this server may break the pooled one.
        return httpx.Client(timeout=self.timeout_s)

    def upstream_models(self) -> list[str]:
        with self._client() as c:
            r = c.get(self.upstream + "/models")
            r.raise_for_status()
            return [m["id"] for m in r.json().get("data", [])]

    # -- HTTP ----------------------------------------------------------------------------------------
    def _make_handler(self):
        translator = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            # helpers
            def _send_json(self, status: int, obj: Any) -> None:
                data = json.dumps(obj, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _send_text(self, status: int, text: str, head_only: bool = False) -> None:
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if not head_only:
                    self.wfile.write(data)

            def _start_ndjson(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()

            def _chunk(self, obj: Any) -> None:
                data = (json.dumps(obj, ensure_ascii=False) + "\n").encode()
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

            def _end_chunks(self) -> None:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def _body(self) -> dict[str, Any]:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                return json.loads(raw) if raw.strip() else {}

            # routes
            def do_HEAD(self) -> None:
                self._send_text(200, "Ollama is running", head_only=True)

            def do_GET(self) -> None:
                if self.path in ("/", ""):
                    self._send_text(200, "Ollama is running")
                elif self.path == "/api/version":
                    self._send_json(200, {"version": FAKE_VERSION})
                elif self.path == "/api/tags":
                    try:
                        names = translator.upstream_models()
                    except httpx.HTTPError as exc:
                        self._send_json(502, {"error": f"upstream: {exc}"})
                        return
                    self._send_json(200, {"models": [_model_entry(n) for n in names]})
                else:
                    self._send_json(404, {"error": f"{self.path} is not supported by the test translator"})

            def do_POST(self) -> None:
                try:
                    body = self._body()
                except json.JSONDecodeError as exc:
                    self._send_json(400, {"error": f"invalid JSON: {exc}"})
                    return
                with translator._lock:
                    translator.requests.append(body)
                if self.path == "/api/chat":
                    self._chat(body)
                elif self.path == "/api/show":
                    name = strip_tag(body.get("model") or body.get("name") or "")
                    if not self._model_known(name):
                        return
                    entry = _model_entry(name)
                    self._send_json(
                        200,
                        {
                            "modelfile": "",
                            "parameters": "",
                            "template": "",
                            "details": entry["details"],
                            "model_info": {"general.architecture": "llama", "llama.context_length": 4096},
                            "capabilities": ["completion", "tools"],
                            "modified_at": entry["modified_at"],
                        },
                    )
                else:
                    self._send_json(404, {"error": f"{self.path} is not supported by the test translator"})

            def _model_known(self, name: str) -> bool:
                try:
                    names = translator.upstream_models()
                except httpx.HTTPError as exc:
                    self._send_json(502, {"error": f"upstream: {exc}"})
                    return False
                if name not in names:
                    self._send_json(404, {"error": f'model "{name}" not found, try pulling it first'})
                    return False
                return True

            def _chat(self, body: dict[str, Any]) -> None:
                model = body.get("model") or ""
                if not self._model_known(strip_tag(model)):
                    return
                req = chat_request_to_openai(body, translator.force_tool, translator.max_tokens)
                stream = body.get("stream", True) is not False
                upstream_stream = stream and "tools" not in req
                req["stream"] = upstream_stream
                with translator._lock:
                    translator.upstream_requests.append(req)
                started = time.monotonic_ns()
                client = translator._client()
                try:
                    if upstream_stream:
                        self._chat_streaming(client, req, model, started)
                    else:
                        self._chat_once(client, req, model, started, stream)
                finally:
                    client.close()

            def _done_line(self, model: str, reason: str, started: int, prompt_n: int, eval_n: int) -> dict:
                total = time.monotonic_ns() - started
                return {
                    "model": model,
                    "created_at": _now_iso(),
                    "message": {"role": "assistant", "content": ""},
                    "done": True,
                    "done_reason": reason,
                    "total_duration": total,
                    "load_duration": 0,
                    "prompt_eval_count": prompt_n,
                    "prompt_eval_duration": 0,
                    "eval_count": eval_n,
                    "eval_duration": total,
                }

            def _chat_once(self, client: httpx.Client, req: dict, model: str, started: int, stream: bool) -> None:
                try:
                    r = client.post(translator.upstream + "/chat/completions", json=req)
                except httpx.HTTPError as exc:
                    self._send_json(502, {"error": f"upstream: {exc}"})
                    return
                if r.status_code != 200:
                    self._send_json(r.status_code, {"error": _upstream_error_text(r)})
                    return
                data = r.json()
                choice = (data.get("choices") or [{}])[0]
                usage = data.get("usage") or {}
                message = message_to_ollama(choice.get("message") or {})
                reason = choice.get("finish_reason") or "stop"
                reason = "stop" if reason == "tool_calls" else reason  # Ollama says "stop" for tool calls
                done = self._done_line(
                    model, reason, started, usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)
                )
                if stream:
                    self._start_ndjson()
                    self._chunk({"model": model, "created_at": _now_iso(), "message": message, "done": False})
                    self._chunk(done)
                    self._end_chunks()
                else:
                    done["message"] = message
                    self._send_json(200, done)

            def _chat_streaming(self, client: httpx.Client, req: dict, model: str, started: int) -> None:
                pieces_sent = None
                try:
                    with client.stream("POST", translator.upstream + "/chat/completions", json=req) as r:
                        if r.status_code != 200:
                            r.read()
                            self._send_json(r.status_code, {"error": _upstream_error_text(r)})
                            return
                        self._start_ndjson()
                        pieces = pieces_sent = 0
                        reason = None
                        try:
                            for line in r.iter_lines():
                                if not line.startswith("data:"):
                                    continue
                                payload = line[5:].strip()
                                if payload == "[DONE]":
                                    break
                                chunk = json.loads(payload)
                                for choice in chunk.get("choices") or []:
                                    text = (choice.get("delta") or {}).get("content")
                                    if text:
                                        pieces += 1
                                        self._chunk(
                                            {
                                                "model": model,
                                                "created_at": _now_iso(),
                                                "message": {"role": "assistant", "content": text},
                                                "done": False,
                                            }
                                        )
                                    reason = choice.get("finish_reason") or reason
                        except (httpx.HTTPError, json.JSONDecodeError) as exc:
                            self._chunk({"error": f"upstream stream broke off: {exc}"})
                            self._end_chunks()
                            return
                        if reason is None:
                            self._chunk({"error": "upstream stream ended without a finish reason"})
                        else:
                            self._chunk(self._done_line(model, reason, started, 0, pieces))
                        self._end_chunks()
                except httpx.HTTPError as exc:
                    if pieces_sent is None:
                        self._send_json(502, {"error": f"upstream: {exc}"})
                    else:  # the NDJSON stream has started: report in-band, as Ollama does
                        self._chunk({"error": f"upstream stream broke off: {exc}"})
                        self._end_chunks()

        return Handler


def _model_entry(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": _now_iso(),
        "size": 0,
        "digest": "0" * 64,
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": "llama",
            "families": ["llama"],
            "parameter_size": "135M",
            "quantization_level": "Q4_1",
        },
    }


def _upstream_error_text(r: httpx.Response) -> str:
    try:
        data = r.json()
    except ValueError:
        return r.text or f"HTTP {r.status_code}"
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        return str(err.get("message") or err)
    if err:
        return str(err)
    if isinstance(data, dict) and "detail" in data:  # FastAPI validation errors
        return json.dumps(data["detail"], ensure_ascii=False)[:500]
    return r.text[:500]
