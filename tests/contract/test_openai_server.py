"""The local Chat Completions server (tests/servers/openai.py) speaks the wire protocol the
official ``openai`` client expects: plain and streamed completions, tool-call deltas, models,
error shapes, bearer keys, and the standalone ``python -m tests.servers.openai``.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.servers.openai import HttpError, OpenAIServer

ROOT = Path(__file__).resolve().parents[2]
WEATHER = {"type": "function", "function": {"name": "get_current_weather", "parameters": {
    "type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}}}


@pytest.fixture
def client(openai_server):
    import openai

    c = openai.OpenAI(base_url=openai_server.url, api_key="sk-local", max_retries=0, timeout=5)
    yield c
    c.close()


def test_plain_completion_has_the_openai_shape(client, openai_server):
    r = client.chat.completions.create(model="local-model", messages=[{"role": "user", "content": "hi"}])
    assert r.object == "chat.completion" and r.choices[0].finish_reason == "stop"
    assert r.choices[0].message.role == "assistant" and r.choices[0].message.content == "You said: hi"
    assert r.usage.total_tokens > 0
    assert openai_server.requests[-1].headers["authorization"] == "Bearer sk-local"


def test_stream_of_chunks_ends_with_done(client, openai_server):
    stream = client.chat.completions.create(
        model="local-model", messages=[{"role": "user", "content": "one two three"}], stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "You said: one two three"
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens > 0
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"


def test_raw_wire_is_sse_with_done(openai_server):
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with httpx.stream("POST", openai_server.url + "/chat/completions", json=body) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        raw = r.read().decode()
    events = [e for e in raw.split("\n\n") if e]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]"
    assert json.loads(events[0][6:])["choices"][0]["delta"]["role"] == "assistant"


def test_streamed_tool_call_deltas_carry_index_id_and_split_arguments(client):
    stream = client.chat.completions.create(
        model="local-model", messages=[{"role": "user", "content": "weather in Paris?"}],
        tools=[WEATHER], tool_choice="auto", stream=True,
    )
    deltas = [tc for c in stream for tc in (c.choices[0].delta.tool_calls or [])]
    assert all(d.index == 0 for d in deltas)
    assert deltas[0].id.startswith("call_") and deltas[0].function.name == "get_current_weather"
    pieces = [d.function.arguments for d in deltas[1:]]
    assert len(pieces) > 1 and json.loads("".join(pieces)) == {"location": "Paris"}


def test_forced_tool_choice_is_honoured(client):
    r = client.chat.completions.create(
        model="local-model", messages=[{"role": "user", "content": "tell me a joke"}], tools=[WEATHER],
        tool_choice={"type": "function", "function": {"name": "get_current_weather"}},
    )
    call = r.choices[0].message.tool_calls[0]
    assert r.choices[0].finish_reason == "tool_calls" and call.function.name == "get_current_weather"
    assert isinstance(call.function.arguments, str)


def test_models_listing(client, openai_server):
    openai_server.models = ["a", "b"]
    assert [m.id for m in client.models.list()] == ["a", "b"]
    assert client.models.retrieve("a").id == "a"


def test_error_shapes_and_required_keys(client, openai_server):
    import openai

    openai_server.script(HttpError(500))
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    openai_server.required_keys = {"sk-other"}
    with pytest.raises(openai.AuthenticationError) as info:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert info.value.code == "invalid_api_key" and "sk-local" not in str(info.value)
    with pytest.raises(openai.AuthenticationError):
        client.models.list()


def test_strict_checks_refuse_what_real_servers_refuse(client):
    import openai

    def send(messages, **kw):
        return client.chat.completions.create(model="m", messages=messages, **kw)

    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    with pytest.raises(openai.BadRequestError):  # case 18 rule
        send([{"role": "user", "content": "x"}, {"role": "assistant", "content": None, "tool_calls": [call]},
              {"role": "tool", "tool_call_id": "call_1", "content": "r"}])
    with pytest.raises(openai.BadRequestError):  # case 17 rule
        send([{"role": "user", "content": "x"}, {"role": "assistant", "content": "", "tool_calls": [dict(call, id="")]},
              {"role": "tool", "tool_call_id": "", "content": "r"}])
    with pytest.raises(openai.BadRequestError):  # case 23 rule
        send([{"role": "user", "content": "x"}, {"role": "assistant", "content": "", "tool_calls": [call]},
              {"role": "user", "content": "y"}])
    with pytest.raises(openai.BadRequestError):
        send([{"role": "user", "content": "x"}], tool_choice="auto")
    ok = send([{"role": "user", "content": "x"}, {"role": "assistant", "content": "", "tool_calls": [call]},
               {"role": "tool", "tool_call_id": "call_1", "content": "r"}])
    assert ok.choices[0].message.content == "The tool said: r"


def test_scripted_replies_are_used_in_order_then_the_fake_model(client, openai_server):
    openai_server.script({"id": "x", "object": "chat.completion", "created": 1, "model": "m",
                          "choices": [{"index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant", "content": "scripted"}}]})
    assert openai_server.pending() == 1
    first = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "a"}])
    second = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "b"}])
    assert (first.choices[0].message.content, second.choices[0].message.content) == ("scripted", "You said: b")
    openai_server.script(lambda request: HttpError(418) if request["messages"][-1]["content"] == "tea" else None)
    import openai

    with pytest.raises(openai.APIStatusError) as info:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "tea"}])
    assert info.value.status_code == 418


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_standalone_server_runs_with_python_m():
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.servers.openai", "--port", str(port)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(url + "/models", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read().decode()
                assert time.monotonic() < deadline, "standalone server did not start"
                time.sleep(0.1)
        assert r.json()["data"][0]["id"] == "local-model"
        r = httpx.post(url + "/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        assert r.json()["choices"][0]["message"]["content"] == "You said: hi"
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def test_context_manager_starts_and_stops():
    with OpenAIServer() as server:
        url = server.url
        assert httpx.get(url + "/models").status_code == 200
    with pytest.raises(httpx.TransportError):
        httpx.get(url + "/models", timeout=1)
