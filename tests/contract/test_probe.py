"""The server probe (the window's server check and model listing, Settings' Test connection): plain HTTP
GETs, no client library — and the same answers and the same error texts as the backends built on the
official clients, against real 127.0.0.1 servers."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from desktop_agent.core.assembly import Assembly, KeySet, backend_spec, build_backend, build_probe
from desktop_agent.core.backends.probe import OllamaProbe, OpenAIProbe
from desktop_agent.core.errors import (
    AgentError,
    AuthenticationFailed,
    BackendError,
    BackendUnreachable,
    NoApiKey,
    NotAnApi,
    ServerTimedOut,
    WebPageAnswer,
)
from desktop_agent.core.settings import Settings
from tests.servers.openai import OpenAIServer

ROOT = Path(__file__).resolve().parents[2]
GOOD, BAD = "sk-good-0123456789abcdef", "sk-bad-0123456789abcdef"


class Scripted:
    """A 127.0.0.1 HTTP server answering every GET with ``status``, ``body`` and ``headers``."""

    def __init__(self, status: int, body: bytes | str | dict, headers: dict[str, str] | None = None):
        if isinstance(body, dict):
            body, headers = json.dumps(body), {"Content-Type": "application/json", **(headers or {})}
        data = body.encode() if isinstance(body, str) else body
        answer = (status, data, headers or {"Content-Type": "text/plain"})
        self.paths: list[str] = []
        paths = self.paths

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                paths.append(self.path)
                code, payload, extra = answer
                self.send_response(code)
                for k, v in extra.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *_args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _outcome(fn) -> tuple[type, str] | list:
    try:
        return fn()
    except AgentError as exc:
        return type(exc), str(exc)


def _openai(url: str, keys: list[str], **settings) -> tuple[OpenAIProbe, object]:
    s = Settings(backend="openai", openai_base_url=url, openai_model="m", **settings)
    spec = backend_spec(s, KeySet(tuple(keys)), timeout_s=3.0, retries=0)
    return build_probe(spec, KeySet(tuple(keys))), build_backend(spec, KeySet(tuple(keys)))


def _ollama(url: str) -> tuple[OllamaProbe, object]:
    spec = backend_spec(Settings(ollama_host=url), timeout_s=3.0)
    return build_probe(spec), build_backend(spec)


def test_the_probe_imports_no_client_library(ollama_server):
    """The window's check against Ollama and an OpenAI-compatible server: models, version — and neither
    ``ollama``, ``openai`` nor ``httpx`` is imported for it (≈ 15–45 MB each, measured in bench/start_rss.py)."""
    openai_server = OpenAIServer(models=["local-model"]).start()
    code = f"""
