"""The ReAct loop (desktop_agent/core/agent.py) with a scripted backend and the real ToolRegistry.

Shared cases covered here (loop parts): 03, 05, 06/07 (error expectations), 13, 17, 23, 24, 25, 26,
27, 28 — each test names its case file in the docstring.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from desktop_agent.core.agent import SHORTER, Agent, UnexpectedError
from desktop_agent.core.answer import NO_WORDS
from desktop_agent.core.backends.base import Chunk
from desktop_agent.core.errors import (
    AgentError,
    BackendUnreachable,
    ContextTooLong,
    EmptyAnswer,
    ModelNotFound,
)
from desktop_agent.core.events import (
    AnswerFinished,
    MessageAdded,
    Notice,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnCancelled,
    TurnFailed,
)
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.settings import DEFAULT_SYSTEM_PROMPT
from desktop_agent.core.tools.decorator import tool
from desktop_agent.core.tools.registry import ToolRegistry

from .scripted import Pause, ScriptedBackend, WaitForCancel, call, calls, text

TERMINAL = (AnswerFinished, TurnFailed, TurnCancelled)


# ---- helpers ------------------------------------------------------------------------------------


class Saved:
    """on_message recorder (what a store would commit)."""

    def __init__(self):
        self.messages: list[Message] = []

    def __call__(self, conversation: Conversation, message: Message) -> None:
        self.messages.append(message.model_copy(deep=True))

    def __len__(self) -> int:
        return len(self.messages)


def drive(agent: Agent, conversation: Conversation, user_text: str | None, cancel=None) -> list[Any]:
    """Run a turn to the end; check that there is exactly one terminal event, and it is last."""
    events = list(agent.run(conversation, user_text, cancel))
    terminal = [e for e in events if isinstance(e, TERMINAL)]
    assert len(terminal) == 1, events
    assert events[-1] is terminal[0]
    return events


def of(events, kind) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def shown(events) -> str:
    return "".join(e.text for e in of(events, TextDelta))


def thought(events) -> str:
    return "".join(e.text for e in of(events, ThinkingDelta))


def make_registry(*fns, **kwargs) -> ToolRegistry:
    reg = ToolRegistry(**kwargs)
    for fn in fns:
        reg.register(fn)
    return reg


# ---- tools used by the tests --------------------------------------------------------------------

weather_calls: list[str] = []


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    weather_calls.append(city)
    if city == "Atlantis":
        raise RuntimeError("no such city: Atlantis")
    return f"{city}: sunny"


@tool
def get_time() -> str:
    """The current time."""
    return "14:05"


@pytest.fixture(autouse=True)
def _reset_calls():
    weather_calls.clear()
    yield


# ---- the plain loop -----------------------------------------------------------------------------


def test_plain_answer_streams_saves_and_finishes():
    saved = Saved()
    backend = ScriptedBackend(text("Hello", " there!"))
    agent = Agent(backend, on_message=saved)
    conv = Conversation()
    events = drive(agent, conv, "hi")

    assert isinstance(events[0], MessageAdded) and events[0].message.role == "user"
    assert of(events, TextDelta) == [TextDelta("Hello"), TextDelta(" there!")]
    final = events[-1]
    assert isinstance(final, AnswerFinished)
    assert final.message.content == "Hello there!"
    assert final.message.model == "scripted-model" and final.message.backend == "scripted"
    assert final.message.status == "complete"
    assert [m.role for m in conv.messages] == ["user", "assistant"]
    assert [m.content for m in saved.messages] == ["hi", "Hello there!"]
    # the request: system prompt first, no tools when there is no registry
    req = backend.requests[0]
    assert req.roles() == ["system", "user"]
    assert req.messages[0].content == DEFAULT_SYSTEM_PROMPT
    assert req.tools is None and req.tool_choice == "auto"
    assert conv.title == "hi" and conv.model == "scripted-model" and conv.backend == "scripted"


def test_registry_without_tools_sends_no_tools():
    backend = ScriptedBackend(text("ok"))
    drive(Agent(backend, ToolRegistry(), tool_choice="required"), Conversation(), "hi")
    assert backend.requests[0].tools is None
    assert backend.requests[0].tool_choice == "auto"


def test_tool_loop_runs_tool_and_saves_every_message_before_the_next_model_call():
    """ReAct (seed 002): assistant tool call → role="tool" result with the matching id → answer.
    Every finished message is saved before the next backend call (the backend probes the store)."""
    saved = Saved()
    reg = make_registry(get_weather, get_time)
    backend = ScriptedBackend(
        calls(call("get_weather", '{"city": "Paris"}', "call_1"), content="Let me check."),
        text("It is sunny in Paris."),
        probe=lambda: [m.role for m in saved.messages],
    )
    conv = Conversation()
    events = drive(Agent(backend, reg, on_message=saved), conv, "weather in Paris?")

    assert weather_calls == ["Paris"]
    assert backend.requests[0].probe == ["user"]
    assert backend.requests[1].probe == ["user", "assistant", "tool"]
    assert [m.role for m in saved.messages] == ["user", "assistant", "tool", "assistant"]

    step_msg, result_msg = conv.messages[1], conv.messages[2]
    assert step_msg.content == "Let me check." and step_msg.tool_calls[0].id == "call_1"
    assert step_msg.model == "scripted-model" and step_msg.backend == "scripted"
    assert result_msg.role == "tool" and result_msg.tool_call_id == "call_1"
    assert result_msg.tool_name == "get_weather" and result_msg.tool_status == "ok"
    assert result_msg.content == "Paris: sunny" and result_msg.full_content is None
    assert result_msg.duration_ms is not None and result_msg.duration_ms >= 0

    started, finished = of(events, ToolCallStarted), of(events, ToolCallFinished)
    assert started == [ToolCallStarted("call_1", "get_weather", {"city": "Paris"})]
    assert finished[0].ok and finished[0].status == "ok" and finished[0].result == "Paris: sunny"
    assert finished[0].error is None
    # events in order: user added, tools offered, request, text, step added, started, finished, result added,
    # request, text, answer
    kinds = [type(e).__name__ for e in events]
    assert kinds == [
        "MessageAdded", "ToolsOffered", "RequestSent", "TextDelta", "MessageAdded", "ToolCallStarted",
        "ToolCallFinished", "MessageAdded", "RequestSent", "TextDelta", "AnswerFinished",
    ]
    # the second request carries the tool result right after the assistant message
    second = backend.requests[1]
    assert second.roles() == ["system", "user", "assistant", "tool"]
    assert second.messages[3].tool_call_id == "call_1"
    assert second.tools == reg.schemas()


def test_case23_parallel_calls_all_answered_in_order():
    """shared case 23-agent-parallel-tool-calls.json: three calls (one raising) → three role="tool"
    messages directly after the assistant message, in call order, nothing in between; the failing
    call's message carries the error."""
    reg = make_registry(get_weather)
    backend = ScriptedBackend(
        calls(
            call("get_weather", '{"city": "Paris"}', "call_p1"),
            call("get_weather", '{"city": "Rome"}', "call_p2"),
            call("get_weather", '{"city": "Atlantis"}', "call_p3"),
        ),
        text("Paris is sunny, Rome is warm; Atlantis could not be looked up."),
    )
    conv = Conversation()
    events = drive(Agent(backend, reg), conv, "weather?")
    assert weather_calls == ["Paris", "Rome", "Atlantis"]
    second = backend.requests[1].messages
    assert [m.role for m in second] == ["system", "user", "assistant", "tool", "tool", "tool"]
    assert [m.tool_call_id for m in second[3:]] == ["call_p1", "call_p2", "call_p3"]
    assert "Error: RuntimeError: no such city: Atlantis" in second[5].content
    assert second[5].tool_status == "error"
    assert [f.ok for f in of(events, ToolCallFinished)] == [True, True, False]
    assert [s.call_id for s in of(events, ToolCallStarted)] == ["call_p1", "call_p2", "call_p3"]
    assert events[-1].message.content.startswith("Paris is sunny")


