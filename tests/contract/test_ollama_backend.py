"""Contract tests: OllamaBackend (the official ``ollama`` client's connection) against a real local
HTTP server speaking Ollama's ``/api/chat`` (tests/servers/ollama.py). Wire shapes: Ollama API doc."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from desktop_agent.core import errors
from desktop_agent.core.backends.base import Chunk
from desktop_agent.core.backends.ollama import OllamaBackend, to_wire_messages
from desktop_agent.core.messages import Message, ToolCall
from tests.servers.ollama import HttpError, model_entry

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name"}},
            "required": ["city"],
        },
    },
}
TODAY_TOOL = {
    "type": "function",
    "function": {"name": "today", "description": "Date and time.", "parameters": {"type": "object", "properties": {}}},
}


@pytest.fixture
def backend(ollama_server):
    b = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10)
    yield b
    b.close()


def user(text: str) -> list[Message]:
    return [Message(role="system", content="You are helpful."), Message(role="user", content=text)]


def collect(chunks) -> tuple[str, str, list[ToolCall], list[Chunk]]:
    chunks = list(chunks)
    text = "".join(c.text for c in chunks)
    thinking = "".join(c.thinking for c in chunks)
    calls = [tc for c in chunks for tc in c.tool_calls]
    return text, thinking, calls, chunks


def line(content: str = "", **message) -> dict:
    return {"message": {"role": "assistant", "content": content, **message}, "done": False}


def done(reason: str = "stop") -> dict:
    return {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": reason, "eval_count": 3}


# ---------------------------------------------------------------- plain streaming


def test_plain_streaming_text(backend, ollama_server):
    text, thinking, calls, chunks = collect(backend.stream_chat(user("hello there")))
    assert text == "You said: hello there"
    assert thinking == "" and calls == []
    assert len(chunks) > 2, "streamed in pieces, not one block"
    assert chunks[-1].done and chunks[-1].finish_reason == "stop"
    assert all(not c.done for c in chunks[:-1])
    body = ollama_server.chat_requests[-1]
    assert body["model"] == "llama3.2"
    assert body["stream"] is True
    assert body["messages"] == [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "hello there"},
    ]


def test_finished_streams_leave_the_connection_reusable(backend, ollama_server):
    """After the done line the body is read to its end, so the next request reuses the connection."""
    for text in ("one", "two", "three"):
        collect(backend.stream_chat(user(text)))
    list(backend.pull_model("tinyllama"))
    backend.list_models()
    # (the model's window is asked once, with /api/show, on a client of its own with a short timeout)
    peers = [peer for peer, (path, _) in zip(ollama_server.peers, ollama_server.requests, strict=True)
             if path != "/api/show"]
    assert len(peers) == 5
    assert len(set(peers)) == 1


def test_done_reason_length_is_passed_on(backend, ollama_server):
    ollama_server.script([line("Once upon"), done("length")])
    text, _, _, chunks = collect(backend.stream_chat(user("story")))
    assert text == "Once upon"
    assert chunks[-1].finish_reason == "length"


# ---------------------------------------------------------------- tool calls


def test_tool_calls_with_object_arguments_get_ids(backend, ollama_server):
    """Shared case 23-agent-parallel-tool-calls.json, Ollama variant response: two calls, object
    arguments, no ids → two ToolCalls with distinct ids, in order."""
    ollama_server.script(
        [
            {
                "message": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                        {"function": {"name": "get_weather", "arguments": {"city": "Rome"}}},
                    ],
                },
                "done": True,
            }
        ]
    )
    _, _, calls, chunks = collect(backend.stream_chat(user("weather?"), tools=[WEATHER_TOOL]))
    assert [(c.name, c.arguments) for c in calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Rome"}),
    ]
    assert all(c.id.startswith("call_") for c in calls)
    assert len({c.id for c in calls}) == 2
    assert all(c.arguments_error is None for c in calls)
    assert chunks[-1].done and chunks[-1].finish_reason == "tool_calls"


def test_default_fake_model_tool_call_streamed(backend, ollama_server):
    _, _, calls, chunks = collect(backend.stream_chat(user("what day is it?"), tools=[TODAY_TOOL, WEATHER_TOOL]))
    assert [c.name for c in calls] == ["today"]
    assert calls[0].arguments == {}
    assert chunks[-1].finish_reason == "tool_calls"
    assert [t["function"]["name"] for t in ollama_server.chat_requests[-1]["tools"]] == ["today", "get_weather"]


def test_server_supplied_tool_call_id_is_kept(backend, ollama_server):
    """Newer Ollama versions send an id with each call: keep it so results pair with it."""
    ollama_server.script(
        [line(tool_calls=[{"id": "call_abc", "function": {"index": 0, "name": "today", "arguments": {}}}]), done()]
    )
    _, _, calls, _ = collect(backend.stream_chat(user("date"), tools=[TODAY_TOOL]))
    assert [c.id for c in calls] == ["call_abc"]


CASE01_REPLY = {
    "model": "qwen2.5:7b",
    "created_at": "2025-01-01T00:00:00Z",
    "message": {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}],
    },
    "done": True,
    "done_reason": "stop",
}


def test_case01_string_arguments_are_decoded_and_the_turn_completes(ollama_server):
    """Shared case 01-ollama-args-json-string.json: ``function.arguments`` arrives as a JSON STRING
    (the official client's ChatResponse rejects it with pydantic ValidationError). The backend reads the
    stream itself: the tool gets {'city': 'Paris'}, runs once, its result goes back as role='tool' with
    tool_name, and the follow-up answer streams."""
    ollama_server.script(
        [CASE01_REPLY],
        [
            {
                "model": "qwen2.5:7b",
                "created_at": "2025-01-01T00:00:01Z",
                "message": {"role": "assistant", "content": "It is sunny in Paris."},
                "done": True,
                "done_reason": "stop",
            }
        ],
    )
    b = OllamaBackend(ollama_server.url, "qwen2.5:7b", timeout_s=10)
    runs: list[dict] = []

    def get_weather(city: str) -> str:
        runs.append({"city": city})
        return f"Sunny in {city}"

    history = user("What's the weather in Paris?")
    _, _, calls, _ = collect(b.stream_chat(history, tools=[WEATHER_TOOL]))
    assert len(calls) == 1 and calls[0].name == "get_weather"
    assert calls[0].arguments == {"city": "Paris"} and calls[0].arguments_error is None
    history.append(Message(role="assistant", content="", tool_calls=calls))
    for call in calls:
        result = get_weather(**call.arguments)
        history.append(Message(role="tool", content=result, tool_call_id=call.id, tool_name=call.name))
    text, _, calls2, _ = collect(b.stream_chat(history, tools=[WEATHER_TOOL]))
    b.close()

    assert runs == [{"city": "Paris"}]
    assert text == "It is sunny in Paris." and calls2 == []
    sent = ollama_server.chat_requests[-1]["messages"]
    assert sent[-2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
    }
    assert sent[-1] == {"role": "tool", "content": "Sunny in Paris", "tool_name": "get_weather"}


@pytest.mark.parametrize(
    "raw, expected",
    [
        ('{"city": "Paris"}', {"city": "Paris"}),
        ('  {"city": "Paris"}\n', {"city": "Paris"}),
        ('"{\\"city\\": \\"Paris\\"}"', {"city": "Paris"}),  # double-encoded
        ('{"city": "\\u5317\\u4eac"}', {"city": "北京"}),  # escaped non-ASCII
        ('{"city": "Paris"} trailing words', {"city": "Paris"}),
        ("", {}),
        (None, {}),
        ({"city": "Paris", "days": 2}, {"city": "Paris", "days": 2}),
    ],
)
def test_case01_kind_every_argument_encoding_is_decoded(backend, ollama_server, raw, expected):
    """Shared case 01-ollama-args-json-string.json, the whole kind: object, string, padded,
    double-encoded, escaped, trailing text, empty and null arguments."""
    ollama_server.script([line(tool_calls=[{"function": {"name": "get_weather", "arguments": raw}}]), done()])
    _, _, calls, _ = collect(backend.stream_chat(user("weather"), tools=[WEATHER_TOOL]))
    assert [(c.name, c.arguments, c.arguments_error) for c in calls] == [("get_weather", expected, None)]


@pytest.mark.parametrize("raw", ['{"city": Paris', "not json at all", "[1, 2]", "42"])
def test_case01_undecodable_arguments_never_reach_the_tool_as_text(backend, ollama_server, raw):
    """Shared case 01-ollama-args-json-string.json: arguments that are not a JSON object give a call
    with ``arguments == {}`` and ``arguments_error`` set (the loop answers it with an error), never a str."""
    ollama_server.script([line(tool_calls=[{"function": {"name": "get_weather", "arguments": raw}}]), done()])
    _, _, calls, _ = collect(backend.stream_chat(user("weather"), tools=[WEATHER_TOOL]))
    assert len(calls) == 1
    assert calls[0].arguments == {}
    assert calls[0].arguments_error
    assert calls[0].raw_arguments == raw


@pytest.mark.parametrize(
    "tool_calls",
    [
        [{"function": {"arguments": {"city": "Paris"}}}],  # no name
        [{"function": {"name": "", "arguments": {}}}],  # empty name
        [{"function": "get_weather"}],  # function is not an object
        [{"type": "function"}],  # no function at all
        "get_weather(city='Paris')",  # tool_calls is not a list
        [42],
    ],
)
def test_case01_unrecoverable_tool_call_is_a_clear_error_and_chat_stays_usable(backend, ollama_server, tool_calls):
    """Shared case 01-ollama-args-json-string.json: a call that cannot be recovered raises
    MalformedToolCall ("The backend returned a malformed tool call."), no raw exception; the next
    request works."""
    ollama_server.script([line("Let me check."), line(tool_calls=tool_calls), done()])
    with pytest.raises(errors.MalformedToolCall) as info:
        collect(backend.stream_chat(user("weather"), tools=[WEATHER_TOOL]))
    assert "malformed tool call" in str(info.value)
    assert isinstance(info.value, errors.AgentError)
    text, _, _, _ = collect(backend.stream_chat(user("hello again")))
    assert text == "You said: hello again"


# ---------------------------------------------------------------- thinking


def test_case05_separate_thinking_field_goes_to_chunk_thinking(backend, ollama_server):
    """Shared case 05-ollama-think-tags-in-content.json, variant C (``thinking`` as its own field),
    streamed: reasoning goes to Chunk.thinking, never into the text."""
    ollama_server.script(
        [
            line("", thinking="User greets"),
            line("", thinking=" me."),
            line("Hello! How can"),
            line(" I help?"),
            done(),
        ]
    )
    backend.think = True
    ollama_server.model_facts["llama3.2"] = (131072, ["completion", "tools", "thinking"])
    text, thinking, _, _ = collect(backend.stream_chat(user("hi")))
    assert thinking == "User greets me."
    assert text == "Hello! How can I help?"
    assert ollama_server.chat_requests[-1]["think"] is True


def test_case05_thinking_is_never_sent_back(backend, ollama_server):
    """Shared case 05-ollama-think-tags-in-content.json: the thinking text is not replayed as
    assistant content in later requests."""
    history = [
        *user("hi"),
        Message(role="assistant", content="Hello! How can I help?", thinking="User greets me."),
        Message(role="user", content="bye"),
    ]
    collect(backend.stream_chat(history))
    sent = ollama_server.chat_requests[-1]["messages"]
    assert sent[2] == {"role": "assistant", "content": "Hello! How can I help?"}
    assert "User greets me." not in json.dumps(sent)


def test_case05_tags_in_content_are_passed_through_for_the_agent(backend, ollama_server):
    """Shared case 05-ollama-think-tags-in-content.json, variant D: ``<think>`` tags split across
    chunks are left in Chunk.text unchanged (the agent loop splits them, for both backends)."""
    pieces = ["<thi", "nk>User greets", " me.</th", "ink>\n\nHello! How can I help?"]
    ollama_server.script([line(p) for p in pieces] + [done()])
    text, thinking, _, _ = collect(backend.stream_chat(user("hi")))
    assert text == "".join(pieces)
    assert thinking == ""


# ---------------------------------------------------------------- history (cases 23, 26)


def test_case23_history_with_two_tool_results_is_sent_in_order(backend, ollama_server):
    """Shared case 23-agent-parallel-tool-calls.json, Ollama variant: the assistant message carries
    both calls with OBJECT arguments, followed directly by two role='tool' messages in call order,
    each with tool_name='get_weather'; the failing call's error text is sent, not omitted."""
    c1 = ToolCall(id="call_p1", name="get_weather", arguments={"city": "Paris"})
    c2 = ToolCall(id="call_p2", name="get_weather", arguments={"city": "Rome"})
    history = [
        *user("Weather in Paris and Rome?"),
        Message(role="assistant", content="", thinking="two cities", tool_calls=[c1, c2]),
        Message(role="tool", content='"Sunny"', tool_call_id="call_p1", tool_name="get_weather"),
        # tool_name missing: looked up from the matching call id
        Message(role="tool", content="Error: RuntimeError: no data", tool_call_id="call_p2"),
    ]
    text, _, _, _ = collect(backend.stream_chat(history, tools=[WEATHER_TOOL]))
    assert text == "The tool said: Error: RuntimeError: no data"
    assert ollama_server.chat_requests[-1]["messages"][1:] == [
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                {"function": {"name": "get_weather", "arguments": {"city": "Rome"}}},
            ],
        },
        {"role": "tool", "content": '"Sunny"', "tool_name": "get_weather"},
        {"role": "tool", "content": "Error: RuntimeError: no data", "tool_name": "get_weather"},
    ]


