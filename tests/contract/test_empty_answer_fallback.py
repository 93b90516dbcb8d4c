"""An empty answer is asked again without streaming, then without tools, and what worked is remembered
per server and model (core/capabilities.py) — through the agent loop, OpenAIBackend and the official
``openai`` client, against the local Chat Completions server imitating llama-cpp-python's server
(``empty_auto_tool_streams``: a streamed request offering tools with automatic choice gets a 200 and
an empty body; non-streamed requests are answered).
"""

from __future__ import annotations

import pytest

from desktop_agent.core import state
from desktop_agent.core.agent import Agent
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.capabilities import TOOLS_LEFT_OUT, Learned
from desktop_agent.core.errors import ContextTooLong, EmptyAnswer
from desktop_agent.core.events import AnswerFinished, Notice, ToolCallFinished, TurnFailed
from desktop_agent.core.messages import Conversation
from desktop_agent.core.tools.registry import ToolRegistry
from tests.servers.openai import Json, Raw

NO_STREAM_NOTICE = "This server sent an empty streamed answer when offered tools; asked again without streaming."
NO_TOOLS_NOTICE = "The server sent an empty answer when offered tools; asked again without tools."

EMPTY_COMPLETION = {
    "id": "chatcmpl-empty", "object": "chat.completion", "created": 1735689600, "model": "local-model",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": ""}}],
}  # fmt: skip


def get_current_weather(location: str) -> str:
    """Current weather for a location."""
    return f"sunny in {location}"


def say_hello(name: str) -> str:
    """Greets someone."""
    return f"Hello, {name}!"


def registry() -> ToolRegistry:
    reg = ToolRegistry(timeout_s=5)
    reg.register(get_current_weather)
    reg.register(say_hello)
    return reg


def new_backend(server) -> OpenAIBackend:
    return OpenAIBackend(server.url, "local-model", [], needs_key=False, retries_per_key=0, timeout_s=10)


def turn(server, text: str, conversation: Conversation | None = None, **agent_options):
    """One turn on a new backend and agent (as the window builds them); the events and the conversation."""
    backend = new_backend(server)
    conversation = conversation if conversation is not None else Conversation()
    try:
        events = list(Agent(backend, registry(), **agent_options).run(conversation, text))
    finally:
        backend.close()
    return events, conversation


def sent(server, start: int = 0) -> list[tuple[bool, bool]]:
    """(streamed, offered tools) of each chat request from ``start`` on."""
    return [(bool(r.get("stream")), bool(r.get("tools"))) for r in server.requests[start:]]


def notices(events) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


@pytest.fixture
def llama_like(openai_server):
    openai_server.empty_auto_tool_streams = True
    return openai_server


def test_empty_streamed_answer_with_tools_is_asked_again_without_streaming(llama_like):
    events, conversation = turn(llama_like, "hi")
    assert isinstance(events[-1], AnswerFinished), events[-1]
    assert events[-1].message.content == "You said: hi"
    assert sent(llama_like) == [(True, True), (False, True)]
    assert notices(events) == [NO_STREAM_NOTICE]
    assert [m.role for m in conversation.messages] == ["user", "assistant"]


def test_a_third_turn_asks_without_streaming_at_once_and_says_nothing(llama_like):
    turn(llama_like, "hi")
    before = len(llama_like.requests)
    turn(llama_like, "hi again")  # one empty answer is no lesson yet: asked again the same way
    assert sent(llama_like, before) == [(True, True), (False, True)]
    before = len(llama_like.requests)
    events, _ = turn(llama_like, "hello again")  # a new backend and agent: what was learned stays
    assert isinstance(events[-1], AnswerFinished) and events[-1].message.content == "You said: hello again"
    assert sent(llama_like, before) == [(False, True)]
    assert notices(events) == []


def test_what_is_learned_is_per_server_and_model(llama_like, openai_server):
    turn(llama_like, "hi")
    backend = new_backend(llama_like)
    assert state.LEARNED.learned(backend) == Learned()
    turn(llama_like, "hi again")
    assert state.LEARNED.learned(backend) == Learned(stream_with_tools=False, auto_tools=True)
    other = OpenAIBackend(llama_like.url, "another-model", [], needs_key=False)
    assert state.LEARNED.learned(other) == Learned()
    backend.close()
    other.close()


