"""The server's own reason reaches the user, whatever the shape of the failed answer — an HTTP error with
a JSON, plain-text or HTML body, an ``error`` object inside a 200 stream, an SSE ``error`` event,
llama.cpp's ``error:`` line before the end of the stream, an ``error`` in a non-streamed 200 — for
OpenAIBackend (official ``openai`` client) and OllamaBackend, against the local protocol servers.
Context-window reasons are ContextTooLong with the server's words; others BackendError with its text.
Also: the non-streamed chat call (``stream_chat(..., stream=False)``) gives the same chunks.
"""

from __future__ import annotations

import json

import pytest

from desktop_agent.core import errors
from desktop_agent.core.backends.ollama import OllamaBackend
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.messages import Message
from desktop_agent.core.settings import Settings
from tests.servers.ollama import HttpError as OllamaHttpError
from tests.servers.openai import HttpError, Json, Raw, chunk

LLAMA_CPP_CONTEXT = {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                     "type": "exceed_context_size_error"}  # fmt: skip
HTML_PAGE = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"
WEATHER = {"type": "function", "function": {"name": "get_current_weather", "description": "Weather.", "parameters": {
    "type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}}}  # fmt: skip


def user(text: str = "hi") -> list[Message]:
    return [Message(role="system", content="You are helpful."), Message(role="user", content=text)]


@pytest.fixture
def openai_backend(openai_server):
    backend = OpenAIBackend(openai_server.url, "local-model", [], needs_key=False, retries_per_key=0, timeout_s=5,
                            sleep=lambda s: None)  # fmt: skip
    yield backend
    backend.close()


def failure(backend, stream: bool = True) -> errors.AgentError:
    with pytest.raises(errors.AgentError) as info:
        list(backend.stream_chat(user(), stream=stream))
    return info.value


def sse_bytes(*lines: str) -> bytes:
    return "".join(lines).encode()


# ---- OpenAI-compatible: HTTP errors ----------------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "once"])
def test_http_400_json_context_reason_is_context_too_long_with_the_servers_words(openai_server, openai_backend,
                                                                                stream):  # fmt: skip
    openai_server.script(HttpError(400, {"error": LLAMA_CPP_CONTEXT}))
    error = failure(openai_backend, stream)
    assert isinstance(error, errors.ContextTooLong)
    assert error.detail == LLAMA_CPP_CONTEXT["message"]
    assert LLAMA_CPP_CONTEXT["message"] in str(error)


def test_http_500_json_reason_is_a_backend_error_with_the_servers_text(openai_server, openai_backend):
    openai_server.script(HttpError(500, {"error": {"message": "CUDA error: out of memory\n  at layer 12",
                                                   "type": "server_error"}}))  # fmt: skip
    error = failure(openai_backend)
    assert type(error) is errors.BackendError
    assert error.status == 500
    assert error.detail == "CUDA error: out of memory at layer 12"  # one line


@pytest.mark.parametrize(
    "text",
    ["Requested tokens (11398) exceed context window of 4096", "prompt is too long: 70000 tokens > 4096 maximum",
     "n_ctx (4096) is too small for this request"],
    ids=["llama-cpp-python", "too-long", "n_ctx"],
)  # fmt: skip
def test_plain_text_context_reasons_are_context_too_long(openai_server, openai_backend, text):
    openai_server.script(HttpError(400, text))
    error = failure(openai_backend)
    assert isinstance(error, errors.ContextTooLong)
    assert error.detail == text


def test_plain_text_reason_is_quoted_trimmed_on_one_line(openai_server, openai_backend):
    openai_server.script(HttpError(400, "  Model is still loading,\n  please wait.  " + "x" * 500))
    error = failure(openai_backend)
    assert type(error) is errors.BackendError
    assert error.detail.startswith("Model is still loading, please wait. xxx")
    assert "\n" not in str(error) and len(error.detail) <= 300


def test_an_html_error_page_is_named_not_pasted(openai_server, openai_backend):
    openai_server.script(Json(HTML_PAGE.encode(), status=502, headers={"Content-Type": "text/html"}),
                         Json(HTML_PAGE, status=400))  # fmt: skip
    error = failure(openai_backend)  # a web page is its own error (issue 13): status and URL, never the page
    assert type(error) is errors.WebPageAnswer and error.status == 502
    assert error.detail == "the server answered HTTP 502 with a web page"
    assert f"{openai_backend.base_url}/chat/completions answered HTTP 502 with a web page" in str(error)
    assert "<" not in str(error) and "Bad Gateway" not in str(error)
    error = failure(openai_backend)  # a page sent as text/plain
    assert type(error) is errors.WebPageAnswer
    assert error.detail == "the server answered HTTP 400 with a web page"


# ---- OpenAI-compatible: errors inside a 200 ----------------------------------------------------------------


def test_an_error_object_inside_a_200_stream(openai_server, openai_backend):
    openai_server.script(
        Raw(sse_bytes("data: " + json.dumps({"error": {"message": "context window exceeded: 9000 > 4096"}}) + "\n\n"),
            complete=True),
        Raw(sse_bytes("data: " + json.dumps({"error": "the model crashed"}) + "\n\n"), complete=True),
    )  # fmt: skip
    error = failure(openai_backend)
    assert isinstance(error, errors.ContextTooLong) and error.detail == "context window exceeded: 9000 > 4096"
    error = failure(openai_backend)
    assert type(error) is errors.BackendError and error.detail == "the model crashed"


def test_an_sse_error_event(openai_server, openai_backend):
    openai_server.script(
        Raw(sse_bytes("event: error\n", 'data: {"message": "model runner stopped unexpectedly"}\n\n'), complete=True),
        Raw(sse_bytes("event: error\n", "data: upstream went away\n\n"), complete=True),
    )  # fmt: skip
    error = failure(openai_backend)
    assert type(error) is errors.BackendError and error.detail == "model runner stopped unexpectedly"
    error = failure(openai_backend)
    assert type(error) is errors.BackendError and error.detail == "upstream went away"


def test_a_stream_that_ends_right_after_an_error_line(openai_server, openai_backend):
    """llama.cpp's server writes ``error: {...}`` (not a ``data:`` line) and then ``data: [DONE]``."""
    openai_server.script(
        Raw(sse_bytes("error: " + json.dumps(LLAMA_CPP_CONTEXT) + "\n\n", "data: [DONE]\n\n"), complete=True),
        Raw(sse_bytes("error: " + json.dumps({"code": 500, "message": "failed to decode the batch",
                                              "type": "server_error"}) + "\r\n\r\n"), complete=True),
    )  # fmt: skip
    error = failure(openai_backend)
    assert isinstance(error, errors.ContextTooLong) and error.detail == LLAMA_CPP_CONTEXT["message"]
    error = failure(openai_backend)
    assert type(error) is errors.BackendError and error.detail == "failed to decode the batch"


def test_an_error_line_after_some_text_ends_the_answer_with_the_reason(openai_server, openai_backend):
    head = "data: " + json.dumps(chunk("c1", "local-model", {"role": "assistant", "content": "Hel"})) + "\n\n"
    openai_server.script(Raw(sse_bytes(head, 'error: {"message": "slot was released"}\n\n'), complete=True))
    pieces = []
    with pytest.raises(errors.BackendError) as info:
        for c in openai_backend.stream_chat(user()):
            pieces.append(c.text)
    assert "".join(pieces) == "Hel"
    assert info.value.detail == "slot was released"


def test_an_error_object_in_a_non_streamed_200(openai_server, openai_backend):
    openai_server.script(Json({"error": {"message": "This model's maximum context length is 4096 tokens.",
                                         "code": "context_length_exceeded"}}))  # fmt: skip
    error = failure(openai_backend, stream=False)
    assert isinstance(error, errors.ContextTooLong)
    assert error.detail == "This model's maximum context length is 4096 tokens."


# ---- the non-streamed chat call ----------------------------------------------------------------------------


def test_a_non_streamed_answer_gives_the_same_chunks(openai_server, openai_backend):
    chunks = list(openai_backend.stream_chat(user("hello there"), stream=False))
    assert openai_server.requests[-1]["stream"] is False
    assert "".join(c.text for c in chunks) == "You said: hello there"
    assert chunks[-1].done and chunks[-1].finish_reason == "stop"


def test_a_non_streamed_tool_call_is_parsed(openai_server, openai_backend):
    chunks = list(openai_backend.stream_chat(user("weather in Paris?"), tools=[WEATHER], stream=False))
    calls = [tc for c in chunks for tc in c.tool_calls]
    assert [(c.name, c.arguments) for c in calls] == [("get_current_weather", {"location": "Paris"})]
    assert calls[0].id.startswith("call_")
    assert chunks[-1].finish_reason == "tool_calls"
    assert openai_server.requests[-1]["tool_choice"] == "auto"


def test_a_non_streamed_answer_with_several_calls_and_odd_ids(openai_server, openai_backend):
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "", "type": "function",
         "function": {"name": "get_current_weather", "arguments": '{"location": "Oslo"}'}},
        {"type": "function", "function": {"name": "get_current_weather", "arguments": {"location": "Rome"}}},
    ]}  # fmt: skip
    openai_server.script({"id": "c", "object": "chat.completion", "created": 1, "model": "local-model",
                          "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]})  # fmt: skip
    chunks = list(openai_backend.stream_chat(user(), tools=[WEATHER], stream=False))
    calls = [tc for c in chunks for tc in c.tool_calls]
    assert [c.arguments for c in calls] == [{"location": "Oslo"}, {"location": "Rome"}]
    assert len({c.id for c in calls}) == 2 and all(c.id for c in calls)


def test_an_empty_non_streamed_answer_is_an_empty_answer(openai_server, openai_backend):
    openai_server.script({"id": "c", "object": "chat.completion", "created": 1, "model": "local-model",
                          "choices": [{"index": 0, "message": {"role": "assistant", "content": ""},
                                       "finish_reason": "stop"}]})  # fmt: skip
    assert isinstance(failure(openai_backend, stream=False), errors.EmptyAnswer)


# ---- Ollama ------------------------------------------------------------------------------------------------


@pytest.fixture
def ollama_backend(ollama_server):
    backend = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=5)
    yield backend
    backend.close()


@pytest.mark.parametrize(
    "body",
    [{"error": "input length exceeds maximum context length"}, "prompt is too long for n_ctx=2048"],
    ids=["json", "text"],
)  # fmt: skip
def test_ollama_context_reasons_are_context_too_long(ollama_server, ollama_backend, body):
    ollama_server.script(OllamaHttpError(400, body))
    error = failure(ollama_backend)
    assert isinstance(error, errors.ContextTooLong)
    assert error.detail == (body["error"] if isinstance(body, dict) else body)


def test_ollama_html_page_is_named_not_pasted(ollama_server, ollama_backend):
    ollama_server.script(OllamaHttpError(502, HTML_PAGE))
    error = failure(ollama_backend)
    assert type(error) is errors.WebPageAnswer and error.status == 502  # its own error since issue 13
    assert f"{ollama_server.url}/api/chat answered HTTP 502" in str(error)
    assert "web page" in error.detail and "<" not in str(error)


def test_ollama_error_object_mid_stream_is_quoted_by_its_message(ollama_server, ollama_backend):
    ollama_server.script([{"error": {"message": "runner crashed", "code": 500}}])
    error = failure(ollama_backend)
    assert type(error) is errors.BackendError and error.detail == "runner crashed"


def test_ollama_non_streamed_answer_gives_the_same_chunks(ollama_server, ollama_backend):
    chunks = list(ollama_backend.stream_chat(user("hello there"), stream=False))
    assert ollama_server.requests[-1][1]["stream"] is False
    assert "".join(c.text for c in chunks) == "You said: hello there"
    assert chunks[-1].done and chunks[-1].finish_reason == "stop"
    chunks = list(ollama_backend.stream_chat(user("weather in Paris?"), tools=[WEATHER], stream=False))
    calls = [tc for c in chunks for tc in c.tool_calls]
    assert [(c.name, c.arguments) for c in calls] == [("get_current_weather", {"location": "Paris"})]
    assert chunks[-1].finish_reason == "tool_calls"


# ---- Ollama: a 200 that is not an answer ----------------------------------------------------------------------------


def _raw_server(body: bytes, ctype: str):
    import socket
    import threading

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)

    def serve():
        while True:
            try:
                c, _ = sock.accept()
            except OSError:
                return
            data = b""
            while b"\r\n\r\n" not in data:
                data += c.recv(65536)
            c.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
                      "Connection: close\r\n\r\n".encode() + body)
            c.close()

    threading.Thread(target=serve, daemon=True).start()
    return sock, f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_ollama_200_with_a_web_page_is_named_not_pasted():
    from desktop_agent.core.backends.ollama import OllamaBackend
    from desktop_agent.core.errors import AgentError, AnswerCutOff
    from desktop_agent.core.messages import Message

    sock, url = _raw_server(b"<html><body>Sign in to the Wi-Fi</body></html>", "text/html")
    backend = OllamaBackend(url, "m", timeout_s=5)
    try:
        with pytest.raises(AgentError) as info:
            list(backend.stream_chat([Message(role="user", content="hi")]))
    finally:
        backend.close()
        sock.close()
    assert not isinstance(info.value, AnswerCutOff), str(info.value)
    assert "<html" not in str(info.value) and "web page" in str(info.value)


def test_ollama_200_with_no_data_is_an_empty_answer_not_a_broken_connection():
    from desktop_agent.core.assembly import build_agent
    from desktop_agent.core.backends.ollama import OllamaBackend
    from desktop_agent.core.errors import EmptyAnswer
    from desktop_agent.core.events import TurnFailed
    from desktop_agent.core.messages import Conversation

    sock, url = _raw_server(b"", "application/x-ndjson")
    backend = OllamaBackend(url, "m", timeout_s=5)
    try:
        events = list(build_agent(Settings(), backend, None).run(Conversation(), "hi"))
    finally:
        backend.close()
        sock.close()
    assert isinstance(events[-1], TurnFailed) and isinstance(events[-1].error, EmptyAnswer), events[-1]
