"""The requests of one model call after an empty answer, and what is learned from them
(desktop_agent/core/capabilities.py), in the plan functions and through the agent loop with a
scripted backend."""

from __future__ import annotations

import threading

from desktop_agent import tool
from desktop_agent.core import state
from desktop_agent.core.agent import Agent
from desktop_agent.core.backends.base import Chunk
from desktop_agent.core.capabilities import (
    TOOLS_LEFT_OUT,
    Attempt,
    Capabilities,
    Learned,
    first_attempt,
    lesson,
    next_attempt,
    server_key,
)
from desktop_agent.core.errors import (
    AuthenticationFailed,
    BackendError,
    ContextTooLong,
    EmptyAnswer,
    ServerTimedOut,
    ToolsNotSupported,
)
from desktop_agent.core.events import AnswerFinished, Notice, TurnCancelled, TurnFailed
from desktop_agent.core.messages import Conversation
from desktop_agent.core.tools.registry import ToolRegistry

from .scripted import ScriptedBackend, call, calls, text

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(get_weather)
    return reg


def sent(backend: ScriptedBackend) -> list[tuple[bool, bool]]:
    return [(r.stream, r.tools is not None) for r in backend.requests]


def notices(events) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


# ---- the plan ------------------------------------------------------------------------------------------


def test_first_attempt_follows_what_was_learned():
    assert first_attempt(Learned(), TOOLS, "auto") == Attempt(TOOLS, True)
    assert first_attempt(Learned(), None, "auto") == Attempt(None, True)
    assert first_attempt(Learned(stream_with_tools=False), TOOLS, "auto") == Attempt(TOOLS, False)
    assert first_attempt(Learned(stream_with_tools=False), None, "auto") == Attempt(None, True)
    assert first_attempt(Learned(auto_tools=False), TOOLS, "auto") == Attempt(None, True)
    # a forced choice always offers the tools
    assert first_attempt(Learned(auto_tools=False), TOOLS, "get_weather") == Attempt(TOOLS, True)
    assert first_attempt(Learned(False, False), TOOLS, "required") == Attempt(TOOLS, False)


def test_next_attempt_is_at_most_two_more_requests():
    chain = [Attempt(TOOLS, True)]
    while (following := next_attempt(chain[-1], EmptyAnswer())) is not None:
        chain.append(following)
    assert chain == [Attempt(TOOLS, True), Attempt(TOOLS, False), Attempt(None, False)]
    assert next_attempt(Attempt(None, True), None) == Attempt(None, False)
    assert next_attempt(Attempt(None, False), None) is None


def test_only_failures_tools_may_cause_are_asked_again_without_tools():
    non_streamed = Attempt(TOOLS, False)
    assert next_attempt(non_streamed, BackendError("could not parse the tool call", 500)) == Attempt(None, False)
    assert next_attempt(non_streamed, ToolsNotSupported("m")) == Attempt(None, False)
    for final in (ContextTooLong("too long"), AuthenticationFailed("http://x"), ServerTimedOut("http://x", 5)):
        assert next_attempt(non_streamed, final) is None
    # a streamed request that fails (rather than comes back empty) is reported as it is
    assert next_attempt(Attempt(TOOLS, True), BackendError("boom", 500)) is None


def test_lessons():
    works = {"tools": True, "auto_tools": True}
    assert lesson(Attempt(TOOLS, True), Attempt(TOOLS, False), "auto") == {**works, "stream_with_tools": False}
    assert lesson(Attempt(TOOLS, True), Attempt(None, False), "auto") == {"auto_tools": False}
    assert lesson(Attempt(TOOLS, False), Attempt(None, False), "auto") == {"auto_tools": False}
    assert lesson(Attempt(TOOLS, True), Attempt(None, False), "get_weather") == {}
    assert lesson(Attempt(None, True), Attempt(None, False), "auto") == {}  # plain: not remembered
    # an answer where tools were offered is evidence that they work (it starts the failures' count again)
    assert lesson(Attempt(TOOLS, True), Attempt(TOOLS, True), "auto") == {**works, "stream_with_tools": True}
    assert lesson(Attempt(TOOLS, False), Attempt(TOOLS, False), "auto") == works
    # a forced choice streams where automatic choice may not: no evidence about streaming either way
    assert lesson(Attempt(TOOLS, True), Attempt(TOOLS, True), "get_weather") == {"tools": True}


def test_capabilities_are_kept_per_backend_name_url_and_model():
    caps = Capabilities()

    class B:
        def __init__(self, name, url, model, attr="base_url"):
            self.name, self.model = name, model
            setattr(self, attr, url)

    a = B("openai", "http://h:1/v1/", "m")
    caps.learn(a, stream_with_tools=False)
    caps.learn(a, stream_with_tools=False)  # two observations in a row turn a fact off
    assert server_key(a) == ("openai", "http://h:1/v1", "m")
    assert caps.learned(B("openai", "http://h:1/v1", "m")) == Learned(stream_with_tools=False)
    assert caps.learned(B("openai", "http://h:1/v1", "other")) == Learned()
    assert caps.learned(B("openai", "http://h:2/v1", "m")) == Learned()
    assert caps.learned(B("ollama", "http://h:1/v1/", "m", attr="host")) == Learned()
    caps.learn(a, auto_tools=False)
    caps.learn(a, auto_tools=False)
    assert caps.learned(a) == Learned(False, False)
    caps.clear()
    assert caps.learned(a) == Learned()


# ---- through the agent ---------------------------------------------------------------------------------


