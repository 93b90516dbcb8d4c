"""Errors a user can read (issue 13), for both backends through the official clients, against real 127.0.0.1
servers:

- a web page answering an error status (a proxy's 502, a 404 page) is a WebPageAnswer naming the status and the
  URL, never the page; a 404 page at a base URL without /v1 suggests the /v1 one;
- a 200 answer that is not the API's (a web page at the base URL, JSON of another kind, plain text, events of
  another API) is NotAnApi — "this address does not look like an OpenAI-compatible (Ollama) API" — not an empty
  answer; an empty 200 stream is still an EmptyAnswer (the server's quirk the agent works around);
- a server that trickles its headers one byte every 0.2 s, or never finishes them, is cut off by the wait for
  the first data (the backend's timeout) and reported as not responding (ServerTimedOut), not "can't reach".
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from desktop_agent.core import errors
from desktop_agent.core.backends.ollama import OllamaBackend
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.messages import Message
from tests.servers.misbehaving import PageServer, TrickleServer

PAGE = b"<!DOCTYPE html><html><head><title>Welcome</title></head><body><h1>It works!</h1></body></html>"
NOT_FOUND_PAGE = b"<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center></body>"


def user() -> list[Message]:
    return [Message(role="system", content="Be brief."), Message(role="user", content="hi")]


@pytest.fixture
def page_server():
    servers: list[PageServer] = []

    def start(status: int, body: bytes, content_type: str = "text/html; charset=utf-8") -> PageServer:
        servers.append(PageServer(status, body, content_type))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def openai_at(url: str) -> OpenAIBackend:
    return OpenAIBackend(url, "m", [], needs_key=False, retries_per_key=0, timeout_s=5, sleep=lambda s: None)


def failure(call: Callable[[], Any]) -> errors.AgentError:
    with pytest.raises(errors.AgentError) as info:
        call()
    return info.value


# ---- web pages with an error status --------------------------------------------------------------------------


def test_openai_404_page_at_a_base_url_without_v1_names_status_url_and_suggests_v1(page_server):
    server = page_server(404, NOT_FOUND_PAGE)
    backend = openai_at(f"http://127.0.0.1:{server.port}")
    try:
        for call in (lambda: list(backend.stream_chat(user())), backend.list_models):
            error = failure(call)
            assert isinstance(error, errors.WebPageAnswer) and error.status == 404
            text = str(error)
            assert f"http://127.0.0.1:{server.port}/" in text and "HTTP 404 with a web page" in text
            assert f"try http://127.0.0.1:{server.port}/v1" in text
            assert "<" not in text and "Not Found</" not in text
            assert "--base-url" in error.for_terminal() and "Settings" not in error.for_terminal()
    finally:
        backend.close()


def test_openai_proxy_502_page_says_the_model_server_behind_it_did_not_answer(page_server):
    server = page_server(502, b"<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>")
    backend = openai_at(f"http://127.0.0.1:{server.port}/v1")
    try:
        error = failure(lambda: list(backend.stream_chat(user())))
    finally:
        backend.close()
    assert isinstance(error, errors.WebPageAnswer) and error.retryable
    assert f"http://127.0.0.1:{server.port}/v1/chat/completions answered HTTP 502" in str(error)
    assert "proxy or gateway" in str(error) and "nginx" not in str(error)
    assert "/v1/v1" not in str(error)


def test_ollama_404_page_is_named_with_its_url(page_server):
    server = page_server(404, NOT_FOUND_PAGE)
    backend = OllamaBackend(f"http://127.0.0.1:{server.port}", "llama3.2", timeout_s=5)
    try:
        chat = (lambda: list(backend.stream_chat(user())), "/api/chat")
        for call, path in (chat, (backend.list_models, "/api/tags")):
            error = failure(call)
            assert isinstance(error, errors.WebPageAnswer) and error.status == 404
            assert f"http://127.0.0.1:{server.port}{path} answered HTTP 404 with a web page" in str(error)
            assert "--host" in error.for_terminal() and "<" not in str(error)
    finally:
        backend.close()


# ---- 200 answers that are not the API's ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, ctype, seen",
    [
        (PAGE, "text/html", "a web page"),
        (PAGE, "text/plain", "a web page"),  # a page sent without its content type
        (b'{"status": "ok", "version": "2.1"}', "application/json", "JSON of another kind"),
        (b"Hello from the landing page", "text/plain", "text that is not JSON"),
    ],
    ids=["html", "html-as-text", "other-json", "text"],
)
def test_openai_200_that_is_not_an_openai_answer_says_so(page_server, body, ctype, seen):
    server = page_server(200, body, ctype)
    backend = openai_at(f"http://127.0.0.1:{server.port}")
    try:
        calls = {"stream": lambda: list(backend.stream_chat(user())),
                 "whole": lambda: list(backend.stream_chat(user(), stream=False)),
                 "models": backend.list_models}  # fmt: skip
        for name, call in calls.items():
            error = failure(call)
            assert type(error) is errors.NotAnApi, (name, error)
            text = str(error)
            assert text.startswith("This address does not look like an OpenAI-compatible API"), text
            assert f"http://127.0.0.1:{server.port}/" in text and f"answered with {seen}" in text, text
            assert f"try http://127.0.0.1:{server.port}/v1" in text
            assert "empty answer" not in text and "It works" not in text and "<" not in text
    finally:
        backend.close()


def test_openai_events_of_another_api_are_not_an_empty_answer(page_server):
    events = (b'event: message_start\ndata: {"type": "message_start", "message": {"id": "msg_1"}}\n\n'
              b'event: message_stop\ndata: {"type": "message_stop"}\n\n')  # fmt: skip
    server = page_server(200, events, "text/event-stream")
    backend = openai_at(f"http://127.0.0.1:{server.port}/v1")
    try:
        error = failure(lambda: list(backend.stream_chat(user())))
    finally:
        backend.close()
    assert type(error) is errors.NotAnApi and "JSON of another kind" in str(error)
    assert "try" not in str(error)  # the URL already ends in /v1: nothing to suggest


def test_an_empty_200_stream_is_still_an_empty_answer(page_server):
    """llama-cpp-python's quirk (an event stream with nothing in it) is not "not an API"."""
    server = page_server(200, b"", "text/event-stream")
    backend = openai_at(f"http://127.0.0.1:{server.port}/v1")
    try:
        assert type(failure(lambda: list(backend.stream_chat(user())))) is errors.EmptyAnswer
    finally:
        backend.close()