def test_to_wire_messages_sends_unparseable_arguments_as_an_empty_object():
    """Ollama wants an object: a call whose arguments could not be decoded is sent with {}."""
    bad = ToolCall(name="get_weather", arguments={}, raw_arguments="{oops", arguments_error="not JSON")
    wire = to_wire_messages([Message(role="assistant", content="", tool_calls=[bad])])
    assert wire == [
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {}}}]}
    ]


@pytest.mark.parametrize("arguments", [{"city": "北京"}, '{"city": "北京"}', '{"city": "\\u5317\\u4eac"}'])
def test_case26_unicode_arguments_and_results_travel_literally(backend, ollama_server, arguments):
    """Shared case 26-agent-unicode-args-and-results.json (Ollama side): literal or escaped
    arguments decode to '北京'; the history sent back carries '北京' and '晴，气温 21°C' as literal UTF-8
    bytes, with no \\u escapes."""
    ollama_server.script(
        [line(tool_calls=[{"function": {"name": "get_weather", "arguments": arguments}}]), done()],
        [line("北京今天晴，气温 21°C。"), done()],
    )
    history = [Message(role="user", content="北京天气怎么样？")]
    _, _, calls, _ = collect(backend.stream_chat(history, tools=[WEATHER_TOOL]))
    assert calls[0].arguments == {"city": "北京"}
    result = json.dumps({"city": "北京", "desc": "晴，气温 21°C"}, ensure_ascii=False)
    history += [
        Message(role="assistant", content="", tool_calls=calls),
        Message(role="tool", content=result, tool_call_id=calls[0].id, tool_name="get_weather"),
    ]
    text, _, _, _ = collect(backend.stream_chat(history, tools=[WEATHER_TOOL]))
    assert text == "北京今天晴，气温 21°C。"
    method, path, raw = ollama_server.raw_requests[-1]
    assert (method, path) == ("POST", "/api/chat")
    assert "北京天气怎么样？".encode() in raw
    assert '"city":"北京"'.encode() in raw.replace(b": ", b":")
    assert "晴，气温 21°C".encode() in raw
    assert b"\\u" not in raw


