"""OpenAIBackend through the official ``openai`` client against a real local HTTP server speaking
Chat Completions (tests/servers/openai.py): streaming, tool-call assembly, history replay, thinking,
tool_choice, cancellation and stream failures. Each shared case is named in its test's docstring;
the case inputs are inlined (the cases folder is not part of the repository).

Key pool, retries and HTTP errors: test_openai_keys.py. The server itself: test_openai_server.py.
"""

from __future__ import annotations

import copy
import json
import re
import threading
import time
from dataclasses import dataclass, field

import pytest

from desktop_agent.core.backends.base import Chunk
from desktop_agent.core.backends.openai import (
    OpenAIBackend,
    ToolCallAssembler,
    to_wire_messages,
)
from desktop_agent.core.errors import (
    AnswerCutOff,
    BackendError,
    ContextTooLong,
    EmptyAnswer,
    OutputLimitReached,
    SettingsError,
)
from desktop_agent.core.messages import Message, ToolCall
from tests.servers.openai import Disconnect, HttpError, Json, Raw

KEY = "sk-test-contract-key-0001xyz"
CREATED = 1735689600


def tool(name: str, **props: str) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"the {name} tool",
            "parameters": {
                "type": "object",
                "properties": {p: {"type": t} for p, t in props.items()},
                "required": list(props),
            },
        },
    }


WEATHER = tool("get_weather", city="string")
TODAY = tool("today")


