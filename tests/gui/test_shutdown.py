"""Quitting mid-answer and start-up cost, in a subprocess running the real ``run_gui`` (issue 3).

Shared case 37-gui-qthread-destroyed-on-exit.json: closing the window (or QApplication.quit()) while
the worker streams must cancel, wait (bounded) and exit 0 — no abort, no "QThread: Destroyed while thread
is still running" — with the partial answer saved as interrupted.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from desktop_agent.core.store import ConversationStore
from tests.helpers.replies import text_lines, tool_call_lines

ROOT = Path(__file__).resolve().parents[2]

DRIVER = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {root!r})
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    from desktop_agent.ui import application, main_window

    mode, url, wait_for = sys.argv[1], sys.argv[2], sys.argv[3]
    app = QApplication([sys.argv[0]])
    t0 = None

    def window():
        return next(x for x in app.topLevelWidgets() if isinstance(x, main_window.MainWindow))

    def ready():
        w = window()
        if wait_for == "text":
            live = w.chat.live
            return live is not None and live.text_content() or any(
                getattr(p, "buffer", "") for p in (live.parts if live else []))
        return any(r.status == "running" for r in w.sidebar.runs.values())

    def drive():
        w = window()
        w.send("tell me a long story")
        def poll():
            global t0
            if not ready():
                QTimer.singleShot(50, poll)
                return
            print("CONV", w.conversation.id, flush=True)
            t0 = time.monotonic()
            if mode == "close":
                w.close()
            else:
                QApplication.quit()
        QTimer.singleShot(50, poll)

    QTimer.singleShot(200, drive)
    extra = {{"tools.dirs": [sys.argv[4]]}} if len(sys.argv) > 4 else {{}}
    code = application.run_gui([sys.argv[0]], {{"ollama.host": url, **extra}})
    print("CLOSE_S", time.monotonic() - t0, flush=True)
    sys.exit(code)
    """
).format(root=str(ROOT))