def test_case23_ollama_variant_ids_assigned_and_tool_name_kept():
    """shared case 23, Ollama variant: calls without ids get synthetic ids; the two results follow in
    call order with tool_name='get_weather' and the same ids (also case 17: empty id → one id)."""
    reg = make_registry(get_weather)
    backend = ScriptedBackend(
        calls(call("get_weather", {"city": "Paris"}), call("get_weather", {"city": "Rome"}, "")),
        text("Both sunny."),
    )
    conv = Conversation()
    drive(Agent(backend, reg), conv, "weather?")
    assistant = backend.requests[1].messages[2]
    ids = [c.id for c in assistant.tool_calls]
    assert all(i.startswith("call_") and len(i) > 5 for i in ids) and len(set(ids)) == 2
    results = backend.requests[1].messages[3:]
    assert [(m.tool_call_id, m.tool_name) for m in results] == [(ids[0], "get_weather"), (ids[1], "get_weather")]
    assert [m.tool_call_id for m in conv.messages[2:4]] == ids  # the saved history keeps the same ids


def test_case24_unknown_tool_name_is_answered_and_counts_as_a_step():
    """shared case 24-agent-unknown-tool-name.json: the misspelt call gets a readable error listing
    the available tools, the corrected call runs, the answer is shown; the attempt counts as a step."""
    reg = make_registry(get_weather, get_time)
    script = [
        calls(call("get_wether", '{"city": "Paris"}', "call_u1")),
        calls(call("get_weather", '{"city": "Paris"}', "call_u2")),
        text("It is sunny in Paris."),
    ]
    backend = ScriptedBackend(*script)
    events = drive(Agent(backend, reg, max_steps=6), Conversation(), "weather in Paris?")
    bad = backend.requests[1].messages[-1]
    assert bad.role == "tool" and bad.tool_call_id == "call_u1"
    assert "'get_wether' does not exist" in bad.content
    assert "get_weather" in bad.content and "get_time" in bad.content
    finished = of(events, ToolCallFinished)
    assert [f.ok for f in finished] == [False, True] and finished[0].status == "error"
    assert weather_calls == ["Paris"]
    assert events[-1].message.content == "It is sunny in Paris."

    # the failed attempt is a step: with two steps the loop cannot reach the answer with tools; the last call,
    # without tools, asks the model for its answer from what the tools said (issue 20)
    weather_calls.clear()
    backend = ScriptedBackend(*script)
    events = drive(Agent(backend, reg, max_steps=2), Conversation(), "weather in Paris?")
    assert isinstance(events[-1], AnswerFinished) and events[-1].message.content == "It is sunny in Paris."
    assert len(backend.requests) == 3 and backend.requests[2].tools is None
    assert any(isinstance(e, Notice) and "used all 2 steps" in e.text for e in events)