def test_empty_again_without_streaming_is_asked_without_tools_and_tools_are_then_left_out(llama_like):
    for n in range(2):  # twice in a row: the second time makes it a lesson
        before = len(llama_like.requests)
        llama_like.script(Json(EMPTY_COMPLETION))  # the non-streamed request with tools answers nothing
        events, _ = turn(llama_like, "hi")
        assert isinstance(events[-1], AnswerFinished) and events[-1].message.content == "You said: hi"
        assert sent(llama_like, before) == [(True, True), (False, True), (False, False)]
        assert notices(events) == [NO_STREAM_NOTICE, NO_TOOLS_NOTICE]
        assert state.LEARNED.learned(new_backend(llama_like)).auto_tools is (n == 0)

    before = len(llama_like.requests)
    events, _ = turn(llama_like, "and now?")
    assert isinstance(events[-1], AnswerFinished)
    assert sent(llama_like, before) == [(True, False)]  # no tools, so streaming works again
    assert notices(events) == [TOOLS_LEFT_OUT]  # one short notice per turn

    # a forced tool choice still offers the tools
    before = len(llama_like.requests)
    events, _ = turn(llama_like, "say hello to Ada", tool_choice="say_hello", max_steps=2)
    assert sent(llama_like, before)[0] == (True, True)
    assert llama_like.requests[before]["tool_choice"] == {"type": "function", "function": {"name": "say_hello"}}
    assert any(isinstance(e, ToolCallFinished) and e.ok for e in events)


def test_a_tool_result_followed_by_an_empty_answer_is_asked_again(llama_like):
    """A forced first call streams (the quirk is automatic choice only); the follow-up after the tool
    result (automatic choice) comes back empty and is asked again without streaming."""
    events, conversation = turn(llama_like, "what is the weather in Paris?", tool_choice="get_current_weather")
    assert isinstance(events[-1], AnswerFinished), events[-1]
    assert events[-1].message.content == "The tool said: sunny in Paris"
    assert sent(llama_like) == [(True, True), (True, True), (False, True)]
    assert llama_like.requests[2]["messages"][-1]["role"] == "tool"
    assert notices(events) == [NO_STREAM_NOTICE]
    assert [m.role for m in conversation.messages] == ["user", "assistant", "tool", "assistant"]


def test_the_follow_up_after_a_tool_result_goes_without_streaming_once_learned(llama_like):
    turn(llama_like, "hi")
    turn(llama_like, "hi again")
    before = len(llama_like.requests)
    events, _ = turn(llama_like, "what is the weather in Paris?")
    assert isinstance(events[-1], AnswerFinished) and events[-1].message.content == "The tool said: sunny in Paris"
    assert sent(llama_like, before) == [(False, True), (False, True)]
    assert notices(events) == []


def test_never_more_than_two_extra_requests(llama_like):
    llama_like.script(Json(EMPTY_COMPLETION), Json(EMPTY_COMPLETION), Json(EMPTY_COMPLETION))
    events, conversation = turn(llama_like, "hi")
    assert isinstance(events[-1], TurnFailed) and isinstance(events[-1].error, EmptyAnswer)
    assert sent(llama_like) == [(True, True), (False, True), (False, False)]
    assert [m.role for m in conversation.messages] == ["user"]
    assert state.LEARNED.learned(new_backend(llama_like)) == Learned()  # nothing worked: nothing learned


def test_a_plain_empty_stream_is_asked_once_without_streaming_and_not_remembered(openai_server):
    openai_server.script(Raw(b"", complete=True))
    backend = new_backend(openai_server)
    events = list(Agent(backend).run(Conversation(), "hi"))
    assert isinstance(events[-1], AnswerFinished) and events[-1].message.content == "You said: hi"
    assert sent(openai_server) == [(True, False), (False, False)]
    assert notices(events) == ["The server sent an empty streamed answer; asked again without streaming."]
    events = list(Agent(backend).run(Conversation(), "again"))
    assert isinstance(events[-1], AnswerFinished)
    assert sent(openai_server, 2) == [(True, False)]
    backend.close()


def test_a_message_too_long_for_the_context_is_reported_with_the_servers_reason(llama_like):
    """llama-cpp-python answers a streamed request longer than its context with a 200 and nothing; the
    non-streamed retry gets its HTTP 400 with the reason. Not asked a third time without tools."""
    llama_like.context_limit_chars = 4000
    llama_like.context_error = "llama-cpp-python"
    events, conversation = turn(llama_like, "pasted text " * 5600)  # ≈ 67 KB
    assert isinstance(events[-1], TurnFailed), events[-1]
    error = events[-1].error
    assert isinstance(error, ContextTooLong)
    assert "maximum context length is 1000 tokens" in error.detail
    assert "maximum context length is 1000 tokens" in str(error)
    assert sent(llama_like) == [(True, True), (False, True)]
    # (issue 13: the message alone is bigger than the window — 8192 tokens when the server does not say — and
    # that is said before the answer; there are no earlier messages to leave out, so it is not asked again)
    too_big, *rest = notices(events)
    assert too_big.startswith("The system prompt, the tools and the new message alone") and rest == [NO_STREAM_NOTICE]
    assert [m.role for m in conversation.messages] == ["user"]
