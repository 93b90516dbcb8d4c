"""The runner hands streamed text to the GUI thread in batches, joined, with every other event in order."""

from __future__ import annotations

import time

from desktop_agent.core.assembly import Assembly
from desktop_agent.core.events import AnswerFinished, MessageAdded, Notice, TextDelta, ThinkingDelta
from desktop_agent.core.messages import Conversation
from desktop_agent.core.session import ChatSession
from desktop_agent.core.settings import Settings
from desktop_agent.ui.agent_runner import AgentRunner, TurnEnded, TurnStarted, join_deltas
from tests.helpers.replies import text_lines


def test_join_deltas_joins_runs_of_the_same_kind_only():
    events = [TextDelta("a"), TextDelta("b"), ThinkingDelta("t"), ThinkingDelta("u"), Notice("n"),
              TextDelta("c"), TextDelta("d")]
    assert join_deltas(events) == [TextDelta("ab"), ThinkingDelta("tu"), Notice("n"), TextDelta("cd")]
    assert join_deltas([]) == []


def test_streamed_text_waiting_for_a_busy_gui_thread_arrives_as_one_event(qtbot, ollama_server):
    """While the GUI thread is busy (here: the handler of the first piece), the worker keeps streaming; what
    it queued meanwhile reaches the GUI thread as one joined ``TextDelta`` — not one event per token, each
    costing the GUI thread a wake-up — and the events after it keep their order."""
    pieces = [f"word{i} " for i in range(400)]
    ollama_server.script(text_lines(pieces))
    runner = AgentRunner(Assembly())
    events: list[object] = []

    def on_event(ev: object) -> None:
        events.append(ev)
        if isinstance(ev, TextDelta) and len([e for e in events if isinstance(e, TextDelta)]) == 1:
            deadline = time.monotonic() + 20
            while not runner._worker.queue.urgent() and time.monotonic() < deadline:
                time.sleep(0.01)  # busy until the whole answer is queued (the worker queued its end)

    runner.turn_event.connect(on_event)
    try:
        runner.start_turn(ChatSession(Conversation()), "say 400 words",
                          Settings(ollama_host=ollama_server.url, tools_enabled=False))
        qtbot.waitUntil(lambda: not runner.busy, timeout=30_000)
    finally:
        assert runner.shutdown(2.0)
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(deltas) == "".join(pieces)
    assert len(deltas) <= 3  # the first piece, then what queued meanwhile (was: 400 events)
    kinds = [type(e) for e in events]
    assert kinds[0] is TurnStarted and kinds[-1] is TurnEnded
    assert kinds.index(MessageAdded) < kinds.index(TextDelta)  # the user's message first
    last_delta = max(i for i, k in enumerate(kinds) if k is TextDelta)
    assert kinds.index(AnswerFinished) > last_delta  # the end after all of the text


def test_a_steady_stream_wakes_the_gui_thread_once_a_batch_not_once_a_token(qtbot, ollama_server):
    """While text flows, the runner's batch timer collects it: the worker does not wake the GUI thread for
    more text (each wake-up costs the GUI thread a trip through the event loop); it wakes it for the first
    piece and for the events that must not wait (the user's message, the end)."""
    ollama_server.chunk_delay_s = 0.004
    pieces = [f"w{i} " for i in range(150)]  # ≈ 0.6 s of streaming
    ollama_server.script(text_lines(pieces))
    runner = AgentRunner(Assembly())
    runner.set_batch_ms(40)
    runner._ensure_thread()
    queue = runner._worker.queue
    wakes: list[object] = []
    real_put = queue.put

    def put(ev: object) -> bool:  # the worker's side: True wakes the GUI thread
        wake = real_put(ev)
        if wake:
            wakes.append(ev)
        return wake

    queue.put = put  # type: ignore[method-assign]
    texts: list[str] = []
    runner.turn_event.connect(lambda ev: texts.append(ev.text) if isinstance(ev, TextDelta) else None)
    try:
        runner.start_turn(ChatSession(Conversation()), "say 150 words",
                          Settings(ollama_host=ollama_server.url, tools_enabled=False))
        qtbot.waitUntil(lambda: not runner.busy, timeout=30_000)
    finally:
        assert runner.shutdown(2.0)
    assert "".join(texts) == "".join(pieces)
    assert len(texts) >= 5  # the text came in batches while it streamed
    woken_by_text = [ev for ev in wakes if isinstance(ev, TextDelta)]
    assert len(woken_by_text) <= 2  # the first piece (and one after a pause); was one per batch