def test_case13_invalid_json_arguments_are_not_run_and_replayed_as_valid_json():
    """shared case 13-openai-malformed-args-json.json: write_note is not executed; its role="tool"
    message says the arguments were not valid JSON (with the parse error); the replayed assistant
    call carries valid JSON ({}); the trailing-text variant is recovered and runs."""
    notes: list[Any] = []

    @tool
    def write_note(path: str, text: str) -> str:
        """Write a note."""
        notes.append((path, text))
        return "written"

    reg = make_registry(write_note, get_weather)
    bad = call("write_note", '{"path": "notes/a.txt", "text": "He said "hi" then left"}', "call_m1")
    assert bad.arguments_error
    backend = ScriptedBackend(
        calls(bad),
        calls(call("get_weather", '{"city": "Paris"} </tool_call>', "call_m2")),
        text("Sorry, let me try again."),
    )
    conv = Conversation()
    events = drive(Agent(backend, reg), conv, "note it")
    assert notes == []
    result = backend.requests[1].messages[-1]
    assert result.tool_call_id == "call_m1" and result.tool_status == "error"
    assert "not valid JSON" in result.content and "Expecting ',' delimiter" in result.content
    replayed = backend.requests[1].messages[-2].tool_calls[0]
    assert replayed.arguments == {} and replayed.arguments_json() == "{}"
    assert replayed.raw_arguments and "He said" in replayed.raw_arguments
    assert weather_calls == ["Paris"]  # trailing-text variant recovered
    assert of(events, ToolCallFinished)[0].ok is False
    assert events[-1].message.content == "Sorry, let me try again."


def test_case27_tool_raises_and_bad_type_are_reported_to_the_model():
    """shared case 27-agent-tool-raises.json: the exception becomes 'Error: ValueError: …' (no
    traceback) and the loop reaches the answer; the bad-type variant is rejected before the call."""
    ran: list[Any] = []

    @tool
    def lookup_customer(customer_id: int) -> str:
        """Look up a customer."""
        ran.append(customer_id)
        raise ValueError(f"customer {customer_id} not found")

    reg = make_registry(lookup_customer)
    backend = ScriptedBackend(
        calls(call("lookup_customer", '{"customer_id": 42}', "call_e1")),
        calls(call("lookup_customer", {"customer_id": "forty-two"}, "call_e2")),
        text("I couldn't find customer 42."),
    )
    events = drive(Agent(backend, reg), Conversation(), "find 42")
    first = backend.requests[1].messages[-1]
    assert first.content == "Error: ValueError: customer 42 not found"
    assert "Traceback" not in first.content
    second = backend.requests[2].messages[-1]
    assert second.tool_call_id == "call_e2" and "customer_id" in second.content
    assert ran == [42]
    assert [f.status for f in of(events, ToolCallFinished)] == ["error", "error"]
    assert events[-1].message.content == "I couldn't find customer 42."


def test_case28_hung_tool_times_out_and_the_loop_continues():
    """shared case 28-agent-tool-hangs.json: a tool that never returns is abandoned after its timeout;
    the role="tool" message says it timed out; the loop reaches the answer."""

    @tool(timeout_s=0.3)
    def run_tests() -> str:
        """Run the tests."""
        time.sleep(3)
        return "never"

    reg = make_registry(run_tests)
    backend = ScriptedBackend(calls(call("run_tests", "{}", "call_h1")), text("The test run timed out."))
    events = drive(Agent(backend, reg), Conversation(), "run the tests")
    result = backend.requests[1].messages[-1]
    assert result.tool_call_id == "call_h1" and result.tool_status == "timeout"
    assert "timed out after 0.3 s" in result.content
    assert of(events, ToolCallFinished)[0].status == "timeout"
    assert events[-1].message.content == "The test run timed out."


def test_case25_huge_tool_output_is_capped_for_the_model_and_kept_for_the_ui():
    """shared case 25-agent-huge-tool-output.json: the result sent back is capped with a marker; the
    full output stays in the event and in the saved message (full_content), not in the request."""

    @tool
    def read_file(path: str) -> str:
        """Read a file."""
        return "x" * 2_000_000 + "\nEND"

    saved = Saved()
    reg = make_registry(read_file, output_cap=16_000)
    backend = ScriptedBackend(
        calls(call("read_file", '{"path": "big.log"}', "call_b1")), text("The log is mostly x characters.")
    )
    events = drive(Agent(backend, reg, on_message=saved), Conversation(), "read big.log")
    sent = backend.requests[1].messages[-1]
    assert len(sent.content) <= 16_000 and "[output truncated: 2,000,004 characters total]" in sent.content
    assert sent.full_content is None
    assert of(events, ToolCallFinished)[0].result.endswith("\nEND")
    stored = saved.messages[2]
    assert stored.full_content is not None and stored.full_content.endswith("\nEND")
    assert len(stored.content) <= 16_000
    assert events[-1].message.content == "The log is mostly x characters."