# ---------------------------------------------------------------- options


def test_options_appear_in_the_request_body(ollama_server):
    nested = {
        "type": "function",
        "function": {
            "name": "book",
            "description": "Book a trip.",
            "parameters": {
                "type": "object",
                "properties": {
                    "trip": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}, "nights": {"type": "integer", "minimum": 1}},
                        "required": ["city"],
                    },
                    "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                },
                "required": ["trip"],
            },
        },
    }
    b = OllamaBackend(
        ollama_server.url, "qwen3:8b", temperature=0.3, keep_alive="5m", format="json", think=False, timeout_s=10
    )
    collect(b.stream_chat(user("hi"), tools=[WEATHER_TOOL, nested]))
    b.close()
    body = ollama_server.chat_requests[-1]
    assert body["model"] == "qwen3:8b"
    assert body["options"] == {"temperature": 0.3, "num_ctx": 8192}  # the model's 131072, capped
    assert body["keep_alive"] == "5m"
    assert body["format"] == "json"
    assert body["think"] is False
    assert body["stream"] is True
    # the schema is sent whole (ollama-python's Tool model would drop nested properties and anyOf)
    assert body["tools"] == [WEATHER_TOOL, nested]


def test_default_options(backend, ollama_server):
    """Defaults: temperature 0, the window (num_ctx, capped at 8192), keep_alive -1 (keep loaded), no format,
    no think, no tools key."""
    collect(backend.stream_chat(user("hi")))
    body = ollama_server.chat_requests[-1]
    assert body["options"] == {"temperature": 0.0, "num_ctx": 8192}
    assert body["keep_alive"] == -1
    assert "format" not in body and "think" not in body and "tools" not in body


