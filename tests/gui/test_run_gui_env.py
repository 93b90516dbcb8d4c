"""Starting the window where it cannot open, and stopping it from the terminal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from desktop_agent.ui.application import display_problem


def _env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update({"DESKTOP_AGENT_HOME": str(tmp_path / "home"), "OLLAMA_HOST": "127.0.0.1:9"}, **extra)
    return env


def test_display_problem_reasons():
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}) is None
    assert "no display" in display_problem({})
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}) is None


def test_no_display_is_one_clear_line_not_a_qt_abort(tmp_path):
    """Over SSH with no display, Qt would abort with a core dump (exit 134); we say why and exit 1."""
    proc = subprocess.run([sys.executable, "-m", "desktop_agent"], env=_env(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert "no display found" in proc.stderr and "desktop-agent chat" in proc.stderr


def test_ctrl_c_in_the_terminal_closes_the_window_cleanly(tmp_path):
    """SIGINT closes the window like Ctrl+Q: exit 0, no traceback, no Qt noise on stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "desktop_agent"], env=_env(tmp_path, QT_QPA_PLATFORM="offscreen"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log = tmp_path / "home" / "log" / "desktop-agent.log"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (log.exists() and "starting desktop-agent" in log.read_text()):
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "propagateSizeHints" not in err