class Sleeps(list):
    """An injected ``sleep`` that records the waits instead of sleeping."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


_HTTP: list = []


@pytest.fixture(scope="module", autouse=True)
def _shared_http_client():
    """One client of ``backends/http.py`` for the module's backends (an SSL context costs ~60 ms per client);
    tests passing ``http_client=None`` exercise the one each backend builds itself."""
    from desktop_agent.core.backends import http

    _HTTP.append(http.client())
    yield
    _HTTP.pop().close()


def make_backend(server, keys=(KEY,), **kw) -> OpenAIBackend:
    """A backend on ``server`` with small timeouts and a recording ``sleep`` (``backend.pool._sleep``)."""
    kw.setdefault("timeout_s", 5.0)
    if "http_client" not in kw and _HTTP:
        kw["http_client"] = _HTTP[-1]
    kw.setdefault("retry_interval_s", 0.5)
    kw.setdefault("sleep", Sleeps())
    return OpenAIBackend(server.url, kw.pop("model", "local-model"), list(keys), **kw)


@dataclass
class Result:
    chunks: list[Chunk] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.chunks)

    @property
    def thinking(self) -> str:
        return "".join(c.thinking for c in self.chunks)

    @property
    def calls(self) -> list[ToolCall]:
        return [tc for c in self.chunks for tc in c.tool_calls]

    @property
    def notices(self) -> list[str]:
        return [c.notice for c in self.chunks if c.notice]

    @property
    def last(self) -> Chunk:
        return self.chunks[-1]


def collect(stream) -> Result:
    return Result(list(stream))


def user(text: str) -> list[Message]:
    return [Message(role="system", content="You are helpful."), Message(role="user", content=text)]


def completion(message: dict, finish_reason: str) -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": CREATED,
        "model": "local-model",
        "choices": [{"index": 0, "finish_reason": finish_reason, "message": message}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
    }


def answer(text: str) -> dict:
    return completion({"role": "assistant", "content": text}, "stop")


def tool_calls_completion(*calls: dict) -> dict:
    return completion({"role": "assistant", "content": None, "tool_calls": list(calls)}, "tool_calls")


def sse(delta: dict, finish_reason=None) -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": "local-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def replay(history: list[Message], result: Result, results: dict[str, str]) -> list[Message]:
    """History + the assistant message of ``result`` + one tool result per call (in call order)."""
    msgs = list(history)
    msgs.append(Message(role="assistant", content=result.text, thinking=result.thinking, tool_calls=result.calls))
    for call in result.calls:
        msgs.append(Message(role="tool", tool_call_id=call.id, tool_name=call.name, content=results[call.name]))
    return msgs


# ------------------------------------------------------------------------------ plain streaming
def test_plain_answer_streams_word_by_word(openai_server):
    backend = make_backend(openai_server, temperature=0.3, http_client=None)  # openai's own HTTP client
    result = collect(backend.stream_chat(user("hello there")))
    assert result.text == "You said: hello there"
    assert len([c for c in result.chunks if c.text]) > 1  # really streamed
    assert result.last.done and result.last.finish_reason == "stop" and result.calls == []
    body = openai_server.requests[-1]
    assert body["stream"] is True and body["model"] == "local-model" and body["temperature"] == 0.3
    assert "tools" not in body and "tool_choice" not in body
    assert body["messages"] == [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "hello there"},
    ]
    assert body.headers["authorization"] == f"Bearer {KEY}"


def test_default_model_tool_call_is_assembled_from_split_deltas(openai_server):
    backend = make_backend(openai_server)
    tools = [tool("get_current_weather", location="string"), TODAY]
    result = collect(backend.stream_chat(user("what is the weather in Paris?"), tools=tools))
    assert [(c.name, c.arguments) for c in result.calls] == [("get_current_weather", {"location": "Paris"})]
    assert result.calls[0].id.startswith("call_") and result.calls[0].arguments_error is None
    assert result.last.finish_reason == "tool_calls"


# ------------------------------------------------------------------------------ case 12
CASE12_CALL = {"id": "call_a1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}


def test_case12_official_client_gets_a_dict_for_arguments(openai_server):
    """shared case 12-openai-args-object-not-string.json: what the SDK hands over (non-streamed)."""
    import openai

    openai_server.script(tool_calls_completion(CASE12_CALL))
    client = openai.OpenAI(base_url=openai_server.url, api_key=KEY, max_retries=0)
    msg = client.chat.completions.create(
        model="local-model", messages=[{"role": "user", "content": "weather in Paris?"}], tools=[WEATHER]
    ).choices[0].message
    assert msg.tool_calls[0].function.arguments == {"city": "Paris"}  # json.loads() would raise here
    client.close()


@pytest.mark.parametrize("as_json", [False, True], ids=["streamed", "server-ignores-stream"])
def test_case12_object_arguments_are_accepted_and_replayed_as_a_string(openai_server, as_json):
    """shared case 12-openai-args-object-not-string.json: arguments arrive as a JSON object (streamed
    whole, or in a plain JSON chat.completion from a server that ignores ``stream``); the call gets
    {'city': 'Paris'} and, replayed, its arguments are a JSON string the strict server accepts."""
    body = tool_calls_completion(CASE12_CALL)
    openai_server.script(Json(body) if as_json else body, answer("It is sunny in Paris."))
    backend = make_backend(openai_server)
    history = user("What's the weather in Paris?")
    first = collect(backend.stream_chat(history, tools=[WEATHER]))
    assert [(c.id, c.name, c.arguments) for c in first.calls] == [("call_a1", "get_weather", {"city": "Paris"})]

    second = collect(backend.stream_chat(replay(history, first, {"get_weather": "sunny"}), tools=[WEATHER]))
    assert second.text == "It is sunny in Paris."
    sent = openai_server.requests[-1]["messages"][2]
    assert sent["tool_calls"][0]["function"]["arguments"] == '{"city": "Paris"}'


# ------------------------------------------------------------------------------ case 13
CASE13_BAD = '{"path": "notes/a.txt", "text": "He said "hi" then left"}'


def test_case13_malformed_arguments_are_kept_aside_and_replayed_as_valid_json(openai_server):
    """shared case 13-openai-malformed-args-json.json: invalid JSON arguments are not guessed: the
    call carries arguments_error and the raw text; replayed, its arguments are "{}" so the server
    (which refuses histories with invalid JSON arguments) accepts the next request."""
    call = {"id": "call_m1", "type": "function", "function": {"name": "write_note", "arguments": CASE13_BAD}}
    openai_server.script(tool_calls_completion(call), answer("Sorry, let me try again."))
    backend = make_backend(openai_server)
    history = user("Write a note")
    tools = [tool("write_note", path="string", text="string"), WEATHER]
    first = collect(backend.stream_chat(history, tools=tools))
    (tc,) = first.calls
    assert tc.id == "call_m1" and tc.name == "write_note"
    assert tc.arguments == {} and tc.raw_arguments == CASE13_BAD and "not valid JSON" in tc.arguments_error

    msgs = replay(history, first, {"write_note": "Error: arguments were not valid JSON"})
    second = collect(backend.stream_chat(msgs, tools=tools))
    assert second.text == "Sorry, let me try again."
    assert openai_server.requests[-1]["messages"][2]["tool_calls"][0]["function"]["arguments"] == "{}"


def test_case13_server_rule_refuses_invalid_arguments_in_history(openai_server):
    """shared case 13-openai-malformed-args-json.json: the local server enforces the vLLM rule (this
    is what our replay avoids): the official client gets HTTP 400 for such a history."""
    import openai

    client = openai.OpenAI(base_url=openai_server.url, api_key=KEY, max_retries=0)
    messages = [
        {"role": "user", "content": "note"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_m1", "type": "function", "function": {"name": "write_note", "arguments": CASE13_BAD}}]},
        {"role": "tool", "tool_call_id": "call_m1", "content": "x"},
    ]
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="local-model", messages=messages)
    assert "delimiter" in str(info.value)
    client.close()


def test_case13_trailing_text_after_the_json_object_is_recovered(openai_server):
    """shared case 13-openai-malformed-args-json.json, trailing_text_variant_args."""
    call = {"id": "call_t1", "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"} </tool_call>'}}
    openai_server.script(tool_calls_completion(call))
    (tc,) = collect(make_backend(openai_server).stream_chat(user("weather?"), tools=[WEATHER])).calls
    assert tc.arguments == {"city": "Paris"} and tc.arguments_error is None


# ------------------------------------------------------------------------------ case 15
CASE15_EVENTS = [
    sse({"role": "assistant", "tool_calls": [
        {"id": "call_g1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
    sse({"tool_calls": [{"id": "", "function": {"name": "", "arguments": '{"city": '}}]}),
    sse({"tool_calls": [{"function": {"arguments": '"Lima"}'}}]}),
    sse({}, "tool_calls"),
    "[DONE]",
]


def test_case15_official_stream_yields_index_less_deltas(openai_server):
    """shared case 15-openai-stream-missing-index.json: plain ``create(stream=True)`` iteration
    hands over deltas with ``index=None`` — which is why the backend assembles them itself."""
    import openai

    openai_server.script(copy.deepcopy(CASE15_EVENTS))
    client = openai.OpenAI(base_url=openai_server.url, api_key=KEY, max_retries=0)
    stream = client.chat.completions.create(
        model="local-model", messages=[{"role": "user", "content": "Lima?"}], tools=[WEATHER], stream=True
    )
    indexes = [tc.index for ch in stream for tc in (ch.choices[0].delta.tool_calls or [])]
    assert indexes == [None, None, None]
    client.close()


def test_case15_index_less_deltas_make_exactly_one_call(openai_server):
    """shared case 15-openai-stream-missing-index.json: no TypeError, no bogus extra calls: one call
    get_weather {"city": "Lima"} with id call_g1; its replay is accepted and the answer is shown."""
    openai_server.script(
        copy.deepcopy(CASE15_EVENTS),
        completion({"role": "assistant", "content": "Lima: 19 C, overcast."}, "stop"),
    )
    backend = make_backend(openai_server)
    history = user("Weather in Lima?")
    first = collect(backend.stream_chat(history, tools=[WEATHER]))
    assert [(c.id, c.name, c.arguments) for c in first.calls] == [("call_g1", "get_weather", {"city": "Lima"})]
    second = collect(backend.stream_chat(replay(history, first, {"get_weather": "19 C"}), tools=[WEATHER]))
    assert second.text == "Lima: 19 C, overcast."


@pytest.mark.parametrize(
    "deltas, expected",
    [
        pytest.param(  # index-less parallel calls, each starting with its own id
            [
                {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}},
                {"function": {"arguments": '{"city": "Rome"}'}},
                {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": ""}},
                {"id": "", "function": {"name": "", "arguments": '{"city": "Oslo"}'}},
            ],
            [("call_1", {"city": "Rome"}), ("call_2", {"city": "Oslo"})],
            id="no-index-new-ids",
        ),
        pytest.param(  # a server that numbers every call 0
            [
                {"index": 0, "id": "call_1", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}},
                {"index": 0, "id": "call_2", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}},
            ],
            [("call_1", {"city": "Rome"}), ("call_2", {"city": "Oslo"})],
            id="all-index-0",
        ),
        pytest.param(  # no index and no ids: whole calls one after the other
            [
                {"function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}},
                {"function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}},
            ],
            [(None, {"city": "Rome"}), (None, {"city": "Oslo"})],
            id="no-index-no-ids",
        ),
        pytest.param(  # first delta without index, continuations with index 0
            [
                {"id": "call_1", "function": {"name": "get_weather", "arguments": '{"ci'}},
                {"index": 0, "function": {"arguments": 'ty": "Rome"}'}},
            ],
            [("call_1", {"city": "Rome"})],
            id="index-appears-later",
        ),
        pytest.param(  # standard OpenAI interleaving of two indexed calls
            [
                {"index": 0, "id": "call_1", "function": {"name": "get_weather", "arguments": ""}},
                {"index": 1, "id": "call_2", "function": {"name": "get_weather", "arguments": ""}},
                {"index": 0, "function": {"arguments": '{"city": "Rome"}'}},
                {"index": 1, "function": {"arguments": '{"city": "Oslo"}'}},
            ],
            [("call_1", {"city": "Rome"}), ("call_2", {"city": "Oslo"})],
            id="indexed-interleaved",
        ),
    ],
)
def test_case15_kind_tool_call_delta_layouts(openai_server, deltas, expected):
    """shared case 15-openai-stream-missing-index.json, the whole kind: deltas with or without
    index, with empty or missing ids, from one or several calls."""
    events = [sse({"role": "assistant", "content": None})]
    events += [sse({"tool_calls": [d]}) for d in deltas]
    events += [sse({}, "tool_calls"), "[DONE]"]
    openai_server.script(events)
    calls = collect(make_backend(openai_server).stream_chat(user("weather"), tools=[WEATHER])).calls
    assert [c.arguments for c in calls] == [args for _, args in expected]
    for call, (call_id, _) in zip(calls, expected, strict=True):
        assert call.name == "get_weather"
        assert call.id == call_id if call_id else re.fullmatch(r"call_[0-9a-f]{24}", call.id)
    assert len({c.id for c in calls}) == len(calls)


def test_assembler_drops_empty_calls_and_merges_object_pieces():
    asm = ToolCallAssembler()
    asm.add(0, "call_x", "f", {"a": 1})
    asm.add(0, "", "", {"b": 2})
    asm.add(5, "", "", None)  # an empty call: dropped
    assert [(c.id, c.arguments) for c in asm.finish()] == [("call_x", {"a": 1, "b": 2})]


# ------------------------------------------------------------------------------ case 17
@pytest.mark.parametrize("variant", ["A-empty-id", "B-missing-id"])
def test_case17_empty_or_missing_id_gets_one_synthetic_id_used_in_the_reply(openai_server, variant):
    """shared case 17-openai-empty-tool-call-id.json: one synthetic ``call_<hex>`` id is assigned and
    stored on the call; the tool result sent next carries the identical id, so the server (which
    refuses empty or unmatched ids) accepts it."""
    call = {"type": "function", "function": {"name": "get_current_time", "arguments": "{}"}}
    if variant == "A-empty-id":
        call["id"] = ""
    openai_server.script(tool_calls_completion(call), answer("It is 14:05."))
    backend = make_backend(openai_server)
    history = user("What time is it?")
    first = collect(backend.stream_chat(history, tools=[tool("get_current_time")]))
    (tc,) = first.calls
    assert re.fullmatch(r"call_[0-9a-f]{24}", tc.id)
    msgs = replay(history, first, {"get_current_time": "14:05"})
    second = collect(backend.stream_chat(msgs, tools=[tool("get_current_time")]))
    assert second.text == "It is 14:05."
    sent = openai_server.requests[-1]["messages"]
    assert sent[2]["tool_calls"][0]["id"] == tc.id == sent[3]["tool_call_id"]
    # the id is part of the saved message: a reloaded chat replays the same id
    reloaded = [Message.model_validate_json(m.model_dump_json()) for m in msgs]
    assert to_wire_messages(reloaded)[2]["tool_calls"][0]["id"] == tc.id


# ------------------------------------------------------------------------------ case 18
CASE18_CALL = {"id": "call_s1", "type": "function", "function": {"name": "get_secret_number", "arguments": "{}"}}


@pytest.mark.parametrize("variant", ["stream_variant_first_chunk", "response_1"])
def test_case18_content_null_is_read_as_empty_and_replayed_as_empty_string(openai_server, variant):
    """shared case 18-openai-content-null-with-tool-calls.json: ``content: null`` is read as "" (no
    'None', no TypeError), the call runs; the assistant tool-call message goes back with content ""
    and the server that refuses null accepts it."""
    if variant == "stream_variant_first_chunk":
        first_reply = [
            sse({"role": "assistant", "content": None, "tool_calls": [dict(CASE18_CALL, index=0)]}),
            sse({}, "tool_calls"),
            "[DONE]",
        ]
    else:
        first_reply = tool_calls_completion(CASE18_CALL)
    openai_server.script(first_reply, answer("The secret number is 42."))
    backend = make_backend(openai_server)
    history = user("What is the secret number?")
    tools = [tool("get_secret_number")]
    first = collect(backend.stream_chat(history, tools=tools))
    assert first.text == "" and "None" not in first.text
    assert [(c.id, c.arguments) for c in first.calls] == [("call_s1", {})]
    second = collect(backend.stream_chat(replay(history, first, {"get_secret_number": "42"}), tools=tools))
    assert second.text == "The secret number is 42."
    assistant = openai_server.requests[-1]["messages"][2]
    assert assistant["content"] == "" and assistant["content"] is not None


def test_case18_null_content_is_a_per_backend_setting(openai_server):
    """shared case 18-openai-content-null-with-tool-calls.json: some gateways want null instead of
    "": ``null_tool_content=True`` sends null (here to a server that accepts it)."""
    openai_server.null_content_ok = True
    backend = make_backend(openai_server, null_tool_content=True)
    call = ToolCall(id="call_s1", name="get_secret_number")
    msgs = [
        *user("secret?"),
        Message(role="assistant", content="", tool_calls=[call]),
        Message(role="tool", tool_call_id="call_s1", tool_name="get_secret_number", content="42"),
    ]
    assert collect(backend.stream_chat(msgs, tools=[tool("get_secret_number")])).text == "The tool said: 42"
    assert openai_server.requests[-1]["messages"][2]["content"] is None


# ------------------------------------------------------------------------------ case 19
def _case19_stream(field_name: str, empty) -> list:
    return [
        sse({"role": "assistant", "content": empty, field_name: "The user wants 2+2. "}),
        sse({"content": empty, field_name: "That is 4."}),
        sse({"content": "4"}),
        sse({}, "stop"),
        "[DONE]",
    ]


@pytest.mark.parametrize(
    "field_name, empty", [("reasoning", ""), ("reasoning_content", None)], ids=["stream_A", "stream_B"]
)
def test_case19_reasoning_fields_become_thinking_and_are_never_sent_back(openai_server, field_name, empty):
    """shared case 19-openai-reasoning-field-variants.json: ``reasoning`` (Ollama /v1) and
    ``reasoning_content`` (vLLM, llama.cpp, DeepSeek) become Chunk.thinking; the answer is "4"; the
    next request carries the answer only, no reasoning."""
    openai_server.script(_case19_stream(field_name, empty))
    backend = make_backend(openai_server)
    history = user("What is 2+2?")
    result = collect(backend.stream_chat(history))
    assert result.thinking == "The user wants 2+2. That is 4."
    assert result.text == "4"
    collect(backend.stream_chat([
        *history,
        Message(role="assistant", content=result.text, thinking=result.thinking),
        Message(role="user", content="thanks"),
    ]))
    sent = openai_server.requests[-1]["messages"][2]
    assert sent == {"role": "assistant", "content": "4"}
    assert "2+2. That" not in openai_server.requests[-1].raw.decode()


# ------------------------------------------------------------------------------ case 23
def test_case23_parallel_calls_come_in_order_and_all_results_are_accepted(openai_server):
    """shared case 23-agent-parallel-tool-calls.json (backend side): three calls in one message, in
    order; the reply with exactly three tool results right after the assistant message is accepted
    (the server refuses a history where one is missing)."""
    calls = [
        {"id": f"call_p{i}", "type": "function",
         "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}
        for i, city in ((1, "Paris"), (2, "Rome"), (3, "Atlantis"))
    ]
    openai_server.script(
        tool_calls_completion(*calls),
        answer("Paris is sunny, Rome is warm; Atlantis could not be looked up."),
    )
    backend = make_backend(openai_server)
    history = user("Weather in Paris, Rome and Atlantis?")
    first = collect(backend.stream_chat(history, tools=[WEATHER]))
    assert [(c.id, c.arguments["city"]) for c in first.calls] == [
        ("call_p1", "Paris"), ("call_p2", "Rome"), ("call_p3", "Atlantis")]

    incomplete = replay(history, first, {"get_weather": "sunny"})[:-1]
    with pytest.raises(BackendError) as info:
        collect(backend.stream_chat(incomplete, tools=[WEATHER]))
    assert info.value.status == 400 and "call_p3" in str(info.value)

    msgs = replay(history, first, {"get_weather": "sunny"})
    msgs[-1].content = "Error: RuntimeError: unknown city Atlantis"
    second = collect(backend.stream_chat(msgs, tools=[WEATHER]))
    assert second.text.startswith("Paris is sunny")
    sent = openai_server.requests[-1]["messages"]
    assert [m.get("tool_call_id") for m in sent[3:]] == ["call_p1", "call_p2", "call_p3"]
    assert "Atlantis" in sent[5]["content"]


# ------------------------------------------------------------------------------ case 25
CASE25_SHAPES = {
    "openai": {"error": {
        "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in "
                   "500123 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}},
    "llama.cpp": {"error": {
        "code": 400,
        "message": "request (500123 tokens) exceeds the available context size (8192 tokens), try increasing it",
        "type": "exceed_context_size_error", "n_prompt_tokens": 500123, "n_ctx": 8192}},
}


@pytest.mark.parametrize("shape", list(CASE25_SHAPES))
def test_case25_context_length_errors_become_context_too_long(openai_server, shape):
    """shared case 25-agent-huge-tool-output.json, context_error_shapes: both shapes give
    ContextTooLong ("too long for the model"), at once (no retry), and the history is untouched."""
    openai_server.script(HttpError(400, CASE25_SHAPES[shape]))
    backend = make_backend(openai_server)
    history = user("x" * 1000)
    before = [m.model_dump() for m in history]
    with pytest.raises(ContextTooLong) as info:
        collect(backend.stream_chat(history))
    assert "too long for the model" in str(info.value)
    assert len(openai_server.requests) == 1 and backend.pool._sleep == []
    assert [m.model_dump() for m in history] == before


@pytest.mark.parametrize("shape", ["openai", "llama.cpp"])
def test_case25_server_rule_by_request_size(openai_server, shape):
    """shared case 25-agent-huge-tool-output.json, fake_server_rule: bodies over 40,000 characters
    are refused; a capped tool result fits and the answer comes."""
    openai_server.context_limit_chars = 40_000
    openai_server.context_error = shape
    backend = make_backend(openai_server)
    call = ToolCall(id="call_b1", name="read_file", arguments={"path": "big.log"})
    big = [*user("read big.log"), Message(role="assistant", tool_calls=[call]),
           Message(role="tool", tool_call_id="call_b1", content="x" * 2_000_000 + "\nEND")]
    with pytest.raises(ContextTooLong):
        collect(backend.stream_chat(big, tools=[tool("read_file", path="string")]))
    big[-1].content = "x" * 16_000 + "\n[output truncated: 2,000,004 characters total]"
    assert collect(backend.stream_chat(big, tools=[tool("read_file", path="string")])).text.startswith(
        "The tool said: xxx")


def test_case25_context_error_inside_the_stream(openai_server):
    """shared case 25-agent-huge-tool-output.json: llama.cpp may send the error as an SSE event
    after a 200; it is still ContextTooLong."""
    event = json.dumps(CASE25_SHAPES["llama.cpp"])
    openai_server.script(Raw(f"data: {event}\n\n".encode(), complete=True))
    with pytest.raises(ContextTooLong):
        collect(make_backend(openai_server).stream_chat(user("long")))


# ------------------------------------------------------------------------------ case 26
@pytest.mark.parametrize(
    "arguments", ['{"city": "北京"}', '{"city": "\\u5317\\u4eac"}'], ids=["A_literal", "B_escaped"]
)
def test_case26_unicode_arguments_and_results_travel_literally(openai_server, arguments):
    """shared case 26-agent-unicode-args-and-results.json (backend side): both argument encodings
    give city == '北京'; the tool result goes back as literal UTF-8 text, no \\u escapes."""
    call = {"id": "call_c1", "type": "function", "function": {"name": "get_weather", "arguments": arguments}}
    openai_server.script(tool_calls_completion(call), answer("北京今天晴，气温 21°C。"))
    backend = make_backend(openai_server)
    history = [Message(role="user", content="北京天气怎么样？")]
    first = collect(backend.stream_chat(history, tools=[WEATHER]))
    assert first.calls[0].arguments == {"city": "北京"}
    result = json.dumps({"city": "北京", "desc": "晴，气温 21°C"}, ensure_ascii=False)
    second = collect(backend.stream_chat(replay(history, first, {"get_weather": result}), tools=[WEATHER]))
    assert second.text == "北京今天晴，气温 21°C。"
    raw = openai_server.requests[-1].raw
    assert "晴，气温 21°C".encode() in raw and "北京".encode() in raw
    assert openai_server.requests[-1]["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"city": "北京"}'


# ------------------------------------------------------------------------------ tool_choice
@pytest.mark.parametrize(
    "choice, wire",
    [
        ("auto", "auto"),
        ("required", "required"),
        ("none", "none"),
        ("today", {"type": "function", "function": {"name": "today"}}),
    ],
)
def test_tool_choice_is_always_sent_with_tools(openai_server, choice, wire):
    backend = make_backend(openai_server)
    collect(backend.stream_chat(user("hi"), tools=[TODAY, WEATHER], tool_choice=choice))
    body = openai_server.requests[-1]
    assert body["tool_choice"] == wire and [t["function"]["name"] for t in body["tools"]] == ["today", "get_weather"]


def test_tool_choice_defaults_to_auto_and_is_absent_without_tools(openai_server):
    backend = make_backend(openai_server)
    collect(backend.stream_chat(user("hi"), tools=[TODAY]))
    assert openai_server.requests[-1]["tool_choice"] == "auto"
    collect(backend.stream_chat(user("hi"), tools=None, tool_choice="required"))
    assert "tool_choice" not in openai_server.requests[-1] and "tools" not in openai_server.requests[-1]


def test_forced_tool_choice_makes_the_model_call_that_tool(openai_server):
    backend = make_backend(openai_server)
    stream = backend.stream_chat(user("tell me a joke"), tools=[TODAY, WEATHER], tool_choice="get_weather")
    calls = collect(stream).calls
    assert [c.name for c in calls] == ["get_weather"]
    calls = collect(backend.stream_chat(user("tell me a joke"), tools=[TODAY, WEATHER], tool_choice="required")).calls
    assert len(calls) == 1
    result = collect(backend.stream_chat(user("what day is it"), tools=[TODAY], tool_choice="none"))
    assert result.calls == [] and result.text


def test_unknown_forced_tool_is_a_clear_error_before_any_request(openai_server):
    backend = make_backend(openai_server)
    with pytest.raises(SettingsError) as info:
        collect(backend.stream_chat(user("hi"), tools=[TODAY], tool_choice="nope"))
    assert "nope" in str(info.value) and "today" in str(info.value)
    assert openai_server.requests == []


# ------------------------------------------------------------------------------ cancel
def test_cancel_mid_stream_closes_the_http_stream(openai_server):
    """Stop: the backend checks ``cancel`` between chunks and closes the stream; the server sees the
    client go away and the generator ends without a done chunk."""
    openai_server.chunk_delay_s = 0.05
    backend = make_backend(openai_server, http_client=None)
    cancel = threading.Event()
    text = " ".join(f"w{i}" for i in range(200))
    got: list[Chunk] = []
    for chunk in backend.stream_chat(user(text), cancel=cancel):
        got.append(chunk)
        if len([c for c in got if c.text]) == 3:
            cancel.set()
    assert 3 <= len(got) < 20 and not any(c.done for c in got)
    assert openai_server.stream_aborted.wait(10)


@pytest.mark.parametrize("own_client", [False, True], ids=["shared-http-client", "openai-own-client"])
def test_cancel_while_the_server_stalls_mid_answer_is_prompt(openai_server, own_client):
    """Stop (window) / Ctrl+C (CLI) while a server has gone silent MID-answer: the generator returns
    at once — not at the next chunk, nor at the read timeout (30 s here; the stall is 60 s) — and
    the server sees the client go away."""
    first = json.dumps(sse({"role": "assistant", "content": "Hello, "}))
    openai_server.script(Raw(f"data: {first}\n\n".encode(), stall_s=60))
    kw = {"http_client": None} if own_client else {}
    backend = make_backend(openai_server, timeout_s=30.0, **kw)
    cancel = threading.Event()
    got: list[Chunk] = []
    cancelled_at = None
    for chunk in backend.stream_chat(user("hi"), cancel=cancel):
        got.append(chunk)
        if chunk.text and cancelled_at is None:
            # Stop pressed from another thread while this one waits for the next event
            timer = threading.Timer(0.3, cancel.set)
            timer.start()
            cancelled_at = time.monotonic() + 0.3
    returned_after = time.monotonic() - cancelled_at
    assert [c.text for c in got] == ["Hello, "] and not any(c.done for c in got)
    assert returned_after < 2.0  # generous: polled every 50 ms; the old code waited 30 s
    assert openai_server.stream_aborted.wait(5)  # the socket was shut down, not left hanging
    # the backend still works afterwards (a fresh connection; the stalled one is gone)
    assert collect(backend.stream_chat(user("again"))).text == "You said: again"


def test_cancel_before_start_sends_nothing(openai_server):
    cancel = threading.Event()
    cancel.set()
    assert collect(make_backend(openai_server).stream_chat(user("hi"), cancel=cancel)).chunks == []
    assert openai_server.requests == []


def test_closing_the_generator_closes_the_stream(openai_server):
    openai_server.chunk_delay_s = 0.05
    gen = make_backend(openai_server).stream_chat(user(" ".join(["word"] * 200)))
    next(gen)
    gen.close()
    assert openai_server.stream_aborted.wait(10)


# ------------------------------------------------------------------------------ odd streams
def test_empty_200_stream_is_an_empty_answer(openai_server):
    """llama.cpp quirk (LOCAL-MODEL.md): a 200 stream with no content and no tool call."""
    openai_server.script([sse({"role": "assistant", "content": ""}), sse({}, "stop"), "[DONE]"])
    with pytest.raises(EmptyAnswer):
        collect(make_backend(openai_server).stream_chat(user("hi")))
    openai_server.script(Raw(b"", complete=True))
    with pytest.raises(EmptyAnswer):
        collect(make_backend(openai_server).stream_chat(user("hi")))


def test_length_without_content_is_a_clear_cut_off(openai_server):
    openai_server.script([sse({"role": "assistant", "content": "", "reasoning_content": "hmm"}),
                          sse({}, "length"), "[DONE]"])
    with pytest.raises(OutputLimitReached) as info:
        collect(make_backend(openai_server).stream_chat(user("hi")))
    assert isinstance(info.value, AnswerCutOff) and "output limit" in str(info.value)


def test_length_with_content_ends_with_finish_reason_length(openai_server):
    openai_server.script([sse({"role": "assistant", "content": "partial"}), sse({}, "length"), "[DONE]"])
    result = collect(make_backend(openai_server).stream_chat(user("hi")))
    assert result.text == "partial" and result.last.finish_reason == "length"


def test_stream_broken_mid_answer_is_cut_off_and_not_retried(openai_server):
    """Retries happen only before the first chunk: a stream that breaks after text was streamed is
    AnswerCutOff with the text kept by the caller, and no second request repeats it."""
    first = json.dumps(sse({"role": "assistant", "content": "Hello, "}))
    openai_server.script(Raw(f"data: {first}\n\n".encode()))
    got: list[Chunk] = []
    with pytest.raises(AnswerCutOff):
        for chunk in make_backend(openai_server).stream_chat(user("hi")):
            got.append(chunk)
    assert "".join(c.text for c in got) == "Hello, "
    assert len(openai_server.requests) == 1


def test_connection_dropped_before_answer_is_retried(openai_server):
    openai_server.script(Disconnect())
    backend = make_backend(openai_server)
    result = collect(backend.stream_chat(user("hello")))
    assert result.text == "You said: hello"
    assert result.notices == ["can't reach the server — retrying in 0.5 s"] and backend.pool._sleep == [0.5]
    assert len(openai_server.requests) == 2


def test_malformed_stream_data_is_a_backend_error(openai_server):
    openai_server.script(Raw(b"data: {not json\n\n", complete=True))
    with pytest.raises(BackendError) as info:
        collect(make_backend(openai_server).stream_chat(user("hi")))
    assert "not valid JSON" in str(info.value)


def test_server_ignoring_stream_true_is_understood(openai_server):
    openai_server.script(Json(completion(
        {"role": "assistant", "content": "whole answer", "reasoning_content": "thought"}, "stop")))
    result = collect(make_backend(openai_server).stream_chat(user("hi")))
    assert (result.text, result.thinking, result.last.finish_reason) == ("whole answer", "thought", "stop")


def test_usage_only_chunks_and_keepalive_comments_are_ignored(openai_server):
    events = [sse({"role": "assistant", "content": "ok"}), sse({}, "stop"),
              {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": CREATED, "model": "m",
               "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}]
    body = ": keep-alive\n\n" + "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    openai_server.script(Raw(body.encode(), complete=True))
    result = collect(make_backend(openai_server).stream_chat(user("hi")))
    assert result.text == "ok" and result.last.done


# ------------------------------------------------------------------------------ misc
def test_list_models_describe_and_close(openai_server):
    openai_server.models = ["gpt-4o-mini", "local-model"]
    backend = make_backend(openai_server)
    assert [m.name for m in backend.list_models()] == ["gpt-4o-mini", "local-model"]
    assert openai_server.all_requests[-1].path == "/v1/models"
    assert backend.describe() == f"openai · local-model @ {openai_server.url}"
    backend.close()
    backend.close()  # idempotent
    assert OpenAIBackend("https://api.openai.com/v1/", "gpt-4o-mini", [KEY]).describe() == \
        "openai · gpt-4o-mini @ https://api.openai.com/v1"


def test_tool_result_without_id_is_paired_with_its_call():
    call = ToolCall(id="call_z", name="today")
    wire = to_wire_messages([Message(role="assistant", tool_calls=[call]),
                             Message(role="tool", tool_name="today", content="Monday")])
    assert wire[1] == {"role": "tool", "tool_call_id": "call_z", "content": "Monday"}
