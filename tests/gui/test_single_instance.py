"""One app per data folder (issue 25): a second start brings the running window to the front and exits 0; a hung
app makes the second start give up after ~2 s and say so; a socket left by a crashed app is taken over. Real
processes (``python -m desktop_agent``, offscreen), observed through the first app's log file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.processes import app_log, close_app, wait_for

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    for name in ("OLLAMA_HOST", "DESKTOP_AGENT_HOME"):
        env.pop(name, None)
    env["OLLAMA_HOST"] = "http://127.0.0.1:9"  # nothing answers: the server check fails fast, offline
    return env


def _start(data: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "desktop_agent", "--data-dir", str(data), *args], env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _run(data: Path, *args: str, timeout: float = 30, **env: str) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m", "desktop_agent", "--data-dir", str(data), *args],
                          env={**_env(), **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:  # say where it hangs: the faulthandler prints every thread's stack
        p.send_signal(signal.SIGABRT)
        out, err = p.communicate()
        raise AssertionError(f"the start did not end in {timeout} s; its stacks:\n{err[-6000:]}") from None
    done = subprocess.CompletedProcess(p.args, p.returncode, out, err)
    return done, time.monotonic() - t0


def _wait_started(data: Path, proc: subprocess.Popen) -> None:
    wait_for(lambda: "single instance: listening" in app_log(data) or proc.poll() is not None, what="the app's start")
    assert proc.poll() is None, proc.communicate()


@pytest.fixture
def first(tmp_path):
    """The first app (the window), started for a fresh data folder; closed at the end."""
    data = tmp_path / "data"
    proc = _start(data)
    try:
        _wait_started(data, proc)
        yield data, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGCONT)
            close_app(proc)


def test_second_start_brings_the_running_window_to_the_front_and_exits(first):
    data, proc = first
    done, took = _run(data, XDG_ACTIVATION_TOKEN="token-from-the-compositor")
    assert done.returncode == 0, done.stderr
    assert took < 10, f"the second start took {took:.1f} s"
    # Wayland: the compositor's token for the second start goes to the first, which raises its window with it
    wait_for(lambda: "passed the desktop's activation token (XDG_ACTIVATION_TOKEN)" in app_log(data), 15, "the token")
    wait_for(lambda: "brought to the front at another start's request" in app_log(data), 15, "the first window's log")
    assert "main windows in this app: 1" in app_log(data)  # one window, and it got the request
    assert proc.poll() is None  # the first app still runs
    assert close_app(proc) == 0


def test_a_hung_app_makes_the_second_start_give_up_after_about_two_seconds(first):
    data, proc = first
    proc.send_signal(signal.SIGSTOP)  # hung: the kernel still accepts connections, nobody answers
    try:
        done, took = _run(data, timeout=20)
    finally:
        proc.send_signal(signal.SIGCONT)
    assert done.returncode == 1
    assert "does not answer" in done.stderr and "waited 2 s" in done.stderr
    assert 1.8 <= took < 12, f"took {took:.1f} s"
    assert "brought to the front" not in app_log(data)  # no second window was made either: it exited
    assert close_app(proc) == 0


def test_a_crashed_apps_socket_is_taken_over(tmp_path):
    data = tmp_path / "data"
    crashed = _start(data)
    _wait_started(data, crashed)
    crashed.kill()  # SIGKILL: the socket file stays behind
    crashed.wait()
    crashed.communicate()
    app = _start(data)
    try:
        wait_for(lambda: app_log(data).count("single instance: listening") == 2 or app.poll() is not None,
                  what="the new app's start")
        assert app.poll() is None, app.communicate()
        assert "removed the stale socket a crashed app left" in app_log(data)
        done, _took = _run(data)
        assert done.returncode == 0, done.stderr
        wait_for(lambda: "brought to the front" in app_log(data), 15, "the new app's log")
    finally:
        assert close_app(app) == 0


def test_two_data_folders_are_two_apps(first, tmp_path):
    data, _proc = first
    other = tmp_path / "other"
    second = _start(other)
    try:
        _wait_started(other, second)  # it became an app of its own (a window), not a request to the first
        assert "brought to the front" not in app_log(data)
    finally:
        assert close_app(second) == 0


def test_the_check_is_cheap_when_no_app_runs(qapp, tmp_path):
    """Measured: the start-up cost of the check (connect, find nobody, listen) before the window is built."""
    from desktop_agent.ui import single_instance

    name = single_instance.server_name(tmp_path)
    t0 = time.perf_counter()
    found = single_instance.claim({"action": "show"}, name)
    took = time.perf_counter() - t0
    assert found.server is not None and found.server.listening
    try:
        print(f"single-instance check with no app running: {took * 1000:.1f} ms")
        assert took < 0.2, f"the check took {took * 1000:.0f} ms"
        assert single_instance.server_name(tmp_path) != single_instance.server_name(tmp_path / "x")
    finally:
        found.server.close()


def test_a_second_server_cannot_listen_where_one_listens(qapp, tmp_path):
    """From the breaker: with Qt's UserAccessOption, listening replaced a live app's socket (two apps, one store)."""
    from desktop_agent.ui.single_instance import InstanceServer, server_name

    name = server_name(tmp_path / "data")
    first, second = InstanceServer(name), InstanceServer(name)
    try:
        assert first.listen()
        assert not second.listen()  # the path is taken: this start must hand over, not listen too
    finally:
        first.close()
        second.close()


def test_a_huge_question_is_cut_to_what_the_quick_ask_holds(monkeypatch):
    """From the breaker: a 1 MB `ask` text made the running app drop the request and the start become a second
    app; the text is cut to the quick ask's line before it is handed over."""
    from desktop_agent.ui import single_instance

    sent: list[dict] = []
    monkeypatch.setattr(single_instance, "_send", lambda name, request, timeout: sent.append(request) or True)
    found = single_instance.claim({"action": "ask", "text": "x" * 1_100_000}, name="unused")
    assert found.handed_over
    assert len(sent[0]["text"]) == single_instance.MAX_TEXT
