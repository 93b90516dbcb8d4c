"""Adversarial variants of the backend-ollama and agent-loop shared cases: the Agent with the real
OllamaBackend against the local Ollama protocol server (tests/servers/ollama.py), fed inputs of the
same kinds as the cases but shaped differently (other wrappers, encodings, numbers, code points)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop_agent.core.agent import Agent
from desktop_agent.core.backends.ollama import OllamaBackend
from desktop_agent.core.events import AnswerFinished, TextDelta, ToolCallStarted
from desktop_agent.core.messages import Conversation
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.tools.registry import ToolRegistry

ran: list[tuple[str, Any]] = []


def web_search(query: str) -> str:
    """Search the web."""
    ran.append(("web_search", query))
    return "Use `ollama pull NAME`."


def get_weather(city: str) -> str:
    """Current weather for a city."""
    ran.append(("get_weather", city))
    return f"sunny in {city}"


def list_files() -> list[str]:
    """Files in the current folder."""
    ran.append(("list_files", None))
    # what os.listdir() gives on Linux for a file name that is not UTF-8 (surrogateescape)
    return ["caf\udce9.txt", "notes.txt"]


def line(content: str = "", **message: Any) -> dict:
    return {"message": {"role": "assistant", "content": content, **message}, "done": False}


def done(content: str = "", **message: Any) -> dict:
    return {"message": {"role": "assistant", "content": content, **message}, "done": True, "done_reason": "stop"}


def strict_json(raw: bytes) -> Any:
    """Parse like Go's encoding/json (what Ollama uses): no NaN/Infinity, valid UTF-8 only."""
    def reject(token: str) -> Any:
        raise ValueError(f"invalid JSON constant {token}")
    return json.loads(raw.decode("utf-8"), parse_constant=reject)


@pytest.fixture
def run_turn(ollama_server, tmp_path):
    """run_turn(*replies, text=..., tools=...) → (events, conversation, store); saves with a real store."""
    stores: list[ConversationStore] = []

    def run(*replies: Any, text: str = "hi", tools=(web_search, get_weather), model: str = "llama3.2"):
        ran.clear()
        ollama_server.script(*replies)
        backend = OllamaBackend(ollama_server.url, model, timeout_s=10)
        registry = ToolRegistry(timeout_s=5)
        for t in tools:
            registry.register(t)
        store = ConversationStore(tmp_path / f"chats{len(stores)}.sqlite3")
        stores.append(store)
        conversation = Conversation()
        agent = Agent(backend, registry, on_message=store.add_message)
        events = list(agent.run(conversation, text))
        backend.close()
        return events, conversation, store

    yield run
    for s in stores:
        s.close()


def shown(events) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


# ---- shared case 03: a tool call written as text in the content ---------------------------------

FOLLOW_UP = [line("Run `ollama pull`."), done()]


@pytest.mark.parametrize(
    "content",
    [
        '<|python_tag|>{"name": "web_search", "parameters": {"query": "ollama install models"}}',
        '<tool_call>\n{"name": "web_search", "arguments": {"query": "ollama install models"}}\n</tool_call>',
        '[{"name": "web_search", "parameters": {"query": "ollama install models"}}]',
    ],
    ids=["llama-python-tag", "hermes-tool-call-tags", "json-array"],
)
def test_case03_other_wrappers_of_a_tool_call_in_content(run_turn, content):
    """Shared case 03-ollama-toolcall-json-in-content.json, same kind, other shapes small models use:
    Llama's `<|python_tag|>` prefix, Hermes/Qwen `<tool_call>…</tool_call>` tags, a JSON array of
    one call. The tool runs once; the raw text is not the answer."""
    pieces = [content[i : i + 5] for i in range(0, len(content), 5)]
    events, conv, _ = run_turn([*map(line, pieces), done()], FOLLOW_UP, text="How do I install models in ollama?")
    assert ran == [("web_search", "ollama install models")]
    assert isinstance(events[-1], AnswerFinished), events[-1]
    assert shown(events) == "Run `ollama pull`."
    assert conv.messages[1].content == "" and conv.messages[1].tool_calls[0].name == "web_search"