def test_case25_context_too_long_keeps_the_whole_history():
    """shared case 25: when the server still says the context is too long — also when asked once more with
    fewer earlier messages (issue 13) — the turn fails with ContextTooLong and nothing is deleted from the
    conversation."""
    saved = Saved()
    reg = make_registry(get_weather)
    conv = Conversation(messages=[Message(role="user", content="old"), Message(role="assistant", content="older")])
    backend = ScriptedBackend(
        calls(call("get_weather", '{"city": "Paris"}', "c1")),
        ContextTooLong("8192 tokens"),
        ContextTooLong("8192 tokens"),
    )
    events = drive(Agent(backend, reg, on_message=saved), conv, "weather?")
    assert isinstance(events[-1], TurnFailed) and isinstance(events[-1].error, ContextTooLong)
    assert SHORTER in [e.text for e in events if isinstance(e, Notice)]
    assert len(backend.requests[2].messages) < len(backend.requests[1].messages)
    assert events[-1].partial is None
    assert [m.content or m.role for m in conv.messages] == ["old", "older", "weather?", "assistant", "Paris: sunny"]
    assert [m.role for m in saved.messages] == ["user", "assistant", "tool"]  # no empty assistant saved


def test_case26_unicode_arguments_and_results_stay_literal():
    """shared case 26-agent-unicode-args-and-results.json: escaped or literal arguments both give
    '北京'; the role="tool" content has '晴，气温 21°C' literally (no \\u escapes)."""

    seen: list[str] = []

    @tool
    def get_weather(city: str) -> dict:
        """Weather for a city."""
        seen.append(city)
        return {"city": city, "desc": "晴，气温 21°C"}

    reg = make_registry(get_weather)
    for raw in ('{"city": "北京"}', '{"city": "\\u5317\\u4eac"}'):
        seen.clear()
        backend = ScriptedBackend(calls(call("get_weather", raw, "call_c1")), text("北京今天晴，", "气温 21°C。"))
        conv = Conversation()
        events = drive(Agent(backend, reg), conv, "北京天气怎么样？")
        assert seen == ["北京"]
        result = backend.requests[1].messages[-1].content
        assert "晴，气温 21°C" in result and "北京" in result and "\\u" not in result
        assert backend.requests[1].messages[1].content == "北京天气怎么样？"
        assert shown(events) == "北京今天晴，气温 21°C。" == conv.messages[-1].content


# ---- case 03: a tool call written as JSON in the content ----------------------------------------


@tool
def web_search(query: str) -> str:
    """Search the web."""
    searches.append(query)
    return "Use `ollama pull NAME`."


searches: list[str] = []


def test_case03_fenced_json_tool_call_in_content_is_run():
    """shared case 03-ollama-toolcall-json-in-content.json: the whole reply is a ```json fenced object
    naming a registered tool → web_search runs once; the raw JSON is never shown or kept as content."""
    searches.clear()
    reg = make_registry(web_search)
    backend = ScriptedBackend(
        text("```json\n", '{"name": "web_search", "parameters": {"query": "ollama install models"}}', "\n```", ""),
        text("Run `ollama pull` with the model name."),
    )
    conv = Conversation()
    events = drive(Agent(backend, reg), conv, "How do I install models in ollama?")
    assert searches == ["ollama install models"]
    assert shown(events) == "Run `ollama pull` with the model name."
    step_msg = conv.messages[1]
    assert step_msg.content == "" and step_msg.tool_calls[0].name == "web_search"
    assert step_msg.tool_calls[0].arguments == {"query": "ollama install models"}
    req = backend.requests[1].messages
    assert req[-1].role == "tool" and req[-1].tool_call_id == step_msg.tool_calls[0].id
    assert events[-1].message.content == "Run `ollama pull` with the model name."


@pytest.mark.parametrize(
    "pieces",
    [
        ['{"name": "web_search", "arguments": {"query": "q"}}'],
        ["  {", '"name": "web_search",', ' "parameters": {"query": "q"}', "}\n"],
        ["```", "\n", '{"function": {"name": "web_search", "arguments": "{\\"query\\": \\"q\\"}"}}', "\n``", "`"],
    ],
    ids=["bare-arguments", "split-parameters", "function-wrapper-string-args"],
)
def test_case03_other_shapes_of_the_same_kind(pieces):
    """shared case 03, other inputs of the same kind: bare object, 'arguments' key, split chunks,
    a {"function": {...}} wrapper with JSON-string arguments."""
    searches.clear()
    backend = ScriptedBackend(text(*pieces), text("done"))
    events = drive(Agent(backend, make_registry(web_search)), Conversation(), "search")
    assert searches == ["q"]
    assert shown(events) == "done"


