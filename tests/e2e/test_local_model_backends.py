"""The app's backends against the real local model: ``OpenAIBackend`` on the llama.cpp server, and
``OllamaBackend`` (official ``ollama`` client) on the Ollama translator in front of it (issue 5, items
4 and 6). Temperature 0; the protocol is asserted, never the model's wisdom.
"""

from __future__ import annotations

import contextlib

import pytest

from desktop_agent.core import errors
from desktop_agent.core.messages import Message, ToolCall

pytestmark = pytest.mark.e2e

DAY_OF_WEEK = {
    "type": "function",
    "function": {
        "name": "day_of_week",
        "description": "The day of the week of a date.",
        "parameters": {
            "type": "object",
            "properties": {"date": {"type": "string", "description": "The date, YYYY-MM-DD"}},
            "required": ["date"],
        },
    },
}
SYSTEM = Message(role="system", content="You are a helpful assistant with tools.")
ASK_DAY = Message(role="user", content="What day of the week was 2024-01-01?")
#: A prompt the 135M model answers in a few tokens at temperature 0 ("Say hello" makes it ramble for
#: hundreds of tokens without a system prompt, and the backends send no max_tokens).
SHORT_PROMPT = "What is 2+2?"


@pytest.fixture
def openai_backend(llama_server):
    from desktop_agent.core.backends.openai import OpenAIBackend

    backend = OpenAIBackend(llama_server, "smollm2", [], needs_key=False, temperature=0.0, timeout_s=60,
                            retries_per_key=0)  # fmt: skip
    yield backend
    backend.close()


@pytest.fixture
def ollama_backend(ollama_translator):
    from desktop_agent.core.backends.ollama import OllamaBackend

    backend = OllamaBackend(ollama_translator.url, "smollm2", temperature=0.0, timeout_s=60)
    yield backend
    backend.close()


def _collect(chunks) -> tuple[list[str], list[ToolCall], list]:
    texts, calls, done = [], [], []
    for chunk in chunks:
        if chunk.text:
            texts.append(chunk.text)
        calls.extend(chunk.tool_calls)
        if chunk.done:
            done.append(chunk)
    return texts, calls, done


def _assert_day_of_week_call(calls: list[ToolCall]) -> None:
    assert len(calls) == 1, calls
    call = calls[0]
    assert call.id
    assert call.name == "day_of_week"
    assert call.arguments_error is None, call.raw_arguments
    assert isinstance(call.arguments.get("date"), str)


# ---- OpenAI-compatible: the llama.cpp server --------------------------------------------------------


def test_openai_plain_streaming_gives_several_deltas(openai_backend):
    texts, calls, done = _collect(openai_backend.stream_chat([Message(role="user", content=SHORT_PROMPT)]))
    assert len(texts) >= 2
    assert "".join(texts).strip()
    assert calls == []
    assert len(done) == 1 and done[0].finish_reason in ("stop", "length")


def test_openai_list_models(openai_backend):
    assert "smollm2" in [m.name for m in openai_backend.list_models()]


def test_openai_forced_tool_choice_gives_a_well_formed_call(openai_backend):
    """The server streams each tool-call delta with the id, the name and a legacy ``function_call``
    copy: the call must come out once, with its name once and its arguments once."""
    _texts, calls, done = _collect(
        openai_backend.stream_chat([SYSTEM, ASK_DAY], tools=[DAY_OF_WEEK], tool_choice="day_of_week")
    )
    _assert_day_of_week_call(calls)
    assert done[-1].finish_reason == "tool_calls"


def test_openai_auto_tool_choice_stream_is_an_answer_or_empty_answer(openai_backend):
    """Issue 5 item 6: this server's empty 200 stream (tools + ``tool_choice="auto"`` + streaming)
    becomes :class:`errors.EmptyAnswer` ("the server returned an empty answer"), never a silent
    empty reply or a client-library exception."""
    try:
        texts, _calls, done = _collect(openai_backend.stream_chat([SYSTEM, ASK_DAY], tools=[DAY_OF_WEEK]))
    except errors.EmptyAnswer as exc:
        assert "the server returned an empty answer" in str(exc).lower()
        assert exc.retryable
    else:  # the model chose to answer in text
        assert "".join(texts).strip() and done


def test_openai_tool_call_history_is_accepted(openai_backend):
    """Issue 5 item 6: after a tool call, the follow-up request (assistant tool-call message with
    ``content: ""`` — this server answers HTTP 500 to null — and the tool result) is accepted."""
    call = ToolCall(name="day_of_week", arguments={"date": "2024-01-01"})
    history = [
        SYSTEM,
        ASK_DAY,
        Message(role="assistant", content="", tool_calls=[call]),
        Message(role="tool", content='"Monday"', tool_call_id=call.id, tool_name="day_of_week"),
    ]
    try:
        _texts, _calls, done = _collect(openai_backend.stream_chat(history))  # no tools: a plain answer
    except errors.EmptyAnswer:
        pass  # the model may say nothing; the request itself was accepted
    else:
        assert done