@pytest.mark.parametrize(
    "choice, expected",
    [("auto", ["get_weather", "today"]), ("required", ["get_weather", "today"]), ("today", ["today"]), ("none", None)],
)
def test_tool_choice(backend, ollama_server, choice, expected):
    """Ollama has no tool_choice: none → no tools sent; a name → only that tool."""
    collect(backend.stream_chat(user("hi"), tools=[WEATHER_TOOL, TODAY_TOOL], tool_choice=choice))
    tools = ollama_server.chat_requests[-1].get("tools")
    assert (None if tools is None else [t["function"]["name"] for t in tools]) == expected


# ---------------------------------------------------------------- cancel


def test_cancel_mid_stream_stops_early(backend, ollama_server):
    ollama_server.chunk_delay_s = 0.02
    ollama_server.script([line(f"w{i} ") for i in range(300)] + [done()])
    cancel = threading.Event()
    got = []
    for chunk in backend.stream_chat(user("long"), cancel=cancel):
        got.append(chunk)
        if len(got) == 3:
            cancel.set()
    assert [c.text for c in got] == ["w0 ", "w1 ", "w2 "]
    assert not any(c.done for c in got)
    # the server notices the closed stream and keeps serving
    text, _, _, _ = collect(backend.stream_chat(user("still there?")))
    assert text == "You said: still there?"


