"""Start-up: the window paints its first frame before the deferred work (keyring, store, history, server
check, markdown), what the user does meanwhile is kept, and the window starts without arguments parsed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop_agent.core.settings import Settings
from desktop_agent.ui import main_window, startup
from desktop_agent.ui.first_frame import after_first_frame
from tests.helpers.gui import wait_idle
from tests.helpers.replies import text_lines

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def new_window(qtbot, monkeypatch):
    """``new_window(settings)``: a MainWindow shown, the event loop not run yet (nothing deferred has run);
    its deferred work comes only with its first frame (the fallback timer is out of the way)."""
    monkeypatch.setattr(startup, "FALLBACK_MS", 600_000)
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
    after_first_frame(w, lambda: seen.append((w.startup.reached("store and history"), w.store)))
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


# ---- the staged start (run_gui): the window's frame first, from a glance at the settings file ------------


@pytest.fixture
def staged_window(qtbot, monkeypatch):
    """``staged_window()``: a MainWindow started as run_gui starts it — from :func:`glance` of the settings file
    — not shown yet; closed afterwards."""
    from desktop_agent.core.settings_glance import glance

    monkeypatch.setattr(startup, "FALLBACK_MS", 600_000)
    windows = []

    def make(**kwargs):
        seen = glance()
        assert seen is not None
        w = main_window.MainWindow(glance=seen, **kwargs)
        windows.append(w)
        w.resize(1100, 760)
        return w

    yield make
    for w in windows:
        w.close()
    for w in windows:
        w.deleteLater()


def _layout(w) -> dict[str, tuple[int, int, int, int]]:
    """Where the frame's parts are in the window (x, y, width, height)."""
    parts = {"toolbar": w.toolbar, "chat area": w.chat, "composer": w.composer, "status bar": w.statusBar(),
             "tool dock": w.tool_dock, "history dock": w.history_dock, "model picker": w.model_combo,
             "send": w.send_button}
    out = {}
    for name, widget in parts.items():
        top_left = widget.mapTo(w, widget.rect().topLeft())
        out[name] = (top_left.x(), top_left.y(), widget.width(), widget.height())
    return out


def test_the_first_frame_is_the_window_frame_and_nothing_moves_after_it(staged_window, qtbot):
    """The first frame shows the real frame — menus, toolbar with the saved backend and model, both docks, the
    composer, the status bar — from the glance; the rest is built after it, with the real settings, and no
    part of the frame moves or resizes."""
    Settings(backend="openai", openai_base_url="http://127.0.0.1:9/v1", openai_model="local-model").save()
    w = staged_window(check_server=False)
    first: list = []
    w.winId()  # the native window now: this test's look at the first frame comes before the window's own
    after_first_frame(w, lambda: first.append((w.built, w.settings, _layout(w), w.grab(),
                                               w.sidebar._details_built)))
    w.show()
    qtbot.waitUntil(lambda: w.ready, timeout=10_000)
    built, settings_then, layout_then, frame, sidebar_details = first[0]
    assert built is False and not isinstance(settings_then, Settings)  # painted before the schema was loaded
    assert sidebar_details is False and w.sidebar._details_built  # its list and details: after the first frame
    assert frame.width() >= 1000 and frame.height() >= 700
    assert isinstance(w.settings, Settings) and w.settings.openai.model == "local-model"
    assert w.model_combo.currentText() == "local-model" and w.backend_combo.currentData() == "openai"
    assert w.history_panel is not None and w.history_dock.widget() is w.history_panel
    qtbot.wait(50)  # let a layout change, if any, happen
    assert _layout(w) == layout_then


def test_a_message_sent_before_the_rest_is_built_waits_and_goes(staged_window, qtbot, ollama_server):
    ollama_server.script(text_lines(["Paris."]))
    Settings(ollama_host=ollama_server.url, ollama_model="llama3.2", tools_enabled=False).save()
    w = staged_window(check_server=False)
    w.input.setPlainText("Capital of France?")
    w._send_text(w.input.toPlainText())  # Enter, before the first frame: nothing but the frame exists
    assert not w.built and not w.ready and not w.busy and w.input.toPlainText() == ""
    w.show()
    qtbot.waitUntil(lambda: w.ready, timeout=10_000)
    qtbot.waitUntil(lambda: len(w.conversation.messages) >= 2, timeout=10_000)
    wait_idle(qtbot, w)
    assert [m.content for m in w.conversation.messages][:1] == ["Capital of France?"]
    assert w.store.load(w.conversation.id).messages[0].content == "Capital of France?"


def test_closing_before_the_rest_is_built_keeps_nothing_running(staged_window):
    w = staged_window(check_server=False)
    assert w.shutdown() is True and not w.built


@pytest.mark.expect_log("desktop_agent.ui", match="^could not open the conversation store")
def test_without_a_store_the_empty_history_dock_goes(staged_window, qtbot, monkeypatch):
    from desktop_agent.core import store

    def broken(*_a, **_k):
        raise OSError("disk full")

    monkeypatch.setattr(store, "ConversationStore", broken)
    w = staged_window(check_server=False)
    w.show()
    assert w.history_dock is not None  # in the first frame: the store is expected to open
    qtbot.waitUntil(lambda: w.ready, timeout=10_000)
    assert w.history_dock is None and w.store is False
    assert "History" not in [a.text().replace("&", "") for a in w.toolbar.actions()]


CHILD = """
import json, os, sys
import desktop_agent.ui.first_frame as first_frame

def noted(moment=None):
    heavy = ("pydantic", "desktop_agent.core.settings", "desktop_agent.core.messages", "desktop_agent.ui.chat.view",
             "markdown_it", "pygments", "openai", "ollama", "httpx", "keyring", "desktop_agent.cli")
    print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy or m in heavy
                            or any(m.startswith(h + ".") for h in heavy))), flush=True)
    os._exit(0)

first_frame.note_for_bench = noted
sys.argv = ["desktop-agent"]
from desktop_agent.app import main
main()
"""


def test_the_first_frame_of_the_app_comes_before_the_heavy_modules(tmp_path):
    """``desktop-agent`` paints its first frame before pydantic (the settings, the messages), the chat view, the
    model clients, markdown-it, Pygments, the keyring and the command-line parsers are imported (argparse itself
    comes with PySide6)."""
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen",
           "DESKTOP_AGENT_HOME": str(tmp_path), "DESKTOP_AGENT_BENCH_FIRST_PAINT": str(tmp_path / "painted")}
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_ollama_host_from_the_environment_is_used_once_the_settings_load(staged_window, qtbot, monkeypatch):
    """The glance shows the file's host (only in a tooltip); the settings loaded after the first frame layer
    ``OLLAMA_HOST`` over it, as core/assembly.py always does."""
    Settings(ollama_host="http://127.0.0.1:9").save()
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:7")
    w = staged_window(check_server=False)
    w.show()
    qtbot.waitUntil(lambda: w.ready, timeout=10_000)
    assert w.settings.ollama.host == "http://127.0.0.1:7" and w.saved.ollama.host == "http://127.0.0.1:9"
    assert "http://127.0.0.1:7" in w.backend_label.toolTip()