@pytest.mark.parametrize(
    "content",
    [
        '{"name": "format_disk", "parameters": {}}',
        "You could call it like {\"name\": \"web_search\"} but I will just answer: run `ollama pull`.",
        '{"name": "web_search", "parameters": {"query": "q"}} and then I will summarise.',
        '```json\n{"name": "web_search", "parameters": {"query": "q"}}\n```\nThat is the call.',
        '{"name": "web_search", "parameters": "q"}',
    ],
    ids=["unregistered", "prose", "trailing-text", "fence-then-text", "parameters-not-object"],
)
def test_case03_non_calls_are_shown_as_text_and_never_run(content):
    """shared case 03 negative variants: an unregistered name, prose containing JSON, JSON followed by
    more text → shown as the answer unchanged; nothing runs."""
    searches.clear()
    backend = ScriptedBackend(text(*[content[i : i + 7] for i in range(0, len(content), 7)]))
    events = drive(Agent(backend, make_registry(web_search)), Conversation(), "hi")
    assert searches == []
    assert shown(events) == content == events[-1].message.content
    assert not of(events, ToolCallStarted)


def test_case03_json_and_code_answers_are_released_early():
    """Held-back text is released as soon as it cannot be a tool call: a python code block after its
    fence line, a JSON object that is not a call once it closes — not only at the end of the stream."""
    seen: list[Any] = []
    shown_at: dict[str, str] = {}

    def mark(label):
        return lambda cancel: shown_at.__setitem__(label, shown(seen))

    backend = ScriptedBackend(
        [Chunk(text="```python\n"), Chunk(text="print(1)\n"), mark("code"), Chunk(text="```"), Chunk(done=True)],
        [Chunk(text='{"a": '), mark("open"), Chunk(text="1}"), mark("closed"), Chunk(text="\n"), Chunk(done=True)],
    )
    agent = Agent(backend, make_registry(web_search))
    for ev in agent.run(Conversation(), "code please"):
        seen.append(ev)
    assert shown_at["code"] == "```python\nprint(1)\n"
    seen.clear()
    for ev in agent.run(Conversation(), "json please"):
        seen.append(ev)
    assert shown_at["open"] == ""
    assert shown_at["closed"] == '{"a": 1}'
    assert shown(seen) == '{"a": 1}\n'


def test_case03_json_duplicate_of_a_native_call_runs_once():
    """Some servers send the call natively and as JSON text: it runs once, the JSON is not shown."""
    searches.clear()
    content = '{"name": "web_search", "arguments": {"query": "q"}}'
    backend = ScriptedBackend(calls(call("web_search", {"query": "q"}, "n1"), content=content), text("done"))
    conv = Conversation()
    events = drive(Agent(backend, make_registry(web_search)), conv, "search")
    assert searches == ["q"] and shown(events) == "done"
    assert conv.messages[1].content == "" and [c.id for c in conv.messages[1].tool_calls] == ["n1"]


def test_case03_no_recovery_without_tools():
    content = '{"name": "web_search", "parameters": {"query": "q"}}'
    backend = ScriptedBackend(text(content))
    events = drive(Agent(backend, None), Conversation(), "hi")
    assert events[-1].message.content == content


# ---- case 05: thinking never leaks into the answer ----------------------------------------------

ANSWER = "Hello! How can I help?"
THOUGHT = "User greets me."
VARIANTS = {
    "A_both_tags": text("<think>\nUser greets me.\n</think>\n\nHello! How can I help?"),
    "B_close_tag_only": text("User greets me.\n</think>\n\nHello! How can I help?"),
    "C_thinking_field": [Chunk(thinking="User greets me."), Chunk(text="Hello! How can I help?"), Chunk(done=True)],
    "D_stream_tags_split": text("<thi", "nk>User greets", " me.</th", "ink>\n\nHello! How can I help?", ""),
    "E_no_thinking": text("Hello! How can I help?"),
}


@pytest.mark.parametrize("model", ["qwen3:8b", "llama3.2"])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_case05_thinking_never_leaks_into_the_answer(variant, model):
    """shared case 05-ollama-think-tags-in-content.json, variants A–E: the answer is exactly the
    visible text, the reasoning goes to ThinkingDelta and Message.thinking, never to content, and is
    not replayed as content in the next request; E has no thinking at all."""
    saved = Saved()
    backend = ScriptedBackend(VARIANTS[variant], text("Fine."), model=model)
    agent = Agent(backend, on_message=saved)
    conv = Conversation()
    events = drive(agent, conv, "hi")
    msg = events[-1].message
    assert msg.content == ANSWER
    want = "" if variant == "E_no_thinking" else THOUGHT
    assert msg.thinking == want
    assert saved.messages[-1].thinking == want and saved.messages[-1].content == ANSWER
    if variant == "E_no_thinking":
        assert not of(events, ThinkingDelta)
    else:
        assert thought(events).strip() == THOUGHT
    if model == "qwen3:8b" or variant != "B_close_tag_only":
        # the streamed answer never showed reasoning or tags
        assert shown(events) == ANSWER
    drive(agent, conv, "and?")
    replay = backend.requests[1].messages
    assert replay[2].role == "assistant" and replay[2].content == ANSWER and replay[2].thinking == ""


