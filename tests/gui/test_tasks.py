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


def test_a_finished_task_no_longer_touches_the_runner(qtbot):
    """A task was marked finished before it handed its result to the runner: a dialog that waited for its
    tasks and was then deleted could be emitted on by a thread still on its way out (a segfault)."""
    from PySide6.QtCore import Qt

    tasks = TaskRunner()
    finished_at_emit: list[bool] = []
    tasks._done.connect(lambda t, *_: finished_at_emit.append(t.finished.is_set()),
                        Qt.ConnectionType.DirectConnection)  # runs on the task's thread, at the emit
    tasks.run(lambda _t: "ok", lambda r, e: None)
    assert tasks.wait(5)
    assert finished_at_emit == [False]  # handed over first, finished after


def test_a_task_ending_after_close_emits_nothing(qtbot):
    from PySide6.QtCore import Qt

    tasks = TaskRunner()
    release = threading.Event()
    emitted: list[object] = []
    tasks._done.connect(lambda *args: emitted.append(args), Qt.ConnectionType.DirectConnection)
    tasks.run(lambda _t: release.wait(5), lambda r, e: None)
    tasks.close()
    release.set()
    assert tasks.wait(5)
    qtbot.wait(50)
    assert emitted == []
