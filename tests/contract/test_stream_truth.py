"""Streams tell the truth (issue 13), against the real local wire-protocol servers through the official
clients: an answer is complete only when the server says so; tool calls come from every frame and run
once; two waits (first data, next data) where keep-alives are not progress; SSE and NDJSON read as
their specs define them; Stop ends a stalled stream at once.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from desktop_agent.core import errors
from desktop_agent.core.agent import Agent
from desktop_agent.core.backends.ollama import OllamaBackend
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.events import AnswerFinished, Event, TextDelta, ToolCallStarted, TurnCancelled, TurnFailed
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.session import ChatSession
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.tools.registry import ToolRegistry
from tests.servers.ollama import Pause, done_line
from tests.servers.openai import Raw, chunk

MODEL = "local-model"


def user(text: str) -> list[Message]:
    return [Message(role="user", content=text)]


def sse(*events: Any) -> bytes:
    return b"".join(f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n".encode() for e in events)


def delta(content: str | None = None, finish: str | None = None, **more: Any) -> dict:
    d: dict[str, Any] = dict(more)
    if content is not None:
        d["content"] = content
    return chunk("chatcmpl-1", MODEL, d, finish)


def line(content: str = "", **message: Any) -> dict:
    return {"message": {"role": "assistant", "content": content, **message}, "done": False}


def openai_backend(server, **kw) -> OpenAIBackend:
    kw.setdefault("timeout_s", 10.0)
    return OpenAIBackend(server.url, MODEL, [], needs_key=False, retries_per_key=0, **kw)


def ollama_backend(server, **kw) -> OllamaBackend:
    kw.setdefault("timeout_s", 10.0)
    return OllamaBackend(server.url, MODEL, **kw)


class Counter:
    """Records the runs of a ``get_weather`` tool."""

    def __init__(self) -> None:
        self.calls: list[dict] = []

    def registry(self) -> ToolRegistry:
        def get_weather(city: str) -> str:
            """Weather for a city."""
            self.calls.append({"city": city})
            return f"{city}: sunny"

        registry = ToolRegistry()
        registry.register(get_weather)
        return registry


def registry_with(counter: Counter) -> ToolRegistry:
    return counter.registry()


def run_session(backend, tmp_path, registry: ToolRegistry | None = None) -> tuple[list[Event], ChatSession]:
    store = ConversationStore(tmp_path / "chats.sqlite3")
    session = ChatSession(Conversation(), store, Agent(backend, registry, max_steps=4))
    events = list(session.run_turn("hi", threading.Event()))
    return events, session


# ------------------------------------------------------------------------------ complete only when said so
def test_openai_stream_without_finish_reason_or_done_is_cut_off_saved_and_retryable(openai_server, tmp_path):
    """The stream ends (cleanly, at the HTTP level) with neither a finish_reason nor [DONE]: the text
    is shown, saved as interrupted, and the failure is kept for Retry."""
    openai_server.script(Raw(sse(delta("Hello, "), delta("wor")), complete=True))
    events, session = run_session(openai_backend(openai_server), tmp_path)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello, wor"
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and isinstance(failed.error, errors.AnswerCutOff)
    assert failed.partial is not None and failed.partial.status == "interrupted"
    saved = session.store.load(session.id)  # type: ignore[union-attr]
    assert saved.messages[-1].content == "Hello, wor" and saved.messages[-1].status == "interrupted"
    assert saved.last_failure is not None and saved.last_failure.kind == "AnswerCutOff"
    # Retry: the next stream is complete and answers
    retried = list(session.run_turn(None, threading.Event()))
    assert isinstance(retried[-1], AnswerFinished)


@pytest.mark.parametrize("ending", [[delta("Hi", "stop")], [delta("Hi"), "[DONE]"]], ids=["finish_reason", "done"])
def test_openai_either_finish_reason_or_done_completes(openai_server, ending):
    openai_server.script(Raw(sse(*ending), complete=True))
    chunks = list(openai_backend(openai_server).stream_chat(user("hi")))
    assert chunks[-1].done and "".join(c.text for c in chunks) == "Hi"


def test_openai_tool_call_without_end_is_cut_off_and_not_run(openai_server, tmp_path):
    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{"}}
    openai_server.script(Raw(sse(delta(tool_calls=[call])), complete=True))
    counter = Counter()
    events, _ = run_session(openai_backend(openai_server), tmp_path, registry_with(counter))
    assert isinstance(events[-1], TurnFailed) and isinstance(events[-1].error, errors.AnswerCutOff)
    assert counter.calls == []


def test_ollama_stream_without_done_is_cut_off_and_saved(ollama_server, tmp_path):
    ollama_server.script([line("Hello, "), line("wor")])
    events, session = run_session(ollama_backend(ollama_server), tmp_path)
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and isinstance(failed.error, errors.AnswerCutOff)
    saved = session.store.load(session.id)  # type: ignore[union-attr]
    assert saved.messages[-1].content == "Hello, wor" and saved.messages[-1].status == "interrupted"


# ------------------------------------------------------------------------------ tool calls: every frame, once
def test_ollama_tool_calls_in_the_done_line_run(ollama_server, tmp_path):
    call = {"function": {"name": "get_weather", "arguments": {"city": "Lima"}}}
    ollama_server.script([line("Let me check. "), {**done_line(MODEL), "message": {
        "role": "assistant", "content": "", "tool_calls": [call]}}])
    counter = Counter()
    events, _ = run_session(ollama_backend(ollama_server), tmp_path, registry_with(counter))
    assert counter.calls == [{"city": "Lima"}] and isinstance(events[-1], AnswerFinished)


@pytest.mark.parametrize("with_index", [False, True], ids=["no-index", "function-index"])
def test_ollama_a_call_repeated_in_a_later_frame_runs_once(ollama_server, tmp_path, with_index):
    fn: dict[str, Any] = {"name": "get_weather", "arguments": {"city": "Lima"}}
    if with_index:
        fn["index"] = 0
    ollama_server.script([line(tool_calls=[{"function": fn}]), {**done_line(MODEL), "message": {
        "role": "assistant", "content": "", "tool_calls": [{"function": fn}]}}])
    counter = Counter()
    events, _ = run_session(ollama_backend(ollama_server), tmp_path, registry_with(counter))
    assert counter.calls == [{"city": "Lima"}]
    assert len([e for e in events if isinstance(e, ToolCallStarted)]) == 1


def test_ollama_two_equal_calls_in_one_frame_are_two_calls(ollama_server):
    fn = {"name": "get_weather", "arguments": {"city": "Lima"}}
    ollama_server.script([line(tool_calls=[{"function": fn}, {"function": fn}]), done_line(MODEL)])
    chunks = list(ollama_backend(ollama_server).stream_chat(user("hi")))
    assert len([c for ch in chunks for c in ch.tool_calls]) == 2


def test_openai_a_call_restated_in_the_final_chunk_runs_once(openai_server, tmp_path):
    head = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    args = {"index": 0, "function": {"arguments": '{"city": "Lima"}'}}
    whole = {"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Lima"}'}}
    openai_server.script(Raw(sse(delta(tool_calls=[head]), delta(tool_calls=[args]),
                                 delta(finish="tool_calls", tool_calls=[whole]), "[DONE]"), complete=True))
    counter = Counter()
    events, _ = run_session(openai_backend(openai_server), tmp_path, registry_with(counter))
    assert counter.calls == [{"city": "Lima"}] and isinstance(events[-1], AnswerFinished)


def test_openai_tool_calls_only_in_the_final_chunk_run(openai_server, tmp_path):
    whole = {"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Lima"}'}}
    openai_server.script(Raw(sse(delta("On it. "), delta(finish="tool_calls", tool_calls=[whole])), complete=True))
    counter = Counter()
    events, _ = run_session(openai_backend(openai_server), tmp_path, registry_with(counter))
    assert counter.calls == [{"city": "Lima"}] and isinstance(events[-1], AnswerFinished)


# ------------------------------------------------------------------------------ two waits
def test_openai_keepalives_are_not_progress_a_stall_keeps_the_partial(openai_server, tmp_path):
    """Data, then only keep-alive comments: the next-data wait (0.5 s; the first-data wait and the
    client's read timeout are 30 s) ends the turn, the partial answer kept, "stopped responding"."""
    openai_server.script(Raw(sse(delta("Hello, ")), stall_s=30, keepalive=b": ping\n\n"))
    backend = openai_backend(openai_server, timeout_s=30.0, next_data_timeout_s=0.5)
    events, session = run_session(backend, tmp_path)
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and isinstance(failed.error, errors.ServerStoppedResponding)
    assert "stopped responding" in str(failed.error)
    assert failed.partial is not None and failed.partial.content == "Hello, "
    saved = session.store.load(session.id)  # type: ignore[union-attr]
    assert saved.messages[-1].content == "Hello, " and saved.messages[-1].status == "interrupted"
    assert openai_server.stream_aborted.wait(5)


def test_openai_empty_chunks_do_not_count_as_first_data(openai_server):
    """Headers and a role-only chunk came, then keep-alives: the first-data wait runs out."""
    openai_server.script(Raw(sse(delta("", role="assistant")), stall_s=30, keepalive=b": ping\n\n"))
    backend = openai_backend(openai_server, timeout_s=0.5, next_data_timeout_s=30.0)
    with pytest.raises(errors.ServerTimedOut):
        list(backend.stream_chat(user("hi")))


def test_ollama_empty_frames_are_not_progress_a_stall_keeps_the_partial(ollama_server, tmp_path):
    empty = (json.dumps(line("")) + "\n").encode()
    ollama_server.script([line("Hello, "), Pause(30, keepalive=b"\n" + empty)])
    backend = ollama_backend(ollama_server, timeout_s=30.0, next_data_timeout_s=0.5)
    events, _ = run_session(backend, tmp_path)
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and isinstance(failed.error, errors.ServerStoppedResponding)
    assert failed.partial is not None and failed.partial.content == "Hello, "


def test_ollama_first_data_wait_covers_a_silent_server(ollama_server):
    """No headers at all (a model loading) past the first-data wait: "did not answer within"."""
    ollama_server.first_chunk_delay_s = 30
    backend = ollama_backend(ollama_server, timeout_s=0.5, next_data_timeout_s=30.0)
    with pytest.raises(errors.ServerTimedOut):
        list(backend.stream_chat(user("hi")))


def test_a_slow_but_steady_stream_is_not_a_stall(ollama_server):
    """Each line inside the next-data wait: the whole answer comes, however long it takes in total."""
    ollama_server.chunk_delay_s = 0.1
    ollama_server.script([line(f"w{i} ") for i in range(8)] + [done_line(MODEL)])
    chunks = list(ollama_backend(ollama_server, timeout_s=5.0, next_data_timeout_s=0.5).stream_chat(user("hi")))
    assert chunks[-1].done and "".join(c.text for c in chunks) == "".join(f"w{i} " for i in range(8))


# ------------------------------------------------------------------------------ Stop during a stall
@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_stop_during_a_stalled_stream_returns_at_once(openai_server, ollama_server, kind):
    """Stop while the server trickles keep-alives mid-answer (so no wait runs out: 60 s each): the turn
    ends as cancelled with the partial answer, well within the liveness bound."""
    if kind == "openai":
        openai_server.script(Raw(sse(delta("Hello, ")), stall_s=60, keepalive=b": ping\n\n"))
        backend: Any = openai_backend(openai_server, timeout_s=60.0, next_data_timeout_s=60.0)
    else:
        ollama_server.script([line("Hello, "), Pause(60, keepalive=b"\n")])
        backend = ollama_backend(ollama_server, timeout_s=60.0, next_data_timeout_s=60.0)
    cancel = threading.Event()
    events: list[Event] = []

    def turn() -> None:
        for event in Agent(backend, None).run(Conversation(), "hi", cancel):
            events.append(event)
            if isinstance(event, TextDelta):
                cancel.set()  # Stop, pressed while the stream is stalled

    worker = threading.Thread(target=turn, daemon=True)
    worker.start()
    worker.join(5)  # liveness bound: the stall lasts 60 s
    assert not worker.is_alive(), "the turn did not end after Stop"
    assert isinstance(events[-1], TurnCancelled) and events[-1].partial is not None
    assert events[-1].partial.content == "Hello, "


# ------------------------------------------------------------------------------ SSE and NDJSON as specified
def test_sse_read_as_the_spec_defines_it(openai_server):
    """Comments, ``event:``, ``id:``, ``retry:``, CRLF line ends, a field without a space after the
    colon, and one JSON object split over two ``data:`` lines (joined with a newline)."""
    first = json.dumps(delta("Hel"))
    second = json.dumps(delta("lo", "stop"), indent=None)
    mid = second.index('"choices"')
    body = (
        ": keep-alive comment\r\n"
        "retry: 3000\r\n"
        "id: 1\r\n"
        "event: message\r\n"
        f"data:{first}\r\n"
        "\r\n"
        ": another comment\r\n"
        "id: 2\r\n"
        f"data: {second[:mid]}\r\n"
        f"data: {second[mid:]}\r\n"
        "\r\n"
        "data: [DONE]\r\n\r\n"
    ).encode()
    openai_server.script(Raw(body, complete=True))
    chunks = list(openai_backend(openai_server).stream_chat(user("hi")))
    assert "".join(c.text for c in chunks) == "Hello" and chunks[-1].done


def test_ndjson_with_blank_lines_and_crlf(ollama_server):
    lines = [(json.dumps(line("Hel")) + "\r\n").encode(), b"\r\n", b"\n",
             (json.dumps(line("lo")) + "\r\n").encode(), (json.dumps(done_line(MODEL)) + "\r\n").encode()]
    ollama_server.script(lines)
    chunks = list(ollama_backend(ollama_server).stream_chat(user("hi")))
    assert "".join(c.text for c in chunks) == "Hello" and chunks[-1].done


def test_a_retry_after_pause_longer_than_the_first_data_wait_does_not_cut_the_retry(openai_server):
    """429 with Retry-After 1 s while the first-data wait is 0.5 s: the retry gets its own wait and answers."""
    from tests.servers.openai import HttpError

    openai_server.script(HttpError(429, headers={"Retry-After": "1"}))
    backend = OpenAIBackend(openai_server.url, MODEL, [], needs_key=False, retries_per_key=1, timeout_s=0.5)
    chunks = list(backend.stream_chat(user("again")))
    assert chunks[-1].done and "".join(c.text for c in chunks) == "You said: again"
    assert len(openai_server.requests) == 2