def test_case05_reasoning_model_without_tags_is_held_only_until_learned():
    """Variant E on a reasoning model: the first answer is held back until the end of the stream
    (a lone </think> was possible), then this model's text streams directly."""
    seen: list[Any] = []
    marks: list[str] = []

    def mark(cancel):
        marks.append(shown(seen))

    backend = ScriptedBackend(
        [Chunk(text="Hello! "), mark, Chunk(text="How can I help?"), Chunk(done=True)],
        [Chunk(text="Again! "), mark, Chunk(text="Bye."), Chunk(done=True)],
        model="qwen3:8b",
    )
    conv = Conversation()
    for text_in in ("hi", "hi again"):
        seen.clear()
        for ev in Agent(backend).run(conv, text_in):  # the window builds one Agent per turn
            seen.append(ev)
    assert marks == ["", "Again! "]
    assert conv.messages[-1].content == "Again! Bye." and not conv.messages[-1].thinking


def test_case05_reasoning_field_releases_held_text_at_once():
    """Variant C on a reasoning model: reasoning comes in its own field, so the content is streamed
    directly (no holding)."""
    seen: list[Any] = []
    marks: list[str] = []
    backend = ScriptedBackend(
        [Chunk(thinking="hmm"), Chunk(text="Hello"), lambda c: marks.append(shown(seen)), Chunk(done=True)],
        model="deepseek-r1:7b",
    )
    for ev in Agent(backend).run(Conversation(), "hi"):
        seen.append(ev)
    assert marks == ["Hello"]
    assert seen[-1].message.thinking == "hmm"


def test_case05_thinking_only_reply_is_an_empty_answer():
    backend = ScriptedBackend(text("<think>only thoughts</think>"))
    saved = Saved()
    events = drive(Agent(backend, on_message=saved), Conversation(), "hi")
    assert isinstance(events[-1].error, EmptyAnswer)
    assert [m.role for m in saved.messages] == ["user"]


# ---- tool_choice, steps --------------------------------------------------------------------------


@pytest.mark.parametrize("choice", ["required", "get_time"])
def test_forced_tool_choice_applies_to_the_first_call_only(choice):
    """A forced tool_choice (required / a tool name) is sent on the first call of a turn; later calls
    use "auto", so a forced tool cannot loop; the next turn forces again."""
    reg = make_registry(get_weather, get_time)
    backend = ScriptedBackend(
        calls(call("get_time", "{}", "t1")), text("It is 14:05."),
        calls(call("get_time", "{}", "t2")), text("Still 14:05."),
    )
    agent = Agent(backend, reg, tool_choice=choice)
    conv = Conversation()
    drive(agent, conv, "time?")
    drive(agent, conv, "and now?")
    assert [r.tool_choice for r in backend.requests] == [choice, "auto", choice, "auto"]


def test_unknown_forced_tool_falls_back_to_auto_with_a_notice():
    backend = ScriptedBackend(text("ok"))
    events = drive(Agent(backend, make_registry(get_time), tool_choice="nope"), Conversation(), "hi")
    assert backend.requests[0].tool_choice == "auto"
    assert any("nope" in n.text for n in of(events, Notice))


def test_when_the_steps_run_out_the_model_answers_from_what_the_tools_said():
    """The model keeps calling tools: after max_steps model calls one last call, without tools, asks it for
    its answer from the results — written into the user's message as text (issue 20: "an answer in words");
    every call made was answered."""
    reg = make_registry(get_time)
    # each call new (a repeated call would take the tools away: see test_capabilities)
    backend = ScriptedBackend(*[calls(call("get_time", f'{{"step": {i}}}', f"s{i}")) for i in range(3)],
                              text("It is noon."))
    conv = Conversation()
    events = drive(Agent(backend, reg, max_steps=3), conv, "loop")
    assert isinstance(events[-1], AnswerFinished) and events[-1].message.content == "It is noon."
    assert len(backend.requests) == 4
    last = backend.requests[3]
    assert last.tools is None and last.roles() == ["system", "user"]
    assert "get_time(step=2) returned" in last.messages[-1].content
    assert [m.role for m in conv.messages] == ["user"] + ["assistant", "tool"] * 3 + ["assistant"]


def test_when_the_last_call_says_nothing_the_user_reads_the_results_with_a_note():
    reg = make_registry(get_time)
    # (an empty streamed answer is asked again without streaming: empty twice)
    backend = ScriptedBackend(*[calls(call("get_time", f'{{"step": {i}}}', f"s{i}")) for i in range(2)], text(""),
                              text(""))
    events = drive(Agent(backend, reg, max_steps=2), Conversation(), "loop")
    answer = events[-1]
    assert isinstance(answer, AnswerFinished)
    assert answer.message.content.startswith(NO_WORDS) and "**get_time**" in answer.message.content
    assert "{" not in answer.message.content.split(NO_WORDS, 1)[1].split("**get_time**", 1)[0]