def _run(tmp_path: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER, encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_AGENT_HOME": str(tmp_path / "home"),
           "PYTHONPATH": str(ROOT)}
    env.pop("OLLAMA_HOST", None)
    return subprocess.run([sys.executable, str(script), *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def _close_seconds(out: str) -> float:
    return float(next(line.split()[1] for line in out.splitlines() if line.startswith("CLOSE_S")))


def _conversation(tmp_path: Path, out: str):
    conv_id = next(line.split()[1] for line in out.splitlines() if line.startswith("CONV"))
    store = ConversationStore(tmp_path / "home" / "data" / "conversations.sqlite3")
    try:
        return store.load(conv_id)
    finally:
        store.close()


@pytest.mark.parametrize("mode", ["close", "quit"])
def test_quit_mid_stream_exits_cleanly_and_keeps_partial(tmp_path, ollama_server, mode):
    """Shared case 37-gui-qthread-destroyed-on-exit.json (window close, and QApplication.quit())."""
    ollama_server.chunk_delay_s = 0.2  # one delta every 200 ms for 30 s
    ollama_server.script(text_lines([f"part{i} " for i in range(150)]))
    proc = _run(tmp_path, mode, ollama_server.url, "text")
    assert proc.returncode == 0, proc.stderr
    assert "QThread: Destroyed" not in proc.stderr
    assert "Traceback" not in proc.stderr
    assert _close_seconds(proc.stdout) < 2.0
    conv = _conversation(tmp_path, proc.stdout)
    last = conv.messages[-1]
    assert last.role == "assistant" and last.status == "interrupted"
    assert last.content.startswith("part0 ")
    assert [m.role for m in conv.messages] == ["user", "assistant"]


def test_quit_while_a_tool_hangs(tmp_path, ollama_server, tools_dir):
    """Shared case 28-agent-tool-hangs.json: closing the app while a tool sleeps exits cleanly even
    though the tool's thread is still sleeping."""
    ollama_server.script(tool_call_lines("hang"))
    proc = _run(tmp_path, "close", ollama_server.url, "tool", str(tools_dir))
    assert proc.returncode == 0, proc.stderr
    assert "QThread: Destroyed" not in proc.stderr
    assert _close_seconds(proc.stdout) < 2.0
    conv = _conversation(tmp_path, proc.stdout)
    assert conv.messages[-1].role == "tool" and conv.messages[-1].tool_status == "cancelled"


def test_window_shows_before_heavy_imports(tmp_path):
    """Start-up: openai, ollama, keyring, markdown-it and Pygments are not imported before the window
    is visible (markdown-it and Pygments load after its first frame; the server check needs no client)."""
    code = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        from desktop_agent.ui import application, main_window
        app = QApplication([sys.argv[0]])
        heavy = ("openai", "ollama", "keyring", "markdown_it", "pygments")
        def check():
            w = next(x for x in app.topLevelWidgets() if isinstance(x, main_window.MainWindow))
            print("VISIBLE", w.isVisible())
            print("AT_SHOW", sorted(m for m in heavy if m in sys.modules))
            QTimer.singleShot(100, lambda: later(w, 0))
        def later(w, tries):  # the deferred work follows the first frame: wait for it (up to 20 s)
            if "pygments" not in sys.modules and tries < 200:
                QTimer.singleShot(100, lambda: later(w, tries + 1))
                return
            print("LATER", sorted(m for m in heavy if m in sys.modules))
            w.close()
        QTimer.singleShot(0, check)
        sys.exit(application.run_gui([sys.argv[0]], {{"ollama.host": "http://127.0.0.1:9"}}))
        """
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_AGENT_HOME": str(tmp_path / "home")}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert "VISIBLE True" in proc.stdout
    assert "AT_SHOW []" in proc.stdout
    later = next(line for line in proc.stdout.splitlines() if line.startswith("LATER"))
    assert "markdown_it" in later and "pygments" in later  # warmed up after the window showed
    assert "ollama" not in later and "openai" not in later  # the server check asked with plain HTTP


def test_desktop_agent_command_with_ollama_host(tmp_path, ollama_server):
    """Issue 3, done when: ``desktop-agent`` (no sub-command) with OLLAMA_HOST pointing at a local
    protocol server; a typed message streams an answer and a tool call shows with its duration."""
    code = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        from desktop_agent import app as cli
        from desktop_agent.ui import application, main_window
        qapp = QApplication([sys.argv[0]])

        def drive():
            w = next(x for x in qapp.topLevelWidgets() if isinstance(x, main_window.MainWindow))
            w.input.setPlainText("What day of the week is 2024-03-05?")
            w.send_button.click()
            def done():
                # a message sent during start-up goes once the window is built (its services are made off the
                # GUI thread meanwhile)
                if not w.built or w.busy or not w.conversation.messages:
                    QTimer.singleShot(50, done)
                    return
                runs = list(w.sidebar.runs.values())
                print("HOST", w.settings.ollama.host)
                print("TOOLS", [(r.name, r.status, w.sidebar._items[r.call_id].text(3)) for r in runs])
                print("ANSWER", w.chat.blocks[-1].text_content())
                w.close()
            QTimer.singleShot(50, done)

        QTimer.singleShot(200, drive)
        sys.exit(cli.main([]))
        """
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_AGENT_HOME": str(tmp_path / "home"),
           "OLLAMA_HOST": ollama_server.url.removeprefix("http://")}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert f"HOST {ollama_server.url}" in proc.stdout
    tools_line = next(line for line in proc.stdout.splitlines() if line.startswith("TOOLS"))
    assert "'day_of_week', 'ok'" in tools_line
    assert re.search(r"'day_of_week', 'ok', '[0-9.,]+ (ms|s)'\)", tools_line)  # a first call may wait for the tool host
    assert "Tuesday" in next(line for line in proc.stdout.splitlines() if line.startswith("ANSWER"))
