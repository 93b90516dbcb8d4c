"""Start-up: the window paints its first frame before the deferred work (keyring, store, history, server
check, markdown), what the user does meanwhile is kept, and the window starts without arguments parsed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop_agent.core.settings import Settings
from desktop_agent.ui import main_window
from desktop_agent.ui.first_frame import after_first_frame
from tests.gui.conftest import text_lines, wait_idle

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def new_window(qtbot, monkeypatch):
    """``new_window(settings)``: a MainWindow shown, the event loop not run yet (nothing deferred has run);
    its deferred work comes only with its first frame (the fallback timer is out of the way)."""
    monkeypatch.setattr(main_window, "LATE_INIT_FALLBACK_MS", 600_000)
    windows = []

    def make(settings: Settings | None = None):
        w = main_window.MainWindow(settings or Settings(), check_server=False)
        windows.append(w)
        w.resize(1100, 760)
        w.show()
        return w

    yield make
    for w in windows:
        w.close()
    for w in windows:
        w.deleteLater()


def test_the_first_frame_comes_before_the_deferred_work(new_window, qtbot):
    w = new_window()
    seen: list[tuple[bool, object]] = []
    after_first_frame(w, lambda: seen.append((w._late_started, w.store)))
    assert not w.ready and w.store is None
    qtbot.waitUntil(lambda: w.ready, timeout=10_000)
    assert seen == [(False, None)]  # painted with nothing of the deferred work done
    assert w.store and w.history_panel is not None  # ... which then ran, through the first frame


def test_typing_and_sending_before_the_window_is_ready(new_window, qtbot, ollama_server):
    """Text typed at once is kept; a message sent before the store and keys are there waits and then goes
    (saved with the chat like any other)."""
    ollama_server.script(text_lines(["Paris."]))
    w = new_window(Settings(ollama_host=ollama_server.url, ollama_model="llama3.2", tools_enabled=False))
    qtbot.keyClicks(w.input, "early words")
    assert w.input.toPlainText() == "early words"
    w.input.clear()
    w.input.setPlainText("Capital of France?")
    if not w.ready:  # keyClicks may have let the loop run: send now, before the rest has started
        w._send_text(w.input.toPlainText())
        assert not w.ready and not w.busy and w.input.toPlainText() == ""
    else:  # pragma: no cover - the loop ran the deferred work already
        qtbot.keyClick(w.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: w.ready, timeout=10_000)
    qtbot.waitUntil(lambda: len(w.conversation.messages) >= 2, timeout=10_000)
    wait_idle(qtbot, w)
    assert [m.role for m in w.conversation.messages] == ["user", "assistant"]
    assert w.conversation.messages[0].content == "Capital of France?"
    assert w.store.load(w.conversation.id).messages[0].content == "Capital of France?"


def test_the_window_starts_without_building_the_command_line_parsers():
    code = ("import sys\nimport desktop_agent.app as app\napp._run_window = lambda: 0\n"
            "assert app.main([]) == 0\nprint(sorted(m for m in sys.modules if m.startswith('desktop_agent.cli')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
