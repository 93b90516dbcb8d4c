"""Issue 20 in the window: the sidebar says which tools the message was offered and why, and a model call that
shows nothing for a while says the server is reading the prompt (a real Ollama-protocol server on 127.0.0.1
that waits before its first byte)."""

from __future__ import annotations

from desktop_agent.core.events import RequestSent
from desktop_agent.core.settings import Settings
from tests.helpers.gui import wait_idle
from tests.helpers.replies import text_lines


def test_the_sidebar_says_which_tools_were_offered_and_why(qtbot, make_window, ollama_server):
    ollama_server.script(text_lines(["Paris."]), text_lines(["Fine."]))
    w = make_window(Settings(ollama_host=ollama_server.url))
    w.send("What is the capital of France?")
    wait_idle(qtbot, w)
    assert w.sidebar.offered.isVisible()
    assert w.sidebar.offered.text() == "No tools offered — no tool fits the message"
    assert "tools" not in ollama_server.chat_requests[-1]  # none went to the model either
    w.send("What day of the week was 2024-03-15?")
    wait_idle(qtbot, w)
    assert w.sidebar.offered.text().startswith("Offered: day_of_week — matched ")
    assert [t["function"]["name"] for t in ollama_server.chat_requests[-1]["tools"]] == ["day_of_week"]


def test_a_slow_first_byte_says_the_model_is_reading_the_prompt(qtbot, make_window, ollama_server, monkeypatch):
    monkeypatch.setattr(RequestSent, "QUIET_S", 0.5)
    ollama_server.first_chunk_delay_s = 2.0
    ollama_server.script(text_lines(["Hello", " there."]))
    w = make_window(Settings(ollama_host=ollama_server.url))
    w.send("Say hello")
    qtbot.waitUntil(lambda: w.chat.live is not None and w.chat.live.notice.isVisible(), timeout=5000)
    assert w.chat.live.notice.text().startswith("The model is reading the prompt (")
    assert "tokens)…" in w.chat.live.notice.text()
    turn = w.chat.live
    wait_idle(qtbot, w)
    assert not turn.notice.isVisible()  # the answer came: the notice went