def test_cancel_hands_over_the_lines_already_read_and_reads_no_more(backend, ollama_server):
    """Issue 23: lines that arrived in one read with the chunk being handled when cancel is set have
    reached the process (a quit saves them): they are yielded; nothing more is read."""
    ollama_server.chunk_delay_s = 0.05
    together = b"".join(json.dumps(line(t)).encode() + b"\n" for t in ("Hel", "lo", " there"))
    ollama_server.script([together, line(" never read"), done()])
    cancel = threading.Event()
    got = []
    for chunk in backend.stream_chat(user("hi"), cancel=cancel):
        got.append(chunk.text)
        cancel.set()
    assert got == ["Hel", "lo", " there"]


def test_cancel_while_the_server_is_silent(backend, ollama_server):
    """Stop works while Ollama is still loading the model (nothing sent yet): the stream is
    abandoned at once instead of after the first chunk."""
    ollama_server.first_chunk_delay_s = 60
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    started = time.monotonic()
    chunks = list(backend.stream_chat(user("hi"), cancel=cancel))
    assert chunks == []
    assert time.monotonic() - started < 30  # generous: the server would answer after 60 s


def test_cancel_set_before_the_request_sends_nothing(backend, ollama_server):
    cancel = threading.Event()
    cancel.set()
    assert list(backend.stream_chat(user("hi"), cancel=cancel)) == []
    assert ollama_server.chat_requests == []


