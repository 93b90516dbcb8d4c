"""The Ollama backend builds the absolute URL of a request once per path (httpx would parse and join it again for
every request) — and it is the URL httpx would have made: a host with a path (a proxy's ``/ollama``) keeps it."""

from __future__ import annotations

import threading

import pytest

from desktop_agent.core import errors
from desktop_agent.core.backends.ollama import OllamaBackend
from desktop_agent.core.messages import Message


def test_requests_go_to_the_hosts_path_and_the_url_is_built_once(ollama_server):
    backend = OllamaBackend(ollama_server.url + "/ollama", "llama3.2", timeout_s=10)
    for _ in range(2):
        with pytest.raises(errors.AgentError):  # the test server knows no /ollama/...: 404
            list(backend.stream_chat([Message(role="user", content="hi")], cancel=threading.Event()))
    chats = [path for path, _body in ollama_server.requests if path.endswith("/api/chat")]
    assert chats == ["/ollama/api/chat", "/ollama/api/chat"]
    assert list(backend._urls) == ["/api/chat"]
    assert str(backend._urls["/api/chat"]) == ollama_server.url + "/ollama/api/chat"


def test_a_plain_host_answers_through_the_built_url(ollama_server):
    backend = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10)
    chunks = list(backend.stream_chat([Message(role="user", content="hi")], cancel=threading.Event()))
    assert chunks and chunks[-1].done
    assert [path for path, _body in ollama_server.requests if path.endswith("/api/chat")] == ["/api/chat"]


def test_every_chat_request_says_its_body_is_json(ollama_server, monkeypatch):
    """Sent once by the client's own headers (the backend's own client's), or added by the backend when a given
    client lacks it."""
    import httpx

    from tests.servers import ollama as server_module

    seen: list[tuple[str, str | None]] = []
    real = server_module._Handler.do_POST

    def do_post(handler):
        seen.append((handler.path, handler.headers.get("Content-Type")))
        real(handler)

    monkeypatch.setattr(server_module._Handler, "do_POST", do_post)
    plain = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10)
    bare = httpx.Client(base_url=ollama_server.url)  # no Content-Type of its own
    custom = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10, http_client=bare)
    for backend in (plain, custom):
        assert list(backend.stream_chat([Message(role="user", content="hi")], cancel=threading.Event()))[-1].done
    assert [kind for path, kind in seen if path == "/api/chat"] == ["application/json", "application/json"]


def test_ollama_host_bare_ipv6_is_read_as_ollama_reads_it():
    from desktop_agent.core.assembly import parse_ollama_host

    assert parse_ollama_host("::1") == "http://[::1]:11434"  # FAULT: ValueError "'::1' has an invalid port"
