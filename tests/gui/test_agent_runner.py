"""The worker bridge through the window: approvals, Stop during a hung tool, the OpenAI-compatible
backend with a rate limit, and the runner's own guarantees."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QThread

from desktop_agent.core.assembly import Assembly
from desktop_agent.core.events import Notice, TextDelta
from desktop_agent.core.messages import Conversation
from desktop_agent.core.session import ChatSession
from desktop_agent.core.settings import Settings
from desktop_agent.core.store import ConversationStore
from desktop_agent.ui.agent_runner import AgentRunner, ApprovalRequest, TurnEnded, TurnStarted
from desktop_agent.ui.chat.cards import ApprovalCard
from tests.helpers.gui import last_turn_text, wait_idle
from tests.helpers.replies import tool_call_lines
from tests.servers.openai import HttpError


def _approval_card(w):
    turn = w.chat.live
    return next((p for p in (turn.parts if turn else []) if isinstance(p, ApprovalCard)), None)


def test_tool_needing_approval_runs_when_allowed(qtbot, make_window, ollama_server, tools_dir):
    ollama_server.script(tool_call_lines("delete_everything", {"path": "/tmp/x"}))
    w = make_window(Settings(ollama_host=ollama_server.url, tools_dirs=[str(tools_dir)]))
    w.send("clean up")
    qtbot.waitUntil(lambda: _approval_card(w) is not None, timeout=5000)
    card = _approval_card(w)
    assert "delete_everything" in card.accessibleName() and w.busy
    card.allow.click()
    wait_idle(qtbot, w)
    run = next(iter(w.sidebar.runs.values()))
    assert run.status == "ok" and "deleted /tmp/x" in run.result
    assert card.result.text() == "Allowed by user (once)"


def test_tool_needing_approval_denied(qtbot, make_window, ollama_server, tools_dir):
    ollama_server.script(tool_call_lines("delete_everything", {"path": "/"}))
    w = make_window(Settings(ollama_host=ollama_server.url, tools_dirs=[str(tools_dir)]))
    w.send("clean up")
    qtbot.waitUntil(lambda: _approval_card(w) is not None, timeout=5000)
    _approval_card(w).deny.click()
    wait_idle(qtbot, w)
    run = next(iter(w.sidebar.runs.values()))
    assert run.status == "denied"
    assert w.sidebar._items[run.call_id].text(0) == "denied"


def test_stop_while_a_tool_hangs(qtbot, make_window, ollama_server, tools_dir):
    """Shared case 28-agent-tool-hangs.json (user variant): Stop 0.5 s after the tool starts ends the
    run promptly, the GUI stays responsive, the call is marked cancelled."""
    ollama_server.script(tool_call_lines("hang"))
    w = make_window(Settings(ollama_host=ollama_server.url, tools_dirs=[str(tools_dir)]))
    w.send("run the tests")
    qtbot.waitUntil(lambda: any(r.status == "running" for r in w.sidebar.runs.values()), timeout=5000)
    qtbot.wait(500)
    w.stop()
    wait_idle(qtbot, w, 3000)
    run = next(iter(w.sidebar.runs.values()))
    assert run.status == "cancelled"
    assert w.chat.blocks[-1].chips[run.call_id].status == "cancelled"
    msgs = ConversationStore().load(w.conversation.id).messages
    assert msgs[-1].role == "tool" and msgs[-1].tool_status == "cancelled"


def test_openai_backend_rate_limit_notice_then_answer(qtbot, make_window, openai_server, monkeypatch):
    """Shared case 20-openai-429-retry-after.json: a transient 'rate limited — retrying' notice, then
    the answer."""
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    openai_server.script(HttpError(429, headers={"retry-after": "1"}))
    settings = Settings(backend="openai", openai_base_url=openai_server.url, openai_model="local-model",
                        openai_needs_key=False, openai_retry_interval_s=0.1, tools_enabled=False)
    w = make_window(settings)
    seen: list[object] = []
    w.runner.turn_event.connect(seen.append)
    w.send("hi")
    wait_idle(qtbot, w, 10_000)
    notices = [e.text for e in seen if isinstance(e, Notice)]
    assert notices and "retrying" in notices[0].lower()
    assert last_turn_text(w) == "You said: hi"
    assert not w.chat.blocks[-1].notice.isVisibleTo(w.chat.blocks[-1])


def test_runner_events_arrive_in_gui_thread_and_turn_ends(qtbot, ollama_server):
    """One signal carries every event, delivered in the GUI thread; TurnEnded always comes last."""
    runner = AgentRunner(Assembly())
    threads: list[bool] = []
    events: list[object] = []

    def on_event(ev):
        threads.append(QThread.currentThread() == runner.thread())  # the GUI thread
        events.append(ev)

    runner.turn_event.connect(on_event)
    try:
        settings = Settings(ollama_host=ollama_server.url, tools_enabled=False)
        runner.start_turn(ChatSession(Conversation()), "ping", settings)
        assert runner.busy
        qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
        assert isinstance(events[0], TurnStarted) and isinstance(events[-1], TurnEnded)
        assert events[-1].outcome == "finished"
        assert any(isinstance(e, TextDelta) for e in events)
        assert all(threads)
    finally:
        assert runner.shutdown(2.0)


def test_runner_refuses_a_second_turn_and_after_shutdown(qtbot, ollama_server):
    ollama_server.chunk_delay_s = 0.05
    runner = AgentRunner(Assembly())
    s = Settings(ollama_host=ollama_server.url, tools_enabled=False)
    try:
        runner.start_turn(ChatSession(Conversation()), "one", s)
        with pytest.raises(RuntimeError, match="already running"):
            runner.start_turn(ChatSession(Conversation()), "two", s)
    finally:
        assert runner.shutdown(2.0)
    with pytest.raises(RuntimeError, match="shut down"):
        runner.start_turn(ChatSession(Conversation()), "three", s)


def test_approval_request_answer_once():
    from desktop_agent.core.tools.definition import Tool

    def t() -> str:
        """A tool."""
        return ""

    req = ApprovalRequest(Tool(t), {})
    req.answer("once")
    req.answer("deny")
    assert req._answer.choice == "once" and req.answered
    assert isinstance(req._done, threading.Event)