def test_closing_the_generator_early_releases_the_stream(backend, ollama_server):
    ollama_server.chunk_delay_s = 0.02
    ollama_server.script([line(f"w{i} ") for i in range(300)] + [done()])
    gen = backend.stream_chat(user("long"))
    assert next(gen).text == "w0 "
    gen.close()
    text, _, _, _ = collect(backend.stream_chat(user("next")))
    assert text == "You said: next"


# ---------------------------------------------------------------- broken streams and errors


def test_stream_dropped_mid_line_is_answer_cut_off(backend, ollama_server):
    first = json.dumps({"model": "llama3.2", "message": {"role": "assistant", "content": "Hello"}, "done": False})
    ollama_server.script((first + '\n{"model": "llama3.2", "message": {"role": "assis').encode())
    got = []
    with pytest.raises(errors.AnswerCutOff) as info:
        for chunk in backend.stream_chat(user("hi")):
            got.append(chunk)
    assert [c.text for c in got] == ["Hello"]
    assert "cut off" in str(info.value)


def test_connection_dropped_after_complete_lines_is_answer_cut_off(backend, ollama_server):
    first = json.dumps({"model": "llama3.2", "message": {"role": "assistant", "content": "Hel"}, "done": False})
    ollama_server.script((first + "\n").encode())
    with pytest.raises(errors.AnswerCutOff):
        collect(backend.stream_chat(user("hi")))


def test_invalid_json_line_is_answer_cut_off(backend, ollama_server):
    ollama_server.script([line("Hello"), b"<html>proxy error</html>", done()])
    with pytest.raises(errors.AnswerCutOff) as info:
        collect(backend.stream_chat(user("hi")))
    assert "not JSON" in str(info.value)


def test_stream_ending_without_done_is_answer_cut_off(backend, ollama_server):
    ollama_server.script([line("Hello"), line(" wor")])
    with pytest.raises(errors.AnswerCutOff):
        collect(backend.stream_chat(user("hi")))


def test_error_line_mid_stream_is_backend_error(backend, ollama_server):
    ollama_server.script([line("Hel"), {"error": "llama runner process has terminated: signal: killed"}])
    with pytest.raises(errors.BackendError) as info:
        collect(backend.stream_chat(user("hi")))
    assert "llama runner process has terminated" in str(info.value)


@pytest.mark.parametrize(
    "message",
    ["model 'llama2' not found, try pulling it first", 'model "llama2" not found, try pulling it first'],
)
def test_case06_model_not_found(ollama_server, message):
    """Shared case 06-ollama-model-not-found-404.json: 404 → ModelNotFound naming the fix
    (`ollama pull llama2`) and the installed models from /api/tags (both wordings Ollama used)."""
    ollama_server.models[:] = [model_entry("qwen3:8b"), model_entry("llama3.2:3b")]
    ollama_server.script(HttpError(404, {"error": message}))
    b = OllamaBackend(ollama_server.url, "llama2", timeout_s=10)
    with pytest.raises(errors.ModelNotFound) as info:
        collect(b.stream_chat(user("hello")))
    b.close()
    err = info.value
    assert err.model == "llama2"
    assert err.available == ["qwen3:8b", "llama3.2:3b"]
    assert "`ollama pull llama2`" in str(err)
    assert "qwen3:8b" in str(err) and "llama3.2:3b" in str(err)


def test_case06_model_not_found_unscripted_strict_server(ollama_server):
    """Shared case 06-ollama-model-not-found-404.json, with the server deciding from its model list."""
    ollama_server.strict_models = True
    b = OllamaBackend(ollama_server.url, "llama2", timeout_s=10)
    with pytest.raises(errors.ModelNotFound) as info:
        collect(b.stream_chat(user("hello")))
    assert info.value.available == ["llama3.2:latest", "qwen3:8b"]
    # "llama3.2" means "llama3.2:latest"
    b.model = "llama3.2"
    text, _, _, _ = collect(b.stream_chat(user("hello")))
    b.close()
    assert text == "You said: hello"


