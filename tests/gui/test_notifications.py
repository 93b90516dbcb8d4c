"""A desktop notification when a long answer ends while the window is not active (issue 25), over a REAL session
D-Bus: the test registers a small ``org.freedesktop.Notifications`` service (its ``Notify`` with the real signature
``susssasa{sv}i``) on the session bus — the one of ``scripts/with-keyring.sh``'s ``dbus-run-session`` when pytest
runs in it, else a ``dbus-daemon`` of the test's own — and checks what arrives. No bus: no crash, nothing shown."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

from desktop_agent.ui import notify
from tests.helpers.gui import wait_idle
from tests.helpers.replies import text_lines

ROOT = Path(__file__).resolve().parents[2]


class Service:
    """The notification service (tests/helpers/notification_service.py) as a process: what it received."""

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.received: list[dict] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("NOTIFY "):
                self.received.append(json.loads(line.removeprefix("NOTIFY ")))


@pytest.fixture
def session_bus(monkeypatch):
    """The address of a real session bus: the one pytest runs in, or a private ``dbus-daemon`` started here."""
    address = os.environ.get("DBUS_SESSION_BUS_ADDRESS", "")
    daemon = None
    if not address:
        if not shutil.which("dbus-daemon"):
            pytest.fail("no session bus and no dbus-daemon (apt: dbus-daemon); run under scripts/with-keyring.sh")
        daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        address = daemon.stdout.readline().strip()
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
    yield address
    if daemon is not None:
        daemon.terminate()
        daemon.wait(timeout=10)


@pytest.fixture
def service(session_bus):
    """The notification service, registered on the session bus by a process of its own."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.helpers.notification_service"], cwd=str(ROOT),
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline().strip()
    assert first == "ready", first + proc.communicate()[1]
    yield Service(proc)
    proc.terminate()
    proc.wait(timeout=10)


def _in_background(qtbot, w) -> QWidget:
    """Another window takes the focus (as another app's would): the main window is not active."""
    other = QWidget()
    other.setWindowTitle("another app")
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: other.isActiveWindow() and not w.isActiveWindow(), timeout=3000)
    w.other = other  # kept alive with the window
    return other


def test_a_long_answer_in_the_background_is_notified(qtbot, make_window, ollama_settings, ollama_server, service):
    """The default threshold (10 s): the scripted answer takes ~11 s."""
    ollama_server.chunk_delay_s = 2.8
    ollama_server.script(text_lines(["The long ", "answer ", "is here."]))
    w = make_window(ollama_settings)
    sent: list = []
    w.notifier.notified.connect(lambda *a: sent.append(a))
    w.send("tell me something long")
    _in_background(qtbot, w)
    wait_idle(qtbot, w, timeout=40_000)
    qtbot.waitUntil(lambda: len(service.received) == 1, timeout=10_000)
    got = service.received[0]
    assert got["app_name"] == "Desktop Agent" and got["replaces_id"] == 0 and got["expire_timeout"] == -1
    assert got["summary"].startswith("The answer is ready")
    assert got["body"] == "The long answer is here."
    assert got["hints"]["desktop-entry"] == "desktop-agent"
    qtbot.waitUntil(lambda: bool(sent), timeout=5000)
    assert sent[0][2] == "dbus"


def test_a_short_answer_is_not_notified(qtbot, make_window, ollama_settings, ollama_server, service):
    ollama_server.script(text_lines(["Quick."]))
    w = make_window(ollama_settings)
    _in_background(qtbot, w)
    w.send("hi")
    wait_idle(qtbot, w, timeout=15_000)
    qtbot.wait(500)  # a notification would be on its way by now (the call takes milliseconds)
    assert service.received == []


def test_no_notification_while_the_window_is_active_or_when_turned_off(qtbot, make_window, ollama_settings,
                                                                      ollama_server, service, monkeypatch):
    monkeypatch.setattr(notify, "LONG_ANSWER_S", 0.0)  # every answer counts as long: only the other rules decide
    ollama_server.script(text_lines(["One."]))
    ollama_server.script(text_lines(["Two."]))
    ollama_server.script(text_lines(["Three."]))
    w = make_window(ollama_settings)
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=3000)
    w.send("first")
    wait_idle(qtbot, w, timeout=15_000)
    w.controller.update_settings({"desktop.notifications": False})
    _in_background(qtbot, w)
    w.send("second")
    wait_idle(qtbot, w, timeout=15_000)
    qtbot.wait(500)
    assert service.received == []
    w.controller.update_settings({"desktop.notifications": True})  # the control: on, in the background
    w.send("third")
    wait_idle(qtbot, w, timeout=15_000)
    qtbot.waitUntil(lambda: len(service.received) == 1, timeout=10_000)
    assert service.received[0]["body"] == "Three."


def test_no_bus_no_crash_nothing_shown(qtbot, make_window, ollama_settings, ollama_server, monkeypatch):
    monkeypatch.setattr(notify, "LONG_ANSWER_S", 0.0)
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/nonexistent")  # nor the default bus socket
    ollama_server.script(text_lines(["Fine."]))
    w = make_window(ollama_settings)
    shown: list = []
    why: list = []
    w.notifier.notified.connect(lambda *a: shown.append(a))
    w.notifier.failed.connect(why.append)
    _in_background(qtbot, w)
    w.send("hi")
    wait_idle(qtbot, w, timeout=15_000)
    qtbot.waitUntil(lambda: bool(why), timeout=10_000)
    assert shown == []
    assert w.isVisible() and not w.busy  # the window goes on


def test_the_call_reaches_a_service_directly(service, qtbot):
    """The D-Bus call alone: the service's id for it comes back."""
    assert notify.send_notification("T", "B") == 1
    qtbot.waitUntil(lambda: bool(service.received), timeout=10_000)
    assert service.received[0]["summary"] == "T" and service.received[0]["body"] == "B"


def test_the_models_text_is_shown_as_text_not_markup(service, qtbot):
    """From the breaker: the body may carry markup; an answer's `<b>` or `&` is escaped."""
    notify.send_notification("T", "Use <b>x</b> & y")
    qtbot.waitUntil(lambda: bool(service.received), timeout=10_000)
    assert service.received[0]["body"] == "Use &lt;b&gt;x&lt;/b&gt; &amp; y"