def test_default_max_steps_is_8():
    reg = make_registry(get_time)
    backend = ScriptedBackend(*[calls(call("get_time", f'{{"step": {i}}}')) for i in range(8)], text("Done."))
    events = drive(Agent(backend, reg), Conversation(), "loop")
    assert isinstance(events[-1], AnswerFinished) and len(backend.requests) == 9
    assert backend.requests[8].tools is None


def test_history_window_is_bounded():
    conv = Conversation(
        messages=[Message(role="user" if i % 2 == 0 else "assistant", content=str(i)) for i in range(80)]
    )
    backend = ScriptedBackend(text("ok"))
    drive(Agent(backend, max_history=10), conv, "last")
    req = backend.requests[0].messages
    assert req[0].role == "system" and len(req) == 11 and req[-1].content == "last"


def test_notice_and_length_limit():
    backend = ScriptedBackend([Chunk(notice="rate limited — retrying in 2 s"), Chunk(text="Partial"),
                               Chunk(done=True, finish_reason="length")])
    events = drive(Agent(backend), Conversation(), "hi")
    notices = [n.text for n in of(events, Notice)]
    assert notices[0] == "rate limited — retrying in 2 s" and "length limit" in notices[1]
    assert events[-1].message.content == "Partial"


# ---- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "error", [ModelNotFound("llama2", available=["qwen3:8b"]), BackendUnreachable("http://127.0.0.1:59999")]
)
def test_backend_error_before_any_text_keeps_the_user_message_and_saves_no_assistant(error):
    """shared cases 06-ollama-model-not-found-404.json and 07-ollama-connection-refused.json (loop
    part): TurnFailed with the typed error; the user message stays; no empty assistant message."""
    saved = Saved()
    conv = Conversation()
    events = drive(Agent(ScriptedBackend(error), on_message=saved), conv, "hello")
    assert events[-1] == TurnFailed(error, None)
    assert [m.role for m in conv.messages] == ["user"] and [m.role for m in saved.messages] == ["user"]


def test_error_mid_stream_keeps_the_partial_answer_as_interrupted():
    saved = Saved()
    conv = Conversation()
    backend = ScriptedBackend([Chunk(text="Half an "), Chunk(text="answer"), BackendUnreachable("http://h")])
    events = drive(Agent(backend, on_message=saved), conv, "hello")
    failed = events[-1]
    assert isinstance(failed.error, BackendUnreachable)
    assert failed.partial.content == "Half an answer" and failed.partial.status == "interrupted"
    assert conv.messages[-1] is failed.partial and saved.messages[-1].status == "interrupted"


def test_retry_continues_from_history_without_a_new_user_message():
    """user_text None = retry after an error: the same history is sent again, no message added."""
    saved = Saved()
    conv = Conversation()
    backend = ScriptedBackend(BackendUnreachable("http://h"), text("Now it works."))
    agent = Agent(backend, on_message=saved)
    drive(agent, conv, "hello")
    events = drive(agent, conv, None)
    assert not [e for e in events if isinstance(e, MessageAdded) and e.message.role == "user"]
    assert backend.requests[1].roles() == ["system", "user"]
    assert [m.content for m in conv.messages] == ["hello", "Now it works."]


def test_unexpected_exception_becomes_turn_failed_with_the_cause():
    boom = KeyError("weird")
    backend = ScriptedBackend([Chunk(text="a"), boom])
    events = drive(Agent(backend), Conversation(), "hi")
    err = events[-1].error
    assert isinstance(err, UnexpectedError) and isinstance(err, AgentError)
    assert err.original is boom and err.__cause__ is boom
    assert "KeyError" in str(err) and "Traceback" in err.details


def test_failing_on_message_still_ends_with_one_terminal_event():
    def explode(conversation, message):
        raise OSError("disk full")

    events = drive(Agent(ScriptedBackend(text("hi")), on_message=explode), Conversation(), "hi")
    assert isinstance(events[-1], TurnFailed) and "disk full" in str(events[-1].error)


def test_empty_answer_fails_and_saves_nothing():
    saved = Saved()
    # the empty streamed answer is asked again once without streaming, which is empty too
    backend = ScriptedBackend(text("", "  "), text(""))
    events = drive(Agent(backend, on_message=saved), Conversation(), "hi")
    assert isinstance(events[-1].error, EmptyAnswer)
    assert [m.role for m in saved.messages] == ["user"]
    assert [r.stream for r in backend.requests] == [True, False]


# ---- cancellation --------------------------------------------------------------------------------