def test_404_without_ollama_wording_is_not_model_not_found(backend, ollama_server):
    """A 404 page from something that is not Ollama (wrong port, a proxy) is not 'model missing'."""
    ollama_server.script(HttpError(404, "404 page not found"))
    with pytest.raises(errors.BackendError) as info:
        collect(backend.stream_chat(user("hi")))
    assert not isinstance(info.value, errors.ModelNotFound)
    assert info.value.status == 404


def test_tools_not_supported(backend, ollama_server):
    ollama_server.script(HttpError(400, {"error": "registry.ollama.ai/library/gemma:2b does not support tools"}))
    with pytest.raises(errors.ToolsNotSupported) as info:
        collect(backend.stream_chat(user("hi"), tools=[WEATHER_TOOL]))
    assert "llama3.2" in str(info.value)


@pytest.mark.parametrize(
    "message",
    [
        "input length exceeds the context length",
        "the input length exceeds the context length",
        "prompt is too long: exceeds maximum context length of 4096",
    ],
)
def test_context_too_long(backend, ollama_server, message):
    ollama_server.script(HttpError(400, {"error": message}))
    with pytest.raises(errors.ContextTooLong):
        collect(backend.stream_chat(user("hi")))


def test_other_http_error_is_backend_error_with_status(backend, ollama_server):
    ollama_server.script(HttpError(500, {"error": "unexpected server status: llm server loading model"}))
    with pytest.raises(errors.BackendError) as info:
        collect(backend.stream_chat(user("hi")))
    assert info.value.status == 500
    assert "llm server loading model" in str(info.value)


def test_read_timeout_before_any_answer(ollama_server):
    ollama_server.first_chunk_delay_s = 30
    b = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=0.3)
    with pytest.raises(errors.BackendError) as info:
        collect(b.stream_chat(user("hi")))
    b.close()
    assert "did not answer within 0.3 s" in str(info.value)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_case07_connection_refused_is_backend_unreachable():
    """Shared case 07-ollama-connection-refused.json: nothing listens → BackendUnreachable naming the
    host, within a few seconds. The chat stream path meets httpx.ConnectError; delete goes through
    ollama.Client.delete, which raises the builtin ConnectionError — both map to the same error."""
    port = free_port()  # bound then closed: nothing listens there now
    host = f"http://127.0.0.1:{port}"
    b = OllamaBackend(host, "llama3.2")
    started = time.monotonic()
    with pytest.raises(errors.BackendUnreachable) as info:
        collect(b.stream_chat(user("hello")))
    assert time.monotonic() - started < 10
    assert str(info.value).startswith(f"Can't reach Ollama at {host} — is it running?")
    assert "ollama serve" in str(info.value)
    for call in (b.list_models, b.server_version, lambda: list(b.pull_model("x")), lambda: b.delete_model("x")):
        with pytest.raises(errors.BackendUnreachable) as info:
            call()
        assert info.value.host == host
    b.close()


def test_case07_unknown_host_is_backend_unreachable():
    """Shared case 07-ollama-connection-refused.json, DNS variant (.invalid never resolves)."""
    b = OllamaBackend("http://ollama-host.invalid:11434", "llama3.2")
    with pytest.raises(errors.BackendUnreachable) as info:
        b.list_models()
    b.close()
    assert "ollama-host.invalid" in str(info.value)


def test_describe_and_close(ollama_server):
    b = OllamaBackend(ollama_server.url, "llama3.2")
    assert b.describe() == f"ollama · llama3.2 @ {ollama_server.url}"
    assert OllamaBackend("http://localhost:11434/", "llama3.2").describe() == "ollama · llama3.2 @ http://localhost:11434"
    b.close()
    b.close()  # twice is fine
