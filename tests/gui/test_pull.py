"""PullController against the local Ollama protocol server (tests/servers/ollama.py): a pull runs through
the assembly on a TaskRunner and ends in exactly one of finished / failed / cancelled."""

from __future__ import annotations

import pytest

from desktop_agent.core.assembly import Assembly
from desktop_agent.core.settings import Settings
from desktop_agent.ui.pull import PullController
from desktop_agent.ui.tasks import TaskRunner
from tests.helpers.gui import last_turn_text, wait_idle
from tests.servers.ollama import ollama_server  # noqa: F401 (fixture)

WAIT_MS = 10_000


class _Recorder:
    def __init__(self, controller: PullController):
        self.progress: list[tuple[str, int | None, int | None]] = []
        self.ends: list[tuple[str, object]] = []
        controller.progress.connect(lambda s, c, t: self.progress.append((s, c, t)))
        controller.finished.connect(lambda name: self.ends.append(("finished", name)))
        controller.failed.connect(lambda text: self.ends.append(("failed", text)))
        controller.cancelled.connect(lambda: self.ends.append(("cancelled", None)))


@pytest.fixture
def controller(qtbot):
    tasks = TaskRunner()
    pull = PullController(Assembly(), tasks)
    yield pull
    pull.cancel()
    pull.wait(5)
    tasks.close()


def test_start_reports_progress_then_finished(qtbot, controller, ollama_server):  # noqa: F811
    ollama_server.pull_delay_s = 0.03
    ollama_server.pull_steps = 5
    seen = _Recorder(controller)
    settings = Settings(backend="openai").updated({"ollama.host": ollama_server.url})
    assert controller.start(settings, "qwen3:0.6b")
    assert controller.busy and controller.model == "qwen3:0.6b"
    assert not controller.start(settings, "other")  # one pull at a time
    qtbot.waitUntil(lambda: bool(seen.ends), timeout=WAIT_MS)
    assert seen.ends == [("finished", "qwen3:0.6b")]
    assert not controller.busy and controller.model is None
    assert seen.progress[0][0] == "pulling manifest"
    sized = [(c, t) for _s, c, t in seen.progress if t]
    assert sized and any(isinstance(c, int) and 0 < c <= t for c, t in sized)
    assert seen.progress[-1][0] == "success"
    assert ollama_server.has_model("qwen3:0.6b")
    assert ("/api/pull", {"model": "qwen3:0.6b", "stream": True}) in ollama_server.requests


def test_cancel_closes_the_stream_and_reports_cancelled(qtbot, controller, ollama_server):  # noqa: F811
    ollama_server.pull_delay_s = 0.1
    ollama_server.pull_steps = 100
    seen = _Recorder(controller)
    assert controller.start(Settings().updated({"ollama.host": ollama_server.url}), "big-model:70b")
    qtbot.waitUntil(lambda: any(t for _s, _c, t in seen.progress), timeout=WAIT_MS)
    controller.cancel()
    qtbot.waitUntil(lambda: bool(seen.ends), timeout=WAIT_MS)
    assert seen.ends == [("cancelled", None)]
    assert not controller.busy
    qtbot.waitUntil(lambda: ollama_server.disconnects >= 1, timeout=WAIT_MS)
    assert not ollama_server.has_model("big-model:70b")
    assert controller.wait(0)


def test_a_failing_pull_reports_the_server_error(qtbot, controller, ollama_server):  # noqa: F811
    ollama_server.pull_error = "pull model manifest: file does not exist"
    seen = _Recorder(controller)
    assert controller.start(Settings().updated({"ollama.host": ollama_server.url}), "no-such-model")
    qtbot.waitUntil(lambda: bool(seen.ends), timeout=WAIT_MS)
    kind, text = seen.ends[0]
    assert kind == "failed" and "file does not exist" in str(text)
    assert len(seen.ends) == 1 and not controller.busy


def test_new_chat_during_the_error_cards_pull(qtbot, make_window, ollama_server):  # noqa: F811
    from tests.helpers.gui import wait_idle

    errors = []
    import sys
    old_hook = sys.excepthook
    sys.excepthook = lambda *a: errors.append(a[1])
    try:
        ollama_server.strict_models = True
        ollama_server.pull_delay_s = 0.2
        w = make_window(Settings(ollama_host=ollama_server.url, ollama_model="llama2"))
        w.send("hello")
        wait_idle(qtbot, w)
        card = w.chat.error_cards()[0]
        card.buttons["Pull llama2"].click()
        qtbot.waitUntil(lambda: card.cancel_button.isVisible(), timeout=3000)
        w.new_chat()  # idle: no question; the card is deleted
        qtbot.waitUntil(lambda: not w.pull.busy, timeout=15_000)
        qtbot.wait(1500)
    finally:
        sys.excepthook = old_hook
    # FAULT(s): RuntimeError on the deleted card; and/or the pull's retry runs in the NEW chat
    assert not errors, [repr(e) for e in errors]
    assert not w.conversation.messages, [(m.role, m.content) for m in w.conversation.messages]


@pytest.mark.usefixtures("clean_keyring_state")
def test_after_pull_the_retried_turn_uses_the_listed_model_name(qtbot, make_window, ollama_server):  # noqa: F811
    """Pull from the error card, then the automatic retry: the answer said "llama2" while the picker
    and the status bar said "llama2:latest" (the retry started before the models were listed)."""
    ollama_server.strict_models = True
    w = make_window(Settings(ollama_host=ollama_server.url, ollama_model="llama2"))
    w.send("hello")
    wait_idle(qtbot, w)
    w.chat.error_cards()[0].buttons["Pull llama2"].click()
    qtbot.waitUntil(lambda: not w.chat.error_cards() and not w.busy and bool(last_turn_text(w)), timeout=10_000)
    assert ollama_server.chat_requests[-1]["model"] == "llama2:latest"
    assert w.model_combo.currentText() == "llama2:latest"
    assert "llama2:latest" in w.backend_label.text() and "llama2:latest" in w.chat.blocks[-1].meta.text()