import sys
from desktop_agent.core.assembly import Assembly
from desktop_agent.core.settings import Settings
a = Assembly()
p = a.one_off_backend(Settings(ollama_host={ollama_server.url!r}), probe=True)
print([m.name for m in p.list_models()], p.server_version())
p = a.one_off_backend(Settings(backend="openai", openai_base_url={openai_server.url!r}), probe=True)
print([m.name for m in p.list_models()])
print(sorted(m for m in ("ollama", "openai", "httpx") if m in sys.modules))
"""
    try:
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                             env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    finally:
        openai_server.stop()
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0] == f"{ollama_server.model_names()} {ollama_server.version}"
    assert lines[1] == "['local-model']"
    assert lines[2] == "[]"


def test_ollama_probe_answers_as_the_backend_does(ollama_server):
    probe, backend = _ollama(ollama_server.url)
    try:
        assert probe.list_models() == backend.list_models()
        assert probe.server_version() == backend.server_version()
        assert probe.describe() == backend.describe()
    finally:
        backend.close()


@pytest.mark.parametrize("status, body", [
    (500, {"error": "something broke inside"}),
    (502, "<html><body><h1>502 Bad Gateway</h1></body></html>"),
    (200, "Ollama is running, but this is not JSON"),
])
def test_ollama_probe_errors_read_as_the_backends(status, body):
    server = Scripted(status, body, {"Content-Type": "text/html"} if "<html>" in str(body) else None)
    probe, backend = _ollama(server.url)
    try:
        for call in ("list_models", "server_version"):
            mine = _outcome(getattr(probe, call))
            theirs = _outcome(getattr(backend, call))
            assert mine == theirs
            # an error the user can act on (a web page and "not an API" are named, not pasted)
            assert isinstance(mine, tuple) and issubclass(mine[0], (BackendError, NotAnApi, WebPageAnswer))
    finally:
        backend.close()
        server.stop()


def test_ollama_probe_unreachable_and_silent():
    probe = OllamaProbe("http://127.0.0.1:9", timeout_s=2.0)
    kind, text = _outcome(probe.list_models)
    assert kind is BackendUnreachable and "Connection refused" in text
    import socket

    with socket.socket() as listener:  # accepts, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        silent = OllamaProbe(f"http://127.0.0.1:{listener.getsockname()[1]}", timeout_s=0.5)
        kind, text = _outcome(silent.list_models)
    assert kind is ServerTimedOut


def test_openai_probe_lists_with_the_key_that_works():
    server = OpenAIServer(models=["a", "b"], required_keys=[GOOD]).start()
    try:
        probe, backend = _openai(server.url, [BAD, GOOD])
        assert [m.name for m in probe.list_models()] == ["a", "b"]
        assert probe.list_models() == backend.list_models()
        seen = [r.headers.get("authorization") for r in server.all_requests]
        assert f"Bearer {BAD}" in seen and seen[-1] == f"Bearer {GOOD}"
        probe, backend = _openai(server.url, [BAD])
        mine, theirs = _outcome(probe.list_models), _outcome(backend.list_models)
        assert mine == theirs and mine[0] is AuthenticationFailed
        assert BAD not in mine[1]
        probe, _backend = _openai(server.url, [], openai_needs_key=True)
        assert _outcome(probe.list_models)[0] is NoApiKey
    finally:
        server.stop()


@pytest.mark.parametrize("status, body, headers", [
    (401, {"error": {"message": "no key"}}, None),  # a local server that wants a key after all: NoApiKey
    (404, "<html><title>404 Not Found</title></html>", {"Content-Type": "text/html"}),
    (429, {"error": {"message": "slow down", "type": "rate_limit"}}, {"Retry-After": "3600"}),
    (500, {"error": {"message": "the model crashed"}}, None),
    (200, "definitely not json", None),
])
def test_openai_probe_errors_read_as_the_backends(status, body, headers):
    server = Scripted(status, body, headers)
    try:
        probe, backend = _openai(server.url + "/v1", [])
        mine, theirs = _outcome(probe.list_models), _outcome(backend.list_models)
        assert isinstance(mine, tuple) and isinstance(theirs, tuple)
        assert mine[0] is theirs[0]
        if status != 200:  # the JSON decoder's own message differs between the two
            assert mine[1] == theirs[1]
        assert all(p == "/v1/models" for p in server.paths)
    finally:
        server.stop()


def test_openai_probe_unreachable_says_so_as_the_backend_does():
    probe, backend = _openai("http://127.0.0.1:9/v1", [])
    mine, theirs = _outcome(probe.list_models), _outcome(backend.list_models)
    assert mine == theirs and mine[0] is BackendUnreachable


def test_the_assemblys_probe_keeps_its_test_hook():
    """With a ``backend_factory`` (tests' scripted backends) the probe is that backend, as before."""
    made = []
    assembly = Assembly(backend_factory=lambda s, k: made.append(k) or "scripted")
    assert assembly.one_off_backend(Settings(), probe=True) == "scripted" and len(made) == 1


def _self_signed(tmp_path) -> tuple[Path, Path]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def test_https_trusts_what_the_clients_trust(tmp_path, monkeypatch):
    """Over https the probe trusts the certificates httpx does (SSL_CERT_FILE, else certifi's bundle): a
    server the chat can reach is one the check reaches, and a certificate nobody trusts fails in both."""
    import ssl

    cert, key = _self_signed(tmp_path)
    server = Scripted(200, {"object": "list", "data": [{"id": "tls-model", "owned_by": "me"}]})
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    server.httpd.socket = tls.wrap_socket(server.httpd.socket, server_side=True)
    url = server.url.replace("http://", "https://") + "/v1"
    try:
        monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        monkeypatch.delenv("SSL_CERT_DIR", raising=False)
        probe, backend = _openai(url, ["sk-x"])
        mine, theirs = _outcome(probe.list_models), _outcome(backend.list_models)
        assert mine[0] is theirs[0] is BackendUnreachable and "CERTIFICATE_VERIFY_FAILED" in mine[1]
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        probe, backend = _openai(url, ["sk-x"])
        assert [m.name for m in probe.list_models()] == ["tls-model"] == [m.name for m in backend.list_models()]
    finally:
        server.stop()