def test_an_empty_done_chunk_is_asked_again_without_streaming_and_remembered():
    """Ollama's shape of an empty answer: a done line with nothing in it (no EmptyAnswer raised). Remembered
    after the second time in a row."""
    empty = [Chunk(done=True, finish_reason="stop")]
    backend = ScriptedBackend(empty, text("Hi!"), empty, text("Hi again!"), text("Third!"))
    events = list(Agent(backend, registry()).run(Conversation(), "hi"))
    assert isinstance(events[-1], AnswerFinished) and events[-1].message.content == "Hi!"
    assert sent(backend) == [(True, True), (False, True)]
    assert len(notices(events)) == 1
    events = list(Agent(backend, registry()).run(Conversation(), "hi"))
    assert events[-1].message.content == "Hi again!"
    assert sent(backend)[2:] == [(True, True), (False, True)]  # once is not yet a lesson
    events = list(Agent(backend, registry()).run(Conversation(), "hi"))
    assert events[-1].message.content == "Third!"
    assert sent(backend)[4:] == [(False, True)] and notices(events) == []


def test_a_reasoning_only_answer_is_not_asked_again():
    backend = ScriptedBackend([Chunk(thinking="hmm"), EmptyAnswer()])
    events = list(Agent(backend, registry()).run(Conversation(), "hi"))
    assert isinstance(events[-1], TurnFailed) and isinstance(events[-1].error, EmptyAnswer)
    assert len(backend.requests) == 1


def test_a_failed_streamed_request_is_not_asked_again():
    backend = ScriptedBackend(AuthenticationFailed("http://x"))
    events = list(Agent(backend, registry()).run(Conversation(), "hi"))
    assert isinstance(events[-1].error, AuthenticationFailed)
    assert len(backend.requests) == 1 and notices(events) == []


def test_tools_left_out_once_learned_with_one_notice_per_turn():
    state.LEARNED.learn(ScriptedBackend(), auto_tools=False)
    state.LEARNED.learn(ScriptedBackend(), auto_tools=False)
    backend = ScriptedBackend(calls(call("get_weather", {"city": "Oslo"})), text("Sunny."))
    events = list(Agent(backend, registry(), tool_choice="get_weather").run(Conversation(), "weather?"))
    assert isinstance(events[-1], AnswerFinished)
    # the forced first call offers the tools; the follow-up (automatic choice) leaves them out
    assert sent(backend) == [(True, True), (True, False)]
    assert notices(events) == [TOOLS_LEFT_OUT]


def test_stop_between_the_attempts_ends_the_turn():
    cancel = threading.Event()
    backend = ScriptedBackend([Chunk(done=True), lambda c: cancel.set()], text("never"))
    events = list(Agent(backend, registry()).run(Conversation(), "hi", cancel))
    assert isinstance(events[-1], TurnCancelled)
    assert len(backend.requests) == 1


# ---- a model asking again for a call it has the result of -----------------------------------------------


def test_after_a_repeated_tool_call_the_turn_offers_no_tools():
    from desktop_agent.core.agent import REPEATED_CALLS
    from desktop_agent.core.events import ToolCallStarted

    backend = ScriptedBackend(
        calls(call("get_weather", {"city": "Oslo"})),
        calls(call("get_weather", {"city": "Oslo"})),  # the same again: stuck
        text("It is sunny in Oslo."),
    )
    conversation = Conversation()
    events = list(Agent(backend, registry()).run(conversation, "weather?"))
    assert isinstance(events[-1], AnswerFinished) and events[-1].message.content == "It is sunny in Oslo."
    assert len([e for e in events if isinstance(e, ToolCallStarted)]) == 2  # every call asked for runs
    assert notices(events) == [REPEATED_CALLS]
    assert sent(backend) == [(True, True), (True, True), (True, False)]
    assert [m.role for m in conversation.messages] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]


def test_a_call_with_other_arguments_is_run():
    backend = ScriptedBackend(
        calls(call("get_weather", {"city": "Oslo"})),
        calls(call("get_weather", {"city": "Rome"})),
        text("Both sunny."),
    )
    events = list(Agent(backend, registry()).run(Conversation(), "weather?"))
    assert isinstance(events[-1], AnswerFinished)
    assert [e.result for e in events if type(e).__name__ == "ToolCallFinished"] == ["sunny in Oslo", "sunny in Rome"]
    assert notices(events) == []


def test_offered_no_tools_a_model_that_only_writes_its_call_again_gets_the_tools_results_as_the_answer():
    """The README's 135M model, after repeating a call, was asked without tools — and answered
    ``functions.get_weather: {&#34;city&#34;…}``: that text was shown as the answer. The answer is now what the
    tool already said; the written call is neither shown nor run."""
    from desktop_agent.core.events import TextDelta, ToolCallStarted

    backend = ScriptedBackend(
        calls(call("get_weather", {"city": "Oslo"})),
        calls(call("get_weather", {"city": "Oslo"})),
        text("functions.get_weather:\n{&#34;city&#34;: &#34;Oslo&#34;}"),
    )
    conversation = Conversation()
    events = list(Agent(backend, registry()).run(conversation, "weather?"))
    final = events[-1]
    assert isinstance(final, AnswerFinished)
    assert "sunny in Oslo" in final.message.content and "functions." not in final.message.content
    assert not any(isinstance(e, TextDelta) and "functions." in e.text for e in events)
    assert len([e for e in events if isinstance(e, ToolCallStarted)]) == 2
    assert conversation.messages[-1].content == final.message.content