@pytest.mark.parametrize(
    "body, ctype, seen",
    [(PAGE, "text/html", "a web page"), (b'{"object": "list", "data": []}', "application/json", "JSON of another kind"),
     (b"ok", "text/plain", "text that is not JSON")],
    ids=["html", "openai-json", "text"],
)  # fmt: skip
def test_ollama_200_that_is_not_an_ollama_answer_says_so(page_server, body, ctype, seen):
    server = page_server(200, body, ctype)
    backend = OllamaBackend(f"http://127.0.0.1:{server.port}", "llama3.2", timeout_s=5)
    try:
        chat = (lambda: list(backend.stream_chat(user())), "/api/chat")
        for call, path in (chat, (backend.list_models, "/api/tags")):
            error = failure(call)
            assert type(error) is errors.NotAnApi, error
            assert str(error).startswith("This address does not look like an Ollama API"), str(error)
            assert f"http://127.0.0.1:{server.port}{path} answered with {seen}" in str(error)
            assert "Settings → Ollama" in str(error) and "--host" in error.for_terminal()
    finally:
        backend.close()


# ---- a server that trickles its headers ----------------------------------------------------------------------


@pytest.fixture
def trickle():
    server = TrickleServer()
    yield server
    server.close()


def finishes(call: Callable[[], Any], within_s: float = 60) -> BaseException | None:
    """``call()`` on a thread; the exception it raised (a guard against hanging the suite, not a timing test)."""
    box: dict[str, BaseException] = {}

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(within_s)
    assert not thread.is_alive(), "the request waited on a trickling server past every bound"
    return box.get("error")


@pytest.mark.parametrize("what", ["stream", "whole", "models"])
def test_openai_trickling_headers_are_cut_off_as_not_responding(trickle, what):
    backend = OpenAIBackend(f"http://127.0.0.1:{trickle.port}/v1", "m", [], needs_key=False, retries_per_key=0,
                            timeout_s=1)  # fmt: skip
    calls = {"stream": lambda: list(backend.stream_chat(user())),
             "whole": lambda: list(backend.stream_chat(user(), stream=False)), "models": backend.list_models}
    try:
        error = finishes(calls[what])
    finally:
        backend.close()
    assert isinstance(error, errors.ServerTimedOut), repr(error)
    assert f"http://127.0.0.1:{trickle.port}/v1 did not answer within 1 s" in str(error)
    assert "Can't reach" not in str(error)
    assert trickle.sent >= 3  # it was sending all along: each byte came well within the read timeout
    assert trickle.hung_up.wait(5)  # the connection was closed, not left trickling


def test_ollama_trickling_headers_are_cut_off_as_not_responding(trickle):
    backend = OllamaBackend(f"http://127.0.0.1:{trickle.port}", "llama3.2", timeout_s=1)
    try:
        error = finishes(lambda: list(backend.stream_chat(user())))
        listing = finishes(backend.list_models)
    finally:
        backend.close()
    for err in (error, listing):
        assert isinstance(err, errors.ServerTimedOut), repr(err)
        assert f"Ollama at http://127.0.0.1:{trickle.port} did not answer within 1 s" in str(err)
    assert trickle.sent >= 3 and trickle.hung_up.wait(5)


def test_a_stream_after_the_first_data_is_not_cut_at_the_first_data_deadline(openai_server):
    """The deadline is for the first data only: an answer that streams for longer than it still arrives."""
    from tests.servers.openai import chunk

    pieces = [chunk("c", "m", {"content": f"part {i} "}) for i in range(6)] + [chunk("c", "m", {}, "stop")]
    openai_server.chunk_delay_s = 0.3  # 2.1 s of streaming, past the 1 s wait for the first data
    backend = OpenAIBackend(openai_server.url, "m", [], needs_key=False, retries_per_key=0, timeout_s=1)
    openai_server.script(pieces)
    try:
        text = "".join(c.text for c in backend.stream_chat(user()))
    finally:
        backend.close()
    assert text == "".join(f"part {i} " for i in range(6))
    assert json.loads(json.dumps(openai_server.chat_requests[-1]))["stream"] is True
