"""The quick-ask window (issue 25, ``desktop-agent ask``): real widgets answering through the local Ollama protocol
server; the answer shows, the chat is saved like any other, Ctrl+Enter / Enter on an empty line opens it in the
main window. And the real command: ``desktop-agent ask TEXT`` alone (it is the app) and with the app running (the
running app shows it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt

from desktop_agent.ui.quick_ask import quick_ask_of
from tests.helpers.processes import app_log, close_app, wait_for
from tests.helpers.replies import text_lines, tool_call_lines

ROOT = Path(__file__).resolve().parents[2]


def _quick(qtbot, make_window, ollama_settings):
    w = make_window(ollama_settings)
    qa = quick_ask_of(w)
    qa.present()
    qtbot.waitExposed(qa)
    return w, qa


def test_the_answer_streams_in_and_the_chat_is_saved(qtbot, make_window, ollama_settings, ollama_server):
    ollama_server.script(text_lines(["The capital ", "of France ", "is **Paris**."]))
    w, qa = _quick(qtbot, make_window, ollama_settings)
    try:
        qa.line.setText("capital of France?")
        qtbot.keyClick(qa.line, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: "Paris" in qa.answer.toPlainText() and not qa.busy, timeout=15_000)
        text = qa.answer.toPlainText()
        assert "capital of France?\nThe capital of France is Paris." in text  # markdown rendered, below the question
        assert "**" not in text
        saved = w.store.load(qa.session.id)
        assert [m.role for m in saved.messages] == ["user", "assistant"]
        assert saved.messages[1].content == "The capital of France is **Paris**."
        qa.grab().save(str(Path(os.environ.get("QUICK_ASK_SHOT", "/tmp/quick_ask.png"))))
        # the main window's history lists it
        assert w.history_panel.model.row_of(saved.id) is not None
    finally:
        qa.close()
        qa.shutdown()


def test_ctrl_enter_opens_the_chat_in_the_main_window(qtbot, make_window, ollama_settings, ollama_server):
    ollama_server.script(text_lines(["Hello there."]))
    w, qa = _quick(qtbot, make_window, ollama_settings)
    try:
        qa.ask("hi")
        qtbot.waitUntil(lambda: not qa.busy and "Hello there." in qa.answer.toPlainText(), timeout=15_000)
        chat_id = qa.session.id
        w.showMinimized()
        qtbot.keyClick(qa.line, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: w.conversation.id == chat_id, timeout=5000)
        assert not w.isMinimized() and w.isVisible()
        assert not qa.isVisible()
        assert [m.content for m in w.conversation.messages] == ["hi", "Hello there."]
        assert qa.session is None  # the next shortcut press starts a new chat
    finally:
        qa.close()
        qa.shutdown()


def test_a_follow_up_continues_and_enter_on_an_empty_line_opens_it(qtbot, make_window, ollama_settings,
                                                                    ollama_server):
    ollama_server.script(text_lines(["One."]))
    ollama_server.script(text_lines(["Two."]))
    w, qa = _quick(qtbot, make_window, ollama_settings)
    try:
        qa.ask("first")
        qtbot.waitUntil(lambda: not qa.busy and "One." in qa.answer.toPlainText(), timeout=15_000)
        qa.line.setText("second")
        qtbot.keyClick(qa.line, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: not qa.busy and "Two." in qa.answer.toPlainText(), timeout=15_000)
        chat_id = qa.session.id
        assert len(w.store.load(chat_id).messages) == 4
        assert qa.answer.toPlainText().split("\n") == ["first", "One.", "second", "Two."]  # in order, each once
        qtbot.keyClick(qa.line, Qt.Key.Key_Return)  # empty line: open in the window
        qtbot.waitUntil(lambda: w.conversation.id == chat_id, timeout=5000)
    finally:
        qa.close()
        qa.shutdown()


def test_a_tool_call_needing_approval_is_asked_in_the_quick_ask(qtbot, make_window, ollama_settings, ollama_server,
                                                                tools_dir):
    ollama_server.script(tool_call_lines("delete_everything", {"path": "/tmp/x"}))
    ollama_server.script(text_lines(["Deleted."]))
    settings = ollama_settings.updated({"tools.dirs": [str(tools_dir)]})
    _w, qa = _quick(qtbot, make_window, settings)
    try:
        qa.ask("delete it")
        qtbot.waitUntil(qa.approval.isVisible, timeout=15_000)
        assert "delete_everything" in qa.approval_label.text()
        qa.allow_button.click()
        qtbot.waitUntil(lambda: not qa.busy, timeout=15_000)
        assert "Deleted." in qa.answer.toPlainText()
        assert not qa.approval.isVisible()
    finally:
        qa.close()
        qa.shutdown()


def test_a_failed_answer_says_why_and_keeps_the_question(qtbot, make_window, ollama_settings):
    from tests.helpers.gui import free_port

    settings = ollama_settings.updated({"ollama.host": f"http://127.0.0.1:{free_port()}"})  # nobody listens
    _w, qa = _quick(qtbot, make_window, settings)
    try:
        qa.ask("are you *there*?")
        qtbot.waitUntil(lambda: not qa.busy and "⚠" in qa.answer.toPlainText(), timeout=20_000)
        text = qa.answer.toPlainText()
        assert text.startswith("are you *there*?")  # shown as typed, not as markdown
        assert "Ollama" in text  # the error table's sentence (server not reachable)
        assert qa.status.text() == "The answer did not finish."
    finally:
        qa.close()
        qa.shutdown()


# ---- the real command -------------------------------------------------------------------------------


def _env(url: str) -> dict[str, str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT), "OLLAMA_HOST": url}
    env.pop("DESKTOP_AGENT_HOME", None)
    return env


def _saved_chats(data: Path) -> list:
    from desktop_agent.core.store import ConversationStore

    store = ConversationStore(data / "data" / "conversations.sqlite3")
    try:
        return [store.load(c.id) for c in store.list()]
    finally:
        store.close()


def test_ask_alone_is_the_app_and_saves_the_chat(tmp_path, ollama_server):
    ollama_server.script(text_lines(["Forty-two."]))
    data = tmp_path / "data"
    proc = subprocess.Popen([sys.executable, "-m", "desktop_agent", "--data-dir", str(data), "ask", "the answer?"],
                            env=_env(ollama_server.url), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: proc.poll() is not None or any(
            [m.content for m in c.messages] == ["the answer?", "Forty-two."] for c in _saved_chats(data)),
            what="the quick-ask chat saved")
        assert proc.poll() is None, proc.communicate()
        assert "single instance: listening" in app_log(data)  # the quick ask alone is the app: a later start joins it
        assert close_app(proc) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_ask_with_the_app_running_is_shown_by_it(tmp_path, ollama_server):
    ollama_server.script(text_lines(["Sure."]))
    data = tmp_path / "data"
    app = subprocess.Popen([sys.executable, "-m", "desktop_agent", "--data-dir", str(data)],
                           env=_env(ollama_server.url), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: "single instance: listening" in app_log(data) or app.poll() is not None, what="the app")
        assert app.poll() is None, app.communicate()
        done = subprocess.run([sys.executable, "-m", "desktop_agent", "--data-dir", str(data), "ask", "can you?"],
                              env=_env(ollama_server.url), capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        wait_for(lambda: any([m.content for m in c.messages] == ["can you?", "Sure."] for c in _saved_chats(data)),
                  what="the running app's quick-ask chat saved")
        assert "another start asked to ask" in app_log(data)
        assert close_app(app) == 0
    finally:
        if app.poll() is None:
            app.kill()


def test_ask_help_and_bad_usage(tmp_path):
    env = _env("http://127.0.0.1:9")
    shown = subprocess.run([sys.executable, "-m", "desktop_agent", "ask", "--help"], env=env, capture_output=True,
                           text=True, timeout=30)
    assert shown.returncode == 0 and "GNOME" in shown.stdout and "KDE" in shown.stdout
    bad = subprocess.run([sys.executable, "-m", "desktop_agent", "--data-dir", str(tmp_path), "ask", "--bogus"],
                         env=env, capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "usage: desktop-agent ask" in bad.stderr


def test_a_new_ask_starts_a_new_chat_and_one_during_an_answer_waits_in_the_line(qtbot, make_window, ollama_settings,
                                                                                  ollama_server):
    """From the breaker: `ask "…"` after an answer continued the old quick chat, and one during an answer was
    dropped without a trace."""
    ollama_server.chunk_delay_s = 0.05
    w, qa = _quick(qtbot, make_window, ollama_settings)
    try:
        qa.present("What is the capital of France?")
        qtbot.waitUntil(lambda: qa.busy, timeout=10_000)
        qa.present("And of Italy?")  # while the first answer streams
        assert qa.line.text() == "And of Italy?"
        qtbot.waitUntil(lambda: not qa.busy, timeout=15_000)
        first = qa.session.id
        qa.close()
        qa.present("What is the capital of Spain?")  # the shortcut again, later: a new chat
        qtbot.waitUntil(lambda: qa.session is not None and qa.session.id != first and not qa.busy, timeout=15_000)
        assert w.store.load(qa.session.id).messages[0].content == "What is the capital of Spain?"
        assert len(w.store.load(first).messages) == 2
    finally:
        qa.close()
        qa.shutdown()