@pytest.mark.parametrize("honour_cancel", [True, False])
def test_cancel_mid_stream_keeps_the_partial_answer_as_stopped(honour_cancel):
    """Stop between chunks: the stream is closed, the partial answer is kept (status stopped) and
    saved, the turn ends with TurnCancelled(partial) — also when the backend ignores the flag. A chunk the
    backend hands over after the Stop has reached the process (a real backend reads nothing more once
    cancelled: it was read before) and is kept, as a quit keeps it (issue 23); no further one is read."""
    saved = Saved()
    cancel = threading.Event()
    backend = ScriptedBackend([Chunk(text="Once upon"), Chunk(text=" a time"), lambda c: cancel.set(),
                               Chunk(text=" already read"), Chunk(text=" never read"), Chunk(done=True)],
                              honour_cancel=honour_cancel)
    conv = Conversation()
    events = drive(Agent(backend, on_message=saved), conv, "story", cancel)
    cancelled = events[-1]
    assert isinstance(cancelled, TurnCancelled)
    partial = "Once upon a time" if honour_cancel else "Once upon a time already read"
    assert cancelled.partial.content == partial and cancelled.partial.status == "stopped"
    assert saved.messages[-1].status == "stopped" and conv.messages[-1] is cancelled.partial
    assert backend.closed_streams == 1


def test_cancel_from_another_thread_while_the_stream_hangs():
    cancel = threading.Event()
    backend = ScriptedBackend([WaitForCancel(5.0), Chunk(text="late")])
    saved = Saved()
    timer = threading.Timer(0.1, cancel.set)
    timer.start()
    events = drive(Agent(backend, on_message=saved), Conversation(), "hi", cancel)
    timer.join()
    assert events[-1] == TurnCancelled(None)
    assert [m.role for m in saved.messages] == ["user"]  # nothing empty saved


def test_cancel_before_start_and_between_steps():
    cancel = threading.Event()
    cancel.set()
    backend = ScriptedBackend()
    events = drive(Agent(backend), Conversation(), "hi", cancel)
    assert events[-1] == TurnCancelled(None) and backend.requests == []

    # stop pressed while the model's tool-call step streams: no tool runs, nothing half-saved
    cancel = threading.Event()
    backend = ScriptedBackend([Chunk(tool_calls=[call("get_time", "{}")]), lambda c: cancel.set(), Chunk(done=True)])
    conv = Conversation()
    events = drive(Agent(backend, make_registry(get_time)), conv, "time", cancel)
    assert isinstance(events[-1], TurnCancelled) and not of(events, ToolCallStarted)
    assert [m.role for m in conv.messages] == ["user"]


def test_cancel_mid_tool_stops_within_a_second_and_answers_every_call():
    """shared case 28, user-action variant: Stop while a tool hangs ends the run quickly; the running
    call is answered as cancelled, the next one is not run but answered too (history stays valid)."""
    ran: list[str] = []

    @tool
    def hang(cancel: threading.Event) -> str:
        """Hang until cancelled."""
        ran.append("hang")
        cancel.wait(10)
        return "stopped"

    @tool
    def after() -> str:
        """Never reached."""
        ran.append("after")
        return "no"

    reg = make_registry(hang, after)
    backend = ScriptedBackend(calls(call("hang", "{}", "h1"), call("after", "{}", "h2")))
    saved = Saved()
    cancel = threading.Event()
    conv = Conversation()
    timer = threading.Timer(0.3, cancel.set)
    start = time.monotonic()
    timer.start()
    events = drive(Agent(backend, reg, on_message=saved), conv, "go", cancel)
    elapsed = time.monotonic() - start
    timer.join()
    assert elapsed < 5.0  # the tool would hang 10 s; Stop must end the run (generous bound)
    assert events[-1] == TurnCancelled(None)
    assert ran == ["hang"]
    finished = of(events, ToolCallFinished)
    assert [(f.call_id, f.status) for f in finished] == [("h1", "cancelled"), ("h2", "cancelled")]
    assert [(m.role, m.tool_call_id, m.tool_status) for m in saved.messages[2:]] == [
        ("tool", "h1", "cancelled"), ("tool", "h2", "cancelled")
    ]
    assert len(backend.requests) == 1


def test_consumer_closing_the_generator_closes_the_stream():
    backend = ScriptedBackend([Chunk(text="a"), Pause(0.01), Chunk(text="b"), Chunk(done=True)])
    gen = Agent(backend).run(Conversation(), "hi")
    for ev in gen:
        if isinstance(ev, TextDelta):
            break
    gen.close()
    assert backend.closed_streams == 1


def test_case24_an_unknown_tool_called_again_and_again_without_tools_offered_ends_the_turn_early():
    """shared case 24-agent-unknown-tool-name.json, with no tool offered (the message fits none): a model asking
    again for the very call it has the result of is stuck whether or not tools were offered — it is asked to
    answer without tools after its second identical call, not left to use all eight steps."""
    script = [calls(call("get_wether", '{"city": "Paris"}', f"c{i}")) for i in range(8)]
    backend = ScriptedBackend(*script, text("Paris."))
    events = drive(Agent(backend, make_registry(get_weather, get_time), relevant_only=True), Conversation(),
                   "What is the capital of France?")
    assert backend.requests[0].tools is None
    assert isinstance(events[-1], AnswerFinished) and len(backend.requests) <= 4
    assert any(isinstance(e, Notice) and "asked again for a tool call" in e.text for e in events)
    assert weather_calls == []
