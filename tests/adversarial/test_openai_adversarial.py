"""Adversarial variants of the backend-openai shared cases: OpenAIBackend through the official
``openai`` client against the local Chat Completions server (tests/servers/openai.py, strict mode:
it refuses requests the way strict real servers do)."""

from __future__ import annotations

import pytest

from desktop_agent.core.agent import Agent
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.events import AnswerFinished, TextDelta, ThinkingDelta
from desktop_agent.core.messages import Conversation
from desktop_agent.core.tools.registry import ToolRegistry
from tests.servers.openai import chunk

ran: list[str] = []


def get_weather(city: str) -> str:
    """Current weather for a city."""
    ran.append(city)
    return f"sunny in {city}"


def delta(d: dict, finish: str | None = None) -> dict:
    return chunk("chatcmpl-1", "local-model", d, finish)


FINAL = {
    "id": "chatcmpl-2", "object": "chat.completion", "created": 1735689600, "model": "local-model",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Done."}}],
}


@pytest.fixture
def run_turn(openai_server):
    def run(*replies, tools=(get_weather,)):
        ran.clear()
        openai_server.script(*replies)
        backend = OpenAIBackend(openai_server.url, "local-model", [], needs_key=False, retries_per_key=0,
                                timeout_s=10)
        registry = ToolRegistry(timeout_s=5)
        for t in tools:
            registry.register(t)
        conversation = Conversation()
        events = list(Agent(backend, registry).run(conversation, "weather?"))
        backend.close()
        return events, conversation

    return run


@pytest.mark.parametrize("ids", [("call_0", "call_0"), ("dup", "dup")], ids=["numbered-0", "same-id"])
def test_case17_kind_duplicate_ids_on_distinct_indexes(run_turn, openai_server, ids):
    """Shared case 17-openai-empty-tool-call-id.json, same kind (ids that cannot pair results with
    calls): two parallel calls at index 0 and 1 that carry the SAME id. Both calls run (the second
    is not merged into the first and lost), each gets its own id, and the next request pairs every
    result — the strict server accepts it."""
    stream = [
        delta({"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": ids[0], "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
        delta({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Lima"}'}}]}),
        delta({"tool_calls": [
            {"index": 1, "id": ids[1], "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
        delta({"tool_calls": [{"index": 1, "function": {"arguments": '{"city": "Rome"}'}}]}),
        delta({}, "tool_calls"),
        "[DONE]",
    ]
    events, conv = run_turn(stream, FINAL)
    assert ran == ["Lima", "Rome"]
    step = conv.messages[1]
    assert len({c.id for c in step.tool_calls}) == 2
    assert [m.tool_call_id for m in conv.messages[2:4]] == [c.id for c in step.tool_calls]
    assert isinstance(events[-1], AnswerFinished), events[-1]
    assert len(openai_server.requests) == 2


def test_case19_kind_both_reasoning_fields_in_one_delta_are_not_doubled(run_turn):
    """Shared case 19-openai-reasoning-field-variants.json, same kind: a server that sends the
    reasoning under BOTH names in every delta (vLLM keeps `reasoning_content` next to the newer
    `reasoning` for compatibility). The thinking is shown once, not twice."""
    stream = [
        delta({"role": "assistant", "content": "", "reasoning": "The user wants 2+2. ",
               "reasoning_content": "The user wants 2+2. "}),
        delta({"content": "", "reasoning": "That is 4.", "reasoning_content": "That is 4."}),
        delta({"content": "4"}),
        delta({}, "stop"),
        "[DONE]",
    ]
    events, conv = run_turn(stream, tools=())
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    assert thinking == "The user wants 2+2. That is 4."
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "4"
    assert conv.messages[-1].thinking == "The user wants 2+2. That is 4."


def test_stop_while_the_server_has_not_answered_yet(openai_server):
    """Stop (the cancel flag) while an OpenAI-compatible server is still silent — no headers yet, as
    when LM Studio / Ollama's /v1 load a model — ends stream_chat promptly, without an error and
    without waiting for the server or the 60 s timeout (the Ollama backend does the same)."""
    import threading

    from desktop_agent.core.messages import Message

    arrived, release = threading.Event(), threading.Event()

    def silent(request):
        arrived.set()
        release.wait(30)
        return None

    openai_server.script(silent)
    backend = OpenAIBackend(openai_server.url, "local-model", [], needs_key=False, retries_per_key=0, timeout_s=60)
    cancel = threading.Event()
    outcome: dict = {}

    def consume():
        try:
            outcome["chunks"] = list(backend.stream_chat([Message(role="user", content="hi")], cancel=cancel))
        except BaseException as exc:  # noqa: BLE001
            outcome["error"] = exc

    worker = threading.Thread(target=consume, daemon=True)
    worker.start()
    try:
        assert arrived.wait(10)
        cancel.set()
        worker.join(10)  # liveness check: the server stays silent for 30 s
        assert not worker.is_alive(), "stream_chat did not return after cancel"
        assert outcome == {"chunks": []}
    finally:
        release.set()
        backend.close()


def test_case21_kind_local_server_that_does_need_a_key(openai_server):
    """Shared case 21-openai-api-key-missing-or-401.json, variants A and B crossed: a server on
    127.0.0.1 (so no key is required by default and a placeholder is sent) that DOES want a key
    answers 401. The user is told that no key is set — not that "the API key was rejected", which
    sends them looking for a key they never entered. No retries on 401."""
    from desktop_agent.core.errors import NoApiKey
    from desktop_agent.core.messages import Message

    openai_server.required_keys = {"sk-the-right-one"}
    backend = OpenAIBackend(openai_server.url, "local-model", [], needs_key=False, retries_per_key=2,
                            retry_interval_s=0)
    try:
        with pytest.raises(NoApiKey) as info:
            list(backend.stream_chat([Message(role="user", content="hi")]))
    finally:
        backend.close()
    assert "No API key is set" in str(info.value) and openai_server.url in str(info.value)
    assert len(openai_server.requests) == 1