def test_case03_several_calls_written_as_text_all_run_in_order(run_turn):
    """Shared case 03-ollama-toolcall-json-in-content.json combined with case 23 (parallel calls):
    a JSON array / several `<tool_call>` blocks naming registered tools → every call runs, in order,
    each answered by its own role='tool' message."""
    for content in (
        '[{"name": "get_weather", "parameters": {"city": "Paris"}}, '
        '{"name": "get_weather", "parameters": {"city": "Rome"}}]',
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n'
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>',
    ):
        events, conv, _ = run_turn([line(content), done()], FOLLOW_UP)
        assert ran == [("get_weather", "Paris"), ("get_weather", "Rome")], content
        step = conv.messages[1]
        assert [m.tool_call_id for m in conv.messages[2:4]] == [c.id for c in step.tool_calls]
        assert isinstance(events[-1], AnswerFinished)


@pytest.mark.parametrize(
    "content",
    [
        '<tool_call>{"name": "format_disk", "arguments": {}}</tool_call>',
        '[{"name": "web_search", "parameters": {"query": "q"}}, {"name": "format_disk", "parameters": {}}]',
        '<|python_tag|>print("hello")',
        "[1, 2, 3]",
        "<b>bold</b> answer",
        "[link](http://example.com) is where to look.",
    ],
    ids=["unregistered-in-tags", "one-unregistered-in-array", "python-tag-code", "plain-array", "html", "md-link"],
)
def test_case03_other_wrappers_that_are_not_calls_stay_text(run_turn, content):
    """Shared case 03 negative variants, new wrappers: nothing runs unless every call names a
    registered tool; the text is shown unchanged."""
    events, conv, _ = run_turn([line(content), done()])
    assert ran == []
    assert not [e for e in events if isinstance(e, ToolCallStarted)]
    assert shown(events) == content == conv.messages[-1].content


# ---- shared cases 01 / 13: arguments the server or model got wrong ------------------------------


@pytest.mark.parametrize("raw", ['{"city": NaN}', '{"city": Infinity}', '{"city": -Infinity}', '{"city": 1e400}'])
def test_case13_kind_non_json_numbers_never_poison_the_history(run_turn, ollama_server, raw):
    """Shared case 01-ollama-args-json-string.json / 13-openai-malformed-args-json.json, same kind:
    string arguments with NaN/Infinity (Python's json accepts them, JSON does not) or a number that
    overflows to infinity. The tool is not run with guessed arguments, the model is told, and every
    later request body is strict JSON — real Ollama (Go) rejects NaN, which would break the chat
    for good."""
    call = {"function": {"name": "get_weather", "arguments": raw}}
    events, conv, _ = run_turn([line("", tool_calls=[call]), done()], FOLLOW_UP)
    assert ran == []
    assert conv.messages[2].role == "tool" and "not valid JSON" in conv.messages[2].content
    for _method, path, body in ollama_server.raw_requests:
        if path == "/api/chat":
            strict_json(body)
    assert isinstance(events[-1], AnswerFinished)


def test_case01_kind_null_arguments_mean_no_arguments(run_turn):
    """Shared case 01-ollama-args-json-string.json: arguments sent as the JSON text "null" are no
    arguments (like a null object), not an error."""
    def ping() -> str:
        """Ping."""
        ran.append(("ping", None))
        return "pong"

    call = {"function": {"name": "ping", "arguments": "null"}}
    _events, conv, _ = run_turn([line("", tool_calls=[call]), done()], FOLLOW_UP, tools=(ping,))
    assert ran == [("ping", None)]
    assert conv.messages[2].content == "pong"


# ---- shared case 26: unicode in arguments and results -------------------------------------------


