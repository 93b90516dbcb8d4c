"""ui/tasks.py: what the Settings dialog relies on — dropping a stale result, counting and waiting for the
threads still running after close."""

from __future__ import annotations

import threading

from desktop_agent.ui.tasks import TaskRunner


def test_a_dropped_task_delivers_nothing_and_a_newer_one_does(qtbot):
    tasks = TaskRunner()
    release = threading.Event()
    got: list[object] = []
    tasks.run(lambda _t: release.wait(5) and "old", lambda r, e: got.append(r), key="test")
    tasks.drop("test")  # the question it answers changed (the host was edited)
    release.set()
    tasks.run(lambda _t: "new", lambda r, e: got.append(r), key="test")
    qtbot.waitUntil(lambda: tasks.running == 0, timeout=5000)
    assert got == ["new"]


def test_wait_and_active_follow_the_threads_after_close(qtbot):
    tasks = TaskRunner()
    release = threading.Event()
    delivered: list[object] = []
    task = tasks.run(lambda t: release.wait(5), lambda r, e: delivered.append(r))
    assert tasks.active == 1
    tasks.close()
    assert task.cancelled
    assert not tasks.wait(0.05)  # still blocked
    release.set()
    assert tasks.wait(5) and tasks.active == 0
    qtbot.wait(50)
    assert delivered == []  # nothing is delivered after close