def test_openai_retry_after_empty_answer_works_on_the_same_backend(openai_backend):
    """After the empty 200 (whose pooled connection the server may break), the next request on the
    same backend still works: what the Retry button does."""
    with contextlib.suppress(errors.EmptyAnswer):
        _collect(openai_backend.stream_chat([SYSTEM, ASK_DAY], tools=[DAY_OF_WEEK]))
    texts, _calls, done = _collect(openai_backend.stream_chat([Message(role="user", content=SHORT_PROMPT)]))
    assert "".join(texts).strip() and done


# ---- Ollama: the official client through the translator --------------------------------------------


def test_ollama_list_models_and_version(ollama_backend):
    assert [m.name for m in ollama_backend.list_models()] == ["smollm2"]
    assert ollama_backend.server_version()


def test_ollama_plain_streaming_gives_several_deltas(ollama_backend, ollama_translator):
    texts, calls, done = _collect(ollama_backend.stream_chat([Message(role="user", content=SHORT_PROMPT)]))
    assert len(texts) >= 2
    assert "".join(texts).strip()
    assert calls == []
    assert len(done) == 1 and done[0].finish_reason in ("stop", "length")
    sent = ollama_translator.requests[-1]
    assert sent["stream"] is True
    assert sent["options"]["temperature"] == 0.0


def test_ollama_tool_call_round_trip(ollama_backend, ollama_translator):
    with ollama_translator.forcing_tool("day_of_week"):
        _texts, calls, done = _collect(
            ollama_backend.stream_chat([SYSTEM, ASK_DAY], tools=[DAY_OF_WEEK], tool_choice="auto")
        )
    _assert_day_of_week_call(calls)
    assert done[-1].finish_reason == "tool_calls"
    call = calls[0]
    history = [
        SYSTEM,
        ASK_DAY,
        Message(role="assistant", content="", tool_calls=[call]),
        Message(role="tool", content='"Monday"', tool_call_id=call.id, tool_name="day_of_week"),
    ]
    _texts, _calls2, done = _collect(ollama_backend.stream_chat(history))
    assert done
    wire = ollama_translator.requests[-1]["messages"]
    assert wire[2]["tool_calls"][0]["function"] == {"name": "day_of_week", "arguments": call.arguments}
    assert wire[3] == {"role": "tool", "content": '"Monday"', "tool_name": "day_of_week"}


# ---- the agent with the app's default settings (tools on, automatic tool choice) ---------------------


def _default_settings(base_url: str):
    from desktop_agent.core.settings import Settings

    return Settings().updated({"backend": "openai", "openai.base_url": base_url, "openai.model": "smollm2"})


def _agent_turn(settings, text: str):
    """One turn through the agent as the app assembles it; the events."""
    from desktop_agent.core import assembly
    from desktop_agent.core.messages import Conversation

    assert settings.tools.enabled and settings.loop.tool_choice == "auto"
    backend = assembly.build_backend(assembly.backend_spec(settings))
    registry, problems = assembly.build_registry(settings)
    assert not problems and len(registry) > 0
    try:
        return list(assembly.build_agent(settings, backend, registry).run(Conversation(), text))
    finally:
        backend.close()


@pytest.mark.timeout(300)
def test_agent_with_default_settings_answers_although_the_server_cannot_stream_with_tools(llama_server):
    """This server answers a streamed request offering tools with automatic choice with an empty 200:
    the agent asks again without streaming (and, if need be, without tools) and gets an answer."""
    from desktop_agent.core.events import AnswerFinished, Notice

    # (a message some tools fit, none clearly: they are offered with automatic choice)
    events = _agent_turn(_default_settings(llama_server), "Read the file notes.txt")
    assert isinstance(events[-1], AnswerFinished), events[-1]
    assert events[-1].message.content.strip()
    assert any(isinstance(e, Notice) and "asked again without" in e.text for e in events)


@pytest.mark.timeout(300)
def test_a_67_kb_message_is_reported_as_too_long_for_the_context_with_the_servers_reason(llama_server):
    """n_ctx is 4096: the streamed request comes back as an empty 200 (the server fails after it); the
    request without streaming gets the server's HTTP 400 and its reason, which the user is shown."""
    from desktop_agent.core.events import TurnFailed

    pasted = "The quick brown fox jumps over the lazy dog. " * 1500  # ≈ 67 KB
    assert 60_000 < len(pasted.encode()) < 70_000
    events = _agent_turn(_default_settings(llama_server), pasted)
    assert isinstance(events[-1], TurnFailed), events[-1]
    error = events[-1].error
    assert isinstance(error, errors.ContextTooLong), error
    assert "maximum context length is 4096 tokens" in error.detail
    assert "maximum context length is 4096 tokens" in str(error)