def test_case26_kind_tool_result_with_undecodable_file_name(run_turn, ollama_server):
    """Shared case 26-agent-unicode-args-and-results.json, same kind: a tool result holding a
    surrogate-escaped character (a non-UTF-8 file name from os.listdir) is sent and saved as valid
    UTF-8 (replacement character) — the turn does not fail with 'Unexpected error'."""
    call = {"function": {"name": "list_files", "arguments": {}}}
    events, conv, store = run_turn([line("", tool_calls=[call]), done()], [line("Two files."), done()],
                                   tools=(list_files,))
    assert isinstance(events[-1], AnswerFinished), events[-1]
    tool_msg = conv.messages[2]
    assert "notes.txt" in tool_msg.content and "caf" in tool_msg.content
    tool_msg.content.encode("utf-8")
    strict_json(ollama_server.raw_requests[-1][2])
    saved = store.load(conv.id)
    assert [m.role for m in saved.messages] == ["user", "assistant", "tool", "assistant"]


def test_case26_kind_lone_surrogate_escapes_from_the_model(run_turn, ollama_server):
    r"""Shared case 26-agent-unicode-args-and-results.json, same kind: the server sends a lone
    surrogate escape (half an emoji, "\ud83d") in tool-call arguments and in the content. The tool
    gets a valid string, the chat is saved, the next turn works."""
    args_line = b'{"message": {"role": "assistant", "content": "", "tool_calls": [{"function": ' \
                b'{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris \\\\ud83d\\"}"}}]}, "done": false}'
    answer_line = b'{"message": {"role": "assistant", "content": "Sunny \\ud83d!"}, "done": false}'
    events, conv, store = run_turn([args_line, done()], [answer_line, done()])
    assert isinstance(events[-1], AnswerFinished), events[-1]
    assert len(ran) == 1 and ran[0][1].startswith("Paris")
    ran[0][1].encode("utf-8")
    assert conv.messages[-1].content.startswith("Sunny")
    conv.messages[-1].content.encode("utf-8")
    assert len(store.load(conv.id).messages) == 4


# ---- stream encodings ---------------------------------------------------------------------------


def test_ndjson_stream_with_a_byte_order_mark(run_turn):
    """A proxy that prefixes the NDJSON body with a UTF-8 byte order mark: the first line still
    parses (the BOM is not content), instead of 'the answer was cut off'."""
    events, conv, _ = run_turn(
        [b'\xef\xbb\xbf{"message": {"role": "assistant", "content": "Hi"}, "done": false}',
         b'{"message": {"role": "assistant", "content": " there"}, "done": true, "done_reason": "stop"}'],
        tools=(),
    )
    assert isinstance(events[-1], AnswerFinished), events[-1]
    assert conv.messages[-1].content == "Hi there"


def test_case03_text_starting_like_a_wrapper_is_released_early():
    """Shared case 03: holding back possible tool-call text must not delay ordinary answers that
    merely start with "[" or "<": they are shown as soon as they cannot be calls, not at the end."""
    from desktop_agent.core.textcalls import JsonToolCallGate

    for start, more in (("[", "link](http://x) is"), ("<", "b>bold</b>"), ("[", "1, 2]"), ("<|py", "thon rocks"),
                        ("<|python_tag|>", "print(1)")):
        gate = JsonToolCallGate({"web_search"})
        shown_now = gate.feed(start) + gate.feed(more)
        assert shown_now == start + more, (start, more)


def test_case03_json_call_in_content_with_nan_is_answered_not_replayed(run_turn, ollama_server):
    """Shared case 03 x case 13: a tool call written as JSON in the content whose parameters hold
    NaN (Python's json reads it, JSON has no NaN). It is not run with that value, the model is told,
    and later request bodies stay strict JSON."""
    events, conv, _ = run_turn([line('{"name": "get_weather", "parameters": {"city": NaN}}'), done()], FOLLOW_UP)
    assert ran == []
    assert conv.messages[2].role == "tool" and "not valid JSON" in conv.messages[2].content
    for _method, path, body in ollama_server.raw_requests:
        if path == "/api/chat":
            strict_json(body)
    assert isinstance(events[-1], AnswerFinished)
